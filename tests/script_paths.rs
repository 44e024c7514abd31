//! One script, one ruling: the same replay-format script through `tocada
//! replay` (the transcript fed to a referee), `tocada sim --script` (the
//! device models, the drivers, the daemon's loop and the session, in
//! simulated time) and `tocada run` (the daemon on the models, standard
//! input played at the script's pace) gives the same effects, line for line.
//!
//! While the game is paused the players' buttons differ, as documented:
//! on the clock they work the correction screen, in `tocada replay` the
//! draw button is a claim with the clock stopped (9.5); a script writes the
//! correction screen as the corrections it makes, so the generated scripts
//! press no button while paused.
//!
//! The simulator sees a move completed by a release at the board's next
//! poll, up to 5 ms after the bare referee does, so the comparison leaves
//! out the instants and a move's clock times ([`untimed`]) and checks the
//! instants apart within that poll.
//!
//! A board event a moment before a flag is where the two may part, as a
//! real clock would: the clock learns of a piece placed 2 ms before the
//! flag only from the board's next report, after it has ruled the flag,
//! while `tocada replay` reads the place at its own instant. The generated
//! scripts with board news within [`FLAG_MARGIN_MS`] before a flag are
//! left out.

mod support {
    pub mod cli;
    pub mod daemon;
    pub mod lines;
    pub mod parsed;
    pub mod pgn;
    pub mod sim;
}

use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::Value;
use shakmaty::{Chess, Color, Position, Square};
use support::daemon::run_daemon;
use support::lines::{end_line, input_line, setup_line};
use support::pgn::{PgnGame, reference_games};
use support::sim::{sim_and_replay, untimed};
use tocada::gesture::{Script, parse_san};
use tocada::{Enforcement, Input, Laws, Millis, Rules};

/// 4.8 in `claim` enforcement: White touches his d-pawn and plays e4;
/// Black claims with the clock's gesture, his adjust button twice within
/// 600 ms.
const ADJUST_TWICE: &str = r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"touch","sq":"d2"}
{"t":1100,"ev":"untouch","sq":"d2"}
{"t":1500,"ev":"lift","sq":"e2"}
{"t":1700,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"adjust","side":"black"}
{"t":4300,"ev":"adjust","side":"black"}
{"t":5000,"ev":"end"}
"#;

/// How long before a flag a board event may reach the clock only after
/// it: the board's report (its debounce and the loop's next poll), with a
/// wide margin.
const FLAG_MARGIN_MS: u64 = 50;

/// Whether a board event of `script` falls within [`FLAG_MARGIN_MS`] before
/// one of the instants `flags` (the flags `replay` ruled).
fn board_news_just_before_a_flag(script: &str, flags: &[u64]) -> bool {
    script
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| {
            matches!(
                line["ev"].as_str(),
                Some("lift" | "place" | "touch" | "untouch")
            )
        })
        .filter_map(|line| line["t"].as_u64())
        .any(|t| {
            flags
                .iter()
                .any(|&flag| t <= flag && flag - t < FLAG_MARGIN_MS)
        })
}

/// `sim` and `replay` agree on every effect, in order; the instants apart
/// by no more than the board's poll.
fn assert_agree(sim: &[Value], bare: &[Value], script: &str) {
    assert_eq!(
        untimed(sim),
        untimed(bare),
        "sim --script and replay disagree on\n{script}"
    );
    for (s, b) in sim.iter().zip(bare) {
        let (s_t, b_t) = (s["t"].as_u64().unwrap(), b["t"].as_u64().unwrap());
        assert!(s_t >= b_t && s_t - b_t <= 5, "{s} vs {b} in\n{script}");
    }
}

#[test]
fn adjust_twice_is_the_same_claim_through_replay_and_sim() {
    let (sim, bare) = sim_and_replay(ADJUST_TWICE);
    assert_agree(&sim, &bare, ADJUST_TWICE);
    let claim = bare
        .iter()
        .find(|e| e["effect"] == "claim")
        .unwrap_or_else(|| panic!("replay heard no claim: {bare:#?}"));
    assert_eq!(claim["t"], 4300);
    assert_eq!(claim["upheld"], true);
    assert!(bare.iter().any(|e| e["effect"] == "takeback"), "{bare:#?}");
}

