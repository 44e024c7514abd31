//! The DIY reed board: four MCP23017 16-bit expanders at 0x20–0x23 that the
//! Pi scans for occupancy (see `hardware/wiring.md`, "DIY reed board").
//!
//! Expander *k* holds ranks 2k+1 (port A) and 2k+2 (port B), bit n being the
//! file, so one sequential read of GPIOA/GPIOB gives bitboard bits
//! 16k … 16k+15 in order and the whole scan is four 2-byte reads.
//!
//! With IPOL set to 0xFF (as wiring.md prescribes) a 1 bit means "a magnet is
//! over the switch": every sensor variant pulls its pin low when occupied.

use core::fmt;

use embedded_hal::i2c::I2c;
use shakmaty::{Bitboard, Square};

use super::{BoardEvent, SensorBoard};
use crate::Input;

/// I2C address of the expander holding ranks 1 and 2; the others follow.
pub const BASE_ADDRESS: u8 = 0x20;

/// Number of expanders on the board.
pub const EXPANDERS: usize = 4;

/// GPIOA in the IOCON.BANK = 0 layout; GPIOB (0x13) follows it, so one
/// 2-byte read starting here gives both ports.
const GPIOA: u8 = 0x12;

/// IODIRA, the first register of the configuration block below.
const IODIRA: u8 = 0x00;

/// The registers 0x00–0x0D as the driver wants them, written and read back
/// as one block so that a configuration costs a single transfer per chip.
///
/// The board has no pull-ups of its own by default (wiring.md suggests
/// external 10 kΩ networks only for large boards), so the internal 100 kΩ
/// pull-ups are always enabled: harmless in parallel with external ones,
/// necessary without them.
const CONFIG: [u8; 14] = [
    0xFF, 0xFF, // IODIRA/B: every pin an input (also the power-on default)
    0xFF, 0xFF, // IPOLA/B: invert, so a closed switch (pin low) reads 1
    0x00, 0x00, // GPINTENA/B: no interrupts, the driver polls
    0x00, 0x00, // DEFVALA/B: unused without interrupts
    0x00, 0x00, // INTCONA/B: unused without interrupts
    0x00, 0x00, // IOCON (mapped at 0x0A and 0x0B): BANK = 0, sequential reads
    0xFF, 0xFF, // GPPUA/B: internal pull-ups on
];

/// How many accepted scans pass between two read-backs of every chip's
/// configuration: about once a second at the 10–20 ms scan period
/// wiring.md recommends. A brown-out that loses IPOL and GPPU is also caught
/// sooner, by the read-back done before reporting any change (see `poll`).
pub const VERIFY_EVERY: u32 = 64;

/// Mask with one bit per expander.
const ALL_CHIPS: u8 = (1 << EXPANDERS) - 1;

/// What went wrong while talking to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error<E> {
    /// A transfer to the expander at `address` failed. The driver stays
    /// usable: it re-checks every expander's configuration on the next poll.
    I2c {
        /// The 7-bit address of the expander.
        address: u8,
        /// The bus error.
        source: E,
    },
    /// No two consecutive scans agreed, so no occupancy could be trusted
    /// (only from [`SensorBoard::occupancy`] before the first stable scan).
    Unstable,
}

impl<E: fmt::Debug> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::I2c { address, source } => {
                write!(
                    f,
                    "I2C error talking to the MCP23017 at {address:#04x}: {source:?}"
                )
            }
            Error::Unstable => f.write_str("the reed board's scans never agreed twice in a row"),
        }
    }
}

impl<E: fmt::Debug> core::error::Error for Error<E> {}

