//! The games in SQLite, so that a game survives a crash or a power cut.
//!
//! Every input event the referee receives is stored as one line of the
//! `tocada replay` format ([`crate::transcript`]), the setup line first, and a
//! game is rebuilt by replaying its lines into a fresh referee. The stored
//! lines of game 3 are themselves a script:
//!
//! ```text
//! sqlite3 games.sqlite "select line from event where game=3 order by seq" | tocada replay
//! ```
//!
//! The database lives in the state directory as [`DB_FILE`], in WAL mode
//! with `synchronous=FULL`: a commit is on the disk when it returns, and
//! readers (`tocada export`) never block the writer. Its schema is
//! versioned and migrated on open ([`schema`]).
//!
//! [`Store`] is the plain, blocking store. The daemon holds a [`Journal`]
//! instead: a writer thread that owns the store, so that storing an event
//! never delays a clock switch.
//!
//! Lines are handed to the store as values ([`Line`]): it writes each out
//! once and never reads one back. Reading them is the transcript's
//! business ([`crate::transcript::restore`] reads each stored line once).
//!
//! Nothing stored is ever overwritten or deleted. A stored line a restore
//! cannot take (damaged, or stamped at a time that cannot be) is moved with
//! every later line of its game to the `set_aside` table
//! ([`Store::set_aside_from`], [`Store::set_aside`]), verbatim and with
//! why, and the game's next events take rows after the highest ever used.

mod calendar;
mod error;
mod journal;
pub mod schema;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::transcript::{Event, Line, line_to_json};

pub use calendar::{DateError, DateErrorKind, pgn_date_from_iso};
pub use error::StoreError;
pub use journal::Journal;

use std::path::PathBuf;

/// The database's file name in the state directory.
pub const DB_FILE: &str = "games.sqlite";

/// How long a write waits for a lock held by another connection (someone
/// writing with `sqlite3` by hand) before it fails and is retried.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(1);

/// A game's id, SQLite's rowid.
pub type GameId = i64;

/// SQL for the local calendar day of a Unix time `?1`, in PGN form. SQLite
/// applies the system's time zone, so no time zone crate is needed.
const LOCAL_PGN_DATE: &str = "strftime('%Y.%m.%d', ?1, 'unixepoch', 'localtime')";

/// A game about to start.
#[derive(Debug, Clone, Copy)]
pub struct NewGame<'a> {
    /// When the game started, by the wall clock.
    pub started_at: SystemTime,
    /// The name of the time control preset chosen, e.g. `blitz 5+3`.
    pub preset: &'a str,
    /// Whether White's lever is on the clock's left.
    pub white_left: bool,
    /// The game's `setup` line, stored as event 0: a value, written out
    /// once by the store, never read back.
    pub setup: &'a Line,
}

/// A stored game, for recovery or export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGame {
    /// Its id.
    pub id: GameId,
    /// The preset it was started with.
    pub preset: String,
    /// Whether White's lever is on the clock's left.
    pub white_left: bool,
    /// When it started, to the second.
    pub started_at: SystemTime,
    /// The local day it started, `YYYY.MM.DD`, as the PGN `Date` tag wants.
    pub date: String,
    /// Its replay lines: the setup line first, then every event in order.
    pub lines: Vec<String>,
    /// The `seq` of each line: 0, 1, 2... but for the rows of lines set
    /// aside, which are never used again.
    pub seqs: Vec<i64>,
}

/// A stored line that a restore could not take, kept aside with why
/// ([`Store::set_aside_from`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Its place in its game, as it was stored.
    pub seq: i64,
    /// Its instant as stored beside it, milliseconds.
    pub t: i64,
    /// Its text, verbatim.
    pub line: String,
    /// Why it was set aside.
    pub reason: String,
}

/// A finished game, as exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedGame {
    /// Its id.
    pub id: GameId,
    /// The local day it started, `YYYY.MM.DD`.
    pub date: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Its PGN, as written when it finished.
    pub pgn: String,
}

/// One stored event, as a follower of the store reads it
/// ([`Store::events_from`]): its place, its instant and its replay line,
/// verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The game it belongs to.
    pub game: GameId,
    /// Its place in the game, from 0 (the setup line).
    pub seq: i64,
    /// Its instant in the game, milliseconds.
    pub t: i64,
    /// Its replay line, as stored.
    pub line: String,
}

