//! The power-cut test: `tocada run` on the device models is killed with
//! SIGKILL at many points of a real game and restarted on the same state
//! directory, as a clock whose plug is pulled mid-game.
//!
//! After every kill the database is read independently (`Store`, and a fresh
//! `Referee` fed the stored lines), and:
//! - no completed move is lost: every move a reader of the database saw
//!   committed just before the kill is still there after it, and every
//!   move printed on stdout is stored, same SAN, same order, when the kill
//!   comes once the store has caught up (no wall-clock promise: how soon a
//!   commit lands depends on the machine's load, and a move printed a
//!   moment before the kill may be lost with the process and played again);
//! - the restarted daemon shows the game as of the last stored event: its
//!   `game_restored` line has the replay's moves, position and both clocks
//!   at the last stored instant, the game comes back paused, and the next
//!   move charges the mover only the time since the resume.
//!
//! The game goes on from the stored position (events after the last stored
//! one died with the process), ends by resignation, is `finished` in the
//! store, is not restored once more, and `tocada export` prints it whole.
//!
//! Kill points come from a fixed seed: right after the start, right after
//! presses, between the lift and the place of a move, anywhere, while the
//! restored game waits paused, and right after the resignation; each at
//! once, a few ms later (mid-commit) or well after (all stored).
//!
//! Under `TOCADA_TEST_RUNNER` (qemu for the aarch64 run of `.ci/run`) the
//! binary runs through the runner, like `tests/replay_cli.rs`: the checks
//! hold at any speed, since every wait has a generous timeout and no check
//! depends on how fast the machine is.

mod support {
    pub mod cli;
    pub mod parsed;
    pub mod pgn;
}

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, KnownOutcome, Position};
use tocada::gesture::{Style, hand_events, parse_san};
use tocada::store::{DB_FILE, Store, StoreError};
use tocada::transcript::{self, Event, Line};
use tocada::{Effect, Input, Millis, Reason, Referee};

use support::cli::tocada;
use support::parsed::parse_one;
use support::pgn::{PgnGame, data_dir, read_pgn};

/// The preset the clock is configured with, and its increment.
const PRESET: &str = "blitz";
const INCREMENT_MS: u64 = 2_000;
/// The longest any single wait on the daemon may take.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Kills spread over the game, besides those while paused and at the end.
const KILLS_IN_PLAY: usize = 24;
const SEED: u64 = 0x70ca_dac0_ffee;

/// SplitMix64: deterministic kill points and paces from [`SEED`].
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    fn ms(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_millis(self.between(lo, hi))
    }
}

/// One ply of the game as hands make it on the board.
#[derive(Debug)]
struct Ply {
    san: String,
    side: Color,
    /// Lifts and places (and the promotion choice), in order.
    hands: Vec<Input>,
    /// Completed by a press (every move but one that ends the game itself).
    pressed: bool,
}

/// The whole game to play: its plies and how it ends.
struct Plan {
    plies: Vec<Ply>,
    /// The loser's resignation after the last ply.
    resign: Color,
    result: &'static str,
}

impl Plan {
    /// The plies of `game`, each move made in a style drawn from the seed on
    /// a board that senses occupancy only, and the loser's resignation.
    fn new(game: &PgnGame, rng: &mut Rng) -> Plan {
        let mut position = game.start();
        let mut plies = Vec::new();
        for san in &game.sans {
            let m = parse_san(&position, san).expect("the reference game is legal");
            let style = Style::from_index(rng.between(0, 31) as usize).with_identities(false);
            let hands = hand_events(&position, m, &style)
                .into_iter()
                .map(|(_, input)| input)
                .collect();
            let side = position.turn();
            position.play_unchecked(m);
            plies.push(Ply {
                san: san.clone(),
                side,
                hands,
                pressed: !position.is_game_over(),
            });
        }
        let (resign, result) = match game.expected_result() {
            (KnownOutcome::Decisive { winner }, Reason::Resignation) => {
                (!winner, if winner == Color::White { "1-0" } else { "0-1" })
            }
            other => panic!(
                "{}: a game ended by resignation is needed: {other:?}",
                game.name
            ),
        };
        Plan {
            plies,
            resign,
            result,
        }
    }

    /// What is left to send from `cursor`, in order.
    fn steps_from(&self, cursor: Cursor) -> Vec<Step> {
        let (first_ply, first_hand) = match cursor {
            Cursor::Start => (0, 0),
            Cursor::Ply { ply, hand } => (ply, hand),
            Cursor::Resign => (self.plies.len(), 0),
            Cursor::Over => return Vec::new(),
        };
        let mut steps = Vec::new();
        if cursor == Cursor::Start {
            steps.push(Step {
                input: Input::Press(Color::Black),
                kind: Kind::Start,
            });
        }
        for (ply, p) in self.plies.iter().enumerate().skip(first_ply) {
            let from = if ply == first_ply { first_hand } else { 0 };
            for (hand, &input) in p.hands.iter().enumerate().skip(from) {
                steps.push(Step {
                    input,
                    kind: Kind::Hand {
                        last: hand + 1 == p.hands.len(),
                        ends_game: !p.pressed,
                    },
                });
            }
            if p.pressed {
                steps.push(Step {
                    input: Input::Press(p.side),
                    kind: Kind::Press { ply },
                });
            }
        }
        if self.plies.last().is_none_or(|p| p.pressed) {
            steps.push(Step {
                input: Input::Resign(self.resign),
                kind: Kind::Resign,
            });
        }
        steps
    }
}

/// Where the game stands, as stored: what to send next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cursor {
    /// Black's start press is not stored.
    Start,
    /// Ply `ply` is next, its first `hand` contacts stored (all of them:
    /// its press is next).
    Ply { ply: usize, hand: usize },
    /// Every move is stored; the resignation is next.
    Resign,
    /// The stored game has its result.
    Over,
}

#[derive(Debug, Clone, Copy)]
struct Step {
    input: Input,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Start,
    Hand { last: bool, ends_game: bool },
    Press { ply: usize },
    Resign,
}

/// Which step a kill follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The start press.
    Start,
    /// A press completing a move.
    Press,
    /// A lift or place that leaves the move unfinished.
    MidMove,
    /// Any step.
    Any,
}

