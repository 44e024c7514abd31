//! The board's news before a press, sans-IO: the order in which what the
//! hands did reaches the referee.
//!
//! A hand moves a piece and then presses its lever, so a press is ruled
//! only once the board has been read after it: the move reaches the
//! referee first, stamped with the board's own time. While the board does
//! not answer (a burst of NACKs, a reset), the press waits and the board is
//! tried again every [`PRESS_RETRY_MS`]; only once the link calls the board
//! disconnected, and the press has waited [`PRESS_WAITS_MS`], is it ruled
//! without it. A board that answers but says its news is not all in yet
//! ([`crate::hardware::SensorBoard::news_pending`]: a DGT board's dump on
//! its way after a lost message, the changes behind it held back) holds
//! the press the same way, for [`PENDING_WAITS_MS`] at most.
//!
//! [`BoardNews`] keeps that order and nothing else: presses and the
//! outcome of each board read go in with their instants, presses ready to
//! be ruled come out of [`BoardNews::poll_press`], and
//! [`BoardNews::next_deadline`] says when the board is next to be tried
//! for a waiting press. It also says how far the referee's time may be
//! taken without an input ([`BoardNews::checkpoint`]): no further than the
//! board's news is complete, since the referee's time never goes back. It
//! reads no clock and does no IO; the daemon's loop does both.

use std::collections::VecDeque;

use crate::Millis;
use crate::controls::Button;
use crate::hardware::buttons::ButtonPress;

/// While a press waits for a board that does not answer, the board is
/// tried again this often, whatever the link's backoff.
pub const PRESS_RETRY_MS: Millis = 5;
/// How long a press waits for a board the link has called disconnected
/// before it is ruled without it. The link gives up after a few failed
/// polls (a fraction of a second), but a burst of NACKs, a stuck line or a
/// board's reset often lasts longer than that and then ends: a press ruled
/// without the board then would find no move and cost the player the game
/// (7.5.3), for a move the board reports a moment later.
pub const PRESS_WAITS_MS: Millis = 2_000;

/// How long a press waits for a board that answers but says its news is
/// still coming (a DGT board resynchronising). A DGT board's dump is 70 ms
/// of line at 9600 baud, asked at once after a fault and again after
/// [`crate::hardware::dgt::DUMP_LOST_MS`] if it was lost: one lost dump and
/// its second asking fit in half a second; a board stuck resynchronising
/// longer (a line so noisy that every dump is cut) must not stop the
/// clock, so the press is then ruled on what is known, at its own instant
/// (the time it waited is charged to nobody).
pub const PENDING_WAITS_MS: Millis = 1_000;

// A checkpoint's clock runs at most PRESS_WAITS_MS past the board's news,
// and a restore believes it no further than RAN_TO_AT_MOST_MS: the one
// must fit in the other.
const _: () = assert!(PRESS_WAITS_MS <= crate::transcript::RAN_TO_AT_MOST_MS);
const _: () = assert!(PENDING_WAITS_MS <= PRESS_WAITS_MS);

/// A press the board's news has caught up with: rule it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pressed {
    /// Which control.
    pub button: Button,
    /// The instant to rule it at: its own, but never before what the
    /// referee has already been given.
    pub at: Millis,
    /// Its own instant, as the hardware stamped it (for the latency from
    /// the press to the face).
    pub pressed_at: std::time::Duration,
}

/// How far a checkpoint may take the game at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    /// How far the referee's time may go: the board's news is complete up
    /// to here.
    pub news_to: Millis,
    /// How far the running clock is known to have run: now, or the oldest
    /// press still waiting for the board (which may have stopped it).
    pub ran_to: Millis,
}

/// The order of the board's news and the presses, between board reads.
#[derive(Debug, Clone, Default)]
pub struct BoardNews {
    /// Presses waiting for the board to be read, oldest first.
    held: VecDeque<ButtonPress>,
    /// The latest instant handed on, so that what is stamped earlier (read
    /// late) keeps its order.
    last_fed: Millis,
    /// When the board last answered a read with no news: every change it
    /// made before then has been read.
    heard: Millis,
    /// Whether the latest read of the board answered.
    answered: bool,
    /// Whether, at the latest read, the board said more news was coming.
    pending: bool,
    /// When the board is to be tried again for a waiting press.
    retry_at: Option<Millis>,
}

impl BoardNews {
    /// Nothing held, nothing heard.
    pub fn new() -> BoardNews {
        BoardNews::default()
    }

    /// A lever or a button went down: it waits for the next read of the
    /// board.
    pub fn press(&mut self, press: ButtonPress) {
        self.held.push_back(press);
    }

    /// Whether a press waits for the board. Meanwhile no time is handed to
    /// the referee (a flag waits: the press may have come in time).
    pub fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// The board was read at `now`: it `answered`, with `news` or without,
    /// and said whether more of its news is on its way (`pending`).
    pub fn board_read(&mut self, now: Millis, answered: bool, news: bool, pending: bool) {
        self.answered = answered;
        self.pending = answered && pending;
        if answered && !news && !pending {
            self.heard = self.heard.max(now);
        }
    }

