//! Writing the replay format: every line `line_to_json` writes reads back
//! the same with `parse_line`, and a whole game recorded that way replays
//! to the very effects the referee gave when it was played. The daemon
//! records its games this way and rebuilds them by replaying.

mod support {
    pub mod parsed;
    pub mod pgn;
}

use proptest::prelude::*;
use shakmaty::{Chess, Color, Piece, Position, Role, Square};
use tocada::gesture::Script;
use tocada::players::{Player, Players};
use tocada::transcript::{Event, Line, effect_to_json, line_to_json, parse_line, replay};
use tocada::{
    Choice, Enforcement, GameMode, IncrementMode, Input, Laws, Millis, Referee, Rules, TimeControl,
};

use support::pgn::reference_games;

// --- Arbitrary lines --------------------------------------------------------

fn side() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn piece() -> impl Strategy<Value = Piece> {
    (side(), 0usize..6).prop_map(|(color, r)| Piece {
        color,
        role: Role::ALL[r],
    })
}

/// Every input the format can carry. `Promote` takes the four pieces a
/// clock's buttons offer: the format has no word for a pawn or a king.
fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        side().prop_map(Input::Press),
        square().prop_map(Input::Lift),
        (square(), proptest::option::of(piece())).prop_map(|(sq, p)| Input::Place(sq, p)),
        square().prop_map(Input::Touch),
        square().prop_map(Input::Untouch),
        side().prop_map(Input::Adjust),
        side().prop_map(Input::Draw),
        side().prop_map(Input::Decline),
        prop_oneof![
            Just(Role::Queen),
            Just(Role::Rook),
            Just(Role::Bishop),
            Just(Role::Knight)
        ]
        .prop_map(Input::Promote),
        Just(Input::Pause),
        Just(Input::Resume),
        side().prop_map(Input::Resign),
        (side(), any::<u64>()).prop_map(|(s, ms)| Input::SetTime(s, ms)),
        (side(), any::<u32>()).prop_map(|(s, n)| Input::SetMoves(s, n)),
        (side(), prop::sample::select(Choice::ALL.to_vec())).prop_map(|(s, c)| Input::Choose(s, c)),
    ]
}

/// Seconds to the millisecond, as the `TimeControl` grammar writes them.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// A time control of one to four stages, the last open or counted, with
/// any time up to the grammar's week and any increment.
fn time_control() -> impl Strategy<Value = TimeControl> {
    let stage = (1u32..200, 1u64..=604_800_000, 0u64..=3_600_000);
    (
        prop::collection::vec(stage, 1..4),
        any::<bool>(),
        1u64..=604_800_000,
        0u64..=3_600_000,
        proptest::option::of((1u32..10, 1u32..40, 1u64..=3_600_000)),
    )
        .prop_map(|(counted, open, last_time, last_increment, overtime)| {
            let mut stages: Vec<String> = counted
                .iter()
                .map(|(moves, time, increment)| {
                    format!("{moves}/{}+{}", seconds(*time), seconds(*increment))
                })
                .collect();
            if open {
                stages.push(format!(
                    "{}+{}",
                    seconds(last_time),
                    seconds(last_increment)
                ));
            }
            let mut text = stages.join(":");
            // Overtime follows a last stage without a move count.
            if let (true, Some((periods, moves, period))) = (open, overtime) {
                text.push_str(&format!("|{periods}x{moves}/{}", seconds(period)));
            }
            text.parse().expect("a well-formed time control")
        })
}

/// The standard start, then some random legal moves: castling rights lost,
/// en passant squares, move counters of every kind.
fn start() -> impl Strategy<Value = Chess> {
    prop::collection::vec(any::<usize>(), 0..60).prop_map(|choices| {
        let mut position = Chess::default();
        for choice in choices {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            position.play_unchecked(moves[choice % moves.len()]);
        }
        position
    })
}

