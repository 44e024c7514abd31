//! Which move was made: every natural physical order, promotions, and moves
//! that end the game at release (4.7, 5.1.1, 5.2, 6.2.1, 6.2.2, 9.6).

mod support {
    pub mod referee;
}

use shakmaty::{Piece, Role};
use support::referee::*;
use tocada::{Effect, Input, KnownOutcome, Reason, Rules};

fn start_from(fen_text: &str) -> Game {
    Game::started(Rules {
        start: fen(fen_text),
        ..Rules::default()
    })
}

fn sans(effects: &[Effect]) -> Vec<String> {
    Game::moves(effects)
}

fn no_rulings(effects: &[Effect]) {
    assert!(
        !effects.iter().any(|e| matches!(
            e,
            Effect::Violation(_) | Effect::Warning(_) | Effect::Displaced { .. }
        )),
        "unexpected ruling in {effects:?}"
    );
}

#[test]
fn a_move_is_completed_by_the_press_not_by_the_release() {
    let mut game = Game::started(Rules::default());
    assert_eq!(game.play(1_000, "e2e4"), []);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    let effects = game.at(2_000, Input::Press(WHITE));
    match &effects[..] {
        [Effect::Move(m)] => {
            assert_eq!(
                (m.side, m.number, m.uci.as_str(), m.san.as_str()),
                (WHITE, 1, "e2e4", "e4")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn captures_in_either_order() {
    let moves = ["e2e4", "d7d5"];
    // The captured piece removed first.
    let mut game = Game::started(Rules::default());
    for (i, m) in moves.iter().enumerate() {
        game.play_and_press(1_000 * (i as u64 + 1), m);
    }
    let effects = game.inputs(
        5_000,
        &[
            Input::Lift(sq("d5")),
            Input::Lift(sq("e4")),
            Input::Place(sq("d5"), None),
        ],
    );
    no_rulings(&effects);
    assert_eq!(sans(&game.at(6_000, Input::Press(WHITE))), ["exd5"]);

    // The capturing piece lifted first.
    let mut game = Game::started(Rules::default());
    for (i, m) in moves.iter().enumerate() {
        game.play_and_press(1_000 * (i as u64 + 1), m);
    }
    let effects = game.inputs(
        5_000,
        &[
            Input::Lift(sq("e4")),
            Input::Lift(sq("d5")),
            Input::Place(sq("d5"), None),
        ],
    );
    no_rulings(&effects);
    assert_eq!(sans(&game.at(6_000, Input::Press(WHITE))), ["exd5"]);
}

#[test]
fn en_passant_with_the_captured_pawn_removed_before_or_after() {
    let position = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    for order in [
        [
            Input::Lift(sq("f5")),
            Input::Lift(sq("e5")),
            Input::Place(sq("f6"), None),
        ],
        [
            Input::Lift(sq("e5")),
            Input::Place(sq("f6"), None),
            Input::Lift(sq("f5")),
        ],
    ] {
        let mut game = start_from(position);
        let effects = game.inputs(1_000, &order);
        no_rulings(&effects);
        assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["exf6"]);
    }
}

#[test]
fn castling_king_first_both_sides() {
    let position = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let mut game = start_from(position);
    no_rulings(&game.play(1_000, "e1g1"));
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["O-O"]);
    no_rulings(&game.play(3_000, "e8c8"));
    let effects = game.at(4_000, Input::Press(BLACK));
    assert_eq!(sans(&effects), ["O-O-O"]);
    match &effects[0] {
        Effect::Move(m) => assert_eq!(m.uci, "e8c8"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn castling_with_both_pieces_in_hand() {
    let mut game = start_from("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    let effects = game.inputs(
        1_000,
        &[
            Input::Lift(sq("e1")),
            Input::Lift(sq("h1")),
            Input::Place(sq("g1"), None),
            Input::Place(sq("f1"), None),
        ],
    );
    no_rulings(&effects);
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["O-O"]);
}

const PROMOTION: &str = "k7/4P3/8/8/8/8/7p/4K3 w - - 0 1";

#[test]
fn promotion_on_a_board_without_identity_is_a_queen_unless_chosen() {
    // Pawn set on e8 then exchanged for a queen.
    let mut game = start_from(PROMOTION);
    let effects = game.inputs(
        1_000,
        &[
            Input::Lift(sq("e7")),
            Input::Place(sq("e8"), None),
            Input::Lift(sq("e8")),
            Input::Place(sq("e8"), None),
        ],
    );
    no_rulings(&effects);
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["e8=Q+"]);

    // A knight chosen on the clock.
    let mut game = start_from(PROMOTION);
    game.at(900, Input::Promote(Role::Knight));
    game.inputs(
        1_000,
        &[Input::Lift(sq("e7")), Input::Place(sq("e8"), None)],
    );
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["e8=N"]);
}

#[test]
fn promotion_on_a_board_that_identifies_pieces() {
    let rook = Some(Piece {
        color: WHITE,
        role: Role::Rook,
    });
    let pawn = Some(Piece {
        color: WHITE,
        role: Role::Pawn,
    });
    // The new piece set directly.
    let mut game = start_from(PROMOTION);
    game.inputs(
        1_000,
        &[Input::Lift(sq("e7")), Input::Place(sq("e8"), rook)],
    );
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["e8=R+"]);

    // The pawn set on the last rank, then exchanged: the rook counts.
    let mut game = start_from(PROMOTION);
    game.inputs(
        1_000,
        &[
            Input::Lift(sq("e7")),
            Input::Place(sq("e8"), pawn),
            Input::Lift(sq("e8")),
            Input::Place(sq("e8"), rook),
        ],
    );
    assert_eq!(sans(&game.at(2_000, Input::Press(WHITE))), ["e8=R+"]);
}

#[test]
fn checkmate_ends_the_game_at_release_without_a_press() {
    let mut game = Game::started(Rules::default());
    let mut t = 1_000;
    for m in ["f2f3", "e7e5", "g2g4"] {
        game.play_and_press(t, m);
        t += 1_000;
    }
    let effects = game.play(t, "d8h4");
    assert_eq!(sans(&effects), ["Qh4#"]);
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::Checkmate
        })
    );
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(game.at(t + 5_000, Input::Press(BLACK)), []);
}

