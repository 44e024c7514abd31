//! The front panel as a club uses it: presets, sides, start, pause and
//! corrections, the end of a game, and a game rebuilt after a restart.

use shakmaty::{Bitboard, Color, Position, Square};
use tocada::config::Config;
use tocada::controls::Button;
use tocada::face::{EditorRow, Field, Language, Screen};
use tocada::session::{Action, GameRestored, GameToResume, Recorded, Session, SessionInput};
use tocada::transcript::{Fault, FaultKind, Policy, RestoreError, Restored, restore};
use tocada::{Effect, Input};

fn panel() -> Session {
    Session::new(&Config::default())
}

fn actions(panel: &mut Session) -> Vec<Action> {
    std::iter::from_fn(|| panel.poll_action()).collect()
}

fn press(panel: &mut Session, at: u64, button: Button) -> Vec<Action> {
    panel.handle(at, SessionInput::Press { button, at });
    actions(panel)
}

mod support {
    pub mod lines;
}
use support::lines::stored_lines as stored;

fn selected(panel: &Session) -> usize {
    match panel.view(0).screen {
        Screen::TimeControlMenu { selected, .. } => selected,
        other => panic!("not the setup screen: {other:?}"),
    }
}

/// Restores `lines` into `panel` at 0, as a game begun under `preset` on
/// 2026.11.21 with White on the left.
fn restored_as(panel: &mut Session, preset: &str, lines: &[String]) -> Restored {
    restore(
        panel,
        0,
        GameToResume {
            preset,
            black_left: false,
            date: "2026.11.21",
            lines,
        },
        Policy::RESTORE,
    )
    .unwrap()
}

/// Black starts, then 1. e4 e5 2. Nf3, each move followed by its press.
fn opening(panel: &mut Session) -> Vec<Action> {
    let mut all = press(panel, 1_000, Button::Lever(Color::Black));
    let moves = [
        (Square::E2, Square::E4, Color::White),
        (Square::E7, Square::E5, Color::Black),
        (Square::G1, Square::F3, Color::White),
    ];
    let mut t = 1_000;
    for (from, to, side) in moves {
        t += 3_000;
        panel.handle(t, SessionInput::Board(Input::Lift(from)));
        panel.handle(t + 200, SessionInput::Board(Input::Place(to, None)));
        all.extend(actions(panel));
        all.extend(press(panel, t + 400, Button::Lever(side)));
    }
    all
}

#[test]
fn the_adjust_buttons_choose_a_preset_and_a_draw_button_swaps_sides() {
    let mut p = panel();
    let first = selected(&p);
    press(&mut p, 10, Button::Adjust(Color::Black)); // right, with White on the left
    assert_eq!(selected(&p), first + 1);
    press(&mut p, 20, Button::Adjust(Color::White)); // left
    assert_eq!(selected(&p), first);
    assert!(!p.view(0).black_left);
    press(&mut p, 30, Button::Draw(Color::White));
    assert!(p.view(0).black_left);
    // After the swap the lever wired as White's is Black's: it starts the game.
    let all = press(&mut p, 40, Button::Lever(Color::White));
    assert!(matches!(
        all[0],
        Action::Begin {
            black_left: true,
            ..
        }
    ));
}

#[test]
fn blacks_lever_starts_the_game_and_whites_does_not() {
    let mut p = panel();
    let all = press(&mut p, 5, Button::Lever(Color::White));
    assert!(!p.in_game());
    assert_eq!(p.view(5).alert.as_deref(), Some("Black's lever starts"));
    assert!(all.iter().all(|a| !matches!(a, Action::Begin { .. })));

    let all = press(&mut p, 100, Button::Lever(Color::Black));
    assert!(p.in_game());
    match &all[0] {
        Action::Begin {
            t, preset, rules, ..
        } => {
            assert_eq!((*t, preset.as_str()), (100, "rapid"));
            assert_eq!(rules.time_control.to_string(), "900+10");
            let setup = &stored(&all[..1])[0];
            assert!(setup.contains("\"ev\":\"setup\""), "{setup}");
            assert!(setup.contains("900+10"), "{setup}");
        }
        other => panic!("{other:?}"),
    }
    assert!(all.contains(&Action::Decision(
        100,
        Effect::Started { side: Color::White }
    )));
    assert_eq!(p.referee().unwrap().ticking(), Some(Color::White));
}

