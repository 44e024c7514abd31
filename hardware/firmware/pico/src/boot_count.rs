//! The serial (the flash chip's 64-bit unique ID, § 4.1) and BOOT_COUNT, a
//! counter in the last 4 KiB sector of flash (memory.x keeps the program
//! out of it), incremented at every boot. One erase per boot: the flash's
//! 100 000 cycles last a club clock for centuries.

use embassy_rp::Peri;
use embassy_rp::flash::{Blocking, Flash};
use embassy_rp::peripherals::FLASH;

/// The Pico's flash: 2 MiB.
const FLASH_SIZE: usize = 2 * 1024 * 1024;
/// The sector that holds the counter.
const COUNTER: u32 = (FLASH_SIZE - 4096) as u32;

/// Reads the serial, then increments and stores BOOT_COUNT and returns both.
/// A flash that cannot be written still gives a BOOT_COUNT that differs
/// from the last boot's often enough to be noticed: the timer's low bits.
pub fn serial_and_next_boot_count(flash: Peri<'static, FLASH>) -> (u64, u32) {
    let mut flash = Flash::<_, Blocking, FLASH_SIZE>::new_blocking(flash);
    let mut id = [0u8; 8];
    let serial = match flash.blocking_unique_id(&mut id) {
        Ok(()) => u64::from_le_bytes(id),
        Err(_) => 0,
    };
    // 0 and all ones are invalid serials (§ 4.1).
    let serial = match serial {
        0 | u64::MAX => 0x7000_0000_0000_0001,
        s => s,
    };
    let mut stored = [0u8; 4];
    let previous = match flash.blocking_read(COUNTER, &mut stored) {
        Ok(()) => match u32::from_le_bytes(stored) {
            u32::MAX => 0, // erased: the first boot
            n => n,
        },
        Err(_) => 0,
    };
    let next = previous.wrapping_add(1);
    let written = flash
        .blocking_erase(COUNTER, COUNTER + 4096)
        .and_then(|()| flash.blocking_write(COUNTER, &next.to_le_bytes()));
    match written {
        Ok(()) => (serial, next),
        Err(_) => (serial, next ^ (crate::now_ms() << 16)),
    }
}
