//! Reading an event line: [`parse_line`] and why a line is not one
//! ([`ParseLineError`]).

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Piece, Role, Square};

use super::wire::{WireLine, fields_of};
use super::{Event, Line};
use crate::players::{Player, Players};
use crate::referee::{
    Adjudication, ArbiterWords, Choice, Enforcement, GameMode, IncrementMode, Input, Laws, Rules,
    TimeControl,
};
use crate::words;

/// Why one line is not a valid replay line. Its [`Display`](fmt::Display)
/// is the message `tocada replay` prints after `line N: `; the line number
/// is the caller's to add, since only the caller knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseLineError {
    /// Not JSON at all: serde_json's words, without its position, and the
    /// column it stopped at.
    Malformed {
        /// What the JSON parser says.
        message: String,
        /// The column (from 1) where it gave up.
        column: usize,
    },
    /// Valid JSON, but not an object (an array, a number, a string).
    NotAnObject,
    /// A field that no event has.
    UnknownField(String),
    /// A field of the wrong JSON type, missing `t` or `ev`, or given twice,
    /// in serde's words.
    Shape(String),
    /// An `ev` that is not one of the format's events.
    UnknownEvent(String),
    /// A field that exists, but not for this event.
    ForeignField {
        /// The field's wire name.
        field: &'static str,
        /// The line's event.
        event: String,
    },
    /// A field this event cannot do without.
    MissingField {
        /// The line's event.
        event: String,
        /// The field's wire name.
        field: &'static str,
    },
    /// A square that is not `a1` to `h8`.
    UnknownSquare(String),
    /// A value its field does not take.
    BadValue {
        /// What the value is, as the message names it: `side`, `piece`,
        /// `promotion piece`, `fen`, `time_control`, `mode`, ...
        field: &'static str,
        /// The value as given.
        value: String,
        /// What was expected instead, or why it is refused.
        why: String,
    },
}

impl fmt::Display for ParseLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseLineError::Malformed { message, column } => {
                write!(f, "malformed JSON: {message} (column {column})")
            }
            ParseLineError::NotAnObject => f.write_str("expected a JSON object"),
            ParseLineError::UnknownField(name) if name == "png" => write!(
                f,
                "unknown field \"png\" (a face line? those are for `tocada sim --script`)"
            ),
            ParseLineError::UnknownField(name) => write!(f, "unknown field {name:?}"),
            ParseLineError::Shape(message) => f.write_str(message),
            ParseLineError::UnknownEvent(ev) if ev == "face" => write!(
                f,
                "unknown event \"face\" (face lines are for `tocada sim --script`)"
            ),
            ParseLineError::UnknownEvent(ev) => write!(f, "unknown event {ev:?}"),
            ParseLineError::ForeignField { field, event } => {
                write!(f, "field {field:?} does not belong to {event:?}")
            }
            ParseLineError::MissingField { event, field } => {
                write!(f, "{event:?} needs field {field:?}")
            }
            ParseLineError::UnknownSquare(s) => {
                write!(f, "unknown square {s:?}: expected a1 to h8")
            }
            ParseLineError::BadValue { field, value, why } => {
                write!(f, "bad {field} {value:?}: {why}")
            }
        }
    }
}

impl std::error::Error for ParseLineError {}

/// The players of a `players` line, bounded as a pairing from the hall
/// is ([`Players::bounded`]).
fn players(wire: WireLine) -> Result<Players, ParseLineError> {
    let ev = "players";
    let board = required(wire.board, ev, "board")?;
    let white = required(wire.white, ev, "white")?;
    let black = required(wire.black, ev, "black")?;
    let given = Players {
        round: wire.round.unwrap_or_default(),
        board,
        white: Player {
            name: white.clone(),
            rating: wire.white_elo,
            fide_id: wire.white_fide_id,
        },
        black: Player {
            name: black.clone(),
            rating: wire.black_elo,
            fide_id: wire.black_fide_id,
        },
    };
    given.bounded().map_err(|err| ParseLineError::BadValue {
        field: "player",
        value: if crate::players::printable(&white, 1).is_empty() {
            white
        } else {
            black
        },
        why: err.to_string(),
    })
}

/// The words for a value that is not a side.
const SIDES: &str = "expected one of `white` `black`";