/// FIDE 7.3 on a board that knows its pieces (DGT): a king and queen
/// swapped is said with its squares and refused until put right.
#[test]
fn a_king_and_queen_swapped_on_a_board_that_knows_them_does_not_start() {
    use shakmaty::{Piece, Role};
    let mut p = panel();
    let mut board = shakmaty::Board::default();
    let king = Piece {
        color: Color::White,
        role: Role::King,
    };
    let queen = Piece {
        color: Color::White,
        role: Role::Queen,
    };
    board.set_piece_at(Square::D1, king);
    board.set_piece_at(Square::E1, queen);
    p.set_pieces(board.clone());
    p.set_occupancy(board.occupied());
    press(&mut p, 100, Button::Lever(Color::Black));
    assert!(!p.in_game());
    assert_eq!(p.view(100).alert.as_deref(), Some("K-Q swapped d1 e1"));
    // Half put right: the queen on d1, the king still in the hand.
    p.handle(200, SessionInput::Board(Input::Lift(Square::D1)));
    p.handle(300, SessionInput::Board(Input::Lift(Square::E1)));
    p.handle(
        400,
        SessionInput::Board(Input::Place(Square::D1, Some(queen))),
    );
    assert_eq!(p.view(400).alert.as_deref(), Some("Missing e1"));
    press(&mut p, 500, Button::Lever(Color::Black));
    assert!(!p.in_game());
    p.handle(
        600,
        SessionInput::Board(Input::Place(Square::E1, Some(king))),
    );
    assert_eq!(p.view(600).alert, None);
    press(&mut p, 700, Button::Lever(Color::Black));
    assert!(p.in_game());
}

/// 7.2: a board lying across is said as such, not as pieces missing.
#[test]
fn a_board_turned_a_quarter_is_said_and_does_not_start() {
    let mut p = panel();
    p.set_occupancy(shakmaty::Board::default().occupied().rotate_90());
    press(&mut p, 100, Button::Lever(Color::Black));
    assert!(!p.in_game());
    assert_eq!(
        p.view(100).alert.as_deref(),
        Some("Board turned 90 degrees")
    );
}

#[test]
fn a_board_not_in_the_start_position_does_not_start() {
    let mut p = panel();
    let mut occupied = shakmaty::Board::default().occupied();
    occupied.discard(Square::E2);
    p.set_occupancy(occupied);
    press(&mut p, 100, Button::Lever(Color::Black));
    assert!(!p.in_game());
    assert_eq!(p.view(100).alert.as_deref(), Some("Missing e2"));
    p.handle(200, SessionInput::Board(Input::Place(Square::E2, None)));
    press(&mut p, 300, Button::Lever(Color::Black));
    assert!(p.in_game());
    let _: Bitboard = occupied;
}

