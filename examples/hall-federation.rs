//! Halls together (issue 22 §3): two halls' brokers, each bridged by
//! Mosquitto's bridge to a central broker that a central `tocada-hall`
//! follows; the link between the halls and the centre cut for 60 s
//! mid-round and restored. Stops by itself; fails if an event is lost.
//!
//! ```text
//! cargo run --release --example hall-federation -- [--clocks 4] [--seconds 100] [--cut 60]
//! ```
//!
//! Everything is real and on loopback: three Mosquitto processes with the
//! shipped settings (`packaging/mosquitto/tocada.conf`), the bridges and
//! the central broker's users and ACL written by
//! `packaging/mosquitto/make-federation` as an organiser runs it (hall
//! `east`'s boards 1..N are the event's 1..N, hall `west`'s the event's
//! N+1..2N, so the two halls' board 1 stay two boards), and the central
//! hall in its own process (this program again, `--hall CONFIG`). Each
//! hall has `--clocks` clocks (rumqttc clients at QoS 1 in persistent
//! sessions, with their own broker users), each publishing a whole real
//! game (`tests/data`) compressed into `--seconds` to its own hall's
//! broker.
//!
//! The cut is a WAN link going down: both bridges reach the central broker
//! through a TCP relay in this program, which at the cut stops passing
//! bytes either way and holds new connections unanswered (nothing is
//! refused or closed: the far end just goes silent, as when a line drops)
//! and after `--cut` seconds passes them again. The halls' brokers, their
//! clocks, the central broker and the central hall run on throughout.
//!
//! An event is *visible* when the central hall's live feed (the arbiter's
//! server-sent events) first counts it. Printed: the catch-up (from the
//! link's restoration until every event published before it is visible)
//! and last, exactly:
//! `boards=N events=N lost=N cut_s=N catch_up_ms=N`.
//! Then the central hall's store is read back: every board's events must
//! be there once each, in order, exactly as its clock published them, and
//! the hall must have dropped nothing (no message on another board's or
//! another hall's topic).

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

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::{Clock, HallChild, Times};

/// The event, as the central hall names it.
const EVENT: &str = "olympiad";
/// The two halls, each with its own broker and clocks.
const HALLS: [&str; 2] = ["east", "west"];
const PASSWORD: &str = "federation test";
/// When the link is cut, after the clocks' start.
const CUT_AT: Duration = Duration::from_secs(15);
/// How long, after the last event is published, the central hall has to
/// show every event before the run counts the rest as lost.
const SETTLE: Duration = Duration::from_secs(60);

struct Args {
    clocks: u32,
    seconds: u64,
    cut: u64,
}

fn parse_args() -> Result<Result<Args, PathBuf>, String> {
    let (mut clocks, mut seconds, mut cut) = (4, 100, 60);
    let invocation = support::parse_options(
        &mut [
            ("clocks", &mut clocks),
            ("seconds", &mut seconds),
            ("cut", &mut cut),
        ],
        "hall-federation [--clocks N] [--seconds S] [--cut S]",
    )?;
    if let support::Invocation::Hall(config) = invocation {
        return Ok(Err(config));
    }
    if clocks == 0 || clocks > 9999 || seconds == 0 {
        return Err("--clocks must be 1 to 9999 and --seconds at least 1".to_owned());
    }
    if CUT_AT.as_secs() + cut >= seconds {
        return Err(format!(
            "the link comes back at {} s, after the games end ({seconds} s): more --seconds",
            CUT_AT.as_secs() + cut
        ));
    }
    Ok(Ok(Args {
        clocks: u32::try_from(clocks).map_err(|_| "--clocks: too many".to_owned())?,
        seconds,
        cut,
    }))
}

fn main() -> ExitCode {
    match parse_args() {
        Ok(Ok(args)) => run(args),
        Ok(Err(config)) => support::serve(config),
        Err(why) => {
            eprintln!("hall-federation: {why}");
            ExitCode::from(2)
        }
    }
}

/// One board: its hall, its number there, its number in the event, and
/// the game its clock plays.
struct Board {
    hall: &'static str,
    number: u32,
    event_board: u32,
    game: Vec<(u64, String)>,
}

