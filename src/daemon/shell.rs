//! The daemon's loop: one task that owns the session (and so the referee)
//! and a [`Rig`] (the board link, the OLED, the buzzer), and moves them
//! along in time.
//!
//! Everything that happens comes in through one queue of [`Command`]s (the
//! GPIO threads' presses and interrupt edges, the simulator's keys) or
//! through the loop's own deadlines: the board's next poll, the session's
//! `next_deadline`, the named [`Timers`] (the buzzer, the watchdog, the
//! occupancy and board-clock readings), and the deadlines of the units
//! below (a waiting press's next try of the board, the next checkpoint,
//! the face's next visible change). Nothing is shared between tasks.
//!
//! The loop itself is synchronous: [`Shell::command`] and [`Shell::step`]
//! do what is due at the rig's clock, and [`Shell::wake_at`] says when to
//! come back. [`Shell::run`] is the tokio loop that waits in between; the
//! real-time benchmark drives the same two calls in bus time.
//!
//! The loop only moves things along; each concern is a unit of its own:
//! - [`BoardNews`]: the order of the board's news before a press (a press
//!   is never ruled before the board has been read after it) and how far
//!   a checkpoint may take the game, sans-IO;
//! - [`Storage`]: the game's lines handed to the store, and when a
//!   running clock's instant is next stored;
//! - [`Drawing`]: the face staged and sent a bounded write at a time
//!   between board polls;
//! - [`Polling`]: how often the board is read; [`Timers`]: the loop's
//!   other named deadlines; [`Stats`]: what is measured;
//! - [`Decisions`]: where the referee's decisions go, as values (JSON only
//!   at the edge, [`EffectLines`]).

use std::cell::Cell;
use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::alarm::Alarm;
use super::board_identity::{self, BoardIdentity};
use super::board_news::BoardNews;
use super::decisions::{Decisions, EffectLines};
use super::dgt3000_face::{ClockFace, control_of};
use super::drawing::Drawing;
use super::pairing::{PAIRING_EVERY_MS, PairingFile};
use super::polling::{PollReason, Polling};
use super::storage::Storage;
use super::timers::{Timer, Timers};
use crate::Millis;
use crate::controls::LinkChange;
use crate::hardware::BoardEvent;
use crate::hardware::SensorBoard;
use crate::hardware::buttons::ButtonPress;
use crate::hardware::dgt3000::{ClockEvent, ClockShown};
use crate::rig::{BoardSerial, Command, Rig};
use crate::session::{Action, Buzz, GameRestored, Session, SessionInput};
use crate::store::{GameId, Journal};

pub use super::board_news::{PRESS_RETRY_MS, PRESS_WAITS_MS};
pub use super::drawing::{FACE_RETRY_MS, ShownGame};
pub use super::stats::{Stats, median_and_worst};
pub use super::storage::CHECKPOINT_EVERY_MS;

/// How often the board's occupancy is read in full, to notice a lost last
/// frame that no later frame would reveal.
pub const OCCUPANCY_EVERY_MS: Millis = 10_000;
/// How soon the occupancy is asked again when the board could not say.
pub const OCCUPANCY_RETRY_MS: Millis = 500;

/// The loop and everything it owns.
pub struct Shell<R: Rig> {
    session: Session,
    rig: R,
    storage: Storage,
    /// Where each decision goes as it is made, as a value.
    decisions: Option<Box<dyn Decisions>>,
    /// Where the paired board's serial is remembered.
    state_dir: Option<PathBuf>,
    stats: Stats,
    record_board_inputs: bool,
    timers: Timers,
    polling: Polling,
    news: BoardNews,
    drawing: Drawing,
    checked_serial: bool,
    ready: bool,
    events: Vec<BoardEvent>,
    /// What a clock plugged into the board did (a DGT 3000).
    clock_events: Vec<ClockEvent>,
    /// The face as the board's clock shows it, and what it was last told.
    clock_face: ClockFace,
    clock_shown: Option<ClockShown>,
    /// When what the board's clock shows changes next by itself (a
    /// message's next page, or the times back).
    clock_due: Option<Millis>,
    /// The session's next deadline as of its last change (`None`: changed
    /// since, to be asked again): the loop wants it twice a pass, and the
    /// session changes only when it is handed something.
    session_deadline: Cell<Option<Option<Millis>>>,
    /// The hall's pairing of the board, from the publisher.
    pairing: Option<PairingFile>,
}

