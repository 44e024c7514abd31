//! The line formats' own tests: each event and effect written and read
//! back, and every way a line can be refused.

use shakmaty::{Chess, Color, KnownOutcome, Position, Role, Square};

use super::event_read::position;
use super::*;
use crate::referee::{
    Choice, CompletedMove, Effect, Enforcement, GameMode, IncrementMode, Law, Laws, MoveText,
    Reason, Rejection, Ruling,
};

fn parse(line: &str) -> Line {
    parse_line(line)
        .unwrap_or_else(|err| panic!("{line}: {err}"))
        .unwrap_or_else(|| panic!("{line}: blank"))
}

fn input(line: &str) -> (Millis, Input) {
    match parse(line) {
        Line {
            t,
            event: Event::Input(input),
        } => (t, input),
        other => panic!("{line}: not an input: {other:?}"),
    }
}

fn rules(line: &str) -> Rules {
    match parse(line).event {
        Event::Setup(rules) => *rules,
        other => panic!("{line}: not a setup: {other:?}"),
    }
}

fn error(line: &str) -> String {
    match parse_line(line) {
        Err(err) => err.to_string(),
        Ok(parsed) => panic!("{line}: accepted as {parsed:?}"),
    }
}

#[test]
fn the_restored_line_reads_like_every_output_line() {
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(
        restored_to_json(1500, 297_000, 300_000, 1, fen),
        format!(
            r#"{{"t":1500,"effect":"game_restored","white_ms":297000,"black_ms":300000,"moves":1,"fen":"{fen}"}}"#
        )
    );
}

