//! Real time on a real bus: how long a lever press takes to show on the
//! face, and a lift or place to reach the referee, with the OLED and the
//! board on one I2C bus at 100 kHz (the Pi's default) and at 400 kHz.
//!
//! ```sh
//! cargo run --release --example realtime
//! ```
//!
//! The daemon's own loop ([`tocada::daemon::Shell`]) runs on the models' rig
//! with the real drivers, but in **bus time**: every transaction on the
//! modelled bus takes as long as it would on the wire at the given clock
//! (9 clocks a byte with its ACK, 2 a start: `tocada::hardware::bus`), and
//! the loop's waits move the clock on to its next deadline. So the figures
//! are deterministic and the same on any machine; what they leave out is
//! the Pi's own software time between transactions.
//!
//! The three reference games (`tests/data/*.pgn`) are played by hands at
//! human pace, 2 to 12 s a move, with every fourth reply made in under
//! 300 ms (a quick recapture), from the start press to the last move. The
//! board is polled every 5 ms, as without its interrupt line.
//!
//! Printed, one line per figure:
//! `press_to_face_ms khz=100 median=… worst=…`,
//! `lift_to_referee_ms khz=100 median=… worst=…`,
//! `place_to_referee_ms khz=100 median=… worst=…`, and the same at 400 kHz;
//! then the same games on a DGT e-board's model (pieces with identity, no
//! touches) over its own serial line, each byte taking its time at 9600
//! baud (10 bits): `dgt_event_to_referee_ms median=… worst=…` (lifts and
//! places together) and `dgt_press_to_face_ms`, the OLED alone on the bus
//! at 100 kHz, and `dgt_press_to_referee_ms`, from a lever's press to its
//! ruling (the press waits for the board's news up to it). Then the DGT
//! games again with the line losing a field update every third move (a
//! lift lost whole before its place, or a move's last place lost without a
//! trace, in turn): `dgt_faults_event_to_referee_ms` and
//! `dgt_faults_press_to_referee_ms`. Exits with 1 if any board event was
//! lost or reordered, or a game did not reach the position its moves lead
//! to. Last, the same games with a DGT 3000 plugged into the board, every
//! press made on its levers: `dgt3000_press_to_clock_ms median=… worst=…`,
//! from the lever's press to the clock's set-and-run that runs the other
//! side (or stops both at the end).

#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;

use std::process::ExitCode;
use std::time::Duration;

use shakmaty::{Chess, Color, Position};
use tocada::Input;
use tocada::config::Config;
use tocada::controls::Button;
use tocada::daemon::shell::median_and_worst;
use tocada::daemon::{Command, Session, Shell, link_policy};
use tocada::gesture::{self, Style};
use tocada::hardware::buttons::ButtonPress;
use tocada::hardware::dgt3000::ClockSide;
use tocada::models::bus::BusClock;
use tocada::models::dgt::LineFault;
use tocada::rig::Rig;
use tocada::rig::models::{RigClock, World};

/// What a hand does, when (µs of bus time).
#[derive(Debug, Clone, Copy)]
enum Act {
    /// On the board.
    Hand(Input),
    /// The mover's lever.
    Press(Color),
    /// The DGT board's next field update meets this on its line.
    Fault(LineFault),
}

/// The board is left a second to be identified and paired before play.
const START_US: u64 = 1_000_000;

/// A game as hands play it, and the position it leads to.
fn timeline(game: &pgn::PgnGame, seed: u64, identities: bool) -> (Vec<(u64, Act)>, Chess) {
    timeline_with(game, seed, identities, false)
}

