//! What a player's lever, draw and adjust buttons mean while his game is in
//! play: the one reading of them that the clock's front panel
//! ([`Session`](super::Session)) and a script (`tocada replay`, `sim
//! --script`, `run`) share, so that the same presses are ruled the same
//! wherever they come from.
//!
//! - a player's adjust button twice within [`CLAIM_GESTURE_MS`] is a claim
//!   that his opponent broke article 4 (4.8);
//! - while his promotion waits for its piece, his adjust button chooses it
//!   (Q R B N in turn, pressed as fast as he likes): never a claim;
//! - while a choice the laws give him waits (the 1858 penalties), his
//!   adjust button marks the next option and his draw button answers with
//!   the marked one.
//!
//! Everything else is given to the referee as it is. Presses made while the
//! game is paused are the correction screen's, not these.

use shakmaty::Color;

use crate::{Effect, Input, Millis, Referee};

/// The most time between a player's two presses of his adjust button that
/// make a claim (4.8) rather than two "j'adoube"s.
pub const CLAIM_GESTURE_MS: Millis = 600;

/// The state the buttons' meaning depends on, besides the referee's: the
/// last adjust press and the option marked in a waiting choice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Controls {
    /// The last press of an adjust button in play that could begin a claim
    /// gesture.
    last_adjust: Option<(Color, Millis)>,
    /// The option marked while a choice the laws give waits.
    choice_mark: usize,
}

impl Controls {
    /// No press yet.
    pub fn new() -> Controls {
        Controls::default()
    }

    /// What `input`, pressed at `t` (game time) while the game is in play
    /// and not paused, gives `referee`: the input itself, a claim, a
    /// choice's answer, or nothing (a choice's mark moved).
    pub fn meaning(&mut self, referee: &Referee, t: Millis, input: Input) -> Option<Input> {
        if let Some((chooser, _, options)) = referee.choice_pending() {
            let options = options.as_slice();
            match input {
                Input::Adjust(side) if side == chooser => {
                    self.choice_mark = (self.choice_mark + 1) % options.len().max(1);
                    return None;
                }
                Input::Draw(side) if side == chooser => {
                    if let Some(&option) = options.get(self.choice_mark).or(options.first()) {
                        self.choice_mark = 0;
                        return Some(Input::Choose(side, option));
                    }
                }
                _ => {}
            }
        }
        if let Input::Adjust(side) = input
            && !choosing_promotion(referee, side)
        {
            let again = self
                .last_adjust
                .is_some_and(|(s, at)| s == side && t.saturating_sub(at) <= CLAIM_GESTURE_MS);
            self.last_adjust = (!again).then_some((side, t));
            if again {
                return Some(Input::Claim(side));
            }
        }
        Some(input)
    }

    /// Notes what the referee was given, whatever it came from: a claim,
    /// made with the gesture or otherwise, ends the gesture, so that the
    /// press after it begins a new one.
    pub fn given(&mut self, input: &Input) {
        if matches!(input, Input::Claim(_)) {
            self.last_adjust = None;
        }
    }

    /// Notes what the referee decided: a new choice starts with its first
    /// option marked.
    pub fn decided(&mut self, effect: &Effect) {
        if let Effect::Choice { .. } = effect {
            self.choice_mark = 0;
        }
    }

    /// The option marked in the choice that waits, as an index into its
    /// options.
    pub fn choice_mark(&self) -> usize {
        self.choice_mark
    }

    /// Whether `input` is an adjust press that chooses a promotion piece
    /// rather than adjusting (the face then says nothing of adjusting).
    pub fn chooses_promotion(referee: &Referee, input: Input) -> bool {
        matches!(input, Input::Adjust(side) if choosing_promotion(referee, side))
    }
}

/// Whether `side`'s promotion waits for its piece, so that his adjust
/// button chooses it.
fn choosing_promotion(referee: &Referee, side: Color) -> bool {
    referee
        .promotion_pending()
        .is_some_and(|(chooser, _)| chooser == side)
}
