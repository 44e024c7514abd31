//! A model of a sensor board speaking protocol v1
//! (`hardware/sensor-board-protocol.md`): the bus side of
//! [`embedded_hal::i2c::I2c`] on one side, a physical chessboard moved by
//! [`Hands`] on the other, and switches to inject the faults a real board
//! and cable produce.
//!
//! Like a conforming firmware it answers at once (pairing and snapshots are
//! ready before the next transfer) and never holds the bus.

use std::collections::VecDeque;
use std::rc::Rc;

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation};
use shakmaty::{Bitboard, Board, Piece, Square};

use super::Hands;
use crate::Millis;
use crate::protocol::{
    Capabilities, DEFAULT_ADDRESS, MAGIC, code, command, crc8, piece_byte, precedes_or_equals, reg,
    size, status, tag,
};

/// A protocol v1 sensor board with its pieces, on an I2C bus.
#[derive(Debug, Clone)]
pub struct ProtocolBoardModel {
    address: u8,
    serial: u64,
    caps: Capabilities,
    fifo_depth: u8,
    firmware: u16,
    boot_count: u32,
    pieces: [Option<Piece>; 64],
    contact: u64,
    /// The last SEQ assigned, queued or dropped.
    last_seq: u16,
    fifo: VecDeque<(u16, [u8; size::FRAME])>,
    /// SNAP_READY, PAIR_READY, OVERFLOW and FRESH; PENDING and ONE are derived.
    flags: u8,
    pair_resp: [u8; size::PAIR_RESP],
    snapshot: [u8; size::SNAPSHOT],
    identity: [u8; size::IDENTITY],
    /// The time of the last change the hands made.
    now: Millis,
    /// The board's crystal, where the model has one: TIME reads it.
    clock: Option<ModelClock>,
    boot_at: Millis,
    bad_writes: u16,
    dropped_events: u16,
    faults: Faults,
    bytes: u64,
}

/// The board's own running clock, for a model whose TIME must advance
/// between the hands' changes, as a board's crystal does.
#[derive(Clone)]
pub struct ModelClock(pub Rc<dyn Fn() -> Millis>);

impl std::fmt::Debug for ModelClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelClock({} ms)", (self.0)())
    }
}

/// Faults waiting to happen.
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    nacks: u32,
    bus_errors: u32,
    corrupt_frame: bool,
    corrupt_read: bool,
    drop_frame: bool,
    unplugged: bool,
}

impl ProtocolBoardModel {
    /// A board at the default address holding the pieces of `board`, just
    /// powered up (boot count 1, FIFO depth 32, firmware 1.0).
    pub fn new(board: &Board, serial: u64, caps: Capabilities) -> Self {
        let mut pieces = [None; 64];
        for (sq, piece) in board.clone() {
            pieces[sq as usize] = Some(piece);
        }
        let mut model = ProtocolBoardModel {
            address: DEFAULT_ADDRESS,
            serial,
            caps,
            fifo_depth: 32,
            firmware: 0x0100,
            boot_count: 1,
            pieces,
            contact: 0,
            last_seq: 0,
            fifo: VecDeque::new(),
            flags: 0,
            pair_resp: [0; size::PAIR_RESP],
            snapshot: [0; size::SNAPSHOT],
            identity: [0; size::IDENTITY],
            now: 0,
            clock: None,
            boot_at: 0,
            bad_writes: 0,
            dropped_events: 0,
            faults: Faults::default(),
            bytes: 0,
        };
        model.power_up();
        model
    }

    /// Answers at `address` instead (the strap pin).
    pub fn with_address(mut self, address: u8) -> Self {
        self.address = address;
        self
    }

    /// A FIFO of `depth` frames (16–255 for a conforming board).
    pub fn with_fifo_depth(mut self, depth: u8) -> Self {
        self.fifo_depth = depth;
        self
    }

    /// Starts from boot count `count` instead of 1.
    pub fn with_boot_count(mut self, count: u32) -> Self {
        self.boot_count = count;
        self.power_up();
        self
    }

