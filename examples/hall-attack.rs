//! Every attack of issue 22 §1 against a real Mosquitto (the shipped
//! `packaging/mosquitto/tocada.conf` settings) and a real `tocada-hall`
//! on loopback, one after the other, while an honest clock (board 2)
//! plays a game in each: a malicious clock (board 1, its own password)
//! and a visitor on the LAN try to stop the hall or lose board 2's events.
//!
//! ```text
//! cargo run --release --example hall-attack
//! ```
//!
//! Each attack is *held* when the hall still has every event of board 2's
//! game of that round, still answers its page, and the attack's own check
//! passes. Printed: a line per attack, and last, exactly:
//! `attacks=N held=N lost_events=0 hall_peak_rss_kib=…`; the exit code is
//! 1 if an attack was not held or an event was lost.

#[path = "../tests/support/http.rs"]
mod http;
#[path = "../tests/support/lines.rs"]
mod lines;
#[path = "../tests/support/mosquitto.rs"]
mod mosquitto;
#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;
#[path = "support/hall.rs"]
mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
use tocada::broadcast::{BoardAddress, BoardState, EventMessage, ResendRequest};
use tocada::gesture::Script;

use support::HallChild;

const HALL: &str = "attack";
const PASSWORD: &str = "attack test";
/// What board 1 floods while the hall is down: more than the shipped
/// broker queues for a client (100 000).
const FLOOD: usize = 120_000;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("--hall") {
        return support::serve(PathBuf::from(args.next().expect("--hall CONFIG")));
    }
    run()
}

/// A connection to the broker: its client, the acknowledgements counted,
/// and the flag that ends its event loop's thread.
struct Conn {
    client: Client,
    acked: Arc<Mutex<u64>>,
    stop: Arc<AtomicBool>,
}

impl Conn {
    /// Disconnects for good (no reconnection).
    fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.client.try_disconnect();
    }
}

