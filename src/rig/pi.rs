//! The Pi's rig: `/dev/i2c-1` shared by the OLED and the sensor board, the
//! levers, buttons, buzzer and the board's interrupt line on the GPIO chip;
//! or any Linux box with only a DGT board's serial line, when the
//! configuration fits no OLED and reads the levers from standard input (or
//! none): then neither the I2C bus nor the GPIO chip is opened.
//!
//! The GPIO character device's waits block, so the front controls and the
//! interrupt line are watched on threads of their own, which send
//! [`Command`]s to the loop with the kernel's timestamps of the edges.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{BoardSerial, Command, Notifier, Rig};
use crate::Input;
use crate::config::{BoardClock, BoardKind, Config, Levers};
use crate::controls::Button;
use crate::hardware::SensorBoard;
use crate::hardware::bus::Shared;
use crate::hardware::buttons::{ButtonPress, Buttons};
use crate::hardware::dgt::{self, DgtBoard};
use crate::hardware::gpio::{GpioButtons, GpioBuzzer, GpioInterrupt};
use crate::hardware::link::{BoardLink, LinkPolicy};
use crate::hardware::linux::{I2cdev, OpenError, open_i2c};
use crate::hardware::mcp23017_board::Mcp23017Board;
use crate::hardware::no_board::NoBoard;
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
use crate::hardware::serial::{SerialPort, Tty, TtyError};
use crate::transcript::{self, Event};

/// The Pi's I2C bus, one handle per driver.
pub type PiBus = Shared<I2cdev>;

/// Where the face is drawn: the OLED on the I2C bus, or nowhere when none
/// is fitted (`i2c.oled = false`), whose bus takes every frame and shows
/// it to nobody. Without levers on GPIO the face is also written to
/// standard output as effect lines (`clock.levers = "stdin"`).
pub enum PiDisplay {
    /// The OLED on the shared bus.
    Oled(PiBus),
    /// No panel: every transfer succeeds and goes nowhere.
    None,
}

impl embedded_hal::i2c::ErrorType for PiDisplay {
    type Error = <PiBus as embedded_hal::i2c::ErrorType>::Error;
}

impl embedded_hal::i2c::I2c for PiDisplay {
    fn transaction(
        &mut self,
        address: embedded_hal::i2c::SevenBitAddress,
        operations: &mut [embedded_hal::i2c::Operation<'_>],
    ) -> Result<(), Self::Error> {
        match self {
            PiDisplay::Oled(bus) => bus.transaction(address, operations),
            PiDisplay::None => Ok(()),
        }
    }
}

/// Why the Pi's hardware could not be opened.
#[derive(Debug)]
pub enum PiError {
    /// The I2C adapter (`i2c.bus`).
    I2c(OpenError),
    /// The DGT board's serial device is there but cannot be used (not a
    /// tty, not allowed): starting again cannot help until someone fixes
    /// `board.serial` or the device's permissions.
    Serial {
        /// The device, or how it was looked for.
        path: String,
        /// The system's answer.
        source: crate::hardware::serial::TtyError,
    },
    /// A GPIO line: what it was for, and why.
    Gpio {
        /// The line's use: "the buttons", "the buzzer's pin", …
        what: &'static str,
        /// The GPIO chip's answer.
        source: crate::hardware::gpiochip::GpioError,
    },
}

impl std::fmt::Display for PiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PiError::I2c(err) => write!(f, "{err}"),
            PiError::Serial { path, source } => {
                write!(
                    f,
                    "cannot use the DGT board's serial device {path}: {source}"
                )
            }
            PiError::Gpio { what, source } => write!(f, "cannot claim {what}: {source}"),
        }
    }
}

impl std::error::Error for PiError {}

/// The clock's hardware on a Raspberry Pi, with the sensor board `B`.
pub struct PiRig<B> {
    link: BoardLink<B>,
    oled: Oled<PiDisplay>,
    buzzer: Option<GpioBuzzer>,
    notifier: Box<dyn Notifier>,
    start: Instant,
}

/// The Pi's rig with either kind of board.
pub enum AnyPiRig {
    /// tocada's own board (protocol v1).
    Protocol(PiRig<ProtocolBoard<PiBus>>),
    /// The reed-switch board on four MCP23017 expanders.
    Mcp23017(PiRig<Mcp23017Board<PiBus>>),
    /// A DGT e-board on a USB serial line: boxed, its driver's buffers
    /// being the largest of the four.
    Dgt(Box<PiRig<DgtBoard<Tty>>>),
    /// No board: a plain clock.
    None(PiRig<NoBoard>),
}

