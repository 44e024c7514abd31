//! The daemon's loop: one task that owns the session (and so the referee)
//! and a [`Rig`] (the board link, the OLED, the buzzer), and moves them
//! along in time.
//!
//! Everything that happens comes in through one queue of [`Command`]s (the
//! GPIO threads' presses and interrupt edges, the simulator's keys) or
//! through the loop's own deadlines: the board's next poll, the session's
//! `next_deadline`, and the named [`Timers`] (the face's next visible
//! change, the buzzer, the watchdog, the occupancy and board-clock
//! readings). Nothing is shared between tasks.
//!
//! The loop itself is synchronous: [`Shell::command`] and [`Shell::step`]
//! do what is due at the rig's clock, and [`Shell::wake_at`] says when to
//! come back. [`Shell::run`] is the tokio loop that waits in between; the
//! real-time benchmark drives the same two calls in bus time.
//!
//! Order is the rule of the board's news: a lever press is never ruled
//! before the board has been read, so the move the hand made before it
//! reaches the referee first, stamped with the board's own time. While the
//! board does not answer (a burst of NACKs), the press waits; only once
//! the link calls the board disconnected, and the press has waited
//! [`PRESS_WAITS_MS`] for it, is it ruled without it. Nor does the
//! referee's time run ahead of the board's news on a checkpoint: a board
//! that was silent for a while may yet report changes made meanwhile,
//! stamped when they were made.

use std::collections::VecDeque;
use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use shakmaty::{Chess, Color};
use tokio::sync::{mpsc, watch};

use super::alarm::Alarm;
use super::board_identity::{self, BoardIdentity};
use super::polling::{PollReason, Polling};
use super::timers::{Timer, Timers};
use crate::controls::LinkChange;
use crate::face::View;
use crate::hardware::BoardEvent;
use crate::hardware::SensorBoard;
use crate::hardware::board_clock::BoardClock;
use crate::hardware::buttons::ButtonPress;
use crate::rig::{BoardSerial, Command, Rig};
use crate::session::{Action, Buzz, Session, SessionInput};
use crate::store::{GameId, Journal, NewGame};
use crate::transcript::{self, Event, Line};
use crate::{Input, Millis};

/// After a failed write to the panel, what may be wrong on it is sent
/// again this much later.
pub const FACE_RETRY_MS: Millis = 100;
/// How often the board's occupancy is read in full, to notice a lost last
/// frame that no later frame would reveal.
pub const OCCUPANCY_EVERY_MS: Millis = 10_000;
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

/// How long a running clock goes with nothing stored before its instant is
/// stored as a checkpoint: a power cut gives back at most this, plus a
/// commit's time (`docs/src/reliability.md` promises at most a second).
pub const CHECKPOINT_EVERY_MS: Millis = 500;

/// The game as the loop last showed it, for a screen beside the face (the
/// simulator draws the board from it and turns typed moves into hands).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The position of the game in play or just over; `None` on the setup
    /// screen.
    pub position: Option<Chess>,
    /// Whose clock runs.
    pub ticking: Option<Color>,
    /// What the face shows.
    pub view: View,
}

/// Measures taken while running, reported at the end.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// For each lever press that switched the clocks: microseconds from the
    /// press (as timestamped) to the face showing the other clock running.
    pub press_to_face_us: Vec<u64>,
    /// With [`Shell::record_board_inputs`]: every board input as it was
    /// handed to the session, with the rig's clock then.
    pub board_inputs: Vec<(Duration, Input)>,
    /// Faces sent to the panel.
    pub redraws: u64,
    /// Failed writes to the panel.
    pub face_errors: u64,
    /// Failed board polls.
    pub board_errors: u64,
    /// Store operations (events, games begun, results) still not committed
    /// when the loop stopped and its wait for the store ran out: lost.
    pub unstored: usize,
}

impl Stats {
    /// Median and worst press-to-face latency, in microseconds.
    pub fn latency(&self) -> Option<(u64, u64)> {
        median_and_worst(&self.press_to_face_us)
    }
}