/// `tocada run` on the desktop's models, the script played at its own
/// pace: the daemon's effects until `count` of them (or 60 s).
fn run_effects(script: &str, count: usize) -> Vec<Value> {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/desktop.toml");
    let state = tempfile::tempdir().unwrap();
    let (mut daemon, rx) = run_daemon(&config, state.path(), script);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut effects = Vec::new();
    while effects.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let value: Value = serde_json::from_str(&line).expect("a JSON line");
                if value.get("effect").is_some() {
                    effects.push(value);
                }
            }
            Err(_) => break,
        }
    }
    // Whatever else it would say before the end of the script.
    std::thread::sleep(Duration::from_millis(1500));
    effects.extend(
        rx.try_iter()
            .map(|line| serde_json::from_str::<Value>(&line).expect("a JSON line"))
            .filter(|v| v.get("effect").is_some()),
    );
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    assert!(daemon.wait().unwrap().success());
    effects
}

#[test]
fn adjust_twice_is_the_same_claim_through_the_daemon() {
    let (_, bare) = sim_and_replay(ADJUST_TWICE);
    let run = run_effects(ADJUST_TWICE, bare.len());
    // The daemon's instants are its own clock's (real time from the
    // script's first line): the effects, not their instants, compare.
    assert_eq!(untimed(&run), untimed(&bare), "{run:#?}");
}

/// A reference game's first `plies` moves, played by hands whose timing
/// and orders vary with `seed`, with `extras` done in the thinking time
/// after the presses they follow.
#[derive(Debug, Clone)]
struct Generated {
    game: usize,
    plies: usize,
    seed: u64,
    rules: Rules,
    extras: Vec<(usize, Extra)>,
}

/// Something a script can say besides the moves, done in a gap of play.
#[derive(Debug, Clone, Copy)]
enum Extra {
    /// A player's adjust button twice, `gap` ms apart: a claim within
    /// 600 ms, two "j'adoube"s beyond.
    AdjustTwice { side: Color, gap: Millis },
    /// A player's adjust button once.
    Adjust(Color),
    /// A player's draw button (an offer, an acceptance, or a choice's
    /// answer while his choice waits).
    Draw(Color),
    /// A claim that the opponent broke article 4.
    Claim(Color),
    /// The arbiter's corrections: pause, set a time and a move count,
    /// resume.
    Correct { side: Color, ms: u64, moves: u32 },
    /// An answer to a choice the 1858 laws give (ignored when none waits).
    Choose(Color, usize),
    /// The player to move touches the piece on the `n`-th occupied square
    /// and lets go (touch-move, 1858's 9ª when it is his opponent's).
    Touch(usize),
}

fn side() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        4 => (side(), prop_oneof![50u64..=600, 601u64..1200])
            .prop_map(|(side, gap)| Extra::AdjustTwice { side, gap }),
        1 => side().prop_map(Extra::Adjust),
        1 => side().prop_map(Extra::Draw),
        2 => side().prop_map(Extra::Claim),
        2 => (side(), 0u64..600_000, 0u32..60)
            .prop_map(|(side, ms, moves)| Extra::Correct { side, ms, moves }),
        1 => (side(), 0usize..4).prop_map(|(side, n)| Extra::Choose(side, n)),
        3 => (0usize..32).prop_map(Extra::Touch),
    ]
}

fn rules() -> impl Strategy<Value = Rules> {
    (
        prop_oneof![Just("300+2"), Just("60"), Just("180+2")],
        prop_oneof![
            Just((Laws::Fide2023, Enforcement::Strict)),
            Just((Laws::Fide2023, Enforcement::Claim)),
            Just((Laws::Fide2023Unsupervised, Enforcement::Strict)),
            Just((Laws::Regence1858, Enforcement::Strict)),
        ],
    )
        .prop_map(|(tc, (laws, enforcement))| Rules {
            time_control: tc.parse().unwrap(),
            laws,
            enforcement,
            ..Rules::default()
        })
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        0usize..16,
        4usize..24,
        any::<u64>(),
        rules(),
        prop::collection::vec((0usize..24, extra()), 1..8),
    )
        .prop_map(|(game, plies, seed, rules, extras)| Generated {
            game,
            plies,
            seed,
            rules,
            extras,
        })
}

