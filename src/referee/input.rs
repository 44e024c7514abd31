//! What the referee is told: sensor, lever and button events.

use shakmaty::{Color, Piece, Role, Square};

/// One event from the hardware (or a script), timestamped by the caller.
///
/// Contacts (`Lift`, `Touch`) are attributed to the player having the move;
/// the board cannot see whose hand it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A player's lever went down (6.2.1). The side names the lever, not the
    /// player who is thought to have pressed it.
    Press(Color),
    /// A square became empty.
    Lift(Square),
    /// A square became occupied, with the piece when the board identifies pieces.
    Place(Square, Option<Piece>),
    /// A hand came into contact with the piece on a square (capacitive boards).
    Touch(Square),
    /// The hand left the piece on a square.
    Untouch(Square),
    /// The player announced "j'adoube" with the adjust button (4.2.1).
    Adjust(Color),
    /// A draw offer, an acceptance, or a claim (9.1.2, 9.2, 9.3).
    Draw(Color),
    /// The offer was rejected aloud.
    Decline(Color),
    /// The promotion piece chosen on the clock, for boards that cannot tell pieces apart.
    Promote(Role),
    /// The arbiter stopped the clock (6.11).
    Pause,
    /// The arbiter restarted it.
    Resume,
    /// A player resigned.
    Resign(Color),
}
