//! The game store on real files: round trips, durability settings, crash
//! recovery, the journal's writer thread and its failures.

mod support {
    pub mod lines;
}

use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shakmaty::Color;
use tocada::store::{DB_FILE, Journal, NewGame, Store, StoreError, pgn_date, schema};
use tocada::transcript::{Event, Line, line_to_json, parse_line};
use tocada::{Input, Rules};

use support::lines::{input_line, setup_line};

const SETUP: &str = r#"{"t":0,"ev":"setup","time_control":"300+2"}"#;

/// [`SETUP`] as the value the store is handed.
static SETUP_LINE: LazyLock<Line> = LazyLock::new(|| parse_line(SETUP).unwrap().unwrap());

/// One input as the value the store is handed.
fn input(t: u64, input: Input) -> Line {
    Line {
        t,
        event: Event::Input(input),
    }
}

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    (dir, path)
}

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

fn new_game(started_at: SystemTime) -> NewGame<'static> {
    NewGame {
        started_at,
        preset: "blitz 5+2",
        white_left: true,
        setup: &SETUP_LINE,
    }
}

/// `n` events from `t0`, 100 ms apart: presses of alternating levers.
fn events(t0: u64, n: u64) -> Vec<Line> {
    (0..n)
        .map(|i| {
            let t = t0 + 100 * i;
            let side = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            input(t, Input::Press(side))
        })
        .collect()
}

/// The stored lines of a game begun with `setup` (as the store writes it:
/// every rule, defaults included) and given `events`.
fn lines_of(setup: &str, events: &[Line]) -> Vec<String> {
    std::iter::once(line_to_json(&parse_line(setup).unwrap().unwrap()))
        .chain(events.iter().map(line_to_json))
        .collect()
}

#[test]
fn a_game_round_trips_and_survives_reopening() {
    let (_dir, path) = temp_db();
    let started = at(1_763_726_400);
    let batch = events(0, 30);
    let id = {
        let mut store = Store::open(&path).unwrap();
        let id = store.begin_game(&new_game(started)).unwrap();
        store.append(id, &batch[..10]).unwrap();
        store.append(id, &batch[10..]).unwrap();
        let saved = store.game(id).unwrap().unwrap();
        assert_eq!(saved.lines, lines_of(SETUP, &batch));
        assert_eq!(store.unfinished().unwrap().map(|g| g.id), Some(id));
        store.finish(id, "1-0", "[Event \"?\"]\n\n1-0\n").unwrap();
        id
    };

    let store = Store::open(&path).unwrap();
    let saved = store.game(id).unwrap().unwrap();
    assert_eq!(saved.id, id);
    assert_eq!(saved.preset, "blitz 5+2");
    assert!(saved.white_left);
    assert_eq!(saved.started_at, started);
    assert_eq!(saved.date, pgn_date(started).unwrap());
    assert_eq!(saved.lines, lines_of(SETUP, &batch));
    assert_eq!(store.unfinished().unwrap(), None);
    let finished = store.finished_since(None).unwrap();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].id, id);
    assert_eq!(finished[0].result, "1-0");
    assert_eq!(finished[0].pgn, "[Event \"?\"]\n\n1-0\n");
    assert_eq!(finished[0].date, saved.date);
    assert_eq!(store.game(id + 1).unwrap(), None);
}

#[test]
fn the_file_is_wal_with_full_sync_and_versioned() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let durability = store.durability().unwrap();
    assert_eq!(durability.journal_mode, "wal");
    assert_eq!(durability.synchronous, "full");
    drop(store);

    // The journal mode and the version are in the file itself.
    let raw = rusqlite::Connection::open(&path).unwrap();
    let mode: String = raw
        .pragma_query_value(None, "journal_mode", |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let version: i64 = raw
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);

    let memory = Store::open_in_memory().unwrap();
    assert_eq!(memory.durability().unwrap().synchronous, "full");
}

