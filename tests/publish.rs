//! `tocada-publish` end to end (issue 14 § 1 and § 3): real daemons
//! (`tocada run` on the device models) write their game stores, the real
//! publisher follows each store and publishes to a real Mosquitto on a
//! loopback port with a password per clock and the hall's ACL, and a
//! subscriber with the hall's user checks that every stored event of every
//! game arrived, in order, with the effects the daemon itself produced.
//! Duplicates are allowed (QoS 1, resends): they are dropped by
//! `(game, seq)`, as the hall does.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::Packet;
use rumqttc::v5::{Client, Event, MqttOptions};
use tocada::broadcast::{BoardAddress, BoardState, EventMessage, Topic};
use tocada::publish::{Mark, PROGRESS_FILE, Progress};
use tocada::store::{DB_FILE, Store};

mod support {
    pub mod cli;
    pub mod daemon;
    pub mod mosquitto;
}
use support::daemon::run_daemon;
use support::mosquitto::{Mosquitto, clock_acl};

const HALL: &str = "open";
const HALL_USER: (&str, &str) = ("hall", "hall-pw");

/// White's and Black's first moves of a Ruy Lopez, a line every 250 ms,
/// then Black resigns.
const RUY_LOPEZ: &[&str] = &[
    r#"{"t":0,"ev":"press","side":"black"}"#,
    r#"{"t":250,"ev":"lift","sq":"e2"}"#,
    r#"{"t":500,"ev":"place","sq":"e4"}"#,
    r#"{"t":750,"ev":"press","side":"white"}"#,
    r#"{"t":1000,"ev":"lift","sq":"e7"}"#,
    r#"{"t":1250,"ev":"place","sq":"e5"}"#,
    r#"{"t":1500,"ev":"press","side":"black"}"#,
    r#"{"t":1750,"ev":"lift","sq":"g1"}"#,
    r#"{"t":2000,"ev":"place","sq":"f3"}"#,
    r#"{"t":2250,"ev":"press","side":"white"}"#,
    r#"{"t":2500,"ev":"lift","sq":"b8"}"#,
    r#"{"t":2750,"ev":"place","sq":"c6"}"#,
    r#"{"t":3000,"ev":"press","side":"black"}"#,
    r#"{"t":3250,"ev":"lift","sq":"f1"}"#,
    r#"{"t":3500,"ev":"place","sq":"b5"}"#,
    r#"{"t":3750,"ev":"press","side":"white"}"#,
    r#"{"t":4000,"ev":"lift","sq":"a7"}"#,
    r#"{"t":4250,"ev":"place","sq":"a6"}"#,
    r#"{"t":4500,"ev":"press","side":"black"}"#,
    r#"{"t":5000,"ev":"resign","side":"black"}"#,
];

/// A Queen's Gambit declined, faster, then White resigns.
const QUEENS_GAMBIT: &[&str] = &[
    r#"{"t":0,"ev":"press","side":"black"}"#,
    r#"{"t":200,"ev":"lift","sq":"d2"}"#,
    r#"{"t":400,"ev":"place","sq":"d4"}"#,
    r#"{"t":600,"ev":"press","side":"white"}"#,
    r#"{"t":800,"ev":"lift","sq":"d7"}"#,
    r#"{"t":1000,"ev":"place","sq":"d5"}"#,
    r#"{"t":1200,"ev":"press","side":"black"}"#,
    r#"{"t":1400,"ev":"lift","sq":"c2"}"#,
    r#"{"t":1600,"ev":"place","sq":"c4"}"#,
    r#"{"t":1800,"ev":"press","side":"white"}"#,
    r#"{"t":2000,"ev":"lift","sq":"e7"}"#,
    r#"{"t":2200,"ev":"place","sq":"e6"}"#,
    r#"{"t":2400,"ev":"press","side":"black"}"#,
    r#"{"t":2800,"ev":"resign","side":"white"}"#,
];

