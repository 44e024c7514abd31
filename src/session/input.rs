//! What reaches a session from the shell.

use crate::hardware::buttons::Button;
use crate::hardware::link::LinkChange;
use crate::{Input, Millis};

/// One thing the shell hands to [`Session::handle`](super::Session::handle),
/// with the instant the shell's clock read when it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionInput {
    /// A front control went down at `at` (the kernel's edge timestamp, on
    /// the shell's clock): a press is ruled at the instant the hand made
    /// it, not when the shell got round to it.
    Press {
        /// The control, as wired (the session turns it to the players' sides).
        button: Button,
        /// When it went down, on the shell's clock.
        at: Millis,
    },
    /// A board input (`Lift`, `Place`, `Touch`, `Untouch`): it also keeps
    /// the occupancy the setup screen shows up to date.
    Board(Input),
    /// An input for the referee that no front control gives (the
    /// simulator's resign, promote, decline): ignored outside a game.
    Referee(Input),
    /// The board link went down or came back.
    Link(LinkChange),
}
