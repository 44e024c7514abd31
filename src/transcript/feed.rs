//! The one loop that reads lines and feeds them to a referee: [`Feed`]
//! reads raw lines through its [`Reader`], gives each to its game, hands
//! the effects to a sink and builds the [`Fault`] it stops at, whoever
//! calls it: `tocada replay`, a restore ([`restore`]), the PGN of a stored
//! game, the hall and the publisher.

use super::line::{Event, Line};
use super::policy::Policy;
use super::reader::{Fault, FaultKind, Read, Reader};
use crate::referee::{Effect, Millis, Referee, Rules};
use crate::session::{Controls, SavedGame, Session};

/// One game read and fed line by line under a [`Policy`]. Its referee is
/// made by the `setup` line, or under the default rules by the first other
/// line, as `tocada replay` always did. Nothing is handed on after the
/// result: the referee promises it, and the format promises it too, so it
/// is enforced here rather than trusted.
///
/// A lever, draw or adjust button in play means what it means on the
/// clock ([`Controls`]): the claim gesture, a choice's mark and answer, the
/// promotion piece.
#[derive(Debug)]
pub struct Feed {
    reader: Reader,
    referee: Option<Referee>,
    /// What the players' buttons mean, as on the clock: a script's
    /// `adjust` twice within 600 ms is the claim the clock hears.
    controls: Controls,
    over: bool,
    /// Each `restart` line's instant and how long the clock was off.
    restarts: Vec<(Millis, Option<u64>)>,
    /// The instant of the last line fed.
    last_t: Option<Millis>,
    /// Whether the first line fed was `setup`, once a line was.
    began_with_setup: Option<bool>,
    /// The bad line feeding stopped at: nothing after it is fed.
    fault: Option<Fault>,
}

impl Feed {
    /// A game with no line yet, read under `policy`.
    pub fn new(policy: Policy) -> Feed {
        Feed {
            reader: Reader::new(policy),
            referee: None,
            controls: Controls::new(),
            over: false,
            restarts: Vec::new(),
            last_t: None,
            began_with_setup: None,
            fault: None,
        }
    }

    /// Reads one line as read from a stream (its `\n` included unless it
    /// is the last and has none), feeds it and hands every effect it caused
    /// to `sink`, in order. Gives the fed line's instant, or what else the
    /// line was; once stopped, every later line gives the same fault,
    /// unread.
    pub fn push(&mut self, raw: &[u8], sink: impl FnMut(Millis, Effect)) -> Read<Millis> {
        let read = self.reader.push(raw);
        self.take(read, sink)
    }

    /// As [`Feed::push`], for one whole line without its line ending (a
    /// stored row).
    pub fn push_str(&mut self, text: &str, sink: impl FnMut(Millis, Effect)) -> Read<Millis> {
        let read = self.reader.push_str(text);
        self.take(read, sink)
    }

    /// Feeds stored lines (whole lines, without line endings), in order,
    /// effects to `sink`; faults the policy skips go to `skipped`. Gives
    /// the bad line it stopped at, if it did: every line before it was fed,
    /// none after.
    pub fn push_rows(
        &mut self,
        rows: &[String],
        mut sink: impl FnMut(Millis, Effect),
        mut skipped: impl FnMut(Fault),
    ) -> Option<Fault> {
        for row in rows {
            match self.push_str(row, &mut sink) {
                Read::Line(_) | Read::Blank => {}
                Read::Skipped(fault) => skipped(fault),
                Read::Stop(fault) => return Some(fault),
            }
        }
        None
    }

    /// Stops the feed before its first line: the game's first stored line
    /// is missing (the publisher's rows start past it), so nothing is fed
    /// under rules it was not played by.
    pub fn stop_without_setup(&mut self) {
        self.fault.get_or_insert(Fault {
            line: 0,
            kind: FaultKind::SetupNotFirst,
        });
    }

    fn take(&mut self, read: Read, sink: impl FnMut(Millis, Effect)) -> Read<Millis> {
        if let Some(fault) = &self.fault {
            return Read::Stop(fault.clone());
        }
        match read {
            Read::Line(line) => {
                let t = line.t;
                match self.line(line, sink) {
                    Ok(()) => {
                        self.last_t = Some(t);
                        Read::Line(t)
                    }
                    Err(kind) => {
                        let fault = Fault {
                            line: self.reader.lines(),
                            kind,
                        };
                        self.fault = Some(fault.clone());
                        Read::Stop(fault)
                    }
                }
            }
            Read::Blank => Read::Blank,
            Read::Skipped(fault) => Read::Skipped(fault),
            Read::Stop(fault) => {
                self.fault = Some(fault.clone());
                Read::Stop(fault)
            }
        }
    }

