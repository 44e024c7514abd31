//! The face as the daemon's loop draws it: a new frame staged when what it
//! shows changes, sent to the panel one bounded write at a time between
//! board polls (the running side's marker first), retried after a failed
//! write, and published to a screen beside it (the simulator's).
//!
//! Nothing here waits for the panel: [`Drawing::draw`] stages,
//! [`Drawing::send`] sends one write, and the loop calls it once per pass
//! after the board has had its turn, so a board poll never waits behind
//! more than one write.

use std::time::Duration;

use shakmaty::{Chess, Color};
use tokio::sync::watch;

use super::stats::Stats;
use crate::Millis;
use crate::face::View;
use crate::rig::Rig;
use crate::session::Session;

/// After a failed write to the panel, what may be wrong on it is sent
/// again this much later.
pub const FACE_RETRY_MS: Millis = 100;

/// The game as the loop last showed it, for a screen beside the face (the
/// simulator draws the board from it and turns typed moves into hands).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownGame {
    /// The position of the game in play or just over; `None` on the setup
    /// screen.
    pub position: Option<Chess>,
    /// Whose clock runs.
    pub ticking: Option<Color>,
    /// What the face shows.
    pub view: View,
    /// The game as PGN so far; `None` on the setup screen.
    pub pgn: Option<String>,
}

/// What the panel shows and what is on its way to it.
#[derive(Debug, Default)]
pub struct Drawing {
    /// The view last staged.
    shown: Option<View>,
    /// Whether the face last drawn said games are not being saved.
    shown_unsaved: bool,
    /// A lever press waiting for the face to show its switch: its instant.
    pending_switch: Option<Duration>,
    /// When the face changes by itself next (a running clock's digits).
    changes_at: Option<Millis>,
    /// When to send again what a failed write may have left wrong.
    retry_at: Option<Millis>,
    /// Where the game is published as it is drawn (the simulator).
    watch: Option<watch::Sender<ShownGame>>,
    /// The PGN last published and the record it was made from
    /// ([`Session::record_version`]).
    published_pgn: (Option<(u64, usize, usize)>, Option<String>),
}

impl Drawing {
    /// Nothing drawn yet.
    pub fn new() -> Drawing {
        Drawing::default()
    }

    /// Publishes the game on `watch` whenever the face is drawn and the
    /// game shown changed.
    pub fn publish_on(&mut self, watch: watch::Sender<ShownGame>) {
        self.watch = Some(watch);
    }

    /// The earliest instant the face needs the loop: its next change by
    /// itself, or a retry after a failed write.
    pub fn next_deadline(&self) -> Option<Millis> {
        match (self.changes_at, self.retry_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether a retry after a failed write is pending: the rest of the
    /// face waits for it rather than being sent at once.
    pub fn retrying(&self) -> bool {
        self.retry_at.is_some()
    }

    /// A lever press at `at` switched the clocks: its latency runs until
    /// the panel shows the new clock's marker.
    pub fn switched(&mut self, at: Duration) {
        self.pending_switch = Some(at);
    }

    /// Sends again what may be wrong on the panel, if a retry is due.
    pub fn retry_if_due<R: Rig>(&mut self, rig: &mut R, now: Millis) {
        if self.retry_at.is_some_and(|at| at <= now) {
            self.retry_at = None;
            rig.oled().retry();
        }
    }

    /// Stages a new face if what it shows changed (or if `force`d: then it
    /// is sent whole before returning, for whoever asked to see it).
    /// `unsaved`: games are stored but the store is failing. Says whether
    /// it made the view at `now` ([`Drawing::shown`] is then that view),
    /// so a second face, the board's clock, need not make it again.
    pub fn draw<R: Rig>(
        &mut self,
        rig: &mut R,
        session: &mut Session,
        stats: &mut Stats,
        unsaved: bool,
        now: Millis,
        force: bool,
    ) -> bool {
        let changed = session.take_changed() | (unsaved != self.shown_unsaved);
        let due = self.changes_at.is_some_and(|at| at <= now);
        if due {
            self.changes_at = None;
        }
        if !(changed || due || force || self.shown.is_none()) {
            return false;
        }
        self.shown_unsaved = unsaved;
        let mut view = session.view(now);
        view.games_unsaved = unsaved;
        // The face changes by itself next when a running clock's digits do.
        self.changes_at = session.next_face_change(now);
        self.publish(session, &view);
        if !force && self.shown.as_ref() == Some(&view) {
            return true;
        }
        let frame = crate::face::render(&view);
        rig.oled().stage(&frame, &crate::face::urgent(&view));
        stats.redraws += 1;
        self.shown = Some(view);
        self.face_sent(rig, stats);
        if force {
            while rig.oled().is_busy() && self.send(rig, stats) {}
        }
        true
    }

    /// The view last staged (or found the same as the one staged).
    pub fn shown(&self) -> Option<&View> {
        self.shown.as_ref()
    }

    /// Sends the next bounded write of the face, if one is queued: the
    /// running-side marker first, then the digits, then the rest. Says
    /// whether it went out.
    pub fn send<R: Rig>(&mut self, rig: &mut R, stats: &mut Stats) -> bool {
        match rig.oled().send_next() {
            Ok(sent) => {
                self.face_sent(rig, stats);
                sent
            }
            Err(err) => {
                stats.face_errors += 1;
                if stats.face_errors.is_power_of_two() {
                    tracing::warn!("{err} ({} failures)", stats.face_errors);
                }
                // What may be wrong is sent again, after a pause: a panel
                // that is not there must not take the bus from the board.
                let at = rig.now().as_millis() as Millis + FACE_RETRY_MS;
                self.retry_at = Some(self.retry_at.map_or(at, |due| due.min(at)));
                false
            }
        }
    }

    /// Notes the press whose switch the panel now shows: the new clock's
    /// marker (the first urgent area) has gone out.
    fn face_sent<R: Rig>(&mut self, rig: &mut R, stats: &mut Stats) {
        if self.pending_switch.is_some() && rig.oled().next_rank() != Some(0) {
            let at = self.pending_switch.take().unwrap_or_default();
            let us = rig.now().saturating_sub(at).as_micros() as u64;
            stats.press_to_face_us.push(us);
        }
    }

    /// Sends the game to the watcher, if there is one and it changed.
    fn publish(&mut self, session: &Session, view: &View) {
        let Some(watch) = self.watch.as_ref() else {
            return;
        };
        // The PGN is the whole game written out: made again only when its
        // record changed, not at every tick of the clock on the face.
        let version = session.record_version();
        if self.published_pgn.0 != version {
            self.published_pgn = (version, session.pgn());
        }
        let referee = session.referee();
        let snapshot = ShownGame {
            position: referee.map(|r| r.position().clone()),
            ticking: referee.and_then(|r| r.ticking()),
            view: view.clone(),
            pgn: self.published_pgn.1.clone(),
        };
        watch.send_if_modified(|shown| {
            let changed = *shown != snapshot;
            if changed {
                *shown = snapshot;
            }
            changed
        });
    }
}
