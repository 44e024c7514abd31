//! Play: moves made on the board (4.7), taken back or changed before the
//! press, completed (6.2.1) into the game's history, with the position's
//! repetition keys kept up.

use std::collections::VecDeque;

use shakmaty::attacks::attacks;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Position, Role,
};

use super::board::Changes;
use super::clock::TurnStart;
use super::effect::{CompletedMove, Effect};
use super::footprint::hands_needed;
use super::history::Ply;
use super::legal::Legal;
use super::touch::Turn;
use super::{Referee, notation};

/// The game on the board: the position, its legal moves, the moves made
/// and not completed, and the completed ones with their clocks.
#[derive(Debug, Clone)]
pub(super) struct Play {
    /// The position on the board: every move made, completed or not.
    pub(super) position: Chess,
    /// The legal moves of `position`, generated once when it changes: every
    /// event of a move asks for them, and generating them is most of the
    /// cost of a ply.
    pub(super) legal: Box<Legal>,
    /// A list of legal moves no position needs any more, for the next one:
    /// so that making a move does not allocate.
    pub(super) spare_legal: Option<Box<Legal>>,
    /// Repetition keys of every position since the start, the current last.
    pub(super) keys: Vec<Zobrist64>,
    /// Made moves not completed yet, oldest first: always the latest made.
    pub(super) uncompleted: VecDeque<Made>,
    /// Every completed move, for the arbiter's takeback.
    pub(super) history: Vec<Ply>,
    /// The clocks as they stood when the current turn began.
    pub(super) turn_began: TurnStart,
}

impl Play {
    /// A game at `position`, nothing made yet, the clocks at `clocks`.
    pub(super) fn new(position: Chess, clocks: TurnStart) -> Play {
        Play {
            keys: vec![key(&position)],
            legal: Legal::of(&position),
            spare_legal: None,
            position,
            uncompleted: VecDeque::new(),
            // Room for a long game's moves at once: one allocation, not
            // one each time a game outgrows the list.
            history: Vec::with_capacity(256),
            turn_began: clocks,
        }
    }

    /// The SAN suffix of the move that led to the position: `#` when the
    /// side to move is in `check` (as the caller already found: asking the
    /// position again looks for its king's attackers again) with no legal
    /// move, `+` in check.
    fn suffix(&self, check: bool) -> Option<Suffix> {
        debug_assert_eq!(check, self.position.is_check());
        match (check, self.legal.is_empty()) {
            (true, true) => Some(Suffix::Checkmate),
            (true, false) => Some(Suffix::Check),
            (false, _) => None,
        }
    }
}

/// A move made on the board and not yet completed by a press (6.2.1).
#[derive(Debug, Clone)]
pub(super) struct Made {
    pub(super) side: Color,
    pub(super) before: Chess,
    /// The legal moves of `before`, kept from when it was the position: a
    /// take-back, a changed move or the press needs them again.
    pub(super) before_legal: Box<Legal>,
    pub(super) mv: Move,
    pub(super) number: u32,
    /// Written out only when the move is completed: a move taken back never
    /// needs its text.
    pub(super) san: SanPlus,
    /// The mover's contacts and releases, checked when he presses.
    pub(super) turn: Turn,
    /// The squares his hands changed making it.
    pub(super) changes: Changes,
}

/// What completes a move made on the board (6.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Completion {
    /// Its mover's press: the increment, stage time, the opponent's clock.
    Press,
    /// Its mover's next move: it counts for the stages, with no increment.
    NextMove,
    /// The end of the game: it is recorded and counted, and earns nothing,
    /// stage time included, since no clock runs after it. A player whose
    /// flag fell before he pressed the last move of a stage did not reach
    /// the next stage.
    End,
}

impl Referee {
    /// Completes the uncompleted moves up to `index`, in game order; the last
    /// by its mover's press when `pressed`.
    pub(super) fn complete_through(&mut self, index: usize, pressed: bool) {
        let last = if pressed {
            Completion::Press
        } else {
            Completion::NextMove
        };
        self.complete_with(index, last);
    }

