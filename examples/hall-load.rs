//! The hall at scale (issue 14 §3): N simulated clocks, each publishing a
//! whole real game compressed into a few minutes, through one Mosquitto
//! into one `tocada-hall`, all on loopback; the broker stopped for 60 s
//! mid-round and restarted. Stops by itself.
//!
//! ```text
//! cargo run --release --example hall-load -- --clocks 1000 [--seconds 180] [--outage 60]
//! ```
//!
//! It raises its open-file limit to the hard one first (a socket per
//! clock, here and in the broker it starts), and stops if that is too low.
//!
//! Each clock is a rumqttc client with its own broker user (a password per
//! clock and the ACL of `tests/support/mosquitto.rs`), in a persistent
//! session at QoS 1, publishing the replay lines of a real game
//! (`tests/data`, played by hands as `tocada::gesture` plays them) at the
//! game's own instants scaled into `--seconds`. The hall runs as its own
//! process (this program again, `--hall CONFIG`), so its memory and CPU
//! are its own. An event is *visible* when the hall's live feed (the
//! arbiter's server-sent events) first counts it; its latency runs from
//! the instant the clock published it.
//!
//! Printed: the catch-up after the broker's restart, the hall's CPU and
//! `p50_before_stop_ms`/`p99_before_stop_ms` (the events published before
//! the broker's stop: no backlog ahead of them) on one line, and last,
//! exactly:
//! `clocks=N events=… lost=… p50_ms=… p99_ms=… hall_rss_kib=…`
//! (`p50_ms`/`p99_ms` over the events published while the broker was up;
//! `hall_rss_kib` the hall's peak resident memory, VmHWM).

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
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, MqttOptions, QoS};
use tocada::broadcast::{BoardAddress, EventMessage};
use tocada::gesture::Script;

use support::HallChild;

const HALL: &str = "load";
const PASSWORD: &str = "load test";

struct Args {
    clocks: u32,
    seconds: u64,
    outage: u64,
}

fn parse_args() -> Result<Result<Args, PathBuf>, String> {
    let mut args = std::env::args().skip(1);
    let (mut clocks, mut seconds, mut outage) = (200, 180, 60);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--clocks" => clocks = number("--clocks")? as u32,
            "--seconds" => seconds = number("--seconds")?,
            "--outage" => outage = number("--outage")?,
            "--hall" => {
                return Ok(Err(PathBuf::from(
                    std::env::args().nth(2).ok_or("--hall CONFIG")?,
                )));
            }
            _ => {
                return Err(format!(
                    "unexpected argument {arg:?}; usage: hall-load --clocks N [--seconds S] [--outage S]"
                ));
            }
        }
    }
    if clocks == 0 || seconds == 0 {
        return Err("--clocks and --seconds must be at least 1".to_owned());
    }
    Ok(Ok(Args {
        clocks,
        seconds,
        outage,
    }))
}

fn main() -> ExitCode {
    match parse_args() {
        Ok(Ok(args)) => run(args),
        Ok(Err(config)) => support::serve(config),
        Err(why) => {
            eprintln!("hall-load: {why}");
            ExitCode::from(2)
        }
    }
}

/// A game as (instant in the game, payload) per event.
fn games() -> Vec<Vec<(u64, String)>> {
    let reference = pgn::reference_games();
    (0..reference.len() * 4)
        .map(|i| {
            let game = &reference[i % reference.len()];
            let script = game.play_into(Script::varied(game.start(), false, i as u64 + 1));
            lines::game_lines(&game.rules(), script.events())
                .into_iter()
                .map(|line| {
                    let t = serde_json::from_str::<serde_json::Value>(&line).unwrap()["t"]
                        .as_u64()
                        .unwrap();
                    (t, line)
                })
                .collect()
        })
        .collect()
}

/// When each (board, seq) was published, and when first visible.
#[derive(Default)]
struct Times {
    published: HashMap<(u32, usize), Instant>,
    visible: HashMap<(u32, usize), Instant>,
}

