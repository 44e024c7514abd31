//! Art. 6.2.3, 7.4 and 7.5: presses with a piece in hand, illegal moves,
//! displaced pieces.

mod support {
    pub mod referee;
}

use shakmaty::{Piece, Role};
use support::referee::*;
use tocada::{Effect, Enforcement, GameMode, Input, KnownOutcome, Law, Reason, Rules, Ruling};

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
