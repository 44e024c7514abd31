//! The bytes of protocol v1: register addresses, block sizes, flag bits,
//! codes, tags, the CRC and the CAPS byte. The board (this crate) and the
//! host (tocada's driver) speak these same numbers; each builds and parses
//! its blocks on its own.

/// The board's default 7-bit address; 0x43 with the strap pin tied to GND (§ 1).
pub const DEFAULT_ADDRESS: u8 = 0x42;

/// The board's address with the strap pin tied to GND (§ 1).
pub const STRAPPED_ADDRESS: u8 = 0x43;

/// ASCII `TOCB`, the first four bytes of IDENT (§ 4.1).
pub const MAGIC: [u8; 4] = *b"TOCB";

/// The protocol version this crate implements (IDENT's PROTO_VERSION).
pub const PROTO_VERSION: u8 = 1;

/// The most frames the host reads in one transaction, so the shared bus is
/// never held long (§ 2).
pub const MAX_FRAMES_PER_READ: usize = 8;

/// The SQUARE byte of marker frames (BOOT, OVERFLOW).
pub const NO_SQUARE: u8 = 0xFF;

/// What the board sends past the end of a block, after the last frame, and
/// at unassigned addresses (§ 2).
pub const FILLER: u8 = 0xFF;

/// Register addresses (§ 3).
pub mod reg {
    /// Identification block.
    pub const IDENT: u8 = 0x00;
    /// Status flags and frame count; bare reads start here.
    pub const STATUS: u8 = 0x20;
    /// Board clock.
    pub const TIME: u8 = 0x24;
    /// Sequence number of the last frame the host consumed.
    pub const ACK: u8 = 0x2C;
    /// Command code.
    pub const COMMAND: u8 = 0x2E;
    /// Pairing nonce.
    pub const PAIR_NONCE: u8 = 0x30;
    /// Pairing response.
    pub const PAIR_RESP: u8 = 0x38;
    /// Occupancy and contact bitboards.
    pub const SNAPSHOT: u8 = 0x50;
    /// Per-square piece identity.
    pub const IDENTITY: u8 = 0x70;
    /// Event frames, oldest first.
    pub const FIFO: u8 = 0xC0;
    /// Board-side error counters.
    pub const DIAG: u8 = 0xE0;
}

/// Block sizes in bytes (§ 3).
pub mod size {
    /// IDENT.
    pub const IDENT: usize = 24;
    /// STATUS.
    pub const STATUS: usize = 3;
    /// TIME.
    pub const TIME: usize = 6;
    /// ACK payload.
    pub const ACK: usize = 2;
    /// COMMAND payload.
    pub const COMMAND: usize = 1;
    /// PAIR_NONCE payload.
    pub const PAIR_NONCE: usize = 4;
    /// PAIR_RESP.
    pub const PAIR_RESP: usize = 18;
    /// SNAPSHOT.
    pub const SNAPSHOT: usize = 24;
    /// IDENTITY.
    pub const IDENTITY: usize = 68;
    /// One event frame.
    pub const FRAME: usize = 10;
    /// DIAG.
    pub const DIAG: usize = 8;
}

/// STATUS flag bits (§ 5).
pub mod status {
    /// COUNT > 0.
    pub const PENDING: u8 = 1 << 0;
    /// A snapshot is ready.
    pub const SNAP_READY: u8 = 1 << 1;
    /// PAIR_RESP is ready.
    pub const PAIR_READY: u8 = 1 << 2;
    /// Events were lost because the FIFO was full.
    pub const OVERFLOW: u8 = 1 << 3;
    /// The board was reset and has not been paired since.
    pub const FRESH: u8 = 1 << 4;
    /// The firmware's self-check found a sensor problem.
    pub const SENSOR_FAULT: u8 = 1 << 5;
    /// Always 1, so a bus stuck low never reads as a valid STATUS.
    pub const ONE: u8 = 1 << 7;
}

/// Event codes (§ 6.1).
pub mod code {
    /// The square became empty.
    pub const LIFT: u8 = 0x01;
    /// The square became occupied.
    pub const PLACE: u8 = 0x02;
    /// A hand came into contact with the piece on the square.
    pub const TOUCH: u8 = 0x03;
    /// The contact ended.
    pub const UNTOUCH: u8 = 0x04;
    /// First frame after every reset, SEQ 0.
    pub const BOOT: u8 = 0x10;
    /// Events were lost after this frame.
    pub const OVERFLOW: u8 = 0x11;
}

/// COMMAND codes (§ 7).
pub mod command {
    /// Remove all queued frames, clear OVERFLOW.
    pub const FIFO_RESET: u8 = 0x01;
    /// Take a snapshot.
    pub const SNAPSHOT: u8 = 0x02;
    /// Reset the board as at power-up.
    pub const SOFT_RESET: u8 = 0xA5;
}

/// The non-zero tag bytes just before the CRC of each block (§ 1).
pub mod tag {
    /// PAIR_RESP.
    pub const PAIR: u8 = b'P';
    /// SNAPSHOT.
    pub const SNAPSHOT: u8 = b'S';
    /// IDENTITY.
    pub const IDENTITY: u8 = b'I';
    /// TIME.
    pub const TIME: u8 = b'T';
    /// DIAG.
    pub const DIAG: u8 = b'D';
}

