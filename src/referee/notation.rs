//! A completed move's UCI and SAN, written straight into a [`MoveText`]:
//! the same characters as shakmaty's `Display`, without going through
//! `core::fmt` a character at a time.

use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, CastlingSide, Move, Role, Square};

use super::effect::MoveText;

/// `m` in UCI as shakmaty writes it in standard castling mode (castling as
/// the king's two-square move), straight from the move: no `UciMove` built
/// on the way.
pub(crate) fn uci(m: Move) -> MoveText {
    let mut text = MoveText::default();
    let (from, to, promotion) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            (
                king,
                Square::from_coords(side.king_to_file(), king.rank()),
                None,
            )
        }
        Move::Put { .. } => {
            return MoveText::display(m.to_uci(CastlingMode::Standard))
                .expect("a move in UCI fits a MoveText");
        }
    };
    square(&mut text, from);
    square(&mut text, to);
    if let Some(role) = promotion {
        text.push(role.char());
    }
    text
}

/// The null move in UCI, `0000`: a turn passed.
pub(crate) fn null_uci() -> MoveText {
    MoveText::display(UciMove::Null).expect("the null move fits a MoveText")
}

/// `san` as shakmaty writes it, with its suffix.
pub(crate) fn san(san: SanPlus) -> MoveText {
    let mut text = MoveText::default();
    match san.san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                text.push(role.upper_char());
            }
            if let Some(file) = file {
                text.push(file.char());
            }
            if let Some(rank) = rank {
                text.push(rank.char());
            }
            if capture {
                text.push('x');
            }
            square(&mut text, to);
            if let Some(role) = promotion {
                text.push('=');
                text.push(role.upper_char());
            }
        }
        San::Castle(CastlingSide::KingSide) => text.push_str("O-O"),
        San::Castle(CastlingSide::QueenSide) => text.push_str("O-O-O"),
        _ => return MoveText::display(san).expect("a move in SAN fits a MoveText"),
    }
    if let Some(suffix) = san.suffix {
        text.push(suffix.char());
    }
    text
}

#[inline]
fn square(text: &mut MoveText, sq: Square) {
    text.push(sq.file().char());
    text.push(sq.rank().char());
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{Chess, Position};

    use super::*;

    /// Every legal move of positions with castling, promotions (with
    /// captures, check and mate), en passant and ambiguous pieces, written
    /// as shakmaty's `Display` writes it.
    #[test]
    fn the_same_text_as_shakmaty() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "1r2k2r/P1P2pP1/8/3pP3/8/8/p6p/R3K1NR w KQk d6 0 1",
            "1r2k2r/P1Pp1pP1/8/3pP3/8/8/p6p/R3K1NR b KQk - 0 1",
            "1k6/8/8/Q6Q/8/8/8/Q3K2Q w - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/R3R1K1 w - - 0 1",
            "7k/1P4pp/8/8/8/8/6PP/6K1 w - - 0 1",
        ];
        let mut count = 0;
        for fen in fens {
            let position: Chess = fen
                .parse::<Fen>()
                .expect("a FEN")
                .into_position(CastlingMode::Standard)
                .unwrap_or_else(|e| panic!("{fen}: {e}"));
            for m in position.legal_moves() {
                let uci_move = m.to_uci(CastlingMode::Standard);
                assert_eq!(uci(m).as_str(), uci_move.to_string(), "{fen}");
                let san_move = SanPlus::from_move(position.clone(), m);
                assert_eq!(san(san_move).as_str(), san_move.to_string(), "{fen}");
                count += 1;
            }
        }
        assert!(count > 200, "{count} moves");
    }
}
