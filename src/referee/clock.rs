//! The two clocks: time left, whose clock runs, increments and stages (art. 6),
//! and the two modes that are no countdown of one's own: hourglass (the time
//! one uses goes to the other) and upcount (time used, no flag).

use shakmaty::{ByColor, Color};

use super::{IncrementMode, Millis, Overtime, TimeControl};

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
    /// Each side's overtime as it stands (byo-yomi, Canadian).
    overtime: ByColor<OvertimeState>,
    /// Whose clock the levers have set running.
    running: Option<Color>,
    /// Who is charged instead while displaced pieces are re-established (7.4.1).
    charged: Option<Color>,
    paused: bool,
    /// The instant up to which time has been accounted.
    since: Millis,
    /// Whether both sides play the common clock: Fischer or Bronstein, no
    /// overtime. Time then runs with no delay before it and stops at zero,
    /// and accounting it is a subtraction: every input accounts time. Fixed
    /// with the controls and the mode, which never change.
    plain: bool,
    /// The instant the ticking clock reaches zero, kept as the clocks
    /// change rather than worked out on every input: accounting time only
    /// moves it once it has passed (see [`Clock::advance`]); every other
    /// change works it out again ([`Clock::refresh`]).
    deadline: Option<Millis>,
}

/// Where a side stands in his overtime (byo-yomi, Canadian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct OvertimeState {
    /// Whether his main time has run out and a period is running.
    pub in_overtime: bool,
    /// Periods still to come after the current one.
    pub periods_after: u32,
    /// Moves completed in the current period.
    pub period_moves: u32,
}

/// What a clock showed when a turn began: what a takeback puts back (the
/// time each side had, the moves counted, the delay of the turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TurnStart {
    remaining: ByColor<u64>,
    completed: ByColor<u32>,
    /// At most a stage's increment, itself at most a week: 32 bits, so that
    /// a history entry (a move and this) fits 64 bytes, copied as vectors.
    delay_left: ByColor<u32>,
    overtime: ByColor<OvertimeState>,
}

impl Clock {
    pub fn new(control: ByColor<TimeControl>, increment_mode: IncrementMode) -> Clock {
        let plain = matches!(
            increment_mode,
            IncrementMode::Fischer | IncrementMode::Bronstein
        ) && control.white.overtime().is_none()
            && control.black.overtime().is_none();
        Clock {
            plain,
            // Upcount shows the time used, from zero.
            remaining: control.as_ref().map(|control| match increment_mode {
                IncrementMode::Upcount => 0,
                _ => control.stage(0).time_ms,
            }),
            control,
            increment_mode,
            completed: ByColor::new_with(|_| 0),
            delay_left: ByColor::new_with(|_| 0),
            turn_used: ByColor::new_with(|_| 0),
            used: ByColor::new_with(|_| 0),
            overtime: ByColor::new_with(|_| OvertimeState::default()),
            running: None,
            charged: None,
            paused: false,
            since: 0,
            // No clock runs before the first start.
            deadline: None,
        }
    }

    /// Time left for `side` as of the last accounting.
    pub fn remaining(&self, side: Color) -> u64 {
        *self.remaining.get(side)
    }