/// Parses one input line. Blank lines (only white space, a line ending
/// included) give `Ok(None)`.
pub fn parse_line(line: &str) -> Result<Option<Line>, ParseLineError> {
    #[cfg(test)]
    super::PARSED.with(|parsed| parsed.set(parsed.get() + 1));
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    // serde would also read a struct from a JSON array, by position; the
    // format is objects only.
    if !line.starts_with('{') {
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(json_error)?;
        return Err(ParseLineError::NotAnObject);
    }
    let wire: WireLine = serde_json::from_str(line).map_err(json_error)?;
    let ev = wire.ev.as_str();
    let allowed = fields_of(ev).ok_or_else(|| ParseLineError::UnknownEvent(ev.to_owned()))?;
    if let Some(stray) = wire.present().find(|name| !allowed.contains(name)) {
        return Err(ParseLineError::ForeignField {
            field: stray,
            event: ev.to_owned(),
        });
    }
    let need = |value: Option<String>, field: &'static str| required(value, ev, field);

    let input = match ev {
        "setup" => {
            return Ok(Some(Line {
                t: wire.t,
                event: Event::Setup(Box::new(setup(wire)?)),
            }));
        }
        "end" => {
            return Ok(Some(Line {
                t: wire.t,
                event: Event::End,
            }));
        }
        "checkpoint" => {
            return Ok(Some(Line {
                t: wire.t,
                // A clock that ran to before the line's own instant says
                // nothing more than the line.
                event: Event::Checkpoint {
                    ran_to: wire.ran_to.filter(|&ran_to| ran_to > wire.t),
                },
            }));
        }
        "restart" => {
            return Ok(Some(Line {
                t: wire.t,
                event: Event::Restart { off_ms: wire.ms },
            }));
        }
        "players" => {
            return Ok(Some(Line {
                t: wire.t,
                event: Event::Players(Box::new(players(wire)?)),
            }));
        }
        "press" => Input::Press(side(&need(wire.side, "side")?)?),
        "adjust" => Input::Adjust(side(&need(wire.side, "side")?)?),
        "draw" => Input::Draw(side(&need(wire.side, "side")?)?),
        "decline" => Input::Decline(side(&need(wire.side, "side")?)?),
        "resign" => Input::Resign(side(&need(wire.side, "side")?)?),
        "claim" => Input::Claim(side(&need(wire.side, "side")?)?),
        "choose" => Input::Choose(
            side(&need(wire.side, "side")?)?,
            choice(&need(wire.option, "option")?)?,
        ),
        "waive" => Input::Waive,
        "takeback" => Input::TakeBack,
        "adjudicate" => Input::Adjudicate(Adjudication {
            outcome: outcome(&need(wire.result, "result")?)?,
            reason: arbiter_words(&need(wire.reason, "reason")?)?,
        }),
        "lift" => Input::Lift(square(&need(wire.sq, "sq")?)?),
        "touch" => Input::Touch(square(&need(wire.sq, "sq")?)?),
        "untouch" => Input::Untouch(square(&need(wire.sq, "sq")?)?),
        "place" => Input::Place(
            square(&need(wire.sq, "sq")?)?,
            wire.piece.as_deref().map(piece).transpose()?,
        ),
        "promote" => Input::Promote(promotion(&need(wire.piece, "piece")?)?),
        "pause" => Input::Pause,
        "resume" => Input::Resume,
        "set_time" => Input::SetTime(
            side(&need(wire.side, "side")?)?,
            required(wire.ms, ev, "ms")?,
        ),
        "set_moves" => {
            Input::SetMoves(side(&need(wire.side, "side")?)?, required(wire.n, ev, "n")?)
        }
        _ => unreachable!("fields_of knows every event"),
    };
    Ok(Some(Line {
        t: wire.t,
        event: Event::Input(input),
    }))
}

/// A field the event cannot do without.
fn required<T>(value: Option<T>, ev: &str, field: &'static str) -> Result<T, ParseLineError> {
    value.ok_or_else(|| ParseLineError::MissingField {
        event: ev.to_owned(),
        field,
    })
}

/// serde_json's error without its "at line 1 column N": the line is
/// always 1 here and the caller adds the real one.
fn json_error(err: serde_json::Error) -> ParseLineError {
    let column = err.column();
    let message = err.to_string();
    let message = match message.rsplit_once(" at line ") {
        Some((message, _)) => message.to_owned(),
        None => message,
    };
    match err.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            ParseLineError::Malformed { message, column }
        }
        // serde lists every field of every event after an unknown one,
        // which says nothing about the event at hand: keep just the name.
        _ => match message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split_once('`'))
        {
            Some((name, _)) => ParseLineError::UnknownField(name.to_owned()),
            None => ParseLineError::Shape(message),
        },
    }
}

