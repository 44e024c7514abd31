//! The I2C target the Pi reads (§§ 2, 9.1), served from I2C0's interrupt
//! at the highest priority, so the clock is held for no more than the
//! interrupt's entry and a few stores after each read request.
//!
//! The RP2040's I2C block (DW_apb_i2c) holds SCL after every read request
//! until software puts a byte in its TX FIFO, and flushes anything put
//! there before the request. The BCM283x on the Pi cannot live with long
//! holds (§ 9.1: 2 µs at 100 kHz). So nothing in the interrupt waits for
//! the board's logic: every read is answered from an **image** of the
//! register blocks that the board publishes after every change (a scan
//! with changes, a write), triple-buffered so that a read started on one
//! image finishes on it (no read mixes two states) while the next is made.
//! TIME is the one block made at the read, from the timer.
//!
//! Writes are collected here and applied by the board's side in a lower
//! priority interrupt (`SWI_IRQ_1`), which publishes the new image before
//! the Pi can address the board again (a STOP and a START take 15 µs; the
//! application takes less than the 90 µs of the address byte).
//!
//! A transaction still open 25 ms after it began resets the block (§ 9.1
//! rule 4), from the scan's loop.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use embassy_rp::Peri;
use embassy_rp::interrupt;
use embassy_rp::interrupt::InterruptExt;
use embassy_rp::pac;
use embassy_rp::peripherals::{I2C0, PIN_4, PIN_5};
use tocada_board::protocol::{FILLER, crc8, reg, size, tag};
use tocada_board::{Board, block_start};

use crate::now_ms;

/// The longest FIFO read the board serves: the whole FIFO.
const FIFO_BYTES: usize = crate::FIFO_DEPTH as usize * size::FRAME;

/// § 9.1 rule 4.
const STUCK_MS: u32 = 25;

/// The blocks a read can start in, with their sizes (TIME and FIFO apart).
const BLOCKS: [(u8, usize); 6] = [
    (reg::IDENT, size::IDENT),
    (reg::STATUS, size::STATUS),
    (reg::PAIR_RESP, size::PAIR_RESP),
    (reg::SNAPSHOT, size::SNAPSHOT),
    (reg::IDENTITY, size::IDENTITY),
    (reg::DIAG, size::DIAG),
];

/// What a read answers, as of one state of the board.
struct Image {
    /// Each block at its own register address, filler past its end and
    /// outside blocks; at FIFO, the FIFO's first byte.
    space: [u8; 256],
    /// At each block's first register: how many bytes it has now.
    len: [u8; 256],
    fifo: [u8; FIFO_BYTES],
    fifo_len: usize,
}

impl Image {
    const EMPTY: Image = Image {
        space: [FILLER; 256],
        len: [0; 256],
        fifo: [FILLER; FIFO_BYTES],
        fifo_len: 0,
    };
}

/// Three images: the one reads start on, the one a read in progress holds,
/// and one to make the next in.
struct Images(UnsafeCell<[Image; 3]>);

// SAFETY: an image is written only while it is neither `CURRENT` nor
// `HELD`, by the board's side (thread mode or SWI_IRQ_1, never both: the
// thread masks SWI_IRQ_1 around the board), and read only by the I2C
// interrupt, which preempts both and reads only `CURRENT` or `HELD`.
unsafe impl Sync for Images {}

static IMAGES: Images = Images(UnsafeCell::new([Image::EMPTY, Image::EMPTY, Image::EMPTY]));
static CURRENT: AtomicU8 = AtomicU8::new(0);
/// The image a read in progress holds; `NONE` between reads.
static HELD: AtomicU8 = AtomicU8::new(NONE);
const NONE: u8 = 0xFF;

/// The timer's low word (µs, +1 so that 0 means none) when the open
/// transaction began.
static OPEN_SINCE: AtomicU32 = AtomicU32::new(0);

