//! The referee against shakmaty alone, on the same games, in the same
//! process: what the referee costs on top of the chess it cannot avoid.
//!
//! ```text
//! cargo bench --bench referee
//! ```
//!
//! Side A feeds each reference game's event stream (as hands would play it,
//! on a board without identities and on one with them, as in
//! `benches/replay.rs`) to a fresh `Referee` and drains its effects. Side B
//! is shakmaty alone on the same games: for each ply, the legal moves of the
//! position, then the game's move played. Both count the same plies. Rounds
//! alternate A, B, A, B… so that whatever else the machine is doing weighs
//! on both alike, and each side's median round is compared. The last line is
//! the figure the issue asks for:
//!
//! ```text
//! referee_vs_shakmaty_throughput=0.NN
//! ```
//!
//! (referee plies per second over shakmaty plies per second).

#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};
use tocada::gesture::{Script, parse_san};
use tocada::{Input, Millis, Referee, Rules};

/// One game on one kind of board: what each side replays.
struct Game {
    rules: Rules,
    events: Vec<(Millis, Input)>,
    start: Chess,
    moves: Vec<Move>,
}

/// The system allocator, counting allocations: the referee should make
/// none a ply (the text of the moves it reports is held inline).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Rounds of each side at least, whatever the time.
const MIN_ROUNDS: usize = 15;
/// Rounds of each side at most.
const MAX_ROUNDS: usize = 2_000;
/// Rounds go on until both sides have had this much time in all.
const BUDGET: Duration = Duration::from_secs(4);

fn main() {
    // `cargo test --benches` runs bench targets once as tests: a single
    // round each then, just to show it works.
    let quick = std::env::args().skip(1).all(|arg| arg != "--bench");
    let games = games();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    let events: usize = games.iter().map(|g| g.events.len()).sum();

    // One untimed round each: caches, page faults, lazy statics. The
    // referee's allocations are counted on it.
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    referee_round(&games);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    shakmaty_round(&games);

    let (min_rounds, max_rounds) = if quick {
        (1, 1)
    } else {
        (MIN_ROUNDS, MAX_ROUNDS)
    };
    let (mut referee, mut shakmaty) = (Vec::new(), Vec::new());
    let started = Instant::now();
    while referee.len() < max_rounds && (referee.len() < min_rounds || started.elapsed() < BUDGET) {
        referee.push(timed(|| referee_round(&games)));
        shakmaty.push(timed(|| shakmaty_round(&games)));
    }
    let rounds = referee.len();
    let referee = median(&mut referee);
    let shakmaty = median(&mut shakmaty);
    let per_second = |d: Duration| plies as f64 / d.as_secs_f64();
    println!(
        "games={} plies={plies} events={events} rounds={rounds} of each, interleaved",
        games.len(),
    );
    println!(
        "referee allocations: {:.2} a ply",
        allocations as f64 / plies as f64
    );
    println!(
        "referee:  median round {:>10.3?}  {:>12.0} plies/s  {:>12.0} events/s",
        referee,
        per_second(referee),
        events as f64 / referee.as_secs_f64()
    );
    println!(
        "shakmaty: median round {:>10.3?}  {:>12.0} plies/s",
        shakmaty,
        per_second(shakmaty)
    );
    println!(
        "referee_vs_shakmaty_throughput={:.2}",
        per_second(referee) / per_second(shakmaty)
    );
}

/// Every reference game on both kinds of board, built once.
fn games() -> Vec<Game> {
    let mut games = Vec::new();
    for (i, game) in pgn::reference_games().iter().enumerate() {
        let start = game.start();
        let mut position = start.clone();
        let moves: Vec<Move> = game
            .sans
            .iter()
            .map(|san| {
                let m = parse_san(&position, san).unwrap_or_else(|e| panic!("{}: {e}", game.name));
                position.play_unchecked(m);
                m
            })
            .collect();
        for identifies_pieces in [false, true] {
            let script = Script::varied(start.clone(), identifies_pieces, i as u64);
            games.push(Game {
                rules: game.rules(),
                events: game.play_into(script).into_events(),
                start: start.clone(),
                moves: moves.clone(),
            });
        }
    }
    games
}

/// Side A: every stream through a fresh referee, effects drained.
fn referee_round(games: &[Game]) {
    for game in games {
        let mut referee = Referee::new(game.rules.clone());
        for &(t, input) in &game.events {
            referee.handle(t, input).unwrap();
            while let Some(effect) = referee.poll_effect() {
                black_box(effect);
            }
        }
        black_box(&referee);
    }
}

/// Side B: shakmaty alone, every ply: the legal moves generated, then the
/// game's move played with shakmaty's own `play`, which checks it.
fn shakmaty_round(games: &[Game]) {
    for game in games {
        let mut position = game.start.clone();
        for &m in &game.moves {
            black_box(position.legal_moves());
            position = position.play(m).expect("the reference games are legal");
        }
        black_box(&position);
    }
}

fn timed(round: impl FnOnce()) -> Duration {
    let start = Instant::now();
    round();
    start.elapsed()
}

fn median(rounds: &mut [Duration]) -> Duration {
    rounds.sort_unstable();
    rounds[rounds.len() / 2]
}