    /// The instant to hand on a change the board stamped `at` (its own
    /// clock mapped onto the loop's, or when it was read): never before
    /// what has already been handed on.
    pub fn board_change(&mut self, at: Millis) -> Millis {
        let at = at.max(self.last_fed);
        self.last_fed = at;
        at
    }

    /// The next press to rule at `now`, once the latest read of the board
    /// answered with nothing pending (or the oldest press has waited
    /// [`PENDING_WAITS_MS`] for what was), or once the board is
    /// `connected` no more and the oldest press has waited
    /// [`PRESS_WAITS_MS`]. `None`: nothing waits, or it
    /// waits on, and the board is to be tried again at
    /// [`BoardNews::next_deadline`].
    pub fn poll_press(&mut self, now: Millis, connected: bool) -> Option<Pressed> {
        let oldest = ms(self.held.front()?.at);
        let waited = now.saturating_sub(oldest);
        if !self.answered && (connected || waited < PRESS_WAITS_MS)
            || self.pending && waited < PENDING_WAITS_MS
        {
            self.retry_at = Some(now + PRESS_RETRY_MS);
            return None;
        }
        self.retry_at = None;
        let press = self.held.pop_front()?;
        // A press stamped after the instant it was taken in (a clock read
        // before the edge's timestamp) is ruled when it was taken in.
        let own = ms(press.at).min(now);
        Some(Pressed {
            button: press.button,
            at: self.board_change(own),
            pressed_at: press.at,
        })
    }

    /// When the board is next to be tried for a waiting press.
    pub fn next_deadline(&self) -> Option<Millis> {
        self.retry_at.filter(|_| self.is_holding())
    }

    /// How far a checkpoint at `now` may take the game: the referee's time
    /// up to the board's last answer with nothing left to read, and the
    /// running clock up to now (or the oldest waiting press).
    ///
    /// Beyond the board's last answer, a board that is being retried may
    /// still report a move made meanwhile, and the referee, whose time
    /// never goes back, would take it at the later instant: a press soon
    /// after would seem to follow a release it did not (a false 6.2.3). A
    /// board silent for longer than a press would wait for it
    /// ([`PRESS_WAITS_MS`]) holds the referee's time back no more. The
    /// clock ran on regardless: `ran_to` says how far, so that a power cut
    /// gives back no more while the board is silent than while it answers.
    pub fn checkpoint(&self, now: Millis) -> Horizon {
        let ran_to = self.held.front().map_or(now, |press| ms(press.at).min(now));
        let news_to = self
            .heard
            .max(now.saturating_sub(PRESS_WAITS_MS))
            .min(ran_to);
        Horizon { news_to, ran_to }
    }
}