impl<R: Rig> Shell<R> {
    /// A loop over `rig`. Its clock is the rig's.
    pub fn new(session: Session, rig: R) -> Shell<R> {
        Shell {
            session,
            rig,
            storage: Storage::none(),
            decisions: None,
            state_dir: None,
            stats: Stats::default(),
            record_board_inputs: false,
            timers: Timers::default(),
            polling: Polling::new(),
            news: BoardNews::new(),
            drawing: Drawing::new(),
            checked_serial: false,
            ready: false,
            events: Vec::new(),
            clock_events: Vec::new(),
            clock_face: ClockFace::new(),
            clock_shown: None,
            clock_due: None,
            session_deadline: Cell::new(None),
            pairing: None,
        }
    }

    /// Looks at the hall's pairing in `file` (written by `tocada-publish`)
    /// now and every [`PAIRING_EVERY_MS`]: the setup screen shows it, and
    /// the next game to begin is played under it. A file the caller has
    /// already looked at is read again only once it changes.
    pub fn with_pairing_file(mut self, mut file: PairingFile) -> Self {
        if let Some(pairing) = file.changed() {
            self.session.set_pairing(pairing);
        }
        self.pairing = Some(file);
        self.timers.set(Timer::Pairing, 0);
        self
    }

    /// Stores games in `journal`; `game` is the unfinished game the session
    /// was restored to, if any.
    pub fn with_journal(mut self, journal: Journal, game: Option<GameId>) -> Self {
        self.storage = Storage::new(journal, game);
        self
    }

    /// Hands every decision to `decisions`, as a value, as it is made
    /// (the simulator's log).
    pub fn with_decisions(mut self, decisions: Box<dyn Decisions>) -> Self {
        self.decisions = Some(decisions);
        self
    }

    /// Writes every decision to `output` as a replay-format effect line
    /// ([`EffectLines`]): standard output for `tocada run` and
    /// `tocada sim --script`.
    pub fn with_output(self, output: Box<dyn Write>) -> Self {
        self.with_decisions(Box::new(EffectLines::new(output)))
    }

    /// Remembers the paired board's serial in `dir`, and warns when another
    /// board answers.
    pub fn with_state_dir(mut self, dir: PathBuf) -> Self {
        self.state_dir = Some(dir);
        self
    }

    /// Publishes the game on `watch` whenever the face is drawn and the
    /// game shown changed.
    pub fn with_watch(mut self, watch: watch::Sender<ShownGame>) -> Self {
        self.drawing.publish_on(watch);
        self
    }

    /// Expects the board's interrupt line to announce its news (the link
    /// then polls only as a safety net); if it turns out not to, polls
    /// every `poll_ms` instead and says so in the log.
    pub fn with_interrupt_line(mut self, poll_ms: Millis) -> Self {
        self.polling = Polling::with_interrupt_line(poll_ms);
        self
    }

    /// Keeps every board input with the instant it reached the session, in
    /// [`Stats::board_inputs`] (the real-time benchmark).
    pub fn record_board_inputs(mut self) -> Self {
        self.record_board_inputs = true;
        self
    }

    /// The session, to look at (tests, the simulator).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// What has been measured so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The rig, to look at (tests, the benchmark).
    pub fn rig(&self) -> &R {
        &self.rig
    }

    /// The session, to hand it something: its next deadline is asked
    /// again afterwards.
    fn session_mut(&mut self) -> &mut Session {
        self.session_deadline.set(None);
        &mut self.session
    }

