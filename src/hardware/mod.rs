//! The hardware edge: drivers that turn I2C and GPIO into the referee's
//! inputs and its state into pixels.
//!
//! Every driver is generic over [`embedded_hal::i2c::I2c`] (or, for the DGT
//! e-boards, a [`serial::SerialPort`]), so the same code talks to
//! `/dev/i2c-1` or `/dev/ttyUSB0` on a Pi and to the device models in
//! [`crate::models`] on a desktop.

pub mod board_clock;
pub mod bus;
pub mod buttons;
pub mod dgt;
#[cfg(target_os = "linux")]
pub mod gpio;
pub mod link;
#[cfg(target_os = "linux")]
pub mod linux;
pub mod mcp23017_board;
pub mod no_board;
pub mod oled;
pub mod protocol_board;
pub mod serial;

use shakmaty::Bitboard;

use crate::Input;

/// A change a board saw, with when it saw it where the board keeps time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardEvent {
    /// The referee's board input: `Lift`, `Place`, `Touch`, `Untouch`.
    pub input: Input,
    /// When it happened on the board's own millisecond clock (protocol v1's
    /// TIME_MS, the first edge of the debounced change), if the board has
    /// one; `None`: when it was read.
    pub board_ms: Option<u32>,
}

/// A chessboard that senses pieces, as the daemon sees it.
pub trait SensorBoard {
    /// What went wrong on the bus or in the board's answers.
    type Error: core::fmt::Debug;

    /// Appends the changes seen since the last call, oldest first, with the
    /// board's own time of each where it keeps one.
    fn poll_stamped(&mut self, out: &mut Vec<BoardEvent>) -> Result<(), Self::Error>;

    /// Appends the changes seen since the last call, oldest first, as the
    /// referee's board inputs: `Lift`, `Place`, `Touch`, `Untouch`.
    fn poll(&mut self, out: &mut Vec<Input>) -> Result<(), Self::Error> {
        let mut events = Vec::new();
        let polled = self.poll_stamped(&mut events);
        out.extend(events.into_iter().map(|e| e.input));
        polled
    }

    /// The board's own clock now, in the milliseconds its events are stamped
    /// with, for boards that keep one (protocol v1's TIME register).
    fn board_time(&mut self) -> Result<Option<u32>, Self::Error> {
        Ok(None)
    }

    /// The occupancy the board reports now (bit i = square i, a1 = 0), to
    /// resynchronise after lost events.
    fn occupancy(&mut self) -> Result<Bitboard, Self::Error>;

    /// The pieces on the board with their identities, for boards that
    /// know them (a DGT board), once known; `None` for boards that sense
    /// only occupancy.
    fn pieces(&self) -> Option<shakmaty::Board> {
        None
    }

    /// The pieces the board should show (the next game's start, or the
    /// game's position after a restart), for a board that takes its
    /// orientation from them (a DGT board, which may be turned round);
    /// others ignore it.
    fn expect_start(&mut self, _start: &shakmaty::Board) {}
}
