//! `tocada sim` used as a person uses it: the real binary in a tmux pane of
//! 200 × 60, keys sent with `send-keys`, the screen read back with
//! `capture-pane` and checked for what a player would look at: the pieces on
//! the board, the bar under the running clock on the face, the log's moves
//! and rulings, the error line, and a clean exit.
//!
//! Skipped (passing, with the reason printed) without tmux, and under
//! `TOCADA_TEST_RUNNER` (the aarch64 run under qemu): `.ci/run` installs
//! tmux and runs these natively in its last `cargo test`.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a screen may take to show what is expected (a debug build on a
/// loaded machine is slow; a pass takes a fraction of this).
const PATIENCE: Duration = Duration::from_secs(20);

/// What the shell prints before the simulator's exit status.
const EXITED: &str = "tocada sim exited with";

/// Columns of the face's box on a 200-column screen: its border, then the
/// 128 pixel columns.
const FACE_COLUMNS: std::ops::Range<usize> = 1..129;

/// One simulator in a tmux server of its own (its own socket, in a
/// temporary directory), killed when the test ends, passed or failed.
struct Session {
    socket: std::path::PathBuf,
    /// Removed (with the socket) after the server is killed.
    _dir: tempfile::TempDir,
}

impl Session {
    /// Starts `tocada sim` in a 200 × 60 pane, or says why not and gives
    /// `None` (the test then passes without running).
    fn start(test: &str) -> Option<Session> {
        Session::start_with(test, "")
    }

    /// Starts `tocada sim` with more arguments (shell words).
    fn start_with(test: &str, args: &str) -> Option<Session> {
        if std::env::var_os("TOCADA_TEST_RUNNER").is_some() {
            eprintln!("skipped: the terminal simulator is tested natively, not under a runner");
            return None;
        }
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix(&format!("tocada-sim-{test}-"))
            .tempdir()
            .expect("a temporary directory");
        // Started in the temporary directory: quitting writes the games
        // there (tocada-sim.pgn), not into the checkout.
        let cwd = dir.path().display().to_string();
        let session = Session {
            socket: dir.path().join("tmux"),
            _dir: dir,
        };
        let binary = env!("CARGO_BIN_EXE_tocada");
        // The pane stays after the simulator exits, with its exit status.
        let started = session.tmux(&[
            "new-session",
            "-d",
            "-c",
            &cwd,
            "-x",
            "200",
            "-y",
            "60",
            &format!("'{binary}' sim {args}; echo {EXITED} $?"),
            ";",
            "set-option",
            "remain-on-exit",
            "on",
        ]);
        assert!(started.status.success(), "tmux: {started:?}");
        Some(session)
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            // A server of its own even when the tests run inside tmux.
            .env_remove("TMUX")
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Presses keys by tmux's names: `Right`, `F5`, `Space`, `C-c`.
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Types `text` on the command line and presses Enter.
    fn enter(&self, text: &str) {
        assert!(self.tmux(&["send-keys", "-l", text]).status.success());
        self.keys(&["Enter"]);
    }

    /// The screen as text, once the simulator has finished drawing it: a
    /// capture can land in the middle of a frame (the first one draws the
    /// title a moment before the board), so two captures a moment apart
    /// must agree.
    fn screen(&self) -> Screen {
        let capture = || {
            let out = self.tmux(&["capture-pane", "-p"]);
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let mut last = capture();
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(25));
            let next = capture();
            if next == last {
                break;
            }
            last = next;
        }
        Screen(last)
    }

