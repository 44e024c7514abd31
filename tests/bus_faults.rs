//! Bus faults as a test: the reference games played through the daemon's
//! own loop on the device models (the real protocol-v1 driver, the board
//! core's firmware logic, the OLED on the same bus), in bus time, while
//! the bus misbehaves: one frame in ten corrupted on the wire, and bursts
//! of NACKs, bus errors and a data line stuck low, some long enough for the
//! link to call the board disconnected. Seeded, so every run is the same
//! run. The second test corrupts half the bad frames in the board's own
//! memory, where no re-read helps.
//!
//! What must hold: every move of every game is completed, with its SAN, in
//! order, and the game ends on the position its moves lead to (no move
//! missed after a resynchronisation); no ruling is made that the players
//! did not earn (no violation, no displaced piece); and from the first
//! press to the last the clock never stops.
//!
//! The figures for the book (`docs/src/reliability.md`: moves, corrupted
//! frames, retries, resyncs, worst delay) are printed by
//! `cargo test --test bus_faults -- --nocapture`; `BUS_DEBUG=1` prints
//! each game's timeline and the warnings, `BUS_DUMP=1` every line the
//! daemon printed.

mod support {
    pub mod parsed;
    pub mod pgn;
}

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Chess, Color, Position};
use tocada::config::Config;
use tocada::controls::Button;
use tocada::daemon::{Command, Session, Shell, link_policy};
use tocada::gesture::{self, Style};
use tocada::hardware::buttons::ButtonPress;
use tocada::models::bus::BusClock;
use tocada::rig::Rig;
use tocada::rig::models::{RigClock, World};
use tocada::{Input, Rules};

use support::pgn::{PgnGame, reference_games};

/// The board is left a second to be identified and paired before play.
const START_US: u64 = 1_000_000;

/// One frame in this many is corrupted.
const CORRUPT_ONE_IN: u64 = 10;

/// A fault of the bus or the board, injected at an instant.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// The next frame is read with a flipped bit, once (noise on the wire).
    WireNoise,
    /// The next frame is stored corrupt (the board's memory): only a
    /// resynchronisation recovers it.
    BadFrame,
    /// The next `n` transfers are NACKed (the data line stuck high, a
    /// board busy or browned out).
    Nacks(u32),
    /// The next `n` transfers fail with a bus error.
    BusErrors(u32),
    /// The data line is stuck low for the next `n` transfers.
    StuckLow(u32),
}

/// What happens, when (µs of bus time).
#[derive(Debug, Clone, Copy)]
enum Act {
    Hand(Input),
    Press(Color),
    Fault(Fault),
}

/// A deterministic generator: xorshift64.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// In `lo..hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// A game as hands play it on a faulty bus, and the position it leads to.
fn timeline(game: &PgnGame, rng: &mut Rng, memory: bool) -> (Vec<(u64, Act)>, Chess, usize) {
    let mut position = game.start();
    let mut acts = vec![(START_US, Act::Press(!position.turn()))];
    let mut t = START_US;
    let mut plies = 0;
    for san in &game.sans {
        let m = gesture::parse_san(&position, san).expect("the reference games are legal");
        let style =
            Style::from_index(rng.range(0, Style::COUNT as u64) as usize).with_identities(false);
        let think = rng.range(1_000, 6_000) * 1_000;
        // A burst somewhere in the thinking time, before one move in four.
        if rng.one_in(4) {
            let n = rng.range(3, 40) as u32;
            let fault = match rng.range(0, 3) {
                0 => Fault::Nacks(n),
                1 => Fault::BusErrors(n),
                _ => Fault::StuckLow(n),
            };
            acts.push((t + rng.range(1, think / 1_000) * 1_000, Act::Fault(fault)));
        }
        t += think;
        let mut last = t;
        for (dt, input) in gesture::hand_events(&position, m, &style) {
            last = t + dt * 1_000;
            // One frame in ten is corrupted, on the wire or in the board.
            if rng.one_in(CORRUPT_ONE_IN) {
                let fault = if !memory || rng.one_in(2) {
                    Fault::WireNoise
                } else {
                    Fault::BadFrame
                };
                acts.push((last, Act::Fault(fault)));
            }
            acts.push((last, Act::Hand(input)));
        }
        position.play_unchecked(m);
        plies += 1;
        if position.is_game_over() {
            break;
        }
        // Sometimes the press comes in a fault burst too.
        t = last + rng.range(150, 600) * 1_000;
        if rng.one_in(8) {
            acts.push((t - 1, Act::Fault(Fault::Nacks(rng.range(2, 12) as u32))));
        }
        acts.push((t, Act::Press(!position.turn())));
    }
    (acts, position, plies)
}

