//! Dead positions (5.2.2, 6.9): a side can no longer checkmate by any
//! series of legal moves.
//!
//! Two tests, the cheap one first:
//!
//! 1. Insufficient material, as shakmaty judges it (a lone king, a king and
//!    a minor piece, bishops all on one colour, ...).
//! 2. A locked pawn structure, proven by exhaustive search within a bound.
//!    It is tried only when **every pawn stands head to head with a pawn**
//!    (an enemy pawn in front of it, or its own pawn that is itself
//!    blocked): no pawn can move unless something is captured. Then:
//!    - the squares each other piece can ever reach are found by flood fill
//!      through every square that is not a pawn's (a king also avoids the
//!      squares enemy pawns attack). If any piece could ever capture a pawn
//!      (a king only one that no pawn defends), or stand where a pawn could
//!      capture it, the structure can break and the position is not
//!      proven dead;
//!    - otherwise pawns never move again and no piece leaves its region. A
//!      side none of whose pieces can ever attack a square its opponent's
//!      king can reach can never give check, so never mate;
//!    - otherwise every position reachable by legal moves is enumerated
//!      (both sides' moves, as in a helpmate), if there can be at most
//!      [`MAX_POSITIONS`] of them: the product of the region sizes of the
//!      pieces (one more for a piece that can be captured), the castling
//!      rights and the side to move. The position is dead for a side when
//!      none of them is a checkmate by that side.
//!
//! Within that bound the answer is exact; beyond it (a pawn that can still
//! move, a structure that can break, more reachable positions than the
//! bound) a position is never called dead, so the game goes on and a flag
//! loses as it always did. The search runs only when test 2's pawn
//! condition holds, which a few bit operations decide, so the referee's
//! hot path pays nothing in ordinary positions.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use shakmaty::attacks::{attacks, pawn_attacks};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, ByColor, Chess, Color, EnPassantMode, Piece, Position, Role, Square};

/// The most positions the exhaustive search may have to visit: beyond it a
/// locked position is not searched, and not called dead. A search of some
/// 12,000 positions (a bishop behind a wall) takes about 11 ms on a desktop
/// in a release build (a second in a debug one); it runs only in locked
/// positions, and once in a dead one, since the game ends.
pub(crate) const MAX_POSITIONS: u64 = 50_000;

/// Whether neither side can checkmate by any series of legal moves (5.2.2).
#[inline]
pub(crate) fn is_dead(position: &Chess) -> bool {
    position.is_insufficient_material() || locked_dead(position, ByColor::new_with(|_| true))
}

/// Whether `winner` cannot checkmate his opponent by any series of legal
/// moves: a flag or a second illegal move of his opponent is then a draw
/// (6.9, 7.5.5).
pub(crate) fn cannot_mate(position: &Chess, winner: Color) -> bool {
    position.has_insufficient_material(winner)
        || locked_dead(position, ByColor::new_with(|c| c == winner))
}

/// Test 2 of the module: whether none of the `mating` sides can checkmate,
/// proven on a locked pawn structure.
fn locked_dead(position: &Chess, mating: ByColor<bool>) -> bool {
    let board = position.board();
    let pawns = board.pawns();
    if pawns.is_empty() {
        // Without pawns, insufficient material is the whole answer.
        return false;
    }
    let white = board.by_piece(Role::Pawn.of(Color::White));
    let black = board.by_piece(Role::Pawn.of(Color::Black));
    // Every pawn has a pawn on the square in front of it.
    if (white.shift(8) & !pawns).any() || (black.shift(-8) & !pawns).any() {
        return false;
    }
    if position.ep_square(EnPassantMode::Legal).is_some() {
        return false;
    }
    let Some(regions) = Regions::of(position) else {
        return false;
    };
    let mut mating = mating;
    for color in Color::ALL {
        if *mating.get(color) && !regions.can_check(position, color) {
            *mating.get_mut(color) = false;
        }
    }
    if !mating.white && !mating.black {
        return true;
    }
    if regions.positions > MAX_POSITIONS {
        return false;
    }
    no_mate_reachable(position, mating)
}

