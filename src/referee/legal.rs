//! The legal moves of a position, generated once for every question the
//! referee asks about them while the position stands.

use shakmaty::{CastlingSide, Chess, Color, Move, MoveList, Position, Square};

use super::footprint::capture_square;

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
        self.moves.iter().any(|m| {
            // By reference, a normal move first and alone: a move copied
            // out of the list is rebuilt from its bytes, and a `match` on
            // every kind jumps through a table on every move.
            if let Move::Normal { from, .. } = m {
                *from == sq
            } else {
                m.from() == Some(sq)
            }
        })
    }

    /// The legal move by `color` whose piece from `from` lands on `to`: in
    /// castling, the king's.
    #[inline]
    pub fn carrying(&self, from: Square, to: Square, color: Color) -> Option<Move> {
        // This search runs on every place of a piece in hand: a normal
        // move tested first and alone (see `moves_from`).
        self.moves
            .iter()
            .find(|m| {
                if let Move::Normal { from: f, to: t, .. } = m {
                    *f == from && *t == to
                } else {
                    rare_carries(**m, from, to, color)
                }
            })
            .copied()
    }

    /// Whether a legal move captures the piece on `sq`.
    pub fn captures(&self, sq: Square) -> bool {
        self.moves.iter().any(|m| {
            if let Move::Normal { capture, to, .. } = m {
                capture.is_some() && *to == sq
            } else {
                capture_square(*m) == Some(sq)
            }
        })
    }
}

/// [`Legal::carrying`] for a move other than a normal one.
#[inline]
fn rare_carries(m: Move, from: Square, to: Square, color: Color) -> bool {
    match m {
        Move::EnPassant { from: f, to: t } => f == from && t == to,
        Move::Castle { king, rook } => {
            king == from && CastlingSide::from_king_side(king < rook).king_to(color) == to
        }
        Move::Normal { .. } | Move::Put { .. } => false,
    }
}

/// Positions with castling both ways, en passant, promotions (with
/// captures, check and mate) and ambiguous pieces: for the tests that
/// go through every legal move.
#[cfg(test)]
pub(super) fn sample_positions() -> Vec<Chess> {
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "1r2k2r/P1P2pP1/8/3pP3/8/8/p6p/R3K1NR w KQk d6 0 1",
        "1r2k2r/P1Pp1pP1/8/3pP3/8/8/p6p/R3K1NR b KQk - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "1k6/8/8/Q6Q/8/8/8/Q3K2Q w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/R3R1K1 w - - 0 1",
        "7k/1P4pp/8/8/8/8/6PP/6K1 w - - 0 1",
    ]
    .into_iter()
    .map(|fen| {
        fen.parse::<Fen>()
            .expect("a FEN")
            .into_position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;

    use super::super::footprint;
    use super::*;

    /// The searches that match moves by their fields give what the moves'
    /// own accessors give; in Chess960 too, where a castling king may land
    /// on its rook's square.
    #[test]
    fn field_searches_agree_with_the_moves_accessors() {
        let chess960: Chess = "4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1"
            .parse::<Fen>()
            .expect("a FEN")
            .into_position(shakmaty::CastlingMode::Chess960)
            .expect("a Chess960 position");
        assert_eq!(
            Legal::of(&chess960)
                .moves
                .iter()
                .filter(|m| m.is_castle())
                .count(),
            2,
            "both castlings legal"
        );
        let mut found = 0;
        for position in sample_positions().into_iter().chain([chess960]) {
            let fen = Fen::from_position(&position, shakmaty::EnPassantMode::Legal);
            let legal = Legal::of(&position);
            let color = position.turn();
            for sq in Square::ALL {
                let from_accessor = legal.moves.iter().any(|m| m.from() == Some(sq));
                assert_eq!(legal.moves_from(sq), from_accessor, "{fen} {sq}");
                let captured = legal
                    .moves
                    .iter()
                    .any(|m| footprint::capture_square(*m) == Some(sq));
                assert_eq!(legal.captures(sq), captured, "{fen} {sq}");
                for to in Square::ALL {
                    let expected = legal.moves.iter().copied().find(|m| {
                        m.from() == Some(sq)
                            && match m {
                                Move::Castle { .. } => m
                                    .castling_side()
                                    .is_some_and(|side| side.king_to(color) == to),
                                _ => m.to() == to,
                            }
                    });
                    assert_eq!(legal.carrying(sq, to, color), expected, "{fen} {sq}{to}");
                    found += usize::from(expected.is_some());
                }
            }
        }
        assert!(found > 150, "{found} moves found");
    }
}
