//! Art. 9: draw offers, claims, repetitions.

mod support {
    pub mod referee;
}

use support::referee::*;
use tocada::{Effect, Input, KnownOutcome, Reason, Rejection, Rules};

const DRAW: Effect = Effect::Result {
    outcome: KnownOutcome::Draw,
    reason: Reason::Agreement,
};

#[test]
fn an_offer_between_moving_and_pressing_is_proper_and_can_be_accepted() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    assert_eq!(
        game.at(1_500, Input::Draw(WHITE)),
        [Effect::DrawOffer {
            side: WHITE,
            proper: true
        }]
    );
    game.at(1_800, Input::Press(WHITE));
    assert_eq!(game.referee.draw_offer(), Some(WHITE));
    assert_eq!(game.at(5_000, Input::Draw(BLACK)), [DRAW]);
    assert_eq!(game.referee.next_deadline(), None);
}

#[test]
fn near_miss_an_offer_at_another_time_is_improper_but_valid() {
    let mut game = Game::started(Rules::default());
    assert_eq!(
        game.at(500, Input::Draw(BLACK)),
        [Effect::DrawOffer {
            side: BLACK,
            proper: false
        }]
    );
    // Offering again changes nothing; it cannot be withdrawn either.
    assert_eq!(game.at(600, Input::Draw(BLACK)), []);
    assert_eq!(game.at(700, Input::Draw(WHITE)), [DRAW]);
}

#[test]
fn accepting_after_the_offerer_moved_records_his_move() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    game.at(1_500, Input::Draw(WHITE));
    let effects = game.at(2_000, Input::Draw(BLACK));
    assert_eq!(Game::moves(&effects), ["e4"]);
    assert_eq!(effects.last(), Some(&DRAW));
}

#[test]
fn an_offer_is_declined_aloud_or_by_touching_a_piece() {
    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    game.at(1_500, Input::Draw(WHITE));
    game.at(1_800, Input::Press(WHITE));
    assert_eq!(
        game.at(3_000, Input::Decline(BLACK)),
        [Effect::DrawDeclined {
            side: WHITE,
            how: Rejection::Spoken
        }]
    );
    assert_eq!(game.referee.draw_offer(), None);

    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    game.at(1_500, Input::Draw(WHITE));
    game.at(1_800, Input::Press(WHITE));
    assert_eq!(
        game.at(3_000, Input::Touch(sq("e7"))),
        [Effect::DrawDeclined {
            side: WHITE,
            how: Rejection::Touch
        }]
    );
    // The decline is final: accepting now is an offer of one's own.
    assert_eq!(
        game.at(3_100, Input::Draw(BLACK)),
        [Effect::DrawOffer {
            side: BLACK,
            proper: false
        }]
    );
}

#[test]
fn near_miss_touches_that_do_not_decline() {
    // Adjusting is no intent.
    let mut game = Game::started(Rules::default());
    game.play(1_000, "e2e4");
    game.at(1_500, Input::Draw(WHITE));
    game.at(1_800, Input::Press(WHITE));
    game.at(2_500, Input::Adjust(BLACK));
    assert_eq!(game.at(3_000, Input::Touch(sq("e7"))), []);
    assert_eq!(game.referee.draw_offer(), Some(WHITE));
    // Declining one's own offer, or a decline with no offer, does nothing.
    assert_eq!(game.at(3_100, Input::Decline(WHITE)), []);
    let mut game = Game::started(Rules::default());
    assert_eq!(game.at(100, Input::Decline(BLACK)), []);
}

fn shuffle_knights(game: &mut Game, times: usize) -> Vec<Effect> {
    let mut effects = Vec::new();
    let mut t = 1_000;
    for _ in 0..times {
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            effects.extend(game.play_and_press(t, m));
            t += 1_000;
        }
    }
    effects
}

#[test]
fn a_correct_threefold_claim_draws() {
    let mut game = Game::started(Rules::default());
    shuffle_knights(&mut game, 2);
    // The start position has now stood three times; White has the move.
    assert_eq!(
        game.at(100_000, Input::Draw(WHITE)),
        [Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::ThreefoldRepetition
        }]
    );
}

#[test]
fn near_miss_a_claim_too_early_is_an_offer() {
    let mut game = Game::started(Rules::default());
    shuffle_knights(&mut game, 1);
    assert_eq!(
        game.at(100_000, Input::Draw(WHITE)),
        [Effect::DrawOffer {
            side: WHITE,
            proper: false
        }]
    );
    // Nor can the player without the move claim.
    let mut game = Game::started(Rules::default());
    shuffle_knights(&mut game, 2);
    assert_eq!(
        game.at(100_000, Input::Draw(BLACK)),
        [Effect::DrawOffer {
            side: BLACK,
            proper: false
        }]
    );
}