    /// Which squares hold a piece, physically.
    pub fn occupancy(&self) -> Bitboard {
        Bitboard(
            self.pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| p.is_some())
                .fold(0, |b, (i, _)| b | 1 << i),
        )
    }

    /// The piece on `sq`, physically.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pieces[sq as usize]
    }

    /// The current BOOT_COUNT.
    pub fn boot_count(&self) -> u32 {
        self.boot_count
    }

    /// Frames queued in the FIFO.
    pub fn queued(&self) -> usize {
        self.fifo.len()
    }

    /// Whether the board holds its interrupt line low (§ 8.2): fitted
    /// (CAPS.INT_LINE), powered, and frames waiting in the FIFO.
    pub fn interrupt_asserted(&self) -> bool {
        self.caps.int_line && !self.faults.unplugged && !self.fifo.is_empty()
    }

    /// Bytes on the wire so far: data bytes plus one address byte per start
    /// or repeated start, NACKed transfers included (for bus-load figures).
    pub fn bytes_transferred(&self) -> u64 {
        self.bytes
    }

    /// The next `n` transfers are NACKed at the address.
    pub fn nack_next(&mut self, n: u32) {
        self.faults.nacks += n;
    }

    /// The next `n` transfers fail with a bus error (noise, arbitration).
    pub fn bus_error_burst(&mut self, n: u32) {
        self.faults.bus_errors += n;
    }

    /// The next event is queued with a flipped bit, for good: re-reading
    /// cannot help (firmware memory trouble).
    pub fn corrupt_next_frame(&mut self) {
        self.faults.corrupt_frame = true;
    }

    /// The next FIFO read delivers its first frame with a flipped bit, once
    /// (noise on the wire): re-reading helps.
    pub fn corrupt_next_read(&mut self) {
        self.faults.corrupt_read = true;
    }

    /// The next event consumes a SEQ but is never queued: a sequence gap.
    pub fn drop_next_frame(&mut self) {
        self.faults.drop_frame = true;
    }

    /// The board reboots mid-game: BOOT_COUNT changes, the FIFO restarts
    /// with a BOOT frame, the pieces stay where they are.
    pub fn reset(&mut self) {
        self.boot_count = self.boot_count.wrapping_add(1);
        self.boot_at = self.clock_now();
        self.power_up();
    }

    /// The cable comes out: every transfer is NACKed and the board, powered
    /// by the cable, is off (hands still move the pieces).
    pub fn unplug(&mut self) {
        self.faults.unplugged = true;
    }

    /// The cable goes back in: the board powers up again, as after
    /// [`reset`](Self::reset).
    pub fn plug(&mut self) {
        if self.faults.unplugged {
            self.faults.unplugged = false;
            self.reset();
        }
    }

    /// What a board does at power-up (§ 14 steps 2–3).
    fn power_up(&mut self) {
        self.fifo.clear();
        self.last_seq = 0;
        self.bad_writes = 0;
        self.dropped_events = 0;
        self.pair_resp = [0; size::PAIR_RESP];
        self.flags = status::FRESH;
        self.fifo.push_back((0, self.frame(0, code::BOOT, 0xFF, 0)));
        // The boot snapshot does not flush the BOOT frame (§ 13 A step 8 ACKs it).
        self.take_snapshot();
    }

    fn board_time(&self) -> u32 {
        self.now.wrapping_sub(self.boot_at) as u32
    }

    /// Runs the board's clock from `clock` (milliseconds on the hands'
    /// clock), so that TIME reads the time now and not that of the last
    /// change.
    pub fn set_clock(&mut self, clock: ModelClock) {
        self.clock = Some(clock);
    }

    /// The time now: the crystal's, or without one the last change's.
    fn clock_now(&self) -> Millis {
        self.clock
            .as_ref()
            .map_or(self.now, |c| (c.0)().max(self.now))
    }

    fn frame(&self, seq: u16, event: u8, square: u8, piece: u8) -> [u8; size::FRAME] {
        let mut f = [0; size::FRAME];
        f[..2].copy_from_slice(&seq.to_le_bytes());
        f[2] = event;
        f[3] = square;
        f[4] = piece;
        f[5..9].copy_from_slice(&self.board_time().to_le_bytes());
        f[9] = crc8(&f[..9]);
        f
    }

    /// A sensed change becomes a frame, or is lost to a fault or an overflow.
    fn event(&mut self, at: Millis, event: u8, sq: Square, piece: Option<Piece>) {
        self.now = at;
        if self.faults.unplugged {
            return;
        }
        let seq = self.last_seq.wrapping_add(1);
        self.last_seq = seq;
        if self.flags & status::OVERFLOW != 0 {
            self.dropped_events = self.dropped_events.saturating_add(1);
            return;
        }
        if std::mem::take(&mut self.faults.drop_frame) {
            return;
        }
        if self.fifo.len() + 1 >= usize::from(self.fifo_depth) {
            self.dropped_events = self.dropped_events.saturating_add(1);
            self.flags |= status::OVERFLOW;
            self.fifo
                .push_back((seq, self.frame(seq, code::OVERFLOW, 0xFF, 0)));
            return;
        }
        let piece = match piece {
            Some(p) if self.caps.identity => piece_byte(p),
            _ => 0,
        };
        let mut frame = self.frame(seq, event, sq as u8, piece);
        if std::mem::take(&mut self.faults.corrupt_frame) {
            frame[3] ^= 0x04;
        }
        self.fifo.push_back((seq, frame));
    }

    /// § 6.5: capture as of the last SEQ, refill SNAPSHOT and IDENTITY.
    fn take_snapshot(&mut self) {
        let seq = self.last_seq;
        let occupancy = self.occupancy().0;
        let contact = if self.caps.contact { self.contact } else { 0 };
        let s = &mut self.snapshot;
        s[..2].copy_from_slice(&seq.to_le_bytes());
        s[2..10].copy_from_slice(&occupancy.to_le_bytes());
        s[10..18].copy_from_slice(&contact.to_le_bytes());
        s[18..22].copy_from_slice(&self.now.wrapping_sub(self.boot_at).to_le_bytes()[..4]);
        s[22] = tag::SNAPSHOT;
        s[23] = crc8(&s[..23]);
        let i = &mut self.identity;
        i[..2].copy_from_slice(&seq.to_le_bytes());
        for (byte, piece) in i[2..66].iter_mut().zip(&self.pieces) {
            *byte = piece.map_or(0, piece_byte);
        }
        i[66] = tag::IDENTITY;
        i[67] = crc8(&i[..67]);
        self.flags |= status::SNAP_READY;
    }

    /// The block that starts at or contains `register`, from there to its end.
    fn block(&mut self, register: u8) -> Vec<u8> {
        let (start, bytes): (u8, Vec<u8>) = match register {
            0x00..=0x17 => (reg::IDENT, self.ident().to_vec()),
            0x20..=0x22 => (reg::STATUS, self.status().to_vec()),
            0x24..=0x29 => {
                let mut t = [0; size::TIME];
                let now = self.clock_now().wrapping_sub(self.boot_at) as u32;
                t[..4].copy_from_slice(&now.to_le_bytes());
                t[4] = tag::TIME;
                t[5] = crc8(&t[..5]);
                (reg::TIME, t.to_vec())
            }
            0x38..=0x49 => (reg::PAIR_RESP, self.pair_resp.to_vec()),
            0x50..=0x67 => (reg::SNAPSHOT, self.snapshot.to_vec()),
            0x70..=0xB3 if self.caps.identity => (reg::IDENTITY, self.identity.to_vec()),
            reg::FIFO => {
                let mut bytes: Vec<u8> = self.fifo.iter().flat_map(|(_, f)| *f).collect();
                if std::mem::take(&mut self.faults.corrupt_read) && !bytes.is_empty() {
                    bytes[3] ^= 0x04;
                }
                (reg::FIFO, bytes)
            }
            0xE0..=0xE7 => {
                let mut d = [0; size::DIAG];
                d[..2].copy_from_slice(&self.bad_writes.to_le_bytes());
                d[2..4].copy_from_slice(&self.dropped_events.to_le_bytes());
                d[6] = tag::DIAG;
                d[7] = crc8(&d[..7]);
                (reg::DIAG, d.to_vec())
            }
            _ => return Vec::new(),
        };
        bytes[usize::from(register - start)..].to_vec()
    }

    fn ident(&self) -> [u8; size::IDENT] {
        let mut b = [0; size::IDENT];
        b[..4].copy_from_slice(&MAGIC);
        b[4] = 1;
        b[5] = self.caps.bits();
        b[6] = self.fifo_depth;
        b[8..16].copy_from_slice(&self.serial.to_le_bytes());
        b[16..20].copy_from_slice(&self.boot_count.to_le_bytes());
        b[20..22].copy_from_slice(&self.firmware.to_le_bytes());
        b[23] = crc8(&b[..23]);
        b
    }

    fn status(&self) -> [u8; size::STATUS] {
        let count = self.fifo.len().min(255) as u8;
        let pending = if count > 0 { status::PENDING } else { 0 };
        let mut b = [status::ONE | self.flags | pending, count, 0];
        b[2] = crc8(&b[..2]);
        b
    }

    /// A write segment ends (STOP or repeated start): `bytes[0]` is the
    /// register, the rest its payload, applied only at its exact size (§ 2).
    fn apply_write(&mut self, bytes: &[u8]) {
        let Some((&register, payload)) = bytes.split_first() else {
            return; // quick write
        };
        match (register, payload.len()) {
            (_, 0) => {} // sets the pointer for a read
            (reg::ACK, size::ACK) => {
                let ack = u16::from_le_bytes([payload[0], payload[1]]);
                while self
                    .fifo
                    .front()
                    .is_some_and(|&(seq, _)| precedes_or_equals(seq, ack))
                {
                    self.fifo.pop_front();
                }
            }
            (reg::COMMAND, size::COMMAND) => match payload[0] {
                command::FIFO_RESET => {
                    self.fifo.clear();
                    self.flags &= !status::OVERFLOW;
                }
                command::SNAPSHOT => {
                    self.fifo.clear();
                    self.flags &= !status::OVERFLOW;
                    self.take_snapshot();
                }
                command::SOFT_RESET => self.reset(),
                _ => self.bad_writes = self.bad_writes.saturating_add(1),
            },
            (reg::PAIR_NONCE, size::PAIR_NONCE) => {
                let r = &mut self.pair_resp;
                r[..4].copy_from_slice(payload);
                r[4..12].copy_from_slice(&self.serial.to_le_bytes());
                r[12..16].copy_from_slice(&self.boot_count.to_le_bytes());
                r[16] = tag::PAIR;
                r[17] = crc8(&r[..17]);
                self.flags = (self.flags | status::PAIR_READY) & !status::FRESH;
            }
            _ => self.bad_writes = self.bad_writes.saturating_add(1),
        }
    }
}