fn script(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// One clock of the hall: its configuration, the daemon's state directory
/// (the store), the publisher's own, and what its daemon printed.
struct Clock {
    board: u32,
    dir: tempfile::TempDir,
    /// The effect lines each daemon run printed, a run per game.
    games: Vec<Vec<String>>,
}

impl Clock {
    /// A clock with the simulated board, publishing as `board` with `user`'s
    /// credentials to `broker`.
    fn new(broker: &Mosquitto, board: u32, user: (&str, &str)) -> Clock {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("state")).unwrap();
        fs::create_dir(dir.path().join("publisher")).unwrap();
        let credentials = dir.path().join("credentials");
        fs::write(&credentials, format!("{}:{}\n", user.0, user.1)).unwrap();
        let config = format!(
            "[board]\nkind = \"sim\"\nstdin = \"script\"\n\n\
             [publish]\nbroker = \"{}\"\nhall = \"{HALL}\"\nboard = {board}\n\
             credentials = \"{}\"\n",
            broker.url(),
            credentials.display()
        );
        fs::write(dir.path().join("tocada.toml"), config).unwrap();
        Clock {
            board,
            dir,
            games: Vec::new(),
        }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("tocada.toml")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn store(&self) -> PathBuf {
        self.state().join(DB_FILE)
    }

    fn progress(&self) -> PathBuf {
        self.dir.path().join("publisher").join(PROGRESS_FILE)
    }

    /// Starts its publisher, its log in the clock's directory.
    fn publisher(&self) -> Publisher {
        start_publisher(self.dir.path())
    }

    /// Plays `lines` on its daemon to the result, then stops it; `during`
    /// is called once, `at` into the game.
    fn play(&mut self, lines: &[&str], at: Duration, during: impl FnOnce()) {
        self.play_with(lines, vec![(at, Box::new(during))]);
    }

    /// Plays `lines` on its daemon to the result, then stops it; each of
    /// `during` is called once, at its instant into the game (or at the
    /// end, if the game ends first), in order.
    fn play_with(&mut self, lines: &[&str], during: Vec<(Duration, Box<dyn FnOnce() + '_>)>) {
        let (mut daemon, rx) = run_daemon(&self.config(), &self.state(), &script(lines));
        let start = Instant::now();
        let deadline = start + Duration::from_secs(60);
        let mut during = std::collections::VecDeque::from(during);
        let mut effects = Vec::new();
        while !effects
            .iter()
            .any(|line: &String| line.contains(r#""effect":"result""#))
        {
            while during.front().is_some_and(|(at, _)| start.elapsed() >= *at) {
                let (_, act) = during.pop_front().unwrap();
                act();
            }
            assert!(Instant::now() < deadline, "no result: {effects:?}");
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(50)) {
                effects.push(line);
            }
        }
        for (_, act) in during {
            act();
        }
        stop(&mut daemon);
        self.games.push(effects);
    }
}

/// Starts the publisher of the clock in `dir` (its configuration, store
/// and state directory as [`Clock`] lays them out), its log there.
fn start_publisher(dir: &Path) -> Publisher {
    let log = dir.join("publisher.log");
    let mut command = publish_command();
    command
        .arg("--config")
        .arg(dir.join("tocada.toml"))
        .arg("--store")
        .arg(dir.join("state").join(DB_FILE))
        .arg("--state")
        .arg(dir.join("publisher"))
        .env("RUST_LOG", "info");
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .unwrap(),
        )
        .spawn()
        .expect("tocada-publish starts");
    Publisher { child, log }
}

/// The publisher's binary, through `TOCADA_TEST_RUNNER` when one is set
/// (qemu, for the aarch64 run of CI).
fn publish_command() -> Command {
    support::cli::program(env!("CARGO_BIN_EXE_tocada-publish"))
}

/// SIGTERM, as systemd stops a unit, and the exit status.
fn stop(child: &mut Child) -> std::process::ExitStatus {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    child.wait().unwrap()
}

struct Publisher {
    child: Child,
    log: PathBuf,
}

impl Publisher {
    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stops it with SIGTERM; it must exit 0 and never have panicked.
    fn stop(mut self) -> String {
        let status = stop(&mut self.child);
        let log = self.log();
        assert!(status.success(), "{status}: {log}");
        assert!(!log.contains("panicked"), "{log}");
        log
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A message the hall's subscriber received.
#[derive(Debug, Clone)]
struct Received {
    topic: String,
    payload: Vec<u8>,
    retain: bool,
}

/// The hall's side: a persistent MQTT session under the hall's user,
/// subscribed to the whole hall, collecting every message.
struct Hall {
    received: Arc<Mutex<Vec<Received>>>,
    client: Client,
    /// Set when dropped: the subscriber's thread ends.
    done: Arc<AtomicBool>,
}

impl Hall {
    fn subscribe(broker: &Mosquitto, client_id: &str) -> Hall {
        Hall::subscribe_as(broker, client_id, HALL_USER)
    }

    fn subscribe_as(broker: &Mosquitto, client_id: &str, user: (&str, &str)) -> Hall {
        let mut options = MqttOptions::new(client_id, "127.0.0.1", broker.port());
        options
            .set_credentials(user.0, user.1)
            .set_clean_start(false)
            // Kept by the broker through its restart, with what it queued.
            .set_session_expiry_interval(Some(3600))
            .set_keep_alive(Duration::from_secs(5));
        let (client, mut connection) = Client::new(options, 64);
        let received = Arc::new(Mutex::new(Vec::new()));
        let subscribed = Arc::new(AtomicBool::new(false));
        let sink = Arc::clone(&received);
        let ready = Arc::clone(&subscribed);
        let done = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&done);
        let resubscribe = client.clone();
        std::thread::spawn(move || {
            for event in connection.iter() {
                if finished.load(Ordering::SeqCst) {
                    return;
                }
                match event {
                    Ok(Event::Incoming(Packet::ConnAck(ack))) if !ack.session_present => {
                        let _ = resubscribe
                            .try_subscribe(format!("tocada/{HALL}/+/+"), QoS::AtLeastOnce);
                    }
                    Ok(Event::Incoming(Packet::SubAck(_))) => ready.store(true, Ordering::SeqCst),
                    Ok(Event::Incoming(Packet::Publish(publish))) => {
                        sink.lock().unwrap().push(Received {
                            topic: String::from_utf8_lossy(&publish.topic).into_owned(),
                            payload: publish.payload.to_vec(),
                            retain: publish.retain,
                        });
                    }
                    Ok(_) => {}
                    // The broker is down: try again soon, not in a spin.
                    Err(rumqttc::v5::ConnectionError::RequestsDone) => return,
                    Err(_) => std::thread::sleep(Duration::from_millis(100)),
                }
            }
        });
        // Subscribed before any clock publishes.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !subscribed.load(Ordering::SeqCst) {
            assert!(Instant::now() < deadline, "no SUBACK from the broker");
            std::thread::sleep(Duration::from_millis(20));
        }
        Hall {
            received,
            client,
            done,
        }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The events of `board`, in arrival order, duplicates dropped by
    /// `(game, seq)`.
    fn events(&self, board: u32) -> Vec<EventMessage> {
        let mut seen = HashSet::new();
        self.received()
            .iter()
            .filter(|m| topic_of(&m.topic) == Some((board, Topic::Events)))
            .map(|m| serde_json::from_slice::<EventMessage>(&m.payload).unwrap())
            .filter(|event| seen.insert((event.game, event.seq)))
            .collect()
    }

    /// How many event messages of `board` arrived, duplicates included.
    fn deliveries(&self, board: u32) -> usize {
        self.received()
            .iter()
            .filter(|m| topic_of(&m.topic) == Some((board, Topic::Events)))
            .count()
    }

    fn last_state(&self, board: u32) -> Option<BoardState> {
        self.received()
            .iter()
            .rev()
            .find(|m| topic_of(&m.topic) == Some((board, Topic::State)))
            .map(|m| serde_json::from_slice(&m.payload).unwrap())
    }

    fn statuses(&self, board: u32) -> Vec<String> {
        self.received()
            .iter()
            .filter(|m| topic_of(&m.topic) == Some((board, Topic::Status)))
            .map(|m| String::from_utf8_lossy(&m.payload).into_owned())
            .collect()
    }

    /// Waits until every event in `clock`'s store has arrived (or 60 s).
    fn wait_for_store(&self, clock: &Clock) {
        let stored = stored_events(&clock.store()).len();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.events(clock.board).len() < stored && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Hall {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = self.client.try_disconnect();
    }
}

fn topic_of(topic: &str) -> Option<(u32, Topic)> {
    let (address, kind) = BoardAddress::parse_topic(topic)?;
    (address.hall() == HALL).then_some((address.board(), kind))
}

/// Every event the daemon stored, in store order: `(game, seq, line)`.
fn stored_events(store: &Path) -> Vec<(i64, i64, String)> {
    let store = Store::open_read_only(store).unwrap();
    store
        .events_from(i64::MIN, 0, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|event| (event.game, event.seq, event.line))
        .collect()
}

/// The checks of the hall's view of one clock: every stored event once,
/// in order, verbatim; each game's effects as its daemon printed them; the
/// retained state at the end of the last game.
fn check_clock(hall: &Hall, clock: &Clock) {
    let events = hall.events(clock.board);
    let keys: Vec<(i64, i64)> = events.iter().map(|e| (e.game, e.seq)).collect();
    assert!(
        keys.windows(2).all(|pair| pair[0] < pair[1]),
        "board {}: out of order: {keys:?}",
        clock.board
    );
    let stored = stored_events(&clock.store());
    assert!(!stored.is_empty());
    let stored_keys: Vec<(i64, i64)> = stored.iter().map(|(g, s, _)| (*g, *s)).collect();
    assert_eq!(
        keys,
        stored_keys,
        "board {}: every stored event; the publisher's log:\n{}",
        clock.board,
        fs::read_to_string(clock.dir.path().join("publisher.log")).unwrap_or_default()
    );
    for (event, (_, _, line)) in events.iter().zip(&stored) {
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(event.line, line);
        assert_eq!(Some(event.t), line["t"].as_u64());
    }

    // Each game's effects, in order, are those its daemon printed.
    let mut by_game: BTreeMap<i64, Vec<serde_json::Value>> = BTreeMap::new();
    for event in &events {
        by_game
            .entry(event.game)
            .or_default()
            .extend(event.effects.iter().cloned());
    }
    assert_eq!(by_game.len(), clock.games.len(), "board {}", clock.board);
    for ((game, effects), printed) in by_game.iter().zip(&clock.games) {
        let printed: Vec<serde_json::Value> = printed
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(effects, &printed, "board {} game {game}", clock.board);
    }

    let state = hall.last_state(clock.board).expect("a retained state");
    let last = events.last().unwrap();
    assert_eq!((state.game, state.seq), (last.game, last.seq));
    let printed_moves: Vec<String> = clock
        .games
        .last()
        .unwrap()
        .iter()
        .filter_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            (value["effect"] == "move").then(|| value["san"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(state.moves, printed_moves);
    assert!(state.result.is_some(), "{state:?}");
    assert_eq!(state.running, None);
}

fn broker_for(clocks: &[(u32, &str, &str)]) -> Mosquitto {
    let mut users: Vec<(&str, &str)> = clocks.iter().map(|(_, u, p)| (*u, *p)).collect();
    users.push(HALL_USER);
    let acl_clocks: Vec<(&str, u32)> = clocks.iter().map(|(b, u, _)| (*u, *b)).collect();
    Mosquitto::start(&users, &clock_acl(HALL, &acl_clocks, HALL_USER.0))
}

#[test]
fn every_event_of_every_game_of_every_clock_reaches_the_hall_through_a_broker_restart() {
    let clocks = [(1, "clock-1", "pw-1"), (2, "clock-2", "pw-2")];
    let mut broker = broker_for(&clocks);
    let hall = Hall::subscribe(&broker, "hall-every-event");
    let mut one = Clock::new(&broker, 1, ("clock-1", "pw-1"));
    let mut two = Clock::new(&broker, 2, ("clock-2", "pw-2"));
    // Started before the daemons: the stores do not exist yet.
    let publishers = [one.publisher(), two.publisher()];

    // Board 2 plays its first game in a thread while board 1 plays its
    // own; the broker is stopped 1.5 s into board 1's game, for 2 s.
    let two_thread = std::thread::spawn(move || {
        two.play(QUEENS_GAMBIT, Duration::ZERO, || {});
        two
    });
    let mut stopped_at = None;
    one.play(RUY_LOPEZ, Duration::from_millis(1500), || {
        broker.stop();
        stopped_at = Some(Instant::now());
    });
    // The game went on while the broker was down (the daemon never knew).
    let down_for = Duration::from_secs(2).saturating_sub(stopped_at.unwrap().elapsed());
    std::thread::sleep(down_for);
    broker.restart();
    let mut two = two_thread.join().unwrap();

    // A second game on each clock: the daemon restarted on the same store.
    one.play(QUEENS_GAMBIT, Duration::ZERO, || {});
    two.play(RUY_LOPEZ, Duration::ZERO, || {});

    for clock in [&one, &two] {
        hall.wait_for_store(clock);
        check_clock(&hall, clock);
        eprintln!(
            "board {}: {} events stored, {} delivered",
            clock.board,
            stored_events(&clock.store()).len(),
            hall.deliveries(clock.board)
        );
    }
    // A hall that subscribes late still sees every board at once: the
    // state and the status are retained.
    let late = Hall::subscribe(&broker, "hall-late");
    let deadline = Instant::now() + Duration::from_secs(10);
    while late.received().len() < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for clock in [&one, &two] {
        let state = late.last_state(clock.board).expect("retained state");
        assert_eq!(Some(&state), hall.last_state(clock.board).as_ref());
        assert!(late.received().iter().all(|m| m.retain));
        assert!(
            late.events(clock.board).is_empty(),
            "events are not retained"
        );
    }
    for publisher in publishers {
        let log = publisher.stop();
        assert!(log.contains("connected to the broker"), "{log}");
    }
    // Board 1's publisher lost the broker and came back.
    let log1 = fs::read_to_string(one.dir.path().join("publisher.log")).unwrap();
    assert!(log1.contains("broker unreachable"), "{log1}");
    assert!(log1.contains("connected to the broker again"), "{log1}");
    // Each says online when it connects, and offline when it stops.
    for clock in [&one, &two] {
        let deadline = Instant::now() + Duration::from_secs(10);
        while hall.statuses(clock.board).last().map(String::as_str) != Some("offline")
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        let statuses = hall.statuses(clock.board);
        assert!(statuses.iter().any(|s| s == "online"), "{statuses:?}");
        assert_eq!(statuses.last().map(String::as_str), Some("offline"));
        // The acknowledged mark on disk is the last event stored.
        let progress: Progress =
            serde_json::from_slice(&fs::read(clock.progress()).unwrap()).unwrap();
        let (game, seq, _) = stored_events(&clock.store()).pop().unwrap();
        assert_eq!(progress.acked, Mark { game, seq });
    }
}

#[test]
fn a_publisher_started_mid_game_and_restarted_resumes_from_its_state() {
    let broker = broker_for(&[(3, "clock-3", "pw-3")]);
    let hall = Hall::subscribe(&broker, "hall-restart");
    let mut clock = Clock::new(&broker, 3, ("clock-3", "pw-3"));
    let dir = clock.dir.path().to_path_buf();
    let progress = clock.progress();

    // The publisher's first start comes 1 s into the game: it publishes
    // the game in progress from its setup. It is stopped (as systemd
    // stops it) 3 s in, and started again after the game.
    let publisher = std::cell::RefCell::new(None);
    let mark = std::cell::Cell::new(None);
    clock.play_with(
        RUY_LOPEZ,
        vec![
            (
                Duration::from_millis(1000),
                Box::new(|| *publisher.borrow_mut() = Some(start_publisher(&dir))),
            ),
            (
                Duration::from_millis(3000),
                Box::new(|| {
                    let log = publisher.borrow_mut().take().unwrap().stop();
                    assert!(log.contains("first start"), "{log}");
                    let saved: Progress = serde_json::from_slice(&fs::read(&progress).unwrap())
                        .unwrap_or_else(|err| panic!("{err}: {log}"));
                    mark.set(Some(saved.acked));
                }),
            ),
        ],
    );
    let mark = mark.get().unwrap();
    assert_eq!(mark.game, 1);
    assert!(mark.seq > 3, "{mark:?}: 2 s of a game published");
    let stored = stored_events(&clock.store());
    assert!(
        stored.last().unwrap().1 > mark.seq + 3,
        "events stored after the stop"
    );

    let again = clock.publisher();
    hall.wait_for_store(&clock);
    let log = again.stop();
    check_clock(&hall, &clock);
    assert!(log.contains("resuming after the last event"), "{log}");
    // Resumed from the mark: nothing up to it was sent twice.
    let up_to_mark = hall
        .received()
        .iter()
        .filter(|m| topic_of(&m.topic) == Some((3, Topic::Events)))
        .map(|m| serde_json::from_slice::<EventMessage>(&m.payload).unwrap())
        .filter(|e| {
            Mark {
                game: e.game,
                seq: e.seq,
            } <= mark
        })
        .count();
    assert_eq!(up_to_mark as i64, mark.seq + 1);
}

/// Waits until `log` says `what` (or 10 s), and returns it.
fn wait_for_log(publisher: &Publisher, what: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = publisher.log();
        if log.contains(what) || Instant::now() > deadline {
            return log;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_acl_keeps_a_clock_to_its_own_board_and_the_broker_its_users() {
    let broker = broker_for(&[(4, "clock-4", "pw-4"), (5, "clock-5", "pw-5")]);
    let hall = Hall::subscribe(&broker, "hall-acl");

    // Board 5 in the configuration, board 4's user in the credentials:
    // every message it sends is under tocada/open/5/, which the ACL keeps
    // from clock-4.
    let mut impostor = Clock::new(&broker, 5, ("clock-4", "pw-4"));
    let wrong_password = Clock::new(&broker, 4, ("clock-4", "not-pw-4"));
    let publishers = [impostor.publisher(), wrong_password.publisher()];
    impostor.play(QUEENS_GAMBIT, Duration::ZERO, || {});

    let log = wait_for_log(&publishers[0], "refuses this clock's messages");
    assert!(log.contains("refuses this clock's messages"), "{log}");
    assert!(log.contains("NotAuthorized"), "{log}");
    let log = wait_for_log(&publishers[1], "the broker refused this clock");
    assert!(log.contains("the broker refused this clock"), "{log}");
    assert!(log.contains("publish.credentials"), "{log}");

    for publisher in publishers {
        publisher.stop();
    }
    // Nothing of either reached the hall, and nothing counts as published.
    let received: Vec<String> = hall.received().into_iter().map(|m| m.topic).collect();
    assert!(received.is_empty(), "{received:?}");
    assert!(!wrong_password.progress().exists());
    if let Ok(saved) = fs::read(impostor.progress()) {
        let saved: Progress = serde_json::from_slice(&saved).unwrap();
        assert_eq!(saved.acked, Mark::before(1), "only where it would start");
    }
    assert!(
        broker.log().contains("Denied PUBLISH") || broker.log().contains("not authorised"),
        "{}",
        broker.log()
    );
}

/// Runs `tocada-publish ARGS` to its end (or 20 s): exit code and stderr.
fn publish_exits(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut child = publish_command()
        .args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    use std::io::Read as _;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (status.code(), stderr)
}

#[test]
fn bad_input_is_a_clear_error_never_a_panic() {
    use std::ffi::OsStr;
    use tocada::exit::{EX_CONFIG, EX_DATAERR, EX_NOINPUT};

    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("publisher");
    fs::create_dir(&state).unwrap();
    let credentials = dir.path().join("credentials");
    fs::write(&credentials, "clock-9:pw-9\n").unwrap();
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = |publish: &str| {
        let path = dir.path().join("tocada.toml");
        fs::write(&path, format!("[board]\nkind = \"sim\"\n{publish}")).unwrap();
        path
    };
    let good = format!(
        "[publish]\nbroker = \"mqtt://127.0.0.1:{closed}\"\nhall = \"{HALL}\"\nboard = 9\n\
         credentials = \"{}\"\n",
        credentials.display()
    );
    let store = dir.path().join("nowhere.sqlite");
    let run = |config: &Path| {
        publish_exits(&[
            OsStr::new("--config"),
            config.as_os_str(),
            OsStr::new("--store"),
            store.as_os_str(),
            OsStr::new("--state"),
            state.as_os_str(),
        ])
    };

    // No [publish]: publishing is off, and the unit says so.
    let (code, stderr) = run(&config(""));
    assert_eq!(code, Some(EX_CONFIG.into()), "{stderr}");
    assert!(stderr.contains("no [publish] section"), "{stderr}");

    // A bad value names its key, here and in check-config.
    let bad = config(&good.replace("board = 9", "board = 0"));
    let (code, stderr) = run(&bad);
    assert_eq!(code, Some(EX_CONFIG.into()), "{stderr}");
    assert!(
        stderr.contains("publish.board: 0 is not a board number"),
        "{stderr}"
    );
    let check = support::cli::tocada()
        .arg("check-config")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(EX_CONFIG.into()));
    assert!(String::from_utf8_lossy(&check.stderr).contains("publish.board"));
    let tls = config(&good.replace("mqtt://", "mqtts://"));
    let (code, stderr) = run(&tls);
    assert_eq!(code, Some(EX_CONFIG.into()), "{stderr}");
    assert!(
        stderr.contains("publish.broker: mqtts:// is not supported"),
        "{stderr}"
    );

    // check-config shows where a good section publishes.
    let check = support::cli::tocada()
        .arg("check-config")
        .arg(config(&good))
        .output()
        .unwrap();
    assert!(check.status.success());
    let summary = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(
        summary.contains(&format!(
            "published to mqtt://127.0.0.1:{closed} as board 9 of hall {HALL}"
        )),
        "{summary}"
    );

    // A missing credentials file.
    let missing = config(&good.replace("credentials\"", "credentials-gone\""));
    let (code, stderr) = run(&missing);
    assert_eq!(code, Some(EX_NOINPUT.into()), "{stderr}");
    assert!(
        stderr.contains("credentials-gone") && stderr.contains("(publish.credentials)"),
        "{stderr}"
    );
    // One that is not user:password.
    fs::write(&credentials, "just-a-password\n").unwrap();
    let (code, stderr) = run(&config(&good));
    assert_eq!(code, Some(EX_CONFIG.into()), "{stderr}");
    assert!(
        stderr.contains("expected one line user:password"),
        "{stderr}"
    );
    assert!(!stderr.contains("just-a-password"), "{stderr}");
    fs::write(&credentials, "clock-9:pw-9\n").unwrap();

    // A damaged state file.
    fs::write(state.join(PROGRESS_FILE), "{\"acked\":").unwrap();
    let (code, stderr) = run(&config(&good));
    assert_eq!(code, Some(EX_DATAERR.into()), "{stderr}");
    assert!(
        stderr.contains(PROGRESS_FILE) && stderr.contains("remove it"),
        "{stderr}"
    );
    fs::remove_file(state.join(PROGRESS_FILE)).unwrap();

    // An unreachable broker: it says so and keeps trying, until stopped.
    let publisher = start_publisher_with(&config(&good), &store, &state, dir.path());
    let log = wait_for_log(&publisher, "broker unreachable");
    assert!(log.contains("broker unreachable"), "{log}");
    assert!(log.contains(&format!("127.0.0.1:{closed}")), "{log}");
    std::thread::sleep(Duration::from_millis(700));
    let log = publisher.stop();
    assert!(
        log.contains("failures=2") || log.contains("retry_in_ms"),
        "{log}"
    );
}

/// A publisher with the paths given.
fn start_publisher_with(config: &Path, store: &Path, state: &Path, logs: &Path) -> Publisher {
    let log = logs.join("publisher.log");
    let child = publish_command()
        .arg("--config")
        .arg(config)
        .arg("--store")
        .arg(store)
        .arg("--state")
        .arg(state)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    Publisher { child, log }
}

#[test]
fn tocada_publish_runs_the_publisher_with_its_arguments() {
    // Under qemu's user-mode emulator (the aarch64 run of CI) `tocada`
    // cannot exec an aarch64 program by itself: natively only.
    if std::env::var_os("TOCADA_TEST_RUNNER").is_some() {
        eprintln!("skipped under TOCADA_TEST_RUNNER");
        return;
    }
    let output = support::cli::tocada()
        .args(["publish", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(
        help.contains("tocada-publish") && help.contains("--from-start"),
        "{help}"
    );

    let output = support::cli::tocada()
        .args(["publish", "--config", "/nonexistent/tocada.toml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(tocada::exit::EX_CONFIG.into()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("tocada-publish: /nonexistent/tocada.toml"),
        "{stderr}"
    );
}

/// The shipped configuration documents `[publish]` commented out (off by
/// default), and uncommented it is a valid section.
#[test]
fn the_shipped_configuration_shows_publish_commented_out() {
    use tocada::config::Config;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/tocada.toml");
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(Config::parse(&text, "tocada.toml").unwrap().publish, None);
    let uncommented = [
        "[publish]",
        "broker =",
        "hall =",
        "board =",
        "credentials =",
        "pairing_file =",
    ]
    .iter()
    .fold(text.clone(), |text, key| {
        assert!(text.contains(&format!("# {key}")), "{key}");
        text.replace(&format!("# {key}"), key)
    });
    let publish = Config::parse(&uncommented, "tocada.toml")
        .unwrap()
        .publish
        .unwrap();
    assert_eq!(publish.broker.to_string(), "mqtt://hall.local:1883");
    assert_eq!(publish.address.root(), "tocada/open-2026/12");
    assert_eq!(
        publish.credentials.as_deref(),
        Some(Path::new("/etc/tocada/publish.credentials"))
    );
    assert_eq!(
        publish.pairing_file,
        Path::new(tocada::config::DEFAULT_PAIRING_FILE)
    );
}

/// `packaging/mosquitto/make-hall` writes the files a hall's broker needs
/// with the ACL the tests use, and a clock publishes with what it wrote.
#[test]
fn make_hall_writes_the_brokers_users_and_acl_and_each_clocks_credentials() {
    use tocada::broker::Credentials;
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/mosquitto/make-hall");
    let status = Command::new(&script)
        .args([HALL, "3"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let acl = fs::read_to_string(dir.path().join("tocada.acl")).unwrap();
    assert_eq!(
        acl,
        clock_acl(
            HALL,
            &[("clock-1", 1), ("clock-2", 2), ("clock-3", 3)],
            "hall"
        )
    );
    let example = fs::read_to_string(script.with_file_name("acl.example")).unwrap();
    assert!(example.contains(&clock_acl(
        "open-2026",
        &[("clock-1", 1), ("clock-2", 2)],
        "hall"
    )));
    let users: Vec<Credentials> = (1..=3)
        .map(|board| dir.path().join(format!("clocks/board-{board}.credentials")))
        .chain([dir.path().join("hall.credentials")])
        .map(|path| Credentials::load(&path, "publish.credentials").unwrap())
        .collect();
    let passwords: HashSet<&str> = users.iter().map(|c| c.password.as_str()).collect();
    assert_eq!(passwords.len(), 4, "a password each");
    let passwd = fs::read_to_string(dir.path().join("tocada.passwd")).unwrap();
    for user in &users {
        assert!(passwd.contains(&format!("{}:$7$", user.user)), "{passwd}");
        assert!(!passwd.contains(&user.password), "hashed");
    }
    // Mosquitto reads the broker's files as its own user: mode 0640, and
    // the group mosquitto where it exists and this user may give it (root,
    // as in CI); the passwords in clear stay the owner's alone.
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mosquitto_gid = Command::new("getent")
        .args(["group", "mosquitto"])
        .output()
        .ok()
        .and_then(|out| {
            let line = String::from_utf8_lossy(&out.stdout).into_owned();
            line.split(':')
                .nth(2)
                .and_then(|gid| gid.trim().parse::<u32>().ok())
        });
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    for file in ["tocada.passwd", "tocada.acl"] {
        let meta = fs::metadata(dir.path().join(file)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o640, "{file}");
        if let (Some(gid), true) = (mosquitto_gid, root) {
            assert_eq!(meta.gid(), gid, "{file}: group mosquitto");
        }
    }
    for file in ["hall.credentials", "clocks/board-1.credentials"] {
        let meta = fs::metadata(dir.path().join(file)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{file}");
    }
    let refused = Command::new(&script)
        .args(["a/b", "3"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(64));

    // A broker with those users and that ACL; board 2's Pi with its file.
    let pairs: Vec<(&str, &str)> = users
        .iter()
        .map(|c| (c.user.as_str(), c.password.as_str()))
        .collect();
    let broker = Mosquitto::start(&pairs, &acl);
    let hall = Hall::subscribe_as(&broker, "hall-make-hall", pairs[3]);
    let clock = Clock::new(&broker, 2, pairs[1]);
    let publisher = clock.publisher();
    // Online with its credentials: the last status the hall has. (A first
    // connection that times out on a slow machine, qemu in CI, leaves the
    // broker's "offline" will before it.)
    let deadline = Instant::now() + Duration::from_secs(30);
    while hall.statuses(2).last().map(String::as_str) != Some("online") && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        hall.statuses(2).last().map(String::as_str),
        Some("online"),
        "{}",
        publisher.log()
    );
    publisher.stop();
}

/// A state file whose mark is past every game of the store (the store was
/// wiped or replaced, the publisher's state kept): the publisher says so
/// and starts over instead of waiting for a game id the store may take
/// days to reach.
#[test]
fn a_mark_from_another_store_starts_over_with_a_warning() {
    let broker = broker_for(&[(6, "clock-6", "pw-6")]);
    let hall = Hall::subscribe(&broker, "hall-new-store");
    let mut clock = Clock::new(&broker, 6, ("clock-6", "pw-6"));
    fs::write(clock.progress(), r#"{"acked":{"game":99,"seq":5}}"#).unwrap();
    let dir = clock.dir.path().to_path_buf();
    let publisher = std::cell::RefCell::new(None);
    // Started once the game is stored, so that the store is there to
    // compare the mark with.
    clock.play(QUEENS_GAMBIT, Duration::from_millis(500), || {
        *publisher.borrow_mut() = Some(start_publisher(&dir));
    });
    hall.wait_for_store(&clock);
    let log = publisher.into_inner().unwrap().stop();
    assert!(log.contains("a new store"), "{log}");
    check_clock(&hall, &clock);
}

#[test]
fn check_config_checks_what_publishing_reads_in_either_form() {
    use tocada::exit::{EX_CONFIG, EX_NOINPUT};

    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("publisher");
    fs::create_dir(&state).unwrap();
    let credentials = dir.path().join("credentials");
    let path = dir.path().join("tocada.toml");
    fs::write(
        &path,
        format!(
            "[board]\nkind = \"sim\"\n[publish]\nbroker = \"mqtt://127.0.0.1:1883\"\nhall = \"{HALL}\"\nboard = 9\ncredentials = \"{}\"\n",
            credentials.display()
        ),
    )
    .unwrap();
    let check = |form: &[&str]| {
        let out = publish_command()
            .arg("--state")
            .arg(&state)
            .args(form)
            .arg(&path)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let forms: [&[&str]; 2] = [&["check-config"], &["check-config", "--config"]];
    // The credentials file is missing: the exit status publishing would
    // stop with, before any connection.
    for form in forms {
        let (code, _, stderr) = check(form);
        assert_eq!(code, Some(EX_NOINPUT.into()), "{form:?}: {stderr}");
        assert!(stderr.contains("publish.credentials"), "{stderr}");
    }
    fs::write(&credentials, "no-colon\n").unwrap();
    let (code, _, stderr) = check(forms[0]);
    assert_eq!(code, Some(EX_CONFIG.into()), "{stderr}");
    fs::write(&credentials, "clock-9:pw-9\n").unwrap();
    for form in forms {
        let (code, stdout, stderr) = check(form);
        assert_eq!(code, Some(0), "{form:?}: {stderr}");
        assert!(
            stdout.contains(": ok: publishing to mqtt://127.0.0.1:1883"),
            "{stdout}"
        );
    }
    // The old top-level form with the command after it.
    let out = publish_command()
        .arg("--state")
        .arg(&state)
        .arg("--config")
        .arg(&path)
        .arg("check-config")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits for `publisher` to exit (or 30 s): its exit code and log.
fn exit_of(mut publisher: Publisher) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = publisher.child.try_wait().unwrap() {
            return (status.code(), publisher.log());
        }
        assert!(
            Instant::now() < deadline,
            "still running: {}",
            publisher.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_clock_with_a_boards_credentials_is_refused_and_the_first_says_so() {
    let broker = broker_for(&[(6, "clock-6", "pw-6")]);
    let hall = Hall::subscribe(&broker, "hall-clone");
    let mut clock = Clock::new(&broker, 6, ("clock-6", "pw-6"));
    // A clone of its SD card: the same configuration and credentials, on
    // another machine (here: another state directory).
    let clone = Clock::new(&broker, 6, ("clock-6", "pw-6"));
    let first = clock.publisher();
    let log = wait_for_log(&first, "connected to the broker");
    assert!(log.contains("connected to the broker"), "{log}");

    // The clone starts 1 s into the first clock's game.
    let clone_dir = clone.dir.path().to_path_buf();
    let second = std::cell::RefCell::new(None);
    clock.play_with(
        RUY_LOPEZ,
        vec![(
            Duration::from_millis(1000),
            Box::new(|| *second.borrow_mut() = Some(start_publisher(&clone_dir))),
        )],
    );
    let (code, log) = exit_of(second.into_inner().unwrap());
    assert_eq!(code, Some(78), "{log}");
    assert!(
        log.contains("refused: another clock") && log.contains("cloned SD card"),
        "{log}"
    );
    assert!(!log.contains("panicked"), "{log}");

    // The first kept publishing: every event reached the hall, and it
    // says what happened.
    hall.wait_for_store(&clock);
    check_clock(&hall, &clock);
    let log = wait_for_log(&first, "was refused");
    assert!(
        log.contains("another clock with this board's credentials connected"),
        "{log}"
    );

    // Killed (no clean stop: its claim stays) and started again on the
    // same clock: the claim is its own, and it publishes at once.
    drop(first);
    let again = clock.publisher();
    let log = wait_for_log(&again, "following the game store");
    std::thread::sleep(Duration::from_millis(1500));
    let log = again.log() + &log;
    assert!(!log.contains("another clock holds this board"), "{log}");
    assert!(
        hall.statuses(6).last().map(String::as_str) == Some("online"),
        "{:?}",
        hall.statuses(6)
    );

    // Killed again: its claim is a dead clock's. The clone, started now,
    // waits for it, then takes the board over.
    drop(again);
    let started = Instant::now();
    let clone_publisher = clone.publisher();
    let log = wait_for_log(&clone_publisher, "taking the board over");
    let log = if log.contains("taking the board over") {
        log
    } else {
        std::thread::sleep(Duration::from_secs(5));
        clone_publisher.log()
    };
    assert!(log.contains("another clock holds this board"), "{log}");
    assert!(log.contains("taking the board over"), "{log}");
    assert!(started.elapsed() >= tocada::publish::GRACE, "{log}");
    clone_publisher.stop();
}

#[test]
fn a_contender_cut_off_by_a_broker_restart_is_not_refused() {
    let mut broker = broker_for(&[(8, "clock-8", "pw-8")]);
    let mut clock = Clock::new(&broker, 8, ("clock-8", "pw-8"));
    clock.play(QUEENS_GAMBIT, Duration::from_millis(10), || {});
    // A clock that held the board and died (killed: its claim stays), and
    // the same board's clock rebooted (another instance): it contests.
    let dead = clock.publisher();
    let log = wait_for_log(&dead, "following the game store");
    assert!(log.contains("following the game store"), "{log}");
    std::thread::sleep(Duration::from_millis(1000));
    drop(dead);
    let rebooted = Clock::new(&broker, 8, ("clock-8", "pw-8"));
    let publisher = rebooted.publisher();
    let log = wait_for_log(&publisher, "another clock holds this board");
    assert!(log.contains("another clock holds this board"), "{log}");
    // The broker restarts inside the grace: the connection is cut.
    broker.restart();
    let log = wait_for_log(&publisher, "connected to the broker again");
    assert!(log.contains("connected to the broker again"), "{log}");
    // Not refused: back, it reads the same dead claim and takes the board
    // over after the grace.
    let deadline = Instant::now() + tocada::publish::GRACE * 3;
    let mut publisher = publisher;
    while !publisher.log().contains("taking the board over") && Instant::now() < deadline {
        assert!(
            publisher.child.try_wait().unwrap().is_none(),
            "exited: {}",
            publisher.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = publisher.stop();
    assert!(log.contains("taking the board over"), "{log}");
    assert!(!log.contains("refused: another clock"), "{log}");
}

/// What the broker answers `user` publishing `payload` on each of
/// `topics`, retained: the PUBACK's reason, in order.
fn publish_as(
    broker: &Mosquitto,
    user: (&str, &str),
    topics: &[String],
) -> Vec<rumqttc::v5::mqttbytes::v5::PubAckReason> {
    let mut options = MqttOptions::new(format!("acl-{}", user.0), "127.0.0.1", broker.port());
    options.set_credentials(user.0, user.1);
    let (client, mut connection) = Client::new(options, 10);
    let mut reasons = Vec::new();
    for topic in topics {
        client
            .publish(topic.clone(), QoS::AtLeastOnce, true, b"x".to_vec())
            .unwrap();
        for event in connection.iter().take(50) {
            match event {
                Ok(Event::Incoming(Packet::PubAck(ack))) => {
                    reasons.push(ack.reason);
                    break;
                }
                Ok(_) => {}
                Err(err) => panic!("{err}"),
            }
        }
    }
    reasons
}

#[test]
fn the_acl_lets_a_clock_write_its_own_topics_and_never_its_pairing_or_the_halls_requests() {
    use rumqttc::v5::mqttbytes::v5::PubAckReason;
    let broker = broker_for(&[(4, "clock-4", "pw-4")]);
    let topic = |name: &str| format!("tocada/{HALL}/4/{name}");
    let reasons = publish_as(
        &broker,
        ("clock-4", "pw-4"),
        &[
            topic("events"),
            topic("status"),
            topic("claim"),
            topic("pairing"),
            topic("resend"),
            topic("anything"),
        ],
    );
    let allowed = |reason: &PubAckReason| {
        matches!(
            reason,
            PubAckReason::Success | PubAckReason::NoMatchingSubscribers
        )
    };
    assert_eq!(reasons.len(), 6, "{reasons:?}");
    assert!(reasons[..3].iter().all(allowed), "{reasons:?}");
    assert!(!reasons[3..].iter().any(allowed), "{reasons:?}");
    // The hall's user still writes the pairing.
    let reasons = publish_as(&broker, HALL_USER, &[topic("pairing")]);
    assert!(reasons.iter().all(allowed), "{reasons:?}");
}

#[test]
fn under_systemd_the_instance_is_kept_in_the_runtime_directory_or_the_publisher_refuses_to_start() {
    let broker = broker_for(&[(9, "clock-9", "pw-9")]);
    let clock = Clock::new(&broker, 9, ("clock-9", "pw-9"));
    let runtime = clock.dir.path().join("run");
    fs::create_dir(&runtime).unwrap();
    let start = |runtime: &Path| {
        let log = clock.dir.path().join("publisher.log");
        let child = publish_command()
            .arg("--config")
            .arg(clock.config())
            .arg("--store")
            .arg(clock.store())
            .arg("--state")
            .arg(clock.dir.path().join("publisher"))
            .env("RUST_LOG", "info")
            .env("RUNTIME_DIRECTORY", runtime)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&log)
                    .unwrap(),
            )
            .spawn()
            .unwrap();
        Publisher { child, log }
    };
    let first = start(&runtime);
    let log = wait_for_log(&first, "connected to the broker");
    assert!(log.contains("connected to the broker"), "{log}");
    // Past the settling: the board taken, its claim retained.
    std::thread::sleep(Duration::from_millis(1000));
    let instance = fs::read_to_string(runtime.join(tocada::publish::INSTANCE_FILE)).unwrap();
    assert_eq!(instance.trim().len(), 32, "{instance}");
    // Killed (its claim stays) and restarted with the same runtime
    // directory, as systemd restarts it: its own claim, taken at once.
    drop(first);
    let again = start(&runtime);
    let deadline = Instant::now() + Duration::from_secs(20);
    while again.log().matches("connected to the broker").count() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Past the settling: a contest would have been said.
    std::thread::sleep(Duration::from_millis(1500));
    let log = again.log();
    assert_eq!(log.matches("connected to the broker").count(), 2, "{log}");
    assert!(!log.contains("another clock holds this board"), "{log}");
    again.stop();
    // A runtime directory that cannot hold the id: a clear refusal.
    let output = publish_command()
        .arg("--config")
        .arg(clock.config())
        .arg("--state")
        .arg(clock.dir.path().join("publisher"))
        .env("RUNTIME_DIRECTORY", runtime.join("gone"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(tocada::exit::EX_CANTCREAT.into()),
        "{stderr}"
    );
    assert!(
        stderr.contains("cannot keep this publisher's instance id in"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