#[test]
fn unfinished_is_the_game_begun_last_without_a_result() {
    let (_dir, path) = temp_db();
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.unfinished().unwrap(), None);
    // Begun in this order; the second has the earliest wall time, as on a
    // Pi whose clock was set only later.
    let first = store.begin_game(&new_game(at(2_000_000))).unwrap();
    let second = store.begin_game(&new_game(at(1_000))).unwrap();
    let third = store.begin_game(&new_game(at(3_000_000))).unwrap();
    let batch = events(0, 7);
    store.append(second, &batch).unwrap();
    store.append(first, &events(0, 2)).unwrap();
    store.finish(third, "0-1", "pgn").unwrap();

    let recovered = store.unfinished().unwrap().unwrap();
    assert_eq!(recovered.id, second);
    assert_eq!(recovered.lines, lines_of(SETUP, &batch));
    // Every stored game replays: its lines parse, setup first, in time order.
    let parsed: Vec<_> = recovered
        .lines
        .iter()
        .map(|l| tocada::transcript::parse_line(l).unwrap().unwrap())
        .collect();
    assert!(matches!(
        parsed[0].event,
        tocada::transcript::Event::Setup(_)
    ));
    assert!(parsed.windows(2).all(|w| w[0].t <= w[1].t));

    store.finish(second, "1/2-1/2", "pgn").unwrap();
    assert_eq!(store.unfinished().unwrap().map(|g| g.id), Some(first));
    store.finish(first, "*", "pgn").unwrap();
    assert_eq!(store.unfinished().unwrap(), None);
}

#[test]
fn finished_since_takes_whole_local_days_oldest_first() {
    let mut store = Store::open_in_memory().unwrap();
    let day = 86_400;
    // Noon UTC on 10, 12 and 14 January 2026: two days apart, so their local
    // days keep the same order in any time zone.
    let noon_10 = 1_768_046_400;
    let times = [noon_10 + 4 * day, noon_10, noon_10 + 2 * day];
    let ids: Vec<_> = times
        .iter()
        .map(|&t| store.begin_game(&new_game(at(t))).unwrap())
        .collect();
    for (i, id) in ids.iter().enumerate() {
        store.finish(*id, "1-0", &format!("pgn {i}")).unwrap();
    }
    let unfinished = store.begin_game(&new_game(at(noon_10 + day))).unwrap();

    let all: Vec<_> = store.finished_since(None).unwrap();
    assert_eq!(
        all.iter().map(|g| g.id).collect::<Vec<_>>(),
        [ids[1], ids[2], ids[0]],
        "oldest first, by start"
    );
    assert!(all.iter().all(|g| g.id != unfinished));

    let middle_day = pgn_date(at(times[2])).unwrap().replace('.', "-");
    let since: Vec<_> = store.finished_since(Some(&middle_day)).unwrap();
    assert_eq!(
        since.iter().map(|g| g.id).collect::<Vec<_>>(),
        [ids[2], ids[0]]
    );
    assert_eq!(since[0].date, middle_day.replace('-', "."));
    assert_eq!(since[0].pgn, "pgn 2");
    assert!(store.finished_since(Some("2100-01-01")).unwrap().is_empty());

    for bad in ["2026-02-30", "yesterday", "2026/01/12"] {
        let err = store.finished_since(Some(bad)).unwrap_err();
        assert!(matches!(err, StoreError::BadDate(_)), "{bad}: {err}");
        assert!(err.to_string().contains(bad), "{err}");
    }
}

#[test]
fn bad_requests_are_refused_whole() {
    let mut store = Store::open_in_memory().unwrap();
    let id = store.begin_game(&new_game(at(0))).unwrap();
    store.append(id, &events(1_000, 2)).unwrap();

    let good = events(5_000, 3);
    let cases: Vec<(Line, &str)> = vec![
        (SETUP_LINE.clone(), "only the first line"),
        (input(500, Input::Pause), "time went backwards"),
        (input(u64::MAX, Input::Pause), "out of range"),
    ];
    for (bad, why) in cases {
        // The good lines before the bad one are not stored either.
        let mut batch = good.clone();
        batch.push(bad);
        let err = store.append(id, &batch).unwrap_err();
        assert!(matches!(err, StoreError::BadLine(_)), "{why}: {err:?}");
        assert!(err.to_string().contains(why), "{why}: {err}");
        assert!(err.is_bad_request());
    }
    assert_eq!(store.game(id).unwrap().unwrap().lines.len(), 3);

    assert!(matches!(
        store.append(id + 7, &good),
        Err(StoreError::NoSuchGame(n)) if n == id + 7
    ));
    assert!(matches!(
        store.finish(id, "2-0", "pgn"),
        Err(StoreError::BadResult(_))
    ));
    store.finish(id, "0-1", "pgn").unwrap();
    assert!(matches!(
        store.append(id, &good),
        Err(StoreError::GameFinished(_))
    ));
    assert!(matches!(
        store.finish(id, "1-0", "pgn"),
        Err(StoreError::GameFinished(_))
    ));

    for setup in [
        input(0, Input::Pause),
        Line {
            t: 0,
            event: Event::End,
        },
    ] {
        let game = NewGame {
            setup: &setup,
            ..new_game(at(0))
        };
        let err = store.begin_game(&game).unwrap_err();
        assert!(matches!(err, StoreError::BadSetup(_)), "{setup:?}: {err:?}");
    }
    // A real setup line with a position goes in as written.
    let rules = Rules {
        start: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap(),
        ..Rules::default()
    };
    let setup = setup_line(&rules);
    let id = store
        .begin_game(&NewGame {
            setup: &parse_line(&setup).unwrap().unwrap(),
            ..new_game(at(0))
        })
        .unwrap();
    assert_eq!(store.game(id).unwrap().unwrap().lines, [setup]);
}

