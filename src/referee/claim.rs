//! Claims under article 4 (4.8), in `claim` enforcement: a move completed
//! against 4.2–4.7 stands until the opponent claims; an upheld claim takes
//! it back and imposes the obligation it broke, which is then enforced as
//! in strict mode. The right lapses once the claimant touches a piece.

use shakmaty::Color;

use super::Referee;
use super::effect::{Effect, Reason};
use super::law::Law;
use super::touch::Turn;

/// A move completed against article 4 that its mover's opponent may still
/// claim against.
#[derive(Debug, Clone)]
pub(crate) struct Claimable {
    /// Who broke the article.
    pub offender: Color,
    /// The article broken.
    pub law: Law,
    /// The offender's contacts and releases that made the obligation: they
    /// bind him again if the claim is upheld.
    pub turn: Turn,
}

impl Referee {
    /// `Input::Claim`: `side` claims his opponent broke article 4. Upheld,
    /// the move is taken back and the obligation imposed; otherwise the
    /// claim is noted and nothing changes.
    pub(super) fn claim(&mut self, side: Color) {
        let upheld = self
            .obligations
            .claimable
            .as_ref()
            .is_some_and(|c| c.offender == side.other())
            && self.play.history.last().is_some();
        // 1858, 15ª: the opponent moved again after his press, which the
        // board credited to the claimant's hand.
        if !upheld
            && self.rules.laws == super::Laws::Regence1858
            && self.moved_after_press_claimed(side)
        {
            return;
        }
        let Some(claimable) = self.obligations.claimable.take_if(|_| upheld) else {
            self.emit(Effect::Claim {
                side,
                law: Law::ClaimRight,
                upheld: false,
            });
            return;
        };
        self.emit(Effect::Claim {
            side,
            law: claimable.law,
            upheld: true,
        });
        // A.5: an illegal move claimed before the claimant's next move
        // loses the game (a draw if the claimant cannot mate).
        if claimable.law == Law::IllegalMove {
            self.finish(self.loss_for(claimable.offender), Reason::IllegalMoves);
            return;
        }
        if self.take_back_completed() {
            self.turn = claimable.turn;
            self.obligations.imposed = Some(claimable.offender);
        }
    }

    /// 4.8: the claimant touched a piece with intent: his right lapses.
    pub(super) fn claim_lapses_on_touch(&mut self, toucher: Color) {
        if self
            .obligations
            .claimable
            .as_ref()
            .is_some_and(|c| c.offender == toucher.other())
        {
            self.obligations.claimable = None;
        }
    }
}
