//! The two clocks: time left, whose clock runs, increments and stages (art. 6).

use shakmaty::{ByColor, Color};

use super::{IncrementMode, Millis, TimeControl};

/// Both players' time, in milliseconds of a monotonic clock passed in.
///
/// Time only ever leaves a clock by running and only comes in through
/// increments, stage time and penalties, or an arbiter's correction (6.10);
/// the referee decides when. Each side plays under his own time control
/// (Armageddon gives Black less time).
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    control: ByColor<TimeControl>,
    increment_mode: IncrementMode,
    remaining: ByColor<u64>,
    completed: ByColor<u32>,
    /// US delay still to run before the main time of the current turn.
    delay_left: ByColor<u64>,
    /// Main time consumed during the current turn (Bronstein adds it back).
    turn_used: ByColor<u64>,
    /// Main time consumed since the start, ever growing.
    used: ByColor<u64>,
    /// Whose clock the levers have set running.
    running: Option<Color>,
    /// Who is charged instead while displaced pieces are re-established (7.4.1).
    charged: Option<Color>,
    paused: bool,
    /// The instant up to which time has been accounted.
    since: Millis,
}

/// What a clock showed when a turn began: what a takeback puts back (the
/// time each side had, the moves counted, the delay of the turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TurnStart {
    remaining: ByColor<u64>,
    completed: ByColor<u32>,
    delay_left: ByColor<u64>,
}

impl Clock {
    pub fn new(control: ByColor<TimeControl>, increment_mode: IncrementMode) -> Clock {
        Clock {
            remaining: control.as_ref().map(|control| control.stage(0).time_ms),
            control,
            increment_mode,
            completed: ByColor::new_with(|_| 0),
            delay_left: ByColor::new_with(|_| 0),
            turn_used: ByColor::new_with(|_| 0),
            used: ByColor::new_with(|_| 0),
            running: None,
            charged: None,
            paused: false,
            since: 0,
        }
    }

    /// Time left for `side` as of the last accounting.
    pub fn remaining(&self, side: Color) -> u64 {
        *self.remaining.get(side)
    }

    /// Time left for `side` at `now`, without changing anything.
    pub fn remaining_at(&self, side: Color, now: Millis) -> u64 {
        match self.ticking() {
            Some(ticking) if ticking == side => {
                let (_, main) = self.consumed(side, now.saturating_sub(self.since));
                self.remaining(side) - main
            }
            _ => self.remaining(side),
        }
    }

    /// Moves `side` has completed.
    pub fn completed(&self, side: Color) -> u32 {
        *self.completed.get(side)
    }

    /// The stage (0-based) `side` is playing in.
    pub fn stage_index(&self, side: Color) -> usize {
        self.control.get(side).stage_index(self.completed(side))
    }

    /// Whose clock the levers have running, paused or not.
    pub fn running(&self) -> Option<Color> {
        self.running
    }

