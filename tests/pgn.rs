//! A game as PGN: reference games played through the referee as stored
//! replay lines, turned into PGN by `transcript::pgn_from_lines`, and read back with
//! pgn-reader. The moves, the clocks, the comments and the result must all
//! come back as the referee decided them.

mod support {
    pub mod lines;
    pub mod parsed;
    pub mod pgn;
}

use shakmaty::{Color, KnownOutcome};
use tocada::gesture::Script;
use tocada::pgn::{GameRecord, Tags, clock_command};
use tocada::transcript::pgn_from_lines as from_lines;
use tocada::transcript::{Event, parse_line};
use tocada::{Effect, Input, Millis, Reason, Referee, Rules};

use support::lines::{end_line, game_lines, input_line, setup_line};
use support::parsed::{Parsed, parse_one};
use support::pgn::reference_games;

fn tags() -> Tags {
    Tags {
        event: "Club night".to_owned(),
        site: "Porto".to_owned(),
        date: "2026.11.21".to_owned(),
        round: "2".to_owned(),
        white: "Silva, Ana".to_owned(),
        black: "Costa, Rui".to_owned(),
        time_control: String::new(),
        ..Default::default()
    }
}

/// The effects of replaying stored lines straight into a referee, the way
/// the daemon would have seen them live.
fn effects_of(lines: &[String]) -> Vec<(Millis, Effect)> {
    let mut referee: Option<Referee> = None;
    let mut effects = Vec::new();
    for text in lines {
        let line = parse_line(text).unwrap().unwrap();
        match line.event {
            Event::Setup(rules) => referee = Some(Referee::new(*rules)),
            Event::Input(input) => {
                let referee = referee.get_or_insert_with(|| Referee::new(Rules::default()));
                referee.handle(line.t, input).unwrap();
                effects.extend(std::iter::from_fn(|| referee.poll_effect()));
            }
            // Who plays decides nothing.
            Event::Players(_) => {}
            Event::End | Event::Checkpoint { .. } | Event::Restart { .. } => {
                let referee = referee.get_or_insert_with(|| Referee::new(Rules::default()));
                referee.handle_timeout(line.t).unwrap();
                effects.extend(std::iter::from_fn(|| referee.poll_effect()));
            }
        }
    }
    effects
}

/// The mover's clock after each move, as `[%clk]` would write it.
fn expected_clocks(effects: &[(Millis, Effect)]) -> Vec<Option<String>> {
    effects
        .iter()
        .filter_map(|(_, e)| match e {
            Effect::Move(m) => {
                let ms = match m.side {
                    Color::White => m.white_ms,
                    Color::Black => m.black_ms,
                };
                let command = clock_command(ms);
                Some(Some(command["[%clk ".len()..command.len() - 1].to_owned()))
            }
            _ => None,
        })
        .collect()
}

/// PGN from the lines, checked for the export format's line length.
fn pgn_of(lines: &[String]) -> (String, Parsed) {
    let pgn = from_lines(lines, tags()).unwrap();
    for line in pgn.lines() {
        assert!(line.chars().count() < 80, "{} chars: {line}", line.len());
    }
    let parsed = parse_one(&pgn);
    (pgn, parsed)
}

fn assert_result(pgn: &str, parsed: &Parsed, token: &str, termination: &str) {
    assert_eq!(parsed.tag("Result"), Some(token), "{pgn}");
    assert_eq!(parsed.outcome.as_deref(), Some(token), "{pgn}");
    assert!(pgn.trim_end().ends_with(token), "{pgn}");
    assert_eq!(parsed.tag("Termination"), Some(termination), "{pgn}");
}

