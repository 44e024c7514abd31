//! The clock's I2C bus with its devices on it: the OLED model at 0x3C and a
//! sensor board model, routed by address as the wires would. Share it
//! between drivers with [`crate::hardware::bus::SharedBus`], as the daemon
//! shares `/dev/i2c-1`.

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, Operation};

use super::ssd1306::{self, Ssd1306Model};

/// The OLED model and a board model (`ProtocolBoardModel` or
/// `ReedBoardModel`) on one bus. A transaction to 0x3C goes to the OLED,
/// any other to the board, which NACKs the addresses it does not answer.
#[derive(Debug, Clone)]
pub struct ModelBus<B> {
    oled: Ssd1306Model,
    board: B,
}

impl<B: I2c<Error = ErrorKind>> ModelBus<B> {
    /// A fresh OLED and `board` on one bus.
    pub fn new(board: B) -> ModelBus<B> {
        ModelBus {
            oled: Ssd1306Model::new(),
            board,
        }
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
        if address == ssd1306::ADDRESS {
            self.oled.transaction(address, operations)
        } else {
            self.board.transaction(address, operations)
        }
    }
}
