//! `tocada run`: the clock a club leaves running on a Pi.
//!
//! A thin tokio shell around the sans-IO [`Session`] (and so the referee):
//! [`shell::Shell`] is the one loop that owns the hardware; this module
//! assembles it from the configuration, restores the game a crash or a power
//! cut interrupted, and tells systemd how it is doing.
//!
//! With `board.kind = "sim"` the device models stand in for `/dev/i2c-1` and
//! the GPIO chip, and the front controls and the hands on the board come as
//! replay-format lines on standard input, while decisions go out on standard
//! output: the very same daemon, driven by a test or a script. A game
//! restored after a restart is announced there first, in the same style:
//! `{"t":..,"effect":"game_restored","white_ms":..,"black_ms":..,"moves":N,"fen":".."}`,
//! the clocks at its last stored instant `t`, `moves` completed (plies) and
//! the position on the board; a test holds it against the store.
//!
//! The store's faults cost as little as they can: a store locked by another
//! process at start-up costs nothing when it is already made (reading never
//! waits in WAL mode; the journal retries its commits, the face showing
//! games unsaved until they land), and is waited for when it must first be
//! written ([`wait_out_locks`]: a new store, a schema to migrate, lines to
//! set aside); a stored line a
//! restore cannot take is set aside, never deleted, and the face and the
//! journal say so; a stop waits up to [`STOP_WAIT`] for a store that cannot
//! be written and exits 74 ([`DaemonError::Unstored`]) if anything is lost.
//!
//! # The units of the loop
//!
//! - [`shell`]: the loop itself, synchronous (`command`, `step`,
//!   `wake_at`), and `run`, which waits between them;
//! - [`board_news`]: sans-IO, the board's news in order before a press;
//! - [`storage`]: the game's lines handed to the store's writer, and the
//!   checkpoints of a running clock;
//! - [`drawing`]: the face staged and sent in bounded writes between polls;
//! - [`stats`]: what the loop measures (latency, board inputs, bus
//!   failures), reported at the end;
//! - [`pairing`]: the hall's pairing of the board, read from the file
//!   `tocada-publish` writes (the daemon has no network);
//! - [`polling`]: when to read the board; [`timers`]: the loop's deadlines
//!   by name; [`alarm`]: its one timer;
//! - [`board_identity`]: which board answers across restarts; `systemd`:
//!   READY, WATCHDOG and STOPPING ([`Systemd`]).
//!
//! # The walk of a lift
//!
//! Where a piece lifted from e2 goes, from the bus to the referee, the
//! store and the face: each step one layer down the stack, none back into
//! a layer already visited.
//!
//! 1. **The board, on the bus** (`src/hardware/protocol_board.rs`, or
//!    `dgt.rs`, `mcp23017_board.rs`): the loop reads the board when
//!    [`polling::Polling`] says so, on the board's interrupt edge
//!    ([`Command::BoardInterrupt`]) or at once on a lever press. The driver's
//!    [`SensorBoard::poll_stamped`](crate::hardware::SensorBoard::poll_stamped)
//!    hands out a [`BoardEvent`](crate::hardware::BoardEvent):
//!    `Input::Lift(e2)` and the board's own millisecond of it (`board_ms`).
//! 2. **The link** (`src/hardware/link.rs`): [`BoardLink`](crate::hardware::link::BoardLink)
//!    retries and backs off on a bus error, says
//!    [`LinkChange`](crate::controls::LinkChange) when the board goes
//!    or comes back, and keeps the board's clock mapped onto the loop's
//!    (`src/hardware/board_clock.rs`, protocol § 8.1):
//!    [`BoardLink::at`](crate::hardware::link::BoardLink::at) gives the
//!    lift's instant on the loop's clock, never later than its reading.
//! 3. **The order of the news** (`src/daemon/board_news.rs`):
//!    [`BoardNews`](board_news::BoardNews) keeps every change at or after
//!    what was handed on before, and holds a lever press until the board
//!    has been read after it, so the move reaches the referee before the
//!    press that completes it. The loop (`src/daemon/shell.rs`,
//!    [`Shell::step`](shell::Shell::step)) moves all this along in time.
//! 4. **The session** (`src/session/mod.rs`):
//!    [`Session::handle`] with `SessionInput::Board(Input::Lift(e2))` at that
//!    instant; it notes the square empty and gives the game's referee the
//!    input at the game's time (the loop's, plus the offset of a restored
//!    game).
//! 5. **The referee** (`src/referee/`): `Referee::handle(t, Input)` rules
//!    (touch-move, 4.3; a release, 4.7) and queues
//!    [`Effect`](crate::Effect)s; the session drains them into
//!    [`Action`]s: `Action::Record { t, event: Recorded::Input(..) }` for the
//!    store, `Action::Decision(t, Effect)` for the log and the simulator's
//!    output, `Action::Buzz`, and a changed face.
//! 6. **The store** (`src/daemon/storage.rs`, `src/store/journal.rs`,
//!    `src/store.rs`): [`Storage`](storage::Storage) makes the record one
//!    replay line as a value ([`Line`](crate::transcript::Line)) and hands
//!    it to the [`Journal`], whose thread writes it with the format's one
//!    writer ([`transcript::line_to_json`](crate::transcript::line_to_json),
//!    `{"t":1500,"ev":"lift","sq":"e2"}`) and commits it to SQLite: the
//!    loop never waits for the disk, and the store never reads it back.
//! 7. **The face** (`src/daemon/drawing.rs`, `src/face/`,
//!    `src/hardware/oled.rs`): [`Drawing`](drawing::Drawing) asks the
//!    session for its [`View`](crate::face::View), renders it
//!    (`face::render`) and stages the frame on the OLED, which is sent one
//!    bounded write per pass of the loop after the board has had its turn:
//!    the board is never starved by the display.
//!
//! A lever press walks the same way from its GPIO edge
//! ([`Command::Press`], stamped by the kernel) into step 3; a DGT 3000's,
//! plugged into a DGT board, comes up the board's own line in step 1 (a
//! clock report the driver reads between field updates, stamped when the
//! board sent it) and enters step 3 from the poll that read it, after the
//! board's news before it ([`dgt3000_face`] maps the clock's controls; the
//! face goes back to the clock as both times, whose runs and eight
//! characters of text). Decisions leave
//! the loop as values ([`Decisions`]): the simulator's log takes them as
//! they are, and only at the edge, standard output for `run` and
//! `sim --script`, are they written as effect lines ([`EffectLines`]).

