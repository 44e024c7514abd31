//! The laws profiles (issue 11, §5) through `tocada replay`:
//! `fide-2023-unsupervised` (Appendix A.5: article 4 and illegal moves
//! ruled only on a claim) and `regence-1858` (the seeds' 1858 laws: the
//! opponent's choice of penalty, `choice` and `choose`). Each test gives
//! the whole script and asserts every effect line.

mod support {
    pub mod cli;
    pub mod replay;
}

/// Asserts that `script` replays to exactly `expected`, line by line.
fn assert_replays(script: &str, expected: &str) {
    let got = support::replay::effect_lines(script);
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(got, expected, "{script}");
}

/// 1858, 9ª: White touched the d5 pawn and played Nf3. Black chooses `take` (a `choose` by White, and one with an option not offered, are dropped): Nf3 is taken back and White must take d5; d4 is refused under 9ª, exd5 completes.
#[test]
fn regence_9_take_obliges_the_capture_of_the_touched_piece() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"touch","sq":"d5"}
{"t":8500,"ev":"lift","sq":"g1"}
{"t":9000,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"choose","side":"white","option":"take"}
{"t":11500,"ev":"choose","side":"black","option":"stand"}
{"t":12000,"ev":"choose","side":"black","option":"take"}
{"t":13000,"ev":"lift","sq":"f3"}
{"t":13500,"ev":"place","sq":"g1"}
{"t":14000,"ev":"lift","sq":"d2"}
{"t":14500,"ev":"place","sq":"d4"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"lift","sq":"d4"}
{"t":16500,"ev":"place","sq":"d2"}
{"t":17000,"ev":"lift","sq":"d5"}
{"t":17200,"ev":"lift","sq":"e4"}
{"t":17500,"ev":"place","sq":"d5"}
{"t":18000,"ev":"press","side":"white"}
{"t":20000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":298000,"black_ms":298000}
{"t":10000,"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}
{"t":12000,"effect":"takeback","side":"white","n":2,"san":"Nf3"}
{"t":15000,"effect":"violation","side":"white","law":"1858.9","detail":"Penalty: take the piece on d5"}
{"t":18000,"effect":"move","side":"white","n":2,"uci":"e4d5","san":"exd5","white_ms":295000,"black_ms":298000}"#,
    );
}

/// 1858, 9ª: Black chooses `leave`: Nf3 stands and the game goes on with Black's move.
#[test]
fn regence_9_leave_lets_the_move_stand() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"touch","sq":"d5"}
{"t":8500,"ev":"lift","sq":"g1"}
{"t":9000,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
{"t":12000,"ev":"choose","side":"black","option":"leave"}
{"t":13000,"ev":"lift","sq":"d5"}
{"t":13200,"ev":"lift","sq":"e4"}
{"t":13500,"ev":"place","sq":"e4"}
{"t":14000,"ev":"press","side":"black"}
{"t":15000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":298000,"black_ms":298000}
{"t":10000,"effect":"choice","side":"black","law":"1858.9","options":["take","leave","king"]}
{"t":14000,"effect":"move","side":"black","n":2,"uci":"d5e4","san":"dxe4","white_ms":298000,"black_ms":296000}"#,
    );
}

/// 1858, 13ª: Bf1-h3 through the g2 pawn is a false move: it is completed, and Black chooses `elsewhere`: it is taken back and the bishop must move (Nf3 refused, Bc4 completes).
#[test]
fn regence_13_elsewhere_obliges_the_piece_to_a_square_it_may_go() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"lift","sq":"f1"}
{"t":9000,"ev":"place","sq":"h3"}
{"t":10000,"ev":"press","side":"white"}
{"t":12000,"ev":"choose","side":"black","option":"elsewhere"}
{"t":13000,"ev":"lift","sq":"h3"}
{"t":13500,"ev":"place","sq":"f1"}
{"t":14000,"ev":"lift","sq":"g1"}
{"t":14500,"ev":"place","sq":"f3"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"lift","sq":"f3"}
{"t":16500,"ev":"place","sq":"g1"}
{"t":17000,"ev":"lift","sq":"f1"}
{"t":17500,"ev":"place","sq":"c4"}
{"t":18000,"ev":"press","side":"white"}
{"t":20000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"f1h3","san":"Bh3","white_ms":298000,"black_ms":298000}
{"t":10000,"effect":"choice","side":"black","law":"1858.13","options":["stand","elsewhere","king"]}
{"t":12000,"effect":"takeback","side":"white","n":2,"san":"Bh3"}
{"t":15000,"effect":"violation","side":"white","law":"1858.13","detail":"Penalty: move the piece from f1"}
{"t":18000,"effect":"move","side":"white","n":2,"uci":"f1c4","san":"Bc4","white_ms":295000,"black_ms":298000}"#,
    );
}