/// Board time (ms) and the timer's low word (µs) when it began, as of the
/// last publication: the interrupt counts on from them for TIME without a
/// 64-bit division.
static TIME_MS: AtomicU32 = AtomicU32::new(0);
static TIME_US: AtomicU32 = AtomicU32::new(0);

/// The timer's low word: µs since reset, wrapping.
fn micros() -> u32 {
    pac::TIMER.timerawl().read()
}

/// Write segments from the Pi, waiting for the board's side: a ring of
/// four, each with its length in byte 0.
struct Writes(UnsafeCell<[[u8; 17]; 4]>);
// SAFETY: slot `HEAD % 4` is written only by the I2C interrupt before it
// advances HEAD; slot `TAIL % 4` read only by SWI_IRQ_1 before it advances TAIL.
unsafe impl Sync for Writes {}
static WRITES: Writes = Writes(UnsafeCell::new([[0; 17]; 4]));
static HEAD: AtomicU8 = AtomicU8::new(0);
static TAIL: AtomicU8 = AtomicU8::new(0);

/// Publishes the board's state for the reads to come. Called by the board's
/// side after every change.
pub fn publish(board: &Board, now: u32) {
    let us = embassy_time::Instant::now().as_micros();
    cortex_m::interrupt::free(|_| {
        TIME_MS.store((us / 1000) as u32, Ordering::Relaxed);
        TIME_US.store((us - us % 1000) as u32, Ordering::Relaxed);
    });
    let (current, held) = (
        CURRENT.load(Ordering::Acquire),
        HELD.load(Ordering::Acquire),
    );
    let next = (0..3u8).find(|&i| i != current && i != held).unwrap_or(0);
    // SAFETY: `next` is neither CURRENT nor HELD (see `Images`).
    let image = unsafe { &mut (*IMAGES.0.get())[usize::from(next)] };
    for (start, len) in BLOCKS {
        let s = usize::from(start);
        let n = board.read(now, start, &mut image.space[s..s + len]);
        image.len[s] = n as u8;
    }
    image.fifo_len = board.read(now, reg::FIFO, &mut image.fifo);
    // The FIFO's first byte where the other blocks have theirs.
    image.space[usize::from(reg::FIFO)] = if image.fifo_len > 0 {
        image.fifo[0]
    } else {
        FILLER
    };
    CURRENT.store(next, Ordering::Release);
}

/// The interrupt's own state: only `I2C0_IRQ` (and the stuck reset, with
/// the interrupt masked) touches it.
struct Serving {
    /// The write segment being received.
    segment: [u8; 16],
    segment_len: usize,
    /// Bytes past the segment's 16th: counted as a bad write by the core.
    overflow: bool,
    /// The register the next read starts at.
    pointer: u8,
    /// The read in progress: its register and how many bytes went out.
    reading: Option<(u8, usize)>,
    time: [u8; size::TIME],
}

struct ServingCell(UnsafeCell<Serving>);
// SAFETY: see `Serving`.
unsafe impl Sync for ServingCell {}
static SERVING: ServingCell = ServingCell(UnsafeCell::new(Serving {
    segment: [0; 16],
    segment_len: 0,
    overflow: false,
    pointer: reg::STATUS,
    reading: None,
    time: [0; size::TIME],
}));

/// Sets up I2C0 as the target at `address` on GP5 (SCL) and GP4 (SDA), the
/// Pi's pull-ups only, no general call, and starts serving.
pub fn start(
    _i2c: Peri<'static, I2C0>,
    _scl: Peri<'static, PIN_5>,
    _sda: Peri<'static, PIN_4>,
    address: u8,
) {
    for pin in [4usize, 5] {
        pac::IO_BANK0.gpio(pin).ctrl().write(|w| w.set_funcsel(3));
        pac::PADS_BANK0.gpio(pin).write(|w| {
            w.set_schmitt(true);
            w.set_slewfast(false);
            w.set_ie(true);
            w.set_od(false);
            w.set_pue(false);
            w.set_pde(false);
        });
    }
    ADDRESS.store(address, Ordering::Relaxed);
    configure();
    interrupt::SWI_IRQ_1.set_priority(interrupt::Priority::P1);
    interrupt::I2C0_IRQ.set_priority(interrupt::Priority::P0);
    // SAFETY: both handlers are defined below and touch only what they own.
    unsafe {
        interrupt::SWI_IRQ_1.enable();
        interrupt::I2C0_IRQ.enable();
    }
}