#[test]
fn a_file_that_is_not_sqlite_is_named_and_left_alone() {
    let (_dir, path) = temp_db();
    let text = "[Event \"not a database\"]\n".repeat(40);
    std::fs::write(&path, &text).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{} is not an SQLite database", path.display())
    );
    let err = Store::open_read_only(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn another_programs_database_and_a_newer_schema_are_refused() {
    let (_dir, path) = temp_db();
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch("CREATE TABLE inventory(item TEXT)")
        .unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotAGameStore { .. }), "{err:?}");
    // Untouched: no games table was added.
    let tables: i64 = raw
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'game'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);

    let (_dir2, newer) = temp_db();
    drop(Store::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    for err in [
        Store::open(&newer).unwrap_err(),
        Store::open_read_only(&newer).unwrap_err(),
    ] {
        assert!(
            matches!(err, StoreError::Schema { found: 99, expected } if expected == schema::VERSION),
            "{err:?}"
        );
    }
}

#[test]
fn read_only_opening_needs_an_existing_game_store() {
    let (dir, path) = temp_db();
    let err = Store::open_read_only(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(!path.exists(), "a read-only open creates nothing");
    let err = Store::open(&dir.path().join("missing/games.sqlite")).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(err.to_string().starts_with("cannot open "), "{err}");

    let mut store = Store::open(&path).unwrap();
    let id = store.begin_game(&new_game(at(0))).unwrap();
    store.finish(id, "1-0", "pgn").unwrap();
    drop(store);
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.finished_since(None).unwrap().len(), 1);
}

#[test]
fn a_version_1_store_is_read_as_it_is_and_migrated_by_the_daemon() {
    // Version 2 only added the table of lines set aside: a reader that
    // never migrates (export, the publisher) still reads version 1.
    let (_dir, path) = temp_db();
    let mut store = Store::open(&path).unwrap();
    let id = store.begin_game(&new_game(at(0))).unwrap();
    store.finish(id, "1-0", "pgn").unwrap();
    drop(store);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE set_aside; PRAGMA user_version = 1")
        .unwrap();
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.finished_since(None).unwrap().len(), 1);
    drop(reader);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.set_aside(id).unwrap(), []);
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);
}

#[test]
fn a_game_begun_with_its_players_has_them_as_its_second_line_and_a_bad_one_is_refused_whole() {
    let (_dir, path) = temp_db();
    let journal = Journal::spawn(Store::open(&path).unwrap());
    let players = parse_line(
        r#"{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf"}"#,
    )
    .unwrap()
    .unwrap();
    let id = journal
        .begin_game_with(new_game(at(1_000)), Some(players.clone()))
        .unwrap();
    journal.flush().unwrap();
    let stored = Store::open(&path).unwrap().game(id).unwrap().unwrap();
    assert_eq!(
        stored.lines,
        [line_to_json(&SETUP_LINE), line_to_json(&players)],
        "the setup and the players, in one commit"
    );
    // A second line the writer would refuse is refused at once, and no
    // game is begun without it.
    for bad in [
        SETUP_LINE.clone(),
        Line {
            t: SETUP_LINE.t.wrapping_sub(1),
            ..players.clone()
        },
    ] {
        assert!(matches!(
            journal.begin_game_with(new_game(at(2_000)), Some(bad)),
            Err(StoreError::BadLine(_))
        ));
    }
    journal.flush().unwrap();
    let reader = Store::open(&path).unwrap();
    assert_eq!(reader.unfinished().unwrap().map(|g| g.id), Some(id));
    journal.close().unwrap();
}