pub mod alarm;
pub mod board_identity;
pub mod board_news;
pub mod decisions;
pub mod dgt3000_face;
pub mod drawing;
pub mod pairing;
pub mod polling;
pub mod shell;
pub mod stats;
pub mod storage;
mod systemd;
pub mod timers;

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shakmaty::{Color, Position};
use tokio::sync::mpsc;

pub use crate::rig::{Command, NoNotifier, Notifier};
pub use crate::session::{Action, Buzz, GameRestored, GameToResume, Recorded, Session};
pub use crate::transcript::RestoreError;
pub use alarm::Alarm;
pub use decisions::{Decisions, EffectLines};
pub use polling::INTERRUPT_POLL_MS;
pub use shell::{Shell, ShownGame, Stats};
pub use systemd::Systemd;

#[cfg(target_os = "linux")]
use crate::config::Levers;
use crate::config::{BoardKind, BoardModel, Config, StdinPace};
use crate::hardware::link::LinkPolicy;
use crate::rig::Rig;
use crate::rig::models::{ModelRig, RigClock, ScriptResume, World, feed_stdin};
#[cfg(target_os = "linux")]
use crate::rig::pi::AnyPiRig;
use crate::store::{self, GameId, Journal, Store, StoreError};

/// Why the daemon could not run.
#[derive(Debug)]
pub enum DaemonError {
    /// The game store could not be opened.
    Store {
        /// The database file.
        path: PathBuf,
        /// Why it could not be opened.
        source: StoreError,
    },
    /// The hardware could not be opened (the I2C adapter, the GPIO chip).
    #[cfg(target_os = "linux")]
    Hardware(crate::rig::pi::PiError),
    /// This machine has no I2C bus nor GPIO chip to open.
    NoHardware,
    /// The simulated DGT board's pseudo-terminal could not be made.
    SimulatedBoard(std::io::Error),
    /// The tokio runtime could not start.
    Runtime(std::io::Error),
    /// Stopping, the game store still could not be written when
    /// [`STOP_WAIT`] ran out (a lock held by another process, a full
    /// disk): what the journal held was never stored.
    Unstored {
        /// Operations lost: events, games begun, results.
        lost: usize,
    },
}