    /// Whose time is going down right now.
    pub fn ticking(&self) -> Option<Color> {
        if self.paused {
            None
        } else {
            self.charged.or(self.running)
        }
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The instant the ticking clock reaches zero.
    #[inline]
    pub fn deadline(&self) -> Option<Millis> {
        let side = self.ticking()?;
        let delay = if self.charged.is_none() {
            *self.delay_left.get(side)
        } else {
            0
        };
        // Saturating: an instant near the end of time must not overflow.
        Some(
            self.since
                .saturating_add(delay)
                .saturating_add(self.remaining(side)),
        )
    }

    /// Accounts the time from the last accounting to `now` to the ticking side.
    #[inline]
    pub fn advance(&mut self, now: Millis) {
        let elapsed = now.saturating_sub(self.since);
        self.since = self.since.max(now);
        let Some(side) = self.ticking() else { return };
        let (delay, main) = self.consumed(side, elapsed);
        *self.delay_left.get_mut(side) -= delay;
        *self.remaining.get_mut(side) -= main;
        *self.turn_used.get_mut(side) += main;
        *self.used.get_mut(side) += main;
    }

    /// How `elapsed` ms of `side` ticking split into delay and main time:
    /// the delay runs first, except while he is charged for displaced pieces.
    fn consumed(&self, side: Color, elapsed: Millis) -> (u64, u64) {
        let delay = if self.charged.is_none() {
            (*self.delay_left.get(side)).min(elapsed)
        } else {
            0
        };
        (delay, self.remaining(side).min(elapsed - delay))
    }

    /// Main time `side` has consumed since the start.
    pub fn used(&self, side: Color) -> u64 {
        *self.used.get(side)
    }

    /// Starts `side`'s clock for his turn.
    pub fn start(&mut self, side: Color, now: Millis) {
        self.advance(now);
        self.running = Some(side);
        self.begin_turn(side);
    }

    fn begin_turn(&mut self, side: Color) {
        *self.turn_used.get_mut(side) = 0;
        *self.delay_left.get_mut(side) = match self.increment_mode {
            IncrementMode::Delay => {
                self.control
                    .get(side)
                    .stage(self.completed(side))
                    .increment_ms
            }
            _ => 0,
        };
    }

    /// `side` completed a move with his press: increment, stage time, and the
    /// opponent's clock starts.
    pub fn complete_by_press(&mut self, side: Color, now: Millis) {
        self.advance(now);
        let stage = *self.control.get(side).stage(self.completed(side));
        let bonus = match self.increment_mode {
            IncrementMode::Fischer => stage.increment_ms,
            IncrementMode::Bronstein => (*self.turn_used.get(side)).min(stage.increment_ms),
            IncrementMode::Delay => 0,
        };
        *self.remaining.get_mut(side) += bonus;
        self.count_move(side);
        *self.delay_left.get_mut(side) = 0;
        self.running = Some(side.other());
        self.begin_turn(side.other());
    }

    /// `side` completed a move without pressing (the move ended the game, or
    /// he made his next one): it counts for stages, earns no increment.
    pub fn count_move(&mut self, side: Color) {
        let completed = self.completed.get_mut(side);
        *completed = completed.saturating_add(1);
        let earned = self.control.get(side).stage_time_earned(*completed);
        *self.remaining.get_mut(side) += earned;
    }

    /// `side`'s last move was completed by the end of the game: it counts,
    /// and earns no stage time (no clock runs after it).
    pub fn count_final_move(&mut self, side: Color) {
        let completed = self.completed.get_mut(side);
        *completed = completed.saturating_add(1);
    }

    /// Gives `side` extra time (7.5.5).
    pub fn add(&mut self, side: Color, ms: u64, now: Millis) {
        self.advance(now);
        *self.remaining.get_mut(side) += ms;
    }

    /// The arbiter sets `side`'s main time (6.10.2). Nothing else changes:
    /// the delay of a turn in progress still runs first.
    pub fn set_remaining(&mut self, side: Color, ms: u64, now: Millis) {
        self.advance(now);
        *self.remaining.get_mut(side) = ms;
    }

    /// The arbiter sets how many moves `side` has completed (6.10.2). The
    /// stage follows the counter, but no stage time is given: the arbiter
    /// sets the time as well.
    pub fn set_completed(&mut self, side: Color, completed: u32) {
        *self.completed.get_mut(side) = completed;
    }

    /// Moves `ms` of time used from `from`'s clock to `to`'s (no more than
    /// `to` has left, nor `from` has used): time charged to the wrong
    /// player. Returns the time moved.
    pub fn transfer(&mut self, from: Color, to: Color, ms: u64, now: Millis) -> u64 {
        self.advance(now);
        let ms = ms.min(self.remaining(to)).min(*self.used.get(from));
        *self.remaining.get_mut(from) += ms;
        *self.used.get_mut(from) -= ms;
        *self.remaining.get_mut(to) -= ms;
        *self.used.get_mut(to) += ms;
        ms
    }

    /// Charges `side` instead of the running clock, or ends the charge.
    pub fn charge(&mut self, side: Option<Color>, now: Millis) {
        self.advance(now);
        self.charged = side;
    }

    pub fn pause(&mut self, now: Millis) {
        self.advance(now);
        self.paused = true;
    }

    pub fn resume(&mut self, now: Millis) {
        self.advance(now);
        self.paused = false;
    }

    /// Both clocks as they stand as a turn begins, to be put back by
    /// [`Clock::restore`].
    pub fn turn_start(&self) -> TurnStart {
        TurnStart {
            remaining: self.remaining,
            completed: self.completed,
            delay_left: self.delay_left,
        }
    }

    /// Puts both clocks back as they stood when `start`'s turn began, with
    /// `side`'s turn begun again (a move taken back). A pause stays; a
    /// charge ends.
    pub fn restore(&mut self, start: TurnStart, side: Color, now: Millis) {
        self.advance(now);
        self.remaining = start.remaining;
        self.completed = start.completed;
        self.delay_left = start.delay_left;
        self.turn_used = ByColor::new_with(|_| 0);
        self.running = Some(side);
        self.charged = None;
    }

    /// Stops both clocks for good.
    pub fn stop(&mut self, now: Millis) {
        self.advance(now);
        self.running = None;
        self.charged = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(tc: &str, mode: IncrementMode) -> Clock {
        Clock::new(ByColor::new_with(|_| tc.parse().unwrap()), mode)
    }

    #[test]
    fn fischer_adds_the_increment_at_the_press() {
        let mut c = clock("300+2", IncrementMode::Fischer);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), Some(300_000));
        c.complete_by_press(Color::White, 10_000);
        assert_eq!(c.remaining(Color::White), 292_000);
        assert_eq!(c.running(), Some(Color::Black));
        assert_eq!(c.deadline(), Some(310_000));
    }

