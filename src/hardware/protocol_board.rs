//! Driver for a microcontroller sensor board that speaks tocada's own I2C
//! protocol v1 (`hardware/sensor-board-protocol.md`, "the doc" below).
//!
//! The driver never sleeps and never trusts the board's bytes: every block is
//! checked (CRC, tag, magic), every frame's sequence number must be the next
//! one, and anything doubtful is counted in [`Counters`] and dropped. When it
//! cannot account for every event (a gap, an overflow, a frame that stays
//! corrupt, a board reset) it resynchronises from a snapshot and reports the
//! difference as synthetic inputs, so the referee sees the board as it is.
//!
//! Waiting is left to the caller: after a nonce write or a SNAPSHOT command
//! the driver checks STATUS a few times ([`READY_POLLS`]) and otherwise
//! returns [`Error::NotReady`]; the next call carries on where it stopped.
//! The daemon polls every 5 ms anyway, which is the board's deadline (§ 9.4).

use core::fmt;

use embedded_hal::i2c::I2c;
use shakmaty::{Bitboard, Piece, Square};

use super::{BoardEvent, SensorBoard};
use crate::Input;
use crate::protocol::{
    Capabilities, MAGIC, MAX_FRAMES_PER_READ, code, command, crc8, piece_from_byte, reg, size,
    status, tag,
};

/// STATUS reads per call while waiting for PAIR_READY or SNAP_READY.
pub const READY_POLLS: usize = 4;

/// Calls that may find the board not ready before the driver writes the
/// nonce or the SNAPSHOT command again (the write itself may have been lost).
const READY_CALLS: u8 = 5;

/// Consecutive bad reads of the same FIFO position before resynchronising
/// (§ 11 rule 3).
const BAD_READS: u8 = 3;

/// State changes per call, so a board that keeps resetting cannot hold the
/// caller in a loop.
const MAX_STEPS: usize = 8;

/// What can go wrong talking to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error<E> {
    /// The I2C transfer failed (NACK, timeout, arbitration...).
    Bus(E),
    /// IDENT does not start with `TOCB`: not a tocada board.
    BadMagic,
    /// IDENT reports protocol version 0.
    Version(u8),
    /// A block failed its CRC.
    Crc,
    /// A block's tag byte is wrong (a bus stuck low, or a misread).
    Tag,
    /// IDENT reports serial 0 or all ones, which § 4.1 forbids.
    BadSerial,
    /// The pairing response does not echo the nonce, serial or boot count.
    PairMismatch,
    /// The board has not finished pairing or its snapshot yet: call again.
    NotReady,
}

impl<E: fmt::Debug> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Bus(e) => write!(f, "I2C bus error: {e:?}"),
            Error::BadMagic => f.write_str("not a tocada sensor board (bad magic)"),
            Error::Version(v) => write!(f, "unsupported protocol version {v}"),
            Error::Crc => f.write_str("CRC mismatch"),
            Error::Tag => f.write_str("bad block tag"),
            Error::BadSerial => f.write_str("invalid board serial"),
            Error::PairMismatch => f.write_str("pairing response does not match"),
            Error::NotReady => f.write_str("board not ready yet"),
        }
    }
}

impl<E: fmt::Debug> core::error::Error for Error<E> {}

/// What the board says about itself: IDENT (§ 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// Highest protocol version the board implements (≥ 1).
    pub version: u8,
    /// What it senses.
    pub capabilities: Capabilities,
    /// Frames its FIFO holds.
    pub fifo_depth: u8,
    /// Unique board serial.
    pub serial: u64,
    /// Changes at every reset; compared for equality only.
    pub boot_counter: u32,
    /// Firmware version, informative.
    pub firmware: u16,
}

/// Garbage and trouble seen, counted and dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Frames or blocks that failed their CRC or tag.
    pub crc_errors: u32,
    /// STATUS reads with a bad CRC or bit 7 clear.
    pub status_errors: u32,
    /// Frames whose SEQ was not the next expected one.
    pub sequence_gaps: u32,
    /// Frames repeated because an ACK was lost (harmless).
    pub duplicates: u32,
    /// Frames with an unknown event code.
    pub unknown_codes: u32,
    /// Square events with a square above 63.
    pub bad_squares: u32,
    /// Piece bytes § 1 does not define (used as "unknown").
    pub bad_pieces: u32,
    /// Failed I2C transfers.
    pub bus_errors: u32,
    /// Overflows reported by the board.
    pub overflows: u32,
    /// Board resets seen (FRESH, BOOT frame, BOOT_COUNT changed).
    pub resets: u32,
    /// Snapshots taken to recover from lost or doubtful events.
    pub resyncs: u32,
    /// Frames that stayed corrupt (in the board's memory) with good frames
    /// queued after them: skipped, and their event inferred from those
    /// frames or from a snapshot.
    pub skipped_frames: u32,
}

/// Where the driver is in the life of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Must read IDENT and pair before trusting anything.
    Identify,
    /// `nonce` was written; waiting for PAIR_READY.
    Pairing { nonce: u32, calls: u8 },
    /// Waiting for a snapshot; `requested` once COMMAND = SNAPSHOT went out
    /// (or the boot snapshot is ready).
    Resync { requested: bool, calls: u8 },
    /// Reading frames.
    Running,
}

