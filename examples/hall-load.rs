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

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::{Clock, HallChild, Times};

const HALL: &str = "load";
const PASSWORD: &str = "load test";

struct Args {
    clocks: u32,
    seconds: u64,
    outage: u64,
}

fn parse_args() -> Result<Result<Args, PathBuf>, String> {
    let (mut clocks, mut seconds, mut outage) = (200, 180, 60);
    let invocation = support::parse_options(
        &mut [
            ("clocks", &mut clocks),
            ("seconds", &mut seconds),
            ("outage", &mut outage),
        ],
        "hall-load --clocks N [--seconds S] [--outage S]",
    )?;
    if let support::Invocation::Hall(config) = invocation {
        return Ok(Err(config));
    }
    if clocks == 0 || seconds == 0 {
        return Err("--clocks and --seconds must be at least 1".to_owned());
    }
    Ok(Ok(Args {
        clocks: u32::try_from(clocks).map_err(|_| "--clocks: too many".to_owned())?,
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
    support::watch_feed(addr, cookie.clone(), Arc::clone(&times));

    let games = support::games();
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
            let clock = Clock {
                hall: HALL,
                board,
                key: board,
                port,
                queue: 100_000,
            };
            runtime.spawn(clock.play(game, start, span, times))
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
    // Until every event is visible, or a minute after the last was sent;
    // the clocks' connections run meanwhile.
    runtime.block_on(support::settle(
        handles,
        &times,
        total,
        Duration::from_secs(60),
    ));
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
    let caught_up = times.catch_up_ms(restarted);
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
