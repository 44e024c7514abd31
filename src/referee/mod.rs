//! The referee: a sans-IO state machine that keeps time and rules on the Laws.
//!
//! Drive it with [`Referee::handle`] (an input at an instant) and
//! [`Referee::handle_timeout`] (time passing), then drain
//! [`Referee::poll_effect`]; [`Referee::next_deadline`] says when something
//! will happen by itself (a flag falls). It reads no clock and does no IO:
//! the same inputs at the same instants always give the same effects.

mod effect;
mod input;
mod law;
mod rules;
mod time_control;

pub use effect::{CompletedMove, Effect, Reason, Rejection, Ruling};
pub use input::Input;
pub use law::{Law, ParseLawError};
pub use rules::{Enforcement, GameMode, IncrementMode, Rules, UnknownKeyword};
pub use time_control::{ParseTimeControlError, Stage, TimeControl};

use std::collections::VecDeque;
use std::fmt;

use shakmaty::Chess;

/// Monotonic milliseconds since the session started.
pub type Millis = u64;

/// An input stamped earlier than one already handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWentBackwards {
    /// The latest instant already handled.
    pub last: Millis,
    /// The instant given.
    pub now: Millis,
}

impl fmt::Display for TimeWentBackwards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "time went backwards: {} ms after {} ms",
            self.now, self.last
        )
    }
}

impl std::error::Error for TimeWentBackwards {}

/// The rules core: one game, from the first press to the result.
#[derive(Debug, Clone)]
pub struct Referee {
    rules: Rules,
    now: Millis,
    position: Chess,
    effects: VecDeque<(Millis, Effect)>,
}

impl Referee {
    /// A referee for a game under these rules, before the first press.
    pub fn new(rules: Rules) -> Referee {
        let position = rules.start.clone();
        Referee {
            rules,
            now: 0,
            position,
            effects: VecDeque::new(),
        }
    }

    /// The rules of this game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The position on the board: every move made so far, completed or not.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// Handles one input at `now`, after everything due before it.
    pub fn handle(&mut self, now: Millis, input: Input) -> Result<(), TimeWentBackwards> {
        self.handle_timeout(now)?;
        let _ = input;
        Ok(())
    }

    /// Lets time pass until `now`: a flag due by then falls at its own instant.
    pub fn handle_timeout(&mut self, now: Millis) -> Result<(), TimeWentBackwards> {
        if now < self.now {
            return Err(TimeWentBackwards {
                last: self.now,
                now,
            });
        }
        self.now = now;
        Ok(())
    }

    /// The next effect decided, with the instant it happened.
    pub fn poll_effect(&mut self) -> Option<(Millis, Effect)> {
        self.effects.pop_front()
    }

    /// When something will happen with no further input, if anything will.
    pub fn next_deadline(&self) -> Option<Millis> {
        None
    }
}
