//! The game in play as the daemon stores it: its lines handed to the
//! store's writer ([`Journal`]), and a checkpoint due whenever a running
//! clock has gone a while with nothing stored.
//!
//! The session says what to store ([`Action::Begin`](crate::session::Action::Begin),
//! [`Action::Record`](crate::session::Action::Record),
//! [`Action::Finish`](crate::session::Action::Finish)); this unit makes
//! each a replay-format line as a value ([`Line`]) and hands it to the
//! journal, whose thread writes it with the format's one writer
//! ([`line_to_json`](crate::transcript::line_to_json)) and commits it:
//! the loop never waits for the disk, and nothing is parsed back.

use std::time::SystemTime;

use crate::Millis;
use crate::Rules;
use crate::players::Players;
use crate::session::Recorded;
use crate::store::{GameId, Journal, NewGame, StoreError};
use crate::transcript::{Event, Line};

/// How long a running clock goes with nothing stored before its instant is
/// stored as a checkpoint: a power cut gives back at most this, plus a
/// commit's time (the README promises at most a second).
pub const CHECKPOINT_EVERY_MS: Millis = 500;

/// The store's writer and the game in it.
#[derive(Debug, Default)]
pub struct Storage {
    journal: Option<Journal>,
    game: Option<GameId>,
    /// When the running clock's instant is next to be stored.
    checkpoint_at: Option<Millis>,
}

impl Storage {
    /// Stores nothing (the simulator without `--db`, tests).
    pub fn none() -> Storage {
        Storage::default()
    }

    /// Stores games in `journal`; `game` is the unfinished game the session
    /// was restored to, if any.
    pub fn new(journal: Journal, game: Option<GameId>) -> Storage {
        Storage {
            journal: Some(journal),
            game,
            checkpoint_at: None,
        }
    }

    /// Whether games are stored but the store is failing now: the face
    /// says so.
    pub fn unsaved(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.saving())
    }

    /// A new game begins at `now`, its first line `t` the `setup` of
    /// `rules`, and its second, if the hall paired the board, its
    /// `players`: the game's record names them, so a restore, an export
    /// and a replay all give the same players. Returns its PGN date, by the store's own calendar (local
    /// time), so that the PGN's Date tag and `tocada export --since` agree
    /// about the day.
    pub fn begin(
        &mut self,
        now: Millis,
        t: Millis,
        preset: &str,
        black_left: bool,
        rules: Box<Rules>,
        players: Option<Box<Players>>,
    ) -> Option<String> {
        let setup = Line {
            t,
            event: Event::Setup(rules),
        };
        let started_at = SystemTime::now();
        let date = match crate::store::pgn_date(started_at) {
            Ok(date) => Some(date),
            Err(err) => {
                tracing::warn!("no date for the new game: {err}");
                None
            }
        };
        self.game = None;
        self.checkpoint_at = Some(now + CHECKPOINT_EVERY_MS);
        if let Some(journal) = self.journal.as_ref() {
            let game = NewGame {
                started_at,
                preset,
                white_left: !black_left,
                setup: &setup,
            };
            // The players in the same commit as the setup.
            let players = players.map(|players| Line {
                t,
                event: Event::Players(players),
            });
            match journal.begin_game_with(game, players) {
                Ok(id) => self.game = Some(id),
                Err(err) => tracing::error!("cannot store the new game: {err}"),
            }
        }
        date
    }

    /// Stores what the referee was given at `t`, at `now`; a checkpoint is
    /// next due so long after it if a clock is `running`.
    pub fn record(&mut self, now: Millis, running: bool, t: Millis, recorded: Recorded) {
        self.checkpoint_at = running.then_some(now + CHECKPOINT_EVERY_MS);
        if let (Some(journal), Some(game)) = (self.journal.as_ref(), self.game) {
            // The store takes the line as a value; its writer thread writes
            // it with the format's one writer, and never reads it back.
            journal.append(
                game,
                Line {
                    t,
                    event: Event::from(recorded),
                },
            );
        }
    }

    /// The game ended: its result and PGN.
    pub fn finish(&mut self, result: String, pgn: String) {
        if let (Some(journal), Some(game)) = (self.journal.as_ref(), self.game.take()) {
            journal.finish(game, result, pgn);
        }
    }

    /// When a checkpoint is next due, if one is.
    pub fn next_checkpoint(&self) -> Option<Millis> {
        self.checkpoint_at
    }

    /// Whether a checkpoint is due at `now`; if so, it is taken (the record
    /// it makes sets the next).
    pub fn take_checkpoint_due(&mut self, now: Millis) -> bool {
        let due = self.checkpoint_at.is_some_and(|at| at <= now);
        if due {
            self.checkpoint_at = None;
        }
        due
    }

    /// Stores what is pending and stops the writer, for shutdown: waits up
    /// to `wait` for a store that cannot be written, feeding the watchdog,
    /// and says in the journal that it waits. `None` when nothing is
    /// stored; [`StoreError::Lost`] when the wait ran out.
    pub fn close_within(
        &mut self,
        wait: std::time::Duration,
        notifier: &mut dyn crate::rig::Notifier,
    ) -> Option<Result<(), StoreError>> {
        let journal = self.journal.take()?;
        let mut told = false;
        let closed = journal.close_within(wait, |err| {
            if !told {
                told = true;
                tracing::warn!(
                    "stopping: waiting up to {} s for the game store: {err}",
                    wait.as_secs()
                );
            }
            notifier.watchdog();
        });
        if closed.is_ok() && told {
            tracing::info!("stopping: the game store took everything");
        }
        Some(closed)
    }
}