/// The squares each piece other than a pawn can ever reach while the pawns
/// stand, and how many positions they allow at most.
struct Regions {
    /// Each piece with the squares it can reach, its own included.
    pieces: Vec<(Piece, Bitboard)>,
    /// Where each king can ever stand.
    kings: ByColor<Bitboard>,
    /// An upper bound on the positions reachable.
    positions: u64,
}

impl Regions {
    /// The regions, or `None` if the pawn structure can break: a pawn can
    /// be captured, or can capture.
    fn of(position: &Chess) -> Option<Regions> {
        let board = position.board();
        let pawns = board.pawns();
        let pawns_of = |color: Color| board.by_piece(Role::Pawn.of(color));
        // The squares the pawns of each colour attack, for ever.
        let attacked = ByColor::new_with(|color: Color| {
            pawns_of(color)
                .into_iter()
                .fold(Bitboard::EMPTY, |all, sq| all | pawn_attacks(color, sq))
        });
        if (*attacked.get(Color::White) & pawns_of(Color::Black)).any()
            || (*attacked.get(Color::Black) & pawns_of(Color::White)).any()
        {
            // A pawn can take a pawn.
            return None;
        }
        let mut pieces = Vec::new();
        let mut kings = ByColor::new_with(|_| Bitboard::EMPTY);
        let mut positions: u64 = 2;
        for sq in board.occupied() & !pawns {
            let piece = board.piece_at(sq)?;
            let theirs = !piece.color;
            let enemy_attacks = *attacked.get(theirs);
            let region = if piece.role == Role::King {
                if enemy_attacks.contains(sq) {
                    // In check from a pawn: the king may take it.
                    return None;
                }
                flood(piece, sq, pawns, enemy_attacks)
            } else {
                flood(piece, sq, pawns, Bitboard::EMPTY)
            };
            if piece.role != Role::King && (region & enemy_attacks).any() {
                // A pawn could take it.
                return None;
            }
            let reach = reach(piece, region, pawns);
            // A king cannot take a pawn its own pawns defend.
            let takeable = if piece.role == Role::King {
                pawns_of(theirs) & !enemy_attacks
            } else {
                pawns_of(theirs)
            };
            if (reach & takeable).any() {
                return None;
            }
            let states = if piece.role == Role::King {
                *kings.get_mut(piece.color) = region;
                region.count()
            } else {
                // On any square of its region, or captured.
                region.count() + 1
            };
            positions = positions.saturating_mul(states as u64);
            pieces.push((piece, region));
        }
        let rights = position.castles().castling_rights().count();
        positions = positions.saturating_mul(1 << rights);
        Some(Regions {
            pieces,
            kings,
            positions,
        })
    }

    /// Whether a piece of `color` can ever attack a square his opponent's
    /// king can stand on: if not, he can never give check.
    fn can_check(&self, position: &Chess, color: Color) -> bool {
        let king = *self.kings.get(!color);
        if king.is_empty() {
            // No king to mate (not a legal chess position): say yes, so
            // that nothing is called dead on a guess.
            return position.board().king_of(!color).is_none();
        }
        let pawns = position.board().pawns();
        self.pieces
            .iter()
            .filter(|(piece, _)| piece.color == color && piece.role != Role::King)
            .any(|(piece, region)| (reach(*piece, *region, pawns) & king).any())
    }
}

/// The squares `piece` on `from` can reach by its own moves, through any
/// square that is not in `walls` or `forbidden` (other pieces move out of
/// the way; pawns never do).
fn flood(piece: Piece, from: Square, walls: Bitboard, forbidden: Bitboard) -> Bitboard {
    let open = !walls & !forbidden;
    let mut region = Bitboard::from(from);
    let mut todo = region;
    while let Some(sq) = todo.first() {
        todo.discard(sq);
        let next = attacks(sq, piece, walls) & open & !region;
        region |= next;
        todo |= next;
    }
    region
}