/// Where the store stands, read at one instant: what a follower joining
/// it now needs to choose where to begin ([`Store::tip`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tip {
    /// The game begun last that has no result, if any.
    pub unfinished: Option<GameId>,
    /// The last event stored, by game then seq: `(game, seq)`.
    pub last_event: Option<(GameId, i64)>,
}

/// How the store keeps its commits, as SQLite reports it for this
/// connection: for the daemon's log and for tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Durability {
    /// `wal` for a file (`memory` for an in-memory store).
    pub journal_mode: String,
    /// `full`: every commit is synced to the disk.
    pub synchronous: String,
}

/// The game store: one SQLite connection.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens the database at `path`, creating the file if needed (not its
    /// directory: the state directory is the installer's), in WAL mode with
    /// `synchronous=FULL`, and creates or migrates its schema.
    ///
    /// Everything is checked before anything is changed: a file that is not
    /// a tocada game store or is from a newer tocada, one this process may
    /// not write, and one failing SQLite's `integrity_check` are refused
    /// and left exactly as they were (not even switched to WAL).
    ///
    /// A state directory this user may not write (SQLite must create the
    /// store and its `-wal` and `-shm` files there) is named as such
    /// ([`StoreError::DirectoryNotWritable`]), not as SQLite's "unable to
    /// open database file" or "attempt to write a readonly database".
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_here(path).map_err(|err| unwritable_directory(path, err))
    }

    fn open_here(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path).map_err(|err| opening(path, err))?;
        let mut store = Store { conn };
        store.configure().map_err(|err| opened(path, err))?;
        schema::check(&store.conn, path).map_err(|err| opened(path, err))?;
        if store
            .conn
            .is_readonly(rusqlite::MAIN_DB)
            .map_err(|err| opened(path, err.into()))?
        {
            return Err(StoreError::ReadOnly {
                path: path.to_owned(),
            });
        }
        store.check_integrity(path)?;
        let mode: String = store
            .conn
            .pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0))
            .map_err(|err| opened(path, StoreError::Sqlite(err)))?;
        if !mode.eq_ignore_ascii_case("wal") {
            // Still durable with a rollback journal, only slower: keep the clock going.
            tracing::warn!(path = %path.display(), mode, "game store: WAL refused by the file system");
        }
        schema::migrate(&mut store.conn, path).map_err(|err| opened(path, err))?;
        Ok(store)
    }

    /// SQLite's `integrity_check`, whole: a file damaged by a failing card is
    /// refused rather than written on and read back wrong.
    fn check_integrity(&self, path: &Path) -> Result<(), StoreError> {
        let mut statement = self
            .conn
            .prepare("PRAGMA integrity_check(10)")
            .map_err(|err| opened(path, err.into()))?;
        let problems = match statement
            .query_map([], |row| row.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        {
            Ok(problems) => problems,
            // Damaged so badly that the check itself cannot read it.
            Err(err) if err.sqlite_error_code() == Some(ErrorCode::DatabaseCorrupt) => {
                vec![err.to_string()]
            }
            Err(err) => return Err(opened(path, err.into())),
        };
        if problems.len() == 1 && problems[0] == "ok" {
            return Ok(());
        }
        Err(StoreError::Corrupt {
            path: path.to_owned(),
            problems: problems.join("; "),
        })
    }

    /// Opens an existing database without writing to it, for `tocada
    /// export`: never creates, migrates or locks out the daemon. The
    /// schema must be exactly this tocada's.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|err| opening(path, err))?;
        let store = Store { conn };
        store
            .conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|err| opened(path, StoreError::Sqlite(err)))?;
        let found = schema::version(&store.conn).map_err(|err| opened(path, err.into()))?;
        if found == 0 {
            return Err(StoreError::NotAGameStore {
                path: path.to_owned(),
            });
        }
        if !(schema::READS_FROM..=schema::VERSION).contains(&found) {
            return Err(StoreError::Schema {
                found,
                expected: schema::VERSION,
            });
        }
        Ok(store)
    }

    /// A store in memory, gone when dropped: for tests and the simulator.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut store = Store {
            conn: Connection::open_in_memory()?,
        };
        store.configure()?;
        schema::migrate(&mut store.conn, Path::new(":memory:"))?;
        Ok(store)
    }

    /// Settings of this connection that the file does not keep.
    fn configure(&self) -> Result<(), StoreError> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn.pragma_update(None, "foreign_keys", true)?;
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        // The store runs a handful of fixed statements thousands of times a
        // game; without the planner's stability guarantee SQLite prepares a
        // statement again whenever a bound value might change its plan, at
        // every clock checkpoint.
        self.conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        Ok(())
    }

    /// How long a write waits for another connection's lock before failing.
    pub fn set_busy_timeout(&self, timeout: Duration) -> Result<(), StoreError> {
        Ok(self.conn.busy_timeout(timeout)?)
    }

    /// The journal mode and synchronous setting in force.
    pub fn durability(&self) -> Result<Durability, StoreError> {
        let journal_mode: String = self
            .conn
            .pragma_query_value(None, "journal_mode", |row| row.get(0))?;
        let synchronous: i64 = self
            .conn
            .pragma_query_value(None, "synchronous", |row| row.get(0))?;
        let synchronous = match synchronous {
            0 => "off",
            1 => "normal",
            2 => "full",
            3 => "extra",
            _ => "unknown",
        };
        Ok(Durability {
            journal_mode: journal_mode.to_ascii_lowercase(),
            synchronous: synchronous.to_owned(),
        })
    }

    /// Stores a new game and its setup line as event 0; returns its id.
    pub fn begin_game(&mut self, game: &NewGame) -> Result<GameId, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let id = insert_game(&tx, game, None)?;
        tx.commit()?;
        Ok(id)
    }

    /// Stores events of a game, in order, in one transaction: all or none.
    /// Each must be an event (not `setup`) no earlier than the game's last
    /// stored line, so that the stored game always replays. The lines are
    /// values: the store writes each out once and never reads it back.
    pub fn append(&mut self, game: GameId, events: &[Line]) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        insert_events(&tx, game, events)?;
        tx.commit()?;
        Ok(())
    }

    /// Records a game's result and its PGN; nothing more is stored for it.
    pub fn finish(&mut self, game: GameId, result: &str, pgn: &str) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        set_result(&tx, game, result, pgn)?;
        tx.commit()?;
        Ok(())
    }

    /// Sets a game's events from `seq` on aside, verbatim, with `reason`,
    /// and returns their lines: for a stored line the game cannot be
    /// replayed past (a damaged sector, a time that cannot be). Nothing is
    /// lost: the lines move to the `set_aside` table in one transaction
    /// ([`Store::set_aside`] reads them), so that the game's lines stay a
    /// script that replays and the events stored after the restart follow
    /// the last good one; their `seq`s are never used again.
    pub fn set_aside_from(
        &mut self,
        game: GameId,
        seq: i64,
        reason: &str,
    ) -> Result<Vec<String>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        check_open(&tx, game)?;
        let lines = tx
            .prepare("SELECT line FROM event WHERE game = ?1 AND seq >= ?2 ORDER BY seq")?
            .query_map(rusqlite::params![game, seq], |row| row.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        tx.execute(
            "INSERT INTO set_aside (game, seq, t, line, reason, set_aside_at) \
             SELECT game, seq, t, line, ?3, unixepoch() FROM event WHERE game = ?1 AND seq >= ?2",
            rusqlite::params![game, seq, reason],
        )?;
        tx.execute(
            "DELETE FROM event WHERE game = ?1 AND seq >= ?2",
            rusqlite::params![game, seq],
        )?;
        tx.commit()?;
        Ok(lines)
    }

    /// The lines of a game set aside by a restore, in `seq` order.
    pub fn set_aside(&self, game: GameId) -> Result<Vec<SetAside>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT seq, t, line, reason FROM set_aside WHERE game = ?1 ORDER BY seq",
        )?;
        let rows = statement
            .query_map([game], |row| {
                Ok(SetAside {
                    seq: row.get(0)?,
                    t: row.get(1)?,
                    line: row.get(2)?,
                    reason: row.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The id the next game gets: one more than the largest so far.
    pub fn next_game_id(&self) -> Result<GameId, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT coalesce(max(id), 0) + 1 FROM game", [], |row| {
                row.get(0)
            })?)
    }

    /// The game begun last that has no result, with its lines: the one to
    /// recover after a crash. Begun last by id, not by `started_at`: a Pi
    /// without a real-time clock may start a game before its time is set.
    pub fn unfinished(&self) -> Result<Option<SavedGame>, StoreError> {
        let id: Option<GameId> = self
            .conn
            .query_row(
                "SELECT id FROM game WHERE result IS NULL ORDER BY id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()?;
        match id {
            Some(id) => self.game(id),
            None => Ok(None),
        }
    }

    /// A game and its lines, finished or not.
    pub fn game(&self, id: GameId) -> Result<Option<SavedGame>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT preset, white_left, started_at, date FROM game WHERE id = ?1",
                [id],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, bool>(1)?,
                        row.get::<_, i64>(2)?,
                        row.get::<_, String>(3)?,
                    ))
                },
            )
            .optional()?;
        let Some((preset, white_left, started_at, date)) = row else {
            return Ok(None);
        };
        let mut statement = self
            .conn
            .prepare_cached("SELECT seq, line FROM event WHERE game = ?1 ORDER BY seq")?;
        let rows = statement
            .query_map([id], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let (seqs, lines) = rows.into_iter().unzip();
        Ok(Some(SavedGame {
            id,
            preset,
            white_left,
            started_at: from_unix_seconds(started_at),
            date,
            lines,
            seqs,
        }))
    }

    /// Every finished game, oldest first; with `since` (`YYYY-MM-DD`), only
    /// those started on that local day or later.
    pub fn finished_since(&self, since: Option<&str>) -> Result<Vec<FinishedGame>, StoreError> {
        let since = since
            .map(pgn_date_from_iso)
            .transpose()
            .map_err(StoreError::BadDate)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT id, date, result, pgn FROM game
             WHERE result IS NOT NULL AND pgn IS NOT NULL AND (?1 IS NULL OR date >= ?1)
             ORDER BY started_at, id",
        )?;
        let games = statement
            .query_map([since], |row| {
                Ok(FinishedGame {
                    id: row.get(0)?,
                    date: row.get(1)?,
                    result: row.get(2)?,
                    pgn: row.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(games)
    }
}

/// Following the store from another process (the publisher): reads that
/// never write, so a read-only connection does.
impl Store {
    /// SQLite's `data_version`: it changes when another connection has
    /// committed since this one last looked, so a follower polls it and
    /// reads only when something new was stored.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "data_version", |row| row.get(0))?)
    }

    /// Up to `limit` stored events from `(game, seq)` on, in store order
    /// (by game, then by seq): one descent of the `(game, seq)` key, then
    /// a walk along it, however large the store.
    pub fn events_from(
        &self,
        game: GameId,
        seq: i64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self.conn.prepare_cached(EVENTS_FROM)?;
        let events = statement
            .query_map(rusqlite::params![game, seq, limit], |row| {
                Ok(StoredEvent {
                    game: row.get(0)?,
                    seq: row.get(1)?,
                    t: row.get(2)?,
                    line: row.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(events)
    }

    /// The unfinished game and the last event, in one statement: one
    /// snapshot. Read apart, a game begun between the two reads (the daemon
    /// writes while a follower joins) would show as no game in progress
    /// and its first events as the last stored, and a follower starting
    /// after them would never send them.
    pub fn tip(&self) -> Result<Tip, StoreError> {
        Ok(self.conn.query_row(
            "SELECT (SELECT id FROM game WHERE result IS NULL ORDER BY id DESC LIMIT 1), \
                    last.game, last.seq \
             FROM (SELECT NULL) LEFT JOIN \
                  (SELECT game, seq FROM event ORDER BY game DESC, seq DESC LIMIT 1) AS last",
            [],
            |row| {
                let last_game: Option<GameId> = row.get(1)?;
                let last_seq: Option<i64> = row.get(2)?;
                Ok(Tip {
                    unfinished: row.get(0)?,
                    last_event: last_game.zip(last_seq),
                })
            },
        )?)
    }
}

/// The events from a place on: a row value, so that SQLite walks the
/// primary key from `(?1, ?2)` rather than scanning the table.
const EVENTS_FROM: &str = "SELECT game, seq, t, line FROM event \
     WHERE (game, seq) >= (?1, ?2) ORDER BY game, seq LIMIT ?3";

/// The local calendar day of `at` in PGN form (`YYYY.MM.DD`), computed the
/// way the store dates a game, for the `Date` tag of a game being recorded.
pub fn pgn_date(at: SystemTime) -> Result<String, StoreError> {
    let conn = Connection::open_in_memory()?;
    Ok(conn.query_row(
        &format!("SELECT {LOCAL_PGN_DATE}"),
        [unix_seconds(at)],
        |row| row.get(0),
    )?)
}

/// The instant of a game's setup line, or why it is not one.
fn check_setup(setup: &Line) -> Result<i64, StoreError> {
    if !matches!(setup.event, Event::Setup(_)) {
        return Err(StoreError::BadSetup("not a \"setup\" line".to_owned()));
    }
    i64::try_from(setup.t)
        .map_err(|_| StoreError::BadSetup(format!("t = {} is out of range", setup.t)))
}

/// Inserts a game row, under `id` if given (the journal chooses ids when a
/// game is queued), and its setup line.
fn insert_game(
    conn: &Connection,
    game: &NewGame,
    id: Option<GameId>,
) -> Result<GameId, StoreError> {
    let setup_t = check_setup(game.setup)?;
    let inserted = conn.execute(
        &format!(
            "INSERT INTO game (id, started_at, date, preset, white_left) \
             VALUES (?4, ?1, {LOCAL_PGN_DATE}, ?2, ?3)"
        ),
        rusqlite::params![
            unix_seconds(game.started_at),
            game.preset,
            game.white_left,
            id
        ],
    );
    if let (Some(id), Err(err)) = (id, &inserted)
        && err.sqlite_error_code() == Some(ErrorCode::ConstraintViolation)
    {
        // Someone else stored a game under this id since the journal
        // started (by hand): retrying can never succeed.
        return Err(StoreError::BadSetup(format!(
            "game id {id} is already taken"
        )));
    }
    inserted?;
    let id = conn.last_insert_rowid();
    conn.execute(
        "INSERT INTO event (game, seq, t, line) VALUES (?1, 0, ?2, ?3)",
        rusqlite::params![id, setup_t, line_to_json(game.setup)],
    )?;
    Ok(id)
}

/// Whether a game is finished: one lookup by its id.
const GAME_FINISHED: &str = "SELECT result IS NOT NULL FROM game WHERE id = ?1";

/// Whether a game is finished, with its last stored event's `seq` and `t`
/// and its last line set aside's `seq`: what storing events must know,
/// asked in one statement (no row: no such game). Each tail is one descent
/// of its table's `(game, seq)` key, not a scan of the game. The last
/// event's `t` is the game's latest, since [`insert_events`] refuses a line
/// earlier than the one before; a `seq` set aside is never used again.
const GAME_OPEN_TAIL: &str = "SELECT result IS NOT NULL, \
     (SELECT seq FROM event WHERE game = ?1 ORDER BY seq DESC LIMIT 1), \
     (SELECT t FROM event WHERE game = ?1 ORDER BY seq DESC LIMIT 1), \
     (SELECT seq FROM set_aside WHERE game = ?1 ORDER BY seq DESC LIMIT 1) \
     FROM game WHERE id = ?1";

/// Stores one event.
const INSERT_EVENT: &str = "INSERT INTO event (game, seq, t, line) VALUES (?1, ?2, ?3, ?4)";

/// Every statement run to store an event: their cost must not grow with
/// the game (a 7-hour game has a million events).
#[cfg(test)]
const PER_EVENT: [&str; 2] = [GAME_OPEN_TAIL, INSERT_EVENT];

/// Checks that `game` exists and has no result yet, and returns its next
/// `seq`, after every one ever used (lines set aside included), and its
/// latest `t` (0 and 0 for a game without events, which the store never
/// makes: the setup line is event 0).
fn open_tail(conn: &Connection, game: GameId) -> Result<(i64, i64), StoreError> {
    type Tail = (bool, Option<i64>, Option<i64>, Option<i64>);
    let tail: Option<Tail> = conn
        .prepare_cached(GAME_OPEN_TAIL)?
        .query_row([game], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?;
    match tail {
        None => Err(StoreError::NoSuchGame(game)),
        Some((true, ..)) => Err(StoreError::GameFinished(game)),
        Some((false, seq, t, aside)) => {
            let seq = seq.unwrap_or(-1).max(aside.unwrap_or(-1));
            Ok((seq + 1, t.unwrap_or(0)))
        }
    }
}

/// Checks that `game` exists and has no result yet.
fn check_open(conn: &Connection, game: GameId) -> Result<(), StoreError> {
    let finished: Option<bool> = conn
        .prepare_cached(GAME_FINISHED)?
        .query_row([game], |row| row.get(0))
        .optional()?;
    match finished {
        None => Err(StoreError::NoSuchGame(game)),
        Some(true) => Err(StoreError::GameFinished(game)),
        Some(false) => Ok(()),
    }
}

/// Checks and inserts events after the game's last one. Everything is
/// checked before anything is written, so a refused batch writes nothing
/// even inside a larger transaction.
fn insert_events(conn: &Connection, game: GameId, events: &[Line]) -> Result<(), StoreError> {
    let (next_seq, mut last_t) = open_tail(conn, game)?;
    let mut rows = Vec::with_capacity(events.len());
    for line in events {
        let t = millis(line.t)?;
        if matches!(line.event, Event::Setup(_)) {
            return Err(StoreError::BadLine(
                "\"setup\" is only the first line of a game".to_owned(),
            ));
        }
        if t < last_t {
            return Err(StoreError::BadLine(format!(
                "time went backwards: t = {t} after t = {last_t}"
            )));
        }
        last_t = t;
        rows.push((t, line));
    }
    let mut statement = conn.prepare_cached(INSERT_EVENT)?;
    for (seq, (t, line)) in (next_seq..).zip(rows) {
        statement.execute(rusqlite::params![game, seq, t, line_to_json(line)])?;
    }
    Ok(())
}

/// Checks and records a game's result.
fn set_result(conn: &Connection, game: GameId, result: &str, pgn: &str) -> Result<(), StoreError> {
    if !matches!(result, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Err(StoreError::BadResult(result.to_owned()));
    }
    check_open(conn, game)?;
    conn.execute(
        "UPDATE game SET result = ?2, pgn = ?3, finished_at = unixepoch() WHERE id = ?1",
        rusqlite::params![game, result, pgn],
    )?;
    Ok(())
}

/// Milliseconds as SQLite's signed integer; larger than 292 million years
/// is a bad line, not a panic.
fn millis(t: u64) -> Result<i64, StoreError> {
    i64::try_from(t).map_err(|_| StoreError::BadLine(format!("t = {t} is out of range")))
}

/// Seconds since the Unix epoch, negative before it (a Pi whose clock was
/// never set may think it is 1970, never earlier, but nothing panics).
fn unix_seconds(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_secs()).map_or(i64::MIN, |s| -s),
    }
}

fn from_unix_seconds(seconds: i64) -> SystemTime {
    let magnitude = Duration::from_secs(seconds.unsigned_abs());
    let at = if seconds >= 0 {
        UNIX_EPOCH.checked_add(magnitude)
    } else {
        UNIX_EPOCH.checked_sub(magnitude)
    };
    // Out of SystemTime's range only for a hand-edited row.
    at.unwrap_or(UNIX_EPOCH)
}

/// An error from opening `path`: a file that is not SQLite is named as such.
fn opening(path: &Path, err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase {
            path: path.to_owned(),
        },
        _ => StoreError::Open {
            path: path.to_owned(),
            source: err,
        },
    }
}

/// `err`, or, when it may come from a directory this user cannot write
/// (SQLite says "unable to open database file" or "attempt to write a
/// readonly database"), that directory named: tried by creating a file in
/// it, the one test that sees permissions, read-only mounts and immutable
/// directories alike.
fn unwritable_directory(path: &Path, err: StoreError) -> StoreError {
    let code = match &err {
        StoreError::Open { source, .. } | StoreError::Sqlite(source) => source.sqlite_error_code(),
        StoreError::ReadOnly { .. } => Some(ErrorCode::ReadOnly),
        _ => None,
    };
    if !matches!(code, Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)) {
        return err;
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(".{DB_FILE}.probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            err
        }
        // Missing: the caller creates the state directory, or says it cannot.
        Err(why) if why.kind() == std::io::ErrorKind::NotFound => err,
        Err(why) => StoreError::DirectoryNotWritable {
            dir,
            file: path.to_owned(),
            why,
        },
    }
}

/// SQLite reads the file only at the first statement, so "not a database"
/// shows up after opening: name it there too.
fn opened(path: &Path, err: StoreError) -> StoreError {
    match err {
        StoreError::Sqlite(err) => opening(path, err),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    #[test]
    fn unix_seconds_round_trip_on_both_sides_of_the_epoch() {
        // Linux's SystemTime spans every i64 second, so even a hand-edited
        // row at the extremes comes back as it was, without a panic.
        for seconds in [0, 1, 1_763_726_400, -86_400, i64::MIN, i64::MAX] {
            assert_eq!(unix_seconds(from_unix_seconds(seconds)), seconds);
        }
    }

    /// SQLite's virtual-machine steps to store one more event after
    /// `stored` events of the same game: a count, not a time, so a loaded
    /// machine cannot make it fail.
    fn steps_to_store_one_after(stored: u64) -> i64 {
        use rusqlite::StatementStatus;
        let mut store = Store::open_in_memory().unwrap();
        let setup = Line {
            t: 0,
            event: Event::Setup(Box::default()),
        };
        let game = store
            .begin_game(&NewGame {
                started_at: SystemTime::now(),
                preset: "rapid 10+0",
                white_left: true,
                setup: &setup,
            })
            .unwrap();
        let event = |t: u64| {
            let side = if t.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            };
            Line {
                t,
                event: Event::Input(crate::Input::Press(side)),
            }
        };
        let mut t = 1;
        while t <= stored {
            let batch: Vec<_> = (t..(t + 10_000).min(stored + 1)).map(event).collect();
            t += batch.len() as u64;
            store.append(game, &batch).unwrap();
        }
        for sql in PER_EVENT {
            store
                .conn
                .prepare_cached(sql)
                .unwrap()
                .reset_status(StatementStatus::VmStep);
        }
        store.append(game, &[event(t)]).unwrap();
        PER_EVENT
            .iter()
            .map(|sql| {
                let statement = store.conn.prepare_cached(sql).unwrap();
                assert_eq!(
                    statement.get_status(StatementStatus::FullscanStep),
                    0,
                    "{sql}"
                );
                i64::from(statement.get_status(StatementStatus::VmStep))
            })
            .sum()
    }

    #[test]
    fn storing_an_event_costs_the_same_at_any_length_of_game() {
        let early = steps_to_store_one_after(10);
        let late = steps_to_store_one_after(100_000);
        assert!(early > 0);
        assert_eq!(
            early, late,
            "VM steps to store an event after 10 and 100k events"
        );
    }

    #[test]
    fn following_the_store_walks_the_key_and_never_scans() {
        let store = Store::open_in_memory().unwrap();
        let plan: Vec<String> = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {EVENTS_FROM}"))
            .unwrap()
            .query_map(rusqlite::params![1, 0, 10], |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter()
                .any(|step| step.contains("SEARCH event USING PRIMARY KEY")),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }

    #[test]
    fn the_store_never_reads_back_a_line_it_was_handed() {
        // Lines come in as values and are written out once: no reader of
        // the format in the store's code.
        let reader = concat!("parse", "_line");
        for (file, source) in [
            ("store.rs", include_str!("store.rs")),
            ("store/journal.rs", include_str!("store/journal.rs")),
        ] {
            assert!(!source.contains(reader), "{file} reads lines back");
        }
    }

    #[test]
    fn the_tip_shows_the_game_in_progress_and_the_last_event() {
        let mut store = Store::open_in_memory().unwrap();
        let empty = Tip {
            unfinished: None,
            last_event: None,
        };
        assert_eq!(store.tip().unwrap(), empty);
        let setup = Line {
            t: 0,
            event: Event::Setup(Box::default()),
        };
        let new_game = NewGame {
            started_at: SystemTime::now(),
            preset: "rapid 10+0",
            white_left: true,
            setup: &setup,
        };
        let press = |t| Line {
            t,
            event: Event::Input(crate::Input::Press(Color::Black)),
        };
        let first = store.begin_game(&new_game).unwrap();
        assert_eq!(
            store.tip().unwrap(),
            Tip {
                unfinished: Some(first),
                last_event: Some((first, 0)),
            }
        );
        store.append(first, &[press(0), press(10)]).unwrap();
        assert_eq!(store.tip().unwrap().last_event, Some((first, 2)));
        store.finish(first, "1-0", "1-0").unwrap();
        assert_eq!(
            store.tip().unwrap(),
            Tip {
                unfinished: None,
                last_event: Some((first, 2)),
            }
        );
        let second = store.begin_game(&new_game).unwrap();
        assert!(second > first);
        assert_eq!(
            store.tip().unwrap(),
            Tip {
                unfinished: Some(second),
                last_event: Some((second, 0)),
            }
        );
    }

    #[test]
    fn pgn_dates_have_the_pgn_shape() {
        let date = pgn_date(SystemTime::now()).unwrap();
        assert_eq!(date.len(), 10, "{date}");
        assert_eq!(&date[4..5], ".");
        assert_eq!(&date[7..8], ".");
        assert!(date.starts_with("20"), "{date}");
    }
}
