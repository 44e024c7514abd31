//! Bus arithmetic: how long bytes hold the shared I2C bus, and a transparent
//! wrapper that counts what every device costs.
//!
//! The OLED and the sensor board share one bus, so every transfer to one
//! delays the other. [`transfer_time_us`] turns bytes into time with the
//! model of `hardware/sensor-board-protocol.md` § 9.2; [`BusMeter`] counts
//! bytes, conditions and transactions per device address around any
//! [`I2c`], independently of the device models' own counters.

use std::collections::BTreeMap;

use embedded_hal::i2c::{ErrorType, I2c, Operation, SevenBitAddress};

/// Clock periods one byte takes on the wire: eight data bits and the ACK.
pub const CLOCKS_PER_BYTE: u64 = 9;

/// Clock periods charged for each START or repeated START: about one for
/// the condition itself and one for what ends its segment (the STOP, or the
/// set-up of the next repeated START).
pub const CLOCKS_PER_START: u64 = 2;

/// How long `bytes` bytes sent in `starts` segments hold a bus clocked at
/// `hz`, in microseconds, rounded up.
///
/// The model: every byte (address bytes included) is 9 clocks with its ACK;
/// every START or repeated START costs 2 clocks with the STOP or
/// repeated-START set-up that closes its segment. A `write_read` is 2 starts,
/// a plain write or read 1. Clock stretching (the protocol forbids it) and
/// the host's software overhead between transactions (tens of µs on Linux)
/// are not counted: figures from this function are lower bounds.
///
/// ```
/// use tocada::hardware::bus::transfer_time_us;
/// // A bare STATUS poll: address + 3 bytes, one start.
/// assert_eq!(transfer_time_us(4, 1, 100_000), 380);
/// assert_eq!(transfer_time_us(4, 1, 400_000), 95);
/// ```
pub fn transfer_time_us(bytes: u64, starts: u64, hz: u32) -> u64 {
    let clocks = bytes * CLOCKS_PER_BYTE + starts * CLOCKS_PER_START;
    (clocks * 1_000_000).div_ceil(u64::from(hz.max(1)))
}

/// What one transaction put on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// The 7-bit device address.
    pub address: u8,
    /// Bytes on the wire: one address byte per start plus every byte
    /// written or read.
    pub bytes: u64,
    /// START and repeated START conditions.
    pub starts: u64,
}

impl Transfer {
    /// How long it holds the bus at `hz`, in µs (see [`transfer_time_us`]).
    pub fn time_us(&self, hz: u32) -> u64 {
        transfer_time_us(self.bytes, self.starts, hz)
    }

    /// What `operations` to `address` put on the wire. Adjacent operations
    /// of the same direction are one segment (embedded-hal merges them); a
    /// change of direction is a repeated START with its own address byte.
    pub fn of(address: u8, operations: &[Operation<'_>]) -> Transfer {
        let mut bytes = 0;
        let mut starts = 0;
        let mut last_read: Option<bool> = None;
        for op in operations {
            let (read, len) = match op {
                Operation::Read(buf) => (true, buf.len()),
                Operation::Write(buf) => (false, buf.len()),
            };
            if last_read != Some(read) {
                starts += 1;
                bytes += 1; // the address byte
                last_read = Some(read);
            }
            bytes += len as u64;
        }
        if starts == 0 {
            // An empty transaction still addresses the device.
            starts = 1;
            bytes = 1;
        }
        Transfer {
            address,
            bytes,
            starts,
        }
    }
}

/// Totals for one device address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Transactions attempted (refused ones included: they use the bus too).
    pub transactions: u64,
    /// Bytes on the wire, as [`Transfer::bytes`].
    pub bytes: u64,
    /// START and repeated START conditions.
    pub starts: u64,
    /// The largest single transaction, in bytes on the wire.
    pub largest: Option<Transfer>,
}

impl Totals {
    /// How long these transactions held the bus at `hz`, in µs.
    pub fn time_us(&self, hz: u32) -> u64 {
        transfer_time_us(self.bytes, self.starts, hz)
    }

    fn add(&mut self, t: Transfer) {
        self.transactions += 1;
        self.bytes += t.bytes;
        self.starts += t.starts;
        if self
            .largest
            .is_none_or(|l| t.time_us(100_000) > l.time_us(100_000))
        {
            self.largest = Some(t);
        }
    }
}

/// A transparent [`I2c`] wrapper that counts, per device address, what
/// passes through it, and keeps the transfers since the last
/// [`take_log`](Self::take_log) for simulations that advance a clock by bus
/// time.
#[derive(Debug, Clone, Default)]
pub struct BusMeter<I> {
    inner: I,
    totals: BTreeMap<u8, Totals>,
    log: Vec<Transfer>,
}

impl<I> BusMeter<I> {
    /// Wraps `inner`; every counter starts at zero.
    pub fn new(inner: I) -> Self {
        BusMeter {
            inner,
            totals: BTreeMap::new(),
            log: Vec::new(),
        }
    }

    /// The wrapped bus.
    pub fn inner(&self) -> &I {
        &self.inner
    }

    /// The wrapped bus, mutably (to move pieces on a model, inject faults).
    pub fn inner_mut(&mut self) -> &mut I {
        &mut self.inner
    }