static ADDRESS: AtomicU8 = AtomicU8::new(0x42);

/// The block from reset: target mode, FIFOs at one byte, the interrupts
/// the target needs.
fn configure() {
    let p = pac::I2C0;
    pac::RESETS.reset().modify(|w| w.set_i2c0(true));
    pac::RESETS.reset().modify(|w| w.set_i2c0(false));
    while !pac::RESETS.reset_done().read().i2c0() {}
    p.ic_enable().write(|w| w.set_enable(false));
    p.ic_sar()
        .write(|w| w.set_ic_sar(u16::from(ADDRESS.load(Ordering::Relaxed))));
    p.ic_con().write(|w| {
        w.set_master_mode(false);
        w.set_ic_slave_disable(false);
        w.set_tx_empty_ctrl(true);
        w.set_rx_fifo_full_hld_ctrl(true);
        w.set_speed(pac::i2c::vals::Speed::FAST); // spike suppression only
        w.set_stop_det_ifaddressed(true);
    });
    p.ic_ack_general_call().write(|w| w.set_ack_gen_call(false));
    p.ic_rx_tl().write(|w| w.set_rx_tl(0));
    p.ic_tx_tl().write(|w| w.set_tx_tl(4));
    p.ic_clr_intr().read();
    p.ic_intr_mask().write(|w| {
        w.set_m_rd_req(true);
        w.set_m_rx_full(true);
        w.set_m_stop_det(true);
        w.set_m_restart_det(true);
        w.set_m_tx_abrt(true);
        w.set_m_rx_done(true);
    });
    p.ic_enable().write(|w| w.set_enable(true));
}

/// § 9.1 rule 4, from the scan's loop: a transaction open for 25 ms resets
/// the block, letting SCL and SDA go.
pub fn check_stuck() {
    let since = OPEN_SINCE.load(Ordering::Relaxed);
    if since != 0 && micros().wrapping_sub(since - 1) >= STUCK_MS * 1000 {
        interrupt::I2C0_IRQ.disable();
        configure();
        // SAFETY: the interrupt that owns `SERVING` is masked.
        let s = unsafe { &mut *SERVING.0.get() };
        s.segment_len = 0;
        s.overflow = false;
        s.reading = None;
        s.pointer = reg::STATUS;
        HELD.store(NONE, Ordering::Release);
        OPEN_SINCE.store(0, Ordering::Relaxed);
        // SAFETY: as in `start`.
        unsafe { interrupt::I2C0_IRQ.enable() };
    }
}

/// How many bytes the read that started at `register` has before filler.
fn total(s: &Serving, image: &Image, register: u8) -> usize {
    let start = block_start(register);
    let skip = usize::from(register - start);
    if start == reg::TIME {
        s.time.len().saturating_sub(skip)
    } else if register == reg::FIFO {
        image.fifo_len
    } else {
        usize::from(image.len[usize::from(start)]).saturating_sub(skip)
    }
}

/// The byte `at` of the read that started at `register`.
fn answer(s: &Serving, image: &Image, register: u8, at: usize) -> u8 {
    if at >= total(s, image, register) {
        FILLER
    } else if block_start(register) == reg::TIME {
        s.time[usize::from(register - reg::TIME) + at]
    } else if register == reg::FIFO {
        image.fifo[at]
    } else {
        image.space[usize::from(register) + at]
    }
}

