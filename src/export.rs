//! `tocada export`: the PGN of every finished game in the store, for the
//! arbiter's or the club's database.
//!
//! The store is opened read-only, so exporting while the daemon plays
//! neither blocks it nor changes the file. Games come oldest first,
//! separated by one blank line, each exactly as it was written when it
//! finished.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use crate::exit::{EX_IOERR, EX_USAGE};
use crate::store::{DateError, Store, StoreError, pgn_date_from_iso};

/// Where the daemon keeps its games unless configured otherwise.
pub const DEFAULT_DB: &str = "/var/lib/tocada/games.sqlite";

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    /// `--since` is not a real `YYYY-MM-DD` date.
    BadDate(DateError),
    /// The database could not be opened as a game store.
    Open(StoreError),
    /// Reading the games failed.
    Read(StoreError),
    /// Writing the PGN failed.
    Write(io::Error),
}

impl ExportError {
    /// The process exit code ([`crate::exit`]): a bad date is a usage
    /// error (64), a database that cannot be opened no input (66), a failed
    /// read or write an i/o error (74).
    pub fn exit_code(&self) -> u8 {
        match self {
            ExportError::BadDate(_) => EX_USAGE,
            ExportError::Open(err) | ExportError::Read(err) => err.exit_code_reading(),
            ExportError::Write(_) => EX_IOERR,
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::BadDate(err) => err.fmt(f),
            ExportError::Open(err) | ExportError::Read(err) => err.fmt(f),
            ExportError::Write(err) => write!(f, "cannot write: {err}"),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::BadDate(_) => None,
            ExportError::Open(err) | ExportError::Read(err) => Some(err),
            ExportError::Write(err) => Some(err),
        }
    }
}

/// Writes the PGN of every finished game started on `since` (`YYYY-MM-DD`,
/// local day) or later, oldest first, one blank line between games.
/// Returns how many games were written. The date is checked before the
/// database is opened, so a typo is a usage error whatever the file.
pub fn export(db: &Path, since: Option<&str>, out: &mut impl Write) -> Result<usize, ExportError> {
    if let Some(since) = since {
        pgn_date_from_iso(since).map_err(ExportError::BadDate)?;
    }
    let store = Store::open_read_only(db).map_err(ExportError::Open)?;
    let games = store.finished_since(since).map_err(ExportError::Read)?;
    for (i, game) in games.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n").map_err(ExportError::Write)?;
        }
        let pgn = game.pgn.trim_end_matches('\n');
        out.write_all(pgn.as_bytes()).map_err(ExportError::Write)?;
        out.write_all(b"\n").map_err(ExportError::Write)?;
    }
    out.flush().map_err(ExportError::Write)?;
    Ok(games.len())
}
