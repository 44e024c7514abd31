//! The board as the sensors see it: occupancy, what hands hold, and which
//! pieces the board itself identified.

use shakmaty::{Bitboard, Chess, Color, Piece, Position, Role, Square};

/// A sensor event that contradicts what the board already reported (a lift
/// from an empty square, a place on an occupied one). It is counted and
/// dropped: trusting it would corrupt the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contradiction;

/// What the referee believes is physically on the board.
#[derive(Debug, Clone)]
pub(crate) struct PhysicalBoard {
    occupied: Bitboard,
    /// Best knowledge of each square's piece: exact after a sync, guessed
    /// from the hand in between.
    pieces: [Option<Piece>; 64],
    /// Identities reported by boards that recognise pieces.
    sensed: [Option<Piece>; 64],
    /// Pieces lifted and not put down yet, latest last, with their square.
    hand: Vec<(Square, Option<Piece>)>,
    /// Squares lifted from and placed on since the board last matched the
    /// position: a capture leaves the occupancy of every other capture by
    /// the same piece, so which squares changed tells them apart.
    changes: Changes,
}

/// Squares lifted from and placed on during a move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub lifted: Bitboard,
    pub placed: Bitboard,
}

impl Changes {
    pub fn union(self, other: Changes) -> Changes {
        Changes {
            lifted: self.lifted | other.lifted,
            placed: self.placed | other.placed,
        }
    }
}