/// How long a stop waits for a game store that cannot be written (a lock
/// held by another process, a full disk) before giving up what it holds:
/// well within the unit's `TimeoutStopSec=30s`, after which systemd kills
/// the daemon.
pub const STOP_WAIT: Duration = Duration::from_secs(20);

/// At start-up, a game store locked by another process is tried again
/// after this, then twice as long each time up to [`LOCKED_RETRY_MAX`]:
/// each try also waits the store's busy timeout, so systemd's watchdog
/// (10 s) is fed between tries.
pub const LOCKED_RETRY_FIRST: Duration = Duration::from_millis(250);
/// The longest pause between two tries of a locked game store.
pub const LOCKED_RETRY_MAX: Duration = Duration::from_secs(4);
/// While the game store stays locked at start-up, the log says so again
/// this often.
const LOCKED_TELL_EVERY: Duration = Duration::from_secs(30);
/// Once a locked game store is free, what is left of start-up (restoring
/// a long game, the hardware) is given this much more by systemd:
/// systemd's own default start timeout. While the daemon waited, each
/// extension covered only its next try, and once past `TimeoutStartSec`
/// systemd holds a service to its last extension.
pub const START_AFTER_LOCK: Duration = Duration::from_secs(90);

impl fmt::Display for DaemonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DaemonError::Store { path, source } => {
                write!(f, "cannot open the game store {}: {source}", path.display())
            }
            #[cfg(target_os = "linux")]
            DaemonError::Hardware(err) => write!(f, "{err}"),
            DaemonError::NoHardware => {
                f.write_str("the I2C bus and the GPIO chip need Linux; use board.kind = \"sim\"")
            }
            DaemonError::Runtime(err) => write!(f, "cannot start the event loop: {err}"),
            DaemonError::Unstored { lost } => write!(
                f,
                "{lost} game store operation(s) lost: the store could still not be written \
                 after waiting {} s to stop (see the log); what the face showed last may be \
                 missing from the store",
                STOP_WAIT.as_secs()
            ),
            DaemonError::SimulatedBoard(err) => {
                write!(
                    f,
                    "cannot make the simulated DGT board's pseudo-terminal: {err}"
                )
            }
        }
    }
}

impl std::error::Error for DaemonError {}

impl DaemonError {
    /// The process exit code: [`EX_CONFIG`](crate::exit::EX_CONFIG) when
    /// starting again cannot help until someone changes the machine (a game
    /// store that is not one, from a newer tocada, read-only, damaged, or
    /// that cannot be opened at the configured path), so that systemd does
    /// not restart the daemon forever; [`EX_TEMPFAIL`](crate::exit::EX_TEMPFAIL)
    /// for a store another process holds locked (the lock may be gone on the
    /// next start); [`EX_IOERR`](crate::exit::EX_IOERR) when stopping lost
    /// what the store could not take; `EX_CONFIG` too for a DGT board's
    /// `board.serial` that is there but is no serial line this user may
    /// open; [`FAILURE`](crate::exit::FAILURE) otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            DaemonError::Unstored { .. } => crate::exit::EX_IOERR,
            DaemonError::Store { source, .. } if source.is_locked() => crate::exit::EX_TEMPFAIL,
            DaemonError::Store { .. } => crate::exit::EX_CONFIG,
            #[cfg(target_os = "linux")]
            DaemonError::Hardware(crate::rig::pi::PiError::Serial { .. }) => crate::exit::EX_CONFIG,
            _ => crate::exit::FAILURE,
        }
    }
}

