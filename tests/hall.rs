//! Black-box tests of `tocada-hall` (issue 14 §2, §3): the built binary
//! against a real Mosquitto on a loopback port with a password per clock
//! and an ACL, judged over HTTP. The clocks are simulated by rumqttc
//! clients publishing, event by event, the replay lines of real games
//! (tests/data) as hands play them on a sensor board, the way a clock's
//! publisher sends its store.

mod support {
    pub mod cli;
    pub mod hall_process;
    pub mod http;
    pub mod https_stand_in;
    pub mod lines;
    pub mod mosquitto;
    pub mod parsed;
    pub mod pgn;
}

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rumqttc::{Client, MqttOptions, QoS};
use tocada::broadcast::{BoardAddress, EventMessage};
use tocada::gesture::Script;
use tocada::pgn::Tags;
use tocada::transcript::{Feed, Policy, Read, effect_to_json, pgn_from_lines};

use support::hall_process::{HallProcess, eventually, write_hall_config};
use support::http::{self, EventStream, get, post};
use support::https_stand_in::{HttpsStandIn, TestCa};
use support::lines::game_lines;
use support::mosquitto::{Mosquitto, mosquitto_program};
use support::pgn::reference_games;

const HALL: &str = "open";
const PASSWORD: &str = "correct horse";

/// The arbiter's hash, made once: argon2 is slow in a debug build.
fn arbiter_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| tocada::hall::hash_password(PASSWORD).unwrap())
}

/// Whether Mosquitto is installed; without it (a developer's machine
/// without the package) the broker tests say so and pass.
fn have_broker() -> bool {
    let found = mosquitto_program().is_some();
    if !found {
        eprintln!("mosquitto is not installed (apt-get install mosquitto): test skipped");
    }
    found
}

/// A broker for `clocks` boards, each with its own user, and the hall's.
fn broker(clocks: &[u32]) -> Mosquitto {
    Mosquitto::for_hall(HALL, clocks)
}

/// Writes the hall's configuration into `dir`, with board 1's players.
fn write_config(dir: &Path, broker: &Mosquitto, public_pgn: bool) -> PathBuf {
    write_hall_config(
        dir,
        HALL,
        &broker.url(),
        arbiter_hash(),
        public_pgn,
        "Hall test",
        "[[board]]\nnumber = 1\nwhite = \"Kasparov, Garry\"\nblack = \"Deep Blue\"\n",
    )
}

fn hall_command() -> Command {
    support::cli::program(env!("CARGO_BIN_EXE_tocada-hall"))
}

/// Writes `token` to `push-token` beside `config` and appends to it a
/// `[push]` table to `url` with that token, every second, and `more`.
fn add_push(config: &Path, token: &str, url: &str, more: &str) {
    let dir = config.parent().unwrap();
    std::fs::write(dir.join("push-token"), format!("{token}\n")).unwrap();
    let mut text = std::fs::read_to_string(config).unwrap();
    text.push_str(&format!(
        "[push]\nurl = \"{url}\"\ntoken_file = \"{}/push-token\"\nevery_s = 1\n{more}",
        dir.display()
    ));
    std::fs::write(config, text).unwrap();
}

/// Starts `tocada-hall run` on `config` and waits until it listens and
/// has subscribed.
fn start_hall(config: &Path) -> HallProcess {
    HallProcess::start(config, Duration::from_secs(20))
}

/// A real game's replay lines, as a clock stores them, with the effects
/// each line produced when replayed (the publisher sends both).
fn real_game(index: usize, seed: u64) -> (Vec<String>, Vec<Vec<serde_json::Value>>) {
    let game = &reference_games()[index];
    let script = game.play_into(Script::varied(game.start(), false, seed));
    let lines = game_lines(&game.rules(), script.events());
    let mut feed = Feed::new(Policy::RESTORE);
    let effects = lines
        .iter()
        .map(|line| {
            let mut out = Vec::new();
            let read = feed.push_str(line, |t, e| {
                out.push(serde_json::from_str(&effect_to_json(t, &e)).unwrap())
            });
            assert!(matches!(read, Read::Line(_)), "{line}: {read:?}");
            out
        })
        .collect();
    (lines, effects)
}

fn message(game: i64, seq: usize, line: &str, effects: &[serde_json::Value]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    serde_json::to_vec(&EventMessage {
        game,
        seq: seq as i64,
        t: value["t"].as_u64().unwrap(),
        line: value,
        effects: effects.to_vec(),
    })
    .unwrap()
}

/// A simulated clock's MQTT connection: its user, QoS 1.
struct Clock {
    client: Client,
    board: u32,
    pump: std::thread::JoinHandle<()>,
    closing: Arc<AtomicBool>,
}

impl Clock {
    fn connect(broker: &Mosquitto, board: u32, user: u32) -> Clock {
        let mut options =
            MqttOptions::new(format!("clock-{board}-{user}"), "127.0.0.1", broker.port());
        options.set_credentials(format!("clock-{user}"), format!("pw-{user}"));
        options.set_keep_alive(Duration::from_secs(30));
        // rumqttc's own limit (10 kB) would keep an oversized message in.
        options.set_max_packet_size(1 << 20, 1 << 20);
        let (client, mut connection) = Client::new(options, 10_000);
        let closing = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&closing);
        let pump = std::thread::spawn(move || {
            for event in connection.iter() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if event.is_err() {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        Clock {
            client,
            board,
            pump,
            closing,
        }
    }

    fn publish(&self, payload: Vec<u8>) {
        let topic = BoardAddress::new(HALL, self.board).unwrap().events_topic();
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .unwrap();
    }

    fn publish_game(&self, game: i64, lines: &[String], effects: &[Vec<serde_json::Value>]) {
        for (seq, line) in lines.iter().enumerate() {
            self.publish(message(game, seq, line, &effects[seq]));
        }
    }

    /// Disconnects; the pump ends at the next event (the disconnect
    /// itself).
    fn close(self) {
        self.closing.store(true, Ordering::Relaxed);
        let _ = self.client.disconnect();
        let _ = self.pump.join();
    }
}

fn tags(board: u32) -> Tags {
    let mut tags = Tags {
        event: "Hall test".to_owned(),
        round: "1".to_owned(),
        ..Tags::default()
    };
    if board == 1 {
        tags.white = "Kasparov, Garry".to_owned();
        tags.black = "Deep Blue".to_owned();
    }
    tags
}

/// Logs in as the arbiter: the session cookie (`name=value`) and the page.
fn log_in(addr: SocketAddr) -> (String, String) {
    let response = http::log_in(addr, "ana", PASSWORD);
    assert_eq!(response.status, 303, "{response:?}");
    let set_cookie = response.set_cookie("tocada_hall").unwrap();
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Strict"), "{set_cookie}");
    let cookie = response.cookie("tocada_hall").unwrap();
    let page = get(addr, "/arbiter", Some(&cookie));
    assert_eq!(page.status, 200);
    (cookie, page.body)
}

fn csrf_of(page: &str) -> String {
    let start = page.find("name=\"csrf\" content=\"").unwrap() + 21;
    page[start..start + 64].to_owned()
}

#[test]
fn every_event_of_every_game_reaches_the_hall_and_its_pgn_feed() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1, 2, 3]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, true));
    let games: Vec<_> = (0..3).map(|i| real_game(i, 11 + i as u64)).collect();
    let clocks: Vec<Clock> = (1..=3).map(|b| Clock::connect(&broker, b, b)).collect();
    for (clock, (lines, effects)) in clocks.iter().zip(&games) {
        clock.publish_game(7, lines, effects);
        // A resend from the start after a broker restart: duplicates.
        clock.publish_game(7, &lines[..10], &effects[..10]);
    }
    for (board, (lines, _)) in (1..=3).zip(&games) {
        let expected = pgn_from_lines(lines, tags(board)).unwrap();
        let path = format!("/pgn/{board}");
        assert!(
            eventually(Duration::from_secs(30), || get(hall.addr, &path, None).body
                == expected),
            "board {board}: the hall's PGN is not the game's:\n{}\nexpected:\n{expected}\nlog:\n{}",
            get(hall.addr, &path, None).body,
            hall.log()
        );
        // [%clk] on every move.
        let moves = expected.matches("[%clk ").count();
        assert!(moves > 20, "{expected}");
        assert_eq!(
            get(hall.addr, &format!("/pgn/{board}/7"), None).body,
            expected
        );
    }
    let round = get(hall.addr, "/pgn/round", None);
    assert_eq!(round.status, 200);
    assert!(
        round
            .header("content-type")
            .unwrap()
            .starts_with("application/x-chess-pgn")
    );
    assert_eq!(
        round.body.matches("[Event \"Hall test\"]").count(),
        3,
        "{}",
        round.body
    );
    assert!(round.body.contains("[White \"Kasparov, Garry\"]"));
    assert_eq!(get(hall.addr, "/pgn/9", None).status, 404);

    // The arbiter's view: every event once, the duplicates counted.
    let (cookie, _) = log_in(hall.addr);
    let boards: serde_json::Value =
        serde_json::from_str(&get(hall.addr, "/arbiter/boards", Some(&cookie)).body).unwrap();
    let total: usize = games.iter().map(|(l, _)| l.len()).sum();
    assert_eq!(boards["counters"]["events"], total as u64, "{boards}");
    assert_eq!(boards["counters"]["duplicates"], 30, "{boards}");
    for (i, view) in boards["boards"].as_array().unwrap().iter().enumerate() {
        assert_eq!(view["events"], games[i].0.len() as u64, "{view}");
        assert!(view["result"].is_string(), "every game is over: {view}");
    }
    for clock in clocks {
        clock.close();
    }
}

