//! One line of the format, in each direction, a file each: [`parse_line`]
//! reads an input (event) line into a [`Line`] (`event_read.rs`),
//! [`line_to_json`] and [`input_to_json`] write one (`event_write.rs`),
//! and [`effect_to_json`] writes an output (effect) line
//! (`effect_write.rs`), which [`parse_effect_line`] reads back
//! (`effect_read.rs`). The event line's fields, read and written alike,
//! are in `wire.rs`.
//! Nothing here knows about files, line numbers or the order of lines:
//! that is [`super::Reader`]'s.
//!
//! The wire format lives here and only here: the referee's types carry no
//! serde, so the core stays free to change shape while this format, which
//! scripts and recorded games depend on, stays put.

mod effect_read;
mod effect_write;
mod event_read;
mod event_write;
mod wire;

pub use effect_read::{ParseEffectError, parse_effect_line};
pub use effect_write::{effect_to_json, effect_to_value, restored_to_json};
pub use event_read::{ParseLineError, parse_line};
pub use event_write::{input_to_json, line_to_json};

use crate::referee::{Input, Millis, Rules};

#[cfg(test)]
thread_local! {
    /// Lines this thread has parsed: what a test counts to show that a
    /// line is read once.
    pub(crate) static PARSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One meaningful input line: the instant it is stamped with and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Milliseconds since the session started.
    pub t: Millis,
    /// What happened at `t`.
    pub event: Event,
}

/// What an input line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The rules of the game; only valid as the first line. Boxed because a
    /// starting position is far bigger than any other event.
    Setup(Box<Rules>),
    /// Something for the referee.
    Input(Input),
    /// The script is over: every effect due up to `t` is to be emitted.
    End,
    /// The clock was running at `t` and nothing happened: time passes up to
    /// `t`, as with `end`, but the game goes on. The daemon stores one
    /// every half second of a running clock with no other event, so that a
    /// restart after a power cut gives back no more time than that.
    Checkpoint {
        /// How far the running clock is known to have run, past `t`: the
        /// daemon holds the referee's time back to where a silent board's
        /// news is complete, but the clock ran on meanwhile, and a restored
        /// game is charged up to here. On the wire `ran_to`, written only
        /// when later than `t`: `{"t":T,"ev":"checkpoint","ran_to":R}`.
        ran_to: Option<Millis>,
    },
    /// Who plays, as the hall's pairing said when the game began: only
    /// the line right after `setup`, written by the daemon when the game
    /// began under a pairing, so that the game's record names its players
    /// whatever pairing the clock reads later. Nothing for the referee;
    /// for the score (the PGN's roster). On the wire:
    /// `{"t":T,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","white_elo":2690,"black":"Anderssen, Adolf"}`,
    /// `round`, `white_elo`, `black_elo`, `white_fide_id`, `black_fide_id`
    /// optional. Boxed: names are far bigger than any other event.
    Players(Box<crate::players::Players>),
    /// The daemon came back at `t` (its last stored instant) after a crash
    /// or a power cut: `ms`, when the wall clock could tell, is how long it
    /// was off. Nothing for the referee (the restored game is paused by a
    /// `pause` line); for the score. On the wire:
    /// `{"t":T,"ev":"restart","ms":N}`, `ms` optional.
    Restart {
        /// How long the clock was off, in ms.
        off_ms: Option<u64>,
    },
}

/// A record the session asks to store, as its replay line's event.
impl From<crate::session::Recorded> for Event {
    fn from(recorded: crate::session::Recorded) -> Event {
        use crate::session::Recorded;
        match recorded {
            Recorded::Input(input) => Event::Input(input),
            Recorded::Timeout => Event::End,
            Recorded::Checkpoint { ran_to } => Event::Checkpoint { ran_to },
            Recorded::Restart { off_ms } => Event::Restart { off_ms },
        }
    }
}

#[cfg(test)]
mod tests;
