//! The loop's deadlines, each by name, so the loop sleeps until the
//! earliest and asks which are due.

use crate::Millis;

/// Something the loop does at a set instant of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// The buzzer goes quiet.
    BuzzerOff,
    /// systemd's watchdog wants to hear from the loop.
    Watchdog,
    /// The board's occupancy is read in full, to notice a lost last frame.
    Occupancy,
    /// The board's clock is read again, to map its times onto the loop's.
    BoardClock,
    /// The hall's pairing of the board is looked at again.
    Pairing,
}

const TIMERS: usize = 5;

impl Timer {
    const fn index(self) -> usize {
        match self {
            Timer::BuzzerOff => 0,
            Timer::Watchdog => 1,
            Timer::Occupancy => 2,
            Timer::BoardClock => 3,
            Timer::Pairing => 4,
        }
    }
}

/// One optional deadline per [`Timer`].
#[derive(Debug, Clone, Default)]
pub struct Timers {
    due: [Option<Millis>; TIMERS],
}

impl Timers {
    /// Sets `timer` for `at`, replacing what it was set for.
    pub fn set(&mut self, timer: Timer, at: Millis) {
        self.due[timer.index()] = Some(at);
    }

    /// Sets `timer` for `at` unless it is already due sooner.
    pub fn set_earliest(&mut self, timer: Timer, at: Millis) {
        let slot = &mut self.due[timer.index()];
        *slot = Some(slot.map_or(at, |due| due.min(at)));
    }

    /// Sets `timer` for `at` unless it is already due later.
    pub fn set_latest(&mut self, timer: Timer, at: Millis) {
        let slot = &mut self.due[timer.index()];
        *slot = Some(slot.map_or(at, |due| due.max(at)));
    }

    /// Unsets `timer`.
    pub fn clear(&mut self, timer: Timer) {
        self.due[timer.index()] = None;
    }

    /// When `timer` is due, if it is set.
    pub fn get(&self, timer: Timer) -> Option<Millis> {
        self.due[timer.index()]
    }

    /// Whether `timer` is set and due at `now`; a due timer is unset.
    pub fn take_due(&mut self, timer: Timer, now: Millis) -> bool {
        let slot = &mut self.due[timer.index()];
        if slot.is_some_and(|due| now >= due) {
            *slot = None;
            true
        } else {
            false
        }
    }

    /// The earliest of `at` and the deadlines set: what the loop asks at
    /// every pass, without an `Option` to unwrap for each.
    #[inline]
    pub fn earliest_before(&self, at: Millis) -> Millis {
        self.due.iter().fold(at, |soonest, due| {
            due.map_or(soonest, |due| soonest.min(due))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_is_the_minimum_of_what_is_set_and_a_due_timer_is_taken_once() {
        let mut timers = Timers::default();
        assert_eq!(timers.earliest_before(1_000), 1_000, "none set");
        timers.set(Timer::Occupancy, 100);
        timers.set(Timer::Watchdog, 40);
        timers.set_earliest(Timer::Occupancy, 120);
        assert_eq!(
            timers.get(Timer::Occupancy),
            Some(100),
            "set_earliest keeps the sooner"
        );
        timers.set_latest(Timer::BuzzerOff, 80);
        timers.set_latest(Timer::BuzzerOff, 60);
        assert_eq!(
            timers.get(Timer::BuzzerOff),
            Some(80),
            "set_latest keeps the later"
        );
        assert_eq!(timers.earliest_before(1_000), 40);
        assert_eq!(timers.earliest_before(30), 30);
        assert!(!timers.take_due(Timer::Watchdog, 39));
        assert!(timers.take_due(Timer::Watchdog, 40));
        assert!(!timers.take_due(Timer::Watchdog, 41), "taken once");
        assert_eq!(timers.earliest_before(1_000), 80);
        timers.clear(Timer::BuzzerOff);
        assert_eq!(timers.earliest_before(1_000), 100);
    }
}
