//! `tocada sim --script` end to end: a replay-format script through the
//! device models, the drivers, the daemon's loop and the store, in
//! simulated time. It must decide what the bare referee decides, and the
//! face it writes must be the face of the game at that instant.

mod support {
    pub mod cli;
}

use std::path::{Path, PathBuf};

use support::cli::tocada;
use tocada::face::{self, Frame, HEIGHT, WIDTH};
use tocada::transcript::{self, Event};
use tocada::{Referee, Rules};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/molinari-bordais-1979.jsonl")
}

fn run(args: &[&str]) -> (String, String, i32) {
    let out = tocada().args(args).output().expect("tocada runs");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// Every effect line, with `t` removed from the moves' and the result's
/// lines when `loose` (a move completed by releasing a piece is seen at the
/// board's next poll, up to 5 ms later, and the clock runs meanwhile).
fn effects(output: &str) -> Vec<serde_json::Value> {
    output
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_script_through_the_whole_stack_decides_what_the_referee_decides() {
    let script = example();
    let script = script.to_str().unwrap();
    let (sim, err, code) = run(&["sim", "--script", script]);
    assert_eq!(code, 0, "{err}");
    let (bare, _, code) = run(&["replay", script]);
    assert_eq!(code, 0);
    let (sim, bare) = (effects(&sim), effects(&bare));
    assert_eq!(sim.len(), bare.len(), "{sim:#?}\n{bare:#?}");
    for (s, b) in sim.iter().zip(&bare) {
        assert_eq!(s["effect"], b["effect"]);
        assert_eq!(s["san"], b["san"]);
        let pressed =
            s["effect"] == "move" && s["san"].as_str().is_some_and(|san| !san.ends_with('#'));
        if pressed || s["effect"] == "started" {
            // Completed by a press: the kernel's timestamp, exactly.
            assert_eq!(s, b);
        } else {
            // Completed by a release the board reports at its next poll.
            let dt = s["t"].as_u64().unwrap() - b["t"].as_u64().unwrap();
            assert!(dt <= 5, "{s} vs {b}");
        }
    }
}

/// The panel of a PNG written by the simulator, one bool per OLED pixel.
fn panel_of(png_path: &Path) -> Vec<bool> {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).expect("the PNG was written"),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let scale = info.width as usize / WIDTH as usize;
    assert_eq!(info.width as i32, WIDTH * scale as i32);
    assert_eq!(info.height as i32, HEIGHT * scale as i32);
    let mut lit = Vec::new();
    for y in 0..HEIGHT as usize {
        for x in 0..WIDTH as usize {
            lit.push(buf[(y * scale) * info.width as usize + x * scale] > 127);
        }
    }
    lit
}

#[test]
fn the_face_written_at_an_instant_is_the_game_at_that_instant() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example()).unwrap();
    let instants = [30_000u64, 60_000, 150_000];
    let mut script = String::new();
    let mut inserted = 0;
    for line in text.lines() {
        let t = transcript::parse_line(line).unwrap().map_or(0, |l| l.t);
        while inserted < instants.len() && instants[inserted] <= t {
            script.push_str(&format!(
                "{{\"t\":{},\"ev\":\"face\",\"png\":\"face-{}.png\"}}\n",
                instants[inserted], instants[inserted]
            ));
            inserted += 1;
        }
        script.push_str(line);
        script.push('\n');
    }
    let path = dir.path().join("script.jsonl");
    std::fs::write(&path, script).unwrap();
    let (_, err, code) = run(&[
        "sim",
        "--script",
        path.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");

    for at in instants {
        // The referee alone, fed the script up to `at`.
        let mut referee = Referee::new(Rules::default());
        for line in text.lines() {
            let line = transcript::parse_line(line).unwrap().unwrap();
            if line.t > at {
                break;
            }
            if let Event::Input(input) = line.event {
                referee.handle(line.t, input).unwrap();
            }
        }
        let view = tocada::session::view::from_referee(&referee, at, None);
        let mut want = Frame::new();
        let Ok(()) = face::draw(&view, &mut want);
        let got = panel_of(&dir.path().join(format!("face-{at}.png")));
        let mut differ = 0;
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                if got[(y * WIDTH + x) as usize] != want.pixel(x, y) {
                    differ += 1;
                }
            }
        }
        assert_eq!(differ, 0, "the face at {at} ms differs in {differ} pixels");
    }
}