/// STATUS (§ 5).
#[derive(Debug, Clone, Copy)]
struct Status {
    flags: u8,
    count: u8,
}

/// The SNAPSHOT block (§ 6.5): the whole board at one instant of its own.
#[derive(Debug, Clone, Copy)]
struct SnapshotBlock {
    seq: u16,
    occupancy: u64,
    contact: u64,
    /// The board's time of the snapshot.
    time_ms: u32,
}

/// Where a skipped frame's event goes once it is known.
#[derive(Debug, Clone, Copy)]
struct Skipped {
    /// Its place in `pending`: before the events of the frames after it.
    at: usize,
    /// The board's time of the frame after it, the nearest bound on its
    /// own that the board's clock gives.
    board_ms: u32,
    /// Squares whose occupancy, and whose contact, the frames after it
    /// changed. Its own square is not among them (the first of those
    /// would have contradicted the believed board and revealed it), so a
    /// snapshot's difference on one of them is later news.
    occupancy_seen: u64,
    contact_seen: u64,
}

/// A sensor board on protocol v1, generic over the I2C bus.
#[derive(Debug)]
pub struct ProtocolBoard<I2C> {
    i2c: I2C,
    address: u8,
    phase: Phase,
    identity: Option<Identity>,
    paired_serial: Option<u64>,
    nonce_state: u32,
    /// SEQ of the next frame to process.
    expected: u16,
    /// Consecutive bad reads at the current FIFO position.
    bad_reads: u8,
    /// A frame skipped as unreadable whose event is not known yet. The
    /// first later event of the same read that contradicts the believed
    /// board reveals it, or else the snapshot taken right after.
    skipped: Option<Skipped>,
    /// What the driver believes is on the board; `None` before the first
    /// snapshot, which is taken as the starting point without inputs.
    occupancy: Option<u64>,
    contact: u64,
    /// Inputs made but not handed out yet, because a later transfer of the
    /// same call failed: they go out with the next successful call.
    pending: Vec<BoardEvent>,
    counters: Counters,
}

impl<I2C: I2c> ProtocolBoard<I2C> {
    /// A driver for the board at `address` (normally [`crate::protocol::DEFAULT_ADDRESS`]).
    /// No bus traffic until the first call.
    pub fn new(i2c: I2C, address: u8) -> Self {
        ProtocolBoard {
            i2c,
            address,
            phase: Phase::Identify,
            identity: None,
            paired_serial: None,
            nonce_state: 0x5EED_1234,
            expected: 0,
            bad_reads: 0,
            skipped: None,
            occupancy: None,
            contact: 0,
            pending: Vec::new(),
            counters: Counters::default(),
        }
    }

    /// Gives the bus back.
    pub fn release(self) -> I2C {
        self.i2c
    }

    /// Garbage and trouble seen so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The last identity read, if any.
    pub fn identity(&self) -> Option<Identity> {
        self.identity
    }

    /// Reads and checks IDENT (magic, CRC, version, serial). A boot counter
    /// different from the one last seen means the board was reset: the
    /// driver will pair and resynchronise again.
    pub fn identify(&mut self) -> Result<Identity, Error<I2C::Error>> {
        let mut b = [0; size::IDENT];
        self.write_read(reg::IDENT, &mut b)?;
        if b[..4] != MAGIC {
            return Err(Error::BadMagic);
        }
        if crc8(&b[..23]) != b[23] {
            self.counters.crc_errors += 1;
            return Err(Error::Crc);
        }
        if b[4] == 0 {
            return Err(Error::Version(0));
        }
        let serial = u64::from_le_bytes(b[8..16].try_into().unwrap());
        if serial == 0 || serial == u64::MAX {
            return Err(Error::BadSerial);
        }
        let id = Identity {
            version: b[4],
            capabilities: Capabilities::from_bits(b[5]),
            fifo_depth: b[6],
            serial,
            boot_counter: u32::from_le_bytes(b[16..20].try_into().unwrap()),
            firmware: u16::from_le_bytes([b[20], b[21]]),
        };
        // Already re-identifying: the reset was counted when it was seen.
        if let Some(old) = self.identity
            && (old.boot_counter != id.boot_counter || old.serial != id.serial)
            && self.phase != Phase::Identify
        {
            self.reset_seen();
        }
        self.identity = Some(id);
        Ok(id)
    }

    /// Pairs with the board (§ 4.2): writes `nonce` (non-zero), checks STATUS
    /// up to [`READY_POLLS`] times for PAIR_READY, then checks that PAIR_RESP
    /// echoes the nonce, the serial and the boot count of the last
    /// [`identify`](Self::identify) (called first if there was none).
    /// [`Error::NotReady`]: the board is still working; the next
    /// [`poll`](SensorBoard::poll) carries on waiting. After pairing, the
    /// next poll resynchronises from a snapshot.
    pub fn pair(&mut self, nonce: u32) -> Result<(), Error<I2C::Error>> {
        if self.identity.is_none() {
            self.identify()?;
        }
        // § 4.2 wants a non-zero nonce; 0 goes out as 1.
        let nonce = nonce.max(1);
        self.write(&[
            reg::PAIR_NONCE,
            nonce as u8,
            (nonce >> 8) as u8,
            (nonce >> 16) as u8,
            (nonce >> 24) as u8,
        ])?;
        self.phase = Phase::Pairing { nonce, calls: 0 };
        self.finish_pair()
    }

