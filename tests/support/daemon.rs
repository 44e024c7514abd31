//! `tocada run` as a black box, fed a script on standard input.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver};

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
    let mut daemon = tocada()
        .args(["run", "--config"])
        .arg(config)
        .args(args)
        .env("STATE_DIRECTORY", state)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tocada runs");
    let stdin = daemon.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = daemon.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (daemon, stdin, rx)
}
