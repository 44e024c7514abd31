//! Reading the board: sensor events as contacts (4.2–4.4), releases (4.7)
//! and the move the hands have made, taken back or changed.
//!
//! Events come in the order the board reported them, which is not always
//! the order of the hands: a piece slid across is on both squares for a
//! moment, and a scan that reads the new square first reports the place
//! before the lift. The orders read as a slide, and no others:
//!
//! - a place on an empty square, while the player whose clock runs holds
//!   none of his pieces (the board's identity, if any, his), where a legal
//!   move carries a piece of the player having the move (or of the player
//!   whose clock runs, changing the move he has not pressed) from the
//!   board (its piece; in castling the king to the king's square, the rook
//!   to the rook's), then, less than [`ONE_SCAN_MS`] later, the first lift
//!   of a piece of his that such a move carries there: read as that lift
//!   then that place, the contact at the place's instant and the release
//!   at the lift's. Everything after is read as for a piece lifted first:
//!   a capture whose captured piece was lifted first (the place on its
//!   square, taken for that piece put back, is the capturer), castling
//!   with king and rook slid in either order, a promotion;
//! - one lift of an opponent's piece between the place and its lift (a
//!   capture's, en passant's) is held with the place, and applied before
//!   the slide, at its own instant.
//!
//! Not a slide: the lift of any other piece (a second opponent's too), any
//! other event but a touch, or no lift in time: the place is read as it
//! came, at its own instant (the clock was held there meanwhile: both show
//! that instant), then the lift held, at its own: the rulings are those of
//! the events read one by one, usually an extra piece (7.4.1).

use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

use super::board::Changes;
use super::effect::{Effect, Rejection};
use super::footprint::{self, shows};
use super::law::Law;
use super::legal::Legal;
use super::rules::Laws;
use super::touch::{Breach, Contact};
use super::{Millis, Referee};

/// How long a place may wait for the lift of the piece that slid there:
/// one full scan of the slowest board (a DGT e-board scans its 64 squares
/// in 200–250 ms), plus 50 ms for the line and the stamping of events. A
/// sliding piece is on both squares for a moment: a scan that reads the
/// new square before the old one reports the place first, and the scan
/// after it, at most one scan later, the lift.
pub const ONE_SCAN_MS: Millis = 300;

/// A piece put down on an empty square while the player having the move
/// held none of his pieces, where one of his pieces on the board could go
/// by a legal move: the place may be the first half of a slide whose lift
/// the board reports after it (see [`Referee::lift`]). Its reading waits
/// for that lift, at most [`ONE_SCAN_MS`].
#[derive(Debug, Clone, Copy)]
pub(super) struct EarlyPlace {
    square: Square,
    at: Millis,
    identity: Option<Piece>,
    /// The piece in hand the place was taken to be, with its square.
    taken: Option<(Square, Option<Piece>)>,
    /// The lift of an opponent's piece reported after the place (a
    /// capture's piece, en passant's), with its instant: held, not yet
    /// applied, so that a place read as it came is read on the board as
    /// it stood then, and the lift after it at its own instant.
    held: Option<(Millis, Square)>,
}

impl EarlyPlace {
    /// When the piece was put down.
    pub(super) fn at(&self) -> Millis {
        self.at
    }

    /// When the place is read as it is, if no lift made it a slide: a
    /// lift counts before this instant.
    pub(super) fn due(&self) -> Millis {
        self.at + ONE_SCAN_MS
    }
}

impl Referee {
    /// Whether `color`'s hands still hold a piece of his: not the pieces
    /// displaced (they are off the board, not in a hand making a move), nor
    /// a pawn taken off after its promotion piece was put down (4.6, 4.7).
    #[inline]
    pub(super) fn hands_full(&self, color: Color) -> bool {
        if !self.board.holds(color) {
            return false;
        }
        let mut gone = self.displaced();
        // A promotion's new piece put down: its pawn is gone, not in hand.
        // Only the back ranks can hold one, so most calls look at no move.
        let put_down = self.board.changes().placed & self.board.occupied() & Bitboard::BACKRANKS;
        if self.play.position.turn() == color && put_down.any() {
            for m in &self.play.legal.moves {
                if m.is_promotion()
                    && put_down.contains(m.to())
                    && let Some(from) = m.from()
                {
                    gone.add(from);
                }
            }
        }
        self.board.holds_except(color, gone)
    }