#[test]
fn a_restart_line_carries_the_time_off_when_known() {
    for (text, off_ms) in [
        (r#"{"t":1500,"ev":"restart","ms":205000}"#, Some(205_000)),
        (r#"{"t":1500,"ev":"restart"}"#, None),
    ] {
        let line = parse_line(text).unwrap().unwrap();
        assert_eq!(
            line,
            Line {
                t: 1500,
                event: Event::Restart { off_ms }
            }
        );
        assert_eq!(line_to_json(&line), text);
    }
    assert!(parse_line(r#"{"t":1,"ev":"restart","n":3}"#).is_err());
}

#[test]
fn blank_lines_are_nothing() {
    for line in ["", "\n", "   ", "\t\r\n"] {
        assert!(parse_line(line).unwrap().is_none(), "{line:?}");
    }
}

#[test]
fn side_events() {
    let w = Color::White;
    let b = Color::Black;
    assert_eq!(
        input(r#"{"t":0,"ev":"press","side":"black"}"#),
        (0, Input::Press(b))
    );
    assert_eq!(
        input(r#"{"t":7,"ev":"adjust","side":"white"}"#),
        (7, Input::Adjust(w))
    );
    assert_eq!(
        input(r#"{"t":8,"ev":"draw","side":"white"}"#),
        (8, Input::Draw(w))
    );
    assert_eq!(
        input(r#"{"t":9,"ev":"decline","side":"black"}"#),
        (9, Input::Decline(b))
    );
    assert_eq!(
        input(r#"{"ev":"resign","side":"black","t":10}"#),
        (10, Input::Resign(b))
    );
}

#[test]
fn square_events() {
    assert_eq!(
        input(r#"{"t":1,"ev":"lift","sq":"e2"}"#).1,
        Input::Lift(Square::E2)
    );
    assert_eq!(
        input(r#"{"t":1,"ev":"touch","sq":"g1"}"#).1,
        Input::Touch(Square::G1)
    );
    assert_eq!(
        input(r#"{"t":1,"ev":"untouch","sq":"h8"}"#).1,
        Input::Untouch(Square::H8)
    );
    assert_eq!(
        input(r#"{"t":1,"ev":"place","sq":"e4"}"#).1,
        Input::Place(Square::E4, None)
    );
    assert_eq!(
        input(r#"{"t":1,"ev":"place","sq":"f3","piece":"N"}"#).1,
        Input::Place(Square::F3, Some(Color::White.knight()))
    );
    assert_eq!(
        input(r#"{"t":1,"ev":"place","sq":"e5","piece":"p"}"#).1,
        Input::Place(Square::E5, Some(Color::Black.pawn()))
    );
}

#[test]
fn promote_pause_resume() {
    for (letter, role) in [
        ("q", Role::Queen),
        ("r", Role::Rook),
        ("b", Role::Bishop),
        ("n", Role::Knight),
    ] {
        let line = format!(r#"{{"t":3,"ev":"promote","piece":"{letter}"}}"#);
        assert_eq!(input(&line).1, Input::Promote(role));
    }
    assert_eq!(input(r#"{"t":4,"ev":"pause"}"#).1, Input::Pause);
    assert_eq!(input(r#"{"t":5,"ev":"resume"}"#).1, Input::Resume);
}

#[test]
fn end() {
    let line = parse(r#"{"t":120000,"ev":"end"}"#);
    assert_eq!(line.t, 120_000);
    assert!(matches!(line.event, Event::End));
}

#[test]
fn setup_defaults() {
    let rules = rules(r#"{"t":0,"ev":"setup"}"#);
    let defaults = Rules::default();
    assert_eq!(rules.time_control.to_string(), "5400+30");
    assert_eq!(rules.increment_mode, defaults.increment_mode);
    assert_eq!(rules.mode, GameMode::Standard);
    assert_eq!(rules.enforcement, defaults.enforcement);
    assert_eq!(rules.min_press_gap_ms, defaults.min_press_gap_ms);
    assert_eq!(rules.knock_window_ms, defaults.knock_window_ms);
    assert_eq!(rules.start, Chess::default());
    assert_eq!(rules.black_time_control, None);
    assert_eq!(rules.draw_odds, None);
    assert_eq!(rules, defaults);
}

#[test]
fn setup_armageddon() {
    let setup = rules(
        r#"{"t":0,"ev":"setup","time_control":"300+2","black_time_control":"240+2","draw_odds":"black"}"#,
    );
    assert_eq!(setup.time_control.to_string(), "300+2");
    assert_eq!(
        setup.black_time_control.map(|tc| tc.to_string()).as_deref(),
        Some("240+2")
    );
    assert_eq!(setup.draw_odds, Some(Color::Black));
    assert_eq!(
        rules(r#"{"t":0,"ev":"setup","draw_odds":"white"}"#).draw_odds,
        Some(Color::White)
    );
}

#[test]
fn corrections() {
    assert_eq!(
        input(r#"{"t":60000,"ev":"set_time","side":"white","ms":1500000}"#),
        (60_000, Input::SetTime(Color::White, 1_500_000))
    );
    assert_eq!(
        input(r#"{"t":61000,"ev":"set_moves","side":"black","n":20}"#),
        (61_000, Input::SetMoves(Color::Black, 20))
    );
}

#[test]
fn setup_every_field() {
    let setup = rules(
        r#"{"t":0,"ev":"setup","time_control":"40/5400+30:1800+30",
            "increment_mode":"bronstein","mode":"rapid","enforcement":"claim",
            "fen":"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
            "min_press_gap_ms":50,"knock_window_ms":1500}"#
            .replace('\n', " ")
            .as_str(),
    );
    assert_eq!(setup.time_control.to_string(), "40/5400+30:1800+30");
    assert_eq!(setup.increment_mode, IncrementMode::Bronstein);
    assert_eq!(setup.mode, GameMode::Rapid);
    assert_eq!(setup.enforcement, Enforcement::Claim);
    assert_eq!(setup.min_press_gap_ms, 50);
    assert_eq!(setup.knock_window_ms, 1500);
    assert_eq!(setup.start.turn(), Color::Black);
    assert_eq!(setup.start.board().occupied().count(), 3);
    for (line, mode) in [
        (
            r#"{"t":0,"ev":"setup","increment_mode":"fischer"}"#,
            "fischer",
        ),
        (r#"{"t":0,"ev":"setup","increment_mode":"delay"}"#, "delay"),
        (
            r#"{"t":0,"ev":"setup","increment_mode":"hourglass"}"#,
            "hourglass",
        ),
        (
            r#"{"t":0,"ev":"setup","increment_mode":"upcount"}"#,
            "upcount",
        ),
    ] {
        assert_eq!(rules(line).increment_mode.as_str(), mode);
    }
    // Written as read: the clock modes round-trip through the setup line.
    // And overtime, in the time control's own text.
    let overtime = Line {
        t: 0,
        event: Event::Setup(Box::new(Rules {
            time_control: "60m|5x30s".parse().unwrap(),
            black_time_control: Some("60m|20/5m".parse().unwrap()),
            ..Rules::default()
        })),
    };
    assert!(
        line_to_json(&overtime)
            .contains(r#""time_control":"3600|5x30","black_time_control":"3600|20/300""#),
        "{}",
        line_to_json(&overtime)
    );
    assert_eq!(parse(&line_to_json(&overtime)), overtime);
    for mode in [IncrementMode::Hourglass, IncrementMode::Upcount] {
        let written = Line {
            t: 0,
            event: Event::Setup(Box::new(Rules {
                increment_mode: mode,
                time_control: "60/5m:0+2s".parse().unwrap(),
                ..Rules::default()
            })),
        };
        assert_eq!(parse(&line_to_json(&written)), written);
    }
    assert_eq!(
        rules(r#"{"t":0,"ev":"setup","mode":"blitz","enforcement":"record"}"#).mode,
        GameMode::Blitz
    );
}

#[test]
fn errors_are_typed() {
    assert_eq!(
        parse_line(r#"{"t":0,"ev":"jump"}"#),
        Err(ParseLineError::UnknownEvent("jump".to_owned()))
    );
    assert_eq!(
        parse_line(r#"{"t":0,"ev":"lift"}"#),
        Err(ParseLineError::MissingField {
            event: "lift".to_owned(),
            field: "sq"
        })
    );
    assert_eq!(parse_line("[0]"), Err(ParseLineError::NotAnObject));
    assert!(matches!(
        parse_line("{"),
        Err(ParseLineError::Malformed { column: 1, .. })
    ));
    assert!(matches!(
        parse_line(r#"{"t":0,"ev":"lift","sq":"z9"}"#),
        Err(ParseLineError::UnknownSquare(sq)) if sq == "z9"
    ));
}

#[test]
fn malformed_json() {
    for line in [
        "{",
        r#"{"t":0,"ev":"press","side":"white""#,
        r#"{"t":0,"ev":"end"} x"#,
        "not json",
        "[0]",
        "42",
        r#""end""#,
    ] {
        let err = error(line);
        let expected = if line.starts_with(['[', '4', '"']) {
            "expected a JSON object"
        } else {
            "malformed JSON"
        };
        assert!(err.starts_with(expected), "{line}: {err}");
    }
}

#[test]
fn unknown_event() {
    assert_eq!(error(r#"{"t":0,"ev":"jump"}"#), r#"unknown event "jump""#);
    assert_eq!(
        error(r#"{"t":0,"ev":"Press","side":"white"}"#),
        r#"unknown event "Press""#
    );
}

#[test]
fn unknown_field() {
    assert_eq!(
        error(r#"{"t":0,"ev":"press","side":"white","hand":"left"}"#),
        r#"unknown field "hand""#
    );
}

#[test]
fn missing_required_field() {
    assert_eq!(error(r#"{"ev":"pause"}"#), "missing field `t`");
    assert_eq!(error(r#"{"t":0}"#), "missing field `ev`");
    for (line, field) in [
        (r#"{"t":0,"ev":"press"}"#, "side"),
        (r#"{"t":0,"ev":"adjust"}"#, "side"),
        (r#"{"t":0,"ev":"draw"}"#, "side"),
        (r#"{"t":0,"ev":"decline"}"#, "side"),
        (r#"{"t":0,"ev":"resign","side":null}"#, "side"),
        (r#"{"t":0,"ev":"lift"}"#, "sq"),
        (r#"{"t":0,"ev":"place","piece":"P"}"#, "sq"),
        (r#"{"t":0,"ev":"touch"}"#, "sq"),
        (r#"{"t":0,"ev":"untouch"}"#, "sq"),
        (r#"{"t":0,"ev":"promote"}"#, "piece"),
        (r#"{"t":0,"ev":"set_time","side":"white"}"#, "ms"),
        (r#"{"t":0,"ev":"set_time","ms":5}"#, "side"),
        (r#"{"t":0,"ev":"set_moves","side":"black"}"#, "n"),
        (r#"{"t":0,"ev":"set_moves","n":3}"#, "side"),
    ] {
        let err = error(line);
        assert!(
            err.ends_with(&format!("needs field {field:?}")),
            "{line}: {err}"
        );
    }
}

#[test]
fn foreign_field() {
    for (line, field, ev) in [
        (
            r#"{"t":0,"ev":"press","side":"white","sq":"e4"}"#,
            "sq",
            "press",
        ),
        (
            r#"{"t":0,"ev":"lift","sq":"e4","piece":"P"}"#,
            "piece",
            "lift",
        ),
        (r#"{"t":0,"ev":"pause","side":"white"}"#, "side", "pause"),
        (
            r#"{"t":0,"ev":"end","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
            "fen",
            "end",
        ),
        (r#"{"t":0,"ev":"setup","side":"white"}"#, "side", "setup"),
        (
            r#"{"t":0,"ev":"promote","piece":"q","sq":"e8"}"#,
            "sq",
            "promote",
        ),
        (
            r#"{"t":0,"ev":"press","side":"white","ms":5}"#,
            "ms",
            "press",
        ),
        (
            r#"{"t":0,"ev":"set_time","side":"white","ms":5,"n":1}"#,
            "n",
            "set_time",
        ),
        (
            r#"{"t":0,"ev":"set_moves","side":"white","n":1,"ms":5}"#,
            "ms",
            "set_moves",
        ),
        (
            r#"{"t":0,"ev":"pause","draw_odds":"black"}"#,
            "draw_odds",
            "pause",
        ),
        (
            r#"{"t":0,"ev":"end","black_time_control":"60"}"#,
            "black_time_control",
            "end",
        ),
    ] {
        assert_eq!(
            error(line),
            format!("field {field:?} does not belong to {ev:?}"),
            "{line}"
        );
    }
}

#[test]
fn bad_values() {
    for (line, start) in [
        (r#"{"t":0,"ev":"press","side":"White"}"#, "bad side"),
        (r#"{"t":0,"ev":"lift","sq":"i1"}"#, "unknown square"),
        (r#"{"t":0,"ev":"lift","sq":"E2"}"#, "unknown square"),
        (r#"{"t":0,"ev":"touch","sq":"e22"}"#, "unknown square"),
        (r#"{"t":0,"ev":"place","sq":"e4","piece":"x"}"#, "bad piece"),
        (
            r#"{"t":0,"ev":"place","sq":"e4","piece":"NN"}"#,
            "bad piece",
        ),
        (
            r#"{"t":0,"ev":"promote","piece":"k"}"#,
            "bad promotion piece",
        ),
        (
            r#"{"t":0,"ev":"promote","piece":"Q"}"#,
            "bad promotion piece",
        ),
        (r#"{"t":0,"ev":"setup","fen":"nonsense"}"#, "bad fen"),
        (
            r#"{"t":0,"ev":"setup","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
            "bad fen",
        ),
        (
            r#"{"t":0,"ev":"setup","time_control":"?"}"#,
            "bad time_control",
        ),
        (
            r#"{"t":0,"ev":"setup","time_control":"5 min"}"#,
            "bad time_control",
        ),
        (
            r#"{"t":0,"ev":"setup","increment_mode":"simple"}"#,
            "bad increment_mode",
        ),
        (r#"{"t":0,"ev":"setup","mode":"bullet"}"#, "bad mode"),
        (
            r#"{"t":0,"ev":"setup","enforcement":"lax"}"#,
            "bad enforcement",
        ),
        (
            r#"{"t":0,"ev":"setup","black_time_control":"-"}"#,
            "bad black_time_control",
        ),
        (
            r#"{"t":0,"ev":"setup","draw_odds":"Black"}"#,
            "bad draw_odds",
        ),
        (r#"{"t":0,"ev":"set_time","side":"red","ms":5}"#, "bad side"),
    ] {
        let err = error(line);
        assert!(err.starts_with(start), "{line}: {err}");
    }
    // Wrong JSON types are caught by serde, with its own words.
    for line in [
        r#"{"t":-1,"ev":"pause"}"#,
        r#"{"t":1.5,"ev":"pause"}"#,
        r#"{"t":"0","ev":"pause"}"#,
        r#"{"t":0,"ev":1}"#,
        r#"{"t":0,"ev":"lift","sq":36}"#,
        r#"{"t":0,"ev":"setup","min_press_gap_ms":"100"}"#,
        r#"{"t":0,"ev":"pause","t":1}"#,
        r#"{"t":0,"ev":"set_time","side":"white","ms":-5}"#,
        r#"{"t":0,"ev":"set_time","side":"white","ms":"5"}"#,
        r#"{"t":0,"ev":"set_moves","side":"white","n":4294967296}"#,
        r#"{"t":0,"ev":"setup","draw_odds":true}"#,
    ] {
        let err = error(line);
        assert!(
            err.starts_with("invalid") || err.starts_with("duplicate"),
            "{line}: {err}"
        );
    }
}

#[test]
fn every_effect_on_the_wire() {
    let cases = [
        (
            Effect::Started { side: Color::White },
            r#"{"t":0,"effect":"started","side":"white"}"#,
        ),
        (
            Effect::Move(CompletedMove {
                side: Color::White,
                number: 1,
                uci: MoveText::new("g1f3").expect("a UCI move"),
                san: MoveText::new("Nf3").expect("a SAN move"),
                white_ms: 300_000,
                black_ms: 299_000,
            }),
            r#"{"t":0,"effect":"move","side":"white","n":1,"uci":"g1f3","san":"Nf3","white_ms":300000,"black_ms":299000}"#,
        ),
        (
            Effect::Violation(Ruling {
                side: Color::Black,
                law: Law::TouchedOwn,
                detail: "Touch-move: move the \"g8\" knight".to_owned(),
            }),
            r#"{"t":0,"effect":"violation","side":"black","law":"4.3.1","detail":"Touch-move: move the \"g8\" knight"}"#,
        ),
        (
            Effect::Warning(Ruling {
                side: Color::White,
                law: Law::PressHand,
                detail: "Press with the hand that moved".to_owned(),
            }),
            r#"{"t":0,"effect":"warning","side":"white","law":"6.2.3","detail":"Press with the hand that moved"}"#,
        ),
        (
            Effect::TimeAdded {
                side: Color::Black,
                ms: 120_000,
                law: Law::IllegalMovePenalty,
            },
            r#"{"t":0,"effect":"time_added","side":"black","ms":120000,"law":"7.5.5"}"#,
        ),
        (
            Effect::DrawOffer {
                side: Color::White,
                proper: true,
            },
            r#"{"t":0,"effect":"draw_offer","side":"white","proper":true}"#,
        ),
        (
            Effect::DrawDeclined {
                side: Color::White,
                how: Rejection::Touch,
            },
            r#"{"t":0,"effect":"draw_declined","side":"white","how":"touch"}"#,
        ),
        (
            Effect::DrawDeclined {
                side: Color::Black,
                how: Rejection::Spoken,
            },
            r#"{"t":0,"effect":"draw_declined","side":"black","how":"spoken"}"#,
        ),
        (
            Effect::Displaced {
                side: Color::Black,
                squares: vec![Square::E4, Square::H8],
            },
            r#"{"t":0,"effect":"displaced","side":"black","squares":["e4","h8"]}"#,
        ),
        (
            Effect::Restored {
                side: Color::Black,
                ms: 4_200,
            },
            r#"{"t":0,"effect":"restored","side":"black","ms":4200}"#,
        ),
        (
            Effect::Flag { side: Color::White },
            r#"{"t":0,"effect":"flag","side":"white"}"#,
        ),
        (Effect::Paused, r#"{"t":0,"effect":"paused"}"#),
        (Effect::Resumed, r#"{"t":0,"effect":"resumed"}"#),
        (
            Effect::Corrected {
                side: Color::White,
                ms: 1_500_000,
                completed: 20,
            },
            r#"{"t":0,"effect":"corrected","side":"white","ms":1500000,"completed":20}"#,
        ),
        (
            Effect::Result {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
                reason: Reason::Timeout,
            },
            r#"{"t":0,"effect":"result","result":"0-1","reason":"timeout"}"#,
        ),
        (
            Effect::Result {
                outcome: KnownOutcome::Decisive {
                    winner: Color::White,
                },
                reason: Reason::Checkmate,
            },
            r#"{"t":0,"effect":"result","result":"1-0","reason":"checkmate"}"#,
        ),
        (
            Effect::Result {
                outcome: KnownOutcome::Draw,
                reason: Reason::ThreefoldRepetition,
            },
            r#"{"t":0,"effect":"result","result":"1/2-1/2","reason":"threefold_repetition"}"#,
        ),
    ];
    for (effect, json) in cases {
        assert_eq!(effect_to_json(0, &effect), json, "{effect:?}");
        // The value a message carries is that line's.
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(effect_to_value(0, &effect), value, "{effect:?}");
        // And reads back as the same effect.
        assert_eq!(parse_effect_line(json), Ok((0, effect.clone())), "{json}");
    }
    assert_eq!(
        effect_to_json(60_000, &Effect::Flag { side: Color::White }),
        r#"{"t":60000,"effect":"flag","side":"white"}"#
    );
}

#[test]
fn inputs_written_as_the_format_has_them() {
    let w = Color::White;
    let b = Color::Black;
    let cases = [
        (Input::Press(b), r#"{"t":7,"ev":"press","side":"black"}"#),
        (Input::Adjust(w), r#"{"t":7,"ev":"adjust","side":"white"}"#),
        (Input::Draw(w), r#"{"t":7,"ev":"draw","side":"white"}"#),
        (
            Input::Decline(b),
            r#"{"t":7,"ev":"decline","side":"black"}"#,
        ),
        (Input::Resign(b), r#"{"t":7,"ev":"resign","side":"black"}"#),
        (Input::Lift(Square::E2), r#"{"t":7,"ev":"lift","sq":"e2"}"#),
        (
            Input::Touch(Square::G1),
            r#"{"t":7,"ev":"touch","sq":"g1"}"#,
        ),
        (
            Input::Untouch(Square::H8),
            r#"{"t":7,"ev":"untouch","sq":"h8"}"#,
        ),
        (
            Input::Place(Square::E4, None),
            r#"{"t":7,"ev":"place","sq":"e4"}"#,
        ),
        (
            Input::Place(Square::F6, Some(b.knight())),
            r#"{"t":7,"ev":"place","sq":"f6","piece":"n"}"#,
        ),
        (
            Input::Promote(Role::Knight),
            r#"{"t":7,"ev":"promote","piece":"n"}"#,
        ),
        (Input::Pause, r#"{"t":7,"ev":"pause"}"#),
        (Input::Resume, r#"{"t":7,"ev":"resume"}"#),
        (
            Input::SetTime(w, 1_500_000),
            r#"{"t":7,"ev":"set_time","side":"white","ms":1500000}"#,
        ),
        (
            Input::SetMoves(b, 20),
            r#"{"t":7,"ev":"set_moves","side":"black","n":20}"#,
        ),
    ];
    for (input, json) in cases {
        assert_eq!(input_to_json(7, &input), json, "{input:?}");
        let line = Line {
            t: 7,
            event: Event::Input(input),
        };
        assert_eq!(line_to_json(&line), json);
        assert_eq!(parse(json), line, "{json}");
    }
    let end = Line {
        t: 9_000,
        event: Event::End,
    };
    assert_eq!(line_to_json(&end), r#"{"t":9000,"ev":"end"}"#);
    assert_eq!(parse(&line_to_json(&end)), end);
}

#[test]
fn setup_written_with_every_rule() {
    let setup = |rules: Rules| Line {
        t: 0,
        event: Event::Setup(Box::new(rules)),
    };
    let defaults = setup(Rules::default());
    assert_eq!(
        line_to_json(&defaults),
        r#"{"t":0,"ev":"setup","time_control":"5400+30","increment_mode":"fischer","mode":"standard","enforcement":"strict","min_press_gap_ms":100,"knock_window_ms":2000}"#
    );
    assert_eq!(parse(&line_to_json(&defaults)), defaults);

    let armageddon = setup(Rules {
        time_control: "300+2".parse().unwrap(),
        black_time_control: Some("240+2".parse().unwrap()),
        draw_odds: Some(Color::Black),
        increment_mode: IncrementMode::Delay,
        mode: GameMode::Blitz,
        enforcement: Enforcement::Record,
        laws: Laws::Fide2023Unsupervised,
        min_press_gap_ms: 0,
        knock_window_ms: 1_234,
        start: position("4k3/8/8/8/8/8/4P3/4K3 b - - 7 42").unwrap(),
        plain_clock: false,
    });
    assert_eq!(
        line_to_json(&armageddon),
        r#"{"t":0,"ev":"setup","time_control":"300+2","black_time_control":"240+2","draw_odds":"black","increment_mode":"delay","mode":"blitz","enforcement":"record","laws":"fide-2023-unsupervised","min_press_gap_ms":0,"knock_window_ms":1234,"fen":"4k3/8/8/8/8/8/4P3/4K3 b - - 7 42"}"#
    );
    assert_eq!(parse(&line_to_json(&armageddon)), armageddon);

    // A plain clock says so; a game on a board keeps its line as it was.
    let plain = setup(Rules {
        plain_clock: true,
        ..Rules::default()
    });
    assert!(
        line_to_json(&plain).ends_with(r#""knock_window_ms":2000,"plain_clock":true}"#),
        "{}",
        line_to_json(&plain)
    );
    assert_eq!(parse(&line_to_json(&plain)), plain);
}

#[test]
fn laws_choose_and_choice_round_trip() {
    for laws in [
        Laws::Fide2023,
        Laws::Fide2023Unsupervised,
        Laws::Regence1858,
    ] {
        let line = format!(r#"{{"t":0,"ev":"setup","laws":"{laws}"}}"#);
        assert_eq!(rules(&line).laws, laws);
    }
    for choice in Choice::ALL {
        let line = format!(r#"{{"t":5,"ev":"choose","side":"black","option":"{choice}"}}"#);
        assert_eq!(input(&line), (5, Input::Choose(Color::Black, choice)));
        assert_eq!(input_to_json(5, &Input::Choose(Color::Black, choice)), line);
    }
    let choice = Effect::Choice {
        side: Color::Black,
        law: Law::Regence9,
        options: crate::referee::ChoiceOptions::from_slice(&[
            Choice::Take,
            Choice::Leave,
            Choice::King,
        ]),
    };
    assert_eq!(
        effect_to_json(10, &choice),
        r#"{"t":10,"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}"#
    );
    assert_eq!(
        parse_effect_line(&effect_to_json(10, &choice)),
        Ok((10, choice))
    );
}

#[test]
fn an_adjudicated_result_reads_back_with_the_arbiters_words() {
    let effect = Effect::Result {
        outcome: KnownOutcome::Draw,
        reason: Reason::Adjudicated(crate::referee::ArbiterWords::new("Both flags").unwrap()),
    };
    let json = effect_to_json(5, &effect);
    assert_eq!(
        json,
        r#"{"t":5,"effect":"result","result":"1/2-1/2","reason":"adjudicated","detail":"Both flags"}"#
    );
    assert_eq!(parse_effect_line(&json), Ok((5, effect)));
}

#[test]
fn an_effect_line_that_is_not_one_is_refused_with_its_field() {
    assert!(matches!(
        parse_effect_line("not json"),
        Err(ParseEffectError::Json(_))
    ));
    assert!(matches!(
        parse_effect_line(r#"{"t":1,"effect":"new_thing"}"#),
        Err(ParseEffectError::Json(_))
    ));
    assert_eq!(
        parse_effect_line(r#"{"t":1,"effect":"flag","side":"green"}"#),
        Err(ParseEffectError::Value {
            field: "side",
            value: "green".to_owned()
        })
    );
    assert_eq!(
        parse_effect_line(r#"{"t":1,"effect":"waived","side":"white","law":"99.9"}"#),
        Err(ParseEffectError::Value {
            field: "law",
            value: "99.9".to_owned()
        })
    );
}

#[test]
fn the_standard_start_is_told_apart_by_its_move_counters() {
    // Chess's own equality ignores the counters: the FEN must not.
    let later = Rules {
        start: position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3").unwrap(),
        ..Rules::default()
    };
    assert_ne!(later, Rules::default());
    let line = Line {
        t: 0,
        event: Event::Setup(Box::new(later)),
    };
    let json = line_to_json(&line);
    assert!(
        json.ends_with(r#","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"}"#),
        "{json}"
    );
    assert_eq!(parse(&json), line);
}

#[test]
fn a_players_line_is_bounded_as_the_halls_pairing_and_needs_its_board_and_names() {
    let line = r#"{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy,\u0007 Paul","white_elo":9000,"black":"Anderssen, Adolf","black_fide_id":4600010}"#;
    let Event::Players(players) = parse(line).event else {
        panic!("{line}: not players");
    };
    // The bell dropped, a rating that cannot be one left out.
    assert_eq!(players.white.name, "Morphy, Paul");
    assert_eq!(players.white.rating, None);
    assert_eq!(players.black.fide_id, Some(4600010));
    assert_eq!(players.round, "3");
    assert_eq!(
        line_to_json(&Line {
            t: 0,
            event: Event::Players(players),
        }),
        r#"{"t":0,"ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf","black_fide_id":4600010}"#
    );
    assert_eq!(
        error(r#"{"t":0,"ev":"players","white":"A","black":"B"}"#),
        r#""players" needs field "board""#
    );
    assert_eq!(
        error(r#"{"t":0,"ev":"players","board":1,"white":"\u0001","black":"B"}"#),
        "bad player \"\\u{1}\": a player without a name"
    );
    assert_eq!(
        error(r#"{"t":0,"ev":"press","side":"white","board":1}"#),
        r#"field "board" does not belong to "press""#
    );
}
