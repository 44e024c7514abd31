//! What can go wrong with the game store, in words an operator can act on.

use std::fmt;
use std::path::PathBuf;

use super::{DateError, GameId};

/// Why the game store could not do what was asked.
#[derive(Debug)]
pub enum StoreError {
    /// The database file could not be opened or created.
    Open {
        /// The path as given.
        path: PathBuf,
        /// SQLite's reason.
        source: rusqlite::Error,
    },
    /// The file exists but is not an SQLite database.
    NotADatabase {
        /// The path as given.
        path: PathBuf,
    },
    /// An SQLite database, but not one of tocada's: it has other tables, or
    /// (opened read-only) no games schema at all.
    NotAGameStore {
        /// The path as given.
        path: PathBuf,
    },
    /// The schema is from a newer tocada, or (opened read-only) older than
    /// this one reads without migrating.
    Schema {
        /// `PRAGMA user_version` in the file.
        found: i64,
        /// The version this tocada writes.
        expected: i64,
    },
    /// The file may not be written by this process (its permissions, a
    /// read-only file system): every game would be lost.
    ReadOnly {
        /// The path as given.
        path: PathBuf,
    },
    /// The directory the store lives in may not be written by this process
    /// (its permissions, a read-only file system): SQLite cannot create
    /// the store nor its `-wal` and `-shm` files there.
    DirectoryNotWritable {
        /// The directory.
        dir: PathBuf,
        /// The store's file in it.
        file: PathBuf,
        /// What creating a file there said.
        why: std::io::Error,
    },
    /// The file fails SQLite's `integrity_check`.
    Corrupt {
        /// The path as given.
        path: PathBuf,
        /// What SQLite found, the first few problems.
        problems: String,
    },
    /// The setup line of a new game is not a replay `setup` line.
    BadSetup(String),
    /// A line to append is not a replay input line fit to follow the game.
    BadLine(String),
    /// A result that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
    BadResult(String),
    /// A date that is not a real `YYYY-MM-DD`.
    BadDate(DateError),
    /// No game with this id.
    NoSuchGame(GameId),
    /// The game already has a result: nothing more is stored for it.
    GameFinished(GameId),
    /// The journal's writer could not commit what was queued; it is kept
    /// and retried.
    NotCommitted {
        /// Operations still waiting.
        pending: usize,
        /// The last commit's error.
        cause: String,
    },
    /// The journal's writer thread is gone.
    JournalStopped,
    /// The journal was closed while its commits still failed (a lock held
    /// by another process, a full disk) and its wait ran out: these
    /// operations were never stored.
    Lost {
        /// Operations lost: events, games begun, results.
        lost: usize,
        /// The last commit's error.
        cause: String,
    },
    /// Any other SQLite failure: a full disk, an I/O error, a lock held too long.
    Sqlite(rusqlite::Error),
}

impl StoreError {
    /// Whether the operation itself is at fault (bad data, an unknown or
    /// finished game), so retrying it can never succeed; other errors come
    /// from the disk or the database and may pass.
    pub fn is_bad_request(&self) -> bool {
        matches!(
            self,
            StoreError::BadSetup(_)
                | StoreError::BadLine(_)
                | StoreError::BadResult(_)
                | StoreError::BadDate(_)
                | StoreError::NoSuchGame(_)
                | StoreError::GameFinished(_)
        )
    }
}

impl StoreError {
    /// The exit code ([`crate::exit`]) of a command that reads a store named
    /// on its command line (`export --db`): a file it cannot open is
    /// `EX_NOINPUT`, one that is not a game store it can read `EX_DATAERR`.
    pub fn exit_code_reading(&self) -> u8 {
        use crate::exit::{EX_DATAERR, EX_IOERR, EX_NOINPUT, EX_TEMPFAIL};
        match self {
            err if err.is_locked() => EX_TEMPFAIL,
            StoreError::Open { .. } => EX_NOINPUT,
            StoreError::NotADatabase { .. }
            | StoreError::NotAGameStore { .. }
            | StoreError::Schema { .. }
            | StoreError::Corrupt { .. } => EX_DATAERR,
            _ => EX_IOERR,
        }
    }

    /// The exit code ([`crate::exit`]) of a command that keeps games in a
    /// store named on its command line (`sim --db`), creating it if need be:
    /// as [`exit_code_reading`](Self::exit_code_reading), except that a file
    /// it cannot create or may not write is `EX_CANTCREAT`.
    pub fn exit_code_writing(&self) -> u8 {
        match self {
            err if err.is_locked() => crate::exit::EX_TEMPFAIL,
            StoreError::Open { .. }
            | StoreError::ReadOnly { .. }
            | StoreError::DirectoryNotWritable { .. } => crate::exit::EX_CANTCREAT,
            _ => self.exit_code_reading(),
        }
    }
}

impl StoreError {
    /// Whether another connection holds the database locked: a passing
    /// condition, worth waiting for.
    pub fn is_locked(&self) -> bool {
        match self {
            StoreError::Sqlite(err) | StoreError::Open { source: err, .. } => is_locked(err),
            _ => false,
        }
    }
}

/// Whether SQLite failed because another connection holds a lock.
fn is_locked(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Open { path, source } => {
                // SQLite's message often ends with the path again.
                let why = source.to_string();
                let why = why
                    .strip_suffix(&format!(": {}", path.display()))
                    .unwrap_or(&why);
                write!(f, "cannot open {}: {why}", path.display())
            }
            StoreError::NotADatabase { path } => {
                write!(f, "{} is not an SQLite database", path.display())
            }
            StoreError::NotAGameStore { path } => {
                write!(f, "{} is not a tocada game database", path.display())
            }
            StoreError::ReadOnly { path } => write!(
                f,
                "{} is read-only for this user: games could not be saved",
                path.display()
            ),
            StoreError::DirectoryNotWritable { dir, file, why } => write!(
                f,
                "the state directory {} cannot be written by this user ({why}): {} and its \
                 -wal and -shm files must be created there; make the directory writable by \
                 the user tocada runs as (under systemd, StateDirectory=tocada does) or set \
                 state.directory to one that is",
                dir.display(),
                file.file_name().map_or_else(
                    || file.display().to_string(),
                    |name| name.to_string_lossy().into_owned()
                )
            ),
            StoreError::Corrupt { path, problems } => write!(
                f,
                "{} fails SQLite's integrity check ({problems}); move it aside to start a new one",
                path.display()
            ),
            StoreError::Schema { found, expected } => write!(
                f,
                "game database schema version {found}, this tocada reads version {expected}"
            ),
            StoreError::BadSetup(why) => write!(f, "bad setup line: {why}"),
            StoreError::BadLine(why) => write!(f, "bad event line: {why}"),
            StoreError::BadResult(result) => write!(
                f,
                "bad result {result:?}: expected one of `1-0` `0-1` `1/2-1/2` `*`"
            ),
            StoreError::BadDate(err) => err.fmt(f),
            StoreError::NoSuchGame(id) => write!(f, "no game {id}"),
            StoreError::GameFinished(id) => write!(f, "game {id} is already finished"),
            StoreError::NotCommitted { pending, cause } => write!(
                f,
                "{pending} game store operation(s) not committed yet: {cause}"
            ),
            StoreError::JournalStopped => f.write_str("the game store's writer thread stopped"),
            StoreError::Lost { lost, cause } => write!(
                f,
                "{lost} game store operation(s) lost: still not committed when the wait ran out ({cause})"
            ),
            StoreError::Sqlite(err) => write!(f, "game database: {err}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Open { source, .. } => Some(source),
            StoreError::Sqlite(err) => Some(err),
            _ => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(err)
    }
}
