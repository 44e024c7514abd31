//! The board against `hardware/sensor-board-protocol.md`, byte for byte:
//! the worked examples of §§ 1, 6.1, 8.1 and the walk-through of § 13, then
//! the rules of §§ 2–10 one by one.

use tocada_board::protocol::{Capabilities, command, reg, status};
use tocada_board::{Board, Config, DEBOUNCE_MS, Sample, WriteEffect, address};

/// The walk-through's board: serial 0x0123456789ABCDEF, BOOT_COUNT 7, CAPS
/// 0x05, FIFO depth 32, firmware 0x0100.
fn config(caps: u8) -> Config {
    Config {
        serial: 0x0123_4567_89AB_CDEF,
        caps: Capabilities::from_bits(caps),
        fifo_depth: 32,
        firmware: 0x0100,
        boot_count: 7,
        debounce_ms: DEBOUNCE_MS,
    }
}

/// The starting position's piece bytes, a1 first.
fn start_pieces() -> [u8; 64] {
    let mut p = [0; 64];
    p[..8].copy_from_slice(b"RNBQKBNR");
    p[8..16].copy_from_slice(b"PPPPPPPP");
    p[48..56].copy_from_slice(b"pppppppp");
    p[56..].copy_from_slice(b"rnbqkbnr");
    p
}

fn occupancy(pieces: &[u8; 64]) -> u64 {
    pieces
        .iter()
        .enumerate()
        .filter(|(_, p)| **p != 0)
        .fold(0, |b, (i, _)| b | 1 << i)
}

/// The sensors change at `at` and keep still: scanned every 2 ms (500 Hz)
/// until the debounce confirms it.
fn settle(board: &mut Board, at: u32, pieces: &[u8; 64]) {
    let sample = Sample {
        occupancy: occupancy(pieces),
        contact: 0,
        pieces: Some(pieces),
    };
    for t in (at..=at + DEBOUNCE_MS).step_by(2) {
        board.scan(t, sample);
    }
}

fn read<const N: usize>(board: &Board, now: u32, register: u8) -> [u8; N] {
    let mut out = [0; N];
    board.read(now, register, &mut out);
    out
}

fn status(board: &Board) -> [u8; 3] {
    read(board, 0, reg::STATUS)
}

