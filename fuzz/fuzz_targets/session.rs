//! The session (`tocada::session::Session`, and the referee under it) fed
//! any sequence of front-panel presses, board events, link changes, time
//! passing and power cuts. It never panics or overflows, every call
//! returns (no endless loop), and no game is lost:
//!
//! - what it hands out to be stored reads back line by line, and a game
//!   rebuilt from it after a power cut has the same moves, position and
//!   result, and never less time on a clock than it had at the cut;
//! - every completed move stays in the record (only the arbiter's take-back
//!   removes the last one);
//! - a clock's time never goes up except by what adds time: an increment
//!   with a move, a correction, time added for an irregularity, time given
//!   back for knocked pieces, a take-back, or a restart.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use shakmaty::{Bitboard, Color, Piece, Position, Role, Square};
use tocada::config::Config;
use tocada::controls::{Button, LinkChange};
use tocada::referee::{Enforcement, GameMode, IncrementMode};
use tocada::session::{Action, GameToResume, Session, SessionInput};
use tocada::transcript::{Event, Line, Policy, line_to_json, parse_line, restore};
use tocada::{Effect, Input, Millis, Rules};

const CONTROLS: [&str; 6] = ["300+2", "5", "60+1", "40/5400+30:1800+30", "1+0", "900+10"];

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Ev {
    Lever(bool),
    Draw(bool),
    Adjust(bool),
    Menu,
    Lift(u8),
    Place(u8, Option<u8>),
    Touch(u8),
    Untouch(u8),
    Promote(u8),
    Resign(bool),
    Decline(bool),
    Link(bool),
    Timeout,
    Checkpoint,
    Occupancy(u64),
    /// A legal move made by hand on the board (its lifts and places), and
    /// its press when `press`.
    Move {
        index: u8,
        press: bool,
    },
    /// The power goes: the session is rebuilt from what it stored.
    PowerCut,
}

#[derive(Debug, Arbitrary)]
struct Script {
    control: u8,
    increment: u8,
    mode: u8,
    enforcement: u8,
    armageddon: bool,
    events: Vec<(u16, Ev)>,
}

fn side(white: bool) -> Color {
    if white { Color::White } else { Color::Black }
}

fn square(sq: u8) -> Square {
    Square::new(u32::from(sq % 64))
}

fn piece(p: u8) -> Piece {
    let role = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ][usize::from(p % 6)];
    Piece {
        color: side(p & 8 == 0),
        role,
    }
}

/// What a store keeps of the game in play.
#[derive(Default)]
struct Store {
    preset: String,
    black_left: bool,
    lines: Vec<String>,
}

/// The checks' memory.
#[derive(Default)]
struct Watch {
    store: Option<Store>,
    /// SAN of every completed move of the game in play, in order.
    moves: Vec<String>,
    /// Each side's time at the last look, with the game's instant.
    clocks: Option<(Millis, [u64; 2])>,
}