fn rules() -> impl Strategy<Value = Rules> {
    (
        time_control(),
        proptest::option::of(time_control()),
        proptest::option::of(side()),
        prop_oneof![
            Just(IncrementMode::Fischer),
            Just(IncrementMode::Bronstein),
            Just(IncrementMode::Delay),
            Just(IncrementMode::Hourglass),
            Just(IncrementMode::Upcount)
        ],
        prop_oneof![
            Just(GameMode::Standard),
            Just(GameMode::Rapid),
            Just(GameMode::Blitz)
        ],
        prop_oneof![
            Just(Enforcement::Strict),
            Just(Enforcement::Claim),
            Just(Enforcement::Record)
        ],
        prop_oneof![
            Just(Laws::Fide2023),
            Just(Laws::Fide2023Unsupervised),
            Just(Laws::Regence1858)
        ],
        any::<u64>(),
        any::<u64>(),
        start(),
        any::<bool>(),
    )
        .prop_map(
            |(
                time_control,
                black_time_control,
                draw_odds,
                increment_mode,
                mode,
                enforcement,
                laws,
                min_press_gap_ms,
                knock_window_ms,
                start,
                plain_clock,
            )| Rules {
                time_control,
                black_time_control,
                draw_odds,
                increment_mode,
                mode,
                enforcement,
                laws,
                min_press_gap_ms,
                knock_window_ms,
                start,
                plain_clock,
            },
        )
}

/// A pairing as a clock keeps one (bounded): names without control
/// characters or white space at their ends.
fn players() -> impl Strategy<Value = Players> {
    let player = (
        "[A-Z][a-z]{0,12}, [A-Z][a-zé]{0,12}",
        proptest::option::of(1..4000u16),
        proptest::option::of(1..10_000_000_000u64),
    )
        .prop_map(|(name, rating, fide_id)| Player {
            name,
            rating,
            fide_id,
        });
    (
        "[0-9]{0,3}(\\.[0-9])?",
        any::<u32>(),
        player.clone(),
        player,
    )
        .prop_map(|(round, board, white, black)| Players {
            round,
            board,
            white,
            black,
        })
}

