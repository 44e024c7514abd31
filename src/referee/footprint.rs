//! A move's footprint on the board: the squares its hands lift from and
//! place on, the square of what it captures, the occupancy it leaves. What
//! every reading of the board asks of a legal move, without playing it.

use shakmaty::{Bitboard, Color, Move, Square};

use super::board::Changes;

/// The square of the piece a move captures (the passed pawn for en passant).
#[inline]
pub(crate) fn capture_square(m: Move) -> Option<Square> {
    match m {
        Move::Normal {
            capture: Some(_),
            to,
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// The pieces `m`, by `color`, carries: each from its square to its
/// square; in castling, the king and the rook.
#[inline]
pub(crate) fn paths(m: Move, color: Color) -> [Option<(Square, Square)>; 2] {
    match m {
        Move::Castle { king, rook } => match m.castling_side() {
            Some(side) => [
                Some((king, side.king_to(color))),
                Some((rook, side.rook_to(color))),
            ],
            None => [None, None],
        },
        _ => [m.from().map(|from| (from, m.to())), None],
    }
}

/// Whether `m`, by `color` from a position whose occupancy is `occupied`,
/// leaves `on_board` (the occupancy sensed, outside `mask`), made by hands
/// that lifted and placed the squares it needs.
#[inline]
pub(crate) fn shows(
    occupied: Bitboard,
    on_board: Bitboard,
    mask: Bitboard,
    changes: Changes,
    color: Color,
    m: Move,
) -> bool {
    occupancy_after(occupied, m, color) & !mask == on_board && {
        let (lifted, placed) = hands_needed(m, color);
        changes.lifted.is_superset(lifted) && changes.placed.is_superset(placed)
    }
}

/// The squares a move must have lifted from and placed on.
#[inline]
pub(crate) fn hands_needed(m: Move, color: Color) -> (Bitboard, Bitboard) {
    match m {
        // The usual move first, without the general case's lookups: a
        // capture's piece stood on the square the mover goes to.
        Move::Normal {
            from, to, capture, ..
        } => {
            let mut lifted = Bitboard::from(from);
            if capture.is_some() {
                lifted.add(to);
            }
            (lifted, Bitboard::from(to))
        }
        Move::Castle { king, rook } => {
            let mut placed = Bitboard::EMPTY;
            if let Some(side) = m.castling_side() {
                placed.add(side.king_to(color));
                placed.add(side.rook_to(color));
            }
            (Bitboard::from(king) | Bitboard::from(rook), placed)
        }
        _ => {
            let mut lifted: Bitboard = m.from().into_iter().collect();
            lifted.extend(capture_square(m));
            (lifted, Bitboard::from(m.to()))
        }
    }
}

/// The occupancy after `m`, computed without playing it.
#[inline]
pub(crate) fn occupancy_after(occupied: Bitboard, m: Move, color: Color) -> Bitboard {
    match m {
        // The usual move first: a capture's piece stood on `to`.
        Move::Normal { from, to, .. } => occupied.without(from).with(to),
        Move::Castle { king, rook } => {
            let Some(side) = m.castling_side() else {
                return occupied;
            };
            let mut after = occupied;
            after.discard(king);
            after.discard(rook);
            after.add(side.king_to(color));
            after.add(side.rook_to(color));
            after
        }
        _ => {
            let mut after = occupied;
            if let Some(from) = m.from() {
                after.discard(from);
            }
            if let Some(captured) = capture_square(m) {
                after.discard(captured);
            }
            after.add(m.to());
            after
        }
    }
}
