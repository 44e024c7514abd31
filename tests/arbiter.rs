//! The arbiter's powers (issue 11, §3) and article-4 claims (4.8), through
//! `tocada replay`: `waive`, `takeback` and `adjudicate`, honoured while
//! paused, and `claim` in `claim` enforcement; their effects exactly as the
//! replay contract spells them, and their notes in the PGN.

mod support {
    pub mod cli;
    pub mod replay;
}

use std::process::Output;

use tocada::pgn::Tags;
use tocada::transcript::{line_to_json, parse_line, pgn_from_lines};

/// `tocada replay` with `script` on standard input.
fn replay(script: &str) -> Output {
    support::replay::output(script)
}

/// The effects written, one a line; the replay must succeed.
fn effects(script: &str) -> Vec<String> {
    support::replay::effect_lines(script)
}

/// The message of a data error (exit 65).
fn data_error(script: &str) -> String {
    let output = replay(script);
    assert_eq!(output.status.code(), Some(65));
    String::from_utf8(output.stderr).unwrap()
}

/// The PGN of the game `script` makes, its white space collapsed (the
/// movetext wraps at 80 columns).
fn pgn(script: &str) -> String {
    let lines: Vec<String> = script.lines().map(str::to_owned).collect();
    let tags = Tags {
        event: "t".into(),
        site: "?".into(),
        date: "????.??.??".into(),
        round: "-".into(),
        white: "?".into(),
        black: "?".into(),
        time_control: "300+2".into(),
        ..Default::default()
    };
    let pgn = pgn_from_lines(&lines, tags).expect("the lines make a game");
    pgn.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 1. e4 e5 pressed, with a 2 s increment.
const E4_E5: &str = r#"{"t":0,"ev":"setup","time_control":"300+2"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
"#;

#[test]
fn takeback_undoes_the_last_move_with_its_clock_times_and_repeats() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":8000,"ev":"pause"}
{"t":8500,"ev":"takeback"}
{"t":8600,"ev":"takeback"}
{"t":8700,"ev":"takeback"}
{"t":9000,"ev":"lift","sq":"e5"}
{"t":9100,"ev":"place","sq":"e7"}
{"t":9200,"ev":"lift","sq":"e4"}
{"t":9300,"ev":"place","sq":"e2"}
{"t":10000,"ev":"resume"}
{"t":11000,"ev":"lift","sq":"d2"}
{"t":11500,"ev":"place","sq":"d4"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"end"}
"#
    );
    // The third takeback finds no move left: refused, nothing said. White's
    // clock shows its 300 s again and runs from the resume: 5 s used, 2 s
    // added. Black's shows his 300 s, as before his move.
    assert_eq!(
        effects(&script),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}"#,
            r#"{"t":7000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":299000,"black_ms":298000}"#,
            r#"{"t":8000,"effect":"paused"}"#,
            r#"{"t":8500,"effect":"takeback","side":"black","n":1,"san":"e5"}"#,
            r#"{"t":8600,"effect":"takeback","side":"white","n":1,"san":"e4"}"#,
            r#"{"t":10000,"effect":"resumed"}"#,
            r#"{"t":15000,"effect":"move","side":"white","n":1,"uci":"d2d4","san":"d4","white_ms":297000,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn takeback_keeps_the_clock_of_the_turn_it_returns_to() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":8000,"ev":"pause"}
{"t":8500,"ev":"takeback"}
{"t":9000,"ev":"lift","sq":"e5"}
{"t":9100,"ev":"place","sq":"e7"}
{"t":10000,"ev":"resume"}
{"t":11000,"ev":"lift","sq":"c7"}
{"t":11500,"ev":"place","sq":"c5"}
{"t":12000,"ev":"press","side":"black"}
{"t":13000,"ev":"end"}
"#
    );
    // Black's turn again with the 300 s he had when it began: 2 s used,
    // 2 s added; White's as after his press.
    let out = effects(&script);
    assert_eq!(
        out[4..],
        [
            r#"{"t":8500,"effect":"takeback","side":"black","n":1,"san":"e5"}"#,
            r#"{"t":10000,"effect":"resumed"}"#,
            r#"{"t":12000,"effect":"move","side":"black","n":1,"uci":"c7c5","san":"c5","white_ms":299000,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn the_arbiters_acts_are_refused_while_the_clock_runs() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":7500,"ev":"takeback"}
{"t":7600,"ev":"waive"}
{"t":7700,"ev":"adjudicate","result":"1-0","reason":"no"}
{"t":8000,"ev":"end"}
"#
    );
    let out = effects(&script);
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out[2].contains(r#""san":"e5""#));
}

#[test]
fn no_press_counts_until_the_board_shows_the_position_again() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":8000,"ev":"pause"}
{"t":8500,"ev":"takeback"}
{"t":9000,"ev":"resume"}
{"t":9500,"ev":"press","side":"black"}
{"t":10000,"ev":"lift","sq":"e5"}
{"t":10100,"ev":"place","sq":"e7"}
{"t":10500,"ev":"lift","sq":"e7"}
{"t":10600,"ev":"place","sq":"e6"}
{"t":11000,"ev":"press","side":"black"}
{"t":12000,"ev":"end"}
"#
    );
    // The press with e5 still on the board is no illegal move of Black's:
    // the board is being set back. Then e6 is his move: 2 s used from the
    // resume, 2 s added.
    let out = effects(&script);
    assert_eq!(
        out[4..],
        [
            r#"{"t":8500,"effect":"takeback","side":"black","n":1,"san":"e5"}"#,
            r#"{"t":9000,"effect":"resumed"}"#,
            r#"{"t":11000,"effect":"move","side":"black","n":1,"uci":"e7e6","san":"e6","white_ms":299000,"black_ms":300000}"#,
        ]
    );
}