#[test]
fn reference_games_come_back_move_for_move_with_their_clocks() {
    let games = reference_games();
    assert!(games.len() >= 3);
    for (seed, game) in games.iter().enumerate() {
        let rules = game.rules();
        let script = game.play_into(Script::varied(game.start(), false, seed as u64));
        let lines = game_lines(&rules, script.events());
        let effects = effects_of(&lines);
        let (pgn, parsed) = pgn_of(&lines);

        assert_eq!(parsed.sans, game.sans, "{}:\n{pgn}", game.name);
        let clocks = expected_clocks(&effects);
        assert_eq!(clocks.len(), game.sans.len());
        assert_eq!(parsed.clocks(), clocks, "{}:\n{pgn}", game.name);

        let (outcome, reason) = game.expected_result();
        assert_result(&pgn, &parsed, outcome.as_str(), "normal");
        assert_eq!(parsed.tag("Result"), Some(game.result()), "{}", game.name);
        assert_eq!(
            parsed.tag("TimeControl"),
            Some(rules.time_control.to_string().as_str())
        );
        // The seven tag roster first, in order.
        let names: Vec<&str> = parsed.tags.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names[..7],
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        );
        assert_eq!(parsed.tag("White"), Some("Silva, Ana"));
        assert_eq!(parsed.tag("Date"), Some("2026.11.21"));
        let words = parsed.words();
        match reason {
            Reason::Checkmate => assert_eq!(words, ["Checkmate"], "{pgn}"),
            Reason::Resignation => {
                let loser = if outcome.winner() == Some(Color::White) {
                    "Black"
                } else {
                    "White"
                };
                assert_eq!(words, [format!("{loser} resigns")], "{pgn}")
            }
            Reason::Agreement => {
                // Offered by the last mover between his move and his press:
                // noted after that move, then accepted.
                let last_mover = if game.sans.len() % 2 == 1 {
                    "White"
                } else {
                    "Black"
                };
                assert_eq!(
                    words,
                    [
                        format!("{last_mover} offers a draw"),
                        "Draw agreed".to_owned()
                    ],
                    "{pgn}"
                );
                let after_last: Vec<&str> = parsed
                    .comments
                    .iter()
                    .filter(|(n, _)| *n == game.sans.len())
                    .map(|(_, text)| text.as_str())
                    .collect();
                assert_eq!(after_last.len(), 3, "clock, offer, agreement: {pgn}");
            }
            other => panic!("{}: unexpected ending {other:?}", game.name),
        }
    }
}

#[test]
fn a_set_position_carries_setup_and_fen() {
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let rules = Rules {
        start: fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap(),
        ..Rules::default()
    };
    let mut script = Script::varied(rules.start.clone(), false, 7);
    script.play_sans(["e4", "Kd7", "e5"]).unwrap();
    let (pgn, parsed) = pgn_of(&game_lines(&rules, script.events()));
    assert_eq!(parsed.tag("SetUp"), Some("1"), "{pgn}");
    assert_eq!(parsed.tag("FEN"), Some(fen), "{pgn}");
    assert_eq!(parsed.sans, ["e4", "Kd7", "e5"]);
}

/// White moves e4 and offers a draw before pressing; Black declines aloud,
/// touches his g8 knight, moves the b8 knight instead and is refused.
fn offer_and_violation() -> Vec<String> {
    let rules = Rules {
        time_control: "300+2".parse().unwrap(),
        ..Rules::default()
    };
    let sq = |name: &str| name.parse().unwrap();
    let events = [
        (0, Input::Press(Color::Black)),
        (1_000, Input::Lift(sq("e2"))),
        (1_200, Input::Place(sq("e4"), None)),
        (1_400, Input::Draw(Color::White)),
        (1_600, Input::Press(Color::White)),
        (5_000, Input::Decline(Color::Black)),
        (6_000, Input::Touch(sq("g8"))),
        (6_100, Input::Untouch(sq("g8"))),
        (7_000, Input::Lift(sq("b8"))),
        (7_200, Input::Place(sq("c6"), None)),
        (7_500, Input::Press(Color::Black)),
        (9_000, Input::Lift(sq("c6"))),
        (9_200, Input::Place(sq("b8"), None)),
        (10_000, Input::Lift(sq("g8"))),
        (10_200, Input::Place(sq("f6"), None)),
        (10_500, Input::Press(Color::Black)),
        (12_000, Input::Pause),
        (72_000, Input::Resume),
    ];
    game_lines(&rules, &events)
}