impl Target {
    fn matches(self, kind: Kind) -> bool {
        match self {
            Target::Start => kind == Kind::Start,
            Target::Press => matches!(kind, Kind::Press { .. }),
            Target::MidMove => matches!(kind, Kind::Hand { last: false, .. }),
            Target::Any => true,
        }
    }
}

/// How long after its step a kill comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delay {
    /// 0–3 ms: the step may not even be read.
    AtOnce,
    /// 5–60 ms: read and queued, maybe mid-commit.
    Soon,
    /// 200–400 ms, and once every move printed is stored.
    Later,
}

impl Delay {
    fn pick(rng: &mut Rng) -> Delay {
        match rng.between(0, 2) {
            0 => Delay::AtOnce,
            1 => Delay::Soon,
            _ => Delay::Later,
        }
    }

    fn wait(self, rng: &mut Rng) -> Duration {
        match self {
            Delay::AtOnce => rng.ms(0, 3),
            Delay::Soon => rng.ms(5, 60),
            Delay::Later => rng.ms(200, 400),
        }
    }
}

/// One planned kill: after `after` more steps, at the next step matching
/// `target`, `delay` later.
#[derive(Debug, Clone, Copy)]
struct Kill {
    after: usize,
    target: Target,
    delay: Delay,
}

fn kill_plan(rng: &mut Rng) -> Vec<Kill> {
    let mut kills = vec![Kill {
        after: 0,
        target: Target::Start,
        delay: Delay::AtOnce,
    }];
    // Each kind at least once with each delay, then drawn from the seed.
    let targets = [Target::Press, Target::MidMove, Target::Any];
    let delays = [Delay::AtOnce, Delay::Soon, Delay::Later];
    for i in 0..KILLS_IN_PLAY - 1 {
        let (target, delay) = if i < 9 {
            (targets[i % 3], delays[i / 3])
        } else {
            (targets[rng.between(0, 2) as usize], Delay::pick(rng))
        };
        kills.push(Kill {
            after: rng.between(2, 12) as usize,
            target,
            delay,
        });
    }
    kills
}

/// A running `tocada run`, killed when dropped.
struct Daemon {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(Instant, String)>,
    reader: Option<JoinHandle<()>>,
    stderr: PathBuf,
}

impl Daemon {
    fn spawn(config: &Path, stderr: PathBuf) -> Daemon {
        Daemon::spawn_notifying(config, stderr, None)
    }

    /// As [`Daemon::spawn`], telling systemd's messages to the datagram
    /// socket at `notify`, if given.
    fn spawn_notifying(config: &Path, stderr: PathBuf, notify: Option<&Path>) -> Daemon {
        let log = File::create(&stderr).expect("the daemon's stderr file");
        let mut command = tocada();
        command.env_remove("NOTIFY_SOCKET");
        if let Some(notify) = notify {
            command.env("NOTIFY_SOCKET", notify);
        }
        let mut child = command
            .arg("run")
            .arg("--config")
            .arg(config)
            .env("RUST_LOG", "info")
            .env_remove("WATCHDOG_USEC")
            .env_remove("JOURNAL_STREAM")
            .env_remove("STATE_DIRECTORY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("the tocada binary runs");
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        // Lines are stamped as they are read: "read on stdout" is this instant.
        let reader = thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        Daemon {
            child,
            stdin,
            lines,
            reader: Some(reader),
            stderr,
        }
    }

    /// Writes one input as a replay line (its `t` is ignored by the daemon).
    fn send(&mut self, input: Input) {
        let line = transcript::line_to_json(&Line {
            t: 0,
            event: Event::Input(input),
        });
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|err| panic!("writing to the daemon: {err}\n{}", self.log()));
    }

    /// The next output line, or `None` after `timeout`.
    fn next(&mut self, timeout: Duration) -> Option<(Instant, Value)> {
        match self.lines.recv_timeout(timeout) {
            Ok((at, text)) => {
                let value = serde_json::from_str(&text)
                    .unwrap_or_else(|err| panic!("not JSON on stdout: {text:?}: {err}"));
                Some((at, value))
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the daemon stopped by itself\n{}", self.log())
            }
        }
    }

