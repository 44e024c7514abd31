//! `tocada run` as a black box, fed a script on standard input.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use super::cli::tocada;

/// Starts `tocada run --config config` with its games in `state`, writes
/// `script` to its standard input at once (then closes it, as a file
/// piped in would), and hands back the process and the lines of its
/// standard output as they come.
pub fn run_daemon(config: &Path, state: &Path, script: &str) -> (Child, Receiver<String>) {
    let (daemon, mut stdin, rx) = spawn_daemon(config, state, &[]);
    stdin.write_all(script.as_bytes()).unwrap();
    (daemon, rx)
}

/// Starts `tocada run --config config` with `args` besides and its games
/// in `state`, and hands back the process, its standard input (open, for
/// lines written as the test goes) and the lines of its standard output
/// as they come.
pub fn spawn_daemon(
    config: &Path,
    state: &Path,
    args: &[&str],
) -> (Child, ChildStdin, Receiver<String>) {
    let (daemon, stdin, rx, _) = spawn(config, state, args, false);
    (daemon, stdin, rx)
}

/// [`spawn_daemon`], and the lines of its log (standard error, at the
/// `info` level) as they come.
pub fn spawn_daemon_logged(
    config: &Path,
    state: &Path,
    args: &[&str],
) -> (Child, ChildStdin, Receiver<String>, Receiver<String>) {
    let (daemon, stdin, rx, log) = spawn(config, state, args, true);
    (daemon, stdin, rx, log.expect("its log is read"))
}

fn spawn(
    config: &Path,
    state: &Path,
    args: &[&str],
    logged: bool,
) -> (
    Child,
    ChildStdin,
    Receiver<String>,
    Option<Receiver<String>>,
) {
    let mut daemon = tocada()
        .args(["run", "--config"])
        .arg(config)
        .args(args)
        .env("STATE_DIRECTORY", state)
        .env("RUST_LOG", if logged { "info" } else { "warn" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if logged {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .expect("tocada runs");
    let stdin = daemon.stdin.take().unwrap();
    let rx = lines_of(daemon.stdout.take().unwrap());
    let log = daemon.stderr.take().map(lines_of);
    (daemon, stdin, rx, log)
}

/// The lines of `stream`, read on a thread of their own.
fn lines_of(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// A press of `side`'s lever ("white", "black") written to the daemon's
/// standard input (`clock.levers = "stdin"`).
pub fn press(stdin: &mut ChildStdin, side: &str) {
    writeln!(stdin, r#"{{"t":0,"ev":"press","side":"{side}"}}"#).unwrap();
    stdin.flush().unwrap();
}

/// Lines of `rx` into `seen` until one contains `what`, or 20 s; whether
/// one did.
pub fn until(rx: &Receiver<String>, seen: &mut Vec<String>, what: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if seen.iter().any(|l| l.contains(what)) {
            return true;
        }
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => seen.push(line),
            Err(_) => return false,
        }
    }
}

/// SIGTERM, as systemd stops the daemon, and how it ended.
pub fn terminate(daemon: &mut Child) -> ExitStatus {
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    daemon.wait().unwrap()
}

/// The example configuration of a laptop beside a club's DGT board
/// (`examples/dgt-laptop.toml`), the board's tty at `serial` and an I2C
/// bus that is nowhere, whatever this machine has: the daemon must not
/// open one.
pub fn dgt_laptop_example(serial: &Path) -> String {
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/dgt-laptop.toml"
    ))
    .unwrap();
    let text = example
        .replace(
            "# serial = \"/dev/ttyUSB0\"",
            &format!("serial = \"{}\"", serial.display()),
        )
        .replace("oled = false", "oled = false\nbus = \"/nonexistent/i2c-7\"");
    assert_ne!(text, example, "the example names where serial goes");
    text
}

/// The games the daemon stored in `state` as PGN, as `tocada export`
/// prints them.
pub fn exported(state: &Path) -> String {
    let export = tocada()
        .args(["export", "--db"])
        .arg(state.join("games.sqlite"))
        .output()
        .unwrap();
    assert!(export.status.success(), "{export:?}");
    String::from_utf8_lossy(&export.stdout).into_owned()
}