/// The median and the largest of `values`, if there are any.
pub fn median_and_worst(values: &[u64]) -> Option<(u64, u64)> {
    let mut v = values.to_vec();
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    Some((v[v.len() / 2], v[v.len() - 1]))
}

/// The loop and everything it owns.
pub struct Shell<R: Rig> {
    session: Session,
    rig: R,
    journal: Option<Journal>,
    game: Option<GameId>,
    /// Decisions as replay-format effect lines (the simulator's output).
    output: Option<Box<dyn Write>>,
    /// Where the paired board's serial is remembered.
    state_dir: Option<PathBuf>,
    stats: Stats,
    record_board_inputs: bool,
    shown: Option<View>,
    timers: Timers,
    polling: Polling,
    board_clock: BoardClock,
    /// Presses waiting for the board to be read, oldest first.
    held: VecDeque<ButtonPress>,
    /// The latest instant handed to the session, so that board events
    /// stamped earlier (read late) keep their order.
    last_fed: Millis,
    /// When the board last answered a poll with no news: every change it
    /// made before then has been read.
    board_heard: Millis,
    /// A lever press waiting for the face to show its switch: its instant.
    pending_switch: Option<Duration>,
    checked_serial: bool,
    /// Whether the face last drawn said games are not being saved.
    shown_unsaved: bool,
    ready: bool,
    events: Vec<BoardEvent>,
    /// Where the game is published as it is drawn (the simulator).
    watch: Option<watch::Sender<Snapshot>>,
}

impl<R: Rig> Shell<R> {
    /// A loop over `rig`. Its clock is the rig's.
    pub fn new(session: Session, rig: R) -> Shell<R> {
        Shell {
            session,
            rig,
            journal: None,
            game: None,
            output: None,
            state_dir: None,
            stats: Stats::default(),
            record_board_inputs: false,
            shown: None,
            timers: Timers::default(),
            polling: Polling::new(),
            board_clock: BoardClock::new(),
            held: VecDeque::new(),
            last_fed: 0,
            board_heard: 0,
            pending_switch: None,
            checked_serial: false,
            shown_unsaved: false,
            ready: false,
            events: Vec::new(),
            watch: None,
        }
    }

    /// Stores games in `journal`; `game` is the unfinished game the session
    /// was restored to, if any.
    pub fn with_journal(mut self, journal: Journal, game: Option<GameId>) -> Self {
        self.journal = Some(journal);
        self.game = game;
        self
    }

    /// Writes every decision to `output` as a replay-format effect line.
    pub fn with_output(mut self, output: Box<dyn Write>) -> Self {
        self.output = Some(output);
        self
    }

    /// Remembers the paired board's serial in `dir`, and warns when another
    /// board answers.
    pub fn with_state_dir(mut self, dir: PathBuf) -> Self {
        self.state_dir = Some(dir);
        self
    }

