//! The PGN feed polled like a broadcast (issue 22 §3): a round of N boards
//! (real games of `tests/data`, played by hands as `tocada::gesture` plays
//! them, stored straight into a hall's store), served by the hall's public
//! side on loopback, polled by P pollers each every 2 s, each on its own
//! kept-alive connection. Three phases of `--seconds` each:
//!
//! - `full`: no `If-None-Match`, the hall unchanged: the whole round's PGN
//!   every time (built once, then the kept copy sent);
//! - `304`: the pollers send the `ETag` they got: `304 Not Modified`;
//! - `moving`: the same pollers, while a move (its lines) arrives on some
//!   board every 30 ms, as in a 1000-board round: most polls then get a
//!   new round's PGN, built once per change.
//!
//! ```text
//! cargo run --release --example feed-poll -- [--boards 1000] [--pollers 500] [--seconds 10] [--per-board]
//! cargo run --release --example feed-poll -- --boards 12 --serve 127.0.0.1:8081   # for a browser
//! ```
//!
//! With `--per-board`, poller i polls board i + 1's own PGN,
//! `/pgn/<board>`, as a broadcast polls each game of a round (`--pollers
//! 1000` for every game of 1000 boards every 2 s), instead of the round's.
//!
//! Printed last, one line a phase:
//! `phase=full boards=N pollers=P per_board=… answers=… status200=… status304=… max_bytes=… p50_200_ms=… p99_200_ms=… p50_304_ms=… p99_304_ms=… p99_ms=… share_304=…`
//! (response times from the request's first byte to the answer's last;
//! `p99_ms` over every answer of the phase, `share_304` the answers that
//! were `304 Not Modified`).
//! The server's connection caps are raised for the pollers, all from one
//! address: the slowloris limits are not what is measured.

#[path = "../tests/support/lines.rs"]
mod lines;
#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tocada::broadcast::EventMessage;
use tocada::gesture::Script;
use tocada::hall::serve::{ServeLimits, serve};
use tocada::hall::web::{Shared, public_router};
use tocada::hall::{Hall, HallStore, Pairing, Round};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn payload(game: i64, seq: usize, line: &str) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    serde_json::to_vec(&EventMessage {
        game,
        seq: seq as i64,
        t: value["t"].as_u64().unwrap(),
        line: value,
        effects: vec![],
    })
    .unwrap()
}

/// Every board's game as its lines; the first `start` lines of each in
/// the hall.
fn round(boards: u32) -> (Hall, Vec<Vec<String>>) {
    let games = pgn::reference_games();
    let mut round = Round::default();
    round.tags.event = "Feed poll".to_owned();
    let mut all = Vec::new();
    for board in 1..=boards {
        round.pairings.insert(
            board,
            Pairing {
                white: format!("White, Player {board}"),
                black: format!("Black, Player {board}"),
            },
        );
        let game = &games[board as usize % games.len()];
        let script = game.play_into(Script::varied(game.start(), false, u64::from(board)));
        all.push(lines::game_lines(&game.rules(), script.events()));
    }
    let hall = Hall::with_store("poll", HallStore::in_memory("poll").unwrap(), round).unwrap();
    (hall, all)
}

/// One poll on `stream`: the status, the body's length, the ETag.
async fn poll(
    stream: &mut TcpStream,
    path: &str,
    tag: Option<&str>,
) -> std::io::Result<(u16, usize, String)> {
    let condition = tag.map_or(String::new(), |t| format!("If-None-Match: {t}\r\n"));
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: hall\r\n{condition}\r\n").as_bytes())
        .await?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    let status = head[9..12].parse().unwrap_or(0);
    let field = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
    };
    let length: usize = field("content-length:")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let etag = field("etag:").unwrap_or_default();
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await?;
    Ok((status, length, etag))
}

