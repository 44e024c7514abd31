//! Touch-move (4.3–4.5) and the released piece (4.7): which move a player's
//! contacts oblige him to make.

use std::fmt;

use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

use super::Millis;
use super::footprint::capture_square;
use super::law::Law;
use super::legal::Legal;

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
    /// The rook's square of a castling the player touched his pieces for
    /// where castling is not allowed (1858, 20ª): his king was set down on
    /// its castling square this turn.
    pub castling: Option<Square>,
}

impl Turn {
    /// Empty again, as `Turn::default()`, keeping the lists' capacity.
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.releases.clear();
        self.adjusting = false;
        self.castling = None;
    }

    /// How many entries the lists hold without allocating.
    pub fn capacity(&self) -> usize {
        self.contacts.capacity() + self.releases.capacity()
    }

    /// Records a contact, unless the turn holds one already with the same
    /// piece on the same square, made the same way (announced or not).
    ///
    /// Contacts come in time order, and every rule reads, of those alike,
    /// only the first: the earliest contact with each piece (4.3, 4.4,
    /// 1858 9ª 20ª 22ª), whether one was made at all. So the list holds at
    /// most one per square, piece and announcement, however long a sensor
    /// storm lasts, and rules as the whole list would.
    #[inline]
    pub fn touch(&mut self, contact: Contact) {
        let alike = |c: &Contact| {
            c.square == contact.square
                && c.piece == contact.piece
                && c.adjusting == contact.adjusting
        };
        if !self.contacts.iter().any(alike) {
            self.contacts.push(contact);
        }
    }

    /// Records a legal move whose piece was released (4.7).
    ///
    /// The rules read the first release of each move (4.7 binds the first
    /// one the contacts allowed) and the latest release of all (the move
    /// just made): so each move is held at most twice, its first release
    /// and its latest, in the order they came. A storm of the same moves
    /// made and taken back holds as many entries as there are moves, and
    /// rules as the whole list would, a move dropped by `retain` included.
    #[inline]
    pub fn release(&mut self, m: Move) {
        let mut copies = (0..self.releases.len()).filter(|&i| self.releases[i] == m);
        match (copies.next(), copies.next()) {
            // Its first and its latest release are held: the new one is
            // the latest now.
            (Some(_), Some(latest)) => {
                self.releases.remove(latest);
            }
            // Released once, and last: that entry is the latest already.
            (Some(only), None) if only + 1 == self.releases.len() => return,
            _ => {}
        }
        self.releases.push(m);
    }
}

/// A broken obligation: the article and what the player must do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Breach {
    pub law: Law,
    pub detail: String,
}

/// Checks `m`, made from `before`, against the player's contacts and releases.
/// `legal` are the legal moves of `before`.
pub(crate) fn check(before: &Chess, legal: &Legal, turn: &Turn, m: Move) -> Result<(), Breach> {
    // 4.7 binds the first released move that the contacts allowed; a release
    // that itself broke touch-move binds nothing, the touched piece does.
    let released = turn
        .releases
        .iter()
        .find(|r| check_contacts(before, legal, &turn.contacts, **r).is_ok());
    if let Some(released) = released {
        if (released.from(), released.to()) == (m.from(), m.to()) {
            // `m` is the released move (or its promotion to another piece):
            // the same squares, so the contacts allow it as they allowed
            // the release. No need to check them twice.
            return Ok(());
        }
        return Err(Breach {
            law: Law::Released,
            detail: format!(
                "Released piece: the {} stays on {}",
                piece_name(released.role(), released.from()),
                released_square(*released, before.turn())
            ),
        });
    }
    check_contacts(before, legal, &turn.contacts, m)
}

/// Where a released move left its piece: the king's square for castling.
fn released_square(m: Move, color: Color) -> Square {
    match m.castling_side() {
        Some(side) => side.king_to(color),
        None => m.to(),
    }
}

/// A piece and its square in a ruling, "g1 knight": written only when a
/// ruling is, never while checking.
struct PieceName(Role, Option<Square>);

impl fmt::Display for PieceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.0 {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        };
        match self.1 {
            Some(sq) => write!(f, "{sq} {name}"),
            None => f.write_str(name),
        }
    }
}

fn piece_name(role: Role, sq: Option<Square>) -> PieceName {
    PieceName(role, sq)
}

/// The touched pieces that count, at most one a square, so never more than
/// 64: their indices in the turn's contacts, kept on the stack.
struct Touched<'a> {
    contacts: &'a [Contact],
    order: [u32; 64],
    len: usize,
}