fuzz_target!(|script: Script| {
    let mut config = Config::default();
    config.clock.preset = "fuzz".to_owned();
    let mut rules = Rules {
        time_control: CONTROLS[usize::from(script.control) % CONTROLS.len()]
            .parse()
            .unwrap(),
        increment_mode: [
            IncrementMode::Fischer,
            IncrementMode::Bronstein,
            IncrementMode::Delay,
        ][usize::from(script.increment % 3)],
        mode: [GameMode::Standard, GameMode::Rapid, GameMode::Blitz][usize::from(script.mode % 3)],
        enforcement: [Enforcement::Strict, Enforcement::Claim, Enforcement::Record]
            [usize::from(script.enforcement % 3)],
        ..Rules::default()
    };
    if script.armageddon {
        rules.black_time_control = Some("4".parse().unwrap());
        rules.draw_odds = Some(Color::Black);
    }
    let mut session = Session::new(&config);
    session.select_rules("fuzz", rules);
    let mut watch = Watch::default();
    let mut now: Millis = 0;
    for (dt, ev) in script.events.into_iter().take(400) {
        let target = now + Millis::from(dt);
        // While a clock runs the daemon stores a checkpoint every half
        // second with nothing else, and a restore believes no running
        // clock a minute without a stored line: checkpoints every
        // CHECKPOINT_STEP_MS make such a store, at a fuzzing pace.
        while now + CHECKPOINT_STEP_MS < target
            && session.referee().is_some_and(|r| r.ticking().is_some())
        {
            now += CHECKPOINT_STEP_MS;
            deadlines(&mut session, &mut watch, now);
            session.checkpoint(now, now);
            drain(&mut session, &mut watch, false);
        }
        now = target;
        deadlines(&mut session, &mut watch, now);
        let press = |session: &mut Session, button| {
            session.handle(now, SessionInput::Press { button, at: now })
        };
        let mut restarted = false;
        match ev {
            Ev::Lever(w) => press(&mut session, Button::Lever(side(w))),
            Ev::Draw(w) => press(&mut session, Button::Draw(side(w))),
            Ev::Adjust(w) => press(&mut session, Button::Adjust(side(w))),
            Ev::Menu => press(&mut session, Button::Menu),
            Ev::Lift(sq) => session.handle(now, SessionInput::Board(Input::Lift(square(sq)))),
            Ev::Place(sq, p) => session.handle(
                now,
                SessionInput::Board(Input::Place(square(sq), p.map(piece))),
            ),
            Ev::Touch(sq) => session.handle(now, SessionInput::Board(Input::Touch(square(sq)))),
            Ev::Untouch(sq) => session.handle(now, SessionInput::Board(Input::Untouch(square(sq)))),
            Ev::Promote(p) => session.handle(
                now,
                SessionInput::Referee(Input::Promote(
                    [Role::Queen, Role::Rook, Role::Bishop, Role::Knight][usize::from(p % 4)],
                )),
            ),
            Ev::Resign(w) => session.handle(now, SessionInput::Referee(Input::Resign(side(w)))),
            Ev::Decline(w) => session.handle(now, SessionInput::Referee(Input::Decline(side(w)))),
            Ev::Link(up) => session.handle(
                now,
                SessionInput::Link(if up {
                    LinkChange::Reconnected
                } else {
                    LinkChange::Disconnected
                }),
            ),
            Ev::Timeout => session.handle_timeout(now),
            Ev::Checkpoint => session.checkpoint(now, now),
            Ev::Occupancy(bits) => session.set_occupancy(Bitboard(bits)),
            Ev::Move { index, press } => {
                let Some(referee) = session.referee() else {
                    continue;
                };
                let position = referee.position().clone();
                let moves = position.legal_moves();
                if moves.is_empty() {
                    continue;
                }
                let m = moves[usize::from(index) % moves.len()];
                let mover = position.turn();
                let mut inputs = vec![Input::Lift(m.from().expect("not a drop"))];
                if m.is_capture() && !m.is_en_passant() {
                    inputs.push(Input::Lift(m.to()));
                }
                let placed = m.promotion().map(|role| Piece { color: mover, role });
                inputs.push(Input::Place(m.to(), placed));
                for input in inputs {
                    now += 100;
                    session.handle(now, SessionInput::Board(input));
                    drain(&mut session, &mut watch, false);
                }
                if press {
                    now += 100;
                    session.handle(
                        now,
                        SessionInput::Press {
                            button: Button::Lever(mover),
                            at: now,
                        },
                    );
                }
            }
            Ev::PowerCut => {
                power_cut(&mut session, &config, &mut watch, now);
                restarted = true;
            }
        }
        drain(&mut session, &mut watch, restarted);
    }
});

/// How often the harness stores a checkpoint while a clock runs: less
/// often than the daemon (every 500 ms), well within the minute a restore
/// believes.
const CHECKPOINT_STEP_MS: Millis = 10_000;

/// The referee's own deadlines due by `now`, as the shell keeps them.
fn deadlines(session: &mut Session, watch: &mut Watch, now: Millis) {
    while let Some(due) = session.next_deadline().filter(|&d| d <= now) {
        session.handle_timeout(due.max(now.min(due)));
        drain(session, watch, false);
        if session.next_deadline() == Some(due) {
            break;
        }
    }
}

