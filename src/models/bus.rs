//! The clock's I2C bus with its devices on it: the OLED model at 0x3C and a
//! sensor board model, routed by address as the wires would. Share it
//! between drivers with [`crate::hardware::bus::SharedBus`], as the daemon
//! shares `/dev/i2c-1`.

use std::cell::Cell;
use std::rc::Rc;

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, Operation};

use super::ssd1306::{self, Ssd1306Model};
use crate::hardware::bus::Transfer;

/// Bus time: microseconds the modelled wires have been busy, advanced by
/// every transaction as long as it would hold a real bus at the modelled
/// clock rate. Shared with whoever reads the time (the real-time
/// benchmark's clock), so figures come out the same on any machine.
#[derive(Debug, Clone, Default)]
pub struct BusClock(Rc<Cell<u64>>);

impl BusClock {
    /// A clock at 0.
    pub fn new() -> BusClock {
        BusClock::default()
    }

    /// Microseconds so far.
    pub fn micros(&self) -> u64 {
        self.0.get()
    }

    /// Moves the clock on to `us`, if that is later (time spent waiting,
    /// with the bus idle).
    pub fn advance_to(&self, us: u64) {
        self.0.set(self.0.get().max(us));
    }

    /// Moves the clock on by `us`.
    pub fn add(&self, us: u64) {
        self.0.set(self.0.get() + us);
    }
}

/// The OLED model and a board model (`ProtocolBoardModel` or
/// `ReedBoardModel`) on one bus. A transaction to 0x3C goes to the OLED,
/// any other to the board, which NACKs the addresses it does not answer.
#[derive(Debug, Clone)]
pub struct ModelBus<B> {
    oled: Ssd1306Model,
    board: B,
    /// The clock that every transaction advances, at this bus frequency.
    clock: Option<(BusClock, u32)>,
}

impl<B: I2c<Error = ErrorKind>> ModelBus<B> {
    /// A fresh OLED and `board` on one bus.
    pub fn new(board: B) -> ModelBus<B> {
        ModelBus {
            oled: Ssd1306Model::new(),
            board,
            clock: None,
        }
    }

    /// Makes every transaction take its time on the wire at `hz`, on `clock`.
    pub fn with_clock(mut self, clock: BusClock, hz: u32) -> ModelBus<B> {
        self.clock = Some((clock, hz));
        self
    }

    /// The OLED model.
    pub fn oled(&self) -> &Ssd1306Model {
        &self.oled
    }

    /// The OLED model, to inject faults.
    pub fn oled_mut(&mut self) -> &mut Ssd1306Model {
        &mut self.oled
    }

    /// The board model.
    pub fn board(&self) -> &B {
        &self.board
    }

    /// The board model, to move pieces and inject faults.
    pub fn board_mut(&mut self) -> &mut B {
        &mut self.board
    }
}

impl<B: BusLoad> ModelBus<B> {
    /// Bytes on the wires so far, both devices' traffic with address bytes.
    pub fn bytes_transferred(&self) -> u64 {
        self.oled.bytes_transferred() + self.board.bus_bytes()
    }
}

/// Bus-load counting for the board models, so [`ModelBus`] can add it up.
pub trait BusLoad {
    /// Bytes this device's transactions put on the bus.
    fn bus_bytes(&self) -> u64;
}

impl BusLoad for super::sensor_board::ProtocolBoardModel {
    fn bus_bytes(&self) -> u64 {
        self.bytes_transferred()
    }
}

impl BusLoad for super::mcp23017::ReedBoardModel {
    fn bus_bytes(&self) -> u64 {
        self.bytes_transferred()
    }
}

impl<B> ErrorType for ModelBus<B> {
    type Error = ErrorKind;
}

impl<B: I2c<Error = ErrorKind>> I2c for ModelBus<B> {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), ErrorKind> {
        if let Some((clock, hz)) = self.clock.as_ref() {
            // A NACKed transaction holds the bus too (at least its address).
            clock.add(Transfer::of(address, operations).time_us(*hz));
        }
        if address == ssd1306::ADDRESS {
            self.oled.transaction(address, operations)
        } else {
            self.board.transaction(address, operations)
        }
    }
}
