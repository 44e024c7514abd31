//! The whole chain of issue 14 § 3, every part the real one: clocks that
//! are real daemons (`tocada run` on the device models) play real games
//! (tests/data) into their stores, each clock's real `tocada-publish`
//! follows its store and publishes to a real Mosquitto (a password per
//! clock, the hall's ACL), and the real `tocada-hall` subscribes. The
//! broker is stopped and restarted once mid-game. At the end the hall must
//! have every event of every game, once: each game's PGN from the hall is
//! the one the clock's own store exports (moves, `[%clk]`, offers and
//! rulings), and the hall counted exactly the events the stores hold.

mod support {
    pub mod cli;
    pub mod daemon;
    pub mod hall_process;
    pub mod http;
    pub mod mosquitto;
    pub mod parsed;
    pub mod pgn;
}

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use std::{fs, thread};

use shakmaty::Position;
use tocada::Input;
use tocada::gesture::Script;
use tocada::store::{DB_FILE, Store};
use tocada::transcript::input_to_json;

use support::cli::program;
use support::daemon::run_daemon;
use support::hall_process::{HallProcess, eventually, write_hall_config};
use support::http::{form_encode, get, log_in, post};
use support::mosquitto::{Mosquitto, mosquitto_program};
use support::pgn::reference_games;

const HALL: &str = "open";
const ARBITER_PASSWORD: &str = "correct horse";
/// A player's thinking time, at most: the games are played fast.
const THINKING_MS: u64 = 150;

/// SIGTERM, as systemd stops a unit; then wait for it (or kill it).
fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The first `plies` moves of reference game `index`, as hands play them
/// on a sensor board; then the side to move moves and offers a draw before
/// pressing (9.1.2), the other declines by touching a piece and moving it
/// (9.1.2.1, a ruling in the PGN), and the offerer resigns.
fn opening_script(index: usize, plies: usize, seed: u64) -> String {
    let game = &reference_games()[index];
    let mut script = Script::varied(game.start(), false, seed);
    script.play_sans(&game.sans[..plies]).unwrap();
    let offerer = script.position().turn();
    script.play_san(&game.sans[plies]).unwrap();
    // Offered between the move and the press that completes it.
    let press = script.events().len() - 1;
    script.play_san(&game.sans[plies + 1]).unwrap();
    let mut events = script.into_events();
    events.insert(press, (events[press].0, Input::Draw(offerer)));
    events.push((events[events.len() - 1].0, Input::Resign(offerer)));
    timed(&events)
}

/// The shortest reference game whole, to its end (a mate).
fn shortest_game_script(seed: u64) -> String {
    let games = reference_games();
    let game = games.iter().min_by_key(|game| game.sans.len()).unwrap();
    timed(
        game.play_into(Script::varied(game.start(), false, seed))
            .events(),
    )
}

/// `events` as a script for the simulated board, the players' thinking
/// cut to [`THINKING_MS`] and their hands' gestures kept as they are: a
/// fast game, played for real on the daemon's own clock.
fn timed(events: &[(u64, Input)]) -> String {
    let mut t = 0;
    let mut before = events.first().map_or(0, |e| e.0);
    events
        .iter()
        .map(|&(at, input)| {
            let gap = at.saturating_sub(before);
            before = at;
            t += if gap > THINKING_MS { THINKING_MS } else { gap };
            input_to_json(t, &input) + "\n"
        })
        .collect()
}

/// One clock: the daemon's configuration and store, its publisher.
struct Clock {
    board: u32,
    dir: tempfile::TempDir,
    publisher: Child,
}