    /// Gives `line` to the game (its input, or for `end` the time up to its
    /// instant) and hands every effect it caused to `sink`, in order.
    ///
    /// A second `setup` line, or a line earlier than one already fed, is
    /// refused with the fault a [`Reader`] gives for it; a reader under
    /// [`Games::One`](super::Games::One) lets neither through.
    fn line(&mut self, line: Line, mut sink: impl FnMut(Millis, Effect)) -> Result<(), FaultKind> {
        self.began_with_setup
            .get_or_insert(matches!(line.event, Event::Setup(_)));
        let referee = match line.event {
            Event::Setup(rules) => {
                if self.referee.is_some() {
                    return Err(FaultKind::SetupNotFirst);
                }
                // A starting position already over has its result at
                // once: handed on with the setup, not held for a next line.
                self.referee.insert(Referee::new(*rules))
            }
            Event::Input(input) => {
                let referee = self
                    .referee
                    .get_or_insert_with(|| Referee::new(Rules::default()));
                // The buttons are read on the referee as it stands at the
                // press, as the clock reads them.
                referee.handle_timeout(line.t).map_err(backwards)?;
                // While paused a script's buttons are the referee's (the
                // draw button a claim with the clock stopped, 9.5); the
                // clock's correction screen is written as the corrections
                // it makes (`set_time`, `set_moves`, the arbiter's acts).
                let meant = if referee.is_paused() {
                    Some(input)
                } else {
                    self.controls.meaning(referee, line.t, input)
                };
                if let Some(input) = meant {
                    referee.handle(line.t, input).map_err(backwards)?;
                    self.controls.given(&input);
                }
                referee
            }
            Event::End | Event::Checkpoint | Event::Restart { .. } => {
                if let Event::Restart { off_ms } = line.event {
                    self.restarts.push((line.t, off_ms));
                }
                let referee = self
                    .referee
                    .get_or_insert_with(|| Referee::new(Rules::default()));
                referee.handle_timeout(line.t).map_err(backwards)?;
                referee
            }
        };
        while let Some((t, effect)) = referee.poll_effect() {
            self.controls.decided(&effect);
            if self.over {
                continue;
            }
            self.over = matches!(effect, Effect::Result { .. });
            sink(t, effect);
        }
        Ok(())
    }

    /// The restarts the lines record (a crash, a power cut): each one's
    /// instant and how long the clock was off, when known.
    pub fn restarts(&self) -> &[(Millis, Option<u64>)] {
        &self.restarts
    }

    /// The game's referee, once a line made it.
    pub fn referee(&self) -> Option<&Referee> {
        self.referee.as_ref()
    }

    /// The instant of the last line fed, as the reader took it (clamped,
    /// if the policy clamps); `None` if no line was.
    pub fn last_t(&self) -> Option<Millis> {
        self.last_t
    }

    /// The bad line feeding stopped at, if it did.
    pub fn fault(&self) -> Option<&Fault> {
        self.fault.as_ref()
    }

    /// How many lines were read, blank and bad ones included: the number
    /// of the last one.
    pub fn lines(&self) -> usize {
        self.reader.lines()
    }

    /// The game's referee, to go on with, once a line made it.
    pub fn into_referee(self) -> Option<Referee> {
        self.referee
    }
}

fn backwards(err: crate::referee::TimeWentBackwards) -> FaultKind {
    FaultKind::TimeWentBackwards {
        t: err.now,
        last: err.last,
    }
}

/// Why a stored game could not be rebuilt at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreError {
    /// The first line is not a valid line.
    BadLine(Fault),
    /// The first line is not `setup`, or there are no lines.
    NoSetup,
}

impl std::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RestoreError::BadLine(fault) => write!(f, "stored {fault}"),
            RestoreError::NoSetup => f.write_str("the stored game does not start with its setup"),
        }
    }
}

impl std::error::Error for RestoreError {}

/// What a restore made of a stored game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The last instant of the game as rebuilt, on its own clock.
    pub t: Millis,
    /// The bad line the stored lines stopped at, if they did: the game was
    /// rebuilt from every line before it.
    pub fault: Option<Fault>,
}

/// Rebuilds a stored game into `session` by replaying its lines under
/// `policy` (the daemon uses [`Policy::RESTORE`]): an unfinished game comes
/// back paused at its last stored instant, on a shell clock that reads
/// `now`.
///
/// A bad line keeps every line before it (the fault is in the answer, for
/// the log); only a game whose first line is not a valid `setup` cannot be
/// rebuilt at all.
pub fn restore(
    session: &mut Session,
    now: Millis,
    saved: SavedGame<'_>,
    policy: Policy,
) -> Result<Restored, RestoreError> {
    // Each stored line is read once: the first one fed must be the setup,
    // and the game is rebuilt from every line up to a bad one.
    let mut game = Feed::new(policy);
    let mut decisions = Vec::new();
    let mut fault = None;
    for row in saved.lines {
        match game.push_str(row, |t, effect| decisions.push((t, effect))) {
            Read::Line(_) if game.began_with_setup == Some(false) => {
                return Err(RestoreError::NoSetup);
            }
            Read::Line(_) | Read::Blank => {}
            Read::Skipped(skipped) if game.last_t.is_none() => {
                return Err(RestoreError::BadLine(skipped));
            }
            Read::Skipped(skipped) => tracing::warn!("skipped stored {skipped}"),
            Read::Stop(stopped) => {
                fault = Some(stopped);
                break;
            }
        }
    }
    let Some(t) = game.last_t else {
        return Err(fault.map_or(RestoreError::NoSetup, RestoreError::BadLine));
    };
    let restarts = game.restarts().to_vec();
    let referee = game
        .into_referee()
        .expect("the setup line makes the referee");
    session.resume_from(now, &saved, referee, t, decisions);
    session.restarted_before(restarts);
    Ok(Restored { t, fault })
}
