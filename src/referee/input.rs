//! What the referee is told: sensor, lever and button events, and the
//! arbiter's corrections to the clock.

use shakmaty::{Color, Piece, Role, Square};

use super::adjudication::Adjudication;
use super::choice::Choice;

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
    /// The arbiter sets this side's remaining main time, in milliseconds
    /// (6.10.2). Only while paused; see [`Input::SetMoves`].
    SetTime(Color, u64),
    /// The arbiter sets how many moves this side has completed (6.10.2): the
    /// counter that decides the stage of the time control and the move
    /// number on the face. It gives no stage time, even across a stage
    /// boundary: the arbiter sets the time with [`Input::SetTime`]. The
    /// numbers of the moves in the score come from the position and do not
    /// change.
    ///
    /// Corrections are honoured only while the arbiter has the clock paused
    /// and the game is not over; otherwise they are dropped and counted in
    /// `Referee::refused_corrections`. An honoured one is answered by
    /// `Effect::Corrected`, keeps the pause and leaves the running clock as it is.
    SetMoves(Color, u32),
    /// A player resigned.
    Resign(Color),
    /// The arbiter waives the obligation in force (a touched piece, a
    /// released one): the player may make any legal move. Honoured only
    /// while paused, like the corrections, and answered by `Effect::Waived`.
    Waive,
    /// The arbiter takes back the last completed move with its clock times
    /// (repeatable). Honoured only while paused; answered by
    /// `Effect::TakenBack`.
    TakeBack,
    /// The arbiter ends the game with his result and reason. Honoured only
    /// while paused.
    Adjudicate(Adjudication),
    /// This side claims that his opponent broke article 4 (4.8), in `claim`
    /// enforcement; answered by `Effect::Claim`.
    Claim(Color),
    /// This side answers the choice the laws give him (`Effect::Choice`,
    /// the 1858 laws' penalties) with one of its options. Any other answer,
    /// or one with no choice waiting, is dropped and counted in
    /// `Referee::refused_choices`.
    Choose(Color, Choice),
}
