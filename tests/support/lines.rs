//! Referee inputs as lines of the `tocada replay` format, for the store, PGN
//! and export tests: the daemon stores exactly such lines, written by
//! `tocada::transcript::line_to_json`, and `parse_line` reads them back.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use tocada::session::Action;
use tocada::transcript::{Event, Line, input_to_json, line_to_json};
use tocada::{Input, Millis, Rules};

/// The lines a store would hold for these session actions: the setup, then
/// every record, written as the shell writes them.
pub fn stored_lines(all: &[Action]) -> Vec<String> {
    all.iter()
        .flat_map(|a| {
            let lines = match a {
                // The setup, and the players if the hall paired the board,
                // as the daemon's storage writes them.
                Action::Begin {
                    t, rules, players, ..
                } => std::iter::once((*t, Event::Setup(rules.clone())))
                    .chain(players.clone().map(|p| (*t, Event::Players(p))))
                    .collect(),
                Action::Record { t, event } => vec![(*t, Event::from(*event))],
                _ => Vec::new(),
            };
            lines
                .into_iter()
                .map(|(t, event)| line_to_json(&Line { t, event }))
        })
        .collect()
}

/// The `setup` line for `rules`, at instant 0.
pub fn setup_line(rules: &Rules) -> String {
    line_to_json(&Line {
        t: 0,
        event: Event::Setup(Box::new(rules.clone())),
    })
}

/// One input as a replay line.
pub fn input_line(t: Millis, input: Input) -> String {
    input_to_json(t, &input)
}

/// The `end` line: time passes to `t`.
pub fn end_line(t: Millis) -> String {
    line_to_json(&Line {
        t,
        event: Event::End,
    })
}

/// A whole game: the setup line, then every input.
pub fn game_lines(rules: &Rules, events: &[(Millis, Input)]) -> Vec<String> {
    let mut lines = vec![setup_line(rules)];
    lines.extend(events.iter().map(|&(t, input)| input_line(t, input)));
    lines
}
