//! Draw offers and claims (9.1.2.1, 9.2–9.4), dead positions (5.2.2, 6.9),
//! a starting position already over, and the last move before a flag
//! (6.3): each played through `tocada replay`, as an arbiter plays them.

mod support {
    pub mod cli;
    pub mod replay;
}

use serde_json::{Value, json};

/// The effects `tocada replay` writes for `lines`, which must succeed.
fn replay(lines: &[Value]) -> Vec<Value> {
    let script: String = lines.iter().map(|l| format!("{l}\n")).collect();
    support::replay::effects(&script)
}

/// The lines of a move made by hand from `from` to `to` at `t`, 100 ms
/// apart, the captured piece lifted first.
fn hands(t: u64, from: &str, to: &str, capture: bool) -> Vec<Value> {
    let mut lines = Vec::new();
    if capture {
        lines.push(json!({"t": t, "ev": "lift", "sq": to}));
    }
    lines.push(json!({"t": t + 100, "ev": "lift", "sq": from}));
    lines.push(json!({"t": t + 200, "ev": "place", "sq": to}));
    lines
}

fn press(t: u64, side: &str) -> Value {
    json!({"t": t, "ev": "press", "side": side})
}

fn draw(t: u64, side: &str) -> Value {
    json!({"t": t, "ev": "draw", "side": side})
}

fn effects<'a>(all: &'a [Value], kind: &str) -> Vec<&'a Value> {
    all.iter().filter(|e| e["effect"] == kind).collect()
}

fn result(all: &[Value]) -> Option<(String, String)> {
    all.iter().find(|e| e["effect"] == "result").map(|e| {
        (
            e["result"].as_str().unwrap().to_owned(),
            e["reason"].as_str().unwrap().to_owned(),
        )
    })
}

/// White offers between moving and pressing; Black touches one of his
/// pieces before White has pressed.
fn offer_then_touch(touch: Value) -> Vec<Value> {
    let mut lines = vec![json!({"t": 0, "ev": "setup"}), press(0, "black")];
    lines.extend(hands(1_000, "e2", "e4", false));
    lines.push(draw(1_400, "white"));
    lines.push(touch);
    lines.push(press(1_800, "white"));
    // Black's draw button after a declined offer is an offer of his own.
    lines.push(draw(3_000, "black"));
    lines.push(json!({"t": 4_000, "ev": "end"}));
    replay(&lines)
}

#[test]
fn art_9_1_2_1_offer_declined_by_touch_before_offerer_presses() {
    let out = offer_then_touch(json!({"t": 1_600, "ev": "touch", "sq": "g8"}));
    let declined = effects(&out, "draw_declined");
    assert_eq!(declined.len(), 1, "{out:?}");
    assert_eq!(declined[0]["side"], "white");
    assert_eq!(declined[0]["how"], "touch");
    assert_eq!(result(&out), None, "no draw by agreement: {out:?}");
    let offers = effects(&out, "draw_offer");
    assert_eq!(offers.last().unwrap()["side"], "black");

    // A lift is a touch too.
    let out = offer_then_touch(json!({"t": 1_600, "ev": "lift", "sq": "e7"}));
    assert_eq!(effects(&out, "draw_declined").len(), 1, "{out:?}");
}

#[test]
fn near_miss_art_9_1_2_1_the_offerer_finishing_his_own_move_declines_nothing() {
    // White straightens his own e4 pawn before pressing: his contact, not
    // Black's; the offer stands and Black's draw button accepts it.
    let out = offer_then_touch(json!({"t": 1_600, "ev": "touch", "sq": "e4"}));
    assert!(effects(&out, "draw_declined").is_empty(), "{out:?}");
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "agreement".to_owned()))
    );
}

/// Both sides shuffle their knights out and back twice: the starting
/// position stands for the third time with White to move, at 8_000.
fn shuffle() -> Vec<Value> {
    let mut lines = vec![json!({"t": 0, "ev": "setup"}), press(0, "black")];
    let mut t = 1_000;
    for _ in 0..2 {
        for (from, to, side) in [
            ("g1", "f3", "white"),
            ("g8", "f6", "black"),
            ("f3", "g1", "white"),
            ("f6", "g8", "black"),
        ] {
            lines.extend(hands(t, from, to, false));
            lines.push(press(t + 400, side));
            t += 500;
        }
    }
    lines
}