    fn finish_pair(&mut self) -> Result<(), Error<I2C::Error>> {
        let Phase::Pairing { nonce, calls } = self.phase else {
            return Ok(());
        };
        let Some(st) = self.wait_for(status::PAIR_READY)? else {
            self.phase = if calls + 1 >= READY_CALLS {
                Phase::Identify
            } else {
                Phase::Pairing {
                    nonce,
                    calls: calls + 1,
                }
            };
            return Err(Error::NotReady);
        };
        let b: [u8; size::PAIR_RESP] = self.read_tagged(reg::PAIR_RESP, tag::PAIR)?;
        let id = self.identity.ok_or(Error::PairMismatch)?;
        if u32::from_le_bytes(b[0..4].try_into().unwrap()) != nonce
            || u64::from_le_bytes(b[4..12].try_into().unwrap()) != id.serial
            || u32::from_le_bytes(b[12..16].try_into().unwrap()) != id.boot_counter
        {
            // A stale response or another board: start over from IDENT.
            self.phase = Phase::Identify;
            return Err(Error::PairMismatch);
        }
        self.paired_serial = Some(id.serial);
        // Rule 6: the boot snapshot, if ready, saves a SNAPSHOT command.
        self.phase = Phase::Resync {
            requested: st.flags & status::SNAP_READY != 0,
            calls: 0,
        };
        Ok(())
    }

    /// Reads STATUS up to [`READY_POLLS`] times until `flag` is set.
    fn wait_for(&mut self, flag: u8) -> Result<Option<Status>, Error<I2C::Error>> {
        for _ in 0..READY_POLLS {
            if let Some(st) = self.status()?
                && st.flags & flag != 0
            {
                return Ok(Some(st));
            }
        }
        Ok(None)
    }

    /// A fresh nonce per pairing. Pairing is not authentication (§ 4.2): the
    /// nonce only has to differ from the last one to expose a stale
    /// response, so a xorshift mixed with the boot count does.
    fn next_nonce(&mut self) -> u32 {
        let mut x = self.nonce_state ^ self.identity.map_or(0, |id| id.boot_counter);
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if x == 0 {
            x = 1;
        }
        self.nonce_state = x;
        x
    }

    fn reset_seen(&mut self) {
        self.counters.resets += 1;
        // The boot snapshot's differences cover it, after the rest.
        self.skipped = None;
        self.phase = Phase::Identify;
    }

    fn start_resync(&mut self) {
        self.counters.resyncs += 1;
        self.bad_reads = 0;
        self.phase = Phase::Resync {
            requested: false,
            calls: 0,
        };
    }

    /// Rule 7: SNAPSHOT command, wait for SNAP_READY, read and check it, then
    /// report the difference from what the driver believed.
    fn resync(&mut self) -> Result<(), Error<I2C::Error>> {
        let Phase::Resync { requested, calls } = self.phase else {
            return Ok(());
        };
        if !requested {
            self.write(&[reg::COMMAND, command::SNAPSHOT])?;
            self.phase = Phase::Resync {
                requested: true,
                calls: 0,
            };
        }
        if self.wait_for(status::SNAP_READY)?.is_none() {
            let calls = if requested { calls + 1 } else { 1 };
            self.phase = Phase::Resync {
                requested: calls < READY_CALLS,
                calls,
            };
            return Err(Error::NotReady);
        }
        let b: [u8; size::SNAPSHOT] = self.read_tagged(reg::SNAPSHOT, tag::SNAPSHOT)?;
        let snap = SnapshotBlock {
            seq: u16::from_le_bytes([b[0], b[1]]),
            occupancy: u64::from_le_bytes(b[2..10].try_into().unwrap()),
            contact: u64::from_le_bytes(b[10..18].try_into().unwrap()),
            time_ms: u32::from_le_bytes(b[18..22].try_into().unwrap()),
        };
        let pieces = self.read_identity(snap.seq)?;
        self.apply_snapshot(snap, &pieces);
        self.expected = snap.seq.wrapping_add(1);
        self.bad_reads = 0;
        self.phase = Phase::Running;
        Ok(())
    }

    /// The IDENTITY block matching snapshot `seq`, when the board has one.
    fn read_identity(&mut self, seq: u16) -> Result<[Option<Piece>; 64], Error<I2C::Error>> {
        let mut pieces = [None; 64];
        if !self.identity.is_some_and(|id| id.capabilities.identity) {
            return Ok(pieces);
        }
        let b: [u8; size::IDENTITY] = self.read_tagged(reg::IDENTITY, tag::IDENTITY)?;
        // Identities of another moment than the snapshot's are as bad as garbage.
        if u16::from_le_bytes([b[0], b[1]]) != seq {
            self.counters.crc_errors += 1;
            return Err(Error::Crc);
        }
        for (piece, &byte) in pieces.iter_mut().zip(&b[2..66]) {
            *piece = piece_from_byte(byte).unwrap_or_else(|()| {
                self.counters.bad_pieces += 1;
                None
            });
        }
        Ok(pieces)
    }