    /// SIGKILL; returns the instant just before it and every line read.
    fn kill(mut self) -> (Instant, Vec<(Instant, Value)>) {
        let at = Instant::now();
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the reader thread");
        }
        let rest = self
            .lines
            .try_iter()
            .map(|(t, text)| (t, serde_json::from_str(&text).expect("JSON on stdout")))
            .collect();
        (at, rest)
    }

    /// SIGTERM, as systemd stops it; waits for the exit.
    fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "no exit on SIGTERM\n{}",
                self.log()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The end of the daemon's stderr, for failure messages.
    fn log(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("{}:\n{}", self.stderr.display(), tail.join("\n"))
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The game as the store holds it after a kill: `None` before the game
/// began (no game row yet).
struct Stored {
    replayed: Replayed,
    /// The result column: `None` while unfinished.
    result: Option<String>,
}

/// A stored game's lines fed to a fresh referee.
struct Replayed {
    referee: Referee,
    sans: Vec<String>,
    /// Every input line but pause and resume, in order.
    inputs: Vec<Input>,
    /// The last stored instant.
    last: Millis,
    lines: usize,
}

/// Reads the store read-only, as `tocada export` does, while no daemon runs.
fn stored(db: &Path) -> Option<Stored> {
    if !db.exists() {
        return None;
    }
    let store = match Store::open_read_only(db) {
        Ok(store) => store,
        // Killed while creating the schema: no game can be in it.
        Err(StoreError::NotAGameStore { .. }) => return None,
        Err(err) => panic!("the store after a kill: {err}"),
    };
    let finished = store.finished_since(None).expect("finished games");
    let unfinished = store.unfinished().expect("the unfinished game");
    let result = match (finished.as_slice(), &unfinished) {
        ([], None) => return None,
        ([], Some(game)) => {
            assert_eq!(game.preset, PRESET);
            None
        }
        ([game], None) => Some(game.result.clone()),
        (finished, unfinished) => panic!(
            "one game expected, found {} finished and {:?} unfinished",
            finished.len(),
            unfinished.as_ref().map(|g| g.id)
        ),
    };
    let game = store
        .game(1)
        .expect("game 1")
        .expect("the one game is game 1");
    Some(Stored {
        replayed: replay_lines(&game.lines),
        result,
    })
}

/// The stored lines through a fresh referee, as `Session::restore` does, with
/// no ruling allowed but the moves and the clocks.
fn replay_lines(lines: &[String]) -> Replayed {
    let parsed: Vec<Line> = lines
        .iter()
        .map(|text| {
            transcript::parse_line(text)
                .unwrap_or_else(|err| panic!("stored line {text:?}: {err}"))
                .unwrap_or_else(|| panic!("an empty stored line"))
        })
        .collect();
    let Some((
        Line {
            t: start,
            event: Event::Setup(rules),
        },
        rest,
    )) = parsed.split_first()
    else {
        panic!("the stored game does not start with its setup: {lines:?}");
    };
    let mut referee = Referee::new((**rules).clone());
    let mut inputs = Vec::new();
    let mut last = *start;
    let mut previous = *start;
    for line in rest {
        assert!(line.t >= previous, "stored lines in time order: {lines:?}");
        previous = line.t;
        last = last.max(line.t);
        match &line.event {
            Event::Input(input) => {
                referee.handle(line.t, *input).expect("in order");
                if !matches!(input, Input::Pause | Input::Resume) {
                    inputs.push(*input);
                }
            }
            // Time passing on a running clock: no ruling in this game.
            // The clock ran on to `ran_to` (a silent board held the
            // referee's time back): the restored game is charged up to it.
            Event::Checkpoint { ran_to } => {
                referee.handle_timeout(line.t).expect("in order");
                last = last.max(ran_to.unwrap_or(line.t));
            }
            // A note for the score that the daemon came back here; who
            // plays, for the score's roster.
            Event::Restart { .. } | Event::Players(_) => {}
            other => panic!("a stored {other:?} in a game with no flag"),
        }
    }
    let mut sans = Vec::new();
    while let Some((t, effect)) = referee.poll_effect() {
        match effect {
            Effect::Move(m) => sans.push(m.san.to_string()),
            Effect::Started { .. }
            | Effect::Paused
            | Effect::Resumed
            | Effect::Result {
                reason: Reason::Resignation,
                ..
            } => {}
            other => panic!("the stored game replays to a ruling at {t}: {other:?}\n{lines:#?}"),
        }
    }
    assert_eq!(referee.contradictions(), 0, "stored events fit the board");
    Replayed {
        referee,
        sans,
        inputs,
        last,
        lines: lines.len(),
    }
}

/// Where the plan resumes from the stored game; checks that what is stored
/// is the plan's own events, in order, with nothing missing in between.
fn cursor(plan: &Plan, game: &Replayed) -> Cursor {
    if game.referee.result().is_some() {
        return Cursor::Over;
    }
    let Some(first) = game.inputs.first() else {
        return Cursor::Start;
    };
    assert_eq!(*first, Input::Press(Color::Black), "the start press first");
    let k = game.sans.len();
    for (ply, san) in game.sans.iter().enumerate() {
        assert_eq!(san, &plan.plies[ply].san, "stored move {ply}");
    }
    let presses = game
        .inputs
        .iter()
        .filter(|i| matches!(i, Input::Press(_)))
        .count();
    assert_eq!(presses, k + 1, "a press per completed move, and the start");
    let after_press = game
        .inputs
        .iter()
        .rposition(|i| matches!(i, Input::Press(_)))
        .expect("the start press");
    let partial = &game.inputs[after_press + 1..];
    if k == plan.plies.len() {
        assert!(partial.is_empty(), "after the last move: {partial:?}");
        return Cursor::Resign;
    }
    let hands = &plan.plies[k].hands;
    assert!(
        partial.len() <= hands.len() && partial == &hands[..partial.len()],
        "ply {k}: stored {partial:?}, planned {hands:?}"
    );
    Cursor::Ply {
        ply: k,
        hand: partial.len(),
    }
}

/// The ply a `move` line is about.
fn ply_of(line: &Value) -> usize {
    let n = line["n"].as_u64().expect("n") as usize;
    let black = line["side"] == "black";
    2 * (n - 1) + usize::from(black)
}

/// What the test has seen of the game across restarts.
#[derive(Default)]
struct Observed {
    /// Each move read on stdout: its SAN and when it was read.
    moves: BTreeMap<usize, (String, Instant)>,
    /// The clocks a restart showed (White's, Black's) and when it was read:
    /// held against the next move.
    restored: Option<(Instant, u64, u64)>,
    /// A restart with a stored game is under way: its `game_restored` line
    /// may come, once.
    restore_expected: bool,
    /// Moves a reader saw committed before a kill and found stored after it, summed
    /// over the kills: the durability check had something to check.
    durable_moves: usize,
    /// First moves after a restart whose clocks were checked.
    clocks_checked: usize,
}

impl Observed {
    /// Takes in one output line; rulings other than the game's own are
    /// failures (a restart must not make the referee see anything odd).
    fn take(&mut self, plan: &Plan, at: Instant, line: &Value) {
        match line["effect"].as_str().unwrap_or_default() {
            "move" => {
                let ply = ply_of(line);
                let san = line["san"].as_str().expect("san").to_owned();
                assert_eq!(san, plan.plies[ply].san, "move {ply} on stdout");
                if let Some((restored_at, white, black)) = self.restored.take() {
                    check_first_move_after_restart(line, restored_at, at, white, black);
                    self.clocks_checked += 1;
                }
                self.moves.insert(ply, (san, at));
            }
            "game_restored" => {
                assert!(self.restore_expected, "a restore out of the blue: {line}");
                self.restore_expected = false;
            }
            "started" | "paused" | "resumed" | "result" => {}
            other => panic!("unexpected on stdout: {other}: {line}"),
        }
    }
}

/// Only the time since the restart is charged: the mover's clock is the
/// restored one, less at most the time since the restart was read, plus the
/// increment; the other clock did not move.
fn check_first_move_after_restart(
    line: &Value,
    restored_at: Instant,
    at: Instant,
    white: u64,
    black: u64,
) {
    let (mover, other, mover_ms, other_ms) = if line["side"] == "white" {
        (white, black, &line["white_ms"], &line["black_ms"])
    } else {
        (black, white, &line["black_ms"], &line["white_ms"])
    };
    let mover_ms = mover_ms.as_u64().expect("ms");
    let elapsed = at.duration_since(restored_at).as_millis() as u64;
    assert!(
        mover_ms <= mover + INCREMENT_MS && mover_ms + elapsed + 5 >= mover + INCREMENT_MS,
        "after a restart at {mover} ms, {elapsed} ms later: {line}"
    );
    assert_eq!(other_ms.as_u64(), Some(other), "the other clock: {line}");
}

/// The test's own record of one run.
struct Run {
    plan: Plan,
    rng: Rng,
    dir: tempfile::TempDir,
    config: PathBuf,
    db: PathBuf,
    observed: Observed,
    starts: usize,
    kills: Vec<(Target, Delay)>,
    paused_kills: usize,
}

impl Run {
    fn spawn(&mut self) -> Daemon {
        self.starts += 1;
        let log = self.dir.path().join(format!("stderr-{}.log", self.starts));
        Daemon::spawn(&self.config, log)
    }

    /// Waits for a line with this `effect`, taking in everything before it.
    fn expect(&mut self, daemon: &mut Daemon, effect: &str) -> (Instant, Value) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some((at, line)) = daemon.next(left) else {
                panic!("no {effect} line within {TIMEOUT:?}\n{}", daemon.log());
            };
            self.observed.take(&self.plan, at, &line);
            if line["effect"] == effect {
                return (at, line);
            }
        }
    }

    /// Waits until the store holds every move printed so far, as it must
    /// sooner or later: how soon depends on the machine's load, so no
    /// time is promised, only [`TIMEOUT`].
    fn settle(&mut self, daemon: &mut Daemon) {
        while let Some((at, line)) = daemon.next(Duration::ZERO) {
            self.observed.take(&self.plan, at, &line);
        }
        let printed = self
            .observed
            .moves
            .keys()
            .next_back()
            .map_or(0, |ply| ply + 1);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let stored = stored(&self.db).map_or(0, |s| s.replayed.sans.len());
            if stored >= printed {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{printed} moves printed, {stored} stored after {TIMEOUT:?}\n{}",
                daemon.log()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills the daemon (once every printed move is stored if `settled`)
    /// and checks the store against what stdout said and what a reader
    /// saw committed just before the kill.
    fn kill(&mut self, mut daemon: Daemon, settled: bool) -> Option<Stored> {
        if settled {
            self.settle(&mut daemon);
        }
        // What a reader sees committed before the kill must survive it.
        // Whether a move printed a moment ago is committed yet is up to
        // the machine's speed: a SIGKILL may lose it, and the test plays
        // it again after the restart.
        let committed: Vec<String> = stored(&self.db).map_or(Vec::new(), |s| s.replayed.sans);
        let (_, rest) = daemon.kill();
        for (at, line) in &rest {
            self.observed.take(&self.plan, *at, line);
        }
        let stored = stored(&self.db);
        let stored_sans: &[String] = stored.as_ref().map_or(&[], |s| &s.replayed.sans);
        assert!(
            stored_sans.starts_with(&committed),
            "committed before the kill: {committed:?}, after: {stored_sans:?}"
        );
        self.observed.durable_moves += committed.len();
        for (&ply, (san, _)) in &self.observed.moves {
            match stored_sans.get(ply) {
                Some(stored) => assert_eq!(stored, san, "move {ply}: stored as printed"),
                None => assert!(
                    !settled,
                    "move {ply} ({san}) was stored before the kill and is lost"
                ),
            }
        }
        // Moves lost with the process are made again after the restart.
        let kept = stored_sans.len();
        self.observed.moves.retain(|&ply, _| ply < kept);
        self.observed.restored = None;
        stored
    }
}

/// Restarts after a kill and brings the game back into play; returns the
/// daemon and where the plan goes on, or `None` when the game is over.
fn restart(run: &mut Run, mut stored: Option<Stored>) -> Option<(Daemon, Cursor)> {
    loop {
        let Some(Stored {
            replayed: game,
            result,
        }) = stored
        else {
            return Some((run.spawn(), Cursor::Start));
        };
        let cursor = cursor(&run.plan, &game);
        if let Some(result) = result {
            assert_eq!(result, run.plan.result);
            assert_eq!(cursor, Cursor::Over, "finished as it replays");
            return None;
        }
        let mut daemon = run.spawn();
        run.observed.restore_expected = true;
        let (restored_at, line) = run.expect(&mut daemon, "game_restored");
        check_restored(&line, &game);
        if cursor == Cursor::Over {
            // Killed between the result and its storing: the restart
            // stores it.
            wait_finished(&run.db, &daemon);
            return None;
        }
        // Sometimes the plug is pulled again before anyone resumes.
        if run.rng.between(0, 3) == 0 {
            thread::sleep(run.rng.ms(0, 300));
            run.paused_kills += 1;
            stored = run.kill(daemon, false);
            let again = stored.as_ref().expect("still stored");
            assert_eq!(again.replayed.sans, game.sans, "nothing moves while paused");
            assert!(
                again.replayed.lines <= game.lines + 2,
                "at most a pause and the restart's note are added"
            );
            continue;
        }
        let mut cursor = cursor;
        if cursor != Cursor::Start {
            // Any lever resumes a restored game; the mover's, with his move
            // made on the board and not pressed, also completes it (6.2.1):
            // that press is then the plan's.
            let mut lever = Color::White;
            let mut completes = None;
            if let Cursor::Ply { ply, hand } = cursor {
                let p = &run.plan.plies[ply];
                if p.pressed && hand == p.hands.len() {
                    lever = p.side;
                    completes = Some(ply);
                    cursor = if ply + 1 == run.plan.plies.len() {
                        Cursor::Resign
                    } else {
                        Cursor::Ply {
                            ply: ply + 1,
                            hand: 0,
                        }
                    };
                }
            }
            daemon.send(Input::Press(lever));
            run.expect(&mut daemon, "resumed");
            // The clocks the next move is held against: the restored ones,
            // or, when the resuming press completed a move, as it left them
            // (the mover's increment added, nothing run).
            let mut clocks = line.clone();
            if let Some(ply) = completes {
                let (_, moved) = run.expect(&mut daemon, "move");
                assert_eq!(ply_of(&moved), ply, "the resuming press completes its move");
                clocks = moved;
            }
            let white = clocks["white_ms"].as_u64().expect("white_ms");
            let black = clocks["black_ms"].as_u64().expect("black_ms");
            run.observed.restored = Some((restored_at, white, black));
        }
        return Some((daemon, cursor));
    }
}

/// The restart's `game_restored` line against the replay of the store.
fn check_restored(line: &Value, game: &Replayed) {
    let referee = &game.referee;
    let fen = Fen::from_position(referee.position(), EnPassantMode::Legal).to_string();
    let expected = serde_json::json!({
        "t": game.last,
        "effect": "game_restored",
        "white_ms": referee.remaining(Color::White, game.last),
        "black_ms": referee.remaining(Color::Black, game.last),
        "moves": game.sans.len(),
        "fen": fen,
    });
    assert_eq!(line, &expected, "the restart shows the stored game");
}

/// Waits until the store has the game's result.
fn wait_finished(db: &Path, daemon: &Daemon) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let store = Store::open_read_only(db).expect("the store");
        if store.unfinished().expect("unfinished").is_none()
            && !store.finished_since(None).expect("finished").is_empty()
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the game is not finished in the store\n{}",
            daemon.log()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigkill_at_random_points_loses_no_completed_move() {
    let game = read_pgn(&data_dir().join("kasparov-deep-blue-1997.pgn"))
        .expect("the reference games")
        .remove(0);
    let mut rng = Rng(SEED);
    let plan = Plan::new(&game, &mut rng);
    assert_eq!(plan.plies.len(), 89);
    let mut kills = kill_plan(&mut rng).into_iter().peekable();

    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("state");
    let config = dir.path().join("tocada.toml");
    // A press right after the release is no ruling here: the test's hands
    // are fast, and only the power cuts are under test.
    std::fs::write(
        &config,
        format!(
            "[clock]\npreset = \"{PRESET}\"\n[rules]\nmin_press_gap_ms = 0\n\
             [board]\nkind = \"sim\"\n[state]\ndirectory = \"{}\"\n",
            state.display()
        ),
    )
    .expect("the configuration");
    let mut run = Run {
        plan,
        rng,
        db: state.join(DB_FILE),
        dir,
        config,
        observed: Observed::default(),
        starts: 0,
        kills: Vec::new(),
        paused_kills: 0,
    };
    let started = Instant::now();

    let mut daemon = run.spawn();
    let mut cursor = Cursor::Start;
    let mut since_restart = 0;
    let mut killed_after_resign = false;
    'game: loop {
        let steps = run.plan.steps_from(cursor);
        assert!(!steps.is_empty(), "the game goes on from {cursor:?}");
        for step in steps {
            let pause = match step.kind {
                Kind::Start => 0,
                Kind::Hand { .. } => run.rng.between(8, 25),
                Kind::Press { .. } => run.rng.between(25, 50),
                Kind::Resign => 50,
            };
            thread::sleep(Duration::from_millis(pause));
            daemon.send(step.input);
            since_restart += 1;

            let kill = match kills.peek() {
                Some(k) if since_restart > k.after && k.target.matches(step.kind) => kills.next(),
                // Once, right after the resignation, whatever the plan says.
                _ if step.kind == Kind::Resign && !killed_after_resign => Some(Kill {
                    after: 0,
                    target: Target::Any,
                    delay: Delay::Soon,
                }),
                _ => None,
            };
            if let Some(kill) = kill {
                killed_after_resign |= step.kind == Kind::Resign;
                thread::sleep(kill.delay.wait(&mut run.rng));
                run.kills.push((kill.target, kill.delay));
                let stored = run.kill(daemon, kill.delay == Delay::Later);
                match restart(&mut run, stored) {
                    Some((next, at)) => {
                        daemon = next;
                        cursor = at;
                        since_restart = 0;
                        continue 'game;
                    }
                    None => break 'game,
                }
            }
            match step.kind {
                Kind::Start => {
                    run.expect(&mut daemon, "started");
                }
                Kind::Press { ply } => {
                    let (_, line) = run.expect(&mut daemon, "move");
                    assert_eq!(ply_of(&line), ply);
                }
                Kind::Hand {
                    last: true,
                    ends_game: true,
                }
                | Kind::Resign => {
                    let (_, line) = run.expect(&mut daemon, "result");
                    assert_eq!(line["result"], run.plan.result);
                }
                Kind::Hand { .. } => {}
            }
        }
        // Played to the end without a kill after the last step.
        wait_finished(&run.db, &daemon);
        let (_, rest) = daemon.kill();
        assert!(rest.is_empty(), "nothing after the result: {rest:?}");
        break;
    }

    // A finished game is not restored: the clock comes up on its setup
    // screen, says nothing, and stops cleanly.
    let mut daemon = run.spawn();
    thread::sleep(Duration::from_millis(500));
    assert!(
        daemon.next(Duration::ZERO).is_none(),
        "nothing to restore after the result"
    );
    let status = daemon.terminate();
    assert!(status.success(), "a clean stop: {status}");

    // The store has the whole game, and export prints it.
    let store = Store::open_read_only(&run.db).expect("the store");
    assert!(store.unfinished().expect("unfinished").is_none());
    let finished = store.finished_since(None).expect("finished");
    assert_eq!(finished.len(), 1, "one game");
    assert_eq!(finished[0].result, run.plan.result);
    let output = tocada()
        .arg("export")
        .arg("--db")
        .arg(&run.db)
        .output()
        .expect("tocada export runs");
    assert!(output.status.success(), "{output:?}");
    let pgn = String::from_utf8(output.stdout).expect("UTF-8");
    let parsed = parse_one(&pgn);
    let sans: Vec<&str> = run.plan.plies.iter().map(|p| p.san.as_str()).collect();
    assert_eq!(parsed.sans, sans, "every move in the exported PGN:\n{pgn}");
    assert_eq!(parsed.outcome.as_deref(), Some(run.plan.result));

    // The kills covered what they were meant to.
    let count = |f: &dyn Fn(&(Target, Delay)) -> bool| run.kills.iter().filter(|k| f(k)).count();
    assert!(
        run.kills.len() >= 20,
        "{} kills: {:?}",
        run.kills.len(),
        run.kills
    );
    assert!(count(&|k| *k == (Target::Start, Delay::AtOnce)) == 1);
    assert!(count(&|k| *k == (Target::Press, Delay::AtOnce)) >= 1);
    assert!(count(&|k| k.0 == Target::MidMove) >= 3);
    assert!(count(&|k| k.1 == Delay::Later) >= 3);
    assert!(run.paused_kills >= 1, "a kill while paused");
    assert!(killed_after_resign, "a kill right after the resignation");
    assert!(
        run.observed.durable_moves >= 200,
        "{}",
        run.observed.durable_moves
    );
    assert!(
        run.observed.clocks_checked >= 10,
        "{}",
        run.observed.clocks_checked
    );
    eprintln!(
        "{} kills in play, {} while paused, {} starts; {} stored moves checked, \
         {} clocks after a restart; {:.1} s",
        run.kills.len(),
        run.paused_kills,
        run.starts,
        run.observed.durable_moves,
        run.observed.clocks_checked,
        started.elapsed().as_secs_f64()
    );
}