/// Driver for the four-MCP23017 reed board.
///
/// Call [`init`](Self::init) once (or let the first [`poll`](SensorBoard::poll)
/// do it), then `poll` every 10–20 ms.
#[derive(Debug)]
pub struct Mcp23017Board<I2C> {
    i2c: I2C,
    /// Chips whose configuration must be written before the next scan.
    unconfigured: u8,
    /// Chips whose configuration must be read back before the next scan
    /// (after a bus error, and periodically).
    suspect: u8,
    /// The previous raw scan, for the two-scans-agree debounce; `None` when
    /// it cannot be trusted (after an error or a reconfiguration).
    last_scan: Option<Bitboard>,
    /// The occupancy the events so far add up to; `None` before the first
    /// stable scan, which sets the baseline without events.
    reported: Option<Bitboard>,
    scans_since_verify: u32,
    bus_errors: u64,
    unstable_scans: u64,
    reconfigurations: u64,
}

impl<I2C: I2c> Mcp23017Board<I2C> {
    /// Wraps the bus. No I/O happens until `init` or the first poll.
    pub fn new(i2c: I2C) -> Self {
        Mcp23017Board {
            i2c,
            unconfigured: ALL_CHIPS,
            suspect: 0,
            last_scan: None,
            reported: None,
            scans_since_verify: 0,
            bus_errors: 0,
            unstable_scans: 0,
            reconfigurations: 0,
        }
    }

    /// Gives the bus back.
    pub fn release(self) -> I2C {
        self.i2c
    }

    /// Configures all four expanders: all pins inputs, inverted, with
    /// pull-ups, no interrupts (one 15-byte write each).
    pub fn init(&mut self) -> Result<(), Error<I2C::Error>> {
        self.unconfigured = ALL_CHIPS;
        self.configure_pending()
    }

    /// Reads the four expanders once (one 2-byte read each), without
    /// debouncing: bit i set = a piece on square i.
    pub fn scan(&mut self) -> Result<Bitboard, Error<I2C::Error>> {
        let mut bits = 0u64;
        for chip in 0..EXPANDERS {
            let mut ports = [0u8; 2];
            let address = address_of(chip);
            self.i2c
                .write_read(address, &[GPIOA], &mut ports)
                .map_err(|source| self.bus_error(address, source))?;
            // GPIOA is the lower rank, GPIOB the upper: little-endian order
            // is exactly the bitboard's.
            bits |= u64::from(u16::from_le_bytes(ports)) << (16 * chip);
        }
        Ok(Bitboard(bits))
    }

    /// Bus errors seen since construction.
    pub fn bus_errors(&self) -> u64 {
        self.bus_errors
    }

    /// Polls whose scans disagreed (a bounce, a piece moving mid-scan, or
    /// corrupted data) and were therefore ignored.
    pub fn unstable_scans(&self) -> u64 {
        self.unstable_scans
    }

    /// Times an expander was found to have lost its configuration (reset or
    /// brown-out) and was configured again.
    pub fn reconfigurations(&self) -> u64 {
        self.reconfigurations
    }

    fn bus_error(&mut self, address: u8, source: I2C::Error) -> Error<I2C::Error> {
        // Whatever happened on the bus may have been a reset or a brown-out:
        // read every chip's configuration back before trusting a scan again.
        self.bus_errors += 1;
        self.suspect = ALL_CHIPS;
        self.last_scan = None;
        Error::I2c { address, source }
    }

    fn configure_pending(&mut self) -> Result<(), Error<I2C::Error>> {
        for chip in chips(self.unconfigured) {
            let address = address_of(chip);
            let mut frame = [0u8; 1 + CONFIG.len()];
            frame[0] = IODIRA;
            frame[1..].copy_from_slice(&CONFIG);
            self.i2c
                .write(address, &frame)
                .map_err(|source| self.bus_error(address, source))?;
            self.unconfigured &= !(1 << chip);
            self.suspect &= !(1 << chip);
        }
        Ok(())
    }

