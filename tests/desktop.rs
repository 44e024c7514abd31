//! `tocada run` on a desktop, as the book shows it (`docs/src/run.md`):
//! `examples/desktop.toml`
//! (the simulated board, standard input played at the script's own pace),
//! the games in `$STATE_DIRECTORY`, a recorded script piped in at once.

use std::path::Path;
use std::time::{Duration, Instant};

mod support {
    pub mod cli;
    pub mod daemon;
}
use support::daemon::run_daemon;

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
    let (mut daemon, rx) = run_daemon(Path::new(CONFIG), state.path(), SCRIPT);
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

/// Three moves each way, a line every 300 ms.
const GAME: &str = r#"{"t":0,"ev":"press","side":"black"}
{"t":300,"ev":"lift","sq":"e2"}
{"t":600,"ev":"place","sq":"e4"}
{"t":900,"ev":"press","side":"white"}
{"t":1200,"ev":"lift","sq":"e7"}
{"t":1500,"ev":"place","sq":"e5"}
{"t":1800,"ev":"press","side":"black"}
{"t":2100,"ev":"lift","sq":"g1"}
{"t":2400,"ev":"place","sq":"f3"}
{"t":2700,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"b8"}
{"t":3300,"ev":"place","sq":"c6"}
{"t":3600,"ev":"press","side":"black"}
{"t":3900,"ev":"lift","sq":"f1"}
{"t":4200,"ev":"place","sq":"b5"}
{"t":4500,"ev":"press","side":"white"}
{"t":4800,"ev":"lift","sq":"a7"}
{"t":5100,"ev":"place","sq":"a6"}
{"t":5400,"ev":"press","side":"black"}
"#;

/// Runs the desktop daemon on `state` with [`GAME`] on standard input until
/// `enough` says so of its output (or 60 s), then stops it with SIGTERM.
fn play_game(state: &std::path::Path, enough: impl Fn(&[String]) -> bool) -> Vec<String> {
    play(state, GAME, enough, Duration::ZERO)
}

/// [`play_game`] with `script`, stopping `linger` after `enough`.
fn play(
    state: &std::path::Path,
    script: &str,
    enough: impl Fn(&[String]) -> bool,
    linger: Duration,
) -> Vec<String> {
    let (mut daemon, rx) = run_daemon(Path::new(CONFIG), state, script);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut effects = Vec::new();
    while !enough(&effects) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => effects.push(line),
            Err(_) => break,
        }
    }
    std::thread::sleep(linger);
    effects.extend(rx.try_iter());
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    assert!(daemon.wait().unwrap().success());
    effects
}

fn sans(effects: &[String]) -> Vec<String> {
    effects
        .iter()
        .filter(|l| l.contains(r#""effect":"move""#))
        .map(|l| {
            let at = l.find(r#""san":""#).expect("san") + r#""san":""#.len();
            l[at..].split('"').next().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_script_given_again_after_a_restart_goes_on_from_the_stored_game() {
    let state = tempfile::tempdir().unwrap();
    let first = play_game(state.path(), |effects| sans(effects).len() >= 2);
    assert_eq!(sans(&first), ["e4", "e5"], "{first:?}");

    // The same script again: its first moves are in the store, so they are
    // skipped, the restored game is resumed, and the rest is played.
    let second = play_game(state.path(), |effects| sans(effects).len() >= 4);
    let restored = second
        .iter()
        .find(|l| l.contains(r#""effect":"game_restored""#))
        .unwrap_or_else(|| panic!("no restore: {second:?}"));
    assert!(restored.contains(r#""moves":2"#), "{restored}");
    assert!(
        second.iter().any(|l| l.contains(r#""effect":"resumed""#)),
        "{second:?}"
    );
    assert_eq!(sans(&second), ["Nf3", "Nc6", "Bb5", "a6"], "{second:?}");
    assert!(
        !second
            .iter()
            .any(|l| l.contains("illegal") || l.contains("ruling")),
        "{second:?}"
    );
}

#[test]
fn a_move_made_and_not_pressed_before_a_restart_is_completed_by_the_scripts_press() {
    let state = tempfile::tempdir().unwrap();
    // Black's e5 made on the board, and the daemon stopped before his press.
    let made: String = GAME.lines().take(6).map(|l| format!("{l}\n")).collect();
    let first = play(
        state.path(),
        &made,
        |effects| !sans(effects).is_empty(),
        Duration::from_millis(1500),
    );
    assert_eq!(sans(&first), ["e4"], "{first:?}");

    // The whole script again: the resuming lever is White's, whose clock
    // is stopped; Black's own press then completes e5, once.
    let second = play_game(state.path(), |effects| sans(effects).len() >= 3);
    assert_eq!(sans(&second), ["e5", "Nf3", "Nc6"], "{second:?}");
    // Once, or the store would hold a press the script does not have, and
    // the next restart would refuse the script.
    let third = play_game(state.path(), |effects| sans(effects).len() >= 2);
    assert_eq!(sans(&third), ["Bb5", "a6"], "{third:?}");
}
