//! A model of a sensor board speaking protocol v1
//! (`hardware/sensor-board-protocol.md`): the bus side of
//! [`embedded_hal::i2c::I2c`] on one side, a physical chessboard moved by
//! [`Hands`] on the other, and switches to inject the faults a real board
//! and cable produce.
//!
//! Between the two runs the reference firmware's own logic, the
//! `tocada-board` core (`hardware/firmware/core`): its debounce, events,
//! FIFO and register map, fed a simulated scan of the pieces. So every test
//! of the driver, the daemon and the simulator on this model tests the
//! firmware's logic too. Only the bus and the sensors are the model's.
//!
//! Like a conforming firmware it answers at once (pairing and snapshots are
//! ready before the next transfer) and never holds the bus. Its sensors do
//! not bounce, and a change is scanned at the hands' time and again one
//! debounce time later in board time, so the core confirms it at once,
//! stamped with the hands' time: the model's events come as soon as the
//! hands move, as the tests expect (the debounce itself is the core's tests').

use std::rc::Rc;

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation};
use shakmaty::{Bitboard, Board, Piece, Square};
use tocada_board::{Board as BoardCore, Config, DEBOUNCE_MS, Sample, WriteEffect};

use super::Hands;
use crate::Millis;
use crate::protocol::{Capabilities, DEFAULT_ADDRESS, piece_byte, reg, size};

/// A protocol v1 sensor board with its pieces, on an I2C bus.
#[derive(Debug, Clone)]
pub struct ProtocolBoardModel {
    address: u8,
    config: Config,
    /// The firmware's logic.
    core: BoardCore,
    pieces: [Option<Piece>; 64],
    contact: u64,
    /// The time of the last change the hands made.
    now: Millis,
    /// The board's crystal, where the model has one: TIME reads it.
    clock: Option<ModelClock>,
    boot_at: Millis,
    faults: Faults,
    bytes: u64,
    /// A transaction's write segment and read block, kept between
    /// transactions: the daemon reads STATUS every few milliseconds, and
    /// the model should not allocate for each read.
    scratch: Scratch,
}