    /// Totals for `address` (zero if it was never addressed).
    pub fn device(&self, address: u8) -> Totals {
        self.totals.get(&address).copied().unwrap_or_default()
    }

    /// Totals over every address (`largest` is the largest of all).
    pub fn total(&self) -> Totals {
        let mut all = Totals::default();
        for t in self.totals.values() {
            all.transactions += t.transactions;
            all.bytes += t.bytes;
            all.starts += t.starts;
            if let Some(l) = t.largest
                && all
                    .largest
                    .is_none_or(|a| l.time_us(100_000) > a.time_us(100_000))
            {
                all.largest = Some(l);
            }
        }
        all
    }

    /// The transfers since the last call, oldest first.
    pub fn take_log(&mut self) -> Vec<Transfer> {
        std::mem::take(&mut self.log)
    }

    /// Zeroes the counters and empties the log.
    pub fn reset(&mut self) {
        self.totals.clear();
        self.log.clear();
    }
}

impl<I: ErrorType> ErrorType for BusMeter<I> {
    type Error = I::Error;
}

impl<I: I2c> I2c<SevenBitAddress> for BusMeter<I> {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        let transfer = Transfer::of(address, operations);
        self.totals.entry(address).or_default().add(transfer);
        self.log.push(transfer);
        self.inner.transaction(address, operations)
    }
}

#[cfg(test)]
mod tests {
    use embedded_hal::i2c::{ErrorKind, NoAcknowledgeSource};

    use super::*;
    use crate::models::ssd1306::Ssd1306Model;

    #[test]
    fn the_protocol_docs_costs() {
        // § 9.2: bare STATUS read, write_read(0x20), one frame, eight frames.
        assert_eq!(transfer_time_us(1 + 3, 1, 100_000), 380);
        assert_eq!(transfer_time_us(1 + 1 + 1 + 3, 2, 100_000), 580);
        assert_eq!(transfer_time_us(1 + 1 + 1 + 10, 2, 100_000), 1_210);
        assert_eq!(transfer_time_us(1 + 1 + 1 + 80, 2, 100_000), 7_510);
        assert_eq!(transfer_time_us(1 + 1 + 1 + 80, 2, 400_000), 1_878);
    }

    #[test]
    fn a_full_oled_frame() {
        // The ssd1306 crate's full flush: two command writes (column and
        // page window, addr + 0x00 + 3 bytes each) and 64 data writes of
        // addr + 0x40 + 16 bytes: 1162 bytes in 66 transactions.
        let bytes = 2 * 5 + 64 * 18;
        assert_eq!(bytes, 1162);
        assert_eq!(transfer_time_us(bytes, 66, 100_000), 105_900);
        assert_eq!(transfer_time_us(bytes, 66, 400_000), 26_475);
        // One of its data writes, the longest it ever sends.
        assert_eq!(transfer_time_us(18, 1, 100_000), 1_640);
        assert_eq!(transfer_time_us(18, 1, 400_000), 410);
    }

    #[test]
    fn rounds_up_and_survives_zero() {
        assert_eq!(transfer_time_us(0, 0, 100_000), 0);
        assert_eq!(transfer_time_us(1, 0, 1_000_000), 9);
        assert_eq!(transfer_time_us(1, 0, 7), 1_285_715);
        assert_eq!(transfer_time_us(1, 1, 0), 11_000_000);
    }

    #[test]
    fn transfers_count_address_bytes_per_segment() {
        let mut buf = [0u8; 3];
        let t = Transfer::of(
            0x42,
            &[
                Operation::Write(&[0x20]),
                Operation::Write(&[1, 2]),
                Operation::Read(&mut buf),
            ],
        );
        assert_eq!((t.bytes, t.starts), (1 + 3 + 1 + 3, 2));
        assert_eq!(Transfer::of(0x42, &[]).bytes, 1);
    }

    #[test]
    fn the_meter_is_transparent_and_counts_per_address() {
        let mut bus = BusMeter::new(Ssd1306Model::new());
        bus.write(0x3C, &[0x00, 0xAF]).unwrap();
        bus.write(0x3C, &[0x40, 1, 2, 3]).unwrap();
        let mut status = [0u8];
        bus.write_read(0x3C, &[0x00], &mut status).unwrap();
        // The model saw the same traffic.
        assert_eq!(bus.inner().data_bytes(), 3);
        assert_eq!(bus.inner().bytes_transferred(), 3 + 5 + 4);
        // A refused address still costs its address byte.
        assert_eq!(
            bus.write(0x42, &[0x20]),
            Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address))
        );
        let oled = bus.device(0x3C);
        assert_eq!(
            (oled.transactions, oled.bytes, oled.starts),
            (3, 3 + 5 + 4, 4)
        );
        assert_eq!(oled.largest.map(|t| t.bytes), Some(5));
        assert_eq!(bus.device(0x42).bytes, 2);
        assert_eq!(bus.total().bytes, 14);
        assert_eq!(bus.take_log().len(), 4);
        assert!(bus.take_log().is_empty());
        bus.reset();
        assert_eq!(bus.total(), Totals::default());
    }
}
