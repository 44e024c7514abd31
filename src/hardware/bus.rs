//! One I2C bus, several drivers. The OLED and the sensor board sit on the
//! same wires (`/dev/i2c-1` on a Pi); the daemon opens the bus once and
//! hands each driver its own [`RefCellDevice`] on it. The same type shares
//! a [`crate::models::bus::ModelBus`] on a desktop. What each device costs
//! the others is measured with [`BusMeter`] and [`transfer_time_us`].
//!
//! ```
//! use shakmaty::Board;
//! use tocada::hardware::bus::SharedBus;
//! use tocada::hardware::oled::Oled;
//! use tocada::hardware::protocol_board::{wire::Capabilities, ProtocolBoard};
//! use tocada::models::bus::ModelBus;
//! use tocada::models::sensor_board::ProtocolBoardModel;
//!
//! let board = ProtocolBoardModel::new(&Board::default(), 42, Capabilities::default());
//! let bus = SharedBus::new(ModelBus::new(board));
//! let mut oled = Oled::new(bus.device());
//! let mut sensors = ProtocolBoard::new(bus.device(), 0x42);
//! oled.init().unwrap();
//! sensors.identify().unwrap();
//! ```

mod meter;

pub use meter::{BusMeter, CLOCKS_PER_BYTE, CLOCKS_PER_START, Totals, Transfer, transfer_time_us};

use core::cell::{RefCell, RefMut};

use embedded_hal_bus::i2c::RefCellDevice;

/// A bus that several drivers share, one transaction at a time. Not `Send`:
/// the drivers live on the daemon's one thread, which owns the bus.
pub struct SharedBus<I2C> {
    inner: RefCell<I2C>,
}

impl<I2C: embedded_hal::i2c::I2c> SharedBus<I2C> {
    /// Shares `i2c`.
    pub fn new(i2c: I2C) -> SharedBus<I2C> {
        SharedBus {
            inner: RefCell::new(i2c),
        }
    }

    /// A handle for one driver; each transaction borrows the bus for its
    /// duration only.
    pub fn device(&self) -> RefCellDevice<'_, I2C> {
        RefCellDevice::new(&self.inner)
    }

    /// The bus itself, between transactions (to reach a model's hands and
    /// faults). Panics if called during a transaction.
    pub fn bus_mut(&self) -> RefMut<'_, I2C> {
        self.inner.borrow_mut()
    }

    /// The bus back, once the drivers are gone.
    pub fn into_inner(self) -> I2C {
        self.inner.into_inner()
    }
}
