//! The Pi's rig: `/dev/i2c-1` shared by the OLED and the sensor board, the
//! levers, buttons, buzzer and the board's interrupt line on the GPIO chip.
//!
//! The GPIO character device's waits block, so the front controls and the
//! interrupt line are watched on threads of their own, which send
//! [`Command`]s to the loop with the kernel's timestamps of the edges.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{BoardSerial, Command, Notifier, Rig};
use crate::config::{BoardKind, Config};
use crate::hardware::SensorBoard;
use crate::hardware::bus::Shared;
use crate::hardware::buttons::{ButtonPress, Buttons};
use crate::hardware::dgt::{self, DgtBoard};
use crate::hardware::gpio::{GpioButtons, GpioBuzzer, GpioInterrupt};
use crate::hardware::link::{BoardLink, LinkPolicy};
use crate::hardware::linux::{I2cdev, OpenError, open_i2c};
use crate::hardware::mcp23017_board::Mcp23017Board;
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
use crate::hardware::serial::Tty;

/// The Pi's I2C bus, one handle per driver.
pub type PiBus = Shared<I2cdev>;

/// Why the Pi's hardware could not be opened.
#[derive(Debug)]
pub enum PiError {
    /// The I2C adapter (`i2c.bus`).
    I2c(OpenError),
    /// A GPIO line: what it was for, and why.
    Gpio {
        /// The line's use: "the buttons", "the buzzer's pin", …
        what: &'static str,
        /// The GPIO chip's answer.
        source: rppal::gpio::Error,
    },
}

impl std::fmt::Display for PiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PiError::I2c(err) => write!(f, "{err}"),
            PiError::Gpio { what, source } => write!(f, "cannot claim {what}: {source}"),
        }
    }
}

impl std::error::Error for PiError {}

/// The clock's hardware on a Raspberry Pi, with the sensor board `B`.
pub struct PiRig<B> {
    link: BoardLink<B>,
    oled: Oled<PiBus>,
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
    /// A DGT e-board on a USB serial line.
    Dgt(PiRig<DgtBoard<Tty>>),
}

/// Opens the configured hardware and starts watching the front controls
/// (and the board's interrupt line, when wired), sending what happens to
/// `commands`. The rig's clock starts now.
pub fn open(
    config: &Config,
    policy: LinkPolicy,
    notifier: Box<dyn Notifier>,
    commands: mpsc::UnboundedSender<Command>,
) -> Result<AnyPiRig, PiError> {
    let bus = Shared::new(open_i2c(&config.i2c.bus).map_err(PiError::I2c)?);
    let gpio = |what| move |source| PiError::Gpio { what, source };
    let buttons = GpioButtons::open(&config.button_pins()).map_err(gpio("the buttons"))?;
    let buzzer = config
        .pins
        .buzzer
        .map(GpioBuzzer::open)
        .transpose()
        .map_err(gpio("the buzzer's pin"))?;
    let start = Instant::now();
    if let Some(pin) = config.board.interrupt_pin {
        let line = GpioInterrupt::open(pin).map_err(gpio("the board's interrupt pin"))?;
        spawn_interrupt(line, commands.clone());
    }
    spawn_buttons(buttons, commands, start);
    let oled = Oled::at(bus.clone(), config.i2c.oled_address);
    Ok(match config.board.kind {
        BoardKind::Dgt => {
            // Opened at the first poll, and again whenever the cable comes
            // back: a board unplugged at start is a disconnected board,
            // not a daemon that cannot start.
            let line = Tty::new(config.board.serial.clone(), dgt::wire::BAUD);
            let clock = std::rc::Rc::new(move || start.elapsed().as_millis() as crate::Millis);
            AnyPiRig::Dgt(PiRig {
                link: BoardLink::new(DgtBoard::new(line, clock), policy),
                oled,
                buzzer,
                notifier,
                start,
            })
        }
        BoardKind::Mcp23017 => AnyPiRig::Mcp23017(PiRig {
            link: BoardLink::new(Mcp23017Board::new(bus), policy),
            oled,
            buzzer,
            notifier,
            start,
        }),
        _ => AnyPiRig::Protocol(PiRig {
            link: BoardLink::new(ProtocolBoard::new(bus, config.board.address), policy),
            oled,
            buzzer,
            notifier,
            start,
        }),
    })
}

impl<B: SensorBoard + BoardSerial> Rig for PiRig<B> {
    type Board = B;
    type Display = PiBus;

    fn link(&mut self) -> &mut BoardLink<B> {
        &mut self.link
    }

    fn link_ref(&self) -> &BoardLink<B> {
        &self.link
    }

    fn oled(&mut self) -> &mut Oled<PiBus> {
        &mut self.oled
    }

    fn oled_ref(&self) -> &Oled<PiBus> {
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
