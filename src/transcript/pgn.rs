//! A stored game's lines turned into PGN: the store's lines fed through the
//! one loop, as a restore would rebuild the game, and written by
//! [`crate::pgn::GameRecord`].

use std::fmt;

use super::{Fault, Feed, Policy};
use crate::Rules;
use crate::pgn::{Audience, GameRecord, Tags, start_fen};

/// A stored game with a bad line, read under [`Policy::RESTORE`]: the
/// fault, and the PGN of the game as far as the lines before it go, as a
/// restore after a crash would rebuild it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnError {
    /// The first bad line; `line` counts from 1, the setup line first.
    pub fault: Fault,
    /// The PGN of every line before it, with the fault noted in a last
    /// comment; its result is `*` unless the game ended before the fault.
    pub pgn: String,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stored {}", self.fault)
    }
}

impl std::error::Error for PgnError {}

/// Replays a stored game's lines (the setup line first, as the store keeps
/// them) into a fresh referee and returns its PGN. A `TimeControl` left
/// empty in `tags` is taken from the setup line; a game without a setup
/// line plays under the default rules, as `tocada replay` does. The game's
/// `players` line names the players when `tags` names neither: a caller's
/// names (the hall's, fixed when the game began) are kept.
///
/// The lines are read under [`Policy::RESTORE`], as the daemon reads them
/// to restore a game: a line stamped earlier than the one before is taken
/// at that one's instant, and at a bad line the PGN stops, with the fault
/// noted, in the error ([`PgnError::pgn`]).
pub fn pgn_from_lines(lines: &[String], tags: Tags) -> Result<String, PgnError> {
    pgn_from_lines_for(lines, tags, Audience::Arbiter)
}

/// The same, written for `audience` ([`Audience::Public`]: without the
/// rulings).
pub fn pgn_from_lines_for(
    lines: &[String],
    mut tags: Tags,
    audience: Audience,
) -> Result<String, PgnError> {
    let mut game = Feed::new(Policy::RESTORE);
    let mut effects = Vec::new();
    let fault = game.push_rows(lines, |t, effect| effects.push((t, effect)), |_| {});
    let default_rules;
    let rules = match game.referee() {
        Some(referee) => referee.rules(),
        None => {
            default_rules = Rules::default();
            &default_rules
        }
    };
    if tags.time_control.trim().is_empty() {
        tags.time_control = rules.time_control.to_string();
    }
    // The players the game began with, as its record says, unless the
    // caller names them: the hall's own facts, fixed when it saw the game
    // begin, are not for a clock's line to rewrite.
    if let Some(players) = game.players()
        && tags.white.is_empty()
        && tags.black.is_empty()
    {
        tags.name_players(players);
    }
    let mut record = GameRecord::new(tags, start_fen(rules))
        .with_clock(rules)
        .for_audience(audience);
    record.record_all(&effects, game.restarts());
    match fault {
        None => Ok(record.to_pgn()),
        Some(fault) => {
            record.close_with_note(format!("The stored game stops here: {fault}"));
            Err(PgnError {
                fault,
                pgn: record.to_pgn(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_lines_reports_bad_lines_by_number() {
        let lines = |ls: &[&str]| ls.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let err = pgn_from_lines(
            &lines(&[r#"{"t":0,"ev":"setup"}"#, r#"{"t":1,"ev":"jump"}"#]),
            Tags::default(),
        )
        .unwrap_err();
        assert_eq!(err.fault.line, 2, "{err}");
        assert_eq!(err.to_string(), r#"stored line 2: unknown event "jump""#);
        assert!(
            err.pgn
                .ends_with("{The stored game stops here: line 2: unknown event \"jump\"} *\n"),
            "{}",
            err.pgn
        );

        // Out of order: taken at the instant before, as a restore does.
        assert!(
            pgn_from_lines(
                &lines(&[r#"{"t":5,"ev":"pause"}"#, r#"{"t":4,"ev":"resume"}"#]),
                Tags::default(),
            )
            .is_ok()
        );

        let err = pgn_from_lines(
            &lines(&[r#"{"t":0,"ev":"setup"}"#, r#"{"t":0,"ev":"setup"}"#]),
            Tags::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.fault,
            Fault {
                line: 2,
                kind: super::super::FaultKind::SetupNotFirst
            }
        );
    }

    #[test]
    fn the_players_line_names_the_players_unless_the_caller_does() {
        let lines = vec![
            r#"{"t":0,"ev":"setup","time_control":"180+2"}"#.to_owned(),
            r#"{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf"}"#.to_owned(),
        ];
        let pgn = pgn_from_lines(&lines, Tags::default()).unwrap();
        assert!(pgn.contains("[White \"Morphy, Paul\"]"), "{pgn}");
        assert!(pgn.contains("[Round \"3\"]"), "{pgn}");
        // The hall's facts, fixed when it saw the game begin, are kept
        // whatever the clock's line says.
        let hall = Tags {
            round: "4".into(),
            white: "Carlsen, Magnus".into(),
            black: "Caruana, Fabiano".into(),
            ..Tags::default()
        };
        let pgn = pgn_from_lines(&lines, hall).unwrap();
        assert!(pgn.contains("[White \"Carlsen, Magnus\"]"), "{pgn}");
        assert!(pgn.contains("[Round \"4\"]"), "{pgn}");
        assert!(!pgn.contains("Morphy"), "{pgn}");
    }

    #[test]
    fn from_lines_takes_the_time_control_from_the_setup_line() {
        let lines = vec![r#"{"t":0,"ev":"setup","time_control":"180+2"}"#.to_owned()];
        let pgn = pgn_from_lines(&lines, Tags::default()).unwrap();
        assert!(pgn.contains("[TimeControl \"180+2\"]"), "{pgn}");
        assert!(!pgn.contains("[FEN"), "{pgn}");
        let given = Tags {
            time_control: "G/5".to_owned(),
            ..Tags::default()
        };
        assert!(
            pgn_from_lines(&lines, given)
                .unwrap()
                .contains("[TimeControl \"G/5\"]")
        );
        // No lines at all: an empty game under the default rules.
        let pgn = pgn_from_lines(&[], Tags::default()).unwrap();
        assert!(pgn.contains("[TimeControl \"5400+30\"]"), "{pgn}");
        assert!(pgn.ends_with("\n\n*\n"));
    }
}