/// Takes into the hall the lines of one move on `board` from `seq` on (up
/// to its press); the `seq` to go on from.
fn one_move(shared: &Shared, board: usize, lines: &[String], mut seq: usize) -> usize {
    let mut hall = shared.hall();
    while seq < lines.len() {
        let press = lines[seq].contains("\"press\"");
        hall.receive(
            &format!("tocada/poll/{}/events", board + 1),
            &payload(1, seq, &lines[seq]),
            1,
        )
        .unwrap();
        seq += 1;
        if press {
            break;
        }
    }
    drop(hall);
    shared.notify();
    seq
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The moves still to play: every board's lines, and where each stands.
struct Mover {
    shared: Arc<Shared>,
    games: Vec<Vec<String>>,
    start: Vec<usize>,
}

/// What is polled: a round of `boards`, its PGN or each board's.
#[derive(Clone, Copy)]
struct Polled {
    boards: u32,
    per_board: bool,
}

async fn phase(
    name: &str,
    address: SocketAddr,
    pollers: usize,
    seconds: u64,
    tagged: bool,
    mover: Option<Mover>,
    Polled { boards, per_board }: Polled,
) {
    let until = Instant::now() + Duration::from_secs(seconds);
    let moving = mover.map(
        |Mover {
             shared,
             games,
             start,
         }| {
            tokio::spawn(async move {
                let mut next = start;
                let mut board = 0;
                while Instant::now() < until {
                    next[board] = one_move(&shared, board, &games[board], next[board]);
                    board = (board + 7) % games.len();
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
            })
        },
    );
    let mut tasks = Vec::new();
    for i in 0..pollers {
        // The round's PGN, or one board's each (poller i, board i + 1).
        let path = if per_board {
            format!("/pgn/{}", i as u32 % boards + 1)
        } else {
            "/pgn/round".to_owned()
        };
        tasks.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(address).await.unwrap();
            // Spread over the 2 s, as independent pollers are.
            tokio::time::sleep(Duration::from_millis((i as u64 * 2000) / pollers as u64)).await;
            let mut tag: Option<String> = None;
            let mut times = Vec::new();
            let mut statuses = Vec::new();
            let mut bytes = 0usize;
            while Instant::now() < until {
                let asked = Instant::now();
                let (status, length, etag) =
                    poll(&mut stream, &path, tag.as_deref().filter(|_| tagged))
                        .await
                        .unwrap();
                times.push(asked.elapsed().as_secs_f64() * 1000.0);
                statuses.push(status);
                bytes = bytes.max(length);
                tag = Some(etag);
                tokio::time::sleep(Duration::from_secs(2).saturating_sub(asked.elapsed())).await;
            }
            (times, statuses, bytes)
        }));
    }
    let mut times = Vec::new();
    let mut ok = 0;
    let mut not_modified = 0;
    let mut bytes = 0;
    for task in tasks {
        let (t, s, b) = task.await.unwrap();
        times.extend(s.iter().copied().zip(t));
        ok += s.iter().filter(|s| **s == 200).count();
        not_modified += s.iter().filter(|s| **s == 304).count();
        bytes = bytes.max(b);
    }
    if let Some(moving) = moving {
        moving.await.unwrap();
    }
    let mut full: Vec<f64> = times
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, t)| *t)
        .collect();
    let mut unchanged: Vec<f64> = times
        .iter()
        .filter(|(s, _)| *s == 304)
        .map(|(_, t)| *t)
        .collect();
    let mut all: Vec<f64> = times.iter().map(|(_, t)| *t).collect();
    all.sort_by(f64::total_cmp);
    full.sort_by(f64::total_cmp);
    unchanged.sort_by(f64::total_cmp);
    println!(
        "phase={name} boards={boards} pollers={pollers} per_board={per_board} answers={} status200={ok} status304={not_modified} max_bytes={bytes} p50_200_ms={:.1} p99_200_ms={:.1} p50_304_ms={:.1} p99_304_ms={:.1} p99_ms={:.1} share_304={:.3}",
        times.len(),
        percentile(&full, 0.5),
        percentile(&full, 0.99),
        percentile(&unchanged, 0.5),
        percentile(&unchanged, 0.99),
        percentile(&all, 0.99),
        not_modified as f64 / times.len().max(1) as f64,
    );
}

fn main() {
    let boards: u32 = arg("--boards").map_or(1000, |v| v.parse().unwrap());
    let pollers: usize = arg("--pollers").map_or(500, |v| v.parse().unwrap());
    let seconds: u64 = arg("--seconds").map_or(10, |v| v.parse().unwrap());
    let serve_at = arg("--serve");
    let per_board = std::env::args().any(|a| a == "--per-board");
    let polled = Polled { boards, per_board };
    let (mut hall, games) = round(boards);
    // Every game at two thirds of its lines: a round under way, some over.
    let mut start = Vec::new();
    for (i, lines) in games.iter().enumerate() {
        let upto = if serve_at.is_some() && i % 3 == 0 {
            lines.len()
        } else {
            lines.len() * 2 / 3
        };
        start.push(upto);
        for (seq, line) in lines.iter().enumerate().take(upto) {
            hall.receive(
                &format!("tocada/poll/{}/events", i + 1),
                &payload(1, seq, line),
                1,
            )
            .unwrap();
        }
    }
    let shared = Shared::new(hall, Vec::new(), true);
    // One thread, as `tocada-hall` runs; the pollers share it (their own
    // time counts in the figures: an upper bound).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let at = serve_at.as_deref().unwrap_or("127.0.0.1:0");
        let listener = tokio::net::TcpListener::bind(at).await.unwrap();
        let address = listener.local_addr().unwrap();
        let limits = ServeLimits {
            connections: pollers + 64,
            per_address: pollers + 64,
            header_timeout: Duration::from_secs(10),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(
            listener,
            public_router(Arc::clone(&shared)),
            limits,
            async move {
                let _ = stopped.await;
            },
            Duration::from_secs(1),
        ));
        if serve_at.is_some() {
            println!("feed-poll: serving the public side on http://{address}");
            std::future::pending::<()>().await;
        }
        let built = Instant::now();
        let (_, pgn) = shared.round_feed(tocada::pgn::Audience::Public);
        eprintln!(
            "the round's PGN: {} bytes, built in {:.0} ms",
            pgn.len(),
            built.elapsed().as_secs_f64() * 1000.0
        );
        phase("full", address, pollers, seconds, false, None, polled).await;
        phase("304", address, pollers, seconds, true, None, polled).await;
        let mover = Some(Mover {
            shared: Arc::clone(&shared),
            games,
            start,
        });
        phase("moving", address, pollers, seconds, true, mover, polled).await;
        let _ = stop.send(());
        let _ = server.await;
    });
}
