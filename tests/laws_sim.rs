//! The laws profiles through the daemon on the device models (`tocada sim
//! --script`): a `choose` event decides what `tocada replay` decides, and
//! the chooser's panel buttons answer a choice (his adjust button marks
//! the next option, his draw button answers with the marked one).

mod support {
    pub mod cli;
    pub mod sim;
}

use serde_json::{Value, json};
use support::sim::{sim_and_replay, sim_only, untimed};

/// The effects of `script` through `tocada sim --script` (and, when
/// `replay_too`, through `tocada replay`).
fn sim(script: &str, replay_too: bool) -> (Vec<Value>, Vec<Value>) {
    if replay_too {
        sim_and_replay(script)
    } else {
        (sim_only(script), Vec::new())
    }
}

/// 1.e4 d5, then White touches d5 and plays Nf3 (1858, 9ª).
const TOUCHED_D5: &str = r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"touch","sq":"d5"}
{"t":8100,"ev":"untouch","sq":"d5"}
{"t":8500,"ev":"lift","sq":"g1"}
{"t":9000,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
"#;

#[test]
fn a_choose_through_the_daemon_decides_what_replay_decides() {
    let script = format!(
        "{TOUCHED_D5}{}",
        r#"{"t":12000,"ev":"choose","side":"black","option":"take"}
{"t":13000,"ev":"lift","sq":"f3"}
{"t":13500,"ev":"place","sq":"g1"}
{"t":14000,"ev":"lift","sq":"d5"}
{"t":14200,"ev":"lift","sq":"e4"}
{"t":14500,"ev":"place","sq":"d5"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"end"}
"#
    );
    let (sim, bare) = sim(&script, true);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[3..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3"}),
            json!({"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}),
            json!({"effect":"takeback","side":"white","n":2,"san":"Nf3"}),
            json!({"effect":"move","side":"white","n":2,"uci":"e4d5","san":"exd5"}),
        ],
        "{sim:#?}"
    );
}

#[test]
fn the_choosers_buttons_answer_through_the_daemon() {
    // Black's adjust button twice: the mark goes from `take` to `king`;
    // his draw button answers `king`. White's buttons do nothing to it.
    let script = format!(
        "{TOUCHED_D5}{}",
        r#"{"t":11000,"ev":"adjust","side":"black"}
{"t":11200,"ev":"adjust","side":"black"}
{"t":11500,"ev":"draw","side":"black"}
{"t":12000,"ev":"lift","sq":"f3"}
{"t":12500,"ev":"place","sq":"g1"}
{"t":13000,"ev":"lift","sq":"d2"}
{"t":13200,"ev":"place","sq":"d4"}
{"t":13500,"ev":"press","side":"white"}
{"t":14000,"ev":"lift","sq":"d4"}
{"t":14200,"ev":"place","sq":"d2"}
{"t":14500,"ev":"lift","sq":"e1"}
{"t":14700,"ev":"place","sq":"e2"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"end"}
"#
    );
    let (sim, bare) = sim(&script, true);
    // `tocada replay` reads the buttons as the clock does.
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[3..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3"}),
            json!({"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}),
            json!({"effect":"takeback","side":"white","n":2,"san":"Nf3"}),
            json!({"effect":"violation","side":"white","law":"1858.9","detail":"Penalty: move the king"}),
            json!({"effect":"move","side":"white","n":2,"uci":"e1e2","san":"Ke2"}),
        ],
        "{sim:#?}"
    );
}

/// The face while a choice waits: the law and the options, the marked one
/// in brackets; the chooser's adjust button moves the mark, the other
/// player's do not (they act as always), and the chooser's draw button
/// answers.
#[test]
fn the_face_shows_the_choice_and_the_mark() {
    use shakmaty::{Color, Square};
    use tocada::config::Config;
    use tocada::controls::Button;
    use tocada::session::{Session, SessionInput};
    use tocada::{Input, Laws, Rules};

    let mut panel = Session::new(&Config::default());
    panel.select_rules(
        "1858",
        Rules {
            laws: Laws::Regence1858,
            ..Rules::default()
        },
    );
    let press = |panel: &mut Session, at: u64, button: Button| {
        panel.handle(at, SessionInput::Press { button, at });
    };
    let board = |panel: &mut Session, at: u64, input: Input| {
        panel.handle(at, SessionInput::Board(input));
    };
    let sq = |name: &str| name.parse::<Square>().unwrap();
    // Black's lever starts; 1. e4 d5; White touches d5 and plays Nf3.
    press(&mut panel, 1_000, Button::Lever(Color::Black));
    board(&mut panel, 2_000, Input::Lift(sq("e2")));
    board(&mut panel, 2_100, Input::Place(sq("e4"), None));
    press(&mut panel, 2_500, Button::Lever(Color::White));
    board(&mut panel, 3_000, Input::Lift(sq("d7")));
    board(&mut panel, 3_100, Input::Place(sq("d5"), None));
    press(&mut panel, 3_500, Button::Lever(Color::Black));
    board(&mut panel, 4_000, Input::Touch(sq("d5")));
    board(&mut panel, 4_050, Input::Untouch(sq("d5")));
    board(&mut panel, 4_100, Input::Lift(sq("g1")));
    board(&mut panel, 4_200, Input::Place(sq("f3"), None));
    press(&mut panel, 4_500, Button::Lever(Color::White));
    let alert = |panel: &Session| panel.view(5_000).alert;
    assert_eq!(alert(&panel).as_deref(), Some("1858.9 [take] leave king"));
    press(&mut panel, 5_000, Button::Adjust(Color::White));
    assert_eq!(alert(&panel).as_deref(), Some("1858.9 [take] leave king"));
    press(&mut panel, 5_100, Button::Adjust(Color::Black));
    assert_eq!(alert(&panel).as_deref(), Some("1858.9 take [leave] king"));
    press(&mut panel, 5_200, Button::Draw(Color::Black));
    // `leave`: Nf3 stands and no choice is left; what shows is White's
    // adjust button of before, ruled as any adjust out of turn (6.2.5).
    assert_eq!(alert(&panel).as_deref(), Some("Only Black may adjust"));
}

/// `fide-2023-unsupervised` through the daemon: White's false move (Nf3
/// with his king in check) stands without a word, and Black's claim before
/// touching a piece wins, as `tocada replay` decides.
#[test]
fn an_unsupervised_claim_through_the_daemon_decides_what_replay_decides() {
    let script = r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3500,"ev":"place","sq":"e5"}
{"t":4000,"ev":"press","side":"black"}
{"t":5000,"ev":"lift","sq":"d2"}
{"t":5500,"ev":"place","sq":"d4"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"lift","sq":"f8"}
{"t":7500,"ev":"place","sq":"b4"}
{"t":8000,"ev":"press","side":"black"}
{"t":9000,"ev":"lift","sq":"g1"}
{"t":9500,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"claim","side":"black"}
{"t":12000,"ev":"end"}
"#;
    let (sim, bare) = sim(script, true);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let tail: Vec<Value> = untimed(&sim)[sim.len() - 3..].to_vec();
    assert_eq!(
        tail,
        [
            json!({"effect":"move","side":"white","n":3,"uci":"g1f3","san":"Nf3"}),
            json!({"effect":"claim","side":"black","law":"7.5.1","upheld":true}),
            json!({"effect":"result","result":"0-1","reason":"illegal_moves"}),
        ],
        "{sim:#?}"
    );
}

/// 1858, 15ª through the daemon: White plays e4 and Nf3 before pressing;
/// the press records Black's turn as passed, and Black's `undo` takes both
/// back, as `tocada replay` decides.
#[test]
fn a_second_move_undone_through_the_daemon_decides_what_replay_decides() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"lift","sq":"g1"}
{"t":2500,"ev":"place","sq":"f3"}
{"t":3000,"ev":"press","side":"white"}
{"t":5000,"ev":"choose","side":"black","option":"undo"}
{"t":6000,"ev":"lift","sq":"f3"}
{"t":6500,"ev":"place","sq":"g1"}
{"t":7000,"ev":"lift","sq":"e7"}
{"t":7500,"ev":"place","sq":"e5"}
{"t":8000,"ev":"press","side":"black"}
{"t":9000,"ev":"end"}
"#;
    let (sim, bare) = sim(script, true);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[1..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4"}),
            json!({"effect":"move","side":"black","n":1,"uci":"0000","san":"--"}),
            json!({"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3"}),
            json!({"effect":"choice","side":"black","law":"1858.15","options":["undo","keep"]}),
            json!({"effect":"takeback","side":"white","n":2,"san":"Nf3"}),
            json!({"effect":"takeback","side":"black","n":1,"san":"--"}),
            json!({"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5"}),
        ],
        "{sim:#?}"
    );
}