/// Buffers a transaction reuses.
#[derive(Debug, Clone, Default)]
struct Scratch {
    written: Vec<u8>,
    read: Vec<u8>,
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

/// Faults of the bus and the cable waiting to happen (those of the
/// firmware's memory are injected into the core).
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    nacks: u32,
    bus_errors: u32,
    /// Transfers left with the data line stuck low.
    stuck_low: u32,
    corrupt_read: bool,
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
        let config = Config {
            serial,
            caps,
            fifo_depth: 32,
            firmware: 0x0100,
            boot_count: 1,
            debounce_ms: DEBOUNCE_MS,
        };
        let core = BoardCore::new(config, 0, Sample::default());
        let mut model = ProtocolBoardModel {
            address: DEFAULT_ADDRESS,
            config,
            core,
            pieces,
            contact: 0,
            now: 0,
            clock: None,
            boot_at: 0,
            faults: Faults::default(),
            bytes: 0,
            scratch: Scratch::default(),
        };
        model.power_up();
        model
    }

    /// Starts from boot count `count` instead of 1.
    #[cfg(test)]
    pub fn with_boot_count(mut self, count: u32) -> Self {
        self.config.boot_count = count;
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
        self.config.boot_count
    }

    /// Frames queued in the FIFO.
    pub fn queued(&self) -> usize {
        self.core.queued()
    }

    /// Whether the board holds its interrupt line low (§ 8.2): fitted
    /// (CAPS.INT_LINE), powered, and frames waiting in the FIFO.
    pub fn interrupt_asserted(&self) -> bool {
        !self.faults.unplugged && self.core.interrupt_asserted()
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

    /// The data line is held low for the next `n` transfers (a shorted or
    /// latched-up device on the bus): the address seems acknowledged, the
    /// board hears nothing, and every byte read is 0x00. A line stuck high
    /// is [`nack_next`](Self::nack_next): nothing acknowledges.
    pub fn stuck_low(&mut self, n: u32) {
        self.faults.stuck_low += n;
    }

    /// The next event is queued with a flipped bit, for good: re-reading
    /// cannot help (firmware memory trouble).
    pub fn corrupt_next_frame(&mut self) {
        self.core.corrupt_next_frame();
    }

    /// The next FIFO read delivers its first frame with a flipped bit, once
    /// (noise on the wire): re-reading helps.
    pub fn corrupt_next_read(&mut self) {
        self.faults.corrupt_read = true;
    }

    /// The next event consumes a SEQ but is never queued: a sequence gap.
    pub fn drop_next_frame(&mut self) {
        self.core.drop_next_frame();
    }

    /// The board reboots mid-game: BOOT_COUNT changes, the FIFO restarts
    /// with a BOOT frame, the pieces stay where they are.
    pub fn reset(&mut self) {
        self.config.boot_count = self.config.boot_count.wrapping_add(1);
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

    /// What a board does at power-up (§ 14 steps 2–3): the firmware's core
    /// starts afresh from a first scan of the pieces where they stand.
    fn power_up(&mut self) {
        let pieces = self.piece_bytes();
        self.core = BoardCore::new(self.config, 0, self.sample(&pieces));
    }

    fn piece_bytes(&self) -> [u8; 64] {
        self.pieces.map(|p| p.map_or(0, piece_byte))
    }

    /// What the sensors read now.
    fn sample<'a>(&self, pieces: &'a [u8; 64]) -> Sample<'a> {
        Sample {
            occupancy: self.occupancy().0,
            contact: self.contact,
            pieces: Some(pieces),
        }
    }

    /// Board time: milliseconds since the board's last reset, wrapping.
    fn board_time(&self, at: Millis) -> u32 {
        at.wrapping_sub(self.boot_at) as u32
    }

    /// The hands changed what the sensors read at `at`: the firmware scans
    /// it, and again once it has kept still for the debounce time.
    fn sensed(&mut self, at: Millis) {
        self.now = at;
        if self.faults.unplugged {
            return;
        }
        let t = self.board_time(at);
        let pieces = self.piece_bytes();
        let sample = self.sample(&pieces);
        self.core.scan(t, sample);
        self.core.scan(t.wrapping_add(DEBOUNCE_MS), sample);
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

    /// The bytes a read from `register` returns, from the core (the
    /// firmware serves them from the same call), with a wire fault if one
    /// is due.
    fn block(&mut self, register: u8, data: &mut Vec<u8>) {
        let now = self.board_time(self.clock_now());
        data.clear();
        data.resize(size::IDENTITY.max(self.core.queued() * size::FRAME), 0);
        let n = self.core.read(now, register, data);
        data.truncate(n);
        if register == reg::FIFO && std::mem::take(&mut self.faults.corrupt_read) && n > 3 {
            data[3] ^= 0x04;
        }
    }

    /// A write segment ends (STOP or repeated start): the core applies it
    /// (§ 2); a SOFT_RESET resets the model.
    fn apply_write(&mut self, bytes: &[u8]) {
        let now = self.board_time(self.clock_now());
        if self.core.write(now, bytes) == WriteEffect::SoftReset {
            self.reset();
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
        if self.faults.stuck_low > 0 {
            self.faults.stuck_low -= 1;
            for op in operations.iter_mut() {
                match op {
                    Operation::Read(buf) => {
                        buf.fill(0x00);
                        self.bytes += buf.len() as u64;
                    }
                    Operation::Write(bytes) => self.bytes += bytes.len() as u64,
                }
            }
            return Ok(());
        }
        // The register pointer lives for one transaction (§ 2); adjacent
        // operations of the same direction are one segment, without restart.
        let mut pointer = None;
        let Scratch {
            mut written,
            mut read,
        } = std::mem::take(&mut self.scratch);
        written.clear();
        // The position in `read` once the read segment's block is fetched.
        let mut reading: Option<usize> = None;
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
                        self.apply_write(&written);
                        written.clear();
                    }
                    let pos = match &mut reading {
                        Some(pos) => pos,
                        None => {
                            self.block(pointer.unwrap_or(reg::STATUS), &mut read);
                            reading.insert(0)
                        }
                    };
                    for byte in buf.iter_mut() {
                        *byte = read.get(*pos).copied().unwrap_or(0xFF);
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
        self.scratch = Scratch { written, read };
        Ok(())
    }
}

impl Hands for ProtocolBoardModel {
    fn lift(&mut self, at: Millis, sq: Square) {
        self.pieces[sq as usize] = None;
        self.sensed(at);
    }

    /// On an occupied square the sensors see no change: no event.
    fn place(&mut self, at: Millis, sq: Square, piece: Piece) {
        self.pieces[sq as usize] = Some(piece);
        self.sensed(at);
    }

    fn touch(&mut self, at: Millis, sq: Square) {
        self.contact |= 1 << sq as u8;
        self.sensed(at);
    }

    fn untouch(&mut self, at: Millis, sq: Square) {
        self.contact &= !(1 << sq as u8);
        self.sensed(at);
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

    /// The model's events are the firmware core's: stamped with the hands'
    /// time in board time, and only for what a scan can see (a piece put
    /// on an occupied square, or lifted from an empty one, is no event).
    #[test]
    fn events_come_from_the_firmware_core_scanning_the_pieces() {
        let mut m = walkthrough_board();
        m.write(0x42, &[0x2C, 0x00, 0x00]).unwrap(); // the BOOT frame
        m.lift(123_456, Square::E2);
        let mut frame = [0; 10];
        m.write_read(0x42, &[0xC0], &mut frame).unwrap();
        assert_eq!(
            frame,
            [0x01, 0x00, 0x01, 0x0C, 0x50, 0x40, 0xE2, 0x01, 0x00, 0x21]
        );
        m.write(0x42, &[0x2C, 0x01, 0x00]).unwrap();
        m.lift(123_500, Square::E2);
        m.place(123_600, Square::D2, Piece::from_char('Q').unwrap());
        assert_eq!(m.queued(), 0, "nothing a scan could see");
        assert_eq!(m.piece_at(Square::D2), Piece::from_char('Q'));
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
        assert_eq!(m.core.diag().bad_writes, 1);
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