/// § 13 A, B and C in order, every byte the doc prints.
#[test]
fn walkthrough_of_section_13() {
    let mut pieces = start_pieces();
    let first = Sample {
        occupancy: occupancy(&pieces),
        contact: 0,
        pieces: Some(&pieces),
    };
    // A1: powers up at 415 ms.
    let mut b = Board::new(config(0x05), 415, first);
    // A2
    assert_eq!(status(&b), [0x93, 0x01, 0xD9]);
    // A3
    assert_eq!(
        read::<24>(&b, 415, reg::IDENT),
        [
            0x54, 0x4F, 0x43, 0x42, 0x01, 0x05, 0x20, 0x00, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45,
            0x23, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x2C
        ]
    );
    // A4, A5
    assert_eq!(
        b.write(500, &[0x30, 0x34, 0x12, 0xED, 0x5E]),
        WriteEffect::None
    );
    assert_eq!(status(&b), [0x87, 0x01, 0xDA]);
    // A6
    assert_eq!(
        read::<18>(&b, 500, reg::PAIR_RESP),
        [
            0x34, 0x12, 0xED, 0x5E, 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, 0x07, 0x00,
            0x00, 0x00, 0x50, 0xE9
        ]
    );
    // A7
    assert_eq!(
        read::<24>(&b, 500, reg::SNAPSHOT),
        [
            0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x9F, 0x01, 0x00, 0x00, 0x53, 0x4A
        ]
    );
    let identity = read::<68>(&b, 500, reg::IDENTITY);
    assert_eq!(identity[..2], [0, 0]);
    assert_eq!(identity[2..66], start_pieces());
    assert_eq!(identity[66], b'I');
    assert_eq!(identity[67], tocada_board::protocol::crc8(&identity[..67]));
    // A8, A9
    b.write(510, &[0x2C, 0x00, 0x00]);
    assert_eq!(status(&b), [0x86, 0x00, 0xC8]);

    // B: e2–e4.
    pieces[12] = 0;
    settle(&mut b, 123_456, &pieces);
    assert_eq!(status(&b), [0x87, 0x01, 0xDA]);
    assert_eq!(
        read::<10>(&b, 123_500, reg::FIFO),
        [0x01, 0x00, 0x01, 0x0C, 0x50, 0x40, 0xE2, 0x01, 0x00, 0x21]
    );
    b.write(123_500, &[0x2C, 0x01, 0x00]);
    assert_eq!(status(&b), [0x86, 0x00, 0xC8]);
    pieces[28] = b'P';
    settle(&mut b, 123_912, &pieces);
    assert_eq!(status(&b), [0x87, 0x01, 0xDA]);
    assert_eq!(
        read::<10>(&b, 124_000, reg::FIFO),
        [0x02, 0x00, 0x02, 0x1C, 0x50, 0x08, 0xE4, 0x01, 0x00, 0x04]
    );
    b.write(124_000, &[0x2C, 0x02, 0x00]);

    // C: Ng8–f6, the reads corrupted on the wire (not the board's doing),
    // then a SNAPSHOT command.
    pieces[62] = 0;
    settle(&mut b, 130_001, &pieces);
    pieces[45] = b'n';
    settle(&mut b, 130_402, &pieces);
    assert_eq!(status(&b), [0x87, 0x02, 0xD3]);
    assert_eq!(
        read::<20>(&b, 130_500, reg::FIFO),
        [
            0x03, 0x00, 0x01, 0x3E, 0x6E, 0xD1, 0xFB, 0x01, 0x00, 0xF8, 0x04, 0x00, 0x02, 0x2D,
            0x6E, 0x62, 0xFD, 0x01, 0x00, 0xCC
        ]
    );
    b.write(131_050, &[0x2E, 0x02]);
    assert_eq!(status(&b), [0x86, 0x00, 0xC8]);
    assert_eq!(
        read::<24>(&b, 131_060, reg::SNAPSHOT),
        [
            0x04, 0x00, 0xFF, 0xEF, 0x00, 0x10, 0x00, 0x20, 0xFF, 0xBF, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0xEA, 0xFF, 0x01, 0x00, 0x53, 0xB0
        ]
    );
    assert_eq!(b.diag().bad_writes, 0);
}

/// § 6.1: "A board without identity sends `50` as `00`, which changes the CRC."
#[test]
fn without_identity_piece_bytes_are_zero() {
    let mut pieces = start_pieces();
    let first = Sample {
        occupancy: occupancy(&pieces),
        contact: 0,
        pieces: Some(&pieces),
    };
    let mut b = Board::new(config(0x01), 0, first);
    b.write(0, &[0x2C, 0, 0]);
    pieces[12] = 0;
    settle(&mut b, 123_456, &pieces);
    let f = read::<10>(&b, 123_500, reg::FIFO);
    assert_eq!(
        f[..9],
        [0x01, 0x00, 0x01, 0x0C, 0x00, 0x40, 0xE2, 0x01, 0x00]
    );
    assert_eq!(f[9], tocada_board::protocol::crc8(&f[..9]));
    // IDENTITY is absent without CAPS.IDENTITY.
    assert_eq!(read::<68>(&b, 0, reg::IDENTITY), [0xFF; 68]);
}

/// § 8.1: 130 000 ms → `D0 FB 01 00 54 24`, latched at the read.
#[test]
fn time_block() {
    let b = Board::new(config(0x01), 0, Sample::default());
    assert_eq!(
        read::<6>(&b, 130_000, reg::TIME),
        [0xD0, 0xFB, 0x01, 0x00, 0x54, 0x24]
    );
    assert_eq!(
        read::<8>(&b, 130_000, reg::TIME),
        [0xD0, 0xFB, 0x01, 0x00, 0x54, 0x24, 0xFF, 0xFF]
    );
}

