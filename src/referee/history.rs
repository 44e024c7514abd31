//! The game's history: every completed move, for the arbiter's takeback,
//! which replays them from the start.

use shakmaty::{Chess, Color, EnPassantMode, FromSetup, Move, Position};

use super::clock::TurnStart;

/// A completed move as a takeback needs it: the move, and the clocks as
/// they stood when its turn began. The positions are not kept: a takeback
/// is rare and replays the moves from the start instead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ply {
    /// `None`: the turn passed without a move, the player having moved
    /// twice in a row (1858, 15ª).
    pub mv: Option<Move>,
    pub clock: TurnStart,
}

// Every completed move is pushed here: at 64 bytes or less it is copied as
// four vector moves; over that the size-optimised build copies it with
// `rep movs`, whose start-up cost timed at 5 % of the referee's bench.
const _: () = assert!(size_of::<Ply>() <= 64);

/// The position after the player having the move in `position` passes his
/// turn (a null move: the move counters go on as after a move), if it can:
/// not when he is in check, where the king would be left en prise.
pub(crate) fn passed_turn(position: &Chess) -> Option<Chess> {
    let mut setup = position.to_setup(EnPassantMode::Legal);
    if setup.turn == Color::Black {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    setup.halfmoves = setup.halfmoves.saturating_add(1);
    setup.swap_turn();
    Chess::from_setup(setup, position.castles().mode()).ok()
}