/// 1858, 14ª: Black does not choose and plays Nf6: the false move Bh3 stands, a later `choose` is dropped, and White plays on from h3.
#[test]
fn regence_14_a_false_move_is_not_punished_after_the_opponents_move() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"lift","sq":"f1"}
{"t":9000,"ev":"place","sq":"h3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"lift","sq":"g8"}
{"t":11500,"ev":"place","sq":"f6"}
{"t":12000,"ev":"press","side":"black"}
{"t":12500,"ev":"choose","side":"black","option":"king"}
{"t":13000,"ev":"lift","sq":"h3"}
{"t":13500,"ev":"place","sq":"f5"}
{"t":14000,"ev":"press","side":"white"}
{"t":15000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"f1h3","san":"Bh3","white_ms":298000,"black_ms":298000}
{"t":10000,"effect":"choice","side":"black","law":"1858.13","options":["stand","elsewhere","king"]}
{"t":12000,"effect":"move","side":"black","n":2,"uci":"g8f6","san":"Nf6","white_ms":298000,"black_ms":298000}
{"t":14000,"effect":"move","side":"white","n":3,"uci":"h3f5","san":"Bf5","white_ms":298000,"black_ms":298000}"#,
    );
}

/// 1858, 12ª: Ng1xd5 is no knight's move; exd5 could take. Black chooses `capture`: the knight goes back and e4 takes d5.
#[test]
fn regence_12_a_capture_the_piece_cannot_make_is_made_by_one_that_can() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"lift","sq":"d5"}
{"t":8200,"ev":"lift","sq":"g1"}
{"t":8500,"ev":"place","sq":"d5"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"choose","side":"black","option":"capture"}
{"t":12000,"ev":"lift","sq":"d5"}
{"t":12100,"ev":"place","sq":"g1"}
{"t":12200,"ev":"place","sq":"d5"}
{"t":13000,"ev":"lift","sq":"d5"}
{"t":13200,"ev":"lift","sq":"e4"}
{"t":13500,"ev":"place","sq":"d5"}
{"t":14000,"ev":"press","side":"white"}
{"t":15000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"g1d5","san":"Nxd5","white_ms":298000,"black_ms":298000}
{"t":10000,"effect":"choice","side":"black","law":"1858.12","options":["capture","move"]}
{"t":11000,"effect":"takeback","side":"white","n":2,"san":"Nxd5"}
{"t":14000,"effect":"move","side":"white","n":2,"uci":"e4d5","san":"exd5","white_ms":298000,"black_ms":298000}"#,
    );
}

/// 1858, 7ª: Black touched the g8 knight and played e5: the press is refused under 7ª; Nf6 completes.
#[test]
fn regence_7_a_touched_piece_is_played() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"touch","sq":"g8"}
{"t":4100,"ev":"untouch","sq":"g8"}
{"t":4200,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":5000,"ev":"press","side":"black"}
{"t":5500,"ev":"lift","sq":"e5"}
{"t":5600,"ev":"place","sq":"e7"}
{"t":6000,"ev":"lift","sq":"g8"}
{"t":6500,"ev":"place","sq":"f6"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":5000,"effect":"violation","side":"black","law":"1858.7","detail":"Touch-move: move the g8 knight"}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"g8f6","san":"Nf6","white_ms":299000,"black_ms":298000}"#,
    );
}

/// 1858, 8ª: White says "compongo" (the adjust button) before touching d5: no choice for Black when White plays Nf3.
#[test]
fn regence_8_compongo_excuses_the_touch_of_an_enemy_piece() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"adjust","side":"white"}
{"t":8100,"ev":"touch","sq":"d5"}
{"t":8200,"ev":"untouch","sq":"d5"}
{"t":8500,"ev":"lift","sq":"g1"}
{"t":9000,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":299000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":299000,"black_ms":298000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":298000,"black_ms":298000}"#,
    );
}

/// 1858, 27ª: stalemate is a draw ("menos en Inglaterra": tocada follows the Régence).
#[test]
fn regence_27_stalemate_is_a_draw() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"7k/4Q3/6K1/8/8/8/8/8 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e7"}
{"t":1500,"ev":"place","sq":"f7"}
{"t":3000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":1500,"effect":"move","side":"white","n":1,"uci":"e7f7","san":"Qf7","white_ms":298500,"black_ms":300000}
{"t":1500,"effect":"result","result":"1/2-1/2","reason":"stalemate"}"#,
    );
}

/// A.5: White leaves his king in check with Nf3 (2...Bb4+ 3.Nf3): the move is completed without a word; Black claims before touching a piece and wins.
#[test]
fn a5_an_illegal_move_stands_until_claimed_and_a_claim_in_time_wins() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised"}
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
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":180000,"black_ms":180000}
{"t":4000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":180000,"black_ms":180000}
{"t":6000,"effect":"move","side":"white","n":2,"uci":"d2d4","san":"d4","white_ms":180000,"black_ms":180000}
{"t":8000,"effect":"move","side":"black","n":2,"uci":"f8b4","san":"Bb4+","white_ms":180000,"black_ms":180000}
{"t":10000,"effect":"move","side":"white","n":3,"uci":"g1f3","san":"Nf3","white_ms":180000,"black_ms":180000}
{"t":11000,"effect":"claim","side":"black","law":"7.5.1","upheld":true}
{"t":11000,"effect":"result","result":"0-1","reason":"illegal_moves"}"#,
    );
}