#[test]
fn art_9_4_touching_a_piece_loses_the_right_to_claim() {
    let mut lines = shuffle();
    lines.push(json!({"t": 9_000, "ev": "touch", "sq": "b1"}));
    lines.push(draw(9_500, "white"));
    lines.push(json!({"t": 10_000, "ev": "end"}));
    let out = replay(&lines);
    assert_eq!(result(&out), None, "{out:?}");
    let offers = effects(&out, "draw_offer");
    assert_eq!(offers.len(), 1, "the claim is only an offer: {out:?}");
    assert_eq!(offers[0]["side"], "white");

    // Near miss: the same claim without the touch draws.
    let mut lines = shuffle();
    lines.push(draw(9_500, "white"));
    let out = replay(&lines);
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "threefold_repetition".to_owned()))
    );
    // And a touch after j'adoube is no touch with intent.
    let mut lines = shuffle();
    lines.push(json!({"t": 8_900, "ev": "adjust", "side": "white"}));
    lines.push(json!({"t": 9_000, "ev": "touch", "sq": "b1"}));
    lines.push(draw(9_500, "white"));
    let out = replay(&lines);
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "threefold_repetition".to_owned()))
    );
}

#[test]
fn art_9_2_1_1_claim_on_an_intended_move_made_on_the_board() {
    // Seven plies of the shuffle pressed; Black makes his eighth on the
    // board, which brings the start position a third time, and claims
    // before pressing.
    let mut lines = shuffle();
    lines.truncate(lines.len() - 3);
    lines.extend(hands(4_500, "f6", "g8", false));
    lines.push(draw(4_800, "black"));
    let out = replay(&lines);
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "threefold_repetition".to_owned()))
    );
    // The intended move is recorded before the result.
    let moves = effects(&out, "move");
    assert_eq!(moves.last().unwrap()["san"], "Ng8");
    assert_eq!(moves.len(), 8);
}

/// A locked wall of pawns across the board, White's king below it and
/// Black's above, but White's g-pawn still on g2.
const ALMOST_LOCKED: &str = "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P3/3K2P1/8 w - - 0 1";

#[test]
fn art_5_2_2_a_locked_pawn_wall_is_a_dead_position_when_it_arises() {
    let mut lines = vec![
        json!({"t": 0, "ev": "setup", "fen": ALMOST_LOCKED}),
        press(0, "black"),
    ];
    lines.extend(hands(1_000, "g2", "g3", false));
    lines.push(json!({"t": 5_000, "ev": "end"}));
    let out = replay(&lines);
    // Neither king can ever reach an enemy pawn: drawn at the release.
    let moves = effects(&out, "move");
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["san"], "g3");
    assert_eq!(moves[0]["t"], 1_200);
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "insufficient_material".to_owned()))
    );
}

#[test]
fn art_5_2_2_a_bishop_that_can_reach_no_pawn_and_never_mate_is_dead_when_it_arises() {
    // White's dark-squared bishop takes the black knight, which could have
    // jumped the wall: the bishop can check the black king but never mate
    // him, never take a pawn, and no pawn can ever take it.
    let fen = "7B/4k1n1/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/8 w - - 0 1";
    let mut lines = vec![
        json!({"t": 0, "ev": "setup", "fen": fen}),
        press(0, "black"),
    ];
    lines.extend(hands(1_000, "h8", "g7", true));
    lines.push(json!({"t": 5_000, "ev": "end"}));
    let out = replay(&lines);
    let moves = effects(&out, "move");
    assert_eq!(moves.len(), 1, "{out:?}");
    assert_eq!(moves[0]["san"], "Bxg7");
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "insufficient_material".to_owned()))
    );
}

#[test]
fn near_miss_art_5_2_2_a_wall_a_king_can_break_is_not_dead() {
    // Without White's c3 pawn Black's c4 pawn can advance: no wall.
    let fen = "8/4k3/8/1p1p1p1p/pPpPpPpP/P3P3/3K2P1/8 w - - 0 1";
    let mut lines = vec![
        json!({"t": 0, "ev": "setup", "fen": fen}),
        press(0, "black"),
    ];
    lines.extend(hands(1_000, "g2", "g3", false));
    lines.push(press(1_500, "white"));
    lines.push(json!({"t": 5_000, "ev": "end"}));
    let out = replay(&lines);
    assert_eq!(result(&out), None, "{out:?}");
}

#[test]
fn art_5_start_position_already_over_ends_the_game_at_once() {
    for (fen, expected) in [
        // Fool's mate: White is mated.
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            ("0-1", "checkmate"),
        ),
        // Black to move, stalemated.
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", ("1/2-1/2", "stalemate")),
        // Bare kings.
        (
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            ("1/2-1/2", "insufficient_material"),
        ),
        // Kings behind a locked wall.
        (
            "8/4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3K4/8 w - - 0 1",
            ("1/2-1/2", "insufficient_material"),
        ),
    ] {
        let out = replay(&[
            json!({"t": 0, "ev": "setup", "time_control": "60", "fen": fen}),
            press(2_000, "black"),
            json!({"t": 120_000, "ev": "end"}),
        ]);
        // The result, at the setup, and nothing else: no clock starts, no
        // flag ever falls.
        assert_eq!(out.len(), 1, "{fen}: {out:?}");
        assert_eq!(out[0]["t"], 0);
        assert_eq!(
            result(&out),
            Some((expected.0.to_owned(), expected.1.to_owned())),
            "{fen}"
        );
        // The setup line alone says it.
        let out = replay(&[json!({"t": 0, "ev": "setup", "fen": fen})]);
        assert_eq!(out.len(), 1, "{fen}: {out:?}");
    }
}