/// § 2 rules 3, 4 and 6: bad writes ignored and counted, quick writes and
/// pointer-only writes not; reads past a block's end, inside a block and at
/// unassigned addresses.
#[test]
fn writes_and_reads_by_the_rules_of_section_2() {
    let mut b = Board::new(config(0x05), 0, Sample::default());
    let before = status(&b);
    b.write(1, &[]); // quick write (i2cdetect)
    b.write(1, &[reg::FIFO]); // pointer only
    assert_eq!(b.diag().bad_writes, 0);
    b.write(1, &[0x2E, 0x02, 0x00]); // COMMAND, too long
    b.write(1, &[0x2C, 0x00]); // ACK, too short
    b.write(1, &[0x30, 1, 2, 3]); // PAIR_NONCE, too short
    b.write(1, &[0x2E, 0x7F]); // unknown command
    b.write(1, &[reg::IDENT, 0x00]); // read-only
    b.write(1, &[0x20, 0x00]); // read-only
    b.write(1, &[0xF0, 0x00]); // reserved
    assert_eq!(b.diag().bad_writes, 7);
    assert_eq!(
        status(&b),
        before,
        "nothing applied: the BOOT frame still queued"
    );
    assert_eq!(
        read::<8>(&b, 1, reg::DIAG),
        [
            0x07,
            0x00,
            0x00,
            0x00,
            0x00,
            0x00,
            0x44,
            tocada_board::protocol::crc8(&[7, 0, 0, 0, 0, 0, 0x44])
        ]
    );
    // Past the end of STATUS: filler, never the next block.
    assert_eq!(read::<5>(&b, 1, reg::STATUS)[3..], [0xFF, 0xFF]);
    // Inside IDENT: the rest of it (BOOT_COUNT's low byte at 0x10).
    let mut rest = [0; 9];
    assert_eq!(b.read(1, 0x10, &mut rest), 8);
    assert_eq!(rest, [0x07, 0, 0, 0, 0x00, 0x01, 0x00, 0x2C, 0xFF]);
    // Unassigned addresses and PAIR_RESP before the first pairing.
    for register in [
        0x18, 0x23, 0x2C, 0x2E, 0x30, 0x68, 0xB4, 0xC1, 0xE8, 0xFF, 0x38,
    ] {
        assert_eq!(read::<4>(&b, 1, register), [0xFF; 4], "{register:#04x}");
    }
    // A SOFT_RESET is the caller's to carry out.
    assert_eq!(
        b.write(1, &[0x2E, command::SOFT_RESET]),
        WriteEffect::SoftReset
    );
}

/// § 6.4 with the smallest conforming FIFO: D − 1 events, then the OVERFLOW
/// marker, then drops that still take a SEQ; SNAPSHOT clears it all.
#[test]
fn overflow_marker_drops_and_recovery() {
    let cfg = Config {
        fifo_depth: 16,
        ..config(0x01)
    };
    let mut b = Board::new(cfg, 0, Sample::default());
    let mut occ = 0u64;
    for i in 0..20u32 {
        occ ^= 1 << (i % 64);
        b.scan(
            100 * i,
            Sample {
                occupancy: occ,
                ..Sample::default()
            },
        );
        b.scan(
            100 * i + DEBOUNCE_MS,
            Sample {
                occupancy: occ,
                ..Sample::default()
            },
        );
    }
    // BOOT + 14 events fill D − 1 = 15; the 15th event (SEQ 15) is the marker.
    assert_eq!(b.queued(), 16);
    let mut fifo = [0; 170];
    assert_eq!(b.read(3000, reg::FIFO, &mut fifo), 160);
    let marker = &fifo[150..160];
    assert_eq!(marker[..5], [15, 0, 0x11, 0xFF, 0x00]);
    assert_eq!(fifo[160..], [0xFF; 10]);
    let st = status(&b);
    assert_eq!(st[0] & status::OVERFLOW, status::OVERFLOW);
    assert_eq!(st[1], 16);
    assert_eq!(b.diag().dropped_events, 6, "SEQ 15's event and SEQ 16–20");
    // SNAPSHOT: S = 20, the FIFO flushed, OVERFLOW cleared.
    b.write(3000, &[0x2E, 0x02]);
    let snap = read::<24>(&b, 3000, reg::SNAPSHOT);
    assert_eq!(snap[..2], [20, 0]);
    assert_eq!(u64::from_le_bytes(snap[2..10].try_into().unwrap()), occ);
    assert_eq!(status(&b), {
        let mut s = [status::ONE | status::SNAP_READY | status::FRESH, 0, 0];
        s[2] = tocada_board::protocol::crc8(&s[..2]);
        s
    });
    // The next event continues at S + 1.
    occ ^= 1 << 40;
    b.scan(
        4000,
        Sample {
            occupancy: occ,
            ..Sample::default()
        },
    );
    b.scan(
        4000 + DEBOUNCE_MS,
        Sample {
            occupancy: occ,
            ..Sample::default()
        },
    );
    assert_eq!(read::<3>(&b, 4100, reg::FIFO), [21, 0, 0x02]);
}

