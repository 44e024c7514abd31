//! When the loop reads the board: the polling policy on top of the link's
//! schedule (protocol § 9.3).
//!
//! - Without the interrupt line the board is polled every `board.poll_ms`
//!   in a game, at most every [`SETUP_POLL_MS`] on the setup screen.
//! - With the line, the board is read on its falling edge, and polled only
//!   every [`INTERRUPT_POLL_MS`] as a safety net, taken early at a wakeup
//!   the loop has anyway; a poll that brought news is followed by another
//!   at once (the line stays low without a new edge while frames wait). If
//!   the safety net keeps finding news no edge announced, the line does not
//!   fall (not wired, a broken wire): back to polling, with a warning.

use crate::Millis;

/// How often a board with its interrupt line wired is polled anyway, in
/// case an edge is missed.
pub const INTERRUPT_POLL_MS: Millis = 100;
/// With no game in play the board is polled this often instead of every
/// `board.poll_ms`: only the setup screen's check of the pieces reads it,
/// and the press that starts a game polls it at once. A club's clock idles
/// for hours between rounds; this spares it most of its wakeups.
pub const SETUP_POLL_MS: Millis = 50;
/// With the interrupt line configured, this many safety-net polls in a row
/// that find news no edge announced mean the line does not fall.
pub const EDGE_MISSES_TO_POLL: u32 = 3;

/// Why the board is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollReason {
    /// Its turn on the link's schedule.
    Schedule,
    /// The last poll brought news; there may be more.
    Drain,
    /// Its interrupt line fell.
    Edge,
    /// A lever or button went down: the move must reach the referee first.
    Press,
}

/// The policy's state.
#[derive(Debug, Clone, Default)]
pub struct Polling {
    /// When the board was last polled, if ever.
    last_poll: Option<Millis>,
    /// The last poll brought news: poll again at once.
    drain: bool,
    /// With the interrupt line: how often to poll if it turns out not to
    /// fall, and the safety-net polls in a row that found unannounced news.
    interrupt_line: Option<(Millis, u32)>,
}

impl Polling {
    /// Polling as the link's schedule says, with no interrupt line.
    pub fn new() -> Polling {
        Polling::default()
    }

    /// Expects the interrupt line to announce the board's news; falls back
    /// to polling every `poll_ms` if it does not.
    pub fn with_interrupt_line(poll_ms: Millis) -> Polling {
        Polling {
            interrupt_line: Some((poll_ms, 0)),
            ..Polling::default()
        }
    }

    /// When the board is next due, given the link's own schedule
    /// (`link_due`) and whether a game is in play.
    pub fn next_poll(&self, link_due: Millis, in_game: bool) -> Millis {
        match (self.drain, self.last_poll) {
            (true, Some(last)) => last,
            (_, Some(last)) if !in_game => link_due.max(last + SETUP_POLL_MS),
            _ => link_due,
        }
    }

    /// Whether a poll is pending because the last one brought news.
    pub fn draining(&self) -> bool {
        self.drain
    }

    /// How early a scheduled poll may be taken, for a link that polls every
    /// `every` ms. Polling every few milliseconds is how the board is heard
    /// at all: never early. A safety net every 100 ms or so may come up to
    /// half its period early, at a wakeup the loop has anyway.
    pub fn slack(every: Millis) -> Millis {
        if every >= INTERRUPT_POLL_MS {
            every / 2
        } else {
            0
        }
    }

    /// A poll for `reason` at `now` brought `news` (or not). Returns the
    /// period to poll at from now on if the interrupt line turned out not
    /// to fall.
    pub fn polled(&mut self, now: Millis, reason: PollReason, news: bool) -> Option<Millis> {
        self.last_poll = Some(now);
        self.drain = news;
        if !news {
            return None;
        }
        let (poll_ms, misses) = self.interrupt_line.as_mut()?;
        match reason {
            PollReason::Edge => *misses = 0,
            PollReason::Schedule => *misses += 1,
            PollReason::Drain | PollReason::Press => {}
        }
        if *misses < EDGE_MISSES_TO_POLL {
            return None;
        }
        let poll_ms = *poll_ms;
        tracing::warn!(
            "the board's interrupt line does not fall (is it wired to board.interrupt_pin?); \
             polling the board every {poll_ms} ms"
        );
        self.interrupt_line = None;
        Some(poll_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn news_found_only_by_the_safety_net_three_times_falls_back_to_polling() {
        let mut polling = Polling::with_interrupt_line(5);
        assert_eq!(polling.polled(100, PollReason::Schedule, true), None);
        assert_eq!(polling.polled(200, PollReason::Schedule, true), None);
        // An edge in between proves the line works: the count starts over.
        assert_eq!(polling.polled(250, PollReason::Edge, true), None);
        assert_eq!(polling.polled(300, PollReason::Schedule, true), None);
        assert_eq!(polling.polled(400, PollReason::Schedule, true), None);
        assert_eq!(polling.polled(500, PollReason::Schedule, true), Some(5));
        // Given up once: no more warnings.
        assert_eq!(polling.polled(600, PollReason::Schedule, true), None);
    }

    #[test]
    fn news_is_drained_at_once_and_the_setup_screen_polls_slowly() {
        let mut polling = Polling::new();
        assert_eq!(polling.next_poll(0, false), 0, "the first poll at once");
        polling.polled(10, PollReason::Schedule, false);
        assert_eq!(polling.next_poll(15, false), 60, "setup: every 50 ms");
        assert_eq!(
            polling.next_poll(15, true),
            15,
            "in a game: the link's schedule"
        );
        polling.polled(20, PollReason::Edge, true);
        assert!(polling.draining());
        assert_eq!(polling.next_poll(25, true), 20, "news: again at once");
        assert_eq!(Polling::slack(5), 0);
        assert_eq!(Polling::slack(100), 50);
    }
}
