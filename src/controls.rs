//! What the clock's front and its board link tell the layers above them,
//! as plain values: a control that went down, and the board link going down
//! or coming back.
//!
//! A leaf: it uses nothing of the crate. The drivers ([`crate::hardware`])
//! make these values and the session ([`crate::session`]) rules on them, so
//! both name them from here and neither imports the other.

use shakmaty::Color;

/// A control on the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The lever on a player's side of the clock (6.2.1).
    Lever(Color),
    /// A player's draw button: offer, accept or claim (9.1.2).
    Draw(Color),
    /// A player's adjust button: "j'adoube" (4.2.1).
    Adjust(Color),
    /// Pause for the arbiter, and the menu while paused (6.11).
    Menu,
}

/// A change of the board link the face and the log should know about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkChange {
    /// Repeated failures: show "Board disconnected", keep timing.
    Disconnected,
    /// The board answers again.
    Reconnected,
}