    /// Turns the difference between the believed board and the snapshot into
    /// inputs: lifts before places (a capture empties before it fills), then
    /// contacts.
    fn apply_snapshot(&mut self, snap: SnapshotBlock, pieces: &[Option<Piece>; 64]) {
        if let Some(old) = self.occupancy {
            let squares = |bits: u64| Bitboard(bits).into_iter();
            // § 11 rule 7: the differences carry the snapshot's time.
            let stamp = |input| BoardEvent {
                input,
                board_ms: Some(snap.time_ms),
            };
            let lifts = squares(old & !snap.occupancy).map(Input::Lift);
            let places =
                squares(snap.occupancy & !old).map(|sq| Input::Place(sq, pieces[sq as usize]));
            let untouches = squares(self.contact & !snap.contact).map(Input::Untouch);
            let touches = squares(snap.contact & !self.contact).map(Input::Touch);
            let differences = lifts.chain(places).chain(untouches).chain(touches);
            match self.skipped.take() {
                // A skipped frame's change goes where the frame was, before
                // the frames read after it, and no later than they are; a
                // change of a square those frames changed came after them.
                Some(skipped) => {
                    let (later, skipped_change): (Vec<Input>, Vec<Input>) =
                        differences.partition(|input| {
                            let (seen, sq) = match *input {
                                Input::Lift(sq) | Input::Place(sq, _) => {
                                    (skipped.occupancy_seen, sq)
                                }
                                Input::Touch(sq) | Input::Untouch(sq) => (skipped.contact_seen, sq),
                                _ => (0, Square::A1),
                            };
                            seen & (1 << sq as u64) != 0
                        });
                    let at = skipped.at.min(self.pending.len());
                    let in_place = skipped_change.into_iter().map(|input| BoardEvent {
                        input,
                        board_ms: Some(skipped.board_ms.min(snap.time_ms)),
                    });
                    self.pending.splice(at..at, in_place);
                    self.pending.extend(later.into_iter().map(stamp));
                }
                None => self.pending.extend(differences.map(stamp)),
            }
        }
        self.occupancy = Some(snap.occupancy);
        self.contact = snap.contact;
    }

    /// Reads STATUS with a bare read; `None` if it is garbage (rule 2).
    fn status(&mut self) -> Result<Option<Status>, Error<I2C::Error>> {
        let mut b = [0; size::STATUS];
        let r = self.i2c.read(self.address, &mut b);
        self.bus(r)?;
        if crc8(&b[..2]) != b[2] || b[0] & status::ONE == 0 {
            self.counters.status_errors += 1;
            return Ok(None);
        }
        Ok(Some(Status {
            flags: b[0],
            count: b[1],
        }))
    }

    /// One batch of frames: STATUS, up to 8 frames, their ACK.
    fn read_frames(&mut self) -> Result<(), Error<I2C::Error>> {
        let Some(st) = self.status()? else {
            return Ok(());
        };
        if st.flags & status::FRESH != 0 {
            self.reset_seen();
            return Ok(());
        }
        if st.flags & status::OVERFLOW != 0 {
            self.counters.overflows += 1;
            self.start_resync();
            return Ok(());
        }
        let n = usize::from(st.count).min(MAX_FRAMES_PER_READ);
        if n == 0 {
            return Ok(());
        }
        let mut buf = [0; size::FRAME * MAX_FRAMES_PER_READ];
        let frames = &mut buf[..n * size::FRAME];
        // Rule 3: a corrupt frame is re-read at once, up to three times.
        loop {
            self.write_read(reg::FIFO, frames)?;
            let (mut ack, corrupt) = self.take_frames(frames);
            let mut resync = false;
            if let Some(bad) = corrupt.filter(|_| self.phase == Phase::Running) {
                self.bad_reads += 1;
                if self.bad_reads < BAD_READS {
                    self.write_ack(ack)?;
                    continue;
                }
                if let Some(next_ms) = self.frame_after_is_next(frames, bad) {
                    ack = Some(self.skip_unreadable_frame(next_ms));
                    let (after, corrupt) = self.take_frames(&frames[(bad + 1) * size::FRAME..]);
                    ack = after.or(ack);
                    // Not given away by the frames after it: a snapshot,
                    // now, shows its change (and only what came later).
                    resync = self.skipped.is_some() || corrupt.is_some();
                } else {
                    resync = true;
                }
            }
            self.write_ack(ack)?;
            if resync && self.phase == Phase::Running {
                self.start_resync();
            }
            return Ok(());
        }
    }

