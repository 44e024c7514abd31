//! The laws profiles besides `fide-2023`: what changes when supervision is
//! inadequate (Appendix A.5), and the 1858 laws of the London committee and
//! the Café de la Régence, where the penalty is the opponent's choice.
//!
//! Kept out of the referee's hot paths: under `fide-2023` nothing here runs
//! but a test of an empty option or of the profile.

use shakmaty::attacks::attacks;
use shakmaty::san::{San, SanPlus};
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Move, Piece, Position, Rank, Role, Square,
};

use super::choice::{Choice, ChoiceOptions};
use super::claim::Claimable;
use super::displacement::Displaced;
use super::effect::{CompletedMove, Effect};
use super::footprint::{capture_square, shows};
use super::history::{Ply, passed_turn};
use super::law::Law;
use super::legal::Legal;
use super::play::{Completion, key};
use super::rules::Laws;
use super::touch::{Breach, Contact, Turn};
use super::{Referee, notation};

/// A choice the referee waits for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    chooser: Color,
    law: Law,
    options: ChoiceOptions,
    /// The square the penalty is about: the touched enemy piece (9ª), the
    /// square the falsely moved piece came from (12ª, 13ª).
    subject: Square,
    /// The enemy piece a false capture went for (12ª).
    target: Square,
    /// Whether the offence was completed as a move, which a penalty takes
    /// back; an enemy piece moved (10ª) completed nothing.
    completed: bool,
}

/// What a player must play after the penalty his opponent chose: enforced
/// at his press as strictly as touch-move, until he completes a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Penalty {
    /// Capture the piece on this square.
    Capture(Square),
    /// Move the king (castling is no king move here: 21ª).
    King,
    /// Move the piece on this square.
    Piece(Square),
}

impl Penalty {
    fn allows(self, m: Move) -> bool {
        match self {
            Penalty::Capture(sq) => capture_square(m) == Some(sq),
            Penalty::King => m.role() == Role::King && !m.is_castle(),
            Penalty::Piece(sq) => m.from() == Some(sq),
        }
    }

    fn detail(self) -> String {
        match self {
            Penalty::Capture(sq) => format!("Penalty: take the piece on {sq}"),
            Penalty::King => "Penalty: move the king".to_owned(),
            Penalty::Piece(sq) => format!("Penalty: move the piece from {sq}"),
        }
    }
}

impl Referee {
    /// The choice the game waits for, if any: who chooses, under which
    /// law, among which options.
    pub fn choice_pending(&self) -> Option<(Color, Law, ChoiceOptions)> {
        let pending = self.obligations.choice.filter(|_| self.result.is_none())?;
        Some((pending.chooser, pending.law, pending.options))
    }

    /// `Input::Choose` answers dropped: no choice waiting, another side's,
    /// or an option not offered.
    pub fn refused_choices(&self) -> u64 {
        self.dropped.choices
    }

    /// `Input::Choose`: the chooser's answer. A penalty takes the offending
    /// move back (its clock times with it, as for an upheld claim) and
    /// binds its mover; no penalty leaves the move as it stands.
    #[cold]
    #[inline(never)]
    pub(super) fn choose(&mut self, side: Color, option: Choice) {
        let Some(pending) = self
            .obligations
            .choice
            .filter(|p| p.chooser == side && p.options.contains(option))
        else {
            self.dropped.choices += 1;
            return;
        };
        self.obligations.choice = None;
        let penalty = match option {
            Choice::Take => Some(Penalty::Capture(pending.subject)),
            Choice::King => Some(Penalty::King),
            Choice::Elsewhere | Choice::Move | Choice::Rook | Choice::First => {
                Some(Penalty::Piece(pending.subject))
            }
            Choice::Second => Some(Penalty::Piece(pending.target)),
            Choice::Capture => Some(Penalty::Capture(pending.target)),
            // 10ª: the piece put back, then any move.
            Choice::Restore => None,
            // 15ª: the second move is taken back with the turn it passed
            // over, and set back on its mover's time; then the chooser
            // plays, his clock as it stood when his turn began.
            Choice::Undo => {
                if self.take_back_completed()
                    && self.play.history.last().is_some_and(|ply| ply.mv.is_none())
                {
                    self.take_back_completed();
                }
                if self.restoring {
                    self.clock.charge(Some(side.other()), self.now);
                }
                return;
            }
            // The move stands: if it ended the game (a mate that broke a
            // law waits for the choice), the game ends now.
            Choice::Leave | Choice::Stand | Choice::Keep => {
                if self.play.uncompleted.is_empty() {
                    self.end_if_over(self.play.position.is_check());
                }
                return;
            }
        };
        if !pending.completed {
            // 10ª: nothing was completed. The enemy piece goes back (his
            // displacement, on his time), and what he touched binds him to
            // nothing but the penalty.
            self.turn.clear();
        } else if !self.take_back_completed() {
            return;
        }
        if let Some(penalty) = penalty {
            self.obligations.imposed = Some(side.other());
            self.obligations.penalty = Some((penalty, pending.law));
        }
    }

    /// 14ª: once the chooser makes his own next move, the offence is no
    /// longer punished: the choice lapses and the move stands.
    #[inline]
    pub(super) fn choice_lapses(&mut self, mover: Color) {
        if self.obligations.choice.is_some_and(|p| p.chooser == mover) {
            self.obligations.choice = None;
        }
    }