#[test]
fn the_journal_commits_everything_queued_before_flush_returns() {
    let (_dir, path) = temp_db();
    let journal = Journal::spawn(Store::open(&path).unwrap());
    let id = journal.begin_game(new_game(at(1_000))).unwrap();
    let batch = events(0, 500);
    for line in &batch {
        journal.append(id, line.clone());
    }
    journal.flush().unwrap();

    // Another connection, as after a power cut right now, sees every line.
    let reader = Store::open(&path).unwrap();
    assert_eq!(
        reader.game(id).unwrap().unwrap().lines,
        lines_of(SETUP, &batch)
    );
    assert_eq!(reader.unfinished().unwrap().map(|g| g.id), Some(id));

    journal.finish(id, "1-0".to_owned(), "the pgn".to_owned());
    assert_eq!(journal.errors(), 0);
    journal.close().unwrap();
    assert_eq!(reader.unfinished().unwrap(), None);
    assert_eq!(reader.finished_since(None).unwrap()[0].pgn, "the pgn");
}

#[test]
fn a_dropped_journal_still_stores_what_was_queued() {
    let (_dir, path) = temp_db();
    let batch = events(0, 50);
    let id = {
        let journal = Journal::spawn(Store::open(&path).unwrap());
        let id = journal.begin_game(new_game(at(0))).unwrap();
        for line in &batch {
            journal.append(id, line.clone());
        }
        id
    };
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.game(id).unwrap().unwrap().lines,
        lines_of(SETUP, &batch)
    );
}

#[test]
fn a_locked_database_is_counted_retried_and_never_blocks_the_clock() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store.set_busy_timeout(Duration::from_millis(50)).unwrap();
    let journal = Journal::spawn(store);
    let id = journal.begin_game(new_game(at(0))).unwrap();
    journal.flush().unwrap();

    // Someone holds the write lock, as `sqlite3` left open in a transaction.
    let mut other = rusqlite::Connection::open(&path).unwrap();
    let lock = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();

    let batch = events(0, 40);
    let started = Instant::now();
    for line in &batch {
        journal.append(id, line.clone());
    }
    // Queued, not written: the clock's loop is not held up by the disk.
    assert!(
        started.elapsed() < Duration::from_millis(40),
        "{:?}",
        started.elapsed()
    );

    let err = journal.flush().unwrap_err();
    assert!(
        matches!(err, StoreError::NotCommitted { pending: 40, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("locked"), "{err}");
    assert!(journal.errors() >= 1);
    assert!(!journal.saving(), "the face is told games are not saved");

    // A game begun now, while the lock is held, is queued like the rest:
    // its id at once, without waiting for the disk.
    let second = journal.begin_game(new_game(at(0))).unwrap();
    assert_eq!(second, id + 1);
    let more = events(0, 3);
    for line in &more {
        journal.append(second, line.clone());
    }
    assert!(journal.flush().is_err());

    // The lock goes; the same events are committed on the next round.
    drop(lock);
    journal.flush().unwrap();
    assert!(journal.saving());
    let errors = journal.errors();
    journal.close().unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.game(id).unwrap().unwrap().lines,
        lines_of(SETUP, &batch)
    );
    // The game begun under the lock is stored whole.
    assert_eq!(
        store.game(second).unwrap().unwrap().lines,
        lines_of(SETUP, &more)
    );
    assert!(errors >= 2, "each failed commit counted: {errors}");
}

#[test]
fn closing_on_a_commit_that_fails_at_once_retries_at_a_pace_not_in_a_spin() {
    // A full disk fails a commit at once, as a lock does with no busy
    // timeout: the wait at a stop must pause between tries, not spin the
    // processor and write a warning to the journal thousands of times.
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store.set_busy_timeout(Duration::ZERO).unwrap();
    let journal = Journal::spawn(store);
    let id = journal.begin_game(new_game(at(0))).unwrap();
    journal.flush().unwrap();
    let mut other = rusqlite::Connection::open(&path).unwrap();
    let lock = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    journal.append(id, input(100, Input::Pause));
    let mut tries = 0;
    let started = Instant::now();
    let closed = journal.close_within(Duration::from_secs(2), |_| tries += 1);
    assert!(
        matches!(closed, Err(StoreError::Lost { lost: 1, .. })),
        "{closed:?}"
    );
    assert!(started.elapsed() >= Duration::from_secs(2));
    // About one try every half second (RETRY_AFTER).
    assert!((1..=8).contains(&tries), "{tries} failed tries in 2 s");
    drop(lock);
}