    /// Checks and applies `frames` in order (rules 3 to 5), up to the first
    /// corrupt one, whose index it returns with the SEQ to ACK, if any.
    fn take_frames(&mut self, frames: &[u8]) -> (Option<u16>, Option<usize>) {
        let mut ack = None;
        for (i, frame) in frames.chunks_exact(size::FRAME).enumerate() {
            if crc8(&frame[..9]) != frame[9] {
                self.counters.crc_errors += 1;
                return (ack, Some(i));
            }
            let seq = u16::from_le_bytes([frame[0], frame[1]]);
            if frame[2] == code::BOOT && !(seq == 0 && self.expected == 1) {
                // A reset we had not noticed; the BOOT frame our boot
                // snapshot already covers (expected 1) is skipped below.
                self.reset_seen();
                break;
            }
            let ahead = seq.wrapping_sub(self.expected);
            if ahead >= 0x8000 {
                // Seen before: our ACK was lost (or it is the BOOT
                // frame the boot snapshot covers, which is no news).
                if frame[2] != code::BOOT {
                    self.counters.duplicates += 1;
                }
                ack = Some(seq);
                continue;
            }
            if ahead != 0 {
                self.counters.sequence_gaps += 1;
                self.start_resync();
                break;
            }
            self.bad_reads = 0;
            self.expected = self.expected.wrapping_add(1);
            ack = Some(seq);
            if !self.frame(frame) {
                break;
            }
        }
        (ack, None)
    }

    fn write_ack(&mut self, ack: Option<u16>) -> Result<(), Error<I2C::Error>> {
        match ack {
            Some(seq) => self.write(&[reg::ACK, seq as u8, (seq >> 8) as u8]),
            None => Ok(()),
        }
    }

    /// The board's time of the frame after the bad one at `bad` in
    /// `frames`, if that frame is good and is the one after `expected`:
    /// then the bad frame is `expected` itself, and not a repeat whose ACK
    /// was lost.
    fn frame_after_is_next(&self, frames: &[u8], bad: usize) -> Option<u32> {
        let next = frames.chunks_exact(size::FRAME).nth(bad + 1)?;
        (crc8(&next[..9]) == next[9]
            && u16::from_le_bytes([next[0], next[1]]) == self.expected.wrapping_add(1))
        .then(|| u32::from_le_bytes([next[5], next[6], next[7], next[8]]))
    }

    /// Rule 3 gives up on a frame corrupt in the board's own memory, but a
    /// snapshot would flush the good frames queued after it, and a
    /// snapshot says which squares are occupied, not what happened: a
    /// capture among them would vanish (the captured piece lifted and the
    /// capturing one set on its square leave that square occupied). So
    /// when good frames follow it, the frame is ACKed and skipped, the
    /// frames after it are read as usual, and its event, a single change
    /// of one square, is inferred: the first later event on that square
    /// contradicts the believed board (a piece set on an occupied square
    /// was lifted first), or, if none does, a snapshot taken at once shows
    /// that change (and what came after). Returns the skipped SEQ, to ACK.
    fn skip_unreadable_frame(&mut self, next_ms: u32) -> u16 {
        let seq = self.expected;
        self.counters.skipped_frames += 1;
        self.expected = seq.wrapping_add(1);
        self.bad_reads = 0;
        self.skipped = Some(Skipped {
            at: self.pending.len(),
            board_ms: next_ms,
            occupancy_seen: 0,
            contact_seen: 0,
        });
        seq
    }

    /// The skipped frame's event, if `input` (from a later frame) could not
    /// happen on the believed board without it: the opposite change of the
    /// same square, just before it.
    fn revealed_by(&self, input: Input) -> Option<Input> {
        let occupied = |sq: Square| self.occupancy.unwrap_or(0) & (1 << sq as u64) != 0;
        let touched = |sq: Square| self.contact & (1 << sq as u64) != 0;
        match input {
            Input::Lift(sq) if !occupied(sq) => Some(Input::Place(sq, None)),
            Input::Place(sq, _) if occupied(sq) => Some(Input::Lift(sq)),
            Input::Touch(sq) if touched(sq) => Some(Input::Untouch(sq)),
            Input::Untouch(sq) if !touched(sq) => Some(Input::Touch(sq)),
            _ => None,
        }
    }

    /// Applies one checked, in-order frame; `false` when it ends the batch.
    fn frame(&mut self, frame: &[u8]) -> bool {
        let (event, square) = (frame[2], frame[3]);
        match event {
            code::LIFT | code::PLACE | code::TOUCH | code::UNTOUCH => {
                let Some(sq) = Square::try_from(square).ok() else {
                    self.counters.bad_squares += 1;
                    return true;
                };
                let piece = piece_from_byte(frame[4]).unwrap_or_else(|()| {
                    self.counters.bad_pieces += 1;
                    None
                });
                let bit = 1u64 << square;
                let board_ms = Some(u32::from_le_bytes([frame[5], frame[6], frame[7], frame[8]]));
                if let Some(skipped) = self.skipped {
                    let seen = match event {
                        code::LIFT => Input::Lift(sq),
                        code::PLACE => Input::Place(sq, piece),
                        code::TOUCH => Input::Touch(sq),
                        _ => Input::Untouch(sq),
                    };
                    if let Some(revealed) = self.revealed_by(seen) {
                        // A piece lifted from a square believed empty was
                        // set there by the skipped frame: the piece lifted.
                        let revealed = match revealed {
                            Input::Place(sq, None) => Input::Place(sq, piece),
                            other => other,
                        };
                        self.skipped = None;
                        self.pending.insert(
                            skipped.at.min(self.pending.len()),
                            BoardEvent {
                                input: revealed,
                                board_ms: Some(skipped.board_ms),
                            },
                        );
                    }
                }
                if let Some(skipped) = self.skipped.as_mut() {
                    match event {
                        code::LIFT | code::PLACE => skipped.occupancy_seen |= bit,
                        _ => skipped.contact_seen |= bit,
                    }
                }
                let occupancy = self.occupancy.get_or_insert(0);
                let input = match event {
                    code::LIFT => {
                        *occupancy &= !bit;
                        Input::Lift(sq)
                    }
                    code::PLACE => {
                        *occupancy |= bit;
                        Input::Place(sq, piece)
                    }
                    code::TOUCH => {
                        self.contact |= bit;
                        Input::Touch(sq)
                    }
                    _ => {
                        self.contact &= !bit;
                        Input::Untouch(sq)
                    }
                };
                self.pending.push(BoardEvent { input, board_ms });
                true
            }
            // The BOOT frame covered by the boot snapshot.
            code::BOOT => true,
            code::OVERFLOW => {
                self.counters.overflows += 1;
                self.start_resync();
                false
            }
            _ => {
                self.counters.unknown_codes += 1;
                true
            }
        }
    }

