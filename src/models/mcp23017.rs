//! A model of the DIY reed board: four MCP23017 expanders behind one bus,
//! with a reed switch from each of their 64 pins to ground.
//!
//! [`Mcp23017Model`] is one expander's register file in the IOCON.BANK = 0
//! layout; [`ReedBoardModel`] puts four of them at 0x20–0x23, answers the bus
//! side of [`embedded_hal::i2c::I2c`], lets [`Hands`] open and close the
//! switches, and injects the faults a real board has: NACKs, a pulled cable,
//! an expander reset, a bouncing switch.

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation};
use shakmaty::{Bitboard, Board, Piece, Square};

use super::Hands;
use crate::Millis;

/// IODIRA; IODIRB is the next register, as for every A/B pair in BANK = 0.
const IODIR: u8 = 0x00;
/// IPOLA: input polarity, a 1 bit inverts what GPIO reads for that pin.
const IPOL: u8 = 0x02;
/// IOCON, mapped at both 0x0A and 0x0B.
const IOCON: u8 = 0x0A;
/// GPPUA: pull-up enables.
const GPPU: u8 = 0x0C;
/// INTFA, first of the read-only interrupt registers (INTF, INTCAP).
const INTF: u8 = 0x0E;
/// GPIOA: reads the pins, writes go to the output latch.
const GPIO: u8 = 0x12;
/// OLATA: the output latch.
const OLAT: u8 = 0x14;
/// Number of registers in the BANK = 0 map (0x00–0x15).
const REGISTERS: usize = 0x16;
/// IOCON.SEQOP: when set the address pointer does not run on; in BANK = 0
/// it toggles between the A and B register of a pair.
const SEQOP: u8 = 1 << 5;

/// One MCP23017 as seen from the bus, with what drives its 16 pins.
///
/// Pins are numbered 0–15: GPA0–7 then GPB0–7. Modelled: IODIR, IPOL, GPPU,
/// GPIO, OLAT, IOCON.SEQOP and the sequential address pointer; GPINTEN,
/// DEFVAL and INTCON are stored but raise no interrupts, and IOCON.BANK = 1
/// is stored but the map stays the BANK = 0 one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mcp23017Model {
    regs: [u8; REGISTERS],
    /// The register the next byte goes to or comes from.
    pointer: u8,
    /// Pins pulled to ground from outside (closed switches).
    grounded: u16,
    /// Pins whose next read returns the opposite level, once.
    bounce: u16,
}

impl Default for Mcp23017Model {
    fn default() -> Self {
        Self::new()
    }
}

impl Mcp23017Model {
    /// An expander just powered up, with every switch open.
    pub fn new() -> Self {
        let mut regs = [0u8; REGISTERS];
        // Power-on: all pins inputs, everything else zero (no pull-ups,
        // no inversion).
        regs[usize::from(IODIR)] = 0xFF;
        regs[usize::from(IODIR) + 1] = 0xFF;
        Mcp23017Model {
            regs,
            pointer: 0,
            grounded: 0,
            bounce: 0,
        }
    }

    /// Back to the power-on register values, as after a reset pulse or a
    /// brown-out. The switches stay as they are.
    pub fn power_cycle(&mut self) {
        let switches = self.grounded;
        *self = Self::new();
        self.grounded = switches;
    }

    /// Closes (`true`) or opens the switch from `pin` (0–15) to ground.
    pub fn set_grounded(&mut self, pin: u8, grounded: bool) {
        let bit = 1u16 << pin;
        if grounded {
            self.grounded |= bit;
        } else {
            self.grounded &= !bit;
        }
    }

    /// The pins pulled to ground from outside.
    pub fn grounded(&self) -> u16 {
        self.grounded
    }

    /// The next read of `pin` returns the opposite of its level, once.
    pub fn bounce(&mut self, pin: u8) {
        self.bounce |= 1 << pin;
    }

    /// A register's value, without the side effects of a bus read.
    pub fn register(&self, address: u8) -> u8 {
        let address = self.canonical(address);
        if address == GPIO || address == GPIO + 1 {
            let port = address - GPIO;
            self.port_value(port, self.pin_levels())
        } else {
            self.regs[usize::from(address)]
        }
    }

