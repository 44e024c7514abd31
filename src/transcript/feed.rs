//! The one loop that feeds lines to a referee: [`Feed`] takes [`Line`]s in
//! order and hands the effects to a sink, and [`feed_rows`] and
//! [`restore`] drive it from stored lines through a [`Reader`].

use super::line::{Event, Line};
use super::policy::Policy;
use super::reader::{Fault, FaultKind, Read, Reader};
use crate::referee::{Effect, Millis, Referee, Rules};
use shakmaty::Color;

use crate::session::{Controls, Correction, SavedGame, Session};

/// One game fed line by line. Its referee is made by the `setup` line, or
/// under the default rules by the first other line, as `tocada replay`
/// always did. Nothing is handed on after the result: the referee promises
/// it, and the format promises it too, so it is enforced here rather than
/// trusted.
#[derive(Debug, Default)]
pub struct Feed {
    referee: Option<Referee>,
    /// What the players' buttons mean in play, as on the clock: a script's
    /// `adjust` twice within 600 ms is the claim the clock hears.
    controls: Controls,
    over: bool,
    /// Each `restart` line's instant and how long the clock was off.
    restarts: Vec<(Millis, Option<u64>)>,
}

impl Feed {
    /// A game with no line yet.
    pub fn new() -> Feed {
        Feed::default()
    }

    /// Gives `line` to the game (its input, or for `end` the time up to its
    /// instant) and hands every effect it caused to `sink`, in order.
    ///
    /// A lever, draw or adjust button means what it means on the clock
    /// ([`Controls`]): the claim gesture, a choice's mark and answer, the
    /// promotion piece in play; the correction screen while paused.
    ///
    /// A second `setup` line, or a line earlier than one already fed, is
    /// refused with the fault a [`Reader`] gives for it; a reader under
    /// [`Games::One`](super::Games::One) lets neither through.
    pub fn line(
        &mut self,
        line: Line,
        mut sink: impl FnMut(Millis, Effect),
    ) -> Result<(), FaultKind> {
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
                let meant = if referee.is_paused() {
                    // White's buttons on the left, as the clock is wired
                    // unless its configuration says otherwise.
                    match self
                        .controls
                        .paused(referee, line.t, input, |side| side == Color::White)
                    {
                        Correction::Give(input) => Some(input),
                        Correction::Abandon => {
                            // The arbiter ends the game without a result:
                            // nothing more is decided.
                            self.over = true;
                            None
                        }
                        Correction::Field(_) | Correction::Propose(..) | Correction::Nothing => {
                            None
                        }
                    }
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

/// How far [`feed_rows`] got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fed {
    /// The instant of the last line fed, as the reader took it (clamped,
    /// if the policy clamps); `None` if no line was.
    pub last_t: Option<Millis>,
    /// The bad line reading stopped at, if it stopped: every line before it
    /// was fed, none after.
    pub fault: Option<Fault>,
}

/// Feeds stored lines (whole lines, without line endings), in order, to
/// `game` under `policy`, effects to `sink`. Faults the policy skips are
/// handed to `skipped`.
pub fn feed_rows(
    rows: &[String],
    policy: Policy,
    game: &mut Feed,
    mut sink: impl FnMut(Millis, Effect),
    mut skipped: impl FnMut(Fault),
) -> Fed {
    let mut reader = Reader::new(policy);
    let mut last_t = None;
    for row in rows {
        let fault = match reader.push_str(row) {
            Read::Line(line) => {
                let t = line.t;
                match game.line(line, &mut sink) {
                    Ok(()) => {
                        last_t = Some(t);
                        continue;
                    }
                    Err(kind) => Fault {
                        line: reader.lines(),
                        kind,
                    },
                }
            }
            Read::Blank => continue,
            Read::Skipped(fault) => {
                skipped(fault);
                continue;
            }
            Read::Stop(fault) => fault,
        };
        return Fed {
            last_t,
            fault: Some(fault),
        };
    }
    Fed {
        last_t,
        fault: None,
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
    let mut first = Reader::new(policy);
    let setup_first = saved
        .lines
        .iter()
        .map(|row| first.push_str(row))
        .find(|read| *read != Read::Blank);
    match setup_first {
        Some(Read::Line(Line {
            event: Event::Setup(_),
            ..
        })) => {}
        Some(Read::Skipped(fault) | Read::Stop(fault)) => {
            return Err(RestoreError::BadLine(fault));
        }
        Some(Read::Line(_) | Read::Blank) | None => return Err(RestoreError::NoSetup),
    }
    let mut game = Feed::new();
    let mut decisions = Vec::new();
    let fed = feed_rows(
        saved.lines,
        policy,
        &mut game,
        |t, effect| decisions.push((t, effect)),
        |fault| tracing::warn!("skipped stored {fault}"),
    );
    let t = fed.last_t.expect("the setup line was fed");
    let restarts = game.restarts().to_vec();
    let referee = game
        .into_referee()
        .expect("the setup line makes the referee");
    session.resume_from(now, &saved, referee, t, decisions);
    session.restarted_before(restarts);
    Ok(Restored {
        t,
        fault: fed.fault,
    })
}