    /// Time left for `side` at `now` (in upcount, time used), without
    /// changing anything.
    pub fn remaining_at(&self, side: Color, now: Millis) -> u64 {
        let Some(ticking) = self.ticking() else {
            return self.remaining(side);
        };
        // Periods may begin on the way: run a copy.
        if self.overtime_of(ticking).is_some() {
            let mut ahead = self.clone();
            ahead.advance(now);
            return ahead.remaining(side);
        }
        let (_, main) = self.consumed(ticking, now.saturating_sub(self.since));
        match self.increment_mode {
            // Saturating: an arbiter may set any time (6.10.2).
            IncrementMode::Upcount if ticking == side => self.remaining(side).saturating_add(main),
            // The hourglass pours what one side uses into the other.
            IncrementMode::Hourglass if ticking != side => {
                self.remaining(side).saturating_add(main)
            }
            _ if ticking == side => self.remaining(side) - main,
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

    /// The instant the ticking clock reaches zero; never in upcount.
    #[inline]
    pub fn deadline(&self) -> Option<Millis> {
        self.check_deadline();
        self.deadline
    }

    /// In every test (the reference games, the generated scripts): the
    /// kept instant of the flag is the one worked out afresh.
    #[inline]
    pub fn check_deadline(&self) {
        debug_assert_eq!(self.deadline, self.flag_instant(), "{self:?}");
    }

    /// Works out [`Clock::deadline`] again after a change of the clocks'
    /// state other than time accounted.
    #[inline]
    fn refresh(&mut self) {
        self.deadline = self.flag_instant();
    }

    /// The instant the ticking clock reaches zero, worked out from the
    /// clocks as they stand.
    #[inline]
    fn flag_instant(&self) -> Option<Millis> {
        if !self.increment_mode.has_flag() {
            return None;
        }
        let side = self.ticking()?;
        let delay = if self.charged.is_none() {
            *self.delay_left.get(side)
        } else {
            0
        };
        // The periods still to come run after the time on the clock.
        let periods = match self.overtime_of(side) {
            Some(overtime) => {
                let state = self.overtime.get(side);
                let after = if state.in_overtime {
                    state.periods_after
                } else {
                    overtime.periods
                };
                u64::from(after).saturating_mul(overtime.period_ms)
            }
            None => 0,
        };
        // Saturating: an instant near the end of time must not overflow.
        Some(
            self.since
                .saturating_add(delay)
                .saturating_add(self.remaining(side))
                .saturating_add(periods),
        )
    }

    /// `side`'s overtime, where his mode has any (not hourglass nor upcount).
    fn overtime_of(&self, side: Color) -> Option<Overtime> {
        self.control
            .get(side)
            .overtime()
            .filter(|_| self.increment_mode.takes_increments())
    }

    /// Where `side` stands in his overtime at `now`, without changing
    /// anything: `None` before it begins.
    pub fn overtime_at(&self, side: Color, now: Millis) -> Option<(Overtime, OvertimeState)> {
        let overtime = self.overtime_of(side)?;
        let mut ahead = self.clone();
        ahead.advance(now);
        let state = *ahead.overtime.get(side);
        state.in_overtime.then_some((overtime, state))
    }

    /// Accounts the time from the last accounting to `now` to the ticking side.
    #[inline]
    pub fn advance(&mut self, now: Millis) {
        let elapsed = now.saturating_sub(self.since);
        self.since = self.since.max(now);
        // Time that runs moves the instant of the flag not at all: what
        // it takes off the delay, the time and the periods still to come
        // it adds to `since`. Past the flag all is used up, and the flag's
        // instant is the last accounting.
        self.deadline = self.deadline.map(|flag| flag.max(self.since));
        let Some(side) = self.ticking() else { return };
        if self.plain {
            debug_assert_eq!(*self.delay_left.get(side), 0, "no delay in {self:?}");
            let main = self.remaining(side).min(elapsed);
            *self.remaining.get_mut(side) -= main;
            *self.turn_used.get_mut(side) += main;
            *self.used.get_mut(side) += main;
            return;
        }
        // Overtime apart, out of line: the common path (every input
        // accounts time) stays small enough to inline.
        if let Some(overtime) = self.overtime_of(side) {
            self.advance_with_overtime(side, elapsed, overtime);
            return;
        }
        let (delay, main) = self.consumed(side, elapsed);
        *self.delay_left.get_mut(side) -= delay;
        match self.increment_mode {
            IncrementMode::Upcount => {
                let shown = self.remaining.get_mut(side);
                *shown = shown.saturating_add(main);
            }
            IncrementMode::Hourglass => {
                *self.remaining.get_mut(side) -= main;
                let other = self.remaining.get_mut(side.other());
                *other = other.saturating_add(main);
            }
            _ => *self.remaining.get_mut(side) -= main,
        }
        *self.turn_used.get_mut(side) += main;
        *self.used.get_mut(side) += main;
    }

    /// [`Clock::advance`] for a side with overtime (byo-yomi, Canadian: a
    /// mode that takes increments, neither hourglass nor upcount): past the
    /// main time, period after period until the last runs out.
    #[inline(never)]
    fn advance_with_overtime(&mut self, side: Color, elapsed: Millis, overtime: Overtime) {
        let (delay, _) = self.consumed(side, elapsed);
        *self.delay_left.get_mut(side) -= delay;
        let mut left = elapsed - delay;
        loop {
            let take = self.remaining(side).min(left);
            *self.remaining.get_mut(side) -= take;
            *self.turn_used.get_mut(side) += take;
            *self.used.get_mut(side) += take;
            left -= take;
            // At zero the next period begins at once, not a
            // millisecond later: the face never shows a 0 that is no flag.
            if self.remaining(side) > 0 {
                break;
            }
            let state = self.overtime.get_mut(side);
            if !state.in_overtime {
                state.in_overtime = true;
                state.periods_after = overtime.periods - 1;
            } else if state.periods_after > 0 {
                state.periods_after -= 1;
            } else {
                break;
            }
            state.period_moves = 0;
            *self.remaining.get_mut(side) = overtime.period_ms;
        }
    }

    /// How `elapsed` ms of `side` ticking split into delay and main time:
    /// the delay runs first, except while he is charged for displaced pieces.
    fn consumed(&self, side: Color, elapsed: Millis) -> (u64, u64) {
        let delay = if self.charged.is_none() {
            (*self.delay_left.get(side)).min(elapsed)
        } else {
            0
        };
        // Counting up has no zero to stop at.
        let limit = match self.increment_mode {
            IncrementMode::Upcount => u64::MAX,
            _ => self.remaining(side),
        };
        (delay, limit.min(elapsed - delay))
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
        self.refresh();
    }

    #[inline]
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
    #[inline(always)]
    pub fn complete_by_press(&mut self, side: Color, now: Millis) {
        self.advance(now);
        let stage = *self.control.get(side).stage(self.completed(side));
        let bonus = match self.increment_mode {
            IncrementMode::Fischer => stage.increment_ms,
            IncrementMode::Bronstein => (*self.turn_used.get(side)).min(stage.increment_ms),
            IncrementMode::Delay | IncrementMode::Hourglass | IncrementMode::Upcount => 0,
        };
        *self.remaining.get_mut(side) += bonus;
        self.count_move(side);
        *self.delay_left.get_mut(side) = 0;
        self.running = Some(side.other());
        self.begin_turn(side.other());
        self.refresh();
    }

    /// `side` completed a move without pressing (the move ended the game, or
    /// he made his next one): it counts for stages, earns no increment.
    #[inline]
    pub fn count_move(&mut self, side: Color) {
        let completed = self.completed.get_mut(side);
        *completed = completed.saturating_add(1);
        let completed = *completed;
        // Enough moves within a period earn a fresh one.
        if let Some(overtime) = self.overtime_of(side) {
            let state = self.overtime.get_mut(side);
            if state.in_overtime {
                state.period_moves += 1;
                if state.period_moves >= overtime.moves {
                    state.period_moves = 0;
                    *self.remaining.get_mut(side) = overtime.period_ms;
                }
            }
        }
        // Neither the hourglass nor upcount has stages.
        if self.increment_mode.takes_increments() {
            let earned = self.control.get(side).stage_time_earned(completed);
            *self.remaining.get_mut(side) += earned;
        }
        self.refresh();
    }

    /// `side`'s last move was completed by the end of the game: it counts,
    /// and earns no stage time (no clock runs after it).
    pub fn count_final_move(&mut self, side: Color) {
        let completed = self.completed.get_mut(side);
        *completed = completed.saturating_add(1);
        self.refresh();
    }

    /// Gives `side` extra time (7.5.5): in upcount, takes it off his time
    /// used.
    pub fn add(&mut self, side: Color, ms: u64, now: Millis) {
        self.advance(now);
        let remaining = self.remaining.get_mut(side);
        *remaining = match self.increment_mode {
            IncrementMode::Upcount => remaining.saturating_sub(ms),
            _ => *remaining + ms,
        };
        self.refresh();
    }

    /// The arbiter sets `side`'s main time (6.10.2). Nothing else changes:
    /// the delay of a turn in progress still runs first.
    pub fn set_remaining(&mut self, side: Color, ms: u64, now: Millis) {
        self.advance(now);
        *self.remaining.get_mut(side) = ms;
        self.refresh();
    }

    /// The arbiter sets how many moves `side` has completed (6.10.2). The
    /// stage follows the counter, but no stage time is given: the arbiter
    /// sets the time as well.
    pub fn set_completed(&mut self, side: Color, completed: u32) {
        *self.completed.get_mut(side) = completed;
        self.refresh();
    }

    /// Moves `ms` of time used from `from`'s clock to `to`'s (no more than
    /// `to` has left, nor `from` has used): time charged to the wrong
    /// player. Returns the time moved.
    pub fn transfer(&mut self, from: Color, to: Color, ms: u64, now: Millis) -> u64 {
        self.advance(now);
        if self.increment_mode == IncrementMode::Upcount {
            // The clocks show time used: it moves as it is.
            let ms = ms.min(self.remaining(from)).min(*self.used.get(from));
            *self.remaining.get_mut(from) -= ms;
            *self.used.get_mut(from) -= ms;
            *self.remaining.get_mut(to) += ms;
            *self.used.get_mut(to) += ms;
            self.refresh();
            return ms;
        }
        let ms = ms.min(self.remaining(to)).min(*self.used.get(from));
        *self.remaining.get_mut(from) += ms;
        *self.used.get_mut(from) -= ms;
        *self.remaining.get_mut(to) -= ms;
        *self.used.get_mut(to) += ms;
        self.refresh();
        ms
    }

    /// Charges `side` instead of the running clock, or ends the charge.
    pub fn charge(&mut self, side: Option<Color>, now: Millis) {
        self.advance(now);
        self.charged = side;
        self.refresh();
    }

    pub fn pause(&mut self, now: Millis) {
        self.advance(now);
        self.paused = true;
        self.refresh();
    }

    pub fn resume(&mut self, now: Millis) {
        self.advance(now);
        self.paused = false;
        self.refresh();
    }

    /// Both clocks as they stand as a turn begins, to be put back by
    /// [`Clock::restore`].
    pub fn turn_start(&self) -> TurnStart {
        TurnStart {
            remaining: self.remaining,
            completed: self.completed,
            delay_left: self.delay_left.map(|ms| {
                debug_assert!(ms <= u64::from(u32::MAX), "a delay of {ms} ms");
                u32::try_from(ms).unwrap_or(u32::MAX)
            }),
            overtime: self.overtime,
        }
    }

    /// Puts both clocks back as they stood when `start`'s turn began, with
    /// `side`'s turn begun again (a move taken back). A pause stays; a
    /// charge ends.
    pub fn restore(&mut self, start: TurnStart, side: Color, now: Millis) {
        self.advance(now);
        self.remaining = start.remaining;
        self.completed = start.completed;
        self.delay_left = start.delay_left.map(u64::from);
        self.overtime = start.overtime;
        self.turn_used = ByColor::new_with(|_| 0);
        self.running = Some(side);
        self.charged = None;
        self.refresh();
    }

    /// Stops both clocks for good.
    pub fn stop(&mut self, now: Millis) {
        self.advance(now);
        self.running = None;
        self.charged = None;
        self.refresh();
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

    /// The common clock's shortcut accounts time as the general path does:
    /// the same game through both, every figure compared after each step:
    /// past a stage of 40 moves, a charge, a pause, time added, set and
    /// moved, a move taken back, and the flag's fall.
    #[test]
    fn the_plain_shortcut_accounts_as_the_general_path() {
        #[derive(Clone, Copy)]
        enum Step {
            Press,
            Charge,
            Uncharge,
            Pause,
            Resume,
            Add,
            Set,
            Transfer,
            TakeBack,
        }
        let mut steps = vec![Step::Press; 84];
        steps.splice(
            10..10,
            [Step::Charge, Step::Uncharge, Step::Pause, Step::Resume],
        );
        steps.splice(30..30, [Step::Add, Step::Pause, Step::Set, Step::Resume]);
        steps.splice(50..50, [Step::Transfer, Step::TakeBack]);
        for (tc, mode) in [
            ("40/120+30:60+30", IncrementMode::Fischer),
            ("5+3", IncrementMode::Bronstein),
        ] {
            let mut fast = clock(tc, mode);
            assert!(fast.plain, "{tc}");
            let mut general = fast.clone();
            general.plain = false;
            let mut side = Color::White;
            let mut now = 0;
            for c in [&mut fast, &mut general] {
                c.start(side, now);
            }
            let mut start = fast.turn_start();
            for step in steps.iter().copied() {
                now += 1_500;
                for c in [&mut fast, &mut general] {
                    match step {
                        Step::Press => c.complete_by_press(side, now),
                        Step::Charge => c.charge(Some(side.other()), now),
                        Step::Uncharge => c.charge(None, now),
                        Step::Pause => c.pause(now),
                        Step::Resume => c.resume(now),
                        Step::Add => c.add(side, 2_000, now),
                        Step::Set => c.set_remaining(side, 50_000, now),
                        Step::Transfer => {
                            c.transfer(side, side.other(), 700, now);
                        }
                        Step::TakeBack => c.restore(start, side.other(), now),
                    }
                }
                match step {
                    Step::Press => {
                        side = side.other();
                        start = fast.turn_start();
                    }
                    Step::TakeBack => side = side.other(),
                    _ => {}
                }
                for s in Color::ALL {
                    assert_eq!(fast.remaining(s), general.remaining(s), "{tc} at {now}");
                    assert_eq!(fast.used(s), general.used(s), "{tc} at {now}");
                    assert_eq!(fast.completed(s), general.completed(s), "{tc} at {now}");
                    assert_eq!(fast.turn_used.get(s), general.turn_used.get(s));
                }
                assert_eq!(fast.deadline(), general.deadline(), "{tc} at {now}");
            }
            assert!(
                fast.completed(Color::White) > 40,
                "{tc}: past the first stage"
            );
            // The flag falls on both alike.
            let flag = fast.deadline().expect("a clock runs");
            for c in [&mut fast, &mut general] {
                c.advance(flag + 10_000);
            }
            assert_eq!(fast.remaining(side), 0, "{tc}: the flag fell");
            assert_eq!(fast.used(side), general.used(side), "{tc}");
            assert_eq!(fast.deadline(), general.deadline(), "{tc}");
        }
        assert!(!clock("60|5x30s", IncrementMode::Fischer).plain);
        assert!(!clock("60+5", IncrementMode::Delay).plain);
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
    fn the_hourglass_pours_what_one_side_uses_into_the_other() {
        let mut c = clock("60", IncrementMode::Hourglass);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), Some(60_000));
        assert_eq!(c.remaining_at(Color::Black, 10_000), 70_000);
        assert_eq!(c.remaining_at(Color::White, 10_000), 50_000);
        c.complete_by_press(Color::White, 10_000);
        assert_eq!(
            (c.remaining(Color::White), c.remaining(Color::Black)),
            (50_000, 70_000)
        );
        // Black's 70 s run out at 80 s, unless he presses.
        assert_eq!(c.deadline(), Some(80_000));
        c.complete_by_press(Color::Black, 30_000);
        assert_eq!(
            (c.remaining(Color::White), c.remaining(Color::Black)),
            (70_000, 50_000)
        );
        assert_eq!(c.deadline(), Some(100_000));
    }

    #[test]
    fn times_set_near_the_end_of_numbers_do_not_overflow() {
        for mode in [IncrementMode::Upcount, IncrementMode::Hourglass] {
            let mut c = clock("60", mode);
            c.start(Color::White, 0);
            c.set_remaining(Color::White, u64::MAX - 5, 0);
            c.set_remaining(Color::Black, u64::MAX - 5, 0);
            c.advance(1_000);
            assert!(c.remaining_at(Color::Black, 2_000) >= u64::MAX - 5);
            c.complete_by_press(Color::White, 3_000);
            c.advance(9_000);
        }
    }

    #[test]
    fn upcount_counts_the_time_used_and_never_flags() {
        let mut c = clock("60+5", IncrementMode::Upcount);
        assert_eq!(c.remaining(Color::White), 0);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), None);
        assert_eq!(c.remaining_at(Color::White, 7_500), 7_500);
        c.complete_by_press(Color::White, 7_500);
        // No increment: the time used is what it was.
        assert_eq!(c.remaining(Color::White), 7_500);
        c.advance(10_000_000);
        assert_eq!(c.remaining(Color::Black), 10_000_000 - 7_500);
        assert_eq!(c.deadline(), None);
    }