/// A value its field does not take, and why.
fn bad(field: &'static str, value: &str, why: impl fmt::Display) -> ParseLineError {
    ParseLineError::BadValue {
        field,
        value: value.to_owned(),
        why: why.to_string(),
    }
}

fn setup(wire: WireLine) -> Result<Rules, ParseLineError> {
    let defaults = Rules::default();
    let time_control =
        parse_time_control(wire.time_control, "time_control")?.unwrap_or(defaults.time_control);
    let black_time_control = parse_time_control(wire.black_time_control, "black_time_control")?;
    let draw_odds = wire
        .draw_odds
        .map(|s| side(&s).map_err(|_| bad("draw_odds", &s, SIDES)))
        .transpose()?;
    let start = match wire.fen {
        Some(s) => position(&s)?,
        None => defaults.start,
    };
    Ok(Rules {
        time_control,
        black_time_control,
        draw_odds,
        increment_mode: keyword::<IncrementMode>(wire.increment_mode, "increment_mode")?
            .unwrap_or(defaults.increment_mode),
        mode: keyword::<GameMode>(wire.mode, "mode")?.unwrap_or(defaults.mode),
        enforcement: keyword::<Enforcement>(wire.enforcement, "enforcement")?
            .unwrap_or(defaults.enforcement),
        laws: keyword::<Laws>(wire.laws, "laws")?.unwrap_or(defaults.laws),
        min_press_gap_ms: wire.min_press_gap_ms.unwrap_or(defaults.min_press_gap_ms),
        knock_window_ms: wire.knock_window_ms.unwrap_or(defaults.knock_window_ms),
        start,
        plain_clock: wire.plain_clock.unwrap_or(defaults.plain_clock),
    })
}

fn parse_time_control(
    value: Option<String>,
    field: &'static str,
) -> Result<Option<TimeControl>, ParseLineError> {
    value
        .map(|s| s.parse::<TimeControl>().map_err(|err| bad(field, &s, err)))
        .transpose()
}

fn keyword<K>(value: Option<String>, field: &'static str) -> Result<Option<K>, ParseLineError>
where
    K: std::str::FromStr,
    K::Err: fmt::Display,
{
    value
        .map(|s| s.parse().map_err(|err| bad(field, &s, err)))
        .transpose()
}

pub(super) fn position(fen: &str) -> Result<Chess, ParseLineError> {
    fen.parse::<Fen>()
        .map_err(|err| bad("fen", fen, err))?
        .into_position(CastlingMode::Standard)
        .map_err(|err| bad("fen", fen, err))
}

pub(super) fn side(s: &str) -> Result<Color, ParseLineError> {
    words::side_of_keyword(s).ok_or_else(|| bad("side", s, SIDES))
}

pub(super) fn square(s: &str) -> Result<Square, ParseLineError> {
    s.parse()
        .map_err(|_| ParseLineError::UnknownSquare(s.to_owned()))
}

/// A FEN letter: upper case for White, lower case for Black.
fn piece(s: &str) -> Result<Piece, ParseLineError> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(ch), None) => Piece::from_char(ch),
        _ => None,
    }
    .ok_or_else(|| bad("piece", s, "expected a FEN letter such as \"N\" or \"p\""))
}

/// A result as PGN writes it.
pub(super) fn outcome(s: &str) -> Result<KnownOutcome, ParseLineError> {
    match s {
        "1-0" => Ok(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        "0-1" => Ok(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        "1/2-1/2" => Ok(KnownOutcome::Draw),
        _ => Err(bad("result", s, "expected one of `1-0` `0-1` `1/2-1/2`")),
    }
}

/// The arbiter's reason for a result, short enough to hold inline.
pub(super) fn arbiter_words(s: &str) -> Result<ArbiterWords, ParseLineError> {
    ArbiterWords::new(s).ok_or_else(|| {
        bad(
            "reason",
            s,
            format_args!(
                "at most {} bytes, and at most {} different reasons a run",
                ArbiterWords::CAPACITY,
                ArbiterWords::DISTINCT
            ),
        )
    })
}

/// An answer to a choice, by its name in the format.
pub(super) fn choice(s: &str) -> Result<Choice, ParseLineError> {
    s.parse().map_err(|err| bad("option", s, err))
}

/// The clock's promotion buttons: lower case, as in UCI.
fn promotion(s: &str) -> Result<Role, ParseLineError> {
    match s {
        "q" | "r" | "b" | "n" => {
            Ok(Role::from_char(s.as_bytes()[0] as char).expect("q, r, b and n are role letters"))
        }
        _ => Err(bad("promotion piece", s, "expected one of `q` `r` `b` `n`")),
    }
}