/// Drains the session's actions into the store and checks the clocks.
fn drain(session: &mut Session, watch: &mut Watch, restarted: bool) {
    let mut adds_time = restarted;
    while let Some(action) = session.poll_action() {
        match action {
            Action::Begin {
                t,
                preset,
                black_left,
                rules,
                players,
            } => {
                let setup = line_to_json(&Line {
                    t,
                    event: Event::Setup(rules),
                });
                // The players, when paired, right after: as the daemon
                // stores them.
                let players = players.map(|p| {
                    line_to_json(&Line {
                        t,
                        event: Event::Players(p),
                    })
                });
                watch.store = Some(Store {
                    preset,
                    black_left,
                    lines: std::iter::once(setup).chain(players).collect(),
                });
                watch.moves.clear();
                watch.clocks = None;
            }
            Action::Record { t, event } => {
                let event = Event::from(event);
                let line = line_to_json(&Line {
                    t,
                    event: event.clone(),
                });
                let read = parse_line(&line)
                    .unwrap_or_else(|err| panic!("stored {line} does not read back: {err}"))
                    .expect("not blank");
                assert_eq!(
                    read,
                    Line { t, event },
                    "stored {line} reads back otherwise"
                );
                if let Some(store) = watch.store.as_mut() {
                    store.lines.push(line);
                }
            }
            Action::Finish { pgn, .. } => {
                // Every completed move is in the record, in order.
                let mut rest = pgn.as_str();
                for san in &watch.moves {
                    let at = rest
                        .find(san.as_str())
                        .unwrap_or_else(|| panic!("{san} is missing from the record: {pgn}"));
                    rest = &rest[at + san.len()..];
                }
                watch.store = None;
            }
            Action::Decision(_, effect) => match effect {
                Effect::Move(m) => {
                    watch.moves.push(m.san.to_string());
                    adds_time = true;
                }
                Effect::TakenBack { .. } => {
                    assert!(
                        watch.moves.pop().is_some(),
                        "a move taken back that was never made"
                    );
                    adds_time = true;
                }
                Effect::Corrected { .. } | Effect::TimeAdded { .. } | Effect::Restored { .. } => {
                    adds_time = true;
                }
                _ => {}
            },
            Action::Buzz(_) | Action::Restored(_) => {}
        }
    }
    let Some(referee) = session.referee() else {
        watch.clocks = None;
        return;
    };
    let t = referee_now(session);
    let clocks = [
        referee.remaining(Color::White, t),
        referee.remaining(Color::Black, t),
    ];
    if let Some((last_t, last)) = watch.clocks
        && !adds_time
        && t >= last_t
    {
        for (i, (now, before)) in clocks.iter().zip(last).enumerate() {
            assert!(
                now <= &before,
                "side {i}'s clock went up from {before} to {now} ms ({last_t} to {t})",
            );
        }
    }
    watch.clocks = Some((t, clocks));
}

/// The game's last instant the referee saw.
fn referee_now(session: &Session) -> Millis {
    session.game_time(0).unwrap_or(0)
}

/// The power goes and comes back: a fresh session rebuilds the game from
/// the store, and it must be the same game.
fn power_cut(session: &mut Session, config: &Config, watch: &mut Watch, now: Millis) {
    let before = session.referee().map(|r| {
        let t = referee_now(session);
        (
            r.position().clone(),
            r.result(),
            [r.remaining(Color::White, t), r.remaining(Color::Black, t)],
        )
    });
    let mut fresh = Session::new(config);
    let in_store = watch.store.take();
    if let (Some(store), Some((position, result, clocks))) = (in_store.as_ref(), before) {
        let saved = GameToResume {
            preset: &store.preset,
            black_left: store.black_left,
            date: "????.??.??",
            lines: &store.lines,
        };
        let restored = restore(&mut fresh, now, saved, Policy::RESTORE)
            .unwrap_or_else(|err| panic!("the stored game does not restore: {err}"));
        assert_eq!(
            restored.fault, None,
            "a stored line is bad: {:?}",
            store.lines
        );
        let referee = fresh.referee().expect("restored");
        assert_eq!(
            referee.position().board(),
            position.board(),
            "another position: {:?}",
            store.lines
        );
        assert_eq!(
            referee.position().turn(),
            position.turn(),
            "another side to move"
        );
        assert_eq!(referee.result(), result, "another result");
        let t = restored.t;
        for (side, before) in [Color::White, Color::Black].into_iter().zip(clocks) {
            assert!(
                referee.remaining(side, t) >= before,
                "{side:?} lost time in the power cut: {before} -> {}",
                referee.remaining(side, t)
            );
        }
    }
    *session = fresh;
    watch.store = in_store.filter(|_| session.in_game());
    if !session.in_game() {
        watch.moves.clear();
    }
    watch.clocks = None;
}