/// Opens the game store in the configured state directory and restores the
/// unfinished game into `session`, if there is one. A store locked by
/// another process is waited for ([`wait_out_locks`]). A bad stored line,
/// or one whose time cannot be, keeps every line before it; it and every
/// later line are set aside in the store (never deleted, never overwritten:
/// the next events take fresh rows) and the log and the face say so. A game
/// that cannot be rebuilt at all (no valid setup line) is closed as `*`
/// rather than blocking every later start.
pub fn open_games(
    config: &Config,
    session: &mut Session,
) -> Result<(Journal, Option<GameId>), DaemonError> {
    restore_games(config, session).map(|games| (games.journal, games.restored))
}

/// What [`restore_games`] found.
struct Games {
    journal: Journal,
    /// The unfinished game, restored into the session.
    restored: Option<GameId>,
    /// Its stored inputs, in order, up to any bad line: where a paced
    /// script on standard input goes on from.
    inputs: Vec<crate::Input>,
}

/// [`open_games`], also returning the restored game's stored inputs.
fn restore_games(config: &Config, session: &mut Session) -> Result<Games, DaemonError> {
    let dir = &config.state.directory;
    let path = dir.join(store::DB_FILE);
    let failed = |source| DaemonError::Store {
        path: path.clone(),
        source,
    };
    if let Err(err) = std::fs::create_dir_all(dir) {
        tracing::warn!("cannot create {}: {err}", dir.display());
    }
    let mut store = wait_out_locks(&path, || Store::open(&path)).map_err(failed)?;
    let mut restored = None;
    let mut inputs = Vec::new();
    if let Some(saved) = store.unfinished().map_err(failed)? {
        let result = crate::transcript::restore(
            session,
            0,
            GameToResume {
                preset: &saved.preset,
                black_left: !saved.white_left,
                date: &saved.date,
                lines: &saved.lines,
            },
            crate::transcript::Policy::RESTORE,
        );
        match result {
            Ok(done) => {
                if let Some(fault) = &done.fault {
                    // Stored lines are numbered from 1, in the order of
                    // their seqs. Nothing from the bad line on was
                    // replayed: it and the rest go aside, kept whole, and
                    // the game goes on from the line before it.
                    let seq = saved.seqs.get(fault.line.saturating_sub(1)).copied();
                    let reason = format!("stored {fault}");
                    let aside = match seq {
                        Some(seq) => {
                            wait_out_locks(&path, || store.set_aside_from(saved.id, seq, &reason))
                                .map_err(failed)?
                        }
                        None => Vec::new(),
                    };
                    tracing::error!(
                        game = saved.id,
                        set_aside = aside.len(),
                        "{reason}: the game is restored up to the line before; that line and \
                         every later one are kept aside in the store (table set_aside), \
                         never deleted"
                    );
                    for line in &aside {
                        tracing::error!(game = saved.id, line, "stored line set aside");
                    }
                    let language = session.language();
                    session.notice(crate::words::restarted_set_aside(aside.len(), language));
                }
                let off_ms = time_off(
                    saved.started_at,
                    done.t,
                    session.restarts(),
                    std::time::SystemTime::now(),
                );
                session.power_cut(off_ms);
                tracing::info!(
                    game = saved.id,
                    lines = saved.lines.len(),
                    off_ms,
                    "restored the unfinished game, paused: a press resumes"
                );
                restored = Some(saved.id);
                inputs = done
                    .inputs
                    .into_iter()
                    .filter(|input| !matches!(input, crate::Input::Pause | crate::Input::Resume))
                    .collect();
            }
            Err(err) => {
                tracing::error!(game = saved.id, "cannot rebuild the unfinished game: {err}");
                wait_out_locks(&path, || store.finish(saved.id, "*", "")).map_err(failed)?;
            }
        }
    }
    Ok(Games {
        journal: Journal::spawn(store),
        restored,
        inputs,
    })
}