#[test]
fn art_6_3_a_flag_before_the_press_of_the_stages_last_move_earns_no_stage_time() {
    // Two moves in 10 s, then 10 minutes: White makes his second move and
    // does not press before his flag falls.
    let mut lines = vec![
        json!({"t": 0, "ev": "setup", "time_control": "2/10:600"}),
        press(0, "black"),
    ];
    lines.extend(hands(1_000, "e2", "e4", false));
    lines.push(press(1_400, "white"));
    lines.extend(hands(2_000, "e7", "e5", false));
    lines.push(press(2_400, "black"));
    lines.extend(hands(3_000, "d2", "d4", false));
    lines.push(json!({"t": 30_000, "ev": "end"}));
    let out = replay(&lines);
    let flag = effects(&out, "flag");
    assert_eq!(flag.len(), 1);
    assert_eq!(flag[0]["side"], "white");
    // 10 s less the 1.4 s of his first move, from Black's press.
    assert_eq!(flag[0]["t"], 2_400 + 8_600);
    let moves = effects(&out, "move");
    let last = moves.last().unwrap();
    assert_eq!(last["san"], "d4");
    assert_eq!(last["white_ms"], 0, "no stage time for a flag: {last}");
    assert_eq!(result(&out), Some(("0-1".to_owned(), "timeout".to_owned())));

    // Near miss: pressed in time, the stage's time is his.
    let mut lines = lines[..lines.len() - 1].to_vec();
    lines.push(press(3_500, "white"));
    lines.push(json!({"t": 4_000, "ev": "end"}));
    let out = replay(&lines);
    let moves = effects(&out, "move");
    assert_eq!(
        moves.last().unwrap()["white_ms"],
        10_000 - 1_400 - 1_100 + 600_000
    );
}

/// The shuffle once (the start position twice), the clock stopped, and
/// White's draw button: a claim, and not a correct one.
fn incorrect_claim(mode: &str) -> Vec<Value> {
    let mut lines = shuffle();
    lines.truncate(14);
    lines[0] = json!({"t": 0, "ev": "setup", "mode": mode});
    lines.push(json!({"t": 5_000, "ev": "pause"}));
    lines.push(draw(5_100, "white"));
    lines.push(json!({"t": 5_200, "ev": "resume"}));
    lines.push(draw(6_000, "black"));
    replay(&lines)
}

#[test]
fn art_9_5_3_an_incorrect_claim_gives_the_opponent_two_minutes_and_is_an_offer() {
    let out = incorrect_claim("standard");
    let added = effects(&out, "time_added");
    assert_eq!(added.len(), 1, "{out:?}");
    assert_eq!(added[0]["side"], "black");
    assert_eq!(added[0]["ms"], 120_000);
    assert_eq!(added[0]["law"], "9.5.3");
    assert_eq!(effects(&out, "draw_offer")[0]["side"], "white");
    // The claim stands as an offer: Black's draw button accepts it.
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "agreement".to_owned()))
    );
    // One minute in rapid and blitz.
    for mode in ["rapid", "blitz"] {
        let out = incorrect_claim(mode);
        assert_eq!(effects(&out, "time_added")[0]["ms"], 60_000, "{mode}");
    }
}

#[test]
fn near_miss_art_9_5_3_a_correct_claim_with_the_clock_stopped_draws_and_an_offer_costs_nothing() {
    let mut lines = shuffle();
    lines.push(json!({"t": 9_000, "ev": "pause"}));
    lines.push(draw(9_100, "white"));
    let out = replay(&lines);
    assert!(effects(&out, "time_added").is_empty(), "{out:?}");
    assert_eq!(
        result(&out),
        Some(("1/2-1/2".to_owned(), "threefold_repetition".to_owned()))
    );
    // The draw button with the clock running is an offer, free.
    let mut lines = shuffle();
    lines.truncate(14);
    lines.push(draw(5_100, "white"));
    lines.push(json!({"t": 6_000, "ev": "end"}));
    let out = replay(&lines);
    assert!(effects(&out, "time_added").is_empty(), "{out:?}");
    assert_eq!(effects(&out, "draw_offer").len(), 1);
}
