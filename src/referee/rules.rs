//! The settings a game is played under, fixed before it starts (6.3).

use std::fmt;
use std::str::FromStr;

use shakmaty::Chess;

use super::TimeControl;

/// What `+N` in a time control means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncrementMode {
    /// N seconds added when a move is completed by the press, from move 1.
    #[default]
    Fischer,
    /// The time used for the move is added back, at most N seconds.
    Bronstein,
    /// US delay: the countdown starts N seconds after the clock starts.
    Delay,
}

/// The kind of game, for the penalties of appendices A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GameMode {
    #[default]
    Standard,
    Rapid,
    Blitz,
}

impl GameMode {
    /// Time given to the opponent of a player who completes an illegal move (7.5.5, A.3, B.3).
    pub const fn penalty_ms(self) -> u64 {
        match self {
            GameMode::Standard => 120_000,
            GameMode::Rapid | GameMode::Blitz => 60_000,
        }
    }
}

/// What the referee does when a rule is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Enforcement {
    /// The press that would complete the offending move is refused: the
    /// offender's clock runs on until he sets the board right and completes a
    /// correct move.
    #[default]
    Strict,
    /// The violation is shown and the press goes through; the opponent decides
    /// whether to call the arbiter. Illegal moves (7.5) are still refused, as
    /// no game can go on from an illegal position.
    Claim,
    /// Violations are only logged; illegal moves are refused without penalty.
    Record,
}

macro_rules! keyword_enum {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),+) => {
        impl $ty {
            /// The lower-case keyword used in files and on the command line.
            pub const fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownKeyword;

            fn from_str(s: &str) -> Result<$ty, UnknownKeyword> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(UnknownKeyword { what: $what, expected: concat!($("`", $name, "` "),+) }),
                }
            }
        }
    };
}

keyword_enum!(IncrementMode, "increment mode", Fischer => "fischer", Bronstein => "bronstein", Delay => "delay");
keyword_enum!(GameMode, "mode", Standard => "standard", Rapid => "rapid", Blitz => "blitz");
keyword_enum!(Enforcement, "enforcement", Strict => "strict", Claim => "claim", Record => "record");

/// A keyword that is not one of the expected ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKeyword {
    what: &'static str,
    expected: &'static str,
}

impl fmt::Display for UnknownKeyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {}: expected one of {}",
            self.what,
            self.expected.trim_end()
        )
    }
}

impl std::error::Error for UnknownKeyword {}

/// Everything the referee needs to know before the game starts.
#[derive(Debug, Clone)]
pub struct Rules {
    pub time_control: TimeControl,
    pub increment_mode: IncrementMode,
    pub mode: GameMode,
    pub enforcement: Enforcement,
    /// A press sooner than this after the last release is a press with the
    /// other hand (6.2.3): a warning.
    pub min_press_gap_ms: u64,
    /// A displacement that begins this soon after a press is charged to the
    /// player who pressed (7.4.1).
    pub knock_window_ms: u64,
    /// The position on the board when the game starts.
    pub start: Chess,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            time_control: TimeControl::default(),
            increment_mode: IncrementMode::default(),
            mode: GameMode::default(),
            enforcement: Enforcement::default(),
            min_press_gap_ms: 100,
            knock_window_ms: 2000,
            start: Chess::default(),
        }
    }
}