/// Does `attempt` on the game store at `path` until it is not refused for
/// a lock another process holds (someone's `sqlite3` in a transaction, a
/// backup): a lock passes, so the clock waits for it rather than stop for
/// good. Tries again after [`LOCKED_RETRY_FIRST`], doubling up to
/// [`LOCKED_RETRY_MAX`]; says so in the log (again every 30 s) and in
/// systemd's status, feeds the watchdog and extends the start timeout
/// between tries, and by [`START_AFTER_LOCK`] once the lock is gone. Any
/// other error is returned at once.
pub fn wait_out_locks<T>(
    path: &Path,
    mut attempt: impl FnMut() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut systemd = Systemd::from_env();
    let started = Instant::now();
    let mut pause = LOCKED_RETRY_FIRST;
    let mut told: Option<Instant> = None;
    loop {
        match attempt() {
            Err(err) if err.is_locked() => {
                if told.is_none_or(|at| at.elapsed() >= LOCKED_TELL_EVERY) {
                    told = Some(Instant::now());
                    tracing::warn!(
                        waited_s = started.elapsed().as_secs(),
                        "the game store {} is locked by another process ({err}): waiting \
                         for it, the clock starts once it is free",
                        path.display()
                    );
                }
                systemd.waiting(
                    "waiting for the game store: locked by another process",
                    pause + 2 * store::BUSY_TIMEOUT,
                );
                std::thread::sleep(pause);
                pause = (pause * 2).min(LOCKED_RETRY_MAX);
            }
            Ok(done) => {
                if told.is_some() {
                    systemd.waiting("the game store is free: starting", START_AFTER_LOCK);
                    tracing::info!(
                        waited_s = started.elapsed().as_secs(),
                        "the game store is free again"
                    );
                }
                return Ok(done);
            }
            Err(err) => return Err(err),
        }
    }
}

/// How long the clock was off before this start, by the wall clock: now,
/// less the wall time of the game's last stored instant `last` (its start,
/// plus its own clock up to `last`, plus the time off at each earlier
/// restart). `None` when the wall clock cannot tell: an earlier time off
/// unknown, or a wall clock behind the game's (a Pi without a real-time
/// clock boots on its last saved time until NTP sets it).
pub fn time_off(
    started_at: std::time::SystemTime,
    last: crate::Millis,
    earlier: &[(crate::Millis, Option<u64>)],
    now: std::time::SystemTime,
) -> Option<u64> {
    let mut game_ms = last;
    for (_, off) in earlier {
        game_ms = game_ms.checked_add((*off)?)?;
    }
    let elapsed = now.duration_since(started_at).ok()?;
    let elapsed = u64::try_from(elapsed.as_millis()).ok()?;
    elapsed.checked_sub(game_ms)
}

/// How the board is polled as configured: every `board.poll_ms`, or, with
/// its interrupt line wired, read on the line's edge and polled only every
/// [`INTERRUPT_POLL_MS`] as a safety net (protocol § 9.3).
pub fn link_policy(config: &Config) -> LinkPolicy {
    let poll_every_ms = match config.board.interrupt_pin {
        Some(_) => config.board.poll_ms.max(INTERRUPT_POLL_MS),
        None => config.board.poll_ms,
    };
    LinkPolicy {
        poll_every_ms,
        ..LinkPolicy::default()
    }
}

/// The device models holding `board`'s pieces, the board modelled as
/// `board.model` says: a DGT board's pseudo-terminal is linked at
/// `board.serial`, or in the temporary directory when it is left out.
pub fn model_world(config: &Config, board: &shakmaty::Board) -> Result<World, DaemonError> {
    match config.board.model {
        BoardModel::Protocol => Ok(World::with_board(board)),
        #[cfg(target_os = "linux")]
        BoardModel::Dgt => {
            let path = config.board.serial.clone().unwrap_or_else(|| {
                std::env::temp_dir().join(format!("tocada-dgt-{}", std::process::id()))
            });
            let world = match config.board.clock {
                crate::config::BoardClock::Dgt3000 => World::with_dgt3000(board, &path),
                _ => World::with_dgt(board, &path),
            };
            world
                .map(|world| world.use_board_clock(config.board.clock.used()))
                .map_err(DaemonError::SimulatedBoard)
        }
        #[cfg(not(target_os = "linux"))]
        BoardModel::Dgt => Err(DaemonError::NoHardware),
    }
}

