//! Art. 4: touched pieces, castling, the released piece, adjusting.

mod support {
    pub mod referee;
}

use support::referee::*;
use tocada::{Effect, Enforcement, Input, Law, Rules, Ruling};

fn violations(effects: &[Effect]) -> Vec<(Law, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Violation(Ruling { law, detail, .. }) => Some((*law, detail.clone())),
            _ => None,
        })
        .collect()
}

fn from(fen_text: &str) -> Game {
    Game::started(Rules {
        start: fen(fen_text),
        ..Rules::default()
    })
}

#[test]
fn touched_own_piece_must_be_moved() {
    let mut game = Game::started(Rules::default());
    game.at(500, Input::Touch(sq("g1")));
    game.at(600, Input::Untouch(sq("g1")));
    let effects = game.play_and_press(1_000, "b1c3");
    assert_eq!(
        violations(&effects),
        [(Law::TouchedOwn, "Touch-move: move the g1 knight".to_owned())]
    );
    // Refused: White's clock runs on and no move was completed.
    assert_eq!(Game::moves(&effects), Vec::<String>::new());
    assert_eq!(game.referee.ticking(), Some(WHITE));
    // White sets the board right and moves the knight he touched.
    game.inputs(
        3_000,
        &[Input::Lift(sq("c3")), Input::Place(sq("b1"), None)],
    );
    let effects = game.play_and_press(4_000, "g1f3");
    assert_eq!(Game::moves(&effects), ["Nf3"]);
    assert_eq!(violations(&effects), []);
}

#[test]
fn the_obligation_survives_a_refused_press_made_on_top_of_the_wrong_move() {
    let mut game = Game::started(Rules::default());
    game.at(500, Input::Touch(sq("e2")));
    let effects = game.play_and_press(1_000, "d2d4");
    assert_eq!(violations(&effects)[0].0, Law::TouchedOwn);
    // The correct pawn moved first, the wrong one put back after.
    game.inputs(
        3_000,
        &[Input::Lift(sq("e2")), Input::Place(sq("e4"), None)],
    );
    game.inputs(
        4_000,
        &[Input::Lift(sq("d4")), Input::Place(sq("d2"), None)],
    );
    let effects = game.at(5_000, Input::Press(WHITE));
    assert_eq!(Game::moves(&effects), ["e4"]);
}

#[test]
fn near_miss_adjusting_creates_no_obligation() {
    let mut game = Game::started(Rules::default());
    game.at(400, Input::Adjust(WHITE));
    game.inputs(
        500,
        &[
            Input::Touch(sq("g1")),
            Input::Lift(sq("g1")),
            Input::Place(sq("g1"), None),
        ],
    );
    let effects = game.play_and_press(1_000, "b1c3");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["Nc3"]);
}

#[test]
fn near_miss_a_touched_piece_that_cannot_move_obliges_nothing() {
    // 4.5: the a1 rook is boxed in.
    let mut game = Game::started(Rules::default());
    game.at(500, Input::Touch(sq("a1")));
    let effects = game.play_and_press(1_000, "e2e4");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["e4"]);
}

#[test]
fn adjusting_out_of_turn_is_a_warning() {
    let mut game = Game::started(Rules::default());
    let effects = game.at(500, Input::Adjust(BLACK));
    assert!(matches!(
        &effects[..],
        [Effect::Warning(Ruling {
            side: BLACK,
            law: Law::Adjust,
            ..
        })]
    ));
    // Near miss: the player having the move may.
    assert_eq!(game.at(600, Input::Adjust(WHITE)), []);
}

const OPEN: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

#[test]
fn touched_opponent_piece_must_be_captured() {
    let mut game = from(OPEN);
    game.at(500, Input::Touch(sq("d5")));
    let effects = game.play_and_press(1_000, "g1f3");
    assert_eq!(
        violations(&effects),
        [(
            Law::TouchedOpponent,
            "Touch-move: take the d5 pawn".to_owned()
        )]
    );
    // Near miss: an opponent piece no move can take obliges nothing.
    let mut game = from(OPEN);
    game.at(500, Input::Touch(sq("h7")));
    let effects = game.play_and_press(1_000, "g1f3");
    assert_eq!(violations(&effects), []);
}

