//! Pieces displaced (7.4.1): occupancy no move in progress explains,
//! charged to the player who displaced them until he re-establishes them,
//! and the knock, a presser's own pieces knocked off just after his press.

use shakmaty::{Bitboard, Chess, Color, Piece, Position, Rank, Role, Square};

use super::effect::Effect;
use super::law::Law;
use super::legal::Legal;
use super::{Millis, Referee};

/// What the referee keeps of 7.4.1: the pieces displaced and not yet
/// re-established, and the presser's pieces knocked off meanwhile.
#[derive(Debug, Clone)]
pub(super) struct Displacement {
    /// Pieces displaced and not yet re-established, if any.
    pub(super) open: Option<Displaced>,
    /// Squares the presser's pieces were knocked off (see
    /// [`Referee::is_knock`]).
    pub(super) knocked: Bitboard,
    /// When the first of them was.
    pub(super) knocked_at: Millis,
}

/// Pieces displaced and not yet re-established (7.4.1), charged to `side`.
#[derive(Debug, Clone)]
pub(super) struct Displaced {
    /// Who displaced them, on whose clock they are set right.
    pub(super) side: Color,
    /// Their squares.
    pub(super) squares: Bitboard,
    /// The time `side` had used when they were displaced.
    pub(super) used_before: u64,
}

impl Displacement {
    /// Nothing displaced, nothing knocked.
    pub(super) fn new() -> Displacement {
        Displacement {
            open: None,
            knocked: Bitboard::EMPTY,
            knocked_at: 0,
        }
    }

    /// Forgets what was displaced and knocked: the game is over, or the
    /// arbiter took moves back.
    pub(super) fn clear(&mut self) {
        self.open = None;
        self.knocked = Bitboard::EMPTY;
    }
}

impl Referee {
    /// The squares of pieces displaced and not yet re-established: a move
    /// is read from the rest of the board (7.4.1 is its own matter, not a
    /// part of anyone's move).
    #[inline]
    pub(super) fn displaced(&self) -> Bitboard {
        self.displacement
            .open
            .as_ref()
            .map_or(Bitboard::EMPTY, |d| d.squares)
    }

    /// The squares no move is read from: those displaced, and those the
    /// presser's knocked pieces left empty (the player having the move may
    /// capture there, or make another move meanwhile).
    #[inline]
    pub(super) fn off_board(&self) -> Bitboard {
        self.displaced() | (self.displacement.knocked & !self.board.occupied())
    }

    /// When a move is made: pieces knocked off by the player who pressed
    /// that the move did not capture are his displacement (7.4.1), charged
    /// to him until he re-establishes them.
    pub(super) fn knocked_off_past(&mut self, moved: Bitboard) {
        let lost = self.displacement.knocked & !self.board.occupied() & !moved;
        self.displacement.knocked = Bitboard::EMPTY;
        let Some((_, presser)) = self.presses.last else {
            return;
        };
        if lost.is_empty() {
            return;
        }
        match &mut self.displacement.open {
            Some(displacement) => displacement.squares |= lost,
            None => {
                // His since the knock: the time the mover's clock ran for
                // it goes back to the mover.
                let used_before = self.clock.used(presser);
                self.charge_knock_back(presser);
                self.clock.charge(Some(presser), self.now);
                self.displacement.open = Some(Displaced {
                    side: presser,
                    squares: lost,
                    used_before,
                });
                self.emit(Effect::Displaced {
                    side: presser,
                    squares: lost.into_iter().collect(),
                });
            }
        }
    }

    /// The time since the knock, which the opponent's clock ran for, moved
    /// to the clock of `presser`, who knocked: the opponent is told with a
    /// `TimeAdded` under 7.4.1.
    pub(super) fn charge_knock_back(&mut self, presser: Color) {
        let mover = presser.other();
        let ms = self.now.saturating_sub(self.displacement.knocked_at);
        let ms = self.clock.transfer(mover, presser, ms, self.now);
        if ms > 0 {
            self.emit(Effect::TimeAdded {
                side: mover,
                ms,
                law: Law::Displaced,
            });
        }
    }

