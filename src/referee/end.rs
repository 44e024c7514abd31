//! The end of the game: draws offered and claimed (9.1–9.5), the
//! positions that end it (5.1, 5.2, 9.6) and the result.

use shakmaty::{Color, KnownOutcome, Position};

use super::effect::{Effect, Reason};
use super::law::Law;
use super::play::{Completion, key};
use super::rules::Enforcement;
use super::touch;
use super::{Referee, dead};

impl Referee {
    /// The result when `side` loses by time or illegal moves: a draw if the
    /// opponent could not mate by any series of legal moves (6.9, 7.5.5).
    pub(super) fn loss_for(&self, side: Color) -> KnownOutcome {
        // A plain clock sees no position: the flag loses (6.9 as a clock
        // alone can apply it).
        if !self.rules.plain_clock && dead::cannot_mate(&self.play.position, side.other()) {
            KnownOutcome::Draw
        } else {
            KnownOutcome::Decisive {
                winner: side.other(),
            }
        }
    }

    /// `Input::Draw`: `side` accepts a standing offer, claims a draw
    /// (9.2, 9.3: upheld, or 9.5.3's penalty and an offer), or offers one.
    pub(super) fn draw(&mut self, side: Color) {
        if self.draw_offer == Some(side.other()) {
            self.finish(KnownOutcome::Draw, Reason::Agreement);
            return;
        }
        // 9.2, 9.3: a correct claim.
        if let Some(reason) = self.claimable(side) {
            self.finish(KnownOutcome::Draw, reason);
            return;
        }
        // 9.5.3: a claim that is not correct. A claim is made with the
        // clock stopped (9.5.1, 9.5.2); a draw button while it runs is an
        // offer, which nothing would tell from a claim. The opponent gets
        // 2 minutes (1 in rapid and blitz), and the claim stands as an offer
        // (9.1.2.3).
        if self.started && self.clock.is_paused() && self.rules.enforcement != Enforcement::Record {
            let ms = self.rules.mode.penalty_ms();
            self.clock.add(side.other(), ms, self.now);
            self.emit(Effect::TimeAdded {
                side: side.other(),
                ms,
                law: Law::IncorrectClaim,
            });
        }
        if self.draw_offer == Some(side) {
            return;
        }
        // 9.1.2.1: proper between making a move and pressing; valid anyway.
        let proper = self.clock.running() == Some(side)
            && self.play.uncompleted.iter().any(|u| u.side == side);
        self.draw_offer = Some(side);
        self.emit(Effect::DrawOffer { side, proper });
    }

    /// The draw `side` may claim now (9.2, 9.3), if any. He claims on the
    /// position in which he has the move, unless he has touched a piece
    /// with intent this turn (9.4: he has lost the right on this move); or
    /// on his intended move (9.2.1.1, 9.3.1): the move he has made on the
    /// board and not pressed, which stands (4.7), if he made it as article 4
    /// lets him.
    pub(super) fn claimable(&self, side: Color) -> Option<Reason> {
        let intended = self
            .play
            .uncompleted
            .back()
            .filter(|made| made.side == side && self.clock.running() == Some(side));
        match intended {
            Some(made) => {
                touch::check(&made.before, &made.before_legal, &made.turn, made.mv).ok()?;
            }
            None => {
                let touched = self.turn.contacts.iter().any(|c| !c.adjusting);
                if self.play.position.turn() != side || touched {
                    return None;
                }
            }
        }
        if self.repetitions() >= 3 {
            Some(Reason::ThreefoldRepetition)
        } else if self.play.position.halfmoves() >= 100 {
            Some(Reason::FiftyMoves)
        } else {
            None
        }
    }

    /// Ends the game: the moves on the board are recorded, the clocks stop.
    /// Under draw odds a draw is a win for the side that has them.
    pub(super) fn finish(&mut self, outcome: KnownOutcome, reason: Reason) {
        let outcome = match (outcome, self.rules.draw_odds) {
            // The arbiter's result stands as he gives it.
            (_, _) if matches!(reason, Reason::Adjudicated(_)) => outcome,
            (KnownOutcome::Draw, Some(winner)) => KnownOutcome::Decisive { winner },
            _ => outcome,
        };
        if !self.play.uncompleted.is_empty() {
            self.complete_with(self.play.uncompleted.len() - 1, Completion::End);
        }
        self.clock.stop(self.now);
        self.draw_offer = None;
        self.displacement.clear();
        self.obligations.claimable = None;
        self.result = Some((outcome, reason));
        self.emit(Effect::Result { outcome, reason });
    }

    /// Whether the game is over in the position on the board, in which the
    /// side to move is in `check` or not: checkmate (5.1.1), stalemate
    /// (5.2.1), a dead position (5.2.2), or 9.6's fivefold repetition and
    /// 75 moves.
    pub(super) fn ending(&self, check: bool) -> Option<(KnownOutcome, Reason)> {
        let no_move = self.play.legal.is_empty();
        if check && no_move {
            let winner = self.play.position.turn().other();
            Some((KnownOutcome::Decisive { winner }, Reason::Checkmate))
        } else if no_move {
            Some((KnownOutcome::Draw, Reason::Stalemate))
        } else if dead::is_dead(&self.play.position) {
            Some((KnownOutcome::Draw, Reason::InsufficientMaterial))
        // Five occurrences of a position are at least 16 plies apart.
        } else if self.play.position.halfmoves() >= 16 && self.repetitions() >= 5 {
            Some((KnownOutcome::Draw, Reason::FivefoldRepetition))
        } else if self.play.position.halfmoves() >= 150 {
            Some((KnownOutcome::Draw, Reason::SeventyFiveMoves))
        } else {
            None
        }
    }

    /// Ends the game if the position on the board ends it (5.1.1, 5.2,
    /// 9.6), `check` saying whether the side to move is in check. 5.1.1,
    /// 5.2.1: the move that made it ends the game only if it was made in
    /// accordance with article 4; one that broke it is ruled on at the press
    /// like any other, and ends the game once completed.
    #[inline]
    pub(super) fn end_if_over(&mut self, check: bool) {
        let Some((outcome, reason)) = self.ending(check) else {
            return;
        };
        let lawful = self.play.uncompleted.back().is_none_or(|made| {
            touch::check(&made.before, &made.before_legal, &made.turn, made.mv).is_ok()
        });
        if lawful {
            self.finish(outcome, reason);
        }
    }

    /// How often the current position has stood on the board.
    pub(super) fn repetitions(&self) -> usize {
        // The current position's key is the last one kept.
        let current = self
            .play
            .keys
            .last()
            .copied()
            .unwrap_or_else(|| key(&self.play.position));
        let window = self.play.position.halfmoves() as usize + 1;
        self.play
            .keys
            .iter()
            .rev()
            .take(window)
            .filter(|k| **k == current)
            .count()
    }
}