/// Tells `shell` to expect the board's interrupt line, if one is configured.
pub fn with_interrupt_line<R: Rig>(shell: Shell<R>, config: &Config) -> Shell<R> {
    match config.board.interrupt_pin {
        Some(_) => shell.with_interrupt_line(config.board.poll_ms),
        None => shell,
    }
}

/// The daemon's loop on `world`'s models, with `session`, the board read as
/// `config` says. Its clock is tokio's from `start` (paused in the
/// simulator's scripts and the tests).
pub fn model_shell(
    world: &World,
    session: Session,
    config: &Config,
    start: tokio::time::Instant,
) -> Shell<ModelRig> {
    let rig = world.rig(link_policy(config), RigClock::Tokio(start));
    with_interrupt_line(Shell::new(session, rig), config)
}

/// The daemon as the simulator runs it on `world`: `config`'s presets and
/// rules, the board read as configured (on its interrupt line when
/// `board.interrupt_pin` is set, polled every `poll_ms` otherwise), games
/// in `store` (in memory unless `sim --db` names a file), its clock tokio's
/// from `start`. Commands for it go to the sender; the receiver is for
/// [`Shell::run`].
pub fn on_models(
    world: &World,
    config: &Config,
    start: tokio::time::Instant,
    store: Store,
) -> (Shell<ModelRig>, mpsc::UnboundedSender<Command>, Commands) {
    let (tx, rx) = mpsc::unbounded_channel();
    if config.board.interrupt_pin.is_some() {
        world.wire_interrupt(tx.clone());
    }
    let shell = model_shell(world, Session::new(config), config, start)
        .with_journal(Journal::spawn(store), None);
    (shell, tx, rx)
}

/// The loop's queue, as [`Shell::run`] takes it.
pub type Commands = mpsc::UnboundedReceiver<Command>;

/// The kernel's timer for the loop, or tokio's if there is none to be had.
fn kernel_alarm() -> Alarm {
    Alarm::kernel().unwrap_or_else(|err| {
        tracing::warn!("no kernel timer ({err}); sleeping on tokio's");
        Alarm::Tokio
    })
}

/// The daemon's loop on `rig` as `config` says: storing games in
/// `journal` (`game`: the one restored), remembering the paired board in
/// the state directory, reading the board on its interrupt line if wired.
fn daemon_shell<R: Rig>(
    config: &Config,
    session: Session,
    rig: R,
    journal: Journal,
    game: Option<GameId>,
    pairing_file: Option<pairing::PairingFile>,
) -> Shell<R> {
    let mut shell = Shell::new(session, rig)
        .with_journal(journal, game)
        .with_state_dir(config.state.directory.clone());
    // The hall's pairing, as the publisher hands it over: the file already
    // looked at before the restore, so an unchanged one is not read (and
    // logged) again.
    if let Some(file) = pairing_file {
        shell = shell.with_pairing_file(file);
    }
    with_interrupt_line(shell, config)
}

/// The shell writing its decisions to standard output when the levers
/// are read from standard input: whoever presses there reads the clock's
/// answers.
#[cfg(target_os = "linux")]
fn with_stdin_levers<R: Rig>(shell: Shell<R>, config: &Config) -> Shell<R> {
    match config.clock.levers {
        Levers::Stdin => shell.with_output(Box::new(std::io::stdout())),
        Levers::Gpio | Levers::None => shell,
    }
}