#[test]
fn the_hall_gets_what_was_published_while_it_was_down() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    let (lines, effects) = real_game(1, 5);
    let clock = Clock::connect(&broker, 1, 1);
    let hall = start_hall(&config);
    let half = lines.len() / 2;
    for (seq, line) in lines.iter().enumerate().take(half) {
        clock.publish(message(3, seq, line, &effects[seq]));
    }
    let pgn_at = |hall: &HallProcess| get(hall.addr, "/pgn/1", None).body;
    let first_half = pgn_from_lines(&lines[..half], tags(1)).unwrap();
    assert!(
        eventually(Duration::from_secs(20), || pgn_at(&hall) == first_half),
        "{}",
        hall.log()
    );
    // The hall stops (an upgrade, a reboot); the clock plays on.
    hall.stop();
    for (seq, line) in lines.iter().enumerate().skip(half) {
        clock.publish(message(3, seq, line, &effects[seq]));
    }
    std::thread::sleep(Duration::from_millis(300));
    // Back with the same client id: the broker kept its session.
    let hall = start_hall(&config);
    let whole = pgn_from_lines(&lines, tags(1)).unwrap();
    assert!(
        eventually(Duration::from_secs(20), || pgn_at(&hall) == whole),
        "the hall lost what was published while it was down:\n{}\nlog:\n{}",
        pgn_at(&hall),
        hall.log()
    );
    clock.close();
}

#[test]
fn a_clock_cannot_publish_for_another_board_and_garbage_is_counted() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, true));
    // Clock 1's user publishing as board 2: the ACL drops it.
    let impostor = Clock::connect(&broker, 2, 1);
    let (lines, effects) = real_game(0, 1);
    impostor.publish_game(1, &lines[..5], &effects[..5]);
    // Board 1's own clock, with junk among good events.
    let clock = Clock::connect(&broker, 1, 1);
    clock.publish(b"{\"not\":\"an event\"}".to_vec());
    clock.publish(message(1, 0, r#"{"t":0,"ev":"jump"}"#, &[]));
    clock.publish_game(1, &lines[..5], &effects[..5]);
    let (cookie, _) = log_in(hall.addr);
    let counters = || -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(
            &get(hall.addr, "/arbiter/boards", Some(&cookie)).body,
        )
        .unwrap()["counters"]
            .clone()
    };
    assert!(
        eventually(Duration::from_secs(20), || counters()["events"] == 5),
        "{}",
        counters()
    );
    assert_eq!(counters()["dropped"]["payload"], 1, "{}", counters());
    assert_eq!(counters()["dropped"]["line"], 1, "{}", counters());
    assert_eq!(
        get(hall.addr, "/pgn/2", None).status,
        404,
        "the ACL let board 2 through"
    );
    impostor.close();
    clock.close();
}