impl Clock {
    /// A clock with the simulated board, publishing as `board` under its
    /// own user; its publisher is started at once, before any game.
    fn start(broker: &Mosquitto, board: u32) -> Clock {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("state")).unwrap();
        fs::create_dir(dir.path().join("publisher")).unwrap();
        let credentials = dir.path().join("credentials");
        fs::write(&credentials, format!("clock-{board}:pw-{board}\n")).unwrap();
        let config = format!(
            "[board]\nkind = \"sim\"\nstdin = \"script\"\n\n\
             [publish]\nbroker = \"{}\"\nhall = \"{HALL}\"\nboard = {board}\n\
             credentials = \"{}\"\npairing_file = \"{}\"\n",
            broker.url(),
            credentials.display(),
            dir.path().join("pairing.json").display()
        );
        fs::write(dir.path().join("tocada.toml"), config).unwrap();
        let publisher = program(env!("CARGO_BIN_EXE_tocada-publish"))
            .arg("--config")
            .arg(dir.path().join("tocada.toml"))
            .arg("--store")
            .arg(dir.path().join("state").join(DB_FILE))
            .arg("--state")
            .arg(dir.path().join("publisher"))
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(dir.path().join("publisher.log")).unwrap())
            .spawn()
            .expect("tocada-publish starts");
        Clock {
            board,
            dir,
            publisher,
        }
    }

    fn store(&self) -> PathBuf {
        self.dir.path().join("state").join(DB_FILE)
    }

    /// Where its publisher writes the hall's pairing for its daemon.
    fn pairing_file(&self) -> PathBuf {
        self.dir.path().join("pairing.json")
    }

    fn publisher_log(&self) -> String {
        fs::read_to_string(self.dir.path().join("publisher.log")).unwrap_or_default()
    }

    /// Plays `script` on a daemon to its result, then stops the daemon;
    /// `during` is called once, `at` into the game.
    fn play(&self, script: &str, at: Duration, during: impl FnOnce()) {
        let (mut daemon, rx) = run_daemon(
            &self.dir.path().join("tocada.toml"),
            &self.dir.path().join("state"),
            script,
        );
        let start = Instant::now();
        let mut during = Some(during);
        let mut printed = Vec::new();
        while !printed
            .iter()
            .any(|line: &String| line.contains(r#""effect":"result""#))
        {
            if start.elapsed() >= at
                && let Some(act) = during.take()
            {
                act();
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "board {}: no result: {printed:?}",
                self.board
            );
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(50)) {
                printed.push(line);
            }
        }
        if let Some(act) = during {
            act();
        }
        stop(&mut daemon);
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        let _ = self.publisher.kill();
        let _ = self.publisher.wait();
    }
}

/// Starts `tocada-hall run` with its own user on `broker`, and waits
/// until it listens and has subscribed.
fn start_hall(broker: &Mosquitto, dir: &Path) -> HallProcess {
    let hash = tocada::hall::hash_password(ARBITER_PASSWORD).unwrap();
    let path = write_hall_config(dir, HALL, &broker.url(), &hash, true, "End to end", "");
    HallProcess::start(&path, Duration::from_secs(30))
}

/// A hall started on a broker of boards 1 and 2, its configuration in a
/// directory of its own, and that configuration's path; `None`, said,
/// where mosquitto is not installed.
fn hall_of_two_boards() -> Option<(Mosquitto, tempfile::TempDir, HallProcess, String)> {
    if mosquitto_program().is_none() {
        eprintln!("mosquitto is not installed (apt-get install mosquitto): test skipped");
        return None;
    }
    let broker = Mosquitto::for_hall(HALL, &[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&broker, dir.path());
    let config = dir.path().join("hall.toml").to_str().unwrap().to_owned();
    Some((broker, dir, hall, config))
}

/// The arbiter's view of the boards, logged in.
fn arbiter_view(hall: &HallProcess) -> serde_json::Value {
    let response = log_in(hall.addr, "ana", ARBITER_PASSWORD);
    assert_eq!(response.status, 303, "{response:?}");
    let cookie = response.cookie("tocada_hall").unwrap();
    serde_json::from_str(&get(hall.addr, "/arbiter/boards", Some(&cookie)).body).unwrap()
}

/// The movetext of a PGN: what follows the tag pairs.
fn movetext(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or("", |(_, moves)| moves).trim()
}

/// A tag's value in a PGN.
fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    pgn.lines()
        .find_map(|line| line.strip_prefix(&format!("[{name} \"")))
        .and_then(|rest| rest.strip_suffix("\"]"))
}

