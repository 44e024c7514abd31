//! Promotion from the clock (4.4.4, issue 11 section 2): on a board that
//! does not identify pieces, while a pawn of the player whose clock runs is
//! off the board with its promotion square empty, or stands on the last
//! rank not yet pressed, the face offers Q R B N and his adjust button
//! chooses, through the session as the daemon and the simulator drive it.

mod support {
    pub mod cli;
}

use shakmaty::{Color, Square};
use support::cli::tocada;
use tocada::config::Config;
use tocada::controls::Button;
use tocada::session::{Action, GameToResume, Session, SessionInput};
use tocada::transcript::{Policy, restore};
use tocada::{Effect, Input};

/// A session with White's e7 pawn about to promote, White's clock running.
fn about_to_promote(fen: &str) -> Session {
    let mut panel = Session::new(&Config::default());
    let lines = [
        format!(r#"{{"t":0,"ev":"setup","fen":"{fen}"}}"#),
        r#"{"t":0,"ev":"press","side":"black"}"#.to_owned(),
    ];
    restore(
        &mut panel,
        0,
        GameToResume {
            preset: "standard",
            black_left: false,
            date: "2026.01.01",
            lines: &lines,
        },
        Policy::RESTORE,
    )
    .unwrap();
    // A restored game comes back paused: a lever resumes it.
    panel.handle(
        1_000,
        SessionInput::Press {
            button: Button::Lever(Color::White),
            at: 1_000,
        },
    );
    drain(&mut panel);
    assert_eq!(panel.referee().unwrap().ticking(), Some(Color::White));
    panel
}

fn drain(panel: &mut Session) -> Vec<Action> {
    std::iter::from_fn(|| panel.poll_action()).collect()
}

fn alert(panel: &Session, now: u64) -> Option<String> {
    panel.view(now).alert
}

fn completed(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Decision(_, Effect::Move(m)) => Some(m.uci.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn art_4_4_4_the_adjust_button_chooses_the_promotion_piece_before_the_press() {
    let mut panel = about_to_promote("k7/4P3/8/8/8/8/P7/4K3 w - - 0 1");
    assert_eq!(alert(&panel, 1_500), None, "nothing to choose yet");
    // The pawn off the board, e8 empty: the choice is offered, a queen first.
    panel.handle(2_000, SessionInput::Board(Input::Lift(Square::E7)));
    assert_eq!(alert(&panel, 2_000).as_deref(), Some("Promote [Q] R B N"));
    panel.handle(
        2_200,
        SessionInput::Press {
            button: Button::Adjust(Color::White),
            at: 2_200,
        },
    );
    assert_eq!(alert(&panel, 2_200).as_deref(), Some("Promote Q [R] B N"));
    // The piece put down: still his to choose until the press.
    panel.handle(2_500, SessionInput::Board(Input::Place(Square::E8, None)));
    assert_eq!(alert(&panel, 2_500).as_deref(), Some("Promote Q [R] B N"));
    panel.handle(
        2_800,
        SessionInput::Press {
            button: Button::Adjust(Color::White),
            at: 2_800,
        },
    );
    assert_eq!(alert(&panel, 2_800).as_deref(), Some("Promote Q R [B] N"));
    // The opponent's adjust button chooses nothing: it is his adjust,
    // a warning while the other clock runs.
    panel.handle(
        2_900,
        SessionInput::Press {
            button: Button::Adjust(Color::Black),
            at: 2_900,
        },
    );
    assert_eq!(alert(&panel, 2_900).as_deref(), Some("Promote Q R [B] N"));
    let recorded = drain(&mut panel);
    let adjusts = recorded
        .iter()
        .filter(|a| {
            matches!(
                a,
                Action::Record {
                    event: tocada::daemon::Recorded::Input(Input::Adjust(Color::White)),
                    ..
                }
            )
        })
        .count();
    assert_eq!(
        adjusts, 2,
        "stored, so the game replays to it: {recorded:?}"
    );
    panel.handle(
        3_200,
        SessionInput::Press {
            button: Button::Lever(Color::White),
            at: 3_200,
        },
    );
    assert_eq!(completed(&drain(&mut panel)), ["e7e8b"]);
    assert!(!alert(&panel, 3_300).is_some_and(|a| a.starts_with("Promote")));
}

#[test]
fn art_4_4_4_with_no_choice_made_the_pawn_becomes_a_queen() {
    let mut panel = about_to_promote("k7/4P3/8/8/8/8/P7/4K3 w - - 0 1");
    panel.handle(2_000, SessionInput::Board(Input::Lift(Square::E7)));
    panel.handle(2_300, SessionInput::Board(Input::Place(Square::E8, None)));
    panel.handle(
        2_800,
        SessionInput::Press {
            button: Button::Lever(Color::White),
            at: 2_800,
        },
    );
    assert_eq!(completed(&drain(&mut panel)), ["e7e8q"]);
    // Near miss: with no pawn about to promote the adjust button adjusts.
    let mut panel = about_to_promote("k7/4P3/8/8/8/8/P7/4K3 w - - 0 1");
    panel.handle(
        2_000,
        SessionInput::Press {
            button: Button::Adjust(Color::White),
            at: 2_000,
        },
    );
    let actions = drain(&mut panel);
    assert!(actions.iter().any(|a| matches!(
        a,
        Action::Record {
            event: tocada::daemon::Recorded::Input(Input::Adjust(Color::White)),
            ..
        }
    )));
}

/// The game 1.e4 d5 2.exd5 c6 3.dxc6 Nf6 4.cxb7 Nbd7, then 5.bxa8 with
/// White's adjust button pressed three times while the pawn is off the board.
fn underpromotion_script() -> String {
    let moves: [(&str, &[&str], &str); 8] = [
        ("white", &["e2"], "e4"),
        ("black", &["d7"], "d5"),
        ("white", &["d5", "e4"], "d5"),
        ("black", &["c7"], "c6"),
        ("white", &["c6", "d5"], "c6"),
        ("black", &["g8"], "f6"),
        ("white", &["b7", "c6"], "b7"),
        ("black", &["b8"], "d7"),
    ];
    let mut lines = vec![r#"{"t":0,"ev":"press","side":"black"}"#.to_owned()];
    let mut t = 3_000;
    for (side, lifts, to) in moves {
        for (i, sq) in lifts.iter().enumerate() {
            lines.push(format!(
                r#"{{"t":{},"ev":"lift","sq":"{sq}"}}"#,
                t + 100 * i
            ));
        }
        lines.push(format!(r#"{{"t":{},"ev":"place","sq":"{to}"}}"#, t + 300));
        lines.push(format!(
            r#"{{"t":{},"ev":"press","side":"{side}"}}"#,
            t + 600
        ));
        t += 3_000;
    }
    lines.push(format!(r#"{{"t":{t},"ev":"lift","sq":"a8"}}"#));
    lines.push(format!(r#"{{"t":{},"ev":"lift","sq":"b7"}}"#, t + 200));
    for k in 0..3 {
        lines.push(format!(
            r#"{{"t":{},"ev":"adjust","side":"white"}}"#,
            t + 400 + 200 * k
        ));
    }
    lines.push(format!(r#"{{"t":{},"ev":"place","sq":"a8"}}"#, t + 1_200));
    lines.push(format!(
        r#"{{"t":{},"ev":"press","side":"white"}}"#,
        t + 1_500
    ));
    lines.push(format!(r#"{{"t":{},"ev":"end"}}"#, t + 3_000));
    lines.join("\n") + "\n"
}

/// The moves `tocada <command> <script>` completed, in UCI.
fn moves_of(command: &str, script: &std::path::Path) -> Vec<String> {
    let output = tocada()
        .args([command])
        .args(if command == "sim" {
            &["--script"][..]
        } else {
            &[][..]
        })
        .arg(script)
        .output()
        .expect("tocada runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["effect"] == "move")
        .map(|e| e["uci"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn art_4_4_4_underpromotion_on_the_buttons_in_the_simulator_and_in_replay() {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("promotion_from_the_clock.jsonl");
    std::fs::write(&path, underpromotion_script()).unwrap();
    // Through the device models' buttons, the daemon's loop and session.
    let sim = moves_of("sim", &path);
    assert_eq!(sim.last().map(String::as_str), Some("b7a8n"), "{sim:?}");
    assert_eq!(sim.len(), 9);
    // And the bare referee decides the same.
    assert_eq!(moves_of("replay", &path), sim);
}

#[test]
fn art_4_4_4_quick_presses_choose_the_piece_and_are_no_claim_under_4_8() {
    let mut panel = about_to_promote("k7/4P3/8/8/8/8/P7/4K3 w - - 0 1");
    panel.handle(2_000, SessionInput::Board(Input::Lift(Square::E7)));
    // Twice within the claim gesture's 600 ms, while the piece is chosen.
    for at in [2_100, 2_200] {
        panel.handle(
            at,
            SessionInput::Press {
                button: Button::Adjust(Color::White),
                at,
            },
        );
    }
    assert_eq!(alert(&panel, 2_200).as_deref(), Some("Promote Q R [B] N"));
    let actions = drain(&mut panel);
    assert!(
        !actions
            .iter()
            .any(|a| matches!(a, Action::Decision(_, Effect::Claim { .. }))),
        "{actions:?}"
    );
}