#[test]
fn the_arbiters_page_needs_a_login_and_every_action_its_csrf_token() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, false));
    let addr = hall.addr;

    // Without a login: sent to it, or refused.
    let page = get(addr, "/arbiter", None);
    assert_eq!(
        (page.status, page.header("location")),
        (303, Some("/login"))
    );
    assert_eq!(get(addr, "/arbiter/boards", None).status, 401);
    assert_eq!(get(addr, "/arbiter/events", None).status, 401);
    assert_eq!(
        post(
            addr,
            "/arbiter/acknowledge",
            None,
            "csrf=x&board=1&game=1&ruling=0"
        )
        .status,
        401
    );
    // A forged cookie is no login.
    assert_eq!(
        get(addr, "/arbiter/boards", Some("tocada_hall=00ff")).status,
        401
    );
    // A wrong password or name is refused, with no cookie.
    for (name, password) in [("ana", "wrong"), ("bob", PASSWORD)] {
        let refused = http::log_in(addr, name, password);
        assert_eq!(refused.status, 401, "{name}");
        assert!(refused.set_cookie("tocada_hall").is_none());
        assert!(refused.body.contains("Wrong name or password"));
    }
    // The right password in a form the hall did not hand out (a page of
    // another site posting it: login CSRF), or with another form's token,
    // is refused before the password is looked at.
    let right = format!("name=ana&password={}", http::form_encode(PASSWORD));
    let page = get(addr, "/login", None);
    let form_cookie = page.cookie("tocada_login").unwrap();
    assert!(
        page.set_cookie("tocada_login")
            .unwrap()
            .contains("SameSite=Strict")
    );
    for (cookie, form) in [
        (None, right.clone()),
        (Some(form_cookie.as_str()), right.clone()),
        (
            Some(form_cookie.as_str()),
            format!("{right}&csrf={}", "0".repeat(64)),
        ),
    ] {
        let refused = post(addr, "/login", cookie, &form);
        assert_eq!(refused.status, 403, "{cookie:?} {form}");
        assert!(refused.set_cookie("tocada_hall").is_none());
    }
    // public_pgn = false: no feed.
    assert_eq!(get(addr, "/pgn/round", None).status, 404);

    // A game with a ruling on board 1: a pause by the arbiter at the clock.
    let clock = Clock::connect(&broker, 1, 1);
    let lines = [
        r#"{"t":0,"ev":"setup","time_control":"300+2"}"#,
        r#"{"t":0,"ev":"press","side":"black"}"#,
        r#"{"t":2000,"ev":"pause"}"#,
    ];
    for (seq, line) in lines.iter().enumerate() {
        clock.publish(message(4, seq, line, &[]));
    }
    let (cookie, page) = log_in(addr);
    let csrf = csrf_of(&page);
    let log = || -> serde_json::Value {
        serde_json::from_str(&get(addr, "/arbiter/boards/1", Some(&cookie)).body).unwrap()
    };
    assert!(
        eventually(Duration::from_secs(20), || log()["rulings"]
            .as_array()
            .is_some_and(|r| !r.is_empty())),
        "{}",
        log()
    );
    let ruling = log()["rulings"][0]["index"].as_u64().unwrap();
    let form = |csrf: &str| format!("csrf={csrf}&board=1&game=4&ruling={ruling}");
    // Without the token, or with another, refused; the ruling unseen.
    let refused = post(
        addr,
        "/arbiter/acknowledge",
        Some(&cookie),
        &format!("board=1&game=4&ruling={ruling}"),
    );
    assert_eq!(refused.status, 403);
    assert_eq!(
        post(
            addr,
            "/arbiter/acknowledge",
            Some(&cookie),
            &form(&"0".repeat(64))
        )
        .status,
        403
    );
    assert!(log()["rulings"][0]["acknowledged_by"].is_null());
    // With it: done, and the page says who.
    let done = post(addr, "/arbiter/acknowledge", Some(&cookie), &form(&csrf));
    assert_eq!(done.status, 200, "{done:?}");
    assert_eq!(log()["rulings"][0]["acknowledged_by"], "ana");
    assert_eq!(
        post(addr, "/arbiter/acknowledge", Some(&cookie), &form(&csrf)).status,
        409
    );
    assert!(
        eventually(Duration::from_secs(5), || hall
            .log()
            .contains("ruling acknowledged arbiter=ana board=1 game=4")),
        "{}",
        hall.log()
    );
    // Logging out ends the session.
    assert_eq!(
        post(addr, "/logout", Some(&cookie), &format!("csrf={csrf}")).status,
        303
    );
    assert_eq!(get(addr, "/arbiter/boards", Some(&cookie)).status, 401);
    clock.close();
}

#[test]
fn a_move_on_a_clock_reaches_the_live_page_within_a_second() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, true));
    let (cookie, _) = log_in(hall.addr);
    let mut events = EventStream::open(hall.addr, "/arbiter/events", Some(&cookie));
    assert_eq!(events.status, 200);
    let clock = Clock::connect(&broker, 1, 1);
    let (lines, effects) = real_game(2, 3);
    // Up to White's first press: 1. e4 (or whatever the game opens with).
    let first_move = lines
        .iter()
        .position(|l| l.contains("\"press\"") && l.contains("\"white\""))
        .unwrap();
    std::thread::sleep(Duration::from_millis(500)); // the clock connected
    let sent = Instant::now();
    for (seq, line) in lines.iter().enumerate().take(first_move + 1) {
        clock.publish(message(1, seq, line, &effects[seq]));
    }
    let mut seen = None;
    while let Some(data) = events.next("boards", Duration::from_secs(5)) {
        let boards: serde_json::Value = serde_json::from_str(&data).unwrap();
        if boards.as_array().unwrap().iter().any(|b| b["moves"] == 1) {
            seen = Some(sent.elapsed());
            break;
        }
    }
    let seen = seen.unwrap_or_else(|| panic!("no move on the live page: {}", hall.log()));
    assert!(seen < Duration::from_secs(1), "{seen:?}");
    clock.close();
}

#[test]
fn check_config_names_the_key_and_hash_password_reads_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "hall = \"open\"\nbroker = \"mqtt://h\"\nlisten = \"nowhere\"\n",
    )
    .unwrap();
    let out = hall_command()
        .args(["check-config", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(78));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.toml: listen:"), "{stderr}");

    let mut child = hall_command()
        .arg("hash-password")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(b"s3cret\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let hash = String::from_utf8(out.stdout).unwrap();
    assert!(
        tocada::hall::verify_password(hash.trim(), "s3cret"),
        "{hash}"
    );
    assert!(!tocada::hall::verify_password(hash.trim(), "s3cret\n"));

    let empty = hall_command()
        .arg("hash-password")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(65));
}

/// `public_listen`: the running hall's second listener serves the feed
/// without the rulings, the spectators' page, and nothing of the
/// arbiter's; the arbiter's feed keeps them.
#[test]
fn the_public_side_has_the_feed_without_rulings_and_nothing_of_the_arbiters() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "public_pgn = true\n",
        &format!("public_pgn = true\npublic_listen = \"127.0.0.1:{port}\"\n"),
    );
    std::fs::write(&config, text).unwrap();
    let hall = start_hall(&config);
    let public: SocketAddr = ([127, 0, 0, 1], port).into();
    // An illegal move (a violation, time added to Black), then the move.
    let clock = Clock::connect(&broker, 1, 1);
    let lines = [
        r#"{"t":0,"ev":"setup","time_control":"180+2"}"#,
        r#"{"t":0,"ev":"press","side":"black"}"#,
        r#"{"t":1000,"ev":"lift","sq":"e2"}"#,
        r#"{"t":1200,"ev":"place","sq":"e5"}"#,
        r#"{"t":1500,"ev":"press","side":"white"}"#,
        r#"{"t":3000,"ev":"lift","sq":"e5"}"#,
        r#"{"t":3200,"ev":"place","sq":"e4"}"#,
        r#"{"t":3500,"ev":"press","side":"white"}"#,
    ];
    for (seq, line) in lines.iter().enumerate() {
        clock.publish(message(1, seq, line, &[]));
    }
    assert!(
        eventually(Duration::from_secs(20), || get(
            hall.addr,
            "/pgn/round",
            None
        )
        .body
        .contains("1. e4")),
        "{}",
        hall.log()
    );
    let theirs = get(hall.addr, "/pgn/round", None).body;
    assert!(theirs.contains("Illegal move"), "{theirs}");
    let feed = get(public, "/pgn/round", None);
    assert_eq!(feed.status, 200);
    assert!(feed.body.contains("1. e4 {[%clk "), "{}", feed.body);
    assert!(!feed.body.contains("Illegal"), "{}", feed.body);
    assert!(!feed.body.contains("7.5.5"), "{}", feed.body);
    let tag = feed.header("etag").expect("an ETag").to_owned();
    assert!(get(public, "/", None).body.contains("/public.js"));
    for path in ["/login", "/arbiter", "/arbiter/boards", "/arbiter/events"] {
        assert_eq!(get(public, path, None).status, 404, "{path}");
    }
    assert_eq!(
        post(public, "/login", None, "name=ana&password=x").status,
        404
    );
    assert_eq!(
        post(
            public,
            "/arbiter/acknowledge",
            None,
            "board=1&game=1&ruling=1"
        )
        .status,
        404
    );
    // Nothing new: the tag the poller has is still the hall's.
    assert_eq!(
        feed.header("etag"),
        get(public, "/pgn/round", None).header("etag")
    );
    assert!(!tag.is_empty());
    clock.close();
}