fn ms(at: std::time::Duration) -> Millis {
    at.as_millis() as Millis
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use shakmaty::Color;

    use super::*;

    fn lever(side: Color, at: Millis) -> ButtonPress {
        ButtonPress {
            button: Button::Lever(side),
            at: Duration::from_millis(at),
        }
    }

    fn pressed(side: Color, own: Millis, at: Millis) -> Pressed {
        Pressed {
            button: Button::Lever(side),
            at,
            pressed_at: Duration::from_millis(own),
        }
    }

    #[test]
    fn a_press_waits_for_a_read_that_answers_then_goes_at_its_own_instant() {
        let mut news = BoardNews::new();
        news.press(lever(Color::White, 1_400));
        // Read at once: NACKed. The board is tried again 5 ms later.
        news.board_read(1_400, false, false, false);
        assert_eq!(news.poll_press(1_400, true), None);
        assert_eq!(news.next_deadline(), Some(1_405));
        assert!(news.is_holding());
        // Still NACKed at each retry.
        let mut now = 1_400;
        while now < 1_460 {
            now = news.next_deadline().expect("a retry");
            news.board_read(now, false, false, false);
            assert_eq!(news.poll_press(now, true), None);
        }
        assert_eq!(now, 1_460);
        // It answers with the place, stamped by the board at 1300: handed
        // on first, then the press at its own instant.
        news.board_read(1_465, true, true, false);
        assert_eq!(news.board_change(1_300), 1_300);
        assert_eq!(
            news.poll_press(1_465, true),
            Some(pressed(Color::White, 1_400, 1_400))
        );
        assert_eq!(news.poll_press(1_465, true), None);
        assert_eq!(news.next_deadline(), None);
        assert!(!news.is_holding());
    }

    #[test]
    fn a_press_waits_two_seconds_for_a_disconnected_board_and_no_longer() {
        let mut news = BoardNews::new();
        news.press(lever(Color::Black, 1_000));
        let mut now = 1_000;
        news.board_read(now, false, false, false);
        // Near miss: connected, it waits however long.
        assert_eq!(news.poll_press(3_500, true), None);
        // Disconnected: it waits out PRESS_WAITS_MS, retrying every 5 ms.
        assert_eq!(news.poll_press(now, false), None);
        let mut reads = 1;
        while let Some(next) = news.next_deadline() {
            now = next;
            news.board_read(now, false, false, false);
            reads += 1;
            if let Some(press) = news.poll_press(now, false) {
                assert_eq!(press, pressed(Color::Black, 1_000, 1_000));
            }
        }
        assert_eq!(now, 3_000, "ruled without the board after 2 s");
        assert_eq!(reads, 401);
        assert!(!news.is_holding());
    }

    #[test]
    fn a_press_waits_while_the_board_says_its_news_is_coming_and_a_second_at_most() {
        let mut news = BoardNews::new();
        // A DGT board resynchronising: it answers, its dump on its way.
        news.press(lever(Color::White, 2_000));
        news.board_read(2_000, true, false, true);
        assert_eq!(news.poll_press(2_000, true), None);
        assert_eq!(news.next_deadline(), Some(2_005));
        // Nor is the referee's time taken past the last complete news.
        news.board_read(2_040, true, false, true);
        assert_eq!(news.poll_press(2_040, true), None);
        assert_eq!(news.checkpoint(2_040).news_to, 40);
        // The dump comes with the lost place, stamped 150 ms before the
        // press: handed on first, then the press at its own instant.
        news.board_read(2_075, true, true, false);
        assert_eq!(news.board_change(1_850), 1_850);
        assert_eq!(
            news.poll_press(2_075, true),
            Some(pressed(Color::White, 2_000, 2_000))
        );
        // Near miss: a board that stays resynchronising holds a press
        // PENDING_WAITS_MS and no longer.
        news.press(lever(Color::Black, 5_000));
        let mut now = 5_000;
        news.board_read(now, true, false, true);
        while news.poll_press(now, true).is_none() {
            now = news.next_deadline().expect("tried again");
            news.board_read(now, true, false, true);
        }
        assert_eq!(now, 5_000 + PENDING_WAITS_MS);
        assert!(!news.is_holding());
    }

    #[test]
    fn what_is_read_late_keeps_its_order_behind_what_was_handed_on() {
        let mut news = BoardNews::new();
        news.board_read(100, true, true, false);
        assert_eq!(news.board_change(90), 90);
        // Stamped before the last change handed on: taken at its instant.
        assert_eq!(news.board_change(80), 90);
        news.press(lever(Color::White, 85));
        assert_eq!(
            news.poll_press(100, true),
            Some(pressed(Color::White, 85, 90)),
            "a press after the news it follows"
        );
        // A press stamped after it was taken in is ruled when taken in.
        news.press(lever(Color::Black, 130));
        assert_eq!(
            news.poll_press(120, true),
            Some(pressed(Color::Black, 130, 120))
        );
    }

    #[test]
    fn a_checkpoint_stops_the_referee_at_the_board_news_but_not_the_clock() {
        let mut news = BoardNews::new();
        // The board answers with nothing new: complete up to the read.
        news.board_read(1_000, true, false, false);
        let at = news.checkpoint(1_003);
        assert_eq!(
            at,
            Horizon {
                news_to: 1_000,
                ran_to: 1_003
            }
        );
        // A read with news says nothing of what came after it.
        news.board_read(1_100, true, true, false);
        assert_eq!(news.checkpoint(1_500).news_to, 1_000);
        // Silent: the referee's time goes to 2 s back at most, the clock
        // to now.
        news.board_read(1_200, false, false, false);
        assert_eq!(
            news.checkpoint(4_500),
            Horizon {
                news_to: 2_500,
                ran_to: 4_500
            }
        );
        // A press waits: the clock ran at least to it, and the referee's
        // time no further.
        news.press(lever(Color::White, 4_200));
        assert_eq!(
            news.checkpoint(4_700),
            Horizon {
                news_to: 2_700,
                ran_to: 4_200
            }
        );
        assert_eq!(
            news.checkpoint(7_000),
            Horizon {
                news_to: 4_200,
                ran_to: 4_200
            }
        );
    }

    #[test]
    fn the_clock_is_never_said_to_run_further_past_the_news_than_a_restore_believes() {
        // A restore believes a checkpoint's `ran_to` no further than
        // RAN_TO_AT_MOST_MS past its instant: what is stored must fit.
        let mut news = BoardNews::new();
        news.board_read(0, false, false, false);
        for now in (0..10_000).step_by(37) {
            if now == 5_032 {
                news.press(lever(Color::White, 4_000));
            }
            let at = news.checkpoint(now);
            assert!(
                at.news_to <= at.ran_to && at.ran_to <= now,
                "{at:?} at {now}"
            );
            assert!(at.ran_to - at.news_to <= crate::transcript::RAN_TO_AT_MOST_MS);
        }
    }
}