    /// `Input::Lift`: a piece left `sq`; a contact, a knock, or a
    /// displaced piece taken up to be re-established.
    ///
    /// With a place waiting for its lift ([`EarlyPlace`]): the lift, within
    /// [`ONE_SCAN_MS`] of it, of a piece of the player having the move
    /// that a legal move of his carries from `sq` to the place's square is
    /// that piece sliding there, read as if lifted first; the lift of one
    /// opponent's piece (one the slide may capture) is held with the place;
    /// any other lift reads the place as it came, then the lift held, then
    /// itself.
    pub(super) fn lift(&mut self, sq: Square) {
        if let Some(mut early) = self.early_place.take() {
            if self.now < early.due() {
                if self.slides_from(sq, early.square) {
                    // The lift held in the scan first, where it came, with
                    // the place still waiting (nothing read yet).
                    if let Some((at, held)) = early.held.take() {
                        let now = self.now;
                        self.now = at;
                        self.clock.advance(at);
                        self.early_place = Some(early);
                        self.lift_now(held);
                        self.early_place = None;
                        self.now = now;
                    }
                    self.clock.advance(self.now);
                    self.slide(sq, early);
                    return;
                }
                let mover = self.play.position.turn();
                if early.held.is_none() && self.board.piece_at(sq).is_some_and(|p| p.color != mover)
                {
                    early.held = Some((self.now, sq));
                    self.early_place = Some(early);
                    return;
                }
            }
            self.place_read(early);
        }
        self.lift_now(sq);
    }

    /// [`Referee::lift`], with no place waiting for it.
    #[inline(always)]
    fn lift_now(&mut self, sq: Square) {
        if self.restoring {
            match self.board.lift(sq) {
                Ok(_) => self.review_restoring(),
                Err(_) => self.dropped.contradictions += 1,
            }
            return;
        }
        match self.board.lift(sq) {
            Ok(Some(piece)) if self.is_knock(piece) => {
                if self.displacement.knocked.is_empty() {
                    self.displacement.knocked_at = self.now;
                }
                self.displacement.knocked.add(sq);
            }
            // The displacer taking up a piece he displaced is re-establishing
            // it (7.4.1), not touching it with intent to move (4.2.2). In his
            // own turn he may put it straight on a square its own square's
            // piece can go to: that is his move (4.7), from its own square.
            Ok(Some(piece))
                if self
                    .displacement
                    .open
                    .as_ref()
                    .is_some_and(|d| d.side == piece.color && d.squares.contains(sq)) =>
            {
                if self.play.position.turn() == piece.color {
                    let home = self.displaced()
                        & !self.board.occupied()
                        & self.play.position.board().by_piece(piece);
                    self.board.lifted_from(home);
                }
            }
            Ok(Some(piece)) => self.contact(sq, piece),
            Ok(None) => {}
            Err(_) => {
                self.dropped.contradictions += 1;
                return;
            }
        }
        self.review_board();
    }

    /// Whether a legal move carries a piece standing on a square of `from`
    /// (on the board, not displaced) to `to`: a move of the player having
    /// the move, or one that changes the move made and not pressed by the
    /// player whose clock runs (he may change it until he presses).
    fn carries_to(&self, from: Bitboard, to: Square) -> bool {
        let from = from & self.board.occupied() & !self.displaced();
        if from.is_empty() {
            return false;
        }
        let carries = |legal: &Legal, color: Color| {
            legal.moves.iter().any(|m| {
                footprint::paths(*m, color)
                    .into_iter()
                    .flatten()
                    .any(|(a, b)| {
                        b == to
                            && from.contains(a)
                            && self.board.piece_at(a).is_some_and(|p| p.color == color)
                    })
            })
        };
        carries(&self.play.legal, self.play.position.turn())
            || self.play.uncompleted.back().is_some_and(|last| {
                self.clock.running() == Some(last.side) && carries(&last.before_legal, last.side)
            })
    }

    /// Whether the lift of `from` completes a slide to `to`: a legal move
    /// of the player having the move carries his piece from there to `to`.
    fn slides_from(&self, from: Square, to: Square) -> bool {
        self.carries_to(Bitboard::from(from), to)
    }