impl ErrorType for ProtocolBoardModel {
    type Error = ErrorKind;
}

impl I2c for ProtocolBoardModel {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        let nack = ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address);
        self.bytes += 1;
        if address != self.address || self.faults.unplugged {
            return Err(nack);
        }
        if self.faults.nacks > 0 {
            self.faults.nacks -= 1;
            return Err(nack);
        }
        if self.faults.bus_errors > 0 {
            self.faults.bus_errors -= 1;
            return Err(ErrorKind::Bus);
        }
        // The register pointer lives for one transaction (§ 2); adjacent
        // operations of the same direction are one segment, without restart.
        let mut pointer = None;
        let mut written: Vec<u8> = Vec::new();
        let mut reading: Option<(Vec<u8>, usize)> = None;
        let mut last_write: Option<bool> = None;
        for op in operations.iter_mut() {
            match op {
                Operation::Write(bytes) => {
                    if last_write == Some(false) {
                        self.bytes += 1;
                        reading = None;
                    }
                    written.extend_from_slice(bytes);
                    self.bytes += bytes.len() as u64;
                    last_write = Some(true);
                }
                Operation::Read(buf) => {
                    if last_write == Some(true) {
                        self.bytes += 1;
                        pointer = written.first().copied();
                        self.apply_write(&std::mem::take(&mut written));
                    }
                    let (data, pos) = reading
                        .get_or_insert_with(|| (self.block(pointer.unwrap_or(reg::STATUS)), 0));
                    for byte in buf.iter_mut() {
                        *byte = data.get(*pos).copied().unwrap_or(0xFF);
                        *pos += 1;
                    }
                    self.bytes += buf.len() as u64;
                    last_write = Some(false);
                }
            }
        }
        if last_write == Some(true) {
            self.apply_write(&written);
        }
        Ok(())
    }
}