fn line() -> impl Strategy<Value = Line> {
    (
        any::<Millis>(),
        prop_oneof![
            1 => rules().prop_map(|rules| Event::Setup(Box::new(rules))),
            8 => input().prop_map(Event::Input),
            1 => Just(Event::End),
            1 => Just(Event::Checkpoint { ran_to: None }),
            1 => (1..=Millis::from(u32::MAX)).prop_map(|d| Event::Checkpoint { ran_to: Some(d) }),
            1 => players().prop_map(|p| Event::Players(Box::new(p))),
        ],
    )
        .prop_map(|(t, event)| match event {
            // A clock that ran on past the line's instant, by `d`.
            Event::Checkpoint { ran_to: Some(d) } => Line {
                t,
                event: Event::Checkpoint {
                    ran_to: t.checked_add(d),
                },
            },
            event => Line { t, event },
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn every_line_written_reads_back_the_same(line in line()) {
        let json = line_to_json(&line);
        prop_assert!(!json.contains('\n'), "{json}");
        prop_assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
        let read = parse_line(&json);
        prop_assert_eq!(read, Ok(Some(line)), "{}", json);
    }

    #[test]
    fn every_input_written_alone_is_the_same_line(t in any::<Millis>(), input in input()) {
        let line = Line { t, event: Event::Input(input) };
        prop_assert_eq!(tocada::transcript::input_to_json(t, &input), line_to_json(&line));
    }
}

// --- Whole games ------------------------------------------------------------

/// The effects of the referee fed `lines` directly, as JSON lines.
fn played(rules: &Rules, lines: &[Line]) -> Vec<String> {
    let mut referee = Referee::new(rules.clone());
    let mut out = Vec::new();
    for line in lines {
        match line.event {
            Event::Setup(_) | Event::Players(_) => continue,
            Event::Input(input) => referee.handle(line.t, input).unwrap(),
            Event::End | Event::Checkpoint { .. } | Event::Restart { .. } => {
                referee.handle_timeout(line.t).unwrap()
            }
        }
        out.extend(
            std::iter::from_fn(|| referee.poll_effect()).map(|(t, e)| effect_to_json(t, &e)),
        );
    }
    out
}

/// The effects of `tocada replay` reading `lines` as written.
fn replayed(lines: &[Line]) -> Vec<String> {
    let script: String = lines.iter().map(|l| line_to_json(l) + "\n").collect();
    let mut out = Vec::new();
    replay(script.as_bytes(), &mut out).unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A game's lines: the setup, its events with an arbiter's pause and
/// corrections halfway through, and the end.
fn recorded(rules: &Rules, events: &[(Millis, Input)]) -> Vec<Line> {
    let setup = Line {
        t: 0,
        event: Event::Setup(Box::new(rules.clone())),
    };
    let mut lines = vec![setup];
    let half = events.len() / 2;
    for (i, &(t, input)) in events.iter().enumerate() {
        if i == half {
            for correction in [
                Input::Pause,
                Input::SetTime(Color::White, 1_234_567),
                Input::SetMoves(Color::Black, 39),
                Input::Resume,
            ] {
                lines.push(Line {
                    t,
                    event: Event::Input(correction),
                });
            }
        }
        lines.push(Line {
            t,
            event: Event::Input(input),
        });
    }
    let end = events.last().map_or(0, |&(t, _)| t + 1_000);
    lines.push(Line {
        t: end,
        event: Event::End,
    });
    lines
}

#[test]
fn reference_games_recorded_with_line_to_json_replay_to_the_same_effects() {
    for (i, game) in reference_games().iter().enumerate() {
        for (label, rules) in [
            ("own rules", game.rules()),
            (
                "armageddon",
                Rules {
                    time_control: "40/5400+2:600+3".parse().unwrap(),
                    black_time_control: Some("4800+2".parse().unwrap()),
                    draw_odds: Some(Color::Black),
                    ..game.rules()
                },
            ),
        ] {
            for identities in [false, true] {
                let script = Script::varied(game.start(), identities, i as u64);
                let events = game.play_into(script).into_events();
                let lines = recorded(&rules, &events);
                let original = played(&rules, &lines);
                let name = format!("{} ({label}, identities {identities})", game.name);
                assert!(
                    original
                        .iter()
                        .any(|l| l.contains(r#""effect":"corrected""#)),
                    "{name}: the corrections were taken"
                );
                assert!(
                    original.iter().any(|l| l.contains(r#""effect":"result""#)),
                    "{name}: the game ended"
                );
                assert_eq!(replayed(&lines), original, "{name}");
            }
        }
    }
}

/// `lines` with a `checkpoint` every `every` ms of game time between its
/// events, as the daemon stores them while a clock runs (and, harmlessly,
/// while none does).
fn with_checkpoints(lines: &[Line], every: Millis) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for line in lines {
        if let Some(last) = out.last().map(|l| l.t) {
            let mut t = last + every;
            while t < line.t && !matches!(line.event, Event::End) {
                out.push(Line {
                    t,
                    event: Event::Checkpoint { ran_to: None },
                });
                t += every;
            }
        }
        out.push(line.clone());
    }
    out
}

#[test]
fn checkpoints_change_no_ruling() {
    for (i, game) in reference_games().iter().enumerate() {
        // A fast control, so that flags fall between the events too.
        for rules in [
            game.rules(),
            Rules {
                time_control: "60+1".parse().unwrap(),
                ..game.rules()
            },
        ] {
            let events = game
                .play_into(Script::varied(game.start(), true, i as u64))
                .into_events();
            let lines = recorded(&rules, &events);
            let checkpointed = with_checkpoints(&lines, 500);
            let added = checkpointed.len() - lines.len();
            assert!(added > 10, "{}: {added} checkpoints", game.name);
            let original = replayed(&lines);
            // Effects at the instant they happened, not at the checkpoint:
            // the very same lines.
            assert_eq!(replayed(&checkpointed), original, "{}", game.name);
            assert_eq!(played(&rules, &checkpointed), original, "{}", game.name);
        }
    }
}

#[test]
fn near_miss_a_setup_without_its_rules_replays_differently() {
    // The check above could pass if setups were ignored; this one shows
    // that the rules written do change the effects.
    let game = &reference_games()[0];
    let rules = Rules {
        time_control: "1".parse().unwrap(),
        ..game.rules()
    };
    let events = game
        .play_into(Script::varied(game.start(), false, 0))
        .into_events();
    let lines = recorded(&rules, &events);
    let without_setup = &lines[1..];
    assert_ne!(replayed(&lines), replayed(without_setup));
    assert_eq!(replayed(&lines), played(&rules, &lines));
}