    #[test]
    fn bronstein_adds_back_at_most_the_increment() {
        let mut c = clock("300+5", IncrementMode::Bronstein);
        c.start(Color::White, 0);
        c.complete_by_press(Color::White, 3_000);
        assert_eq!(c.remaining(Color::White), 300_000);
        c.complete_by_press(Color::Black, 13_000);
        assert_eq!(c.remaining(Color::Black), 295_000);
    }

    #[test]
    fn delay_holds_the_countdown() {
        let mut c = clock("300+5", IncrementMode::Delay);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), Some(305_000));
        c.advance(4_000);
        assert_eq!(c.remaining(Color::White), 300_000);
        c.complete_by_press(Color::White, 7_000);
        assert_eq!(c.remaining(Color::White), 298_000);
        assert_eq!(c.deadline(), Some(7_000 + 5_000 + 300_000));
    }

    #[test]
    fn stage_time_arrives_with_the_stage_move() {
        let mut c = clock("2/60+1:30", IncrementMode::Fischer);
        c.start(Color::White, 0);
        c.complete_by_press(Color::White, 1_000);
        c.complete_by_press(Color::Black, 2_000);
        assert_eq!(c.remaining(Color::White), 60_000);
        c.complete_by_press(Color::White, 3_000);
        // 60 s - 2 s used + 2 × 1 s increment + 30 s for the second stage.
        assert_eq!(c.remaining(Color::White), 90_000);
        assert_eq!(c.stage_index(Color::White), 1);
    }

    #[test]
    fn pause_stops_the_running_clock_and_a_charge_overrides_it() {
        let mut c = clock("60", IncrementMode::Fischer);
        c.start(Color::White, 0);
        c.pause(1_000);
        assert_eq!(c.deadline(), None);
        c.advance(50_000);
        c.resume(50_000);
        assert_eq!(c.remaining(Color::White), 59_000);
        c.charge(Some(Color::Black), 51_000);
        c.advance(53_000);
        assert_eq!(c.remaining(Color::Black), 58_000);
        assert_eq!(c.remaining(Color::White), 58_000);
        assert_eq!(c.ticking(), Some(Color::Black));
    }

    #[test]
    fn each_side_runs_his_own_control() {
        let control = ByColor {
            white: "300+5".parse().unwrap(),
            black: "240+2".parse().unwrap(),
        };
        let mut c = Clock::new(control, IncrementMode::Delay);
        assert_eq!(c.remaining(Color::Black), 240_000);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), Some(305_000));
        c.complete_by_press(Color::White, 1_000);
        // Black's own delay holds his countdown: 2 s, not White's 5.
        assert_eq!(c.deadline(), Some(1_000 + 2_000 + 240_000));
    }

    #[test]
    fn a_correction_sets_the_time_and_the_counter_but_gives_no_stage_time() {
        let mut c = clock("2/60:30", IncrementMode::Fischer);
        c.start(Color::White, 0);
        c.pause(1_000);
        c.set_remaining(Color::White, 10_000, 2_000);
        c.set_completed(Color::White, 2);
        assert_eq!(c.remaining(Color::White), 10_000);
        assert_eq!(c.stage_index(Color::White), 1);
        assert!(c.is_paused());
        c.resume(3_000);
        assert_eq!(c.deadline(), Some(13_000));
    }
}
