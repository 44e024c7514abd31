//! The referee: a sans-IO state machine that keeps time and rules on the Laws.
//!
//! Drive it with [`Referee::handle`] (an input at an instant) and
//! [`Referee::handle_timeout`] (time passing), then drain
//! [`Referee::poll_effect`]; [`Referee::next_deadline`] says when something
//! will happen by itself (a flag falls). It reads no clock and does no IO:
//! the same inputs at the same instants always give the same effects.

mod adjudication;
mod arbiter;
mod board;
mod choice;
mod claim;
mod clock;
mod dead;
mod effect;
mod footprint;
mod history;
mod input;
mod law;
mod laws;
mod legal;
mod notation;
mod rules;
mod time_control;
mod touch;

pub use adjudication::{Adjudication, ArbiterWords};
pub use choice::{Choice, ChoiceOptions, ParseChoiceError};
pub use effect::{CompletedMove, Effect, MoveText, Reason, Rejection, Ruling};
pub use input::Input;
pub use law::{Law, ParseLawError};
pub use rules::{Enforcement, GameMode, IncrementMode, Laws, Rules, UnknownKeyword};
pub use time_control::{ParseTimeControlError, Stage, TimeControl};

use std::collections::VecDeque;
use std::fmt;

use shakmaty::attacks::attacks;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, ByColor, CastlingSide, Chess, Color, EnPassantMode, KnownOutcome, Move, MoveList,
    Piece, Position, Role, Square,
};

use board::{Changes, PhysicalBoard};
use claim::Claimable;
use clock::{Clock, Snapshot};
use footprint::{hands_needed, occupancy_after, shows};
use history::Ply;
use legal::Legal;
use touch::{Breach, Contact, Turn};

/// Monotonic milliseconds since the session started.
pub type Millis = u64;

/// Presses of both levers this close together are one press: a palm on
/// the lever reaches both in the same instant, no hand presses twice so fast.
const ONE_PRESS_MS: Millis = 30;

/// An input stamped earlier than one already handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWentBackwards {
    /// The latest instant already handled.
    pub last: Millis,
    /// The instant given.
    pub now: Millis,
}

impl fmt::Display for TimeWentBackwards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "time went backwards: {} ms after {} ms",
            self.now, self.last
        )
    }
}

impl std::error::Error for TimeWentBackwards {}

/// A move made on the board and not yet completed by a press (6.2.1).
#[derive(Debug, Clone)]
struct Made {
    side: Color,
    before: Chess,
    /// The legal moves of `before`, kept from when it was the position: a
    /// take-back, a changed move or the press needs them again.
    before_legal: Box<Legal>,
    mv: Move,
    number: u32,
    /// Written out only when the move is completed: a move taken back never
    /// needs its text.
    san: SanPlus,
    /// The mover's contacts and releases, checked when he presses.
    turn: Turn,
    /// The squares his hands changed making it.
    changes: Changes,
}

/// What completes a move made on the board (6.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Completion {
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

/// Pieces displaced and not yet re-established (7.4.1).
#[derive(Debug, Clone)]
struct Displacement {
    side: Color,
    squares: Bitboard,
    used_before: u64,
}

impl Referee {
    /// The squares of pieces displaced and not yet re-established: a move
    /// is read from the rest of the board (7.4.1 is its own matter, not a
    /// part of anyone's move).
    fn displaced(&self) -> Bitboard {
        self.displacement
            .as_ref()
            .map_or(Bitboard::EMPTY, |d| d.squares)
    }

    /// The squares no move is read from: those displaced, and those the
    /// presser's knocked pieces left empty (the player having the move may
    /// capture there, or make another move meanwhile).
    fn off_board(&self) -> Bitboard {
        self.displaced() | (self.knocked & !self.board.occupied())
    }

