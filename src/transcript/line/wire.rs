//! The event line's fields as they appear on the wire, read and written
//! alike, and a side's name there.

use serde::{Deserialize, Serialize};

use crate::referee::Millis;

/// Every field any event may carry, as it appears on the wire, read and
/// written alike.
///
/// One flat struct rather than an enum per event so that the error for a
/// stray field can name the event it does not belong to, which serde's own
/// tagged enums cannot do. Absent fields are not written.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WireLine {
    pub(super) t: Millis,
    pub(super) ev: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) side: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) sq: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) piece: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ran_to: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) n: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) time_control: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) black_time_control: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) draw_odds: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) increment_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) enforcement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) laws: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) min_press_gap_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) knock_window_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) plain_clock: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) option: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) round: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) board: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) white: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) black: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) white_elo: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) black_elo: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) white_fide_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) black_fide_id: Option<u64>,
}

impl WireLine {
    /// The optional fields that were given, by wire name.
    pub(super) fn present(&self) -> impl Iterator<Item = &'static str> {
        [
            ("side", self.side.is_some()),
            ("sq", self.sq.is_some()),
            ("piece", self.piece.is_some()),
            ("ms", self.ms.is_some()),
            ("ran_to", self.ran_to.is_some()),
            ("n", self.n.is_some()),
            ("time_control", self.time_control.is_some()),
            ("black_time_control", self.black_time_control.is_some()),
            ("draw_odds", self.draw_odds.is_some()),
            ("increment_mode", self.increment_mode.is_some()),
            ("mode", self.mode.is_some()),
            ("fen", self.fen.is_some()),
            ("plain_clock", self.plain_clock.is_some()),
            ("enforcement", self.enforcement.is_some()),
            ("laws", self.laws.is_some()),
            ("min_press_gap_ms", self.min_press_gap_ms.is_some()),
            ("knock_window_ms", self.knock_window_ms.is_some()),
            ("result", self.result.is_some()),
            ("reason", self.reason.is_some()),
            ("option", self.option.is_some()),
            ("round", self.round.is_some()),
            ("board", self.board.is_some()),
            ("white", self.white.is_some()),
            ("black", self.black.is_some()),
            ("white_elo", self.white_elo.is_some()),
            ("black_elo", self.black_elo.is_some()),
            ("white_fide_id", self.white_fide_id.is_some()),
            ("black_fide_id", self.black_fide_id.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
    }
}

/// The fields each event takes besides `t` and `ev`; `None` for an unknown event.
pub(super) fn fields_of(ev: &str) -> Option<&'static [&'static str]> {
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
            "plain_clock",
        ],
        "press" | "adjust" | "draw" | "decline" | "resign" | "claim" => &["side"],
        "lift" | "touch" | "untouch" => &["sq"],
        "place" => &["sq", "piece"],
        "promote" => &["piece"],
        "pause" | "resume" | "end" | "waive" | "takeback" => &[],
        "checkpoint" => &["ran_to"],
        "restart" => &["ms"],
        "adjudicate" => &["result", "reason"],
        "choose" => &["side", "option"],
        "set_time" => &["side", "ms"],
        "set_moves" => &["side", "n"],
        "players" => &[
            "round",
            "board",
            "white",
            "black",
            "white_elo",
            "black_elo",
            "white_fide_id",
            "black_fide_id",
        ],
        _ => return None,
    })
}
