//! What the referee decides: effects, drained with `Referee::poll_effect`.

use std::fmt;

use shakmaty::{Color, KnownOutcome, Square};

use super::Law;

/// A move completed (6.2.1), with both clocks as they stand after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedMove {
    /// Who made it.
    pub side: Color,
    /// The move number, as in a score sheet.
    pub number: u32,
    /// The move in UCI (`e1g1` for castling).
    pub uci: String,
    /// The move in SAN with its check or mate suffix, as in PGN.
    pub san: String,
    /// White's time left, with the increment and any stage time earned.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
}

/// A ruling on a player's conduct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    /// The player ruled against.
    pub side: Color,
    /// The article broken.
    pub law: Law,
    /// Plain words for the face and the log, e.g. "Touch-move: move the g1 knight".
    pub detail: String,
}

/// How a draw offer was rejected (9.1.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// The opponent touched a piece with intent during his turn.
    Touch,
    /// The opponent said no (the decline button).
    Spoken,
}

/// Why the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    Checkmate,
    Resignation,
    Timeout,
    TimeoutVsInsufficientMaterial,
    Stalemate,
    InsufficientMaterial,
    Agreement,
    ThreefoldRepetition,
    FiftyMoves,
    FivefoldRepetition,
    SeventyFiveMoves,
    IllegalMoves,
}

impl Reason {
    /// The snake-case name used in JSON and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Resignation => "resignation",
            Reason::Timeout => "timeout",
            Reason::TimeoutVsInsufficientMaterial => "timeout_vs_insufficient_material",
            Reason::Stalemate => "stalemate",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::Agreement => "agreement",
            Reason::ThreefoldRepetition => "threefold_repetition",
            Reason::FiftyMoves => "fifty_moves",
            Reason::FivefoldRepetition => "fivefold_repetition",
            Reason::SeventyFiveMoves => "seventy_five_moves",
            Reason::IllegalMoves => "illegal_moves",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the referee decided. Each comes with the instant it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The first press started this side's clock (6.6).
    Started { side: Color },
    /// A move was completed, in game order.
    Move(CompletedMove),
    /// A rule was broken. In strict enforcement the press that would have
    /// completed the move was refused and the offender's clock runs on.
    Violation(Ruling),
    /// Conduct worth pointing out that does not stop the game.
    Warning(Ruling),
    /// Time given to a player (7.5.5: the opponent's illegal move).
    TimeAdded { side: Color, ms: u64, law: Law },
    /// A draw offer; `proper` when made between moving and pressing (9.1.2.1).
    DrawOffer { side: Color, proper: bool },
    /// The offer made by `side` was rejected.
    DrawDeclined { side: Color, how: Rejection },
    /// Pieces were displaced (7.4.1); `side` is charged, and his clock runs
    /// until the board matches the position again.
    Displaced { side: Color, squares: Vec<Square> },
    /// The board matches the position again; `ms` was charged to `side`.
    Restored { side: Color, ms: u64 },
    /// This side's time ran out. The first flag ends the game.
    Flag { side: Color },
    /// The arbiter stopped the clock.
    Paused,
    /// The clock runs again.
    Resumed,
    /// The arbiter corrected `side`'s clock while paused (6.10.2): his main
    /// time left and the moves he has completed, as they stand now.
    Corrected {
        side: Color,
        ms: u64,
        completed: u32,
    },
    /// The game is over. Nothing follows. Under draw odds (Armageddon) a
    /// game drawn for `reason` is won by the side with the odds, and
    /// `reason` still says why it would have been drawn.
    Result {
        outcome: KnownOutcome,
        reason: Reason,
    },
}