/// 1858, 20ª through the daemon with the chooser's buttons: White's king
/// has left its square and come back (1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4.
/// Ke2 Nf6 5. Ke1 d6), so castling is not allowed; White sets his king and
/// rook down as if castling and presses. Black's adjust button marks
/// `rook`, his draw button answers, and the rook must move.
#[test]
fn the_choosers_buttons_answer_a_castling_not_allowed_through_the_daemon() {
    let moves = [
        ("e2", "e4"),
        ("e7", "e5"),
        ("g1", "f3"),
        ("b8", "c6"),
        ("f1", "c4"),
        ("f8", "c5"),
        ("e1", "e2"),
        ("g8", "f6"),
        ("e2", "e1"),
        ("d7", "d6"),
    ];
    let mut script = String::from(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
"#,
    );
    let mut t = 1_000;
    for (i, (from, to)) in moves.iter().enumerate() {
        let side = if i % 2 == 0 { "white" } else { "black" };
        script += &format!(
            "{{\"t\":{t},\"ev\":\"lift\",\"sq\":\"{from}\"}}\n{{\"t\":{},\"ev\":\"place\",\"sq\":\"{to}\"}}\n{{\"t\":{},\"ev\":\"press\",\"side\":\"{side}\"}}\n",
            t + 300,
            t + 800
        );
        t += 1_000;
    }
    script += r#"{"t":11000,"ev":"lift","sq":"e1"}
{"t":11200,"ev":"place","sq":"g1"}
{"t":11400,"ev":"lift","sq":"h1"}
{"t":11600,"ev":"place","sq":"f1"}
{"t":12000,"ev":"press","side":"white"}
{"t":13000,"ev":"adjust","side":"black"}
{"t":13500,"ev":"draw","side":"black"}
{"t":14000,"ev":"lift","sq":"f1"}
{"t":14100,"ev":"place","sq":"h1"}
{"t":14200,"ev":"lift","sq":"g1"}
{"t":14300,"ev":"place","sq":"e1"}
{"t":15000,"ev":"lift","sq":"e1"}
{"t":15200,"ev":"place","sq":"f1"}
{"t":15500,"ev":"press","side":"white"}
{"t":16000,"ev":"lift","sq":"f1"}
{"t":16200,"ev":"place","sq":"e1"}
{"t":16500,"ev":"lift","sq":"h1"}
{"t":16700,"ev":"place","sq":"g1"}
{"t":17000,"ev":"press","side":"white"}
{"t":18000,"ev":"end"}
"#;
    let (sim, bare) = sim(&script, true);
    // `tocada replay` reads the buttons as the clock does.
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[11..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}),
            json!({"effect":"violation","side":"white","law":"1858.20","detail":"Penalty: move the piece from h1"}),
            json!({"effect":"move","side":"white","n":6,"uci":"h1g1","san":"Rg1"}),
        ],
        "{sim:#?}"
    );
}