/// The loop's standard output (its decisions, one JSON line each).
#[derive(Clone, Default)]
struct Output(Rc<RefCell<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What the bus went through, over all games.
#[derive(Debug, Default)]
struct Figures {
    games: usize,
    moves: usize,
    frames: usize,
    corrupted_frames: usize,
    fault_bursts: usize,
    failed_transfers: u64,
    crc_errors: u64,
    resyncs: u64,
    /// Microseconds from a piece put down to the session hearing it.
    worst_place_us: u64,
    /// Microseconds from a press to the move it completes.
    worst_press_us: u64,
    /// 6.2.3 warnings the faults caused (a resynchronised move's time).
    warnings: usize,
}

/// Plays one game through the daemon's loop; panics if a move is missed,
/// a ruling is made that nobody earned, or the clock stops.
fn play(game: &PgnGame, seed: u64, memory: bool, figures: &mut Figures) {
    let mut rng = Rng::new(seed);
    let (acts, end, plies) = timeline(game, &mut rng, memory);
    let clock = BusClock::new();
    let world = World::with_bus_clock(clock.clone(), 100_000);
    let config = Config::default();
    let rig = world.rig(link_policy(&config), RigClock::Bus(clock.clone()));
    let output = Output::default();
    let mut shell = Shell::new(Session::new(&config), rig)
        .record_board_inputs()
        .with_output(Box::new(output.clone()));
    // Slow enough that no flag falls in the slowest reference game.
    shell.command(Command::Rules {
        name: "bus faults".to_owned(),
        rules: Box::new(Rules {
            time_control: "5400+30".parse().expect("a time control"),
            ..Rules::default()
        }),
    });
    shell.power_on();
    let finish = acts.last().map_or(0, |(t, _)| t + 2_000_000);
    let last_press = acts
        .iter()
        .rev()
        .find(|(_, a)| matches!(a, Act::Press(_)))
        .map_or(0, |(t, _)| *t);
    let mut made: Vec<(u64, Input)> = Vec::new();
    if std::env::var("BUS_DEBUG").is_ok() {
        for (t, a) in &acts {
            eprintln!("{t} {a:?}");
        }
    }
    let mut acts = acts.into_iter().peekable();
    let mut last_step = None;
    let mut started = false;
    while clock.micros() < finish {
        let wake = shell.wake_at() * 1_000;
        match acts.peek() {
            Some(&(t, act)) if t <= wake.max(clock.micros()) => {
                acts.next();
                clock.advance_to(t);
                let ms = t / 1_000;
                let board = || world.bus().borrow_mut();
                match act {
                    Act::Hand(input) => {
                        made.push((t, input));
                        figures.frames += 1;
                        match input {
                            Input::Lift(sq) => world.lift(ms, sq),
                            Input::Place(sq, piece) => world.place(ms, sq, piece),
                            Input::Touch(sq) => world.touch(ms, sq),
                            Input::Untouch(sq) => world.untouch(ms, sq),
                            other => shell.command(Command::Input(other)),
                        }
                    }
                    Act::Press(side) => {
                        started = true;
                        shell.command(Command::Press(ButtonPress {
                            button: Button::Lever(side),
                            at: Duration::from_micros(t),
                        }))
                    }
                    Act::Fault(fault) => match fault {
                        Fault::WireNoise => {
                            figures.corrupted_frames += 1;
                            board().board_mut().corrupt_next_read();
                        }
                        Fault::BadFrame => {
                            figures.corrupted_frames += 1;
                            board().board_mut().corrupt_next_frame();
                        }
                        Fault::Nacks(n) => {
                            figures.fault_bursts += 1;
                            board().board_mut().nack_next(n);
                        }
                        Fault::BusErrors(n) => {
                            figures.fault_bursts += 1;
                            board().board_mut().bus_error_burst(n);
                        }
                        Fault::StuckLow(n) => {
                            figures.fault_bursts += 1;
                            board().board_mut().stuck_low(n);
                        }
                    },
                }
            }
            _ => {
                let now = clock.micros();
                clock.advance_to(if last_step == Some(now) {
                    now + 100
                } else {
                    wake
                });
                last_step = Some(clock.micros());
                shell.step();
            }
        }
        // From the first press to the last, a clock is always running.
        if started && clock.micros() < last_press && shell.session().referee().is_some() {
            assert!(
                shell.session().is_ticking(),
                "{}: the clock stopped at {} us:\n{}",
                game.name,
                clock.micros(),
                String::from_utf8_lossy(&output.0.borrow())
            );
        }
    }
    // Every move completed, with its SAN, in order; nothing ruled that the
    // players did not earn.
    let printed = String::from_utf8(output.0.borrow().clone()).expect("UTF-8");
    if std::env::var("BUS_DUMP").is_ok() {
        eprintln!("{printed}");
    }
    let sans: Vec<&str> = printed
        .lines()
        .filter(|l| l.contains(r#""effect":"move""#))
        .map(|l| {
            let at = l.find(r#""san":""#).expect("a move has its SAN") + 7;
            &l[at..at + l[at..].find('"').expect("closed")]
        })
        .collect();
    let expected: Vec<&str> = game.sans[..plies]
        .iter()
        .map(|s| s.trim_end_matches(['+', '#']))
        .collect();
    let got: Vec<&str> = sans
        .iter()
        .map(|s| s.trim_end_matches(['+', '#']))
        .collect();
    assert_eq!(got, expected, "{}: moves missed or wrong", game.name);
    // A 6.2.3 warning can come of a resynchronisation: the snapshot's
    // differences carry the snapshot's time (protocol § 11 rule 7), so a
    // piece put down just before the press seems released at the press.
    // It costs nothing and is counted (docs/src/reliability.md says so);
    // a ruling that costs the player is not allowed.
    figures.warnings += printed.matches(r#""effect":"warning""#).count();
    // Without frames lost in the board's memory there is no
    // resynchronisation, and every change keeps its own instant: no
    // warning at all.
    assert!(
        memory || !printed.contains(r#""effect":"warning""#),
        "{}: a warning from wire faults alone:\n{printed}",
        game.name
    );
    if std::env::var("BUS_DEBUG").is_ok() {
        for l in printed.lines().filter(|l| l.contains("warning")) {
            eprintln!("{}: {l}", game.name);
        }
    }
    for word in ["violation", "displaced", "time_added", "flag"] {
        assert!(
            !printed.contains(&format!(r#""effect":"{word}""#)),
            "{}: a {word} nobody earned:\n{printed}",
            game.name
        );
    }
    let referee = shell.session().referee().expect("a game was played");
    assert_eq!(
        referee.position().board(),
        end.board(),
        "{}: the game did not reach the position its moves lead to",
        game.name
    );
    let tocada::rig::models::ModelBoard::Protocol(board) = shell.rig().link_ref().board() else {
        panic!("the reference games are played on the protocol board");
    };
    let counters = board.counters();
    figures.crc_errors += u64::from(counters.crc_errors);
    figures.resyncs += u64::from(counters.resyncs);
    figures.failed_transfers += u64::from(counters.bus_errors);
    let heard: Vec<(u64, Input)> = shell
        .stats()
        .board_inputs
        .iter()
        .map(|(at, input)| (at.as_micros() as u64, *input))
        .collect();
    // Each piece put down is heard, after it was put down.
    let mut from = 0;
    for (made_at, input) in &made {
        let Input::Place(sq, _) = input else { continue };
        let Some(i) = heard[from..]
            .iter()
            .position(|(at, h)| at >= made_at && matches!(h, Input::Place(s, _) if s == sq))
        else {
            panic!(
                "{}: the piece put on {sq} at {made_at} us was never heard",
                game.name
            );
        };
        figures.worst_place_us = figures.worst_place_us.max(heard[from + i].0 - made_at);
        from += i + 1;
    }
    let stats = shell.finish();
    figures.worst_press_us = figures
        .worst_press_us
        .max(stats.press_to_face_us.iter().copied().max().unwrap_or(0));
    figures.games += 1;
    figures.moves += plies;
}

#[test]
fn games_on_a_faulty_bus_miss_no_move_and_the_clock_never_stops() {
    let mut figures = Figures::default();
    for (i, game) in reference_games().iter().enumerate() {
        play(game, 0xB05 + i as u64, false, &mut figures);
    }
    println!("{figures:?}");
    // The faults happened: the test is not a clean run.
    assert!(
        figures.corrupted_frames * 20 >= figures.frames,
        "{figures:?}"
    );
    assert!(
        figures.crc_errors > 0 && figures.failed_transfers > 0,
        "{figures:?}"
    );
}

/// Half the corrupted frames corrupted in the board's memory, so that no
/// re-read recovers them. A snapshot says which squares are occupied, not
/// what happened: had the driver resynchronised from one, a capture (the
/// captured piece lifted, the capturing one put on its square) behind a
/// frame lost this way would vanish from the differences, and the press
/// that completes it be ruled a violation. The driver reads the good
/// frames after the bad one instead and infers the bad one's change.
#[test]
fn a_frame_corrupt_in_the_boards_memory_loses_no_capture() {
    let mut figures = Figures::default();
    for (i, game) in reference_games().iter().enumerate() {
        play(game, 0xB05 + i as u64, true, &mut figures);
    }
    println!("{figures:?}");
    assert!(figures.resyncs > 0, "{figures:?}");
}