#[test]
fn offers_declines_and_violations_are_comments() {
    let lines = offer_and_violation();
    let (pgn, parsed) = pgn_of(&lines);
    assert_eq!(parsed.sans, ["e4", "Nf6"], "{pgn}");
    let words = parsed.words();
    assert_eq!(words[0], "White offers a draw", "{pgn}");
    assert_eq!(words[1], "Black declines", "{pgn}");
    assert!(
        words[2].starts_with("Violation by Black: Touch-move")
            && words[2].ends_with("(art. 4.3.1)"),
        "{pgn}"
    );
    assert_eq!(words[3..], ["Clock paused", "Clock resumed after 1:00"]);
    // The offer, made between e4 and the press, is noted after e4 and its
    // clock; the decline and the violation follow before Black's move.
    let after_e4: Vec<&str> = parsed
        .comments
        .iter()
        .filter(|(n, _)| *n == 1)
        .map(|(_, text)| text.as_str())
        .collect();
    assert_eq!(after_e4.len(), 4, "{pgn}");
    assert!(after_e4[0].starts_with("[%clk "), "{pgn}");
    assert_eq!(after_e4[1], "White offers a draw", "{pgn}");
    assert!(
        pgn.contains("1. e4 {[%clk 0:05:00]} {White offers a draw}"),
        "{pgn}"
    );
    // The comments put Black's move number back: "1... Nf6".
    assert!(pgn.contains("1... Nf6"), "{pgn}");
    assert_result(&pgn, &parsed, "*", "unterminated");
}

#[test]
fn each_ending_has_its_result_tag_and_token() {
    let rules = Rules {
        time_control: "60".parse().unwrap(),
        ..Rules::default()
    };
    let opening = |events: &mut Vec<(Millis, Input)>| {
        let mut script = Script::varied(rules.start.clone(), false, 3);
        script.play_sans(["e4", "e5"]).unwrap();
        events.extend_from_slice(script.events());
        script.now()
    };

    // Flag: White, to move, lets his minute run out.
    let mut events = Vec::new();
    let now = opening(&mut events);
    let mut lines = game_lines(&rules, &events);
    lines.push(end_line(now + 120_000));
    let (pgn, parsed) = pgn_of(&lines);
    assert_result(&pgn, &parsed, "0-1", "time forfeit");
    assert_eq!(parsed.words(), ["White's flag fell"], "{pgn}");

    // Resignation and agreement, after the same opening.
    for (input, token, words) in [
        (
            vec![Input::Resign(Color::Black)],
            "1-0",
            vec!["Black resigns"],
        ),
        (
            vec![Input::Draw(Color::White), Input::Draw(Color::Black)],
            "1/2-1/2",
            vec![
                "White offers a draw, not between move and press (art. 9.1.2.1)",
                "Draw agreed",
            ],
        ),
    ] {
        let mut events = Vec::new();
        let now = opening(&mut events);
        for (i, input) in input.into_iter().enumerate() {
            events.push((now + 1_000 * (i as Millis + 1), input));
        }
        let (pgn, parsed) = pgn_of(&game_lines(&rules, &events));
        assert_result(&pgn, &parsed, token, "normal");
        assert_eq!(parsed.words(), words, "{pgn}");
        assert_eq!(parsed.sans, ["e4", "e5"]);
    }

    // Mate: fool's mate.
    let mut script = Script::varied(rules.start.clone(), false, 5);
    script.play_sans(["f3", "e5", "g4", "Qh4#"]).unwrap();
    let (pgn, parsed) = pgn_of(&game_lines(&rules, script.events()));
    assert_result(&pgn, &parsed, "0-1", "normal");
    assert_eq!(parsed.sans.last().map(String::as_str), Some("Qh4#"));

    // Unfinished: the game stops after the opening, as after a power cut.
    let mut events = Vec::new();
    opening(&mut events);
    let (pgn, parsed) = pgn_of(&game_lines(&rules, &events));
    assert_result(&pgn, &parsed, "*", "unterminated");
}