/// The lines an extra says, from `t`, in a position where `to_move` is to
/// move.
fn extra_lines(extra: Extra, t: Millis, position: &Chess) -> Vec<String> {
    let chosen = ["take", "leave", "king", "rook"];
    let side = |c: Color| if c == Color::White { "white" } else { "black" };
    match extra {
        Extra::AdjustTwice { side, gap } => vec![
            input_line(t, Input::Adjust(side)),
            input_line(t + gap, Input::Adjust(side)),
        ],
        Extra::Adjust(s) => vec![input_line(t, Input::Adjust(s))],
        Extra::Draw(s) => vec![input_line(t, Input::Draw(s))],
        Extra::Claim(s) => vec![input_line(t, Input::Claim(s))],
        Extra::Correct { side, ms, moves } => vec![
            input_line(t, Input::Pause),
            input_line(t + 100, Input::SetTime(side, ms)),
            input_line(t + 200, Input::SetMoves(side, moves)),
            input_line(t + 300, Input::Resume),
        ],
        Extra::Choose(s, n) => vec![format!(
            r#"{{"t":{t},"ev":"choose","side":"{}","option":"{}"}}"#,
            side(s),
            chosen[n % chosen.len()]
        )],
        Extra::Touch(n) => {
            let occupied: Vec<Square> = position.board().occupied().into_iter().collect();
            let sq = occupied[n % occupied.len()];
            vec![
                input_line(t, Input::Touch(sq)),
                input_line(t + 150, Input::Untouch(sq)),
            ]
        }
    }
}

/// The script of `generated`: the game's moves as the hands make them,
/// each extra 200 ms after the press it follows (the hands think for two
/// seconds at least, so it is over before the next move begins).
fn script_of(generated: &Generated, games: &[PgnGame]) -> String {
    let game = &games[generated.game % games.len()];
    let mut rules = game.rules();
    rules.time_control = generated.rules.time_control.clone();
    rules.laws = generated.rules.laws;
    rules.enforcement = generated.rules.enforcement;
    let mut script = Script::varied(game.start(), false, generated.seed);
    let mut lines = vec![setup_line(&rules)];
    let mut position = game.start();
    let mut done = 0;
    for (ply, san) in game.sans.iter().take(generated.plies).enumerate() {
        let Ok(m) = parse_san(&position, san) else {
            break;
        };
        if script.play(m).is_err() {
            break;
        }
        position.play_unchecked(m);
        for &(t, input) in &script.events()[done..] {
            lines.push(input_line(t, input));
        }
        done = script.events().len();
        if script.is_over() {
            break;
        }
        let mut t = script.now() + 200;
        for (_, extra) in generated.extras.iter().filter(|(at, _)| *at == ply) {
            let said = extra_lines(*extra, t, &position);
            let span = match extra {
                Extra::AdjustTwice { gap, .. } => *gap,
                _ => said.len() as Millis * 150,
            };
            if t + span > script.now() + 1_800 {
                break;
            }
            lines.extend(said);
            t += span + 100;
        }
    }
    lines.push(end_line(script.now() + 2_000));
    lines.join("\n") + "\n"
}

/// The reference games in full, through both paths.
#[test]
fn the_reference_games_are_ruled_the_same_by_replay_and_sim() {
    for game in reference_games() {
        let script = game.play_into(Script::varied(game.start(), false, 7));
        let mut lines = vec![setup_line(&game.rules())];
        lines.extend(script.events().iter().map(|&(t, i)| input_line(t, i)));
        lines.push(end_line(script.now() + 1_000));
        let script = lines.join("\n") + "\n";
        let (sim, bare) = sim_and_replay(&script);
        assert!(
            bare.iter().any(|e| e["effect"] == "result"),
            "{}: no result: {bare:#?}",
            game.name
        );
        assert_agree(&sim, &bare, &script);
    }
}

proptest! {
    // Each case starts two processes: a few dozen cases are enough to
    // cover every extra in every set of laws.
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn a_generated_script_is_ruled_the_same_by_replay_and_sim(generated in generated()) {
        let games = reference_games();
        let script = script_of(&generated, &games);
        let (sim, bare) = sim_and_replay(&script);
        let flags: Vec<u64> = bare
            .iter()
            .filter(|effect| effect["effect"] == "flag")
            .filter_map(|effect| effect["t"].as_u64())
            .collect();
        prop_assume!(!board_news_just_before_a_flag(&script, &flags));
        assert_agree(&sim, &bare, &script);
    }
}

#[test]
fn board_news_just_before_a_flag_is_found_and_its_near_misses_are_not() {
    let script = "{\"t\":0,\"ev\":\"setup\"}\n{\"t\":83732,\"ev\":\"place\",\"sq\":\"a3\"}\n";
    assert!(board_news_just_before_a_flag(script, &[83_734]));
    assert!(!board_news_just_before_a_flag(
        script,
        &[83_732 + FLAG_MARGIN_MS]
    ));
    assert!(
        !board_news_just_before_a_flag(script, &[83_731]),
        "after the flag"
    );
    let press = "{\"t\":83732,\"ev\":\"press\",\"side\":\"white\"}\n";
    assert!(
        !board_news_just_before_a_flag(press, &[83_734]),
        "not board news"
    );
}
