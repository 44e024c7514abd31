//! The chessboard beside the face: the game's position, White at the
//! bottom, with every square where the pieces on the board differ from it
//! marked, since that is what the referee is waiting for (a piece in the
//! air, a piece knocked over, a move half made).
//!
//! Pieces are letters (upper case White, lower case Black), which every
//! terminal font draws at one width; empty squares show a dot, so the board
//! reads the same without colours.

use ratatui::style::{Color as Colour, Modifier, Style};
use ratatui::text::{Line, Span};
use shakmaty::{Board, Color, File, Piece, Rank, Square};

/// A square as shown: what the position holds against what is on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SquareState {
    /// Empty, as it should be.
    Empty,
    /// The position's piece, in its place.
    Piece(Piece),
    /// The position has this piece here but the square is empty: lifted,
    /// or knocked off.
    Lifted(Piece),
    /// A piece (this one) stands where the position has none: placed.
    Placed(Piece),
}

impl SquareState {
    /// How the square compares, from the position's piece and the piece
    /// physically on it.
    pub fn of(expected: Option<Piece>, physical: Option<Piece>) -> SquareState {
        match (expected, physical) {
            (None, None) => SquareState::Empty,
            (Some(piece), Some(_)) => SquareState::Piece(piece),
            (Some(piece), None) => SquareState::Lifted(piece),
            (None, Some(piece)) => SquareState::Placed(piece),
        }
    }

    /// Three characters: ` P `, ` · `, `(P)` lifted, `[P]` placed.
    pub fn text(self) -> String {
        match self {
            SquareState::Empty => " · ".to_owned(),
            SquareState::Piece(p) => format!(" {} ", p.char()),
            SquareState::Lifted(p) => format!("({})", p.char()),
            SquareState::Placed(p) => format!("[{}]", p.char()),
        }
    }
}

/// The size of a square in terminal cells, the largest first.
pub const SQUARE_SIZES: [(u16, u16); 3] = [(7, 3), (5, 2), (3, 1)];

/// Cells the board takes for squares of `size`, with its labels (no
/// border): width and height.
pub fn board_size((width, height): (u16, u16)) -> (u16, u16) {
    (2 + 8 * width, 8 * height + 1)
}

/// What the legend under the board says.
pub const LEGEND: &str = "(x) lifted  [x] placed";

const LIGHT: Colour = Colour::Rgb(0xc4, 0xa0, 0x74);
const DARK: Colour = Colour::Rgb(0x8a, 0x63, 0x42);
const LIFTED: Colour = Colour::Rgb(0xc8, 0x3c, 0x3c);
const PLACED: Colour = Colour::Rgb(0x3c, 0x6e, 0xc8);

/// The board as lines for squares of `size`: the ranks from 8 down to 1
/// with their numbers on the left, then the files' letters.
/// `physical(sq)` is the piece on the board model's square.
pub fn lines(
    expected: &Board,
    physical: impl Fn(Square) -> Option<Piece>,
    (width, height): (u16, u16),
) -> Vec<Line<'static>> {
    let width = usize::from(width.max(3));
    let height = height.max(1);
    let pad = " ".repeat((width - 3) / 2);
    let blank = " ".repeat(width);
    let mut lines = Vec::with_capacity(usize::from(8 * height + 1));
    for rank in Rank::ALL.iter().rev() {
        for row in 0..height {
            let middle = row == height / 2;
            let label = if middle {
                format!("{} ", rank.char())
            } else {
                "  ".to_owned()
            };
            let mut spans = vec![Span::raw(label)];
            for file in File::ALL {
                let sq = Square::from_coords(file, *rank);
                let state = SquareState::of(expected.piece_at(sq), physical(sq));
                let background = match state {
                    SquareState::Lifted(_) => LIFTED,
                    SquareState::Placed(_) => PLACED,
                    _ if sq.is_light() => LIGHT,
                    _ => DARK,
                };
                let foreground = match state {
                    SquareState::Empty => Style::new().fg(Colour::Rgb(0x5a, 0x40, 0x2a)),
                    SquareState::Piece(p) | SquareState::Lifted(p) | SquareState::Placed(p) => {
                        let colour = match p.color {
                            Color::White => Colour::White,
                            Color::Black => Colour::Black,
                        };
                        Style::new().fg(colour).add_modifier(Modifier::BOLD)
                    }
                };
                let text = if middle {
                    format!("{pad}{}{pad}", state.text())
                } else {
                    blank.clone()
                };
                spans.push(Span::styled(text, foreground.bg(background)));
            }
            lines.push(Line::from(spans));
        }
    }
    let mut files = String::from("  ");
    for file in File::ALL {
        let mut cell = format!("{pad} {} {pad}", file.char());
        cell.truncate(width);
        files.push_str(&cell);
    }
    lines.push(Line::from(files));
    lines
}

