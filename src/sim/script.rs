//! `tocada sim --script FILE.jsonl`: a replay-format script played through
//! the whole stack (device models, drivers, the daemon's loop, the store) in
//! simulated time, headless. The decisions come out on standard output as
//! `tocada replay` writes them, and the face is written as PNG where the
//! script asks, with one more kind of line:
//!
//! ```text
//! {"t":5000,"ev":"face","png":"after-e4.png"}
//! ```
//!
//! The PNG path is taken relative to the output directory.
//!
//! The script is read whole before anything is played, by the same
//! [`Reader`] as `tocada replay`, under [`Policy::REPLAY`], with `face`
//! lines as an extension: a bad line stops it with exit 65 before the clock
//! starts.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::{oneshot, watch};

use super::World;
use crate::Millis;
use crate::config::Config;
use crate::daemon::shell::ShownGame;
use crate::daemon::{Alarm, Command, Stats};
use crate::exit::{EX_CANTCREAT, EX_DATAERR, EX_IOERR, EX_NOINPUT};
use crate::store::Store;
use crate::transcript::{self, Entry, Event, Fault, Policy, Read, Reader};

/// Each face is written this many times its size, to be seen on a screen.
pub const PNG_SCALE: u32 = 4;

/// How long the loop runs at its own pace after a line and before the
/// next, when time jumps across the gap between them.
const SETTLE: Duration = Duration::from_secs(2);

/// Lets simulated time reach `target`. The loop polls the board every few
/// milliseconds even when nothing happens, so a long gap between two lines
/// is jumped, but only while no clock runs (a game paused, over, or not
/// begun): nothing is then due on its own, and the loop runs at its own
/// pace for [`SETTLE`] after the line before (a press waiting for the
/// board, the buzzer) and before the next. While a clock runs its time
/// passes as the clock lives it, a checkpoint stored every half second
/// (a restore believes no running clock a minute without one), and a flag
/// bounds it: a script days ahead takes no longer than the time left on
/// the clocks.
async fn wait_until(target: tokio::time::Instant, shown: &mut watch::Receiver<ShownGame>) {
    loop {
        let now = tokio::time::Instant::now();
        if target <= now + 3 * SETTLE {
            break;
        }
        if shown.borrow_and_update().ticking.is_some() {
            tokio::select! {
                () = tokio::time::sleep_until(target) => return,
                changed = shown.changed() => if changed.is_err() { break },
            }
            continue;
        }
        tokio::time::sleep(SETTLE).await;
        if shown.borrow_and_update().ticking.is_some() {
            continue;
        }
        let jump = target.saturating_duration_since(tokio::time::Instant::now()) - SETTLE;
        tokio::time::advance(jump).await;
        break;
    }
    tokio::time::sleep_until(target).await;
}

