//! `tocada run` as a plain clock (`board.kind = "none"`): no sensor board,
//! no I2C bus, no GPIO chip; the levers are the press lines on standard
//! input. Each press completes a turn, and the flag loses.
#![cfg(target_os = "linux")]

use std::time::Duration;

mod support {
    pub mod cli;
    // Its `run_daemon` closes standard input at once: the presses here
    // are written as the test goes, through `spawn_daemon` (the module
    // allows what this file leaves unused).
    pub mod daemon;
}
use support::cli::tocada;
use support::daemon::{exported, press, spawn_daemon, terminate, until};

const CONFIG: &str = "[clock]\nlevers = \"stdin\"\n[board]\nkind = \"none\"\n\
                      [i2c]\noled = false\nbus = \"/nonexistent/i2c-7\"\n\
                      [[preset]]\nname = \"bullet\"\ntime_control = \"3s+1s\"\n";

#[test]
fn check_config_accepts_a_plain_clock() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("plain.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let output = tocada().arg("check-config").arg(&config).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        stdout.contains("ok: no sensor board: a plain clock, no OLED, no I2C bus;"),
        "{stdout}"
    );
}

#[test]
fn a_plain_clock_runs_on_its_levers_alone_and_the_flag_loses() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("plain.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let (mut daemon, mut stdin, rx) = spawn_daemon(&config, dir.path(), &[]);
    let mut seen = Vec::new();
    std::thread::sleep(Duration::from_millis(300));
    press(&mut stdin, "black");
    assert!(until(&rx, &mut seen, r#""effect":"started""#), "{seen:#?}");
    for side in ["white", "black"] {
        std::thread::sleep(Duration::from_millis(300));
        press(&mut stdin, side);
    }
    // White's clock runs again, with 3 s + 1 s less what he used: it falls.
    assert!(until(&rx, &mut seen, r#""result":"0-1""#), "{seen:#?}");
    let moves: Vec<&String> = seen
        .iter()
        .filter(|l| l.contains(r#""effect":"move""#))
        .collect();
    assert_eq!(moves.len(), 2, "{seen:#?}");
    assert!(
        moves.iter().all(|l| l.contains(r#""san":"--""#)),
        "{seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.contains(r#""effect":"flag""#)),
        "{seen:#?}"
    );
    let status = terminate(&mut daemon);
    assert!(status.success(), "{status}");
    // Stored, and its PGN says what a clock alone knows.
    let pgn = exported(dir.path());
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("1. -- {[%clk"), "{pgn}");
    assert!(pgn.contains("[Termination \"time forfeit\"]"), "{pgn}");
}

#[test]
fn a_plain_clock_script_is_ruled_alike_by_sim_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("plain.jsonl");
    std::fs::write(
        &script,
        "{\"t\":0,\"ev\":\"setup\",\"time_control\":\"3\",\"plain_clock\":true}\n\
         {\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n\
         {\"t\":500,\"ev\":\"press\",\"side\":\"white\"}\n\
         {\"t\":900,\"ev\":\"press\",\"side\":\"black\"}\n\
         {\"t\":9000,\"ev\":\"end\"}\n",
    )
    .unwrap();
    let replay = tocada().arg("replay").arg(&script).output().unwrap();
    let sim = tocada()
        .args(["sim", "--out"])
        .arg(dir.path())
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(String::from_utf8_lossy(&sim.stdout), replayed);
    assert_eq!(
        replayed.lines().collect::<Vec<_>>(),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":500,"effect":"move","side":"white","n":1,"uci":"0000","san":"--","white_ms":2500,"black_ms":3000}"#,
            r#"{"t":900,"effect":"move","side":"black","n":1,"uci":"0000","san":"--","white_ms":2500,"black_ms":2600}"#,
            r#"{"t":3400,"effect":"flag","side":"white"}"#,
            r#"{"t":3400,"effect":"result","result":"0-1","reason":"timeout"}"#,
        ]
    );
}

#[test]
fn run_logs_the_warning_check_config_gives() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ninety.toml");
    std::fs::write(&config, CONFIG.replace("3s+1s", "90+30")).unwrap();
    let mut daemon = tocada()
        .args(["run", "--config"])
        .arg(&config)
        .env("STATE_DIRECTORY", dir.path())
        .env("RUST_LOG", "warn")
        .env_remove("JOURNAL_STREAM")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = daemon.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut seen = Vec::new();
    let found = until(&rx, &mut seen, "\"90+30\" read as 1 min 30 s");
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert!(found, "{seen:#?}");
}