/// Opens the configured hardware and starts watching the front controls
/// (and the board's interrupt line, when wired), sending what happens to
/// `commands`. The rig's clock starts now.
///
/// Only what the configuration uses is opened: a DGT board without an OLED
/// needs no I2C bus, and levers read from standard input (or none) need no
/// GPIO chip, so a laptop with the board's USB cable runs the clock.
pub fn open(
    config: &Config,
    policy: LinkPolicy,
    notifier: Box<dyn Notifier>,
    commands: mpsc::UnboundedSender<Command>,
) -> Result<AnyPiRig, PiError> {
    let bus = match config.uses_i2c() {
        true => Some(Shared::new(
            open_i2c(&config.i2c.bus).map_err(PiError::I2c)?,
        )),
        false => None,
    };
    let gpio = |what| move |source| PiError::Gpio { what, source };
    let buttons = match config.clock.levers {
        Levers::Gpio => {
            Some(GpioButtons::open(&config.button_pins()).map_err(gpio("the buttons"))?)
        }
        Levers::Stdin | Levers::None => None,
    };
    let buzzer = config
        .pins
        .buzzer
        .map(GpioBuzzer::open)
        .transpose()
        .map_err(gpio("the buzzer's pin"))?;
    // Opened now, so that a wrong device is said at once with its path;
    // and again whenever the cable comes back: a board unplugged at start
    // is a disconnected board, said now and waited for, not a daemon that
    // cannot start.
    let line = match config.board.kind {
        BoardKind::Dgt => Some(open_serial(config.board.serial.clone())?),
        _ => None,
    };
    let start = Instant::now();
    if let Some(pin) = config.board.interrupt_pin {
        let line = GpioInterrupt::open(pin).map_err(gpio("the board's interrupt pin"))?;
        spawn_interrupt(line, commands.clone());
    }
    match buttons {
        Some(buttons) => spawn_buttons(buttons, commands, start),
        None if config.clock.levers == Levers::Stdin => spawn_stdin_controls(commands, start),
        // A DGT 3000 on the board is the levers then (the config's summary
        // says so); without one, nothing can press.
        None if config.board.kind == BoardKind::Dgt && config.board.clock != BoardClock::None => {}
        None => tracing::warn!("no levers (clock.levers = \"none\"): nothing can start the clock"),
    }
    let oled = Oled::at(
        match (&bus, config.i2c.oled) {
            (Some(bus), true) => PiDisplay::Oled(bus.clone()),
            _ => PiDisplay::None,
        },
        config.i2c.oled_address,
    );
    let parts = Parts {
        oled,
        buzzer,
        notifier,
        start,
    };
    // The I2C boards' bus, which `uses_i2c` has opened above.
    let i2c = |bus: Option<PiBus>| match bus {
        Some(bus) => Ok(bus),
        None => open_i2c(&config.i2c.bus)
            .map(Shared::new)
            .map_err(PiError::I2c),
    };
    Ok(match (config.board.kind, line) {
        (BoardKind::Dgt, Some(line)) => {
            let clock = std::rc::Rc::new(move || start.elapsed().as_millis() as crate::Millis);
            let driver = DgtBoard::new(line, clock);
            let driver = match config.board.clock.used() {
                true => driver.with_clock(),
                false => driver,
            };
            AnyPiRig::Dgt(Box::new(parts.rig(BoardLink::new(driver, policy))))
        }
        (BoardKind::None, _) => AnyPiRig::None(parts.rig(BoardLink::new(NoBoard::new(), policy))),
        (BoardKind::Mcp23017, _) => {
            AnyPiRig::Mcp23017(parts.rig(BoardLink::new(Mcp23017Board::new(i2c(bus)?), policy)))
        }
        _ => AnyPiRig::Protocol(parts.rig(BoardLink::new(
            ProtocolBoard::new(i2c(bus)?, config.board.address),
            policy,
        ))),
    })
}

/// The rig's parts whatever the board.
struct Parts {
    oled: Oled<PiDisplay>,
    buzzer: Option<GpioBuzzer>,
    notifier: Box<dyn Notifier>,
    start: Instant,
}

impl Parts {
    fn rig<B>(self, link: BoardLink<B>) -> PiRig<B> {
        PiRig {
            link,
            oled: self.oled,
            buzzer: self.buzzer,
            notifier: self.notifier,
            start: self.start,
        }
    }
}