    /// Runs the connection forward until frames can be read (or one batch was
    /// read), bounded by [`MAX_STEPS`].
    fn step(&mut self) -> Result<(), Error<I2C::Error>> {
        for _ in 0..MAX_STEPS {
            match self.phase {
                Phase::Identify => {
                    self.identify()?;
                    let nonce = self.next_nonce();
                    self.pair(nonce)?;
                }
                Phase::Pairing { .. } => self.finish_pair()?,
                Phase::Resync { .. } => self.resync()?,
                Phase::Running => {
                    self.read_frames()?;
                    if self.phase == Phase::Running {
                        return Ok(());
                    }
                }
            }
        }
        Err(Error::NotReady)
    }

    /// Reads a block that ends in its tag byte and a CRC-8 of everything
    /// before the CRC; a mismatch is counted and reported as `Crc`.
    fn read_tagged<const N: usize>(
        &mut self,
        register: u8,
        tag: u8,
    ) -> Result<[u8; N], Error<I2C::Error>> {
        let mut b = [0; N];
        self.write_read(register, &mut b)?;
        if crc8(&b[..N - 1]) != b[N - 1] || b[N - 2] != tag {
            self.counters.crc_errors += 1;
            return Err(Error::Crc);
        }
        Ok(b)
    }

    fn write_read(&mut self, register: u8, buf: &mut [u8]) -> Result<(), Error<I2C::Error>> {
        let r = self.i2c.write_read(self.address, &[register], buf);
        self.bus(r)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error<I2C::Error>> {
        let r = self.i2c.write(self.address, bytes);
        self.bus(r)
    }

    fn bus(&mut self, r: Result<(), I2C::Error>) -> Result<(), Error<I2C::Error>> {
        r.map_err(|e| {
            self.counters.bus_errors += 1;
            Error::Bus(e)
        })
    }
}

impl<I2C: I2c> SensorBoard for ProtocolBoard<I2C> {
    type Error = Error<I2C::Error>;

    /// Identifies, pairs and resynchronises as needed, then reads one batch
    /// of at most 8 frames. Inputs go out only with `Ok`; those made before a
    /// failure go out with the next successful call.
    fn poll_stamped(&mut self, out: &mut Vec<BoardEvent>) -> Result<(), Self::Error> {
        self.step()?;
        out.append(&mut self.pending);
        Ok(())
    }