    /// Waits until the screen satisfies `ok`, and returns it; fails with
    /// the last screen after [`PATIENCE`].
    fn wait_for(&self, what: &str, ok: impl Fn(&Screen) -> bool) -> Screen {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{}", screen.0);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Prints the screen, for whoever reads the test's output
    /// (`--nocapture`) to look at it as a player would.
    fn show(&self, moment: &str) {
        eprintln!("── {moment} ──\n{}", self.screen().0);
    }

    /// Waits for `text` anywhere on the screen.
    fn wait_text(&self, text: &str) -> Screen {
        self.wait_for(&format!("{text:?}"), |s| s.0.contains(text))
    }

    /// Waits for the simulator to exit, and gives its exit status, which
    /// the shell around it prints (looked for in the pane's history too:
    /// the line may have scrolled off when the terminal was restored).
    fn wait_exit(&self) -> i32 {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let out = self.tmux(&["capture-pane", "-p", "-S", "-"]);
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some((_, status)) = text.split_once(EXITED) {
                return status
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("no exit status:\n{text}"));
            }
            assert!(
                Instant::now() < deadline,
                "the simulator did not exit; the screen:\n{}",
                self.screen().0
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// A capture of the pane.
struct Screen(String);

impl Screen {
    fn lines(&self) -> Vec<&str> {
        self.0.lines().collect()
    }

    /// The eight squares of `rank` as the board shows them, files a to h:
    /// `P`, `·`, `(P)` lifted, `[P]` placed.
    fn rank(&self, rank: u8) -> Vec<String> {
        let label = format!("│{rank} ");
        let line = self
            .lines()
            .into_iter()
            .find(|l| l.contains(&label))
            .unwrap_or_else(|| panic!("no rank {rank} on the screen:\n{}", self.0));
        let (_, squares) = line.split_once(&label).expect("found above");
        squares
            .split_whitespace()
            .take(8)
            .map(str::to_owned)
            .collect()
    }

    /// The square `sq` ("e4") as the board shows it.
    fn square(&self, sq: &str) -> String {
        let bytes = sq.as_bytes();
        let file = usize::from(bytes[0] - b'a');
        self.rank(bytes[1] - b'0')[file].clone()
    }

    /// The face's rows, pixel columns only.
    fn face(&self) -> Vec<String> {
        self.lines()
            .iter()
            .skip(1)
            .take(32)
            .map(|l| {
                l.chars()
                    .skip(FACE_COLUMNS.start)
                    .take(FACE_COLUMNS.len())
                    .collect()
            })
            .collect()
    }

    /// Which half of the face has the marker under the running clock: the
    /// 16 cells under one clock's time solid, and not the other's. (The
    /// rest of a row may still hold the previous screen for a moment: the
    /// panel is sent the marker first and the rest after.)
    fn running_bar(&self) -> Option<&'static str> {
        let width = tocada::face::MARKER_WIDTH as usize;
        let lit = |row: &str, centre: usize| {
            let cells: Vec<char> = row.chars().collect();
            let start = centre - width / 2;
            cells.len() > start + width
                && cells[start..start + width].iter().all(|&c| c == '█')
                && cells[start - 1] != '█'
                && cells[start + width] != '█'
        };
        // Page 4 of the panel: pixel rows 32 to 39, two to a line here.
        let page = &self.face()[16..20];
        let left = page.iter().any(|row| lit(row, 32));
        let right = page.iter().any(|row| lit(row, 96));
        match (left, right) {
            (true, false) => Some("left"),
            (false, true) => Some("right"),
            _ => None,
        }
    }

    /// The line under the log: the last error or note.
    fn message(&self) -> String {
        let lines = self.lines();
        lines
            .iter()
            .rev()
            .find(|l| !l.starts_with('>') && !l.trim().is_empty() && !l.contains("←/→ levers"))
            .map(|l| l.trim().to_owned())
            .unwrap_or_default()
    }
}

#[test]
fn a_game_typed_move_by_move() {
    let Some(sim) = Session::start("game") else {
        return;
    };
    let screen = sim.wait_text("Board · set up for a game");
    assert_eq!(screen.square("e2"), "P");
    assert_eq!(screen.square("g8"), "n");
    assert!(screen.0.contains("← White  Black →"), "{}", screen.0);
    let menu = sim.wait_for("the face lit", |s| {
        s.face().iter().any(|row| row.contains('█'))
    });
    assert_eq!(menu.running_bar(), None, "no clock runs before the game");

    // Black's lever (on the right) starts White's clock.
    sim.keys(&["Right"]);
    let screen = sim.wait_text("White's clock started");
    assert_eq!(screen.running_bar(), Some("left"), "{}", screen.0);
    sim.show("the game started: White's clock runs");

    // The hands lift e2 and set the pawn on e4, then White presses.
    sim.enter("e2e4");
    let screen = sim.wait_for("1. e4 in the log", |s| s.0.contains("1.     e4"));
    assert_eq!(screen.square("e2"), "·");
    assert_eq!(screen.square("e4"), "P");
    assert!(screen.0.contains("Board · Black to move"), "{}", screen.0);
    let screen = sim.wait_for("Black's clock running", |s| {
        s.running_bar() == Some("right")
    });
    // Black's clock runs: the face changes by itself.
    let before = screen.face();
    sim.wait_for("Black's time going down", |s| s.face() != before);
    sim.show("after 1. e4: Black's clock runs");

    // Black moves without pressing; Space presses the running clock's lever.
    sim.enter("auto off");
    sim.wait_text("typed moves leave the lever alone");
    sim.enter("e7e5");
    let screen = sim.wait_for("e5 on the board", |s| s.square("e5") == "p");
    assert!(
        !screen.0.contains("1...   e5"),
        "not completed before the press"
    );
    assert_eq!(screen.running_bar(), Some("right"));
    sim.keys(&["Space"]);
    sim.wait_text("1...   e5");
    sim.wait_for("White's clock running", |s| s.running_bar() == Some("left"));
    sim.enter("auto on");

    // Touch-move: White touches his knight, then plays a pawn.
    sim.enter("touch g1");
    sim.enter("untouch g1");
    sim.enter("d2d4");
    let screen = sim.wait_text("Touch-move: move the g1 knight");
    assert!(
        screen.0.contains("Violation (White, 4.3.1)"),
        "{}",
        screen.0
    );
    let screen = sim.wait_text("White moved, not pressed");
    assert_eq!(screen.running_bar(), Some("left"), "the press was refused");
    assert_eq!(screen.square("d4"), "P");
    sim.show("d4 against touch-move: refused");

    // A typo is a one-line error; the game goes on.
    sim.enter("lift z9");
    let screen = sim.wait_for("the error", |s| {
        s.message().contains("`z9` is not a square")
    });
    assert!(screen.0.contains("Board · White moved"));
    sim.enter("hello");
    sim.wait_for("the error", |s| {
        s.message()
            .contains("`hello` is neither a command nor a move")
    });

    // White takes the pawn back and moves the knight he touched.
    sim.enter("lift d4");
    let screen = sim.wait_for("the pawn in the air", |s| s.square("d4") == "(P)");
    assert_eq!(screen.square("d2"), "·");
    sim.enter("place d2");
    sim.wait_for("the pawn back", |s| {
        s.square("d2") == "P" && s.square("d4") == "·"
    });
    sim.enter("Nf3");
    let screen = sim.wait_text("2.     Nf3");
    assert_eq!(screen.square("f3"), "N");
    assert_eq!(screen.square("g1"), "·");

    // A piece knocked over (no move of Black's explains White's h2 pawn
    // leaving): the board marks it and the referee wants it back.
    sim.enter("knock h2");
    let screen = sim.wait_text("restore h2");
    assert_eq!(screen.square("h2"), "(P)");
    sim.enter("place h2");
    let screen = sim.wait_text("Board restored");
    assert_eq!(screen.square("h2"), "P");

    // The arbiter pauses and resumes with the menu button.
    sim.keys(&["F5"]);
    sim.wait_text("Paused by the arbiter");
    sim.keys(&["F5"]);
    sim.wait_text("Resumed");

    sim.enter("resign black");
    sim.wait_text("Game over: 1-0 (resignation)");
    sim.show("Black resigned");
    sim.enter("quit");
    assert_eq!(sim.wait_exit(), 0, "quit exits cleanly");
    let after = sim.screen();
    assert!(
        !after.0.contains("OLED 128×64"),
        "the terminal is restored:\n{}",
        after.0
    );
    // The game, written as PGN where the simulator was started, and said.
    let history = sim.tmux(&["capture-pane", "-p", "-S", "-"]);
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(
        history.contains("tocada sim: 1 game(s) written as PGN to tocada-sim.pgn"),
        "{history}"
    );
    let pgn = std::fs::read_to_string(sim._dir.path().join("tocada-sim.pgn")).unwrap();
    assert!(pgn.contains("Nf3") && pgn.contains("1-0"), "{pgn}");
}

#[test]
fn ctrl_c_quits_and_restores_the_terminal() {
    let Some(sim) = Session::start("ctrl-c") else {
        return;
    };
    sim.wait_text("OLED 128×64");
    // Typed half a command, then changed his mind.
    sim.keys(&["e", "2"]);
    sim.wait_text("> e2");
    sim.keys(&["C-c"]);
    assert_eq!(sim.wait_exit(), 0);
    let after = sim.screen();
    assert!(!after.0.contains("OLED 128×64"), "{}", after.0);
}

#[test]
fn levers_follow_the_configured_sides() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tocada.toml");
    std::fs::write(&config, "[clock]\nwhite = \"right\"\n").unwrap();
    let Some(sim) = Session::start_with("sides", &format!("--config '{}'", config.display()))
    else {
        return;
    };
    let screen = sim.wait_text("← Black  White →");
    assert!(
        screen.0.contains("Black's lever (←) starts the game"),
        "{}",
        screen.0
    );
    // Black's lever is now the left one; the right one only beeps.
    sim.keys(&["Right"]);
    let screen = sim.wait_text("BEEP");
    assert!(!screen.0.contains("clock started"), "{}", screen.0);
    sim.keys(&["Left"]);
    let screen = sim.wait_text("White's clock started");
    assert_eq!(screen.running_bar(), Some("right"), "{}", screen.0);
    // The hands press White's lever, on the right, after his move.
    sim.enter("e2e4");
    sim.wait_text("1.     e4");
    sim.wait_for("Black's clock running", |s| s.running_bar() == Some("left"));
}

#[test]
fn a_swap_of_sides_on_the_setup_screen_moves_the_levers_with_the_players() {
    let Some(sim) = Session::start("swap") else {
        return;
    };
    sim.wait_text("← White  Black →");
    // A draw button on the setup screen swaps the sides.
    sim.keys(&["F1"]);
    sim.wait_text("← Black  White →");
    sim.keys(&["Space"]);
    let screen = sim.wait_text("White's clock started");
    assert_eq!(screen.running_bar(), Some("right"), "{}", screen.0);
    sim.enter("Nf3");
    sim.wait_text("1.     Nf3");
    let screen = sim.wait_for("Black's clock running", |s| s.running_bar() == Some("left"));
    // Black's draw offer, by name: his button is on the left now.
    sim.enter("draw black");
    let screen_after = sim.wait_text("Draw offer: Black");
    assert!(!screen.0.contains("Draw offer: White"));
    assert!(!screen_after.0.contains("Draw offer: White"));
}