    /// Whether the penalty imposed on `side` refuses the move made at
    /// `index`: he must play what his opponent chose.
    #[inline]
    pub(super) fn penalty_refuses(&mut self, side: Color, index: usize) -> bool {
        self.obligations.penalty.is_some() && self.penalty_refuses_now(side, index)
    }

    /// [`Referee::penalty_refuses`] with a penalty in force: kept out of
    /// the press's code, which every game runs.
    #[cold]
    #[inline(never)]
    fn penalty_refuses_now(&mut self, side: Color, index: usize) -> bool {
        let Some((penalty, law)) = self.obligations.penalty else {
            return false;
        };
        if self.obligations.imposed != Some(side) || penalty.allows(self.play.uncompleted[index].mv)
        {
            return false;
        }
        // What he touched and released against the penalty binds him to
        // nothing (7ª yields to it): the penalty does.
        self.play.uncompleted[index].turn.clear();
        self.rule(
            side,
            Breach {
                law,
                detail: penalty.detail(),
            },
            false,
        );
        true
    }

    /// A breach of article 4 at `side`'s press, under the profiles: `None`
    /// when the profile has dealt with it (the move completed, a choice
    /// given), else the breach to rule on as the enforcement says.
    #[cold]
    #[inline(never)]
    pub(super) fn profile_breach(
        &mut self,
        side: Color,
        index: usize,
        breach: Breach,
    ) -> Option<Breach> {
        if self.rules.laws != Laws::Regence1858 {
            return Some(breach);
        }
        // 20ª: pieces touched to castle, then another move: the opponent's
        // choice of king or rook takes the place of 7ª.
        if self.obligations.imposed != Some(side) && self.castling_given_up(side, index) {
            return None;
        }
        let made = &self.play.uncompleted[index];
        if matches!(breach.law, Law::TouchedOwn | Law::Released)
            && made.mv.role() == Role::King
            && !made.mv.is_castle()
            && pinned_first(&made.before, &made.before_legal, &made.turn.contacts)
        {
            // 22ª: the king played for a touched piece that could not move
            // is the move the law asks for, whatever was touched after.
            self.warn_if_hasty(side);
            self.complete_through(index, true);
            if self.play.uncompleted.is_empty() {
                self.end_if_over(self.play.position.is_check());
            }
            return None;
        }
        match breach.law {
            // 9ª: a touched enemy piece not taken: the opponent chooses.
            Law::TouchedOpponent if self.obligations.imposed != Some(side) => {
                let made = &self.play.uncompleted[index];
                let us = made.before.turn();
                let touched = made.turn.contacts.iter().find(|c| {
                    !c.adjusting
                        && c.piece.color != us
                        && made.before.board().piece_at(c.square) == Some(c.piece)
                        && made.before_legal.captures(c.square)
                });
                let Some(subject) = touched.map(|c| c.square) else {
                    return Some(breach);
                };
                let king_can_move = made
                    .before_legal
                    .moves
                    .iter()
                    .any(|m| m.role() == Role::King && !m.is_castle());
                let options =
                    ChoiceOptions::of(&[Choice::Take, Choice::Leave, Choice::King], |c| {
                        c != Choice::King || king_can_move
                    });
                self.warn_if_hasty(side);
                self.complete_through(index, true);
                self.give_choice(side.other(), Law::Regence9, options, subject, subject, true);
                None
            }
            // 7ª: the touched piece is played, the piece set down stays.
            Law::TouchedOwn | Law::Released => Some(Breach {
                law: Law::Regence7,
                ..breach
            }),
            _ => Some(breach),
        }
    }

    /// 19ª–20ª: castling while the rook is attacked ("cuando lo está la
    /// torre"), the one of the seven forbidden cases today's rules allow,
    /// so the only one that reaches the press as a legal move: completed,
    /// then the opponent makes him move the king or the rook. Whether the
    /// press was dealt with.
    fn castling_with_rook_attacked(&mut self, side: Color, index: usize) -> bool {
        let made = &self.play.uncompleted[index];
        let Move::Castle { rook, .. } = made.mv else {
            return false;
        };
        let board = made.before.board();
        if board
            .attacks_to(rook, side.other(), board.occupied())
            .is_empty()
        {
            return false;
        }
        self.king_or_rook(side, index, rook)
    }

    /// The 1858 laws at a press whose move obeyed article 4: a second
    /// move made after it (15ª), castling with the rook attacked (19ª), an
    /// enemy piece touched that could not be taken (9ª). Whether the press
    /// was dealt with.
    #[cold]
    #[inline(never)]
    pub(super) fn regence_press(&mut self, side: Color, index: usize) -> bool {
        self.obligations.imposed != Some(side)
            && (self.played_twice(side, index)
                || self.castling_given_up(side, index)
                || self.pinned_touch_refuses(side, index)
                || self.castling_with_rook_attacked(side, index)
                || self.untaken_touch(side, index))
    }

