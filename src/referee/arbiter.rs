//! The arbiter's powers while he has the clock paused: waive an obligation
//! he finds wrong, take back moves with their clock times, end the game with
//! a result of his own (the Laws let an arbiter correct what a machine got
//! wrong; strict enforcement otherwise leaves no way out of a wrong ruling).

use std::fmt;
use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, KnownOutcome, Move, Position};

use super::clock::Snapshot;
use super::legal::Legal;
use super::touch::{self, Turn};
use super::{Effect, Law, Reason, Referee, notation};

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

/// A completed move as a takeback needs it: the move, and the clocks as
/// they stood when its turn began. The positions are not kept: a takeback
/// is rare and replays the moves from the start instead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ply {
    /// `None`: the turn passed without a move, the player having moved
    /// twice in a row (1858, 15ª).
    pub mv: Option<Move>,
    pub clock: Snapshot,
}

impl Referee {
    /// `Input::Waive`: the arbiter lifts the obligation in force, if any:
    /// the one that refuses the press of a move made, else the one the
    /// contacts of the player having the move put on him.
    pub(super) fn waive(&mut self) {
        if !self.clock.is_paused() {
            self.refused_corrections += 1;
            return;
        }
        let running = self.clock.running();
        let made = self
            .uncompleted
            .iter_mut()
            .rev()
            .find(|u| Some(u.side) == running);
        if let Some(made) = made
            && let Err(breach) = touch::check(&made.before, &made.before_legal, &made.turn, made.mv)
        {
            made.turn.clear();
            let side = made.side;
            self.imposed = None;
            self.emit(Effect::Waived {
                side,
                law: breach.law,
            });
            return;
        }
        let side = self.position.turn();
        match obligation(&self.position, &self.legal, &self.turn) {
            Some(law) => {
                self.turn.clear();
                self.imposed = None;
                self.emit(Effect::Waived { side, law });
            }
            None => self.refused_corrections += 1,
        }
    }

    /// `Input::TakeBack`: the last completed move is taken back, with any
    /// move made after it and not completed; both clocks show again what
    /// they showed when its turn began, and it is its mover's turn.
    pub(super) fn arbiter_take_back(&mut self) {
        if !self.clock.is_paused() || !self.take_back_completed() {
            self.refused_corrections += 1;
        }
    }

    /// `Input::Adjudicate`: the game ends with the arbiter's result, which
    /// stands as given (no draw odds turn it).
    pub(super) fn adjudicate(&mut self, adjudication: Adjudication) {
        if !self.clock.is_paused() {
            self.refused_corrections += 1;
            return;
        }
        self.finish(
            adjudication.outcome,
            Reason::Adjudicated(adjudication.reason),
        );
    }

    /// Takes back the last completed move (and the moves made after it,
    /// not completed): the position, the repetition keys and the clocks go
    /// back to before it, and `Effect::TakenBack` says so. The board must
    /// be set back by hand: until it shows the position again its changes
    /// are the restorer's, no one's move or touch. Whether there was a
    /// move to take back.
    pub(super) fn take_back_completed(&mut self) -> bool {
        let Some(ply) = self.history.pop() else {
            return false;
        };
        // The moves made on the board after it go first: none was recorded.
        for made in self.uncompleted.drain(..) {
            self.keys.pop();
            let turn = made.turn;
            if turn.capacity() > self.spare_turn.capacity() {
                let mut turn = turn;
                turn.clear();
                self.spare_turn = turn;
            }
        }
        let mut before: Chess = self.rules.start.clone();
        for earlier in &self.history {
            match earlier.mv {
                Some(mv) => before.play_unchecked(mv),
                None => {
                    if let Some(passed) = super::laws::passed_turn(&before) {
                        before = passed;
                    }
                }
            }
        }
        let side = before.turn();
        let number = before.fullmoves().get();
        let san = notation::san(match ply.mv {
            Some(mv) => SanPlus::from_move(before.clone(), mv),
            None => SanPlus {
                san: San::Null,
                suffix: None,
            },
        });
        self.keys.pop();
        self.legal = Legal::of(&before);
        self.position = before;
        // A false move left standing (the profiles) may be in the moves
        // replayed: the king is never captured.
        if self.rules.laws != super::Laws::Fide2023 {
            self.no_king_captures();
        }
        self.clock.restore(ply.clock, side, self.now);
        self.turn_began = ply.clock;
        self.turn.clear();
        self.promotion_choice = None;
        self.draw_offer = None;
        self.displacement = None;
        self.claimable = None;
        self.imposed = None;
        self.choice = None;
        self.penalty = None;
        self.last_press = None;
        self.last_release = Default::default();
        self.knocked = shakmaty::Bitboard::EMPTY;
        self.restoring = true;
        self.review_restoring();
        self.emit(Effect::TakenBack { side, number, san });
        true
    }

    /// While the board is set back after a takeback: once it shows the
    /// position again, it is synced to it and the game goes on.
    pub(super) fn review_restoring(&mut self) {
        if self.board.occupied() == self.position.board().occupied() {
            self.board.sync(&self.position);
            self.restoring = false;
            // A second move undone (1858, 15ª) was set back on its
            // mover's time: the clock of the player having the move runs.
            if self.rules.laws == super::Laws::Regence1858 {
                self.clock.charge(None, self.now);
            }
        }
    }
}

/// The article that the contacts and releases of `turn` bind the player
/// having the move by, in `position`: the law some legal move would break.
pub(super) fn obligation(position: &Chess, legal: &Legal, turn: &Turn) -> Option<Law> {
    if turn.contacts.is_empty() && turn.releases.is_empty() {
        return None;
    }
    legal
        .moves
        .iter()
        .find_map(|m| touch::check(position, legal, turn, *m).err())
        .map(|breach| breach.law)
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
