//! The legal moves of a position, generated once for every question the
//! referee asks about them while the position stands.

use shakmaty::{Chess, Move, MoveList, Position, Square};

use super::footprint::{capture_square, from};

/// A position's legal moves. Boxed where kept, so that a move made takes
/// its position's moves along without copying the list.
#[derive(Debug, Clone, Default)]
pub(crate) struct Legal {
    pub moves: MoveList,
}

impl Legal {
    /// The legal moves of `position`.
    pub fn of(position: &Chess) -> Box<Legal> {
        let mut legal = Box::<Legal>::default();
        legal.generate(position);
        legal
    }

    /// Generates `position`'s moves in place of the ones held.
    #[inline]
    pub fn generate(&mut self, position: &Chess) {
        // Only the moves are copied: assigning the list would copy all of
        // its 256 slots, most of them unused.
        let moves = position.legal_moves();
        self.moves.clear();
        self.moves
            .try_extend_from_slice(&moves)
            .expect("a list holds as many moves as another");
    }

    /// Whether there is no legal move: mate or stalemate.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Whether `m` is one of the legal moves.
    pub fn contains(&self, m: Move) -> bool {
        self.moves.contains(&m)
    }

    /// Whether a legal move starts from `sq`.
    pub fn moves_from(&self, sq: Square) -> bool {
        self.moves.iter().any(|m| from(*m) == Some(sq))
    }

    /// Whether a legal move captures the piece on `sq`.
    pub fn captures(&self, sq: Square) -> bool {
        self.moves.iter().any(|m| capture_square(*m) == Some(sq))
    }
}
