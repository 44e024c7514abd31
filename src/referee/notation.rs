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
    use shakmaty::Position;
    use shakmaty::fen::Fen;

    use super::super::legal::sample_positions;
    use super::*;

    /// Every legal move of the sample positions written as shakmaty's
    /// `Display` writes it.
    #[test]
    fn the_same_text_as_shakmaty() {
        let mut count = 0;
        for position in sample_positions() {
            let fen = Fen::from_position(&position, shakmaty::EnPassantMode::Legal);
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