    /// Reads back the configuration of `mask`'s chips; those that differ
    /// are rewritten. Returns whether any had to be.
    fn verify(&mut self, mask: u8) -> Result<bool, Error<I2C::Error>> {
        let mut lost = false;
        for chip in chips(mask) {
            let address = address_of(chip);
            let mut regs = [0u8; CONFIG.len()];
            self.i2c
                .write_read(address, &[IODIRA], &mut regs)
                .map_err(|source| self.bus_error(address, source))?;
            if regs != CONFIG {
                self.unconfigured |= 1 << chip;
                self.reconfigurations += 1;
                lost = true;
            }
            self.suspect &= !(1 << chip);
        }
        self.configure_pending()?;
        if lost {
            // Scans taken with the lost configuration read inverted.
            self.last_scan = None;
        }
        Ok(lost)
    }

    /// A scan that two consecutive scans agree on, or `None` (counted as
    /// unstable) when they differ.
    ///
    /// The first scan is compared with the previous poll's; only when they
    /// differ is a confirming scan taken at once. A steady board thus costs
    /// one scan per poll, and a real change is reported in the poll that
    /// first sees it, one scan time (≈ 2 ms at 100 kHz) later, which is
    /// longer than a reed switch bounces.
    fn debounced_scan(&mut self) -> Result<Option<Bitboard>, Error<I2C::Error>> {
        let first = self.scan()?;
        if self.last_scan == Some(first) {
            return Ok(Some(first));
        }
        let second = self.scan()?;
        self.last_scan = Some(second);
        if second == first {
            Ok(Some(first))
        } else {
            self.unstable_scans += 1;
            Ok(None)
        }
    }
}

impl<I2C: I2c> SensorBoard for Mcp23017Board<I2C> {
    type Error = Error<I2C::Error>;

    /// Scans and appends a `Lift` for every square that emptied and a
    /// `Place(sq, None)` for every square that filled since the last report.
    ///
    /// Within one poll all lifts come before all places, and each group is in
    /// ascending square order. Changes seen together were simultaneous as far
    /// as the board can tell, and a hand has to pick a piece up before it can
    /// put one down, so lifts first is the only order that is always
    /// physically possible (a capture read in one scan becomes lift, lift,
    /// place rather than a place onto an occupied square). Ascending order
    /// makes the events a pure function of the two occupancies, so runs and
    /// replays are reproducible.
    ///
    /// Before reporting a change the expanders whose squares changed have
    /// their configuration read back: an expander that browned out reads its
    /// 16 squares inverted, and this keeps such a flip from ever being
    /// reported as 32 lifts and places. The chip is reconfigured instead and
    /// the change is discarded; the next poll sees the true board.
    fn poll_stamped(&mut self, out: &mut Vec<BoardEvent>) -> Result<(), Self::Error> {
        let mut inputs = Vec::new();
        let polled = self.poll(&mut inputs);
        // The expanders keep no time: a change dates from its reading.
        out.extend(inputs.into_iter().map(|input| BoardEvent {
            input,
            board_ms: None,
        }));
        polled
    }

    fn poll(&mut self, out: &mut Vec<Input>) -> Result<(), Self::Error> {
        self.configure_pending()?;
        if self.suspect != 0 {
            self.verify(self.suspect)?;
        }
        let Some(stable) = self.debounced_scan()? else {
            return Ok(());
        };
        self.scans_since_verify += 1;
        if self.scans_since_verify >= VERIFY_EVERY {
            self.scans_since_verify = 0;
            self.suspect = ALL_CHIPS;
        }
        let Some(reported) = self.reported else {
            self.reported = Some(stable);
            return Ok(());
        };
        let changed = stable ^ reported;
        if changed.is_empty() {
            return Ok(());
        }
        if self.verify(chips_of(changed))? {
            return Ok(());
        }
        out.extend((reported & !stable).into_iter().map(Input::Lift));
        out.extend(
            (stable & !reported)
                .into_iter()
                .map(|sq: Square| Input::Place(sq, None)),
        );
        self.reported = Some(stable);
        Ok(())
    }

