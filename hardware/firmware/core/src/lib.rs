#![no_std]
#![warn(missing_docs)]
//! The board side of tocada's sensor-board protocol v1
//! (`hardware/sensor-board-protocol.md`, "the doc" below), with no hardware
//! in it: the firmware of the reference board (`hardware/firmware/pico`) and
//! tocada's desktop model of the board (`src/models/sensor_board.rs`) run
//! this same code, the first with its shift registers, the second with a
//! simulated scan.
//!
//! - [`protocol`]: the wire constants, the CRC and the CAPS byte, the one
//!   place they are written down (tocada's `src/protocol.rs` re-exports them).
//! - [`Debouncer`]: raw scans → changes confirmed stable, stamped with the
//!   time of their first edge.
//! - [`Fifo`]: the event frames, oldest first, until the host ACKs them.
//! - [`Board`]: scans → events → FIFO, and the register map the host reads
//!   and writes: IDENT, STATUS, TIME, ACK, COMMAND, pairing, SNAPSHOT,
//!   IDENTITY, FIFO, DIAG, the interrupt line.
//! - [`wiring`]: the reference board's sensor bytes as bitboards (the
//!   74HC165 chain, the MPR121 rank and file electrodes).
//!
//! Time is the board's own milliseconds since reset, a `u32` that wraps
//! (§ 6.1), passed in by the caller: the core reads no clock.

pub mod protocol;
pub mod wiring;

mod board;
mod debounce;
mod fifo;

pub use board::{Board, Config, Diag, Sample, WriteEffect, address, block_start};
pub use debounce::Debouncer;
pub use fifo::Fifo;

/// The debounce time of the reference firmware, in ms: a change counts once
/// the sensor has read the same for this long since its last edge. Within
/// the 10–30 ms the doc suggests for reed switches (§ 6.1); Hall switches
/// need less but lose nothing but latency with it.
pub const DEBOUNCE_MS: u32 = 20;
