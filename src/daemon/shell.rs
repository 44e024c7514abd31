//! The daemon's loop: one task that owns the panel (and so the referee), the
//! board link, the OLED and the buzzer, and moves them along in time.
//!
//! Everything that happens comes in through one queue of [`Command`]s (the
//! GPIO thread's presses, the simulator's keys) or through the loop's own
//! timer, set from the earliest of: the board's next poll, the referee's
//! `next_deadline`, the face's next tick while a clock runs, the buzzer
//! going off and the watchdog. Nothing is shared between tasks.
//!
//! Time is the tokio clock's, counted from the shell's start: the simulator
//! runs the very same loop in paused, simulated time.

use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use shakmaty::{Chess, Color};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::alarm::Alarm;
use crate::face::View;
use crate::hardware::SensorBoard;
use crate::hardware::buttons::ButtonPress;
use crate::hardware::link::{BoardLink, LinkChange};
use crate::hardware::mcp23017_board::Mcp23017Board;
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
use crate::session::{Action, Buzz, Session};
use crate::store::{GameId, Journal, NewGame};
use crate::{Input, Millis, Rules, transcript};

/// While a clock runs the face is redrawn this often (10 Hz: tenths show
/// under 20 seconds).
pub const FACE_TICK_MS: Millis = 100;
/// How often the board's occupancy is read in full, to notice a lost last
/// frame that no later frame would reveal.
pub const OCCUPANCY_EVERY_MS: Millis = 10_000;
/// With no game in play the board is polled this often instead of every
/// `board.poll_ms`: only the setup screen's "Set up the pieces" reads it,
/// and the press that starts a game polls it at once. A club's clock idles
/// for hours between rounds; this spares it most of its wakeups.
pub const SETUP_POLL_MS: Millis = 50;
/// With the interrupt line configured, this many safety-net polls in a row
/// that find news no edge announced mean the line does not fall (not
/// wired, or a broken wire): the loop goes back to polling.
pub const EDGE_MISSES_TO_POLL: u32 = 3;

/// Why the board is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PollReason {
    /// Its turn on the link's schedule.
    Schedule,
    /// The last poll brought news; there may be more.
    Drain,
    /// Its interrupt line fell.
    Edge,
    /// A lever or button went down: the move must reach the referee first.
    Press,
}

/// What the world tells the loop.
#[derive(Debug)]
pub enum Command {
    /// A front control went down; `at` is on the shell's clock (time since
    /// [`Shell::start`]), from the kernel's timestamp.
    Press(ButtonPress),
    /// The board pulled its interrupt line: poll it now.
    BoardInterrupt,
    /// An input no front control gives (the simulator's resign or promote).
    Input(Input),
    /// Use these rules for the next game (a script's `setup` line).
    Rules { name: String, rules: Box<Rules> },
    /// Redraw the face now and answer when it is on the panel.
    Redraw(oneshot::Sender<()>),
}

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

/// The buzzer: a GPIO pin on the Pi, a line on the simulator's screen.
pub trait Buzzer {
    /// Turns it on or off.
    fn set(&mut self, on: bool);
}

/// No buzzer fitted.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoBuzzer;

impl Buzzer for NoBuzzer {
    fn set(&mut self, _on: bool) {}
}

/// The serial number a board reports, for boards that have one.
pub trait BoardSerial {
    /// The serial of the board paired with, once known.
    fn serial(&self) -> Option<u64>;
}

impl<I2C: embedded_hal::i2c::I2c> BoardSerial for ProtocolBoard<I2C> {
    fn serial(&self) -> Option<u64> {
        self.identity().map(|id| id.serial)
    }
}

impl<I2C> BoardSerial for Mcp23017Board<I2C> {
    fn serial(&self) -> Option<u64> {
        None
    }
}

/// Measures taken while running, reported at the end.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// For each lever press that switched the clocks: microseconds from the
    /// press (as timestamped) to the face showing the other clock running.
    pub press_to_face_us: Vec<u64>,
    /// Faces sent to the panel.
    pub redraws: u64,
    /// Failed writes to the panel.
    pub face_errors: u64,
    /// Failed board polls.
    pub board_errors: u64,
}