/// A.5: White's touch-move breach (d2 touched, Nf3 played) and Black's false move Bf8-h6 stand silently; each claim comes after the claimant touched a piece, and fails (4.8).
#[test]
fn a5_a_claim_after_the_claimant_has_touched_a_piece_is_too_late() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"e7"}
{"t":3500,"ev":"place","sq":"e5"}
{"t":4000,"ev":"press","side":"black"}
{"t":5000,"ev":"touch","sq":"d2"}
{"t":5200,"ev":"lift","sq":"g1"}
{"t":5500,"ev":"place","sq":"f3"}
{"t":6000,"ev":"press","side":"white"}
{"t":7000,"ev":"lift","sq":"f8"}
{"t":7500,"ev":"place","sq":"h6"}
{"t":8000,"ev":"press","side":"black"}
{"t":9000,"ev":"claim","side":"black"}
{"t":9500,"ev":"lift","sq":"a2"}
{"t":9700,"ev":"place","sq":"a3"}
{"t":10000,"ev":"press","side":"white"}
{"t":10500,"ev":"claim","side":"white"}
{"t":11000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":180000,"black_ms":180000}
{"t":4000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":180000,"black_ms":180000}
{"t":6000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":180000,"black_ms":180000}
{"t":8000,"effect":"move","side":"black","n":2,"uci":"f8h6","san":"Bh6","white_ms":180000,"black_ms":180000}
{"t":9000,"effect":"claim","side":"black","law":"4.8","upheld":false}
{"t":10000,"effect":"move","side":"white","n":3,"uci":"a2a3","san":"a3","white_ms":180000,"black_ms":180000}
{"t":10500,"effect":"claim","side":"white","law":"4.8","upheld":false}"#,
    );
}

/// A.5: the g1 knight touched and e4 played: nothing is shown until Black claims; upheld, e4 is taken back and the knight must move, strictly.
#[test]
fn a5_article_4_is_ruled_on_only_when_claimed() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":950,"ev":"untouch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"lift","sq":"e4"}
{"t":3600,"ev":"place","sq":"e2"}
{"t":4000,"ev":"lift","sq":"d2"}
{"t":4100,"ev":"place","sq":"d4"}
{"t":4500,"ev":"press","side":"white"}
{"t":4800,"ev":"lift","sq":"d4"}
{"t":4900,"ev":"place","sq":"d2"}
{"t":5000,"ev":"lift","sq":"g1"}
{"t":5100,"ev":"place","sq":"f3"}
{"t":5500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":180000,"black_ms":180000}
{"t":3000,"effect":"claim","side":"black","law":"4.3.1","upheld":true}
{"t":3000,"effect":"takeback","side":"white","n":1,"san":"e4"}
{"t":4500,"effect":"violation","side":"white","law":"4.3.1","detail":"Touch-move: move the g1 knight"}
{"t":5500,"effect":"move","side":"white","n":1,"uci":"g1f3","san":"Nf3","white_ms":179500,"black_ms":180000}"#,
    );
}

/// The default profile writes no `laws` and reads as `fide-2023`; a bad
/// profile name, option or missing option is a data error naming it.
#[test]
fn the_contract_reads_and_refuses_clearly() {
    let fide = support::replay::effect_lines(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"fide-2023"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":2500,"ev":"choose","side":"black","option":"take"}
{"t":3000,"ev":"end"}
"#,
    );
    assert_eq!(
        fide,
        [
            r#"{"t":0,"effect":"started","side":"white"}"#,
            r#"{"t":2000,"effect":"violation","side":"white","law":"4.3.1","detail":"Touch-move: move the g1 knight"}"#,
        ]
    );
    for (line, message) in [
        (
            r#"{"t":0,"ev":"setup","laws":"fide-2018"}"#,
            "bad laws \"fide-2018\"",
        ),
        (
            r#"{"t":0,"ev":"choose","side":"black","option":"queen"}"#,
            "bad option \"queen\"",
        ),
        (
            r#"{"t":0,"ev":"choose","side":"black"}"#,
            "\"choose\" needs field \"option\"",
        ),
        (
            r#"{"t":0,"ev":"press","side":"black","option":"take"}"#,
            "field \"option\" does not belong to \"press\"",
        ),
    ] {
        let output = support::replay::output(&format!("{line}\n"));
        assert_eq!(output.status.code(), Some(65), "{line}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(message), "{line}: {stderr}");
    }
}

/// 1858, 9ª for a piece that cannot be taken (Staunton's IX): White
/// touches the e5 pawn, which nothing of his can take, and plays Nf3;
/// Black may only leave it or make him play the king, and chooses `king`.
#[test]
fn regence_9_an_enemy_piece_that_cannot_be_taken_obliges_the_king() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"touch","sq":"e5"}
{"t":8100,"ev":"untouch","sq":"e5"}
{"t":8500,"ev":"lift","sq":"g1"}
{"t":9000,"ev":"place","sq":"f3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"choose","side":"black","option":"take"}
{"t":12000,"ev":"choose","side":"black","option":"king"}
{"t":13000,"ev":"lift","sq":"f3"}
{"t":13500,"ev":"place","sq":"g1"}
{"t":14000,"ev":"lift","sq":"e1"}
{"t":14500,"ev":"place","sq":"e2"}
{"t":15000,"ev":"press","side":"white"}
{"t":16000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":297000,"black_ms":296000}
{"t":10000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":294000,"black_ms":296000}
{"t":10000,"effect":"choice","side":"black","law":"1858.9","options":["leave","king"]}
{"t":12000,"effect":"takeback","side":"white","n":2,"san":"Nf3"}
{"t":15000,"effect":"move","side":"white","n":2,"uci":"e1e2","san":"Ke2","white_ms":294000,"black_ms":296000}"#,
    );
}

/// 1858, 19ª–20ª: castling while the h1 rook is attacked (legal today,
/// forbidden by 19ª) is completed, and Black chooses `rook`: O-O is taken
/// back and the rook must move (Kf1 refused under 20ª, Rh4 completes).
#[test]
fn regence_20_castling_with_the_rook_attacked_gives_king_or_rook() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1400,"ev":"lift","sq":"h1"}
{"t":1600,"ev":"place","sq":"f1"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"choose","side":"black","option":"rook"}
{"t":3500,"ev":"lift","sq":"f1"}
{"t":3600,"ev":"place","sq":"h1"}
{"t":3700,"ev":"lift","sq":"g1"}
{"t":3800,"ev":"place","sq":"e1"}
{"t":4000,"ev":"lift","sq":"e1"}
{"t":4200,"ev":"place","sq":"f1"}
{"t":4500,"ev":"press","side":"white"}
{"t":4800,"ev":"lift","sq":"f1"}
{"t":4900,"ev":"place","sq":"e1"}
{"t":5000,"ev":"lift","sq":"h1"}
{"t":5200,"ev":"place","sq":"h4"}
{"t":5500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"e1g1","san":"O-O","white_ms":298000,"black_ms":300000}
{"t":2000,"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}
{"t":3000,"effect":"takeback","side":"white","n":1,"san":"O-O"}
{"t":4500,"effect":"violation","side":"white","law":"1858.20","detail":"Penalty: move the piece from h1"}
{"t":5500,"effect":"move","side":"white","n":1,"uci":"h1h4","san":"Rh4","white_ms":297500,"black_ms":300000}"#,
    );
}

