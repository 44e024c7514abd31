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
//! use tocada::hardware::protocol_board::ProtocolBoard;
//! use tocada::protocol::Capabilities;
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

use core::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use embedded_hal::i2c::{ErrorType, I2c, Operation, SevenBitAddress};

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

/// A bus (or a device model) shared by handle: every clone is a driver's
/// own way onto it, one transaction at a time, and the owner of a model can
/// still reach it between transactions to move its pieces or inject its
/// faults. Single-threaded, as the daemon's loop is; unlike [`SharedBus`]
/// its handles own the bus, so a rig can hold them.
#[derive(Debug, Default)]
pub struct Shared<M>(Rc<RefCell<M>>);

impl<M> Clone for Shared<M> {
    fn clone(&self) -> Shared<M> {
        Shared(Rc::clone(&self.0))
    }
}

impl<M> Shared<M> {
    /// Shares `model`.
    pub fn new(model: M) -> Shared<M> {
        Shared(Rc::new(RefCell::new(model)))
    }

    /// The model, to look at.
    pub fn borrow(&self) -> Ref<'_, M> {
        self.0.borrow()
    }

    /// The model, to move pieces or inject faults.
    pub fn borrow_mut(&self) -> RefMut<'_, M> {
        self.0.borrow_mut()
    }
}

impl<M: ErrorType> ErrorType for Shared<M> {
    type Error = M::Error;
}

impl<M: I2c> I2c for Shared<M> {
    fn transaction(
        &mut self,
        address: SevenBitAddress,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        self.0.borrow_mut().transaction(address, operations)
    }
}
