//! Optional contact sensing: two NXP MPR121 capacitive touch controllers on
//! the board's own I2C1 (never the Pi's bus), in a row/column layout: the
//! controller at 0x5A senses eight rank electrodes (1–8 on ELE0–7), the one
//! at 0x5B eight file electrodes (a–h on ELE0–7). A hand on the piece of a
//! square couples to its rank and its file.
//!
//! One rank and one file touched name one square. A hand on two pieces in
//! different ranks and files is ambiguous (four candidate squares): the
//! board then keeps only what it already reported among the candidates and
//! reports no new touch, since a false touch would bind the player under
//! touch-move. Experimental: tune the thresholds to the pieces.

use embassy_rp::Peri;
use embassy_rp::i2c::{self, Blocking, I2c};
use embassy_rp::peripherals::{I2C1, PIN_2, PIN_3};
use tocada_board::wiring::row_column_contact;

/// The controller of the rank electrodes (ADDR to GND).
const RANKS: u8 = 0x5A;
/// The controller of the file electrodes (ADDR to 3.3 V).
const FILES: u8 = 0x5B;

/// Registers of the MPR121 (datasheet, "Register map").
mod reg {
    pub const TOUCH_STATUS: u8 = 0x00;
    pub const MHD_RISING: u8 = 0x2B;
    pub const TOUCH_THRESHOLD_0: u8 = 0x41;
    pub const ECR: u8 = 0x5E;
    pub const SOFT_RESET: u8 = 0x80;
}

/// Touch and release thresholds (the datasheet's suggested 12 and 6).
const TOUCH: u8 = 12;
const RELEASE: u8 = 6;

/// The two controllers on I2C1, read by polling the block: the scan is the
/// only thing the thread does, and an async transfer would wake it through
/// a waker and an executor, each in a critical section that masks I2C0's
/// interrupt too.
pub struct Contact {
    i2c: I2c<'static, I2C1, Blocking>,
    last: u64,
}

impl Contact {
    /// I2C1 at 400 kHz on GP3 (SCL) and GP2 (SDA).
    pub fn new(
        i2c: Peri<'static, I2C1>,
        scl: Peri<'static, PIN_3>,
        sda: Peri<'static, PIN_2>,
    ) -> Self {
        let mut config = i2c::Config::default();
        config.frequency = 400_000;
        Contact {
            i2c: I2c::new_blocking(i2c, scl, sda, config),
            last: 0,
        }
    }

    /// Resets and starts both controllers; `false` if either does not
    /// answer (not fitted: no CAPS.CONTACT).
    pub fn init(&mut self) -> bool {
        [RANKS, FILES].iter().all(|&a| self.init_one(a).is_ok())
    }

    fn init_one(&mut self, addr: u8) -> Result<(), i2c::Error> {
        let i2c = &mut self.i2c;
        i2c.blocking_write(addr, &[reg::SOFT_RESET, 0x63])?;
        i2c.blocking_write(addr, &[reg::ECR, 0x00])?; // stop mode to configure
        // Baseline filtering, rising then falling (MHD, NHD, NCL, FDL).
        i2c.blocking_write(
            addr,
            &[
                reg::MHD_RISING,
                0x01,
                0x01,
                0x00,
                0x00,
                0x01,
                0x01,
                0xFF,
                0x02,
            ],
        )?;
        for e in 0..8u8 {
            i2c.blocking_write(addr, &[reg::TOUCH_THRESHOLD_0 + 2 * e, TOUCH, RELEASE])?;
        }
        // Run: baseline tracking seeded from the first reading, ELE0–7.
        i2c.blocking_write(addr, &[reg::ECR, 0x88])
    }

    fn status(&mut self, addr: u8) -> u8 {
        let mut s = [0u8; 2];
        match self
            .i2c
            .blocking_write_read(addr, &[reg::TOUCH_STATUS], &mut s)
        {
            Ok(()) => s[0],
            Err(_) => 0,
        }
    }

    /// The contact bitboard now (about 0.2 ms of bus time at 400 kHz).
    pub fn read(&mut self) -> u64 {
        let ranks = self.status(RANKS);
        let files = self.status(FILES);
        self.last = row_column_contact(ranks, files, self.last);
        self.last
    }
}