/// Runs the daemon as configured until `shutdown` completes.
pub fn run(config: &Config, shutdown: impl Future<Output = ()>) -> Result<Stats, DaemonError> {
    tracing::info!("{}", config.summary());
    for warning in config.warnings() {
        tracing::warn!("{warning}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(DaemonError::Runtime)?;
    let local = tokio::task::LocalSet::new();
    let stats = local.block_on(&runtime, async move {
        let mut session = Session::new(config);
        // Read before the restore, so the face has it at once. A game a
        // power cut interrupted comes back with its own players, from its
        // stored `players` line, whatever the file says now.
        let pairing_file = config.publish.as_ref().map(|publish| {
            let mut file =
                pairing::PairingFile::new(publish.pairing_file.clone(), publish.address.board());
            if let Some(pairing) = file.changed() {
                session.set_pairing(pairing);
            }
            file
        });
        let Games {
            journal,
            restored: game,
            inputs,
        } = restore_games(config, &mut session)?;
        let link_policy = link_policy(config);
        let (tx, rx) = mpsc::unbounded_channel();
        let notifier = Box::new(Systemd::from_env());
        let alarm = kernel_alarm();
        match config.board.kind {
            BoardKind::Sim => {
                // Pieces stay on a board when the clock loses power: the
                // models start as the restored game left them.
                let board = match session.referee() {
                    Some(referee) => referee.physical_board(),
                    None => config.start.board().clone(),
                };
                let world = model_world(config, &board)?;
                if config.board.interrupt_pin.is_some() {
                    world.wire_interrupt(tx.clone());
                }
                let clock = RigClock::Tokio(tokio::time::Instant::now());
                let rig = world
                    .rig(link_policy, clock.clone())
                    .with_notifier(notifier);
                // A paced script given again after a restart goes on from
                // the restored game, resumed by the lever of the player
                // whose clock does not run: the opponent of the one whose
                // move waits for its press (the position shows that move
                // made), else of the player to move. The script's own
                // press completes a waiting move, as the hand would have.
                let paced = config.board.stdin == StdinPace::Script;
                let resume = session
                    .referee()
                    .filter(|referee| paced && game.is_some() && referee.result().is_none())
                    .map(|referee| ScriptResume {
                        stored: inputs,
                        lever: [Color::White, Color::Black]
                            .into_iter()
                            .find(|&side| referee.awaits_press(side))
                            .map_or(!referee.position().turn(), |side| !side),
                    });
                tokio::task::spawn_local(feed_stdin(world.clone(), tx, clock, paced, resume));
                let shell = daemon_shell(config, session, rig, journal, game, pairing_file)
                    .with_output(Box::new(std::io::stdout()));
                Ok(shell.run(rx, alarm, shutdown).await)
            }
            #[cfg(target_os = "linux")]
            BoardKind::Protocol | BoardKind::Mcp23017 | BoardKind::Dgt | BoardKind::None => {
                match crate::rig::pi::open(config, link_policy, notifier, tx)
                    .map_err(DaemonError::Hardware)?
                {
                    AnyPiRig::Protocol(rig) => {
                        let shell = daemon_shell(config, session, rig, journal, game, pairing_file);
                        let shell = with_stdin_levers(shell, config);
                        Ok(shell.run(rx, alarm, shutdown).await)
                    }
                    AnyPiRig::Mcp23017(rig) => {
                        let shell = daemon_shell(config, session, rig, journal, game, pairing_file);
                        let shell = with_stdin_levers(shell, config);
                        Ok(shell.run(rx, alarm, shutdown).await)
                    }
                    AnyPiRig::Dgt(rig) => {
                        let shell =
                            daemon_shell(config, session, *rig, journal, game, pairing_file);
                        let shell = with_stdin_levers(shell, config);
                        Ok(shell.run(rx, alarm, shutdown).await)
                    }
                    AnyPiRig::None(rig) => {
                        let shell = daemon_shell(config, session, rig, journal, game, pairing_file);
                        let shell = with_stdin_levers(shell, config);
                        Ok(shell.run(rx, alarm, shutdown).await)
                    }
                }
            }
            #[cfg(not(target_os = "linux"))]
            BoardKind::Protocol | BoardKind::Mcp23017 | BoardKind::Dgt | BoardKind::None => {
                Err(DaemonError::NoHardware)
            }
        }
    });
    // Everything is stored by now (the shell closed the journal). tokio
    // reads standard input on a blocking thread whose read cannot be
    // cancelled: waiting for it would hang a stop until the next line.
    drop(local);
    runtime.shutdown_background();
    let stats = stats?;
    match stats.unstored {
        0 => Ok(stats),
        lost => Err(DaemonError::Unstored { lost }),
    }
}

/// Completes on SIGTERM (systemd's stop) or SIGINT (Ctrl-C): the daemon's
/// shutdown future. Must be polled inside the runtime.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM: stopping"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: stopping"),
                }
            }
            Err(err) => {
                tracing::warn!("cannot wait for SIGTERM: {err}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn a_restore_reads_each_stored_line_once() {
        use crate::transcript::line::PARSED;
        use crate::transcript::{Event, Line};
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.state.directory = dir.path().to_owned();
        let mut store = Store::open(&dir.path().join(store::DB_FILE)).unwrap();
        let setup = Line {
            t: 0,
            event: Event::Setup(Box::default()),
        };
        let id = store
            .begin_game(&store::NewGame {
                started_at: std::time::SystemTime::now(),
                preset: "rapid",
                white_left: true,
                setup: &setup,
            })
            .unwrap();
        // The clock runs from the first press: a checkpoint every 500 ms.
        let mut lines = vec![Line {
            t: 1_000,
            event: Event::Input(crate::Input::Press(Color::Black)),
        }];
        lines.extend((3..40).map(|i| Line {
            t: i * 500,
            event: Event::Checkpoint { ran_to: None },
        }));
        store.append(id, &lines).unwrap();
        drop(store);
        let mut session = Session::new(&config);
        let before = PARSED.with(|parsed| parsed.get());
        let (journal, restored) = open_games(&config, &mut session).unwrap();
        assert_eq!(restored, Some(id));
        assert_eq!(
            PARSED.with(|parsed| parsed.get()) - before,
            1 + lines.len(),
            "the setup line and each event, once"
        );
        drop(journal);
    }

    #[test]
    fn losing_store_operations_at_a_stop_is_an_io_error() {
        let err = DaemonError::Unstored { lost: 12 };
        assert_eq!(err.exit_code(), crate::exit::EX_IOERR);
        assert!(
            err.to_string()
                .starts_with("12 game store operation(s) lost")
        );
    }

    #[test]
    fn the_exit_codes_page_says_how_long_a_stop_waits() {
        let (_, _, when) = crate::exit::CODES
            .iter()
            .find(|(code, _, _)| *code == crate::exit::EX_IOERR)
            .unwrap();
        assert!(
            when.contains(&format!("waiting {} s", STOP_WAIT.as_secs())),
            "{when}"
        );
    }

    #[test]
    fn the_stop_wait_fits_in_the_units_stop_timeout_with_a_margin() {
        let unit = include_str!("../../systemd/tocada.service");
        let timeout = unit
            .lines()
            .find_map(|l| l.strip_prefix("TimeoutStopSec="))
            .and_then(|s| s.strip_suffix('s'))
            .and_then(|s| s.parse::<u64>().ok())
            .expect("the unit sets TimeoutStopSec=Ns");
        assert!(
            STOP_WAIT.as_secs() + 5 <= timeout,
            "STOP_WAIT {STOP_WAIT:?}, TimeoutStopSec={timeout}s"
        );
    }

    #[test]
    fn the_time_off_is_the_wall_clock_less_the_games_own_time() {
        let start = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let at = |s: u64| start + Duration::from_secs(s);
        // 60 s of game, then the power went; back 200 s after the start.
        assert_eq!(time_off(start, 60_000, &[], at(200)), Some(140_000));
        // An earlier cut of 100 s is not counted twice.
        assert_eq!(
            time_off(start, 60_000, &[(30_000, Some(100_000))], at(200)),
            Some(40_000)
        );
        // A wall clock behind the game, or an earlier time off unknown: unknown.
        assert_eq!(time_off(start, 60_000, &[], at(30)), None);
        assert_eq!(time_off(start, 60_000, &[(1, None)], at(200)), None);
    }
}