    /// The occupancy the events reported so far add up to. Before the first
    /// stable scan it polls (up to three times) to get one.
    fn occupancy(&mut self) -> Result<Bitboard, Self::Error> {
        for _ in 0..3 {
            if let Some(reported) = self.reported {
                return Ok(reported);
            }
            // The first stable scan only sets the baseline: no events.
            self.poll(&mut Vec::new())?;
        }
        self.reported.ok_or(Error::Unstable)
    }
}

/// The I2C address of expander `chip` (0–3).
fn address_of(chip: usize) -> u8 {
    BASE_ADDRESS + chip as u8
}

/// The expanders (0–3) in a mask, ascending.
fn chips(mask: u8) -> impl Iterator<Item = usize> {
    (0..EXPANDERS).filter(move |chip| mask & (1 << chip) != 0)
}

/// The mask of expanders holding any square of `squares`.
fn chips_of(squares: Bitboard) -> u8 {
    (0..EXPANDERS)
        .filter(|chip| (squares.0 >> (16 * chip)) & 0xFFFF != 0)
        .fold(0, |mask, chip| mask | (1 << chip))
}

#[cfg(test)]
mod tests {
    use embedded_hal::i2c::ErrorKind;
    use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

    use super::*;

    /// The start position as the four chips read it: ranks 1, 2, 7, 8 full.
    const START: [[u8; 2]; 4] = [[0xFF, 0xFF], [0, 0], [0, 0], [0xFF, 0xFF]];

    fn configure(address: u8) -> Transaction {
        let mut frame = vec![IODIRA];
        frame.extend_from_slice(&CONFIG);
        Transaction::write(address, frame)
    }

    fn read_ports(address: u8, ports: [u8; 2]) -> Transaction {
        Transaction::write_read(address, vec![GPIOA], ports.to_vec())
    }

    fn read_back(address: u8, regs: [u8; 14]) -> Transaction {
        Transaction::write_read(address, vec![IODIRA], regs.to_vec())
    }

    fn scan_of(chips: [[u8; 2]; 4]) -> Vec<Transaction> {
        (0..4)
            .map(|k| read_ports(0x20 + k as u8, chips[k]))
            .collect()
    }

    #[test]
    fn init_writes_the_whole_configuration_block_to_each_chip() {
        let expectations: Vec<_> = (0x20..=0x23).map(configure).collect();
        // Exactly the register values wiring.md's table gives.
        assert_eq!(
            expectations[0],
            Transaction::write(
                0x20,
                vec![
                    0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF
                ]
            )
        );
        let mut board = Mcp23017Board::new(Mock::new(&expectations));
        board.init().unwrap();
        board.release().done();
    }

    #[test]
    fn scan_reads_gpioa_then_gpiob_of_each_chip_into_bitboard_order() {
        let mut chips = START;
        chips[0][1] = 0xEF; // e2 empty: U1 port B bit 4
        chips[1][1] = 0x10; // e4 occupied: U2 port B bit 4
        let mut board = Mcp23017Board::new(Mock::new(&scan_of(chips)));
        let scan = board.scan().unwrap();
        let expected = Bitboard(0xFFFF_0000_0000_FFFF)
            .without(Square::E2)
            .with(Square::E4);
        assert_eq!(scan, expected);
        board.release().done();
    }