#[test]
fn a_record_fed_live_equals_the_one_rebuilt_from_lines() {
    let lines = offer_and_violation();
    let mut record = GameRecord::new(
        Tags {
            time_control: "300+2".to_owned(),
            ..tags()
        },
        None,
    );
    for (t, effect) in effects_of(&lines) {
        record.record(t, &effect);
    }
    assert_eq!(record.to_pgn(), from_lines(&lines, tags()).unwrap());
    assert_eq!(record.result_token(), "*");
}

#[test]
fn a_long_game_wraps_without_splitting_clock_commands() {
    let game = &reference_games()[0];
    let script = game.play_into(Script::varied(game.start(), true, 11));
    let (pgn, _) = pgn_of(&game_lines(&game.rules(), script.events()));
    let movetext = pgn.split("\n\n").nth(1).unwrap();
    assert!(movetext.lines().count() > 20, "{pgn}");
    for line in movetext.lines() {
        assert_eq!(
            line.matches("{[%clk ").count(),
            line.matches("]}").count(),
            "{line}"
        );
    }
}

#[test]
fn bad_stored_lines_are_errors_not_panics() {
    let rules = Rules::default();
    for (lines, line_no) in [
        (vec![setup_line(&rules), "not json".to_owned()], 2),
        (vec![input_line(0, Input::Pause), setup_line(&rules)], 2),
    ] {
        let err = from_lines(&lines, tags()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("stored line {line_no}: ")),
            "{err}"
        );
        assert!(
            err.pgn.contains("{The stored game stops here: "),
            "{}",
            err.pgn
        );
    }
    // Out of order, as a restore takes it: at the instant of the line before.
    let lines = vec![
        setup_line(&rules),
        input_line(5, Input::Pause),
        input_line(4, Input::Resume),
    ];
    assert!(from_lines(&lines, tags()).is_ok());
}

#[test]
fn a_bad_stored_line_keeps_the_moves_before_it() {
    let game = &reference_games()[0];
    let script = game.play_into(Script::varied(game.start(), true, 11));
    let lines = game_lines(&game.rules(), script.events());
    let cut = lines.len() / 2;
    let mut bad = lines[..cut].to_vec();
    bad.push("{\"t\":".to_owned());
    bad.extend_from_slice(&lines[cut..]);
    let err = from_lines(&bad, tags()).unwrap_err();
    assert_eq!(err.fault.line, cut + 1, "{err}");
    // Every move before the bad line is in the PGN, as in the game cut there.
    let before = from_lines(&lines[..cut], tags()).unwrap();
    let movetext = |pgn: &str| pgn.split("\n\n").nth(1).unwrap().to_owned();
    let (kept, whole) = (movetext(&err.pgn), movetext(&before));
    assert!(
        kept.starts_with(whole.trim_end().trim_end_matches('*').trim_end()),
        "{kept}\n---\n{whole}"
    );
    assert!(kept.trim_end().ends_with('*'), "{kept}");
}

#[test]
fn outcomes_match_the_referee() {
    // The result token is the referee's, for both decisive outcomes.
    for winner in [Color::White, Color::Black] {
        let mut record = GameRecord::new(tags(), None);
        record.record(
            0,
            &Effect::Result {
                outcome: KnownOutcome::Decisive { winner },
                reason: Reason::IllegalMoves,
            },
        );
        let token = KnownOutcome::Decisive { winner }.as_str();
        let pgn = record.to_pgn();
        let parsed = parse_one(&pgn);
        assert_result(&pgn, &parsed, token, "rules infraction");
    }
}
