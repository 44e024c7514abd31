#![warn(missing_docs)]
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
//! - [`session`]: the clock as a club works it, sans-IO like the referee
//!   (`handle`-style calls, `poll_action`, `next_deadline`): the setup menu
//!   and presets, sides, pause and 6.10 corrections, one game at a time, and
//!   the face's [`face::View`] with the instant it next changes.
//! - [`transcript`]: the JSON Lines format of `tocada replay` (events in,
//!   effects out), its one reader and writer, and the one loop
//!   ([`transcript::Feed`]) that feeds its lines to a referee or a session,
//!   with a policy per caller for bad lines, time going backwards and a cut
//!   last line. A script is ruled alike by `tocada replay`, `tocada sim
//!   --script` and `tocada run`.
//! - [`gesture`]: how hands make a move on a sensor board: a move turned into
//!   the lifts and places a player makes, in the orders people use. Tests,
//!   benchmarks and the simulator use it.
//! - [`pgn`]: a game as PGN, with the clocks after each move and the
//!   referee's rulings as comments.
//! - [`players`]: the players a game begins under (round, board, names,
//!   ratings, FIDE ids) and how much of them a clock keeps, a leaf the
//!   session, the PGN and the replay format share; the hall's pairing
//!   message ([`broadcast::BoardPairing`]) converts into it at the edges.
//! - [`store`]: the games in SQLite, every input event as a replay line, so a
//!   game survives a power cut and is rebuilt by replaying it; a line that
//!   cannot be read is set aside, never deleted.
//! - [`export`]: `tocada export`, the PGN of the finished games in the store.
//! - [`exit`]: the exit codes of every command, after `sysexits.h`; [`cli`]:
//!   the command line, which `main.rs` parses and the man page documents.
//!
//! - [`face`]: the OLED's face, a pure function from a plain
//!   [`face::View`] to a [`frame::Frame`], the panel's picture in the
//!   SSD1306's page layout; [`words`]: the words the players read, on
//!   the face, in the log and in the PGN's comments.
//! - [`config`]: the daemon's TOML configuration (`/etc/tocada/tocada.toml`),
//!   every value checked at load time, and `tocada check-config`; its one
//!   loader reads the hall's file too.
//! - [`protocol`]: the bytes of the sensor board's I2C protocol v1, shared
//!   by its driver and its model; written once in the board core
//!   (`tocada-board`, `hardware/firmware/core`) and re-exported.
//! - [`controls`]: the front's buttons and levers and the board link's
//!   changes as plain values, a leaf: the drivers make them, the session
//!   rules on them, and neither imports the other.
//! - [`hardware`]: drivers for the sensor boards (tocada's own, the DIY reed
//!   board, DGT e-boards on USB and the DGT 3000 plugged into them), the
//!   OLED and the levers, generic over
//!   `embedded_hal::i2c::I2c` or a serial line, and the link that keeps a
//!   board talking.
//! - [`models`]: device models that implement the bus side of that trait, so
//!   the whole stack runs and is tested on a desktop. The protocol board's
//!   model runs the reference firmware's own logic, the `tocada-board` core.
//! - [`rig`]: the hardware behind one trait, implemented twice: the Pi's
//!   devices, and the same drivers on the device models.
//! - [`broadcast`]: the MQTT topics and messages between a clock's
//!   publisher and a hall, written once for both ends; [`broker`]: the
//!   broker's URL and the `user:password` login both ends give it, a leaf.
//! - `publish` (cargo feature `net`, on by default and in the package):
//!   `tocada publish`, the program beside the daemon that follows the game
//!   store read-only and publishes every event to the hall's MQTT broker.
//!   The daemon never uses it: the clock has no network code.
//! - [`hall`] (cargo feature `net`, on by default, never in the clock
//!   daemon's binary): `tocada hall`, which subscribes to a hall's clocks
//!   through the broker, rebuilds every game through the transcript, and
//!   serves the arbiter's page and the PGN feed.
//! - [`logging`]: the daemon's log, to the systemd journal under systemd and
//!   to stderr everywhere else.
//!
//! - [`daemon`]: `tocada run`, the thin tokio shell that owns a rig and one
//!   [`session::Session`], reads the board before it rules a press, draws
//!   the face in bounded writes between board polls, stores every input and
//!   restores an interrupted game after a restart; each a unit of its own,
//!   and its documentation walks one lift from the bus to the store and the
//!   face.
//! - `sim` (cargo feature `sim`, on by default): `tocada sim`, the same
//!   daemon on the models' rig, in the terminal or headless from a script
//!   in simulated time.
//!
//! Lower layers never import higher ones (`tests/layers.rs` keeps it so):
//! the referee imports nothing of the crate, the face only the frame,
//! [`controls`] and [`broker`] nothing at all; the drivers, models and rig
//! neither the session, the daemon nor the simulator, and the drivers not
//! the face; the session nothing of the hardware, the models, the replay
//! format or above; the PGN nothing of the replay format or above; the
//! daemon not the simulator; the clock's layers nothing of the publisher or
//! the hall, and the hall and the publisher nothing of each other or of the
//! clock's devices and session (they share [`broadcast`] and [`broker`]);
//! and no files of a room import each other in a circle.
//!
//! Everything that touches the world (the daemon, the I2C drivers and the
//! device models) sits around the referee and drives it the same way:
//! `handle(now, input)`, drain `poll_effect()`, sleep until `next_deadline()`.
//!
//! ```
//! use shakmaty::{Color, Square};
//! use tocada::{Effect, Input, Referee, Rules};
//!
//! let mut referee = Referee::new(Rules { time_control: "180+2".parse().unwrap(), ..Rules::default() });
//! referee.handle(0, Input::Press(Color::Black)).unwrap(); // Black starts White's clock
//! referee.handle(2_000, Input::Lift(Square::E2)).unwrap();
//! referee.handle(2_300, Input::Place(Square::E4, None)).unwrap();
//! referee.handle(2_600, Input::Press(Color::White)).unwrap();
//!
//! let effects: Vec<_> = std::iter::from_fn(|| referee.poll_effect()).collect();
//! assert_eq!(effects[0], (0, Effect::Started { side: Color::White }));
//! match &effects[1] {
//!     (2_600, Effect::Move(m)) => assert_eq!((m.san.as_str(), m.white_ms), ("e4", 180_000 - 2_600 + 2_000)),
//!     other => panic!("{other:?}"),
//! }
//! // Black's flag falls at 3:00 after White's press, unless he moves.
//! assert_eq!(referee.next_deadline(), Some(2_600 + 180_000));
//! ```

