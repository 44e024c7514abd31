//! Replaying the reference games through a fresh referee: how many events a
//! second the referee digests, the number that says whether a Raspberry Pi
//! keeps up with a board (it does with room to spare if this is in millions).
//!
//! The event streams are built once, outside the measurement: each game as
//! hands with varied orders would play it, on a board without identities and
//! on one with them.

#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;

use std::sync::LazyLock;

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use tocada::gesture::Script;
use tocada::{Input, Millis, Referee, Rules};

fn main() {
    divan::main();
}

/// A game's rules and the events that play it.
type Stream = (Rules, Vec<(Millis, Input)>);

/// Every reference game on both kinds of board, with its rules.
static STREAMS: LazyLock<Vec<Stream>> = LazyLock::new(|| {
    let mut streams = Vec::new();
    for (i, game) in pgn::reference_games().iter().enumerate() {
        for identifies_pieces in [false, true] {
            let script = Script::varied(game.start(), identifies_pieces, i as u64);
            streams.push((game.rules(), game.play_into(script).into_events()));
        }
    }
    streams
});

#[divan::bench]
fn reference_games(bencher: Bencher) {
    let streams = &*STREAMS;
    let events: usize = streams.iter().map(|(_, events)| events.len()).sum();
    bencher.counter(ItemsCount::new(events)).bench(|| {
        for (rules, events) in streams {
            let mut referee = Referee::new(rules.clone());
            for &(t, input) in events {
                referee.handle(t, input).unwrap();
                while let Some(effect) = referee.poll_effect() {
                    black_box(effect);
                }
            }
        }
    });
}
