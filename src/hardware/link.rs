//! Keeping a sensor board talking: an I2C error never stops the clock.
//!
//! The link polls the board on schedule, backs off after bus errors, calls
//! the board disconnected after repeated failures (the face says so and the
//! clock keeps timing), and recovers by itself when the board answers again.
//! The drivers resynchronise from the board's own state, so what changed
//! while it was away reaches the referee as lifts and places: a changed
//! position is then a displacement to restore (7.4.1).
//!
//! The link also keeps the board's clock mapped onto the loop's
//! ([`BoardClock`], protocol § 8.1), so that what it hands on is already
//! in the loop's time ([`BoardLink::at`]): the instant a hand left a
//! piece, not the instant the bus let it be read.

use super::board_clock::BoardClock;
use super::{BoardEvent, SensorBoard};
use crate::Millis;
use crate::controls::LinkChange;

/// When to poll and when to give up for a while.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPolicy {
    /// The normal polling period.
    pub poll_every_ms: Millis,
    /// The wait after the first failure; it doubles with each further one.
    pub first_backoff_ms: Millis,
    /// The longest wait between attempts while the board does not answer.
    pub max_backoff_ms: Millis,
    /// Consecutive failures after which the board is called disconnected.
    pub failures_to_disconnect: u32,
}

impl Default for LinkPolicy {
    fn default() -> LinkPolicy {
        LinkPolicy {
            poll_every_ms: 5,
            first_backoff_ms: 10,
            max_backoff_ms: 1_000,
            failures_to_disconnect: 5,
        }
    }
}

/// A sensor board behind retries, backoff and a connected/disconnected state.
#[derive(Debug)]
pub struct BoardLink<B> {
    board: B,
    policy: LinkPolicy,
    failures: u32,
    next_poll: Millis,
    connected: bool,
    errors: u64,
    /// The board's clock mapped onto the loop's.
    clock: BoardClock,
}

impl<B: SensorBoard> BoardLink<B> {
    /// A link that polls `board` first at instant 0.
    pub fn new(board: B, policy: LinkPolicy) -> BoardLink<B> {
        BoardLink {
            board,
            policy,
            failures: 0,
            next_poll: 0,
            connected: true,
            errors: 0,
            clock: BoardClock::new(),
        }
    }

    /// When and how it polls.
    pub fn policy(&self) -> &LinkPolicy {
        &self.policy
    }

    /// Polls every `ms` from the next poll on.
    pub fn set_poll_every(&mut self, ms: Millis) {
        self.policy.poll_every_ms = ms;
    }

    /// When the board should be polled next.
    pub fn next_poll(&self) -> Millis {
        self.next_poll
    }

    /// Whether the board is answering.
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// Every failed poll so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Polls the board if it is due at `now`, appending what it saw to `out`.
    /// Errors are absorbed here: they only delay the next attempt.
    pub fn poll(&mut self, now: Millis, out: &mut Vec<BoardEvent>) -> Option<LinkChange> {
        if now < self.next_poll {
            return None;
        }
        match self.board.poll_stamped(out) {
            Ok(()) => {
                self.failures = 0;
                self.next_poll = now + self.policy.poll_every_ms;
                if self.connected {
                    None
                } else {
                    self.connected = true;
                    Some(LinkChange::Reconnected)
                }
            }
            Err(_) => {
                self.errors += 1;
                self.failures = self.failures.saturating_add(1);
                let doublings = (self.failures - 1).min(16);
                let backoff =
                    (self.policy.first_backoff_ms << doublings).min(self.policy.max_backoff_ms);
                self.next_poll = now + backoff;
                if self.connected && self.failures >= self.policy.failures_to_disconnect {
                    self.connected = false;
                    Some(LinkChange::Disconnected)
                } else {
                    None
                }
            }
        }
    }

    /// Polls the board now, ahead of its schedule: a lever press, whose
    /// move must reach the referee before it, or the board's interrupt.
    /// A link backing off after failures keeps its wait.
    pub fn poll_now(&mut self, now: Millis, out: &mut Vec<BoardEvent>) -> Option<LinkChange> {
        if self.failures == 0 {
            self.next_poll = self.next_poll.min(now);
        }
        self.poll(now, out)
    }