/// 1858, 15ª after the press through the daemon: Black's claim that White
/// moved again on his time is upheld as `tocada replay` upholds it.
#[test]
fn a_claim_of_a_second_move_through_the_daemon_decides_what_replay_decides() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":6000,"ev":"lift","sq":"g1"}
{"t":6200,"ev":"place","sq":"f3"}
{"t":7000,"ev":"claim","side":"black"}
{"t":8000,"ev":"lift","sq":"f3"}
{"t":8200,"ev":"place","sq":"g1"}
{"t":9000,"ev":"lift","sq":"e7"}
{"t":9200,"ev":"place","sq":"e5"}
{"t":10000,"ev":"press","side":"black"}
{"t":11000,"ev":"end"}
"#;
    let (sim, bare) = sim(script, true);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[2..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"displaced","side":"black","squares":["g1"]}),
            json!({"effect":"claim","side":"black","law":"1858.15","upheld":true}),
            json!({"effect":"displaced","side":"white","squares":["g1","f3"]}),
            json!({"effect":"restored","side":"white","ms":1200}),
            json!({"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5"}),
        ],
        "{sim:#?}"
    );
}

/// The same claim made with the clock's claim gesture (the claimant's
/// adjust button twice within 600 ms) on the device models.
#[test]
fn the_claim_gesture_claims_a_second_move_through_the_daemon() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":6000,"ev":"lift","sq":"g1"}
{"t":6200,"ev":"place","sq":"f3"}
{"t":7000,"ev":"adjust","side":"black"}
{"t":7200,"ev":"adjust","side":"black"}
{"t":8000,"ev":"lift","sq":"f3"}
{"t":8200,"ev":"place","sq":"g1"}
{"t":11000,"ev":"end"}
"#;
    let (sim, bare) = sim(script, true);
    // `tocada replay` hears the gesture as the clock does (it used to
    // ignore it and charge the offender's setting-right to the claimant).
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let acts: Vec<Value> = untimed(&sim)[2..].to_vec();
    assert_eq!(
        acts,
        [
            json!({"effect":"displaced","side":"black","squares":["g1"]}),
            json!({"effect":"claim","side":"black","law":"1858.15","upheld":true}),
            json!({"effect":"displaced","side":"white","squares":["g1","f3"]}),
            json!({"effect":"restored","side":"white","ms":1000}),
        ],
        "{acts:#?}"
    );
}