#[test]
fn the_hall_has_every_event_of_every_game_the_clocks_played_through_a_broker_restart() {
    if mosquitto_program().is_none() {
        eprintln!("mosquitto is not installed (apt-get install mosquitto): test skipped");
        return;
    }
    let boards = [1u32, 2, 3];
    let mut broker = Mosquitto::for_hall(HALL, &boards);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&broker, dir.path());
    let clocks: Vec<Clock> = boards.iter().map(|&b| Clock::start(&broker, b)).collect();

    // All three play at once; 1.5 s into board 1's game the broker stops,
    // for 2 s, while every game goes on.
    let started = Instant::now();
    thread::scope(|scope| {
        scope.spawn(|| clocks[1].play(&shortest_game_script(5), Duration::ZERO, || {}));
        scope.spawn(|| clocks[2].play(&opening_script(2, 14, 6), Duration::ZERO, || {}));
        clocks[0].play(
            &opening_script(0, 16, 4),
            Duration::from_millis(1500),
            || {
                broker.stop();
                thread::sleep(Duration::from_secs(2));
                broker.restart();
            },
        );
    });
    // A second game on board 2, the daemon restarted on the same store.
    clocks[1].play(&opening_script(0, 8, 7), Duration::ZERO, || {});

    let mut stored_events = 0;
    let mut games = 0;
    let (mut offers, mut declines) = (0, 0);
    for clock in &clocks {
        let store = Store::open_read_only(&clock.store()).unwrap();
        let finished = store.finished_since(None).unwrap();
        stored_events += store.events_from(i64::MIN, 0, usize::MAX).unwrap().len();
        assert!(!finished.is_empty(), "board {}", clock.board);
        for game in finished {
            games += 1;
            let path = format!("/pgn/{}/{}", clock.board, game.id);
            let stored = game.pgn;
            // The whole game, as the clock's own export has it.
            let arrived = eventually(Duration::from_secs(60), || {
                let pgn = get(hall.addr, &path, None).body;
                movetext(&pgn) == movetext(&stored)
            });
            let from_hall = get(hall.addr, &path, None).body;
            assert!(
                arrived,
                "board {} game {}: the hall's PGN is not the store's:\n{from_hall}\n\
                 the store's:\n{stored}\nhall log:\n{}\npublisher log:\n{}",
                clock.board,
                game.id,
                hall.log(),
                clock.publisher_log()
            );
            assert_eq!(tag(&from_hall, "Result"), Some(game.result.as_str()));
            assert_eq!(tag(&stored, "Result"), Some(game.result.as_str()));
            let moves = stored.matches("[%clk ").count();
            assert!(moves >= 10, "{stored}");
            // PGN wraps its lines, comments too.
            let words = stored.split_whitespace().collect::<Vec<_>>().join(" ");
            offers += words.matches("offers a draw").count();
            declines += words
                .matches("declines by touching a piece (art. 9.1.2.1)")
                .count();
            assert_eq!(tag(&from_hall, "Event"), Some("End to end"));
        }
    }
    assert_eq!(games, 4);
    // Every game but the one that ends in mate has its offer and its
    // ruling.
    assert_eq!((offers, declines), (3, 3));

    // Nothing twice: the hall counted exactly the events the stores hold
    // (the resends after the restart are counted apart as duplicates).
    let view = arbiter_view(&hall);
    assert_eq!(
        view["counters"]["events"],
        stored_events as u64,
        "{view}\n{}",
        hall.log()
    );
    for (clock, board) in clocks.iter().zip(view["boards"].as_array().unwrap()) {
        assert!(board["result"].is_string(), "{board}");
        assert_eq!(board["board"], clock.board, "{board}");
    }
    // The round: the last game of each board, once each.
    let round = get(hall.addr, "/pgn/round", None).body;
    assert_eq!(
        round.matches("[Event \"End to end\"]").count(),
        3,
        "{round}"
    );
    // Board 1's publisher lost the broker and found it again.
    let log = clocks[0].publisher_log();
    assert!(log.contains("broker unreachable"), "{log}");
    assert!(log.contains("connected to the broker again"), "{log}");
    for clock in &clocks {
        assert!(!clock.publisher_log().contains("panicked"));
    }
    assert!(!hall.log().contains("panicked"), "{}", hall.log());
    eprintln!(
        "{games} games, {stored_events} events, end to end in {:?}",
        started.elapsed()
    );
}

