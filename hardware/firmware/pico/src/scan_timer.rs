//! The scan's 1 ms period, on the timer's ALARM1, whose interrupt only
//! wakes the core.
//!
//! Not embassy-time's `Ticker`: its timer queue is kept in a critical
//! section that masks every interrupt (the Cortex-M0+ has no
//! compare-and-swap), I2C0's included, while it walks the queue and sets
//! the alarm, and a read request that lands in it waits: over § 9.1's 2 µs
//! in the emulator (hardware/firmware/README.md, "What it found"). Here
//! nothing is shared with an interrupt but the alarm's own registers: the
//! thread arms ALARM1 and sleeps, the interrupt acknowledges and signals an
//! event; no critical section, no queue.

use embassy_rp::interrupt;
use embassy_rp::interrupt::InterruptExt;
use embassy_rp::pac;

/// ALARM1: ALARM0 is embassy-time's (unused now, but its driver owns it).
const ALARM: usize = 1;

/// A fixed-rate period on the timer's low word (µs, wrapping every 71 min).
pub struct ScanTimer {
    /// The timer's low word at the next period's start.
    next: u32,
    period_us: u32,
}

impl ScanTimer {
    /// Periods of `period_us` from now. Enables ALARM1's interrupt below
    /// I2C0's and the writes' priorities.
    pub fn every_us(period_us: u32) -> Self {
        pac::TIMER.inte().modify(|w| w.set_alarm(ALARM, true));
        interrupt::TIMER_IRQ_1.set_priority(interrupt::Priority::P2);
        // SAFETY: its handler is `TIMER_IRQ_1` below and touches only the
        // alarm's interrupt flag.
        unsafe { interrupt::TIMER_IRQ_1.enable() };
        ScanTimer {
            next: micros().wrapping_add(period_us),
            period_us,
        }
    }

    /// Sleeps until the next period starts. A period already begun (a scan
    /// that overran) returns at once, so the scan catches up at a fixed
    /// rate as embassy-time's `Ticker` does.
    pub fn wait(&mut self) {
        let due = self.next;
        self.next = due.wrapping_add(self.period_us);
        loop {
            // The alarm matches the low word exactly, so one set in the
            // past (a scan that overran, or an interrupt between the two
            // lines below) fires only at the wrap: the time is checked
            // after arming, the alarm only wakes the loop. An alarm gone
            // with the time not reached (rp2040js rounds its delay down and
            // fires up to 1 µs early) is set again.
            if pac::TIMER.armed().read().armed() & (1 << ALARM) == 0 {
                pac::TIMER.alarm(ALARM).write_value(due);
            }
            if reached(due) {
                break;
            }
            // Woken by any interrupt; ALARM1's also signals an event, so
            // an alarm taken between the check and here is not slept
            // through.
            cortex_m::asm::wfe();
        }
        pac::TIMER.armed().write(|w| w.set_armed(1 << ALARM));
        pac::TIMER.intr().write(|w| w.set_alarm(ALARM, true));
    }
}

/// The timer's low word: µs since reset, wrapping.
fn micros() -> u32 {
    pac::TIMER.timerawl().read()
}

/// Whether the low word has reached `due` (within half the wrap).
fn reached(due: u32) -> bool {
    micros().wrapping_sub(due) < 1 << 31
}

#[interrupt]
fn TIMER_IRQ_1() {
    pac::TIMER.intr().write(|w| w.set_alarm(ALARM, true));
    cortex_m::asm::sev();
}
