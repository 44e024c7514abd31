//! The store's writer thread: storing an event never delays a clock switch.
//!
//! The daemon shows the switch first and queues the event here; the writer
//! takes everything queued so far and commits it in one transaction, at
//! once rather than on a timer, so a burst of events costs one fsync and an
//! event is on the disk within a commit's time of being queued.
//!
//! A commit that fails (a full disk, a lock held by someone else) is
//! logged, counted and kept: the writer retries the same operations, with
//! whatever arrived since, on the next round, so nothing is dropped
//! silently and the clock never stops for the disk. A new game is no
//! exception: its id is chosen here, when it is queued, so that beginning a
//! game never waits for the disk and a game begun while the disk fails is
//! stored once it works again. [`Journal::saving`] says whether the last
//! commit failed, for the face. An operation that can
//! never succeed (a bad line, an unknown or finished game) is logged,
//! counted and dropped, so that it cannot hold up the rest.
//!
//! What the daemon hands over are values ([`Line`]s): the writer thread
//! writes each out once, off the clock's thread, and never reads it back.
//!
//! Closing waits for the disk: [`Journal::close_within`] retries until
//! everything is committed or its wait runs out, and then says how many
//! operations were lost ([`StoreError::Lost`]), never silently.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use super::{
    GameId, NewGame, Store, StoreError, check_setup, insert_events, insert_game, set_result,
};
use crate::transcript::Line;

/// How long the writer waits before retrying a failed commit when nothing
/// new arrives: long enough not to spin on a full disk.
const RETRY_AFTER: Duration = Duration::from_millis(500);

/// One request to the writer thread.
#[derive(Debug)]
enum JournalOp {
    /// Start a game under the id the journal chose for it.
    Begin {
        id: GameId,
        started_at: SystemTime,
        preset: String,
        white_left: bool,
        setup: Line,
        /// The game's second line, stored with its first in the same
        /// transaction (its `players`).
        second: Option<Line>,
    },
    /// Store one event of a game.
    Append { game: GameId, line: Line },
    /// Record a game's result and PGN.
    Finish {
        game: GameId,
        result: String,
        pgn: String,
    },
    /// Answer once everything queued before is committed.
    Flush {
        reply: Sender<Result<(), StoreError>>,
    },
}

/// The daemon's handle on the game store: a writer thread that owns the
/// [`Store`], fed by a channel.
#[derive(Debug)]
pub struct Journal {
    ops: Option<Sender<JournalOp>>,
    errors: Arc<AtomicU64>,
    /// Whether the last commit failed (and what it held is waiting).
    failing: Arc<AtomicBool>,
    /// The id the next game begun gets.
    next_id: AtomicI64,
    /// The writer thread; it answers how many operations it lost.
    writer: Option<JoinHandle<usize>>,
}

impl Journal {
    /// Starts the writer thread, which owns `store` from now on.
    pub fn spawn(store: Store) -> Journal {
        let (ops, queue) = mpsc::channel();
        let errors = Arc::new(AtomicU64::new(0));
        let failing = Arc::new(AtomicBool::new(false));
        let next_id = match store.next_game_id() {
            Ok(id) => id,
            Err(err) => {
                // Reading never waits for a writer in WAL mode, so this is
                // a broken file; ids from the wall clock still never clash
                // with a clock's own games.
                tracing::error!(error = %err, "game store: cannot read the last game's id");
                errors.fetch_add(1, Ordering::Relaxed);
                super::unix_seconds(SystemTime::now()).saturating_mul(1000)
            }
        };
        let counted = Arc::clone(&errors);
        let flagged = Arc::clone(&failing);
        let writer = thread::Builder::new()
            .name("tocada-journal".to_owned())
            .spawn(move || Writer::new(store, counted, flagged).run(queue));
        match writer {
            Ok(writer) => Journal {
                ops: Some(ops),
                errors,
                failing,
                next_id: AtomicI64::new(next_id),
                writer: Some(writer),
            },
            Err(err) => {
                // No thread, no store: every call reports JournalStopped
                // and the clock runs on without a record.
                tracing::error!(error = %err, "game store: cannot start the writer thread");
                errors.fetch_add(1, Ordering::Relaxed);
                failing.store(true, Ordering::Relaxed);
                Journal {
                    ops: None,
                    errors,
                    failing,
                    next_id: AtomicI64::new(next_id),
                    writer: None,
                }
            }
        }
    }

