//! tocada: a club chess clock that enforces the Laws of Chess by itself.
//!
//! The crate is laid out as the product is:
//!
//! - [`referee`]: the sans-IO core. A pure state machine fed timestamped
//!   inputs (lever presses, pieces lifted, placed and touched, buttons) that
//!   keeps both clocks and rules on the FIDE Laws: touch-move, clock presses,
//!   illegal moves, displaced pieces, draw offers. No IO, no clock reads, no
//!   threads: time is milliseconds passed in, and the same inputs always give
//!   the same effects. Chess itself (legality, SAN, FEN, repetition keys)
//!   comes from `shakmaty`.
//! - [`replay`]: the JSON Lines format of `tocada replay`, which feeds a
//!   script of events to a referee and writes its effects.
//! - [`gesture`]: how hands make a move on a sensor board: a move turned into
//!   the lifts and places a player makes, in the orders people use. Tests,
//!   benchmarks and the simulator use it.
//!
//! Everything that touches the world (the daemon, the I2C drivers and the
//! device models) sits around the referee and drives it the same way:
//! `handle(now, input)`, drain `poll_effect()`, sleep until `next_deadline()`.

pub mod gesture;
pub mod referee;
pub mod replay;

pub use referee::{
    CompletedMove, Effect, Enforcement, GameMode, IncrementMode, Input, Law, Millis, Reason,
    Referee, Rejection, Rules, Ruling, Stage, TimeControl, TimeWentBackwards,
};
pub use shakmaty::KnownOutcome;
