//! The position before the first press (FIDE 7.2, 7.3): what the board
//! shows against the game's start, said on the face until it is right.
//!
//! A board that senses occupancy only can say a piece is missing or one is
//! too many; a board that knows identities (DGT) also says a king and queen
//! swapped, a bishop and knight swapped (any two pieces of a side changed
//! round), or a wrong piece. A board whose pieces stand on files a, b, g and
//! h instead of ranks 1, 2, 7 and 8 lies a quarter turned (7.2: the board
//! is placed with a light square at each player's right) and is said as
//! such rather than as sixteen pieces missing.

use shakmaty::{Bitboard, Board, Piece, Square};

use crate::words;

/// What is wrong with the pieces before the first press.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetUpFault {
    /// The start's squares turned a quarter: the board lies across.
    TurnedQuarter,
    /// The pieces that are not where the start has them.
    Pieces(Differences),
}

/// The squares where the board and the start differ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Differences {
    /// Empty where the start has a piece.
    pub missing: Vec<Square>,
    /// Occupied where the start has none.
    pub extra: Vec<Square>,
    /// Two pieces of a side, each on the other's start square.
    pub swapped: Vec<(Piece, Square, Piece, Square)>,
    /// Another piece than the start's (a board that knows identities).
    pub wrong: Vec<Square>,
}

/// What is wrong with `occupied` (and `pieces`, when the board knows
/// them) as the game's `start`; `None` when the board is right.
pub fn check(start: &Board, occupied: Bitboard, pieces: Option<&Board>) -> Option<SetUpFault> {
    let expected = start.occupied();
    if occupied != expected
        && (occupied == expected.rotate_90() || occupied == expected.rotate_270())
    {
        return Some(SetUpFault::TurnedQuarter);
    }
    let mut differences = Differences {
        missing: (expected & !occupied).into_iter().collect(),
        extra: (occupied & !expected).into_iter().collect(),
        ..Differences::default()
    };
    if let Some(pieces) = pieces {
        let mut unlike: Vec<Square> = (occupied & expected)
            .into_iter()
            .filter(|&sq| {
                pieces
                    .piece_at(sq)
                    .is_some_and(|p| Some(p) != start.piece_at(sq))
            })
            .collect();
        while let Some(a) = unlike.first().copied() {
            unlike.remove(0);
            let (Some(on_a), Some(start_a)) = (pieces.piece_at(a), start.piece_at(a)) else {
                continue;
            };
            let partner = unlike.iter().position(|&b| {
                pieces.piece_at(b) == Some(start_a) && start.piece_at(b) == Some(on_a)
            });
            match partner {
                Some(i) => {
                    let b = unlike.remove(i);
                    differences.swapped.push((on_a, a, start_a, b));
                }
                None => differences.wrong.push(a),
            }
        }
    }
    let Differences {
        missing,
        extra,
        swapped,
        wrong,
    } = &differences;
    if missing.is_empty() && extra.is_empty() && swapped.is_empty() && wrong.is_empty() {
        None
    } else {
        Some(SetUpFault::Pieces(differences))
    }
}

impl SetUpFault {
    /// The face's words for it, in English.
    pub fn text(&self) -> String {
        self.text_in(words::Language::English)
    }

    /// The face's words for it in `language`.
    pub fn text_in(&self, language: words::Language) -> String {
        match self {
            SetUpFault::TurnedQuarter => {
                words::Notice::BoardTurnedQuarter.text(language).to_owned()
            }
            SetUpFault::Pieces(d) => {
                words::set_up_text(&d.missing, &d.extra, &d.swapped, &d.wrong, language)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, Role};

    fn start() -> Board {
        Board::default()
    }

    #[test]
    fn the_start_is_right_and_a_missing_or_extra_piece_is_named() {
        let start = start();
        assert_eq!(check(&start, start.occupied(), Some(&start)), None);
        assert_eq!(check(&start, start.occupied(), None), None);
        let mut board = start.clone();
        board.discard_piece_at(Square::D1);
        board.set_piece_at(
            Square::E4,
            Piece {
                color: Color::White,
                role: Role::Pawn,
            },
        );
        let fault = check(&start, board.occupied(), Some(&board)).unwrap();
        assert_eq!(fault.text(), "Missing d1; extra e4");
    }

    #[test]
    fn a_king_and_queen_or_bishop_and_knight_swapped_are_said_on_a_board_that_knows() {
        let start = start();
        let mut board = start.clone();
        board.set_piece_at(
            Square::D8,
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        board.set_piece_at(
            Square::E8,
            Piece {
                color: Color::Black,
                role: Role::Queen,
            },
        );
        board.set_piece_at(
            Square::B1,
            Piece {
                color: Color::White,
                role: Role::Bishop,
            },
        );
        board.set_piece_at(
            Square::C1,
            Piece {
                color: Color::White,
                role: Role::Knight,
            },
        );
        let fault = check(&start, board.occupied(), Some(&board)).unwrap();
        assert_eq!(fault.text(), "B-N swapped b1 c1; K-Q swapped d8 e8");
        // Occupancy alone cannot tell.
        assert_eq!(check(&start, board.occupied(), None), None);
        // A piece of the other side, or a pawn for a rook, is a wrong piece.
        let mut board = start.clone();
        board.set_piece_at(
            Square::A1,
            Piece {
                color: Color::Black,
                role: Role::Rook,
            },
        );
        let fault = check(&start, board.occupied(), Some(&board)).unwrap();
        assert_eq!(fault.text(), "Wrong piece a1");
    }

    #[test]
    fn a_board_turned_a_quarter_is_said_as_such() {
        let start = start();
        for turned in [start.occupied().rotate_90(), start.occupied().rotate_270()] {
            assert_eq!(check(&start, turned, None), Some(SetUpFault::TurnedQuarter));
        }
        assert_eq!(SetUpFault::TurnedQuarter.text(), "Board turned 90 degrees");
        // Turned round (180 degrees), the occupancy is the start's: the DGT
        // driver turns its reading, other boards cannot tell.
        assert_eq!(check(&start, start.occupied().rotate_180(), None), None);
    }

    #[test]
    fn a_long_list_is_cut_with_the_count_of_the_rest() {
        let start = start();
        let fault = check(&start, Bitboard::EMPTY, None).unwrap();
        assert_eq!(fault.text(), "Missing a1 b1 c1 d1 +28");
    }
}
