//! The choices the 1858 laws give a player over his opponent's offence
//! (`Input::Choose`, `Effect::Choice`), and their names in the replay format.

use std::fmt;
use std::str::FromStr;

/// An answer to a choice the laws give a player (`Input::Choose`). The
/// names are the replay format's, per 1858 law: 9ª `take` `leave` `king`;
/// 10ª `take` `restore`; 11ª `first` `second`; 12ª `capture` `move`; 13ª
/// `stand` `elsewhere` `king`; 15ª `undo` `keep`; 20ª `king` `rook`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Choice {
    /// Take the piece touched or moved (9ª, 10ª).
    Take,
    /// Leave it: no penalty (9ª).
    Leave,
    /// Play the king (9ª, 13ª, 20ª).
    King,
    /// Put the enemy piece back (10ª).
    Restore,
    /// Play the first of the two pieces, the one that took (11ª).
    First,
    /// Play the second, the one taken (11ª).
    Second,
    /// Capture with a piece that can (12ª).
    Capture,
    /// Play the piece that could not capture (12ª).
    Move,
    /// The false move stands (13ª).
    Stand,
    /// The piece goes where it may go (13ª).
    Elsewhere,
    /// Undo the second move (15ª).
    Undo,
    /// Keep it (15ª).
    Keep,
    /// Play the rook (20ª).
    Rook,
}

impl Choice {
    /// Every choice, in the order of the laws that give them.
    pub const ALL: [Choice; 13] = [
        Choice::Take,
        Choice::Leave,
        Choice::King,
        Choice::Restore,
        Choice::First,
        Choice::Second,
        Choice::Capture,
        Choice::Move,
        Choice::Stand,
        Choice::Elsewhere,
        Choice::Undo,
        Choice::Keep,
        Choice::Rook,
    ];

    /// The name in the replay format: `"take"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Choice::Take => "take",
            Choice::Leave => "leave",
            Choice::King => "king",
            Choice::Restore => "restore",
            Choice::First => "first",
            Choice::Second => "second",
            Choice::Capture => "capture",
            Choice::Move => "move",
            Choice::Stand => "stand",
            Choice::Elsewhere => "elsewhere",
            Choice::Undo => "undo",
            Choice::Keep => "keep",
            Choice::Rook => "rook",
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text is not the name of a choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseChoiceError;

impl fmt::Display for ParseChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected one of `take` `leave` `king` `restore` `first` `second` `capture` `move` `stand` `elsewhere` `undo` `keep` `rook`")
    }
}

impl std::error::Error for ParseChoiceError {}

impl FromStr for Choice {
    type Err = ParseChoiceError;

    fn from_str(s: &str) -> Result<Choice, ParseChoiceError> {
        Choice::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or(ParseChoiceError)
    }
}

/// The options of one choice, in the law's order: at most three, held
/// inline so that an effect carrying them does not allocate.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChoiceOptions {
    len: u8,
    items: [Choice; 3],
}

impl ChoiceOptions {
    /// The options among `all` (in that order) that `offered` lets through.
    pub(crate) fn of(all: &[Choice], offered: impl Fn(Choice) -> bool) -> ChoiceOptions {
        let mut options = ChoiceOptions {
            len: 0,
            items: [Choice::Leave; 3],
        };
        for &choice in all.iter().filter(|c| offered(**c)).take(3) {
            options.items[usize::from(options.len)] = choice;
            options.len += 1;
        }
        options
    }

    /// The first three of `options`, in their order.
    pub fn from_slice(options: &[Choice]) -> ChoiceOptions {
        ChoiceOptions::of(options, |_| true)
    }

    /// The options.
    pub fn as_slice(&self) -> &[Choice] {
        &self.items[..usize::from(self.len)]
    }

    /// Whether `choice` is one of them.
    pub fn contains(&self, choice: Choice) -> bool {
        self.as_slice().contains(&choice)
    }
}

impl fmt::Debug for ChoiceOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