    /// The level on each pin: an output drives its latch; an input is low
    /// when its switch is closed and high otherwise, whether pulled up or
    /// floating (a floating CMOS input usually drifts high on this board).
    pub fn pin_levels(&self) -> u16 {
        let outputs = !self.pair(IODIR);
        let latch = self.pair(OLAT);
        (latch & outputs) | (!self.grounded & !outputs)
    }

    /// Whether `pin`'s pull-up is enabled.
    pub fn pulled_up(&self, pin: u8) -> bool {
        self.pair(GPPU) & (1 << pin) != 0
    }

    /// Carries out one I2C transaction addressed to this chip. In a write
    /// the first byte after a start sets the address pointer and the rest
    /// are written from there; reads continue from the pointer.
    pub fn transfer(&mut self, operations: &mut [Operation<'_>]) {
        let mut after_start = true;
        for op in operations {
            match op {
                Operation::Write(bytes) => {
                    for &byte in bytes.iter() {
                        if after_start {
                            self.pointer = byte % REGISTERS as u8;
                            after_start = false;
                        } else {
                            self.write_register(self.pointer, byte);
                            self.advance();
                        }
                    }
                }
                Operation::Read(buffer) => {
                    for byte in buffer.iter_mut() {
                        *byte = self.read_register(self.pointer);
                        self.advance();
                    }
                    // A write after a read needs a repeated start, whose
                    // first byte is a register address again.
                    after_start = true;
                }
            }
        }
    }

    fn pair(&self, a: u8) -> u16 {
        u16::from_le_bytes([self.regs[usize::from(a)], self.regs[usize::from(a) + 1]])
    }

    /// IOCON lives at 0x0A and 0x0B; everything else at its own address.
    fn canonical(&self, address: u8) -> u8 {
        if address == IOCON + 1 { IOCON } else { address }
    }

    /// What GPIO of `port` (0 = A, 1 = B) reads for the given pin levels:
    /// IPOL inverts inputs only.
    fn port_value(&self, port: u8, levels: u16) -> u8 {
        let inverted = self.pair(IPOL) & self.pair(IODIR);
        ((levels ^ inverted) >> (8 * port)) as u8
    }

    fn read_register(&mut self, address: u8) -> u8 {
        let address = self.canonical(address);
        if address == GPIO || address == GPIO + 1 {
            let port = address - GPIO;
            let mask = 0xFFu16 << (8 * port);
            let levels = self.pin_levels() ^ (self.bounce & self.pair(IODIR) & mask);
            self.bounce &= !mask;
            self.port_value(port, levels)
        } else {
            self.regs[usize::from(address)]
        }
    }

    fn write_register(&mut self, address: u8, value: u8) {
        match self.canonical(address) {
            // Bit 0 of IOCON is unimplemented and reads 0.
            IOCON => {
                self.regs[usize::from(IOCON)] = value & 0xFE;
                self.regs[usize::from(IOCON) + 1] = value & 0xFE;
            }
            // INTF and INTCAP are read-only.
            a if (INTF..GPIO).contains(&a) => {}
            // Writing GPIO writes the output latch.
            a if a == GPIO || a == GPIO + 1 => {
                self.regs[usize::from(a - GPIO + OLAT)] = value;
            }
            a => self.regs[usize::from(a)] = value,
        }
    }

    fn advance(&mut self) {
        self.pointer = if self.regs[usize::from(IOCON)] & SEQOP != 0 {
            self.pointer ^ 1
        } else {
            (self.pointer + 1) % REGISTERS as u8
        };
    }
}

/// The DIY reed board: four expanders at 0x20–0x23 on one bus, a reed switch
/// under every square (square i on expander i / 16, pin i mod 16, as in
/// `hardware/wiring.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReedBoardModel {
    expanders: [Mcp23017Model; 4],
    nacks_pending: u32,
    unplugged: bool,
    bytes: u64,
}

/// The address of the first expander.
const BASE_ADDRESS: u8 = 0x20;

impl ReedBoardModel {
    /// A freshly powered board with a piece on every occupied square of
    /// `board`.
    pub fn new(board: &Board) -> Self {
        Self::from_occupancy(board.occupied())
    }