/// A.5: a false king move into White's pawn's reach stands; taking the
/// king is no move (no game goes on from it): it is ruled an illegal move,
/// and White's claim comes after he touched g2. Black lifting his own king
/// inside the knock window is his knock (7.4.1).
#[test]
fn a5_the_king_is_never_captured() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"b2"}
{"t":1500,"ev":"place","sq":"b3"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"e8"}
{"t":3500,"ev":"place","sq":"h3"}
{"t":4000,"ev":"press","side":"black"}
{"t":5000,"ev":"lift","sq":"h3"}
{"t":5200,"ev":"lift","sq":"g2"}
{"t":5500,"ev":"place","sq":"h3"}
{"t":6000,"ev":"press","side":"white"}
{"t":6500,"ev":"claim","side":"white"}
{"t":7000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"b2b3","san":"b3","white_ms":180000,"black_ms":180000}
{"t":4000,"effect":"move","side":"black","n":1,"uci":"e8h3","san":"Kh3","white_ms":180000,"black_ms":180000}
{"t":5000,"effect":"displaced","side":"black","squares":["h3"]}
{"t":5500,"effect":"restored","side":"black","ms":0}
{"t":5500,"effect":"time_added","side":"black","ms":500,"law":"7.4.1"}
{"t":6000,"effect":"violation","side":"white","law":"7.5.1","detail":"Illegal move: restore g2 and make a legal move"}
{"t":6000,"effect":"time_added","side":"black","ms":60000,"law":"7.5.5"}
{"t":6500,"effect":"claim","side":"white","law":"4.8","upheld":false}"#,
    );
}

/// 1858, 22ª: White touches the e2 knight, pinned by the e8 rook, and
/// plays h3: refused, the king must be played (under `fide-2023` h3 is a
/// lawful move, 4.5). Kd1 completes, though h3 had been released: 22ª's
/// king move is the one the law asks for.
#[test]
fn regence_22_a_touched_pinned_piece_obliges_the_king() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"k3r3/8/8/8/8/8/4N2P/4K3 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"touch","sq":"e2"}
{"t":1100,"ev":"untouch","sq":"e2"}
{"t":1500,"ev":"lift","sq":"h2"}
{"t":1700,"ev":"place","sq":"h3"}
{"t":2000,"ev":"press","side":"white"}
{"t":2500,"ev":"lift","sq":"h3"}
{"t":2600,"ev":"place","sq":"h2"}
{"t":3000,"ev":"lift","sq":"e1"}
{"t":3200,"ev":"place","sq":"d1"}
{"t":3500,"ev":"press","side":"white"}
{"t":4000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"violation","side":"white","law":"1858.22","detail":"The touched piece cannot move without exposing the king: move the king"}
{"t":3500,"effect":"move","side":"white","n":1,"uci":"e1d1","san":"Kd1","white_ms":296500,"black_ms":300000}"#,
    );
}