    /// The presser's pieces knocked off inside the knock window, which the
    /// player having the move could have been capturing, are all back on
    /// their squares: it was a knock, displaced and re-established by the
    /// presser (7.4.1), on his time.
    pub(super) fn knock_restored(&mut self) {
        let Some((_, presser)) = self.presses.last else {
            return;
        };
        let knocked = std::mem::take(&mut self.displacement.knocked);
        // The opponent's own piece put there was his move attempt.
        if !knocked.into_iter().all(|sq| {
            self.board
                .piece_at(sq)
                .is_none_or(|piece| piece.color == presser)
        }) {
            return;
        }
        self.emit(Effect::Displaced {
            side: presser,
            squares: knocked.into_iter().collect(),
        });
        self.board.reestablished(&self.play.position, knocked);
        let used_before = self.clock.used(presser);
        self.charge_knock_back(presser);
        let ms = self.clock.used(presser) - used_before;
        self.emit(Effect::Restored { side: presser, ms });
    }

    /// Whether lifting `piece` is a knock by the player who just pressed:
    /// his own piece, inside the knock window after his press, while his
    /// opponent has the move. It is his displacement, never his opponent's
    /// touch (4.3.2): one event is not both.
    #[inline]
    pub(super) fn is_knock(&self, piece: Piece) -> bool {
        let us = self.play.position.turn();
        matches!(self.presses.last, Some((at, presser))
            if self.now - at <= self.rules.knock_window_ms
                && piece.color == presser
                && us != presser
                && self.clock.running() == Some(us)
                // Once the player having the move has begun his move with
                // his own pieces, the pieces he lifts are his move's.
                && !self.turn.contacts.iter().any(|c| c.piece.color == us))
    }

    /// The player whose clock runs put his `piece`, from `from`, on `to`:
    /// where the presser's piece taken for knocked off the square `target`
    /// was his to capture, by its position (`to` is `target` itself) or en
    /// passant (`to` is the square behind it), that lift was his capture
    /// attempt, not the presser's knock. A piece put on `target` itself is
    /// read when the square is filled ([`Referee::review_displacement`]);
    /// here, the en passant square, whose capture leaves `target` empty:
    /// the time since the lift goes back to the presser (`time_added`
    /// under 7.4.1) and the displacement is the capturer's from the lift,
    /// set right on his own time. His press is an illegal move (7.5.1).
    #[inline]
    pub(super) fn capture_attempt(&mut self, from: Square, to: Square, piece: Piece) {
        let Some(displaced) = &self.displacement.open else {
            return;
        };
        let presser = displaced.side;
        let capturer = piece.color;
        if presser == capturer || self.clock.running() != Some(capturer) {
            return;
        }
        let squares = displaced.squares;
        let used_before = displaced.used_before;
        let Some(target) = (squares & self.displacement.knocked & !self.board.occupied())
            .into_iter()
            .find(|&target| self.en_passant_attempt(from, to, piece, target))
        else {
            return;
        };
        // Other squares displaced with it stay the presser's: not split.
        if squares != Bitboard::from(target) {
            return;
        }
        let ms = self.clock.used(presser) - used_before;
        let capturer_before = self.clock.used(capturer);
        let moved = self.clock.transfer(presser, capturer, ms, self.now);
        self.clock.charge(None, self.now);
        self.displacement.knocked.discard(target);
        self.displacement.open = Some(Displaced {
            side: capturer,
            squares,
            used_before: capturer_before,
        });
        self.emit(Effect::TimeAdded {
            side: presser,
            ms: moved,
            law: Law::Displaced,
        });
        self.emit(Effect::Displaced {
            side: capturer,
            squares: squares.into_iter().collect(),
        });
    }

    /// Whether `piece`, a pawn put from `from` on `to`, is where it would
    /// have captured en passant the opponent's pawn of `target`: beside it
    /// on its fifth rank, then on the square behind it.
    fn en_passant_attempt(&self, from: Square, to: Square, piece: Piece, target: Square) -> bool {
        let fifth = match piece.color {
            Color::White => Rank::Fifth,
            Color::Black => Rank::Fourth,
        };
        let behind = target.rank().offset(match piece.color {
            Color::White => 1,
            Color::Black => -1,
        });
        piece.role == Role::Pawn
            && target.rank() == fifth
            && from.rank() == fifth
            && from.file().distance(target.file()) == 1
            && behind.is_some_and(|rank| Square::from_coords(target.file(), rank) == to)
            && self.play.position.board().piece_at(target)
                == Some(Piece {
                    color: !piece.color,
                    role: Role::Pawn,
                })
    }

