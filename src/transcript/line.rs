//! One line of the format: [`parse_line`] reads an input line into a
//! [`Line`], [`line_to_json`] and [`input_to_json`] write one, and
//! [`effect_to_json`] writes an effect. Nothing here knows about files,
//! line numbers or the order of lines: that is [`super::Reader`]'s.
//!
//! The wire format lives here and only here: the referee's types carry no
//! serde, so the core stays free to change shape while this format, which
//! scripts and recorded games depend on, stays put.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Piece, Role, Square};

use crate::referee::{
    Adjudication, ArbiterWords, Choice, Effect, Enforcement, GameMode, IncrementMode, Input, Laws,
    Millis, Reason, Rejection, Rules, TimeControl,
};

/// One meaningful input line: the instant it is stamped with and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Milliseconds since the session started.
    pub t: Millis,
    /// What happened at `t`.
    pub event: Event,
}

/// What an input line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The rules of the game; only valid as the first line. Boxed because a
    /// starting position is far bigger than any other event.
    Setup(Box<Rules>),
    /// Something for the referee.
    Input(Input),
    /// The script is over: every effect due up to `t` is to be emitted.
    End,
    /// The clock was running at `t` and nothing happened: time passes up to
    /// `t`, as with `end`, but the game goes on. The daemon stores one
    /// every half second of a running clock with no other event, so that a
    /// restart after a power cut gives back no more time than that.
    Checkpoint,
    /// The daemon came back at `t` (its last stored instant) after a crash
    /// or a power cut: `ms`, when the wall clock could tell, is how long it
    /// was off. Nothing for the referee (the restored game is paused by a
    /// `pause` line); for the score. On the wire:
    /// `{"t":T,"ev":"restart","ms":N}`, `ms` optional.
    Restart {
        /// How long the clock was off, in ms.
        off_ms: Option<u64>,
    },
}

/// A record the session asks to store, as its replay line's event.
impl From<crate::session::Recorded> for Event {
    fn from(recorded: crate::session::Recorded) -> Event {
        use crate::session::Recorded;
        match recorded {
            Recorded::Input(input) => Event::Input(input),
            Recorded::Timeout => Event::End,
            Recorded::Checkpoint => Event::Checkpoint,
            Recorded::Restart { off_ms } => Event::Restart { off_ms },
        }
    }
}

/// Every field any event may carry, as it appears on the wire, read and
/// written alike.
///
/// One flat struct rather than an enum per event so that the error for a
/// stray field can name the event it does not belong to, which serde's own
/// tagged enums cannot do. Absent fields are not written.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct WireLine {
    t: Millis,
    ev: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sq: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    piece: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    n: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_control: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black_time_control: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    draw_odds: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    increment_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enforcement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    laws: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_press_gap_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    knock_window_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    option: Option<String>,
}

impl WireLine {
    /// The optional fields that were given, by wire name.
    fn present(&self) -> impl Iterator<Item = &'static str> {
        [
            ("side", self.side.is_some()),
            ("sq", self.sq.is_some()),
            ("piece", self.piece.is_some()),
            ("ms", self.ms.is_some()),
            ("n", self.n.is_some()),
            ("time_control", self.time_control.is_some()),
            ("black_time_control", self.black_time_control.is_some()),
            ("draw_odds", self.draw_odds.is_some()),
            ("increment_mode", self.increment_mode.is_some()),
            ("mode", self.mode.is_some()),
            ("fen", self.fen.is_some()),
            ("enforcement", self.enforcement.is_some()),
            ("laws", self.laws.is_some()),
            ("min_press_gap_ms", self.min_press_gap_ms.is_some()),
            ("knock_window_ms", self.knock_window_ms.is_some()),
            ("result", self.result.is_some()),
            ("reason", self.reason.is_some()),
            ("option", self.option.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
    }
}

/// The fields each event takes besides `t` and `ev`; `None` for an unknown event.
fn fields_of(ev: &str) -> Option<&'static [&'static str]> {
    Some(match ev {
        "setup" => &[
            "time_control",
            "black_time_control",
            "draw_odds",
            "increment_mode",
            "mode",
            "fen",
            "enforcement",
            "laws",
            "min_press_gap_ms",
            "knock_window_ms",
        ],
        "press" | "adjust" | "draw" | "decline" | "resign" | "claim" => &["side"],
        "lift" | "touch" | "untouch" => &["sq"],
        "place" => &["sq", "piece"],
        "promote" => &["piece"],
        "pause" | "resume" | "end" | "checkpoint" | "waive" | "takeback" => &[],
        "restart" => &["ms"],
        "adjudicate" => &["result", "reason"],
        "choose" => &["side", "option"],
        "set_time" => &["side", "ms"],
        "set_moves" => &["side", "n"],
        _ => return None,
    })
}

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

/// The words for a value that is not a side.
const SIDES: &str = "expected one of `white` `black`";