/// A false move left standing (14ª) is in the score as it was played, and
/// the score is written without complaint.
#[test]
fn a_false_move_that_stands_is_in_the_pgn() {
    use tocada::pgn::Tags;
    let script = r#"{"t":0,"ev":"setup","time_control":"300+2","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"lift","sq":"f1"}
{"t":9000,"ev":"place","sq":"h3"}
{"t":10000,"ev":"press","side":"white"}
{"t":11000,"ev":"lift","sq":"g8"}
{"t":11500,"ev":"place","sq":"f6"}
{"t":12000,"ev":"press","side":"black"}
{"t":15000,"ev":"end"}
"#;
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
    let pgn = tocada::transcript::pgn_from_lines(&lines, tags).expect("the lines make a game");
    let moves = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(moves.contains("1. e4"), "{pgn}");
    assert!(moves.contains("2. Bh3"), "{pgn}");
    assert!(moves.contains("Nf6"), "{pgn}");
    assert!(
        moves.contains("{Black chooses under law 1858.13: stand, elsewhere, king}"),
        "{pgn}"
    );
}

/// 1858, 10ª: White moves Black's d5 pawn to d4 and presses: nothing is completed (the pawn is his displacement, 7.4.1) and Black chooses `take`: the pawn goes back and must be captured (Nf3 refused, exd5 completes).
#[test]
fn regence_10_an_enemy_piece_moved_is_taken_at_the_opponents_choice() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":10000,"ev":"lift","sq":"d5"}
{"t":10500,"ev":"place","sq":"d4"}
{"t":11000,"ev":"press","side":"white"}
{"t":12000,"ev":"choose","side":"black","option":"take"}
{"t":13000,"ev":"lift","sq":"d4"}
{"t":13500,"ev":"place","sq":"d5"}
{"t":14000,"ev":"lift","sq":"g1"}
{"t":14500,"ev":"place","sq":"f3"}
{"t":15000,"ev":"press","side":"white"}
{"t":15500,"ev":"lift","sq":"f3"}
{"t":15600,"ev":"place","sq":"g1"}
{"t":16000,"ev":"lift","sq":"d5"}
{"t":16200,"ev":"lift","sq":"e4"}
{"t":16500,"ev":"place","sq":"d5"}
{"t":17000,"ev":"press","side":"white"}
{"t":18000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":297000,"black_ms":296000}
{"t":10500,"effect":"displaced","side":"white","squares":["d4"]}
{"t":11000,"effect":"choice","side":"black","law":"1858.10","options":["take","restore"]}
{"t":13000,"effect":"restored","side":"white","ms":2500}
{"t":15000,"effect":"violation","side":"white","law":"1858.10","detail":"Penalty: take the piece on d5"}
{"t":17000,"effect":"move","side":"white","n":2,"uci":"e4d5","san":"exd5","white_ms":287000,"black_ms":296000}"#,
    );
}

/// 1858, 10ª: Black chooses `restore`: the pawn goes back and White plays what he likes; his touch of d5 binds him to nothing more (no 9ª choice).
#[test]
fn regence_10_restore_puts_the_piece_back_and_frees_the_move() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":7000,"ev":"press","side":"black"}
{"t":10000,"ev":"lift","sq":"d5"}
{"t":10500,"ev":"place","sq":"d4"}
{"t":11000,"ev":"press","side":"white"}
{"t":12000,"ev":"choose","side":"black","option":"restore"}
{"t":13000,"ev":"lift","sq":"d4"}
{"t":13500,"ev":"place","sq":"d5"}
{"t":14000,"ev":"lift","sq":"g1"}
{"t":14500,"ev":"place","sq":"f3"}
{"t":15000,"ev":"press","side":"white"}
{"t":18000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"d7d5","san":"d5","white_ms":297000,"black_ms":296000}
{"t":10500,"effect":"displaced","side":"white","squares":["d4"]}
{"t":11000,"effect":"choice","side":"black","law":"1858.10","options":["take","restore"]}
{"t":13000,"effect":"restored","side":"white","ms":2500}
{"t":15000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":289000,"black_ms":296000}"#,
    );
}

/// A.5 and 5.1.1: Ra1-b8 is no rook's move and would mate: a game never
/// ends on a false move, so it is refused as an illegal move (1 minute to
/// Black in blitz), not a checkmate.
#[test]
fn a5_a_false_move_that_would_mate_is_an_illegal_move() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"180+2","mode":"blitz","laws":"fide-2023-unsupervised","fen":"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"a1"}
{"t":1500,"ev":"place","sq":"b8"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"violation","side":"white","law":"7.5.1","detail":"Illegal move: restore a1 b8 and make a legal move"}
{"t":2000,"effect":"time_added","side":"black","ms":60000,"law":"7.5.5"}"#,
    );
}