    /// Queues a new game with its setup line and returns the id it will be
    /// stored under. Never waits for the disk: a commit that fails is
    /// retried like any other, the game's events with it. Only a setup
    /// line that is not one, or a stopped writer, is an error.
    pub fn begin_game(&self, game: NewGame<'_>) -> Result<GameId, StoreError> {
        self.begin_game_with(game, None)
    }

    /// As [`Journal::begin_game`], with the game's second line (its
    /// `players`), committed with the setup line or not at all: a power
    /// cut never leaves a game begun under a pairing without its players.
    pub fn begin_game_with(
        &self,
        game: NewGame<'_>,
        second: Option<Line>,
    ) -> Result<GameId, StoreError> {
        // Checked here, as the setup is: a second line the writer would
        // refuse would take the game's beginning with it.
        let second_fits = |line: &Line| {
            if matches!(line.event, crate::transcript::Event::Setup(_)) {
                Err(StoreError::BadLine(
                    "\"setup\" is only the first line of a game".to_owned(),
                ))
            } else if line.t < game.setup.t || i64::try_from(line.t).is_err() {
                Err(StoreError::BadLine(format!(
                    "the second line's t = {} is before the setup's or out of range",
                    line.t
                )))
            } else {
                Ok(())
            }
        };
        let checked =
            check_setup(game.setup).and_then(|_| second.as_ref().map_or(Ok(()), second_fits));
        if let Err(err) = checked {
            self.errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!(error = %err, "game store: new game refused");
            return Err(err);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send(JournalOp::Begin {
            id,
            started_at: game.started_at,
            preset: game.preset.to_owned(),
            white_left: game.white_left,
            setup: game.setup.clone(),
            second,
        })?;
        Ok(id)
    }

    /// Whether games are being saved: false from a failed commit (a full
    /// disk, a lock held elsewhere) until one succeeds, and for good once
    /// the writer has stopped.
    pub fn saving(&self) -> bool {
        !self.failing.load(Ordering::Relaxed)
    }

    /// Queues one event of a game. Never waits for the disk.
    pub fn append(&self, game: GameId, line: Line) {
        // A stopped writer is already counted and logged by `send`.
        let _ = self.send(JournalOp::Append { game, line });
    }

    /// Queues a game's result (`1-0`, `0-1`, `1/2-1/2`, `*`) and its PGN.
    pub fn finish(&self, game: GameId, result: String, pgn: String) {
        let _ = self.send(JournalOp::Finish { game, result, pgn });
    }

    /// Waits until everything queued before is committed, or until a
    /// commit of it fails (it is kept and retried; the error says so).
    pub fn flush(&self) -> Result<(), StoreError> {
        let (reply, answer) = mpsc::channel();
        self.send(JournalOp::Flush { reply })?;
        answer.recv().map_err(|_| StoreError::JournalStopped)?
    }

    /// Failed commits and dropped operations so far.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    /// Flushes, stops the writer and waits for it. A commit that still
    /// fails is tried once more; what it held is then lost, and the error
    /// says how much ([`StoreError::Lost`]).
    pub fn close(self) -> Result<(), StoreError> {
        self.close_within(Duration::ZERO, |_| {})
    }

    /// Closes the journal as [`Journal::close`] does, but while commits
    /// fail (a lock held by another process, a full disk) keeps retrying
    /// for up to `wait`, calling `waiting` with the error after each failed
    /// round (about once a second: the daemon keeps systemd's watchdog fed
    /// from there). Only what is still not committed when `wait` has run
    /// out is lost ([`StoreError::Lost`]).
    pub fn close_within(
        mut self,
        wait: Duration,
        mut waiting: impl FnMut(&StoreError),
    ) -> Result<(), StoreError> {
        let deadline = Instant::now() + wait;
        let flushed = loop {
            let tried = Instant::now();
            match self.flush() {
                Err(err @ StoreError::NotCommitted { .. }) if Instant::now() < deadline => {
                    // A lock fails a try after the busy timeout, a full
                    // disk at once: pause as the writer does between its
                    // retries, so that a stop never spins (nor floods the
                    // log with a warning per try).
                    let next = (tried + RETRY_AFTER).min(deadline);
                    thread::sleep(next.saturating_duration_since(Instant::now()));
                    waiting(&err);
                }
                done => break done,
            }
        };
        let cause = match &flushed {
            Err(err) => err.to_string(),
            Ok(()) => String::new(),
        };
        match self.stop()? {
            // The writer's last try, once the wait was over, took it all.
            0 if matches!(flushed, Err(StoreError::NotCommitted { .. })) => Ok(()),
            0 => flushed,
            lost => Err(StoreError::Lost { lost, cause }),
        }
    }

    fn send(&self, op: JournalOp) -> Result<(), StoreError> {
        let sent = match &self.ops {
            Some(ops) => ops.send(op).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            self.failing.store(true, Ordering::Relaxed);
            self.errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!("game store: the writer thread has stopped; event not stored");
            Err(StoreError::JournalStopped)
        }
    }

    /// Closes the queue, lets the writer commit what is left, and joins
    /// it: how many operations it could not commit.
    fn stop(&mut self) -> Result<usize, StoreError> {
        self.ops = None;
        match self.writer.take() {
            Some(writer) => writer.join().map_err(|_| StoreError::JournalStopped),
            None => Ok(0),
        }
    }
}

impl Drop for Journal {
    /// Dropping the journal still stores what was queued.
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The writer thread's state.
struct Writer {
    store: Store,
    errors: Arc<AtomicU64>,
    failing: Arc<AtomicBool>,
    /// Operations whose commit failed, oldest first, to retry.
    pending: Vec<JournalOp>,
}

impl Writer {
    fn new(store: Store, errors: Arc<AtomicU64>, failing: Arc<AtomicBool>) -> Writer {
        Writer {
            store,
            errors,
            failing,
            pending: Vec::new(),
        }
    }

