//! A sensor storm: hundreds of thousands of board events within one turn
//! (a flickering reed switch, a hand resting on the pieces) must not grow
//! the referee's memory, nor change a ruling.
//!
//! The memory is measured with a counting allocator, per thread (the test
//! harness allocates on its own threads meanwhile): the bytes held after
//! the storm, less those held after its first thousand events, must stay
//! under a few kilobytes however long the storm lasts.

mod support {
    pub mod referee;
}

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use support::referee::*;
use tocada::{Effect, Input, Law, Millis, Rules, Ruling};

/// The system allocator, counting the bytes each thread holds.
struct Counting;

thread_local! {
    /// Bytes this thread allocated and has not freed.
    static HELD: Cell<i64> = const { Cell::new(0) };
}

fn count(bytes: i64) {
    // A thread being torn down counts nothing: no storm runs then.
    let _ = HELD.try_with(|held| held.set(held.get() + bytes));
}

fn held() -> i64 {
    HELD.with(Cell::get)
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64);
        // SAFETY: the caller's guarantees, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Events in a storm: a little more than the review's 617 000 would take
/// to show, enough for a list of them to weigh megabytes.
const STORM: usize = 300_000;

/// The most the referee may grow over a storm, in bytes.
const BOUND: i64 = 4 * 1024;

/// Feeds `storm(i)` for `i` in `0..STORM` (each one or more inputs at
/// `1_000 + i`), and returns how many bytes the referee held at the end
/// beyond what it held after the first thousand.
fn growth(game: &mut Game, storm: impl Fn(usize) -> Vec<Input>) -> i64 {
    let mut after_warmup = 0;
    for i in 0..STORM {
        if i == 1_000 {
            after_warmup = held();
        }
        for input in storm(i) {
            game.referee.handle(1_000 + i as Millis, input).unwrap();
        }
        // Nothing said during a storm but what the test checks after it.
        while game.referee.poll_effect().is_some() {}
    }
    held() - after_warmup
}

fn violations(effects: &[Effect]) -> Vec<(Law, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Violation(Ruling { law, detail, .. }) => Some((*law, detail.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn touches_in_one_turn_hold_no_more_memory_and_still_oblige() {
    let mut game = Game::started(Rules::default());
    // White touches his knight, then the storm: his pieces and Black's,
    // over and over, some after announcing an adjustment.
    game.at(500, Input::Touch(sq("g1")));
    let squares = [sq("g1"), sq("e2"), sq("d7"), sq("b1")];
    let grew = growth(&mut game, |i| {
        let touch = Input::Touch(squares[i % squares.len()]);
        if i % 1_000 == 999 {
            vec![Input::Adjust(WHITE), touch]
        } else {
            vec![touch]
        }
    });
    assert!(grew < BOUND, "{grew} bytes held after {STORM} touches");
    // The first piece touched still binds him (4.3.1).
    game.now = 1_000 + STORM as Millis;
    let effects = game.play_and_press(game.now + 100, "b1c3");
    assert_eq!(
        violations(&effects),
        [(Law::TouchedOwn, "Touch-move: move the g1 knight".to_owned())]
    );
}

#[test]
fn a_piece_lifted_and_put_back_over_and_over_holds_no_more_memory() {
    let mut game = Game::started(Rules::default());
    // The storm's lift and place: a switch under the e2 pawn flickering.
    let grew = growth(&mut game, |i| {
        vec![if i % 2 == 0 {
            Input::Lift(sq("e2"))
        } else {
            Input::Place(sq("e2"), None)
        }]
    });
    assert!(grew < BOUND, "{grew} bytes held after {STORM} events");
    assert_eq!(game.referee.contradictions(), 0);
    // The pawn touched: another piece's move breaks 4.3.1.
    game.now = 1_000 + STORM as Millis;
    let effects = game.play_and_press(game.now + 100, "g1f3");
    assert_eq!(
        violations(&effects),
        [(Law::TouchedOwn, "Touch-move: move the e2 pawn".to_owned())]
    );
}

#[test]
fn a_move_made_and_taken_back_over_and_over_holds_no_more_memory() {
    let mut game = Game::started(Rules::default());
    // e2-e4 released, taken back, released again, and now and then d2-d4:
    // each release is a move made (4.7), each return a take-back.
    let grew = growth(&mut game, |i| {
        let (from, to) = if (i / 4) % 50 == 49 {
            ("d2", "d4")
        } else {
            ("e2", "e4")
        };
        vec![match i % 4 {
            0 => Input::Lift(sq(from)),
            1 => Input::Place(sq(to), None),
            2 => Input::Lift(sq(to)),
            _ => Input::Place(sq(from), None),
        }]
    });
    assert!(grew < BOUND, "{grew} bytes held after {STORM} events");
    assert_eq!(game.referee.contradictions(), 0);
    // e4 was released first: 4.7 binds him to it.
    game.now = 1_000 + STORM as Millis;
    let effects = game.play_and_press(game.now + 100, "d2d4");
    assert_eq!(
        violations(&effects),
        [(
            Law::Released,
            "Released piece: the e2 pawn stays on e4".to_owned()
        )]
    );
}
