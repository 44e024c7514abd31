//! Art. 6.2.3, 7.4 and 7.5: presses with a piece in hand, illegal moves,
//! displaced pieces.

mod support {
    pub mod referee;
}

use shakmaty::{Piece, Role};
use support::referee::*;
use tocada::{
    CompletedMove, Effect, Enforcement, GameMode, Input, KnownOutcome, Law, MoveText, Reason,
    Rules, Ruling,
};

fn laws(effects: &[Effect]) -> Vec<(Law, bool)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Violation(Ruling { law, .. }) => Some((*law, true)),
            Effect::Warning(Ruling { law, .. }) => Some((*law, false)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_press_with_a_piece_still_in_hand_is_refused_without_penalty() {
    let mut game = Game::started(Rules::default());
    game.at(1_000, Input::Lift(sq("g1")));
    let effects = game.at(1_200, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::PressHand, true)]);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::TimeAdded { .. }))
    );
    assert_eq!(game.referee.ticking(), Some(WHITE));
    game.at(1_500, Input::Place(sq("f3"), None));
    assert_eq!(Game::moves(&game.at(2_000, Input::Press(WHITE))), ["Nf3"]);
}

#[test]
fn a_press_right_after_the_release_is_a_warning_and_counts() {
    let mut game = Game::started(Rules::default());
    game.inputs(
        1_000,
        &[Input::Lift(sq("e2")), Input::Place(sq("e4"), None)],
    );
    let effects = game.at(1_150, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::PressHand, false)]);
    assert_eq!(Game::moves(&effects), ["e4"]);
    // Near miss: 100 ms is enough.
    game.inputs(
        2_000,
        &[Input::Lift(sq("e7")), Input::Place(sq("e5"), None)],
    );
    let effects = game.at(2_200, Input::Press(BLACK));
    assert_eq!(laws(&effects), []);
}

#[test]
fn a_press_without_a_move_is_an_illegal_move_with_a_penalty() {
    let mut game = Game::started(Rules::default());
    let effects = game.at(1_000, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::NoMove, true)]);
    assert!(effects.contains(&Effect::TimeAdded {
        side: BLACK,
        ms: 120_000,
        law: Law::IllegalMovePenalty
    }));
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.remaining(BLACK, 1_000), 5_400_000 + 120_000);
}

#[test]
fn the_penalty_is_one_minute_in_rapid_and_blitz() {
    for mode in [GameMode::Rapid, GameMode::Blitz] {
        let mut game = Game::started(Rules {
            mode,
            ..Rules::default()
        });
        let effects = game.at(1_000, Input::Press(WHITE));
        assert!(effects.contains(&Effect::TimeAdded {
            side: BLACK,
            ms: 60_000,
            law: Law::IllegalMovePenalty
        }));
    }
}

#[test]
fn an_illegal_move_is_refused_and_the_position_must_be_restored() {
    let mut game = Game::started(Rules::default());
    // The knight jumps to e3: not a knight move.
    game.inputs(
        1_000,
        &[Input::Lift(sq("g1")), Input::Place(sq("e3"), None)],
    );
    let effects = game.at(2_000, Input::Press(WHITE));
    match &effects[..] {
        [
            Effect::Violation(Ruling {
                side: WHITE,
                law: Law::IllegalMove,
                detail,
            }),
            Effect::TimeAdded {
                side: BLACK,
                ms: 120_000,
                ..
            },
        ] => {
            assert_eq!(detail, "Illegal move: restore g1 e3 and make a legal move");
        }
        other => panic!("{other:?}"),
    }
    // Restored and replaced: 4.3 applies, the touched knight must move.
    game.inputs(
        3_000,
        &[Input::Lift(sq("e3")), Input::Place(sq("g1"), None)],
    );
    let effects = game.play_and_press(4_000, "e2e4");
    assert_eq!(laws(&effects), [(Law::TouchedOwn, true)]);
    let effects = game.inputs(
        6_000,
        &[Input::Lift(sq("e4")), Input::Place(sq("e2"), None)],
    );
    assert_eq!(effects, []);
    let effects = game.play_and_press(7_000, "g1f3");
    assert_eq!(Game::moves(&effects), ["Nf3"]);
}