#[test]
fn sim_db_keeps_the_games_where_export_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sim.sqlite");
    let db = db.to_str().unwrap();
    let script = example();
    let (_, err, code) = run(&["sim", "--script", script.to_str().unwrap(), "--db", db]);
    assert_eq!(code, 0, "{err}");
    let (pgn, err, code) = run(&["export", "--db", db]);
    assert_eq!(code, 0, "{err}");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("1. e4 {[%clk"), "{pgn}");
    assert!(pgn.trim_end().ends_with("0-1"), "{pgn}");
    // A second run adds its game beside the first.
    let (_, err, code) = run(&["sim", "--script", script.to_str().unwrap(), "--db", db]);
    assert_eq!(code, 0, "{err}");
    let (pgn, _, _) = run(&["export", "--db", db]);
    assert_eq!(pgn.matches("[Result \"0-1\"]").count(), 2, "{pgn}");
}

#[test]
fn sim_db_that_cannot_be_created_is_ex_cantcreat() {
    // The simulator writes its store, creating it: like any output, one it
    // cannot create is 73 (src/exit.rs).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("no/such/dir/sim.sqlite");
    let script = example();
    let (_, err, code) = run(&[
        "sim",
        "--script",
        script.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(code, 73, "{err}");
    assert!(
        err.starts_with("tocada sim: cannot open the game store "),
        "{err}"
    );
}

#[test]
fn a_bad_script_is_a_data_error_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n{\"t\":5,\"ev\":\"fly\"}\n",
    )
    .unwrap();
    let (_, err, code) = run(&["sim", "--script", path.to_str().unwrap()]);
    assert_eq!(code, 65, "{err}");
    assert!(err.contains("line 2"), "{err}");
    let (_, err, code) = run(&["sim", "--script", "/nonexistent/script.jsonl"]);
    assert_eq!(code, 66, "{err}");
    // A face line without its file, or with a number for it, is a face
    // line gone wrong, not an unknown event: the message shows its form.
    for (line, why) in [
        (r#"{"t":9,"ev":"face"}"#, "missing field `png`"),
        (r#"{"t":9,"ev":"face","png":5}"#, "invalid type"),
    ] {
        std::fs::write(&path, format!("{line}\n")).unwrap();
        let (_, err, code) = run(&["sim", "--script", path.to_str().unwrap()]);
        assert_eq!(code, 65, "{err}");
        assert!(
            err.contains(r#"line 1: a face line is {"t":T,"ev":"face","png":"FILE.png"}"#)
                && err.contains(why),
            "{err}"
        );
    }
}

/// Fault 7: a script whose next line is days ahead jumps there. White's
/// move, a pause, the game resumed twenty days later: Black's flag falls at
/// its own millisecond, as `tocada replay` rules it, and a month of
/// simulated time takes seconds (the loop used to poll the board every few
/// simulated milliseconds of it: about 16 s of wall time per simulated
/// hour on a debug build, so the old code is stopped at the bound).
#[test]
fn a_script_days_ahead_jumps_there_and_the_flag_falls_at_its_millisecond() {
    const DAY: u64 = 86_400_000;
    let resume = 20 * DAY + 2_000;
    let script = format!(
        r#"{{"t":0,"ev":"setup","time_control":"60"}}
{{"t":0,"ev":"press","side":"black"}}
{{"t":1000,"ev":"lift","sq":"e2"}}
{{"t":1200,"ev":"place","sq":"e4"}}
{{"t":1500,"ev":"press","side":"white"}}
{{"t":2000,"ev":"pause"}}
{{"t":{resume},"ev":"resume"}}
{{"t":{},"ev":"end"}}
"#,
        30 * DAY
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("month.jsonl");
    std::fs::write(&path, &script).unwrap();
    let began = std::time::Instant::now();
    let mut child = tocada()
        .args(["sim", "--script", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tocada runs");
    let bound = std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if began.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("30 simulated days took more than {bound:?} of wall time");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sim = effects(&String::from_utf8(out.stdout).unwrap());
    // Black's minute, less the half second he used before the pause.
    let flag = resume + 59_500;
    assert_eq!(
        sim[3..],
        [
            serde_json::json!({"t":resume,"effect":"resumed"}),
            serde_json::json!({"t":flag,"effect":"flag","side":"black"}),
            serde_json::json!({"t":flag,"effect":"result","result":"1-0","reason":"timeout"}),
        ],
        "{sim:#?}"
    );
    let (bare, _, code) = run(&["replay", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(sim, effects(&bare));
}

/// A long think while a clock runs is played at the loop's own pace, as
/// the clock would live it: the checkpoints it stores every half second
/// are there, so a restore of the stored game believes every line (a
/// stored line more than a minute after the one before while a clock ran
/// is set aside as a time that cannot be).
#[test]
fn a_long_think_on_a_running_clock_is_stored_as_the_clock_stores_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sim.sqlite");
    let db = db.to_str().unwrap();
    let think = 180_000;
    let script = format!(
        r#"{{"t":0,"ev":"setup","time_control":"900"}}
{{"t":0,"ev":"press","side":"black"}}
{{"t":1000,"ev":"lift","sq":"e2"}}
{{"t":1200,"ev":"place","sq":"e4"}}
{{"t":1500,"ev":"press","side":"white"}}
{{"t":{},"ev":"lift","sq":"e7"}}
{{"t":{},"ev":"place","sq":"e5"}}
{{"t":{},"ev":"press","side":"black"}}
"#,
        1_500 + think,
        1_700 + think,
        2_000 + think
    );
    let path = dir.path().join("think.jsonl");
    std::fs::write(&path, &script).unwrap();
    let (out, err, code) = run(&["sim", "--script", path.to_str().unwrap(), "--db", db]);
    assert_eq!(code, 0, "{err}");
    let moves = effects(&out)
        .iter()
        .filter(|e| e["effect"] == "move")
        .count();
    assert_eq!(moves, 2, "{out}");
    // The unfinished game comes back with both moves, nothing set aside.
    let store = tocada::store::Store::open(Path::new(db)).unwrap();
    let saved = store.unfinished().unwrap().expect("the game is unfinished");
    let mut session = tocada::session::Session::new(&tocada::config::Config::default());
    let restored = transcript::restore(
        &mut session,
        0,
        tocada::session::GameToResume {
            preset: &saved.preset,
            black_left: !saved.white_left,
            date: &saved.date,
            lines: &saved.lines,
        },
        transcript::Policy::RESTORE,
    )
    .expect("the stored game restores");
    assert_eq!(restored.fault, None, "{:?}", saved.lines);
    assert!(restored.t >= 2_000 + think, "{}", restored.t);
}

/// A rook and two kings: Ra8+ is a move only from this position.
const ROOK_ENDING: &str = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1";

#[test]
fn sim_fen_starts_the_game_and_the_board_from_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("rook.jsonl");
    std::fs::write(
        &script,
        r#"{"t":0,"ev":"press","side":"black"}
{"t":600,"ev":"lift","sq":"a1"}
{"t":800,"ev":"place","sq":"a8"}
{"t":1400,"ev":"press","side":"white"}
"#,
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let (out, err, code) = run(&["sim", "--script", script, "--fen", ROOK_ENDING]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""effect":"started""#), "{out}");
    assert!(out.contains(r#""san":"Ra8+""#), "{out}");
    // From the standard position the same hands make no Ra8+: the rook
    // cannot pass its own pawn, nor take its own rook on a8.
    let (out, _, code) = run(&["sim", "--script", script]);
    assert_eq!(code, 0);
    assert!(!out.contains(r#""san":"Ra8+""#), "{out}");
}

#[test]
fn a_bad_fen_is_refused_on_the_command_line_with_what_is_wrong() {
    for (fen, why) in [
        ("not a fen", "is not a FEN"),
        (
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "no position to start a game from",
        ),
    ] {
        for command in ["sim", "run"] {
            let (_, err, code) = run(&[command, "--fen", fen]);
            assert_eq!(code, 2, "{command} --fen {fen:?}: {err}");
            assert!(err.contains("--fen") && err.contains(why), "{err}");
        }
    }
}