    /// Reads the board now even while backing off: a lever was pressed, and
    /// the move the hand made before it must reach the referee first, so a
    /// short outage must not hold it back behind the backoff's wait. Says
    /// whether the board answered. A failure here counts as an error but
    /// neither lengthens the backoff nor brings the disconnection closer:
    /// only the link's own schedule decides that.
    pub fn poll_through(
        &mut self,
        now: Millis,
        out: &mut Vec<BoardEvent>,
    ) -> (bool, Option<LinkChange>) {
        if self.failures == 0 {
            self.next_poll = self.next_poll.min(now);
            let change = self.poll(now, out);
            return (self.failures == 0, change);
        }
        match self.board.poll_stamped(out) {
            Ok(()) => {
                self.failures = 0;
                self.next_poll = now + self.policy.poll_every_ms;
                let change = (!self.connected).then_some(LinkChange::Reconnected);
                self.connected = true;
                (true, change)
            }
            Err(_) => {
                self.errors += 1;
                (false, None)
            }
        }
    }

    /// The instant of `event` on the loop's clock, for a change read by a
    /// poll that ended at `read_at`: the board's own time of the change,
    /// where it keeps one and a reading of its clock maps it, but never
    /// later than its reading; otherwise `read_at`.
    pub fn at(&self, event: &BoardEvent, read_at: Millis) -> Millis {
        self.at_board_ms(event.board_ms, read_at)
    }

    /// The same for anything else the board stamped `board_ms` on its own
    /// clock (a DGT 3000's lever reported through the board).
    pub fn at_board_ms(&self, board_ms: Option<u32>, read_at: Millis) -> Millis {
        board_ms
            .and_then(|ms| self.clock.to_host(ms))
            .map_or(read_at, |at| at.min(read_at))
    }

    /// The board's clock read `board_ms` in a transaction that began at
    /// `before` and ended at `after` on the loop's clock; `anew`: in place
    /// of the mapping so far, which a reset of the board may have made
    /// wrong.
    pub fn board_clock_read(&mut self, board_ms: u32, before: Millis, after: Millis, anew: bool) {
        if anew {
            self.clock.forget();
        }
        self.clock.observe(board_ms, before, after);
    }

    /// Whether the mapping of the board's clock wants a fresh reading at
    /// `now` ([`SensorBoard::board_time`], then
    /// [`BoardLink::board_clock_read`]).
    pub fn wants_board_clock(&self, now: Millis) -> bool {
        self.clock.wants_reading(now)
    }

    /// The board, to read its occupancy afresh.
    pub fn board_mut(&mut self) -> &mut B {
        &mut self.board
    }

    /// The board, for its counters and identity.
    pub fn board(&self) -> &B {
        &self.board
    }