#[test]
fn the_second_illegal_move_loses() {
    let mut game = Game::started(Rules::default());
    game.at(1_000, Input::Press(WHITE));
    let effects = game.at(2_000, Input::Press(WHITE));
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::IllegalMoves
        })
    );
    // Near miss: one each does not end anything.
    let mut game = Game::started(Rules::default());
    game.at(1_000, Input::Press(WHITE));
    game.play_and_press(2_000, "e2e4");
    let effects = game.at(3_000, Input::Press(BLACK));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Result { .. })));
}

#[test]
fn the_second_illegal_move_against_a_bare_king_draws() {
    let mut game = Game::started(Rules {
        start: fen("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"),
        ..Rules::default()
    });
    game.at(1_000, Input::Press(WHITE));
    let effects = game.at(2_000, Input::Press(WHITE));
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::IllegalMoves
        })
    );
}

#[test]
fn an_unpromoted_pawn_pressed_on_the_last_rank_becomes_a_queen() {
    let pawn = Some(Piece {
        color: WHITE,
        role: Role::Pawn,
    });
    let mut game = Game::started(Rules {
        start: fen("k7/4P3/8/8/8/8/7p/4K3 w - - 0 1"),
        ..Rules::default()
    });
    game.inputs(
        1_000,
        &[Input::Lift(sq("e7")), Input::Place(sq("e8"), pawn)],
    );
    let effects = game.at(2_000, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::Unpromoted, true)]);
    assert!(effects.contains(&Effect::TimeAdded {
        side: BLACK,
        ms: 120_000,
        law: Law::IllegalMovePenalty
    }));
    assert_eq!(Game::moves(&effects), ["e8=Q+"]);
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn record_mode_logs_an_illegal_move_without_penalty() {
    let mut game = Game::started(Rules {
        enforcement: Enforcement::Record,
        ..Rules::default()
    });
    let effects = game.at(1_000, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::NoMove, true)]);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::TimeAdded { .. }))
    );
    game.at(2_000, Input::Press(WHITE));
    assert_eq!(game.referee.result(), None);
}