// The store's faults, each reproduced through `tocada run` as a club meets
// it: a lock someone else holds, a damaged line, a time that jumps ahead.

/// A sim clock's configuration in `dir`; returns it and the store's path.
fn sim_config(dir: &Path) -> (PathBuf, PathBuf) {
    let state = dir.join("state");
    std::fs::create_dir_all(&state).expect("the state directory");
    let config = dir.join("tocada.toml");
    std::fs::write(
        &config,
        format!(
            "[clock]\npreset = \"{PRESET}\"\n[rules]\nmin_press_gap_ms = 0\n\
             [board]\nkind = \"sim\"\n[state]\ndirectory = \"{}\"\n",
            state.display()
        ),
    )
    .expect("the configuration");
    (config, state.join(DB_FILE))
}

/// Output lines until one with `"effect": effect`, which it returns.
fn wait_effect(daemon: &mut Daemon, effect: &str) -> Value {
    let deadline = Instant::now() + TIMEOUT;
    while Instant::now() < deadline {
        if let Some((_, line)) = daemon.next(Duration::from_millis(200))
            && line["effect"] == effect
        {
            return line;
        }
    }
    panic!("no {effect} effect\n{}", daemon.log());
}

/// Holds the store's write lock from another connection, as `sqlite3`
/// left in a transaction does, until dropped.
struct Lock {
    release: mpsc::Sender<()>,
    holder: Option<JoinHandle<()>>,
}