#[test]
fn touched_both_capture_the_first_opponent_piece_with_the_first_own_piece() {
    // The c1 bishop (boxed in), then the d5 pawn: the bishop cannot take it,
    // so the first touched piece that can be moved or captured decides.
    let mut game = from(OPEN);
    game.inputs(500, &[Input::Touch(sq("c1")), Input::Touch(sq("d5"))]);
    let effects = game.play_and_press(1_000, "g1f3");
    assert_eq!(
        violations(&effects),
        [(
            Law::TouchedOpponent,
            "Touch-move: take the d5 pawn".to_owned()
        )]
    );

    // The d1 queen, then the d5 pawn: the queen cannot take it but can move.
    let mut game = from(OPEN);
    game.inputs(500, &[Input::Touch(sq("d1")), Input::Touch(sq("d5"))]);
    let effects = game.play_and_press(1_000, "g1f3");
    assert_eq!(
        violations(&effects),
        [(Law::TouchedOwn, "Touch-move: move the d1 queen".to_owned())]
    );

    // The e4 pawn, then the d5 pawn: exd5 is obligatory.
    let mut game = from(OPEN);
    game.inputs(500, &[Input::Touch(sq("e4")), Input::Touch(sq("d5"))]);
    let effects = game.play_and_press(1_000, "e4e5");
    assert_eq!(
        violations(&effects),
        [(
            Law::TouchedBoth,
            "Touch-move: take the d5 pawn with the e4 pawn".to_owned()
        )]
    );
    // Near miss: doing exactly that.
    let mut game = from(OPEN);
    game.inputs(500, &[Input::Touch(sq("e4")), Input::Touch(sq("d5"))]);
    let effects = game.play_and_press(1_000, "e4d5");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["exd5"]);
}

#[test]
fn equal_timestamps_count_the_own_piece_first() {
    // Pawn and queen touched at the same instant: own (e4) first, so exd5.
    let mut game = from(OPEN);
    game.at(500, Input::Touch(sq("d5")));
    game.at(500, Input::Touch(sq("e4")));
    let effects = game.play_and_press(1_000, "e4e5");
    assert_eq!(violations(&effects)[0].0, Law::TouchedBoth);
}

const CASTLES: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

#[test]
fn king_then_rook_must_castle_on_that_side() {
    let mut game = from(CASTLES);
    game.inputs(500, &[Input::Touch(sq("e1")), Input::Touch(sq("h1"))]);
    let effects = game.play_and_press(1_000, "e1f1");
    assert_eq!(violations(&effects)[0].0, Law::KingThenRook);
    // Near miss: castling as obliged.
    let mut game = from(CASTLES);
    game.inputs(500, &[Input::Touch(sq("e1")), Input::Touch(sq("h1"))]);
    let effects = game.play_and_press(1_000, "e1g1");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["O-O"]);
}

#[test]
fn rook_then_king_forbids_castling_on_that_side() {
    let mut game = from(CASTLES);
    game.inputs(500, &[Input::Touch(sq("h1")), Input::Touch(sq("e1"))]);
    let effects = game.play_and_press(1_000, "e1g1");
    assert_eq!(violations(&effects)[0].0, Law::RookThenKing);
    // Near miss: moving the rook.
    let mut game = from(CASTLES);
    game.inputs(500, &[Input::Touch(sq("h1")), Input::Touch(sq("e1"))]);
    let effects = game.play_and_press(1_000, "h1g1");
    assert_eq!(violations(&effects), []);
}

#[test]
fn illegal_castling_meant_obliges_another_king_move() {
    // The f1 square is attacked by the c4 bishop: O-O is illegal.
    let position = "r3k2r/pppppppp/8/8/2b5/8/PPPP2PP/R3K2R w KQkq - 0 1";
    let mut game = from(position);
    game.inputs(500, &[Input::Touch(sq("e1")), Input::Touch(sq("h1"))]);
    let effects = game.play_and_press(1_000, "h1g1");
    assert_eq!(violations(&effects)[0].0, Law::CastlingIllegal);
    // Near miss: castling on the other side is a king move, and allowed.
    let mut game = from(position);
    game.inputs(500, &[Input::Touch(sq("e1")), Input::Touch(sq("h1"))]);
    let effects = game.play_and_press(1_000, "e1c1");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["O-O-O"]);
}

