//! The hall's own SQLite store: every event of every board as it arrived,
//! one row per (hall, board, game, seq), the boards' retained states and
//! statuses, the arbiters' acknowledgements, and each game's facts as they
//! stood when it started (the players, the event, the round). A restarted
//! hall rebuilds every game from it.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::pairings::{BoardPairing, PairedPlayer};
use crate::pgn::Tags;

/// How long a write waits for the lock another connection holds (the
/// running hall's burst, `tocada-hall pairings` importing a round) before
/// it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS event (
    hall TEXT NOT NULL,
    board INTEGER NOT NULL,
    game INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    t INTEGER NOT NULL,
    line TEXT NOT NULL,
    received_ms INTEGER NOT NULL,
    PRIMARY KEY (hall, board, game, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS board (
    hall TEXT NOT NULL,
    board INTEGER NOT NULL,
    state TEXT,
    status TEXT,
    PRIMARY KEY (hall, board)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts (
    hall TEXT NOT NULL,
    board INTEGER NOT NULL,
    game INTEGER NOT NULL,
    event TEXT NOT NULL,
    site TEXT NOT NULL,
    date TEXT NOT NULL,
    round TEXT NOT NULL,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    PRIMARY KEY (hall, board, game)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS round_import (
    hall TEXT NOT NULL,
    round INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    format TEXT NOT NULL,
    source TEXT NOT NULL,
    imported_ms INTEGER NOT NULL,
    PRIMARY KEY (hall, round)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS round_pairing (
    hall TEXT NOT NULL,
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    white_rating INTEGER,
    black_rating INTEGER,
    white_fide_id INTEGER,
    black_fide_id INTEGER,
    white_rank INTEGER,
    black_rank INTEGER,
    PRIMARY KEY (hall, round, board)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ack (
    hall TEXT NOT NULL,
    board INTEGER NOT NULL,
    game INTEGER NOT NULL,
    ruling INTEGER NOT NULL,
    arbiter TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (hall, board, game, ruling)
) WITHOUT ROWID;
";

/// An event a board reported, as the hall stored it: board, game, seq and
/// its line.
pub type ReportedEvent = (u32, i64, i64, String);

/// An acknowledged ruling: board, game, the ruling's index and who.
pub type StoredAck = (u32, i64, usize, String);

/// A board's stored row: its number, retained state (JSON) and status.
pub type StoredBoard = (u32, Option<String>, Option<String>);

/// A game's facts as stored: board, game and its tags (the time control
/// left empty: it is the game's own).
pub type StoredFacts = (u32, i64, Tags);

/// An imported round: its number, the import's sequence number (the
/// newest import is the round the hall plays), the file's format (`trf`,
/// `csv`) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedRound {
    /// The round's number.
    pub round: u32,
    /// Grows at every import: the highest is the round being played.
    pub seq: i64,
    /// `trf` or `csv`.
    pub format: String,
    /// The file as imported (a TRF's results are written back into it).
    pub source: String,
    /// When, ms since the epoch.
    pub imported_ms: u64,
}

/// The hall's database.
#[derive(Debug)]
pub struct HallStore {
    conn: Connection,
    hall: String,
}

impl HallStore {
    /// Opens (creating if need be) the store at `path` for hall `hall`.
    pub fn open(path: &Path, hall: &str) -> rusqlite::Result<HallStore> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL: the web side reads while the ingest writes; NORMAL: a power
        // cut may lose the last events, which the broker resends (QoS 1,
        // persistent session) only if not yet acknowledged, so the store
        // commits before the hall acknowledges; see the runner.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        HallStore::init(conn, hall)
    }

    /// A store in memory, for tests.
    pub fn in_memory(hall: &str) -> rusqlite::Result<HallStore> {
        HallStore::init(Connection::open_in_memory()?, hall)
    }

    fn init(conn: Connection, hall: &str) -> rusqlite::Result<HallStore> {
        conn.execute_batch(SCHEMA)?;
        Ok(HallStore {
            conn,
            hall: hall.to_owned(),
        })
    }

    /// Starts a transaction: the writes until [`HallStore::commit`] are
    /// one. A burst of messages is taken in one, not one each: each
    /// commit costs file locks and a write of the log, which at 1000
    /// boards were half the hall's time (docs/src/figures.md).
    ///
    /// Immediate: the write lock is taken here, waiting for it as long as
    /// [`BUSY_TIMEOUT`]. A deferred transaction reads first and asks for
    /// the lock at its first write; if another connection committed
    /// since its read, SQLite refuses that write at once, without
    /// waiting (the hall's ingest and `tocada-hall pairings` did so).
    pub fn begin(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")
    }

    /// Commits the transaction [`HallStore::begin`] started; if that
    /// fails, rolls it back (nothing of it stored) and returns the error.
    pub fn commit(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT").inspect_err(|_| {
            let _ = self.conn.execute_batch("ROLLBACK");
        })
    }

    /// Stores an event; `false` if the store already had it (a duplicate).
    pub fn insert_event(
        &self,
        board: u32,
        game: i64,
        seq: i64,
        t: u64,
        line: &str,
        received_ms: u64,
    ) -> rusqlite::Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO event (hall, board, game, seq, t, line, received_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                self.hall,
                board,
                game,
                seq,
                t as i64,
                line,
                received_ms as i64
            ])?;
        Ok(n == 1)
    }

    /// Every stored event of the hall, by board, game and seq.
    pub fn events(&self) -> rusqlite::Result<Vec<ReportedEvent>> {
        let mut statement = self.conn.prepare(
            "SELECT board, game, seq, line FROM event WHERE hall = ?1 ORDER BY board, game, seq",
        )?;
        let rows = statement.query_map([&self.hall], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?;
        rows.collect()
    }

    /// How many events the store holds for the hall.
    pub fn count_events(&self) -> rusqlite::Result<u64> {
        self.conn.query_row(
            "SELECT count(*) FROM event WHERE hall = ?1",
            [&self.hall],
            |row| row.get::<_, i64>(0).map(|n| n as u64),
        )
    }

    /// Keeps a board's retained state (JSON).
    pub fn set_state(&self, board: u32, state: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO board (hall, board, state) VALUES (?1, ?2, ?3)
                 ON CONFLICT (hall, board) DO UPDATE SET state = excluded.state",
            )?
            .execute(params![self.hall, board, state])?;
        Ok(())
    }

    /// Keeps a board's status (`online`, `offline`).
    pub fn set_status(&self, board: u32, status: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO board (hall, board, status) VALUES (?1, ?2, ?3)
                 ON CONFLICT (hall, board) DO UPDATE SET status = excluded.status",
            )?
            .execute(params![self.hall, board, status])?;
        Ok(())
    }

    /// Every board's stored state and status.
    pub fn boards(&self) -> rusqlite::Result<Vec<StoredBoard>> {
        let mut statement = self
            .conn
            .prepare("SELECT board, state, status FROM board WHERE hall = ?1 ORDER BY board")?;
        let rows = statement.query_map([&self.hall], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?;
        rows.collect()
    }

    /// Fixes a game's facts (its players, event, site, date, round) as
    /// they stand when the hall first hears of it; `false` if they were
    /// fixed already, which they then stay.
    pub fn fix_facts(&self, board: u32, game: i64, tags: &Tags) -> rusqlite::Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO facts (hall, board, game, event, site, date, round, white, black)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                self.hall, board, game, tags.event, tags.site, tags.date, tags.round, tags.white,
                tags.black
            ])?;
        Ok(n == 1)
    }

    /// Every game's fixed facts.
    pub fn facts(&self) -> rusqlite::Result<Vec<StoredFacts>> {
        let mut statement = self.conn.prepare(
            "SELECT board, game, event, site, date, round, white, black FROM facts WHERE hall = ?1",
        )?;
        let rows = statement.query_map([&self.hall], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                Tags {
                    event: row.get(2)?,
                    site: row.get(3)?,
                    date: row.get(4)?,
                    round: row.get(5)?,
                    white: row.get(6)?,
                    black: row.get(7)?,
                    ..Tags::default()
                },
            ))
        })?;
        rows.collect()
    }

    /// Records that `arbiter` acknowledged a ruling; `false` if it already
    /// was.
    pub fn acknowledge(
        &self,
        board: u32,
        game: i64,
        ruling: usize,
        arbiter: &str,
        at_ms: u64,
    ) -> rusqlite::Result<bool> {
        let n = self.conn.execute(
            "INSERT OR IGNORE INTO ack (hall, board, game, ruling, arbiter, at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![self.hall, board, game, ruling as i64, arbiter, at_ms as i64],
        )?;
        Ok(n == 1)
    }

    /// Who acknowledged a ruling, if anyone.
    pub fn acknowledged_by(
        &self,
        board: u32,
        game: i64,
        ruling: usize,
    ) -> rusqlite::Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT arbiter FROM ack WHERE hall = ?1 AND board = ?2 AND game = ?3 AND ruling = ?4",
                params![self.hall, board, game, ruling as i64],
                |row| row.get(0),
            )
            .optional()
    }

    /// Every acknowledgement of the hall.
    pub fn acks(&self) -> rusqlite::Result<Vec<StoredAck>> {
        let mut statement = self
            .conn
            .prepare("SELECT board, game, ruling, arbiter FROM ack WHERE hall = ?1")?;
        let rows = statement.query_map([&self.hall], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get::<_, i64>(2)? as usize,
                row.get(3)?,
            ))
        })?;
        rows.collect()
    }

    /// Stores round `round`'s pairings, replacing any imported before for
    /// that round, in one transaction; the round becomes the newest
    /// import. Games already started keep their facts.
    pub fn import_round(
        &mut self,
        round: u32,
        format: &str,
        source: &str,
        boards: &[BoardPairing],
        now_ms: u64,
    ) -> rusqlite::Result<i64> {
        // Immediate, as in `begin`: it reads before it writes.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let seq: i64 = tx.query_row(
            "SELECT coalesce(max(seq), 0) + 1 FROM round_import WHERE hall = ?1",
            [&self.hall],
            |row| row.get(0),
        )?;
        tx.execute(
            "DELETE FROM round_pairing WHERE hall = ?1 AND round = ?2",
            params![self.hall, round],
        )?;
        tx.execute(
            "INSERT INTO round_import (hall, round, seq, format, source, imported_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (hall, round) DO UPDATE SET seq = excluded.seq,
               format = excluded.format, source = excluded.source,
               imported_ms = excluded.imported_ms",
            params![self.hall, round, seq, format, source, now_ms as i64],
        )?;
        for pairing in boards {
            tx.execute(
                "INSERT INTO round_pairing (hall, round, board, white, black, white_rating,
                   black_rating, white_fide_id, black_fide_id, white_rank, black_rank)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    self.hall,
                    round,
                    pairing.board,
                    pairing.white.name,
                    pairing.black.name,
                    pairing.white.rating,
                    pairing.black.rating,
                    pairing.white.fide_id.map(|id| id as i64),
                    pairing.black.fide_id.map(|id| id as i64),
                    pairing.white.start_rank,
                    pairing.black.start_rank,
                ],
            )?;
        }
        tx.commit()?;
        Ok(seq)
    }

    /// Every imported round, by number.
    pub fn rounds(&self) -> rusqlite::Result<Vec<ImportedRound>> {
        let mut statement = self.conn.prepare(
            "SELECT round, seq, format, source, imported_ms FROM round_import
             WHERE hall = ?1 ORDER BY round",
        )?;
        let rows = statement.query_map([&self.hall], |row| {
            Ok(ImportedRound {
                round: row.get(0)?,
                seq: row.get(1)?,
                format: row.get(2)?,
                source: row.get(3)?,
                imported_ms: row.get::<_, i64>(4)? as u64,
            })
        })?;
        rows.collect()
    }

    /// The newest import's round number and sequence number, if any: a
    /// cheap question the running hall asks every second.
    pub fn newest_import(&self) -> rusqlite::Result<Option<(u32, i64)>> {
        self.conn
            .query_row(
                "SELECT round, seq FROM round_import WHERE hall = ?1 ORDER BY seq DESC LIMIT 1",
                [&self.hall],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
    }

    /// Round `round`'s imported pairings, by board.
    pub fn pairings(&self, round: u32) -> rusqlite::Result<Vec<BoardPairing>> {
        let mut statement = self.conn.prepare(
            "SELECT board, white, black, white_rating, black_rating, white_fide_id,
               black_fide_id, white_rank, black_rank
             FROM round_pairing WHERE hall = ?1 AND round = ?2 ORDER BY board",
        )?;
        let rows = statement.query_map(params![self.hall, round], |row| {
            Ok(BoardPairing {
                board: row.get(0)?,
                white: PairedPlayer {
                    name: row.get(1)?,
                    rating: row.get(3)?,
                    fide_id: row.get::<_, Option<i64>>(5)?.map(|id| id as u64),
                    start_rank: row.get(7)?,
                },
                black: PairedPlayer {
                    name: row.get(2)?,
                    rating: row.get(4)?,
                    fide_id: row.get::<_, Option<i64>>(6)?.map(|id| id as u64),
                    start_rank: row.get(8)?,
                },
            })
        })?;
        rows.collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_holds_the_write_lock_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.sqlite");
        let ingest = HallStore::open(&path, "open").unwrap();
        let import = HallStore::open(&path, "open").unwrap();
        import.conn.busy_timeout(Duration::from_millis(50)).unwrap();

        // The ingest's burst has begun and read; another connection's
        // write waits for it (here: gives up after 50 ms)…
        ingest.begin().unwrap();
        assert_eq!(ingest.count_events().unwrap(), 0);
        let blocked = import.insert_event(2, 1, 0, 0, "{}", 0);
        assert!(
            matches!(&blocked, Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy),
            "{blocked:?}"
        );
        // …and the burst's own writes, after its read, never fail on the
        // lock.
        assert!(ingest.insert_event(1, 1, 0, 0, "{}", 0).unwrap());
        ingest.commit().unwrap();
        assert!(import.insert_event(2, 1, 0, 0, "{}", 0).unwrap());
        assert_eq!(ingest.count_events().unwrap(), 2);
    }
}