impl Lock {
    fn take(db: &Path) -> Lock {
        let db = db.to_owned();
        let (taken, is_taken) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let holder = thread::spawn(move || {
            let mut conn = rusqlite::Connection::open(&db).expect("a connection");
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .expect("the write lock");
            taken.send(()).expect("told");
            let _ = released.recv();
            drop(tx);
        });
        is_taken.recv().expect("the lock taken");
        Lock {
            release,
            holder: Some(holder),
        }
    }

    /// Releases the lock after `after`, from its own thread.
    fn release_after(self, after: Duration) -> JoinHandle<()> {
        thread::spawn(move || {
            thread::sleep(after);
            drop(self);
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.release.send(());
        if let Some(holder) = self.holder.take() {
            holder.join().expect("the lock's thread");
        }
    }
}

/// `(seq, line)` of every stored event of game `id`, in order.
fn stored_rows(db: &Path, id: i64) -> Vec<(i64, String)> {
    let conn = rusqlite::Connection::open(db).expect("a connection");
    conn.prepare("SELECT seq, line FROM event WHERE game = ?1 ORDER BY seq")
        .unwrap()
        .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// How many rows of the store, in any table with a `line` column, hold
/// exactly `line`.
fn rows_holding(db: &Path, line: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("a connection");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .iter()
        .filter_map(|table| {
            conn.query_row(
                &format!("SELECT count(*) FROM {table} WHERE line = ?1"),
                [line],
                |row| row.get::<_, i64>(0),
            )
            .ok()
        })
        .sum()
}

/// A store holding one unfinished game, begun a minute ago: its setup
/// (blitz 5+2), then 1. e4 e5 with White's clock running at 3.2 s, then
/// `tail` as stored rows `(t column, line)`. Returns the game's id.
fn store_with_game(db: &Path, tail: &[(i64, String)]) -> i64 {
    drop(Store::open(db).expect("a new store"));
    let conn = rusqlite::Connection::open(db).expect("a connection");
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        - 60;
    conn.execute(
        "INSERT INTO game (id, started_at, date, preset, white_left) VALUES (1, ?1, '2026.11.27', 'blitz', 1)",
        [started],
    )
    .unwrap();
    use shakmaty::Square::*;
    let good = [
        (1_000, Input::Press(Color::Black)),
        (2_000, Input::Lift(E2)),
        (2_100, Input::Place(E4, None)),
        (2_200, Input::Press(Color::White)),
        (3_000, Input::Lift(E7)),
        (3_100, Input::Place(E5, None)),
        (3_200, Input::Press(Color::Black)),
    ];
    let mut rows = vec![(
        0,
        r#"{"t":0,"ev":"setup","time_control":"300+2"}"#.to_owned(),
    )];
    rows.extend(good.iter().map(|&(t, input)| {
        (
            t as i64,
            transcript::line_to_json(&Line {
                t,
                event: Event::Input(input),
            }),
        )
    }));
    rows.extend(tail.iter().cloned());
    for (seq, (t, line)) in rows.iter().enumerate() {
        conn.execute(
            "INSERT INTO event (game, seq, t, line) VALUES (1, ?1, ?2, ?3)",
            rusqlite::params![seq as i64, t, line],
        )
        .unwrap();
    }
    1
}

/// Waits until the store holds an unfinished game, whatever its moves.
fn wait_game_begun(db: &Path, daemon: &Daemon) {
    let deadline = Instant::now() + TIMEOUT;
    while Store::open_read_only(db)
        .ok()
        .and_then(|store| store.tip().ok()?.unfinished)
        .is_none()
    {
        assert!(
            Instant::now() < deadline,
            "no game stored\n{}",
            daemon.log()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the store holds an unfinished game whose moves are `sans`.
fn wait_stored(db: &Path, daemon: &Daemon, sans: &[&str]) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let game = Store::open_read_only(db)
            .ok()
            .and_then(|store| store.unfinished().ok().flatten());
        if game.is_some_and(|game| replay_lines(&game.lines).sans == sans) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{sans:?} not stored\n{}",
            daemon.log()
        );
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_store_locked_at_start_up_costs_the_clock_nothing_and_its_game_is_stored_once_free() {
    use shakmaty::Square::*;
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    drop(Store::open(&db).expect("a store"));
    let lock = Lock::take(&db);
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    // The clock starts and rules while the lock is held.
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    for input in [
        Input::Lift(E2),
        Input::Place(E4, None),
        Input::Press(Color::White),
    ] {
        daemon.send(input);
        thread::sleep(Duration::from_millis(100));
    }
    wait_effect(&mut daemon, "move");
    thread::sleep(Duration::from_millis(1_500));
    assert!(
        daemon.child.try_wait().expect("wait").is_none(),
        "tocada run stopped while the store was locked\n{}",
        daemon.log()
    );
    assert!(
        daemon.log().contains("database is locked"),
        "the journal says why nothing is stored\n{}",
        daemon.log()
    );
    drop(lock);
    wait_stored(&db, &daemon, &["e4"]);
    assert_eq!(daemon.terminate().code(), Some(0));
}

#[test]
fn a_new_store_locked_at_start_up_is_waited_for_and_the_clock_starts_once_it_is_free() {
    // A store that must still be made (its schema, WAL mode) needs the
    // write lock before anything can be restored: the clock waits for it.
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    drop(rusqlite::Connection::open(&db).expect("an empty database"));
    let lock = Lock::take(&db);
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    // Still there after several busy timeouts: waiting, not exited.
    thread::sleep(Duration::from_secs(3));
    assert!(
        daemon.child.try_wait().expect("wait").is_none(),
        "tocada run stopped while the store was locked\n{}",
        daemon.log()
    );
    assert!(
        daemon.log().contains("locked by another process"),
        "the log says why the clock waits\n{}",
        daemon.log()
    );
    drop(lock);
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    wait_stored(&db, &daemon, &[]);
    assert_eq!(daemon.terminate().code(), Some(0));
}

#[test]
fn once_a_locked_store_is_free_the_rest_of_start_up_gets_time_from_systemd() {
    // While it waits, the daemon extends systemd's start timeout only to
    // its next try; past TimeoutStartSec systemd holds it to the last
    // extension, so the rest of start-up (the restore of a long game, the
    // hardware) must be given time of its own once the lock is gone.
    use std::os::unix::net::UnixDatagram;
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    drop(rusqlite::Connection::open(&db).expect("an empty database"));
    let notify = dir.path().join("notify");
    let systemd = UnixDatagram::bind(&notify).expect("the notify socket");
    let lock = Lock::take(&db);
    let mut daemon = Daemon::spawn_notifying(&config, dir.path().join("stderr"), Some(&notify));
    thread::sleep(Duration::from_secs(2));
    drop(lock);
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    assert_eq!(daemon.terminate().code(), Some(0));
    systemd.set_nonblocking(true).unwrap();
    let mut extensions = Vec::new();
    let mut buf = [0; 4096];
    while let Ok(n) = systemd.recv(&mut buf) {
        let message = String::from_utf8_lossy(&buf[..n]).into_owned();
        extensions.extend(message.lines().filter_map(|state| {
            state
                .strip_prefix("EXTEND_TIMEOUT_USEC=")
                .map(|usec| usec.parse::<u64>().unwrap())
        }));
    }
    assert!(extensions.len() >= 2, "waited, and told: {extensions:?}");
    let last = *extensions.last().unwrap();
    assert!(
        last >= 60_000_000,
        "the last extension, once the lock went, covers the rest of start-up: {extensions:?}"
    );
}

#[test]
fn a_store_locked_through_sigterm_is_waited_for_and_no_completed_move_is_lost() {
    use shakmaty::Square::*;
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    wait_game_begun(&db, &daemon);
    // Someone takes the lock; two moves are made and shown, then systemd
    // stops the clock, and the lock goes 4 s later.
    let lock = Lock::take(&db);
    for input in [
        Input::Lift(E2),
        Input::Place(E4, None),
        Input::Press(Color::White),
        Input::Lift(E7),
        Input::Place(E5, None),
        Input::Press(Color::Black),
    ] {
        daemon.send(input);
        thread::sleep(Duration::from_millis(100));
    }
    wait_effect(&mut daemon, "move");
    wait_effect(&mut daemon, "move");
    let released = lock.release_after(Duration::from_secs(4));
    let status = daemon.terminate();
    released.join().unwrap();
    assert_eq!(status.code(), Some(0), "nothing lost, a clean stop");
    let store = Store::open_read_only(&db).unwrap();
    let game = store.unfinished().unwrap().expect("the game");
    let replayed = replay_lines(&game.lines);
    assert_eq!(
        replayed.sans,
        ["e4", "e5"],
        "every move the face showed is stored"
    );
}

#[test]
fn a_store_locked_for_good_through_sigterm_stops_with_74_and_says_what_is_lost() {
    use shakmaty::Square::*;
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    wait_game_begun(&db, &daemon);
    let lock = Lock::take(&db);
    for input in [
        Input::Lift(E2),
        Input::Place(E4, None),
        Input::Press(Color::White),
    ] {
        daemon.send(input);
        thread::sleep(Duration::from_millis(100));
    }
    wait_effect(&mut daemon, "move");
    let pid = daemon.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    // The daemon waits its STOP_WAIT (well inside systemd's stop timeout).
    let deadline = Instant::now() + tocada::daemon::STOP_WAIT + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = daemon.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "no exit\n{}", daemon.log());
        thread::sleep(Duration::from_millis(50));
    };
    drop(lock);
    assert_eq!(
        status.code(),
        Some(i32::from(tocada::exit::EX_IOERR)),
        "{}",
        daemon.log()
    );
    let log = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert!(log.contains("lost"), "{log}");
    assert!(log.contains("waiting up to"), "{log}");
}

#[test]
fn an_unparsable_stored_line_is_set_aside_never_deleted_and_its_rows_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    let bad = r#"{"t":4000,"ev":"lift","sq":"g1"#.to_owned();
    let after = r#"{"t":4100,"ev":"place","sq":"f3"}"#.to_owned();
    let id = store_with_game(&db, &[(4_000, bad.clone()), (4_100, after.clone())]);
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    let restored = wait_effect(&mut daemon, "game_restored");
    assert_eq!(restored["moves"], 2, "1. e4 e5 kept: {restored}");
    // The restored game is announced before the loop first waits, and so
    // before SIGTERM is handled: let it get there.
    thread::sleep(Duration::from_millis(500));
    assert_eq!(daemon.terminate().code(), Some(0));
    // Kept, both of them, and named in the log.
    assert_eq!(rows_holding(&db, &bad), 1, "the damaged line is kept");
    assert_eq!(rows_holding(&db, &after), 1, "the line after it is kept");
    let log = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert!(log.contains("set aside"), "{log}");
    // What the restart stored (its pause and restart lines) took fresh
    // rows, after every row ever used (8 and 9 held the lines set aside).
    let rows = stored_rows(&db, id);
    let seqs: Vec<i64> = rows.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(&seqs[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
    assert!(seqs[8..].iter().all(|&seq| seq > 9), "{rows:?}");
    assert!(seqs.len() > 8, "the restart is stored: {rows:?}");
    // And the game's lines replay: the next restart restores it again.
    let replayed = replay_lines(&rows.into_iter().map(|(_, l)| l).collect::<Vec<_>>());
    assert_eq!(replayed.sans, ["e4", "e5"]);
}

/// A game whose stored line at `seq` 8 jumps ahead restores without it:
/// no flag falls, no result is stored, the line is kept.
fn check_a_jump_ahead_is_refused(tail: &[(i64, String)]) {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    let id = store_with_game(&db, tail);
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    let restored = wait_effect(&mut daemon, "game_restored");
    assert_eq!(restored["moves"], 2, "{restored}");
    assert!(
        restored["t"].as_u64().unwrap() < 10_000,
        "the game's time is its own: {restored}"
    );
    // Time off: no result comes.
    while let Some((_, line)) = daemon.next(Duration::from_millis(500)) {
        assert_ne!(line["effect"], "result", "{line}");
    }
    assert_eq!(daemon.terminate().code(), Some(0));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let result: Option<String> = conn
        .query_row("SELECT result FROM game WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(result, None, "no result written into the store");
    for (_, line) in tail {
        assert_eq!(rows_holding(&db, line), 1, "kept: {line}");
    }
    let log = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert!(log.contains("cannot be"), "{log}");
}

#[test]
fn a_stored_line_a_million_ms_ahead_of_the_lines_around_it_is_refused() {
    check_a_jump_ahead_is_refused(&[
        (1_003_200, r#"{"t":1003200,"ev":"checkpoint"}"#.to_owned()),
        (4_000, r#"{"t":4000,"ev":"lift","sq":"g1"}"#.to_owned()),
    ]);
}

#[test]
fn a_last_stored_line_at_i64_max_is_refused() {
    check_a_jump_ahead_is_refused(&[(
        i64::MAX,
        format!(r#"{{"t":{},"ev":"checkpoint"}}"#, i64::MAX),
    )]);
}

#[test]
fn a_game_restored_after_a_power_cut_keeps_its_players_though_the_round_changed_meanwhile() {
    use shakmaty::Square::*;
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = sim_config(dir.path());
    let pairing_file = dir.path().join("pairing.json");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "[publish]\nbroker = \"mqtt://localhost\"\nhall = \"open\"\nboard = 7\npairing_file = \"{}\"\n",
        pairing_file.display()
    ));
    std::fs::write(&config, text).unwrap();
    let round = |round: &str, white: &str, black: &str| {
        format!(
            r#"{{"round":"{round}","board":7,"white":{{"name":"{white}"}},"black":{{"name":"{black}"}}}}"#
        )
    };
    std::fs::write(
        &pairing_file,
        round("3", "Morphy, Paul", "Anderssen, Adolf"),
    )
    .unwrap();

    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr"));
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    for input in [
        Input::Lift(E2),
        Input::Place(E4, None),
        Input::Press(Color::White),
    ] {
        daemon.send(input);
        thread::sleep(Duration::from_millis(100));
    }
    wait_stored(&db, &daemon, &["e4"]);
    // The round changes while the power is off.
    std::fs::write(
        &pairing_file,
        round("4", "Staunton, Howard", "Löwenthal, Johann"),
    )
    .unwrap();
    daemon.kill();

    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr2"));
    wait_effect(&mut daemon, "game_restored");
    // The stored game's own record names its players, as export and
    // replay read it.
    let game = Store::open_read_only(&db)
        .unwrap()
        .unfinished()
        .unwrap()
        .unwrap();
    let pgn = transcript::pgn_from_lines(&game.lines, Default::default()).unwrap();
    assert!(pgn.contains(r#"[White "Morphy, Paul"]"#), "{pgn}");
    // The restored game ends: the PGN the clock stores names them too.
    daemon.send(Input::Resume);
    daemon.send(Input::Resign(Color::White));
    wait_effect(&mut daemon, "result");
    wait_finished(&db, &daemon);
    let finished = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT pgn FROM game WHERE id = ?1", [game.id], |row| {
            row.get::<_, String>(0)
        })
        .unwrap();
    assert!(
        finished.contains(r#"[White "Morphy, Paul"]"#)
            && finished.contains(r#"[Round "3"]"#)
            && !finished.contains("Staunton"),
        "{finished}"
    );
    // The next game is the new round's (the result stays up until the
    // menu button, which a script has not: the clock is started again).
    assert_eq!(daemon.terminate().code(), Some(0));
    let mut daemon = Daemon::spawn(&config, dir.path().join("stderr3"));
    daemon.send(Input::Press(Color::Black));
    wait_effect(&mut daemon, "started");
    wait_game_begun(&db, &daemon);
    assert_eq!(daemon.terminate().code(), Some(0));
    let next = Store::open_read_only(&db)
        .unwrap()
        .unfinished()
        .unwrap()
        .unwrap();
    assert_ne!(next.id, game.id);
    let pgn = transcript::pgn_from_lines(&next.lines, Default::default()).unwrap();
    assert!(
        pgn.contains(r#"[White "Staunton, Howard"]"#) && pgn.contains(r#"[Round "4"]"#),
        "{pgn}"
    );
}