impl<'a> Touched<'a> {
    fn iter(&self) -> impl Iterator<Item = &'a Contact> + '_ {
        let contacts = self.contacts;
        self.order[..self.len]
            .iter()
            .map(move |&i| &contacts[i as usize])
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The touched pieces that count, in order, each once: equal times put the
/// player's own piece first (4.3.3). Contacts after "j'adoube" count only
/// if the piece did not end on its own square.
///
/// The order is that of a stable sort by time, own pieces first, keeping
/// each square's first contact in that order: so each square keeps its
/// least contact by (time, own first, index), and those are sorted by the
/// same key, with no list as long as the contacts.
fn touched<'a>(before: &Chess, contacts: &'a [Contact], m: Move) -> Touched<'a> {
    let us = before.turn();
    let moved = moved_squares(m);
    let rank = |i: u32| {
        let c = &contacts[i as usize];
        (c.at, c.piece.color != us, i)
    };
    let mut touched = Touched {
        contacts,
        order: [0; 64],
        len: 0,
    };
    // Each square's entry in `touched.order`, if it has one.
    let mut entry = [u8::MAX; 64];
    for (i, c) in contacts.iter().enumerate() {
        if (c.adjusting && !moved.contains(c.square))
            || before.board().piece_at(c.square) != Some(c.piece)
        {
            continue;
        }
        // A turn keeps at most one contact per square, piece and
        // announcement (`Turn::touch`): the index always fits.
        let Ok(i) = u32::try_from(i) else { break };
        let slot = &mut entry[usize::from(c.square)];
        if *slot == u8::MAX {
            *slot = touched.len as u8;
            touched.order[touched.len] = i;
            touched.len += 1;
        } else if rank(i) < rank(touched.order[usize::from(*slot)]) {
            touched.order[usize::from(*slot)] = i;
        }
    }
    // The ranks are distinct (the index): the unstable sort gives the
    // stable sort's order.
    touched.order[..touched.len].sort_unstable_by_key(|&i| rank(i));
    touched
}

/// The squares whose pieces a move takes away: its own and the captured one.
fn moved_squares(m: Move) -> Bitboard {
    let mut squares: Bitboard = m.from().into_iter().collect();
    if let Move::Castle { rook, .. } = m {
        squares.add(rook);
    }
    squares.extend(capture_square(m));
    squares
}

/// `legal` are the legal moves of `before`.
fn check_contacts(
    before: &Chess,
    legal: &Legal,
    contacts: &[Contact],
    m: Move,
) -> Result<(), Breach> {
    // Touching only the pieces the move itself moves and captures obliges
    // nothing but a move `m` is (it is legal): the usual turn, decided
    // without sorting the contacts. (Castling is left out: touching the
    // rook before the king forbids it.)
    let taken = moved_squares(m);
    if !matches!(m, Move::Castle { .. }) && contacts.iter().all(|c| taken.contains(c.square)) {
        return Ok(());
    }
    check_touched(before, legal, contacts, m)
}