#[test]
fn a_knocked_piece_is_charged_to_the_player_whose_clock_runs() {
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4");
    // Long after White's press, during Black's turn, a white piece that
    // Black cannot capture falls off: charged to Black, whose clock runs.
    let effects = game.at(10_000, Input::Lift(sq("a2")));
    assert_eq!(
        effects,
        [Effect::Displaced {
            side: BLACK,
            squares: vec![sq("a2")]
        }]
    );
    let effects = game.at(13_000, Input::Place(sq("a2"), None));
    assert_eq!(
        effects,
        [Effect::Restored {
            side: BLACK,
            ms: 3_000
        }]
    );
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn a_knock_right_after_a_press_is_charged_to_the_player_who_pressed() {
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4"); // pressed at 1 400
    let white_before = game.referee.remaining(WHITE, 1_400);
    let black_before = game.referee.remaining(BLACK, 1_400);
    let effects = game.at(2_400, Input::Lift(sq("h2")));
    assert_eq!(
        effects,
        [Effect::Displaced {
            side: WHITE,
            squares: vec![sq("h2")]
        }]
    );
    assert_eq!(game.referee.ticking(), Some(WHITE));
    let effects = game.at(6_400, Input::Place(sq("h2"), None));
    assert_eq!(
        effects,
        [Effect::Restored {
            side: WHITE,
            ms: 4_000
        }]
    );
    assert_eq!(game.referee.ticking(), Some(BLACK));
    assert_eq!(game.referee.remaining(WHITE, 6_400), white_before - 4_000);
    // Black was charged only the second before the knock.
    assert_eq!(game.referee.remaining(BLACK, 6_400), black_before - 1_000);
}

#[test]
fn a_piece_knocked_to_another_square_is_restored_when_both_squares_are_right() {
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4");
    let effects = game.inputs(
        10_000,
        &[Input::Lift(sq("d7")), Input::Place(sq("d6"), None)],
    );
    // d7 is Black's own pawn: lifting it is a touch; placing it on d6 is a move.
    assert_eq!(effects, []);
    // A white piece knocked onto an empty square is a displacement of two squares.
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4");
    let effects = game.inputs(
        10_000,
        &[Input::Lift(sq("a2")), Input::Place(sq("a3"), None)],
    );
    assert_eq!(
        effects,
        [Effect::Displaced {
            side: BLACK,
            squares: vec![sq("a2")]
        }]
    );
    assert_eq!(game.at(12_000, Input::Lift(sq("a3"))), []);
    assert_eq!(
        game.at(13_000, Input::Place(sq("a2"), None)),
        [Effect::Restored {
            side: BLACK,
            ms: 3_000
        }]
    );
}

#[test]
fn near_miss_lifting_own_pieces_and_removing_capturable_ones_is_no_displacement() {
    let mut game = Game::started(Rules {
        start: fen("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        ..Rules::default()
    });
    let effects = game.inputs(1_000, &[Input::Lift(sq("b1")), Input::Lift(sq("d5"))]);
    assert_eq!(effects, []);
}

#[test]
fn a_move_cannot_be_made_while_pieces_are_displaced() {
    let mut game = Game::started(Rules::default());
    // Outside the knock window of Black's start press: White is charged.
    let effects = game.at(2_500, Input::Lift(sq("a7")));
    assert_eq!(
        effects,
        [Effect::Displaced {
            side: WHITE,
            squares: vec![sq("a7")]
        }]
    );
    let effects = game.play(3_000, "e2e4");
    assert_eq!(effects, []);
    // 7.4, not 7.5: the press waits for the board, with no penalty.
    let effects = game.at(4_000, Input::Press(WHITE));
    assert_eq!(laws(&effects), [(Law::Displaced, true)]);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::TimeAdded { .. }))
    );
    // Restoring the knocked pawn lets the move stand.
    let effects = game.at(5_000, Input::Place(sq("a7"), None));
    assert_eq!(
        effects,
        [Effect::Restored {
            side: WHITE,
            ms: 2_500
        }]
    );
    assert_eq!(Game::moves(&game.at(6_000, Input::Press(WHITE))), ["e4"]);

    // Near miss: inside the window after Black's start press, Black pays.
    let mut game = Game::started(Rules::default());
    let effects = game.at(500, Input::Lift(sq("a7")));
    assert_eq!(
        effects,
        [Effect::Displaced {
            side: BLACK,
            squares: vec![sq("a7")]
        }]
    );
}

/// A completed move, as the referee reports it.
fn completed(
    side: shakmaty::Color,
    number: u32,
    uci: &str,
    san: &str,
    clocks: (u64, u64),
) -> Effect {
    Effect::Move(CompletedMove {
        side,
        number,
        uci: MoveText::new(uci).unwrap(),
        san: MoveText::new(san).unwrap(),
        white_ms: clocks.0,
        black_ms: clocks.1,
    })
}

/// 1.e4 pressed at 2 600; at 3 100, inside the knock window of that press,
/// White knocks his g1 knight off and at 3 300 puts it down on f3, the
/// wrong square: his displacement of g1 and f3 (7.4.1), charged to him
/// from the knock. Black's clock ran 500 ms.
fn knight_knocked_onto_f3() -> Game {
    let mut game = Game::started(Rules::default());
    assert_eq!(game.play(2_000, "e2e4"), []);
    assert_eq!(
        game.at(2_600, Input::Press(WHITE)),
        [completed(WHITE, 1, "e2e4", "e4", (5_427_400, 5_400_000))]
    );
    assert_eq!(
        game.at(3_100, Input::Lift(sq("g1"))),
        [Effect::Displaced {
            side: WHITE,
            squares: vec![sq("g1")]
        }]
    );
    assert_eq!(game.at(3_300, Input::Place(sq("f3"), None)), []);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    game
}

/// The position after 1.e4 e5, which the board must show once the knight
/// is back: no move of White's is made by re-establishing it.
const AFTER_E4_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

