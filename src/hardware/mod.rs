//! The hardware edge: drivers that turn I2C and GPIO into the referee's
//! inputs and its state into pixels.
//!
//! Every driver is generic over [`embedded_hal::i2c::I2c`], so the same code
//! talks to `/dev/i2c-1` on a Pi and to the device models in [`crate::models`]
//! on a desktop.

pub mod bus;
pub mod buttons;
#[cfg(target_os = "linux")]
pub mod gpio;
pub mod mcp23017_board;
pub mod protocol_board;

use shakmaty::Bitboard;

use crate::Input;

/// A chessboard that senses pieces, as the daemon sees it.
pub trait SensorBoard {
    /// What went wrong on the bus or in the board's answers.
    type Error: core::fmt::Debug;

    /// Appends the changes seen since the last call, oldest first, as the
    /// referee's board inputs: `Lift`, `Place`, `Touch`, `Untouch`.
    fn poll(&mut self, out: &mut Vec<Input>) -> Result<(), Self::Error>;

    /// The occupancy the board reports now (bit i = square i, a1 = 0), to
    /// resynchronise after lost events.
    fn occupancy(&mut self) -> Result<Bitboard, Self::Error>;
}