/// Publishes `count` events of game 1 on board `board`'s topic with its
/// clock's password, as fast as the broker takes them, and waits until it
/// took them all: a clock that floods.
fn flood(broker: &Mosquitto, board: u32, first: usize, count: usize) {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let mut options = MqttOptions::new(format!("flood-{board}"), "127.0.0.1", broker.port());
    options.set_credentials(format!("clock-{board}"), format!("pw-{board}"));
    options.set_inflight(100);
    let (client, mut connection) = Client::new(options, count + 10);
    let topic = tocada::broadcast::BoardAddress::new(HALL, board)
        .unwrap()
        .events_topic();
    for seq in first..first + count {
        let payload =
            format!(r#"{{"game":1,"seq":{seq},"t":0,"line":{{"t":0,"ev":"pause"}},"effects":[]}}"#);
        client
            .publish(topic.clone(), QoS::AtLeastOnce, false, payload)
            .unwrap();
    }
    let mut acked = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    for event in connection.iter() {
        if let Ok(Event::Incoming(Packet::PubAck(_))) = event {
            acked += 1;
        }
        if acked == count || Instant::now() > deadline {
            break;
        }
    }
    assert_eq!(acked, count, "the broker took the flood");
    let _ = client.disconnect();
}

#[test]
fn a_flooding_clock_loses_only_its_own_events_across_a_hall_restart() {
    if mosquitto_program().is_none() {
        eprintln!("mosquitto is not installed (apt-get install mosquitto): test skipped");
        return;
    }
    // The shipped configuration, its queue per client cut from 100 000 to
    // 300 so that a flood of a few thousand overflows it in seconds.
    let broker = Mosquitto::for_hall_shipped_with(HALL, &[1, 2], &["max_queued_messages 300"]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&broker, dir.path());
    let clock = Clock::start(&broker, 2);
    hall.stop();
    // While the hall is away, board 1 floods its queue at the broker full,
    // then board 2 plays a whole game, and board 1 floods on: the broker
    // drops board 2's events after telling its publisher it took them.
    flood(&broker, 1, 0, 2000);
    clock.play(&shortest_game_script(8), Duration::ZERO, || {});
    flood(&broker, 1, 2000, 2000);
    let hall = start_hall(&broker, dir.path());
    let store = Store::open_read_only(&clock.store()).unwrap();
    let finished = store.finished_since(None).unwrap();
    assert_eq!(finished.len(), 1);
    for game in finished {
        let path = format!("/pgn/2/{}", game.id);
        let arrived = eventually(Duration::from_secs(60), || {
            movetext(&get(hall.addr, &path, None).body) == movetext(&game.pgn)
        });
        assert!(
            arrived,
            "board 2's game is not the store's:\n{}\nhall log:\n{}\npublisher log:\n{}",
            get(hall.addr, &path, None).body,
            hall.log(),
            clock.publisher_log()
        );
    }
    let log = hall.log();
    assert!(
        log.contains("asking the clock to send its events again"),
        "{log}"
    );
    assert!(
        clock.publisher_log().contains("the hall lacks events"),
        "{}",
        clock.publisher_log()
    );
}

/// Runs `tocada-hall ARGS…` to its end: its exit code, stdout, stderr.
fn hall_command(args: &[&str]) -> (i32, String, String) {
    let out = program(env!("CARGO_BIN_EXE_tocada-hall"))
        .args(args)
        .output()
        .expect("tocada-hall runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A PGN result token as TRF's result characters, White's and Black's.
fn trf_results(result: &str) -> (char, char) {
    match result {
        "1-0" => ('1', '0'),
        "0-1" => ('0', '1'),
        _ => ('=', '='),
    }
}

/// Player `rank`'s round-1 columns (92–99) in a TRF's text.
fn round1_columns(trf: &str, rank: u16) -> String {
    let line = trf
        .lines()
        .find(|l| l.starts_with(&format!("001 {rank:>4}")))
        .unwrap_or_else(|| panic!("no player {rank}:\n{trf}"));
    line.chars().skip(91).take(8).collect()
}

#[test]
fn a_round_imported_from_a_trf_while_the_hall_runs_comes_back_with_its_results() {
    let Some((broker, dir, hall, config)) = hall_of_two_boards() else {
        return;
    };
    let config = config.as_str();
    let trf = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/round1.trf");

    // A file that is not a round's pairings: refused at its line and column.
    let bad = dir.path().join("bad.csv");
    fs::write(&bad, "board,white,black,white_rating\n1,A,B,12x\n").unwrap();
    let (code, _, err) = hall_command(&[
        "pairings",
        "--config",
        config,
        "--round",
        "1",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 65, "{err}");
    assert!(err.contains("line 2, column 4"), "{err}");
    let (code, _, err) = hall_command(&[
        "pairings",
        "--config",
        config,
        "--round",
        "1",
        "/nonexistent.trf",
    ]);
    assert_eq!(code, 66, "{err}");

    // Round 1 imported while the hall runs: no restart.
    let (code, out, err) = hall_command(&["pairings", "--config", config, "--round", "1", trf]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("round 1: 3 board(s) imported"), "{out}");
    let named = eventually(Duration::from_secs(10), || {
        let view = arbiter_view(&hall);
        view["boards"][0]["white"] == "Morphy, Paul"
            && view["boards"][1]["black"] == "Harrwitz, Daniel"
    });
    assert!(named, "{}\n{}", arbiter_view(&hall), hall.log());

    // Boards 1 and 2 play their games; board 3 does not start.
    let clocks: Vec<Clock> = [1, 2].iter().map(|&b| Clock::start(&broker, b)).collect();
    thread::scope(|scope| {
        scope.spawn(|| clocks[1].play(&opening_script(1, 10, 3), Duration::ZERO, || {}));
        clocks[0].play(&shortest_game_script(2), Duration::ZERO, || {});
    });
    let mut results = Vec::new();
    for clock in &clocks {
        let store = Store::open_read_only(&clock.store()).unwrap();
        let game = store.finished_since(None).unwrap().pop().unwrap();
        let path = format!("/pgn/{}/{}", clock.board, game.id);
        assert!(
            eventually(Duration::from_secs(60), || {
                tag(&get(hall.addr, &path, None).body, "Result") == Some(game.result.as_str())
            }),
            "board {}: {}\n{}",
            clock.board,
            get(hall.addr, &path, None).body,
            hall.log()
        );
        results.push(game.result);
    }

    // Results out, by command: the CSV…
    let (code, csv, err) = hall_command(&[
        "results", "--config", config, "--round", "1", "--format", "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        csv,
        format!(
            "board,white,black,result\n\
             1,\"Morphy, Paul\",\"Anderssen, Adolf\",{}\n\
             2,\"Staunton, Howard\",\"Harrwitz, Daniel\",{}\n\
             3,\"Paulsen, Louis\",\"Lowenthal, Johann\",*\n",
            results[0], results[1]
        )
    );
    // …the TRF, each player's round-1 result in column 99…
    let (code, out, err) = hall_command(&[
        "results", "--config", config, "--round", "1", "--format", "trf",
    ]);
    assert_eq!(code, 0, "{err}");
    let (w1, b1) = trf_results(&results[0]);
    let (w2, b2) = trf_results(&results[1]);
    assert_eq!(round1_columns(&out, 1), format!("   4 w {w1}"), "{out}");
    assert_eq!(round1_columns(&out, 4), format!("   1 b {b1}"), "{out}");
    assert_eq!(round1_columns(&out, 2), format!("   3 w {w2}"), "{out}");
    assert_eq!(round1_columns(&out, 3), format!("   2 b {b2}"), "{out}");
    assert_eq!(round1_columns(&out, 6).trim_end(), "   5 w", "{out}");
    assert!(out.contains("0000 - U"), "{out}");
    // …and the round's PGN, the imported names in it.
    let (code, pgn, _) = hall_command(&[
        "results", "--config", config, "--round", "1", "--format", "pgn",
    ]);
    assert_eq!(code, 0);
    assert_eq!(pgn.matches("[Round \"1\"]").count(), 2, "{pgn}");
    assert!(pgn.contains("[White \"Morphy, Paul\"]"), "{pgn}");

    // The same from the arbiter's pages, logged in only.
    let response = log_in(hall.addr, "ana", ARBITER_PASSWORD);
    let cookie = response.cookie("tocada_hall").unwrap();
    assert_eq!(get(hall.addr, "/round/1/results.csv", None).status, 401);
    assert_eq!(
        get(hall.addr, "/round/1/results.csv", Some(&cookie)).body,
        csv
    );
    assert_eq!(
        get(hall.addr, "/round/1/results.trf", Some(&cookie)).body,
        out
    );
    assert_eq!(get(hall.addr, "/round/1.pgn", Some(&cookie)).body, pgn);

    // Round 2 from the page's form: the CSRF token required.
    let page = get(hall.addr, "/rounds", Some(&cookie)).body;
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let form = |csrf: &str| {
        format!(
            "csrf={}&round=2&pairings={}",
            form_encode(csrf),
            form_encode("board,white,black\n1,\"Harrwitz, Daniel\",\"Morphy, Paul\"\n")
        )
    };
    assert_eq!(
        post(hall.addr, "/rounds", Some(&cookie), &form("forged")).status,
        403
    );
    let imported = post(hall.addr, "/rounds", Some(&cookie), &form(&csrf));
    assert_eq!(imported.status, 200, "{imported:?}");
    assert!(
        imported.body.contains("Round 2: 1 board(s) imported."),
        "{}",
        imported.body
    );
    let (code, listed, _) = hall_command(&["rounds", "--config", config]);
    assert_eq!(code, 0);
    assert_eq!(
        listed,
        "round 1: 3 board(s), trf\nround 2: 1 board(s), csv, played now\n"
    );
    // Board 1's finished round-1 game keeps its facts.
    let view = arbiter_view(&hall);
    assert_eq!(view["boards"][0]["white"], "Morphy, Paul", "{view}");
    assert_eq!(
        hall_command(&[
            "results", "--config", config, "--round", "1", "--format", "csv"
        ])
        .1,
        csv
    );
    assert!(!hall.log().contains("panicked"), "{}", hall.log());
}

#[test]
fn the_clock_knows_who_plays_from_the_halls_pairing_through_its_publisher() {
    let Some((broker, _dir, hall, config)) = hall_of_two_boards() else {
        return;
    };
    let config = config.as_str();
    let clock = Clock::start(&broker, 1);

    // Round 1 imported while the hall runs: the hall publishes board 1's
    // pairing, the publisher writes it for the daemon.
    let trf = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/round1.trf");
    let (code, _, err) = hall_command(&["pairings", "--config", config, "--round", "1", trf]);
    assert_eq!(code, 0, "{err}");
    let written = eventually(Duration::from_secs(20), || {
        fs::read_to_string(clock.pairing_file()).is_ok_and(|text| text.contains("Morphy, Paul"))
    });
    assert!(written, "{}\n{}", clock.publisher_log(), hall.log());
    let text = fs::read(clock.pairing_file()).unwrap();
    let pairing = tocada::broadcast::BoardPairing::parse(&text, 1)
        .unwrap()
        .unwrap();
    assert_eq!(pairing.round, "1");
    assert_eq!(pairing.black.name, "Anderssen, Adolf");
    assert_eq!(pairing.white.rating, Some(2690));
    assert_eq!(pairing.white.fide_id, Some(1503014));

    // The game the daemon plays under it carries the players.
    clock.play(&shortest_game_script(5), Duration::ZERO, || {});
    let store = Store::open_read_only(&clock.store()).unwrap();
    let game = store.finished_since(None).unwrap().pop().unwrap();
    assert_eq!(
        tag(&game.pgn, "White"),
        Some("Morphy, Paul"),
        "{}",
        game.pgn
    );
    assert_eq!(tag(&game.pgn, "Black"), Some("Anderssen, Adolf"));
    assert_eq!(tag(&game.pgn, "Round"), Some("1"));
    assert_eq!(tag(&game.pgn, "Board"), Some("1"));
    assert_eq!(tag(&game.pgn, "WhiteElo"), Some("2690"));
    assert_eq!(tag(&game.pgn, "WhiteFideId"), Some("1503014"));

    // A pairing the clock cannot read on the board's topic (too large: a
    // hall older than the cut, or forged): refused by the publisher, and
    // the file emptied, never left with what may be another round's.
    let forged = format!(
        r#"{{"board":1,"white":{{"name":"{}"}},"black":{{"name":"B"}}}}"#,
        "x".repeat(3_000)
    );
    let mut options = rumqttc::v5::MqttOptions::new("forger", "127.0.0.1", broker.port());
    options.set_credentials("hall", "pw-hall");
    let (client, mut connection) = rumqttc::v5::Client::new(options, 10);
    client
        .publish(
            format!("tocada/{HALL}/1/pairing"),
            rumqttc::v5::mqttbytes::QoS::AtLeastOnce,
            true,
            forged.into_bytes(),
        )
        .unwrap();
    let mut acked = false;
    for event in connection.iter().take(20) {
        if let Ok(rumqttc::v5::Event::Incoming(rumqttc::v5::mqttbytes::v5::Packet::PubAck(_))) =
            event
        {
            acked = true;
            break;
        }
    }
    assert!(acked, "the forged pairing reached the broker");
    let refused = eventually(Duration::from_secs(10), || {
        clock.publisher_log().contains("the hall's pairing refused")
    });
    assert!(refused, "{}", clock.publisher_log());
    let emptied = eventually(Duration::from_secs(10), || {
        fs::read(clock.pairing_file())
            .is_ok_and(|text| matches!(tocada::broadcast::BoardPairing::parse(&text, 1), Ok(None)))
    });
    assert!(emptied, "{}", clock.publisher_log());
}

#[test]
fn a_restarted_hall_clears_the_pairing_a_board_kept_from_the_last_round() {
    if mosquitto_program().is_none() {
        eprintln!("mosquitto is not installed (apt-get install mosquitto): test skipped");
        return;
    }
    use rumqttc::v5::mqttbytes::QoS;
    use rumqttc::v5::mqttbytes::v5::Packet;
    let broker = Mosquitto::for_hall(HALL, &[1, 2]);
    // Board 9 played the last round, before the hall restarted: its
    // pairing is retained on the broker.
    let mut options = rumqttc::v5::MqttOptions::new("last-round", "127.0.0.1", broker.port());
    options.set_credentials("hall", "pw-hall");
    let (client, mut connection) = rumqttc::v5::Client::new(options, 10);
    let last_round =
        br#"{"round":"3","board":9,"white":{"name":"Old, White"},"black":{"name":"Old, Black"}}"#;
    client
        .publish(
            format!("tocada/{HALL}/9/pairing"),
            QoS::AtLeastOnce,
            true,
            last_round.to_vec(),
        )
        .unwrap();
    client
        .subscribe(format!("tocada/{HALL}/9/pairing"), QoS::AtLeastOnce)
        .unwrap();
    let (sender, received) = std::sync::mpsc::channel();
    thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(rumqttc::v5::Event::Incoming(Packet::Publish(publish))) => {
                    if sender.send(publish.payload.to_vec()).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => thread::sleep(Duration::from_millis(100)),
            }
        }
    });
    let first = received.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(first, last_round.to_vec());

    // The hall starts, and this round has boards 1 to 3 only.
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&broker, dir.path());
    let config = dir.path().join("hall.toml");
    let trf = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/round1.trf");
    let (code, _, err) = hall_command(&[
        "pairings",
        "--config",
        config.to_str().unwrap(),
        "--round",
        "1",
        trf,
    ]);
    assert_eq!(code, 0, "{err}");
    // Board 9's pairing is cleared: nobody plays there this round.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut cleared = false;
    while !cleared && Instant::now() < deadline {
        if let Ok(payload) = received.recv_timeout(Duration::from_millis(200)) {
            cleared = payload.is_empty();
        }
    }
    assert!(cleared, "{}", hall.log());
    drop(client);
}