/// [`check_contacts`] without its shortcut for the usual turn.
fn check_touched(
    before: &Chess,
    legal: &Legal,
    contacts: &[Contact],
    m: Move,
) -> Result<(), Breach> {
    let us = before.turn();
    let touched = touched(before, contacts, m);
    if touched.is_empty() {
        return Ok(());
    }
    let own = || touched.iter().filter(|c| c.piece.color == us);
    let theirs = || touched.iter().filter(|c| c.piece.color != us);
    let movable = |sq: Square| legal.moves_from(sq);
    let capturable = |sq: Square| legal.captures(sq);
    let moves = |sq: Square| m.from() == Some(sq);
    let captures = |sq: Square| capture_square(m) == Some(sq);
    let castle_with = |rook: Square| {
        legal
            .moves
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
    if let Some(first) = own().next() {
        let rook_after = |after: Millis| {
            own()
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
                None if legal.moves.iter().any(|l| l.role() == Role::King) => Err(Breach {
                    law: Law::CastlingIllegal,
                    detail: "Touch-move: castling is illegal, move the king".to_owned(),
                }),
                None => Ok(()),
            };
        }
        if first.piece.role == Role::Rook
            && has_castling_right(first.square)
            && own().any(|c| c.piece.role == Role::King)
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
    if let (Some(o), Some(t)) = (own().next(), theirs().next())
        && legal
            .moves
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
    first_obligation(touched.iter(), us, movable, capturable, moves, captures)
}

/// The first touched piece that can be moved (own) or captured (opponent's)
/// must be; if none can, any legal move will do (4.5).
fn first_obligation<'a>(
    touched: impl Iterator<Item = &'a Contact>,
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

    use super::{Contact, Legal, Turn, check, check_touched, moved_squares, touched};

    /// The touched pieces as first written: a stable sort of the contacts
    /// that count, the first of each square kept. [`touched`] must give
    /// the same list without allocating.
    fn touched_by_sorting(before: &Chess, contacts: &[Contact], m: Move) -> Vec<Contact> {
        let us = before.turn();
        let moved = moved_squares(m);
        let mut list: Vec<Contact> = contacts
            .iter()
            .filter(|c| !c.adjusting || moved.contains(c.square))
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

    /// A position some plies into a game, by choosing among the legal
    /// moves with `choices`, and a legal move from it.
    fn position_and_move(choices: &[usize]) -> Option<(Chess, Move)> {
        let mut position = Chess::default();
        let (last, walk) = choices.split_last()?;
        for choice in walk {
            let legal = position.legal_moves();
            let m = *legal.get(choice % legal.len().max(1))?;
            position.play_unchecked(m);
        }
        let legal = position.legal_moves();
        let m = *legal.get(last % legal.len().max(1))?;
        Some((position, m))
    }

    /// Contacts on squares picked by `raw`: mostly with the piece that
    /// stands there, at times with another or on an empty square.
    fn contacts(position: &Chess, raw: &[(u64, u8, bool, bool)], on: &[Square]) -> Vec<Contact> {
        raw.iter()
            .map(|&(at, square, adjusting, wrong_piece)| {
                let square = if on.is_empty() {
                    Square::new(u32::from(square % 64))
                } else {
                    on[usize::from(square) % on.len()]
                };
                let standing = position.board().piece_at(square);
                let piece = match standing {
                    Some(piece) if !wrong_piece => piece,
                    _ => Piece {
                        color: Color::from_white(u32::from(square.rank()).is_multiple_of(2)),
                        role: Role::ALL[usize::from(at as u8 % 6)],
                    },
                };
                Contact {
                    at,
                    square,
                    piece,
                    adjusting,
                }
            })
            .collect()
    }

    proptest! {
        #[test]
        fn touched_is_the_stable_sort_deduplicated(
            choices in prop::collection::vec(0usize..64, 1..40),
            raw in prop::collection::vec((0u64..5, 0u8..64, any::<bool>(), any::<bool>()), 0..40),
        ) {
            let Some((position, m)) = position_and_move(&choices) else { return Ok(()) };
            let contacts = contacts(&position, &raw, &[]);
            let fast: Vec<Contact> = touched(&position, &contacts, m).iter().copied().collect();
            prop_assert_eq!(fast, touched_by_sorting(&position, &contacts, m));
        }

        #[test]
        fn touching_only_what_the_move_takes_obliges_nothing_else(
            choices in prop::collection::vec(0usize..64, 1..40),
            raw in prop::collection::vec((0u64..5, 0u8..64, any::<bool>(), any::<bool>()), 0..12),
        ) {
            let Some((position, m)) = position_and_move(&choices) else { return Ok(()) };
            prop_assume!(!matches!(m, Move::Castle { .. }));
            let taken: Vec<Square> = moved_squares(m).into_iter().collect();
            let contacts = contacts(&position, &raw, &taken);
            let legal = Legal::of(&position);
            prop_assert_eq!(check_touched(&position, &legal, &contacts, m), Ok(()));
        }

        /// A turn kept bounded (`Turn::touch`, `Turn::release`) rules as the
        /// whole turn would: every legal move checked against it, the
        /// latest release, and what the other rules ask of the lists.
        #[test]
        fn a_bounded_turn_rules_as_the_whole_turn(
            choices in prop::collection::vec(0usize..64, 1..30),
            raw in prop::collection::vec((0u64..3, 0u8..64, any::<bool>(), any::<bool>()), 0..60),
            released in prop::collection::vec(0usize..5, 0..30),
            legal_after in any::<u64>(),
        ) {
            let Some((position, _)) = position_and_move(&choices) else { return Ok(()) };
            let legal = Legal::of(&position);
            prop_assume!(!legal.is_empty());
            // A few squares, touched over and over, in time order.
            let on: Vec<Square> = position.board().occupied().into_iter().step_by(5).collect();
            let mut contacts = contacts(&position, &raw, &on);
            let mut at = 0;
            for c in &mut contacts {
                at += c.at;
                c.at = at;
            }
            let moves: Vec<Move> = released.iter().map(|i| legal.moves[i % legal.moves.len()]).collect();
            let (mut whole, mut bounded) = (Turn::default(), Turn::default());
            for c in &contacts {
                whole.contacts.push(*c);
                bounded.touch(*c);
            }
            // Half the releases, then some no longer legal (`choose_again`
            // changed the position under them), then the rest.
            let (first, second) = moves.split_at(moves.len() / 2);
            for m in first {
                whole.releases.push(*m);
                bounded.release(*m);
            }
            let index = |m: &Move| legal.moves.iter().position(|l| l == m).unwrap_or(0);
            let stays = |m: &Move| legal_after >> (index(m) % 64) & 1 == 1;
            whole.releases.retain(stays);
            bounded.releases.retain(stays);
            for m in second {
                whole.releases.push(*m);
                bounded.release(*m);
            }
            prop_assert!(bounded.contacts.len() <= 64 * 12 * 2);
            prop_assert!(bounded.releases.len() <= 2 * legal.moves.len());
            for m in &legal.moves {
                prop_assert_eq!(
                    check(&position, &legal, &whole, *m),
                    check(&position, &legal, &bounded, *m)
                );
            }
            prop_assert_eq!(whole.releases.last(), bounded.releases.last());
            let us = position.turn();
            prop_assert_eq!(
                whole.contacts.iter().any(|c| c.piece.color == us),
                bounded.contacts.iter().any(|c| c.piece.color == us)
            );
            prop_assert_eq!(
                whole.contacts.iter().any(|c| !c.adjusting),
                bounded.contacts.iter().any(|c| !c.adjusting)
            );
            for c in &contacts {
                let first = |list: &[Contact]| {
                    list.iter().find(|k| k.square == c.square && k.piece == c.piece).copied()
                };
                prop_assert_eq!(first(&whole.contacts), first(&bounded.contacts));
            }
        }
    }
}