/// § 7 FIFO_RESET: frames gone, OVERFLOW cleared, SEQ numbering continues.
#[test]
fn fifo_reset_keeps_numbering() {
    let mut b = Board::new(config(0x01), 0, Sample::default());
    b.scan(
        10,
        Sample {
            occupancy: 1,
            ..Sample::default()
        },
    );
    b.scan(
        40,
        Sample {
            occupancy: 1,
            ..Sample::default()
        },
    );
    assert_eq!(b.queued(), 2);
    b.write(50, &[0x2E, 0x01]);
    assert_eq!(b.queued(), 0);
    b.scan(60, Sample::default());
    b.scan(90, Sample::default());
    assert_eq!(read::<5>(&b, 100, reg::FIFO), [2, 0, 0x01, 0, 0]);
}

/// § 6.3: an ACK removes exactly the frames up to its SEQ; repeated or
/// stale ACKs remove nothing; reading removes nothing.
#[test]
fn acks_and_repeated_reads() {
    let mut b = Board::new(config(0x01), 0, Sample::default());
    let mut occ = 0;
    for i in 0..4u32 {
        occ |= 1 << i;
        b.scan(
            100 * i,
            Sample {
                occupancy: occ,
                ..Sample::default()
            },
        );
        b.scan(
            100 * i + 30,
            Sample {
                occupancy: occ,
                ..Sample::default()
            },
        );
    }
    let once = read::<50>(&b, 500, reg::FIFO);
    assert_eq!(read::<50>(&b, 500, reg::FIFO), once);
    assert_eq!(b.queued(), 5);
    b.write(500, &[0x2C, 0x02, 0x00]);
    assert_eq!(b.queued(), 2);
    assert_eq!(read::<10>(&b, 500, reg::FIFO), once[30..40]);
    b.write(500, &[0x2C, 0x02, 0x00]);
    b.write(500, &[0x2C, 0xFF, 0xFF]);
    assert_eq!(b.queued(), 2);
    b.write(500, &[0x2C, 0x04, 0x00]);
    assert_eq!(
        status(&b)[..2],
        [status::ONE | status::SNAP_READY | status::FRESH, 0]
    );
}

