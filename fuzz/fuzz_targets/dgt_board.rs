//! The DGT e-board's driver (`tocada::hardware::dgt`) reading whatever
//! arrives on its serial line, in any chunks and at any pace: never a
//! panic, and once the line is clean again a board dump sets the board
//! right, so a garbled message costs no move.
#![no_main]

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use libfuzzer_sys::fuzz_target;
use shakmaty::{Board, Square};
use tocada::hardware::SensorBoard;
use tocada::hardware::dgt::{DgtBoard, code_of, field_of_square, wire};
use tocada::hardware::serial::SerialPort;

/// A serial line that delivers the chunks it is given, as they come.
#[derive(Default)]
struct Line {
    incoming: VecDeque<Vec<u8>>,
}

impl SerialPort for Line {
    type Error = ();

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let Some(mut chunk) = self.incoming.pop_front() else {
            return Ok(0);
        };
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        if n < chunk.len() {
            chunk.drain(..n);
            self.incoming.push_front(chunk);
        }
        Ok(n)
    }

    fn write(&mut self, _: &[u8]) -> Result<(), ()> {
        Ok(())
    }

    fn reopen(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

/// A board dump of `board` as the board sends it (not turned round).
fn dump(board: &Board) -> Vec<u8> {
    let mut fields = [0u8; 64];
    for (sq, piece) in board.clone() {
        fields[usize::from(field_of_square(sq, false))] = code_of(piece);
    }
    let mut bytes = vec![wire::BOARD_DUMP, 0, 67];
    bytes.extend_from_slice(&fields);
    bytes
}

fuzz_target!(|data: &[u8]| {
    let time = Rc::new(Cell::new(0));
    let clock = time.clone();
    let mut dgt = DgtBoard::new(Line::default(), Rc::new(move || clock.get()));
    let mut out = Vec::new();
    let start = Board::default();
    dgt.port_mut().incoming.push_back(dump(&start));
    let _ = dgt.poll_stamped(&mut out);
    // The input: chunks, each a byte of (length, pause) then its bytes.
    let mut rest = data;
    while let Some((&head, tail)) = rest.split_first() {
        let len = usize::from(head & 0x1f).min(tail.len());
        let (chunk, after) = tail.split_at(len);
        dgt.port_mut().incoming.push_back(chunk.to_vec());
        time.set(time.get() + u64::from(head >> 5) * 40);
        let _ = dgt.poll_stamped(&mut out);
        rest = after;
    }
    // The line goes quiet long enough for any message cut short to be
    // given up, then the board sends a dump of a position: the driver
    // reads it, whatever came before.
    time.set(time.get() + 2_000);
    let _ = dgt.poll_stamped(&mut out);
    let mut after = start.clone();
    after.discard_piece_at(Square::G1);
    after.discard_piece_at(Square::E7);
    dgt.port_mut().incoming.push_back(dump(&after));
    time.set(time.get() + 10);
    let _ = dgt.poll_stamped(&mut out);
    for sq in Square::ALL {
        assert_eq!(
            dgt.piece_at(sq),
            after.piece_at(sq),
            "{sq} after a clean dump"
        );
    }
});
