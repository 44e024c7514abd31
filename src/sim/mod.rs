//! `tocada sim`: the whole daemon on a desktop, with the device models in
//! place of `/dev/i2c-1` and the GPIO chip.
//!
//! - [`World`] (from [`crate::rig::models`]): the simulated hardware: the
//!   OLED and a sensor board model on one bus, the buzzer, and the hands
//!   that lift and place pieces.
//! - [`script`]: `tocada sim --script FILE.jsonl`, the replay format played
//!   through the whole stack in simulated time, headless, writing the face
//!   as PNG when a line asks for it.
//! - [`tui`]: the interactive simulator in the terminal.
//!
//! The daemon's own loop ([`crate::daemon::Shell`]) runs unchanged on the
//! models; only where its commands come from differs.

pub mod png;
pub mod script;
pub mod tui;

pub use crate::rig::models::World;