#[test]
fn a_knocked_piece_put_on_a_wrong_square_is_restored_by_its_displacer_inside_the_opponents_knock_window()
 {
    let mut game = knight_knocked_onto_f3();
    // Black moves and presses while the knight stands on f3; his clock
    // stopped at the knock, White's ran for the displacement.
    assert_eq!(game.play(5_000, "e7e5"), []);
    assert_eq!(
        game.at(5_600, Input::Press(BLACK)),
        [completed(BLACK, 1, "e7e5", "e5", (5_424_900, 5_429_500))]
    );
    // White, on his own time and inside the knock window of Black's press,
    // takes the knight off f3 (it is not back yet: nothing happens, and the
    // knock's lift and place made in Black's turn are no move of White's)...
    assert_eq!(game.at(7_000, Input::Lift(sq("f3"))), []);
    assert_eq!(game.referee.position(), &fen(AFTER_E4_E5));
    assert!(!game.referee.awaits_press(WHITE));
    // ...and puts it back on g1: his displacement ends, 4 200 ms since the
    // knock, and nothing is charged to Black, who touched nothing.
    assert_eq!(
        game.at(7_300, Input::Place(sq("g1"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 4_200
        }]
    );
    assert_eq!(game.referee.position(), &fen(AFTER_E4_E5));
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.remaining(BLACK, 7_300), 5_429_500);
    // Ng1-f3 afterwards is White's move like any other: no touch-move
    // ruling for the knight taken up to be re-established.
    assert_eq!(game.play(9_000, "g1f3"), []);
    assert_eq!(
        game.at(9_600, Input::Press(WHITE)),
        [completed(WHITE, 2, "g1f3", "Nf3", (5_450_900, 5_429_500))]
    );
}

