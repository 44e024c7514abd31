//! The JSON Lines format of `tocada replay`: a script of events in, the
//! referee's effects out.
//!
//! Each input line is one object with `t` (milliseconds, never decreasing)
//! and `ev` (the event), plus the event's own fields:
//!
//! ```text
//! {"t":0,"ev":"setup","time_control":"300+2","mode":"blitz"}
//! {"t":0,"ev":"press","side":"black"}
//! {"t":1500,"ev":"lift","sq":"e2"}
//! {"t":1700,"ev":"place","sq":"e4","piece":"P"}
//! {"t":1900,"ev":"press","side":"white"}
//! {"t":9000,"ev":"end"}
//! ```
//!
//! The events and their fields:
//!
//! - `setup`, first line only, every field optional: `time_control` (PGN
//!   `TimeControl` grammar, `"40/5400+30:1800+30"`), `black_time_control`
//!   (Black's own when it differs, `"240+2"` in Armageddon), `draw_odds`
//!   (`"white"` or `"black"`: who wins a drawn game), `increment_mode`
//!   (`fischer` `bronstein` `delay`), `mode` (`standard` `rapid` `blitz`),
//!   `enforcement` (`strict` `claim` `record`), `laws` (`fide-2023`, the
//!   default and never written, `fide-2023-unsupervised`, `regence-1858`),
//!   `min_press_gap_ms`,
//!   `knock_window_ms`, `fen` (the starting position). Without a setup line
//!   the game plays under the default rules.
//! - `press` `adjust` `draw` `decline` `resign` `claim`: `side` (`claim`:
//!   that his opponent broke article 4, 4.8).
//! - `choose`: `side` and `option`, the answer to a `choice` effect (the
//!   1858 laws' penalties): `{"t":9000,"ev":"choose","side":"black","option":"take"}`.
//! - `lift` `touch` `untouch`: `sq`; `place`: `sq` and optionally `piece`
//!   (a FEN letter); `promote`: `piece` (`q` `r` `b` `n`).
//! - `pause` `resume` `end` `checkpoint`: nothing else. `end` and
//!   `checkpoint` both let time pass up to `t` (a flag due by then falls);
//!   `end` ends the script, `checkpoint` does not. The daemon stores a
//!   `checkpoint` every half second while a clock runs with no other event,
//!   so that a game restored after a power cut resumes from at most that
//!   long before the cut: `{"t":61500,"ev":"checkpoint"}`. It decides
//!   nothing, so a game replays to the same effects with or without them.
//!   While the board is silent the daemon holds the referee's time back to
//!   where the board's news is complete, and says how far the clock ran
//!   meanwhile in `ran_to`: `{"t":59500,"ev":"checkpoint","ran_to":61500}`
//!   lets time pass up to 59500 only, and a game restored from it is
//!   charged up to 61500 (never more than 2 s past `t`:
//!   [`RAN_TO_AT_MOST_MS`]).
//! - `restart`: optionally `ms`. The daemon came back after a crash or a
//!   power cut at `t`, the game's last stored instant, the clock off for
//!   `ms` by the wall clock (absent when it cannot tell):
//!   `{"t":61500,"ev":"restart","ms":205000}`, after the `pause` the
//!   restored game comes back in. It decides nothing; the PGN says it.
//! - `players`: `board`, `white`, `black` (names, `Last, First`), and
//!   optionally `round`, `white_elo`, `black_elo`, `white_fide_id`,
//!   `black_fide_id`: who plays, as the hall's pairing said when the game
//!   began. Only the line right after `setup`
//!   ([`FaultKind::PlayersNotAfterSetup`] elsewhere); the daemon writes it
//!   when a game begins under a pairing, so that a restore, the PGN from
//!   the lines ([`pgn_from_lines`]) and a replay name the same players.
//!   It decides nothing:
//!   `{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf"}`.
//! - `set_time`: `side` and `ms`, the main time the arbiter sets;
//!   `set_moves`: `side` and `n`, the moves he has completed. Honoured only
//!   while paused (6.10.2):
//!
//! ```text
//! {"t":60000,"ev":"pause"}
//! {"t":65000,"ev":"set_time","side":"white","ms":1500000}
//! {"t":66000,"ev":"set_moves","side":"black","n":20}
//! {"t":70000,"ev":"resume"}
//! ```
//!
//! - `waive`, `takeback`: nothing else; `adjudicate`: `result` (`1-0`
//!   `0-1` `1/2-1/2`) and `reason` (the arbiter's words, at most 80 bytes).
//!   The arbiter's acts, honoured only while paused like the corrections.
//!
//! A field that does not belong to its event is an error, as is one no
//! event has. [`line_to_json`] writes lines [`parse_line`] reads back the
//! same: the daemon records its games in this format and rebuilds them by
//! replaying.
//!
//! Each output line is one effect with the instant it happened:
//!
//! ```text
//! {"t":0,"effect":"started","side":"white"}
//! {"t":1900,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":300100,"black_ms":300000}
//! {"t":65000,"effect":"corrected","side":"white","ms":1500000,"completed":20}
//! {"t":66000,"effect":"takeback","side":"black","n":20,"san":"Nf6"}
//! {"t":67000,"effect":"waived","side":"white","law":"4.3.1"}
//! {"t":68000,"effect":"claim","side":"black","law":"4.3.2","upheld":true}
//! {"t":69000,"effect":"result","result":"1-0","reason":"adjudicated","detail":"Black left the hall"}
//! ```
//!
//! The wire format lives here and only here: the referee's types carry no
//! serde, so the core stays free to change shape while this format, which
//! scripts and recorded games depend on, stays put.
//!
//! # One reader, one loop, a policy per caller
//!
//! This module is the only code that reads and writes the format, and the
//! only loop that feeds its lines to a referee:
//!
//! - [`line`](mod@line): one line, a file per direction and kind: an event
//!   read ([`parse_line`], with [`ParseLineError`]) and written
//!   ([`line_to_json`], [`input_to_json`]), an effect written
//!   ([`effect_to_json`], [`effect_to_value`]) and read back
//!   ([`parse_effect_line`], for the simulator's log and the hall), and the
//!   fields as they are on the wire;
//! - [`reader`]: the sans-IO [`Reader`]: raw lines in, numbered and
//!   checked [`Line`]s or [`Fault`]s out, as a [`Policy`] says
//!   ([`policy`]: the three below);
//! - [`feed`]: [`Feed`], the one loop: it reads raw lines through its own
//!   [`Reader`], gives each to its game (the players' buttons read as the
//!   clock reads them, [`Controls`](crate::session::Controls)), hands the
//!   effects to a sink and builds the [`Fault`] it stops at. `tocada
//!   replay`, [`restore`] (which rebuilds a stored game into a
//!   [`Session`](crate::session::Session)), [`pgn_from_lines`], the hall
//!   and the publisher all feed through it;
//! - [`replay`](mod@replay): the `tocada replay` command; [`pgn`](mod@pgn):
//!   a stored game's lines as PGN ([`pgn_from_lines`]).
//!
//! `tocada sim --script` and `tocada run` with the simulated board read a
//! script with a [`Reader`] and play it on the device models: the daemon's
//! session then rules it with the same [`Controls`](crate::session::Controls),
//! so the three rule a script alike (tests/script_paths.rs holds them to it).
//!
//! Every caller reads through a [`Reader`] under one of three policies, so
//! the same input means the same thing everywhere:
//!
//! | | `tocada replay`, `sim --script` | restore after a crash, [`pgn_from_lines`] | simulator's standard input |
//! |---|---|---|---|
//! | policy | [`Policy::REPLAY`] | [`Policy::RESTORE`] | [`Policy::LIVE`] |
//! | bad line | stop: exit 65, the effects before it written | stop: the game keeps every line before it, the fault logged (restore) or noted in the PGN, whose result is then `*` | skipped, reported on stderr |
//! | time going backwards | a bad line | restore: a bad line, as is one that jumped ahead of the lines around it or came long after the line before while a clock ran ([`restore`]); PGN: clamped to the line before | clamped (`t` is not used: arrival time counts) |
//! | last line without `\n` | read like any other | read like any other | if it does not parse, cut short: dropped, reported |
//! | second `setup`, line after `end` | bad lines | bad lines | a `setup` chooses the next game's rules; `end` ends nothing |
//!
//! A bad line is one that is not UTF-8, does not parse ([`ParseLineError`])
//! or breaks the order above ([`FaultKind`]). All three take a UTF-8 byte
//! order mark at the start of the input, `\r\n` line endings and blank
//! lines (counted for line numbers); an empty input is no lines. A game
//! whose first line is not a valid `setup` cannot be restored at all
//! ([`RestoreError`]): the daemon closes it as
//! `*`. The store is handed lines as values ([`Line`]) and never reads one
//! back; a restore reads each stored line once.
//!
//! Lines are numbered from 1, blank lines included.

pub mod feed;
pub mod line;
pub mod pgn;
pub mod policy;
pub mod reader;
pub mod replay;

pub use feed::{Feed, RAN_TO_AT_MOST_MS, RestoreError, Restored, restore};
pub use line::{
    Event, Line, ParseEffectError, ParseLineError, effect_to_json, effect_to_value, input_to_json,
    line_to_json, parse_effect_line, parse_line, restored_to_json,
};
pub use pgn::{PgnError, pgn_from_lines, pgn_from_lines_for};
pub use policy::{Games, LastLine, OnBadLine, OnTimeBackwards, Policy};
pub use reader::{Entry, Fault, FaultKind, Read, Reader};
pub use replay::{ReplayError, Replayed, open, replay};