/// Every square `piece` attacks from some square of `region`, with only the
/// pawns in the way: more than it ever attacks with other pieces about.
fn reach(piece: Piece, region: Bitboard, pawns: Bitboard) -> Bitboard {
    region
        .into_iter()
        .fold(Bitboard::EMPTY, |all, sq| all | attacks(sq, piece, pawns))
}

/// Visits every position reachable from `position` by legal moves of either
/// side, and says whether none is a checkmate by one of the `mating` sides.
/// The caller has bounded their number by [`MAX_POSITIONS`]; a pawn move or
/// capture, which the regions rule out, or more positions than the bound,
/// end the search with "not proven".
fn no_mate_reachable(position: &Chess, mating: ByColor<bool>) -> bool {
    let key = |p: &Chess| -> u64 { p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0 };
    let mut seen: HashSet<u64, BuildHasherDefault<KeyHasher>> = HashSet::default();
    seen.insert(key(position));
    let mut queue = vec![position.clone()];
    while let Some(current) = queue.pop() {
        let moves = current.legal_moves();
        if moves.is_empty() {
            if current.is_check() && *mating.get(!current.turn()) {
                return false;
            }
            continue;
        }
        for m in moves {
            // A king capture: a false move left standing (the laws
            // profiles) made a position no game reaches; nothing proven.
            if m.role() == Role::Pawn || matches!(m.capture(), Some(Role::Pawn | Role::King)) {
                return false;
            }
            let mut next = current.clone();
            next.play_unchecked(m);
            if seen.insert(key(&next)) {
                if seen.len() as u64 > MAX_POSITIONS {
                    return false;
                }
                queue.push(next);
            }
        }
    }
    true
}

/// A hasher for keys that are Zobrist hashes already: random enough to use
/// as they are, so the set does not hash them again.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is ever called for a `u64`; this is for form.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Color};

    use super::{cannot_mate, is_dead};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn kings_behind_a_locked_chain_are_dead() {
        // Every pawn rammed, each king on its own side of the wall.
        let p = position("8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/8 w - - 0 1");
        assert!(is_dead(&p));
        assert!(cannot_mate(&p, Color::White));
        assert!(cannot_mate(&p, Color::Black));
    }

    #[test]
    fn near_miss_a_pawn_a_king_can_take_is_not_dead() {
        // One rammed pair: the white king reaches g5 and takes h5.
        let p = position("8/8/4k3/7p/7P/8/3K4/8 w - - 0 1");
        assert!(!is_dead(&p));
        assert!(!cannot_mate(&p, Color::White));
    }

    #[test]
    fn near_miss_a_free_pawn_is_beyond_the_bound() {
        let p = position("8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P3/3K2P1/8 w - - 0 1");
        assert!(!is_dead(&p));
    }

    #[test]
    fn a_bishop_that_can_reach_no_pawn_and_no_king_square_cannot_mate() {
        // Black's pawns on light squares, White's on dark: White's
        // dark-squared bishop can take none, no pawn can take it, and it
        // never gets past its own pawns to attack the black king.
        let p = position("8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/2B5 w - - 0 1");
        assert!(cannot_mate(&p, Color::White));
        assert!(is_dead(&p));
        // The light-squared one could be taken on d3 or take a pawn.
        let p = position("8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/5B2 w - - 0 1");
        assert!(!is_dead(&p));
    }

    #[test]
    fn a_bishop_that_checks_but_never_mates_is_searched_and_dead() {
        // White's dark-squared bishop is on Black's side of the wall and
        // can check, but every square the black king can stand on has a
        // light neighbour to escape to: the search proves it.
        let p = position("7B/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/8 w - - 0 1");
        assert!(cannot_mate(&p, Color::White));
        assert!(is_dead(&p));
    }

    #[test]
    fn near_miss_a_rook_that_can_take_a_pawn_can_still_mate() {
        let p = position("8/4k3/R7/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/8 w - - 0 1");
        assert!(!cannot_mate(&p, Color::White));
        assert!(!is_dead(&p));
    }
}
