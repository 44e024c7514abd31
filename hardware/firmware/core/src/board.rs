//! The board: scans → debounced changes → events → FIFO, and the register
//! map the host reads and writes (§§ 3–10).

use crate::debounce::{Debouncer, Squares};
use crate::fifo::Fifo;
use crate::protocol::{
    Capabilities, DEFAULT_ADDRESS, FILLER, MAGIC, NO_SQUARE, PROTO_VERSION, STRAPPED_ADDRESS,
    UNIDENTIFIED, code, command, crc8, is_piece_byte, reg, size, status, tag,
};

/// The board's I2C address from its strap pin, read once at reset (§ 1):
/// 0x43 when the strap ties the pin to GND, else 0x42.
pub fn address(strap_to_gnd: bool) -> u8 {
    if strap_to_gnd {
        STRAPPED_ADDRESS
    } else {
        DEFAULT_ADDRESS
    }
}

/// What a board is, fixed from reset to reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The unique serial (IDENT, PAIR_RESP); never 0 nor all ones.
    pub serial: u64,
    /// What the board senses. OCCUPANCY is always reported.
    pub caps: Capabilities,
    /// Frames the FIFO holds, 16–255 (§ 4.1).
    pub fifo_depth: u8,
    /// The maker's firmware version, informative.
    pub firmware: u16,
    /// This boot's BOOT_COUNT, different from the last boot's (§ 4.1).
    pub boot_count: u32,
    /// How long a sensor must keep still before a change counts, in ms.
    pub debounce_ms: u32,
}

/// One scan of the sensors.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample<'a> {
    /// Bit *i*: a piece stands on square *i*.
    pub occupancy: u64,
    /// Bit *i*: a hand touches the piece on square *i* (ignored without
    /// CAPS.CONTACT).
    pub contact: u64,
    /// The piece byte of every square as identified, with CAPS.IDENTITY
    /// (`0x00` empty, `?` unidentified, a FEN letter); `None` without it.
    pub pieces: Option<&'a [u8; 64]>,
}

/// DIAG's counters (§ 10), saturating, zeroed at reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Diag {
    /// Writes ignored: wrong length, read-only or unknown register, unknown command.
    pub bad_writes: u16,
    /// Events lost to an overflow.
    pub dropped_events: u16,
    /// Times the sensor self-check found a fault.
    pub sensor_faults: u16,
}

/// What the caller must do after a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteEffect {
    /// Nothing: the write was applied, ignored, or only set the pointer.
    None,
    /// COMMAND SOFT_RESET: reset the board as at power-up within 10 ms (§ 7).
    SoftReset,
}

/// A protocol-v1 board's whole logic between its sensors and its I2C target.
#[derive(Debug, Clone)]
pub struct Board {
    config: Config,
    occupancy: Debouncer,
    contact: Debouncer,
    /// The piece byte of every square as of the last confirmed change.
    identity: [u8; 64],
    /// The last SEQ assigned, queued or dropped.
    last_seq: u16,
    fifo: Fifo,
    /// SNAP_READY, PAIR_READY, OVERFLOW, FRESH and SENSOR_FAULT; PENDING and
    /// ONE are derived.
    flags: u8,
    ident: [u8; size::IDENT],
    pair_resp: [u8; size::PAIR_RESP],
    snapshot: [u8; size::SNAPSHOT],
    identity_block: [u8; size::IDENTITY],
    diag: Diag,
    #[cfg(feature = "faults")]
    faults: Faults,
}

/// Firmware faults the desktop model injects.
#[cfg(feature = "faults")]
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    corrupt_frame: bool,
    drop_frame: bool,
}