/// White touches the g1 knight, then plays e4 and presses.
const TOUCH_G1_PLAY_E4: &str = r#"{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
"#;

#[test]
fn waive_lifts_a_touch_move_obligation_strict_mode_enforces() {
    let script = format!(
        "{}\n{TOUCH_G1_PLAY_E4}{}",
        r#"{"t":0,"ev":"setup","time_control":"300"}"#,
        r#"{"t":3000,"ev":"pause"}
{"t":3500,"ev":"waive"}
{"t":3600,"ev":"waive"}
{"t":4000,"ev":"resume"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"end"}
"#
    );
    // The second waive finds nothing in force: refused, nothing said.
    assert_eq!(
        effects(&script),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"violation","side":"white","law":"4.3.1","detail":"Touch-move: move the g1 knight"}"#,
            r#"{"t":3000,"effect":"paused"}"#,
            r#"{"t":3500,"effect":"waived","side":"white","law":"4.3.1"}"#,
            r#"{"t":4000,"effect":"resumed"}"#,
            r#"{"t":4500,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":296500,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn waive_before_any_move_frees_the_player_having_the_move() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":1000,"ev":"pause"}
{"t":1100,"ev":"waive"}
{"t":1200,"ev":"resume"}
{"t":2000,"ev":"lift","sq":"e2"}
{"t":2500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"end"}
"#;
    let out = effects(script);
    assert_eq!(
        out[2..],
        [
            r#"{"t":1100,"effect":"waived","side":"white","law":"4.3.1"}"#,
            r#"{"t":1200,"effect":"resumed"}"#,
            r#"{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297200,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn adjudicate_ends_the_game_with_the_arbiters_result_and_words() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":8000,"ev":"pause"}
{"t":9000,"ev":"adjudicate","result":"0-1","reason":"White used a phone"}
{"t":9500,"ev":"takeback"}
{"t":10000,"ev":"end"}
"#
    );
    let out = effects(&script);
    assert_eq!(
        out[3..],
        [
            r#"{"t":8000,"effect":"paused"}"#,
            r#"{"t":9000,"effect":"result","result":"0-1","reason":"adjudicated","detail":"White used a phone"}"#,
        ]
    );
}

#[test]
fn an_adjudicated_draw_stands_under_draw_odds() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","black_time_control":"240","draw_odds":"black"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"pause"}
{"t":2000,"ev":"adjudicate","result":"1/2-1/2","reason":"the hall lost power"}
"#;
    assert_eq!(
        effects(script).last().unwrap(),
        r#"{"t":2000,"effect":"result","result":"1/2-1/2","reason":"adjudicated","detail":"the hall lost power"}"#
    );
}

#[test]
fn adjudicate_needs_a_result_and_a_reason() {
    let head = r#"{"t":0,"ev":"setup"}"#;
    assert!(
        data_error(&format!(
            "{head}\n{}\n",
            r#"{"t":1,"ev":"adjudicate","result":"2-0","reason":"x"}"#
        ))
        .contains("bad result \"2-0\"")
    );
    assert!(
        data_error(&format!(
            "{head}\n{}\n",
            r#"{"t":1,"ev":"adjudicate","result":"1-0"}"#
        ))
        .contains("\"adjudicate\" needs field \"reason\"")
    );
    let long = "x".repeat(81);
    assert!(
        data_error(&format!(
            "{head}\n{{\"t\":1,\"ev\":\"adjudicate\",\"result\":\"1-0\",\"reason\":\"{long}\"}}\n"
        ))
        .contains("at most 80 bytes")
    );
    assert!(
        data_error(&format!(
            "{head}\n{}\n",
            r#"{"t":1,"ev":"takeback","side":"white"}"#
        ))
        .contains("field \"side\" does not belong to \"takeback\"")
    );
}

