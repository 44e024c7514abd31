//! The hardware the daemon's loop drives, behind one trait.
//!
//! A [`Rig`] is the clock's body: the sensor board behind its link, the
//! OLED, the buzzer, the service manager to tell it is alive, and the clock
//! the loop reads. The levers and buttons and the board's interrupt line
//! arrive as [`Command`]s on the loop's queue, sent by whoever watches them
//! (the GPIO threads on a Pi, the hands of the simulator).
//!
//! Two implementations, and only two:
//! - [`pi::PiRig`] (Linux): `/dev/i2c-1` shared by the OLED and the board,
//!   the front controls, the buzzer and the interrupt line on the GPIO chip;
//! - [`models::ModelRig`]: the same drivers on the device models of
//!   [`crate::models`], so the daemon, the simulator and the tests run the
//!   same loop on a desktop.
//!
//! Nothing here knows about the loop above it ([`crate::daemon`]) or the
//! simulator built on the models' rig ([`crate::sim`]).

pub mod models;
#[cfg(target_os = "linux")]
pub mod pi;

use std::time::Duration;

use tokio::sync::oneshot;

use crate::hardware::SensorBoard;
use crate::hardware::buttons::ButtonPress;
use crate::hardware::link::BoardLink;
use crate::hardware::mcp23017_board::Mcp23017Board;
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
use crate::{Input, Rules};

/// The clock's hardware as the daemon's loop sees it.
pub trait Rig {
    /// The sensor board's driver.
    type Board: SensorBoard + BoardSerial;
    /// The bus the OLED is on.
    type Display: embedded_hal::i2c::I2c;

    /// The board, behind its retries and backoff.
    fn link(&mut self) -> &mut BoardLink<Self::Board>;
    /// The board's link, to look at.
    fn link_ref(&self) -> &BoardLink<Self::Board>;
    /// The OLED.
    fn oled(&mut self) -> &mut Oled<Self::Display>;
    /// The OLED, to look at.
    fn oled_ref(&self) -> &Oled<Self::Display>;
    /// Turns the buzzer on or off (a rig without one ignores it).
    fn set_buzzer(&mut self, on: bool);
    /// Whom to tell that the clock is up and alive.
    fn notifier(&mut self) -> &mut dyn Notifier;
    /// The rig's clock: time since the loop started. Real time on a Pi;
    /// tokio's paused clock in the simulator; bus time in the real-time
    /// benchmark, where every transaction on the modelled bus takes as
    /// long as it would on the wire.
    fn now(&self) -> Duration;
    /// The tokio instant at which the rig's clock reads `at`, for the loop
    /// to sleep until. Rigs whose clock counts from a tokio instant say so
    /// without reading the clock.
    fn instant_at(&self, at: Duration) -> tokio::time::Instant {
        tokio::time::Instant::now() + at.saturating_sub(self.now())
    }
}

/// What the world tells the loop.
#[derive(Debug)]
pub enum Command {
    /// A front control went down; `at` is on the rig's clock, from the
    /// kernel's timestamp of the edge.
    Press(ButtonPress),
    /// The board pulled its interrupt line: poll it now.
    BoardInterrupt,
    /// An input no front control gives (the simulator's resign or promote).
    Input(Input),
    /// Use these rules for the next game (a script's `setup` line).
    Rules {
        /// The preset's name on the face.
        name: String,
        /// Its rules.
        rules: Box<Rules>,
    },
    /// These players for the next game (a script's `players` line), as
    /// if the hall had paired the board so.
    Players(Box<crate::players::Players>),
    /// Redraw the face now and answer when it is on the panel.
    Redraw(oneshot::Sender<()>),
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

impl<P: crate::hardware::serial::SerialPort> BoardSerial for crate::hardware::dgt::DgtBoard<P> {
    /// The five digits of the board's serial number, offset into a range
    /// of their own (`0xd67_…`) so that a DGT board's number never reads
    /// as a protocol board's serial.
    fn serial(&self) -> Option<u64> {
        self.identity().map(|id| DGT_SERIAL_BASE | id.serial)
    }
}

/// The high bits of a DGT board's serial as the daemon remembers it
/// (`daemon::board_identity`).
pub const DGT_SERIAL_BASE: u64 = 0x0d67_0000_0000_0000;

impl BoardSerial for crate::hardware::no_board::NoBoard {
    fn serial(&self) -> Option<u64> {
        None
    }
}

impl<I2C> BoardSerial for Mcp23017Board<I2C> {
    fn serial(&self) -> Option<u64> {
        None
    }
}

/// Where the loop tells the service manager how it is doing.
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
