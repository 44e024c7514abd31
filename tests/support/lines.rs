//! Referee inputs written as lines of the `tocada replay` format, by hand,
//! for the store, PGN and export tests: the daemon stores exactly such
//! lines, and `tocada::replay::parse_line` reads them back.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Square};
use tocada::{Input, Millis, Rules};

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn square(sq: Square) -> String {
    sq.to_string()
}

/// The `setup` line for `rules`' time control and, when it is not the
/// standard one, its starting position.
pub fn setup_line(rules: &Rules) -> String {
    let fen = Fen::from_position(&rules.start, EnPassantMode::Legal).to_string();
    let standard = Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
    if fen == standard {
        format!(
            r#"{{"t":0,"ev":"setup","time_control":"{}"}}"#,
            rules.time_control
        )
    } else {
        format!(
            r#"{{"t":0,"ev":"setup","time_control":"{}","fen":"{fen}"}}"#,
            rules.time_control
        )
    }
}

/// One input as a replay line.
pub fn input_line(t: Millis, input: Input) -> String {
    let (ev, field) = match input {
        Input::Press(c) => ("press", format!(r#","side":"{}""#, side(c))),
        Input::Adjust(c) => ("adjust", format!(r#","side":"{}""#, side(c))),
        Input::Draw(c) => ("draw", format!(r#","side":"{}""#, side(c))),
        Input::Decline(c) => ("decline", format!(r#","side":"{}""#, side(c))),
        Input::Resign(c) => ("resign", format!(r#","side":"{}""#, side(c))),
        Input::Lift(sq) => ("lift", format!(r#","sq":"{}""#, square(sq))),
        Input::Touch(sq) => ("touch", format!(r#","sq":"{}""#, square(sq))),
        Input::Untouch(sq) => ("untouch", format!(r#","sq":"{}""#, square(sq))),
        Input::Place(sq, None) => ("place", format!(r#","sq":"{}""#, square(sq))),
        Input::Place(sq, Some(piece)) => (
            "place",
            format!(r#","sq":"{}","piece":"{}""#, square(sq), piece.char()),
        ),
        Input::Promote(role) => ("promote", format!(r#","piece":"{}""#, role.char())),
        Input::Pause => ("pause", String::new()),
        Input::Resume => ("resume", String::new()),
    };
    format!(r#"{{"t":{t},"ev":"{ev}"{field}}}"#)
}

/// The `end` line: time passes to `t`.
pub fn end_line(t: Millis) -> String {
    format!(r#"{{"t":{t},"ev":"end"}}"#)
}

/// A whole game: the setup line, then every input.
pub fn game_lines(rules: &Rules, events: &[(Millis, Input)]) -> Vec<String> {
    let mut lines = vec![setup_line(rules)];
    lines.extend(events.iter().map(|&(t, input)| input_line(t, input)));
    lines
}
