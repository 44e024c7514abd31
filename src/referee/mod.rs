//! The referee: a sans-IO state machine that keeps time and rules on the Laws.
//!
//! Drive it with [`Referee::handle`] (an input at an instant) and
//! [`Referee::handle_timeout`] (time passing), then drain
//! [`Referee::poll_effect`]; [`Referee::next_deadline`] says when something
//! will happen by itself (a flag falls). It reads no clock and does no IO:
//! the same inputs at the same instants always give the same effects.
//!
//! This file is the state machine's surface: the [`Referee`], its public
//! API and the dispatch of each input. The rules are one concept a file:
//!
//! - `press.rs`: the press (6.2) and the illegal move it completes (7.5);
//! - `reading.rs`: reading the board: sensor events as contacts, releases
//!   and the move the hands made (4.2–4.7), in the order the board saw
//!   them (a place reported before its lift within one scan, `ONE_SCAN_MS`,
//!   is a slide);
//! - `play.rs`: play: moves made, taken back, changed and completed into
//!   the game's history, the position and its repetition keys;
//! - `displacement.rs`: pieces displaced and knocked (7.4.1), with their
//!   own state;
//! - `end.rs`: draws offered and claimed, the positions that end the game,
//!   the result;
//! - `touch.rs`: touch-move and the released piece (4.3–4.7), pure checks,
//!   and a turn's contacts kept to what the Laws read (a sensor storm
//!   holds no more memory);
//! - `claim.rs`, `arbiter.rs`, `laws.rs`: claims (4.8), the arbiter's
//!   powers, the profiles besides `fide-2023`;
//! - below them, leaves: `footprint.rs` (the squares a move lifts, places
//!   and captures), `legal.rs`, `board.rs` (the sensed board), `clock.rs`,
//!   `history.rs` (the completed moves, for a takeback), `notation.rs`,
//!   `dead.rs`;
//! - the public types: `input.rs`, `effect.rs`, `law.rs`, `rules.rs`,
//!   `time_control.rs`, `choice.rs` (the 1858 laws' choices),
//!   `adjudication.rs` (the arbiter's result and words).

mod adjudication;
mod arbiter;
mod board;
mod choice;
mod claim;
mod clock;
mod dead;
mod displacement;
mod effect;
mod end;
mod footprint;
mod history;
mod input;
mod law;
mod laws;
mod legal;
mod notation;
mod play;
mod press;
mod reading;
mod rules;
mod time_control;
mod touch;

pub use adjudication::{Adjudication, ArbiterWords};
pub use choice::{Choice, ChoiceOptions, ParseChoiceError};
pub use effect::{CompletedMove, Effect, MoveText, Reason, Rejection, Ruling};
pub use input::Input;
pub use law::{Law, ParseLawError};
pub use reading::ONE_SCAN_MS;
pub use rules::{Enforcement, GameMode, IncrementMode, Laws, Rules, UnknownKeyword};
pub use time_control::{Overtime, ParseTimeControlError, Stage, TimeControl};

use std::collections::VecDeque;
use std::fmt;

use shakmaty::{ByColor, Chess, Color, KnownOutcome, Position, Role};

use board::PhysicalBoard;
use claim::Claimable;
use clock::Clock;
use displacement::Displacement;
use play::{Play, next_promotion};
use press::Presses;
use touch::{Breach, Turn};

/// Monotonic milliseconds since the session started.
pub type Millis = u64;

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

/// The rules core: one game, from the first press to the result.
#[derive(Debug, Clone)]
pub struct Referee {
    rules: Rules,
    now: Millis,
    clock: Clock,
    board: PhysicalBoard,
    /// The game on the board: the position, its legal moves, the moves
    /// made and not completed, the completed ones.
    play: Play,
    /// What the player having the move on the board has done this turn.
    turn: Turn,
    /// An empty turn whose lists keep their capacity, the next `turn`: so
    /// that recording contacts does not allocate every move.
    spare_turn: Turn,
    /// The promotion piece chosen on the clock (4.4.4), for the move made next.
    promotion_choice: Option<Role>,
    started: bool,
    result: Option<(KnownOutcome, Reason)>,
    /// Illegal moves completed by each player (7.5.5).
    illegal_moves: ByColor<u8>,
    draw_offer: Option<Color>,
    /// Pieces displaced and knocked (7.4.1).
    displacement: Displacement,
    /// The last press, and each player's last release (6.2.3).
    presses: Presses,
    /// Inputs dropped, counted.
    dropped: Dropped,
    effects: VecDeque<(Millis, Effect)>,
    /// A takeback left the board showing more than the position: its
    /// changes are the restorer's until it shows the position again.
    restoring: bool,
    /// What one player may still claim, or must still do.
    obligations: Obligations,
    /// A place that may be the first half of a slide, waiting for its lift.
    early_place: Option<reading::EarlyPlace>,
    /// The instant of the latest effect queued.
    emitted_at: Millis,
}