/// [`timeline`], and with `faults` a DGT line that loses a field update
/// every third move: the mover's lift (when a place follows it) and the
/// move's last place, in turn.
fn timeline_with(
    game: &pgn::PgnGame,
    seed: u64,
    identities: bool,
    faults: bool,
) -> (Vec<(u64, Act)>, Chess) {
    let mut position = game.start();
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |lo: u64, hi: u64| {
        // xorshift: enough to vary thinking times reproducibly.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        lo + state % (hi - lo)
    };
    let mut acts = vec![(START_US, Act::Press(!position.turn()))];
    let mut t = START_US;
    for (ply, san) in game.sans.iter().enumerate() {
        let m = gesture::parse_san(&position, san).expect("the reference games are legal");
        let style =
            Style::from_index(next(0, Style::COUNT as u64) as usize).with_identities(identities);
        let hands = gesture::hand_events(&position, m, &style);
        let quick = ply % 4 == 3;
        // A quick reply: the whole move and its press in under 300 ms.
        let (think, hand_span, press_after) = if quick {
            (30_000, 140_000, 110_000)
        } else {
            (next(2_000, 12_000) * 1_000, 0, next(150, 600) * 1_000)
        };
        let natural = hands.last().map_or(1, |(dt, _)| (*dt).max(1)) * 1_000;
        let lost = if faults && ply % 3 == 1 {
            let changes: Vec<Input> = hands
                .iter()
                .map(|(_, i)| *i)
                .filter(|i| matches!(i, Input::Lift(_) | Input::Place(..)))
                .collect();
            let lift = m
                .from()
                .and_then(|from| changes.iter().position(|i| *i == Input::Lift(from)))
                .filter(|k| matches!(changes.get(k + 1), Some(Input::Place(..))));
            let last_place = changes.iter().rposition(|i| matches!(i, Input::Place(..)));
            if ply % 2 == 0 { lift } else { last_place }.map(|k| changes[k])
        } else {
            None
        };
        t += think;
        let mut last = t;
        for (dt, input) in hands {
            let offset = if quick {
                dt * 1_000 * hand_span / natural
            } else {
                dt * 1_000
            };
            last = t + offset;
            if lost == Some(input) {
                acts.push((last, Act::Fault(LineFault::Drop)));
            }
            acts.push((last, Act::Hand(input)));
        }
        position.play_unchecked(m);
        if position.is_game_over() {
            break;
        }
        t = last + press_after;
        acts.push((t, Act::Press(!position.turn())));
    }
    (acts, position)
}

/// Figures of one run.
#[derive(Default)]
struct Figures {
    press_to_face_us: Vec<u64>,
    press_to_referee_us: Vec<u64>,
    /// A DGT 3000's lever pressed to the clock running the other side.
    press_to_clock_us: Vec<u64>,
    lift_us: Vec<u64>,
    place_us: Vec<u64>,
    lost: usize,
    wrong_end: usize,
}

/// The board the hands play on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoardKind {
    /// Protocol v1 on the I2C bus the OLED shares.
    Protocol,
    /// A DGT board on its own serial line at 9600 baud; the OLED alone on
    /// the bus.
    Dgt,
    /// The same with a DGT 3000 plugged into the board: the presses are
    /// its levers'.
    Dgt3000,
}

