//! How the reference board's sensors come in as bits: pure functions, so
//! they are tested on the host with the rest of the core while the
//! firmware only moves the bytes.

/// Eight 74HC165s in a chain, chip *k* holding rank *k + 1* on inputs A–H =
/// files a–h, read MSB first (chip 0's H first), plus a ninth byte clocked
/// in from the last chip's SER, tied high. Inputs are low when a magnet is
/// over the sensor. Returns the occupancy and whether the chain is whole
/// (the ninth byte all ones).
pub fn shift_chain(bytes: &[u8; 9]) -> (u64, bool) {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&bytes[..8]);
    (!u64::from_le_bytes(raw), bytes[8] == 0xFF)
}

/// Touch electrodes in ranks and files (bit *r* of `ranks` = rank *r + 1*,
/// bit *f* of `files` = file *f*) → the squares touched. One rank and one
/// file touched name one square (none, no square); more are ambiguous, and
/// only squares already reported (`last`) among the candidates stay, so no
/// false touch appears.
pub fn row_column_contact(ranks: u8, files: u8, last: u64) -> u64 {
    let mut candidates = 0u64;
    for r in 0..8 {
        if ranks & (1 << r) != 0 {
            candidates |= u64::from(files) << (8 * r);
        }
    }
    if ranks.count_ones() <= 1 && files.count_ones() <= 1 {
        candidates
    } else {
        candidates & last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_maps_chip_k_to_rank_k_and_a_to_h_to_files() {
        // The starting position: ranks 1, 2, 7, 8 pull their inputs low.
        let bytes = [0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xFF];
        assert_eq!(shift_chain(&bytes), (0xFFFF_0000_0000_FFFF, true));
        // e4 alone: chip 3, input E = bit 4 low.
        let mut bytes = [0xFF; 9];
        bytes[3] = !(1 << 4);
        assert_eq!(shift_chain(&bytes), (1 << 28, true));
        // A broken chain clocks in zeros or noise instead of SER's ones.
        bytes[8] = 0x00;
        assert!(!shift_chain(&bytes).1);
    }

    #[test]
    fn one_rank_and_one_file_name_a_square_and_ambiguity_adds_nothing() {
        // Rank 4 (bit 3) and file e (bit 4): e4.
        assert_eq!(row_column_contact(1 << 3, 1 << 4, 0), 1 << 28);
        assert_eq!(row_column_contact(0, 0, 1 << 28), 0);
        assert_eq!(row_column_contact(1 << 3, 0, 0), 0);
        // e4 and d5 touched at once: e4, d5, d4, e5 are candidates; only
        // e4, already reported, stays.
        let both = row_column_contact((1 << 3) | (1 << 4), (1 << 3) | (1 << 4), 1 << 28);
        assert_eq!(both, 1 << 28);
        assert_eq!(row_column_contact(0b11, 0b11, 0), 0);
    }
}
