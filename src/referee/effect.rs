//! What the referee decides: effects, drained with `Referee::poll_effect`.

use std::fmt;
use std::ops::Deref;

use shakmaty::{Color, KnownOutcome, Square};

use super::adjudication::ArbiterWords;
use super::choice::ChoiceOptions;
use super::law::Law;

/// A move completed (6.2.1), with both clocks as they stand after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedMove {
    /// Who made it.
    pub side: Color,
    /// The move number, as in a score sheet.
    pub number: u32,
    /// The move in UCI (`e1g1` for castling).
    pub uci: MoveText,
    /// The move in SAN with its check or mate suffix, as in PGN.
    pub san: MoveText,
    /// White's time left, with the increment and any stage time earned.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
}

/// The text of a move, UCI or SAN, held inline: a completed move reports
/// two, and an effect should not allocate for them. Reads as a `str`
/// (`m.san.as_str()`, `&*m.san`, `m.san == "e4"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveText {
    len: u8,
    bytes: [u8; MoveText::CAPACITY],
}

impl MoveText {
    /// The longest text held: more than any move in UCI or in SAN with its
    /// suffix (`Qh4xe1+`, `exd8=Q#`) needs.
    pub const CAPACITY: usize = 15;

    /// `text`, if it is no longer than [`MoveText::CAPACITY`] bytes.
    pub fn new(text: &str) -> Option<MoveText> {
        let mut held = MoveText::default();
        fmt::Write::write_str(&mut held, text).ok()?;
        Some(held)
    }

    /// What `value` displays, if it fits (every UCI and SAN move does).
    pub fn display(value: impl fmt::Display) -> Option<MoveText> {
        let mut held = MoveText::default();
        fmt::Write::write_fmt(&mut held, format_args!("{value}")).ok()?;
        Some(held)
    }

    /// Appends an ASCII character (a move's text never fills the buffer).
    #[inline]
    pub(crate) fn push(&mut self, c: char) {
        debug_assert!(c.is_ascii());
        self.bytes[usize::from(self.len)] = c as u8;
        self.len += 1;
    }

    /// Appends ASCII text (a move's text never fills the buffer).
    pub(crate) fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push(c);
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole `str`s are ever written into the buffer.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)])
            .expect("a move's text is whole UTF-8")
    }
}

impl Default for MoveText {
    /// The empty text.
    fn default() -> MoveText {
        MoveText {
            len: 0,
            bytes: [0; MoveText::CAPACITY],
        }
    }
}

impl fmt::Write for MoveText {
    /// Appends `s`, or fails leaving the text as it was if it would not fit.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let start = usize::from(self.len);
        let end = start + s.len();
        let slot = self.bytes.get_mut(start..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end as u8;
        Ok(())
    }
}

