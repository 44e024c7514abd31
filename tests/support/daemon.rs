//! `tocada run` as a black box, fed a script on standard input.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};

use super::cli::tocada;

/// Starts `tocada run --config config` with its games in `state`, writes
/// `script` to its standard input at once (then closes it, as a file
/// piped in would), and hands back the process and the lines of its
/// standard output as they come.
pub fn run_daemon(config: &Path, state: &Path, script: &str) -> (Child, Receiver<String>) {
    let mut daemon = tocada()
        .args(["run", "--config"])
        .arg(config)
        .env("STATE_DIRECTORY", state)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tocada runs");
    daemon
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = daemon.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (daemon, rx)
}