fn run(args: Args) -> ExitCode {
    if mosquitto::mosquitto_program().is_none() {
        eprintln!("hall-federation: mosquitto is not installed (apt-get install mosquitto)");
        return ExitCode::FAILURE;
    }
    let dir = tempfile::tempdir().unwrap();

    // The WAN link: a relay in front of the central broker, to be cut.
    let link = Link::start();

    // The organiser's files, from the shipped script.
    let files = dir.path().join("federation");
    let specs: Vec<String> = HALLS
        .iter()
        .map(|h| format!("{h}:{}", args.clocks))
        .collect();
    let made = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/mosquitto/make-federation"
    ))
    .args([EVENT, &format!("127.0.0.1:{}", link.port)])
    .arg(&files)
    .args(&specs)
    .status()
    .expect("make-federation runs");
    assert!(made.success(), "make-federation failed: {made}");

    // The central broker, on the port the relay forwards to.
    // Its subscriptions logged: the run starts once the central hall and
    // both bridges have subscribed (what reaches a topic nobody has
    // subscribed to yet is not kept for anyone).
    let mut central = mosquitto::Mosquitto::from_files(
        &files.join("central/tocada.passwd"),
        &files.join("central/tocada.acl"),
        &["log_type subscribe"],
    );
    link.set_upstream(central.port());

    // Each hall's broker: its clocks (make-hall's users and ACL, as the
    // test helper writes them) and the bridge make-federation wrote.
    let numbers: Vec<u32> = (1..=args.clocks).collect();
    let mut hall_brokers = Vec::new();
    for hall in HALLS {
        let bridge = std::fs::read_to_string(files.join(hall).join("tocada-bridge.conf"))
            .expect("the hall's bridge");
        let lines: Vec<&str> = bridge.lines().collect();
        hall_brokers.push(mosquitto::Mosquitto::for_hall_shipped_with(
            hall, &numbers, &lines,
        ));
    }

    // Which board of which hall is which board of the event.
    let mapping = std::fs::read_to_string(files.join("boards.txt")).unwrap();
    let games = support::games();
    let mut boards = Vec::new();
    for line in mapping.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let hall = HALLS.into_iter().find(|h| *h == fields[0]).unwrap();
        let number: u32 = fields[1].parse().unwrap();
        let event_board: u32 = fields[2].parse().unwrap();
        let game = games[(event_board as usize - 1) % games.len()].clone();
        boards.push(Board {
            hall,
            number,
            event_board,
            game,
        });
    }
    assert_eq!(boards.len(), 2 * args.clocks as usize, "boards.txt");

    // The central hall, in its own process, on the central broker.
    let config = support::write_config_with(
        dir.path(),
        EVENT,
        &central.url(),
        &files.join("central/hall.credentials"),
        "chief",
        PASSWORD,
        "",
    );
    let mut hall = HallChild::start(&config, None);
    let addr = hall.addr;
    let filter = format!("tocada/{EVENT}/+/+");
    let mut subscribers: Vec<String> = HALLS.iter().map(|h| format!("bridge-{h} ")).collect();
    subscribers.push("hall ".to_owned());
    let ready_by = Instant::now() + Duration::from_secs(60);
    while !subscribers.iter().all(|who| {
        central
            .log()
            .lines()
            .any(|line| line.contains(who.as_str()) && line.contains(&format!("tocada/{EVENT}/")))
    }) {
        if Instant::now() > ready_by {
            eprintln!(
                "hall-federation: the central hall ({filter}) and both bridges did not subscribe within 60 s:\n{}",
                central.log()
            );
            return ExitCode::FAILURE;
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    // The live feed, read on a thread: when each event becomes visible.
    let cookie = http::log_in(addr, "chief", PASSWORD)
        .cookie("tocada_hall")
        .expect("logged in");
    let times = Arc::new(Mutex::new(Times::default()));
    support::watch_feed(addr, cookie.clone(), Arc::clone(&times));

    let total: usize = boards.iter().map(|b| b.game.len()).sum();
    eprintln!(
        "hall-federation: 2 halls of {} clocks, {total} events over {} s, the link to the centre cut for {} s at {} s",
        args.clocks,
        args.seconds,
        args.cut,
        CUT_AT.as_secs()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let start = Instant::now();
    let span = Duration::from_secs(args.seconds);
    let ports: HashMap<&str, u16> = HALLS
        .into_iter()
        .zip(hall_brokers.iter().map(mosquitto::Mosquitto::port))
        .collect();
    let handles: Vec<_> = boards
        .iter()
        .map(|board| {
            let clock = Clock {
                hall: board.hall,
                board: board.number,
                key: board.event_board,
                port: ports[board.hall],
                queue: 10_000,
            };
            runtime.spawn(clock.play(board.game.clone(), start, span, Arc::clone(&times)))
        })
        .collect();

    let (restored, published_before) = runtime.block_on(async {
        tokio::time::sleep_until((start + CUT_AT).into()).await;
        link.cut(true);
        eprintln!("hall-federation: link cut");
        tokio::time::sleep(Duration::from_secs(args.cut)).await;
        let published = times.lock().unwrap().published.len();
        link.cut(false);
        eprintln!("hall-federation: link restored");
        (Instant::now(), published)
    });
    runtime.block_on(support::settle(handles, &times, total, SETTLE));
    let counted: serde_json::Value =
        serde_json::from_str(&http::get(addr, "/arbiter/boards", Some(&cookie)).body)
            .unwrap_or_default();
    hall.stop();

    let times = times.lock().unwrap();
    let catch_up = times.catch_up_ms(restored);
    let lost = total.saturating_sub(times.visible.len());
    let mut missing: Vec<(u32, usize)> = times
        .published
        .keys()
        .filter(|key| !times.visible.contains_key(key))
        .copied()
        .collect();
    missing.sort_unstable();
    for (board, seq) in missing.iter().take(20) {
        eprintln!("hall-federation: not in the central hall: event board {board} seq {seq}");
    }

    // The central store, read back: each board's events exactly as its
    // clock published them, in order, once each.
    let mut failures = Vec::new();
    let store = tocada::hall::HallStore::open(&dir.path().join("hall.sqlite"), EVENT).unwrap();
    let mut stored: BTreeMap<u32, Vec<(i64, i64, String)>> = BTreeMap::new();
    for (board, game, seq, line) in store.events().unwrap() {
        stored.entry(board).or_default().push((game, seq, line));
    }
    for board in &boards {
        let expected: Vec<(i64, i64, String)> = board
            .game
            .iter()
            .enumerate()
            .map(|(seq, (_, line))| {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                (1, seq as i64, value.to_string())
            })
            .collect();
        let got = stored.remove(&board.event_board).unwrap_or_default();
        if got != expected {
            let first_difference = got
                .iter()
                .zip(&expected)
                .position(|(g, e)| g != e)
                .unwrap_or(got.len().min(expected.len()));
            failures.push(format!(
                "board {} of hall {} (the event's {}): {} events stored, {} published, first difference at {first_difference}",
                board.number,
                board.hall,
                board.event_board,
                got.len(),
                expected.len()
            ));
        }
    }
    for board in stored.keys() {
        failures.push(format!(
            "board {board} in the central hall is no hall's board"
        ));
    }
    let dropped = &counted["counters"]["dropped"];
    if dropped.as_object().is_some_and(|d| !d.is_empty()) {
        failures.push(format!("the central hall dropped messages: {dropped}"));
    }
    for failure in &failures {
        eprintln!("hall-federation: {failure}");
    }

    println!(
        "published_before_restore={published_before} hall_events={} hall_duplicates={} wall_s={:.0}",
        counted["counters"]["events"],
        counted["counters"]["duplicates"],
        start.elapsed().as_secs_f64()
    );
    println!(
        "boards={} events={total} lost={lost} cut_s={} catch_up_ms={catch_up}",
        boards.len(),
        args.cut
    );
    drop(hall_brokers);
    central.kill();
    if lost == 0 && failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The WAN link between the halls and the centre: a TCP relay on a
/// loopback port to the central broker's. Cut, it passes nothing either
/// way and answers no new connection, closing none (a dropped line sends
/// no FIN or RST): each side learns of it only by its own keep-alive.
/// Restored, it passes on what it held.
struct Link {
    port: u16,
    upstream: Arc<Mutex<u16>>,
    cut: Arc<AtomicBool>,
}

impl Link {
    fn start() -> Link {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let upstream = Arc::new(Mutex::new(0));
        let cut = Arc::new(AtomicBool::new(false));
        {
            let upstream = Arc::clone(&upstream);
            let cut = Arc::clone(&cut);
            std::thread::spawn(move || {
                for near in listener.incoming().flatten() {
                    let upstream = Arc::clone(&upstream);
                    let cut = Arc::clone(&cut);
                    std::thread::spawn(move || {
                        hold(&cut);
                        let port = *upstream.lock().unwrap();
                        let Ok(far) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
                            return;
                        };
                        let (near2, far2) = (near.try_clone().unwrap(), far.try_clone().unwrap());
                        let cut2 = Arc::clone(&cut);
                        std::thread::spawn(move || relay(near2, far2, &cut2));
                        relay(far, near, &cut);
                    });
                }
            });
        }
        Link {
            port,
            upstream,
            cut,
        }
    }

    fn set_upstream(&self, port: u16) {
        *self.upstream.lock().unwrap() = port;
    }

    fn cut(&self, cut: bool) {
        self.cut.store(cut, Ordering::SeqCst);
    }
}

/// Waits while the link is cut.
fn hold(cut: &AtomicBool) {
    while cut.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Copies `from` to `to` until `from` ends, holding each chunk while the
/// link is cut; then passes the end on.
fn relay(mut from: TcpStream, mut to: TcpStream, cut: &AtomicBool) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let n = from.read(&mut buffer).unwrap_or(0);
        hold(cut);
        if n == 0 || to.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
    let _ = from.shutdown(Shutdown::Read);
}