    /// A freshly powered board with pieces on `occupied`.
    pub fn from_occupancy(occupied: Bitboard) -> Self {
        let mut model = ReedBoardModel {
            expanders: Default::default(),
            nacks_pending: 0,
            unplugged: false,
            bytes: 0,
        };
        for sq in occupied {
            model.set_switch(sq, true);
        }
        model
    }

    /// The squares whose switches are closed: the truth the driver should
    /// converge to.
    pub fn occupancy(&self) -> Bitboard {
        let bits = self
            .expanders
            .iter()
            .enumerate()
            .fold(0u64, |bits, (k, chip)| {
                bits | u64::from(chip.grounded()) << (16 * k)
            });
        Bitboard(bits)
    }

    /// Expander `k` (0–3, at 0x20 + k).
    pub fn expander(&self, k: usize) -> &Mcp23017Model {
        &self.expanders[k]
    }

    /// The next `n` transactions are not acknowledged.
    pub fn nack_next(&mut self, n: u32) {
        self.nacks_pending = n;
    }

    /// Pulls the cable: nothing answers until [`plug`](Self::plug).
    pub fn unplug(&mut self) {
        self.unplugged = true;
    }

    /// Plugs the cable back in. The cable carries the board's power, so the
    /// expanders come back with their power-on registers.
    pub fn plug(&mut self) {
        if self.unplugged {
            self.unplugged = false;
            self.expanders
                .iter_mut()
                .for_each(Mcp23017Model::power_cycle);
        }
    }

    /// Resets expander `k` (0–3) to its power-on registers: pull-ups and
    /// inversion off, as after a brown-out.
    pub fn power_cycle(&mut self, k: usize) {
        self.expanders[k].power_cycle();
    }

    /// The next read of `sq`'s switch returns the opposite level, once.
    pub fn bounce(&mut self, sq: Square) {
        let (k, pin) = locate(sq);
        self.expanders[k].bounce(pin);
    }

    /// Bytes put on the bus so far, address bytes included (ACK bits and
    /// start/stop conditions are not counted).
    pub fn bytes_transferred(&self) -> u64 {
        self.bytes
    }

    fn set_switch(&mut self, sq: Square, closed: bool) {
        let (k, pin) = locate(sq);
        self.expanders[k].set_grounded(pin, closed);
    }
}

/// Expander index and pin of a square.
fn locate(sq: Square) -> (usize, u8) {
    let i = u32::from(sq);
    ((i / 16) as usize, (i % 16) as u8)
}

impl ErrorType for ReedBoardModel {
    type Error = ErrorKind;
}

impl I2c for ReedBoardModel {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        // The address byte goes out whether or not anyone answers it.
        self.bytes += 1;
        let nack = ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address);
        if self.unplugged {
            return Err(nack);
        }
        if self.nacks_pending > 0 {
            self.nacks_pending -= 1;
            return Err(nack);
        }
        let Some(chip) = address
            .checked_sub(BASE_ADDRESS)
            .map(usize::from)
            .and_then(|k| self.expanders.get_mut(k))
        else {
            return Err(nack);
        };
        // A repeated start (and its address byte) precedes every change of
        // direction; adjacent operations of one kind are merged.
        let mut previous_was_read = None;
        for op in operations.iter() {
            let is_read = matches!(op, Operation::Read(_));
            if previous_was_read.is_some_and(|was| was != is_read) {
                self.bytes += 1;
            }
            previous_was_read = Some(is_read);
            self.bytes += match op {
                Operation::Read(buffer) => buffer.len() as u64,
                Operation::Write(bytes) => bytes.len() as u64,
            };
        }
        chip.transfer(operations);
        Ok(())
    }
}

impl Hands for ReedBoardModel {
    fn lift(&mut self, _at: Millis, sq: Square) {
        self.set_switch(sq, false);
    }

    fn place(&mut self, _at: Millis, sq: Square, _piece: Piece) {
        self.set_switch(sq, true);
    }

    /// Reed switches feel magnets, not hands.
    fn touch(&mut self, _at: Millis, _sq: Square) {}

    /// Reed switches feel magnets, not hands.
    fn untouch(&mut self, _at: Millis, _sq: Square) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(model: &mut ReedBoardModel, address: u8, bytes: &[u8]) -> Result<(), ErrorKind> {
        model.write(address, bytes)
    }