#[test]
fn stalemate_and_dead_positions_end_the_game_at_release() {
    let mut game = start_from("7k/8/6Q1/8/8/8/8/K7 w - - 0 1");
    let effects = game.play(1_000, "g6f7");
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::Stalemate
        })
    );

    let mut game = start_from("7k/8/8/8/8/8/1q6/K7 w - - 0 1");
    let effects = game.play(1_000, "a1b2");
    assert_eq!(sans(&effects), ["Kxb2"]);
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::InsufficientMaterial
        })
    );
}

#[test]
fn seventy_five_moves_end_the_game_but_a_mate_wins() {
    let mut game = start_from("7k/8/8/8/8/8/R7/K7 w - - 149 100");
    let effects = game.play(1_000, "a2b2");
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::SeventyFiveMoves
        })
    );
    // Near miss: the 150th half-move mates.
    let mut game = start_from("6k1/8/6K1/8/8/8/8/R7 w - - 149 100");
    let effects = game.play(1_000, "a1a8");
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Decisive { winner: WHITE },
            reason: Reason::Checkmate
        })
    );
}

#[test]
fn a_player_may_press_after_the_opponent_has_replied() {
    // 6.2.2: White forgets to press; Black replies on the board.
    let mut game = Game::started(Rules::default());
    assert_eq!(game.play(1_000, "e2e4"), []);
    assert_eq!(game.play(5_000, "e7e5"), []);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    // Black's lever does nothing while White's clock runs.
    assert_eq!(game.at(6_000, Input::Press(BLACK)), []);
    let effects = game.at(9_000, Input::Press(WHITE));
    assert_eq!(sans(&effects), ["e4"]);
    match &effects[0] {
        Effect::Move(m) => assert_eq!(m.white_ms, 5_400_000 - 9_000 + 30_000),
        other => panic!("{other:?}"),
    }
    let effects = game.at(9_500, Input::Press(BLACK));
    assert_eq!(sans(&effects), ["e5"]);
    assert_eq!(game.referee.ticking(), Some(WHITE));
}

#[test]
fn making_the_next_move_completes_the_previous_one() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    game.play(2_000, "e7e5");
    // White never pressed; his next move completes e4 (no increment) and
    // Black's reply stays uncompleted until it is Black's press.
    let effects = game.play(3_000, "g1f3");
    assert_eq!(sans(&effects), ["e4"]);
    match &effects[0] {
        Effect::Move(m) => assert_eq!(m.white_ms, 5_400_000 - 3_100),
        other => panic!("{other:?}"),
    }
    let effects = game.at(4_000, Input::Press(WHITE));
    assert_eq!(sans(&effects), ["e5", "Nf3"]);
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn a_piece_lifted_and_put_back_is_no_move() {
    let mut game = Game::started(Rules::default());
    let effects = game.inputs(
        1_000,
        &[Input::Lift(sq("e2")), Input::Place(sq("e2"), None)],
    );
    assert_eq!(effects, []);
    assert_eq!(game.referee.position(), &shakmaty::Chess::default());
}

#[test]
fn contradictory_sensor_events_are_counted_and_dropped() {
    let mut game = Game::started(Rules::default());
    assert_eq!(game.at(1_000, Input::Lift(sq("e4"))), []);
    assert_eq!(game.at(1_100, Input::Place(sq("e2"), None)), []);
    assert_eq!(game.referee.contradictions(), 2);
    // The game goes on as if they never came.
    game.play(2_000, "e2e4");
    assert_eq!(sans(&game.at(3_000, Input::Press(WHITE))), ["e4"]);
}