    /// 15ª "si uno juega dos veces, es obligado á deshacer la segunda si
    /// se lo exige el contrario": at `side`'s press, the board shows the
    /// move he made (at `index`, the last made) and after it a second move
    /// of his own, legal as if his opponent had passed his turn, his hands
    /// empty and nothing else changed. The press completes the first move;
    /// the opponent's turn is recorded as passed (`--`), the second move is
    /// completed after it, and the opponent chooses `undo` (both taken
    /// back, the second set back on its mover's time, then the opponent
    /// plays) or `keep` (it stands, and he plays). Whether the press was
    /// dealt with.
    fn played_twice(&mut self, side: Color, index: usize) -> bool {
        if index + 1 != self.play.uncompleted.len()
            || self.displacement.open.is_some()
            || self.displacement.knocked.any()
            || self.board.changes().placed.is_empty()
        {
            return false;
        }
        let on_board = self.board.occupied();
        let changes = self.board.changes();
        // After a check the turn cannot pass: the king would stand en prise.
        let Some(passed) = passed_turn(&self.play.position) else {
            return false;
        };
        let legal = Legal::of(&passed);
        let occupied = passed.board().occupied();
        let sensed = |sq| self.board.sensed_at(sq).map(|p| p.role);
        let Some(second) = legal.moves.iter().copied().find(|m| {
            shows(occupied, on_board, Bitboard::EMPTY, changes, side, *m)
                && m.promotion()
                    .is_none_or(|role| role == sensed(m.to()).unwrap_or(Role::Queen))
        }) else {
            return false;
        };
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        if self.result.is_some() {
            return true;
        }
        self.pass_turn(passed, legal);
        // What the hands did making the second move was his, not the
        // contacts of the player whose turn passed.
        self.turn.clear();
        // A second move that would end the game ends it only if it is kept.
        self.make_unended(second, changes);
        if let Some(index) = self.play.uncompleted.iter().position(|u| u.side == side) {
            self.complete_with(index, Completion::NextMove);
        }
        let options = ChoiceOptions::of(&[Choice::Undo, Choice::Keep], |_| true);
        let from = second.from().unwrap_or(second.to());
        self.give_choice(
            side.other(),
            Law::Regence15,
            options,
            from,
            second.to(),
            true,
        );
        true
    }

    /// 15ª on a claim: `side`, having the move, his clock running and no
    /// move of his made, claims that the board shows a second move of his
    /// opponent, made after the opponent's press: a legal move of the
    /// opponent's as if `side` had passed, and nothing else changed. The
    /// board credited those hands to `side` (the player having the move);
    /// the claim says they were the opponent's, which a board cannot see.
    /// Upheld: the claim demands the undo ("si se lo exige el contrario"),
    /// so the pieces are the opponent's displacement, set back on his
    /// clock (7.4.1), and `side`'s contacts with them bind him to nothing.
    /// Whether the claim was upheld.
    #[cold]
    #[inline(never)]
    pub(super) fn moved_after_press_claimed(&mut self, side: Color) -> bool {
        let offender = side.other();
        if self.play.position.turn() != side
            || self.clock.running() != Some(side)
            || self.clock.is_paused()
            || self.restoring
            || !self.play.uncompleted.is_empty()
            || self.play.history.last().is_none_or(|ply| ply.mv.is_none())
        {
            return false;
        }
        let Some(passed) = passed_turn(&self.play.position) else {
            return false;
        };
        let legal = Legal::of(&passed);
        let on_board = self.board.occupied();
        let changes = self.board.changes();
        let occupied = passed.board().occupied();
        let Some(second) = legal
            .moves
            .iter()
            .copied()
            .find(|m| shows(occupied, on_board, Bitboard::EMPTY, changes, offender, *m))
        else {
            return false;
        };
        let squares = (on_board ^ self.play.position.board().occupied()).with(second.to());
        self.turn
            .contacts
            .retain(|c| !(squares.contains(c.square) && c.piece.color == offender));
        self.emit(Effect::Claim {
            side,
            law: Law::Regence15,
            upheld: true,
        });
        if self
            .displacement
            .open
            .as_ref()
            .is_some_and(|d| d.side == offender)
        {
            return true;
        }
        self.displacement.knocked = Bitboard::EMPTY;
        self.clock.charge(Some(offender), self.now);
        self.displacement.open = Some(Displaced {
            side: offender,
            squares,
            used_before: self.clock.used(offender),
        });
        self.emit(Effect::Displaced {
            side: offender,
            squares: squares.into_iter().collect(),
        });
        true
    }

    /// The player having the move passes his turn (15ª: his opponent
    /// moved again): `passed` is the position after it, `legal` its legal
    /// moves. Recorded as a null move (`--`, `0000`) that counts for
    /// neither clock, so that the score reads as it was played.
    fn pass_turn(&mut self, passed: Chess, legal: Box<Legal>) {
        let side = self.play.position.turn();
        let number = self.play.position.fullmoves().get();
        self.play.history.push(Ply {
            mv: None,
            clock: self.play.turn_began,
        });
        self.play.position = passed;
        let old = std::mem::replace(&mut self.play.legal, legal);
        self.play.spare_legal = Some(old);
        self.play.keys.push(key(&self.play.position));
        self.emit(Effect::Move(CompletedMove {
            side,
            number,
            uci: notation::null_uci(),
            san: notation::san(SanPlus {
                san: San::Null,
                suffix: None,
            }),
            white_ms: self.clock.remaining(Color::White),
            black_ms: self.clock.remaining(Color::Black),
        }));
    }