    /// Gives the board back.
    pub fn release(self) -> B {
        self.board
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Bitboard;

    /// A board that fails while `down` is set and reports nothing otherwise.
    #[derive(Default)]
    struct Flaky {
        down: bool,
        polls: u32,
    }

    impl SensorBoard for Flaky {
        type Error = ();

        fn poll_stamped(&mut self, _out: &mut Vec<BoardEvent>) -> Result<(), ()> {
            self.polls += 1;
            if self.down { Err(()) } else { Ok(()) }
        }

        fn occupancy(&mut self) -> Result<Bitboard, ()> {
            Ok(Bitboard::EMPTY)
        }
    }

    #[test]
    fn poll_now_polls_ahead_of_schedule_but_not_during_a_backoff() {
        let mut link = BoardLink::new(Flaky::default(), LinkPolicy::default());
        let mut out = Vec::new();
        link.poll(0, &mut out);
        // Near miss: on schedule, nothing before 5 ms.
        link.poll(2, &mut out);
        assert_eq!(link.board.polls, 1);
        link.poll_now(2, &mut out);
        assert_eq!(link.board.polls, 2);
        assert_eq!(
            link.next_poll(),
            7,
            "the schedule counts from the early poll"
        );

        link.board.down = true;
        link.poll(7, &mut out);
        assert_eq!(link.next_poll(), 17, "backing off 10 ms");
        link.poll_now(9, &mut out);
        assert_eq!(link.board.polls, 3, "a failing board is left alone");
        assert_eq!(link.next_poll(), 17);
    }

    #[test]
    fn failures_back_off_doubling_up_to_the_cap_then_disconnect() {
        let mut link = BoardLink::new(
            Flaky {
                down: true,
                ..Flaky::default()
            },
            LinkPolicy::default(),
        );
        let mut out = Vec::new();
        let mut attempts = Vec::new();
        let mut changes = Vec::new();
        for now in 0..5_000 {
            if now == link.next_poll() {
                attempts.push(now);
            }
            if let Some(change) = link.poll(now, &mut out) {
                changes.push((now, change));
            }
        }
        assert_eq!(&attempts[..8], [0, 10, 30, 70, 150, 310, 630, 1_270]);
        // Capped at one attempt a second.
        assert_eq!(attempts[8] - attempts[7], 1_000);
        assert_eq!(changes, [(150, LinkChange::Disconnected)]);
        assert!(!link.is_connected());
    }

    #[test]
    fn a_board_that_answers_again_reconnects_and_polls_normally() {
        let mut link = BoardLink::new(
            Flaky {
                down: true,
                ..Flaky::default()
            },
            LinkPolicy::default(),
        );
        let mut out = Vec::new();
        for now in 0..200 {
            link.poll(now, &mut out);
        }
        assert!(!link.is_connected());
        link.board.down = false;
        let mut reconnected = None;
        for now in 200..2_000 {
            if link.poll(now, &mut out) == Some(LinkChange::Reconnected) {
                reconnected = Some(now);
                break;
            }
        }
        // The next attempt after the failure at 150 was at 310.
        assert_eq!(reconnected, Some(310));
        assert_eq!(link.next_poll(), 315);
        // Near miss: a single failure does not disconnect.
        link.board.down = true;
        assert_eq!(link.poll(315, &mut out), None);
        assert!(link.is_connected());
    }

    #[test]
    fn changes_are_at_the_board_s_own_time_once_its_clock_is_read() {
        use crate::Input;
        use shakmaty::Square;
        let mut link = BoardLink::new(Flaky::default(), LinkPolicy::default());
        let lift = |board_ms| BoardEvent {
            input: Input::Lift(Square::E2),
            board_ms,
        };
        // No reading of the board's clock yet: when it was read.
        assert!(link.wants_board_clock(0));
        assert_eq!(link.at(&lift(Some(7_000)), 1_310), 1_310);
        // The board read 7_500 within 1_000..=1_002 of the loop's clock.
        link.board_clock_read(7_500, 1_000, 1_002, false);
        assert!(!link.wants_board_clock(1_500));
        assert_eq!(link.at(&lift(Some(7_800)), 1_310), 1_301);
        // Never later than its reading; a board without a clock: read.
        assert_eq!(link.at(&lift(Some(9_000)), 1_310), 1_310);
        assert_eq!(link.at(&lift(None), 1_310), 1_310);
        // The board was reset: its clock restarted, the mapping is anew.
        link.board_clock_read(20, 1_400, 1_400, true);
        assert_eq!(link.at(&lift(Some(10)), 1_410), 1_390);
    }

    #[test]
    fn poll_through_reads_a_backing_off_board_without_hastening_its_disconnection() {
        let mut link = BoardLink::new(Flaky::default(), LinkPolicy::default());
        let mut out = Vec::new();
        link.poll(0, &mut out);
        link.board.down = true;
        link.poll(5, &mut out);
        assert_eq!(link.next_poll(), 15, "backing off 10 ms");
        // A press: read now, through the backoff.
        for now in 6..12 {
            assert_eq!(link.poll_through(now, &mut out), (false, None));
        }
        assert_eq!(link.board.polls, 2 + 6);
        assert!(
            link.is_connected(),
            "forced reads do not count to the disconnection"
        );
        assert_eq!(link.next_poll(), 15, "nor move the schedule");
        link.board.down = false;
        assert_eq!(link.poll_through(12, &mut out), (true, None));
        assert_eq!(
            link.next_poll(),
            17,
            "answered: back on the normal schedule"
        );
        assert_eq!(link.errors(), 7);
    }
}
