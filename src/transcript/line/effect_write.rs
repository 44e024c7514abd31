//! Writing an effect line: [`effect_to_json`] (and the same as a JSON
//! value, [`effect_to_value`]), and the daemon's `game_restored` line.

use serde::Serialize;
use shakmaty::Square;

use crate::referee::{Effect, Millis, Reason, Rejection};
use crate::words::side_keyword;

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

impl<'a> From<&'a Effect> for WireEffect<'a> {
    fn from(effect: &'a Effect) -> WireEffect<'a> {
        match effect {
            Effect::Started { side } => WireEffect::Started {
                side: side_keyword(*side),
            },
            Effect::Move(m) => WireEffect::Move {
                side: side_keyword(m.side),
                n: m.number,
                uci: &m.uci,
                san: &m.san,
                white_ms: m.white_ms,
                black_ms: m.black_ms,
            },
            Effect::Violation(r) => WireEffect::Violation {
                side: side_keyword(r.side),
                law: r.law.article(),
                detail: &r.detail,
            },
            Effect::Warning(r) => WireEffect::Warning {
                side: side_keyword(r.side),
                law: r.law.article(),
                detail: &r.detail,
            },
            Effect::TimeAdded { side, ms, law } => WireEffect::TimeAdded {
                side: side_keyword(*side),
                ms: *ms,
                law: law.article(),
            },
            Effect::DrawOffer { side, proper } => WireEffect::DrawOffer {
                side: side_keyword(*side),
                proper: *proper,
            },
            Effect::DrawDeclined { side, how } => WireEffect::DrawDeclined {
                side: side_keyword(*side),
                how: match how {
                    Rejection::Touch => "touch",
                    Rejection::Spoken => "spoken",
                },
            },
            Effect::Displaced { side, squares } => WireEffect::Displaced {
                side: side_keyword(*side),
                squares: squares.iter().map(Square::to_string).collect(),
            },
            Effect::Restored { side, ms } => WireEffect::Restored {
                side: side_keyword(*side),
                ms: *ms,
            },
            Effect::Flag { side } => WireEffect::Flag {
                side: side_keyword(*side),
            },
            Effect::Paused => WireEffect::Paused,
            Effect::Resumed => WireEffect::Resumed,
            Effect::Corrected {
                side,
                ms,
                completed,
            } => WireEffect::Corrected {
                side: side_keyword(*side),
                ms: *ms,
                completed: *completed,
            },
            Effect::TakenBack { side, number, san } => WireEffect::TakenBack {
                side: side_keyword(*side),
                n: *number,
                san,
            },
            Effect::Waived { side, law } => WireEffect::Waived {
                side: side_keyword(*side),
                law: law.article(),
            },
            Effect::Claim { side, law, upheld } => WireEffect::Claim {
                side: side_keyword(*side),
                law: law.article(),
                upheld: *upheld,
            },
            Effect::Choice { side, law, options } => WireEffect::Choice {
                side: side_keyword(*side),
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