/// § 6.1 and § 4.1 CAPS.CONTACT: touches come before the lift they lead to,
/// all stamped at their first edge; without CAPS.CONTACT nothing of contact
/// reaches the host.
#[test]
fn contact_events_and_their_order() {
    let occ = 1 << 12;
    let mut b = Board::new(
        config(0x03),
        0,
        Sample {
            occupancy: occ,
            ..Sample::default()
        },
    );
    b.write(0, &[0x2C, 0, 0]);
    // Touch at 100, lift at 105, both confirmed in the same scan at 125.
    b.scan(
        100,
        Sample {
            occupancy: occ,
            contact: occ,
            pieces: None,
        },
    );
    b.scan(
        105,
        Sample {
            occupancy: 0,
            contact: occ,
            pieces: None,
        },
    );
    b.scan(
        125,
        Sample {
            occupancy: 0,
            contact: occ,
            pieces: None,
        },
    );
    b.scan(
        200,
        Sample {
            occupancy: 0,
            contact: 0,
            pieces: None,
        },
    );
    b.scan(220, Sample::default());
    let f = read::<30>(&b, 300, reg::FIFO);
    assert_eq!(f[..9], [1, 0, 0x03, 12, 0, 100, 0, 0, 0]);
    assert_eq!(f[10..19], [2, 0, 0x01, 12, 0, 105, 0, 0, 0]);
    assert_eq!(f[20..29], [3, 0, 0x04, 12, 0, 200, 0, 0, 0]);

    let mut b = Board::new(config(0x01), 0, Sample::default());
    b.scan(
        100,
        Sample {
            occupancy: 0,
            contact: 1,
            pieces: None,
        },
    );
    b.scan(
        200,
        Sample {
            occupancy: 0,
            contact: 1,
            pieces: None,
        },
    );
    assert_eq!(b.queued(), 1, "the BOOT frame alone");
    assert_eq!(read::<24>(&b, 0, reg::SNAPSHOT)[10..18], [0; 8]);
}

/// § 8.2: the line is low exactly while frames wait, and only when fitted.
#[test]
fn interrupt_line_and_address_strap() {
    let mut b = Board::new(config(0x09), 0, Sample::default());
    assert!(b.interrupt_asserted(), "the BOOT frame waits");
    b.write(0, &[0x2C, 0, 0]);
    assert!(!b.interrupt_asserted());
    b.scan(
        10,
        Sample {
            occupancy: 1,
            ..Sample::default()
        },
    );
    assert!(
        !b.interrupt_asserted(),
        "not before the debounce confirms it"
    );
    b.scan(
        30,
        Sample {
            occupancy: 1,
            ..Sample::default()
        },
    );
    assert!(b.interrupt_asserted());
    b.write(40, &[0x2C, 1, 0]);
    assert!(!b.interrupt_asserted());
    let without = Board::new(config(0x01), 0, Sample::default());
    assert!(!without.interrupt_asserted());

    assert_eq!(address(false), 0x42);
    assert_eq!(address(true), 0x43);
}

/// § 5 SENSOR_FAULT and DIAG's sensor_faults; § 4.2 a new nonce starts again.
#[test]
fn sensor_fault_and_pairing_again() {
    let mut b = Board::new(config(0x01), 0, Sample::default());
    b.sensor_check(true);
    b.sensor_check(true);
    assert_eq!(status(&b)[0] & status::SENSOR_FAULT, status::SENSOR_FAULT);
    b.sensor_check(false);
    assert_eq!(status(&b)[0] & status::SENSOR_FAULT, 0);
    b.sensor_check(true);
    assert_eq!(b.diag().sensor_faults, 2);
    assert_eq!(read::<6>(&b, 0, reg::DIAG)[4..6], [2, 0]);

    b.write(5, &[0x30, 1, 0, 0, 0]);
    b.write(6, &[0x30, 2, 0, 0, 0]);
    let resp = read::<18>(&b, 7, reg::PAIR_RESP);
    assert_eq!(resp[..4], [2, 0, 0, 0]);
    assert_eq!(
        status(&b)[0] & (status::PAIR_READY | status::FRESH),
        status::PAIR_READY
    );
}

/// A board stays within its FIFO depth and never panics whatever it scans.
#[test]
fn random_scans_never_overrun_the_fifo() {
    let mut b = Board::new(config(0x07), 0, Sample::default());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for t in 0..5_000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let pieces = [b'q'; 64];
        b.scan(
            t * 3,
            Sample {
                occupancy: x,
                contact: x.rotate_left(7),
                pieces: Some(&pieces),
            },
        );
        assert!(b.queued() <= 32);
        if t % 97 == 0 {
            b.write(t * 3, &[0x2E, 0x02]);
        }
    }
}
