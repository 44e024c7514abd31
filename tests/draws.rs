//! Art. 9: draw offers, claims, repetitions.

mod common;

use common::*;
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