/// Inputs the referee could not use: counted and dropped.
#[derive(Debug, Clone, Default)]
struct Dropped {
    /// Sensor events that contradicted the board.
    contradictions: u64,
    /// Arbiter's corrections refused.
    corrections: u64,
    /// `Input::Choose` answers refused.
    choices: u64,
}

/// What one player may still claim against the other (4.8), or must still
/// do: an obligation an upheld claim imposed, a choice the 1858 laws give
/// the opponent, the penalty he chose.
#[derive(Debug, Clone, Default)]
struct Obligations {
    /// A move against article 4 the opponent may still claim (4.8).
    claimable: Option<Claimable>,
    /// The player on whom an upheld claim imposed an obligation: enforced
    /// strictly until he completes a move.
    imposed: Option<Color>,
    /// A choice the laws give a player, waited for (`regence-1858`).
    choice: Option<laws::Pending>,
    /// The penalty the chooser imposed, with its law: binds `imposed`.
    penalty: Option<(laws::Penalty, Law)>,
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
        if let Some((outcome, reason)) = referee.ending(referee.play.position.is_check()) {
            referee.finish(outcome, reason);
        }
        referee
    }

    /// A referee at the start position of `rules`, before the first press,
    /// the game not yet checked for being over.
    fn before_start(rules: Rules) -> Referee {
        let clock = Clock::new(
            ByColor::new_with(|side| rules.time_control_of(side).clone()),
            rules.increment_mode,
        );
        let play = Play::new(rules.start.clone(), clock.turn_start());
        Referee {
            board: PhysicalBoard::new(&play.position),
            play,
            clock,
            rules,
            now: 0,
            turn: Turn::default(),
            spare_turn: Turn::default(),
            promotion_choice: None,
            started: false,
            result: None,
            illegal_moves: ByColor::new_with(|_| 0),
            draw_offer: None,
            displacement: Displacement::new(),
            presses: Presses::new(),
            dropped: Dropped::default(),
            effects: VecDeque::new(),
            restoring: false,
            obligations: Obligations::default(),
            early_place: None,
            emitted_at: 0,
        }
    }

    /// The rules of this game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The position on the board: every move made so far, completed or not.
    pub fn position(&self) -> &Chess {
        &self.play.position
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

    /// Whether a place waits for its lift (at most [`ONE_SCAN_MS`]): time
    /// alone, with no input, then changes the game, reading the place as it
    /// came.
    pub fn place_awaits_lift(&self) -> bool {
        self.early_place.is_some()
    }

    /// Time left for `side` at `now` (at least the last instant handled).
    ///
    /// While a place waits for its lift (at most [`ONE_SCAN_MS`]), both
    /// clocks show the instant of the place: whose time runs from then on
    /// (a move's, a displacement's) is known once it is read.
    pub fn remaining(&self, side: Color, now: Millis) -> u64 {
        let at = match self.early_place {
            Some(early) => early.at(),
            None => now.max(self.now),
        };
        self.clock.remaining_at(side, at)
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

    /// `side`'s overtime at `now`, once his main time has run out: the
    /// periods left counting the one running, and the moves still to make
    /// in it for a fresh one. `None` before overtime, or without any.
    pub fn overtime_left(&self, side: Color, now: Millis) -> Option<(u32, u32)> {
        let at = match self.early_place {
            Some(early) => early.at(),
            None => now.max(self.now),
        };
        let (overtime, state) = self.clock.overtime_at(side, at)?;
        Some((
            state.periods_after + 1,
            overtime.moves.saturating_sub(state.period_moves),
        ))
    }

    /// Whether `side`'s clock runs for a move he has made on the board and
    /// not completed: his press would complete it (6.2.1).
    pub fn awaits_press(&self, side: Color) -> bool {
        self.clock.running() == Some(side) && self.play.uncompleted.iter().any(|u| u.side == side)
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
        if let Some(last) = self.play.uncompleted.back() {
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
        if self.play.position.turn() != side {
            return None;
        }
        let on_board = self.board.occupied();
        let lifted = self.board.changes().lifted & !on_board;
        let waiting = self.play.legal.moves.iter().any(|m| {
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
        self.dropped.contradictions
    }

    /// Arbiter's corrections dropped: given while the clock ran, after the
    /// game was over, or beyond [`Referee::MAX_SET_TIME_MS`] or
    /// [`Referee::MAX_SET_MOVES`].
    pub fn refused_corrections(&self) -> u64 {
        self.dropped.corrections
    }

    /// Handles one input at `now`, after everything due before it.
    pub fn handle(&mut self, now: Millis, input: Input) -> Result<(), TimeWentBackwards> {
        self.handle_timeout(now)?;
        // A place waiting for its lift is read before anything but a lift
        // (which may be its own) or a contact (which changes no square).
        // Tested first: nothing is held on nearly every input.
        if self.early_place.is_some()
            && !matches!(input, Input::Lift(_) | Input::Touch(_) | Input::Untouch(_))
            && self.result.is_none()
        {
            self.read_early_place();
        }
        if self.result.is_some() {
            if matches!(
                input,
                Input::SetTime(..)
                    | Input::SetMoves(..)
                    | Input::Waive
                    | Input::TakeBack
                    | Input::Adjudicate(_)
            ) {
                self.dropped.corrections += 1;
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
            other => self.handle_occasional(now, other),
        }
        self.clock.check_deadline();
        Ok(())
    }

    /// The inputs other than the hands' (buttons, the arbiter's acts,
    /// claims, the setup's corrections): a few a game, kept out of line so
    /// that the path of a lift, a place and a press, taken thousands of
    /// times a game, stays compact.
    #[inline(never)]
    fn handle_occasional(&mut self, now: Millis, input: Input) {
        match input {
            // The hands' inputs, handled in `handle`.
            Input::Press(_)
            | Input::Lift(_)
            | Input::Place(..)
            | Input::Touch(_)
            | Input::Untouch(_) => {}
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
                    self.presses.forget();
                    self.clock.resume(now);
                    self.emit(Effect::Resumed);
                }
            }
            Input::SetTime(side, ms) => {
                if self.clock.is_paused() && ms <= Self::MAX_SET_TIME_MS {
                    self.clock.set_remaining(side, ms, now);
                    self.corrected(side);
                } else {
                    self.dropped.corrections += 1;
                }
            }
            Input::SetMoves(side, completed) => {
                if self.clock.is_paused() && completed <= Self::MAX_SET_MOVES {
                    self.clock.set_completed(side, completed);
                    self.corrected(side);
                } else {
                    self.dropped.corrections += 1;
                }
            }
            Input::Waive => self.waive(),
            Input::TakeBack => {
                if self.started {
                    self.arbiter_take_back();
                } else {
                    self.dropped.corrections += 1;
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
    }

    /// Lets time pass until `now`: a flag due by then falls at its own instant.
    pub fn handle_timeout(&mut self, now: Millis) -> Result<(), TimeWentBackwards> {
        if now < self.now {
            return Err(TimeWentBackwards {
                last: self.now,
                now,
            });
        }
        // A place that waited its scan for a lift and got none is read as
        // it was made, at its own instant (the clock was held there), before
        // a flag that falls after it.
        if self.result.is_none()
            && let Some(due) = self.early_place.map(|early| early.due())
            && (due <= now || self.clock.deadline().is_some_and(|flag| flag <= now))
        {
            self.read_early_place();
        }
        if self.result.is_none()
            && let Some(deadline) = self.clock.deadline()
            && deadline <= now
            && let Some(side) = self.clock.ticking()
        {
            self.flag_falls(side, deadline);
        }
        self.now = now;
        // While a place waits for its lift the clock is held at the place:
        // read as it was made, it is ruled at its own instant.
        if self.early_place.is_none() {
            self.clock.advance(now);
        }
        Ok(())
    }

    /// `side`'s flag falls at `deadline` (6.1): once a game, out of line.
    #[cold]
    #[inline(never)]
    fn flag_falls(&mut self, side: Color, deadline: Millis) {
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

    /// The next effect decided, with the instant it happened.
    pub fn poll_effect(&mut self) -> Option<(Millis, Effect)> {
        self.effects.pop_front()
    }

    /// When something will happen with no further input, if anything will.
    pub fn next_deadline(&self) -> Option<Millis> {
        if self.result.is_some() {
            return None;
        }
        let early = self.early_place.map(|early| early.due());
        match (self.clock.deadline(), early) {
            (Some(flag), Some(due)) => Some(flag.min(due)),
            (flag, due) => flag.or(due),
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

    /// Queues `effect`, at the instant handled, for `poll_effect`: never
    /// before an effect already queued (a place read at its own instant
    /// after its scan may follow a contact made during it).
    fn emit(&mut self, effect: Effect) {
        self.emitted_at = self.emitted_at.max(self.now);
        self.effects.push_back((self.emitted_at, effect));
    }

    /// Tells `side` of `breach`: a warning, or a violation.
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
}