#[test]
fn the_new_events_are_written_as_they_are_read() {
    for line in [
        r#"{"t":5,"ev":"waive"}"#,
        r#"{"t":6,"ev":"takeback"}"#,
        r#"{"t":7,"ev":"adjudicate","result":"1/2-1/2","reason":"Both flags, no score: ½-½"}"#,
        r#"{"t":8,"ev":"claim","side":"black"}"#,
    ] {
        let parsed = parse_line(line).unwrap().unwrap();
        assert_eq!(line_to_json(&parsed), line);
    }
}

#[test]
fn the_pgn_has_no_taken_back_move_and_notes_every_act() {
    let script = format!(
        "{E4_E5}{}",
        r#"{"t":8000,"ev":"pause"}
{"t":8500,"ev":"takeback"}
{"t":9000,"ev":"lift","sq":"e5"}
{"t":9100,"ev":"place","sq":"e7"}
{"t":9500,"ev":"adjudicate","result":"1-0","reason":"Black left the hall"}
"#
    );
    let pgn = pgn(&script);
    assert!(pgn.contains("1. e4 {[%clk 0:04:59]}"), "{pgn}");
    assert!(!pgn.contains("e5 {"), "{pgn}");
    assert!(pgn.contains("Black move 1... e5 taken back"), "{pgn}");
    assert!(
        pgn.contains("Adjudicated by the arbiter: Black left the hall"),
        "{pgn}"
    );
    assert!(pgn.contains("[Termination \"adjudication\"]"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
}

#[test]
fn claim_4_8_upheld_takes_the_move_back_and_imposes_the_obligation() {
    let script = format!(
        "{}\n{TOUCH_G1_PLAY_E4}{}",
        r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}"#,
        r#"{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"lift","sq":"e4"}
{"t":3600,"ev":"place","sq":"e2"}
{"t":4000,"ev":"lift","sq":"d2"}
{"t":4100,"ev":"place","sq":"d4"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"lift","sq":"d4"}
{"t":5100,"ev":"place","sq":"d2"}
{"t":5500,"ev":"lift","sq":"g1"}
{"t":5600,"ev":"place","sq":"f3"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"end"}
"#
    );
    // Upheld: e4 is taken back, White's clock shows his 300 s again and
    // runs; d4 is refused (the obligation is now enforced); Nf3 stands.
    assert_eq!(
        effects(&script),
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"violation","side":"white","law":"4.3.1","detail":"Touch-move: move the g1 knight"}"#,
            r#"{"t":2000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":298000,"black_ms":300000}"#,
            r#"{"t":3000,"effect":"claim","side":"black","law":"4.3.1","upheld":true}"#,
            r#"{"t":3000,"effect":"takeback","side":"white","n":1,"san":"e4"}"#,
            r#"{"t":4500,"effect":"violation","side":"white","law":"4.3.1","detail":"Touch-move: move the g1 knight"}"#,
            r#"{"t":6000,"effect":"move","side":"white","n":1,"uci":"g1f3","san":"Nf3","white_ms":297000,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn claim_4_8_lapses_once_the_claimant_touches_a_piece() {
    let script = format!(
        "{}\n{TOUCH_G1_PLAY_E4}{}",
        r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}"#,
        r#"{"t":2500,"ev":"touch","sq":"e7"}
{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"end"}
"#
    );
    assert_eq!(
        effects(&script).last().unwrap(),
        r#"{"t":3000,"effect":"claim","side":"black","law":"4.8","upheld":false}"#
    );
}

#[test]
fn a_claim_without_a_breach_fails_and_is_noted() {
    // No breach to claim: e4 was made properly. In strict mode nothing
    // breaking article 4 ever stands, so a claim there fails too.
    for enforcement in ["claim", "strict"] {
        let script = format!(
            "{{\"t\":0,\"ev\":\"setup\",\"time_control\":\"300\",\"enforcement\":\"{enforcement}\"}}\n{}",
            r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"claim","side":"black"}
{"t":3100,"ev":"claim","side":"white"}
{"t":3500,"ev":"end"}
"#
        );
        let out = effects(&script);
        assert_eq!(
            out[2..],
            [
                r#"{"t":3000,"effect":"claim","side":"black","law":"4.8","upheld":false}"#,
                r#"{"t":3100,"effect":"claim","side":"white","law":"4.8","upheld":false}"#,
            ],
            "{enforcement}"
        );
    }
}

