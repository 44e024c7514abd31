//! Black-box tests of `tocada export`: the built binary run on a game
//! database made with the store, judged by its stdout, stderr and exit code.

mod support {
    pub mod cli;
    pub mod lines;
    pub mod parsed;
}

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use shakmaty::Color;
use tocada::Rules;
use tocada::gesture::Script;
use tocada::pgn::Tags;
use tocada::store::{DB_FILE, NewGame, Store, pgn_date};
use tocada::transcript::pgn_from_lines as from_lines;

use support::cli::tocada;
use support::lines::setup_line;
use support::parsed::parse_all;

const EX_USAGE: i32 = 64;
const EX_DATAERR: i32 = 65;
const EX_NOINPUT: i32 = 66;

fn export(args: &[&str]) -> Output {
    tocada().arg("export").args(args).output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited, not killed")
}

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Noon UTC on 10 January 2026; games two days apart keep their order of
/// local days in any time zone.
const NOON_10_JAN: u64 = 1_768_046_400;
const DAY: u64 = 86_400;

/// A database with four finished games started on days 0, 2, 4 and 6 from
/// `NOON_10_JAN` (stored out of order) and one unfinished game on day 8.
/// Returns the path and the finished games' PGN by day.
fn database(dir: &Path) -> (PathBuf, Vec<(u64, String)>) {
    let path = dir.join(DB_FILE);
    let mut store = Store::open(&path).unwrap();
    let rules = Rules {
        time_control: "180+2".parse().unwrap(),
        ..Rules::default()
    };
    let setup = setup_line(&rules);
    let mut finished = Vec::new();
    for (i, day) in [4u64, 0, 6, 2, 8].into_iter().enumerate() {
        let started = at(NOON_10_JAN + day * DAY);
        let id = store
            .begin_game(&NewGame {
                started_at: started,
                preset: "blitz 3+2",
                white_left: i % 2 == 0,
                setup: &tocada::transcript::parse_line(&setup).unwrap().unwrap(),
            })
            .unwrap();
        let mut script = Script::varied(rules.start.clone(), false, day);
        script.play_sans(["d4", "d5", "c4"]).unwrap();
        // The game on day 8 is left unfinished, as by a power cut.
        if day != 8 {
            script.resign(Color::Black).unwrap();
        }
        let events: Vec<tocada::transcript::Line> = script
            .events()
            .iter()
            .map(|&(t, input)| tocada::transcript::Line {
                t,
                event: tocada::transcript::Event::Input(input),
            })
            .collect();
        store.append(id, &events).unwrap();
        if day == 8 {
            continue;
        }
        let tags = Tags {
            event: "Club night".to_owned(),
            date: pgn_date(started).unwrap(),
            round: day.to_string(),
            ..Tags::default()
        };
        let pgn = from_lines(&store.game(id).unwrap().unwrap().lines, tags).unwrap();
        store.finish(id, "1-0", &pgn).unwrap();
        finished.push((day, pgn));
    }
    finished.sort();
    (path, finished)
}

/// The expected output: the PGN of the games, one blank line between.
fn joined(games: &[(u64, String)]) -> String {
    games
        .iter()
        .map(|(_, pgn)| pgn.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn prints_exactly_the_finished_games_since_a_date_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let (db, games) = database(dir.path());
    let since = pgn_date(at(NOON_10_JAN + 2 * DAY))
        .unwrap()
        .replace('.', "-");
    let output = export(&["--db", db.to_str().unwrap(), "--since", &since]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    let text = stdout(&output);
    assert_eq!(text, joined(&games[1..]));
    let parsed = parse_all(&text);
    let rounds: Vec<_> = parsed.iter().map(|g| g.tag("Round").unwrap()).collect();
    assert_eq!(rounds, ["2", "4", "6"]);
    for game in &parsed {
        assert_eq!(game.sans, ["d4", "d5", "c4"]);
        assert_eq!(game.outcome.as_deref(), Some("1-0"));
    }
    // Games are separated by exactly one blank line.
    assert_eq!(text.matches("\n\n[Event").count(), 2);
    assert!(!text.contains("\n\n\n"));
}

#[test]
fn without_since_prints_every_finished_game() {
    let dir = tempfile::tempdir().unwrap();
    let (db, games) = database(dir.path());
    let output = export(&["--db", db.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), joined(&games));
    assert_eq!(parse_all(&stdout(&output)).len(), 4);

    // A day after every game: nothing, and that is not an error.
    let output = export(&["--db", db.to_str().unwrap(), "--since", "2100-01-01"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
}

#[test]
fn a_bad_date_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = database(dir.path());
    for bad in ["2026-02-30", "12/01/2026", "2026-1-12", ""] {
        let output = export(&["--db", db.to_str().unwrap(), "--since", bad]);
        assert_eq!(code(&output), EX_USAGE, "{bad}: {}", stderr(&output));
        assert_eq!(stdout(&output), "");
        let err = stderr(&output);
        assert!(err.starts_with("tocada export: bad date "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Checked before the database: a typo is a typo even without one.
    let output = export(&["--db", "/nonexistent/games.sqlite", "--since", "2026-13-01"]);
    assert_eq!(code(&output), EX_USAGE, "{}", stderr(&output));
}

#[test]
fn a_database_that_cannot_be_opened_is_no_input_and_a_text_file_bad_data() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sqlite");
    let output = export(&["--db", missing.to_str().unwrap()]);
    assert_eq!(code(&output), EX_NOINPUT, "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with("tocada export: cannot open "),
        "{}",
        stderr(&output)
    );
    assert!(!missing.exists(), "export creates nothing");

    let text = dir.path().join("notes.sqlite");
    std::fs::write(&text, "[Event \"a text file\"]\n".repeat(20)).unwrap();
    let output = export(&["--db", text.to_str().unwrap()]);
    assert_eq!(code(&output), EX_DATAERR, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is not an SQLite database"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_export_while_a_game_is_being_written_sees_the_finished_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (db, games) = database(dir.path());
    // The daemon holds the database open with a write transaction going.
    let mut daemon = rusqlite::Connection::open(&db).unwrap();
    let writing = daemon
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    writing
        .execute(
            "UPDATE game SET preset = 'changing' WHERE result IS NULL",
            [],
        )
        .unwrap();
    let output = export(&["--db", db.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), joined(&games));
    writing.commit().unwrap();
}
