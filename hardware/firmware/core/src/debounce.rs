//! Raw scans of 64 sensors → changes confirmed stable.

/// Debounces 64 sensors at once: a square's change is confirmed once its raw
/// reading has differed from the stable state and kept still for the
/// debounce time since its last edge; it is stamped with its *first* edge,
/// as § 6.1 asks. A glitch that returns to the stable state and stays there
/// for the debounce time is forgotten.
#[derive(Debug, Clone)]
pub struct Debouncer {
    debounce_ms: u32,
    stable: u64,
    raw: u64,
    /// Squares whose raw reading left the stable state and has not settled.
    pending: u64,
    first_edge: [u32; 64],
    last_edge: [u32; 64],
}

impl Debouncer {
    /// Sensors that read `initial` at power-up, taken as stable.
    pub fn new(debounce_ms: u32, initial: u64) -> Self {
        Debouncer {
            debounce_ms,
            stable: initial,
            raw: initial,
            pending: 0,
            first_edge: [0; 64],
            last_edge: [0; 64],
        }
    }

    /// The debounced state: bit *i* for square *i*.
    pub fn stable(&self) -> u64 {
        self.stable
    }

    /// One scan read `raw` at `now` (ms, wrapping): returns the squares whose
    /// change was confirmed by it; their new state is in [`stable`](Self::stable)
    /// and the time of their first edge in [`first_edge`](Self::first_edge).
    pub fn scan(&mut self, now: u32, raw: u64) -> u64 {
        for sq in Squares(raw ^ self.raw) {
            self.last_edge[sq] = now;
        }
        let started = (raw ^ self.stable) & !self.pending;
        for sq in Squares(started) {
            self.first_edge[sq] = now;
        }
        self.pending |= started;
        self.raw = raw;
        let mut confirmed = 0;
        for sq in Squares(self.pending) {
            if now.wrapping_sub(self.last_edge[sq]) >= self.debounce_ms {
                let bit = 1 << sq;
                self.pending &= !bit;
                if (raw ^ self.stable) & bit != 0 {
                    self.stable ^= bit;
                    confirmed |= bit;
                }
            }
        }
        confirmed
    }

    /// When the confirmed change on `sq` began (its first edge), in ms.
    pub fn first_edge(&self, sq: usize) -> u32 {
        self.first_edge[sq & 63]
    }
}

/// The set bits of a bitboard, lowest first.
pub(crate) struct Squares(pub u64);

impl Iterator for Squares {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E2: u64 = 1 << 12;

    #[test]
    fn a_clean_change_is_confirmed_after_the_debounce_time_stamped_at_its_edge() {
        let mut d = Debouncer::new(20, E2);
        assert_eq!(d.scan(100, 0), 0);
        assert_eq!(d.scan(110, 0), 0);
        assert_eq!(d.scan(119, 0), 0);
        assert_eq!(d.scan(120, 0), E2);
        assert_eq!(d.first_edge(12), 100);
        assert_eq!(d.stable(), 0);
        assert_eq!(d.scan(140, 0), 0, "confirmed once");
    }

    #[test]
    fn bounce_is_swallowed_and_the_first_edge_kept() {
        let mut d = Debouncer::new(20, E2);
        // A reed switch opening: 0, 1, 0, 1, 0 over 8 ms, then still.
        for (t, raw) in [(100, 0), (102, E2), (104, 0), (106, E2), (108, 0)] {
            assert_eq!(d.scan(t, raw), 0);
        }
        assert_eq!(d.scan(127, 0), 0, "19 ms after the last edge");
        assert_eq!(d.scan(128, 0), E2);
        assert_eq!(d.first_edge(12), 100);
    }

    #[test]
    fn a_glitch_back_to_the_stable_state_is_forgotten() {
        let mut d = Debouncer::new(20, E2);
        assert_eq!(d.scan(100, 0), 0);
        assert_eq!(d.scan(102, E2), 0);
        assert_eq!(d.scan(130, E2), 0, "still occupied: nothing to report");
        assert_eq!(d.stable(), E2);
        // A later real lift is stamped at its own edge, not the glitch's.
        assert_eq!(d.scan(200, 0), 0);
        assert_eq!(d.scan(220, 0), E2);
        assert_eq!(d.first_edge(12), 200);
    }

    #[test]
    fn squares_are_independent_and_time_wraps() {
        let mut d = Debouncer::new(20, 0);
        let start = u32::MAX - 5;
        assert_eq!(d.scan(start, 1), 0);
        assert_eq!(d.scan(start.wrapping_add(10), 1 | 1 << 63), 0);
        assert_eq!(d.scan(start.wrapping_add(20), 1 | 1 << 63), 1);
        assert_eq!(d.scan(start.wrapping_add(30), 1 | 1 << 63), 1 << 63);
        assert_eq!(d.first_edge(63), start.wrapping_add(10));
    }

    #[test]
    fn zero_debounce_confirms_at_once() {
        let mut d = Debouncer::new(0, 0);
        assert_eq!(d.scan(5, E2), E2);
        assert_eq!(d.first_edge(12), 5);
    }
}