#[test]
fn closing_is_clean_when_the_last_try_after_the_wait_stores_everything() {
    // The lock goes between the last failed flush and the writer's last
    // try: nothing is lost, and closing must not say it failed.
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store.set_busy_timeout(Duration::from_secs(1)).unwrap();
    let journal = Journal::spawn(store);
    let id = journal.begin_game(new_game(at(0))).unwrap();
    journal.flush().unwrap();
    let (taken, is_taken) = std::sync::mpsc::channel();
    let holder = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut other = rusqlite::Connection::open(&path).unwrap();
            let lock = other
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            taken.send(()).unwrap();
            // The flush fails after its 1 s busy timeout; the last try
            // starts then and waits up to 1 s more: the lock goes midway.
            std::thread::sleep(Duration::from_millis(1_500));
            drop(lock);
        })
    };
    is_taken.recv().unwrap();
    journal.append(id, input(100, Input::Pause));
    let closed = journal.close();
    holder.join().unwrap();
    assert!(closed.is_ok(), "{closed:?}");
    let store = Store::open(&path).unwrap();
    assert_eq!(store.game(id).unwrap().unwrap().lines.len(), 2);
}

#[test]
fn a_game_begun_while_the_database_is_locked_is_stored_once_it_is_not() {
    // The first write of all is the new game: nothing else to carry it.
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store.set_busy_timeout(Duration::from_millis(20)).unwrap();
    let journal = Journal::spawn(store);
    let mut other = rusqlite::Connection::open(&path).unwrap();
    let lock = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let id = journal.begin_game(new_game(at(0))).unwrap();
    let batch = events(100, 4);
    for line in &batch {
        journal.append(id, line.clone());
    }
    assert!(journal.flush().is_err());
    assert!(!journal.saving());
    drop(lock);
    journal.close().unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.unfinished().unwrap().unwrap().id, id);
    assert_eq!(
        store.game(id).unwrap().unwrap().lines,
        lines_of(SETUP, &batch)
    );
}

#[test]
fn the_journal_drops_only_the_bad_operation() {
    let journal = Journal::spawn(Store::open_in_memory().unwrap());
    let id = journal.begin_game(new_game(at(0))).unwrap();
    journal.append(id, input(100, Input::Pause));
    journal.append(id, SETUP_LINE.clone());
    journal.append(id + 1, input(200, Input::Pause));
    journal.finish(id, "3-0".to_owned(), "pgn".to_owned());
    journal.append(id, input(300, Input::Resume));
    journal.flush().unwrap();
    assert_eq!(journal.errors(), 3);
    let err = journal
        .begin_game(NewGame {
            setup: &input(0, Input::Pause),
            ..new_game(at(0))
        })
        .unwrap_err();
    assert!(matches!(err, StoreError::BadSetup(_)), "{err:?}");
    assert_eq!(journal.errors(), 4);
    journal.finish(id, "1-0".to_owned(), "pgn".to_owned());
    journal.flush().unwrap();
    assert_eq!(journal.errors(), 4);
    journal.close().unwrap();
}

#[test]
fn stored_lines_replay_into_the_same_pgn() {
    // The daemon's path: events into the journal, the game rebuilt from
    // the store and written as PGN by replaying it.
    let (_dir, path) = temp_db();
    let journal = Journal::spawn(Store::open(&path).unwrap());
    let rules = Rules {
        time_control: "60+1".parse().unwrap(),
        ..Rules::default()
    };
    let setup = setup_line(&rules);
    let id = journal
        .begin_game(NewGame {
            setup: &parse_line(&setup).unwrap().unwrap(),
            ..new_game(at(0))
        })
        .unwrap();
    let mut script = tocada::gesture::Script::varied(rules.start.clone(), false, 1);
    script.play_sans(["e4", "e5", "Nf3"]).unwrap();
    script.resign(Color::Black).unwrap();
    let mut lines = vec![setup];
    for &(t, input) in script.events() {
        let line = input_line(t, input);
        journal.append(id, self::input(t, input));
        lines.push(line);
    }
    journal.close().unwrap();

    let store = Store::open(&path).unwrap();
    let saved = store.game(id).unwrap().unwrap();
    assert_eq!(saved.lines, lines);
    let pgn =
        tocada::transcript::pgn_from_lines(&saved.lines, tocada::pgn::Tags::default()).unwrap();
    assert!(pgn.contains("1. e4 {[%clk "), "{pgn}");
    assert!(
        pgn.trim_end()
            .replace('\n', " ")
            .ends_with("{Black resigns} 1-0"),
        "{pgn}"
    );
}