    /// When a move is made: pieces knocked off by the player who pressed
    /// that the move did not capture are his displacement (7.4.1), charged
    /// to him until he re-establishes them.
    fn knocked_off_past(&mut self, moved: Bitboard) {
        let lost = self.knocked & !self.board.occupied() & !moved;
        self.knocked = Bitboard::EMPTY;
        let Some((_, presser)) = self.last_press else {
            return;
        };
        if lost.is_empty() {
            return;
        }
        match &mut self.displacement {
            Some(displacement) => displacement.squares |= lost,
            None => {
                // His since the knock: the time the mover's clock ran for
                // it goes back to the mover.
                let used_before = self.clock.used(presser);
                self.charge_knock_back(presser);
                self.clock.charge(Some(presser), self.now);
                self.displacement = Some(Displacement {
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
    fn charge_knock_back(&mut self, presser: Color) {
        let mover = presser.other();
        let ms = self.now.saturating_sub(self.knocked_at);
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
    fn knock_restored(&mut self) {
        let Some((_, presser)) = self.last_press else {
            return;
        };
        let knocked = std::mem::take(&mut self.knocked);
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
        self.board.reestablished(&self.position, knocked);
        let used_before = self.clock.used(presser);
        self.charge_knock_back(presser);
        let ms = self.clock.used(presser) - used_before;
        self.emit(Effect::Restored { side: presser, ms });
    }

    /// Whether `color`'s hands still hold a piece of his: not the pieces
    /// displaced (they are off the board, not in a hand making a move), nor
    /// a pawn taken off after its promotion piece was put down (4.6, 4.7).
    #[inline]
    fn hands_full(&self, color: Color) -> bool {
        if !self.board.holds(color) {
            return false;
        }
        let mut gone = self.displaced();
        // A promotion's new piece put down: its pawn is gone, not in hand.
        // Only the back ranks can hold one, so most calls look at no move.
        let put_down = self.board.changes().placed & self.board.occupied() & Bitboard::BACKRANKS;
        if self.position.turn() == color && put_down.any() {
            for m in &self.legal.moves {
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

    /// Whether lifting `piece` is a knock by the player who just pressed:
    /// his own piece, inside the knock window after his press, while his
    /// opponent has the move. It is his displacement, never his opponent's
    /// touch (4.3.2): one event is not both.
    fn is_knock(&self, piece: Piece) -> bool {
        let us = self.position.turn();
        matches!(self.last_press, Some((at, presser))
            if self.now - at <= self.rules.knock_window_ms
                && piece.color == presser
                && us != presser
                && self.clock.running() == Some(us)
                // Once the player having the move has begun his move with
                // his own pieces, the pieces he lifts are his move's.
                && !self.turn.contacts.iter().any(|c| c.piece.color == us))
    }
}

/// The rules core: one game, from the first press to the result.
#[derive(Debug, Clone)]
pub struct Referee {
    rules: Rules,
    now: Millis,
    clock: Clock,
    board: PhysicalBoard,
    /// The position on the board: every move made, completed or not.
    position: Chess,
    /// The legal moves of `position`, generated once when it changes: every
    /// event of a move asks for them, and generating them is most of the
    /// cost of a ply.
    legal: Box<Legal>,
    /// A list of legal moves no position needs any more, for the next one:
    /// so that making a move does not allocate.
    spare_legal: Option<Box<Legal>>,
    /// Repetition keys of every position since the start, the current last.
    keys: Vec<Zobrist64>,
    /// Made moves not completed yet, oldest first: always the latest made.
    uncompleted: VecDeque<Made>,
    /// What the player having the move on the board has done this turn.
    turn: Turn,
    /// An empty turn whose lists keep their capacity, the next `turn`: so
    /// that recording contacts does not allocate every move.
    spare_turn: Turn,
    promotion_choice: Option<Role>,
    started: bool,
    result: Option<(KnownOutcome, Reason)>,
    illegal_moves: ByColor<u8>,
    draw_offer: Option<Color>,
    displacement: Option<Displacement>,
    /// Squares the presser's pieces were knocked off (see `is_knock`).
    knocked: Bitboard,
    /// When the first of them was.
    knocked_at: Millis,
    last_press: Option<(Millis, Color)>,
    /// Each player's last release of one of his pieces (6.2.3 times a
    /// press from the presser's own release, not the opponent's).
    last_release: ByColor<Option<Millis>>,
    contradictions: u64,
    refused_corrections: u64,
    effects: VecDeque<(Millis, Effect)>,
    /// Every completed move, for the arbiter's takeback.
    history: Vec<Ply>,
    /// The clocks as they stood when the current turn began.
    turn_began: Snapshot,
    /// A takeback left the board showing more than the position: its
    /// changes are the restorer's until it shows the position again.
    restoring: bool,
    /// A move against article 4 the opponent may still claim (4.8).
    claimable: Option<Claimable>,
    /// The player on whom an upheld claim imposed an obligation: enforced
    /// strictly until he completes a move.
    imposed: Option<Color>,
    /// A choice the laws give a player, waited for (`regence-1858`).
    choice: Option<laws::Pending>,
    /// The penalty the chooser imposed, with its law: binds `imposed`.
    penalty: Option<(laws::Penalty, Law)>,
    /// `Input::Choose` answers dropped.
    refused_choices: u64,
}

impl Referee {
    /// The most main time an arbiter may set (a week, as the longest stage
    /// of a time control): anything more is a slip of the finger.
    pub const MAX_SET_TIME_MS: u64 = 7 * 24 * 3_600_000;
    /// The most completed moves an arbiter may set: more than any game can
    /// last under the 75-move rule.
    pub const MAX_SET_MOVES: u32 = 10_000;

    /// A referee for a game under these rules, before the first press.
    ///
    /// A starting position in which the game is already over (the side to
    /// move is mated or stalemated, the position is dead, or 75 moves have
    /// passed without a capture or a pawn move) ends the game at once, at
    /// instant 0, before any press: its clocks never run.
    pub fn new(rules: Rules) -> Referee {
        let mut referee = Referee::before_start(rules);
        if let Some((outcome, reason)) = referee.ending(referee.position.is_check()) {
            referee.finish(outcome, reason);
        }
        referee
    }

    fn before_start(rules: Rules) -> Referee {
        let position = rules.start.clone();
        let clock = Clock::new(
            ByColor::new_with(|side| rules.time_control_of(side).clone()),
            rules.increment_mode,
        );
        Referee {
            turn_began: clock.snapshot(),
            clock,
            board: PhysicalBoard::new(&position),
            keys: vec![key(&position)],
            legal: Legal::of(&position),
            spare_legal: None,
            position,
            rules,
            now: 0,
            uncompleted: VecDeque::new(),
            turn: Turn::default(),
            spare_turn: Turn::default(),
            promotion_choice: None,
            started: false,
            result: None,
            illegal_moves: ByColor::new_with(|_| 0),
            draw_offer: None,
            displacement: None,
            knocked: Bitboard::EMPTY,
            knocked_at: 0,
            last_press: None,
            last_release: ByColor::new_with(|_| None),
            contradictions: 0,
            refused_corrections: 0,
            effects: VecDeque::new(),
            // Room for a long game's moves at once: one allocation, not
            // one each time a game outgrows the list.
            history: Vec::with_capacity(256),
            restoring: false,
            claimable: None,
            imposed: None,
            choice: None,
            penalty: None,
            refused_choices: 0,
        }
    }

    /// The rules of this game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The position on the board: every move made so far, completed or not.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// The pieces as the sensors last showed them: the position's, less
    /// those lifted and not put down, plus those set down mid-move (where
    /// the referee knows which). A board model restored mid-move starts
    /// from this, as the real board stays when the clock loses power.
    pub fn physical_board(&self) -> shakmaty::Board {
        let mut board = shakmaty::Board::empty();
        for sq in self.board.occupied() {
            if let Some(piece) = self.board.piece_at(sq) {
                board.set_piece_at(sq, piece);
            }
        }
        board
    }

    /// Time left for `side` at `now` (at least the last instant handled).
    pub fn remaining(&self, side: Color, now: Millis) -> u64 {
        self.clock.remaining_at(side, now.max(self.now))
    }

    /// Whose time is going down: the running clock, or the player charged
    /// for displaced pieces. `None` before the start, when paused or over.
    pub fn ticking(&self) -> Option<Color> {
        self.clock.ticking()
    }

    /// Whether the arbiter has paused the clock.
    pub fn is_paused(&self) -> bool {
        self.clock.is_paused()
    }

    /// Moves `side` has completed.
    pub fn moves_completed(&self, side: Color) -> u32 {
        self.clock.completed(side)
    }

    /// The stage of the time control `side` is playing in, from 0.
    pub fn stage(&self, side: Color) -> usize {
        self.clock.stage_index(side)
    }

    /// Whether `side`'s clock runs for a move he has made on the board and
    /// not completed: his press would complete it (6.2.1).
    pub fn awaits_press(&self, side: Color) -> bool {
        self.clock.running() == Some(side) && self.uncompleted.iter().any(|u| u.side == side)
    }

    /// The side whose draw offer stands, if any.
    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }

    /// A promotion the clock chooses the piece of (4.4.4): the player whose
    /// clock runs, and the piece he has now, while his pawn stands on the
    /// last rank as a move not yet pressed, or is off the board with a
    /// square it promotes on empty, on a board that does not identify the
    /// new piece. `None` otherwise: then there is nothing to choose.
    pub fn promotion_pending(&self) -> Option<(Color, Role)> {
        let side = self.clock.running()?;
        if self.result.is_some() || self.clock.is_paused() {
            return None;
        }
        if let Some(last) = self.uncompleted.back() {
            if last.side != side {
                return None;
            }
            let role = last.mv.promotion()?;
            return self
                .board
                .sensed_at(last.mv.to())
                .is_none()
                .then_some((side, role));
        }
        if self.position.turn() != side {
            return None;
        }
        let on_board = self.board.occupied();
        let lifted = self.board.changes().lifted & !on_board;
        let waiting = self.legal.moves.iter().any(|m| {
            m.is_promotion()
                && m.from().is_some_and(|from| lifted.contains(from))
                && !on_board.contains(m.to())
        });
        waiting.then_some((side, self.promotion_choice.unwrap_or(Role::Queen)))
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<(KnownOutcome, Reason)> {
        self.result
    }

    /// Sensor events dropped because they contradicted the board.
    pub fn contradictions(&self) -> u64 {
        self.contradictions
    }

    /// Arbiter's corrections dropped: given while the clock ran, after the
    /// game was over, or beyond [`Referee::MAX_SET_TIME_MS`] or
    /// [`Referee::MAX_SET_MOVES`].
    pub fn refused_corrections(&self) -> u64 {
        self.refused_corrections
    }

    /// Handles one input at `now`, after everything due before it.
    pub fn handle(&mut self, now: Millis, input: Input) -> Result<(), TimeWentBackwards> {
        self.handle_timeout(now)?;
        if self.result.is_some() {
            if matches!(
                input,
                Input::SetTime(..)
                    | Input::SetMoves(..)
                    | Input::Waive
                    | Input::TakeBack
                    | Input::Adjudicate(_)
            ) {
                self.refused_corrections += 1;
            }
            return Ok(());
        }
        match input {
            Input::Press(side) => self.press(side),
            Input::Lift(sq) => self.lift(sq),
            Input::Place(sq, piece) => self.place(sq, piece),
            Input::Touch(sq) => {
                if let Some(piece) = self.board.piece_at(sq) {
                    self.contact(sq, piece);
                }
            }
            Input::Untouch(_) => {}
            Input::Adjust(side) => match self.promotion_pending() {
                // 4.4.4: while his promotion waits for its piece, the
                // player's adjust button chooses it, Q R B N in turn.
                Some((chooser, role)) if chooser == side => {
                    let role = next_promotion(role);
                    self.promotion_choice = Some(role);
                    self.choose_again(role);
                }
                _ => self.adjust(side),
            },
            Input::Draw(side) => self.draw(side),
            Input::Decline(side) => {
                if self.draw_offer == Some(side.other()) {
                    self.draw_offer = None;
                    self.emit(Effect::DrawDeclined {
                        side: side.other(),
                        how: Rejection::Spoken,
                    });
                }
            }
            Input::Promote(role) => {
                if !matches!(role, Role::Pawn | Role::King) {
                    self.promotion_choice = Some(role);
                    self.choose_again(role);
                }
            }
            Input::Pause => {
                if self.started && !self.clock.is_paused() {
                    self.clock.pause(now);
                    self.emit(Effect::Paused);
                }
            }
            Input::Resume => {
                if self.clock.is_paused() {
                    // A pause (a power cut's, too, whose time is charged to
                    // nobody) parts what came before from what comes after:
                    // no press after it is one with a press before it, nor
                    // hasty after a release before it (6.2.3, 6.2.4).
                    self.last_press = None;
                    self.last_release = Default::default();
                    self.clock.resume(now);
                    self.emit(Effect::Resumed);
                }
            }
            Input::SetTime(side, ms) => {
                if self.clock.is_paused() && ms <= Self::MAX_SET_TIME_MS {
                    self.clock.set_remaining(side, ms, now);
                    self.corrected(side);
                } else {
                    self.refused_corrections += 1;
                }
            }
            Input::SetMoves(side, completed) => {
                if self.clock.is_paused() && completed <= Self::MAX_SET_MOVES {
                    self.clock.set_completed(side, completed);
                    self.corrected(side);
                } else {
                    self.refused_corrections += 1;
                }
            }
            Input::Waive => self.waive(),
            Input::TakeBack => {
                if self.started {
                    self.arbiter_take_back();
                } else {
                    self.refused_corrections += 1;
                }
            }
            Input::Adjudicate(adjudication) => self.adjudicate(adjudication),
            Input::Claim(side) => self.claim(side),
            Input::Choose(side, option) => self.choose(side, option),
            Input::Resign(side) => self.finish(
                KnownOutcome::Decisive {
                    winner: side.other(),
                },
                Reason::Resignation,
            ),
        }
        Ok(())
    }

    /// Lets time pass until `now`: a flag due by then falls at its own instant.
    pub fn handle_timeout(&mut self, now: Millis) -> Result<(), TimeWentBackwards> {
        if now < self.now {
            return Err(TimeWentBackwards {
                last: self.now,
                now,
            });
        }
        if self.result.is_none()
            && let Some(deadline) = self.clock.deadline()
            && deadline <= now
            && let Some(side) = self.clock.ticking()
        {
            self.now = deadline;
            self.clock.advance(deadline);
            self.emit(Effect::Flag { side });
            // 6.9: a draw when the opponent could not mate by any series of legal moves.
            match self.loss_for(side) {
                KnownOutcome::Draw => {
                    self.finish(KnownOutcome::Draw, Reason::TimeoutVsInsufficientMaterial)
                }
                outcome => self.finish(outcome, Reason::Timeout),
            }
        }
        self.now = now;
        self.clock.advance(now);
        Ok(())
    }

    /// The next effect decided, with the instant it happened.
    pub fn poll_effect(&mut self) -> Option<(Millis, Effect)> {
        self.effects.pop_front()
    }

    /// When something will happen with no further input, if anything will.
    pub fn next_deadline(&self) -> Option<Millis> {
        if self.result.is_some() {
            return None;
        }
        self.clock.deadline()
    }

    /// The result when `side` loses by time or illegal moves: a draw if the
    /// opponent could not mate by any series of legal moves (6.9, 7.5.5).
    fn loss_for(&self, side: Color) -> KnownOutcome {
        if dead::cannot_mate(&self.position, side.other()) {
            KnownOutcome::Draw
        } else {
            KnownOutcome::Decisive {
                winner: side.other(),
            }
        }
    }

    /// Reports `side`'s clock as the arbiter's correction left it.
    fn corrected(&mut self, side: Color) {
        self.emit(Effect::Corrected {
            side,
            ms: self.clock.remaining(side),
            completed: self.clock.completed(side),
        });
    }

    fn emit(&mut self, effect: Effect) {
        self.effects.push_back((self.now, effect));
    }

    fn rule(&mut self, side: Color, breach: Breach, warning: bool) {
        let ruling = Ruling {
            side,
            law: breach.law,
            detail: breach.detail,
        };
        self.emit(if warning {
            Effect::Warning(ruling)
        } else {
            Effect::Violation(ruling)
        });
    }

    // --- The levers -------------------------------------------------------

    fn press(&mut self, side: Color) {
        let now = self.now;
        if !self.started {
            // The first press, by the side not to move, starts the other clock.
            let to_move = self.rules.start.turn();
            if side != to_move {
                // The game starts now: contacts while setting up oblige nothing.
                self.turn.clear();
                self.started = true;
                self.clock.start(to_move, now);
                self.turn_began = self.clock.snapshot();
                self.last_press = Some((now, side));
                self.emit(Effect::Started { side: to_move });
            }
            return;
        }
        // A palm on both levers: the other lever in the same instant is
        // part of the press just made, not a press of its own (7.5.3).
        if let Some((at, presser)) = self.last_press
            && presser != side
            && now - at <= ONE_PRESS_MS
        {
            return;
        }
        // While the board is set back after a takeback, no press counts.
        if self.clock.running() != Some(side) || self.clock.is_paused() || self.restoring {
            return;
        }
        self.last_press = Some((now, side));
        let strict = self.rules.enforcement == Enforcement::Strict;
        if self.hands_full(side) {
            // A legal move on the board but for his own pieces off their
            // squares: those are displaced (7.4), not a piece in his hand.
            if self.position.turn() == side
                && self.uncompleted.iter().all(|u| u.side != side)
                && self.move_with_own_pieces_off(side).is_some()
            {
                self.press_without_move(side);
                return;
            }
            // 1858, 11ª: one of his pieces took another of his.
            if self.rules.laws == Laws::Regence1858 && self.own_piece_taken(side) {
                return;
            }
            self.rule(
                side,
                Breach {
                    law: Law::PressHand,
                    detail: "Let go of the piece before pressing".to_owned(),
                },
                false,
            );
            if strict {
                return;
            }
        }
        let Some(index) = self.uncompleted.iter().position(|u| u.side == side) else {
            self.press_without_move(side);
            return;
        };
        // 7.4: his own displaced pieces not re-established. No illegal
        // move (7.5), no penalty: the press waits for the board.
        if let Some(displacement) = &self.displacement
            && displacement.side == side
        {
            self.restore_before_pressing(side, displacement.squares);
            if strict {
                return;
            }
        }
        if self.penalty_refuses(side, index) {
            return;
        }
        let made = &self.uncompleted[index];
        let mut claimable = None;
        let breach = touch::check(&made.before, &made.before_legal, &made.turn, made.mv).err();
        let breached = breach.is_some();
        if let Some(breach) = breach {
            // 4.8: in claim mode the move stands until the opponent claims;
            // an obligation an upheld claim imposed is enforced. Without
            // adequate supervision (A.5) article 4 is only ruled on a claim,
            // and nothing is shown until then.
            let imposed = self.imposed == Some(side);
            let unsupervised = self.rules.laws == Laws::Fide2023Unsupervised;
            if (self.rules.enforcement == Enforcement::Claim || unsupervised) && !imposed {
                claimable = Some(Claimable {
                    offender: side,
                    law: breach.law,
                    turn: made.turn.clone(),
                });
            }
            let Some(breach) = self.profile_breach(side, index, breach) else {
                return;
            };
            if !unsupervised || imposed {
                self.rule(side, breach, false);
            }
            if (strict && !unsupervised) || imposed {
                return;
            }
        }
        // 1858: castling with the rook attacked (19ª), an enemy piece
        // touched that could not be taken (9ª).
        if !breached && self.rules.laws == Laws::Regence1858 && self.regence_press(side, index) {
            return;
        }
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        // A game-ending move that broke article 4 did not end the game when
        // it was made: completed now, it does.
        if breached && self.uncompleted.is_empty() {
            self.end_if_over(self.position.is_check());
        }
        if self.result.is_none() {
            self.claimable = claimable;
        }
    }

    /// 6.2.3: a press too soon after a release was made with the other hand.
    fn warn_if_hasty(&mut self, side: Color) {
        if let Some(released) = *self.last_release.get(side) {
            let gap = self.now - released;
            if gap < self.rules.min_press_gap_ms {
                self.rule(
                    side,
                    Breach {
                        law: Law::PressHand,
                        detail: format!(
                            "Pressed {gap} ms after releasing: press with the hand that moved"
                        ),
                    },
                    true,
                );
            }
        }
    }

    /// A press by the player whose clock runs when he has made no move on the board.
    fn press_without_move(&mut self, side: Color) {
        // 1858, 10ª: an enemy piece moved, for the opponent to judge; 20ª:
        // the pieces touched to castle where castling is not allowed.
        if self.rules.laws == Laws::Regence1858
            && (self.enemy_piece_moved(side) || self.castling_touched(side))
        {
            return;
        }
        let mask = self.off_board();
        let on_board = self.board.occupied() & !mask;
        if self.position.turn() == side {
            if on_board == self.position.board().occupied() & !mask {
                self.illegal(
                    side,
                    Law::NoMove,
                    "Pressed without making a move".to_owned(),
                );
                return;
            }
            // 7.5.2: a pawn on the last rank that the board says was not exchanged.
            let unpromoted = self
                .matching_moves(&self.position, &self.legal, self.board.changes())
                .find(|m| {
                    m.promotion() == Some(Role::Queen)
                        && self
                            .board
                            .sensed_at(m.to())
                            .is_some_and(|p| p.role == Role::Pawn)
                });
            if let Some(m) = unpromoted {
                self.illegal(
                    side,
                    Law::Unpromoted,
                    "Pawn not promoted: it becomes a queen".to_owned(),
                );
                if self.result.is_none() {
                    self.make(m, self.board.changes());
                    if self.result.is_none()
                        && let Some(index) = self.uncompleted.iter().position(|u| u.side == side)
                    {
                        self.complete_through(index, true);
                    }
                }
                return;
            }
            // 7.4, not 7.5: a legal move with some of his own pieces off
            // their squares (knocked off by the hand that moved). The press
            // waits for the board, with no penalty.
            if let Some(off) = self.move_with_own_pieces_off(side) {
                self.restore_before_pressing(side, off);
                return;
            }
        }
        // The profiles' false moves: they stand until claimed (A.5), or the
        // opponent chooses (1858, 13ª).
        if self.false_move_pressed(side) {
            return;
        }
        let restore = self.squares_to_restore();
        self.illegal(
            side,
            Law::IllegalMove,
            format!("Illegal move: restore {restore} and make a legal move"),
        );
    }

    /// 7.4.1: `side` pressed with his own pieces off `squares`: a ruling
    /// without penalty, and no count toward 7.5.5.
    fn restore_before_pressing(&mut self, side: Color, squares: Bitboard) {
        let squares = restore_list(squares);
        self.rule(
            side,
            Breach {
                law: Law::Displaced,
                detail: format!("Restore {squares} before pressing"),
            },
            false,
        );
    }

    /// The squares of `side`'s own pieces missing from a board that shows
    /// one of his legal moves otherwise, made by hands that lifted and
    /// placed what it needs: pieces displaced while moving (7.4.1).
    fn move_with_own_pieces_off(&self, side: Color) -> Option<Bitboard> {
        let mask = self.off_board();
        let occupied = self.position.board().occupied();
        let own = self.position.board().by_color(side);
        let on_board = self.board.occupied() & !mask;
        let changes = self.board.changes();
        self.legal.moves.iter().find_map(|m| {
            let (lifted, placed) = hands_needed(*m, side);
            let after = occupancy_after(occupied, *m, side) & !mask;
            let off = after & !on_board;
            let fits = (on_board & !after).is_empty()
                && off.any()
                && own.is_superset(off)
                && (off & (lifted | placed)).is_empty()
                && changes.lifted.is_superset(lifted | off)
                && changes.placed.is_superset(placed);
            fits.then_some(off)
        })
    }

    fn squares_to_restore(&self) -> String {
        let diff = self.board.occupied() ^ self.position.board().occupied();
        let names: Vec<String> = diff.into_iter().map(|sq| sq.to_string()).collect();
        if names.is_empty() {
            "the position".to_owned()
        } else {
            names.join(" ")
        }
    }

    /// 7.5.1–7.5.5: a completed illegal move. The press is refused; the
    /// opponent gets the penalty time, and a second one loses.
    fn illegal(&mut self, side: Color, law: Law, detail: String) {
        self.rule(side, Breach { law, detail }, false);
        if self.rules.enforcement == Enforcement::Record {
            return;
        }
        let count = self.illegal_moves.get_mut(side);
        *count += 1;
        if *count >= 2 {
            self.finish(self.loss_for(side), Reason::IllegalMoves);
            return;
        }
        let ms = self.rules.mode.penalty_ms();
        self.clock.add(side.other(), ms, self.now);
        self.emit(Effect::TimeAdded {
            side: side.other(),
            ms,
            law: Law::IllegalMovePenalty,
        });
    }

    /// Completes the uncompleted moves up to `index`, in game order; the last
    /// by its mover's press when `pressed`.
    fn complete_through(&mut self, index: usize, pressed: bool) {
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
    fn complete_with(&mut self, index: usize, last: Completion) {
        for i in 0..=index {
            let Some(made) = self.uncompleted.pop_front() else {
                return;
            };
            self.history.push(Ply {
                mv: Some(made.mv),
                clock: self.turn_began,
            });
            self.claimable = None;
            if self.imposed == Some(made.side) {
                self.imposed = None;
                self.penalty = None;
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
            self.turn_began = self.clock.snapshot();
            // The effect's text, written inline: no allocation.
            let uci = notation::uci(made.mv);
            let san = notation::san(made.san);
            self.recycle(made.turn);
            self.spare_legal = Some(made.before_legal);
            self.emit(Effect::Move(CompletedMove {
                side: made.side,
                number: made.number,
                uci,
                san,
                white_ms: self.clock.remaining(Color::White),
                black_ms: self.clock.remaining(Color::Black),
            }));
        }
    }

    // --- The board --------------------------------------------------------

    fn lift(&mut self, sq: Square) {
        if self.restoring {
            match self.board.lift(sq) {
                Ok(_) => self.review_restoring(),
                Err(_) => self.contradictions += 1,
            }
            return;
        }
        match self.board.lift(sq) {
            Ok(Some(piece)) if self.is_knock(piece) => {
                if self.knocked.is_empty() {
                    self.knocked_at = self.now;
                }
                self.knocked.add(sq);
            }
            // The displacer taking up a piece he displaced is re-establishing
            // it (7.4.1), not touching it with intent to move (4.2.2). In his
            // own turn he may put it straight on a square its own square's
            // piece can go to: that is his move (4.7), from its own square.
            Ok(Some(piece))
                if self
                    .displacement
                    .as_ref()
                    .is_some_and(|d| d.side == piece.color && d.squares.contains(sq)) =>
            {
                if self.position.turn() == piece.color {
                    let home = self.displaced()
                        & !self.board.occupied()
                        & self.position.board().by_piece(piece);
                    self.board.lifted_from(home);
                }
            }
            Ok(Some(piece)) => self.contact(sq, piece),
            Ok(None) => {}
            Err(_) => {
                self.contradictions += 1;
                return;
            }
        }
        self.review_board();
    }

    fn place(&mut self, sq: Square, identity: Option<Piece>) {
        let mover = self.position.turn();
        // Under the 1858 laws a player may capture with his second move of
        // two, while his opponent has the move: the capturer is told from
        // the captured piece by the square, not by whose turn it is.
        let capturer = self.rules.laws == Laws::Regence1858;
        let taken = match self.board.place(sq, identity, mover, capturer) {
            Ok(taken) => taken,
            Err(_) => {
                self.contradictions += 1;
                return;
            }
        };
        if self.restoring {
            self.review_restoring();
            return;
        }
        // The piece's colour says whose hand released it.
        let releaser = identity
            .or(taken.and_then(|(_, piece)| piece))
            .map_or(mover, |piece| piece.color);
        *self.last_release.get_mut(releaser) = Some(self.now);
        if let Some((from, Some(piece))) = taken
            && piece.color == mover
            && let Some(m) = self.released_move(from, sq)
            && !self.completes_released_castling(from, sq)
        {
            self.turn.release(m);
        }
        // 1858, 20ª: a king set down where castling would put it, when
        // castling is not allowed there, was touched to castle.
        if self.rules.laws == Laws::Regence1858
            && let Some((from, Some(piece))) = taken
            && piece.role == Role::King
        {
            self.note_castling_touch(from, sq, piece);
        }
        self.review_board();
    }

    /// Whether a rook put down on `to` is the second half of a castling
    /// already released with the king, not a rook move of its own.
    fn completes_released_castling(&self, from: Square, to: Square) -> bool {
        let color = self.position.turn();
        self.turn.releases.iter().any(|m| {
            matches!(m, Move::Castle { rook, .. } if *rook == from)
                && m.castling_side()
                    .is_some_and(|side| side.rook_to(color) == to)
        })
    }

    /// The legal move of the player having the move that takes the piece
    /// from `from` to `to`; castling counts once the king is released.
    fn released_move(&self, from: Square, to: Square) -> Option<Move> {
        let color = self.position.turn();
        self.legal.moves.iter().copied().find(|m| {
            footprint::from(*m) == Some(from)
                && match m {
                    Move::Castle { .. } => m
                        .castling_side()
                        .is_some_and(|side| side.king_to(color) == to),
                    _ => m.to() == to,
                }
        })
    }

    /// A contact with `piece` on `sq`: attributed to the player having the
    /// move, unless it is the previous mover handling his own pieces before
    /// pressing (finishing a promotion, straightening a piece): those must
    /// not oblige the opponent to capture anything.
    fn contact(&mut self, sq: Square, piece: Piece) {
        if let Some(last) = self.uncompleted.back()
            && self.clock.running() == Some(last.side)
            && piece.color == last.side
        {
            return;
        }
        if self.restoring {
            return;
        }
        let mover = self.position.turn();
        let adjusting = self.turn.adjusting;
        if !adjusting {
            self.claim_lapses_on_touch(mover);
        }
        self.turn.touch(Contact {
            at: self.now,
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

    fn adjust(&mut self, side: Color) {
        // 6.2.5: only the player whose clock runs may adjust (before the
        // start, the player to move). A player who has made his move and
        // not pressed may straighten it; his own pieces oblige him nothing
        // then, so only the announcement of the player having the move
        // excuses contacts.
        let may = self.clock.running().unwrap_or(self.position.turn());
        if side == may {
            if side == self.position.turn() {
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
    fn review_board(&mut self) {
        // A move is made when its pieces are released (4.7): never while the
        // mover still holds one. (A capturing piece lifted first leaves the
        // occupancy of the finished capture.)
        let made = if self.hands_full(self.position.turn()) {
            None
        } else {
            let released = self.turn.releases.last().copied();
            self.chosen_move(&self.position, &self.legal, self.board.changes(), released)
        };
        if let Some(m) = made {
            self.make(m, self.board.changes());
        } else if let Some(last) = self.uncompleted.back()
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
    fn matching_moves<'a>(
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
        // One pass, each move tested cheapest first.
        legal.moves.iter().copied().filter(move |&m| {
            let starts_vacated = match m {
                Move::Normal { from, .. } => vacated.contains(from),
                Move::Castle { .. } => true,
                _ => footprint::from(m).is_some_and(|from| vacated.contains(from)),
            };
            starts_vacated && shows(occupied, on_board, mask, changes, color, m)
        })
    }

    /// Whether the board shows `m`, a legal move from `position`, made: see
    /// [`Referee::matching_moves`].
    fn shows_made(&self, position: &Chess, m: Move, changes: Changes) -> bool {
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
    fn chosen_move(
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

    /// A move released on the board (4.7): it is made now, and it ends the
    /// game at once if the game is over (5.1.1, 5.2, 9.6).
    /// `changes` are the squares the hands changed making it.
    fn make(&mut self, m: Move, changes: Changes) {
        let check = self.make_unended(m, changes);
        self.end_if_over(check);
    }

    /// Ends the game if the position on the board ends it (5.1.1, 5.2,
    /// 9.6), `check` saying whether the side to move is in check. 5.1.1,
    /// 5.2.1: the move that made it ends the game only if it was made in
    /// accordance with article 4; one that broke it is ruled on at the press
    /// like any other, and ends the game once completed.
    fn end_if_over(&mut self, check: bool) {
        let Some((outcome, reason)) = self.ending(check) else {
            return;
        };
        let lawful = self.uncompleted.back().is_none_or(|made| {
            touch::check(&made.before, &made.before_legal, &made.turn, made.mv).is_ok()
        });
        if lawful {
            self.finish(outcome, reason);
        }
    }

    /// [`Referee::make`] but for the end of the game, which the caller
    /// rules on (a second move in a row waits for the opponent's choice,
    /// 1858, 15ª). Whether the side to move is now in check.
    fn make_unended(&mut self, m: Move, changes: Changes) -> bool {
        let side = self.position.turn();
        self.choice_lapses(side);
        // 6.2.1: making his next move completes a player's previous one.
        if let Some(index) = self.uncompleted.iter().position(|u| u.side == side) {
            self.complete_through(index, false);
        }
        // SAN from the legal moves already known, and its suffix from those
        // of the position after: what `SanPlus::from_move` finds by
        // generating both again on a copy.
        let san = San::disambiguate(m, self.san_rivals(m));
        let before = self.position.clone();
        self.position.play_unchecked(m);
        let mut next = self.spare_legal.take().unwrap_or_default();
        next.generate(&self.position);
        let before_legal = std::mem::replace(&mut self.legal, next);
        let check = self.position.is_check();
        let no_move = self.legal.is_empty();
        let suffix = match (check, no_move) {
            (true, true) => Some(Suffix::Checkmate),
            (true, false) => Some(Suffix::Check),
            (false, _) => None,
        };
        let moved = {
            let (lifted, placed) = hands_needed(m, side);
            lifted | placed
        };
        let before_key = self.keys.last().copied().unwrap_or_else(|| key(&before));
        self.keys
            .push(key_after(before_key, &before, &self.position, moved));
        self.knocked_off_past(moved);
        let keep = self.displaced() & !moved;
        self.board.sync_after(&self.position, moved, keep);
        self.promotion_choice = None;
        let turn = std::mem::replace(&mut self.turn, std::mem::take(&mut self.spare_turn));
        self.uncompleted.push_back(Made {
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

    /// Whether the game is over in the position on the board, in which the
    /// side to move is in `check` or not: checkmate (5.1.1), stalemate
    /// (5.2.1), a dead position (5.2.2), or 9.6's fivefold repetition and
    /// 75 moves.
    fn ending(&self, check: bool) -> Option<(KnownOutcome, Reason)> {
        let no_move = self.legal.is_empty();
        if check && no_move {
            let winner = self.position.turn().other();
            Some((KnownOutcome::Decisive { winner }, Reason::Checkmate))
        } else if no_move {
            Some((KnownOutcome::Draw, Reason::Stalemate))
        } else if dead::is_dead(&self.position) {
            Some((KnownOutcome::Draw, Reason::InsufficientMaterial))
        // Five occurrences of a position are at least 16 plies apart.
        } else if self.position.halfmoves() >= 16 && self.repetitions() >= 5 {
            Some((KnownOutcome::Draw, Reason::FivefoldRepetition))
        } else if self.position.halfmoves() >= 150 {
            Some((KnownOutcome::Draw, Reason::SeventyFiveMoves))
        } else {
            None
        }
    }

    /// The moves `San::disambiguate` must look at for `m` from the current
    /// position: none unless another piece of its kind attacks the square
    /// it goes to, and so might be a rival (its moves are searched then).
    fn san_rivals(&self, m: Move) -> &MoveList {
        static NONE: MoveList = MoveList::new_const();
        match m {
            Move::Normal { role, from, to, .. } if role != Role::Pawn => {
                let board = self.position.board();
                let piece = role.of(self.position.turn());
                // A piece of the same kind on a square it attacks from `to`
                // attacks `to` (the attacks of a piece are symmetric).
                let others = board.by_piece(piece).without(from);
                if (attacks(to, piece, board.occupied()) & others).any() {
                    &self.legal.moves
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
    fn choose_again(&mut self, role: Role) {
        let Some(last) = self.uncompleted.back() else {
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
        self.position = position;
        self.legal.generate(&self.position);
        // The opponent's releases were made against the other piece: those
        // no longer legal bind nothing.
        let legal = &self.legal;
        self.turn.releases.retain(|m| legal.contains(*m));
        let check = self.position.is_check();
        let no_move = self.legal.is_empty();
        let suffix = match (check, no_move) {
            (true, true) => Some(Suffix::Checkmate),
            (true, false) => Some(Suffix::Check),
            (false, _) => None,
        };
        self.keys.pop();
        self.keys.push(key(&self.position));
        self.board.identify(m.to(), role.of(side));
        let Some(last) = self.uncompleted.back_mut() else {
            return;
        };
        last.mv = m;
        last.san = SanPlus { san, suffix };
        self.end_if_over(check);
    }

    /// The last move made, not completed, is taken back: the board shows the
    /// position before it, and it is its mover's turn again, with his contacts.
    fn take_back(&mut self) {
        if let Some(made) = self.uncompleted.pop_back() {
            self.keys.pop();
            self.position = made.before;
            let abandoned = std::mem::replace(&mut self.legal, made.before_legal);
            self.spare_legal = Some(abandoned);
            let abandoned = std::mem::replace(&mut self.turn, made.turn);
            self.recycle(abandoned);
            self.board.sync_keeping(&self.position, self.off_board());
        }
    }

    /// Keeps the lists of a turn that is over for the next one.
    fn recycle(&mut self, mut turn: Turn) {
        turn.clear();
        if turn.capacity() > self.spare_turn.capacity() {
            self.spare_turn = turn;
        }
    }

    /// How often the current position has stood on the board.
    fn repetitions(&self) -> usize {
        // The current position's key is the last one kept.
        let current = self
            .keys
            .last()
            .copied()
            .unwrap_or_else(|| key(&self.position));
        let window = self.position.halfmoves() as usize + 1;
        self.keys
            .iter()
            .rev()
            .take(window)
            .filter(|k| **k == current)
            .count()
    }

    /// 7.4.1: occupancy changes no legal move in progress explains.
    fn review_displacement(&mut self) {
        let on_board = self.board.occupied();
        let expected = self.position.board().occupied();
        let unexplained = self.unexplained();
        if self.displacement.is_none()
            && self.knocked.any()
            && (self.knocked & (on_board ^ expected)).is_empty()
        {
            self.knock_restored();
        }
        let knocking = self.knocked.any();
        match &mut self.displacement {
            None if unexplained.any() => {
                let side = match self.last_press {
                    Some((at, presser))
                        if knocking || self.now - at <= self.rules.knock_window_ms =>
                    {
                        presser
                    }
                    _ => self.clock.running().unwrap_or(self.position.turn()),
                };
                if self.clock.running().is_some_and(|running| running != side) {
                    self.clock.charge(Some(side), self.now);
                }
                self.displacement = Some(Displacement {
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
                    self.displacement = None;
                    self.clock.charge(None, self.now);
                    let mut ms = self.clock.used(side) - used_before;
                    // A "knock" whose square the opponent then filled with
                    // his own piece was his move attempt (a capture begun
                    // by lifting the captured piece): the time is his.
                    let knocked = squares & self.knocked;
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
                    self.knocked = Bitboard::EMPTY;
                    self.board.reestablished(&self.position, squares);
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
    fn unexplained(&self) -> Bitboard {
        // Squares already displaced are not explained again.
        let mask = self.displaced();
        let expected = self.position.board().occupied();
        let on_board = (self.board.occupied() & !mask) | (expected & mask);
        let now = unexplained_from(&self.position, &self.legal, on_board);
        if now.is_empty() {
            return now;
        }
        match self.uncompleted.back() {
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

    // --- Draws and the end ------------------------------------------------

    fn draw(&mut self, side: Color) {
        if self.draw_offer == Some(side.other()) {
            self.finish(KnownOutcome::Draw, Reason::Agreement);
            return;
        }
        // 9.2, 9.3: a correct claim.
        if let Some(reason) = self.claimable(side) {
            self.finish(KnownOutcome::Draw, reason);
            return;
        }
        // 9.5.3: a claim that is not correct. A claim is made with the
        // clock stopped (9.5.1, 9.5.2); a draw button while it runs is an
        // offer, which nothing would tell from a claim. The opponent gets
        // 2 minutes (1 in rapid and blitz), and the claim stands as an offer
        // (9.1.2.3).
        if self.started && self.clock.is_paused() && self.rules.enforcement != Enforcement::Record {
            let ms = self.rules.mode.penalty_ms();
            self.clock.add(side.other(), ms, self.now);
            self.emit(Effect::TimeAdded {
                side: side.other(),
                ms,
                law: Law::IncorrectClaim,
            });
        }
        if self.draw_offer == Some(side) {
            return;
        }
        // 9.1.2.1: proper between making a move and pressing; valid anyway.
        let proper =
            self.clock.running() == Some(side) && self.uncompleted.iter().any(|u| u.side == side);
        self.draw_offer = Some(side);
        self.emit(Effect::DrawOffer { side, proper });
    }

    /// The draw `side` may claim now (9.2, 9.3), if any. He claims on the
    /// position in which he has the move, unless he has touched a piece
    /// with intent this turn (9.4: he has lost the right on this move); or
    /// on his intended move (9.2.1.1, 9.3.1): the move he has made on the
    /// board and not pressed, which stands (4.7), if he made it as article 4
    /// lets him.
    fn claimable(&self, side: Color) -> Option<Reason> {
        let intended = self
            .uncompleted
            .back()
            .filter(|made| made.side == side && self.clock.running() == Some(side));
        match intended {
            Some(made) => {
                touch::check(&made.before, &made.before_legal, &made.turn, made.mv).ok()?;
            }
            None => {
                let touched = self.turn.contacts.iter().any(|c| !c.adjusting);
                if self.position.turn() != side || touched {
                    return None;
                }
            }
        }
        if self.repetitions() >= 3 {
            Some(Reason::ThreefoldRepetition)
        } else if self.position.halfmoves() >= 100 {
            Some(Reason::FiftyMoves)
        } else {
            None
        }
    }

    /// Ends the game: the moves on the board are recorded, the clocks stop.
    /// Under draw odds a draw is a win for the side that has them.
    fn finish(&mut self, outcome: KnownOutcome, reason: Reason) {
        let outcome = match (outcome, self.rules.draw_odds) {
            // The arbiter's result stands as he gives it.
            (_, _) if matches!(reason, Reason::Adjudicated(_)) => outcome,
            (KnownOutcome::Draw, Some(winner)) => KnownOutcome::Decisive { winner },
            _ => outcome,
        };
        if !self.uncompleted.is_empty() {
            self.complete_with(self.uncompleted.len() - 1, Completion::End);
        }
        self.clock.stop(self.now);
        self.draw_offer = None;
        self.displacement = None;
        self.knocked = Bitboard::EMPTY;
        self.claimable = None;
        self.result = Some((outcome, reason));
        self.emit(Effect::Result { outcome, reason });
    }
}

/// The promotion piece after `role` on the face's list: Q R B N, then Q again.
fn next_promotion(role: Role) -> Role {
    match role {
        Role::Queen => Role::Rook,
        Role::Rook => Role::Bishop,
        Role::Bishop => Role::Knight,
        _ => Role::Queen,
    }
}

fn key(position: &Chess) -> Zobrist64 {
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

/// The squares of a displacement, for the player: "a2 a3".
fn restore_list(squares: Bitboard) -> String {
    let names: Vec<String> = squares.into_iter().map(|sq| sq.to_string()).collect();
    names.join(" ")
}
