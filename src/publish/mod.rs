//! `tocada publish` (the program `tocada-publish`, feature `net`): follows
//! the clock's game store and publishes every game's events, with the
//! effects they produced, to the hall's MQTT broker (issue 14 § 1).
//!
//! The clock daemon stays offline (`PrivateNetwork=yes`); this second
//! program, under its own user and unit (`tocada-publish.service`), opens
//! the store read-only and speaks to the broker. What it sends is
//! [`crate::broadcast`]'s contract with the hall: one [`EventMessage`] per
//! stored event on `tocada/<hall>/<board>/events`, the board's
//! [`BoardState`] retained on `…/state`, and `online`/`offline` retained on
//! `…/status` (the latter its last will).
//!
//! - [`follower`]: the sans-IO core. Stored events in, in store order;
//!   messages out, each with the effects replaying the game through
//!   [`crate::transcript`] produced; where to read next.
//! - [`progress`]: the publisher's own state file, the last event the
//!   broker acknowledged, replaced atomically.
//! - [`crate::broker`]: the clock's `user:password` for the broker, and
//!   the broker's URL, shared with the hall.
//! - [`runner`]: the thin tokio shell: polls the store, publishes with QoS 1
//!   through `rumqttc`, reconnects with a backoff, resends from the mark;
//!   holds the board's claim (a second clock with the same credentials is
//!   refused) and takes the hall's pairing of the board.
//! - [`pairing_file`]: that pairing, written atomically for the clock
//!   daemon, which has no network.
//! - [`cli`]: the program's command line.
//!
//! Nothing is lost: an event counts as published only once the broker has
//! acknowledged it and every event before it, and every connection starts
//! again from there. Duplicates are harmless: `(game, seq)` names each
//! event, and the hall drops one it already has.
//!
//! [`EventMessage`]: crate::broadcast::EventMessage
//! [`BoardState`]: crate::broadcast::BoardState

pub mod cli;
pub mod follower;
pub mod pairing_file;
pub mod progress;
pub mod replace;
pub mod runner;

pub use cli::{PublishCli, PublishCommand, STATE_DIRECTORY};
pub use follower::{Follower, Mark, Pushed};
pub use progress::{PROGRESS_FILE, Progress, ProgressError};
pub use runner::{
    GRACE, HELD_MAX_BACKOFF, INSTANCE_FILE, IdentityError, Options, PublishError, instance_id, run,
    this_claim,
};