    /// 20ª at `piece`'s release on `to`, lifted from `from`: the king of the
    /// player having the move (or of the player whose rook, set down first,
    /// made a rook's move he has not pressed), from its square onto the
    /// square castling on one side would put it, with that side's rook on
    /// its own square and castling there not allowed, touched without
    /// *compongo*: the turn records the touch to castle, which the press
    /// rules on.
    #[cold]
    #[inline(never)]
    pub(super) fn note_castling_touch(&mut self, from: Square, to: Square, piece: Piece) {
        let side = piece.color;
        // His turn's, or, the rook set down first as a rook's move (made
        // when released, 4.7), that of the move he has not pressed yet.
        let previous = match self.play.uncompleted.back() {
            _ if self.play.position.turn() == side => false,
            Some(last) if last.side == side && self.clock.running() == Some(side) => true,
            _ => return,
        };
        let (before, legal, turn) = match self.play.uncompleted.back() {
            Some(last) if previous => (&last.before, &*last.before_legal, &last.turn),
            _ => (&self.play.position, &*self.play.legal, &self.turn),
        };
        let back = side.fold_wb(Rank::First, Rank::Eighth);
        if turn.castling.is_some() || from != Square::from_coords(File::E, back) {
            return;
        }
        let Some(castling) = CastlingSide::ALL
            .into_iter()
            .find(|castling| castling.king_to(side) == to)
        else {
            return;
        };
        let rook = rook_home(castling, side);
        let board = before.board();
        if board.piece_at(from) != Some(piece)
            || board.piece_at(rook) != Some(Role::Rook.of(side))
            || legal
                .moves
                .iter()
                .any(|m| m.is_castle() && m.castling_side() == Some(castling))
        {
            return;
        }
        // Compongo said before the king was touched (the previous mover's
        // own pieces leave no contact: his turn's announcement counts).
        let compongo = turn
            .contacts
            .iter()
            .find(|c| c.square == from && c.piece == piece)
            .map_or(turn.adjusting, |c| c.adjusting);
        if compongo {
            return;
        }
        match self.play.uncompleted.back_mut() {
            Some(last) if previous => last.turn.castling = Some(rook),
            _ => self.turn.castling = Some(rook),
        }
    }

    /// 20ª when the player who touched his pieces to castle where castling
    /// is not allowed set them back and made another move (at `index`):
    /// it is completed, then the opponent chooses `king` or `rook` (each
    /// offered if it could move), which takes it back and binds him to
    /// move that piece. Whether the press was dealt with; without an
    /// option there is no penalty and the move is ruled as any other.
    fn castling_given_up(&mut self, side: Color, index: usize) -> bool {
        let made = &self.play.uncompleted[index];
        let Some(rook) = made.turn.castling else {
            return false;
        };
        self.king_or_rook(side, index, rook)
    }

    /// 20ª's choice for `side`'s opponent after the move at `index`, made
    /// with his pieces touched to castle with `rook`: `king` or `rook`,
    /// each offered if it could make a move other than castling from the
    /// position before it. Whether there was anything to choose.
    fn king_or_rook(&mut self, side: Color, index: usize, rook: Square) -> bool {
        let options = king_or_rook_options(&self.play.uncompleted[index].before_legal.moves, rook);
        if options.as_slice().is_empty() {
            return false;
        }
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        self.give_choice(side.other(), Law::Regence20, options, rook, rook, true);
        true
    }

    /// Whether a press by `side` is one the 1858 laws' penalties for a
    /// touched or misplayed piece may judge: those laws in force, nothing
    /// displaced being set back, `side` to move and no move of his made and
    /// not yet completed.
    fn regence_press_by_mover(&self, side: Color) -> bool {
        self.rules.laws == Laws::Regence1858
            && self.displacement.open.is_none()
            && self.play.position.turn() == side
            && !self.play.uncompleted.iter().any(|u| u.side == side)
    }

    /// 19ª–20ª "si en alguno de estos casos se toca pieza para enrocar, el
    /// adversario puede hacer mover el rey ó la torre, á no ser que hubiera
    /// dicho compongo": at `side`'s press, the board shows his king moved
    /// from its square two squares towards a rook on its own square, the
    /// rook left there or put beside the king, and castling on that side is
    /// not legal (the six cases today's rules forbid as well: the press
    /// showed no legal move). Nothing is completed (his clock runs on); the
    /// opponent chooses `king` or `rook`, which must be moved once the
    /// board is set back (not castling: 21ª). A king touched after
    /// `compongo` (the adjust button) is not touched to castle: the press
    /// is left to the rules of an illegal move. When neither piece can
    /// move no penalty can be given: the press is refused, without one.
    /// Whether the press was dealt with.
    #[cold]
    #[inline(never)]
    pub(super) fn castling_touched(&mut self, side: Color) -> bool {
        if !self.regence_press_by_mover(side) || self.displacement.knocked.any() {
            return false;
        }
        let board = self.play.position.board();
        let back = side.fold_wb(Rank::First, Rank::Eighth);
        let king = Square::from_coords(File::E, back);
        if board.piece_at(king) != Some(Role::King.of(side)) {
            return false;
        }
        let on_board = self.board.occupied();
        let changes = self.board.changes();
        let Some((castling, rook)) = CastlingSide::ALL.into_iter().find_map(|castling| {
            let rook = rook_home(castling, side);
            let (king_to, rook_to) = (castling.king_to(side), castling.rook_to(side));
            if board.piece_at(rook) != Some(Role::Rook.of(side))
                || board.occupied().contains(king_to)
            {
                return None;
            }
            let king_moved = board.occupied().without(king).with(king_to);
            let both_moved = king_moved.without(rook).with(rook_to);
            let shows = (on_board == king_moved
                || (!board.occupied().contains(rook_to)
                    && on_board == both_moved
                    && changes.lifted.contains(rook)))
                && changes.lifted.contains(king)
                && changes.placed.contains(king_to);
            shows.then_some((castling, rook))
        }) else {
            return false;
        };
        let legal = &self.play.legal.moves;
        if legal
            .iter()
            .any(|m| m.is_castle() && m.castling_side() == Some(castling))
        {
            return false;
        }
        // Compongo said before the king was touched: no touch to castle.
        let touched = self
            .turn
            .contacts
            .iter()
            .find(|c| c.square == king && c.piece == Role::King.of(side));
        if touched.is_none_or(|c| c.adjusting) {
            return false;
        }
        let options = king_or_rook_options(legal, rook);
        if options.as_slice().is_empty() {
            let restore = self.squares_to_restore();
            self.rule(
                side,
                Breach {
                    law: Law::Regence20,
                    detail: format!("Castling is not allowed here: restore {restore} and move"),
                },
                false,
            );
            return true;
        }
        self.give_choice(side.other(), Law::Regence20, options, rook, rook, false);
        true
    }