/// 1858, 11ª: White's queen takes his own d2 pawn and he presses, the pawn
/// in his hand: nothing is completed, and Black chooses `second`: the board
/// set right, the pawn must be played (Nf3 refused, d4 completes). What
/// White touched binds him to nothing more (7ª yields to the penalty).
#[test]
fn regence_11_taking_ones_own_piece_obliges_one_of_the_two() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"e7"}
{"t":4500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":8000,"ev":"lift","sq":"d1"}
{"t":8300,"ev":"lift","sq":"d2"}
{"t":8500,"ev":"place","sq":"d2"}
{"t":9000,"ev":"press","side":"white"}
{"t":10000,"ev":"choose","side":"black","option":"second"}
{"t":11000,"ev":"lift","sq":"d2"}
{"t":11200,"ev":"place","sq":"d1"}
{"t":11400,"ev":"place","sq":"d2"}
{"t":12000,"ev":"lift","sq":"g1"}
{"t":12200,"ev":"place","sq":"f3"}
{"t":12500,"ev":"press","side":"white"}
{"t":13000,"ev":"lift","sq":"f3"}
{"t":13200,"ev":"place","sq":"g1"}
{"t":13500,"ev":"lift","sq":"d2"}
{"t":13700,"ev":"place","sq":"d4"}
{"t":14000,"ev":"press","side":"white"}
{"t":15000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":7000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":297000,"black_ms":296000}
{"t":9000,"effect":"choice","side":"black","law":"1858.11","options":["first","second"]}
{"t":12500,"effect":"violation","side":"white","law":"1858.11","detail":"Penalty: move the piece from d2"}
{"t":14000,"effect":"move","side":"white","n":2,"uci":"d2d4","san":"d4","white_ms":290000,"black_ms":296000}"#,
    );
}

/// 1858, 15ª: White plays e4 and then Nf3 before pressing. The press
/// completes e4, Black's turn is recorded as passed (`--`), Nf3 after it,
/// and Black chooses `undo`: Nf3 and the passed turn are taken back, the
/// clocks put back to the start of Black's turn, and White sets the
/// knight back on his own time (1.5 s); then Black plays.
#[test]
fn regence_15_a_second_move_is_undone_at_the_opponents_demand() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"lift","sq":"g1"}
{"t":2500,"ev":"place","sq":"f3"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"choose","side":"white","option":"undo"}
{"t":4500,"ev":"choose","side":"black","option":"rook"}
{"t":5000,"ev":"choose","side":"black","option":"undo"}
{"t":6000,"ev":"lift","sq":"f3"}
{"t":6500,"ev":"place","sq":"g1"}
{"t":7000,"ev":"lift","sq":"e7"}
{"t":7500,"ev":"place","sq":"e5"}
{"t":8000,"ev":"press","side":"black"}
{"t":9000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"black","n":1,"uci":"0000","san":"--","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"choice","side":"black","law":"1858.15","options":["undo","keep"]}
{"t":5000,"effect":"takeback","side":"white","n":2,"san":"Nf3"}
{"t":5000,"effect":"takeback","side":"black","n":1,"san":"--"}
{"t":8000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":295500,"black_ms":298500}"#,
    );
}

/// 1858, 15ª: Black chooses `keep`: both moves stand, and the score reads
/// as it was played, Black's turn passed (`1. e4 -- 2. Nf3 e5`).
#[test]
fn regence_15_keep_lets_both_moves_stand_and_the_score_shows_the_passed_turn() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"lift","sq":"g1"}
{"t":2500,"ev":"place","sq":"f3"}
{"t":3000,"ev":"press","side":"white"}
{"t":5000,"ev":"choose","side":"black","option":"keep"}
{"t":6000,"ev":"lift","sq":"e7"}
{"t":6500,"ev":"place","sq":"e5"}
{"t":7000,"ev":"press","side":"black"}
{"t":9000,"ev":"end"}
"#;
    assert_replays(
        script,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"black","n":1,"uci":"0000","san":"--","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"white","n":2,"uci":"g1f3","san":"Nf3","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"choice","side":"black","law":"1858.15","options":["undo","keep"]}
{"t":7000,"effect":"move","side":"black","n":2,"uci":"e7e5","san":"e5","white_ms":297000,"black_ms":296000}"#,
    );
    let lines: Vec<String> = script.lines().map(str::to_owned).collect();
    let tags = tocada::pgn::Tags {
        event: "t".into(),
        site: "?".into(),
        date: "????.??.??".into(),
        round: "-".into(),
        white: "?".into(),
        black: "?".into(),
        time_control: "300".into(),
        ..Default::default()
    };
    let pgn = tocada::transcript::pgn_from_lines(&lines, tags).expect("the lines make a game");
    let moves = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        moves.contains("1. e4 {[%clk 0:04:57]} -- {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:57]}"),
        "{pgn}"
    );
    assert!(moves.contains("2... e5 {[%clk 0:04:56]}"), "{pgn}");
}

/// 1858, 15ª: the opponent who does not demand the undo before his own
/// move has let the second move stand (as 14ª for a false move): a later
/// `choose` is dropped.
#[test]
fn regence_15_the_demand_lapses_with_the_opponents_move() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"lift","sq":"e4"}
{"t":2500,"ev":"place","sq":"e5"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"lift","sq":"d7"}
{"t":4500,"ev":"place","sq":"d5"}
{"t":5000,"ev":"press","side":"black"}
{"t":6000,"ev":"choose","side":"black","option":"undo"}
{"t":7000,"ev":"lift","sq":"g1"}
{"t":7500,"ev":"place","sq":"f3"}
{"t":8000,"ev":"press","side":"white"}
{"t":9000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"black","n":1,"uci":"0000","san":"--","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"move","side":"white","n":2,"uci":"e4e5","san":"e5","white_ms":297000,"black_ms":300000}
{"t":3000,"effect":"choice","side":"black","law":"1858.15","options":["undo","keep"]}
{"t":5000,"effect":"move","side":"black","n":2,"uci":"d7d5","san":"d5","white_ms":297000,"black_ms":298000}
{"t":8000,"effect":"move","side":"white","n":3,"uci":"g1f3","san":"Nf3","white_ms":294000,"black_ms":298000}"#,
    );
}

