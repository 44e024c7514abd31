//! The I2C target the Pi reads (§§ 2, 9.1): every transaction is answered
//! from the core, a whole block copied out in one critical section, so a
//! read never mixes two states; writes are applied at their STOP or
//! repeated start.

use embassy_rp::Peri;
use embassy_rp::i2c_slave::{self, Command, I2cSlave};
use embassy_rp::peripherals::{I2C0, PIN_4, PIN_5};
use embassy_time::{Duration, with_timeout};
use tocada_board::WriteEffect;
use tocada_board::protocol::{FILLER, reg, size};

use crate::{now_ms, update_interrupt_line, with_board};

/// The longest read the board serves from its buffer: the whole FIFO; past
/// it the target sends filler.
const OUT: usize = crate::FIFO_DEPTH as usize * size::FRAME;

/// § 9.1 rule 4: a transaction that has not ended after this long resets
/// the target.
const STUCK: Duration = Duration::from_millis(25);

/// The I2C0 target at the strapped address.
pub struct Target {
    dev: I2cSlave<'static, I2C0>,
}

impl Target {
    /// I2C0 on GP5 (SCL) and GP4 (SDA), the Pi's pull-ups only; no general call.
    pub fn new(
        i2c: Peri<'static, I2C0>,
        scl: Peri<'static, PIN_5>,
        sda: Peri<'static, PIN_4>,
        irqs: crate::Irqs,
        address: u8,
    ) -> Self {
        let mut config = i2c_slave::Config::default();
        config.addr = u16::from(address);
        config.general_call = false;
        config.sda_pullup = false;
        config.scl_pullup = false;
        Target {
            dev: I2cSlave::new(i2c, scl, sda, irqs, config),
        }
    }
}

/// Serves the Pi forever.
#[embassy_executor::task]
pub async fn serve(mut target: Target) {
    // Longer than any write the protocol has (5 bytes): a longer one is
    // cut, and counted as the bad write it is.
    let mut written = [0u8; 16];
    let mut out = [FILLER; OUT];
    loop {
        let register = match target.dev.listen(&mut written).await {
            Ok(Command::Read) => reg::STATUS,
            Ok(Command::WriteRead(len)) => {
                write(&written[..len]);
                if len == 0 { reg::STATUS } else { written[0] }
            }
            Ok(Command::Write(len)) => {
                write(&written[..len]);
                continue;
            }
            Err(i2c_slave::Error::PartialWrite(_)) => {
                // Too long for any register: ignored and counted.
                write(&written);
                continue;
            }
            Ok(Command::GeneralCall(_)) | Err(_) => continue,
        };
        let n = with_board(|b| b.read(now_ms(), register, &mut out)).unwrap_or(0);
        // At least one byte to hand over; the rest of the read is filler.
        let answer = &out[..n.max(1)];
        if with_timeout(STUCK, target.dev.respond_and_fill(answer, FILLER))
            .await
            .is_err()
        {
            target.dev.reset();
        }
    }
}

/// A write segment ended: the core applies it; a SOFT_RESET resets the
/// Pico (§ 7: within 10 ms of the STOP).
fn write(bytes: &[u8]) {
    match with_board(|b| b.write(now_ms(), bytes)) {
        Some(WriteEffect::SoftReset) => cortex_m::peripheral::SCB::sys_reset(),
        Some(WriteEffect::None) | None => update_interrupt_line(),
    }
}
