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

pub mod alarm;

pub mod shell;
mod systemd;

use std::fmt;
use std::future::Future;
use std::path::PathBuf;

use shakmaty::Position;
use tokio::sync::mpsc;

pub use crate::session::{Action, Buzz, RestoreError, SavedGame, Session};
pub use alarm::Alarm;
pub use shell::{Buzzer, Command, NoBuzzer, Shell, Snapshot, Stats};
pub use systemd::Systemd;

use crate::config::{BoardKind, Config};
use crate::hardware::link::LinkPolicy;
use crate::store::{self, GameId, Journal, Store, StoreError};

/// How often a board with its interrupt line wired is polled anyway, in
/// case an edge is missed.
pub const INTERRUPT_POLL_MS: u64 = 100;

/// Why the daemon could not run.
#[derive(Debug)]
pub enum DaemonError {
    /// The game store could not be opened.
    Store { path: PathBuf, source: StoreError },
    /// The hardware could not be opened (the I2C adapter, the GPIO chip).
    Hardware(String),
    /// The tokio runtime could not start.
    Runtime(std::io::Error),
}

impl fmt::Display for DaemonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DaemonError::Store { path, source } => {
                write!(f, "cannot open the game store {}: {source}", path.display())
            }
            DaemonError::Hardware(why) => f.write_str(why),
            DaemonError::Runtime(err) => write!(f, "cannot start the event loop: {err}"),
        }
    }
}

impl std::error::Error for DaemonError {}

/// Opens the game store in the configured state directory and restores the
/// unfinished game into `panel`, if there is one. A bad stored line keeps
/// every line before it; a game that cannot be rebuilt at all (no valid
/// setup line) is closed as `*` rather than blocking every later start.
pub fn open_games(
    config: &Config,
    panel: &mut Session,
) -> Result<(Journal, Option<GameId>), DaemonError> {
    let dir = &config.state.directory;
    let path = dir.join(store::DB_FILE);
    let failed = |source| DaemonError::Store {
        path: path.clone(),
        source,
    };
    if let Err(err) = std::fs::create_dir_all(dir) {
        tracing::warn!("cannot create {}: {err}", dir.display());
    }
    let mut store = Store::open(&path).map_err(failed)?;
    let mut restored = None;
    if let Some(saved) = store.unfinished().map_err(failed)? {
        let result = crate::transcript::restore(
            panel,
            0,
            SavedGame {
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
                    tracing::error!(
                        game = saved.id,
                        "stored {fault}: the game is restored up to the line before"
                    );
                }
                tracing::info!(
                    game = saved.id,
                    lines = saved.lines.len(),
                    "restored the unfinished game, paused: a press resumes"
                );
                restored = Some(saved.id);
            }
            Err(err) => {
                tracing::error!(game = saved.id, "cannot rebuild the unfinished game: {err}");
                store.finish(saved.id, "*", "").map_err(failed)?;
            }
        }
    }
    Ok((Journal::spawn(store), restored))
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

/// Tells `shell` to expect the board's interrupt line, if one is configured.
pub fn with_interrupt_line<B, D, Z>(shell: Shell<B, D, Z>, config: &Config) -> Shell<B, D, Z>
where
    B: crate::hardware::SensorBoard + shell::BoardSerial,
    D: embedded_hal::i2c::I2c,
    Z: Buzzer,
{
    match config.board.interrupt_pin {
        Some(_) => shell.with_interrupt_line(config.board.poll_ms),
        None => shell,
    }
}

/// The kernel's timer for the loop, or tokio's if there is none to be had.
fn kernel_alarm() -> Alarm {
    Alarm::kernel().unwrap_or_else(|err| {
        tracing::warn!("no kernel timer ({err}); sleeping on tokio's");
        Alarm::Tokio
    })
}