/// One line of a script, as the simulator reads it.
#[derive(Debug, Clone)]
enum Step {
    /// A replay-format line.
    Line(transcript::Line),
    /// Write the face at `t` to this file.
    Face { t: Millis, png: PathBuf },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaceLine {
    t: Millis,
    #[allow(dead_code)]
    ev: String,
    png: PathBuf,
}

/// Why a script could not be played to its end.
#[derive(Debug)]
pub enum ScriptError {
    /// The script could not be read.
    Open {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// A line is not valid.
    Data(Fault),
    /// A face PNG could not be written.
    Create {
        /// The PNG's path.
        path: PathBuf,
        /// Why it could not be written.
        source: std::io::Error,
    },
    /// Writing the output failed.
    Io(std::io::Error),
}

impl ScriptError {
    /// The process exit code ([`crate::exit`]), as `tocada replay` uses them.
    pub fn exit_code(&self) -> u8 {
        match self {
            ScriptError::Open { .. } => EX_NOINPUT,
            ScriptError::Data(_) => EX_DATAERR,
            ScriptError::Create { .. } => EX_CANTCREAT,
            ScriptError::Io(_) => EX_IOERR,
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptError::Open { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ScriptError::Data(fault) => fault.fmt(f),
            ScriptError::Create { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            ScriptError::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for ScriptError {}

/// A `face` line, if `text` is one (its `ev` is `face`), read or refused
/// with the reason.
fn face_line(text: &str) -> Option<Result<(Millis, PathBuf), String>> {
    if !text.contains("\"face\"") {
        return None;
    }
    // Parsed once; the object is then read as a face line only if it is one.
    let value: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    if value.get("ev").and_then(serde_json::Value::as_str) != Some("face") {
        return None;
    }
    Some(
        FaceLine::deserialize(value)
            .map(|face| (face.t, face.png))
            .map_err(|err| {
                format!("a face line is {{\"t\":T,\"ev\":\"face\",\"png\":\"FILE.png\"}}: {err}")
            }),
    )
}

/// The script's steps, read as `tocada replay` reads its input.
fn parse(bytes: &[u8]) -> Result<Vec<Step>, ScriptError> {
    let mut reader = Reader::new(Policy::REPLAY);
    let mut steps = Vec::new();
    for raw in bytes.split_inclusive(|&b| b == b'\n') {
        match reader.push_extended(raw, face_line) {
            Read::Line(Entry::Line(line)) => steps.push(Step::Line(line)),
            Read::Line(Entry::Extra { t, extra }) => steps.push(Step::Face { t, png: extra }),
            Read::Blank | Read::Skipped(_) => {}
            Read::Stop(fault) => return Err(ScriptError::Data(fault)),
        }
    }
    Ok(steps)
}

/// Plays the script at `path` (standard input for `-`) with `config`'s
/// presets and rules, writing decisions to `output` and faces under
/// `out_dir`. Simulated time: an hour's game takes seconds.
pub fn run(
    path: &Path,
    config: &Config,
    out_dir: &Path,
    output: Box<dyn Write>,
    store: Store,
) -> Result<Stats, ScriptError> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(ScriptError::Io)?;
        bytes
    } else {
        std::fs::read(path).map_err(|source| ScriptError::Open {
            path: path.to_owned(),
            source,
        })?
    };
    let steps = parse(&bytes)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(ScriptError::Io)?;
    let local = tokio::task::LocalSet::new();
    // The script plays as a task of its own, polled only when it is woken
    // (its next line is due, the shown game changed): the future `block_on`
    // drives is polled again each time any task of the set is woken, that
    // is at each of the loop's board polls, and what it waits on would
    // then be polled with them (~300 instructions a poll, 0.2e9 a polled
    // game hour of `scripts/callgrind` that are not the daemon's work).
    let script = play(steps, config.clone(), out_dir.to_owned(), output, store);
    local.block_on(&runtime, async {
        tokio::task::spawn_local(script)
            .await
            .map_err(|e| ScriptError::Io(std::io::Error::other(e)))?
    })
}

async fn play(
    steps: Vec<Step>,
    config: Config,
    out_dir: PathBuf,
    output: Box<dyn Write>,
    store: Store,
) -> Result<Stats, ScriptError> {
    let world = World::with_board(shakmaty::Position::board(&config.start));
    let start = tokio::time::Instant::now();
    let (shell, tx, rx) = crate::daemon::on_models(&world, &config, start, store);
    let (published, mut shown) = watch::channel(ShownGame::default());
    let shell = shell.with_output(output).with_watch(published);
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let daemon = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
        let _ = done_rx.await;
    }));
    // A script without a setup line plays under the default rules, as
    // `tocada replay` does, so both give the same decisions; from
    // `--fen`'s position when given (a setup line's own FEN wins).
    if !matches!(
        steps.first(),
        Some(Step::Line(transcript::Line {
            event: Event::Setup(_),
            ..
        }))
    ) {
        let _ = tx.send(Command::Rules {
            name: "script".to_owned(),
            rules: Box::new(crate::Rules {
                start: config.start.clone(),
                ..crate::Rules::default()
            }),
        });
    }
    let mut result = Ok(());
    for step in steps {
        let t = match &step {
            Step::Line(line) => line.t,
            Step::Face { t, .. } => *t,
        };
        wait_until(start + Duration::from_millis(t), &mut shown).await;
        match step {
            Step::Line(transcript::Line {
                event: Event::End, ..
            }) => break,
            Step::Line(line) => world.play(&tx, Duration::from_millis(t), line.event),
            Step::Face { png, .. } => {
                let (shown_tx, shown_rx) = oneshot::channel();
                let _ = tx.send(Command::Redraw(shown_tx));
                let _ = shown_rx.await;
                let path = out_dir.join(png);
                if let Err(err) =
                    super::png::write_panel(&path, PNG_SCALE, |x, y| world.pixel(x, y))
                {
                    result = Err(ScriptError::Create { path, source: err });
                    break;
                }
            }
        }
        // Let the daemon see what was just done before the next line.
        tokio::task::yield_now().await;
    }
    // Let the loop take in the last presses and the time up to now.
    tokio::time::sleep(Duration::from_millis(1)).await;
    let _ = done_tx.send(());
    let stats = daemon
        .await
        .map_err(|e| ScriptError::Io(std::io::Error::other(e)))?;
    result.map(|()| stats)
}
