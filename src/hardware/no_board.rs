//! No sensor board at all: the plain clock's (`board.kind = "none"`).
//!
//! It senses nothing and never fails, and reports the pieces standing where
//! the next game expects them, so the setup screen finds nothing amiss and
//! the levers alone start and run the clock.

use shakmaty::Bitboard;

use super::{BoardEvent, SensorBoard};

/// A board that is not there.
#[derive(Debug, Clone, Default)]
pub struct NoBoard {
    /// The squares the next game expects occupied; the standard start's
    /// until told otherwise.
    expected: Option<Bitboard>,
}

impl NoBoard {
    /// No board.
    pub fn new() -> NoBoard {
        NoBoard::default()
    }
}

impl SensorBoard for NoBoard {
    type Error = core::convert::Infallible;

    fn poll_stamped(&mut self, _out: &mut Vec<BoardEvent>) -> Result<(), Self::Error> {
        Ok(())
    }

    fn occupancy(&mut self) -> Result<Bitboard, Self::Error> {
        Ok(self
            .expected
            .unwrap_or_else(|| shakmaty::Board::default().occupied()))
    }

    fn expect_start(&mut self, start: &shakmaty::Board) {
        self.expected = Some(start.occupied());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_senses_nothing_and_shows_what_is_expected() {
        let mut board = NoBoard::new();
        let mut events = Vec::new();
        board.poll_stamped(&mut events).unwrap();
        assert!(events.is_empty());
        assert_eq!(board.occupancy().unwrap().count(), 32);
        let bare: shakmaty::Board = "4k3/8/8/8/8/8/8/4K3".parse().unwrap();
        board.expect_start(&bare);
        assert_eq!(board.occupancy().unwrap(), bare.occupied());
    }
}