    /// 22ª "tocada pieza que deja en jaque al rey, se juega este; y si
    /// jugado este, dá en el jaque, se juega cualquiera": the first piece
    /// touched could not move without leaving the king in check, so the
    /// king must be played if he can move. Whether the press is refused.
    fn pinned_touch_refuses(&mut self, side: Color, index: usize) -> bool {
        let made = &self.play.uncompleted[index];
        let king_move = |m: &Move| m.role() == Role::King && !m.is_castle();
        if king_move(&made.mv)
            || !made.before_legal.moves.iter().any(king_move)
            || !pinned_first(&made.before, &made.before_legal, &made.turn.contacts)
        {
            return false;
        }
        self.rule(
            side,
            Breach {
                law: Law::Regence22,
                detail: "The touched piece cannot move without exposing the king: move the king"
                    .to_owned(),
            },
            false,
        );
        true
    }

    /// 9ª for an enemy piece that cannot be taken: the opponent may make
    /// the toucher play his king (Staunton's law IX: "if it cannot be
    /// legally taken, he may oblige him to move the King"), or leave it.
    /// The move at `index` obeyed article 4 and is not a king move. Whether
    /// the press was dealt with (completed, the choice given).
    fn untaken_touch(&mut self, side: Color, index: usize) -> bool {
        let made = &self.play.uncompleted[index];
        if made.mv.role() == Role::King {
            return false;
        }
        let us = made.before.turn();
        let Some(touched) = made.turn.contacts.iter().find(|c| {
            !c.adjusting
                && c.piece.color != us
                && made.before.board().piece_at(c.square) == Some(c.piece)
                && !made.before_legal.captures(c.square)
        }) else {
            return false;
        };
        let subject = touched.square;
        let king_can_move = made
            .before_legal
            .moves
            .iter()
            .any(|m| m.role() == Role::King && !m.is_castle());
        // A king that cannot move: no penalty can be inflicted.
        if !king_can_move {
            return false;
        }
        let options = ChoiceOptions::of(&[Choice::Leave, Choice::King], |_| true);
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        self.give_choice(side.other(), Law::Regence9, options, subject, subject, true);
        true
    }

    /// Waits for `chooser`'s choice among `options` under `law`;
    /// `completed` says whether the offence was completed as a move.
    fn give_choice(
        &mut self,
        chooser: Color,
        law: Law,
        options: ChoiceOptions,
        subject: Square,
        target: Square,
        completed: bool,
    ) {
        if self.result.is_some() {
            return;
        }
        self.obligations.choice = Some(Pending {
            chooser,
            law,
            options,
            subject,
            target,
            completed,
        });
        self.emit(Effect::Choice {
            side: chooser,
            law,
            options,
        });
    }