    /// Whether a place on `sq` may be the first half of a slide: the
    /// player having the move holds none of his pieces, the board does not
    /// say the piece is his opponent's, and one of his pieces could go there.
    /// `taken` is the piece in hand the board took the place to be.
    fn may_slide_to(
        &self,
        sq: Square,
        identity: Option<Piece>,
        taken: Option<(Square, Option<Piece>)>,
    ) -> bool {
        // The player whose clock runs, or, before the start, the player to move.
        let mover = self.clock.running().unwrap_or(self.play.position.turn());
        taken.is_none_or(|(_, piece)| piece.is_some_and(|p| p.color != mover))
            && !self.board.holds(mover)
            && identity.is_none_or(|p| p.color == mover)
            && self.carries_to(Bitboard::FULL, sq)
    }

    /// The lift of `from` completes `early`: the piece slid from `from` to
    /// its square. Read as if lifted just before the place: a contact at
    /// the place's instant (the hand held it then), released on arrival.
    fn slide(&mut self, from: Square, early: EarlyPlace) {
        let piece = match self.board.lift(from) {
            Ok(Some(piece)) => piece,
            _ => {
                self.dropped.contradictions += 1;
                return;
            }
        };
        self.board.slid(early.square, early.identity, early.taken);
        self.contact_at(from, piece, early.at);
        self.released(from, early.square, piece, piece.color);
    }

    /// A place waited for its lift and none came: it is read as it was
    /// made, at its own instant. The clock was held there meanwhile
    /// (`handle_timeout`): what it charges, and when, is as if it had been
    /// read at once; then the clock catches up with the present.
    pub(super) fn place_read(&mut self, early: EarlyPlace) {
        let now = self.now;
        self.now = early.at;
        self.placed(early.square, early.identity, early.taken);
        // The lift held after it, at its own instant.
        if let Some((at, held)) = early.held
            && self.result.is_none()
        {
            self.now = at;
            self.clock.advance(at);
            self.lift_now(held);
        }
        self.now = now;
        self.clock.advance(now);
    }

    /// The place waiting for its lift, if any, is read now: another input
    /// came, or its time is up.
    pub(super) fn read_early_place(&mut self) {
        if let Some(early) = self.early_place.take() {
            self.place_read(early);
        }
    }

    /// `Input::Place`: a piece (`identity`, where the board knows it) was
    /// put on `sq`; its release may make a move (4.7).
    pub(super) fn place(&mut self, sq: Square, identity: Option<Piece>) {
        let mover = self.play.position.turn();
        // Under the 1858 laws a player may capture with his second move of
        // two, while his opponent has the move: the capturer is told from
        // the captured piece by the square, not by whose turn it is.
        let capturer = self.rules.laws == Laws::Regence1858;
        let taken = match self.board.place(sq, identity, mover, capturer) {
            Ok(taken) => taken,
            Err(_) => {
                self.dropped.contradictions += 1;
                return;
            }
        };
        if self.restoring {
            self.review_restoring();
            return;
        }
        if self.may_slide_to(sq, identity, taken) {
            self.early_place = Some(EarlyPlace {
                square: sq,
                at: self.now,
                identity,
                taken,
                held: None,
            });
            return;
        }
        self.placed(sq, identity, taken);
    }

    /// A place read: `taken` is the piece in hand it was taken to be.
    #[inline(always)]
    fn placed(
        &mut self,
        sq: Square,
        identity: Option<Piece>,
        taken: Option<(Square, Option<Piece>)>,
    ) {
        let mover = self.play.position.turn();
        // The piece's colour says whose hand released it.
        let releaser = identity
            .or(taken.and_then(|(_, piece)| piece))
            .map_or(mover, |piece| piece.color);
        if let Some((from, Some(piece))) = taken {
            if piece.color == mover {
                self.capture_attempt(from, sq, piece);
                self.released(from, sq, piece, releaser);
                return;
            }
            // 1858: the king is the mover's too when the opponent moves twice.
            if self.rules.laws == Laws::Regence1858 && piece.role == Role::King {
                *self.presses.last_release.get_mut(releaser) = Some(self.now);
                self.note_castling_touch(from, sq, piece);
                self.review_board();
                return;
            }
        }
        *self.presses.last_release.get_mut(releaser) = Some(self.now);
        self.review_board();
    }

