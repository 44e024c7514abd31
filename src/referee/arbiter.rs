//! The arbiter's powers while he has the clock paused: waive an obligation
//! he finds wrong, take back moves with their clock times, end the game with
//! a result of his own (the Laws let an arbiter correct what a machine got
//! wrong; strict enforcement otherwise leaves no way out of a wrong ruling).

use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, Position};

use super::adjudication::Adjudication;
use super::effect::{Effect, Reason};
use super::history::passed_turn;
use super::law::Law;
use super::legal::Legal;
use super::touch::{self, Turn};
use super::{Obligations, Referee, notation};

impl Referee {
    /// `Input::Waive`: the arbiter lifts the obligation in force, if any:
    /// the one that refuses the press of a move made, else the one the
    /// contacts of the player having the move put on him.
    pub(super) fn waive(&mut self) {
        if !self.clock.is_paused() {
            self.dropped.corrections += 1;
            return;
        }
        let running = self.clock.running();
        let made = self
            .play
            .uncompleted
            .iter_mut()
            .rev()
            .find(|u| Some(u.side) == running);
        if let Some(made) = made
            && let Err(breach) = touch::check(&made.before, &made.before_legal, &made.turn, made.mv)
        {
            made.turn.clear();
            let side = made.side;
            self.obligations.imposed = None;
            self.emit(Effect::Waived {
                side,
                law: breach.law,
            });
            return;
        }
        let side = self.play.position.turn();
        match obligation(&self.play.position, &self.play.legal, &self.turn) {
            Some(law) => {
                self.turn.clear();
                self.obligations.imposed = None;
                self.emit(Effect::Waived { side, law });
            }
            None => self.dropped.corrections += 1,
        }
    }

    /// `Input::TakeBack`: the last completed move is taken back, with any
    /// move made after it and not completed; both clocks show again what
    /// they showed when its turn began, and it is its mover's turn.
    pub(super) fn arbiter_take_back(&mut self) {
        if !self.clock.is_paused() || !self.take_back_completed() {
            self.dropped.corrections += 1;
        }
    }

    /// `Input::Adjudicate`: the game ends with the arbiter's result, which
    /// stands as given (no draw odds turn it).
    pub(super) fn adjudicate(&mut self, adjudication: Adjudication) {
        if !self.clock.is_paused() {
            self.dropped.corrections += 1;
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
        let Some(ply) = self.play.history.pop() else {
            return false;
        };
        // The moves made on the board after it go first: none was recorded.
        for made in self.play.uncompleted.drain(..) {
            self.play.keys.pop();
            let turn = made.turn;
            if turn.capacity() > self.spare_turn.capacity() {
                let mut turn = turn;
                turn.clear();
                self.spare_turn = turn;
            }
        }
        let mut before: Chess = self.rules.start.clone();
        for earlier in &self.play.history {
            match earlier.mv {
                Some(mv) => before.play_unchecked(mv),
                None => {
                    if let Some(passed) = passed_turn(&before) {
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
        self.play.keys.pop();
        self.play.legal = Legal::of(&before);
        self.play.position = before;
        // A false move left standing (the profiles) may be in the moves
        // replayed: the king is never captured.
        if self.rules.laws != super::Laws::Fide2023 {
            self.no_king_captures();
        }
        self.clock.restore(ply.clock, side, self.now);
        self.play.turn_began = ply.clock;
        self.turn.clear();
        self.promotion_choice = None;
        self.draw_offer = None;
        self.displacement.clear();
        self.obligations = Obligations::default();
        self.presses.forget();
        self.restoring = true;
        self.review_restoring();
        self.emit(Effect::TakenBack { side, number, san });
        true
    }

    /// While the board is set back after a takeback: once it shows the
    /// position again, it is synced to it and the game goes on.
    pub(super) fn review_restoring(&mut self) {
        if self.board.occupied() == self.play.position.board().occupied() {
            self.board.sync(&self.play.position);
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