/// Plays `acts` through the daemon's loop on a bus at `khz`.
fn play(acts: &[(u64, Act)], end: &Chess, khz: u32, board: BoardKind, figures: &mut Figures) {
    let clock = BusClock::new();
    let world = match board {
        BoardKind::Protocol => World::with_bus_clock(clock.clone(), khz * 1_000),
        BoardKind::Dgt => World::with_dgt_line(clock.clone(), khz * 1_000),
        BoardKind::Dgt3000 => World::with_dgt3000_line(clock.clone(), khz * 1_000),
    };
    // A lever pressed on the DGT 3000, its instant and the clock's sets
    // then, waiting for the set that switches the clock.
    let mut switch: Option<(u64, u64)> = None;
    let config = Config::default();
    let rig = world.rig(link_policy(&config), RigClock::Bus(clock.clone()));
    let mut shell = Shell::new(Session::new(&config), rig).record_board_inputs();
    shell.power_on();
    let mut hands: Vec<(u64, Input)> = Vec::new();
    let mut acts = acts.iter().peekable();
    let finish = acts.clone().last().map_or(0, |(t, _)| t + 2_000_000);
    let mut last_step = None;
    while clock.micros() < finish {
        let wake = shell.wake_at() * 1_000;
        match acts.peek() {
            Some(&&(t, act)) if t <= wake.max(clock.micros()) => {
                acts.next();
                // The hand acts at `t` even if the bus was busy then: the
                // board stamps the change, the kernel the lever's edge.
                clock.advance_to(t);
                let now = t;
                match act {
                    Act::Hand(input) => {
                        hands.push((now, input));
                        // The DGT model's clock counts whole ms: the
                        // change is sent no sooner than the hand made it.
                        let ms = match board {
                            BoardKind::Protocol => now / 1_000,
                            BoardKind::Dgt | BoardKind::Dgt3000 => now.div_ceil(1_000),
                        };
                        match input {
                            Input::Lift(sq) => world.lift(ms, sq),
                            Input::Place(sq, piece) => world.place(ms, sq, piece),
                            Input::Touch(sq) => world.touch(ms, sq),
                            Input::Untouch(sq) => world.untouch(ms, sq),
                            // A promotion chosen on the clock: not on the bus.
                            other => shell.command(Command::Input(other)),
                        }
                    }
                    Act::Press(side) if board == BoardKind::Dgt3000 => {
                        // White on the left (the default `clock.white`).
                        let lever = match side {
                            Color::White => ClockSide::Left,
                            Color::Black => ClockSide::Right,
                        };
                        let sets = world.with_clock_model(|c, _| c.sets()).unwrap_or(0);
                        switch = Some((now, sets));
                        world.press_clock_lever(lever);
                    }
                    Act::Press(side) => shell.command(Command::Press(ButtonPress {
                        button: Button::Lever(side),
                        at: Duration::from_micros(now),
                    })),
                    Act::Fault(fault) => {
                        if let Some(model) = world.dgt_line() {
                            model.borrow_mut().fault_next_update(fault);
                        }
                    }
                }
            }
            _ => {
                // A step that found nothing to do at this instant must not
                // be asked again at the same one.
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
        if let Some((pressed, sets)) = switch {
            let set = world.with_clock_model(|c, _| (c.sets(), c.set_at()));
            if let Some((now_sets, set_at)) = set.filter(|(n, _)| *n > sets) {
                let _ = now_sets;
                figures
                    .press_to_clock_us
                    .push((set_at * 1_000).saturating_sub(pressed));
                switch = None;
            }
        }
    }
    // A DGT board senses pieces, not hands: touches never reach it.
    let board_inputs = |i: &Input| match board {
        BoardKind::Protocol => !matches!(i, Input::Promote(_)),
        BoardKind::Dgt | BoardKind::Dgt3000 => matches!(i, Input::Lift(_) | Input::Place(..)),
    };
    let heard: Vec<(u64, Input)> = shell_inputs(&shell);
    let made: Vec<(u64, Input)> = hands.into_iter().filter(|(_, i)| board_inputs(i)).collect();
    // Every change the hands made reaches the referee, in order.
    if heard.len() != made.len() || heard.iter().zip(&made).any(|(h, m)| h.1 != m.1) {
        figures.lost += made.len().abs_diff(heard.len()).max(1);
    }
    for ((heard_at, input), (made_at, _)) in heard.iter().zip(&made) {
        let late = heard_at.saturating_sub(*made_at);
        match input {
            Input::Lift(_) => figures.lift_us.push(late),
            Input::Place(..) => figures.place_us.push(late),
            _ => {}
        }
    }
    let stats_end = shell
        .session()
        .referee()
        .map(|r| r.position().board().clone());
    if stats_end.as_ref() != Some(end.board()) {
        figures.wrong_end += 1;
    }
    let stats = shell.finish();
    figures.press_to_face_us.extend(stats.press_to_face_us);
    figures
        .press_to_referee_us
        .extend(stats.press_to_referee_us);
}

/// The board inputs the session was handed, with the bus time then.
fn shell_inputs<R: Rig>(shell: &Shell<R>) -> Vec<(u64, Input)> {
    shell
        .stats()
        .board_inputs
        .iter()
        .map(|(at, input)| (at.as_micros() as u64, *input))
        .collect()
}

fn ms(us: u64) -> String {
    format!("{:.1}", us as f64 / 1_000.0)
}

fn line(name: &str, khz: u32, values: &[u64]) {
    let (median, worst) = median_and_worst(values).unwrap_or_default();
    println!(
        "{name} khz={khz} median={} worst={} n={}",
        ms(median),
        ms(worst),
        values.len()
    );
}

fn main() -> ExitCode {
    let games = pgn::reference_games();
    let mut failed = false;
    for khz in [100, 400] {
        let mut figures = Figures::default();
        for (i, game) in games.iter().enumerate() {
            let (acts, end) = timeline(game, i as u64 + 1, false);
            play(&acts, &end, khz, BoardKind::Protocol, &mut figures);
        }
        line("press_to_face_ms", khz, &figures.press_to_face_us);
        line("lift_to_referee_ms", khz, &figures.lift_us);
        line("place_to_referee_ms", khz, &figures.place_us);
        if figures.lost > 0 || figures.wrong_end > 0 {
            eprintln!(
                "realtime: at {khz} kHz, {} board events lost or reordered, {} games off their moves",
                figures.lost, figures.wrong_end
            );
            failed = true;
        }
    }
    // The DGT board: its own line, so the bus's clock hardly matters; the
    // figure is at the Pi's default 100 kHz for the OLED.
    let mut figures = Figures::default();
    for (i, game) in games.iter().enumerate() {
        let (acts, end) = timeline(game, i as u64 + 1, true);
        play(&acts, &end, 100, BoardKind::Dgt, &mut figures);
    }
    let mut events = figures.lift_us.clone();
    events.extend_from_slice(&figures.place_us);
    let (median, worst) = median_and_worst(&events).unwrap_or_default();
    println!(
        "dgt_event_to_referee_ms median={} worst={} n={}",
        ms(median),
        ms(worst),
        events.len()
    );
    line("dgt_press_to_face_ms", 100, &figures.press_to_face_us);
    line("dgt_press_to_referee_ms", 100, &figures.press_to_referee_us);
    if figures.lost > 0 || figures.wrong_end > 0 {
        eprintln!(
            "realtime: on the DGT board, {} board events lost or reordered, {} games off their moves",
            figures.lost, figures.wrong_end
        );
        failed = true;
    }
    // The same games, the line losing an update every third move.
    let mut figures = Figures::default();
    for (i, game) in games.iter().enumerate() {
        let (acts, end) = timeline_with(game, i as u64 + 1, true, true);
        play(&acts, &end, 100, BoardKind::Dgt, &mut figures);
    }
    let mut events = figures.lift_us.clone();
    events.extend_from_slice(&figures.place_us);
    let (median, worst) = median_and_worst(&events).unwrap_or_default();
    println!(
        "dgt_faults_event_to_referee_ms median={} worst={} n={}",
        ms(median),
        ms(worst),
        events.len()
    );
    line(
        "dgt_faults_press_to_referee_ms",
        100,
        &figures.press_to_referee_us,
    );
    if figures.lost > 0 || figures.wrong_end > 0 {
        eprintln!(
            "realtime: on the DGT board losing updates, {} board events lost or reordered, {} games off their moves",
            figures.lost, figures.wrong_end
        );
        failed = true;
    }
    // The DGT 3000's levers, the presses' only source.
    let mut figures = Figures::default();
    for (i, game) in games.iter().enumerate() {
        let (acts, end) = timeline(game, i as u64 + 1, true);
        play(&acts, &end, 100, BoardKind::Dgt3000, &mut figures);
    }
    let (median, worst) = median_and_worst(&figures.press_to_clock_us).unwrap_or_default();
    println!(
        "dgt3000_press_to_clock_ms median={} worst={} n={}",
        ms(median),
        ms(worst),
        figures.press_to_clock_us.len()
    );
    if figures.lost > 0 || figures.wrong_end > 0 {
        eprintln!(
            "realtime: with the DGT 3000, {} board events lost or reordered, {} games off their moves",
            figures.lost, figures.wrong_end
        );
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
