//! Touch-move (4.3–4.5) and the released piece (4.7): which move a player's
//! contacts oblige him to make.

use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

use super::{Law, Millis};

/// A contact the player having the move made with a piece during his turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contact {
    pub at: Millis,
    pub square: Square,
    pub piece: Piece,
    /// Made after the player announced an adjustment (4.2.1).
    pub adjusting: bool,
}

/// What a player did during his turn, before and while making his move.
#[derive(Debug, Clone, Default)]
pub(crate) struct Turn {
    pub contacts: Vec<Contact>,
    /// Legal moves whose piece was released on its square, in order (4.7).
    pub releases: Vec<Move>,
    pub adjusting: bool,
}

/// A broken obligation: the article and what the player must do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Breach {
    pub law: Law,
    pub detail: String,
}

/// The square of the piece a move captures (the passed pawn for en passant).
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

/// Checks `m`, made from `before`, against the player's contacts and releases.
pub(crate) fn check(before: &Chess, turn: &Turn, m: Move) -> Result<(), Breach> {
    // 4.7 binds the first released move that the contacts allowed; a release
    // that itself broke touch-move binds nothing, the touched piece does.
    if let Some(released) = turn
        .releases
        .iter()
        .find(|r| check_contacts(before, &turn.contacts, **r).is_ok())
        && (released.from(), released.to()) != (m.from(), m.to())
    {
        return Err(Breach {
            law: Law::Released,
            detail: format!(
                "Released piece: the {} stays on {}",
                piece_name(released.role(), released.from()),
                released_square(*released, before.turn())
            ),
        });
    }
    check_contacts(before, &turn.contacts, m)
}

/// Where a released move left its piece: the king's square for castling.
fn released_square(m: Move, color: Color) -> Square {
    match m.castling_side() {
        Some(side) => side.king_to(color),
        None => m.to(),
    }
}

fn piece_name(role: Role, sq: Option<Square>) -> String {
    let name = match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    };
    match sq {
        Some(sq) => format!("{sq} {name}"),
        None => name.to_owned(),
    }
}

/// The touched pieces that count, in order, each once: equal times put the
/// player's own piece first (4.3.3). Contacts after "j'adoube" count only
/// if the piece did not end on its own square.
fn touched(before: &Chess, contacts: &[Contact], m: Move) -> Vec<Contact> {
    let us = before.turn();
    let moved = moved_squares(m);
    let mut list: Vec<Contact> = contacts
        .iter()
        .filter(|c| !c.adjusting || moved.contains(&c.square))
        .filter(|c| before.board().piece_at(c.square) == Some(c.piece))
        .copied()
        .collect();
    list.sort_by_key(|c| (c.at, c.piece.color != us));
    let mut seen = Vec::new();
    list.retain(|c| {
        let first = !seen.contains(&c.square);
        seen.push(c.square);
        first
    });
    list
}

/// The squares whose pieces a move takes away: its own and the captured one.
fn moved_squares(m: Move) -> Vec<Square> {
    let mut squares: Vec<Square> = m.from().into_iter().collect();
    if let Move::Castle { rook, .. } = m {
        squares.push(rook);
    }
    squares.extend(capture_square(m));
    squares
}

fn check_contacts(before: &Chess, contacts: &[Contact], m: Move) -> Result<(), Breach> {
    let us = before.turn();
    let touched = touched(before, contacts, m);
    if touched.is_empty() {
        return Ok(());
    }
    let legal = before.legal_moves();
    let own: Vec<&Contact> = touched.iter().filter(|c| c.piece.color == us).collect();
    let theirs: Vec<&Contact> = touched.iter().filter(|c| c.piece.color != us).collect();
    let movable = |sq: Square| legal.iter().any(|l| l.from() == Some(sq));
    let capturable = |sq: Square| legal.iter().any(|l| capture_square(*l) == Some(sq));
    let moves = |sq: Square| m.from() == Some(sq);
    let captures = |sq: Square| capture_square(m) == Some(sq);
    let castle_with = |rook: Square| {
        legal
            .iter()
            .find(|l| matches!(l, Move::Castle { rook: r, .. } if *r == rook))
            .copied()
    };
    let has_castling_right = |rook: Square| {
        [
            shakmaty::CastlingSide::KingSide,
            shakmaty::CastlingSide::QueenSide,
        ]
        .into_iter()
        .any(|side| before.castles().rook(us, side) == Some(rook))
    };

    // 4.4: king and rook.
    if let Some(first) = own.first() {
        let rook_after = |after: Millis| {
            own.iter()
                .find(|c| {
                    c.piece.role == Role::Rook && c.at >= after && has_castling_right(c.square)
                })
                .map(|c| c.square)
        };
        if first.piece.role == Role::King
            && let Some(rook) = rook_after(first.at)
        {
            return match castle_with(rook) {
                Some(castle) if m == castle => Ok(()),
                Some(_) => Err(Breach {
                    law: Law::KingThenRook,
                    detail: format!("Touch-move: king then rook, castle with the {rook} rook"),
                }),
                None if m.role() == Role::King => Ok(()),
                None if legal.iter().any(|l| l.role() == Role::King) => Err(Breach {
                    law: Law::CastlingIllegal,
                    detail: "Touch-move: castling is illegal, move the king".to_owned(),
                }),
                None => Ok(()),
            };
        }
        if first.piece.role == Role::Rook
            && has_castling_right(first.square)
            && own.iter().any(|c| c.piece.role == Role::King)
            && matches!(m, Move::Castle { rook, .. } if rook == first.square)
        {
            return Err(Breach {
                law: Law::RookThenKing,
                detail: format!(
                    "Touch-move: rook then king, no castling; move the {} rook",
                    first.square
                ),
            });
        }
    }

    // 4.3.3: both touched, and the first own piece can take the first
    // opponent piece. Otherwise the first touched piece that can be moved or
    // captured decides, and the ruling is named after it.
    if let (Some(o), Some(t)) = (own.first(), theirs.first())
        && legal
            .iter()
            .any(|l| l.from() == Some(o.square) && capture_square(*l) == Some(t.square))
    {
        return if moves(o.square) && captures(t.square) {
            Ok(())
        } else {
            Err(Breach {
                law: Law::TouchedBoth,
                detail: format!(
                    "Touch-move: take the {} with the {}",
                    piece_name(t.piece.role, Some(t.square)),
                    piece_name(o.piece.role, Some(o.square))
                ),
            })
        };
    }
    first_obligation(&touched, us, movable, capturable, moves, captures)
}

/// The first touched piece that can be moved (own) or captured (opponent's)
/// must be; if none can, any legal move will do (4.5).
fn first_obligation(
    touched: &[Contact],
    us: Color,
    movable: impl Fn(Square) -> bool,
    capturable: impl Fn(Square) -> bool,
    moves: impl Fn(Square) -> bool,
    captures: impl Fn(Square) -> bool,
) -> Result<(), Breach> {
    for c in touched {
        let name = piece_name(c.piece.role, Some(c.square));
        if c.piece.color == us && movable(c.square) {
            return if moves(c.square) {
                Ok(())
            } else {
                Err(Breach {
                    law: Law::TouchedOwn,
                    detail: format!("Touch-move: move the {name}"),
                })
            };
        }
        if c.piece.color != us && capturable(c.square) {
            return if captures(c.square) {
                Ok(())
            } else {
                Err(Breach {
                    law: Law::TouchedOpponent,
                    detail: format!("Touch-move: take the {name}"),
                })
            };
        }
    }
    Ok(())
}
