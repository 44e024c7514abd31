//! The one loop that reads lines and feeds them to a referee: [`Feed`]
//! reads raw lines through its [`Reader`], gives each to its game, hands
//! the effects to a sink and builds the [`Fault`] it stops at, whoever
//! calls it: `tocada replay`, a restore ([`restore`]), the PGN of a stored
//! game, the hall and the publisher.

use super::line::{Event, Line};
use super::policy::{OnTimeBackwards, Policy};
use super::reader::{Fault, FaultKind, Read, Reader};
use crate::referee::{Effect, Millis, Referee, Rules};
use crate::session::{Controls, GameToResume, Session};

/// The furthest a `checkpoint` line's `ran_to` is believed past its own
/// instant: the daemon holds the referee's time back for a silent board
/// at most as long as a press waits for one (2 s), so a line saying more
/// was not written by it, and a game is not restored with a clock run
/// further on its word.
pub const RAN_TO_AT_MOST_MS: Millis = 2_000;

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
    /// The furthest a `checkpoint` line says the running clock ran.
    ran_to: Option<Millis>,
    /// Who plays, as the `players` line says.
    players: Option<crate::players::Players>,
    /// Whether the only line fed so far is `setup`: where a `players`
    /// line may come.
    setup_only: bool,
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
            ran_to: None,
            players: None,
            setup_only: false,
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
        let setup_only = std::mem::replace(
            &mut self.setup_only,
            matches!(line.event, Event::Setup(_)) && self.referee.is_none(),
        );
        let referee = match line.event {
            Event::Players(players) => {
                if !setup_only {
                    return Err(FaultKind::PlayersNotAfterSetup);
                }
                // Decides nothing: a game replays to the same effects
                // with or without it.
                self.players = Some(*players);
                return Ok(());
            }
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
            Event::End | Event::Checkpoint { .. } | Event::Restart { .. } => {
                match line.event {
                    Event::Restart { off_ms } => self.restarts.push((line.t, off_ms)),
                    Event::Checkpoint {
                        ran_to: Some(ran_to),
                    } => {
                        let ran_to = ran_to.min(line.t.saturating_add(RAN_TO_AT_MOST_MS));
                        self.ran_to = self.ran_to.max(Some(ran_to));
                    }
                    _ => {}
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

    /// The furthest the running clock ran, as the `checkpoint` lines say
    /// (their `ran_to`), if any says it ran past its own instant: a game
    /// restored goes on from no earlier than this.
    pub fn ran_to(&self) -> Option<Millis> {
        self.ran_to
    }

    /// Who plays, as the game's `players` line says, if it has one.
    pub fn players(&self) -> Option<&crate::players::Players> {
        self.players.as_ref()
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
    /// The line the stored lines stopped at, if they did: the game was
    /// rebuilt from every line before it, none after.
    pub fault: Option<Fault>,
    /// Every input the rebuilt game was given, in order: read from the
    /// stored lines in the same pass, so that no caller reads them again.
    pub inputs: Vec<crate::referee::Input>,
}

/// The longest a running clock goes without a stored line: the daemon
/// stores a `checkpoint` every half second of a running clock, and systemd
/// kills a loop stalled for ten seconds. A stored line longer than this
/// after the line before it, while a clock ran, cannot be: a restore
/// refuses it rather than let a flag fall on it.
pub const RUNNING_GAP_MAX_MS: Millis = 60_000;

/// Later than any stored line can be: a century of a daemon's own clock (a
/// game's instants count from the daemon's start, however long it has been
/// up, and go on from there after a restart). A line stamped later is a
/// damaged time that every later line would have to follow, even while no
/// clock runs, up to where the store can hold no more (`i64::MAX`).
pub const LONGEST_GAME_MS: Millis = 100 * 366 * 24 * 3_600_000;

/// Rebuilds a stored game into `session` by replaying its lines under
/// `policy` (the daemon uses [`Policy::RESTORE`]): an unfinished game comes
/// back paused at its last stored instant, on a shell clock that reads
/// `now`. Each line is read once.
///
/// A stored game is the clock's own record, which the store only ever
/// extends forwards in time, so besides the policy's checks a restore
/// refuses a time that cannot be, whatever the policy says of time going
/// backwards: a line later than the line after it, while the line before
/// it is not ([`FaultKind::AheadOfNext`]: it jumped ahead; one line of
/// look-ahead), a line earlier than the one before, and a line more than
/// [`RUNNING_GAP_MAX_MS`] after the one before while a clock ran
/// ([`FaultKind::GapWhileRunning`]), and one later than
/// [`LONGEST_GAME_MS`] ([`FaultKind::PastAnyGame`]). The wall clock is no
/// judge: a Pi without a real-time clock and without a network may come
/// back from a power cut hours behind.
///
/// A bad line keeps every line before it (the fault is in the answer, for
/// the log and for the store to set that line and the rest aside); only a
/// game whose first line is not a valid `setup` cannot be rebuilt at all.
pub fn restore(
    session: &mut Session,
    now: Millis,
    saved: GameToResume<'_>,
    policy: Policy,
) -> Result<Restored, RestoreError> {
    let mut reader = Reader::new(Policy {
        on_time_backwards: OnTimeBackwards::Refuse,
        ..policy
    });
    let mut stored = Stored {
        game: Feed::new(policy),
        decisions: Vec::new(),
        inputs: Vec::new(),
        last_t: None,
    };
    // The last line read, fed once the next line shows its time can be.
    let mut held: Option<(usize, Line)> = None;
    let mut fault = None;
    for row in saved.lines {
        let line = match reader.push_str(row) {
            Read::Line(line) => line,
            Read::Blank => continue,
            Read::Skipped(fault) => {
                tracing::warn!("skipped stored {fault}");
                continue;
            }
            Read::Stop(stop) => {
                fault = Some(match (&stop.kind, &held) {
                    // The line before went ahead of this one and of the
                    // one before it: that line is the one at fault.
                    (FaultKind::TimeWentBackwards { t, .. }, Some((number, ahead)))
                        if stored.last_t.is_none_or(|last| *t >= last) =>
                    {
                        let fault = Fault {
                            line: *number,
                            kind: FaultKind::AheadOfNext {
                                t: ahead.t,
                                next: *t,
                            },
                        };
                        held = None;
                        fault
                    }
                    _ => stop,
                });
                break;
            }
        };
        if let Some(previous) = held.replace((reader.lines(), line))
            && let Err(err) = stored.feed(previous)
        {
            fault = Some(err?);
            held = None;
            break;
        }
    }
    if let Some(last) = held
        && let Err(err) = stored.feed(last)
    {
        fault = Some(err?);
    }
    let Some(last_t) = stored.last_t else {
        return Err(fault.map_or(RestoreError::NoSetup, RestoreError::BadLine));
    };
    // The running clock ran on past the referee's last instant while the
    // board was silent (a checkpoint's `ran_to`): the game is charged up to
    // there, so that a power cut then gives back no more than since.
    let t = last_t.max(stored.game.ran_to().unwrap_or(0));
    let restarts = stored.game.restarts().to_vec();
    let players = stored.game.players().cloned();
    let referee = stored
        .game
        .into_referee()
        .expect("the setup line makes the referee");
    session.resume_from(now, &saved, referee, t, stored.decisions, players);
    session.restarted_before(restarts);
    Ok(Restored {
        t,
        fault,
        inputs: stored.inputs,
    })
}

/// A stored game being rebuilt, line by line: read ahead by one line (the
/// look-ahead a restore's time checks need), then fed through
/// [`Feed::line`], the one place a line is given to a game.
#[derive(Debug)]
struct Stored {
    game: Feed,
    decisions: Vec<(Millis, Effect)>,
    inputs: Vec<crate::referee::Input>,
    /// The instant of the last line fed.
    last_t: Option<Millis>,
}

impl Stored {
    /// Feeds line `number`, or says why it cannot be (the outer error: the
    /// game cannot be rebuilt at all).
    fn feed(&mut self, (number, line): (usize, Line)) -> Result<(), Result<Fault, RestoreError>> {
        let fault = |kind| Err(Ok(Fault { line: number, kind }));
        if self.last_t.is_none() && !matches!(line.event, Event::Setup(_)) {
            return Err(Err(RestoreError::NoSetup));
        }
        if line.t > LONGEST_GAME_MS {
            return fault(FaultKind::PastAnyGame { t: line.t });
        }
        if let Some(last) = self.last_t
            && self.game.referee().is_some_and(|r| r.ticking().is_some())
            && line.t.saturating_sub(last) > RUNNING_GAP_MAX_MS
        {
            return fault(FaultKind::GapWhileRunning { t: line.t, last });
        }
        let t = line.t;
        let input = match line.event {
            Event::Input(input) => Some(input),
            _ => None,
        };
        let decisions = &mut self.decisions;
        if let Err(kind) = self
            .game
            .line(line, |t, effect| decisions.push((t, effect)))
        {
            return fault(kind);
        }
        self.inputs.extend(input);
        self.last_t = Some(t);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Color, Square};

    use super::*;
    use crate::config::Config;
    use crate::referee::Input;
    use crate::transcript::line::{PARSED, line_to_json};

    fn line(t: Millis, event: Event) -> String {
        line_to_json(&Line { t, event })
    }

    fn input(t: Millis, input: Input) -> String {
        line(t, Event::Input(input))
    }

    /// 1. e4 e5 with White's clock running from 3.2 s, then `tail`.
    fn game(tail: &[String]) -> Vec<String> {
        let mut lines = vec![
            line(0, Event::Setup(Box::default())),
            input(1_000, Input::Press(Color::Black)),
            input(2_000, Input::Lift(Square::E2)),
            input(2_100, Input::Place(Square::E4, None)),
            input(2_200, Input::Press(Color::White)),
            input(3_000, Input::Lift(Square::E7)),
            input(3_100, Input::Place(Square::E5, None)),
            input(3_200, Input::Press(Color::Black)),
        ];
        lines.extend_from_slice(tail);
        lines
    }

    fn restored(lines: &[String]) -> (Session, Restored) {
        let mut session = Session::new(&Config::default());
        let done = restore(
            &mut session,
            0,
            GameToResume {
                preset: "rapid",
                black_left: false,
                date: "?",
                lines,
            },
            Policy::RESTORE,
        )
        .expect("a game");
        (session, done)
    }

    #[test]
    fn a_restore_reads_each_stored_line_once() {
        let lines = game(&[line(3_700, Event::Checkpoint { ran_to: None })]);
        let before = PARSED.with(|parsed| parsed.get());
        let (_, done) = restored(&lines);
        assert_eq!(PARSED.with(|parsed| parsed.get()) - before, lines.len());
        assert_eq!(done.fault, None);
        assert_eq!(done.t, 3_700);
        // The inputs come with it, in order, for whoever needs them.
        assert_eq!(done.inputs.len(), 7);
        assert_eq!(done.inputs[6], Input::Press(Color::Black));
    }

    #[test]
    fn a_line_ahead_of_the_lines_around_it_is_refused() {
        let lines = game(&[
            line(1_003_200, Event::Checkpoint { ran_to: None }),
            input(4_000, Input::Lift(Square::G1)),
        ]);
        let (session, done) = restored(&lines);
        assert_eq!(
            done.fault,
            Some(Fault {
                line: 9,
                kind: FaultKind::AheadOfNext {
                    t: 1_003_200,
                    next: 4_000
                }
            })
        );
        assert_eq!(done.t, 3_200);
        let referee = session.referee().expect("restored");
        assert_eq!(referee.result(), None, "no flag fell");
    }

    #[test]
    fn a_line_going_back_is_the_one_refused_when_the_line_before_agrees() {
        // 3 100, 3 200, then 2 500: earlier than both lines before it, it
        // is the odd one out.
        let lines = game(&[
            line(2_500, Event::Checkpoint { ran_to: None }),
            line(3_700, Event::Checkpoint { ran_to: None }),
        ]);
        let (_, done) = restored(&lines);
        assert!(
            matches!(
                done.fault,
                Some(Fault {
                    line: 9,
                    kind: FaultKind::TimeWentBackwards { t: 2_500, .. }
                })
            ),
            "{:?}",
            done.fault
        );
    }

    #[test]
    fn a_long_gap_while_a_clock_runs_is_refused_but_not_while_none_does() {
        let lines = game(&[line(3_200 + 120_000, Event::Checkpoint { ran_to: None })]);
        let (session, done) = restored(&lines);
        assert!(
            matches!(
                done.fault,
                Some(Fault {
                    line: 9,
                    kind: FaultKind::GapWhileRunning { last: 3_200, .. }
                })
            ),
            "{:?}",
            done.fault
        );
        assert_eq!(session.referee().unwrap().result(), None);
        // Paused, no gap is too long, but a time past any game is.
        let lines = game(&[
            input(3_300, Input::Pause),
            line(u64::MAX >> 1, Event::Checkpoint { ran_to: None }),
        ]);
        let (_, done) = restored(&lines);
        assert!(
            matches!(
                done.fault,
                Some(Fault {
                    line: 10,
                    kind: FaultKind::PastAnyGame { .. }
                })
            ),
            "{:?}",
            done.fault
        );
        // Before the first press no clock runs: ten minutes of waiting is
        // a game like any other.
        let lines = [
            line(0, Event::Setup(Box::default())),
            input(600_000, Input::Press(Color::Black)),
        ];
        let (_, done) = restored(&lines);
        assert_eq!((done.fault, done.t), (None, 600_000));
    }
}