    fn read<const N: usize>(model: &mut ReedBoardModel, address: u8, register: u8) -> [u8; N] {
        let mut buffer = [0u8; N];
        model.write_read(address, &[register], &mut buffer).unwrap();
        buffer
    }

    #[test]
    fn power_on_registers_and_floating_inputs() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::from_square(Square::B1));
        assert_eq!(read::<4>(&mut model, 0x20, IODIR), [0xFF, 0xFF, 0, 0]);
        // No pull-ups, no inversion: open switches float high, b1 reads low.
        assert_eq!(read::<2>(&mut model, 0x20, GPIO), [0xFD, 0xFF]);
        assert!(!model.expander(0).pulled_up(1));
    }

    #[test]
    fn sequential_writes_run_on_and_ipol_inverts_inputs() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::from_square(Square::A2));
        write(&mut model, 0x20, &[IPOL, 0xFF, 0xFF]).unwrap();
        write(&mut model, 0x20, &[GPPU, 0xFF, 0xFF]).unwrap();
        assert!(model.expander(0).pulled_up(15));
        // GPIOA, GPIOB, then on into OLATA.
        assert_eq!(read::<3>(&mut model, 0x20, GPIO), [0x00, 0x01, 0x00]);
        // The pointer wraps from OLATB (0x15) to IODIRA.
        assert_eq!(read::<2>(&mut model, 0x20, OLAT + 1), [0x00, 0xFF]);
    }

    #[test]
    fn seqop_toggles_within_a_pair_and_iocon_is_mirrored() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::EMPTY);
        write(&mut model, 0x21, &[IOCON + 1, SEQOP]).unwrap();
        assert_eq!(model.expander(1).register(IOCON), SEQOP);
        assert_eq!(read::<3>(&mut model, 0x21, IODIR), [0xFF, 0xFF, 0xFF]);
        // IPOLA is not reached: the pointer stays on the IODIR pair.
        assert_eq!(model.expander(1).register(IPOL), 0);
    }

    #[test]
    fn outputs_read_their_latch_and_ignore_ipol() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::EMPTY);
        write(&mut model, 0x22, &[IODIR, 0xFE]).unwrap();
        write(&mut model, 0x22, &[IPOL, 0xFF]).unwrap();
        write(&mut model, 0x22, &[GPIO, 0x01]).unwrap();
        assert_eq!(model.expander(2).register(OLAT), 0x01);
        // Pin 0 drives its latch (1); pins 1–7 float high, inverted to 0.
        assert_eq!(read::<1>(&mut model, 0x22, GPIO), [0x01]);
    }

    #[test]
    fn a_bounce_flips_one_read_only() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::EMPTY);
        model.bounce(Square::H8);
        assert_eq!(read::<2>(&mut model, 0x23, GPIO), [0xFF, 0x7F]);
        assert_eq!(read::<2>(&mut model, 0x23, GPIO), [0xFF, 0xFF]);
    }

    #[test]
    fn faults_nack_and_bytes_are_counted() {
        let mut model = ReedBoardModel::from_occupancy(Bitboard::EMPTY);
        let nack = ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address);
        assert_eq!(write(&mut model, 0x24, &[0]), Err(nack));
        model.nack_next(1);
        assert_eq!(write(&mut model, 0x20, &[0]), Err(nack));
        write(&mut model, 0x20, &[0]).unwrap();
        model.unplug();
        assert_eq!(write(&mut model, 0x20, &[0]), Err(nack));
        model.plug();
        assert_eq!(model.bytes_transferred(), 5);
        let _ = read::<2>(&mut model, 0x20, GPIO);
        assert_eq!(model.bytes_transferred(), 5 + 5);
    }

    #[test]
    fn a_power_cycle_keeps_the_switches() {
        let mut model = ReedBoardModel::new(&Board::default());
        write(&mut model, 0x20, &[GPPU, 0xFF, 0xFF]).unwrap();
        model.power_cycle(0);
        assert_eq!(model.expander(0).register(GPPU), 0);
        assert_eq!(model.occupancy(), Board::default().occupied());
    }
}