    /// A press on a board that shows a false move: one piece of `side`
    /// moved, against the rules of its kind, to an empty square or onto an
    /// enemy piece other than the king. Under `fide-2023-unsupervised` it
    /// stands until the opponent claims (A.5); under `regence-1858` it is
    /// completed and the opponent chooses (13ª). Whether it was handled;
    /// otherwise it is an illegal move as under `fide-2023`.
    #[cold]
    #[inline(never)]
    pub(super) fn false_move_pressed(&mut self, side: Color) -> bool {
        if self.rules.laws == Laws::Fide2023 {
            return false;
        }
        let Some(m) = self.false_move(side) else {
            return false;
        };
        // A game never ends on a false move (5.1.1: a mate counts only if
        // the move was legal): one that would mate, stalemate or leave a
        // dead position is an illegal move as under `fide-2023`.
        let mut after = self.play.position.clone();
        after.play_unchecked(m);
        if after.legal_moves().is_empty() || super::dead::is_dead(&after) {
            return false;
        }
        let from = m.from().unwrap_or(m.to());
        let elsewhere = self.play.legal.moves_from(from);
        // 12ª: a capture with a piece that cannot make it, when a piece
        // that can is there to make it.
        let capturable = m.is_capture() && self.play.legal.captures(m.to());
        let king_can_move = m.role() != Role::King
            && self
                .play
                .legal
                .moves
                .iter()
                .any(|l| l.role() == Role::King && !l.is_castle());
        self.make(m, self.board.changes());
        self.no_king_captures();
        if self.result.is_some() {
            return true;
        }
        let Some(index) = self.play.uncompleted.iter().position(|u| u.side == side) else {
            return true;
        };
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        match self.rules.laws {
            Laws::Fide2023Unsupervised => {
                self.obligations.claimable = Some(Claimable {
                    offender: side,
                    law: Law::IllegalMove,
                    turn: Turn::default(),
                });
            }
            _ if capturable => {
                let options = ChoiceOptions::of(&[Choice::Capture, Choice::Move], |c| {
                    c == Choice::Capture || elsewhere
                });
                self.give_choice(side.other(), Law::Regence12, options, from, m.to(), true);
            }
            _ => {
                // A false move that leaves its own king attacked cannot
                // stand: no move of the chooser could answer it.
                let board = self.play.position.board();
                let exposed = board
                    .king_of(side)
                    .is_some_and(|k| board.attacks_to(k, side.other(), board.occupied()).any());
                let stand = !exposed || !(elsewhere || king_can_move);
                let options = ChoiceOptions::of(
                    &[Choice::Stand, Choice::Elsewhere, Choice::King],
                    |c| match c {
                        Choice::Elsewhere => elsewhere,
                        Choice::King => king_can_move,
                        _ => stand,
                    },
                );
                self.give_choice(side.other(), Law::Regence13, options, from, from, true);
            }
        }
        true
    }

    /// 10ª "si uno juega pieza enemiga, es obligado, ó á tomarla ó á
    /// restituirla": at `side`'s press, the board shows an enemy piece he
    /// moved from one square to another, empty one, and nothing else
    /// changed. The press completes nothing (the piece is his displacement,
    /// 7.4.1, his clock runs) and the opponent chooses: `take` (put back,
    /// it must be captured) or `restore` (put back, any move). Whether the
    /// press was dealt with.
    #[cold]
    #[inline(never)]
    pub(super) fn enemy_piece_moved(&mut self, side: Color) -> bool {
        if self.rules.laws != Laws::Regence1858
            || self
                .displacement
                .open
                .as_ref()
                .is_none_or(|d| d.side != side)
        {
            return false;
        }
        let board = self.play.position.board();
        let mut from = None;
        let mut to = None;
        for sq in self.board.occupied() ^ board.occupied() {
            match (board.piece_at(sq), self.board.occupied().contains(sq)) {
                (Some(piece), false) if piece.color != side && from.is_none() => {
                    from = Some((sq, piece));
                }
                (None, true) if to.is_none() => to = Some(sq),
                _ => return false,
            }
        }
        let (Some((from, piece)), Some(to)) = (from, to) else {
            return false;
        };
        if self.board.piece_at(to).is_some_and(|p| p != piece) {
            return false;
        }
        let capturable = self.play.legal.captures(from);
        let options = ChoiceOptions::of(&[Choice::Take, Choice::Restore], |c| {
            c != Choice::Take || capturable
        });
        self.give_choice(side.other(), Law::Regence10, options, from, from, false);
        true
    }

    /// 11ª "si uno se toma á sí mismo, es obligado á jugar una de las dos
    /// piezas": at `side`'s press, his hand still holds one of his pieces,
    /// and the board shows one of his pieces gone from `first` and another
    /// of his squares, `second`, lifted and filled again: the one took the
    /// other. Nothing is completed (his clock runs); the opponent chooses
    /// which of the two he must play once the board is set right. Whether
    /// the press was dealt with.
    #[cold]
    #[inline(never)]
    pub(super) fn own_piece_taken(&mut self, side: Color) -> bool {
        if !self.regence_press_by_mover(side) {
            return false;
        }
        let board = self.play.position.board();
        let own = board.by_color(side);
        let gone = board.occupied() ^ self.board.occupied();
        let changes = self.board.changes();
        let refilled = changes.lifted & changes.placed & self.board.occupied() & own;
        let (Some(first), Some(second)) = (gone.single_square(), refilled.single_square()) else {
            return false;
        };
        if !own.contains(first) || !changes.lifted.contains(first) {
            return false;
        }
        let first_moves = self.play.legal.moves_from(first);
        let second_moves = self.play.legal.moves_from(second);
        let options = ChoiceOptions::of(&[Choice::First, Choice::Second], |c| match c {
            Choice::First => first_moves,
            _ => second_moves,
        });
        if options.as_slice().is_empty() {
            return false;
        }
        self.give_choice(side.other(), Law::Regence11, options, first, second, false);
        true
    }

    /// A false move that left its own king attacked lets shakmaty list
    /// the king's capture among the opponent's moves: no position follows
    /// it, so it is no move here (the opponent claims instead, A.5).
    pub(super) fn no_king_captures(&mut self) {
        self.play
            .legal
            .moves
            .retain(|m| m.capture() != Some(Role::King));
    }