    /// The mover's `piece` from `from` released on `to` now: the move it
    /// makes, if legal, is released (4.7).
    /// `releaser` is whose hand the board says released it.
    #[inline(always)]
    fn released(&mut self, from: Square, to: Square, piece: Piece, releaser: Color) {
        *self.presses.last_release.get_mut(releaser) = Some(self.now);
        if let Some(m) = self.released_move(from, to)
            && !self.completes_released_castling(from, to)
        {
            self.turn.release(m);
        }
        // 1858, 20ª: a king set down where castling would put it, when
        // castling is not allowed there, was touched to castle.
        if self.rules.laws == Laws::Regence1858 && piece.role == Role::King {
            self.note_castling_touch(from, to, piece);
        }
        self.review_board();
    }

    /// Whether a rook put down on `to` is the second half of a castling
    /// already released with the king, not a rook move of its own.
    pub(super) fn completes_released_castling(&self, from: Square, to: Square) -> bool {
        let color = self.play.position.turn();
        self.turn.releases.iter().any(|m| {
            matches!(m, Move::Castle { rook, .. } if *rook == from)
                && m.castling_side()
                    .is_some_and(|side| side.rook_to(color) == to)
        })
    }

    /// The legal move of the player having the move that takes the piece
    /// from `from` to `to`; castling counts once the king is released.
    pub(super) fn released_move(&self, from: Square, to: Square) -> Option<Move> {
        self.play
            .legal
            .carrying(from, to, self.play.position.turn())
    }

    /// A contact with `piece` on `sq`: attributed to the player having the
    /// move, unless it is the previous mover handling his own pieces before
    /// pressing (finishing a promotion, straightening a piece): those must
    /// not oblige the opponent to capture anything.
    pub(super) fn contact(&mut self, sq: Square, piece: Piece) {
        self.contact_at(sq, piece, self.now);
    }

    /// [`Referee::contact`], made at `at`.
    fn contact_at(&mut self, sq: Square, piece: Piece, at: Millis) {
        if let Some(last) = self.play.uncompleted.back()
            && self.clock.running() == Some(last.side)
            && piece.color == last.side
        {
            return;
        }
        if self.restoring {
            return;
        }
        let mover = self.play.position.turn();
        let adjusting = self.turn.adjusting;
        if !adjusting {
            self.claim_lapses_on_touch(mover);
        }
        self.turn.touch(Contact {
            at,
            square: sq,
            piece,
            adjusting,
        });
        // 9.1.2.1: touching a piece with intent rejects the opponent's offer,
        // also before the offerer has pressed: the offer stands from the
        // moment it is made, and the player having the move on the board is
        // the one who touches (the offerer handling his own move is above).
        if !adjusting && self.started && self.draw_offer == Some(mover.other()) {
            self.draw_offer = None;
            self.emit(Effect::DrawDeclined {
                side: mover.other(),
                how: Rejection::Touch,
            });
        }
    }

    /// `Input::Adjust`: `side` announces he adjusts (4.2.1).
    pub(super) fn adjust(&mut self, side: Color) {
        // 6.2.5: only the player whose clock runs may adjust (before the
        // start, the player to move). A player who has made his move and
        // not pressed may straighten it; his own pieces oblige him nothing
        // then, so only the announcement of the player having the move
        // excuses contacts.
        let may = self.clock.running().unwrap_or(self.play.position.turn());
        if side == may {
            if side == self.play.position.turn() {
                self.turn.adjusting = true;
            }
        } else {
            self.rule(
                side,
                Breach {
                    law: Law::Adjust,
                    detail: "Only the player having the move may adjust pieces".to_owned(),
                },
                true,
            );
        }
    }