    #[test]
    fn byo_yomi_gives_the_period_back_whole_for_a_move_within_it() {
        let mut c = clock("10|3x5", IncrementMode::Fischer);
        c.start(Color::White, 0);
        // 10 s main, then three periods of 5 s: the flag at 25 s.
        assert_eq!(c.deadline(), Some(25_000));
        // At 12 s White is 2 s into his first period.
        assert_eq!(c.remaining_at(Color::White, 12_000), 3_000);
        assert_eq!(c.overtime_at(Color::White, 9_999), None);
        let (_, state) = c.overtime_at(Color::White, 10_000).unwrap();
        assert_eq!((state.in_overtime, state.periods_after), (true, 2));
        // At 17 s he is 2 s into his second period; he moves.
        c.complete_by_press(Color::White, 17_000);
        assert_eq!(c.remaining(Color::White), 5_000);
        let (_, state) = c.overtime_at(Color::White, 17_000).unwrap();
        assert_eq!(state.periods_after, 1);
        c.complete_by_press(Color::Black, 18_000);
        // His two periods left, 5 s each, from 18 s.
        assert_eq!(c.deadline(), Some(28_000));
    }

    #[test]
    fn canadian_overtime_renews_the_period_after_its_moves() {
        let mut c = clock("10|2/20", IncrementMode::Fischer);
        c.start(Color::White, 0);
        assert_eq!(c.deadline(), Some(30_000));
        c.complete_by_press(Color::White, 15_000);
        // One move of two made in the period: its time runs on, not renewed.
        assert_eq!(c.remaining(Color::White), 15_000);
        c.complete_by_press(Color::Black, 16_000);
        assert_eq!(c.deadline(), Some(31_000));
        c.complete_by_press(Color::White, 20_000);
        // The second: a fresh 20 s, what was left of the old one gone.
        assert_eq!(c.remaining(Color::White), 20_000);
        c.complete_by_press(Color::Black, 21_000);
        assert_eq!(c.deadline(), Some(41_000));
    }

