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
mod sensors;
mod target;

use core::cell::{RefCell, UnsafeCell};

use cortex_m::peripheral::SCB;
use cortex_m::peripheral::scb::VectActive;
use embassy_executor::Executor;
use embassy_rp::gpio::{Input, Level, Output, OutputOpenDrain, Pull};
use embassy_rp::interrupt::InterruptExt;
use embassy_rp::peripherals::I2C1;
use embassy_rp::{bind_interrupts, i2c, interrupt};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{Duration, Instant, Ticker};
use static_cell::StaticCell;
use tocada_board::protocol::Capabilities;
use tocada_board::{Board, Config, DEBOUNCE_MS, Sample, address};

#[cfg(not(feature = "defmt"))]
use panic_halt as _;
#[cfg(feature = "defmt")]
use {defmt_rtt as _, panic_probe as _};

bind_interrupts!(struct Irqs {
    I2C1_IRQ => i2c::InterruptHandler<I2C1>;
});

/// Whole-board scans a second: the protocol asks for ≥ 500 Hz.
const SCAN_HZ: u64 = 1000;

/// Frames the FIFO holds (§ 4.1 recommends 32).
const FIFO_DEPTH: u8 = 32;

/// FW_VERSION in IDENT: 1.0.
const FIRMWARE: u16 = 0x0100;

/// The board's logic, shared by the scan (thread mode) and the writes'
/// interrupt (`SWI_IRQ_1`). The I2C target never touches it: it reads the
/// image the board publishes (`target::publish`), so no critical section
/// of the board's ever delays a read request.
struct BoardCell(UnsafeCell<Option<Board>>);

// SAFETY: `with_board` is the only access; see there.
unsafe impl Sync for BoardCell {}

static BOARD: BoardCell = BoardCell(UnsafeCell::new(None));

/// The interrupt line, driven from the core's state after every scan and
/// every write.
static INT: Mutex<CriticalSectionRawMutex, RefCell<Option<OutputOpenDrain<'static>>>> =
    Mutex::new(RefCell::new(None));

static SCAN_EXECUTOR: StaticCell<Executor> = StaticCell::new();

/// Board time: milliseconds since reset from the crystal-driven timer,
/// wrapping as TIME_MS does (§ 6.1).
pub fn now_ms() -> u32 {
    Instant::now().as_millis() as u32
}

/// Runs `f` on the board's logic, if it is up. From thread mode the
/// writes' interrupt is masked meanwhile (and only it: I2C0's stays live);
/// from that interrupt, the thread is not inside by construction.
pub fn with_board<R>(f: impl FnOnce(&mut Board) -> R) -> Option<R> {
    let thread = SCB::vect_active() == VectActive::ThreadMode;
    if thread {
        interrupt::SWI_IRQ_1.disable();
    }
    // SAFETY: the one other user, SWI_IRQ_1, is masked or is us.
    let r = unsafe { (*BOARD.0.get()).as_mut().map(f) };
    if thread {
        // SAFETY: its handler is `target::SWI_IRQ_1`.
        unsafe { interrupt::SWI_IRQ_1.enable() };
    }
    r
}

/// Sets the interrupt line from the core: pulled low while frames wait,
/// released (never driven high) otherwise (§ 8.2).
pub fn update_interrupt_line() {
    let asserted = with_board(|b| b.interrupt_asserted()).unwrap_or(false);
    INT.lock(|cell| {
        if let Some(pin) = cell.borrow_mut().as_mut() {
            if asserted {
                pin.set_low();
            } else {
                pin.set_high();
            }
        }
    });
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
    let mut touch = contact::Contact::new(p.I2C1, p.PIN_3, p.PIN_2, Irqs);
    let fitted = touch.init_blocking();

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
    let contact = if fitted { touch.read_blocking() } else { 0 };
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
    // SAFETY: no interrupt that uses the board is enabled yet.
    unsafe { *BOARD.0.get() = Some(board) };
    INT.lock(|cell| *cell.borrow_mut() = Some(OutputOpenDrain::new(p.PIN_21, Level::High)));
    update_interrupt_line();

    // Nothing may keep I2C0's interrupt waiting but a short critical
    // section: every other interrupt is below it.
    interrupt::TIMER_IRQ_0.set_priority(interrupt::Priority::P2);
    interrupt::I2C1_IRQ.set_priority(interrupt::Priority::P2);
    interrupt::IO_IRQ_BANK0.set_priority(interrupt::Priority::P2);
    target::start(p.I2C0, p.PIN_5, p.PIN_4, address);

    let executor = SCAN_EXECUTOR.init(Executor::new());
    executor.run(|spawner| {
        spawner.spawn(scan(chain, touch, fitted).expect("one scan task"));
    })
}

/// § 14 step 4: scan, debounce, events, the interrupt line; 1000 times a
/// second.
#[embassy_executor::task]
async fn scan(mut chain: sensors::ShiftChain, mut touch: contact::Contact, fitted: bool) {
    let mut ticker = Ticker::every(Duration::from_hz(SCAN_HZ));
    loop {
        let reading = chain.read();
        let contact = if fitted { touch.read().await } else { 0 };
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
        update_interrupt_line();
        ticker.next().await;
    }
}
