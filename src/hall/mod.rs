//! `tocada hall` (feature `net`): every clock of a hall on one arbiter's
//! screen and in a PGN feed, through an MQTT broker.
//!
//! The clocks' publishers send each stored event of a game on
//! `tocada/<hall>/<board>/events` ([`crate::broadcast`]). The hall
//!
//! - takes them in through a sans-IO core, [`Hall`] ([`ingest`]): every
//!   event stored once in the hall's own SQLite store ([`store`]), one row
//!   per (hall, board, game, seq), duplicates dropped, events out of order
//!   held until the gap is filled, bad payloads counted and dropped;
//! - rebuilds each game through [`crate::transcript`] ([`game`]), so it
//!   knows the position, the clocks, every ruling and the PGN with
//!   `[%clk]` on every move, as `tocada export` would write it;
//! - serves, in the thin runner ([`web`], [`mqtt`], the `tocada-hall`
//!   binary), the arbiter's page behind a login ([`auth`]) and the public
//!   PGN feed, configured by its own TOML file ([`config`]), and, if
//!   configured, pushes the round's PGN to a live broadcast ([`push`]);
//! - takes a round's pairings from the pairing program (TRF-16 or CSV,
//!   [`pairings`]) by command or from the arbiter's page, without a
//!   restart, and gives the round's results back ([`results`]).

pub mod auth;
pub mod cli;
pub mod config;
pub mod game;
pub mod ingest;
pub mod mqtt;
pub mod pairings;
pub mod push;
pub mod results;
pub mod rounds;
pub mod runner;
pub mod serve;
pub mod store;
pub mod web;

pub use auth::{
    Attempt, AuthError, Backoff, BackoffPolicy, FormKey, HashError, Logins, hash_password,
    verify_password,
};
pub use config::{HallConfig, Limits};
pub use game::{Added, ReportedGame, RulingEntry};
pub use ingest::{
    BoardView, Counters, Dropped, Hall, Ingested, MAX_CLOCK_MS, MAX_GAME, MAX_PAYLOAD, MAX_SEQ,
    Pairing, Quotas, Round, RulingView, capped,
};
pub use pairings::{BoardPairing, PairedPlayer, PairingsError, PairingsErrorKind};
pub use results::BoardResult;
pub use store::{HallStore, ImportedRound};