/// A client of the broker with clock `user`'s password, its event loop
/// driven on a thread; `on_publish` sees every message it receives.
fn connect(
    port: u16,
    user: u32,
    client_id: &str,
    on_publish: impl Fn(&Client, &rumqttc::Publish) + Send + 'static,
) -> Conn {
    let mut options = MqttOptions::new(client_id, "127.0.0.1", port);
    options
        .set_credentials(format!("clock-{user}"), format!("pw-{user}"))
        .set_keep_alive(Duration::from_secs(30))
        .set_max_packet_size(1 << 20, 1 << 20)
        .set_inflight(100);
    let (client, mut connection) = Client::new(options, FLOOD + 1000);
    let acked = Arc::new(Mutex::new(0u64));
    let counted = Arc::clone(&acked);
    let me = client.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = Arc::clone(&stop);
    std::thread::spawn(move || {
        for event in connection.iter() {
            if stopping.load(Ordering::Relaxed) {
                break;
            }
            match event {
                Ok(Event::Incoming(Packet::PubAck(_))) => *counted.lock().unwrap() += 1,
                Ok(Event::Incoming(Packet::Publish(publish))) => on_publish(&me, &publish),
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    });
    Conn {
        client,
        acked,
        stop,
    }
}

/// Waits until `acked` reaches `count` (the broker took them all).
fn wait_acked(acked: &Mutex<u64>, count: u64, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if *acked.lock().unwrap() >= count {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The honest clock of board 2: it publishes its games' events and a
/// retained state after each, and, as `tocada-publish` does, answers the
/// hall's requests on `…/2/resend` by sending the events again.
struct HonestClock {
    client: Client,
    acked: Arc<Mutex<u64>>,
    sent: Arc<Mutex<HashMap<i64, Vec<Vec<u8>>>>>,
    published: u64,
    game: Vec<String>,
}

impl HonestClock {
    fn start(port: u16) -> HonestClock {
        let address = BoardAddress::new(HALL, 2).unwrap();
        let sent: Arc<Mutex<HashMap<i64, Vec<Vec<u8>>>>> = Arc::default();
        let kept = Arc::clone(&sent);
        let events = address.events_topic();
        let Conn { client, acked, .. } = connect(port, 2, "clock-2", move |client, publish| {
            let Ok(request) = serde_json::from_slice::<ResendRequest>(&publish.payload) else {
                return;
            };
            let again: Vec<Vec<u8>> = kept
                .lock()
                .unwrap()
                .get(&request.game)
                .map(|game| {
                    game.iter()
                        .skip(request.seq.max(0) as usize)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            for payload in again {
                let _ = client.try_publish(events.clone(), QoS::AtLeastOnce, false, payload);
            }
        });
        client
            .subscribe(address.resend_topic(), QoS::AtLeastOnce)
            .unwrap();
        let reference = &pgn::reference_games()[0];
        let script = reference.play_into(Script::varied(reference.start(), false, 3));
        let game = lines::game_lines(&reference.rules(), script.events());
        HonestClock {
            client,
            acked,
            sent,
            published: 1,
            game,
        }
    }

    /// Plays game `id`: every event, then the retained state.
    fn play(&mut self, id: i64) {
        let address = BoardAddress::new(HALL, 2).unwrap();
        let mut payloads = Vec::new();
        for (seq, line) in self.game.iter().enumerate() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            payloads.push(
                serde_json::to_vec(&EventMessage {
                    game: id,
                    seq: seq as i64,
                    t: value["t"].as_u64().unwrap(),
                    line: value,
                    effects: vec![],
                })
                .unwrap(),
            );
        }
        self.sent.lock().unwrap().insert(id, payloads.clone());
        for payload in payloads {
            self.client
                .publish(address.events_topic(), QoS::AtLeastOnce, false, payload)
                .unwrap();
        }
        let state = BoardState {
            game: id,
            seq: self.game.len() as i64 - 1,
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_owned(),
            white_ms: 60_000,
            black_ms: 60_000,
            running: None,
            last_ruling: None,
            result: None,
            moves: vec![],
        };
        self.client
            .publish(
                address.state_topic(),
                QoS::AtLeastOnce,
                true,
                serde_json::to_vec(&state).unwrap(),
            )
            .unwrap();
        self.published += self.game.len() as u64 + 1;
        wait_acked(&self.acked, self.published, Duration::from_secs(30));
    }
}

/// The arbiter's view of board `board`, logged in.
fn board_view(addr: SocketAddr, cookie: &str, board: u32) -> serde_json::Value {
    let body = http::get(addr, &format!("/arbiter/boards/{board}"), Some(cookie)).body;
    serde_json::from_str::<serde_json::Value>(&body).unwrap_or_default()["board"].clone()
}

/// Events of board 2's game `game` the hall lacks after waiting for them.
fn lost_of(addr: SocketAddr, cookie: &str, game: i64, expected: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let view = board_view(addr, cookie, 2);
        let have = if view["game"] == game {
            view["events"].as_u64().unwrap_or(0) as usize
        } else {
            0
        };
        if have >= expected || Instant::now() > deadline {
            return expected.saturating_sub(have);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn log_in(addr: SocketAddr) -> String {
    let response = http::log_in(addr, "ana", PASSWORD);
    response.cookie("tocada_hall").unwrap_or_default()
}

/// A TCP connection to `to` from the loopback address `from`.
fn connect_from(from: IpAddr, to: SocketAddr) -> Option<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(from, 0)).ok()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    let stream = runtime.block_on(socket.connect(to)).ok()?.into_std().ok()?;
    stream.set_nonblocking(false).ok()?;
    Some(stream)
}

/// Whether a clock's password can connect under `client_id` (a clean
/// session), then disconnects.
fn connect_once(port: u16, user: u32, client_id: &str) {
    let conn = connect(port, user, client_id, |_, _| {});
    std::thread::sleep(Duration::from_millis(300));
    conn.close();
}

fn run() -> ExitCode {
    if mosquitto::mosquitto_program().is_none() {
        eprintln!("hall-attack: mosquitto is not installed (apt-get install mosquitto)");
        return ExitCode::FAILURE;
    }
    let broker = mosquitto::Mosquitto::for_hall_shipped(HALL, &[1, 2]);
    let port = broker.port();
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(
        dir.path(),
        HALL,
        &broker.url(),
        "ana",
        PASSWORD,
        "[limits]\nlogin_backoff_max_s = 5\nheader_timeout_s = 5\n",
    );
    let log = dir.path().join("hall.log");
    let mut hall = HallChild::start(&config, Some(&log));
    let mut peak = 0;
    let mut honest = HonestClock::start(port);
    let expected = honest.game.len();
    let mut cookie = log_in(hall.addr);
    let mut attacks = 0;
    let mut held = 0;
    let mut lost_events = 0;
    let mut report = |name: &str, ok: bool, lost: usize, detail: String| {
        attacks += 1;
        held += usize::from(ok && lost == 0);
        lost_events += lost;
        println!(
            "attack {name}: {} lost={lost} {detail}",
            if ok && lost == 0 { "held" } else { "NOT HELD" }
        );
    };
    let board_1 = BoardAddress::new(HALL, 1).unwrap();

    // 1. An oversized message: the broker refuses it, the hall goes on.
    let big = connect(port, 1, "clock-1", |_, _| {});
    let _ = big.client.publish(
        board_1.events_topic(),
        QoS::AtLeastOnce,
        false,
        vec![b'x'; 70_000],
    );
    honest.play(1);
    big.close();
    let lost = lost_of(hall.addr, &cookie, 1, expected);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    report(
        "oversized",
        !text.contains("lost the broker"),
        lost,
        String::new(),
    );

    // 2. Clock 1's password under the hall's and clock 2's client ids.
    hall.stop();
    for id in ["tocada-hall-attack", "hall", "clock-2", "tocada-attack-2"] {
        connect_once(port, 1, id);
    }
    honest.play(2);
    for id in ["tocada-hall-attack", "hall"] {
        connect_once(port, 1, id);
    }
    peak = peak.max(hall.peak_rss_kib());
    hall = HallChild::start(&config, Some(&log));
    cookie = log_in(hall.addr);
    let lost = lost_of(hall.addr, &cookie, 2, expected);
    report("client_id", true, lost, String::new());

    // 3. A flood while the hall is down, board 2 playing in the middle of it.
    hall.stop();
    let Conn {
        client: attacker,
        acked: attacker_acked,
        ..
    } = connect(port, 1, "clock-1", |_, _| {});
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let pause = |seq: usize| {
        format!(r#"{{"game":1,"seq":{seq},"t":0,"line":{{"t":0,"ev":"pause"}},"effects":[]}}"#)
    };
    let before = *attacker_acked.lock().unwrap();
    for seq in 0..FLOOD / 2 {
        let _ = attacker.publish(board_1.events_topic(), QoS::AtLeastOnce, false, pause(seq));
    }
    let flooded = wait_acked(
        &attacker_acked,
        before + (FLOOD / 2) as u64,
        Duration::from_secs(120),
    );
    honest.play(3);
    for seq in FLOOD / 2..FLOOD {
        let _ = attacker.publish(board_1.events_topic(), QoS::AtLeastOnce, false, pause(seq));
    }
    let flooded = flooded
        && wait_acked(
            &attacker_acked,
            before + FLOOD as u64,
            Duration::from_secs(120),
        );
    peak = peak.max(hall.peak_rss_kib());
    hall = HallChild::start(&config, Some(&log));
    cookie = log_in(hall.addr);
    let lost = lost_of(hall.addr, &cookie, 3, expected);
    report(
        "flood",
        flooded,
        lost,
        format!("events={FLOOD} in {:.1}s", started.elapsed().as_secs_f64()),
    );

    // 4. 400 concurrent forged logins, then the right password after the
    // back-off expires.
    let addr = hall.addr;
    let started = Instant::now();
    let answered: Vec<u16> = std::thread::scope(|scope| {
        let posts: Vec<_> = (0..400)
            .map(|i| {
                scope.spawn(move || {
                    let token = format!("{i:080x}");
                    let Ok(mut stream) = TcpStream::connect(addr) else {
                        return 0;
                    };
                    let form = format!("name=ana&password=guess{i}&csrf={token}");
                    let request = format!(
                        "POST /login HTTP/1.1\r\nHost: h\r\nConnection: close\r\nCookie: tocada_login={token}\r\n\
                         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
                        form.len()
                    );
                    let _ = stream.write_all(request.as_bytes());
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                    let mut line = String::new();
                    let _ = BufReader::new(stream).read_line(&mut line);
                    line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
                })
            })
            .collect();
        posts.into_iter().map(|p| p.join().unwrap()).collect()
    });
    let forged_refused = answered.iter().all(|s| [0, 403, 429, 503].contains(s));
    let wrong: Vec<u16> = (0..6)
        .map(|_| http::log_in(addr, "ana", "wrong").status)
        .collect();
    let throttled = wrong.contains(&429);
    std::thread::sleep(Duration::from_secs(6));
    let good = http::log_in(addr, "ana", PASSWORD).status == 303;
    let rss = hall.peak_rss_kib();
    honest.play(4);
    let lost = lost_of(addr, &cookie, 4, expected);
    report(
        "login",
        forged_refused && throttled && good && rss < 256 * 1024,
        lost,
        format!(
            "posts=400 in {:.1}s rss_kib={rss}",
            started.elapsed().as_secs_f64()
        ),
    );

    // 5. Slowloris: 1100 half-sent requests from another address.
    let mut open = Vec::new();
    for _ in 0..1100 {
        if let Some(mut stream) = connect_from([127, 0, 0, 2].into(), addr) {
            let _ = stream.write_all(b"GET /pgn/round HTTP/1.1\r\nHost: h\r\nX-Slow: ");
            open.push(stream);
        }
    }
    let started = Instant::now();
    let page = http::get(addr, "/login", None).status == 200;
    let took = started.elapsed();
    honest.play(5);
    let lost = lost_of(addr, &cookie, 5, expected);
    drop(open);
    report(
        "slowloris",
        page && took < Duration::from_secs(2),
        lost,
        format!("half_sent=1100 page_ms={}", took.as_millis()),
    );

    // 6. A forged retained state of board 1 (game 99, an HTML FEN, a
    // 27 777-hour clock, a made-up result), and one of i64::MAX.
    for (game, fen, ms) in [
        (99, "<b>x</b>", 1000u64),
        (99, "8/8/8/8/8/8/8/K6k w - - 0 1", 27_777u64 * 3_600_000),
        (i64::MAX, "8/8/8/8/8/8/8/K6k w - - 0 1", 1000),
    ] {
        let state = serde_json::json!({"game": game, "seq": 1, "fen": fen, "white_ms": ms,
            "black_ms": 1, "running": null, "last_ruling": null, "result": "1-0", "moves": []});
        let _ = attacker.publish(
            board_1.state_topic(),
            QoS::AtLeastOnce,
            true,
            state.to_string(),
        );
    }
    honest.play(6);
    let lost = lost_of(addr, &cookie, 6, expected);
    let view = board_view(addr, &cookie, 1);
    report(
        "forged_state",
        view["game"] != 99 && view["game"] != i64::MAX && view["result"].is_null(),
        lost,
        String::new(),
    );

    // 7. The log: no line quotes a whole payload.
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    report("log_lines", longest < 2000, 0, format!("longest={longest}"));

    peak = peak.max(hall.peak_rss_kib());
    hall.stop();
    let _ = attacker.disconnect();
    println!("attacks={attacks} held={held} lost_events={lost_events} hall_peak_rss_kib={peak}");
    if held == attacks && lost_events == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