    /// When the session is next due ([`Session::next_deadline`]), asked of
    /// it only once after each change.
    fn session_deadline(&self) -> Option<Millis> {
        if let Some(deadline) = self.session_deadline.get() {
            return deadline;
        }
        let deadline = self.session.next_deadline();
        self.session_deadline.set(Some(deadline));
        deadline
    }

    fn now(&self) -> Duration {
        self.rig.now()
    }

    fn now_ms(&self) -> Millis {
        self.now().as_millis() as Millis
    }

    /// Runs until `shutdown` completes, then stores what is pending. The
    /// loop sleeps on `alarm` between deadlines (tokio's timer follows a
    /// paused clock; the kernel's wakes once per deadline).
    pub async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut alarm: Alarm,
        shutdown: impl Future<Output = ()>,
    ) -> Stats {
        tokio::pin!(shutdown);
        self.power_on();
        let mut commands_open = true;
        loop {
            self.step();
            let wake = self.rig.instant_at(Duration::from_millis(self.wake_at()));
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                command = commands.recv(), if commands_open => match command {
                    Some(command) => self.command(command),
                    None => commands_open = false,
                },
                () = alarm.until(wake) => {}
            }
        }
        self.finish()
    }

    /// Turns the panel on and sets the loop's first deadlines. Called by
    /// [`Shell::run`]; a driver of its own calls it once before the first
    /// [`Shell::step`].
    pub fn power_on(&mut self) {
        if let Err(err) = self.rig.oled().init() {
            tracing::warn!("{err}; the face will be retried");
        }
        if self.rig.notifier().watchdog_every().is_some() {
            self.timers.set(Timer::Watchdog, 0);
        }
        self.timers.set(Timer::Occupancy, 0);
    }

    /// Stores what is pending and says how it went: waits up to
    /// [`STOP_WAIT`](super::STOP_WAIT) for a store that fails (a lock held
    /// elsewhere), keeping systemd's watchdog fed, and counts in
    /// [`Stats::unstored`] what is lost if it never comes back.
    pub fn finish(mut self) -> Stats {
        self.rig.notifier().stopping();
        self.step();
        let notifier = self.rig.notifier();
        match self.storage.close_within(super::STOP_WAIT, notifier) {
            None | Some(Ok(())) => {}
            Some(Err(crate::store::StoreError::Lost { lost, cause })) => {
                self.stats.unstored = lost;
                tracing::error!(lost, "stopping: game store operations lost: {cause}");
            }
            Some(Err(err)) => tracing::error!("storing the last events failed: {err}"),
        }
        if let Some(decisions) = self.decisions.as_mut() {
            decisions.finish();
        }
        self.stats.board_errors = self.rig.link_ref().errors();
        if let Some((median, worst)) = self.stats.latency() {
            tracing::info!(
                presses = self.stats.press_to_face_us.len(),
                "press to face: median {median} us, worst {worst} us"
            );
        }
        self.stats
    }

    /// The earliest instant something is due, on the rig's clock.
    pub fn wake_at(&self) -> Millis {
        let sooner = |wake: Millis, at: Option<Millis>| at.map_or(wake, |at| wake.min(at));
        let mut wake = self.timers.earliest_before(self.next_poll());
        if !self.news.is_holding() {
            wake = sooner(wake, self.session_deadline());
        }
        wake = sooner(wake, self.news.next_deadline());
        wake = sooner(wake, self.storage.next_checkpoint());
        wake = sooner(wake, self.drawing.next_deadline());
        wake = sooner(wake, self.clock_due);
        if self.rig.oled_ref().is_busy() && !self.drawing.retrying() {
            // More of the face to send: come back at once, after whatever
            // else is waiting (a press, the board's edge).
            wake = wake.min(self.now_ms());
        }
        wake
    }

    /// Does what `command` asks, now.
    pub fn command(&mut self, command: Command) {
        let now = self.now_ms();
        match command {
            Command::Press(press) => {
                // A board that may have lost the move's last change asks
                // for it now; the press then waits for it.
                if let Err(err) = self.rig.link().board_mut().press_came() {
                    tracing::debug!("the board at a press: {err:?}");
                }
                self.news.press(press);
                self.release_presses();
            }
            Command::BoardInterrupt => {
                self.poll_board(now, PollReason::Edge);
            }
            Command::Input(input) => {
                self.session_mut().handle(now, SessionInput::Referee(input));
                self.act();
            }
            Command::Rules { name, rules } => {
                self.session_mut().select_rules(&name, *rules);
                // A new start (a FEN): the board checked against it now.
                self.timers.set(Timer::Occupancy, now);
            }
            Command::Players(players) => {
                self.session_mut().set_pairing(Some(*players));
            }
            Command::Redraw(done) => {
                self.draw(now, true);
                let _ = done.send(());
            }
        }
        let now = self.now_ms();
        self.draw(now, false);
    }

    /// Does everything due at the rig's current instant.
    pub fn step(&mut self) {
        let now = self.now_ms();
        if self.news.next_deadline().is_some_and(|at| at <= now) {
            self.release_presses();
        }
        // A safety-net poll due soon is taken now, while the loop is awake
        // anyway: one wakeup instead of two.
        let every = self.rig.link_ref().policy().poll_every_ms;
        if self.polling.draining() {
            self.poll_board(now, PollReason::Drain);
        } else if now + Polling::slack(every) >= self.next_poll() {
            self.poll_board(now, PollReason::Schedule);
        }
        if self.timers.take_due(Timer::Occupancy, now) {
            self.timers.set(Timer::Occupancy, now + OCCUPANCY_EVERY_MS);
            self.read_occupancy();
        }
        if self.timers.take_due(Timer::BoardClock, now)
            || self.rig.link_ref().wants_board_clock(now)
        {
            self.read_board_clock(false);
        }
        // Time is handed to the referee only when a deadline of its is due
        // (a flag): a board event read late but stamped earlier must still
        // find the referee before its instant. Flags wait while a press
        // waits for the board: the press may have come in time.
        if !self.news.is_holding() && self.session_deadline().is_some_and(|d| d <= now) {
            self.session_mut().handle_timeout(now);
            self.act();
        }
        if self.storage.take_checkpoint_due(now) {
            // The referee's time goes no further than the board's news;
            // the record says how far the running clock ran.
            let horizon = self.news.checkpoint(now);
            self.session_mut()
                .checkpoint(horizon.news_to, horizon.ran_to);
            self.act();
        }
        if self.timers.take_due(Timer::BuzzerOff, now) {
            self.rig.set_buzzer(false);
        }
        if self.timers.take_due(Timer::Pairing, now) {
            self.timers.set(Timer::Pairing, now + PAIRING_EVERY_MS);
            if let Some(pairing) = self.pairing.as_mut().and_then(PairingFile::changed) {
                self.session_mut().set_pairing(pairing);
            }
        }
        self.drawing.retry_if_due(&mut self.rig, now);
        self.draw(now, false);
        // One write of the face per pass, after the board has had its turn:
        // a board poll never waits behind more than one.
        if self.rig.oled().is_busy() {
            self.drawing.send(&mut self.rig, &mut self.stats);
        }
        let every = self.rig.notifier().watchdog_every();
        if let Some(every) = every
            && self.timers.take_due(Timer::Watchdog, now)
        {
            self.rig.notifier().watchdog();
            self.timers
                .set(Timer::Watchdog, now + every.as_millis() as Millis);
        }
    }

    /// When the board is next due.
    fn next_poll(&self) -> Millis {
        let link_due = self.rig.link_ref().next_poll();
        self.polling.next_poll(link_due, self.session.in_game())
    }

    /// Rules on the presses that wait, once the board has been read after
    /// them ([`BoardNews::poll_press`]).
    fn release_presses(&mut self) {
        if !self.news.is_holding() {
            return;
        }
        self.poll_board(self.now_ms(), PollReason::Press);
        loop {
            let now = self.now_ms();
            let connected = self.rig.link_ref().is_connected();
            let Some(press) = self.news.poll_press(now, connected) else {
                break;
            };
            let running = self.session.referee().and_then(|r| r.ticking());
            self.session_mut().handle(
                now,
                SessionInput::Press {
                    button: press.button,
                    at: press.at,
                },
            );
            if matches!(press.button, crate::controls::Button::Lever(_)) {
                let waited = self.now().saturating_sub(press.pressed_at);
                self.stats
                    .press_to_referee_us
                    .push(waited.as_micros() as u64);
            }
            let after = self.session.referee().and_then(|r| r.ticking());
            if after.is_some() && after != running {
                self.drawing.switched(press.pressed_at.min(self.now()));
            }
            // The switch is shown first: the new clock's marker goes out
            // now, one write; storing the press (and, for a game's first
            // press, creating the game) comes after, the rest of the face
            // between board polls.
            let now = self.now_ms();
            self.draw(now, false);
            if self.rig.oled_ref().next_rank() == Some(0) {
                self.drawing.send(&mut self.rig, &mut self.stats);
            }
            self.act();
        }
    }

    /// Reads the board now (on a press, through the link's backoff) and
    /// hands what it saw to the session, each change at its own instant.
    /// Says whether the board answered.
    fn poll_board(&mut self, now: Millis, reason: PollReason) -> bool {
        let (answered, change) = match reason {
            PollReason::Press => self.rig.link().poll_through(now, &mut self.events),
            _ => {
                let errors = self.rig.link_ref().errors();
                let change = self.rig.link().poll_now(now, &mut self.events);
                (self.rig.link_ref().errors() == errors, change)
            }
        };
        self.rig
            .link()
            .board_mut()
            .clock_events(&mut self.clock_events);
        let news = !self.events.is_empty() || !self.clock_events.is_empty();
        let pending = self.rig.link_ref().board().news_pending();
        self.news.board_read(now, answered, news, pending);
        // Read the clock again only for news: the changes are stamped no
        // later than their reading.
        let read_at = if news { self.now_ms() } else { now };
        let clock_pressed = self.clock_presses(read_at);
        if let Some(every) = self.polling.polled(now, reason, news) {
            self.rig.link().set_poll_every(every);
        }
        match change {
            Some(LinkChange::Disconnected) => {
                tracing::warn!("the sensor board does not answer; the clock keeps time");
                self.session_mut()
                    .handle(now, SessionInput::Link(LinkChange::Disconnected));
            }
            Some(LinkChange::Reconnected) => {
                tracing::info!("the sensor board answers again");
                self.session_mut()
                    .handle(now, SessionInput::Link(LinkChange::Reconnected));
                // It may have been reset: its clock restarted. Read it
                // again at once, before this poll's changes are stamped,
                // and keep the old mapping if that read fails: without a
                // mapping they would be stamped when they were read, after
                // the outage, and a press held for the board meanwhile
                // would seem to come before the move it completes (a false
                // 6.2.3, the outage charged to the mover).
                self.read_board_clock(true);
                self.read_occupancy();
            }
            None => {}
        }
        // Most polls bring nothing: the buffer is only touched for news,
        // and handed back afterwards, its room kept for the next poll.
        if news {
            let mut events = std::mem::take(&mut self.events);
            for event in events.drain(..) {
                // The board's own time of the change, where it keeps one and
                // the mapping is known; never later than its reading, never
                // before what the session has already been given.
                let at = self
                    .news
                    .board_change(self.rig.link_ref().at(&event, read_at));
                if self.record_board_inputs {
                    self.stats.board_inputs.push((self.now(), event.input));
                }
                self.session_mut()
                    .handle(at, SessionInput::Board(event.input));
            }
            self.events = events;
        }
        self.act();
        if clock_pressed && reason != PollReason::Press {
            // Ruled now, after the board's news that came before them on
            // the same line.
            self.release_presses();
        }
        if !self.ready {
            self.ready = true;
            let status = if self.rig.link_ref().is_connected() {
                "clock and board answer"
            } else {
                "clock up; the board does not answer"
            };
            self.rig.notifier().ready(status);
            tracing::info!("{status}");
        }
        if !self.checked_serial
            && let Some(serial) = self.rig.link_ref().board().serial()
        {
            self.checked_serial = true;
            self.check_serial(serial);
        }
        answered
    }

    /// Turns what the board's clock did into presses of the front's
    /// controls, each at the instant the board sent it; says whether
    /// there were any.
    fn clock_presses(&mut self, read_at: Millis) -> bool {
        let wired_left = self.session.wired_left();
        let mut pressed = false;
        for event in std::mem::take(&mut self.clock_events) {
            let (control, at) = match event {
                ClockEvent::Lever { side, at } => (Ok(side), at),
                ClockEvent::Button { button, at } => (Err(button), at),
                ClockEvent::Connected => {
                    tracing::info!("the DGT 3000 on the board answers: its levers are the clock's");
                    // Told everything afresh.
                    self.clock_shown = None;
                    continue;
                }
                ClockEvent::Disconnected => {
                    tracing::warn!("the DGT 3000 is not connected to the board");
                    continue;
                }
            };
            if control.is_ok() {
                // As for the front's levers: a move's last change lost on
                // the line is asked for now, and the press waits for it.
                if let Err(err) = self.rig.link().board_mut().press_came() {
                    tracing::debug!("the board at a press: {err:?}");
                }
            }
            let button = control_of(control, wired_left);
            let at = self.rig.link_ref().at_board_ms(Some(at as u32), read_at);
            self.news.press(ButtonPress {
                button,
                at: Duration::from_millis(at),
            });
            pressed = true;
        }
        pressed
    }

    /// Tells the board's clock what to show of the face, if it changed;
    /// `drawn`: the panel's drawing made the view at `now`, which serves.
    fn show_on_clock(&mut self, now: Millis, drawn: bool) {
        if !self.rig.link_ref().board().has_clock() {
            self.clock_shown = None;
            self.clock_due = None;
            return;
        }
        let made;
        let view = match self.drawing.shown() {
            Some(view) if drawn => view,
            _ => {
                made = self.session.view(now);
                &made
            }
        };
        let shown = self.clock_face.shown(view, now);
        self.clock_due = self.clock_face.next_change(now);
        // The clock counts down by itself: told again only when whose
        // clock runs, a message or a time other than by running changed.
        let same = self.clock_shown.as_ref().is_some_and(|was| {
            was.run == shown.run && was.text == shown.text && running_only(was, &shown)
        });
        if same {
            return;
        }
        self.clock_shown = Some(shown.clone());
        self.rig.link().board_mut().show_on_clock(shown);
    }

    fn read_occupancy(&mut self) {
        let board = self.rig.link().board_mut();
        board.expect_start(&self.session.expected_board());
        match board.occupancy() {
            // The snapshot's differences come out with the next poll.
            Ok(occupied) => {
                if let Some(pieces) = board.pieces() {
                    self.session.set_pieces(pieces);
                }
                self.session.set_occupancy(occupied);
                self.session_deadline.set(None);
            }
            Err(err) => {
                tracing::debug!("occupancy: {err:?}");
                // Not known yet (a DGT board's first picture on its way):
                // the setup screen's check needs it soon, not in 10 s.
                let soon = self.now_ms() + OCCUPANCY_RETRY_MS;
                self.timers.set(Timer::Occupancy, soon);
            }
        }
    }

    /// Reads the board's clock and maps it onto the rig's (§ 8.1); `anew`:
    /// in place of the mapping so far, which a reset may have made wrong.
    fn read_board_clock(&mut self, anew: bool) {
        let before = self.now_ms();
        let read = self.rig.link().board_mut().board_time();
        let after = self.now_ms();
        // A board without a clock is never asked again; a failed read is
        // retried with the next refresh.
        self.timers.set(
            Timer::BoardClock,
            after + crate::hardware::board_clock::REFRESH_MS,
        );
        match read {
            Ok(Some(board_ms)) => self
                .rig
                .link()
                .board_clock_read(board_ms, before, after, anew),
            Ok(None) => self.timers.clear(Timer::BoardClock),
            Err(err) => tracing::debug!("board time: {err:?}"),
        }
    }

    /// Remembers the serial of the board first connected and warns when
    /// another one answers.
    fn check_serial(&mut self, serial: u64) {
        let Some(dir) = self.state_dir.as_ref() else {
            return;
        };
        if let BoardIdentity::Changed { .. } = board_identity::check(dir, serial) {
            self.session_mut()
                .notice(format!("New board {:04x}", serial & 0xffff));
        }
    }

    /// Carries out what the session asked for, in order.
    fn act(&mut self) {
        while let Some(action) = self.session.poll_action() {
            match action {
                Action::Begin {
                    t,
                    preset,
                    black_left,
                    rules,
                    players,
                } => {
                    let now = self.now_ms();
                    if let Some(date) = self
                        .storage
                        .begin(now, t, &preset, black_left, rules, players)
                    {
                        self.session_mut().set_date(&date);
                    }
                    tracing::info!(preset, "game started");
                }
                Action::Record { t, event } => {
                    let (now, running) = (self.now_ms(), self.session.clock_running());
                    self.storage.record(now, running, t, event);
                }
                Action::Finish { result, pgn } => {
                    tracing::info!(result, "game over");
                    self.storage.finish(result, pgn);
                }
                Action::Buzz(buzz) => self.buzz(buzz),
                Action::Decision(t, effect) => {
                    tracing::debug!(t, ?effect, "decision");
                    // The arbiter's acts and the players' claims are the
                    // log's business at its usual level, in the panel's words.
                    if matches!(
                        effect,
                        crate::Effect::TakenBack { .. }
                            | crate::Effect::Waived { .. }
                            | crate::Effect::Claim { .. }
                            | crate::Effect::Result {
                                reason: crate::Reason::Adjudicated(_),
                                ..
                            }
                    ) && let Some(words) =
                        crate::words::alert_for(&effect, crate::words::Language::English)
                    {
                        tracing::info!(t, "{words}");
                    }
                    if let Some(decisions) = self.decisions.as_mut() {
                        decisions.decision(t, &effect);
                    }
                }
                Action::Restored(game) => {
                    let GameRestored {
                        t,
                        white_ms,
                        black_ms,
                        moves,
                        ref fen,
                    } = game;
                    tracing::info!(t, white_ms, black_ms, moves, fen, "game restored, paused");
                    if let Some(decisions) = self.decisions.as_mut() {
                        decisions.restored(&game);
                    }
                }
            }
        }
    }

    fn buzz(&mut self, buzz: Buzz) {
        self.rig.set_buzzer(true);
        let off = self.now_ms() + buzz.duration_ms();
        self.timers.set_latest(Timer::BuzzerOff, off);
    }

    /// Stages a new face if what it shows changed (or if `force`d: then it
    /// is sent whole before returning): [`Drawing::draw`].
    fn draw(&mut self, now: Millis, force: bool) {
        let unsaved = self.storage.unsaved();
        let redraws = self.stats.redraws;
        let drawn = self.drawing.draw(
            &mut self.rig,
            &mut self.session,
            &mut self.stats,
            unsaved,
            now,
            force,
        );
        if self.stats.redraws != redraws
            || self.clock_due.is_some_and(|at| at <= now)
            || self.clock_shown.is_none()
        {
            self.show_on_clock(now, drawn);
        }
    }
}

/// Whether `now` differs from `was` only by the running clock's time
/// gone down: what the clock does by itself.
fn running_only(was: &ClockShown, now: &ClockShown) -> bool {
    use crate::hardware::dgt3000::ClockSide;
    match now.run {
        Some(ClockSide::Left) => was.right_ms == now.right_ms && now.left_ms <= was.left_ms,
        Some(ClockSide::Right) => was.left_ms == now.left_ms && now.right_ms <= was.right_ms,
        None => was.left_ms == now.left_ms && was.right_ms == now.right_ms,
    }
}
