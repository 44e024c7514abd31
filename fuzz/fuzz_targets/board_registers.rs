//! The board core's side of the bus (`tocada-board`, the reference
//! firmware's logic): any sequence of register writes and reads from a
//! host, interleaved with sensor scans, never panics, and the board keeps
//! its promises: STATUS always carries bit 7 and its CRC, COUNT is what the
//! FIFO holds, the FIFO never holds more than its depth, every frame it
//! serves passes its CRC unless a fault was injected, and the blocks it
//! serves end in their tag and CRC.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tocada_board::protocol::{Capabilities, crc8, reg, size, status, tag};
use tocada_board::{Board, Config, Sample, WriteEffect};

#[derive(Debug, Arbitrary)]
enum Op {
    /// A write transaction: register byte and payload as the host sent it.
    Write(Vec<u8>),
    /// A read of `len` bytes from `register`.
    Read {
        register: u8,
        len: u8,
    },
    /// The sensors read this now.
    Scan {
        occupancy: u64,
        contact: u64,
        pieces: Option<u8>,
    },
    /// Time passes.
    Wait(u16),
    Corrupt,
    Drop,
}

#[derive(Debug, Arbitrary)]
struct Script {
    serial: u64,
    caps: u8,
    depth: u8,
    boot_count: u32,
    first: u64,
    ops: Vec<Op>,
}

fuzz_target!(|script: Script| {
    let caps = Capabilities::from_bits(script.caps);
    let config = Config {
        serial: script.serial.clamp(1, u64::MAX - 1),
        caps,
        // § 4.1: 16 to 255 frames.
        fifo_depth: script.depth.max(16),
        firmware: 1,
        boot_count: script.boot_count,
        debounce_ms: 20,
    };
    let mut now = 0u32;
    let first = Sample {
        occupancy: script.first,
        ..Sample::default()
    };
    let mut board = Board::new(config, now, first);
    let mut faulted = false;
    for op in script.ops.into_iter().take(512) {
        match op {
            Op::Write(bytes) => {
                if board.write(now, &bytes) == WriteEffect::SoftReset {
                    board = Board::new(config, now, first);
                    faulted = false;
                }
            }
            Op::Read { register, len } => {
                let mut out = vec![0; usize::from(len)];
                let n = board.read(now, register, &mut out);
                assert!(n <= out.len());
                check_block(register, &out[..n]);
                if register == reg::FIFO && !faulted {
                    for frame in out[..n].chunks_exact(size::FRAME) {
                        assert_eq!(crc8(&frame[..9]), frame[9], "a frame served corrupt");
                    }
                }
            }
            Op::Scan {
                occupancy,
                contact,
                pieces,
            } => {
                let bytes = pieces.map(|p| [p; 64]);
                board.scan(
                    now,
                    Sample {
                        occupancy,
                        contact,
                        pieces: bytes.as_ref(),
                    },
                );
            }
            Op::Wait(ms) => now = now.wrapping_add(u32::from(ms)),
            Op::Corrupt => {
                board.corrupt_next_frame();
                faulted = true;
            }
            Op::Drop => board.drop_next_frame(),
        }
        let st = board.status();
        assert_ne!(st[0] & status::ONE, 0, "STATUS without bit 7");
        assert_eq!(crc8(&st[..2]), st[2], "STATUS with a bad CRC");
        assert_eq!(usize::from(st[1]), board.queued().min(255));
        assert!(board.queued() <= usize::from(config.fifo_depth));
        assert_eq!(board.fifo().len(), board.queued());
    }
});

/// A whole block read from its first register ends in its tag and CRC.
fn check_block(register: u8, bytes: &[u8]) {
    let (size, tag) = match register {
        reg::IDENT => (size::IDENT, None),
        reg::TIME => (size::TIME, Some(tag::TIME)),
        reg::SNAPSHOT => (size::SNAPSHOT, Some(tag::SNAPSHOT)),
        reg::DIAG => (size::DIAG, Some(tag::DIAG)),
        _ => return,
    };
    if bytes.len() < size {
        return;
    }
    let b = &bytes[..size];
    assert_eq!(
        crc8(&b[..size - 1]),
        b[size - 1],
        "block {register:#04x} with a bad CRC"
    );
    if let Some(tag) = tag {
        assert_eq!(b[size - 2], tag, "block {register:#04x} with a bad tag");
    }
}