impl Deref for MoveText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for MoveText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for MoveText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for MoveText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for MoveText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<MoveText> for str {
    fn eq(&self, other: &MoveText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<MoveText> for &str {
    fn eq(&self, other: &MoveText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<MoveText> for String {
    fn eq(&self, other: &MoveText) -> bool {
        self == other.as_str()
    }
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
    /// The king is in check and has no legal move (5.1.1).
    Checkmate,
    /// A player resigned (5.1.2).
    Resignation,
    /// A flag fell and the opponent could still mate (6.9).
    Timeout,
    /// A flag fell but the opponent cannot mate by any series of legal
    /// moves: a draw (6.9).
    TimeoutVsInsufficientMaterial,
    /// The player to move has no legal move and is not in check (5.2.1).
    Stalemate,
    /// Neither side can mate: a dead position (5.2.2).
    InsufficientMaterial,
    /// Both players agreed to a draw (5.2.3, 9.1).
    Agreement,
    /// The same position for the third time, claimed (9.2).
    ThreefoldRepetition,
    /// Fifty moves by each side without a capture or a pawn move, claimed (9.3).
    FiftyMoves,
    /// The same position for the fifth time: drawn without a claim (9.6.1).
    FivefoldRepetition,
    /// Seventy-five moves by each side without a capture or a pawn move:
    /// drawn without a claim (9.6.2).
    SeventyFiveMoves,
    /// A second illegal move lost the game (7.5.5, A.4.2, B.3.2).
    IllegalMoves,
    /// The arbiter gave the result, for the reason in his words.
    Adjudicated(ArbiterWords),
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
            Reason::Adjudicated(_) => "adjudicated",
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
    Started {
        /// Whose clock runs.
        side: Color,
    },
    /// A move was completed, in game order. Under `regence-1858` a turn
    /// passed over by the opponent's two moves in a row (15ª) is a null
    /// move: UCI `0000`, SAN `--`.
    Move(CompletedMove),
    /// A rule was broken. In strict enforcement the press that would have
    /// completed the move was refused and the offender's clock runs on.
    Violation(Ruling),
    /// Conduct worth pointing out that does not stop the game.
    Warning(Ruling),
    /// Time given to a player (7.5.5: the opponent's illegal move).
    TimeAdded {
        /// Who gets the time.
        side: Color,
        /// How much, in ms.
        ms: u64,
        /// The article that gives it.
        law: Law,
    },
    /// A draw offer; `proper` when made between moving and pressing (9.1.2.1).
    DrawOffer {
        /// Who offers.
        side: Color,
        /// Whether it was made at the proper moment.
        proper: bool,
    },
    /// The offer made by `side` was rejected.
    DrawDeclined {
        /// Who had offered.
        side: Color,
        /// How the opponent declined it.
        how: Rejection,
    },
    /// Pieces were displaced (7.4.1); `side` is charged, and his clock runs
    /// until the board matches the position again.
    Displaced {
        /// Who displaced them, and is charged.
        side: Color,
        /// The squares that do not match the position.
        squares: Vec<Square>,
    },
    /// The board matches the position again; `ms` was charged to `side`.
    Restored {
        /// Who was charged.
        side: Color,
        /// The time charged, in ms.
        ms: u64,
    },
    /// This side's time ran out. The first flag ends the game.
    Flag {
        /// Whose time ran out.
        side: Color,
    },
    /// The arbiter stopped the clock.
    Paused,
    /// The clock runs again.
    Resumed,
    /// The arbiter corrected `side`'s clock while paused (6.10.2): his main
    /// time left and the moves he has completed, as they stand now.
    Corrected {
        /// Whose clock was corrected.
        side: Color,
        /// His main time left now, in ms.
        ms: u64,
        /// The moves he has completed, now.
        completed: u32,
    },
    /// A completed move was undone (the arbiter's takeback, an upheld
    /// claim): it is not in the score, and it is `side`'s turn again.
    TakenBack {
        /// Who had made it.
        side: Color,
        /// Its move number.
        number: u32,
        /// It in SAN, as it was recorded.
        san: MoveText,
    },
    /// The arbiter waived the obligation `law` put on `side`.
    Waived {
        /// Who was obliged.
        side: Color,
        /// The article of the obligation.
        law: Law,
    },
    /// `side` claimed a breach of article 4 (4.8): upheld (the move is
    /// taken back and the obligation of `law` imposed) or not (`law` is
    /// then 4.8).
    Claim {
        /// Who claimed.
        side: Color,
        /// The article broken, or 4.8 for a claim that fails.
        law: Law,
        /// Whether the claim was upheld.
        upheld: bool,
    },
    /// The laws leave the penalty for `law` to `side` (the 1858 laws:
    /// the offender's opponent): the game waits for his `Input::Choose`
    /// with one of `options`.
    Choice {
        /// Who chooses.
        side: Color,
        /// The law that gives him the choice.
        law: Law,
        /// What he may choose, in the law's order.
        options: ChoiceOptions,
    },
    /// The game is over. Nothing follows. Under draw odds (Armageddon) a
    /// game drawn for `reason` is won by the side with the odds, and
    /// `reason` still says why it would have been drawn.
    Result {
        /// Who won, or a draw.
        outcome: KnownOutcome,
        /// Why the game ended.
        reason: Reason,
    },
}