/// The journal mode the file itself keeps, read by a plain connection.
fn file_journal_mode(path: &std::path::Path) -> String {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap()
}

#[test]
fn refused_databases_are_left_as_they_were_not_even_switched_to_wal() {
    let (_dir, other) = temp_db();
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE inventory(item TEXT)")
        .unwrap();
    let (_dir2, newer) = temp_db();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("CREATE TABLE game(id INTEGER); PRAGMA user_version = 99")
        .unwrap();
    for path in [&other, &newer] {
        let err = Store::open(path).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::NotAGameStore { .. } | StoreError::Schema { .. }
            ),
            "{err:?}"
        );
        assert_eq!(file_journal_mode(path), "delete", "{}", path.display());
    }
}

/// Makes `path` read-only for this process, if it can: by its mode, and
/// for root (who writes through any mode) by the immutable attribute.
/// Whether it worked.
fn make_read_only(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let writable = || std::fs::OpenOptions::new().append(true).open(path).is_ok();
    if writable() {
        let _ = std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .status();
    }
    !writable()
}

#[test]
fn a_read_only_database_is_refused_not_written_to_in_vain() {
    let (_dir, path) = temp_db();
    let mut store = Store::open(&path).unwrap();
    store.begin_game(&new_game(at(0))).unwrap();
    drop(store);
    if !make_read_only(&path) {
        eprintln!("cannot make a file read-only here; nothing to check");
        return;
    }
    let result = Store::open(&path);
    let _ = std::process::Command::new("chattr")
        .arg("-i")
        .arg(&path)
        .status();
    let err = result.unwrap_err();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    assert!(err.to_string().contains("read-only"), "{err}");
    // Exports still read it.
    assert!(Store::open_read_only(&path).is_ok());
}

#[test]
fn a_database_failing_its_integrity_check_is_refused() {
    let (_dir, path) = temp_db();
    let mut store = Store::open(&path).unwrap();
    let id = store.begin_game(&new_game(at(0))).unwrap();
    store.append(id, &events(100, 2_000)).unwrap();
    drop(store);
    // A card's failing sector: the middle of a page of the events' tree,
    // the file's header and first pages left intact.
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 12 * 4096, "{}", bytes.len());
    for b in &mut bytes[10 * 4096 + 16..10 * 4096 + 400] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("integrity"), "{err}");
}