/// Ends the write segment received so far: a register byte alone points
/// the next read; anything longer goes to the board.
fn end_segment(s: &mut Serving) {
    if s.segment_len == 0 {
        return;
    }
    s.pointer = s.segment[0];
    if s.segment_len > 1 || s.overflow {
        let head = HEAD.load(Ordering::Relaxed);
        if head.wrapping_sub(TAIL.load(Ordering::Acquire)) < 4 {
            // SAFETY: see `Writes`.
            let slot = unsafe { &mut (*WRITES.0.get())[usize::from(head % 4)] };
            // Too long for any register: passed on at 17 bytes, which the
            // core rejects and counts.
            slot[0] = if s.overflow { 17 } else { s.segment_len as u8 };
            slot[1..1 + s.segment_len].copy_from_slice(&s.segment[..s.segment_len]);
            HEAD.store(head.wrapping_add(1), Ordering::Release);
            interrupt::SWI_IRQ_1.pend();
        }
    }
    s.segment_len = 0;
    s.overflow = false;
}

/// Starts a read at `register` on the current image: its first byte goes
/// into the TX FIFO at once. Every block's first byte is at its register's
/// address in `space` (filler past the block), so this is a load and a
/// store; only TIME is made here.
#[inline(always)]
fn begin_read(s: &mut Serving, register: u8) {
    let held = CURRENT.load(Ordering::Acquire);
    HELD.store(held, Ordering::Release);
    // SAFETY: the image a read holds is never written (see `Images`).
    let image = unsafe { (*IMAGES.0.get()).get_unchecked(usize::from(held) % 3) };
    let in_time = usize::from(register.wrapping_sub(reg::TIME));
    if in_time < size::TIME {
        // TIME's four time bytes first, its tag and CRC once the first
        // byte is out (unless the read starts at those).
        time_bytes(s);
        if in_time >= 4 {
            time_check(s);
        }
        pac::I2C0
            .ic_data_cmd()
            .write(|w| w.set_dat(s.time[in_time]));
        time_check(s);
    } else {
        pac::I2C0
            .ic_data_cmd()
            .write(|w| w.set_dat(image.space[usize::from(register)]));
    }
    pac::I2C0.ic_clr_rd_req().read();
    s.reading = Some((register, 1));
}

/// TIME's board time now, counted on from the last publication: that is
/// at most a scan old, so one subtraction, not a division, on the way.
fn time_bytes(s: &mut Serving) {
    let mut ms = TIME_MS.load(Ordering::Relaxed);
    let mut elapsed = micros().wrapping_sub(TIME_US.load(Ordering::Relaxed));
    if elapsed >= 1000 {
        elapsed -= 1000;
        ms = ms.wrapping_add(1);
        if elapsed >= 1000 {
            ms = ms.wrapping_add(elapsed / 1000);
        }
    }
    s.time[..4].copy_from_slice(&ms.to_le_bytes());
}

/// TIME's tag and CRC.
fn time_check(s: &mut Serving) {
    s.time[4] = tag::TIME;
    s.time[5] = crc8(&s.time[..5]);
}