    /// 7.4.1: occupancy changes no legal move in progress explains.
    pub(super) fn review_displacement(&mut self) {
        let on_board = self.board.occupied();
        let expected = self.play.position.board().occupied();
        let unexplained = self.unexplained();
        if self.displacement.open.is_none()
            && self.displacement.knocked.any()
            && (self.displacement.knocked & (on_board ^ expected)).is_empty()
        {
            self.knock_restored();
        }
        let knocking = self.displacement.knocked.any();
        match &mut self.displacement.open {
            None if unexplained.any() => {
                let side = match self.presses.last {
                    Some((at, presser))
                        if knocking || self.now - at <= self.rules.knock_window_ms =>
                    {
                        presser
                    }
                    _ => self.clock.running().unwrap_or(self.play.position.turn()),
                };
                if self.clock.running().is_some_and(|running| running != side) {
                    self.clock.charge(Some(side), self.now);
                }
                self.displacement.open = Some(Displaced {
                    side,
                    squares: unexplained,
                    used_before: self.clock.used(side),
                });
                self.emit(Effect::Displaced {
                    side,
                    squares: unexplained.into_iter().collect(),
                });
            }
            Some(displacement) => {
                displacement.squares |= unexplained;
                if unexplained.is_empty()
                    && (displacement.squares & (on_board ^ expected)).is_empty()
                {
                    let side = displacement.side;
                    let used_before = displacement.used_before;
                    let squares = displacement.squares;
                    self.displacement.open = None;
                    self.clock.charge(None, self.now);
                    let mut ms = self.clock.used(side) - used_before;
                    // A "knock" whose square the opponent then filled with
                    // his own piece was his move attempt (a capture begun
                    // by lifting the captured piece): the time is his.
                    let knocked = squares & self.displacement.knocked;
                    if knocked.any()
                        && knocked.into_iter().all(|sq| {
                            self.board
                                .piece_at(sq)
                                .is_some_and(|piece| piece.color != side)
                        })
                    {
                        let moved = self.clock.transfer(side, side.other(), ms, self.now);
                        self.emit(Effect::Restored {
                            side,
                            ms: ms - moved,
                        });
                        self.emit(Effect::TimeAdded {
                            side,
                            ms: moved,
                            law: Law::Displaced,
                        });
                        ms = 0;
                    }
                    self.displacement.knocked = Bitboard::EMPTY;
                    self.board.reestablished(&self.play.position, squares);
                    if ms > 0 || !knocked.any() {
                        self.emit(Effect::Restored { side, ms });
                    }
                }
            }
            None => {}
        }
    }

    /// The squares whose state neither the player having the move nor the
    /// previous mover, still handling a move he has not completed, explains.
    pub(super) fn unexplained(&self) -> Bitboard {
        // Squares already displaced are not explained again.
        let mask = self.displaced();
        let expected = self.play.position.board().occupied();
        let on_board = (self.board.occupied() & !mask) | (expected & mask);
        let now = unexplained_from(&self.play.position, &self.play.legal, on_board);
        if now.is_empty() {
            return now;
        }
        match self.play.uncompleted.back() {
            Some(last)
                if unexplained_from(
                    &last.before,
                    &last.before_legal,
                    (on_board & !mask) | (last.before.board().occupied() & mask),
                )
                .is_empty() =>
            {
                Bitboard::EMPTY
            }
            _ => now,
        }
    }
}

/// The changed squares that no legal move in progress from `position`
/// explains: the mover lifting his own pieces and putting pieces down, and
/// removing opponent pieces he could capture.
/// `legal` are the legal moves of `position`.
#[inline]
fn unexplained_from(position: &Chess, legal: &Legal, on_board: Bitboard) -> Bitboard {
    let expected = position.board().occupied();
    if on_board == expected {
        // Nothing changed, nothing to explain.
        return Bitboard::EMPTY;
    }
    let vacated = expected & !on_board;
    let filled = on_board & !expected;
    let own_vacated = vacated & position.board().by_color(position.turn());
    // Only opponent pieces gone need a capture to explain them: the legal
    // moves are searched for those alone, seldom more than one.
    let mut unexplained = vacated & !own_vacated;
    for sq in unexplained {
        if legal.captures(sq) {
            unexplained.discard(sq);
        }
    }
    if own_vacated.is_empty() {
        // A new piece put on the promotion square before the pawn is taken
        // off begins a promotion (4.6): every order of the hands is one.
        for sq in filled {
            if !legal.moves.iter().any(|m| m.is_promotion() && m.to() == sq) {
                unexplained.add(sq);
            }
        }
    }
    unexplained
}
