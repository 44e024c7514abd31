//! Device models: software stand-ins for the clock's hardware that implement
//! the bus side of [`embedded_hal::i2c::I2c`] (or, for the DGT board, the
//! board's end of a serial line), so the real drivers, the daemon and the
//! simulator run on any desktop. Each can inject faults.

pub mod bus;
pub mod dgt;
pub mod dgt3000;
pub mod mcp23017;
pub mod sensor_board;

use shakmaty::{Piece, Square};

use crate::Millis;

/// What hands do to a physical chessboard, for the models of boards that
/// sense pieces. `at` is the model's own clock, in milliseconds.
pub trait Hands {
    /// A piece leaves `sq` (lifted, or knocked off the board).
    fn lift(&mut self, at: Millis, sq: Square);
    /// `piece` is put down on `sq`.
    fn place(&mut self, at: Millis, sq: Square, piece: Piece);
    /// A hand comes into contact with the piece on `sq`.
    fn touch(&mut self, at: Millis, sq: Square);
    /// The hand leaves the piece on `sq`.
    fn untouch(&mut self, at: Millis, sq: Square);
}
pub mod ssd1306;

pub use crate::hardware::bus::Shared;