pub mod broadcast;
pub mod broker;
pub mod cli;
pub mod config;
pub mod controls;
pub mod daemon;
pub mod exit;
pub mod export;
pub mod face;
pub mod frame;
pub mod gesture;
#[cfg(feature = "net")]
pub mod hall;
pub mod hardware;
pub mod logging;
pub mod models;
pub mod pgn;
pub mod players;
pub mod protocol;
#[cfg(feature = "net")]
pub mod publish;
pub mod referee;
pub mod rig;
pub mod session;
#[cfg(feature = "sim")]
pub mod sim;
pub mod store;
pub mod transcript;
pub mod words;

pub use referee::{
    Adjudication, ArbiterWords, Choice, ChoiceOptions, CompletedMove, Effect, Enforcement,
    GameMode, IncrementMode, Input, Law, Laws, Millis, MoveText, ONE_SCAN_MS, Overtime, Reason,
    Referee, Rejection, Rules, Ruling, Stage, TimeControl, TimeWentBackwards,
};
pub use shakmaty::KnownOutcome;

/// The book's chapters that hold Rust examples (`docs/src/`), each included
/// as the documentation of an item here so that `cargo test` runs their
/// examples as doctests: the book cannot drift from the crate unnoticed.
#[cfg(doctest)]
mod book {
    /// "What the referee rules on": touch-move in strict enforcement.
    #[doc = include_str!("../docs/src/laws.md")]
    struct Laws;
    /// "How it is built": the referee driven by a fake clock.
    #[doc = include_str!("../docs/src/architecture.md")]
    struct Architecture;
}