impl Stats {
    /// Median and worst press-to-face latency, in microseconds.
    pub fn latency(&self) -> Option<(u64, u64)> {
        let mut v = self.press_to_face_us.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        Some((v[v.len() / 2], v[v.len() - 1]))
    }
}

/// Where the loop tells systemd it is alive.
pub trait Notifier {
    /// The hardware answers: the service is up.
    fn ready(&mut self, status: &str);
    /// The loop is alive.
    fn watchdog(&mut self);
    /// How often [`Notifier::watchdog`] must be called, if at all.
    fn watchdog_every(&self) -> Option<Duration>;
    /// The service is stopping.
    fn stopping(&mut self);
}

/// No service manager to tell (the simulator, tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoNotifier;

impl Notifier for NoNotifier {
    fn ready(&mut self, _status: &str) {}
    fn watchdog(&mut self) {}
    fn watchdog_every(&self) -> Option<Duration> {
        None
    }
    fn stopping(&mut self) {}
}

/// The loop and everything it owns.
pub struct Shell<B, D, Z> {
    session: Session,
    link: BoardLink<B>,
    oled: Oled<D>,
    buzzer: Z,
    journal: Option<Journal>,
    game: Option<GameId>,
    commands: mpsc::UnboundedReceiver<Command>,
    commands_open: bool,
    alarm: Alarm,
    start: Instant,
    /// Decisions as replay-format effect lines (the simulator's output).
    output: Option<Box<dyn Write>>,
    notifier: Box<dyn Notifier>,
    /// Where the paired board's serial is remembered.
    state_dir: Option<PathBuf>,
    stats: Stats,
    shown: Option<View>,
    last_draw: Millis,
    buzz_off: Option<Millis>,
    next_watchdog: Option<Millis>,
    next_occupancy: Millis,
    /// When the board was last polled, if ever.
    last_poll: Option<Millis>,
    /// The last poll brought news: the board may hold more than one batch,
    /// and its interrupt line stays low without a new edge, so poll again
    /// at once (protocol § 9.3).
    drain: bool,
    /// With the board's interrupt line configured: how often to poll if it
    /// turns out not to fall, and the safety-net polls in a row that found
    /// news no edge announced.
    interrupt_line: Option<(Millis, u32)>,
    /// A lever press waiting for the face to show its switch: its instant.
    pending_switch: Option<Duration>,
    checked_serial: bool,
    ready: bool,
    inputs: Vec<Input>,
    /// Where the game is published as it is drawn (the simulator).
    watch: Option<watch::Sender<Snapshot>>,
}