#[test]
fn the_fifty_move_claim() {
    let start = fen("4k3/8/8/8/8/8/8/R3K3 w - - 100 80");
    let mut game = Game::started(Rules {
        start,
        ..Rules::default()
    });
    assert_eq!(
        game.at(1_000, Input::Draw(WHITE)),
        [Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::FiftyMoves
        }]
    );
    let start = fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    let mut game = Game::started(Rules {
        start,
        ..Rules::default()
    });
    assert_eq!(
        game.at(1_000, Input::Draw(WHITE)),
        [Effect::DrawOffer {
            side: WHITE,
            proper: false
        }]
    );
}

#[test]
fn fivefold_repetition_ends_the_game_at_the_release() {
    let mut game = Game::started(Rules::default());
    let effects = shuffle_knights(&mut game, 4);
    assert_eq!(
        effects.last(),
        Some(&Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::FivefoldRepetition
        })
    );
    // The last Ng8 ended it at release: no press was needed.
    assert_eq!(Game::moves(&effects).len(), 16);
}

/// Draw odds (Armageddon): every draw is a win for the side that has them.
fn draw_odds(side: shakmaty::Color, start: &str) -> Rules {
    Rules {
        draw_odds: Some(side),
        start: fen(start),
        ..Rules::default()
    }
}

/// The results among the effects: exactly one is expected.
fn results(effects: &[Effect]) -> Vec<Effect> {
    effects
        .iter()
        .filter(|e| matches!(e, Effect::Result { .. }))
        .cloned()
        .collect()
}

const STANDARD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// White to move; Qf1-f7 stalemates the black king on h8.
const STALEMATE_IN_ONE: &str = "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1";

#[test]
fn with_draw_odds_an_agreed_draw_is_a_win_for_black() {
    let mut game = Game::started(draw_odds(BLACK, STANDARD));
    game.play(1_000, "e2e4");
    game.at(1_500, Input::Draw(WHITE));
    let effects = game.at(2_000, Input::Draw(BLACK));
    assert_eq!(Game::moves(&effects), ["e4"]);
    assert_eq!(
        results(&effects),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::Agreement
        }]
    );
    assert_eq!(
        game.referee.result(),
        Some((KnownOutcome::Decisive { winner: BLACK }, Reason::Agreement))
    );
}

#[test]
fn with_draw_odds_a_stalemate_is_a_win_for_black() {
    let mut game = Game::started(draw_odds(BLACK, STALEMATE_IN_ONE));
    let effects = game.play(1_000, "f1f7");
    assert_eq!(
        results(&effects),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::Stalemate
        }]
    );
}

#[test]
fn draw_odds_work_for_white_too() {
    let mut game = Game::started(draw_odds(WHITE, STALEMATE_IN_ONE));
    let effects = game.play(1_000, "f1f7");
    assert_eq!(
        results(&effects),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: WHITE },
            reason: Reason::Stalemate
        }]
    );
}

#[test]
fn with_draw_odds_a_flag_against_a_bare_king_is_a_win_for_black() {
    // White flags; Black, with a bare king, could never mate: a draw, so Black wins.
    let mut game = Game::started(Rules {
        time_control: "60".parse().unwrap(),
        ..draw_odds(BLACK, "4k3/8/8/8/8/8/8/4K2Q w - - 0 1")
    });
    let effects = game.wait(100_000);
    assert_eq!(
        effects,
        [
            Effect::Flag { side: WHITE },
            Effect::Result {
                outcome: KnownOutcome::Decisive { winner: BLACK },
                reason: Reason::TimeoutVsInsufficientMaterial
            },
        ]
    );
}

#[test]
fn with_draw_odds_a_fifty_move_claim_is_a_win_for_black() {
    let mut game = Game::started(draw_odds(BLACK, "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"));
    assert_eq!(
        game.at(1_000, Input::Draw(WHITE)),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::FiftyMoves
        }]
    );
}

#[test]
fn near_miss_without_draw_odds_a_stalemate_is_a_draw() {
    let mut game = Game::started(Rules {
        draw_odds: None,
        ..draw_odds(BLACK, STALEMATE_IN_ONE)
    });
    let effects = game.play(1_000, "f1f7");
    assert_eq!(
        results(&effects),
        [Effect::Result {
            outcome: KnownOutcome::Draw,
            reason: Reason::Stalemate
        }]
    );
}

#[test]
fn near_miss_draw_odds_leave_a_decisive_result_alone() {
    let mut game = Game::started(draw_odds(BLACK, STANDARD));
    assert_eq!(
        game.at(1_000, Input::Resign(BLACK)),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: WHITE },
            reason: Reason::Resignation
        }]
    );
}