/// `chromium` and `chromedriver` (Debian's `chromium` and
/// `chromium-driver`), if both are installed.
fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let find = |name: &str| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    };
    let found = find("chromium").zip(find("chromedriver"));
    if found.is_none() {
        eprintln!(
            "chromium or chromedriver is not installed (apt-get install chromium chromium-driver): test skipped"
        );
    }
    found
}

/// A chromedriver on a free loopback port, killed on drop.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_driver(chromedriver: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver { child, port };
    assert!(
        eventually(Duration::from_secs(20), || std::net::TcpStream::connect((
            "127.0.0.1",
            port
        ))
        .is_ok()),
        "chromedriver does not listen"
    );
    driver
}

/// The arbiter's page in headless Chromium: the login refuses a wrong
/// password, an action without the login is refused, and a move made on a
/// simulated clock shows on the page within a second.
#[test]
fn in_a_real_browser_the_arbiter_logs_in_and_sees_a_move_within_a_second() {
    use fantoccini::{ClientBuilder, Locator};

    if !have_broker() {
        return;
    }
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, true));
    let driver = start_driver(&chromedriver);
    let base = format!("http://{}", hall.addr);
    let clock = Clock::connect(&broker, 1, 1);
    let (lines, effects) = real_game(0, 9);
    let first_move = lines
        .iter()
        .position(|l| l.contains("\"press\"") && l.contains("\"white\""))
        .unwrap();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".to_owned(),
            serde_json::json!({
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=420,900"],
            }),
        );
        let browser = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await
            .expect("a Chromium session");

        // Not logged in: the page sends the browser to the login.
        browser.goto(&format!("{base}/arbiter")).await.unwrap();
        assert_eq!(browser.current_url().await.unwrap().path(), "/login");

        // An action without the login, from the page's own origin: refused.
        let status = browser
            .execute(
                "return fetch('/arbiter/acknowledge', {method: 'POST', \
                 body: new URLSearchParams({csrf: 'x', board: 1, game: 1, ruling: 0})}) \
                 .then(r => r.status);",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(status, 401);

        // A wrong password: refused, still on the login.
        let log_in = |password: &'static str| {
            let browser = browser.clone();
            async move {
                browser
                    .find(Locator::Id("name"))
                    .await
                    .unwrap()
                    .send_keys("ana")
                    .await
                    .unwrap();
                browser
                    .find(Locator::Id("password"))
                    .await
                    .unwrap()
                    .send_keys(password)
                    .await
                    .unwrap();
                browser
                    .find(Locator::Id("login"))
                    .await
                    .unwrap()
                    .click()
                    .await
                    .unwrap();
            }
        };
        log_in("not the password").await;
        // The login page holds an empty #message already: wait for the one
        // the refusal fills in, not the page the click is leaving.
        let refusal = browser
            .wait()
            .for_element(Locator::XPath(
                "//p[@id='message' and normalize-space(text()) != '']",
            ))
            .await
            .unwrap();
        assert_eq!(refusal.text().await.unwrap(), "Wrong name or password.");
        assert_eq!(browser.current_url().await.unwrap().path(), "/login");

        // The right one: the arbiter's page, board 1 on it, live.
        log_in(PASSWORD).await;
        browser
            .wait()
            .for_element(Locator::Css("#board-1"))
            .await
            .unwrap();
        assert_eq!(browser.current_url().await.unwrap().path(), "/arbiter");
        let live = browser.find(Locator::Id("live")).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while live.text().await.unwrap() != "live" && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(live.text().await.unwrap(), "live");

        // A move on the clock: on the page within a second.
        let sent = Instant::now();
        for (seq, line) in lines.iter().enumerate().take(first_move + 1) {
            clock.publish(message(1, seq, line, &effects[seq]));
        }
        let mut shown = None;
        while sent.elapsed() < Duration::from_secs(5) {
            // The page redraws a board when news comes: an element found
            // just before may be gone (stale) when its text is asked for.
            let meta = match browser.find(Locator::Css("#board-1 .meta")).await {
                Ok(element) => element.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if meta.starts_with("1 move, last ") {
                shown = Some(sent.elapsed());
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let shown = shown.unwrap_or_else(|| panic!("the move never showed: {}", hall.log()));
        eprintln!("the move showed on the page {shown:?} after it was published");
        assert!(shown < Duration::from_secs(1), "shown after {shown:?}");
        // The position drawn, and the clock running for Black (asked again
        // if a redraw makes the elements found stale).
        let mut drawn = None;
        for _ in 0..50 {
            let squares = browser
                .find_all(Locator::Css("#board-1 svg.position rect"))
                .await
                .map(|squares| squares.len());
            let side = match browser.find(Locator::Css("#board-1 .clock.running")).await {
                Ok(running) => running.attr("data-side").await.ok().flatten(),
                Err(_) => None,
            };
            if let (Ok(squares), Some(side)) = (squares, side) {
                drawn = Some((squares, side));
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(drawn, Some((64, "black".to_owned())));
        // Legible on a phone and on a projector: at each size the board's
        // squares are large, 32 pieces are drawn as SVG (no font glyph),
        // the white ones with a dark outline, and the running clock is
        // larger than the names. TOCADA_HALL_SCREENSHOT=DIR keeps the PNGs.
        let measure = "const square = document.querySelector('#board-1 svg.position rect') \
             .getBoundingClientRect().width; \
             const white = document.querySelector('#board-1 svg.position .piece.white'); \
             const style = getComputedStyle(white); \
             const clock = parseFloat(getComputedStyle( \
               document.querySelector('#board-1 .clock.running')).fontSize); \
             const name = parseFloat(getComputedStyle( \
               document.querySelector('#board-1 .player .name')).fontSize); \
             return [square, \
               document.querySelectorAll('#board-1 svg.position .piece').length, \
               style.stroke, parseFloat(style.strokeWidth), style.fill, clock / name, \
               document.documentElement.clientWidth];";
        for (name, width, height, least_px) in [
            ("phone", 390u32, 844u32, 40.0),
            ("projector", 1920, 1080, 45.0),
        ] {
            browser.set_window_size(width, height).await.unwrap();
            // The new width laid out.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let got = browser.execute(measure, vec![]).await.unwrap();
            let got = got.as_array().unwrap();
            let square = got[0].as_f64().unwrap();
            eprintln!("{name} {width}x{height}: {got:?}");
            assert!(square >= least_px, "{name}: squares of {square} px");
            // A whole board on the screen's width, not a slice of it.
            assert!(square * 8.0 <= got[6].as_f64().unwrap(), "{name}: {got:?}");
            assert_eq!(got[1], 32, "{name}: the pieces of the first moves");
            assert_eq!(got[2], "rgb(17, 17, 17)", "{name}: white's outline");
            assert!(got[3].as_f64().unwrap() > 0.0, "{name}: {got:?}");
            assert_eq!(got[4], "rgb(255, 255, 255)", "{name}: white's fill");
            assert!(
                got[5].as_f64().unwrap() > 1.1,
                "{name}: the clock stands out"
            );
            if let Some(dir) = std::env::var_os("TOCADA_HALL_SCREENSHOT") {
                let path = std::path::Path::new(&dir).join(format!("arbiter-{name}.png"));
                std::fs::write(path, browser.screenshot().await.unwrap()).unwrap();
            }
        }
        browser.close().await.unwrap();
    });
    clock.close();
}

/// One request the broadcast stand-in received.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    authorization: String,
    content_type: String,
    body: String,
    /// What the stand-in answered.
    status: u16,
}

/// A broadcast's "push PGN" endpoint on loopback (lichess's
/// `POST /api/broadcast/round/{id}/push`): records every request, refuses
/// the first `refuse` with 500.
struct BroadcastStandIn {
    addr: SocketAddr,
    received: Arc<std::sync::Mutex<Vec<Received>>>,
}

impl BroadcastStandIn {
    fn start(refuse: usize) -> BroadcastStandIn {
        BroadcastStandIn::start_at("127.0.0.1:0", refuse)
    }

    fn start_at(address: &str, refuse: usize) -> BroadcastStandIn {
        use axum::extract::{Request, State};
        type Log = Arc<std::sync::Mutex<Vec<Received>>>;
        async fn record(State((log, refuse)): State<(Log, usize)>, request: Request) -> u16 {
            let path = request.uri().path().to_owned();
            let authorization = request
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            let content_type = request
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            let body = axum::body::to_bytes(request.into_body(), 1 << 24)
                .await
                .unwrap();
            let mut log = log.lock().unwrap();
            let status = if log.len() < refuse { 500 } else { 200 };
            log.push(Received {
                path,
                authorization,
                content_type,
                body: String::from_utf8(body.to_vec()).unwrap(),
                status,
            });
            status
        }
        let received: Log = Arc::default();
        let listener = std::net::TcpListener::bind(address).unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let state = (Arc::clone(&received), refuse);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let app = axum::Router::new()
                    .fallback(|state: State<(Log, usize)>, request: Request| async move {
                        axum::http::StatusCode::from_u16(record(state, request).await).unwrap()
                    })
                    .with_state(state);
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        BroadcastStandIn { addr, received }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

#[test]
fn the_round_is_pushed_to_a_broadcast_with_its_token_and_a_refused_push_is_retried() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let stand_in = BroadcastStandIn::start(1);
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    add_push(
        &config,
        "lip_hall_secret",
        &format!("http://{}/api/broadcast/round/r0und1d/push", stand_in.addr),
        "",
    );
    let hall = start_hall(&config);
    // Nothing played, nothing pushed.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(stand_in.received().is_empty(), "{:?}", stand_in.received());

    let (lines, effects) = real_game(0, 5);
    let clock = Clock::connect(&broker, 1, 1);
    clock.publish_game(3, &lines, &effects);
    let expected = pgn_from_lines(&lines, tags(1)).unwrap();
    let last_accepted = || {
        stand_in
            .received()
            .into_iter()
            .rev()
            .find(|r| r.status == 200)
    };
    assert!(
        eventually(Duration::from_secs(30), || last_accepted()
            .is_some_and(|r| r.body.trim() == expected.trim())),
        "the broadcast did not get the game: {:?}\nexpected:\n{expected}\nlog:\n{}",
        last_accepted(),
        hall.log()
    );
    let received = stand_in.received();
    // The first push was refused with 500 and retried.
    assert_eq!(received[0].status, 500);
    assert!(received.len() >= 2);
    assert!(hall.log().contains("push failed"), "{}", hall.log());
    for push in &received {
        assert_eq!(push.path, "/api/broadcast/round/r0und1d/push");
        assert_eq!(push.authorization, "Bearer lip_hall_secret");
        assert!(push.content_type.starts_with("text/plain"), "{push:?}");
    }
    // The whole round as the feed serves it, moves and [%clk] in it.
    let accepted = last_accepted().unwrap();
    assert_eq!(accepted.body, get(hall.addr, "/pgn/round", None).body);
    assert!(
        accepted.body.matches("[%clk ").count() > 20,
        "{}",
        accepted.body
    );
    // Nothing changed: nothing more pushed, though the interval is 1 s.
    let count = stand_in.received().len();
    std::thread::sleep(Duration::from_millis(3000));
    assert_eq!(stand_in.received().len(), count);
    // The token is never logged.
    assert!(!hall.log().contains("lip_hall_secret"), "{}", hall.log());
    clock.close();
    hall.stop();
}

#[test]
fn a_broadcast_that_is_down_is_retried_and_the_hall_goes_on() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    // A port nobody listens on, yet.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    add_push(
        &config,
        "lip_t",
        &format!("http://127.0.0.1:{port}/push"),
        "",
    );
    let hall = start_hall(&config);
    let (lines, effects) = real_game(1, 9);
    let clock = Clock::connect(&broker, 1, 1);
    clock.publish_game(2, &lines, &effects);
    let expected = pgn_from_lines(&lines, tags(1)).unwrap();
    // Refused connections: logged, retried, and the game still comes in.
    assert!(
        eventually(Duration::from_secs(20), || hall
            .log()
            .matches("push failed")
            .count()
            >= 2),
        "{}",
        hall.log()
    );
    assert!(
        eventually(Duration::from_secs(20), || get(hall.addr, "/pgn/1", None)
            .body
            == expected),
        "{}",
        hall.log()
    );
    // The broadcast comes up: the next attempt delivers the whole game.
    let stand_in = BroadcastStandIn::start_at(&format!("127.0.0.1:{port}"), 0);
    assert!(
        eventually(Duration::from_secs(70), || stand_in
            .received()
            .last()
            .is_some_and(|r| r.body.trim() == expected.trim())),
        "{:?}\n{}",
        stand_in.received(),
        hall.log()
    );
    clock.close();
    hall.stop();
}