    /// Commits until the queue is closed and everything is stored, or the
    /// last try after closing failed: returns how many operations that
    /// lost.
    fn run(mut self, queue: Receiver<JournalOp>) -> usize {
        let mut open = true;
        while open || !self.pending.is_empty() {
            let mut batch = std::mem::take(&mut self.pending);
            if open {
                // Block for work when all is stored; when a retry is due,
                // wait only so long for more.
                let first = if batch.is_empty() {
                    queue.recv().map_err(|_| RecvTimeoutError::Disconnected)
                } else {
                    queue.recv_timeout(RETRY_AFTER)
                };
                match first {
                    Ok(op) => batch.push(op),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => open = false,
                }
                // Everything else already queued joins the same commit.
                batch.extend(queue.try_iter());
            }
            if batch.is_empty() {
                continue;
            }
            let retry = self.commit(batch);
            if !open && !retry.is_empty() {
                // The journal is closing and the disk still fails (its
                // closer has waited as long as it could): say what is lost
                // rather than retry forever.
                tracing::error!(
                    lost = retry.len(),
                    "game store: closing with operations that could not be committed"
                );
                return retry.len();
            }
            self.pending = retry;
        }
        0
    }

    /// Commits a batch in one transaction. Returns the operations to retry:
    /// none on success, every begin, append and finish of the batch when the
    /// commit failed (a flush gets the error instead: its caller waits).
    fn commit(&mut self, batch: Vec<JournalOp>) -> Vec<JournalOp> {
        let mut dropped = vec![false; batch.len()];
        match self.write(&batch, &mut dropped) {
            Ok(()) => {
                self.failing.store(false, Ordering::Relaxed);
                for op in batch {
                    if let JournalOp::Flush { reply } = op {
                        let _ = reply.send(Ok(()));
                    }
                }
                Vec::new()
            }
            Err(err) => {
                self.failing.store(true, Ordering::Relaxed);
                self.errors.fetch_add(1, Ordering::Relaxed);
                // The transaction may have stopped anywhere: answer every
                // waiter of the batch from the batch itself.
                // Bad operations already dropped (and counted) stay dropped.
                let batch: Vec<JournalOp> = batch
                    .into_iter()
                    .zip(dropped)
                    .filter_map(|(op, dropped)| (!dropped).then_some(op))
                    .collect();
                let kept = batch
                    .iter()
                    .filter(|op| !matches!(op, JournalOp::Flush { .. }))
                    .count();
                tracing::warn!(error = %err, pending = kept, "game store: commit failed; will retry");
                batch
                    .into_iter()
                    .filter_map(|op| match op {
                        JournalOp::Flush { reply } => {
                            let _ = reply.send(Err(not_committed(kept, &err)));
                            None
                        }
                        op => Some(op),
                    })
                    .collect()
            }
        }
    }