    /// Completes the uncompleted moves up to `index`, in game order: the
    /// last as `last` says, the ones before it by the moves made after them,
    /// or all by the end of the game.
    pub(super) fn complete_with(&mut self, index: usize, last: Completion) {
        for i in 0..=index {
            let Some(made) = self.play.uncompleted.pop_front() else {
                return;
            };
            self.play.history.push(Ply {
                mv: Some(made.mv),
                clock: self.play.turn_began,
            });
            self.obligations.claimable = None;
            if self.obligations.imposed == Some(made.side) {
                self.obligations.imposed = None;
                self.obligations.penalty = None;
            }
            match last {
                Completion::Press if i == index => {
                    self.clock.complete_by_press(made.side, self.now)
                }
                // Every move on the board when the game ends is completed
                // by the end: none was pressed.
                Completion::End => self.clock.count_final_move(made.side),
                _ => self.clock.count_move(made.side),
            }
            // The effect's text, written inline: no allocation.
            let uci = notation::uci(made.mv);
            let san = notation::san(made.san);
            self.recycle(made.turn);
            self.play.spare_legal = Some(made.before_legal);
            self.emit(Effect::Move(CompletedMove {
                side: made.side,
                number: made.number,
                uci,
                san,
                white_ms: self.clock.remaining(Color::White),
                black_ms: self.clock.remaining(Color::Black),
            }));
            // Last: copied whole straight after the clock's fields were
            // written one by one, the wide loads wait for the stores.
            self.play.turn_began = self.clock.turn_start();
        }
    }

    /// A move released on the board (4.7): it is made now, and it ends the
    /// game at once if the game is over (5.1.1, 5.2, 9.6).
    /// `changes` are the squares the hands changed making it.
    pub(super) fn make(&mut self, m: Move, changes: Changes) {
        let check = self.make_unended(m, changes);
        self.end_if_over(check);
    }

    /// [`Referee::make`] but for the end of the game, which the caller
    /// rules on (a second move in a row waits for the opponent's choice,
    /// 1858, 15ª). Whether the side to move is now in check.
    pub(super) fn make_unended(&mut self, m: Move, changes: Changes) -> bool {
        let side = self.play.position.turn();
        self.choice_lapses(side);
        // 6.2.1: making his next move completes a player's previous one.
        if let Some(index) = self.play.uncompleted.iter().position(|u| u.side == side) {
            self.complete_through(index, false);
        }
        // SAN from the legal moves already known, and its suffix from those
        // of the position after: what `SanPlus::from_move` finds by
        // generating both again on a copy.
        let san = San::disambiguate(m, self.san_rivals(m));
        let before = self.play.position.clone();
        self.play.position.play_unchecked(m);
        let mut next = self.play.spare_legal.take().unwrap_or_default();
        next.generate(&self.play.position);
        let before_legal = std::mem::replace(&mut self.play.legal, next);
        let check = self.play.position.is_check();
        let suffix = self.play.suffix(check);
        let moved = {
            let (lifted, placed) = hands_needed(m, side);
            lifted | placed
        };
        let before_key = self
            .play
            .keys
            .last()
            .copied()
            .unwrap_or_else(|| key(&before));
        self.play
            .keys
            .push(key_after(before_key, &before, &self.play.position, moved));
        self.knocked_off_past(moved);
        let keep = self.displaced() & !moved;
        self.board.sync_after(&self.play.position, moved, keep);
        self.promotion_choice = None;
        let turn = std::mem::replace(&mut self.turn, std::mem::take(&mut self.spare_turn));
        self.play.uncompleted.push_back(Made {
            side,
            number: before.fullmoves().get(),
            before,
            before_legal,
            mv: m,
            san: SanPlus { san, suffix },
            turn,
            changes,
        });
        check
    }

    /// The moves `San::disambiguate` must look at for `m` from the current
    /// position: none unless another piece of its kind attacks the square
    /// it goes to, and so might be a rival (its moves are searched then).
    pub(super) fn san_rivals(&self, m: Move) -> &MoveList {
        static NONE: MoveList = MoveList::new_const();
        match m {
            Move::Normal { role, from, to, .. } if role != Role::Pawn => {
                let board = self.play.position.board();
                let piece = role.of(self.play.position.turn());
                // A piece of the same kind on a square it attacks from `to`
                // attacks `to` (the attacks of a piece are symmetric).
                let others = board.by_piece(piece).without(from);
                if (attacks(to, piece, board.occupied()) & others).any() {
                    &self.play.legal.moves
                } else {
                    &NONE
                }
            }
            _ => &NONE,
        }
    }