    /// After every change of occupancy: a move made, a move changed or taken
    /// back, pieces displaced or re-established.
    pub(super) fn review_board(&mut self) {
        // A place waiting for its lift is read when it is known what it was.
        if self.early_place.is_some() {
            return;
        }
        // A move is made when its pieces are released (4.7): never while the
        // mover still holds one. (A capturing piece lifted first leaves the
        // occupancy of the finished capture.)
        let made = if self.hands_full(self.play.position.turn()) {
            None
        } else {
            let released = self.turn.releases.last().copied();
            self.chosen_move(
                &self.play.position,
                &self.play.legal,
                self.board.changes(),
                released,
            )
        };
        if let Some(m) = made {
            self.make(m, self.board.changes());
        } else if let Some(last) = self.play.uncompleted.back()
            && !self.hands_full(last.side)
        {
            let changes = last.changes.union(self.board.changes());
            let mask = self.off_board();
            if self.board.occupied() & !mask == last.before.board().occupied() & !mask {
                self.take_back();
            } else if let Some(m) =
                self.chosen_move(&last.before, &last.before_legal, changes, None)
                // The same squares again is the same move: the promotion
                // piece was chosen when it first reached the square (4.4.4).
                && (m.from(), m.to()) != (last.mv.from(), last.mv.to())
            {
                self.take_back();
                self.make(m, changes);
            }
        }
        if self.result.is_none() {
            self.review_displacement();
        }
    }

    /// The legal moves from `position` whose result the occupancy matches,
    /// made by hands that lifted and placed the squares they need.
    /// `legal` are the legal moves of `position`.
    pub(super) fn matching_moves<'a>(
        &self,
        position: &Chess,
        legal: &'a Legal,
        changes: Changes,
    ) -> impl Iterator<Item = Move> + use<'a> {
        // Displaced pieces are no part of a move: the rest of the board is.
        let mask = self.off_board();
        let occupied = position.board().occupied();
        let color = position.turn();
        let on_board = self.board.occupied() & !mask;
        // A move other than castling (whose king may land where it stood in
        // Chess960) empties the square it starts from: a cheap test first.
        let vacated = occupied & !on_board;
        // One pass, each move tested cheapest first, by reference: only the
        // start square is read of a move that did not start from a vacated
        // square, nearly all of them.
        legal
            .moves
            .iter()
            .filter(move |m| {
                // A normal move first and alone: no jump through a table
                // on every move (see `Legal::moves_from`).
                let starts_vacated = if let Move::Normal { from, .. } = m {
                    vacated.contains(*from)
                } else {
                    match m {
                        Move::EnPassant { from, .. } => vacated.contains(*from),
                        Move::Castle { .. } => true,
                        Move::Normal { .. } | Move::Put { .. } => false,
                    }
                };
                starts_vacated && shows(occupied, on_board, mask, changes, color, **m)
            })
            .copied()
    }

    /// Whether the board shows `m`, a legal move from `position`, made: see
    /// [`Referee::matching_moves`].
    pub(super) fn shows_made(&self, position: &Chess, m: Move, changes: Changes) -> bool {
        let mask = self.off_board();
        let on_board = self.board.occupied() & !mask;
        let occupied = position.board().occupied();
        shows(occupied, on_board, mask, changes, position.turn(), m)
    }

    /// The move the board shows made from `position`, with the promotion piece
    /// from the board's identity, else the clock's choice, else a queen. A
    /// pawn the board identifies on the last rank is not a move yet.
    /// `released` is the move last released on the board, if any: usually
    /// the one made, tried before every legal move is searched.
    pub(super) fn chosen_move(
        &self,
        position: &Chess,
        legal: &Legal,
        changes: Changes,
        released: Option<Move>,
    ) -> Option<Move> {
        // A move other than castling, en passant or a promotion is the only
        // legal move that empties its square and fills its target alone: a
        // released one that the board shows made is the one the search
        // would find.
        // (Releases are legal moves of the turn's position: kept so where
        // the position changes under a turn, in `choose_again`.)
        if let Some(
            m @ Move::Normal {
                promotion: None, ..
            },
        ) = released
            && self.shows_made(position, m, changes)
        {
            debug_assert!(legal.contains(m), "{m:?} released, not legal");
            return Some(m);
        }
        let mut candidates = self.matching_moves(position, legal, changes);
        let first = candidates.next()?;
        if !first.is_promotion() {
            return Some(first);
        }
        let role = match self.board.sensed_at(first.to()) {
            Some(piece) if piece.role == Role::Pawn => return None,
            Some(piece) => piece.role,
            None => self.promotion_choice.unwrap_or(Role::Queen),
        };
        std::iter::once(first)
            .chain(candidates)
            .find(|m| m.promotion() == Some(role))
            .or(Some(first))
    }
}