    /// Publishes the game on `watch` whenever the face is drawn and the
    /// snapshot changed.
    pub fn with_watch(mut self, watch: watch::Sender<Snapshot>) -> Self {
        self.watch = Some(watch);
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
        if let Some(journal) = self.journal.take() {
            let notifier = self.rig.notifier();
            let mut told = false;
            let closed = journal.close_within(super::STOP_WAIT, |err| {
                if !told {
                    told = true;
                    tracing::warn!(
                        "stopping: waiting up to {} s for the game store: {err}",
                        super::STOP_WAIT.as_secs()
                    );
                }
                notifier.watchdog();
            });
            match closed {
                Ok(()) if told => tracing::info!("stopping: the game store took everything"),
                Ok(()) => {}
                Err(crate::store::StoreError::Lost { lost, cause }) => {
                    self.stats.unstored = lost;
                    tracing::error!(lost, "stopping: game store operations lost: {cause}");
                }
                Err(err) => tracing::error!("storing the last events failed: {err}"),
            }
        }
        if let Some(out) = self.output.as_mut() {
            let _ = out.flush();
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
        let mut wake = self.next_poll();
        if self.held.is_empty()
            && let Some(deadline) = self.session.next_deadline()
        {
            wake = wake.min(deadline);
        }
        if let Some(timer) = self.timers.earliest() {
            wake = wake.min(timer);
        }
        if self.rig.oled_ref().is_busy() && self.timers.get(Timer::FaceRetry).is_none() {
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
                self.held.push_back(press);
                self.release_presses();
            }
            Command::BoardInterrupt => {
                self.poll_board(now, PollReason::Edge);
            }
            Command::Input(input) => {
                self.session.handle(now, SessionInput::Referee(input));
                self.act();
            }
            Command::Rules { name, rules } => self.session.select_rules(&name, *rules),
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
        if self.timers.take_due(Timer::PressRetry, now) {
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
        if self.timers.take_due(Timer::BoardClock, now) || self.board_clock.wants_reading(now) {
            self.read_board_clock(false);
        }
        // Time is handed to the referee only when a deadline of its is due
        // (a flag): a board event read late but stamped earlier must still
        // find the referee before its instant. Flags wait while a press
        // waits for the board: the press may have come in time.
        if self.held.is_empty() && self.session.next_deadline().is_some_and(|d| d <= now) {
            self.session.handle_timeout(now);
            self.act();
        }
        if self.timers.take_due(Timer::Checkpoint, now) && self.held.is_empty() {
            // A press waiting for the board may yet be stamped earlier: the
            // checkpoint waits for it (the press is stored anyway).
            self.session.checkpoint(self.board_horizon(now));
            self.act();
        }
        if self.timers.take_due(Timer::BuzzerOff, now) {
            self.rig.set_buzzer(false);
        }
        if self.timers.take_due(Timer::FaceRetry, now) {
            self.rig.oled().retry();
        }
        self.draw(now, false);
        // One write of the face per pass, after the board has had its turn:
        // a board poll never waits behind more than one.
        if self.rig.oled().is_busy() {
            self.send_face();
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

    /// How far the referee's time may be taken without an input: up to
    /// the board's last answer with nothing left to read. Beyond it, a
    /// board that is being retried (a burst of NACKs, a reset) may still
    /// report a move made meanwhile, and the referee, whose time never goes
    /// back, would take it at the later instant: a press soon after would
    /// seem to follow a release it did not (a false 6.2.3), and the time
    /// between charged to the wrong moment. A board silent for longer than
    /// a press would wait for it ([`PRESS_WAITS_MS`]) holds time back no
    /// more, so that checkpoints go on without one.
    fn board_horizon(&self, now: Millis) -> Millis {
        self.board_heard
            .max(now.saturating_sub(PRESS_WAITS_MS))
            .min(now)
    }

    /// When the board is next due.
    fn next_poll(&self) -> Millis {
        let link_due = self.rig.link_ref().next_poll();
        self.polling.next_poll(link_due, self.session.in_game())
    }

    /// Rules on the presses that wait, once the board has been read: the
    /// hand moved the piece before it pressed, so the board's news must
    /// reach the referee first. While the board does not answer, they
    /// wait; once the link gives the board up and the oldest has waited
    /// [`PRESS_WAITS_MS`], they are ruled without it.
    fn release_presses(&mut self) {
        let Some(oldest) = self.held.front().map(|press| press.at) else {
            return;
        };
        let answered = self.poll_board(self.now_ms(), PollReason::Press);
        let waited = self.now().saturating_sub(oldest).as_millis() as Millis;
        if !answered && (self.rig.link_ref().is_connected() || waited < PRESS_WAITS_MS) {
            let now = self.now_ms();
            self.timers.set(Timer::PressRetry, now + PRESS_RETRY_MS);
            return;
        }
        self.timers.clear(Timer::PressRetry);
        let now = self.now_ms();
        while let Some(press) = self.held.pop_front() {
            let at = press.at.min(self.now());
            let running = self.session.referee().and_then(|r| r.ticking());
            let at_ms = (at.as_millis() as Millis).max(self.last_fed);
            self.last_fed = at_ms;
            self.session.handle(
                now,
                SessionInput::Press {
                    button: press.button,
                    at: at_ms,
                },
            );
            let after = self.session.referee().and_then(|r| r.ticking());
            if after.is_some() && after != running {
                self.pending_switch = Some(at);
            }
            // The switch is shown first: the new clock's marker goes out
            // now, one write; storing the press (and, for a game's first
            // press, creating the game) comes after, the rest of the face
            // between board polls.
            let now = self.now_ms();
            self.draw(now, false);
            if self.rig.oled_ref().next_rank() == Some(0) {
                self.send_face();
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
        let news = !self.events.is_empty();
        if answered && !news {
            self.board_heard = self.board_heard.max(now);
        }
        // Read the clock again only for news: the changes are stamped no
        // later than their reading.
        let read_at = if news { self.now_ms() } else { now };
        if let Some(every) = self.polling.polled(now, reason, news) {
            self.rig.link().set_poll_every(every);
        }
        match change {
            Some(LinkChange::Disconnected) => {
                tracing::warn!("the sensor board does not answer; the clock keeps time");
                self.session
                    .handle(now, SessionInput::Link(LinkChange::Disconnected));
            }
            Some(LinkChange::Reconnected) => {
                tracing::info!("the sensor board answers again");
                self.session
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
        for event in std::mem::take(&mut self.events) {
            // The board's own time of the change, where it keeps one and
            // the mapping is known; never later than its reading, never
            // before what the session has already been given.
            let at = event
                .board_ms
                .and_then(|ms| self.board_clock.to_host(ms))
                .map_or(read_at, |at| at.min(read_at))
                .max(self.last_fed);
            self.last_fed = at;
            if self.record_board_inputs {
                self.stats.board_inputs.push((self.now(), event.input));
            }
            self.session.handle(at, SessionInput::Board(event.input));
        }
        self.act();
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

    fn read_occupancy(&mut self) {
        match self.rig.link().board_mut().occupancy() {
            // The snapshot's differences come out with the next poll.
            Ok(occupied) => self.session.set_occupancy(occupied),
            Err(err) => tracing::debug!("occupancy: {err:?}"),
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
            Ok(Some(board_ms)) => {
                if anew {
                    self.board_clock.forget();
                }
                self.board_clock.observe(board_ms, before, after)
            }
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
            self.session
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
                } => {
                    let setup = Line {
                        t,
                        event: Event::Setup(rules),
                    };
                    let started_at = std::time::SystemTime::now();
                    // The store's own calendar (local time), so the PGN's Date
                    // tag and `tocada export --since` agree about the day.
                    match crate::store::pgn_date(started_at) {
                        Ok(date) => self.session.set_date(&date),
                        Err(err) => tracing::warn!("no date for the new game: {err}"),
                    }
                    self.game = None;
                    self.timers
                        .set(Timer::Checkpoint, self.now_ms() + CHECKPOINT_EVERY_MS);
                    if let Some(journal) = self.journal.as_ref() {
                        let game = NewGame {
                            started_at,
                            preset: &preset,
                            white_left: !black_left,
                            setup: &setup,
                        };
                        match journal.begin_game(game) {
                            Ok(id) => self.game = Some(id),
                            Err(err) => tracing::error!("cannot store the new game: {err}"),
                        }
                    }
                    tracing::info!(preset, "game started");
                }
                Action::Record { t, event } => {
                    // The next checkpoint is due so long after the last thing
                    // stored, while a clock runs.
                    if self.session.clock_running() {
                        self.timers
                            .set(Timer::Checkpoint, self.now_ms() + CHECKPOINT_EVERY_MS);
                    } else {
                        self.timers.clear(Timer::Checkpoint);
                    }
                    if let (Some(journal), Some(game)) = (self.journal.as_ref(), self.game) {
                        let event = Event::from(event);
                        journal.append(game, Line { t, event });
                    }
                }
                Action::Finish { result, pgn } => {
                    tracing::info!(result, "game over");
                    if let (Some(journal), Some(game)) = (self.journal.as_ref(), self.game.take()) {
                        journal.finish(game, result, pgn);
                    }
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
                    ) && let Some(words) = crate::words::alert_for(&effect)
                    {
                        tracing::info!(t, "{words}");
                    }
                    self.output_line(&transcript::effect_to_json(t, &effect));
                }
                Action::Restored {
                    t,
                    white_ms,
                    black_ms,
                    moves,
                    fen,
                } => {
                    tracing::info!(t, white_ms, black_ms, moves, fen, "game restored, paused");
                    let line = transcript::restored_to_json(t, white_ms, black_ms, moves, &fen);
                    self.output_line(&line);
                }
            }
        }
    }

    /// Writes one line to the output, if there is one; a closed output is
    /// dropped, never a reason to stop the clock.
    fn output_line(&mut self, line: &str) {
        if let Some(out) = self.output.as_mut()
            && writeln!(out, "{line}").and_then(|()| out.flush()).is_err()
        {
            self.output = None;
        }
    }

    fn buzz(&mut self, buzz: Buzz) {
        self.rig.set_buzzer(true);
        let off = self.now_ms() + buzz.duration_ms();
        self.timers.set_latest(Timer::BuzzerOff, off);
    }

    /// Stages a new face if what it shows changed (or if `force`d: then it
    /// is sent whole before returning, for whoever asked to see it). The
    /// face is sent a bounded write at a time by [`Shell::send_face`],
    /// between board polls.
    fn draw(&mut self, now: Millis, force: bool) {
        let unsaved = self.journal.as_ref().is_some_and(|j| !j.saving());
        let changed = self.session.take_changed() | (unsaved != self.shown_unsaved);
        let due = self.timers.take_due(Timer::Face, now);
        if !(changed || due || force || self.shown.is_none()) {
            return;
        }
        self.shown_unsaved = unsaved;
        let mut view = self.session.view(now);
        view.games_unsaved = unsaved;
        // The face changes by itself next when a running clock's digits do.
        match self.session.next_face_change(now) {
            Some(at) => self.timers.set(Timer::Face, at),
            None => self.timers.clear(Timer::Face),
        }
        self.publish(&view);
        if !force && self.shown.as_ref() == Some(&view) {
            return;
        }
        let frame = crate::face::render(&view);
        self.rig.oled().stage(&frame, &crate::face::urgent(&view));
        self.stats.redraws += 1;
        self.shown = Some(view);
        self.face_sent();
        if force {
            while self.rig.oled().is_busy() && self.send_face() {}
        }
    }

    /// Sends the next bounded write of the face, if one is queued: the
    /// running-side marker first, then the digits, then the rest. Says
    /// whether it went out.
    fn send_face(&mut self) -> bool {
        match self.rig.oled().send_next() {
            Ok(sent) => {
                self.face_sent();
                sent
            }
            Err(err) => {
                self.stats.face_errors += 1;
                if self.stats.face_errors.is_power_of_two() {
                    tracing::warn!("{err} ({} failures)", self.stats.face_errors);
                }
                // What may be wrong is sent again, after a pause: a panel
                // that is not there must not take the bus from the board.
                let now = self.now_ms();
                self.timers
                    .set_earliest(Timer::FaceRetry, now + FACE_RETRY_MS);
                false
            }
        }
    }

    /// Notes the press whose switch the panel now shows: the new clock's
    /// marker (the first urgent area) has gone out.
    fn face_sent(&mut self) {
        if self.pending_switch.is_some() && self.rig.oled().next_rank() != Some(0) {
            let at = self.pending_switch.take().unwrap_or_default();
            let us = self.now().saturating_sub(at).as_micros() as u64;
            self.stats.press_to_face_us.push(us);
        }
    }

    /// Sends the game to the watcher, if there is one and it changed.
    fn publish(&self, view: &View) {
        let Some(watch) = self.watch.as_ref() else {
            return;
        };
        let referee = self.session.referee();
        let snapshot = Snapshot {
            position: referee.map(|r| r.position().clone()),
            ticking: referee.and_then(|r| r.ticking()),
            view: view.clone(),
        };
        watch.send_if_modified(|shown| {
            let changed = *shown != snapshot;
            if changed {
                *shown = snapshot;
            }
            changed
        });
    }
}
