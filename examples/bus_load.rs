//! Bus load and lift latency on the shared I2C bus, by deterministic
//! simulation: `cargo run --release --example bus_load`.
//!
//! One bus carries the OLED (tocada's driver, `hardware::oled`, onto
//! [`Ssd1306Model`] at 0x3C) and a sensor board (the real driver onto its
//! model: the protocol board, then the four-MCP23017 reed board). A
//! [`BusMeter`] around the bus counts every transaction per address, and a
//! simulated clock advances by each transaction's bus time at the speed
//! under test ([`transfer_time_us`]); nothing reads the real time.
//!
//! The daemon's schedule: the face looked at 10 Hz and staged when it changed
//! (`Oled::stage`: the changed columns of the changed pages, as writes of at
//! most 16 data bytes), the board polled every 5 ms (protocol board, § 9.3)
//! or 10 ms (reed board, wiring.md).
//! Two ways of sharing the bus are compared:
//!
//! - **whole flush**: a single-threaded loop; a poll that falls due during
//!   `flush()` waits until the flush returns;
//! - **per transaction**: the loop sends one OLED write (`Oled::send_next`)
//!   at a time between polls, so a poll waits for at most one OLED write:
//!   24 bytes on the wire at most.
//!
//! Two scenarios: *typical* (White's clock running for 60 s, a piece lifted
//! and put back every 5 s: a move every 10 s or so) for bytes per second,
//! and *latency* (1500 lifts at sweeping phases against the poll and face
//! schedules, and the screen switching between the clock and the menu every
//! 2 s so that big flushes happen) for the worst lift→event delay. A third
//! measures lever presses: from a press to the panel showing the other
//! clock's marker, and to the old one cleared, with the board polled.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, Operation};
use shakmaty::{Board, Color, Piece, Square};
use tocada::face::{self, Screen, View};
use tocada::hardware::SensorBoard;
use tocada::hardware::bus::{BusMeter, Transfer, transfer_time_us};
use tocada::hardware::mcp23017_board::Mcp23017Board;
use tocada::hardware::oled::Oled;
use tocada::hardware::protocol_board::ProtocolBoard;
use tocada::models::Hands;
use tocada::models::mcp23017::ReedBoardModel;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::models::ssd1306::{ADDRESS as OLED, Ssd1306Model};
use tocada::protocol::{Capabilities, DEFAULT_ADDRESS};
use tocada::session::view::from_referee;
use tocada::{Input, Referee, Rules};

const RUN_US: u64 = 60_000_000;
const FACE_PERIOD_US: u64 = 100_000;
const SPEEDS: [u32; 2] = [100_000, 400_000];

/// The OLED and one board on one bus, routed by address.
struct Router<B> {
    oled: Ssd1306Model,
    board: B,
}

impl<B> ErrorType for Router<B> {
    type Error = ErrorKind;
}

