//! Hands, touches and presses as the Laws see them (issue 11, section 1):
//! promotion in any order (4.4.4, 4.6, 4.7), game-ending moves under
//! article 4 (5.1.1, 5.2.1), knocks and displaced pieces (4.3, 7.4), who
//! may adjust (6.2.5), whose release times a press (6.2.3), and a palm on
//! both levers (7.5.3). Each case is a `tocada replay` script, judged by
//! the effects it writes.

mod support {
    pub mod cli;
    pub mod replay;
}

use serde_json::Value;

/// The effects `tocada replay` writes for `script`.
fn replay(script: &str) -> Vec<Value> {
    support::replay::effects(script)
}

/// The effects named `name`.
fn named<'a>(effects: &'a [Value], name: &str) -> Vec<&'a Value> {
    effects.iter().filter(|e| e["effect"] == name).collect()
}

/// The completed moves, in UCI.
fn moves(effects: &[Value]) -> Vec<String> {
    named(effects, "move")
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_owned())
        .collect()
}

/// The articles of the violations and warnings, in order.
fn rulings(effects: &[Value]) -> Vec<(String, String)> {
    effects
        .iter()
        .filter(|e| e["effect"] == "violation" || e["effect"] == "warning")
        .map(|e| {
            (
                e["effect"].as_str().unwrap().to_owned(),
                e["law"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn penalties(effects: &[Value]) -> Vec<&Value> {
    named(effects, "time_added")
        .into_iter()
        .filter(|e| e["law"] == "7.5.5")
        .collect()
}

const PROMOTION: &str = r#"{"t":0,"ev":"setup","fen":"k7/4P3/8/8/8/8/8/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
"#;

#[test]
fn art_4_6_promotion_new_piece_placed_before_pawn_removed() {
    // Outside and inside the knock window of the opponent's press, with and
    // without the board identifying the new piece.
    for (t, piece) in [(5_000, ""), (1_000, ""), (5_000, r#","piece":"Q""#)] {
        let script = format!(
            r#"{PROMOTION}{{"t":{t},"ev":"place","sq":"e8"{piece}}}
{{"t":{},"ev":"lift","sq":"e7"}}
{{"t":{},"ev":"press","side":"white"}}
{{"t":{},"ev":"end"}}
"#,
            t + 300,
            t + 800,
            t + 2_000
        );
        let effects = replay(&script);
        assert_eq!(moves(&effects), ["e7e8q"], "{script}\n{effects:?}");
        assert_eq!(rulings(&effects), [], "{effects:?}");
        assert_eq!(named(&effects, "displaced"), [] as [&Value; 0]);
        assert_eq!(effects.last().unwrap()["effect"], "move");
    }
}

#[test]
fn art_4_6_capturing_promotion_new_piece_placed_before_pawn_removed() {
    let effects = replay(
        r#"{"t":0,"ev":"setup","fen":"k2r4/4P3/8/8/8/8/8/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":5000,"ev":"lift","sq":"d8"}
{"t":5300,"ev":"place","sq":"d8","piece":"N"}
{"t":5600,"ev":"lift","sq":"e7"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e7d8n"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
}

#[test]
fn art_4_4_4_promotion_choice_on_the_clock_counts_until_the_press() {
    let effects = replay(&format!(
        r#"{PROMOTION}{{"t":5000,"ev":"lift","sq":"e7"}}
{{"t":5300,"ev":"place","sq":"e8"}}
{{"t":5600,"ev":"promote","piece":"r"}}
{{"t":5900,"ev":"promote","piece":"n"}}
{{"t":6200,"ev":"press","side":"white"}}
{{"t":7000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["e7e8n"], "{effects:?}");
    // Near miss: after the press the choice is the next promotion's, not
    // this one's.
    let effects = replay(&format!(
        r#"{PROMOTION}{{"t":5000,"ev":"lift","sq":"e7"}}
{{"t":5300,"ev":"place","sq":"e8"}}
{{"t":5600,"ev":"press","side":"white"}}
{{"t":5900,"ev":"promote","piece":"n"}}
{{"t":7000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["e7e8q"], "{effects:?}");
}

#[test]
fn art_4_4_4_a_board_that_identifies_the_piece_overrules_the_clock() {
    let effects = replay(&format!(
        r#"{PROMOTION}{{"t":5000,"ev":"lift","sq":"e7"}}
{{"t":5300,"ev":"place","sq":"e8","piece":"Q"}}
{{"t":5600,"ev":"promote","piece":"n"}}
{{"t":6200,"ev":"press","side":"white"}}
{{"t":7000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["e7e8q"], "{effects:?}");
}

const BACK_RANK: &str = r#"{"t":0,"ev":"setup","fen":"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
"#;

#[test]
fn art_5_1_1_mate_with_another_piece_than_the_touched_one_does_not_end_the_game() {
    let effects = replay(&format!(
        r#"{BACK_RANK}{{"t":5000,"ev":"touch","sq":"g1"}}
{{"t":5300,"ev":"lift","sq":"a1"}}
{{"t":5600,"ev":"place","sq":"a8"}}
{{"t":6000,"ev":"press","side":"white"}}
{{"t":7000,"ev":"lift","sq":"a8"}}
{{"t":7300,"ev":"place","sq":"a1"}}
{{"t":8000,"ev":"lift","sq":"g1"}}
{{"t":8300,"ev":"place","sq":"h2"}}
{{"t":8600,"ev":"press","side":"white"}}
{{"t":9000,"ev":"end"}}
"#
    ));
    assert_eq!(named(&effects, "result"), [] as [&Value; 0], "{effects:?}");
    assert_eq!(rulings(&effects), [("violation".into(), "4.3.1".into())]);
    assert_eq!(moves(&effects), ["g1h2"]);
    // Near miss: the same mate with nothing touched before ends the game.
    let effects = replay(&format!(
        r#"{BACK_RANK}{{"t":5300,"ev":"lift","sq":"a1"}}
{{"t":5600,"ev":"place","sq":"a8"}}
{{"t":9000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["a1a8"]);
    assert_eq!(named(&effects, "result")[0]["reason"], "checkmate");
}

#[test]
fn art_5_1_1_mate_by_a_piece_moved_on_after_its_release_does_not_end_the_game() {
    let effects = replay(&format!(
        r#"{BACK_RANK}{{"t":5000,"ev":"lift","sq":"a1"}}
{{"t":5300,"ev":"place","sq":"a7"}}
{{"t":5600,"ev":"lift","sq":"a7"}}
{{"t":5900,"ev":"place","sq":"a8"}}
{{"t":6300,"ev":"press","side":"white"}}
{{"t":9000,"ev":"end"}}
"#
    ));
    assert_eq!(named(&effects, "result"), [] as [&Value; 0], "{effects:?}");
    assert_eq!(rulings(&effects), [("violation".into(), "4.7".into())]);
    // In record mode the press completes it, and then it ends the game.
    let effects = replay(
        r#"{"t":0,"ev":"setup","fen":"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1","enforcement":"record"}
{"t":0,"ev":"press","side":"black"}
{"t":5000,"ev":"lift","sq":"a1"}
{"t":5300,"ev":"place","sq":"a7"}
{"t":5600,"ev":"lift","sq":"a7"}
{"t":5900,"ev":"place","sq":"a8"}
{"t":6300,"ev":"press","side":"white"}
{"t":9000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["a1a8"], "{effects:?}");
    assert_eq!(named(&effects, "result")[0]["reason"], "checkmate");
    assert_eq!(named(&effects, "result")[0]["t"], 6300);
}

/// White's d4 pawn, which Black's e5 pawn can take, after 1.d4 pressed at 1500.
const KNOCK: &str = r#"{"t":0,"ev":"setup","fen":"4k3/8/8/4p3/8/8/3P4/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"d2"}
{"t":1200,"ev":"place","sq":"d4"}
{"t":1500,"ev":"press","side":"white"}
"#;

#[test]
fn art_4_3_2_a_piece_the_presser_knocks_off_is_not_the_opponents_touch() {
    let effects = replay(&format!(
        r#"{KNOCK}{{"t":2000,"ev":"lift","sq":"d4"}}
{{"t":2600,"ev":"place","sq":"d4"}}
{{"t":4000,"ev":"lift","sq":"e8"}}
{{"t":4300,"ev":"place","sq":"e7"}}
{{"t":4600,"ev":"press","side":"black"}}
{{"t":5000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["d2d4", "e8e7"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
    // 7.4.1: White's displacement, on White's time: the 600 ms Black's
    // clock ran while the pawn was off go back to Black.
    let restored = named(&effects, "restored");
    assert_eq!(restored.len(), 1, "{effects:?}");
    assert_eq!(
        (&restored[0]["side"], &restored[0]["ms"]),
        (&"white".into(), &600.into())
    );
    let back = named(&effects, "time_added");
    assert_eq!(back.len(), 1);
    assert_eq!(
        (&back[0]["side"], &back[0]["ms"], &back[0]["law"]),
        (&"black".into(), &600.into(), &"7.4.1".into())
    );
    // Near miss: the opponent's own lift of the pawn after the window is his touch.
    let effects = replay(&format!(
        r#"{KNOCK}{{"t":4000,"ev":"lift","sq":"d4"}}
{{"t":4300,"ev":"place","sq":"d4"}}
{{"t":4500,"ev":"lift","sq":"e8"}}
{{"t":4800,"ev":"place","sq":"e7"}}
{{"t":5100,"ev":"press","side":"black"}}
{{"t":6000,"ev":"end"}}
"#
    ));
    assert_eq!(rulings(&effects), [("violation".into(), "4.3.2".into())]);
}

#[test]
fn art_4_3_2_a_capture_begun_inside_the_knock_window_is_the_movers() {
    // Black takes the d4 pawn right after White's press, captured pawn first.
    let effects = replay(&format!(
        r#"{KNOCK}{{"t":1800,"ev":"lift","sq":"d4"}}
{{"t":2200,"ev":"lift","sq":"e5"}}
{{"t":2500,"ev":"place","sq":"d4"}}
{{"t":2800,"ev":"press","side":"black"}}
{{"t":5000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["d2d4", "e5d4"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
    assert_eq!(named(&effects, "displaced"), [] as [&Value; 0]);
}

#[test]
fn art_7_4_1_a_move_attempt_inside_the_knock_window_is_the_movers_time() {
    // Right after White's press Black lifts the a2 pawn, which nothing of
    // his can take, and puts his rook there: his illegal move, on his time.
    let effects = replay(
        r#"{"t":0,"ev":"setup","fen":"4k2r/8/8/8/8/8/P7/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"d1"}
{"t":1500,"ev":"press","side":"white"}
{"t":2000,"ev":"lift","sq":"a2"}
{"t":5000,"ev":"lift","sq":"h8"}
{"t":5300,"ev":"place","sq":"a2"}
{"t":6000,"ev":"end"}
"#,
    );
    let given_back: Vec<_> = named(&effects, "time_added")
        .into_iter()
        .filter(|e| e["law"] == "7.4.1")
        .collect();
    assert_eq!(given_back.len(), 1, "{effects:?}");
    assert_eq!(given_back[0]["side"], "white");
    assert_eq!(given_back[0]["ms"], 3_300);
}

#[test]
fn art_7_4_1_the_opponent_of_the_knocker_may_move_and_press() {
    // White knocks his own h2 pawn off right after pressing; Black moves
    // and presses while White restores it.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1200,"ev":"place","sq":"e4"}
{"t":1500,"ev":"press","side":"white"}
{"t":2000,"ev":"lift","sq":"h2"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3300,"ev":"place","sq":"e5"}
{"t":3600,"ev":"press","side":"black"}
{"t":6000,"ev":"place","sq":"h2"}
{"t":7000,"ev":"lift","sq":"g1"}
{"t":7300,"ev":"place","sq":"f3"}
{"t":7600,"ev":"press","side":"white"}
{"t":8000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e2e4", "e7e5", "g1f3"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
    assert_eq!(penalties(&effects), [] as [&Value; 0]);
    let restored = named(&effects, "restored");
    assert_eq!(restored.len(), 1);
    assert_eq!(restored[0]["side"], "white");
    assert_eq!(restored[0]["ms"], 4_000);
}

#[test]
fn art_7_4_displaced_pieces_at_a_press_are_no_illegal_move() {
    // White knocks the a7 pawn off long after Black's press, moves, and
    // presses twice before restoring it: no penalty, no second illegal move.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":2500,"ev":"lift","sq":"a7"}
{"t":3000,"ev":"lift","sq":"e2"}
{"t":3300,"ev":"place","sq":"e4"}
{"t":4000,"ev":"press","side":"white"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"place","sq":"a7"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"end"}
"#,
    );
    assert_eq!(
        rulings(&effects),
        [
            ("violation".into(), "7.4.1".into()),
            ("violation".into(), "7.4.1".into())
        ],
        "{effects:?}"
    );
    assert_eq!(penalties(&effects), [] as [&Value; 0]);
    assert_eq!(named(&effects, "result"), [] as [&Value; 0]);
    assert_eq!(moves(&effects), ["e2e4"]);
}

#[test]
fn art_6_2_5_only_the_player_whose_clock_runs_may_adjust() {
    // White has moved and not pressed: his clock runs. Black's adjust is a
    // warning and excuses nothing; White's is allowed.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1200,"ev":"place","sq":"e4"}
{"t":1500,"ev":"adjust","side":"black"}
{"t":1600,"ev":"touch","sq":"g8"}
{"t":1800,"ev":"adjust","side":"white"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3300,"ev":"place","sq":"e5"}
{"t":3600,"ev":"press","side":"black"}
{"t":4000,"ev":"end"}
"#,
    );
    assert_eq!(
        rulings(&effects),
        [
            ("warning".into(), "4.2.1".into()),
            ("violation".into(), "4.3.1".into())
        ],
        "{effects:?}"
    );
    assert_eq!(
        effects.iter().find(|e| e["effect"] == "warning").unwrap()["side"],
        "black"
    );
}

#[test]
fn art_6_2_3_the_press_is_timed_from_the_pressers_own_release() {
    // Black puts his own piece down 50 ms before White presses, 900 ms
    // after White's release: no 6.2.3 for White.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1100,"ev":"place","sq":"e4"}
{"t":1500,"ev":"lift","sq":"g8"}
{"t":1950,"ev":"place","sq":"g8"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e2e4"]);
    assert_eq!(rulings(&effects), [], "{effects:?}");
    // Near miss: his own release 50 ms before is a warning.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1950,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"end"}
"#,
    );
    assert_eq!(rulings(&effects), [("warning".into(), "6.2.3".into())]);
}

#[test]
fn art_7_5_3_both_levers_pressed_in_the_same_instant_are_one_press() {
    for (first, second) in [("white", "black"), ("black", "white")] {
        let script = format!(
            r#"{{"t":0,"ev":"press","side":"black"}}
{{"t":0,"ev":"press","side":"white"}}
{{"t":1000,"ev":"lift","sq":"e2"}}
{{"t":1200,"ev":"place","sq":"e4"}}
{{"t":1500,"ev":"press","side":"{first}"}}
{{"t":1500,"ev":"press","side":"{second}"}}
{{"t":3000,"ev":"end"}}
"#
        );
        let effects = replay(&script);
        assert_eq!(moves(&effects), ["e2e4"], "{effects:?}");
        assert_eq!(rulings(&effects), [], "{effects:?}");
        assert_eq!(penalties(&effects), [] as [&Value; 0]);
    }
    // Near miss: a press of the other lever a moment later is a press.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1200,"ev":"place","sq":"e4"}
{"t":1500,"ev":"press","side":"white"}
{"t":1800,"ev":"press","side":"black"}
{"t":3000,"ev":"end"}
"#,
    );
    assert_eq!(rulings(&effects), [("violation".into(), "7.5.3".into())]);
}

#[test]
fn art_6_2_4_a_press_after_a_pause_is_its_own_press_however_soon_in_game_time() {
    // A power cut between Black's press and White's: the time the clock was
    // off is charged to nobody, so in game time White's press comes 20 ms
    // after Black's. It completes White's move; it is no palm on both levers,
    // and no hasty press either.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1200,"ev":"place","sq":"e4"}
{"t":1500,"ev":"press","side":"white"}
{"t":1505,"ev":"lift","sq":"e7"}
{"t":1510,"ev":"place","sq":"e5"}
{"t":1511,"ev":"pause"}
{"t":1512,"ev":"resume"}
{"t":1520,"ev":"press","side":"black"}
{"t":3000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e2e4", "e7e5"], "{effects:?}");
    assert_eq!(rulings(&effects), [], "{effects:?}");
}

#[test]
fn art_4_4_4_the_adjust_button_of_the_promoting_player_chooses_the_piece() {
    // Issue 11 section 2: the pawn off the board, then on the last rank
    // before the press, each adjust of White's takes the next of Q R B N.
    let effects = replay(
        r#"{"t":0,"ev":"setup","fen":"k7/4P3/8/8/8/8/P7/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3300,"ev":"adjust","side":"white"}
{"t":3600,"ev":"place","sq":"e8"}
{"t":3900,"ev":"adjust","side":"white"}
{"t":4000,"ev":"adjust","side":"black"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e7e8b"], "{effects:?}");
    // Black's adjust is his, out of turn: a warning, no choice.
    assert_eq!(rulings(&effects), [("warning".into(), "4.2.1".into())]);
}

#[test]
fn art_4_4_4_the_choice_counts_while_the_pieces_are_exchanged() {
    // The pawn put on e8 (a queen by default), taken off again, the choice
    // made with the square empty, the new piece put down, then the press.
    let effects = replay(
        r#"{"t":0,"ev":"setup","fen":"k7/4P3/8/8/8/8/P7/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3300,"ev":"place","sq":"e8"}
{"t":3600,"ev":"lift","sq":"e8"}
{"t":3900,"ev":"promote","piece":"n"}
{"t":4200,"ev":"place","sq":"e8"}
{"t":4600,"ev":"press","side":"white"}
{"t":6000,"ev":"lift","sq":"a8"}
{"t":6300,"ev":"place","sq":"b7"}
{"t":6600,"ev":"press","side":"black"}
{"t":7000,"ev":"end"}
"#,
    );
    assert_eq!(moves(&effects), ["e7e8n", "a8b7"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
}

#[test]
fn art_7_4_1_an_own_piece_knocked_off_while_moving_is_no_illegal_move() {
    // White's hand knocks his own h2 pawn off while playing Nf3, and he
    // presses: the move is legal, the board waits for the pawn; no penalty.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":3000,"ev":"lift","sq":"g1"}
{"t":3200,"ev":"lift","sq":"h2"}
{"t":3400,"ev":"place","sq":"f3"}
{"t":4000,"ev":"press","side":"white"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"place","sq":"h2"}
{"t":5500,"ev":"press","side":"white"}
{"t":7000,"ev":"end"}
"#,
    );
    assert_eq!(
        rulings(&effects),
        [
            ("violation".into(), "7.4.1".into()),
            ("violation".into(), "7.4.1".into())
        ],
        "{effects:?}"
    );
    assert_eq!(penalties(&effects), [] as [&Value; 0]);
    assert_eq!(named(&effects, "result"), [] as [&Value; 0]);
    assert_eq!(moves(&effects), ["g1f3"]);
    // Near miss: a piece of the opponent's missing is no move of his.
    let effects = replay(
        r#"{"t":0,"ev":"press","side":"black"}
{"t":3000,"ev":"lift","sq":"g1"}
{"t":3400,"ev":"place","sq":"e3"}
{"t":4000,"ev":"press","side":"white"}
{"t":7000,"ev":"end"}
"#,
    );
    assert_eq!(rulings(&effects), [("violation".into(), "7.5.1".into())]);
}

#[test]
fn art_7_4_1_a_capturable_piece_knocked_off_is_the_pressers_while_the_opponent_moves() {
    // White knocks his d4 pawn off right after pressing; Black, who could
    // take it, plays his king instead and presses; White restores the pawn.
    let effects = replay(&format!(
        r#"{KNOCK}{{"t":2000,"ev":"lift","sq":"d4"}}
{{"t":3000,"ev":"lift","sq":"e8"}}
{{"t":3300,"ev":"place","sq":"e7"}}
{{"t":3600,"ev":"press","side":"black"}}
{{"t":5000,"ev":"place","sq":"d4"}}
{{"t":6000,"ev":"end"}}
"#
    ));
    assert_eq!(moves(&effects), ["d2d4", "e8e7"], "{effects:?}");
    assert_eq!(rulings(&effects), []);
    assert_eq!(penalties(&effects), [] as [&Value; 0]);
    let displaced = named(&effects, "displaced");
    assert_eq!(displaced.len(), 1);
    assert_eq!(displaced[0]["side"], "white");
    // Black's clock ran from the knock to his move: given back.
    let back = named(&effects, "time_added");
    assert_eq!(back.len(), 1);
    assert_eq!(
        (&back[0]["side"], &back[0]["ms"]),
        (&"black".into(), &1_300.into())
    );
    let restored = named(&effects, "restored");
    assert_eq!(restored.len(), 1);
    assert_eq!(
        (&restored[0]["side"], &restored[0]["ms"]),
        (&"white".into(), &3_000.into())
    );
}
