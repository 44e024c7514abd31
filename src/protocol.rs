//! The bytes of protocol v1 (`hardware/sensor-board-protocol.md`): register
//! addresses, block sizes, flag bits, codes, the CRC and the CAPS byte are
//! the board core's (`hardware/firmware/core`, crate `tocada-board`), written
//! once there and re-exported here for the driver; the piece bytes as
//! shakmaty's pieces are the host's own.

use shakmaty::Piece;

pub use tocada_board::protocol::{
    Capabilities, DEFAULT_ADDRESS, MAGIC, MAX_FRAMES_PER_READ, PROTO_VERSION, STRAPPED_ADDRESS,
    UNIDENTIFIED, code, command, crc8, precedes_or_equals, reg, size, status, tag,
};

/// The byte for a piece: its FEN letter (§ 1).
pub fn piece_byte(piece: Piece) -> u8 {
    piece.char() as u8
}

/// A piece byte read from the board: `Ok(None)` for 0x00 and `?` (nothing
/// known), `Err(())` for any byte § 1 does not define.
#[allow(clippy::result_unit_err)]
pub fn piece_from_byte(byte: u8) -> Result<Option<Piece>, ()> {
    match byte {
        0 | UNIDENTIFIED => Ok(None),
        b => Piece::from_char(char::from(b)).map(Some).ok_or(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip() {
        for b in *b"PNBRQKpnbrqk" {
            assert_eq!(piece_byte(piece_from_byte(b).unwrap().unwrap()), b);
        }
        assert_eq!(piece_from_byte(0), Ok(None));
        assert_eq!(piece_from_byte(b'?'), Ok(None));
        assert_eq!(piece_from_byte(b'x'), Err(()));
    }
}