impl<B, D, Z> Shell<B, D, Z>
where
    B: SensorBoard + BoardSerial,
    D: embedded_hal::i2c::I2c,
    Z: Buzzer,
{
    /// A loop over these devices. The clock starts now.
    pub fn new(
        session: Session,
        link: BoardLink<B>,
        oled: Oled<D>,
        buzzer: Z,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> Shell<B, D, Z> {
        Shell {
            session,
            link,
            oled,
            buzzer,
            journal: None,
            game: None,
            commands,
            commands_open: true,
            alarm: Alarm::Tokio,
            start: Instant::now(),
            output: None,
            notifier: Box::new(NoNotifier),
            state_dir: None,
            stats: Stats::default(),
            shown: None,
            last_draw: 0,
            buzz_off: None,
            next_watchdog: None,
            next_occupancy: 0,
            last_poll: None,
            drain: false,
            interrupt_line: None,
            pending_switch: None,
            checked_serial: false,
            ready: false,
            inputs: Vec::new(),
            watch: None,
        }
    }

    /// Stores games in `journal`; `game` is the unfinished game the panel
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

    /// Tells `notifier` when the hardware answers and that the loop lives.
    pub fn with_notifier(mut self, notifier: Box<dyn Notifier>) -> Self {
        self.notifier = notifier;
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

    /// Sleeps on `alarm` between deadlines (tokio's timer by default,
    /// which a paused clock needs).
    pub fn with_alarm(mut self, alarm: Alarm) -> Self {
        self.alarm = alarm;
        self
    }

    /// Expects the board's interrupt line to announce its news (the link
    /// then polls only as a safety net); if it turns out not to, polls
    /// every `poll_ms` instead and says so in the log.
    pub fn with_interrupt_line(mut self, poll_ms: Millis) -> Self {
        self.interrupt_line = Some((poll_ms, 0));
        self
    }

    /// The instant the shell's clock counts from.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// Counts the shell's clock from `start` (so that presses timestamped
    /// before the loop began keep their order).
    pub fn with_start(mut self, start: Instant) -> Self {
        self.start = start;
        self
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn now_ms(&self) -> Millis {
        self.now().as_millis() as Millis
    }

    /// Runs until `shutdown` completes, then stores what is pending.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) -> Stats {
        tokio::pin!(shutdown);
        if let Err(err) = self.oled.init() {
            tracing::warn!("{err}; the face will be retried");
        }
        self.next_watchdog = self.notifier.watchdog_every().map(|_| 0);
        loop {
            self.step();
            let wake = self.start + Duration::from_millis(self.wake_at());
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                command = self.commands.recv(), if self.commands_open => match command {
                    Some(command) => self.command(command),
                    None => self.commands_open = false,
                },
                () = self.alarm.until(wake) => {}
            }
        }
        self.notifier.stopping();
        self.step();
        if let Some(Err(err)) = self.journal.take().map(Journal::close) {
            tracing::error!("storing the last events failed: {err}");
        }
        if let Some(out) = self.output.as_mut() {
            let _ = out.flush();
        }
        self.stats.board_errors = self.link.errors();
        if let Some((median, worst)) = self.stats.latency() {
            tracing::info!(
                presses = self.stats.press_to_face_us.len(),
                "press to face: median {median} us, worst {worst} us"
            );
        }
        self.stats
    }

    /// The earliest instant something is due, on the shell's clock.
    fn wake_at(&self) -> Millis {
        let mut wake = self.next_poll().min(self.next_occupancy);
        if let Some(deadline) = self.session.next_deadline() {
            wake = wake.min(deadline);
        }
        if self.session.is_ticking() {
            wake = wake.min(self.last_draw + FACE_TICK_MS);
        }
        if let Some(off) = self.buzz_off {
            wake = wake.min(off);
        }
        if let Some(ping) = self.next_watchdog {
            wake = wake.min(ping);
        }
        wake
    }

    fn command(&mut self, command: Command) {
        let now = self.now_ms();
        match command {
            Command::Press(press) => {
                // The hand moved the piece before it pressed: the board's
                // news must reach the referee first.
                self.poll_board(now, PollReason::Press);
                let at = press.at.min(self.now());
                let running = self.session.referee().and_then(|r| r.ticking());
                self.session
                    .press(now, press.button, at.as_millis() as Millis);
                let after = self.session.referee().and_then(|r| r.ticking());
                if after.is_some() && after != running {
                    self.pending_switch = Some(at);
                }
                // The switch is shown first; storing it (and, for a game's
                // first press, creating the game) comes after.
                self.draw(now, false);
                self.act();
            }
            Command::BoardInterrupt => self.poll_board(now, PollReason::Edge),
            Command::Input(input) => {
                self.session.input(now, input);
                self.act();
            }
            Command::Rules { name, rules } => self.session.select_rules(&name, *rules),
            Command::Redraw(done) => {
                self.draw(now, true);
                let _ = done.send(());
            }
        }
        self.draw(now, false);
    }

    /// Does everything due at the shell's current instant.
    fn step(&mut self) {
        let now = self.now_ms();
        // A safety-net poll due soon is taken now, while the loop is awake
        // anyway (the face's tick): one wakeup instead of two.
        if self.drain {
            self.poll_board(now, PollReason::Drain);
        } else if now + self.poll_slack() >= self.next_poll() {
            self.poll_board(now, PollReason::Schedule);
        }
        if now >= self.next_occupancy {
            self.next_occupancy = now + OCCUPANCY_EVERY_MS;
            self.read_occupancy();
        }
        self.session.handle_timeout(now);
        self.act();
        if self.buzz_off.is_some_and(|off| now >= off) {
            self.buzzer.set(false);
            self.buzz_off = None;
        }
        self.draw(now, false);
        if let (Some(ping), Some(every)) = (self.next_watchdog, self.notifier.watchdog_every())
            && now >= ping
        {
            self.notifier.watchdog();
            self.next_watchdog = Some(now + every.as_millis() as Millis);
        }
    }

    /// When the board is next due: on the link's schedule in a game, at
    /// most every [`SETUP_POLL_MS`] outside one.
    fn next_poll(&self) -> Millis {
        if let (true, Some(last)) = (self.drain, self.last_poll) {
            return last;
        }
        let due = self.link.next_poll();
        match self.last_poll {
            Some(last) if !self.session.in_game() => due.max(last + SETUP_POLL_MS),
            _ => due,
        }
    }

    /// How early a scheduled poll may be taken. Polling every few
    /// milliseconds is how the board is heard at all: never early. A poll
    /// every [`FACE_TICK_MS`] or less often (the interrupt line's safety
    /// net) may come up to half its period early.
    fn poll_slack(&self) -> Millis {
        let every = self.link.policy().poll_every_ms;
        if every >= FACE_TICK_MS { every / 2 } else { 0 }
    }

    /// Polls the board now, ahead of the link's schedule if need be (a
    /// link backing off after failures keeps its wait).
    fn poll_board(&mut self, now: Millis, reason: PollReason) {
        let change = self.link.poll_now(now, &mut self.inputs);
        self.last_poll = Some(now);
        self.drain = !self.inputs.is_empty();
        if self.drain {
            self.check_edges(reason);
        }
        match change {
            Some(LinkChange::Disconnected) => {
                tracing::warn!("the sensor board does not answer; the clock keeps time");
                self.session.link(LinkChange::Disconnected);
            }
            Some(LinkChange::Reconnected) => {
                tracing::info!("the sensor board answers again");
                self.session.link(LinkChange::Reconnected);
                self.read_occupancy();
            }
            None => {}
        }
        for input in std::mem::take(&mut self.inputs) {
            self.session.board(now, input);
        }
        self.act();
        if !self.ready {
            self.ready = true;
            let status = if self.link.is_connected() {
                "clock and board answer"
            } else {
                "clock up; the board does not answer"
            };
            self.notifier.ready(status);
            tracing::info!("{status}");
        }
        if !self.checked_serial
            && let Some(serial) = self.link.board().serial()
        {
            self.checked_serial = true;
            self.check_serial(serial);
        }
    }

    /// Counts news found by the safety net that no edge announced, and
    /// falls back to polling when the line evidently does not fall.
    fn check_edges(&mut self, reason: PollReason) {
        let Some((poll_ms, misses)) = self.interrupt_line.as_mut() else {
            return;
        };
        match reason {
            PollReason::Edge => *misses = 0,
            PollReason::Schedule => *misses += 1,
            PollReason::Drain | PollReason::Press => {}
        }
        if *misses >= EDGE_MISSES_TO_POLL {
            let poll_ms = *poll_ms;
            tracing::warn!(
                "the board's interrupt line does not fall (is it wired to board.interrupt_pin?); \
                 polling the board every {poll_ms} ms"
            );
            self.link.set_poll_every(poll_ms);
            self.interrupt_line = None;
        }
    }

    fn read_occupancy(&mut self) {
        match self.link.board_mut().occupancy() {
            Ok(occupied) => {
                // The snapshot's differences come out with the next poll.
                self.session.set_occupancy(occupied);
            }
            Err(err) => tracing::debug!("occupancy: {err:?}"),
        }
    }

    /// Remembers the serial of the board first paired with and warns when
    /// another one answers: a board swapped mid-event is worth a look.
    fn check_serial(&mut self, serial: u64) {
        let Some(dir) = self.state_dir.as_ref() else {
            return;
        };
        let path = dir.join("board-serial");
        let known = std::fs::read_to_string(&path)
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim(), 16).ok());
        match known {
            Some(known) if known == serial => {}
            Some(known) => {
                tracing::warn!("a different sensor board answers: {serial:016x}, was {known:016x}");
                self.session
                    .notice(format!("New board {:04x}", serial & 0xffff));
                let _ = std::fs::write(&path, format!("{serial:016x}\n"));
            }
            None => {
                tracing::info!("paired with sensor board {serial:016x}");
                if let Err(err) = std::fs::write(&path, format!("{serial:016x}\n")) {
                    tracing::warn!(
                        "cannot remember the board's serial in {}: {err}",
                        path.display()
                    );
                }
            }
        }
    }

    /// Carries out what the panel asked for, in order.
    fn act(&mut self) {
        while let Some(action) = self.session.poll_action() {
            match action {
                Action::Begin {
                    preset,
                    black_left,
                    setup,
                } => {
                    let started_at = std::time::SystemTime::now();
                    // The store's own calendar (local time), so the PGN's Date
                    // tag and `tocada export --since` agree about the day.
                    match crate::store::pgn_date(started_at) {
                        Ok(date) => self.session.set_date(&date),
                        Err(err) => tracing::warn!("no date for the new game: {err}"),
                    }
                    self.game = None;
                    if let Some(journal) = self.journal.as_ref() {
                        let game = NewGame {
                            started_at,
                            preset: &preset,
                            white_left: !black_left,
                            setup_line: &setup,
                        };
                        match journal.begin_game(game) {
                            Ok(id) => self.game = Some(id),
                            Err(err) => tracing::error!("cannot store the new game: {err}"),
                        }
                    }
                    tracing::info!(preset, "game started");
                }
                Action::Record { t, line } => {
                    if let (Some(journal), Some(game)) = (self.journal.as_ref(), self.game) {
                        journal.append(game, t, line);
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
                    let line = serde_json::json!({
                        "t": t,
                        "effect": "game_restored",
                        "white_ms": white_ms,
                        "black_ms": black_ms,
                        "moves": moves,
                        "fen": fen,
                    });
                    self.output_line(&line.to_string());
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
        self.buzzer.set(true);
        let off = self.now_ms() + buzz.duration_ms();
        self.buzz_off = Some(self.buzz_off.map_or(off, |o| o.max(off)));
    }

    /// Redraws the face if something changed, or if a clock runs and a tick
    /// is due, or if `force`d.
    fn draw(&mut self, now: Millis, force: bool) {
        let changed = self.session.take_changed();
        let tick = self.session.is_ticking() && now >= self.last_draw + FACE_TICK_MS;
        if !(changed || tick || force || self.shown.is_none()) {
            return;
        }
        let view = self.session.view(now);
        self.last_draw = now;
        self.publish(&view);
        if !force && self.shown.as_ref() == Some(&view) {
            return;
        }
        match self
            .oled
            .show(&crate::face::render(&view), &crate::face::urgent(&view))
        {
            Ok(()) => {
                self.stats.redraws += 1;
                self.shown = Some(view);
                if let Some(at) = self.pending_switch.take() {
                    let us = self.now().saturating_sub(at).as_micros() as u64;
                    self.stats.press_to_face_us.push(us);
                }
            }
            Err(err) => {
                self.stats.face_errors += 1;
                if self.stats.face_errors.is_power_of_two() {
                    tracing::warn!("{err} ({} failures)", self.stats.face_errors);
                }
                self.shown = None;
            }
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

    /// The panel, to look at (tests, the simulator).
    pub fn panel(&self) -> &Session {
        &self.session
    }
}