#[test]
fn moves_made_on_the_board_are_recorded_as_replay_lines() {
    let mut p = panel();
    let all = opening(&mut p);
    let sans: Vec<String> = all
        .iter()
        .filter_map(|a| match a {
            Action::Decision(_, Effect::Move(m)) => Some(m.san.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(sans, ["e4", "e5", "Nf3"]);
    let lines = stored(&all);
    assert_eq!(lines.len(), 1 + 1 + 3 * 3, "{lines:#?}");
    // Byte for byte what the store has always kept: stored games and
    // `tests/power_cut.rs` read them back.
    assert_eq!(
        lines[1..5],
        [
            r#"{"t":1000,"ev":"press","side":"black"}"#,
            r#"{"t":4000,"ev":"lift","sq":"e2"}"#,
            r#"{"t":4200,"ev":"place","sq":"e4"}"#,
            r#"{"t":4400,"ev":"press","side":"white"}"#,
        ]
    );
    assert_eq!(
        all.iter()
            .filter(|a| matches!(a, Action::Record { .. }))
            .count(),
        1 + 3 * 3
    );
}

#[test]
fn the_menu_pauses_and_the_correction_screen_sets_a_clock() {
    let mut p = panel();
    opening(&mut p);
    let before = p.referee().unwrap().remaining(Color::White, 20_000);
    let all = press(&mut p, 20_000, Button::Menu);
    assert!(all.contains(&Action::Decision(20_000, Effect::Paused)));
    assert_eq!(
        p.view(20_000).screen,
        Screen::Correction {
            field: Field::WhiteMinutes
        }
    );
    // Right draw button: one minute more for White.
    let all = press(&mut p, 21_000, Button::Draw(Color::Black));
    assert!(stored(&all)[0].contains("set_time"), "{all:?}");
    assert_eq!(
        p.referee().unwrap().remaining(Color::White, 21_000),
        before + 60_000
    );
    // Right adjust button: the next field, White's seconds; left draw: one second less.
    press(&mut p, 22_000, Button::Adjust(Color::Black));
    assert_eq!(
        p.view(22_000).screen,
        Screen::Correction {
            field: Field::WhiteSeconds
        }
    );
    press(&mut p, 23_000, Button::Draw(Color::White));
    assert_eq!(
        p.referee().unwrap().remaining(Color::White, 23_000),
        before + 59_000
    );
    // A lever does not resume an arbiter's pause; the menu does.
    press(&mut p, 24_000, Button::Lever(Color::White));
    assert!(p.referee().unwrap().is_paused());
    let all = press(&mut p, 25_000, Button::Menu);
    assert!(all.contains(&Action::Decision(25_000, Effect::Resumed)));
    assert_eq!(p.view(25_000).screen, Screen::Clock);
}

#[test]
fn end_game_on_the_correction_screen_abandons_it() {
    let mut p = panel();
    opening(&mut p);
    press(&mut p, 20_000, Button::Menu);
    press(&mut p, 20_050, Button::Draw(Color::Black)); // a minute more for White
    for _ in 0..6 {
        press(&mut p, 20_100, Button::Adjust(Color::Black));
    }
    assert_eq!(
        p.view(20_100).screen,
        Screen::Correction {
            field: Field::EndGame
        }
    );
    let all = press(&mut p, 20_200, Button::Draw(Color::Black));
    let finish = all.iter().find_map(|a| match a {
        Action::Finish { result, pgn } => Some((result.clone(), pgn.clone())),
        _ => None,
    });
    let (result, pgn) = finish.expect("a finish action");
    assert_eq!(result, "*");
    assert!(pgn.contains("1. e4"), "{pgn}");
    assert!(
        pgn.contains("(art. 6.10)"),
        "the correction is in the score: {pgn}"
    );
    assert!(!p.in_game());
    press(&mut p, 20_300, Button::Menu);
    assert!(matches!(p.view(0).screen, Screen::TimeControlMenu { .. }));
}

#[test]
fn a_flag_is_recorded_so_the_stored_game_replays_to_it() {
    let mut p = panel();
    let mut config = Config::default();
    config.clock.preset = "blitz".to_owned();
    let mut p2 = Session::new(&config);
    std::mem::swap(&mut p, &mut p2);
    let mut all = press(&mut p, 0, Button::Lever(Color::Black));
    let deadline = p.next_deadline().expect("White's clock runs");
    assert_eq!(deadline, 180_000);
    // The daemon's checkpoints while the clock runs (a restore refuses a
    // stored line long after the one before while a clock ran).
    for t in (500..deadline).step_by(500) {
        p.checkpoint(t, t);
    }
    all.extend(actions(&mut p));
    p.handle_timeout(deadline);
    all.extend(actions(&mut p));
    assert!(
        all.iter()
            .any(|a| matches!(a, Action::Finish { result, .. } if result == "0-1"))
    );
    let lines = stored(&all);
    assert!(lines.last().unwrap().contains("\"end\""), "{lines:?}");

    // Rebuilt from its lines, the game is over with the same result.
    let mut again = panel();
    restored_as(&mut again, "blitz", &lines);
    let redo = actions(&mut again);
    assert!(
        redo.iter()
            .any(|a| matches!(a, Action::Finish { result, .. } if result == "0-1"))
    );
}

#[test]
fn a_restored_game_comes_back_paused_on_its_times_and_a_lever_resumes() {
    let mut p = panel();
    let all = opening(&mut p);
    let lines = stored(&all);
    let last_t = 1_000 + 3 * 3_000 + 400;
    let white = p.referee().unwrap().remaining(Color::White, last_t);
    let black = p.referee().unwrap().remaining(Color::Black, last_t);
    let fen = p.referee().unwrap().position().board().to_string();

    // The Pi was off for a long while; the new shell's clock starts at 0.
    let mut q = panel();
    restored_as(&mut q, "rapid", &lines);
    let redo = actions(&mut q);
    assert!(
        redo.iter().any(|a| matches!(
            a,
            Action::Record {
                event: Recorded::Input(Input::Pause),
                ..
            }
        )),
        "the pause is stored too: {redo:?}"
    );
    let r = q.referee().unwrap();
    assert!(r.is_paused());
    assert_eq!(r.position().board().to_string(), fen);
    assert_eq!(r.remaining(Color::White, 0), white);
    assert_eq!(
        r.remaining(Color::Black, 500_000),
        black,
        "paused: nothing runs"
    );
    assert!(matches!(q.view(0).screen, Screen::Correction { .. }));

    let redo = press(&mut q, 60_000, Button::Lever(Color::White));
    assert!(
        redo.iter()
            .any(|a| matches!(a, Action::Decision(_, Effect::Resumed)))
    );
    let r = q.referee().unwrap();
    assert_eq!(r.ticking(), Some(Color::Black));
    // Only the time since the resume is charged.
    let t = q.game_time(61_000).unwrap();
    assert_eq!(r.remaining(Color::Black, t), black - 1_000);
}

/// The opening, then Black's 2... Nc6 made on the board but not pressed
/// when the power goes; the game restored on a fresh panel.
fn restored_with_a_move_unpressed() -> (Session, u64) {
    let mut p = panel();
    let mut all = opening(&mut p);
    p.handle(12_000, SessionInput::Board(Input::Lift(Square::B8)));
    p.handle(12_200, SessionInput::Board(Input::Place(Square::C6, None)));
    all.extend(actions(&mut p));
    let black = p.referee().unwrap().remaining(Color::Black, 12_200);
    let lines = stored(&all);
    let mut q = panel();
    restored_as(&mut q, "rapid", &lines);
    actions(&mut q);
    assert_eq!(q.referee().unwrap().ticking(), None, "paused");
    (q, black)
}

#[test]
fn art_6_2_1_a_move_made_before_a_power_cut_is_completed_by_the_press_that_resumes() {
    let (mut q, black) = restored_with_a_move_unpressed();
    let redo = press(&mut q, 60_000, Button::Lever(Color::Black));
    let moves: Vec<_> = redo
        .iter()
        .filter_map(|a| match a {
            Action::Decision(_, Effect::Move(m)) => Some(m.san.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(moves, ["Nc6"], "{redo:?}");
    let r = q.referee().unwrap();
    assert_eq!(r.ticking(), Some(Color::White), "White's clock runs now");
    // Black was charged nothing while the power was off, and the press
    // was recorded, so the stored game replays to the same.
    let t = q.game_time(60_000).unwrap();
    assert_eq!(r.remaining(Color::Black, t), black + 10_000);
    assert!(redo.iter().any(|a| matches!(
        a,
        Action::Record {
            event: Recorded::Input(Input::Press(Color::Black)),
            ..
        }
    )));
}

#[test]
fn near_miss_art_6_2_1_the_other_lever_only_resumes_after_a_power_cut() {
    let (mut q, _) = restored_with_a_move_unpressed();
    let redo = press(&mut q, 60_000, Button::Lever(Color::White));
    assert!(
        !redo
            .iter()
            .any(|a| matches!(a, Action::Decision(_, Effect::Move(_)))),
        "{redo:?}"
    );
    assert_eq!(q.referee().unwrap().ticking(), Some(Color::Black));
}

#[test]
fn a_restored_game_says_what_it_restored() {
    let mut p = panel();
    let mut all = opening(&mut p);
    // Black lifts his knight and the power goes: a move in progress.
    p.handle(12_000, SessionInput::Board(Input::Lift(Square::B8)));
    all.extend(actions(&mut p));
    let lines = stored(&all);
    let last_t = 12_000;
    let white = p.referee().unwrap().remaining(Color::White, last_t);
    let black = p.referee().unwrap().remaining(Color::Black, last_t);

    let mut q = panel();
    restored_as(&mut q, "rapid", &lines);
    let restored: Vec<_> = actions(&mut q)
        .into_iter()
        .filter(|a| matches!(a, Action::Restored(_)))
        .collect();
    assert_eq!(
        restored,
        [Action::Restored(GameRestored {
            t: last_t,
            white_ms: white,
            black_ms: black,
            moves: 3,
            fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2".to_owned(),
        })]
    );
    assert_ne!(white, black, "the clocks differ, so a swap would show");
}

#[test]
fn a_corrupt_stored_game_is_an_error_not_a_panic() {
    let mut p = panel();
    let lines = vec!["{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}".to_owned()];
    let saved = GameToResume {
        preset: "rapid",
        black_left: false,
        date: "?",
        lines: &lines,
    };
    assert!(restore(&mut p, 0, saved, Policy::RESTORE).is_err());
    let lines = vec!["not json".to_owned()];
    let saved = GameToResume {
        preset: "rapid",
        black_left: false,
        date: "?",
        lines: &lines,
    };
    assert!(restore(&mut p, 0, saved, Policy::RESTORE).is_err());
    assert!(!p.in_game());
}

#[test]
fn a_bad_stored_line_keeps_every_line_before_it() {
    let mut p = panel();
    let all = opening(&mut p);
    let good = stored(&all);
    let mut lines = good.clone();
    // A second setup line as the fourth: the game up to the third stands.
    lines.insert(3, lines[0].clone());
    let saved = GameToResume {
        preset: "rapid",
        black_left: false,
        date: "?",
        lines: &lines,
    };
    let mut q = panel();
    let done = restore(&mut q, 0, saved, Policy::RESTORE).unwrap();
    assert_eq!(
        done.fault,
        Some(Fault {
            line: 4,
            kind: FaultKind::SetupNotFirst
        })
    );
    assert_eq!(
        done.fault.unwrap().to_string(),
        "line 4: \"setup\" must be the first line"
    );
    // The same as a restore of the first three lines alone.
    let mut r = panel();
    let first_three = GameToResume {
        preset: "rapid",
        black_left: false,
        date: "?",
        lines: &good[..3],
    };
    let again = restore(&mut r, 0, first_three, Policy::RESTORE).unwrap();
    assert_eq!(again.fault, None);
    assert_eq!(done.t, again.t);
    let restored = |s: &mut Session| {
        actions(s)
            .into_iter()
            .filter(|a| matches!(a, Action::Restored(_)))
            .collect::<Vec<_>>()
    };
    assert_eq!(restored(&mut q), restored(&mut r));
    assert!(q.in_game());

    // A bad first line leaves nothing to restore.
    let lines = vec!["{\"t\":0,\"ev\":\"jump\"}".to_owned()];
    let saved = GameToResume {
        preset: "rapid",
        black_left: false,
        date: "?",
        lines: &lines,
    };
    let err = restore(&mut panel(), 0, saved, Policy::RESTORE).unwrap_err();
    assert!(matches!(err, RestoreError::BadLine(Fault { line: 1, .. })));
    assert_eq!(err.to_string(), "stored line 1: unknown event \"jump\"");
}

#[test]
fn a_j_adoube_is_acknowledged_on_the_face_and_one_out_of_turn_says_who_may() {
    let mut p = panel();
    opening(&mut p);
    // Black's clock runs: his announcement is heard.
    press(&mut p, 12_000, Button::Adjust(Color::Black));
    assert_eq!(p.view(12_000).alert.as_deref(), Some("J'adoube: Black"));
    // White's is not his to make, and the face says whose it is, whole.
    press(&mut p, 15_000, Button::Adjust(Color::White));
    assert_eq!(
        p.view(15_000).alert.as_deref(),
        Some("Only Black may adjust")
    );
    // Black's next one replaces the ruling; his move clears it.
    press(&mut p, 18_000, Button::Adjust(Color::Black));
    assert_eq!(p.view(18_000).alert.as_deref(), Some("J'adoube: Black"));
    p.handle(19_000, SessionInput::Board(Input::Lift(Square::B8)));
    p.handle(19_200, SessionInput::Board(Input::Place(Square::C6, None)));
    press(&mut p, 19_400, Button::Lever(Color::Black));
    assert_eq!(p.view(19_400).alert, None);
}

/// What a DGT board's orientation is taken from: the next game's start on
/// the setup screen, the game's pieces as they stand once it is in play
/// (so that a game restored after a restart finds a turned board turned).
#[test]
fn the_board_expected_is_the_start_then_the_game_as_it_stands() {
    let mut p = panel();
    assert_eq!(p.expected_board(), shakmaty::Board::default());
    press(&mut p, 100, Button::Lever(Color::Black));
    assert!(p.in_game());
    p.handle(200, SessionInput::Board(Input::Lift(Square::E2)));
    p.handle(300, SessionInput::Board(Input::Place(Square::E4, None)));
    let expected = p.expected_board();
    assert_eq!(expected.piece_at(Square::E2), None);
    assert_eq!(
        expected.piece_at(Square::E4),
        Some(shakmaty::Piece {
            color: Color::White,
            role: shakmaty::Role::Pawn
        })
    );
}

/// A game from a FEN with Black to move: Black's lever begins it as every
/// game, and Black's clock runs (before, the begin's press was Black's
/// own, which the referee does not take as the start: the game never
/// started).
#[test]
fn a_fen_with_black_to_move_starts_black_s_clock_on_black_s_lever() {
    let mut p = panel();
    let rules = tocada::Rules {
        start: tocada::config::parse_start("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap(),
        ..tocada::Rules::default()
    };
    p.select_rules("fen", rules);
    let all = press(&mut p, 1_000, Button::Lever(Color::Black));
    assert!(matches!(all[0], Action::Begin { .. }), "{all:?}");
    let started = all.iter().any(|a| {
        matches!(
            a,
            Action::Decision(_, Effect::Started { side: Color::Black })
        )
    });
    assert!(started, "{all:?}");
    assert_eq!(p.referee().and_then(|r| r.ticking()), Some(Color::Black));
}

/// The same start from White's lever: on a seesaw (a DGT 3000's levers)
/// Black's lever is down and White's up when Black is to move, and White's
/// press starts Black's clock. In the standard start White's lever says
/// Black's starts, as before.
#[test]
fn a_fen_with_black_to_move_starts_on_white_s_lever_too() {
    let mut p = panel();
    let all = press(&mut p, 500, Button::Lever(Color::White));
    assert!(p.referee().is_none(), "{all:?}");
    let rules = tocada::Rules {
        start: tocada::config::parse_start("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap(),
        ..tocada::Rules::default()
    };
    p.select_rules("fen", rules);
    let all = press(&mut p, 1_000, Button::Lever(Color::White));
    assert!(matches!(all[0], Action::Begin { .. }), "{all:?}");
    assert_eq!(p.referee().and_then(|r| r.ticking()), Some(Color::Black));
}

#[test]
fn the_setup_screen_writes_a_delay_as_a_delay_and_both_sides_times() {
    let config = Config::parse(
        "[[preset]]\nname = \"US\"\ntime_control = \"90m+5s\"\nincrement = \"delay\"\n\
         [[preset]]\nname = \"armageddon\"\ntime_control = \"5m+2s\"\n\
         black_time_control = \"4m+2s\"\ndraw_odds = \"black\"\n\
         [[preset]]\nname = \"classical\"\ntime_control = \"40/90m+30s:30m+30s\"\n",
        "t.toml",
    )
    .unwrap();
    let panel = Session::new(&config);
    match panel.view(0).screen {
        Screen::TimeControlMenu { presets, .. } => assert_eq!(
            presets,
            [
                "US G/90 d5",
                "armageddon W5m+2s B4m+2s",
                "classical 40/90m+30s:30m+30s"
            ]
        ),
        other => panic!("not the setup screen: {other:?}"),
    }
}

#[test]
fn the_setup_screen_and_the_editor_speak_the_players_language() {
    let config = Config::parse(
        "[face]\nlanguage = \"es\"\n\
         [[preset]]\nname = \"armageddon\"\ntime_control = \"5m+2s\"\n\
         black_time_control = \"4m+2s\"\ndraw_odds = \"black\"\n\
         [[preset]]\nname = \"arena\"\ntime_control = \"5m\"\nincrement = \"hourglass\"\n",
        "t.toml",
    )
    .unwrap();
    let mut panel = Session::new(&config);
    match panel.view(0).screen {
        Screen::TimeControlMenu { presets, .. } => assert_eq!(
            presets,
            ["armageddon B5m+2s N4m+2s", "arena reloj de arena 5m"]
        ),
        other => panic!("not the setup screen: {other:?}"),
    }
    press(&mut panel, 100, Button::Menu);
    match panel.view(100).screen {
        Screen::TimeControlEditor { rows, .. } => assert_eq!(
            rows.iter()
                .map(|row| row.text_in(Language::Spanish))
                .collect::<Vec<_>>(),
            [
                "Modo Fischer",
                "Tiempo 5m",
                "Incr. +0s",
                "Jugadas todas",
                "Luego -",
                "Prórr. -",
                "Negras = blancas"
            ]
        ),
        other => panic!("not the editor: {other:?}"),
    }
}

/// Works the editor from the setup screen with `presses` (Menu opens it,
/// the last Menu saves), then starts the game: the rules it begins under,
/// and the presses it took.
fn edited(presses: &[Button]) -> (tocada::Rules, usize) {
    let mut p = panel();
    let mut t = 0;
    for &button in presses {
        t += 200;
        press(&mut p, t, button);
    }
    match p.view(t).screen {
        Screen::TimeControlMenu { presets, selected } => {
            assert!(presets[selected].starts_with("edited "), "{presets:?}")
        }
        other => panic!("the editor did not close: {other:?}"),
    }
    let begun = press(&mut p, t + 200, Button::Lever(Color::Black));
    let rules = begun
        .into_iter()
        .find_map(|action| match action {
            Action::Begin { rules, preset, .. } => {
                assert_eq!(preset, "edited");
                Some(*rules)
            }
            _ => None,
        })
        .expect("the game begins");
    (rules, presses.len())
}

#[test]
fn the_front_panel_sets_the_usual_controls_in_a_few_presses() {
    use Button::{Adjust, Draw, Menu};
    use tocada::GameMode;
    // White sits on the left: his buttons move up and take off, Black's
    // move down and add. The editor opens on Fischer, 5 min, no increment.
    let (next, minus, plus) = (Adjust(Color::Black), Draw(Color::White), Draw(Color::Black));
    let (blitz, presses) = edited(&[Menu, next, minus, minus, next, plus, plus, Menu]);
    assert_eq!(blitz.time_control.to_string(), "180+2");
    assert_eq!(blitz.mode, GameMode::Blitz);
    assert_eq!(presses, 8);
    let (rapid, presses) = edited(&[
        Menu, next, plus, plus, next, plus, plus, plus, plus, plus, Menu,
    ]);
    assert_eq!(rapid.time_control.to_string(), "900+10");
    assert_eq!(rapid.mode, GameMode::Rapid);
    assert_eq!(presses, 11);
    // 40 moves in 90 min, then 30 min, 30 s a move from move 1: the
    // minutes and the increment go down round the end of their lists.
    let (classical, presses) = edited(&[
        Menu, next, minus, minus, minus, minus, minus, minus, next, minus, minus, next, plus, Menu,
    ]);
    assert_eq!(classical.time_control.to_string(), "40/5400+30:1800+30");
    assert_eq!(classical.black_time_control, None);
    assert_eq!(classical.mode, GameMode::Standard);
    assert_eq!(presses, 14);
    // Armageddon's times: White 5 min, Black 4 min, 2 s a move.
    let (armageddon, presses) = edited(&[
        Menu, next, next, plus, plus, next, next, next, plus, plus, plus, plus, Menu,
    ]);
    assert_eq!(armageddon.time_control.to_string(), "300+2");
    assert_eq!(
        armageddon.black_time_control.map(|tc| tc.to_string()),
        Some("240+2".to_owned())
    );
    assert_eq!(presses, 13);
    // 60 min, then byo-yomi: 5 periods of 30 s.
    let (byo_yomi, presses) = edited(&[
        Menu, next, plus, plus, plus, plus, plus, plus, plus, next, next, next, plus, Menu,
    ]);
    assert_eq!(byo_yomi.time_control.to_string(), "3600|5x30");
    assert_eq!(presses, 14);
}

#[test]
fn the_editor_lists_its_rows_and_skips_the_unused() {
    use Button::{Adjust, Menu};
    let mut p = panel();
    press(&mut p, 100, Menu);
    // Up from the first row goes round to the last.
    press(&mut p, 200, Adjust(Color::White));
    assert_eq!(
        p.view(200).screen,
        Screen::TimeControlEditor {
            rows: vec![
                EditorRow::Mode(0),
                EditorRow::Time(5),
                EditorRow::Increment(Some(0)),
                EditorRow::Moves(None),
                EditorRow::Then(None),
                EditorRow::Overtime(None),
                EditorRow::Black(None),
            ],
            selected: 6,
        }
    );
    // Up twice: "Then" means nothing for one period and is skipped.
    press(&mut p, 300, Adjust(Color::White));
    press(&mut p, 400, Adjust(Color::White));
    match p.view(400).screen {
        Screen::TimeControlEditor { selected, .. } => assert_eq!(selected, 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_halls_pairing_is_on_the_setup_screen_and_fixed_in_the_game_that_begins_under_it() {
    use tocada::players::{Player, Players};
    let mut p = panel();
    let pairing = Players {
        round: "3".into(),
        board: 7,
        white: Player {
            name: "Morphy, Paul".into(),
            rating: Some(2690),
            fide_id: Some(1503014),
        },
        black: Player {
            name: "Anderssen, Adolf".into(),
            ..Player::default()
        },
    };
    assert_eq!(p.view(0).alert, None);
    p.set_pairing(Some(pairing.clone()));
    assert!(p.take_changed(), "the face is drawn again");
    assert_eq!(p.view(0).alert.as_deref(), Some("R3 B7 Morphy - Anderssen"));
    let played = opening(&mut p);
    assert_eq!(p.players(), Some(&pairing));
    // A pairing that comes during the game is for the next one.
    let mut next = pairing.clone();
    next.round = "4".into();
    next.white.name = "Staunton, Howard".into();
    p.set_pairing(Some(next.clone()));
    assert_eq!(p.players(), Some(&pairing));
    let pgn = p.pgn().unwrap();
    for tag in [
        r#"[Round "3"]"#,
        r#"[White "Morphy, Paul"]"#,
        r#"[Black "Anderssen, Adolf"]"#,
        r#"[WhiteElo "2690"]"#,
        r#"[WhiteFideId "1503014"]"#,
        r#"[Board "7"]"#,
    ] {
        assert!(pgn.contains(tag), "{tag}: {pgn}");
    }
    assert!(
        !pgn.contains("BlackElo") && !pgn.contains("Staunton"),
        "{pgn}"
    );

    // The game's record names its players, in the line after its setup.
    let lines = stored(&played);
    assert!(
        lines[1].ends_with(
            r#","ev":"players","round":"3","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf","white_elo":2690,"white_fide_id":1503014}"#
        ),
        "{lines:?}"
    );
    let from_lines = tocada::transcript::pgn_from_lines(&lines, Default::default()).unwrap();
    assert!(
        from_lines.contains(r#"[White "Morphy, Paul"]"#),
        "{from_lines}"
    );

    // The power goes, and the round changes meanwhile: the clock comes
    // back with the next round's pairing, yet the restored game keeps the
    // players it began with, and the next game takes the new ones.
    let mut q = panel();
    q.set_pairing(Some(next.clone()));
    restored_as(&mut q, "blitz", &lines);
    assert_eq!(q.players(), Some(&pairing));
    let pgn = q.pgn().unwrap();
    assert!(pgn.contains(r#"[White "Morphy, Paul"]"#), "{pgn}");
    assert!(!pgn.contains("Staunton"), "{pgn}");
}

#[test]
fn a_game_stored_without_players_is_restored_without_them_whatever_the_pairing_now() {
    use tocada::players::{Player, Players};
    // Stored unpaired (or by a tocada that did not store the players):
    // the pairing on the clock when it comes back is not the game's.
    let mut p = panel();
    let played = opening(&mut p);
    let lines = stored(&played);
    assert!(
        lines.iter().all(|l| !l.contains("\"players\"")),
        "{lines:?}"
    );
    let mut q = panel();
    q.set_pairing(Some(Players {
        round: "4".into(),
        board: 7,
        white: Player {
            name: "Staunton, Howard".into(),
            ..Player::default()
        },
        black: Player {
            name: "Löwenthal, Johann".into(),
            ..Player::default()
        },
    }));
    restored_as(&mut q, "blitz", &lines);
    assert_eq!(q.players(), None);
    let pgn = q.pgn().unwrap();
    assert!(
        pgn.contains(r#"[White "?"]"#) && !pgn.contains("Staunton"),
        "{pgn}"
    );
}

#[test]
fn a_players_line_anywhere_but_after_the_setup_stops_the_restore_there() {
    let mut p = panel();
    let played = opening(&mut p);
    let mut lines = stored(&played);
    // At the instant of the line before it: only its place is wrong.
    let t = serde_json::from_str::<serde_json::Value>(&lines[1]).unwrap()["t"].clone();
    let players = format!(
        r#"{{"t":{t},"ev":"players","board":7,"white":"Morphy, Paul","black":"Anderssen, Adolf"}}"#
    );
    lines.insert(2, players);
    let mut q = panel();
    let restored = restored_as(&mut q, "blitz", &lines);
    assert_eq!(
        restored.fault.map(|f| (f.line, f.kind)),
        Some((3, FaultKind::PlayersNotAfterSetup))
    );
    assert_eq!(q.players(), None);
}
