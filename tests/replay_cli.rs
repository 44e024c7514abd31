//! Black-box tests of `tocada replay`: the built binary, fed scripts on
//! standard input or from a file, judged by its stdout, stderr and exit code.
//!
//! Tests named `referee_*` depend on the referee's rulings (a clock started,
//! a flag fallen) rather than on the replay format alone: they fail against
//! the stub referee and pass once the real one lands.
//! `cargo test --test replay_cli -- --skip referee_` runs the rest.

mod support {
    pub mod cli;
}

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use support::cli::tocada;

const EX_DATAERR: i32 = 65;
const EX_NOINPUT: i32 = 66;

/// Runs the command with `stdin` as standard input.
fn run(mut command: Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tocada binary runs");
    // A replay that stops early may close its stdin before reading it all.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// `tocada replay` with the script on standard input.
fn replay(script: &str) -> Output {
    let mut command = tocada();
    command.arg("replay");
    run(command, script)
}

fn stdout_lines(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited, not killed")
}

/// Asserts a data error on `line`, with a message containing `words`.
fn assert_data_error(script: &str, line: usize, words: &str) -> Output {
    let output = replay(script);
    let err = stderr(&output);
    assert_eq!(code(&output), EX_DATAERR, "{script}\nstderr: {err}");
    let prefix = format!("tocada replay: line {line}: ");
    assert!(err.starts_with(&prefix), "{script}\nstderr: {err}");
    assert!(err.contains(words), "{script}\nstderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line of stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    output
}

/// A file in this test binary's scratch directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const SCRIPT: &str = r#"{"t":0,"ev":"setup","time_control":"60"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4","piece":"P"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"end"}
"#;

#[test]
fn an_empty_script_outputs_nothing_and_says_so() {
    for script in ["", "\n\n", "  \n\t\n"] {
        let output = replay(script);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert!(output.stdout.is_empty());
        assert_eq!(
            stderr(&output),
            "tocada replay: the script is empty: no events to replay\n"
        );
    }
}

#[test]
fn a_valid_script_succeeds_quietly() {
    let output = replay(SCRIPT);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn every_event_kind_is_accepted() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300+2","increment_mode":"delay","mode":"blitz","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","enforcement":"record","min_press_gap_ms":80,"knock_window_ms":1000}
{"t":0,"ev":"press","side":"black"}
{"t":100,"ev":"touch","sq":"g1"}
{"t":200,"ev":"untouch","sq":"g1"}
{"t":300,"ev":"adjust","side":"white"}
{"t":400,"ev":"lift","sq":"g1"}
{"t":500,"ev":"place","sq":"f3"}
{"t":600,"ev":"draw","side":"white"}
{"t":700,"ev":"press","side":"white"}
{"t":800,"ev":"decline","side":"black"}
{"t":900,"ev":"promote","piece":"q"}
{"t":1000,"ev":"pause"}
{"t":1500,"ev":"set_time","side":"white","ms":250000}
{"t":1600,"ev":"set_moves","side":"black","n":1}
{"t":2000,"ev":"resume"}
{"t":3000,"ev":"resign","side":"black"}
{"t":4000,"ev":"end"}
"#;
    let output = replay(script);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn stdin_dash_and_a_file_are_the_same_input() {
    let from_stdin = replay(SCRIPT);

    let mut dash = tocada();
    dash.args(["replay", "-"]);
    let from_dash = run(dash, SCRIPT);

    let path = scratch("same_input.jsonl", SCRIPT);
    let mut file = tocada();
    file.arg("replay").arg(&path);
    let from_file = run(file, "");

    for output in [&from_stdin, &from_dash, &from_file] {
        assert_eq!(code(output), 0, "{}", stderr(output));
    }
    assert_eq!(from_dash.stdout, from_stdin.stdout);
    assert_eq!(from_file.stdout, from_stdin.stdout);
}

#[test]
fn a_missing_file_is_no_input() {
    let mut command = tocada();
    command.args(["replay", "/nonexistent/tocada/game.jsonl"]);
    let output = run(command, "");
    let err = stderr(&output);
    assert_eq!(code(&output), EX_NOINPUT, "{err}");
    assert!(
        err.starts_with("tocada replay: cannot open /nonexistent/tocada/game.jsonl"),
        "{err}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn an_unknown_event_names_its_line() {
    let output = replay(
        "{\"t\":0,\"ev\":\"setup\"}\n\n{\"t\":0,\"ev\":\"jump\"}\n{\"t\":1,\"ev\":\"end\"}\n",
    );
    assert_eq!(code(&output), EX_DATAERR);
    assert_eq!(
        stderr(&output),
        "tocada replay: line 3: unknown event \"jump\"\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn malformed_json_is_a_data_error() {
    assert_data_error("{\"t\":0,\"ev\":\"end\"\n", 1, "malformed JSON");
    assert_data_error("\n\nnot json\n", 3, "malformed JSON");
    assert_data_error("[0,\"end\"]\n", 1, "JSON object");
    let mut bytes = Vec::from(&b"{\"t\":0,\"ev\":\"setup\"}\n"[..]);
    bytes.extend_from_slice(b"\xff\xfe\n");
    let mut command = tocada();
    command.arg("replay");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("not_utf8.jsonl");
    std::fs::write(&path, bytes).unwrap();
    command.arg(&path);
    let output = run(command, "");
    assert_eq!(code(&output), EX_DATAERR);
    assert!(stderr(&output).starts_with("tocada replay: line 2: "));
}

#[test]
fn unknown_squares_and_fields_are_data_errors() {
    assert_data_error("{\"t\":0,\"ev\":\"lift\",\"sq\":\"e9\"}\n", 1, "\"e9\"");
    assert_data_error(
        "{\"t\":0,\"ev\":\"press\",\"side\":\"white\",\"hand\":\"left\"}\n",
        1,
        "unknown field \"hand\"",
    );
}

#[test]
fn missing_and_foreign_fields_are_data_errors() {
    assert_data_error("{\"t\":0,\"ev\":\"press\"}\n", 1, "needs field \"side\"");
    assert_data_error("{\"ev\":\"press\",\"side\":\"white\"}\n", 1, "`t`");
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\"}\n{\"t\":0,\"ev\":\"lift\",\"sq\":\"e2\",\"side\":\"white\"}\n",
        2,
        "field \"side\" does not belong to \"lift\"",
    );
}

#[test]
fn bad_values_are_data_errors() {
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\",\"fen\":\"8/8/8\"}\n",
        1,
        "bad fen",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\",\"time_control\":\"*60\"}\n",
        1,
        "bad time_control",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\",\"mode\":\"bullet\"}\n",
        1,
        "bad mode",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\",\"enforcement\":\"lenient\"}\n",
        1,
        "bad enforcement",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\",\"increment_mode\":\"simple\"}\n",
        1,
        "bad increment_mode",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"press\",\"side\":\"red\"}\n",
        1,
        "bad side",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"promote\",\"piece\":\"k\"}\n",
        1,
        "promotion",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"place\",\"sq\":\"e4\",\"piece\":\"Z\"}\n",
        1,
        "bad piece",
    );
    assert_data_error("{\"t\":-5,\"ev\":\"end\"}\n", 1, "");
}

#[test]
fn setup_must_come_first() {
    assert_data_error(
        "{\"t\":0,\"ev\":\"pause\"}\n{\"t\":0,\"ev\":\"setup\"}\n",
        2,
        "\"setup\" must be the first line",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\"}\n{\"t\":0,\"ev\":\"setup\"}\n",
        2,
        "first line",
    );
}

#[test]
fn time_must_not_go_backwards() {
    assert_data_error(
        "{\"t\":0,\"ev\":\"setup\"}\n{\"t\":500,\"ev\":\"pause\"}\n{\"t\":499,\"ev\":\"resume\"}\n",
        3,
        "backwards",
    );
    assert_data_error(
        "{\"t\":10,\"ev\":\"setup\"}\n{\"t\":9,\"ev\":\"end\"}\n",
        2,
        "backwards",
    );
}

#[test]
fn nothing_may_follow_end() {
    assert_data_error(
        "{\"t\":0,\"ev\":\"end\"}\n{\"t\":1,\"ev\":\"pause\"}\n",
        2,
        "\"end\"",
    );
}

#[test]
fn referee_the_first_press_starts_the_other_clock() {
    let output = replay("{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [r#"{"t":0,"effect":"started","side":"white"}"#]
    );
}

#[test]
fn referee_a_flag_falls_at_its_own_instant() {
    let output = replay(
        r#"{"t":0,"ev":"setup","time_control":"60"}
{"t":0,"ev":"press","side":"black"}
{"t":3600000,"ev":"end"}
"#,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":60000,"effect":"flag","side":"white"}"#,
            r#"{"t":60000,"effect":"result","result":"0-1","reason":"timeout"}"#,
        ]
    );
}

#[test]
fn referee_nothing_follows_a_result() {
    let output = replay(
        r#"{"t":0,"ev":"setup","time_control":"60"}
{"t":0,"ev":"press","side":"black"}
{"t":70000,"ev":"press","side":"white"}
{"t":80000,"ev":"resign","side":"black"}
{"t":90000,"ev":"end"}
"#,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines = stdout_lines(&output);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(r#"{"t":60000,"effect":"result","result":"0-1","reason":"timeout"}"#),
        "{lines:?}"
    );
}

#[test]
fn referee_effects_before_a_bad_line_are_written() {
    let output = assert_data_error(
        "{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n{\"t\":1,\"ev\":\"jump\"}\n",
        2,
        "unknown event \"jump\"",
    );
    assert_eq!(
        stdout_lines(&output),
        [r#"{"t":0,"effect":"started","side":"white"}"#]
    );
}

#[test]
fn referee_a_move_is_written_with_both_clocks() {
    let output = replay(SCRIPT);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":58000,"black_ms":60000}"#,
        ]
    );
}