/// The piece byte for "occupied, not identified" (identity array).
pub const UNIDENTIFIED: u8 = b'?';

/// CRC-8, polynomial 0x07, initial value 0, no reflection, no final XOR (the
/// SMBus PEC), as § 1 specifies.
///
/// A byte at a time from a 256-entry table (256 bytes of flash): the host
/// checks a STATUS block every few milliseconds and the board computes one
/// for each read, so the bitwise loop's eight steps a byte add up.
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |c, &b| CRC8_TABLE[usize::from(c ^ b)])
}

/// `CRC8_TABLE[i]`: the CRC register after shifting `i` through it.
const CRC8_TABLE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u8;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 0x80 != 0 {
                (c << 1) ^ 0x07
            } else {
                c << 1
            };
            bit += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// Whether sequence number `a` precedes or equals `b`, in the serial-number
/// arithmetic of § 6.1.
pub fn precedes_or_equals(a: u16, b: u16) -> bool {
    b.wrapping_sub(a) < 0x8000
}

/// Whether `byte` is a piece byte § 1 defines for frames: 0x00 or a FEN letter.
pub fn is_piece_byte(byte: u8) -> bool {
    byte == 0 || b"PNBRQKpnbrqk".contains(&byte)
}

/// What a board can do: the CAPS byte of IDENT (§ 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// Senses occupancy (always set by a conforming board).
    pub occupancy: bool,
    /// Senses hand contact: TOUCH/UNTOUCH events and a live contact bitboard.
    pub contact: bool,
    /// Identifies pieces: piece bytes are filled in, IDENTITY is present.
    pub identity: bool,
    /// An interrupt output is fitted.
    pub int_line: bool,
    /// Meets the timing rules at 400 kHz.
    pub fast_mode: bool,
}

impl Capabilities {
    /// Decodes the CAPS byte; reserved bits are ignored, as § 12 allows.
    pub fn from_bits(bits: u8) -> Self {
        Capabilities {
            occupancy: bits & 1 != 0,
            contact: bits & 2 != 0,
            identity: bits & 4 != 0,
            int_line: bits & 8 != 0,
            fast_mode: bits & 16 != 0,
        }
    }

    /// Encodes the CAPS byte.
    pub fn bits(self) -> u8 {
        u8::from(self.occupancy)
            | (u8::from(self.contact) << 1)
            | (u8::from(self.identity) << 2)
            | (u8::from(self.int_line) << 3)
            | (u8::from(self.fast_mode) << 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_table_is_the_bitwise_crc() {
        fn bitwise(bytes: &[u8]) -> u8 {
            bytes.iter().fold(0, |mut c, &b| {
                c ^= b;
                for _ in 0..8 {
                    c = if c & 0x80 != 0 {
                        (c << 1) ^ 0x07
                    } else {
                        c << 1
                    };
                }
                c
            })
        }
        for a in 0..=255u8 {
            for b in [0x00, 0x01, 0x5A, 0x80, 0xFF] {
                assert_eq!(crc8(&[a, b]), bitwise(&[a, b]), "{a:#04x} {b:#04x}");
            }
        }
    }

    #[test]
    fn crc_check_value_and_worked_examples() {
        assert_eq!(crc8(b"123456789"), 0xF4);
        assert_eq!(
            crc8(&[0x01, 0x00, 0x01, 0x0C, 0x50, 0x40, 0xE2, 0x01, 0x00]),
            0x21
        );
        assert_eq!(
            crc8(&[0x02, 0x00, 0x02, 0x1C, 0x50, 0x08, 0xE4, 0x01, 0x00]),
            0x04
        );
        // The TIME example of § 8.1 and the frames of § 13 C.
        assert_eq!(crc8(&[0xD0, 0xFB, 0x01, 0x00, 0x54]), 0x24);
        assert_eq!(
            crc8(&[0x03, 0x00, 0x01, 0x3E, 0x6E, 0xD1, 0xFB, 0x01, 0x00]),
            0xF8
        );
        assert_eq!(
            crc8(&[0x03, 0x00, 0x01, 0x3A, 0x6E, 0xD1, 0xFB, 0x01, 0x00]),
            0x5C
        );
        assert_eq!(
            crc8(&[0x04, 0x00, 0x02, 0x2D, 0x6E, 0x62, 0xFD, 0x01, 0x00]),
            0xCC
        );
        assert_eq!(crc8(&[]), 0);
    }

    #[test]
    fn caps_round_trip() {
        assert_eq!(Capabilities::from_bits(0x05).bits(), 0x05);
        assert!(Capabilities::from_bits(0x05).identity);
        assert_eq!(Capabilities::from_bits(0xFF).bits(), 0x1F);
    }

    #[test]
    fn serial_number_arithmetic() {
        assert!(precedes_or_equals(3, 3));
        assert!(precedes_or_equals(0xFFFF, 0));
        assert!(!precedes_or_equals(5, 4));
    }

    #[test]
    fn piece_bytes() {
        assert!(is_piece_byte(0));
        assert!(is_piece_byte(b'k'));
        assert!(!is_piece_byte(b'?'));
        assert!(!is_piece_byte(b'x'));
    }
}