#[test]
fn a_piece_released_on_a_legal_square_stays_there() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "g1f3");
    let effects = game.inputs(
        2_000,
        &[
            Input::Lift(sq("f3")),
            Input::Place(sq("h3"), None),
            Input::Press(WHITE),
        ],
    );
    assert_eq!(
        violations(&effects),
        [(
            Law::Released,
            "Released piece: the g1 knight stays on f3".to_owned()
        )]
    );
    assert_eq!(game.referee.ticking(), Some(WHITE));
    // Putting it back on f3 completes the move.
    game.inputs(
        3_000,
        &[Input::Lift(sq("h3")), Input::Place(sq("f3"), None)],
    );
    assert_eq!(Game::moves(&game.at(4_000, Input::Press(WHITE))), ["Nf3"]);
}

#[test]
fn near_miss_lifting_a_released_piece_and_putting_it_back_is_allowed() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "g1f3");
    let effects = game.inputs(
        2_000,
        &[
            Input::Lift(sq("f3")),
            Input::Place(sq("f3"), None),
            Input::Press(WHITE),
        ],
    );
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["Nf3"]);
}

#[test]
fn a_rook_released_before_the_king_is_a_rook_move() {
    let mut game = from(CASTLES);
    game.inputs(500, &[Input::Lift(sq("h1")), Input::Place(sq("f1"), None)]);
    game.inputs(
        1_000,
        &[Input::Lift(sq("e1")), Input::Place(sq("g1"), None)],
    );
    let effects = game.at(2_000, Input::Press(WHITE));
    assert!(!violations(&effects).is_empty());
    assert_eq!(Game::moves(&effects), Vec::<String>::new());
}

#[test]
fn claim_mode_shows_the_violation_and_lets_the_press_through() {
    let mut game = Game::started(Rules {
        enforcement: Enforcement::Claim,
        ..Rules::default()
    });
    game.at(500, Input::Touch(sq("g1")));
    let effects = game.play_and_press(1_000, "b1c3");
    assert_eq!(violations(&effects)[0].0, Law::TouchedOwn);
    assert_eq!(Game::moves(&effects), ["Nc3"]);
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn touches_of_the_previous_mover_on_his_own_move_are_not_the_opponents() {
    // White promotes by exchange without pressing first: his handling of e8
    // must not oblige Black to capture there.
    let mut game = Game::new(Rules {
        start: fen("4k3/8/8/8/8/8/4p3/1K6 b - - 0 1"),
        ..Rules::default()
    });
    assert_eq!(
        game.at(0, Input::Press(WHITE)),
        [Effect::Started { side: BLACK }]
    );
    game.inputs(
        500,
        &[
            Input::Lift(sq("e2")),
            Input::Place(sq("e1"), None),
            Input::Lift(sq("e1")),
            Input::Place(sq("e1"), None),
        ],
    );
    let effects = game.at(1_500, Input::Press(BLACK));
    assert_eq!(Game::moves(&effects), ["e1=Q+"]);
    assert_eq!(violations(&effects), []);
}

#[test]
fn the_previous_mover_straightening_his_pieces_before_pressing_obliges_nobody() {
    let mut game = from(OPEN);
    game.play(1_000, "g1f3");
    // Before pressing, White touches his own e4 pawn, which Black could take.
    game.at(1_500, Input::Touch(sq("e4")));
    game.at(1_800, Input::Press(WHITE));
    let effects = game.play_and_press(3_000, "b8c6");
    assert_eq!(violations(&effects), []);
    assert_eq!(Game::moves(&effects), ["Nc6"]);
}

#[test]
fn touches_before_the_clock_starts_oblige_nothing() {
    let mut game = Game::new(Rules::default());
    game.at(0, Input::Touch(sq("g1")));
    game.at(100, Input::Press(BLACK));
    let effects = game.play_and_press(1_000, "e2e4");
    assert_eq!(violations(&effects), []);
}