impl Hands for ProtocolBoardModel {
    fn lift(&mut self, at: Millis, sq: Square) {
        let piece = self.pieces[sq as usize].take();
        self.event(at, code::LIFT, sq, piece);
    }

    fn place(&mut self, at: Millis, sq: Square, piece: Piece) {
        self.pieces[sq as usize] = Some(piece);
        self.event(at, code::PLACE, sq, Some(piece));
    }

    fn touch(&mut self, at: Millis, sq: Square) {
        self.contact |= 1 << sq as u8;
        if self.caps.contact {
            self.event(at, code::TOUCH, sq, self.pieces[sq as usize]);
        }
    }

    fn untouch(&mut self, at: Millis, sq: Square) {
        self.contact &= !(1 << sq as u8);
        if self.caps.contact {
            self.event(at, code::UNTOUCH, sq, self.pieces[sq as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walkthrough_board() -> ProtocolBoardModel {
        let caps = Capabilities::from_bits(0x05);
        ProtocolBoardModel::new(&Board::default(), 0x0123_4567_89AB_CDEF, caps).with_boot_count(7)
    }

    /// § 13 A, byte for byte (the snapshot's time aside: the model took it at 0 ms).
    #[test]
    fn walkthrough_power_up_identify_pair() {
        let mut m = walkthrough_board();
        let mut st = [0; 3];
        m.read(0x42, &mut st).unwrap();
        assert_eq!(st, [0x93, 0x01, 0xD9]);
        let mut ident = [0; 24];
        m.write_read(0x42, &[0x00], &mut ident).unwrap();
        assert_eq!(
            ident,
            [
                0x54, 0x4F, 0x43, 0x42, 0x01, 0x05, 0x20, 0x00, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45,
                0x23, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2C
            ]
        );
        m.write(0x42, &[0x30, 0x34, 0x12, 0xED, 0x5E]).unwrap();
        m.read(0x42, &mut st).unwrap();
        assert_eq!(st, [0x87, 0x01, 0xDA]);
        let mut resp = [0; 18];
        m.write_read(0x42, &[0x38], &mut resp).unwrap();
        assert_eq!(
            resp,
            [
                0x34, 0x12, 0xED, 0x5E, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, 0x07, 0x00,
                0x00, 0x00, 0x50, 0xE9
            ]
        );
        let mut snap = [0; 24];
        m.write_read(0x42, &[0x50], &mut snap).unwrap();
        assert_eq!(
            snap[..10],
            [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF]
        );
        assert_eq!(snap[22], 0x53);
        m.write(0x42, &[0x2C, 0x00, 0x00]).unwrap();
        m.read(0x42, &mut st).unwrap();
        assert_eq!(st, [0x86, 0x00, 0xC8]); // PAIR_READY stays set (§ 5); the doc said 82 00 9C
    }

    #[test]
    fn wrong_address_is_nacked_and_reads_past_a_block_are_ff() {
        let mut m = walkthrough_board();
        let mut b = [0; 5];
        assert_eq!(
            m.read(0x43, &mut b),
            Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address))
        );
        m.write_read(0x42, &[0x20], &mut b).unwrap();
        assert_eq!(b[3..], [0xFF, 0xFF]);
        m.write_read(0x42, &[0x10], &mut b[..1]).unwrap(); // inside IDENT: BOOT_COUNT's low byte
        assert_eq!(b[0], 7);
        // A wrong-length write is ignored.
        m.write(0x42, &[0x2E, 0x02, 0x00]).unwrap();
        assert_eq!(m.bad_writes, 1);
    }

    /// § 8.2: low while COUNT > 0, released once the host ACKs the last
    /// frame; never asserted by a board without the line, or unpowered.
    #[test]
    fn interrupt_line_follows_the_fifo() {
        let caps = Capabilities {
            int_line: true,
            ..Capabilities::from_bits(0x01)
        };
        let mut m = ProtocolBoardModel::new(&Board::default(), 1, caps);
        assert!(m.interrupt_asserted(), "the BOOT frame waits");
        // The host ACKs the BOOT frame (SEQ 0).
        m.write(0x42, &[0x2C, 0x00, 0x00]).unwrap();
        assert!(!m.interrupt_asserted());
        m.lift(10, Square::E2);
        assert!(m.interrupt_asserted());
        m.write(0x42, &[0x2C, 0x01, 0x00]).unwrap();
        assert!(!m.interrupt_asserted());
        m.place(20, Square::E4, Piece::from_char('P').unwrap());
        m.unplug();
        assert!(!m.interrupt_asserted(), "an unpowered board pulls nothing");

        let mut without = walkthrough_board();
        without.lift(10, Square::E2);
        assert!(without.queued() > 0);
        assert!(!without.interrupt_asserted(), "no line fitted");
    }
}