/// A push over HTTPS, in process: the hall's [`tocada::hall::push::Pusher`]
/// against the HTTPS stand-in, its CA made for this test.
fn https_target(url: String, ca_file: Option<&Path>) -> tocada::hall::push::Target {
    use tocada::hall::push;
    let url: axum::http::Uri = url.parse().unwrap();
    let tls = push::tls_for(&url, ca_file).unwrap();
    push::Target {
        url,
        token: "lip_tls_secret".to_owned(),
        every: Duration::from_secs(1),
        tls: Arc::new(tls),
    }
}

#[tokio::test]
async fn an_https_push_is_checked_against_the_ca_file_and_another_cas_certificate_is_refused() {
    use tocada::hall::push::Pusher;
    let club = TestCa::new("tocada test club CA");
    let other = TestCa::new("tocada test other CA");
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("club-ca.pem");
    std::fs::write(&ca_file, club.pem()).unwrap();
    let stand_in = HttpsStandIn::start(club.server_config());
    let url = format!("https://{}/api/broadcast/round/r0und1d/push", stand_in.addr);

    // The club's CA: the PGN arrives, with the token, over TLS.
    let pusher = Pusher::new(https_target(url.clone(), Some(&ca_file)));
    let pgn = "[Event \"Club\"]\n\n1. e4 e5 *\n".to_owned();
    let status = pusher.push(pgn.clone()).await.unwrap();
    assert_eq!(status.as_u16(), 200);
    let received = stand_in.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0].path, "/api/broadcast/round/r0und1d/push");
    assert_eq!(received[0].authorization, "Bearer lip_tls_secret");
    assert!(received[0].content_type.starts_with("text/plain"));
    assert_eq!(received[0].body, pgn);

    // A server whose certificate another CA signed: refused before a byte
    // of the request (or its token) goes, and the reason is said.
    stand_in.serve(other.server_config());
    let pusher = Pusher::new(https_target(url.clone(), Some(&ca_file)));
    let why = pusher.push(pgn.clone()).await.unwrap_err();
    assert!(why.contains("certificate"), "{why}");
    assert!(why.contains("UnknownIssuer"), "{why}");
    assert!(!why.contains("lip_tls_secret"), "{why}");
    assert_eq!(stand_in.received().len(), 1);
    assert!(eventually(Duration::from_secs(5), || stand_in
        .refused_handshakes()
        >= 1));

    // Without push.ca_file the OS's roots decide, and no public root
    // signed a CA made a moment ago (where the OS has roots at all).
    stand_in.serve(club.server_config());
    match tocada::hall::push::tls_config(None) {
        Ok(config) => {
            let mut target = https_target(url.clone(), Some(&ca_file));
            target.tls = Arc::new(config);
            let why = Pusher::new(target).push(pgn).await.unwrap_err();
            assert!(why.contains("UnknownIssuer"), "{why}");
            assert_eq!(stand_in.received().len(), 1);
        }
        Err(err) => assert!(err.to_string().contains("ca-certificates"), "{err}"),
    }
}