#[cfg(test)]
mod tests {
    use shakmaty::Role;

    use super::*;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn squares_compare_the_position_with_the_board() {
        let knight = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        let pawn = Color::Black.pawn();
        assert_eq!(SquareState::of(None, None), SquareState::Empty);
        assert_eq!(
            SquareState::of(Some(knight), Some(knight)),
            SquareState::Piece(knight)
        );
        assert_eq!(
            SquareState::of(Some(knight), None),
            SquareState::Lifted(knight)
        );
        assert_eq!(SquareState::of(None, Some(pawn)), SquareState::Placed(pawn));
        assert_eq!(SquareState::Lifted(knight).text(), "(N)");
        assert_eq!(SquareState::Placed(pawn).text(), "[p]");
    }

    #[test]
    fn the_start_position_reads_rank_by_rank() {
        let board = Board::default();
        let lines = lines(&board, |sq| board.piece_at(sq), (3, 1));
        assert_eq!(lines.len(), 9);
        assert_eq!(text(&lines[0]), "8  r  n  b  q  k  b  n  r ");
        assert_eq!(text(&lines[4]), "4  ·  ·  ·  ·  ·  ·  ·  · ");
        assert_eq!(text(&lines[7]), "1  R  N  B  Q  K  B  N  R ");
        assert_eq!(text(&lines[8]), "   a  b  c  d  e  f  g  h ");
        let (width, height) = board_size((3, 1));
        assert!(lines.iter().all(|l| l.width() == usize::from(width)));
        assert_eq!(lines.len(), usize::from(height));
    }

    #[test]
    fn a_piece_in_the_air_and_a_piece_set_down_are_marked() {
        // e2 lifted, held over e4 then set down there: the position has not
        // changed yet (no press).
        let board = Board::default();
        let physical = |sq: Square| match sq {
            Square::E2 => None,
            Square::E4 => Some(Color::White.pawn()),
            _ => board.piece_at(sq),
        };
        let lines = lines(&board, physical, (3, 1));
        assert_eq!(text(&lines[6]), "2  P  P  P  P (P) P  P  P ");
        assert_eq!(text(&lines[4]), "4  ·  ·  ·  · [P] ·  ·  · ");
        let e2 = &lines[6].spans[5];
        assert_eq!(e2.style.bg, Some(LIFTED));
    }

    #[test]
    fn large_squares_put_the_piece_in_the_middle_row() {
        let board = Board::default();
        let lines = lines(&board, |sq| board.piece_at(sq), (7, 3));
        let (width, height) = board_size((7, 3));
        assert_eq!(lines.len(), usize::from(height));
        assert!(lines.iter().all(|l| l.width() == usize::from(width)));
        assert_eq!(text(&lines[0]).trim(), "");
        assert!(
            text(&lines[1]).starts_with("8    r      n   "),
            "{:?}",
            text(&lines[1])
        );
        assert_eq!(
            text(&lines[24]).split_whitespace().collect::<String>(),
            "abcdefgh"
        );
    }
}
