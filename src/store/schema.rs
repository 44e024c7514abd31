//! The game database's schema and its migrations, versioned with
//! `PRAGMA user_version`.
//!
//! Each entry of `MIGRATIONS` takes the schema from its index to the next
//! version; a database at version N runs entries N.. in one transaction, so
//! a clock updated in the field upgrades its store on the next start and a
//! power cut mid-upgrade leaves the old version intact. A future version
//! appends an entry here and never edits an old one.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Version 1: games and the replay lines of their input events.
///
/// `game.date` is the local calendar day the game started, in PGN form
/// (`YYYY.MM.DD`), fixed when the game begins so that a later change of
/// time zone does not move old games. `result` stays NULL until the game
/// is finished: that is how an unfinished game is found after a power cut.
/// `event.line` is one line of the `tocada replay` format, so that
/// `select line from event where game = N order by seq` is a replayable
/// script.
const V1: &str = "
CREATE TABLE game (
    id INTEGER PRIMARY KEY,
    started_at INTEGER NOT NULL,
    date TEXT NOT NULL,
    preset TEXT NOT NULL,
    white_left INTEGER NOT NULL,
    result TEXT,
    finished_at INTEGER,
    pgn TEXT
);
CREATE INDEX game_by_date ON game(date);
CREATE TABLE event (
    game INTEGER NOT NULL REFERENCES game(id),
    seq INTEGER NOT NULL,
    t INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
";

/// Version 2: the lines a restore could not take, set aside rather than
/// deleted.
///
/// A stored line that does not parse or whose time cannot be stops a
/// restore there; that line and every later line of its game are moved
/// here verbatim, under the `seq` they had, with why, and when
/// (`set_aside_at`, Unix seconds). `event` keeps only lines that replay, so
/// `select line from event where game = N order by seq` stays a script; a
/// game's next event takes the `seq` after the highest of both tables, so
/// no row is ever used twice.
const V2: &str = "
CREATE TABLE set_aside (
    game INTEGER NOT NULL REFERENCES game(id),
    seq INTEGER NOT NULL,
    t INTEGER NOT NULL,
    line TEXT NOT NULL,
    reason TEXT NOT NULL,
    set_aside_at INTEGER NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
";

/// Every migration, in order: entry `i` takes version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[V1, V2];

/// The oldest version a reader that never migrates (`tocada export`, the
/// publisher) still reads: version 2 only added `set_aside`, which they do
/// not read.
pub const READS_FROM: i64 = 1;

/// The schema version this tocada writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// The version recorded in the file: 0 for a new, empty database.
pub(super) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Refuses, without changing anything, a database of a newer schema or a
/// version-0 one that already has tables of its own (another program's).
pub(super) fn check(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let found = version(conn)?;
    if !(0..=VERSION).contains(&found) {
        return Err(StoreError::Schema {
            found,
            expected: VERSION,
        });
    }
    if found == 0 {
        let tables: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'",
            [],
            |row| row.get(0),
        )?;
        if tables > 0 {
            return Err(StoreError::NotAGameStore {
                path: path.to_owned(),
            });
        }
    }
    Ok(())
}

/// Brings the schema up to [`VERSION`], creating it in an empty database.
/// A newer schema, or a version-0 database that already has tables of its
/// own, is refused and left untouched.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    // Already current: nothing to write, so no write lock to wait for (a
    // lock someone else holds then costs a start nothing: the journal
    // retries its commits, and reading never waits in WAL mode).
    if version(conn)? == VERSION {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Again under the write lock: another process may have written since.
    check(&tx, path)?;
    let found = version(&tx)?;
    // `found` is in 0..=VERSION here, so the cast cannot wrap.
    for sql in &MIGRATIONS[found as usize..] {
        tx.execute_batch(sql)?;
    }
    if found < VERSION {
        tx.pragma_update(None, "user_version", VERSION)?;
    }
    tx.commit()?;
    Ok(())
}
