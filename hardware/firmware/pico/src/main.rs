//! The reference firmware of tocada's protocol-v1 sensor board on a
//! Raspberry Pi Pico (RP2040), on embassy.
//!
//! Everything the protocol says is the core's (`tocada-board`, shared with
//! tocada's desktop model of the board); this crate is only the hardware
//! around it:
//!
//! - [`sensors`]: the 64 occupancy sensors through eight 74HC165 shift
//!   registers on SPI0, the whole board read 1000 times a second, with a
//!   self-check of the chain;
//! - [`contact`]: optional MPR121 touch controllers on the board's own I2C1
//!   (CAPS.CONTACT only when both answer at boot);
//! - [`target`]: the I2C target on I2C0 that the Pi reads, served from
//!   its interrupt at the highest priority out of an image the core
//!   publishes after every change;
//! - [`scan_timer`]: the scan's 1 ms period on a timer alarm of its own,
//!   so that no timer queue's critical section ever delays I2C0;
//! - [`boot_count`]: BOOT_COUNT in the last sector of flash, and the
//!   serial from the flash chip's unique ID;
//! - the interrupt line (open-drain, low while frames wait) and the address
//!   strap, read once at reset.
//!
//! The pins are in `hardware/firmware/README.md`.

#![no_std]
#![no_main]

mod boot_count;
mod contact;
mod scan_timer;
mod sensors;
mod target;

use core::cell::UnsafeCell;

use cortex_m::peripheral::SCB;
use cortex_m::peripheral::scb::VectActive;
use embassy_rp::gpio::{Input, Level, Output, OutputOpenDrain, Pull};
use embassy_rp::interrupt;
use embassy_rp::interrupt::InterruptExt;
use embassy_time::Instant;
use tocada_board::protocol::Capabilities;
use tocada_board::{Board, Config, DEBOUNCE_MS, Sample, address};

#[cfg(not(feature = "defmt"))]
use panic_halt as _;
#[cfg(feature = "defmt")]
use {defmt_rtt as _, panic_probe as _};

/// Whole-board scans a second: the protocol asks for ≥ 500 Hz.
const SCAN_HZ: u32 = 1000;

/// Frames the FIFO holds (§ 4.1 recommends 32).
const FIFO_DEPTH: u8 = 32;

/// FW_VERSION in IDENT: 1.0.
const FIRMWARE: u16 = 0x0100;

/// The board's logic and the interrupt line it drives, shared by the scan
/// (thread mode) and the writes' interrupt (`SWI_IRQ_1`). The I2C target
/// never touches it: it reads the image the board publishes
/// (`target::publish`), so no critical section of the board's ever delays
/// a read request.
struct BoardCell(UnsafeCell<Option<BoardSide>>);

struct BoardSide {
    board: Board,
    /// The interrupt line (open-drain, GP21).
    line: OutputOpenDrain<'static>,
}

// SAFETY: `with_board` is the only access; see there.
unsafe impl Sync for BoardCell {}

static BOARD: BoardCell = BoardCell(UnsafeCell::new(None));

/// Board time: milliseconds since reset from the crystal-driven timer,
/// wrapping as TIME_MS does (§ 6.1).
pub fn now_ms() -> u32 {
    Instant::now().as_millis() as u32
}

/// Runs `f` on the board's logic, if it is up, then sets the interrupt
/// line from it: pulled low while frames wait, released (never driven
/// high) otherwise (§ 8.2). From thread mode the writes' interrupt is
/// masked meanwhile (and only it: I2C0's stays live), so the line always
/// shows the state it was set from; from that interrupt, the thread is not
/// inside by construction. The pin's output-enable is set or cleared by an
/// atomic register of the SIO: no critical section.
pub fn with_board<R>(f: impl FnOnce(&mut Board) -> R) -> Option<R> {
    let thread = SCB::vect_active() == VectActive::ThreadMode;
    if thread {
        interrupt::SWI_IRQ_1.disable();
    }
    // SAFETY: the one other user, SWI_IRQ_1, is masked or is us.
    let r = unsafe { (*BOARD.0.get()).as_mut() }.map(|side| {
        let r = f(&mut side.board);
        if side.board.interrupt_asserted() {
            side.line.set_low();
        } else {
            side.line.set_high();
        }
        r
    });
    if thread {
        // SAFETY: its handler is `target::SWI_IRQ_1`.
        unsafe { interrupt::SWI_IRQ_1.enable() };
    }
    r
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let p = embassy_rp::init(Default::default());

    // § 14 step 1: the strap, read once. Closed to GND selects 0x43.
    let strap = Input::new(p.PIN_22, Pull::Up);
    cortex_m::asm::delay(1_000); // let the pull-up settle
    let address = address(strap.is_low());

    // § 14 step 2: serial and BOOT_COUNT, before any task runs (flash
    // writes stall execution from flash).
    let (serial, boot_count) = boot_count::serial_and_next_boot_count(p.FLASH);

    let mut chain = sensors::ShiftChain::new(
        p.SPI0,
        p.PIN_18,
        p.PIN_16,
        Output::new(p.PIN_17, Level::High),
    );
    let mut touch = contact::Contact::new(p.I2C1, p.PIN_3, p.PIN_2);
    let fitted = touch.init();

    let caps = Capabilities {
        occupancy: true,
        contact: fitted,
        identity: false,
        int_line: true,
        fast_mode: false,
    };
    let config = Config {
        serial,
        caps,
        fifo_depth: FIFO_DEPTH,
        firmware: FIRMWARE,
        boot_count,
        debounce_ms: DEBOUNCE_MS,
    };
    // § 14 step 3: one scan, the BOOT frame, the boot snapshot, FRESH.
    let first = chain.read();
    let contact = if fitted { touch.read() } else { 0 };
    let mut board = Board::new(
        config,
        now_ms(),
        Sample {
            occupancy: first.occupancy,
            contact,
            pieces: None,
        },
    );
    board.sensor_check(!first.chain_ok);
    target::publish(&board, now_ms());
    let line = OutputOpenDrain::new(p.PIN_21, Level::High);
    // SAFETY: no interrupt that uses the board is enabled yet.
    unsafe { *BOARD.0.get() = Some(BoardSide { board, line }) };
    with_board(|_| ());

    // Nothing may keep I2C0's interrupt waiting but a short critical
    // section: every other interrupt is below it. (embassy-time's alarm,
    // TIMER_IRQ_0, never fires: nothing waits on embassy-time.)
    interrupt::TIMER_IRQ_0.set_priority(interrupt::Priority::P2);
    interrupt::IO_IRQ_BANK0.set_priority(interrupt::Priority::P2);
    target::start(p.I2C0, p.PIN_5, p.PIN_4, address);

    scan(chain, touch, fitted)
}

/// § 14 step 4: scan, debounce, events, the interrupt line; 1000 times a
/// second, in thread mode, the lowest priority: the only task, so no
/// executor (and no waker's critical section) between the timer and it.
fn scan(mut chain: sensors::ShiftChain, mut touch: contact::Contact, fitted: bool) -> ! {
    let mut period = scan_timer::ScanTimer::every_us(1_000_000 / SCAN_HZ);
    loop {
        let reading = chain.read();
        let contact = if fitted { touch.read() } else { 0 };
        let now = now_ms();
        with_board(|b| {
            b.sensor_check(!reading.chain_ok);
            b.scan(
                now,
                Sample {
                    occupancy: reading.occupancy,
                    contact,
                    pieces: None,
                },
            );
            target::publish(b, now);
        });
        target::check_stuck();
        period.wait();
    }
}