/// Runs the daemon as configured until `shutdown` completes.
pub fn run(config: &Config, shutdown: impl Future<Output = ()>) -> Result<Stats, DaemonError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(DaemonError::Runtime)?;
    let local = tokio::task::LocalSet::new();
    let stats = local.block_on(&runtime, async move {
        let mut panel = Session::new(config);
        let (journal, game) = open_games(config, &mut panel)?;
        let link_policy = link_policy(config);
        match config.board.kind {
            BoardKind::Sim => {
                let (tx, rx) = mpsc::unbounded_channel();
                // Pieces stay on a board when the clock loses power: the
                // models start as the restored game left them.
                let world = match panel.referee() {
                    Some(referee) => crate::sim::World::with_board(referee.position().board()),
                    None => crate::sim::World::new(),
                };
                if config.board.interrupt_pin.is_some() {
                    world.wire_interrupt(tx.clone());
                }
                let shell = world
                    .shell(panel, link_policy, rx)
                    .with_journal(journal, game)
                    .with_output(Box::new(std::io::stdout()))
                    .with_notifier(Box::new(Systemd::from_env()))
                    .with_state_dir(config.state.directory.clone())
                    .with_alarm(kernel_alarm());
                let shell = with_interrupt_line(shell, config);
                let start = shell.start();
                tokio::task::spawn_local(crate::sim::feed_stdin(world.clone(), tx, start));
                Ok(shell.run(shutdown).await)
            }
            #[cfg(target_os = "linux")]
            BoardKind::Protocol | BoardKind::Mcp23017 => {
                pi::run(config, panel, journal, game, link_policy, shutdown).await
            }
            #[cfg(not(target_os = "linux"))]
            BoardKind::Protocol | BoardKind::Mcp23017 => Err(DaemonError::Hardware(
                "the I2C bus and the GPIO chip need Linux; use board.kind = \"sim\"".to_owned(),
            )),
        }
    });
    // Everything is stored by now (the shell closed the journal). tokio
    // reads standard input on a blocking thread whose read cannot be
    // cancelled: waiting for it would hang a stop until the next line.
    drop(local);
    runtime.shutdown_background();
    stats
}

/// The hardware of a Pi: `/dev/i2c-1` shared by the OLED and the board, the
/// front controls on the GPIO chip.
#[cfg(target_os = "linux")]
mod pi {
    use std::future::Future;
    use std::time::Duration;

    use tokio::sync::mpsc;
    use tokio::time::Instant;

    use super::{DaemonError, Systemd};
    use crate::config::{BoardKind, Config};
    use crate::daemon::shell::{Buzzer, Command, NoBuzzer, Shell, Stats};
    use crate::hardware::bus::SharedBus;
    use crate::hardware::buttons::{ButtonPress, Buttons};
    use crate::hardware::gpio::{GpioButtons, GpioBuzzer, GpioInterrupt};
    use crate::hardware::link::{BoardLink, LinkPolicy};
    use crate::hardware::linux::open_i2c;
    use crate::hardware::mcp23017_board::Mcp23017Board;
    use crate::hardware::oled::Oled;
    use crate::hardware::protocol_board::ProtocolBoard;
    use crate::session::Session;
    use crate::store::{GameId, Journal};

    impl Buzzer for GpioBuzzer {
        fn set(&mut self, on: bool) {
            GpioBuzzer::set(self, on);
        }
    }

