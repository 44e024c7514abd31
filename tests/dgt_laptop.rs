//! `tocada run` with nothing but a DGT board's cable (`examples/dgt-laptop.toml`):
//! no I2C bus, no GPIO chip. A DGT board modelled on a pseudo-terminal, the
//! daemon a black box whose levers are the press lines on its standard input,
//! as a laptop beside a club's board would run it.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use shakmaty::{Board, Square};
use tocada::models::dgt::{DgtBoardModel, DgtOnPty};

mod support {
    pub mod cli;
    // Its `run_daemon` closes standard input at once: the presses here
    // are written as the test goes, through `spawn_daemon`.
    pub mod daemon;
    pub mod tty;
}
use support::cli::tocada;
use support::daemon::{
    dgt_laptop_example, exported, press, spawn_daemon, spawn_daemon_logged, terminate, until,
};
use support::tty::no_tty_here;

/// The example configuration with the board's tty at `serial`.
fn laptop_config(dir: &Path, serial: &Path) -> PathBuf {
    let path = dir.join("tocada.toml");
    std::fs::write(&path, dgt_laptop_example(serial)).unwrap();
    path
}

/// A daemon that is stopped with the test, even one that fails.
struct Running(Child);

impl Running {
    /// SIGTERM, as systemd stops it, and how it ended.
    fn stop(&mut self) -> std::process::ExitStatus {
        terminate(&mut self.0)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tocada run` on `config`, its standard input kept open for presses.
fn start(config: &Path, state: &Path) -> (Running, ChildStdin, Receiver<String>) {
    start_with(config, state, &[])
}

/// `tocada run` on `config` with `args` besides.
fn start_with(
    config: &Path,
    state: &Path,
    args: &[&str],
) -> (Running, ChildStdin, Receiver<String>) {
    let (daemon, stdin, rx) = spawn_daemon(config, state, args);
    (Running(daemon), stdin, rx)
}

#[test]
fn a_dgt_board_on_its_cable_alone_plays_and_stores_a_game() {
    if no_tty_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    let board = DgtOnPty::open(DgtBoardModel::new(&Board::default()), &tty).unwrap();
    let config = laptop_config(dir.path(), &tty);
    let (mut daemon, mut stdin, rx) = start(&config, dir.path());
    let mut seen = Vec::new();
    // The board's dump read and the game ready: Black starts White's clock.
    std::thread::sleep(Duration::from_millis(800));
    press(&mut stdin, "black");
    assert!(until(&rx, &mut seen, r#""effect":"started""#), "{seen:#?}");
    let moves = [
        ("white", Square::E2, Square::E4),
        ("black", Square::E7, Square::E5),
        ("white", Square::G1, Square::F3),
        ("black", Square::B8, Square::C6),
    ];
    for (i, (side, from, to)) in moves.into_iter().enumerate() {
        std::thread::sleep(Duration::from_millis(300));
        board.lift(from);
        std::thread::sleep(Duration::from_millis(200));
        board.place(to, None);
        std::thread::sleep(Duration::from_millis(400));
        press(&mut stdin, side);
        let count = |seen: &Vec<String>| {
            seen.iter()
                .filter(|l| l.contains(r#""effect":"move""#))
                .count()
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while count(&seen) <= i && Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
                seen.push(line);
            }
        }
    }
    let sans: Vec<&str> = seen
        .iter()
        .filter(|l| l.contains(r#""effect":"move""#))
        .filter_map(|l| l.split(r#""san":""#).nth(1)?.split('"').next())
        .collect();
    assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6"], "{seen:#?}");
    // Black resigns (standard input's inputs that no lever gives go to
    // the clock as they are); a finished game is what `export` prints.
    writeln!(stdin, r#"{{"t":0,"ev":"resign","side":"black"}}"#).unwrap();
    stdin.flush().unwrap();
    assert!(until(&rx, &mut seen, r#""result":"1-0""#), "{seen:#?}");
    let status = daemon.stop();
    assert!(status.success(), "{status}");
    drop(board);
    // Stored: the game store holds the four moves.
    let pgn = exported(dir.path());
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    let movetext: Vec<&str> = pgn
        .split_whitespace()
        .filter(|word| !word.starts_with('{') && !word.ends_with('}') && !word.starts_with('['))
        .skip_while(|word| *word != "1.")
        .collect();
    assert_eq!(
        movetext,
        ["1.", "e4", "e5", "2.", "Nf3", "Nc6", "1-0"],
        "{pgn}"
    );
}

#[test]
fn a_serial_device_that_is_no_tty_stops_the_daemon_at_once_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_tty = dir.path().join("ttyNOPE");
    std::fs::write(&not_a_tty, "").unwrap();
    let config = laptop_config(dir.path(), &not_a_tty);
    let output = tocada()
        .args(["run", "--config"])
        .arg(&config)
        .env("STATE_DIRECTORY", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(i32::from(tocada::exit::EX_CONFIG)),
        "{stderr}"
    );
    assert!(
        stderr.contains(&not_a_tty.display().to_string()),
        "{stderr}"
    );
}

#[test]
fn check_config_describes_the_cable_alone_rig_and_a_bluetooth_board() {
    let dir = tempfile::tempdir().unwrap();
    let config = laptop_config(dir.path(), Path::new("/dev/rfcomm0"));
    let output = tocada().arg("check-config").arg(&config).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("DGT board on /dev/rfcomm0"), "{stdout}");
    assert!(stdout.contains("no OLED, no I2C bus"), "{stdout}");
    assert!(stdout.contains("press lines on standard input"), "{stdout}");
    let none = std::fs::read_to_string(&config)
        .unwrap()
        .replace("levers = \"stdin\"", "levers = \"none\"");
    std::fs::write(&config, none).unwrap();
    let output = tocada().arg("check-config").arg(&config).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("nothing can start the clock"), "{stdout}");
}

/// FIDE 7.3 through the whole rig: a DGT board set up with White's king
/// and queen swapped does not start on Black's press; put right, it does.
#[test]
fn a_wrong_set_up_on_the_dgt_board_is_refused_then_corrected() {
    use shakmaty::{Color, Piece, Role};
    if no_tty_here() {
        return;
    }
    let king = Piece {
        color: Color::White,
        role: Role::King,
    };
    let queen = Piece {
        color: Color::White,
        role: Role::Queen,
    };
    let mut swapped = Board::default();
    swapped.set_piece_at(Square::D1, king);
    swapped.set_piece_at(Square::E1, queen);
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    let board = DgtOnPty::open(DgtBoardModel::new(&swapped), &tty).unwrap();
    let config = laptop_config(dir.path(), &tty);
    let (mut daemon, mut stdin, rx) = start(&config, dir.path());
    let mut seen = Vec::new();
    std::thread::sleep(Duration::from_millis(1500));
    press(&mut stdin, "black");
    std::thread::sleep(Duration::from_millis(1500));
    while let Ok(line) = rx.try_recv() {
        seen.push(line);
    }
    assert!(
        !seen.iter().any(|l| l.contains(r#""effect":"started""#)),
        "started on a wrong set-up: {seen:#?}"
    );
    board.lift(Square::D1);
    board.lift(Square::E1);
    board.place(Square::D1, Some(queen));
    board.place(Square::E1, Some(king));
    std::thread::sleep(Duration::from_millis(500));
    press(&mut stdin, "black");
    assert!(until(&rx, &mut seen, r#""effect":"started""#), "{seen:#?}");
    assert!(daemon.stop().success());
}

/// A game from a FEN on a DGT board turned round: the board's orientation
/// is taken from the FEN's position, and the game starts and plays from it.
#[test]
fn run_fen_plays_from_the_position_on_a_board_turned_round() {
    if no_tty_here() {
        return;
    }
    let fen = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1";
    let start_board = tocada::config::parse_start(fen)
        .map(|p| shakmaty::Position::board(&p).clone())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    let board = DgtOnPty::open(DgtBoardModel::new(&start_board).turned_round(), &tty).unwrap();
    let config = laptop_config(dir.path(), &tty);
    let (mut daemon, mut stdin, rx) = start_with(&config, dir.path(), &["--fen", fen]);
    let mut seen = Vec::new();
    std::thread::sleep(Duration::from_millis(1000));
    press(&mut stdin, "black");
    assert!(until(&rx, &mut seen, r#""effect":"started""#), "{seen:#?}");
    std::thread::sleep(Duration::from_millis(300));
    board.lift(Square::A1);
    std::thread::sleep(Duration::from_millis(200));
    board.place(Square::A8, None);
    std::thread::sleep(Duration::from_millis(400));
    press(&mut stdin, "white");
    assert!(until(&rx, &mut seen, r#""san":"Ra8+""#), "{seen:#?}");
    assert!(daemon.stop().success());
}

/// A board not plugged in yet (or a Bluetooth board not bound yet) is said
/// at once with its path, and waited for: the daemon keeps running.
#[test]
fn a_missing_serial_device_is_said_at_once_and_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("rfcomm9");
    let config = laptop_config(dir.path(), &missing);
    // Standard input held open, as a terminal's would be.
    let (daemon, _stdin, _out, log) = spawn_daemon_logged(&config, dir.path(), &[]);
    let mut daemon = Running(daemon);
    let mut said = Vec::new();
    assert!(
        until(&log, &mut said, &missing.display().to_string()),
        "{said:#?}"
    );
    // Still running a while later (its SIGTERM handler in place by then).
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        daemon.0.try_wait().unwrap().is_none(),
        "the daemon waits for the board: {said:#?}"
    );
    let status = daemon.stop();
    assert!(status.success(), "{status}");
}