#[test]
fn referee_resignation_ends_the_game() {
    let output = replay(
        "{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n{\"t\":5000,\"ev\":\"resign\",\"side\":\"white\"}\n",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":5000,"effect":"result","result":"0-1","reason":"resignation"}"#,
        ]
    );
}

#[test]
fn referee_the_example_in_the_readme_replays_to_mate() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/molinari-bordais-1979.jsonl"
    );
    let mut command = tocada();
    command.args(["replay", path]);
    let output = run(command, "");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines = stdout_lines(&output);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains(r#""effect":"move""#))
            .count(),
        10
    );
    assert!(lines.iter().all(|l| !l.contains("violation")));
    let last = lines.last().unwrap();
    assert!(
        last.contains(r#""result":"0-1","reason":"checkmate""#),
        "{last}"
    );
}

#[test]
fn a_correction_without_its_value_is_a_data_error() {
    assert_data_error(
        "{\"t\":0,\"ev\":\"set_time\",\"side\":\"white\"}\n",
        1,
        "\"set_time\" needs field \"ms\"",
    );
    assert_data_error(
        "{\"t\":0,\"ev\":\"set_moves\",\"side\":\"white\",\"ms\":5}\n",
        1,
        "field \"ms\" does not belong to \"set_moves\"",
    );
}