    #[test]
    fn first_poll_configures_and_takes_a_baseline_then_changes_are_reported() {
        let mut expectations: Vec<_> = (0x20..=0x23).map(configure).collect();
        // Two scans agree: the baseline, no events.
        expectations.extend(scan_of(START));
        expectations.extend(scan_of(START));
        // e2 lifted and e4 placed: the first scan differs, a second confirms,
        // the two chips concerned are read back, then the events go out.
        let mut moved = START;
        moved[0][1] = 0xEF;
        moved[1][1] = 0x10;
        expectations.extend(scan_of(moved));
        expectations.extend(scan_of(moved));
        expectations.push(read_back(0x20, CONFIG));
        expectations.push(read_back(0x21, CONFIG));
        // Steady: one scan per poll.
        expectations.extend(scan_of(moved));

        let mut board = Mcp23017Board::new(Mock::new(&expectations));
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(board.occupancy().unwrap(), Bitboard(0xFFFF_0000_0000_FFFF));
        board.poll(&mut out).unwrap();
        assert_eq!(
            out,
            [Input::Lift(Square::E2), Input::Place(Square::E4, None)]
        );
        out.clear();
        board.poll(&mut out).unwrap();
        assert!(out.is_empty());
        board.release().done();
    }

    #[test]
    fn a_bus_error_mid_scan_is_reported_and_the_next_poll_rechecks_every_chip() {
        let mut expectations: Vec<_> = (0x20..=0x23).map(configure).collect();
        expectations.extend(scan_of(START));
        expectations.extend(scan_of(START));
        // Second poll: U2 fails after U1 answered.
        expectations.push(read_ports(0x20, START[0]));
        expectations.push(
            Transaction::write_read(0x21, vec![GPIOA], vec![0, 0]).with_error(ErrorKind::Other),
        );
        // Third poll: read back all four; U3 was reset (power-on values),
        // so it alone is rewritten; then two fresh scans.
        let mut reset = [0u8; 14];
        reset[0] = 0xFF;
        reset[1] = 0xFF;
        expectations.push(read_back(0x20, CONFIG));
        expectations.push(read_back(0x21, CONFIG));
        expectations.push(read_back(0x22, reset));
        expectations.push(read_back(0x23, CONFIG));
        expectations.push(configure(0x22));
        expectations.extend(scan_of(START));
        expectations.extend(scan_of(START));

        let mut board = Mcp23017Board::new(Mock::new(&expectations));
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        let error = board.poll(&mut out).unwrap_err();
        assert_eq!(
            error,
            Error::I2c {
                address: 0x21,
                source: ErrorKind::Other
            }
        );
        assert!(error.to_string().contains("0x21"));
        assert_eq!(board.bus_errors(), 1);
        board.poll(&mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(board.reconfigurations(), 1);
        assert_eq!(board.occupancy().unwrap(), Bitboard(0xFFFF_0000_0000_FFFF));
        board.release().done();
    }

    #[test]
    fn disagreeing_scans_report_nothing_and_are_counted() {
        let mut expectations: Vec<_> = (0x20..=0x23).map(configure).collect();
        let mut bounced = START;
        bounced[3][0] = 0xFE; // a7 reads empty once
        expectations.extend(scan_of(bounced));
        expectations.extend(scan_of(START));
        // Next poll: agrees with the confirming scan.
        expectations.extend(scan_of(START));
        let mut board = Mcp23017Board::new(Mock::new(&expectations));
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        assert_eq!(board.unstable_scans(), 1);
        board.poll(&mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(board.occupancy().unwrap(), Bitboard(0xFFFF_0000_0000_FFFF));
        board.release().done();
    }

    #[test]
    fn a_chip_that_reads_inverted_is_reconfigured_instead_of_reported() {
        let mut expectations: Vec<_> = (0x20..=0x23).map(configure).collect();
        expectations.extend(scan_of(START));
        expectations.extend(scan_of(START));
        // U4 browned out: IPOL is gone, so its full ranks read empty.
        let mut flipped = START;
        flipped[3] = [0, 0];
        expectations.extend(scan_of(flipped));
        expectations.extend(scan_of(flipped));
        let mut reset = [0u8; 14];
        reset[0] = 0xFF;
        reset[1] = 0xFF;
        expectations.push(read_back(0x23, reset));
        expectations.push(configure(0x23));
        let mut board = Mcp23017Board::new(Mock::new(&expectations));
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        board.poll(&mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(board.reconfigurations(), 1);
        board.release().done();
    }
}
