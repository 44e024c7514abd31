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
//! Everything else is given to the referee as it is.
//!
//! While the game is paused the same buttons work the correction screen
//! (6.10, [`Controls::paused`]): adjust buttons choose a field, draw buttons
//! take one off (the left player's) or add one (the right player's); the
//! arbiter's acts follow the fields: on *Waive obligation* and *Take back
//! move* "+" does it; on *Adjudicate* "-" chooses the result and "+" twice
//! gives it; on *End game* "+" abandons the game. A lever does nothing
//! there.

use shakmaty::{Color, KnownOutcome};

use crate::face::Field;
use crate::{Adjudication, ArbiterWords, Effect, Input, Millis, Referee, words};

/// The most time between a player's two presses of his adjust button that
/// make a claim (4.8) rather than two "j'adoube"s.
pub const CLAIM_GESTURE_MS: Millis = 600;

/// The state the buttons' meaning depends on, besides the referee's: the
/// last adjust press and the option marked in a waiting choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controls {
    /// The last press of an adjust button in play that could begin a claim
    /// gesture.
    last_adjust: Option<(Color, Millis)>,
    /// The option marked while a choice the laws give waits.
    choice_mark: usize,
    /// The correction screen's selected field.
    field: Field,
    /// The result the *Adjudicate* field proposes, and whether a first "+"
    /// asked to confirm it.
    adjudication: (KnownOutcome, bool),
}

impl Default for Controls {
    fn default() -> Controls {
        Controls {
            last_adjust: None,
            choice_mark: 0,
            field: Field::WhiteMinutes,
            adjudication: (WHITE_WINS, false),
        }
    }
}

/// What a press does on the correction screen, while the game is paused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// Give the referee this (a time, a move count, an arbiter's act).
    Give(Input),
    /// The selection moved to this field.
    Field(Field),
    /// The *Adjudicate* field proposes this result; `true` once a first
    /// "+" asks to confirm it.
    Propose(KnownOutcome, bool),
    /// "+" on *End game*: the game is abandoned, without a result, for the
    /// arbiter to score.
    Abandon,
    /// Nothing (a lever, "-" on an act).
    Nothing,
}

const WHITE_WINS: KnownOutcome = KnownOutcome::Decisive {
    winner: Color::White,
};

/// No clock shows more than this: 9:59:59.
const MAX_CLOCK_MS: u64 = 10 * 3_600_000 - 1_000;

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

    /// What `input`, pressed at `t` (game time) while the game is paused,
    /// does on the correction screen; `left` says whether a player's
    /// buttons are on the clock's left (his draw button then takes one
    /// off, his adjust button selects the field before).
    pub fn paused(
        &mut self,
        referee: &Referee,
        t: Millis,
        input: Input,
        left: impl Fn(Color) -> bool,
    ) -> Correction {
        match input {
            Input::Adjust(side) => {
                self.field = if left(side) {
                    self.field.previous()
                } else {
                    self.field.next()
                };
                self.adjudication.1 = false;
                Correction::Field(self.field)
            }
            Input::Draw(side) => self.correct(referee, t, !left(side)),
            Input::Press(_) => Correction::Nothing,
            other => Correction::Give(other),
        }
    }

    /// One step of a correction on the selected field: `up` adds.
    fn correct(&mut self, referee: &Referee, t: Millis, up: bool) -> Correction {
        let time = |side: Color, step: u64| {
            let now = referee.remaining(side, t);
            let ms = if up {
                now.saturating_add(step).min(MAX_CLOCK_MS)
            } else {
                now.saturating_sub(step)
            };
            Correction::Give(Input::SetTime(side, ms))
        };
        let moves = |side: Color| {
            let now = referee.moves_completed(side);
            let n = if up { now + 1 } else { now.saturating_sub(1) };
            Correction::Give(Input::SetMoves(side, n))
        };
        match self.field {
            Field::WhiteMinutes => time(Color::White, 60_000),
            Field::WhiteSeconds => time(Color::White, 1_000),
            Field::BlackMinutes => time(Color::Black, 60_000),
            Field::BlackSeconds => time(Color::Black, 1_000),
            Field::WhiteMoves => moves(Color::White),
            Field::BlackMoves => moves(Color::Black),
            Field::EndGame if up => Correction::Abandon,
            Field::EndGame | Field::Waive | Field::TakeBack if !up => Correction::Nothing,
            Field::Waive => Correction::Give(Input::Waive),
            Field::TakeBack => Correction::Give(Input::TakeBack),
            Field::EndGame => Correction::Nothing,
            Field::Adjudicate => {
                let (outcome, armed) = self.adjudication;
                if up && armed {
                    let reason = ArbiterWords::new(words::ADJUDICATED_FROM_THE_MENU)
                        .expect("the menu's words fit");
                    return Correction::Give(Input::Adjudicate(Adjudication { outcome, reason }));
                }
                self.adjudication = if up {
                    (outcome, true)
                } else {
                    (next_result(outcome), false)
                };
                Correction::Propose(self.adjudication.0, self.adjudication.1)
            }
        }
    }

    /// The correction screen's selected field.
    pub fn field(&self) -> Field {
        self.field
    }

    /// The result the *Adjudicate* field proposes, and whether it asks to
    /// confirm it.
    pub fn adjudication(&self) -> (KnownOutcome, bool) {
        self.adjudication
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

/// The result after `outcome` on the *Adjudicate* field: 1-0, 0-1, draw.
fn next_result(outcome: KnownOutcome) -> KnownOutcome {
    match outcome {
        KnownOutcome::Decisive {
            winner: Color::White,
        } => KnownOutcome::Decisive {
            winner: Color::Black,
        },
        KnownOutcome::Decisive {
            winner: Color::Black,
        } => KnownOutcome::Draw,
        KnownOutcome::Draw => WHITE_WINS,
    }
}

/// Whether `side`'s promotion waits for its piece, so that his adjust
/// button chooses it.
fn choosing_promotion(referee: &Referee, side: Color) -> bool {
    referee
        .promotion_pending()
        .is_some_and(|(chooser, _)| chooser == side)
}