/// The DGT board's line, opened now: a device that is there but is not a
/// serial line, or that this user may not open, is an error naming it; a
/// device that is not there (unplugged, Bluetooth not bound yet) is said
/// in the log with its path and opened when it comes.
fn open_serial(path: Option<std::path::PathBuf>) -> Result<Tty, PiError> {
    let mut line = Tty::new(path.clone(), dgt::wire::BAUD);
    let named = || match &path {
        Some(path) => path.display().to_string(),
        None => "(found on USB)".to_owned(),
    };
    match line.reopen() {
        Ok(()) => {
            tracing::info!("DGT board's serial device {} open", named());
            Ok(line)
        }
        Err(TtyError::NotFound(why)) => {
            tracing::error!("the DGT board is not connected: {why}; waiting for it");
            Ok(line)
        }
        Err(source) => Err(PiError::Serial {
            path: named(),
            source,
        }),
    }
}

impl<B: SensorBoard + BoardSerial> Rig for PiRig<B> {
    type Board = B;
    type Display = PiDisplay;

    fn link(&mut self) -> &mut BoardLink<B> {
        &mut self.link
    }

    fn link_ref(&self) -> &BoardLink<B> {
        &self.link
    }

    fn oled(&mut self) -> &mut Oled<PiDisplay> {
        &mut self.oled
    }

    fn oled_ref(&self) -> &Oled<PiDisplay> {
        &self.oled
    }

    fn set_buzzer(&mut self, on: bool) {
        if let Some(buzzer) = self.buzzer.as_mut() {
            buzzer.set(on);
        }
    }

    fn notifier(&mut self) -> &mut dyn Notifier {
        self.notifier.as_mut()
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn instant_at(&self, at: Duration) -> Instant {
        self.start + at
    }
}

/// Reads the front controls on a thread of their own (the GPIO chip's
/// wait blocks) and sends them to the loop, their kernel timestamps
/// turned into the rig's clock.
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

/// Reads the replay format's control lines on standard input, on a thread
/// of its own (a read of standard input blocks), and sends them to the loop
/// as the levers and buttons would, each at its arrival on the rig's clock
/// (`clock.levers = "stdin"`). A `setup` line sets the next game's rules;
/// resign, promotion and the arbiter's inputs go to the loop as they are.
/// The pieces are the board's to report: a `lift`, `place` or `touch`
/// line is refused on standard error, as is a bad line.
fn spawn_stdin_controls(tx: mpsc::UnboundedSender<Command>, start: Instant) {
    let spawned = std::thread::Builder::new()
        .name("stdin-levers".to_owned())
        .spawn(move || {
            use std::io::BufRead;
            let mut reader = transcript::Reader::new(transcript::Policy::LIVE);
            let mut input = std::io::stdin().lock();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match input.read_until(b'\n', &mut buf) {
                    Ok(0) => return,
                    Ok(_) => {}
                    Err(err) => {
                        tracing::warn!("standard input: {err}");
                        return;
                    }
                }
                let command = match reader.push(&buf) {
                    transcript::Read::Line(line) => control(line.event, start.elapsed()),
                    transcript::Read::Blank => continue,
                    transcript::Read::Skipped(fault) => {
                        eprintln!("tocada: standard input {fault}");
                        continue;
                    }
                    transcript::Read::Stop(fault) => {
                        eprintln!("tocada: standard input {fault}");
                        return;
                    }
                };
                match command {
                    Ok(Some(command)) => {
                        if tx.send(command).is_err() {
                            return;
                        }
                    }
                    Ok(None) => {}
                    Err(refused) => eprintln!("tocada: standard input: {refused}"),
                }
            }
        });
    if let Err(err) = spawned {
        tracing::error!("cannot start the thread reading standard input: {err}");
    }
}

/// What a line of standard input does with real pieces on a real board,
/// `at` on the rig's clock; an error says why the line is not played.
fn control(event: Event, at: Duration) -> Result<Option<Command>, String> {
    let press = |button| Ok(Some(Command::Press(ButtonPress { button, at })));
    match event {
        Event::Setup(rules) => Ok(Some(Command::Rules {
            name: "standard input".to_owned(),
            rules,
        })),
        Event::Players(players) => Ok(Some(Command::Players(players))),
        Event::Input(Input::Press(side)) => press(Button::Lever(side)),
        Event::Input(Input::Draw(side)) => press(Button::Draw(side)),
        Event::Input(Input::Adjust(side)) => press(Button::Adjust(side)),
        Event::Input(
            input @ (Input::Lift(_) | Input::Place(..) | Input::Touch(_) | Input::Untouch(_)),
        ) => Err(format!(
            "{} not played: the board reports its own pieces",
            transcript::line_to_json(&transcript::Line {
                t: at.as_millis() as crate::Millis,
                event: Event::Input(input),
            })
        )),
        Event::Input(other) => Ok(Some(Command::Input(other))),
        Event::End | Event::Checkpoint { .. } | Event::Restart { .. } => Ok(None),
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
