//! `tocada run` on a desktop, as the README shows it: `examples/desktop.toml`
//! (the simulated board, standard input played at the script's own pace),
//! the games in `$STATE_DIRECTORY`, a recorded script piped in at once.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod support {
    pub mod cli;
}
use support::cli::tocada;

const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/desktop.toml");

/// White's first move, with the hands' own timing; the lines go in all at
/// once, as from a file.
const SCRIPT: &str = r#"{"t":0,"ev":"press","side":"black"}
{"t":600,"ev":"lift","sq":"e2"}
{"t":800,"ev":"place","sq":"e4"}
{"t":1400,"ev":"press","side":"white"}
"#;

#[test]
fn a_script_piped_at_once_into_the_desktop_daemon_plays_at_its_own_pace() {
    let state = tempfile::tempdir().unwrap();
    let mut daemon = tocada()
        .args(["run", "--config", CONFIG])
        .env("STATE_DIRECTORY", state.path())
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
        .write_all(SCRIPT.as_bytes())
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
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut effects = Vec::new();
    while !effects
        .iter()
        .any(|l: &String| l.contains(r#""effect":"move""#))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => effects.push(line),
            Err(_) => break,
        }
    }
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let status = daemon.wait().unwrap();

    let started = effects.iter().any(|l| l.contains(r#""effect":"started""#));
    assert!(started, "{effects:?}");
    let moved = effects
        .iter()
        .find(|l| l.contains(r#""effect":"move""#))
        .unwrap_or_else(|| panic!("no move: {effects:?}"));
    assert!(moved.contains(r#""san":"e4""#), "{moved}");
    // Played at the script's pace, the press comes 1.4 s after the start:
    // the lines were all read at once, so unpaced it would come at once.
    let t: u64 = moved["{\"t\":".len()..]
        .split(',')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{moved}"));
    assert!(t >= 1400, "{moved}");
    assert!(status.success(), "{status}");
    assert!(state.path().join("games.sqlite").exists());
}