impl Board {
    /// The board at power-up (§ 14 steps 2–3), at board time `now` with
    /// its sensors reading `first`: IDENT built, the BOOT frame (SEQ 0)
    /// queued, the boot snapshot ready, FRESH set.
    pub fn new(config: Config, now: u32, first: Sample<'_>) -> Self {
        let caps = Capabilities {
            occupancy: true,
            ..config.caps
        };
        let config = Config { caps, ..config };
        let contact = if caps.contact { first.contact } else { 0 };
        let mut ident = [0; size::IDENT];
        ident[..4].copy_from_slice(&MAGIC);
        ident[4] = PROTO_VERSION;
        ident[5] = caps.bits();
        ident[6] = config.fifo_depth;
        ident[8..16].copy_from_slice(&config.serial.to_le_bytes());
        ident[16..20].copy_from_slice(&config.boot_count.to_le_bytes());
        ident[20..22].copy_from_slice(&config.firmware.to_le_bytes());
        ident[23] = crc8(&ident[..23]);
        let mut board = Board {
            config,
            occupancy: Debouncer::new(config.debounce_ms, first.occupancy),
            contact: Debouncer::new(config.debounce_ms, contact),
            identity: [0; 64],
            last_seq: 0,
            fifo: Fifo::new(config.fifo_depth),
            flags: status::FRESH,
            ident,
            pair_resp: [0; size::PAIR_RESP],
            snapshot: [0; size::SNAPSHOT],
            identity_block: [0; size::IDENTITY],
            diag: Diag::default(),
            #[cfg(feature = "faults")]
            faults: Faults::default(),
        };
        for sq in Squares(first.occupancy) {
            board.identity[sq] = board.sensed_piece(&first, sq);
        }
        board.fifo.push(frame(0, code::BOOT, NO_SQUARE, 0, now));
        // The boot snapshot leaves the BOOT frame queued: the host ACKs it (§ 13 A).
        board.fill_snapshot(now);
        board
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// One scan at board time `now`: debounces occupancy and contact and
    /// queues an event for every change confirmed, stamped with its first
    /// edge, oldest first (a lift before a place of the same instant, a
    /// touch before both).
    pub fn scan(&mut self, now: u32, sample: Sample<'_>) {
        let placed_or_lifted = self.occupancy.scan(now, sample.occupancy);
        let contact = if self.config.caps.contact {
            self.contact.scan(now, sample.contact)
        } else {
            0
        };
        if placed_or_lifted | contact == 0 {
            return;
        }
        // At most 128 changes in one scan: sort them by age, then kind.
        let mut changes = [(0u32, 0u8, 0u8); 128];
        let mut n = 0;
        for sq in Squares(contact) {
            let touched = self.contact.stable() & (1 << sq) != 0;
            let kind = if touched { code::TOUCH } else { code::UNTOUCH };
            changes[n] = (self.contact.first_edge(sq), kind, sq as u8);
            n += 1;
        }
        for sq in Squares(placed_or_lifted) {
            let placed = self.occupancy.stable() & (1 << sq) != 0;
            let kind = if placed { code::PLACE } else { code::LIFT };
            changes[n] = (self.occupancy.first_edge(sq), kind, sq as u8);
            n += 1;
        }
        let key = |&(at, kind, _): &(u32, u8, u8)| {
            let rank = match kind {
                code::TOUCH => 0,
                code::LIFT => 1,
                code::PLACE => 2,
                _ => 3,
            };
            (u32::MAX - now.wrapping_sub(at), rank)
        };
        let changes = &mut changes[..n];
        changes.sort_unstable_by_key(key);
        for &(at, kind, sq) in changes.iter() {
            let sq_index = usize::from(sq);
            let piece = match kind {
                code::PLACE => {
                    self.identity[sq_index] = self.sensed_piece(&sample, sq_index);
                    self.identity[sq_index]
                }
                code::LIFT => core::mem::take(&mut self.identity[sq_index]),
                _ => self.identity[sq_index],
            };
            let piece = if is_piece_byte(piece) { piece } else { 0 };
            self.event(kind, sq, piece, at);
        }
    }

    /// The firmware's sensor self-check: `fault` while it finds a problem
    /// (STATUS.SENSOR_FAULT), counted in DIAG once per appearance.
    pub fn sensor_check(&mut self, fault: bool) {
        if fault && self.flags & status::SENSOR_FAULT == 0 {
            self.diag.sensor_faults = self.diag.sensor_faults.saturating_add(1);
        }
        if fault {
            self.flags |= status::SENSOR_FAULT;
        } else {
            self.flags &= !status::SENSOR_FAULT;
        }
    }

    /// The piece byte the identity sensing gives for an occupied square.
    fn sensed_piece(&self, sample: &Sample<'_>, sq: usize) -> u8 {
        match sample.pieces {
            Some(pieces) if self.config.caps.identity => match pieces[sq] {
                p if p != 0 && is_piece_byte(p) => p,
                _ => UNIDENTIFIED,
            },
            _ => UNIDENTIFIED,
        }
    }

    /// An event takes the next SEQ and is queued, or lost to an overflow (§ 6.4).
    fn event(&mut self, kind: u8, sq: u8, piece: u8, at: u32) {
        let seq = self.last_seq.wrapping_add(1);
        self.last_seq = seq;
        if self.flags & status::OVERFLOW != 0 {
            self.diag.dropped_events = self.diag.dropped_events.saturating_add(1);
            return;
        }
        #[cfg(feature = "faults")]
        if core::mem::take(&mut self.faults.drop_frame) {
            return;
        }
        let piece = if self.config.caps.identity { piece } else { 0 };
        if self.fifo.len() + 1 >= self.fifo.depth() {
            self.diag.dropped_events = self.diag.dropped_events.saturating_add(1);
            self.flags |= status::OVERFLOW;
            self.fifo.push(frame(seq, code::OVERFLOW, NO_SQUARE, 0, at));
            return;
        }
        #[allow(unused_mut)]
        let mut f = frame(seq, kind, sq, piece, at);
        #[cfg(feature = "faults")]
        if core::mem::take(&mut self.faults.corrupt_frame) {
            f[3] ^= 0x04;
        }
        self.fifo.push(f);
    }

    /// § 6.5: capture as of the last SEQ, flush the FIFO, clear OVERFLOW,
    /// refill SNAPSHOT and IDENTITY, set SNAP_READY. Done at once, so
    /// atomic with respect to scans.
    fn take_snapshot(&mut self, now: u32) {
        self.flags &= !status::SNAP_READY;
        self.fifo.clear();
        self.flags &= !status::OVERFLOW;
        self.fill_snapshot(now);
    }

    fn fill_snapshot(&mut self, now: u32) {
        let seq = self.last_seq.to_le_bytes();
        let s = &mut self.snapshot;
        s[..2].copy_from_slice(&seq);
        s[2..10].copy_from_slice(&self.occupancy.stable().to_le_bytes());
        s[10..18].copy_from_slice(&self.contact.stable().to_le_bytes());
        s[18..22].copy_from_slice(&now.to_le_bytes());
        s[22] = tag::SNAPSHOT;
        s[23] = crc8(&s[..23]);
        let i = &mut self.identity_block;
        i[..2].copy_from_slice(&seq);
        i[2..66].copy_from_slice(&self.identity);
        i[66] = tag::IDENTITY;
        i[67] = crc8(&i[..67]);
        self.flags |= status::SNAP_READY;
    }

    /// STATUS as the host reads it now.
    pub fn status(&self) -> [u8; size::STATUS] {
        let count = self.fifo.len().min(255) as u8;
        let pending = if count > 0 { status::PENDING } else { 0 };
        let mut b = [status::ONE | self.flags | pending, count, 0];
        b[2] = crc8(&b[..2]);
        b
    }

    /// Frames in the FIFO (STATUS's COUNT).
    pub fn queued(&self) -> usize {
        self.fifo.len()
    }

    /// The queued frames, oldest first.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    /// DIAG's counters.
    pub fn diag(&self) -> Diag {
        self.diag
    }

    /// The debounced occupancy, bit *i* for square *i*.
    pub fn occupancy(&self) -> u64 {
        self.occupancy.stable()
    }

    /// Whether the interrupt line is pulled low now (§ 8.2): fitted
    /// (CAPS.INT_LINE) and frames waiting. The firmware drives the pin
    /// open-drain from this after every scan and every write.
    pub fn interrupt_asserted(&self) -> bool {
        self.config.caps.int_line && !self.fifo.is_empty()
    }

    /// A read transaction at board time `now` from `register` (STATUS for a
    /// bare read): fills `out` with the bytes from `register` to the end
    /// of its block, then filler (§ 2), and returns how many were the
    /// block's. TIME is latched at `now`.
    pub fn read(&self, now: u32, register: u8, out: &mut [u8]) -> usize {
        let mut time = [0; size::TIME];
        let mut diag = [0; size::DIAG];
        let block: &[u8] = match register {
            0x00..=0x17 => &self.ident,
            0x20..=0x22 => &self.status(),
            0x24..=0x29 => {
                time[..4].copy_from_slice(&now.to_le_bytes());
                time[4] = tag::TIME;
                time[5] = crc8(&time[..5]);
                &time
            }
            // Undefined before the first pairing (§ 4.2): reads as filler.
            0x38..=0x49 if self.pair_resp[16] == tag::PAIR => &self.pair_resp,
            0x50..=0x67 => &self.snapshot,
            0x70..=0xB3 if self.config.caps.identity => &self.identity_block,
            reg::FIFO => return self.fifo.read(0, out),
            0xE0..=0xE7 => {
                diag[..2].copy_from_slice(&self.diag.bad_writes.to_le_bytes());
                diag[2..4].copy_from_slice(&self.diag.dropped_events.to_le_bytes());
                diag[4..6].copy_from_slice(&self.diag.sensor_faults.to_le_bytes());
                diag[6] = tag::DIAG;
                diag[7] = crc8(&diag[..7]);
                &diag
            }
            _ => &[],
        };
        let start = block_start(register);
        let rest = block.get(usize::from(register - start)..).unwrap_or(&[]);
        let n = rest.len().min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        out[n..].fill(FILLER);
        n
    }

    /// A write segment ended (STOP or repeated start) at board time `now`:
    /// `bytes[0]` is the register, the rest its payload, applied only at
    /// the register's exact size (§ 2). A register byte alone sets the
    /// pointer for a read and is no write; zero bytes (a quick write) are
    /// ignored. Anything else wrong is ignored and counted.
    pub fn write(&mut self, now: u32, bytes: &[u8]) -> WriteEffect {
        let Some((&register, payload)) = bytes.split_first() else {
            return WriteEffect::None;
        };
        match (register, payload.len()) {
            (_, 0) => {}
            (reg::ACK, size::ACK) => self.fifo.ack(u16::from_le_bytes([payload[0], payload[1]])),
            (reg::COMMAND, size::COMMAND) => match payload[0] {
                command::FIFO_RESET => {
                    self.fifo.clear();
                    self.flags &= !status::OVERFLOW;
                }
                command::SNAPSHOT => self.take_snapshot(now),
                command::SOFT_RESET => return WriteEffect::SoftReset,
                _ => self.bad_write(),
            },
            (reg::PAIR_NONCE, size::PAIR_NONCE) => {
                // PAIR_READY clears on acceptance and sets once the response
                // is whole (§ 4.2); here both happen in this call.
                self.flags &= !status::PAIR_READY;
                let r = &mut self.pair_resp;
                r[..4].copy_from_slice(payload);
                r[4..12].copy_from_slice(&self.config.serial.to_le_bytes());
                r[12..16].copy_from_slice(&self.config.boot_count.to_le_bytes());
                r[16] = tag::PAIR;
                r[17] = crc8(&r[..17]);
                self.flags = (self.flags | status::PAIR_READY) & !status::FRESH;
            }
            _ => self.bad_write(),
        }
        WriteEffect::None
    }

    fn bad_write(&mut self) {
        self.diag.bad_writes = self.diag.bad_writes.saturating_add(1);
    }

    /// Fault injection: the next event is queued with a flipped bit in its
    /// SQUARE, so its CRC fails however often it is read.
    #[cfg(feature = "faults")]
    pub fn corrupt_next_frame(&mut self) {
        self.faults.corrupt_frame = true;
    }

    /// Fault injection: the next event consumes a SEQ but is never queued.
    #[cfg(feature = "faults")]
    pub fn drop_next_frame(&mut self) {
        self.faults.drop_frame = true;
    }
}

/// The first address of the block that holds `register` (itself if none).
/// The first register of the block `register` is in (itself if in none):
/// a read from inside a block answers the block's rest (§ 2).
pub fn block_start(register: u8) -> u8 {
    match register {
        0x00..=0x17 => reg::IDENT,
        0x20..=0x22 => reg::STATUS,
        0x24..=0x29 => reg::TIME,
        0x38..=0x49 => reg::PAIR_RESP,
        0x50..=0x67 => reg::SNAPSHOT,
        0x70..=0xB3 => reg::IDENTITY,
        0xE0..=0xE7 => reg::DIAG,
        r => r,
    }
}

/// One event frame with its CRC (§ 6.1).
fn frame(seq: u16, kind: u8, square: u8, piece: u8, at: u32) -> [u8; size::FRAME] {
    let mut f = [0; size::FRAME];
    f[..2].copy_from_slice(&seq.to_le_bytes());
    f[2] = kind;
    f[3] = square;
    f[4] = piece;
    f[5..9].copy_from_slice(&at.to_le_bytes());
    f[9] = crc8(&f[..9]);
    f
}