/// 1858, 19ª–20ª: castling through f1, which Black's rook attacks (one of
/// the six cases today's rules forbid as well). White puts his king on g1
/// and his rook on f1 and presses: nothing is completed, no illegal move
/// is counted, and Black chooses `king`. The board set back, Rh4 is
/// refused under 20ª, Kd1 completes.
#[test]
fn regence_20_castling_through_an_attacked_square_gives_king_or_rook() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1400,"ev":"lift","sq":"h1"}
{"t":1600,"ev":"place","sq":"f1"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"choose","side":"black","option":"king"}
{"t":3500,"ev":"lift","sq":"f1"}
{"t":3600,"ev":"place","sq":"h1"}
{"t":3700,"ev":"lift","sq":"g1"}
{"t":3800,"ev":"place","sq":"e1"}
{"t":4000,"ev":"lift","sq":"h1"}
{"t":4200,"ev":"place","sq":"h4"}
{"t":4500,"ev":"press","side":"white"}
{"t":4800,"ev":"lift","sq":"h4"}
{"t":4900,"ev":"place","sq":"h1"}
{"t":5000,"ev":"lift","sq":"e1"}
{"t":5200,"ev":"place","sq":"d1"}
{"t":5500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}
{"t":4500,"effect":"violation","side":"white","law":"1858.20","detail":"Penalty: move the king"}
{"t":5500,"effect":"move","side":"white","n":1,"uci":"e1d1","san":"Kd1","white_ms":294500,"black_ms":300000}"#,
    );
}

/// 1858, 19ª–20ª: a bishop stands between ("cuando hay pieza
/// intermedia"); the king set down on g1, the rook left on h1, is a touch
/// to castle: Black chooses `rook`, and the rook must move.
#[test]
fn regence_20_the_king_alone_put_beside_a_piece_between_gives_king_or_rook() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/8/4KB1R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"choose","side":"black","option":"rook"}
{"t":3700,"ev":"lift","sq":"g1"}
{"t":3800,"ev":"place","sq":"e1"}
{"t":4000,"ev":"lift","sq":"h1"}
{"t":4200,"ev":"place","sq":"h5"}
{"t":4500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}
{"t":4500,"effect":"move","side":"white","n":1,"uci":"h1h5","san":"Rh5","white_ms":295500,"black_ms":300000}"#,
    );
}

/// 1858, 20ª "á no ser que hubiera dicho compongo": the king touched after
/// the adjust button is not touched to castle, so no choice; pressed on
/// the board, the castling is an illegal move as under `fide-2023`.
#[test]
fn regence_20_compongo_before_the_touch_gives_no_choice() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":500,"ev":"adjust","side":"white"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1400,"ev":"lift","sq":"h1"}
{"t":1600,"ev":"place","sq":"f1"}
{"t":2000,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"violation","side":"white","law":"7.5.1","detail":"Illegal move: restore e1 f1 g1 h1 and make a legal move"}
{"t":2000,"effect":"time_added","side":"black","ms":120000,"law":"7.5.5"}"#,
    );
}

/// 1858, 20ª: castling out of the knight's check, with neither king nor
/// rook able to move: no penalty can be given, so the press is refused
/// under 20ª without the penalty of an illegal move (no time added), and
/// White, the board set back, parries the check as he likes.
#[test]
fn regence_20_no_penalty_when_neither_piece_can_move() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"5rk1/8/8/8/8/3n4/3PP3/3QK2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1400,"ev":"lift","sq":"h1"}
{"t":1600,"ev":"place","sq":"f1"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"lift","sq":"f1"}
{"t":3100,"ev":"place","sq":"h1"}
{"t":3200,"ev":"lift","sq":"g1"}
{"t":3300,"ev":"place","sq":"e1"}
{"t":4000,"ev":"lift","sq":"d3"}
{"t":4100,"ev":"lift","sq":"e2"}
{"t":4200,"ev":"place","sq":"d3"}
{"t":4500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"violation","side":"white","law":"1858.20","detail":"Castling is not allowed here: restore e1 f1 g1 h1 and move"}
{"t":4500,"effect":"move","side":"white","n":1,"uci":"e2d3","san":"exd3","white_ms":295500,"black_ms":300000}"#,
    );
}

/// 1858, 20ª for a touch to castle given up: White sets his king on g1
/// (castling across f1, which Black's rook attacks, is not allowed), takes
/// it back to e1 and plays Nc3. The move is completed, and Black chooses
/// `rook` in place of 7ª's touched king: Nc3 is taken back and the rook
/// must move.
#[test]
fn regence_20_a_touch_to_castle_given_up_gives_king_or_rook() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/5r2/1N2K2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1500,"ev":"lift","sq":"g1"}
{"t":1700,"ev":"place","sq":"e1"}
{"t":2000,"ev":"lift","sq":"b1"}
{"t":2200,"ev":"place","sq":"c3"}
{"t":2500,"ev":"press","side":"white"}
{"t":3000,"ev":"choose","side":"black","option":"rook"}
{"t":3500,"ev":"lift","sq":"c3"}
{"t":3700,"ev":"place","sq":"b1"}
{"t":4000,"ev":"lift","sq":"h1"}
{"t":4200,"ev":"place","sq":"h5"}
{"t":4500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2500,"effect":"move","side":"white","n":1,"uci":"b1c3","san":"Nc3","white_ms":297500,"black_ms":300000}
{"t":2500,"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}
{"t":3000,"effect":"takeback","side":"white","n":1,"san":"Nc3"}
{"t":4500,"effect":"move","side":"white","n":1,"uci":"h1h5","san":"Rh5","white_ms":298500,"black_ms":300000}"#,
    );
}