#[test]
fn a_ca_file_that_is_missing_or_not_pem_is_refused_with_the_reason() {
    use tocada::hall::push::{TlsError, tls_config};
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    assert!(matches!(
        tls_config(Some(&missing)),
        Err(TlsError::Read { .. })
    ));
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let err = tls_config(Some(&empty)).unwrap_err();
    assert!(err.to_string().contains("no certificate"), "{err}");
    // A key is not a certificate.
    let key = dir.path().join("key.pem");
    std::fs::write(&key, rcgen::KeyPair::generate().unwrap().serialize_pem()).unwrap();
    assert!(matches!(
        tls_config(Some(&key)),
        Err(TlsError::CaFile { .. })
    ));
    let good = dir.path().join("ca.pem");
    std::fs::write(&good, TestCa::new("tocada test CA").pem()).unwrap();
    assert!(tls_config(Some(&good)).is_ok());
}

#[test]
fn the_round_is_pushed_over_https_once_the_server_has_the_club_cas_certificate() {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let club = TestCa::new("tocada test club CA");
    let other = TestCa::new("tocada test other CA");
    // First a server whose certificate the hall must refuse.
    let stand_in = HttpsStandIn::start(other.server_config());
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    std::fs::write(dir.path().join("club-ca.pem"), club.pem()).unwrap();
    add_push(
        &config,
        "lip_hall_tls_secret",
        &format!("https://{}/api/broadcast/round/r0und1d/push", stand_in.addr),
        &format!("ca_file = \"{}/club-ca.pem\"\n", dir.path().display()),
    );
    let check = hall_command()
        .args(["check-config", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{check:?}");
    let hall = start_hall(&config);

    let (lines, effects) = real_game(0, 5);
    let clock = Clock::connect(&broker, 1, 1);
    clock.publish_game(3, &lines, &effects);
    let expected = pgn_from_lines(&lines, tags(1)).unwrap();
    // Refused, said why, and backed off: 2 s after the first failure,
    // 4 s after the second, though every_s is 1.
    assert!(
        eventually(Duration::from_secs(30), || hall
            .log()
            .contains("failures=2")),
        "{}",
        hall.log()
    );
    let log = hall.log();
    assert!(log.contains("push failed"), "{log}");
    assert!(log.contains("UnknownIssuer"), "{log}");
    assert!(log.contains("retry_in_ms=4000"), "{log}");
    assert!(stand_in.received().is_empty(), "{:?}", stand_in.received());
    assert!(stand_in.refused_handshakes() >= 2);

    // The server gets the club CA's certificate: the next attempt goes.
    stand_in.serve(club.server_config());
    assert!(
        eventually(Duration::from_secs(30), || stand_in
            .received()
            .last()
            .is_some_and(|r| r.body.trim() == expected.trim())),
        "{:?}\n{}",
        stand_in.received(),
        hall.log()
    );
    for push in stand_in.received() {
        assert_eq!(push.path, "/api/broadcast/round/r0und1d/push");
        assert_eq!(push.authorization, "Bearer lip_hall_tls_secret");
    }
    // Logged once the answer is back (the stand-in records before it answers).
    assert!(
        eventually(Duration::from_secs(10), || hall
            .log()
            .contains("round pushed")),
        "{}",
        hall.log()
    );
    // The token is never logged.
    assert!(
        !hall.log().contains("lip_hall_tls_secret"),
        "{}",
        hall.log()
    );
    clock.close();
    hall.stop();
}

#[test]
fn without_a_ca_file_an_https_push_needs_the_oss_roots_and_check_config_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("push-token");
    std::fs::write(&token, "lip_t\n").unwrap();
    let path = dir.path().join("hall.toml");
    std::fs::write(
        &path,
        format!(
            "hall = \"open\"\nbroker = \"mqtt://127.0.0.1:1\"\nlisten = \"127.0.0.1:0\"\nstore = \"{}/hall.sqlite\"\n[[arbiter]]\nname = \"ana\"\npassword_hash = \"{}\"\n[push]\nurl = \"https://lichess.org/api/broadcast/round/x/push\"\ntoken_file = \"{}\"\n",
            dir.path().display(),
            arbiter_hash(),
            token.display()
        ),
    )
    .unwrap();
    // The OS's store as rustls-native-certs finds it, pointed here at a
    // file: empty, it holds no root, and the hall will not start.
    let roots = dir.path().join("roots.pem");
    std::fs::write(&roots, "").unwrap();
    let check = |roots: &Path| {
        hall_command()
            .args(["check-config", "--config"])
            .arg(&path)
            .env("SSL_CERT_FILE", roots)
            .env_remove("SSL_CERT_DIR")
            .output()
            .unwrap()
    };
    let out = check(&roots);
    assert_eq!(out.status.code(), Some(78), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("push.url:"), "{stderr}");
    assert!(stderr.contains("install ca-certificates"), "{stderr}");
    // With a root in it, the same configuration passes.
    std::fs::write(&roots, TestCa::new("tocada test root").pem()).unwrap();
    let out = check(&roots);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_bad_push_url_or_a_missing_token_file_is_named_by_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let base = format!(
        "hall = \"open\"\nbroker = \"mqtt://127.0.0.1:1\"\nlisten = \"127.0.0.1:0\"\nstore = \"{}/hall.sqlite\"\n[[arbiter]]\nname = \"ana\"\npassword_hash = \"{}\"\n",
        dir.path().display(),
        arbiter_hash()
    );
    let token = dir.path().join("push-token");
    std::fs::write(&token, "lip_t\n").unwrap();
    let not_pem = dir.path().join("not-pem.pem");
    std::fs::write(&not_pem, "lip_t\n").unwrap();
    let https = format!(
        "[push]\nurl = \"https://lichess.org/api/broadcast/round/x/push\"\ntoken_file = \"{}\"\n",
        token.display()
    );
    let cases = [
        (
            "[push]\nurl = \"ftp://broadcast/\"\ntoken_file = \"/nowhere\"\n".to_owned(),
            "push.url:",
        ),
        (
            "[push]\nurl = \"https:///x/push\"\ntoken_file = \"/nowhere\"\n".to_owned(),
            "push.url:",
        ),
        (
            format!("{https}ca_file = \"/nowhere/ca.pem\"\n"),
            "push.ca_file:",
        ),
        (
            format!("{https}ca_file = \"{}\"\n", not_pem.display()),
            "push.ca_file:",
        ),
        (
            format!(
                "[push]\nurl = \"http://relay.lan/push\"\ntoken_file = \"{}\"\nca_file = \"{}\"\n",
                token.display(),
                not_pem.display()
            ),
            "push.ca_file:",
        ),
        (
            "[push]\nurl = \"http://127.0.0.1:9/push\"\ntoken_file = \"/nowhere/token\"\n"
                .to_owned(),
            "push.token_file:",
        ),
    ];
    for (push, key) in cases {
        let path = dir.path().join("hall.toml");
        std::fs::write(&path, format!("{base}{push}")).unwrap();
        for command in ["check-config", "run"] {
            let out = hall_command()
                .args([command, "--config"])
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(78), "{command} {push}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(key), "{command}: {key}: {stderr}");
        }
    }
}

#[test]
fn check_config_reads_the_credentials_file_as_run_does_in_either_form() {
    let dir = tempfile::tempdir().unwrap();
    let credentials = dir.path().join("hall.credentials");
    let path = dir.path().join("hall.toml");
    std::fs::write(
        &path,
        format!(
            "hall = \"open\"\nbroker = \"mqtt://127.0.0.1:1\"\nlisten = \"127.0.0.1:0\"\nstore = \"{}/hall.sqlite\"\ncredentials = \"{}\"\n[[arbiter]]\nname = \"ana\"\npassword_hash = \"{}\"\n",
            dir.path().display(),
            credentials.display(),
            arbiter_hash()
        ),
    )
    .unwrap();
    // The credentials file is missing: both say so, with 78 (check-config
    // said "ok" here before).
    for args in [
        vec!["check-config".into(), path.clone().into_os_string()],
        vec![
            "check-config".into(),
            "--config".into(),
            path.clone().into_os_string(),
        ],
        vec![
            "run".into(),
            "--config".into(),
            path.clone().into_os_string(),
        ],
    ] {
        let out = hall_command().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(78), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("credentials"), "{args:?}: {stderr}");
    }
    // A file that is not one user:password line is refused the same way.
    std::fs::write(&credentials, "no colon here\n").unwrap();
    let out = hall_command()
        .arg("check-config")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(78));
    std::fs::write(&credentials, "hall:secret\n").unwrap();
    for form in [&["check-config"][..], &["check-config", "--config"][..]] {
        let out = hall_command().args(form).arg(&path).output().unwrap();
        assert!(
            out.status.success(),
            "{form:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains(": ok: hall \"open\""));
    }
    // Both forms at once are refused by the command line.
    let out = hall_command()
        .args(["check-config", "--config"])
        .arg(&path)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// Issue 22 §1: no single clock or visitor can stop the hall.

