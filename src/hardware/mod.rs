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
pub mod dgt3000;
#[cfg(target_os = "linux")]
pub mod gpio;
#[cfg(target_os = "linux")]
pub mod gpiochip;
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

    /// Whether the board's news up to now is not all handed on yet: a
    /// message half read, a resynchronisation's board dump on its way
    /// with the changes behind it held back (a DGT board). A press made
    /// now waits for it (`daemon::board_news`). Boards read whole at
    /// every poll (the I2C boards) never have any.
    fn news_pending(&self) -> bool {
        false
    }

    /// A lever or button went down: a board that may have lost news the
    /// press follows asks for it at once (a DGT board whose last change
    /// was a lift with no place after it, or with a message half read),
    /// rather than at its next safety-net reading; [`SensorBoard::news_pending`]
    /// then says it is on its way.
    fn press_came(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Whether a clock plugged into the board answers (a DGT 3000 on a
    /// DGT board): its levers and buttons come from
    /// [`SensorBoard::clock_events`] and it shows what
    /// [`SensorBoard::show_on_clock`] says.
    fn has_clock(&self) -> bool {
        false
    }

    /// Appends what the board's clock did since the last call: levers,
    /// buttons, the clock coming or going.
    fn clock_events(&mut self, _out: &mut Vec<dgt3000::ClockEvent>) {}

    /// What the board's clock should show now: both times, whose runs,
    /// and any text.
    fn show_on_clock(&mut self, _shown: dgt3000::ClockShown) {}
}