    /// 4.4.4 on a board that does not identify pieces: the choice on the
    /// clock counts until the press, so a promotion made and not pressed
    /// becomes one to `role`. The board's own identity of the new piece,
    /// where it has one, is the choice and stands.
    pub(super) fn choose_again(&mut self, role: Role) {
        let Some(last) = self.play.uncompleted.back() else {
            return;
        };
        let side = last.side;
        if self.clock.running() != Some(side)
            || last.mv.promotion().is_none_or(|r| r == role)
            || self.board.sensed_at(last.mv.to()).is_some()
        {
            return;
        }
        let Some(m) = last.before_legal.moves.iter().copied().find(|m| {
            (m.from(), m.to()) == (last.mv.from(), last.mv.to()) && m.promotion() == Some(role)
        }) else {
            return;
        };
        // The same squares with another piece: the move is changed where
        // it stands, the board and the hands (perhaps in the middle of the
        // exchange) left as they are.
        let san = San::disambiguate(m, &last.before_legal.moves);
        let mut position = last.before.clone();
        position.play_unchecked(m);
        self.play.position = position;
        self.play.legal.generate(&self.play.position);
        // The opponent's releases were made against the other piece: those
        // no longer legal bind nothing.
        let legal = &self.play.legal;
        self.turn.releases.retain(|m| legal.contains(*m));
        let check = self.play.position.is_check();
        let suffix = self.play.suffix(check);
        self.play.keys.pop();
        self.play.keys.push(key(&self.play.position));
        self.board.identify(m.to(), role.of(side));
        let Some(last) = self.play.uncompleted.back_mut() else {
            return;
        };
        last.mv = m;
        last.san = SanPlus { san, suffix };
        self.end_if_over(check);
    }

    /// The last move made, not completed, is taken back: the board shows the
    /// position before it, and it is its mover's turn again, with his contacts.
    pub(super) fn take_back(&mut self) {
        if let Some(made) = self.play.uncompleted.pop_back() {
            self.play.keys.pop();
            self.play.position = made.before;
            let abandoned = std::mem::replace(&mut self.play.legal, made.before_legal);
            self.play.spare_legal = Some(abandoned);
            let abandoned = std::mem::replace(&mut self.turn, made.turn);
            self.recycle(abandoned);
            self.board
                .sync_keeping(&self.play.position, self.off_board());
        }
    }

    /// Keeps the lists of a turn that is over for the next one.
    #[inline]
    pub(super) fn recycle(&mut self, mut turn: Turn) {
        turn.clear();
        if turn.capacity() > self.spare_turn.capacity() {
            self.spare_turn = turn;
        }
    }
}

/// The promotion piece after `role` on the face's list: Q R B N, then Q again.
pub(super) fn next_promotion(role: Role) -> Role {
    match role {
        Role::Queen => Role::Rook,
        Role::Rook => Role::Bishop,
        Role::Bishop => Role::Knight,
        _ => Role::Queen,
    }
}

pub(super) fn key(position: &Chess) -> Zobrist64 {
    position.zobrist_hash(EnPassantMode::Legal)
}

/// The key of `after`, a move from `before` (whose key is `before_key`)
/// that changed no square outside `moved`: the pieces on those squares, the
/// turn, castling rights and en passant changed, nothing else, so only they
/// are hashed again, not the whole board.
fn key_after(before_key: Zobrist64, before: &Chess, after: &Chess, moved: Bitboard) -> Zobrist64 {
    let mut key = before_key;
    for sq in moved {
        if let Some(piece) = before.board().piece_at(sq) {
            key ^= Zobrist64::zobrist_for_piece(sq, piece);
        }
        if let Some(piece) = after.board().piece_at(sq) {
            key ^= Zobrist64::zobrist_for_piece(sq, piece);
        }
    }
    // The turn changed: one side's hash has the white-turn value.
    key ^= Zobrist64::zobrist_for_white_turn();
    let (was, is) = (before.castles(), after.castles());
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if was.has(color, side) != is.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side);
            }
        }
    }
    if let Some(sq) = before.ep_square(EnPassantMode::Legal) {
        key ^= Zobrist64::zobrist_for_en_passant_file(sq.file());
    }
    if let Some(sq) = after.ep_square(EnPassantMode::Legal) {
        key ^= Zobrist64::zobrist_for_en_passant_file(sq.file());
    }
    debug_assert_eq!(key, self::key(after), "the key of a position, kept up");
    key
}