    pub async fn run(
        config: &Config,
        panel: Session,
        journal: Journal,
        game: Option<GameId>,
        policy: LinkPolicy,
        shutdown: impl Future<Output = ()>,
    ) -> Result<Stats, DaemonError> {
        let i2c = open_i2c(&config.i2c.bus).map_err(|e| DaemonError::Hardware(e.to_string()))?;
        let bus = SharedBus::new(i2c);
        let buttons = GpioButtons::open(&config.button_pins())
            .map_err(|e| DaemonError::Hardware(format!("cannot open the GPIO chip: {e}")))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let start = Instant::now();
        if let Some(pin) = config.board.interrupt_pin {
            let line = GpioInterrupt::open(pin).map_err(|e| {
                DaemonError::Hardware(format!("cannot claim the board's interrupt pin: {e}"))
            })?;
            spawn_interrupt(line, tx.clone());
        }
        spawn_buttons(buttons, tx, start);
        let oled = Oled::at(bus.device(), config.i2c.oled_address);
        let buzzer = config
            .pins
            .buzzer
            .map(GpioBuzzer::open)
            .transpose()
            .map_err(|e| DaemonError::Hardware(format!("cannot claim the buzzer's pin: {e}")))?;
        macro_rules! go {
            ($board:expr, $buzzer:expr) => {{
                let shell = Shell::new(panel, BoardLink::new($board, policy), oled, $buzzer, rx)
                    .with_start(start)
                    .with_journal(journal, game)
                    .with_notifier(Box::new(Systemd::from_env()))
                    .with_state_dir(config.state.directory.clone())
                    .with_alarm(super::kernel_alarm());
                Ok(super::with_interrupt_line(shell, config)
                    .run(shutdown)
                    .await)
            }};
        }
        match (config.board.kind, buzzer) {
            (BoardKind::Mcp23017, Some(z)) => go!(Mcp23017Board::new(bus.device()), z),
            (BoardKind::Mcp23017, None) => go!(Mcp23017Board::new(bus.device()), NoBuzzer),
            (_, Some(z)) => go!(ProtocolBoard::new(bus.device(), config.board.address), z),
            (_, None) => go!(
                ProtocolBoard::new(bus.device(), config.board.address),
                NoBuzzer
            ),
        }
    }

    /// Reads the front controls on a thread of their own (the GPIO chip's
    /// wait blocks) and sends them to the loop, their kernel timestamps
    /// turned into the shell's clock.
    fn spawn_buttons(mut buttons: GpioButtons, tx: mpsc::UnboundedSender<Command>, start: Instant) {
        let spawned = std::thread::Builder::new()
            .name("buttons".to_owned())
            .spawn(move || {
                let kernel_at_start = kernel_monotonic().saturating_sub(start.elapsed());
                let mut failures = 0u32;
                while !tx.is_closed() {
                    match buttons.next_press(Some(Duration::from_millis(500))) {
                        Ok(Some(press)) => {
                            failures = 0;
                            let now = start.elapsed();
                            let at = press.at.saturating_sub(kernel_at_start);
                            // A timestamp from another clock, or from the
                            // future, is worth less than the arrival time.
                            let at = if at > now || now - at > Duration::from_secs(1) {
                                now
                            } else {
                                at
                            };
                            let press = ButtonPress {
                                button: press.button,
                                at,
                            };
                            if tx.send(Command::Press(press)).is_err() {
                                break;
                            }
                        }
                        Ok(None) => {}
                        Err(err) => {
                            failures += 1;
                            if failures.is_power_of_two() {
                                tracing::error!("reading the buttons failed: {err}");
                            }
                            std::thread::sleep(Duration::from_millis(100));
                        }
                    }
                }
            });
        if let Err(err) = spawned {
            tracing::error!("cannot start the buttons' thread: {err}");
        }
    }

    /// Waits on the board's interrupt line on a thread of its own and asks
    /// the loop to poll the board when it falls, so a lift reaches the
    /// referee without waiting for the next scheduled poll.
    fn spawn_interrupt(mut line: GpioInterrupt, tx: mpsc::UnboundedSender<Command>) {
        let spawned = std::thread::Builder::new()
            .name("board-int".to_owned())
            .spawn(move || {
                while !tx.is_closed() {
                    match line.wait(Duration::from_millis(500)) {
                        Ok(true) => {
                            if tx.send(Command::BoardInterrupt).is_err() {
                                break;
                            }
                        }
                        // A line held low (events left after a batch) is
                        // asked for again without an edge.
                        Ok(false) if line.is_asserted() => {
                            let _ = tx.send(Command::BoardInterrupt);
                        }
                        Ok(false) => {}
                        Err(err) => {
                            tracing::error!("the board's interrupt line: {err}; polling only");
                            break;
                        }
                    }
                }
            });
        if let Err(err) = spawned {
            tracing::error!("cannot start the interrupt thread: {err}");
        }
    }

    /// CLOCK_MONOTONIC, which the kernel stamps GPIO edge events with.
    fn kernel_monotonic() -> Duration {
        let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
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