#[interrupt]
fn I2C0_IRQ() {
    let p = pac::I2C0;
    // SAFETY: this interrupt alone touches `SERVING` while it is enabled.
    let s = unsafe { &mut *SERVING.0.get() };
    let stat = p.ic_raw_intr_stat().read();
    // A flush of bytes a shorter read left: the FIFO is held in reset
    // until this is cleared, so first.
    if stat.tx_abrt() {
        p.ic_clr_tx_abrt().read();
    }
    // The hold the Pi sees: a read request with nothing new to drain is
    // answered before anything else is looked at.
    if stat.rd_req() {
        match s.reading {
            None if s.segment_len <= 1 && p.ic_rxflr().read().rxflr() == 0 => {
                let register = if s.segment_len > 0 {
                    s.segment[0]
                } else {
                    s.pointer
                };
                begin_read(s, register);
                s.segment_len = 0;
                s.overflow = false;
            }
            Some((register, at)) => {
                // The FIFO ran dry mid-read: the next byte first.
                // SAFETY: as in `begin_read`.
                let image = unsafe {
                    (*IMAGES.0.get()).get_unchecked(usize::from(HELD.load(Ordering::Relaxed)) % 3)
                };
                p.ic_data_cmd()
                    .write(|w| w.set_dat(answer(s, image, register, at)));
                p.ic_clr_rd_req().read();
                s.reading = Some((register, at + 1));
            }
            None => {}
        }
    }
    if OPEN_SINCE.load(Ordering::Relaxed) == 0 && (stat.rd_req() || stat.rx_full()) {
        OPEN_SINCE.store(micros().wrapping_add(1).max(1), Ordering::Relaxed);
    }
    // Written bytes, in order; a first data byte starts a new transaction.
    while p.ic_rxflr().read().rxflr() > 0 {
        let d = p.ic_data_cmd().read();
        if d.first_data_byte() {
            end_segment(s);
        }
        if s.segment_len < s.segment.len() {
            s.segment[s.segment_len] = d.dat();
            s.segment_len += 1;
        } else {
            s.overflow = true;
        }
    }
    if stat.restart_det() {
        p.ic_clr_restart_det().read();
        end_segment(s);
    }
    if stat.rd_req() || (s.reading.is_some() && stat.tx_empty()) {
        if stat.rd_req() {
            p.ic_clr_rd_req().read();
        }
        // SAFETY: the image a read holds, or CURRENT, is never written (see `Images`).
        let images = unsafe { &*IMAGES.0.get() };
        if s.reading.is_none() {
            end_segment(s);
            let register = s.pointer;
            begin_read(s, register);
        }
        let (register, at) = s.reading.unwrap_or((reg::STATUS, 0));
        let image = &images[usize::from(HELD.load(Ordering::Relaxed))];
        // The first byte at once: that is the hold the Pi sees.
        let mut at = at;
        let room = 16 - usize::from(p.ic_txflr().read().txflr());
        let left = total(s, image, register).saturating_sub(at);
        // Past the block, filler to the brim: a controller reading on gets
        // it without a hold, and what it leaves is flushed at the next read.
        let n = if left == 0 { room } else { left.min(room) };
        for _ in 0..n {
            p.ic_data_cmd()
                .write(|w| w.set_dat(answer(s, image, register, at)));
            at += 1;
        }
        s.reading = Some((register, at));
        // Refill from TX_EMPTY while the block lasts.
        let more = at < total(s, image, register);
        p.ic_intr_mask().modify(|w| w.set_m_tx_empty(more));
    }
    if stat.rx_done() {
        p.ic_clr_rx_done().read();
    }
    if stat.stop_det() {
        p.ic_clr_stop_det().read();
        end_segment(s);
        s.reading = None;
        s.pointer = reg::STATUS;
        p.ic_intr_mask().modify(|w| w.set_m_tx_empty(false));
        HELD.store(NONE, Ordering::Release);
        OPEN_SINCE.store(0, Ordering::Relaxed);
    }
}

/// The board's side of writes: applies each segment, republishes, sets the
/// interrupt line (through `with_board`); a SOFT_RESET resets the Pico (§ 7: within 10 ms).
#[interrupt]
fn SWI_IRQ_1() {
    loop {
        let tail = TAIL.load(Ordering::Relaxed);
        if tail == HEAD.load(Ordering::Acquire) {
            break;
        }
        // SAFETY: see `Writes`.
        let slot = unsafe { &(*WRITES.0.get())[usize::from(tail % 4)] };
        let len = usize::from(slot[0]);
        let mut bytes = [0u8; 17];
        bytes[..len.min(16)].copy_from_slice(&slot[1..1 + len.min(16)]);
        TAIL.store(tail.wrapping_add(1), Ordering::Release);
        let now = now_ms();
        let effect = crate::with_board(|b| {
            let e = b.write(now, &bytes[..len]);
            publish(b, now);
            e
        });
        // `with_board` has set the interrupt line already.
        if let Some(tocada_board::WriteEffect::SoftReset) = effect {
            cortex_m::peripheral::SCB::sys_reset();
        }
    }
}