    /// The false move the board shows, if it shows exactly one: a piece of
    /// `side` gone from one square and standing on another, which was empty
    /// or held an enemy piece other than the king; every other square as
    /// in the position, nothing displaced, and no pawn on its last rank
    /// (a promotion is no false move a clock can read).
    fn false_move(&self, side: Color) -> Option<Move> {
        if self.displacement.open.is_some() || self.displacement.knocked.any() {
            return None;
        }
        let board = self.play.position.board();
        let mut from = None;
        let mut to = None;
        let differ = (self.board.occupied() ^ board.occupied())
            | self.board.changes().placed
            | self.board.changes().lifted;
        for sq in differ {
            let now = self
                .board
                .occupied()
                .contains(sq)
                .then(|| self.board.piece_at(sq));
            let was = board.piece_at(sq);
            match (was, now) {
                (Some(a), Some(Some(b))) if a == b => {}
                (None, None) => {}
                (Some(piece), None) if piece.color == side && from.is_none() => {
                    from = Some((sq, piece));
                }
                (was, Some(Some(piece)))
                    if piece.color == side
                        && to.is_none()
                        && was.is_none_or(|w| w.color != side && w.role != Role::King) =>
                {
                    to = Some((sq, was));
                }
                _ => return None,
            }
        }
        let ((from, piece), (to, captured)) = (from?, to?);
        if self.board.piece_at(to) != Some(piece)
            || (piece.role == Role::Pawn && Bitboard::BACKRANKS.contains(to))
        {
            return None;
        }
        let m = Move::Normal {
            role: piece.role,
            from,
            capture: captured.map(|c| c.role),
            to,
            promotion: None,
        };
        (!self.play.legal.moves.contains(&m)).then_some(m)
    }
}

/// The square a rook castling on `castling` stands on at the start.
fn rook_home(castling: CastlingSide, side: Color) -> Square {
    let file = match castling {
        CastlingSide::KingSide => File::H,
        CastlingSide::QueenSide => File::A,
    };
    Square::from_coords(file, side.fold_wb(Rank::First, Rank::Eighth))
}

/// Whether the first piece the mover touched (with intent) is his own, not
/// the king, and could go somewhere by its kind's moves but has no legal
/// move: every move of it would leave his king in check (22ª).
fn pinned_first(before: &Chess, legal: &Legal, contacts: &[Contact]) -> bool {
    let us = before.turn();
    let board = before.board();
    let Some(first) = contacts
        .iter()
        .filter(|c| !c.adjusting && board.piece_at(c.square) == Some(c.piece))
        .min_by_key(|c| (c.at, c.piece.color != us))
    else {
        return false;
    };
    let piece = first.piece;
    if piece.color != us || piece.role == Role::King || legal.moves_from(first.square) {
        return false;
    }
    let occupied = board.occupied();
    let theirs = board.by_color(!us);
    match piece.role {
        Role::Pawn => {
            let captures = attacks(first.square, piece, occupied) & theirs;
            let ahead = first
                .square
                .offset(if us == Color::White { 8 } else { -8 })
                .filter(|sq| !occupied.contains(*sq));
            captures.any() || ahead.is_some()
        }
        _ => (attacks(first.square, piece, occupied) & !board.by_color(us)).any(),
    }
}

/// 20ª's options among the moves `legal`: `king` if the king can make a
/// move other than castling, `rook` if the rook on `rook` can.
fn king_or_rook_options(legal: &shakmaty::MoveList, rook: Square) -> ChoiceOptions {
    let king_can_move = legal
        .iter()
        .any(|m| m.role() == Role::King && !m.is_castle());
    let rook_can_move = legal
        .iter()
        .any(|m| m.from() == Some(rook) && !m.is_castle());
    ChoiceOptions::of(&[Choice::King, Choice::Rook], |c| match c {
        Choice::King => king_can_move,
        _ => rook_can_move,
    })
}