    #[test]
    fn an_increment_only_stage_lives_on_its_increment() {
        // Armageddon +2 s from move 61: 60 moves in 5 min, then 2 s a move.
        let mut c = clock("2/60:0+2", IncrementMode::Fischer);
        c.start(Color::White, 0);
        c.complete_by_press(Color::White, 1_000);
        c.complete_by_press(Color::Black, 2_000);
        c.complete_by_press(Color::White, 3_000);
        // 60 s - 2 s used, no increment in the first stage, nothing earned.
        assert_eq!(c.remaining(Color::White), 58_000);
        c.complete_by_press(Color::Black, 4_000);
        c.complete_by_press(Color::White, 5_000);
        // The third move is in the second stage: +2 s.
        assert_eq!(c.remaining(Color::White), 59_000);
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

    #[test]
    fn the_kept_flag_instant_is_the_one_worked_out_as_time_runs_and_past_it() {
        let controls = [
            ("300+2", IncrementMode::Fischer),
            ("300+5", IncrementMode::Bronstein),
            ("300+5", IncrementMode::Delay),
            ("60", IncrementMode::Hourglass),
            ("60+5", IncrementMode::Upcount),
            ("10|3x5", IncrementMode::Fischer),
            ("10|2/20", IncrementMode::Fischer),
            ("2/60:30", IncrementMode::Fischer),
        ];
        for (tc, mode) in controls {
            let mut c = clock(tc, mode);
            c.start(Color::White, 0);
            let flag = c.deadline();
            // Time accounted in steps up to the flag does not move it...
            for now in (0..=flag.unwrap_or(400_000)).step_by(7_001) {
                c.advance(now);
                assert_eq!(c.deadline(), flag, "{tc} {mode:?} at {now}");
                assert_eq!(c.deadline, c.flag_instant(), "{tc} {mode:?} at {now}");
            }
            c.complete_by_press(Color::White, 9_000);
            c.charge(Some(Color::White), 10_000);
            c.charge(None, 11_000);
            // ...and past it, all is used up: the flag is the last accounting.
            let past = c.deadline().map_or(1_000_000, |flag| flag + 50_000);
            c.advance(past);
            assert_eq!(c.deadline, c.flag_instant(), "{tc} {mode:?} past");
            if mode.has_flag() {
                assert_eq!(c.deadline(), Some(past), "{tc} {mode:?} past");
            }
        }
    }
}
