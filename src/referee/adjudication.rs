//! The arbiter's result (`Input::Adjudicate`): who wins, and his reason
//! in his own words, held as a `Copy` handle so an input stays small.

use std::fmt;
use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use shakmaty::KnownOutcome;

/// The arbiter's words for a result he gives: a `Copy` handle to text kept
/// for the life of the process, so that an input stays as small as a press
/// (every input is copied through the referee; 80 bytes of inline text in
/// one variant made them all five times bigger, and the referee 5% slower).
///
/// The same text always gets the same handle, so handles compare as their
/// texts do. At most [`ArbiterWords::CAPACITY`] bytes each and
/// [`ArbiterWords::DISTINCT`] different texts a process: an adjudication is
/// once a game, and the bound keeps hostile input from growing the table.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArbiterWords(u32);

/// Every text an [`ArbiterWords`] was made of, in order of first use.
static TEXTS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn texts() -> std::sync::MutexGuard<'static, Vec<&'static str>> {
    // The table is only ever pushed to: a panic elsewhere leaves it whole.
    TEXTS.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ArbiterWords {
    /// The longest text held, in bytes: a sentence, not a report.
    pub const CAPACITY: usize = 80;
    /// The most different texts a process keeps.
    pub const DISTINCT: usize = 4096;

    /// `text`, if it is no longer than [`ArbiterWords::CAPACITY`] bytes and
    /// the table has room for it.
    pub fn new(text: &str) -> Option<ArbiterWords> {
        if text.len() > Self::CAPACITY {
            return None;
        }
        let mut texts = texts();
        if let Some(i) = texts.iter().position(|t| *t == text) {
            return Some(ArbiterWords(i as u32));
        }
        if texts.len() >= Self::DISTINCT {
            return None;
        }
        texts.push(Box::leak(text.into()));
        Some(ArbiterWords((texts.len() - 1) as u32))
    }

    /// The text.
    pub fn as_str(&self) -> &'static str {
        // A handle is only made by `new`, which pushed its text.
        texts().get(self.0 as usize).copied().unwrap_or_default()
    }
}

impl Deref for ArbiterWords {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for ArbiterWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ArbiterWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A result the arbiter gives (`Input::Adjudicate`), with his reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adjudication {
    /// Who wins, or a draw.
    pub outcome: KnownOutcome,
    /// Why, in the arbiter's words.
    pub reason: ArbiterWords,
}

#[cfg(test)]
mod tests {
    use super::ArbiterWords;

    #[test]
    fn the_same_words_are_the_same_handle_and_an_input_stays_small() {
        let a = ArbiterWords::new("Black left the hall").unwrap();
        let b = ArbiterWords::new("Black left the hall").unwrap();
        let c = ArbiterWords::new("White used a phone").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(c.as_str(), "White used a phone");
        assert_eq!(ArbiterWords::new(&"x".repeat(81)), None);
        assert!(std::mem::size_of::<crate::Input>() <= 16);
    }
}