#[test]
fn referee_armageddon_gives_black_his_own_time_and_the_draw() {
    let output = replay(
        r#"{"t":0,"ev":"setup","time_control":"300+2","black_time_control":"240+2","draw_odds":"black"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"draw","side":"white"}
{"t":2500,"ev":"press","side":"white"}
{"t":3000,"ev":"draw","side":"black"}
{"t":4000,"ev":"end"}
"#,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"draw_offer","side":"white","proper":true}"#,
            r#"{"t":2500,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299500,"black_ms":240000}"#,
            r#"{"t":3000,"effect":"result","result":"0-1","reason":"agreement"}"#,
        ]
    );
}

#[test]
fn referee_the_arbiter_corrects_a_paused_clock() {
    let output = replay(
        r#"{"t":0,"ev":"setup","time_control":"60"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"set_time","side":"white","ms":5000}
{"t":2000,"ev":"pause"}
{"t":3000,"ev":"set_time","side":"white","ms":5000}
{"t":4000,"ev":"resume"}
{"t":60000,"ev":"end"}
"#,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // The first correction came while the clock ran: dropped.
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"paused"}"#,
            r#"{"t":3000,"effect":"corrected","side":"white","ms":5000,"completed":0}"#,
            r#"{"t":4000,"effect":"resumed"}"#,
            r#"{"t":9000,"effect":"flag","side":"white"}"#,
            r#"{"t":9000,"effect":"result","result":"0-1","reason":"timeout"}"#,
        ]
    );
}

#[test]
fn referee_a_move_reported_place_before_lift_is_stored() {
    // Issue 21: a board that sees the pawn on e2 and e4 in one scan reports
    // e4 first. The three lines after the start are the move and its press.
    let output = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"place","sq":"e4"}
{"t":1005,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"press","side":"white"}
{"t":2000,"ev":"end"}
"#,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout_lines(&output),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":1500,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":5428500,"black_ms":5400000}"#,
        ]
    );
}

#[test]
fn a_players_line_after_the_setup_changes_no_effect_and_one_elsewhere_is_a_data_error() {
    let setup = r#"{"t":0,"ev":"setup","time_control":"300+2"}"#;
    let players = r#"{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf"}"#;
    let moves = "{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\n\
                 {\"t\":1000,\"ev\":\"lift\",\"sq\":\"e2\"}\n\
                 {\"t\":1100,\"ev\":\"place\",\"sq\":\"e4\"}\n\
                 {\"t\":1200,\"ev\":\"press\",\"side\":\"white\"}\n";
    let with = replay(&format!("{setup}\n{players}\n{moves}"));
    let without = replay(&format!("{setup}\n{moves}"));
    assert_eq!(code(&with), 0, "{}", stderr(&with));
    assert_eq!(stdout_lines(&with), stdout_lines(&without));
    assert!(
        stdout_lines(&with)
            .iter()
            .any(|l| l.contains(r#""san":"e4""#))
    );
    // After a press: the players are fixed when the game begins.
    assert_data_error(
        &format!(
            "{setup}\n{moves}{}\n",
            players.replace(r#""t":0"#, r#""t":1200"#)
        ),
        6,
        r#""players" must be the line right after "setup""#,
    );
}