impl PhysicalBoard {
    pub fn new(position: &Chess) -> PhysicalBoard {
        let mut board = PhysicalBoard {
            occupied: Bitboard::EMPTY,
            pieces: [None; 64],
            sensed: [None; 64],
            hand: Vec::new(),
            changes: Changes::default(),
        };
        board.sync(position);
        board
    }

    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pieces[usize::from(sq)]
    }

    /// The piece the board itself says stands on `sq`.
    pub fn sensed_at(&self, sq: Square) -> Option<Piece> {
        self.sensed[usize::from(sq)]
    }

    /// Squares lifted and placed since the board last matched the position.
    pub fn changes(&self) -> Changes {
        self.changes
    }

    /// Whether a piece of `color` is lifted and not put down.
    pub fn holds(&self, color: Color) -> bool {
        self.hand
            .iter()
            .any(|(_, piece)| piece.is_some_and(|p| p.color == color))
    }

    /// Whether a piece of `color` is lifted and not put down, other than
    /// those lifted from the squares of `gone`: pieces known to have left
    /// the board (displaced, or a pawn taken off in a promotion).
    pub fn holds_except(&self, color: Color, gone: Bitboard) -> bool {
        self.hand
            .iter()
            .any(|(sq, piece)| !gone.contains(*sq) && piece.is_some_and(|p| p.color == color))
    }

    /// The piece standing on `sq`, if one does, is `piece`: the promotion
    /// piece chosen on the clock for a square the board cannot identify.
    pub fn identify(&mut self, sq: Square, piece: Piece) {
        if self.occupied.contains(sq) {
            self.pieces[usize::from(sq)] = Some(piece);
        }
    }

    /// A piece left `sq`; returns it if known.
    #[inline]
    pub fn lift(&mut self, sq: Square) -> Result<Option<Piece>, Contradiction> {
        if !self.occupied.contains(sq) {
            return Err(Contradiction);
        }
        self.occupied.discard(sq);
        self.changes.lifted.add(sq);
        let piece = self.pieces[usize::from(sq)].take();
        self.sensed[usize::from(sq)] = None;
        self.hand.push((sq, piece));
        Ok(piece)
    }

    /// The piece just lifted (the latest in hand) is the one that was put
    /// on `to` before its lift was reported: it slid there, seen on both
    /// squares in one scan. `identity` is what the board said of the piece
    /// on `to`; `taken` is the piece the place was taken to be, back in
    /// hand (it was not the one put down).
    pub fn slid(
        &mut self,
        to: Square,
        identity: Option<Piece>,
        taken: Option<(Square, Option<Piece>)>,
    ) {
        if let Some((_, piece)) = self.hand.pop() {
            self.pieces[usize::from(to)] = identity.or(piece);
        }
        // The entry popped leaves room: no allocation.
        self.hand.extend(taken);
    }

    /// Counts the squares of `home` as lifted from: a displaced piece
    /// taken up from the square it was knocked onto is the piece of its
    /// own square, which its player's move may start from.
    pub fn lifted_from(&mut self, home: Bitboard) {
        self.changes.lifted |= home;
    }

    /// A piece was put on `sq`; returns the lifted piece it is taken to be,
    /// with the square it came from. Without an identity from the board, the
    /// piece is the latest one `mover` lifted, else the latest lifted at all;
    /// with `capturer`, first a piece held from another square than `sq`
    /// when the piece lifted from `sq` is held too (it was captured: the
    /// 1858 profile, where the mover may be the player who moves twice).
    pub fn place(
        &mut self,
        sq: Square,
        identity: Option<Piece>,
        mover: Color,
        capturer: bool,
    ) -> Result<Option<(Square, Option<Piece>)>, Contradiction> {
        if self.occupied.contains(sq) {
            return Err(Contradiction);
        }
        self.occupied.add(sq);
        self.changes.placed.add(sq);
        let captured = capturer && self.hand.iter().any(|(from, _)| *from == sq);
        let index = identity
            .and_then(|p| self.hand.iter().rposition(|(_, held)| *held == Some(p)))
            .or_else(|| {
                captured
                    .then(|| self.hand.iter().rposition(|(from, _)| *from != sq))
                    .flatten()
            })
            .or_else(|| {
                self.hand
                    .iter()
                    .rposition(|(_, held)| held.is_some_and(|p| p.color == mover))
            })
            .or_else(|| self.hand.len().checked_sub(1));
        let taken = index.map(|i| self.hand.remove(i));
        self.pieces[usize::from(sq)] = identity.or(taken.and_then(|(_, piece)| piece));
        self.sensed[usize::from(sq)] = identity;
        Ok(taken)
    }

    /// The board matches `position`, a move from the position it last
    /// matched that changed no square outside `moved`, except on the
    /// squares of `keep` (displaced pieces not re-established, 7.4.1),
    /// which stay as the hands left them: as [`Self::sync_keeping`],
    /// refreshing only the squares the move or the hands changed (every
    /// other square still holds the piece the last sync put there).
    ///
    /// The hands' doings are forgotten, on the squares of `keep` too: a
    /// move is made when its piece is released in its player's turn (4.7),
    /// so a piece lifted and put down before this move (knocked off and put
    /// back on another square) is no part of the next player's move. A
    /// piece still in a hand stays lifted: released later, it may be one.
    pub fn sync_after(&mut self, position: &Chess, moved: Bitboard, keep: Bitboard) {
        let board = position.board();
        self.occupied = (board.occupied() & !keep) | (self.occupied & keep);
        for sq in (moved | self.changes.lifted | self.changes.placed) & !keep {
            self.pieces[usize::from(sq)] = board.piece_at(sq);
        }
        self.hand.retain(|(sq, _)| keep.contains(*sq));
        self.changes = Changes {
            lifted: self.hand.iter().map(|(sq, _)| *sq).collect(),
            placed: Bitboard::EMPTY,
        };
        debug_assert!(
            {
                let mut whole = self.clone();
                whole.sync_keeping(position, keep);
                whole.pieces == self.pieces
            },
            "a board refreshed square by square as a whole sync leaves it"
        );
    }

    /// The pieces on `squares` were put back where they stood (7.4.1): each
    /// is now the position's piece of its square, whichever piece a hand
    /// was taken to have put there (without identity from the board, the
    /// latest one lifted), so that later moves and syncs read the square
    /// right.
    pub fn reestablished(&mut self, position: &Chess, squares: Bitboard) {
        for sq in squares & self.occupied {
            self.pieces[usize::from(sq)] = position.board().piece_at(sq);
        }
    }

    /// The board matches `position` except on the squares of `keep`, which
    /// stay as the hands left them, with what was lifted from them.
    pub fn sync_keeping(&mut self, position: &Chess, keep: Bitboard) {
        if keep.is_empty() {
            self.sync(position);
            return;
        }
        let occupied = self.occupied;
        let pieces = self.pieces;
        let hand = std::mem::take(&mut self.hand);
        let changes = self.changes;
        self.sync(position);
        self.occupied = (self.occupied & !keep) | (occupied & keep);
        for sq in keep {
            self.pieces[usize::from(sq)] = pieces[usize::from(sq)];
        }
        self.hand = hand;
        self.changes = changes;
        self.keep_only(keep);
    }

    /// Forgets the hands' doings except on the squares of `keep`.
    fn keep_only(&mut self, keep: Bitboard) {
        self.hand.retain(|(sq, _)| keep.contains(*sq));
        self.changes = Changes {
            lifted: self.changes.lifted & keep,
            placed: self.changes.placed & keep,
        };
    }

    /// The board matches `position`: take its pieces as exact, and whatever
    /// is still in a hand (captured pieces) as gone.
    pub fn sync(&mut self, position: &Chess) {
        let board = position.board();
        self.occupied = board.occupied();
        // Piece by piece from the bitboards, 12 of them, rather than
        // searching them for each of the 64 squares: this runs every move.
        self.pieces = [None; 64];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                for sq in board.by_piece(piece) {
                    self.pieces[usize::from(sq)] = Some(piece);
                }
            }
        }
        self.hand.clear();
        self.changes = Changes::default();
    }
}