/// A broker with the shipped configuration's settings for `clocks`.
fn shipped_broker(clocks: &[u32]) -> Mosquitto {
    Mosquitto::for_hall_shipped(HALL, clocks)
}

/// Connects with `user`'s password under `client_id` (a clean session),
/// waits for the broker's answer and disconnects: what an attacker with
/// one clock's password would try. Whether the broker accepted.
fn connect_once(broker: &Mosquitto, user: u32, client_id: &str) -> bool {
    let mut options = MqttOptions::new(client_id, "127.0.0.1", broker.port());
    options.set_credentials(format!("clock-{user}"), format!("pw-{user}"));
    options.set_clean_session(true);
    let (client, mut connection) = Client::new(options, 10);
    let mut accepted = false;
    for event in connection.iter().take(5) {
        match event {
            Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(ack))) => {
                accepted = ack.code == rumqttc::ConnectReturnCode::Success;
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let _ = client.disconnect();
    for _ in connection.iter().take(3) {}
    accepted
}

/// Whether board `board`'s PGN becomes the game of `lines` within 30 s.
fn board_has_game(hall: &HallProcess, board: u32, lines: &[String]) -> bool {
    let expected = pgn_from_lines(lines, tags(board)).unwrap();
    let path = format!("/pgn/{board}");
    eventually(Duration::from_secs(30), || {
        get(hall.addr, &path, None).body == expected
    })
}

#[test]
fn the_shipped_broker_keeps_packets_below_the_halls_limit() {
    let settings = support::mosquitto::shipped_settings();
    let broker_max: usize = settings
        .iter()
        .find_map(|line| line.strip_prefix("max_packet_size "))
        .expect("the shipped tocada.conf sets max_packet_size")
        .trim()
        .parse()
        .unwrap();
    assert!(broker_max < tocada::hall::mqtt::MAX_INCOMING_PACKET);
    assert!(broker_max >= tocada::hall::MAX_PAYLOAD);
    assert!(settings.contains(&"use_username_as_clientid true".to_owned()));
}

#[test]
fn an_oversized_message_is_counted_and_dropped_and_every_other_board_goes_on() {
    if !have_broker() {
        return;
    }
    // A broker without a packet limit of its own delivers 100 kB: the
    // hall takes it, counts it and drops it (before, its connection failed
    // and the broker handed the same message over at every reconnection).
    let broker = broker(&[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    let hall = start_hall(&config);
    let poison = Clock::connect(&broker, 1, 1);
    poison.publish(vec![b'x'; 100_000]);
    let (lines, effects) = real_game(1, 5);
    let clock = Clock::connect(&broker, 2, 2);
    clock.publish_game(3, &lines, &effects);
    assert!(
        board_has_game(&hall, 2, &lines),
        "board 2 stopped after board 1's oversized message:\n{}",
        hall.log()
    );
    let log = hall.log();
    assert!(
        log.contains("too_large") || log.contains("payload over"),
        "{log}"
    );
    assert!(!log.contains("lost the broker"), "{log}");
    // The logged line quotes a few hundred bytes of it, not 100 kB.
    let longest = log.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 2000, "a log line of {longest} bytes");
    // A restart with the same persistent session: nothing handed over
    // forever, board 2's game is all there.
    hall.stop();
    let hall = start_hall(&config);
    assert!(board_has_game(&hall, 2, &lines), "{}", hall.log());
    poison.close();
    clock.close();

    // The shipped broker refuses it outright: the clock is disconnected,
    // the hall never sees it, board 2 goes on.
    let broker = shipped_broker(&[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let hall = start_hall(&write_config(dir.path(), &broker, true));
    let poison = Clock::connect(&broker, 1, 1);
    poison.publish(vec![b'x'; 70_000]);
    let clock = Clock::connect(&broker, 2, 2);
    clock.publish_game(3, &lines, &effects);
    assert!(board_has_game(&hall, 2, &lines), "{}", hall.log());
    assert!(!hall.log().contains("too_large"), "{}", hall.log());
    poison.close();
    clock.close();
}

#[test]
fn one_clocks_password_cannot_take_over_the_halls_session_or_another_clocks() {
    if !have_broker() {
        return;
    }
    let broker = shipped_broker(&[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker, true);
    let hall = start_hall(&config);
    hall.stop();
    // While the hall is away, board 2's game is queued for its session.
    let (lines, effects) = real_game(2, 9);
    let clock = Clock::connect(&broker, 2, 2);
    clock.publish_game(4, &lines, &effects);
    // Clock 1's password under the hall's client id and under the hall's
    // user name, each a clean session: before, the first threw the hall's
    // queue away.
    for id in ["tocada-hall-open", "hall"] {
        connect_once(&broker, 1, id);
    }
    let hall = start_hall(&config);
    assert!(
        board_has_game(&hall, 2, &lines),
        "the hall's queued events were lost:\n{}",
        hall.log()
    );
    // Clock 1's password under clock 2's client ids: clock 2's connection
    // stays, its will does not fire, and what it publishes next arrives.
    let (cookie, _) = log_in(hall.addr);
    let status = BoardAddress::new(HALL, 2).unwrap().status_topic();
    clock
        .client
        .publish(status.clone(), QoS::AtLeastOnce, true, "online")
        .unwrap();
    for id in ["clock-2", "clock-2-2", "tocada-open-2"] {
        connect_once(&broker, 1, id);
    }
    let (more, more_effects) = real_game(0, 3);
    clock.publish_game(5, &more, &more_effects);
    assert!(board_has_game(&hall, 2, &more), "{}", hall.log());
    let boards = get(hall.addr, "/arbiter/boards", Some(&cookie)).body;
    let boards: serde_json::Value = serde_json::from_str(&boards).unwrap();
    let board_2 = boards["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["board"] == 2)
        .unwrap()
        .clone();
    assert_eq!(board_2["online"], true, "{board_2}");
    assert!(
        !broker.log().contains("Client clock-2 already connected"),
        "{}",
        broker.log()
    );
    clock.close();
}

/// A hall with one board and `limits` (a `[limits]` table), under the
/// attack `attack` makes on it; where there is no broker, nothing.
fn under_attack(limits: &str, attack: impl FnOnce(&HallProcess)) {
    if !have_broker() {
        return;
    }
    let broker = broker(&[1]);
    let dir = tempfile::tempdir().unwrap();
    let config = write_hall_config(
        dir.path(),
        HALL,
        &broker.url(),
        arbiter_hash(),
        true,
        "Hall test",
        &format!("[limits]\n{limits}"),
    );
    attack(&start_hall(&config));
}

#[test]
fn forged_logins_cost_no_hash_and_failures_back_off_until_they_expire() {
    under_attack(
        "login_backoff_max_s = 2\nlogin_free_failures = 3\nconnections_per_address = 1000\n",
        forged_logins,
    );
}

/// Forged logins by the hundred, then wrong passwords, on `hall`.
fn forged_logins(hall: &HallProcess) {
    let addr = hall.addr;
    // 400 concurrent posts with a token of their own making, cookie and
    // form agreeing: refused before any hash, memory flat.
    let started = Instant::now();
    let forged: Vec<u16> = std::thread::scope(|scope| {
        let posts: Vec<_> = (0..400)
            .map(|i| {
                scope.spawn(move || {
                    let token = format!("{i:080x}");
                    let cookie = format!("tocada_login={token}");
                    post(
                        addr,
                        "/login",
                        Some(&cookie),
                        &format!("name=ana&password=guess{i}&csrf={token}"),
                    )
                    .status
                })
            })
            .collect();
        posts.into_iter().map(|p| p.join().unwrap()).collect()
    });
    assert!(forged.iter().all(|s| *s == 403), "{forged:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let peak = hall.peak_rss_kib();
    assert!(peak < 200 * 1024, "peak RSS {peak} KiB");
    // Real forms, wrong passwords: three free failures, then a wait that
    // refuses even the right password.
    let statuses: Vec<u16> = (0..5)
        .map(|_| http::log_in(addr, "ana", "wrong").status)
        .collect();
    assert_eq!(&statuses[..3], [401, 401, 401], "{statuses:?}");
    assert_eq!(statuses[4], 429, "{statuses:?}");
    let refused = http::log_in(addr, "ana", PASSWORD);
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some());
    // Concurrent real forms: never more than a few hashes at once, the
    // rest answered at once.
    let burst: Vec<u16> = std::thread::scope(|scope| {
        let posts: Vec<_> = (0..40)
            .map(|i| scope.spawn(move || http::log_in(addr, &format!("x{i}"), "wrong").status))
            .collect();
        posts.into_iter().map(|p| p.join().unwrap()).collect()
    });
    assert!(
        burst.iter().all(|s| [401, 429, 503].contains(s)),
        "{burst:?}"
    );
    // The attack over, the wait expires and the right password works.
    std::thread::sleep(Duration::from_millis(2500));
    let good = http::log_in(addr, "ana", PASSWORD);
    assert_eq!(good.status, 303, "{good:?}\n{}", hall.log());
}

#[test]
fn half_sent_requests_time_out_and_leave_the_page_answering() {
    under_attack(
        "header_timeout_s = 2\nconnections_per_address = 50\n",
        half_sent_requests,
    );
}

/// Requests left half-sent by the hundred, from one address, on `hall`.
fn half_sent_requests(hall: &HallProcess) {
    use std::io::Write;
    // 300 half-sent requests from another loopback address.
    let attacker: std::net::IpAddr = [127, 0, 0, 2].into();
    let mut open: Vec<std::net::TcpStream> = Vec::new();
    for _ in 0..300 {
        let socket = connect_from(attacker, hall.addr);
        let mut stream = socket;
        let _ = stream.write_all(b"GET /pgn/round HTTP/1.1\r\nHost: hall.test\r\nX-Slow: ");
        open.push(stream);
    }
    // The page still answers everyone else, at once.
    let started = Instant::now();
    let page = get(hall.addr, "/login", None);
    assert_eq!(page.status, 200);
    assert!(started.elapsed() < Duration::from_secs(2));
    // Beyond the cap per address, connections are closed as they come;
    // the rest are closed when their headers' time runs out (2 s).
    assert!(closed_within(
        open.last_mut().unwrap(),
        Duration::from_secs(1)
    ));
    assert!(closed_within(&mut open[0], Duration::from_secs(6)));
    assert_eq!(get(hall.addr, "/login", None).status, 200);
}

/// Whether the other end closes `stream` within `within` (whatever it
/// says first, hyper's 408 for one).
fn closed_within(stream: &mut std::net::TcpStream, within: Duration) -> bool {
    use std::io::Read;
    let deadline = Instant::now() + within;
    let mut buffer = [0u8; 512];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// A TCP connection to `to` from the address `from` (any loopback
/// address is this machine's).
fn connect_from(from: std::net::IpAddr, to: SocketAddr) -> std::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = runtime.block_on(socket.connect(to)).unwrap();
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
}