#[test]
fn a_bad_stored_line_is_set_aside_with_the_rest_and_the_game_goes_on_in_fresh_rows() {
    use shakmaty::Square;
    use tocada::daemon::{Action, Session, open_games};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    let mut store = Store::open(&path).unwrap();
    let id = store.begin_game(&new_game(at(0))).unwrap();
    let good = [
        (1_000, Input::Press(Color::Black)),
        (2_000, Input::Lift(Square::E2)),
        (2_100, Input::Place(Square::E4, None)),
        (2_200, Input::Press(Color::White)),
        (3_000, Input::Lift(Square::E7)),
        (3_100, Input::Place(Square::E5, None)),
        (3_200, Input::Press(Color::Black)),
    ];
    let lines: Vec<Line> = good.iter().map(|&(t, i)| input(t, i)).collect();
    store.append(id, &lines).unwrap();
    drop(store);
    // A damaged line, then lines no replay reaches past it.
    let raw = rusqlite::Connection::open(&path).unwrap();
    for (seq, line) in [
        (8, r#"{"t":4000,"ev":"lift","sq":"g1"#.to_owned()),
        (9, input_line(4_100, Input::Place(Square::F3, None))),
    ] {
        raw.execute(
            "INSERT INTO event (game, seq, t, line) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![id, seq, 4_000, line],
        )
        .unwrap();
    }
    drop(raw);

    let mut config = tocada::config::Config::default();
    config.state.directory = dir.path().to_owned();
    let mut session = Session::new(&config);
    let (journal, restored) = open_games(&config, &mut session).unwrap();
    assert_eq!(restored, Some(id));
    let moves = std::iter::from_fn(|| session.poll_action())
        .find_map(|a| match a {
            Action::Restored(game) => Some(game.moves),
            _ => None,
        })
        .unwrap();
    assert_eq!(moves, 2, "1. e4 e5 kept");
    // The face says so, and that a press resumes.
    assert_eq!(
        session.view(0).alert.as_deref(),
        Some("Restarted, 2 lines set aside: press to resume")
    );

    // The game goes on: its next event follows the last good line, so
    // that the next restore (or the PGN) sees it, in a row never used: the
    // damaged line and the one after it are kept aside, verbatim.
    journal.append(id, input(5_000, Input::Lift(Square::G1)));
    journal.close().unwrap();
    let store = Store::open(&path).unwrap();
    let saved = store.game(id).unwrap().unwrap();
    let mut expected = lines_of(SETUP, &lines);
    expected.push(input_line(5_000, Input::Lift(Square::G1)));
    assert_eq!(saved.lines, expected);
    assert_eq!(saved.seqs, [0, 1, 2, 3, 4, 5, 6, 7, 10]);
    let aside = store.set_aside(id).unwrap();
    assert_eq!(
        aside
            .iter()
            .map(|a| (a.seq, a.line.as_str()))
            .collect::<Vec<_>>(),
        [
            (8, r#"{"t":4000,"ev":"lift","sq":"g1"#),
            (
                9,
                input_line(4_100, Input::Place(Square::F3, None)).as_str()
            )
        ]
    );
    assert!(aside[0].reason.contains("line 9"), "{}", aside[0].reason);
    let pgn = tocada::transcript::pgn_from_lines(&saved.lines, Default::default()).unwrap();
    assert!(pgn.contains("1. e4 {") && pgn.contains("} e5 {"), "{pgn}");
}

#[test]
fn a_restart_is_stored_with_how_long_the_clock_was_off_and_the_pgn_says_so() {
    use shakmaty::Square;
    use tocada::daemon::{Action, Recorded, Session, open_games};
    use tocada::transcript::{Event, Line, line_to_json};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    let mut store = Store::open(&path).unwrap();
    // Begun 10 minutes ago; its clock stored up to 3.2 s: off ever since.
    let started_at = SystemTime::now() - Duration::from_secs(600);
    let id = store.begin_game(&new_game(started_at)).unwrap();
    let good = [
        (1_000, Input::Press(Color::Black)),
        (2_000, Input::Lift(Square::E2)),
        (2_100, Input::Place(Square::E4, None)),
        (3_200, Input::Press(Color::White)),
    ];
    let lines: Vec<Line> = good.iter().map(|&(t, i)| input(t, i)).collect();
    store.append(id, &lines).unwrap();
    drop(store);

    let mut config = tocada::config::Config::default();
    config.state.directory = dir.path().to_owned();
    let mut session = Session::new(&config);
    let (journal, restored) = open_games(&config, &mut session).unwrap();
    assert_eq!(restored, Some(id));
    drop(journal);
    // What the shell stores of it: the pause the game comes back in, then
    // the restart with the time off.
    let stored: Vec<String> = std::iter::from_fn(|| session.poll_action())
        .filter_map(|a| match a {
            Action::Record { t, event } => Some(line_to_json(&Line {
                t,
                event: match event {
                    Recorded::Input(input) => Event::Input(input),
                    Recorded::Restart { off_ms } => {
                        let off = off_ms.expect("the wall clock tells");
                        assert!(
                            (595_000..=598_000).contains(&off),
                            "off for {off} ms of 600 s less 3.2 s of game"
                        );
                        Event::Restart { off_ms }
                    }
                    other => panic!("{other:?}"),
                },
            })),
            _ => None,
        })
        .collect();
    assert_eq!(stored.len(), 2, "{stored:?}");
    assert!(stored[0].contains(r#""ev":"pause""#), "{stored:?}");
    assert!(
        stored[1].starts_with(r#"{"t":3200,"ev":"restart","ms":59"#),
        "{stored:?}"
    );
    let mut all = vec![SETUP.to_owned()];
    all.extend(lines.iter().map(line_to_json));
    all.extend(stored);
    let pgn = tocada::transcript::pgn_from_lines(&all, Default::default()).unwrap();
    let pgn = pgn.replace('\n', " ");
    assert!(
        pgn.contains("{Power cut: the clock was off for 9:5"),
        "{pgn}"
    );
    assert!(!pgn.contains("Clock paused"), "{pgn}");
}