/// 1858, 20ª: after *compongo* the king set on g1 and taken back was no
/// touch to castle, and the adjust excused the touch: Nc3 stands.
#[test]
fn regence_20_compongo_excuses_a_touch_to_castle_given_up() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/5r2/1N2K2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":500,"ev":"adjust","side":"white"}
{"t":1000,"ev":"lift","sq":"e1"}
{"t":1200,"ev":"place","sq":"g1"}
{"t":1500,"ev":"lift","sq":"g1"}
{"t":1700,"ev":"place","sq":"e1"}
{"t":2000,"ev":"lift","sq":"b1"}
{"t":2200,"ev":"place","sq":"c3"}
{"t":2500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2500,"effect":"move","side":"white","n":1,"uci":"b1c3","san":"Nc3","white_ms":297500,"black_ms":300000}"#,
    );
}

/// 1858, 15ª after the press: White plays e4, presses, and on Black's time
/// plays Nf3 too. The board credits the hands to Black, the player having
/// the move (his displacement); Black's claim says they were White's: it
/// is upheld under 15ª as the demand to undo, the knight is White's
/// displacement, set back on White's clock, and Black's own move follows
/// with no obligation from White's knight.
#[test]
fn regence_15_a_second_move_after_the_press_is_undone_on_the_opponents_claim() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
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
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":6000,"effect":"displaced","side":"black","squares":["g1"]}
{"t":7000,"effect":"claim","side":"black","law":"1858.15","upheld":true}
{"t":7000,"effect":"displaced","side":"white","squares":["g1","f3"]}
{"t":8200,"effect":"restored","side":"white","ms":1200}
{"t":10000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":295800,"black_ms":294200}"#,
    );
}

/// 1858, 15ª: a claim with no second move on the board fails, as any
/// claim with nothing to claim (noted under 4.8), and changes nothing.
#[test]
fn regence_15_a_claim_with_no_second_move_fails() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":3000,"ev":"press","side":"white"}
{"t":4000,"ev":"claim","side":"black"}
{"t":5000,"ev":"lift","sq":"e7"}
{"t":5200,"ev":"place","sq":"e5"}
{"t":6000,"ev":"press","side":"black"}
{"t":7000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":3000,"effect":"move","side":"white","n":1,"uci":"e2e4","san":"e4","white_ms":297000,"black_ms":300000}
{"t":4000,"effect":"claim","side":"black","law":"4.8","upheld":false}
{"t":6000,"effect":"move","side":"black","n":1,"uci":"e7e5","san":"e5","white_ms":297000,"black_ms":297000}"#,
    );
}

/// 1858, 20ª, the rook first: Rf1 is a rook's move, made when released
/// (4.7); the king set down on g1 after it, castling across the attacked
/// f1 not being allowed, shows the touch to castle. At the press the rook's
/// move is completed and Black chooses `king`: it is taken back, the board
/// set back, and the king must move.
#[test]
fn regence_20_rook_first_then_king_gives_king_or_rook() {
    assert_replays(
        r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858","fen":"4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"h1"}
{"t":1200,"ev":"place","sq":"f1"}
{"t":1400,"ev":"lift","sq":"e1"}
{"t":1600,"ev":"place","sq":"g1"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"choose","side":"black","option":"king"}
{"t":3500,"ev":"lift","sq":"f1"}
{"t":3600,"ev":"place","sq":"h1"}
{"t":3700,"ev":"lift","sq":"g1"}
{"t":3800,"ev":"place","sq":"e1"}
{"t":4000,"ev":"lift","sq":"h1"}
{"t":4200,"ev":"place","sq":"h4"}
{"t":4500,"ev":"press","side":"white"}
{"t":4800,"ev":"lift","sq":"h4"}
{"t":4900,"ev":"place","sq":"h1"}
{"t":5000,"ev":"lift","sq":"e1"}
{"t":5200,"ev":"place","sq":"d1"}
{"t":5500,"ev":"press","side":"white"}
{"t":6000,"ev":"end"}
"#,
        r#"{"t":0,"effect":"started","side":"white"}
{"t":2000,"effect":"move","side":"white","n":1,"uci":"h1f1","san":"Rf1","white_ms":298000,"black_ms":300000}
{"t":2000,"effect":"choice","side":"black","law":"1858.20","options":["king","rook"]}
{"t":3000,"effect":"takeback","side":"white","n":1,"san":"Rf1"}
{"t":4500,"effect":"violation","side":"white","law":"1858.20","detail":"Penalty: move the king"}
{"t":5500,"effect":"move","side":"white","n":1,"uci":"e1d1","san":"Kd1","white_ms":297500,"black_ms":300000}"#,
    );
}