    /// Writes a batch in one transaction. Bad operations are dropped,
    /// marked in `dropped`; any other failure aborts the whole transaction
    /// (rolled back, as rusqlite's `Transaction` does when dropped).
    ///
    /// `BEGIN IMMEDIATE` and `COMMIT` are statements kept prepared, as the
    /// inserts are: a transaction's `execute_batch` parsed both again at
    /// every commit, which is every burst a game makes.
    fn write(&mut self, batch: &[JournalOp], dropped: &mut [bool]) -> Result<(), StoreError> {
        let conn = &self.store.conn;
        conn.prepare_cached(BEGIN_IMMEDIATE)?.execute([])?;
        let written = self.write_in_transaction(batch, dropped).and_then(|()| {
            self.store.conn.prepare_cached(COMMIT)?.execute([])?;
            Ok(())
        });
        if written.is_err() && !self.store.conn.is_autocommit() {
            let _ = self.store.conn.execute_batch("ROLLBACK");
        }
        written
    }

    /// The operations of [`Writer::write`], inside its transaction.
    fn write_in_transaction(
        &mut self,
        batch: &[JournalOp],
        dropped: &mut [bool],
    ) -> Result<(), StoreError> {
        let conn = &self.store.conn;
        for (op, dropped) in batch.iter().zip(dropped.iter_mut()) {
            let done = match op {
                JournalOp::Begin {
                    id,
                    started_at,
                    preset,
                    white_left,
                    setup,
                    second,
                } => {
                    let game = NewGame {
                        started_at: *started_at,
                        preset,
                        white_left: *white_left,
                        setup,
                    };
                    insert_game(conn, &game, Some(*id)).and_then(|id| match second {
                        Some(line) => insert_events(conn, id, std::slice::from_ref(line)),
                        None => Ok(()),
                    })
                }
                JournalOp::Append { game, line } => {
                    insert_events(conn, *game, std::slice::from_ref(line))
                }
                JournalOp::Finish { game, result, pgn } => set_result(conn, *game, result, pgn),
                // Answered after the commit.
                JournalOp::Flush { .. } => Ok(()),
            };
            match done {
                Ok(()) => {}
                Err(err) if err.is_bad_request() => {
                    // Checked before writing, so nothing of it is in the
                    // transaction: drop it and go on with the rest.
                    self.errors.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(error = %err, "game store: operation dropped");
                    *dropped = true;
                }
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }
}

/// A transaction that takes the write lock at once, as rusqlite's
/// `TransactionBehavior::Immediate` does.
const BEGIN_IMMEDIATE: &str = "BEGIN IMMEDIATE";
/// Its end.
const COMMIT: &str = "COMMIT";

/// What a flush waiter hears when the commit failed.
fn not_committed(pending: usize, err: &StoreError) -> StoreError {
    StoreError::NotCommitted {
        pending,
        cause: err.to_string(),
    }
}
