//! The board's clock mapped onto the host's (protocol § 8.1).
//!
//! A protocol-v1 board stamps every event with its own millisecond clock
//! (the first edge of the change, before debouncing), which is what the
//! referee must rule on: the instant a hand left a piece, not the instant
//! the host got round to reading it, which comes later by a poll period and
//! whatever held the bus. The host reads the board's TIME register now and
//! then and keeps the offset between the two clocks from the reading that
//! took least time on the bus (the narrowest window), since the board
//! latches TIME somewhere inside it.

use crate::Millis;

/// How long a mapping stays good: the board's resonator may drift 0.5 %,
/// 5 ms in a second, so it is read about once a second (§ 8.1).
pub const REFRESH_MS: Millis = 1_000;

/// Sans-IO: readings of the board's clock in, host instants out.
#[derive(Debug, Clone, Default)]
pub struct BoardClock {
    /// A board instant and the host instant it corresponds to.
    reference: Option<(u32, Millis)>,
    /// The width of the window the reference was read in, in ms.
    window: Millis,
    /// When the reference was taken, on the host.
    taken: Millis,
}

impl BoardClock {
    /// A clock with no reading yet: nothing is mapped.
    pub fn new() -> BoardClock {
        BoardClock::default()
    }

    /// The board read `board_ms` on TIME in a transaction that began at
    /// `before` and ended at `after` on the host. A reading replaces a
    /// narrower one only once that one is stale.
    pub fn observe(&mut self, board_ms: u32, before: Millis, after: Millis) {
        let window = after.saturating_sub(before);
        let stale = after.saturating_sub(self.taken) >= REFRESH_MS;
        if self.reference.is_none() || stale || window <= self.window {
            // The board latched TIME within the window: take its middle.
            self.reference = Some((board_ms, before + window / 2));
            self.window = window;
            self.taken = after;
        }
    }

    /// Forgets the mapping (the board was reset: its clock restarted).
    pub fn forget(&mut self) {
        self.reference = None;
    }

    /// Whether the mapping wants a fresh reading at `now`.
    pub fn wants_reading(&self, now: Millis) -> bool {
        self.reference.is_none() || now.saturating_sub(self.taken) >= REFRESH_MS
    }

    /// The host instant of the board's `board_ms`, if a reading maps it.
    /// The board's clock wraps after 49.7 days; differences are taken
    /// modulo 2^32, so an instant within 24 days either side of the
    /// reference maps correctly across a wrap.
    pub fn to_host(&self, board_ms: u32) -> Option<Millis> {
        let (reference, host) = self.reference?;
        let delta = i64::from(board_ms.wrapping_sub(reference) as i32);
        Some(host.saturating_add_signed(delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_instants_map_through_the_narrowest_reading_and_across_a_wrap() {
        let mut clock = BoardClock::new();
        assert_eq!(clock.to_host(5), None, "nothing maps before a reading");
        assert!(clock.wants_reading(0));
        // The board read 10_000 somewhere in host 500..=504.
        clock.observe(10_000, 500, 504);
        assert_eq!(clock.to_host(10_000), Some(502));
        assert_eq!(clock.to_host(9_990), Some(492));
        // A narrower window is better; a wider one is ignored while fresh.
        clock.observe(10_100, 600, 601);
        assert_eq!(clock.to_host(10_100), Some(600));
        clock.observe(10_200, 700, 720);
        assert_eq!(
            clock.to_host(10_100),
            Some(600),
            "the wide reading is ignored"
        );
        assert!(!clock.wants_reading(1_500));
        assert!(clock.wants_reading(1_601));
        // Once stale, any reading replaces it: here across the wrap.
        clock.observe(u32::MAX - 9, 2_000, 2_002);
        assert_eq!(clock.to_host(u32::MAX - 9), Some(2_001));
        assert_eq!(clock.to_host(5), Some(2_001 + 15), "after the wrap");
        clock.forget();
        assert_eq!(clock.to_host(5), None);
    }
}