/// Parses one input line. Blank lines (only white space, a line ending
/// included) give `Ok(None)`.
pub fn parse_line(line: &str) -> Result<Option<Line>, ParseLineError> {
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
                event: Event::Checkpoint,
            }));
        }
        "restart" => {
            return Ok(Some(Line {
                t: wire.t,
                event: Event::Restart { off_ms: wire.ms },
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

fn position(fen: &str) -> Result<Chess, ParseLineError> {
    fen.parse::<Fen>()
        .map_err(|err| bad("fen", fen, err))?
        .into_position(CastlingMode::Standard)
        .map_err(|err| bad("fen", fen, err))
}

fn side(s: &str) -> Result<Color, ParseLineError> {
    match s {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(bad("side", s, SIDES)),
    }
}

fn square(s: &str) -> Result<Square, ParseLineError> {
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
fn outcome(s: &str) -> Result<KnownOutcome, ParseLineError> {
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
fn arbiter_words(s: &str) -> Result<ArbiterWords, ParseLineError> {
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
fn choice(s: &str) -> Result<Choice, ParseLineError> {
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

/// One output line: the instant, then the effect's own fields.
#[derive(Serialize)]
struct Out<'a> {
    t: Millis,
    #[serde(flatten)]
    effect: WireEffect<'a>,
}

/// An effect as it appears on the wire, borrowing from the core's [`Effect`].
#[derive(Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
enum WireEffect<'a> {
    Started {
        side: &'static str,
    },
    Move {
        side: &'static str,
        n: u32,
        uci: &'a str,
        san: &'a str,
        white_ms: u64,
        black_ms: u64,
    },
    Violation {
        side: &'static str,
        law: &'static str,
        detail: &'a str,
    },
    Warning {
        side: &'static str,
        law: &'static str,
        detail: &'a str,
    },
    TimeAdded {
        side: &'static str,
        ms: u64,
        law: &'static str,
    },
    DrawOffer {
        side: &'static str,
        proper: bool,
    },
    DrawDeclined {
        side: &'static str,
        how: &'static str,
    },
    Displaced {
        side: &'static str,
        squares: Vec<String>,
    },
    Restored {
        side: &'static str,
        ms: u64,
    },
    Flag {
        side: &'static str,
    },
    Paused,
    Resumed,
    Corrected {
        side: &'static str,
        ms: u64,
        completed: u32,
    },
    #[serde(rename = "takeback")]
    TakenBack {
        side: &'static str,
        n: u32,
        san: &'a str,
    },
    Waived {
        side: &'static str,
        law: &'static str,
    },
    Claim {
        side: &'static str,
        law: &'static str,
        upheld: bool,
    },
    Choice {
        side: &'static str,
        law: &'static str,
        options: Vec<&'static str>,
    },
    Result {
        result: &'static str,
        reason: &'static str,
        /// The arbiter's words, for an adjudicated result.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<&'a str>,
    },
}

/// `"white"` or `"black"`, as on the wire.
fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl<'a> From<&'a Effect> for WireEffect<'a> {
    fn from(effect: &'a Effect) -> WireEffect<'a> {
        match effect {
            Effect::Started { side } => WireEffect::Started {
                side: color_name(*side),
            },
            Effect::Move(m) => WireEffect::Move {
                side: color_name(m.side),
                n: m.number,
                uci: &m.uci,
                san: &m.san,
                white_ms: m.white_ms,
                black_ms: m.black_ms,
            },
            Effect::Violation(r) => WireEffect::Violation {
                side: color_name(r.side),
                law: r.law.article(),
                detail: &r.detail,
            },
            Effect::Warning(r) => WireEffect::Warning {
                side: color_name(r.side),
                law: r.law.article(),
                detail: &r.detail,
            },
            Effect::TimeAdded { side, ms, law } => WireEffect::TimeAdded {
                side: color_name(*side),
                ms: *ms,
                law: law.article(),
            },
            Effect::DrawOffer { side, proper } => WireEffect::DrawOffer {
                side: color_name(*side),
                proper: *proper,
            },
            Effect::DrawDeclined { side, how } => WireEffect::DrawDeclined {
                side: color_name(*side),
                how: match how {
                    Rejection::Touch => "touch",
                    Rejection::Spoken => "spoken",
                },
            },
            Effect::Displaced { side, squares } => WireEffect::Displaced {
                side: color_name(*side),
                squares: squares.iter().map(Square::to_string).collect(),
            },
            Effect::Restored { side, ms } => WireEffect::Restored {
                side: color_name(*side),
                ms: *ms,
            },
            Effect::Flag { side } => WireEffect::Flag {
                side: color_name(*side),
            },
            Effect::Paused => WireEffect::Paused,
            Effect::Resumed => WireEffect::Resumed,
            Effect::Corrected {
                side,
                ms,
                completed,
            } => WireEffect::Corrected {
                side: color_name(*side),
                ms: *ms,
                completed: *completed,
            },
            Effect::TakenBack { side, number, san } => WireEffect::TakenBack {
                side: color_name(*side),
                n: *number,
                san,
            },
            Effect::Waived { side, law } => WireEffect::Waived {
                side: color_name(*side),
                law: law.article(),
            },
            Effect::Claim { side, law, upheld } => WireEffect::Claim {
                side: color_name(*side),
                law: law.article(),
                upheld: *upheld,
            },
            Effect::Choice { side, law, options } => WireEffect::Choice {
                side: color_name(*side),
                law: law.article(),
                options: options.as_slice().iter().map(|c| c.as_str()).collect(),
            },
            Effect::Result { outcome, reason } => WireEffect::Result {
                result: outcome.as_str(),
                reason: reason.as_str(),
                detail: match reason {
                    Reason::Adjudicated(words) => Some(words.as_str()),
                    _ => None,
                },
            },
        }
    }
}

/// One effect as a JSON line, without the newline: `{"t":…,"effect":…,…}`.
pub fn effect_to_json(t: Millis, effect: &Effect) -> String {
    let out = Out {
        t,
        effect: WireEffect::from(effect),
    };
    serde_json::to_string(&out).expect("effects are plain strings and numbers")
}

/// One effect as the JSON value of its line, for a message that carries it
/// (the publisher's): the same fields as [`effect_to_json`] writes.
pub fn effect_to_value(t: Millis, effect: &Effect) -> serde_json::Value {
    let out = Out {
        t,
        effect: WireEffect::from(effect),
    };
    serde_json::to_value(&out).expect("effects are plain strings and numbers")
}

/// The daemon's `game_restored` line, in the order of every output line
/// (`t`, then `effect`): the game it came back to after a crash or a
/// power cut, paused, with the clocks at `t`, the moves completed and the
/// position on the board. Not an effect of the referee's: `run` prints it,
/// no replay does.
pub fn restored_to_json(
    t: Millis,
    white_ms: u64,
    black_ms: u64,
    moves: usize,
    fen: &str,
) -> String {
    #[derive(Serialize)]
    struct Wire<'a> {
        t: Millis,
        effect: &'static str,
        white_ms: u64,
        black_ms: u64,
        moves: usize,
        fen: &'a str,
    }
    let wire = Wire {
        t,
        effect: "game_restored",
        white_ms,
        black_ms,
        moves,
        fen,
    };
    serde_json::to_string(&wire).expect("numbers and a string")
}

/// One input line as a compact JSON object, without the newline, that
/// [`parse_line`] reads back to an equal [`Line`].
///
/// A setup writes every rule, defaults included, so that a recorded game
/// does not change meaning if the defaults do; the starting position only
/// when it is not the standard one (its FEN, en passant only when it can be
/// taken, as the referee sees it).
///
/// Two things do not come back, neither of which the daemon makes: an
/// `Input::Promote` of a pawn or a king (written `p` or `k`, which no clock
/// button offers and the reader refuses; the referee ignores them anyway),
/// and a starting position set up in Chess960 castling mode.
pub fn line_to_json(line: &Line) -> String {
    let wire = match &line.event {
        Event::Setup(rules) => setup_wire(line.t, rules),
        Event::Input(input) => input_wire(line.t, input),
        Event::End => bare_wire(line.t, "end"),
        Event::Checkpoint => bare_wire(line.t, "checkpoint"),
        Event::Restart { off_ms } => WireLine {
            ms: *off_ms,
            ..bare_wire(line.t, "restart")
        },
    };
    serde_json::to_string(&wire).expect("wire lines are plain strings and numbers")
}

/// One input as a JSON line, without the newline: what the daemon records
/// for each event it feeds the referee. Same as [`line_to_json`].
pub fn input_to_json(t: Millis, input: &Input) -> String {
    serde_json::to_string(&input_wire(t, input)).expect("wire lines are plain strings and numbers")
}

/// A line with only `t` and `ev`, for the others to fill in.
fn bare_wire(t: Millis, ev: &str) -> WireLine {
    WireLine {
        t,
        ev: ev.to_owned(),
        ..WireLine::default()
    }
}

fn setup_wire(t: Millis, rules: &Rules) -> WireLine {
    let fen = rules.start_fen();
    WireLine {
        time_control: Some(rules.time_control.to_string()),
        black_time_control: rules
            .black_time_control
            .as_ref()
            .map(TimeControl::to_string),
        draw_odds: rules.draw_odds.map(|side| color_name(side).to_owned()),
        increment_mode: Some(rules.increment_mode.as_str().to_owned()),
        mode: Some(rules.mode.as_str().to_owned()),
        enforcement: Some(rules.enforcement.as_str().to_owned()),
        // Written only when not the default: every game recorded before
        // the profiles existed is a `fide-2023` game, and its setup line
        // stays byte for byte what it was.
        laws: (rules.laws != Laws::default()).then(|| rules.laws.as_str().to_owned()),
        min_press_gap_ms: Some(rules.min_press_gap_ms),
        knock_window_ms: Some(rules.knock_window_ms),
        fen: (fen != Rules::default().start_fen()).then(|| fen.to_string()),
        ..bare_wire(t, "setup")
    }
}

fn input_wire(t: Millis, input: &Input) -> WireLine {
    let with_side = |ev: &str, side: Color| WireLine {
        side: Some(color_name(side).to_owned()),
        ..bare_wire(t, ev)
    };
    let with_square = |ev: &str, sq: Square| WireLine {
        sq: Some(sq.to_string()),
        ..bare_wire(t, ev)
    };
    match *input {
        Input::Press(side) => with_side("press", side),
        Input::Adjust(side) => with_side("adjust", side),
        Input::Draw(side) => with_side("draw", side),
        Input::Decline(side) => with_side("decline", side),
        Input::Resign(side) => with_side("resign", side),
        Input::Claim(side) => with_side("claim", side),
        Input::Choose(side, option) => WireLine {
            option: Some(option.as_str().to_owned()),
            ..with_side("choose", side)
        },
        Input::Waive => bare_wire(t, "waive"),
        Input::TakeBack => bare_wire(t, "takeback"),
        Input::Adjudicate(adjudication) => WireLine {
            result: Some(adjudication.outcome.as_str().to_owned()),
            reason: Some(adjudication.reason.as_str().to_owned()),
            ..bare_wire(t, "adjudicate")
        },
        Input::Lift(sq) => with_square("lift", sq),
        Input::Touch(sq) => with_square("touch", sq),
        Input::Untouch(sq) => with_square("untouch", sq),
        Input::Place(sq, piece) => WireLine {
            piece: piece.map(|piece| piece.char().to_string()),
            ..with_square("place", sq)
        },
        // The clock's buttons write UCI's lower case, as `promotion` reads.
        Input::Promote(role) => WireLine {
            piece: Some(role.char().to_string()),
            ..bare_wire(t, "promote")
        },
        Input::Pause => bare_wire(t, "pause"),
        Input::Resume => bare_wire(t, "resume"),
        Input::SetTime(side, ms) => WireLine {
            ms: Some(ms),
            ..with_side("set_time", side)
        },
        Input::SetMoves(side, n) => WireLine {
            n: Some(n),
            ..with_side("set_moves", side)
        },
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{KnownOutcome, Position};

    use super::*;
    use crate::referee::{CompletedMove, Law, MoveText, Reason, Ruling};

    fn parse(line: &str) -> Line {
        parse_line(line)
            .unwrap_or_else(|err| panic!("{line}: {err}"))
            .unwrap_or_else(|| panic!("{line}: blank"))
    }

    fn input(line: &str) -> (Millis, Input) {
        match parse(line) {
            Line {
                t,
                event: Event::Input(input),
            } => (t, input),
            other => panic!("{line}: not an input: {other:?}"),
        }
    }

    fn rules(line: &str) -> Rules {
        match parse(line).event {
            Event::Setup(rules) => *rules,
            other => panic!("{line}: not a setup: {other:?}"),
        }
    }

    fn error(line: &str) -> String {
        match parse_line(line) {
            Err(err) => err.to_string(),
            Ok(parsed) => panic!("{line}: accepted as {parsed:?}"),
        }
    }

    #[test]
    fn the_restored_line_reads_like_every_output_line() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(
            restored_to_json(1500, 297_000, 300_000, 1, fen),
            format!(
                r#"{{"t":1500,"effect":"game_restored","white_ms":297000,"black_ms":300000,"moves":1,"fen":"{fen}"}}"#
            )
        );
    }

    #[test]
    fn a_restart_line_carries_the_time_off_when_known() {
        for (text, off_ms) in [
            (r#"{"t":1500,"ev":"restart","ms":205000}"#, Some(205_000)),
            (r#"{"t":1500,"ev":"restart"}"#, None),
        ] {
            let line = parse_line(text).unwrap().unwrap();
            assert_eq!(
                line,
                Line {
                    t: 1500,
                    event: Event::Restart { off_ms }
                }
            );
            assert_eq!(line_to_json(&line), text);
        }
        assert!(parse_line(r#"{"t":1,"ev":"restart","n":3}"#).is_err());
    }

    #[test]
    fn blank_lines_are_nothing() {
        for line in ["", "\n", "   ", "\t\r\n"] {
            assert!(parse_line(line).unwrap().is_none(), "{line:?}");
        }
    }

    #[test]
    fn side_events() {
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(
            input(r#"{"t":0,"ev":"press","side":"black"}"#),
            (0, Input::Press(b))
        );
        assert_eq!(
            input(r#"{"t":7,"ev":"adjust","side":"white"}"#),
            (7, Input::Adjust(w))
        );
        assert_eq!(
            input(r#"{"t":8,"ev":"draw","side":"white"}"#),
            (8, Input::Draw(w))
        );
        assert_eq!(
            input(r#"{"t":9,"ev":"decline","side":"black"}"#),
            (9, Input::Decline(b))
        );
        assert_eq!(
            input(r#"{"ev":"resign","side":"black","t":10}"#),
            (10, Input::Resign(b))
        );
    }

    #[test]
    fn square_events() {
        assert_eq!(
            input(r#"{"t":1,"ev":"lift","sq":"e2"}"#).1,
            Input::Lift(Square::E2)
        );
        assert_eq!(
            input(r#"{"t":1,"ev":"touch","sq":"g1"}"#).1,
            Input::Touch(Square::G1)
        );
        assert_eq!(
            input(r#"{"t":1,"ev":"untouch","sq":"h8"}"#).1,
            Input::Untouch(Square::H8)
        );
        assert_eq!(
            input(r#"{"t":1,"ev":"place","sq":"e4"}"#).1,
            Input::Place(Square::E4, None)
        );
        assert_eq!(
            input(r#"{"t":1,"ev":"place","sq":"f3","piece":"N"}"#).1,
            Input::Place(Square::F3, Some(Color::White.knight()))
        );
        assert_eq!(
            input(r#"{"t":1,"ev":"place","sq":"e5","piece":"p"}"#).1,
            Input::Place(Square::E5, Some(Color::Black.pawn()))
        );
    }

    #[test]
    fn promote_pause_resume() {
        for (letter, role) in [
            ("q", Role::Queen),
            ("r", Role::Rook),
            ("b", Role::Bishop),
            ("n", Role::Knight),
        ] {
            let line = format!(r#"{{"t":3,"ev":"promote","piece":"{letter}"}}"#);
            assert_eq!(input(&line).1, Input::Promote(role));
        }
        assert_eq!(input(r#"{"t":4,"ev":"pause"}"#).1, Input::Pause);
        assert_eq!(input(r#"{"t":5,"ev":"resume"}"#).1, Input::Resume);
    }

    #[test]
    fn end() {
        let line = parse(r#"{"t":120000,"ev":"end"}"#);
        assert_eq!(line.t, 120_000);
        assert!(matches!(line.event, Event::End));
    }

    #[test]
    fn setup_defaults() {
        let rules = rules(r#"{"t":0,"ev":"setup"}"#);
        let defaults = Rules::default();
        assert_eq!(rules.time_control.to_string(), "5400+30");
        assert_eq!(rules.increment_mode, defaults.increment_mode);
        assert_eq!(rules.mode, GameMode::Standard);
        assert_eq!(rules.enforcement, defaults.enforcement);
        assert_eq!(rules.min_press_gap_ms, defaults.min_press_gap_ms);
        assert_eq!(rules.knock_window_ms, defaults.knock_window_ms);
        assert_eq!(rules.start, Chess::default());
        assert_eq!(rules.black_time_control, None);
        assert_eq!(rules.draw_odds, None);
        assert_eq!(rules, defaults);
    }

    #[test]
    fn setup_armageddon() {
        let setup = rules(
            r#"{"t":0,"ev":"setup","time_control":"300+2","black_time_control":"240+2","draw_odds":"black"}"#,
        );
        assert_eq!(setup.time_control.to_string(), "300+2");
        assert_eq!(
            setup.black_time_control.map(|tc| tc.to_string()).as_deref(),
            Some("240+2")
        );
        assert_eq!(setup.draw_odds, Some(Color::Black));
        assert_eq!(
            rules(r#"{"t":0,"ev":"setup","draw_odds":"white"}"#).draw_odds,
            Some(Color::White)
        );
    }

    #[test]
    fn corrections() {
        assert_eq!(
            input(r#"{"t":60000,"ev":"set_time","side":"white","ms":1500000}"#),
            (60_000, Input::SetTime(Color::White, 1_500_000))
        );
        assert_eq!(
            input(r#"{"t":61000,"ev":"set_moves","side":"black","n":20}"#),
            (61_000, Input::SetMoves(Color::Black, 20))
        );
    }

    #[test]
    fn setup_every_field() {
        let setup = rules(
            r#"{"t":0,"ev":"setup","time_control":"40/5400+30:1800+30",
                "increment_mode":"bronstein","mode":"rapid","enforcement":"claim",
                "fen":"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
                "min_press_gap_ms":50,"knock_window_ms":1500}"#
                .replace('\n', " ")
                .as_str(),
        );
        assert_eq!(setup.time_control.to_string(), "40/5400+30:1800+30");
        assert_eq!(setup.increment_mode, IncrementMode::Bronstein);
        assert_eq!(setup.mode, GameMode::Rapid);
        assert_eq!(setup.enforcement, Enforcement::Claim);
        assert_eq!(setup.min_press_gap_ms, 50);
        assert_eq!(setup.knock_window_ms, 1500);
        assert_eq!(setup.start.turn(), Color::Black);
        assert_eq!(setup.start.board().occupied().count(), 3);
        for (line, mode) in [
            (
                r#"{"t":0,"ev":"setup","increment_mode":"fischer"}"#,
                "fischer",
            ),
            (r#"{"t":0,"ev":"setup","increment_mode":"delay"}"#, "delay"),
        ] {
            assert_eq!(rules(line).increment_mode.as_str(), mode);
        }
        assert_eq!(
            rules(r#"{"t":0,"ev":"setup","mode":"blitz","enforcement":"record"}"#).mode,
            GameMode::Blitz
        );
    }

    #[test]
    fn errors_are_typed() {
        assert_eq!(
            parse_line(r#"{"t":0,"ev":"jump"}"#),
            Err(ParseLineError::UnknownEvent("jump".to_owned()))
        );
        assert_eq!(
            parse_line(r#"{"t":0,"ev":"lift"}"#),
            Err(ParseLineError::MissingField {
                event: "lift".to_owned(),
                field: "sq"
            })
        );
        assert_eq!(parse_line("[0]"), Err(ParseLineError::NotAnObject));
        assert!(matches!(
            parse_line("{"),
            Err(ParseLineError::Malformed { column: 1, .. })
        ));
        assert!(matches!(
            parse_line(r#"{"t":0,"ev":"lift","sq":"z9"}"#),
            Err(ParseLineError::UnknownSquare(sq)) if sq == "z9"
        ));
    }

    #[test]
    fn malformed_json() {
        for line in [
            "{",
            r#"{"t":0,"ev":"press","side":"white""#,
            r#"{"t":0,"ev":"end"} x"#,
            "not json",
            "[0]",
            "42",
            r#""end""#,
        ] {
            let err = error(line);
            let expected = if line.starts_with(['[', '4', '"']) {
                "expected a JSON object"
            } else {
                "malformed JSON"
            };
            assert!(err.starts_with(expected), "{line}: {err}");
        }
    }

    #[test]
    fn unknown_event() {
        assert_eq!(error(r#"{"t":0,"ev":"jump"}"#), r#"unknown event "jump""#);
        assert_eq!(
            error(r#"{"t":0,"ev":"Press","side":"white"}"#),
            r#"unknown event "Press""#
        );
    }

    #[test]
    fn unknown_field() {
        assert_eq!(
            error(r#"{"t":0,"ev":"press","side":"white","hand":"left"}"#),
            r#"unknown field "hand""#
        );
    }

    #[test]
    fn missing_required_field() {
        assert_eq!(error(r#"{"ev":"pause"}"#), "missing field `t`");
        assert_eq!(error(r#"{"t":0}"#), "missing field `ev`");
        for (line, field) in [
            (r#"{"t":0,"ev":"press"}"#, "side"),
            (r#"{"t":0,"ev":"adjust"}"#, "side"),
            (r#"{"t":0,"ev":"draw"}"#, "side"),
            (r#"{"t":0,"ev":"decline"}"#, "side"),
            (r#"{"t":0,"ev":"resign","side":null}"#, "side"),
            (r#"{"t":0,"ev":"lift"}"#, "sq"),
            (r#"{"t":0,"ev":"place","piece":"P"}"#, "sq"),
            (r#"{"t":0,"ev":"touch"}"#, "sq"),
            (r#"{"t":0,"ev":"untouch"}"#, "sq"),
            (r#"{"t":0,"ev":"promote"}"#, "piece"),
            (r#"{"t":0,"ev":"set_time","side":"white"}"#, "ms"),
            (r#"{"t":0,"ev":"set_time","ms":5}"#, "side"),
            (r#"{"t":0,"ev":"set_moves","side":"black"}"#, "n"),
            (r#"{"t":0,"ev":"set_moves","n":3}"#, "side"),
        ] {
            let err = error(line);
            assert!(
                err.ends_with(&format!("needs field {field:?}")),
                "{line}: {err}"
            );
        }
    }

    #[test]
    fn foreign_field() {
        for (line, field, ev) in [
            (
                r#"{"t":0,"ev":"press","side":"white","sq":"e4"}"#,
                "sq",
                "press",
            ),
            (
                r#"{"t":0,"ev":"lift","sq":"e4","piece":"P"}"#,
                "piece",
                "lift",
            ),
            (r#"{"t":0,"ev":"pause","side":"white"}"#, "side", "pause"),
            (
                r#"{"t":0,"ev":"end","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
                "fen",
                "end",
            ),
            (r#"{"t":0,"ev":"setup","side":"white"}"#, "side", "setup"),
            (
                r#"{"t":0,"ev":"promote","piece":"q","sq":"e8"}"#,
                "sq",
                "promote",
            ),
            (
                r#"{"t":0,"ev":"press","side":"white","ms":5}"#,
                "ms",
                "press",
            ),
            (
                r#"{"t":0,"ev":"set_time","side":"white","ms":5,"n":1}"#,
                "n",
                "set_time",
            ),
            (
                r#"{"t":0,"ev":"set_moves","side":"white","n":1,"ms":5}"#,
                "ms",
                "set_moves",
            ),
            (
                r#"{"t":0,"ev":"pause","draw_odds":"black"}"#,
                "draw_odds",
                "pause",
            ),
            (
                r#"{"t":0,"ev":"end","black_time_control":"60"}"#,
                "black_time_control",
                "end",
            ),
        ] {
            assert_eq!(
                error(line),
                format!("field {field:?} does not belong to {ev:?}"),
                "{line}"
            );
        }
    }

    #[test]
    fn bad_values() {
        for (line, start) in [
            (r#"{"t":0,"ev":"press","side":"White"}"#, "bad side"),
            (r#"{"t":0,"ev":"lift","sq":"i1"}"#, "unknown square"),
            (r#"{"t":0,"ev":"lift","sq":"E2"}"#, "unknown square"),
            (r#"{"t":0,"ev":"touch","sq":"e22"}"#, "unknown square"),
            (r#"{"t":0,"ev":"place","sq":"e4","piece":"x"}"#, "bad piece"),
            (
                r#"{"t":0,"ev":"place","sq":"e4","piece":"NN"}"#,
                "bad piece",
            ),
            (
                r#"{"t":0,"ev":"promote","piece":"k"}"#,
                "bad promotion piece",
            ),
            (
                r#"{"t":0,"ev":"promote","piece":"Q"}"#,
                "bad promotion piece",
            ),
            (r#"{"t":0,"ev":"setup","fen":"nonsense"}"#, "bad fen"),
            (
                r#"{"t":0,"ev":"setup","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
                "bad fen",
            ),
            (
                r#"{"t":0,"ev":"setup","time_control":"?"}"#,
                "bad time_control",
            ),
            (
                r#"{"t":0,"ev":"setup","time_control":"5 min"}"#,
                "bad time_control",
            ),
            (
                r#"{"t":0,"ev":"setup","increment_mode":"simple"}"#,
                "bad increment_mode",
            ),
            (r#"{"t":0,"ev":"setup","mode":"bullet"}"#, "bad mode"),
            (
                r#"{"t":0,"ev":"setup","enforcement":"lax"}"#,
                "bad enforcement",
            ),
            (
                r#"{"t":0,"ev":"setup","black_time_control":"-"}"#,
                "bad black_time_control",
            ),
            (
                r#"{"t":0,"ev":"setup","draw_odds":"Black"}"#,
                "bad draw_odds",
            ),
            (r#"{"t":0,"ev":"set_time","side":"red","ms":5}"#, "bad side"),
        ] {
            let err = error(line);
            assert!(err.starts_with(start), "{line}: {err}");
        }
        // Wrong JSON types are caught by serde, with its own words.
        for line in [
            r#"{"t":-1,"ev":"pause"}"#,
            r#"{"t":1.5,"ev":"pause"}"#,
            r#"{"t":"0","ev":"pause"}"#,
            r#"{"t":0,"ev":1}"#,
            r#"{"t":0,"ev":"lift","sq":36}"#,
            r#"{"t":0,"ev":"setup","min_press_gap_ms":"100"}"#,
            r#"{"t":0,"ev":"pause","t":1}"#,
            r#"{"t":0,"ev":"set_time","side":"white","ms":-5}"#,
            r#"{"t":0,"ev":"set_time","side":"white","ms":"5"}"#,
            r#"{"t":0,"ev":"set_moves","side":"white","n":4294967296}"#,
            r#"{"t":0,"ev":"setup","draw_odds":true}"#,
        ] {
            let err = error(line);
            assert!(
                err.starts_with("invalid") || err.starts_with("duplicate"),
                "{line}: {err}"
            );
        }
    }

    #[test]
    fn every_effect_on_the_wire() {
        let cases = [
            (
                Effect::Started { side: Color::White },
                r#"{"t":0,"effect":"started","side":"white"}"#,
            ),
            (
                Effect::Move(CompletedMove {
                    side: Color::White,
                    number: 1,
                    uci: MoveText::new("g1f3").expect("a UCI move"),
                    san: MoveText::new("Nf3").expect("a SAN move"),
                    white_ms: 300_000,
                    black_ms: 299_000,
                }),
                r#"{"t":0,"effect":"move","side":"white","n":1,"uci":"g1f3","san":"Nf3","white_ms":300000,"black_ms":299000}"#,
            ),
            (
                Effect::Violation(Ruling {
                    side: Color::Black,
                    law: Law::TouchedOwn,
                    detail: "Touch-move: move the \"g8\" knight".to_owned(),
                }),
                r#"{"t":0,"effect":"violation","side":"black","law":"4.3.1","detail":"Touch-move: move the \"g8\" knight"}"#,
            ),
            (
                Effect::Warning(Ruling {
                    side: Color::White,
                    law: Law::PressHand,
                    detail: "Press with the hand that moved".to_owned(),
                }),
                r#"{"t":0,"effect":"warning","side":"white","law":"6.2.3","detail":"Press with the hand that moved"}"#,
            ),
            (
                Effect::TimeAdded {
                    side: Color::Black,
                    ms: 120_000,
                    law: Law::IllegalMovePenalty,
                },
                r#"{"t":0,"effect":"time_added","side":"black","ms":120000,"law":"7.5.5"}"#,
            ),
            (
                Effect::DrawOffer {
                    side: Color::White,
                    proper: true,
                },
                r#"{"t":0,"effect":"draw_offer","side":"white","proper":true}"#,
            ),
            (
                Effect::DrawDeclined {
                    side: Color::White,
                    how: Rejection::Touch,
                },
                r#"{"t":0,"effect":"draw_declined","side":"white","how":"touch"}"#,
            ),
            (
                Effect::DrawDeclined {
                    side: Color::Black,
                    how: Rejection::Spoken,
                },
                r#"{"t":0,"effect":"draw_declined","side":"black","how":"spoken"}"#,
            ),
            (
                Effect::Displaced {
                    side: Color::Black,
                    squares: vec![Square::E4, Square::H8],
                },
                r#"{"t":0,"effect":"displaced","side":"black","squares":["e4","h8"]}"#,
            ),
            (
                Effect::Restored {
                    side: Color::Black,
                    ms: 4_200,
                },
                r#"{"t":0,"effect":"restored","side":"black","ms":4200}"#,
            ),
            (
                Effect::Flag { side: Color::White },
                r#"{"t":0,"effect":"flag","side":"white"}"#,
            ),
            (Effect::Paused, r#"{"t":0,"effect":"paused"}"#),
            (Effect::Resumed, r#"{"t":0,"effect":"resumed"}"#),
            (
                Effect::Corrected {
                    side: Color::White,
                    ms: 1_500_000,
                    completed: 20,
                },
                r#"{"t":0,"effect":"corrected","side":"white","ms":1500000,"completed":20}"#,
            ),
            (
                Effect::Result {
                    outcome: KnownOutcome::Decisive {
                        winner: Color::Black,
                    },
                    reason: Reason::Timeout,
                },
                r#"{"t":0,"effect":"result","result":"0-1","reason":"timeout"}"#,
            ),
            (
                Effect::Result {
                    outcome: KnownOutcome::Decisive {
                        winner: Color::White,
                    },
                    reason: Reason::Checkmate,
                },
                r#"{"t":0,"effect":"result","result":"1-0","reason":"checkmate"}"#,
            ),
            (
                Effect::Result {
                    outcome: KnownOutcome::Draw,
                    reason: Reason::ThreefoldRepetition,
                },
                r#"{"t":0,"effect":"result","result":"1/2-1/2","reason":"threefold_repetition"}"#,
            ),
        ];
        for (effect, json) in cases {
            assert_eq!(effect_to_json(0, &effect), json, "{effect:?}");
            // The value a message carries is that line's.
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(effect_to_value(0, &effect), value, "{effect:?}");
        }
        assert_eq!(
            effect_to_json(60_000, &Effect::Flag { side: Color::White }),
            r#"{"t":60000,"effect":"flag","side":"white"}"#
        );
    }

    #[test]
    fn inputs_written_as_the_format_has_them() {
        let w = Color::White;
        let b = Color::Black;
        let cases = [
            (Input::Press(b), r#"{"t":7,"ev":"press","side":"black"}"#),
            (Input::Adjust(w), r#"{"t":7,"ev":"adjust","side":"white"}"#),
            (Input::Draw(w), r#"{"t":7,"ev":"draw","side":"white"}"#),
            (
                Input::Decline(b),
                r#"{"t":7,"ev":"decline","side":"black"}"#,
            ),
            (Input::Resign(b), r#"{"t":7,"ev":"resign","side":"black"}"#),
            (Input::Lift(Square::E2), r#"{"t":7,"ev":"lift","sq":"e2"}"#),
            (
                Input::Touch(Square::G1),
                r#"{"t":7,"ev":"touch","sq":"g1"}"#,
            ),
            (
                Input::Untouch(Square::H8),
                r#"{"t":7,"ev":"untouch","sq":"h8"}"#,
            ),
            (
                Input::Place(Square::E4, None),
                r#"{"t":7,"ev":"place","sq":"e4"}"#,
            ),
            (
                Input::Place(Square::F6, Some(b.knight())),
                r#"{"t":7,"ev":"place","sq":"f6","piece":"n"}"#,
            ),
            (
                Input::Promote(Role::Knight),
                r#"{"t":7,"ev":"promote","piece":"n"}"#,
            ),
            (Input::Pause, r#"{"t":7,"ev":"pause"}"#),
            (Input::Resume, r#"{"t":7,"ev":"resume"}"#),
            (
                Input::SetTime(w, 1_500_000),
                r#"{"t":7,"ev":"set_time","side":"white","ms":1500000}"#,
            ),
            (
                Input::SetMoves(b, 20),
                r#"{"t":7,"ev":"set_moves","side":"black","n":20}"#,
            ),
        ];
        for (input, json) in cases {
            assert_eq!(input_to_json(7, &input), json, "{input:?}");
            let line = Line {
                t: 7,
                event: Event::Input(input),
            };
            assert_eq!(line_to_json(&line), json);
            assert_eq!(parse(json), line, "{json}");
        }
        let end = Line {
            t: 9_000,
            event: Event::End,
        };
        assert_eq!(line_to_json(&end), r#"{"t":9000,"ev":"end"}"#);
        assert_eq!(parse(&line_to_json(&end)), end);
    }

    #[test]
    fn setup_written_with_every_rule() {
        let setup = |rules: Rules| Line {
            t: 0,
            event: Event::Setup(Box::new(rules)),
        };
        let defaults = setup(Rules::default());
        assert_eq!(
            line_to_json(&defaults),
            r#"{"t":0,"ev":"setup","time_control":"5400+30","increment_mode":"fischer","mode":"standard","enforcement":"strict","min_press_gap_ms":100,"knock_window_ms":2000}"#
        );
        assert_eq!(parse(&line_to_json(&defaults)), defaults);

        let armageddon = setup(Rules {
            time_control: "300+2".parse().unwrap(),
            black_time_control: Some("240+2".parse().unwrap()),
            draw_odds: Some(Color::Black),
            increment_mode: IncrementMode::Delay,
            mode: GameMode::Blitz,
            enforcement: Enforcement::Record,
            laws: Laws::Fide2023Unsupervised,
            min_press_gap_ms: 0,
            knock_window_ms: 1_234,
            start: position("4k3/8/8/8/8/8/4P3/4K3 b - - 7 42").unwrap(),
        });
        assert_eq!(
            line_to_json(&armageddon),
            r#"{"t":0,"ev":"setup","time_control":"300+2","black_time_control":"240+2","draw_odds":"black","increment_mode":"delay","mode":"blitz","enforcement":"record","laws":"fide-2023-unsupervised","min_press_gap_ms":0,"knock_window_ms":1234,"fen":"4k3/8/8/8/8/8/4P3/4K3 b - - 7 42"}"#
        );
        assert_eq!(parse(&line_to_json(&armageddon)), armageddon);
    }

    #[test]
    fn laws_choose_and_choice_round_trip() {
        for laws in [
            Laws::Fide2023,
            Laws::Fide2023Unsupervised,
            Laws::Regence1858,
        ] {
            let line = format!(r#"{{"t":0,"ev":"setup","laws":"{laws}"}}"#);
            assert_eq!(rules(&line).laws, laws);
        }
        for choice in Choice::ALL {
            let line = format!(r#"{{"t":5,"ev":"choose","side":"black","option":"{choice}"}}"#);
            assert_eq!(input(&line), (5, Input::Choose(Color::Black, choice)));
            assert_eq!(input_to_json(5, &Input::Choose(Color::Black, choice)), line);
        }
        let choice = Effect::Choice {
            side: Color::Black,
            law: Law::Regence9,
            options: crate::referee::ChoiceOptions::from_slice(&[
                Choice::Take,
                Choice::Leave,
                Choice::King,
            ]),
        };
        assert_eq!(
            effect_to_json(10, &choice),
            r#"{"t":10,"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}"#
        );
    }

    #[test]
    fn the_standard_start_is_told_apart_by_its_move_counters() {
        // Chess's own equality ignores the counters: the FEN must not.
        let later = Rules {
            start: position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3").unwrap(),
            ..Rules::default()
        };
        assert_ne!(later, Rules::default());
        let line = Line {
            t: 0,
            event: Event::Setup(Box::new(later)),
        };
        let json = line_to_json(&line);
        assert!(
            json.ends_with(r#","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"}"#),
            "{json}"
        );
        assert_eq!(parse(&json), line);
    }
}