#[test]
fn a_knocked_piece_put_on_a_wrong_square_is_restored_before_the_opponent_moves() {
    let mut game = knight_knocked_onto_f3();
    // Still in Black's turn and inside the knock window of White's press.
    assert_eq!(game.at(3_600, Input::Lift(sq("f3"))), []);
    assert_eq!(
        game.at(3_800, Input::Place(sq("g1"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 700
        }]
    );
    // Black's clock runs again: his move is his own.
    assert_eq!(game.referee.ticking(), Some(BLACK));
    assert_eq!(game.play(5_000, "e7e5"), []);
    assert_eq!(
        game.at(5_600, Input::Press(BLACK)),
        // White: 700 ms of displacement. Black: 500 ms before the knock,
        // 1 800 ms after the knight was back, 30 s increment.
        [completed(BLACK, 1, "e7e5", "e5", (5_426_700, 5_427_700))]
    );
    assert_eq!(game.play(7_000, "g1f3"), []);
    assert_eq!(Game::moves(&game.at(7_500, Input::Press(WHITE))), ["Nf3"]);
}

#[test]
fn a_knocked_piece_put_on_a_wrong_square_is_restored_after_the_opponents_move() {
    let mut game = knight_knocked_onto_f3();
    assert_eq!(game.play(5_000, "e7e5"), []);
    assert_eq!(Game::moves(&game.at(5_600, Input::Press(BLACK))), ["e5"]);
    // Long after Black's press: White's time, White's displacement.
    assert_eq!(game.at(9_000, Input::Lift(sq("f3"))), []);
    assert_eq!(
        game.at(9_300, Input::Place(sq("g1"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 6_200
        }]
    );
    assert_eq!(game.referee.position(), &fen(AFTER_E4_E5));
    // Re-establishing the knight obliges White to move nothing (4.3.1):
    // he plays a pawn.
    assert_eq!(game.play(10_000, "d2d4"), []);
    let effects = game.at(10_500, Input::Press(WHITE));
    assert_eq!(laws(&effects), []);
    assert_eq!(Game::moves(&effects), ["d4"]);
}

#[test]
fn near_miss_a_knocked_piece_held_over_the_opponents_move_and_released_in_turn_is_a_move() {
    // White knocks the knight off and holds it while Black moves and
    // presses; he releases it on f3 in his own turn: a move (4.7), which
    // re-establishes g1 too. Unlike a knight put down on f3 in Black's turn.
    let mut game = Game::started(Rules::default());
    game.play_and_press(2_000, "e2e4"); // pressed at 2 400
    assert_eq!(
        game.at(3_000, Input::Lift(sq("g1"))),
        [Effect::Displaced {
            side: WHITE,
            squares: vec![sq("g1")]
        }]
    );
    assert_eq!(Game::moves(&game.play_and_press(4_000, "e7e5")), ["e5"]);
    assert_eq!(game.referee.position(), &fen(AFTER_E4_E5));
    assert_eq!(
        game.at(5_000, Input::Place(sq("f3"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 2_000
        }]
    );
    assert!(game.referee.awaits_press(WHITE));
    let effects = game.at(5_300, Input::Press(WHITE));
    assert_eq!(laws(&effects), []);
    assert_eq!(Game::moves(&effects), ["Nf3"]);
}

#[test]
fn re_establishing_a_displaced_piece_is_no_touch_that_rejects_a_draw_offer() {
    let mut game = knight_knocked_onto_f3();
    assert_eq!(game.play(5_000, "e7e5"), []);
    assert_eq!(
        game.at(5_300, Input::Draw(BLACK)),
        [Effect::DrawOffer {
            side: BLACK,
            proper: true
        }]
    );
    assert_eq!(Game::moves(&game.at(5_600, Input::Press(BLACK))), ["e5"]);
    // White takes up his displaced knight to put it back: no intent to
    // move it (4.2.2), so Black's offer stands (9.1.2.1)...
    assert_eq!(game.at(8_000, Input::Lift(sq("f3"))), []);
    assert_eq!(
        game.at(8_300, Input::Place(sq("g1"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 5_200
        }]
    );
    assert_eq!(game.referee.draw_offer(), Some(BLACK));
    // ...until he touches a piece to move it.
    assert_eq!(
        game.at(9_000, Input::Lift(sq("d2"))),
        [Effect::DrawDeclined {
            side: BLACK,
            how: tocada::Rejection::Touch
        }]
    );
}

#[test]
fn a_knocked_piece_taken_up_in_its_players_turn_may_go_straight_to_its_move() {
    // Taken off f3 and released on a square the g1 knight can go to, in
    // White's turn: his move from g1 (4.7), which re-establishes g1. Put
    // down on f3 again it is Nf3; on h3, Nh3.
    for (to, uci, san) in [("f3", "g1f3", "Nf3"), ("h3", "g1h3", "Nh3")] {
        let mut game = knight_knocked_onto_f3();
        assert_eq!(game.play(5_000, "e7e5"), []);
        assert_eq!(Game::moves(&game.at(5_600, Input::Press(BLACK))), ["e5"]);
        assert_eq!(game.at(7_000, Input::Lift(sq("f3"))), [], "{to}");
        assert!(!game.referee.awaits_press(WHITE), "in hand, not made");
        assert_eq!(
            game.at(7_300, Input::Place(sq(to), None)),
            [Effect::Restored {
                side: WHITE,
                ms: 4_200
            }],
            "{to}"
        );
        assert_eq!(
            game.at(8_000, Input::Press(WHITE)),
            [completed(WHITE, 2, uci, san, (5_452_500, 5_429_500))],
            "{to}"
        );
    }
}

#[test]
fn a_piece_put_back_by_another_hand_is_its_own_square_s_piece() {
    // White knocks the c8 bishop onto c4, then plays the c-pawn by lifting
    // it and putting "it" on c8: a board without identity takes the latest
    // piece lifted for the one put down, yet c8 is re-established with the
    // bishop and the move is c4.
    let mut game = Game::started(Rules::default());
    game.at(10_000, Input::Lift(sq("c8")));
    game.at(10_500, Input::Place(sq("c4"), None));
    game.at(12_000, Input::Lift(sq("c2")));
    let effects = game.at(13_000, Input::Place(sq("c8"), None));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Restored { side: WHITE, .. })),
        "{effects:?}"
    );
    assert_eq!(Game::moves(&game.at(13_500, Input::Press(WHITE))), ["c4"]);
    // c8 holds Black's bishop: a press with it in Black's hand is a press
    // with a piece in hand (6.2.3), not a press without a move.
    game.at(15_000, Input::Lift(sq("c8")));
    let effects = game.at(15_500, Input::Press(BLACK));
    assert_eq!(laws(&effects), [(Law::PressHand, true)]);
    game.at(16_000, Input::Place(sq("c8"), None));
    assert_eq!(game.play_and_press(17_000, "b8c6").len(), 1);
}