    /// Reads TIME (§ 8.1): the board's clock, latched as the register byte
    /// arrives, so the host maps it to its own clock at the transaction.
    fn board_time(&mut self) -> Result<Option<u32>, Self::Error> {
        let t = self.read_tagged::<{ size::TIME }>(reg::TIME, tag::TIME)?;
        Ok(Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]])))
    }

    /// Takes a fresh snapshot (after reading one batch of frames, whose
    /// inputs the next poll hands out along with the snapshot's difference)
    /// and returns its occupancy.
    fn occupancy(&mut self) -> Result<Bitboard, Self::Error> {
        self.step()?;
        if self.phase == Phase::Running {
            self.phase = Phase::Resync {
                requested: false,
                calls: 0,
            };
        }
        self.step()?;
        Ok(Bitboard(self.occupancy.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    //! Exact bus traffic, against the walk-through of § 13.

    use embedded_hal::i2c::ErrorKind;
    use embedded_hal_mock::eh1::i2c::{Mock, Transaction as T};
    use shakmaty::{Color, Role};

    use super::*;

    const A: u8 = 0x42;

    fn with_crc(mut bytes: Vec<u8>) -> Vec<u8> {
        bytes.push(crc8(&bytes));
        bytes
    }

    /// IDENT of § 13 but with CAPS 0x01 (occupancy only: no IDENTITY reads).
    fn ident() -> Vec<u8> {
        let mut b = vec![0x54, 0x4F, 0x43, 0x42, 0x01, 0x01, 0x20, 0x00];
        b.extend(0x0123_4567_89AB_CDEFu64.to_le_bytes());
        b.extend([0x07, 0, 0, 0, 0x00, 0x01, 0]);
        with_crc(b)
    }

    fn status(flags: u8, count: u8) -> T {
        T::read(A, with_crc(vec![flags, count]))
    }

    /// § 13 A: identify, pair with 0x5EED1234, the first poll reads the boot
    /// snapshot (the starting point, no inputs) and skips the BOOT frame.
    fn handshake() -> Vec<T> {
        vec![
            T::write_read(A, vec![0x00], ident()),
            T::write(A, vec![0x30, 0x34, 0x12, 0xED, 0x5E]),
            status(0x87, 1),
            T::write_read(
                A,
                vec![0x38],
                vec![
                    0x34, 0x12, 0xED, 0x5E, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, 0x07,
                    0, 0, 0, 0x50, 0xE9,
                ],
            ),
            status(0x87, 1),
            T::write_read(
                A,
                vec![0x50],
                vec![
                    0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x9F, 0x01,
                    0, 0, 0x53, 0x4A,
                ],
            ),
            status(0x87, 1),
            T::write_read(
                A,
                vec![0xC0],
                with_crc(vec![0, 0, 0x10, 0xFF, 0, 0, 0, 0, 0]),
            ),
            T::write(A, vec![0x2C, 0, 0]),
        ]
    }

    /// § 13 B, both frames in one read.
    fn e2e4() -> Vec<T> {
        let mut frames = vec![0x01, 0x00, 0x01, 0x0C, 0x50, 0x40, 0xE2, 0x01, 0x00, 0x21];
        frames.extend([0x02, 0x00, 0x02, 0x1C, 0x50, 0x08, 0xE4, 0x01, 0x00, 0x04]);
        vec![
            status(0x87, 2),
            T::write_read(A, vec![0xC0], frames),
            T::write(A, vec![0x2C, 2, 0]),
        ]
    }

    fn run(script: &[T], body: impl FnOnce(&mut ProtocolBoard<Mock>)) {
        let mut board = ProtocolBoard::new(Mock::new(script), A);
        body(&mut board);
        board.release().done();
    }

    fn paired(board: &mut ProtocolBoard<Mock>) {
        board.identify().unwrap();
        board.pair(0x5EED_1234).unwrap();
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        assert_eq!(out, []);
    }

    #[test]
    fn identify_reads_and_checks_ident() {
        let walkthrough = vec![
            0x54, 0x4F, 0x43, 0x42, 0x01, 0x05, 0x20, 0x00, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45,
            0x23, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2C,
        ];
        let mut bad_crc = walkthrough.clone();
        bad_crc[23] ^= 1;
        let mut bad_magic = walkthrough.clone();
        bad_magic[0] = b'X';
        let script = [
            T::write_read(A, vec![0x00], walkthrough),
            T::write_read(A, vec![0x00], bad_crc),
            T::write_read(A, vec![0x00], bad_magic),
        ];
        run(&script, |board| {
            let id = board.identify().unwrap();
            assert_eq!(id.version, 1);
            assert_eq!(id.fifo_depth, 32);
            assert_eq!(id.serial, 0x0123_4567_89AB_CDEF);
            assert_eq!(id.boot_counter, 7);
            assert_eq!(id.firmware, 0x0100);
            assert!(
                id.capabilities.occupancy && id.capabilities.identity && !id.capabilities.contact
            );
            assert_eq!(board.identify(), Err(Error::Crc));
            assert_eq!(board.identify(), Err(Error::BadMagic));
        });
    }

    #[test]
    fn poll_with_no_frames_is_one_bare_read() {
        let mut script = handshake();
        script.push(status(0x86, 0));
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            assert_eq!(out, []);
        });
    }

    #[test]
    fn poll_reads_two_frames_and_acks_them() {
        let mut script = handshake();
        script.extend(e2e4());
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            let pawn = Some(Piece {
                color: Color::White,
                role: Role::Pawn,
            });
            assert_eq!(
                out,
                [Input::Lift(Square::E2), Input::Place(Square::E4, pawn)]
            );
            assert_eq!(board.counters(), Counters::default());
        });
    }

    /// § 13 C: three bad reads of the same frame, with a good frame after
    /// it: the bad one is skipped, the good one read, and a snapshot gives
    /// the skipped frame's change, in its place.
    #[test]
    fn a_frame_that_stays_corrupt_is_skipped_and_a_snapshot_gives_its_change() {
        let mut script = handshake();
        script.extend(e2e4());
        let mut bad = vec![0x03, 0x00, 0x01, 0x3A, 0x6E, 0xD1, 0xFB, 0x01, 0x00, 0xF8];
        bad.extend([0x04, 0x00, 0x02, 0x2D, 0x6E, 0x62, 0xFD, 0x01, 0x00, 0xCC]);
        script.push(status(0x87, 2));
        script.extend((0..3).map(|_| T::write_read(A, vec![0xC0], bad.clone())));
        script.extend([
            // SEQ 3 skipped, SEQ 4 read: both ACKed before the snapshot.
            T::write(A, vec![0x2C, 0x04, 0x00]),
            T::write(A, vec![0x2E, 0x02]),
            status(0x86, 0),
            T::write_read(
                A,
                vec![0x50],
                vec![
                    0x04, 0x00, 0xFF, 0xEF, 0x00, 0x10, 0x00, 0x20, 0xFF, 0xBF, 0, 0, 0, 0, 0, 0,
                    0, 0, 0xEA, 0xFF, 0x01, 0x00, 0x53, 0xB0,
                ],
            ),
            status(0x86, 0),
        ]);
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            out.clear();
            board.poll(&mut out).unwrap();
            // f6 from its own frame, with the knight it names.
            let knight = Some(Piece {
                color: Color::Black,
                role: Role::Knight,
            });
            assert_eq!(
                out,
                [Input::Lift(Square::G8), Input::Place(Square::F6, knight)]
            );
            let c = board.counters();
            assert_eq!((c.crc_errors, c.skipped_frames, c.resyncs), (3, 1, 1));
        });
    }

    fn frame(seq: u16, code: u8, square: Square, piece: u8, board_ms: u32) -> Vec<u8> {
        let mut bytes = seq.to_le_bytes().to_vec();
        bytes.extend([code, square as u8, piece]);
        bytes.extend(board_ms.to_le_bytes());
        with_crc(bytes)
    }

    /// A capture behind a frame corrupt in the board's memory: the frames
    /// after it say what it was (a piece set on d5, believed occupied, was
    /// lifted from it first), so no snapshot is needed and the capture is
    /// not lost in one.
    #[test]
    fn a_frame_that_stays_corrupt_is_read_from_the_frames_after_it() {
        let mut script = handshake();
        script.extend(e2e4());
        let mut d7d5 = frame(3, code::LIFT, Square::D7, b'p', 130_000);
        d7d5.extend(frame(4, code::PLACE, Square::D5, b'p', 130_400));
        script.extend([
            status(0x87, 2),
            T::write_read(A, vec![0xC0], d7d5),
            T::write(A, vec![0x2C, 4, 0]),
        ]);
        // exd5: d5's pawn lifted (the frame the board holds corrupt), e4's
        // lifted, set on d5.
        let mut bad = frame(5, code::LIFT, Square::D5, b'p', 135_000);
        bad[9] ^= 0xFF;
        bad.extend(frame(6, code::LIFT, Square::E4, b'P', 135_300));
        bad.extend(frame(7, code::PLACE, Square::D5, b'P', 135_600));
        script.push(status(0x87, 3));
        script.extend((0..3).map(|_| T::write_read(A, vec![0xC0], bad.clone())));
        script.push(T::write(A, vec![0x2C, 7, 0]));
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            board.poll(&mut out).unwrap();
            let mut out = Vec::new();
            board.poll_stamped(&mut out).unwrap();
            let pawn = |color| {
                Some(Piece {
                    color,
                    role: Role::Pawn,
                })
            };
            assert_eq!(
                out,
                [
                    BoardEvent {
                        input: Input::Lift(Square::D5),
                        board_ms: Some(135_300)
                    },
                    BoardEvent {
                        input: Input::Lift(Square::E4),
                        board_ms: Some(135_300)
                    },
                    BoardEvent {
                        input: Input::Place(Square::D5, pawn(Color::White)),
                        board_ms: Some(135_600)
                    },
                ]
            );
            let c = board.counters();
            assert_eq!((c.crc_errors, c.skipped_frames, c.resyncs), (3, 1, 0));
        });
    }

    /// A frame that stays corrupt with nothing after it is resynchronised
    /// as § 11 rule 3 says: nothing says which SEQ it has.
    #[test]
    fn a_last_frame_that_stays_corrupt_leads_to_a_resync() {
        let mut script = handshake();
        script.extend(e2e4());
        let mut bad = frame(3, code::LIFT, Square::G8, b'n', 131_000);
        bad[9] ^= 0xFF;
        script.push(status(0x87, 1));
        script.extend((0..3).map(|_| T::write_read(A, vec![0xC0], bad.clone())));
        script.extend([
            T::write(A, vec![0x2E, 0x02]),
            status(0x86, 0),
            T::write_read(
                A,
                vec![0x50],
                with_crc(
                    [
                        &[3, 0][..],
                        &0xBFFF_0000_1000_EFFFu64.to_le_bytes(),
                        &[0; 8],
                        &131_050u32.to_le_bytes(),
                        &[tag::SNAPSHOT],
                    ]
                    .concat(),
                ),
            ),
            status(0x86, 0),
        ]);
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            out.clear();
            board.poll(&mut out).unwrap();
            assert_eq!(out, [Input::Lift(Square::G8)]);
            let c = board.counters();
            assert_eq!((c.crc_errors, c.skipped_frames, c.resyncs), (3, 0, 1));
        });
    }

    #[test]
    fn a_bus_error_propagates_and_the_next_poll_works() {
        let mut script = handshake();
        script.push(T::read(A, vec![0; 3]).with_error(ErrorKind::Other));
        script.push(status(0x86, 0));
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            assert_eq!(board.poll(&mut out), Err(Error::Bus(ErrorKind::Other)));
            assert_eq!(board.counters().bus_errors, 1);
            board.poll(&mut out).unwrap();
            assert_eq!(out, []);
        });
    }

    #[test]
    fn a_status_with_a_bad_crc_is_counted_and_ignored() {
        let mut script = handshake();
        script.push(T::read(A, vec![0x87, 0x01, 0x00]));
        run(&script, |board| {
            paired(board);
            let mut out = Vec::new();
            board.poll(&mut out).unwrap();
            assert_eq!(board.counters().status_errors, 1);
        });
    }
}
