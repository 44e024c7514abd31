//! The game store through a 7-hour game of a million events:
//! `cargo run --release --example store_load [-- EVENTS [BURST]]`.
//!
//! A game at 40 events a second for 7 hours is 10^6 stored events (a
//! capacitive board reports every touch). The daemon's [`Journal`] is fed
//! the game a burst at a time (a move: touches, lift, place, lever) and
//! each burst is flushed before the next, as the writer commits when it
//! keeps up: one transaction, one fsync, on a real file in WAL mode with
//! `synchronous=FULL`. The figures per stretch of the game are the time to
//! commit a burst (median and worst) and the process's resident memory:
//! the store keeps up if the worst commit is shorter than the time between
//! two bursts at the game's pace (200 ms for 8 events at 40 a second), and
//! its cost and memory must be the same at the end of the game as at its
//! start.

use std::time::{Instant, SystemTime};

use shakmaty::{Color, Square};
use tocada::Input;
use tocada::store::{DB_FILE, Journal, NewGame, Store};
use tocada::transcript::{Event, Line, parse_line};

fn main() {
    let mut args = std::env::args().skip(1);
    let events: u64 = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("EVENTS"));
    let burst: u64 = args.next().map_or(8, |a| a.parse().expect("BURST"));
    let pace_ms = burst * 1000 / 40;

    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = Store::open(&dir.path().join(DB_FILE)).expect("the store");
    let journal = Journal::spawn(store);
    let game = journal
        .begin_game(NewGame {
            started_at: SystemTime::now(),
            preset: "classical 90+30",
            white_left: true,
            setup: &parse_line(r#"{"t":0,"ev":"setup","time_control":"5400+30"}"#)
                .expect("a setup line")
                .expect("not blank"),
        })
        .expect("a new game");

    println!(
        "store_load: {events} events in bursts of {burst} (one burst every {pace_ms} ms at 40 events/s)"
    );
    println!("stored events   commit median   commit worst   resident");
    let started = Instant::now();
    let mut commits_us: Vec<u64> = Vec::new();
    let mut report_at = 1_000;
    let mut overall_worst = 0;
    let mut t = 0;
    let mut stored = 0;
    while stored < events {
        for _ in 0..burst.min(events - stored) {
            t += 25;
            let event = Event::Input(event(stored));
            journal.append(game, Line { t, event });
            stored += 1;
        }
        let before = Instant::now();
        journal.flush().expect("a commit");
        let us = before.elapsed().as_micros() as u64;
        overall_worst = overall_worst.max(us);
        commits_us.push(us);
        if stored >= report_at || stored == events {
            commits_us.sort_unstable();
            println!(
                "{stored:>13}   {:>10.2} ms   {:>9.2} ms   {:>5.1} MiB",
                commits_us[commits_us.len() / 2] as f64 / 1000.0,
                commits_us[commits_us.len() - 1] as f64 / 1000.0,
                resident_kib() as f64 / 1024.0,
            );
            commits_us.clear();
            report_at *= 10;
        }
    }
    let errors = journal.errors();
    journal.close().expect("closing the journal");
    println!(
        "store_load: events={events} worst_commit_ms={:.1} pace_ms={pace_ms} peak_resident_mib={:.1} errors={errors} in {:.0} s",
        overall_worst as f64 / 1000.0,
        peak_kib() as f64 / 1024.0,
        started.elapsed().as_secs_f64(),
    );
}

/// The `i`th event of the game: a touch, a lift, a place and a lever press
/// in turn, on squares that change.
fn event(i: u64) -> Input {
    let square = Square::new((i % 64) as u32);
    match i % 4 {
        0 => Input::Touch(square),
        1 => Input::Lift(square),
        2 => Input::Place(square, None),
        _ => Input::Press(if i % 8 == 3 {
            Color::White
        } else {
            Color::Black
        }),
    }
}

/// A line of `/proc/self/status`, in KiB (0 where there is none).
fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix(key)?
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .ok()
            })
        })
        .unwrap_or(0)
}

fn resident_kib() -> u64 {
    status_kib("VmRSS:")
}

fn peak_kib() -> u64 {
    status_kib("VmHWM:")
}