fn run(args: Args) -> ExitCode {
    if mosquitto::mosquitto_program().is_none() {
        eprintln!("hall-load: mosquitto is not installed (apt-get install mosquitto)");
        return ExitCode::FAILURE;
    }
    // A socket per clock here and in the broker (which inherits it).
    let open_files = support::raise_open_files();
    if open_files < u64::from(args.clocks) + 64 {
        eprintln!(
            "hall-load: {} clocks need more open files than the hard limit allows ({open_files}): ulimit -Hn",
            args.clocks
        );
        return ExitCode::FAILURE;
    }
    let boards: Vec<u32> = (1..=args.clocks).collect();
    let mut broker = mosquitto::Mosquitto::for_hall(HALL, &boards);
    // A hall's broker: no cap on what it queues for a client that is slow
    // or away (Mosquitto drops beyond 1000 by default), and a wider window.
    let conf = broker.dir().join("mosquitto.conf");
    let mut text = std::fs::read_to_string(&conf).unwrap();
    text.push_str("max_queued_messages 0\nmax_inflight_messages 100\n");
    std::fs::write(&conf, text).unwrap();
    broker.restart();

    // The hall, in its own process.
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), HALL, &broker.url(), "load", PASSWORD, "");
    let mut hall = HallChild::start(&config, None);
    let addr = hall.addr;

    // The live feed, read on a thread: when each event becomes visible.
    let cookie = http::log_in(addr, "load", PASSWORD)
        .cookie("tocada_hall")
        .expect("logged in");
    let times = Arc::new(Mutex::new(Times::default()));
    {
        let times = Arc::clone(&times);
        let cookie = cookie.clone();
        std::thread::spawn(move || {
            let mut stream = http::EventStream::open(addr, "/arbiter/events", Some(&cookie));
            let mut seen: HashMap<u32, usize> = HashMap::new();
            while let Some(data) = stream.next("boards", Duration::from_secs(3600)) {
                let now = Instant::now();
                let boards: serde_json::Value = serde_json::from_str(&data).unwrap_or_default();
                let mut times = times.lock().unwrap();
                for view in boards.as_array().into_iter().flatten() {
                    let board = view["board"].as_u64().unwrap_or(0) as u32;
                    let events = view["events"].as_u64().unwrap_or(0) as usize;
                    let before = seen.insert(board, events).unwrap_or(0);
                    for seq in before..events {
                        times.visible.entry((board, seq)).or_insert(now);
                    }
                }
            }
        });
    }

    let games = games();
    let total: usize = (0..args.clocks as usize)
        .map(|i| games[i % games.len()].len())
        .sum();
    eprintln!(
        "hall-load: {} clocks, {total} events over {} s, the broker stopped for {} s at half time",
        args.clocks, args.seconds, args.outage
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let start = Instant::now();
    let span = Duration::from_secs(args.seconds);
    let port = broker.port();
    let handles: Vec<_> = (1..=args.clocks)
        .map(|board| {
            let game = games[(board as usize - 1) % games.len()].clone();
            let times = Arc::clone(&times);
            runtime.spawn(clock(board, port, game, start, span, times))
        })
        .collect();

    // Mid-round: the broker stopped (SIGTERM, as systemd would) for the
    // outage, then started again on the same port with its sessions.
    let (restarted, published_before_restart) = runtime.block_on(async {
        tokio::time::sleep(span / 2).await;
        eprintln!("hall-load: broker stopped");
        broker.stop();
        tokio::time::sleep(Duration::from_secs(args.outage)).await;
        let published = times.lock().unwrap().published.len();
        broker.restart();
        eprintln!("hall-load: broker restarted");
        (Instant::now(), published)
    });
    let outage_start = restarted - Duration::from_secs(args.outage);
    runtime.block_on(async {
        let mut pumps = Vec::new();
        for handle in handles {
            if let Ok((client, pump)) = handle.await {
                pumps.push((client, pump));
            }
        }
        // Until every event is visible, or a minute after the last was
        // sent; the clocks' connections run meanwhile.
        let deadline = Instant::now() + Duration::from_secs(60);
        while times.lock().unwrap().visible.len() < total && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for (_client, pump) in pumps {
            pump.abort();
        }
    });
    let (cpu_s, rss_kib) = (hall.cpu_s(), hall.peak_rss_kib());
    let store_events = http::get(addr, "/arbiter/boards", Some(&cookie));
    let counted: serde_json::Value = serde_json::from_str(&store_events.body).unwrap_or_default();
    // Where were the missing ones? A hall started again on the same store
    // and session gets what the broker still holds for it.
    let missing_before = total.saturating_sub(times.lock().unwrap().visible.len());
    if missing_before > 0 {
        hall.stop();
        hall = HallChild::start(&config, None);
        std::thread::sleep(Duration::from_secs(10));
        let cookie = http::log_in(hall.addr, "load", PASSWORD)
            .cookie("tocada_hall")
            .unwrap_or_default();
        let boards: serde_json::Value =
            serde_json::from_str(&http::get(hall.addr, "/arbiter/boards", Some(&cookie)).body)
                .unwrap_or_default();
        eprintln!(
            "hall-load: {missing_before} events missing; a hall started again on the same store and session then holds {} of {total}",
            boards["boards"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| b["events"].as_u64().unwrap_or(0))
                .sum::<u64>()
        );
    }
    let times = times.lock().unwrap();
    // Catch-up: from the restart until every event published before it is
    // visible.
    // `never` if one of them never became visible.
    let before: Vec<_> = times
        .published
        .iter()
        .filter(|(_, at)| **at < restarted)
        .map(|(key, _)| times.visible.get(key))
        .collect();
    let caught_up = if before.iter().any(Option::is_none) {
        "never".to_owned()
    } else {
        before
            .iter()
            .flatten()
            .max()
            .map_or(0, |at| at.saturating_duration_since(restarted).as_millis())
            .to_string()
    };
    let mut latencies: Vec<u128> = times
        .published
        .iter()
        .filter(|(_, at)| **at < outage_start || **at > restarted)
        .filter_map(|(key, at)| {
            times
                .visible
                .get(key)
                .map(|v| v.saturating_duration_since(*at).as_millis())
        })
        .collect();
    latencies.sort_unstable();
    let percentile = |p: f64| percentile_of(&latencies, p);
    // The round before the broker's stop alone: no backlog to catch up.
    let mut steady: Vec<u128> = times
        .published
        .iter()
        .filter(|(_, at)| **at < outage_start)
        .filter_map(|(key, at)| {
            times
                .visible
                .get(key)
                .map(|v| v.saturating_duration_since(*at).as_millis())
        })
        .collect();
    steady.sort_unstable();

    let lost = total.saturating_sub(times.visible.len());
    // The lost ones, for whoever chases them: board, seq, and when each
    // was published relative to the broker's stop.
    let mut missing: Vec<(u32, usize, i128)> = times
        .published
        .iter()
        .filter(|(key, _)| !times.visible.contains_key(key))
        .map(|(&(board, seq), at)| {
            let offset = if *at >= outage_start {
                at.duration_since(outage_start).as_millis() as i128
            } else {
                -(outage_start.duration_since(*at).as_millis() as i128)
            };
            (board, seq, offset)
        })
        .collect();
    missing.sort_unstable();
    for (board, seq, offset) in missing.iter().take(20) {
        eprintln!(
            "hall-load: lost board {board} seq {seq}, published {offset} ms after the broker's stop"
        );
    }
    hall.stop();
    println!(
        "catchup_ms={caught_up} published_before_restart={published_before_restart} hall_events={} hall_duplicates={} hall_dropped={} hall_cpu_s={cpu_s:.1} wall_s={:.0} p50_before_stop_ms={} p99_before_stop_ms={}",
        counted["counters"]["events"],
        counted["counters"]["duplicates"],
        counted["counters"]["dropped"],
        start.elapsed().as_secs_f64(),
        percentile_of(&steady, 0.50),
        percentile_of(&steady, 0.99),
    );
    println!(
        "clocks={} events={total} lost={lost} p50_ms={} p99_ms={} hall_rss_kib={rss_kib}",
        args.clocks,
        percentile(0.50),
        percentile(0.99)
    );
    if lost == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The `p` quantile of `sorted` (nearest rank), 0 if empty.
fn percentile_of(sorted: &[u128], p: f64) -> u128 {
    sorted
        .get(((sorted.len() as f64 * p).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0)
}

/// One clock: its game's events at their scaled instants, QoS 1.
async fn clock(
    board: u32,
    port: u16,
    game: Vec<(u64, String)>,
    start: Instant,
    span: Duration,
    times: Arc<Mutex<Times>>,
) -> (AsyncClient, tokio::task::JoinHandle<()>) {
    let mut options = MqttOptions::new(format!("clock-{board}"), "127.0.0.1", port);
    options
        .set_credentials(format!("clock-{board}"), format!("pw-{board}"))
        .set_clean_session(false)
        .set_keep_alive(Duration::from_secs(30))
        // A window wider than a game: rumqttc never reuses a packet id
        // within one (it wraps them at the window).
        .set_inflight(1000);
    let (client, mut eventloop) = AsyncClient::new(options, 100_000);
    let pump = tokio::spawn(async move {
        loop {
            if eventloop.poll().await.is_err() {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    });
    let last_t = game.last().map_or(1, |(t, _)| (*t).max(1));
    let topic = BoardAddress::new(HALL, board).unwrap().events_topic();
    for (seq, (t, line)) in game.iter().enumerate() {
        let at = start + span.mul_f64(*t as f64 / last_t as f64);
        tokio::time::sleep_until(at.into()).await;
        let payload = serde_json::to_vec(&EventMessage {
            game: 1,
            seq: seq as i64,
            t: *t,
            line: serde_json::from_str(line).unwrap(),
            effects: vec![],
        })
        .unwrap();
        times
            .lock()
            .unwrap()
            .published
            .insert((board, seq), Instant::now());
        let _ = client
            .publish(topic.clone(), QoS::AtLeastOnce, false, payload)
            .await;
    }
    // Its connection goes on until the run ends: what waited through the
    // outage goes out.
    (client, pump)
}
