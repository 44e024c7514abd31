//! Reading an effect line back into the referee's [`Effect`]: for the
//! programs that receive effects as JSON (the simulator's log from the
//! daemon's output, the hall from the publisher's messages), so that they
//! deserialize each once, here, and work on typed values after.

use std::fmt;

use serde::Deserialize;

use super::event_read::{arbiter_words, choice, outcome, side, square};
use crate::referee::{
    ChoiceOptions, CompletedMove, Effect, Law, Millis, MoveText, Reason, Rejection, Ruling,
};

/// Why a line is not an effect line [`effect_to_json`](super::effect_to_json)
/// writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseEffectError {
    /// Not JSON, or not the fields of any effect: serde_json's words.
    Json(String),
    /// A field whose value is not one the format has.
    Value {
        /// The field's name on the wire.
        field: &'static str,
        /// The value found.
        value: String,
    },
}

impl fmt::Display for ParseEffectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseEffectError::Json(why) => write!(f, "not an effect line: {why}"),
            ParseEffectError::Value { field, value } => write!(f, "bad {field}: {value:?}"),
        }
    }
}

impl std::error::Error for ParseEffectError {}

#[derive(Deserialize)]
struct In {
    t: Millis,
    #[serde(flatten)]
    effect: Wire,
}

/// The owned twin of the writer's borrowed wire effect.
#[derive(Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
enum Wire {
    Started {
        side: String,
    },
    Move {
        side: String,
        n: u32,
        uci: String,
        san: String,
        white_ms: u64,
        black_ms: u64,
    },
    Violation {
        side: String,
        law: String,
        detail: String,
    },
    Warning {
        side: String,
        law: String,
        detail: String,
    },
    TimeAdded {
        side: String,
        ms: u64,
        law: String,
    },
    DrawOffer {
        side: String,
        proper: bool,
    },
    DrawDeclined {
        side: String,
        how: String,
    },
    Displaced {
        side: String,
        squares: Vec<String>,
    },
    Restored {
        side: String,
        ms: u64,
    },
    Flag {
        side: String,
    },
    Paused,
    Resumed,
    Corrected {
        side: String,
        ms: u64,
        completed: u32,
    },
    #[serde(rename = "takeback")]
    TakenBack {
        side: String,
        n: u32,
        san: String,
    },
    Waived {
        side: String,
        law: String,
    },
    Claim {
        side: String,
        law: String,
        upheld: bool,
    },
    Choice {
        side: String,
        law: String,
        options: Vec<String>,
    },
    Result {
        result: String,
        reason: String,
        #[serde(default)]
        detail: Option<String>,
    },
}

/// The reasons a result line names, but `adjudicated`, which carries the
/// arbiter's words.
const REASONS: [Reason; 12] = [
    Reason::Checkmate,
    Reason::Resignation,
    Reason::Timeout,
    Reason::TimeoutVsInsufficientMaterial,
    Reason::Stalemate,
    Reason::InsufficientMaterial,
    Reason::Agreement,
    Reason::ThreefoldRepetition,
    Reason::FiftyMoves,
    Reason::FivefoldRepetition,
    Reason::SeventyFiveMoves,
    Reason::IllegalMoves,
];

fn bad(field: &'static str, value: &str) -> ParseEffectError {
    ParseEffectError::Value {
        field,
        value: value.to_owned(),
    }
}

fn color(s: &str) -> Result<shakmaty::Color, ParseEffectError> {
    side(s).map_err(|_| bad("side", s))
}

fn law(s: &str) -> Result<Law, ParseEffectError> {
    Law::ALL
        .into_iter()
        .find(|law| law.article() == s)
        .ok_or_else(|| bad("law", s))
}

fn text(field: &'static str, s: &str) -> Result<MoveText, ParseEffectError> {
    MoveText::new(s).ok_or_else(|| bad(field, s))
}

fn ruling(side: &str, law_text: &str, detail: String) -> Result<Ruling, ParseEffectError> {
    Ok(Ruling {
        side: color(side)?,
        law: law(law_text)?,
        detail,
    })
}

/// Reads one effect line, as [`effect_to_json`](super::effect_to_json)
/// writes it, back into its instant and effect.
pub fn parse_effect_line(line: &str) -> Result<(Millis, Effect), ParseEffectError> {
    let In { t, effect } =
        serde_json::from_str(line).map_err(|err| ParseEffectError::Json(err.to_string()))?;
    let effect = match effect {
        Wire::Started { side } => Effect::Started {
            side: color(&side)?,
        },
        Wire::Move {
            side,
            n,
            uci,
            san,
            white_ms,
            black_ms,
        } => Effect::Move(CompletedMove {
            side: color(&side)?,
            number: n,
            uci: text("uci", &uci)?,
            san: text("san", &san)?,
            white_ms,
            black_ms,
        }),
        Wire::Violation { side, law, detail } => Effect::Violation(ruling(&side, &law, detail)?),
        Wire::Warning { side, law, detail } => Effect::Warning(ruling(&side, &law, detail)?),
        Wire::TimeAdded { side, ms, law: l } => Effect::TimeAdded {
            side: color(&side)?,
            ms,
            law: law(&l)?,
        },
        Wire::DrawOffer { side, proper } => Effect::DrawOffer {
            side: color(&side)?,
            proper,
        },
        Wire::DrawDeclined { side, how } => Effect::DrawDeclined {
            side: color(&side)?,
            how: match how.as_str() {
                "touch" => Rejection::Touch,
                "spoken" => Rejection::Spoken,
                _ => return Err(bad("how", &how)),
            },
        },
        Wire::Displaced { side, squares } => Effect::Displaced {
            side: color(&side)?,
            squares: squares
                .iter()
                .map(|sq| square(sq).map_err(|_| bad("squares", sq)))
                .collect::<Result<_, _>>()?,
        },
        Wire::Restored { side, ms } => Effect::Restored {
            side: color(&side)?,
            ms,
        },
        Wire::Flag { side } => Effect::Flag {
            side: color(&side)?,
        },
        Wire::Paused => Effect::Paused,
        Wire::Resumed => Effect::Resumed,
        Wire::Corrected {
            side,
            ms,
            completed,
        } => Effect::Corrected {
            side: color(&side)?,
            ms,
            completed,
        },
        Wire::TakenBack { side, n, san } => Effect::TakenBack {
            side: color(&side)?,
            number: n,
            san: text("san", &san)?,
        },
        Wire::Waived { side, law: l } => Effect::Waived {
            side: color(&side)?,
            law: law(&l)?,
        },
        Wire::Claim {
            side,
            law: l,
            upheld,
        } => Effect::Claim {
            side: color(&side)?,
            law: law(&l)?,
            upheld,
        },
        Wire::Choice {
            side,
            law: l,
            options,
        } => Effect::Choice {
            side: color(&side)?,
            law: law(&l)?,
            options: ChoiceOptions::from_slice(
                &options
                    .iter()
                    .map(|o| choice(o).map_err(|_| bad("options", o)))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        },
        Wire::Result {
            result,
            reason,
            detail,
        } => Effect::Result {
            outcome: outcome(&result).map_err(|_| bad("result", &result))?,
            reason: match (reason.as_str(), detail) {
                ("adjudicated", Some(words)) => {
                    Reason::Adjudicated(arbiter_words(&words).map_err(|_| bad("detail", &words))?)
                }
                (name, None) => REASONS
                    .into_iter()
                    .find(|r| r.as_str() == name)
                    .ok_or_else(|| bad("reason", name))?,
                (name, Some(_)) => return Err(bad("reason", name)),
            },
        },
    };
    Ok((t, effect))
}