#[test]
fn a_claim_is_only_the_offenders_opponents() {
    let script = format!(
        "{}\n{TOUCH_G1_PLAY_E4}{}",
        r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}"#,
        r#"{"t":3000,"ev":"claim","side":"white"}
{"t":3100,"ev":"claim","side":"black"}
{"t":3500,"ev":"end"}
"#
    );
    let out = effects(&script);
    assert_eq!(
        out[3..5],
        [
            r#"{"t":3000,"effect":"claim","side":"white","law":"4.8","upheld":false}"#,
            r#"{"t":3100,"effect":"claim","side":"black","law":"4.3.1","upheld":true}"#,
        ]
    );
}

#[test]
fn the_pgn_notes_a_claim_and_leaves_out_the_move_it_undid() {
    let script = format!(
        "{}\n{TOUCH_G1_PLAY_E4}{}",
        r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}"#,
        r#"{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"lift","sq":"e4"}
{"t":3600,"ev":"place","sq":"e2"}
{"t":5500,"ev":"lift","sq":"g1"}
{"t":5600,"ev":"place","sq":"f3"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"resign","side":"black"}
"#
    );
    let pgn = pgn(&script);
    assert!(
        pgn.contains("Black claims a breach of art. 4.3.1: upheld"),
        "{pgn}"
    );
    assert!(!pgn.contains("e4 {"), "{pgn}");
    assert!(pgn.contains("1. Nf3"), "{pgn}");
}

#[test]
fn takeback_of_a_stages_last_move_takes_back_its_stage_time() {
    let script = r#"{"t":0,"ev":"setup","time_control":"2/60:30"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1200,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3200,"ev":"place","sq":"e5"}
{"t":4000,"ev":"press","side":"black"}
{"t":5000,"ev":"lift","sq":"g1"}
{"t":5200,"ev":"place","sq":"f3"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"pause"}
{"t":7500,"ev":"takeback"}
{"t":7600,"ev":"lift","sq":"f3"}
{"t":7700,"ev":"place","sq":"g1"}
{"t":8000,"ev":"resume"}
{"t":8500,"ev":"lift","sq":"b1"}
{"t":8700,"ev":"place","sq":"c3"}
{"t":9000,"ev":"press","side":"white"}
{"t":9500,"ev":"end"}
"#;
    // Nf3 completed the first stage (+30 s); taken back, White is in it
    // again with the 58 s he had, and Nc3 earns the stage time anew.
    let out = effects(script);
    assert_eq!(
        out[3..],
        [
            r#"{"t":6000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":86000,"black_ms":58000}"#,
            r#"{"t":7000,"effect":"paused"}"#,
            r#"{"t":7500,"effect":"takeback","side":"white","n":2,"san":"Nf3"}"#,
            r#"{"t":8000,"effect":"resumed"}"#,
            r#"{"t":9000,"effect":"move","side":"white","n":2,"uci":"b1c3","san":"Nc3","white_ms":87000,"black_ms":58000}"#,
        ]
    );
}

#[test]
fn claim_4_8_of_a_released_piece_puts_it_back_on_its_square() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"g1"}
{"t":1200,"ev":"place","sq":"f3"}
{"t":1400,"ev":"lift","sq":"f3"}
{"t":1600,"ev":"place","sq":"h3"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"lift","sq":"h3"}
{"t":3600,"ev":"place","sq":"g1"}
{"t":4000,"ev":"lift","sq":"g1"}
{"t":4100,"ev":"place","sq":"h3"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"lift","sq":"h3"}
{"t":5100,"ev":"place","sq":"f3"}
{"t":5500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#;
    assert_eq!(
        effects(script)[1..],
        [
            r#"{"t":2000,"effect":"violation","side":"white","law":"4.7","detail":"Released piece: the g1 knight stays on f3"}"#,
            r#"{"t":2000,"effect":"move","side":"white","n":1,"uci":"g1h3","san":"Nh3","white_ms":298000,"black_ms":300000}"#,
            r#"{"t":3000,"effect":"claim","side":"black","law":"4.7","upheld":true}"#,
            r#"{"t":3000,"effect":"takeback","side":"white","n":1,"san":"Nh3"}"#,
            r#"{"t":4500,"effect":"violation","side":"white","law":"4.7","detail":"Released piece: the g1 knight stays on f3"}"#,
            r#"{"t":5500,"effect":"move","side":"white","n":1,"uci":"g1f3","san":"Nf3","white_ms":297500,"black_ms":300000}"#,
        ]
    );
}

#[test]
fn the_pgn_notes_a_waive() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"pause"}
{"t":3500,"ev":"waive"}
{"t":4000,"ev":"resume"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"resign","side":"black"}
"#;
    let pgn = pgn(script);
    assert!(
        pgn.contains("{Arbiter waives White's obligation (art. 4.3.1)}"),
        "{pgn}"
    );
    assert!(pgn.contains("1. e4 {[%clk 0:04:56]}"), "{pgn}");
}