#[cfg(test)]
mod tests {
    //! The 1858 laws driven sans-IO: a fake clock advanced by hand, every
    //! effect asserted.

    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Color, Square};

    use crate::referee::{Choice, Effect, Input, Laws, Millis, Referee, Rules};

    const WHITE: Color = Color::White;
    const BLACK: Color = Color::Black;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    /// A 5-minute game under `regence-1858` from `fen`, Black's press at 0
    /// started.
    fn started(fen: &str) -> Referee {
        let start: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut referee = Referee::new(Rules {
            time_control: "300".parse().unwrap(),
            laws: Laws::Regence1858,
            start,
            ..Rules::default()
        });
        referee.handle(0, Input::Press(BLACK)).unwrap();
        assert_eq!(said(&mut referee), ["started white"]);
        referee
    }

    /// The effects since the last call, in a word each.
    fn said(referee: &mut Referee) -> Vec<String> {
        std::iter::from_fn(|| referee.poll_effect())
            .map(|(_, effect)| match effect {
                Effect::Started { side } => format!("started {side}"),
                Effect::Move(m) => {
                    format!("move {} {} {} {}", m.side, m.san, m.white_ms, m.black_ms)
                }
                Effect::Choice { side, law, options } => {
                    format!("choice {side} {law} {:?}", options.as_slice())
                }
                Effect::TakenBack { side, number, san } => {
                    format!("takeback {side} {number} {san}")
                }
                Effect::Violation(r) => format!("violation {} {} {}", r.side, r.law, r.detail),
                Effect::Result { outcome, reason } => format!("result {outcome:?} {reason:?}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// `side`'s piece lifted from `from` at `t` and put on `to` 200 ms later.
    fn shift(referee: &mut Referee, t: Millis, from: &str, to: &str) {
        referee.handle(t, Input::Lift(sq(from))).unwrap();
        referee.handle(t + 200, Input::Place(sq(to), None)).unwrap();
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn regence_15_undo_sets_the_second_move_back_on_its_movers_time() {
        let mut referee = started(START);
        shift(&mut referee, 1_000, "e2", "e4");
        shift(&mut referee, 2_000, "g1", "f3");
        referee.handle(3_000, Input::Press(WHITE)).unwrap();
        assert_eq!(
            said(&mut referee),
            [
                "move white e4 297000 300000",
                "move black -- 297000 300000",
                "move white Nf3 297000 300000",
                "choice black 1858.15 [Undo, Keep]",
            ]
        );
        assert_eq!(referee.ticking(), Some(BLACK));
        referee
            .handle(5_000, Input::Choose(BLACK, Choice::Undo))
            .unwrap();
        assert_eq!(
            said(&mut referee),
            ["takeback white 2 Nf3", "takeback black 1 --"]
        );
        // Black's two seconds of thought are given back; White's hands on
        // the board now cost White.
        assert_eq!(referee.remaining(BLACK, 5_000), 300_000);
        assert_eq!(referee.ticking(), Some(WHITE));
        referee.handle_timeout(6_000).unwrap();
        assert_eq!(referee.remaining(WHITE, 6_000), 296_000);
        shift(&mut referee, 6_000, "f3", "g1");
        assert_eq!(referee.ticking(), Some(BLACK));
        assert_eq!(referee.remaining(WHITE, 6_200), 295_800);
        shift(&mut referee, 7_000, "e7", "e5");
        referee.handle(8_000, Input::Press(BLACK)).unwrap();
        assert_eq!(said(&mut referee), ["move black e5 295800 298200"]);
        assert_eq!(referee.refused_choices(), 0);
    }

    #[test]
    fn regence_15_a_second_move_that_mates_ends_the_game_only_if_kept() {
        const SCHOLAR: &str = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 0 1";
        for (choice, ends) in [(Choice::Keep, true), (Choice::Undo, false)] {
            let mut referee = started(SCHOLAR);
            shift(&mut referee, 1_000, "a2", "a3");
            referee.handle(2_000, Input::Lift(sq("f7"))).unwrap();
            shift(&mut referee, 2_100, "h5", "f7");
            referee.handle(3_000, Input::Press(WHITE)).unwrap();
            assert_eq!(
                said(&mut referee),
                [
                    "move white a3 297000 300000",
                    "move black -- 297000 300000",
                    "move white Qxf7# 297000 300000",
                    "choice black 1858.15 [Undo, Keep]",
                ]
            );
            assert_eq!(referee.result(), None, "the mate waits for the choice");
            referee.handle(4_000, Input::Choose(BLACK, choice)).unwrap();
            let effects = said(&mut referee);
            if ends {
                assert_eq!(
                    effects,
                    [format!(
                        "result Decisive {{ winner: White }} {:?}",
                        crate::referee::Reason::Checkmate
                    )]
                );
            } else {
                assert_eq!(effects, ["takeback white 2 Qxf7#", "takeback black 1 --"]);
                assert_eq!(referee.result(), None);
            }
        }
    }

    #[test]
    fn regence_15_a_second_move_after_check_is_not_read_as_one() {
        // After Bb5+ Black's turn cannot pass (his king would stand in
        // check): nothing is read as a second move, the press completes
        // the check alone.
        let mut referee = started("4k3/4p3/8/8/8/8/4P3/4KB2 w - - 0 1");
        shift(&mut referee, 1_000, "f1", "b5");
        shift(&mut referee, 2_000, "e1", "d1");
        referee.handle(3_000, Input::Press(WHITE)).unwrap();
        let effects = said(&mut referee);
        assert!(
            effects
                .iter()
                .all(|e| !e.contains("1858.15") && !e.contains("--")),
            "{effects:?}"
        );
    }

    #[test]
    fn regence_20_the_chosen_piece_is_played_once_the_board_is_set_back() {
        // O-O-O across d1, which the rook on d8 attacks.
        let mut referee = started("3r2k1/8/8/8/8/8/8/R3K3 w Q - 0 1");
        shift(&mut referee, 1_000, "e1", "c1");
        shift(&mut referee, 1_400, "a1", "d1");
        referee.handle(2_000, Input::Press(WHITE)).unwrap();
        assert_eq!(said(&mut referee), ["choice black 1858.20 [King, Rook]"]);
        // Nothing completed: White's clock runs while Black chooses.
        assert_eq!(referee.ticking(), Some(WHITE));
        referee
            .handle(2_500, Input::Choose(WHITE, Choice::King))
            .unwrap();
        referee
            .handle(3_000, Input::Choose(BLACK, Choice::Rook))
            .unwrap();
        assert_eq!(referee.refused_choices(), 1);
        shift(&mut referee, 3_500, "d1", "a1");
        shift(&mut referee, 3_700, "c1", "e1");
        shift(&mut referee, 4_000, "e1", "e2");
        referee.handle(4_500, Input::Press(WHITE)).unwrap();
        assert_eq!(
            said(&mut referee),
            ["violation white 1858.20 Penalty: move the piece from a1"]
        );
        shift(&mut referee, 5_000, "e2", "e1");
        shift(&mut referee, 5_500, "a1", "a8");
        referee.handle(6_000, Input::Press(WHITE)).unwrap();
        assert_eq!(said(&mut referee), ["move white Ra8 294000 300000"]);
    }
}
