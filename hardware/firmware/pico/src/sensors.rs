//! The 64 occupancy sensors through eight 74HC165 parallel-in shift
//! registers in a daisy chain, read on SPI0 (clock and MISO only).
//!
//! Chip *k* (k = 0 nearest the Pico) holds rank *k + 1*, its inputs A–H the
//! files a–h. A magnet closes a reed switch (or turns a Hall switch on) and
//! pulls its input low against the 10 kΩ pull-up: low = occupied. The last
//! chip's serial input SER is tied to 3.3 V, so the ninth byte clocked out
//! is all ones on a whole chain: anything else is a broken chain, a stuck
//! clock or data line, which the board reports as SENSOR_FAULT.

use embassy_rp::Peri;
use embassy_rp::gpio::Output;
use embassy_rp::peripherals::{PIN_16, PIN_18, SPI0};
use embassy_rp::spi::{self, Blocking, Spi};

/// One read of the chain.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// Bit *i*: a piece on square *i*.
    pub occupancy: u64,
    /// Whether the chain passed its self-check.
    pub chain_ok: bool,
}

/// The chain of shift registers.
pub struct ShiftChain {
    spi: Spi<'static, SPI0, Blocking>,
    /// SH/LD (active low): loads the 64 inputs into the registers.
    load: Output<'static>,
}

impl ShiftChain {
    /// SPI0 at 1 MHz, mode 0: the 74HC165 shifts on the rising edge, after
    /// the SPI has sampled the bit already on QH (72 bits take 72 µs).
    pub fn new(
        spi: Peri<'static, SPI0>,
        clk: Peri<'static, PIN_18>,
        miso: Peri<'static, PIN_16>,
        load: Output<'static>,
    ) -> Self {
        let mut config = spi::Config::default();
        config.frequency = 1_000_000;
        config.phase = spi::Phase::CaptureOnFirstTransition;
        config.polarity = spi::Polarity::IdleLow;
        ShiftChain {
            spi: Spi::new_blocking_rxonly(spi, clk, miso, config),
            load,
        }
    }

    /// Latches the 64 inputs and clocks them out, with the check byte.
    pub fn read(&mut self) -> Reading {
        self.load.set_low();
        // t_w(SH/LD) is 20 ns at 4.5 V, ≈ 100 ns at 2 V: 32 cycles at 125 MHz.
        cortex_m::asm::delay(32);
        self.load.set_high();
        let mut bytes = [0u8; 9];
        let ok = self.spi.blocking_read(&mut bytes).is_ok();
        decode(&bytes, ok)
    }
}

/// The chain's nine bytes, first clocked out first, as the core maps them.
fn decode(bytes: &[u8; 9], transfer_ok: bool) -> Reading {
    let (occupancy, whole) = tocada_board::wiring::shift_chain(bytes);
    Reading {
        occupancy,
        chain_ok: transfer_ok && whole,
    }
}