impl<B: I2c<Error = ErrorKind>> I2c for Router<B> {
    fn transaction(&mut self, address: u8, ops: &mut [Operation<'_>]) -> Result<(), ErrorKind> {
        if address == OLED {
            self.oled.transaction(address, ops)
        } else {
            self.board.transaction(address, ops)
        }
    }
}

type Shared<B> = Rc<RefCell<BusMeter<Router<B>>>>;

/// One driver's handle on the shared bus.
struct Handle<B>(Shared<B>);

impl<B> ErrorType for Handle<B> {
    type Error = ErrorKind;
}

impl<B: I2c<Error = ErrorKind>> I2c for Handle<B> {
    fn transaction(&mut self, address: u8, ops: &mut [Operation<'_>]) -> Result<(), ErrorKind> {
        self.0.borrow_mut().transaction(address, ops)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sharing {
    WholeFlush,
    PerTransaction,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Typical,
    Latency,
}

#[derive(Default)]
struct Run {
    oled_bytes: u64,
    board_bytes: u64,
    busy_us: u64,
    longest_flush_us: u64,
    longest_oled_transaction_us: u64,
    longest_board_transaction_us: u64,
    longest_poll_us: u64,
    lifts: usize,
    seen: usize,
    worst_delay_us: u64,
}

fn duration(log: &[Transfer], hz: u32) -> u64 {
    log.iter().map(|t| t.time_us(hz)).sum()
}

fn menu() -> View {
    View {
        screen: Screen::TimeControlMenu {
            presets: [
                "Blitz 3+2",
                "Blitz 5+3",
                "Rapid 15+10",
                "Rapid 25+10",
                "Classical 90+30",
                "FIDE 90/40+30+30",
            ]
            .map(String::from)
            .to_vec(),
            selected: 4,
        },
        ..View::default()
    }
}

/// The hands' script: (time µs, square, lift?), in time order.
fn hands(scenario: Scenario) -> Vec<(u64, Square, bool)> {
    let squares: Vec<Square> = (8..16).chain(48..56).map(Square::new).collect();
    let mut events = Vec::new();
    match scenario {
        Scenario::Typical => {
            for k in 0..RUN_US / 5_000_000 {
                let at = k * 5_000_000 + 1_234_567;
                let sq = squares[k as usize % squares.len()];
                events.push((at, sq, true));
                events.push((at + 600_000, sq, false));
            }
        }
        Scenario::Latency => {
            // One lift every 40 ms, shifted by a phase that sweeps 0–40 ms
            // in 7.919 ms steps (coprime with the 5, 10 and 100 ms periods);
            // each piece goes back 300 ms later, squares in rotation.
            for k in 0..1500u64 {
                let at = k * 40_000 + (k * 7_919) % 40_000;
                let sq = squares[k as usize % squares.len()];
                events.push((at, sq, true));
                events.push((at + 300_000, sq, false));
            }
        }
    }
    events.sort_by_key(|e| e.0);
    events
}

fn simulate<B, D>(
    board: B,
    driver: impl FnOnce(Handle<B>) -> D,
    poll_us: u64,
    hz: u32,
    sharing: Sharing,
    scenario: Scenario,
) -> Run
where
    B: I2c<Error = ErrorKind> + Hands,
    D: SensorBoard,
{
    let bus: Shared<B> = Rc::new(RefCell::new(BusMeter::new(Router {
        oled: Ssd1306Model::new(),
        board,
    })));
    let mut oled = Oled::new(Handle(bus.clone()));
    oled.init().unwrap();
    let mut driver = driver(Handle(bus.clone()));

    let mut referee = Referee::new(Rules {
        time_control: "5400+30".parse().unwrap(),
        ..Rules::default()
    });
    referee.handle(0, Input::Press(Color::Black)).unwrap();

    // Start-up, not measured: the first full frame, the board's handshake.
    let mut shown = from_referee(&referee, 0, None);
    oled.show(&face::render(&shown), &face::urgent(&shown))
        .unwrap();
    let mut out = Vec::new();
    for _ in 0..20 {
        let _ = driver.poll(&mut out);
    }
    assert!(out.is_empty(), "start-up inputs: {out:?}");
    bus.borrow_mut().reset();

    let pieces: Vec<Option<Piece>> = {
        let board = Board::default();
        (0..64).map(|i| board.piece_at(Square::new(i))).collect()
    };
    let script = hands(scenario);
    let mut next_hand = 0;
    let mut lifted: BTreeMap<Square, u64> = BTreeMap::new();

    let mut run = Run::default();
    let (mut t, mut next_poll, mut next_face) = (0u64, 0u64, 0u64);
    // The bus time of the update being sent, write by write.
    let mut update_us = 0;
    while t < RUN_US {
        if t >= next_poll {
            // The hands act whenever they like; the poll sees what has
            // happened by the time it starts.
            while let Some(&(at, sq, lift)) = script.get(next_hand).filter(|e| e.0 <= t) {
                let mut b = bus.borrow_mut();
                let model = &mut b.inner_mut().board;
                if lift {
                    model.lift(at / 1000, sq);
                    lifted.insert(sq, at);
                    run.lifts += 1;
                } else {
                    model.place(at / 1000, sq, pieces[sq as usize].unwrap());
                }
                next_hand += 1;
            }
            bus.borrow_mut().take_log();
            out.clear();
            driver.poll(&mut out).unwrap();
            let log = bus.borrow_mut().take_log();
            let took = duration(&log, hz);
            run.longest_poll_us = run.longest_poll_us.max(took);
            for tr in &log {
                run.longest_board_transaction_us =
                    run.longest_board_transaction_us.max(tr.time_us(hz));
            }
            t += took;
            for input in &out {
                if let Input::Lift(sq) = input {
                    let at = lifted.remove(sq).expect("a lift the hands made");
                    run.worst_delay_us = run.worst_delay_us.max(t - at);
                    run.seen += 1;
                }
            }
            next_poll += poll_us;
            if next_poll < t {
                next_poll = t;
            }
        } else if oled.is_busy() {
            // Per transaction: one write, then the loop looks again.
            bus.borrow_mut().take_log();
            oled.send_next().unwrap();
            let log = bus.borrow_mut().take_log();
            let took = duration(&log, hz);
            run.longest_oled_transaction_us = run.longest_oled_transaction_us.max(took);
            update_us += took;
            run.longest_flush_us = run.longest_flush_us.max(update_us);
            t += took;
        } else if t >= next_face {
            let now_ms = next_face / 1000;
            let view = if scenario == Scenario::Latency && now_ms / 2000 % 2 == 1 {
                menu()
            } else {
                from_referee(&referee, now_ms, None)
            };
            // Views are rounded to what the face shows: equal, nothing to send.
            if view != shown {
                oled.stage(&face::render(&view), &face::urgent(&view));
                shown = view;
                update_us = 0;
                if sharing == Sharing::WholeFlush {
                    bus.borrow_mut().take_log();
                    oled.flush().unwrap();
                    let log = bus.borrow_mut().take_log();
                    run.longest_flush_us = run.longest_flush_us.max(duration(&log, hz));
                    for tr in &log {
                        run.longest_oled_transaction_us =
                            run.longest_oled_transaction_us.max(tr.time_us(hz));
                    }
                    t += duration(&log, hz);
                }
            }
            next_face += FACE_PERIOD_US;
        } else {
            t = next_poll.min(next_face);
        }
    }
    let meter = bus.borrow();
    run.oled_bytes = meter.device(OLED).bytes;
    run.board_bytes = meter.total().bytes - run.oled_bytes;
    run.busy_us = meter.total().time_us(hz);
    // The simulation ran a little past RUN_US; scale to per-second figures
    // over the simulated time.
    let scale = 1_000_000.0 / t as f64;
    run.oled_bytes = (run.oled_bytes as f64 * scale).round() as u64;
    run.board_bytes = (run.board_bytes as f64 * scale).round() as u64;
    run.busy_us = (run.busy_us as f64 * scale).round() as u64;
    run
}

struct Kind {
    name: &'static str,
    poll_us: u64,
}

fn run_kind(kind: &Kind, hz: u32, sharing: Sharing, scenario: Scenario) -> Run {
    let board = Board::default();
    if kind.name.starts_with("protocol") {
        simulate(
            ProtocolBoardModel::new(&board, 0x0123_4567_89AB_CDEF, Capabilities::from_bits(0x11)),
            |bus| ProtocolBoard::new(bus, DEFAULT_ADDRESS),
            kind.poll_us,
            hz,
            sharing,
            scenario,
        )
    } else {
        simulate(
            ReedBoardModel::new(&board),
            Mcp23017Board::new,
            kind.poll_us,
            hz,
            sharing,
            scenario,
        )
    }
}

/// Lever presses: 500 of them, 200 ms apart at phases sweeping the poll
/// period, each switching the running clock (the side that pressed gets
/// its 30 s increment). The loop polls the board when a poll is due, else
/// sends one OLED write. Returns, per press, the µs from the press to the
/// new marker on the panel and to the old one cleared.
fn switch_latency<B, D>(
    board: B,
    driver: impl FnOnce(Handle<B>) -> D,
    poll_us: u64,
    hz: u32,
) -> (Vec<u64>, Vec<u64>)
where
    B: I2c<Error = ErrorKind>,
    D: SensorBoard,
{
    let bus: Shared<B> = Rc::new(RefCell::new(BusMeter::new(Router {
        oled: Ssd1306Model::new(),
        board,
    })));
    let mut oled = Oled::new(Handle(bus.clone()));
    oled.init().unwrap();
    let mut driver = driver(Handle(bus.clone()));
    let mut view = View {
        white_ms: 5_400_000,
        black_ms: 5_400_000,
        running: Some(Color::White),
        move_number: 1,
        ..View::default()
    };
    oled.show(&face::render(&view), &face::urgent(&view))
        .unwrap();
    let mut out = Vec::new();
    for _ in 0..20 {
        let _ = driver.poll(&mut out);
    }
    let presses: Vec<u64> = (0..500u64)
        .map(|k| 1_000_000 + k * 200_000 + (k * 797) % poll_us)
        .collect();
    let (mut shown, mut cleared) = (Vec::new(), Vec::new());
    let (mut t, mut next_poll, mut next_press) = (0u64, 0u64, 0usize);
    // The press being shown: its instant, and whether its marker is lit.
    let mut pending: Option<(u64, bool)> = None;
    while next_press < presses.len() || pending.is_some() {
        if t >= next_poll {
            bus.borrow_mut().take_log();
            driver.poll(&mut out).unwrap();
            t += duration(&bus.borrow_mut().take_log(), hz);
            next_poll = (next_poll + poll_us).max(t);
        } else if pending.is_none() && presses.get(next_press).is_some_and(|&p| p <= t) {
            let side = view.running.unwrap();
            match side {
                Color::White => view.white_ms += 30_000,
                Color::Black => view.black_ms += 30_000,
            }
            view.running = Some(!side);
            oled.stage(&face::render(&view), &face::urgent(&view));
            pending = Some((presses[next_press], false));
            next_press += 1;
        } else if oled.is_busy() {
            bus.borrow_mut().take_log();
            oled.send_next().unwrap();
            t += duration(&bus.borrow_mut().take_log(), hz);
            if let Some((at, lit)) = pending {
                let rank = oled.next_rank();
                if !lit && rank != Some(0) {
                    shown.push(t - at);
                    pending = Some((at, true));
                }
                if rank.is_none_or(|r| r > 1) {
                    cleared.push(t - at);
                    pending = None;
                }
            }
        } else {
            let press = presses.get(next_press).copied().unwrap_or(u64::MAX);
            t = next_poll.min(press).max(t);
        }
    }
    (shown, cleared)
}

fn median_and_worst(mut v: Vec<u64>) -> (u64, u64) {
    v.sort_unstable();
    (v[v.len() / 2], v[v.len() - 1])
}

fn ms(us: u64) -> String {
    format!("{:.1}", us as f64 / 1000.0)
}

fn main() {
    let kinds = [
        Kind {
            name: "protocol board",
            poll_us: 5_000,
        },
        Kind {
            name: "reed board (4 × MCP23017)",
            poll_us: 10_000,
        },
    ];

    println!(
        "Typical second of play (White's clock running, a piece lifted and put back every 5 s), 60 s simulated:\n"
    );
    println!(
        "| board | poll every | OLED B/s | board B/s | total B/s | bus at 100 kHz | bus at 400 kHz |"
    );
    println!("|---|---|---|---|---|---|---|");
    for kind in &kinds {
        let runs: Vec<Run> = SPEEDS
            .iter()
            .map(|&hz| run_kind(kind, hz, Sharing::WholeFlush, Scenario::Typical))
            .collect();
        let r = &runs[0];
        println!(
            "| {} | {} ms | {} | {} | {} | {:.1} % | {:.1} % |",
            kind.name,
            kind.poll_us / 1000,
            r.oled_bytes,
            r.board_bytes,
            r.oled_bytes + r.board_bytes,
            runs[0].busy_us as f64 / 10_000.0,
            runs[1].busy_us as f64 / 10_000.0,
        );
    }

    println!(
        "\nWorst lift → event delay (1500 lifts at sweeping phases, screen switching every 2 s), ms:\n"
    );
    println!(
        "| board | bus | longest flush | longest OLED transaction | longest poll | whole flush: derived / simulated | per transaction: derived / simulated |"
    );
    println!("|---|---|---|---|---|---|---|");
    for kind in &kinds {
        for hz in SPEEDS {
            let whole = run_kind(kind, hz, Sharing::WholeFlush, Scenario::Latency);
            let each = run_kind(kind, hz, Sharing::PerTransaction, Scenario::Latency);
            assert_eq!(whole.seen, whole.lifts, "every lift reported");
            assert_eq!(each.seen, each.lifts, "every lift reported");
            // A lift just after a poll started, just before the longest
            // blocking transfer: a poll period, that transfer, then the poll
            // that reports it.
            let derived_whole = kind.poll_us + whole.longest_flush_us + whole.longest_poll_us;
            let derived_each = kind.poll_us
                + each
                    .longest_oled_transaction_us
                    .max(each.longest_board_transaction_us)
                + each.longest_poll_us;
            println!(
                "| {} | {} kHz | {} | {} | {} | {} / {} | {} / {} |",
                kind.name,
                hz / 1000,
                ms(whole.longest_flush_us),
                ms(whole.longest_oled_transaction_us),
                ms(whole.longest_poll_us),
                ms(derived_whole),
                ms(whole.worst_delay_us),
                ms(derived_each),
                ms(each.worst_delay_us),
            );
        }
    }

    println!(
        "\nLever press → the face showing the other clock running (500 presses at sweeping phases), ms:\n"
    );
    println!(
        "| board | bus | new marker shown: median / worst | old marker cleared: median / worst |"
    );
    println!("|---|---|---|---|");
    for kind in &kinds {
        for hz in SPEEDS {
            let board = Board::default();
            let (shown, cleared) = if kind.name.starts_with("protocol") {
                switch_latency(
                    ProtocolBoardModel::new(
                        &board,
                        0x0123_4567_89AB_CDEF,
                        Capabilities::from_bits(0x11),
                    ),
                    |bus| ProtocolBoard::new(bus, DEFAULT_ADDRESS),
                    kind.poll_us,
                    hz,
                )
            } else {
                switch_latency(
                    ReedBoardModel::new(&board),
                    Mcp23017Board::new,
                    kind.poll_us,
                    hz,
                )
            };
            let (s_med, s_worst) = median_and_worst(shown);
            let (c_med, c_worst) = median_and_worst(cleared);
            println!(
                "| {} | {} kHz | {} / {} | {} / {} |",
                kind.name,
                hz / 1000,
                ms(s_med),
                ms(s_worst),
                ms(c_med),
                ms(c_worst),
            );
        }
    }
    // 64 writes of 16 columns, 24 B each.
    let frame = transfer_time_us(64 * 24, 64, 100_000);
    println!(
        "\nFor reference: a full frame is 1536 B in 64 writes, {} ms at 100 kHz, {} ms at 400 kHz; one write is at most 24 B, {} ms at 100 kHz.",
        ms(frame),
        ms(transfer_time_us(64 * 24, 64, 400_000)),
        ms(transfer_time_us(24, 1, 100_000)),
    );
}
