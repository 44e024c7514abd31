//! Art. 6.10–6.11: the arbiter pauses the clock and corrects a player's time
//! or move counter; the corrections hold only while paused.

mod support {
    pub mod referee;
}

use support::referee::*;
use tocada::{Effect, Input, KnownOutcome, Reason, Referee, Rules};

fn rules(tc: &str) -> Rules {
    Rules {
        time_control: tc.parse().unwrap(),
        ..Rules::default()
    }
}

/// White's clock has run 10 s of "300" when the arbiter pauses it.
fn paused_at_10_s() -> Game {
    let mut game = Game::started(rules("300"));
    assert_eq!(game.at(10_000, Input::Pause), [Effect::Paused]);
    game
}

#[test]
fn set_time_while_paused_sets_the_time_and_keeps_the_pause() {
    let mut game = paused_at_10_s();
    assert_eq!(
        game.at(20_000, Input::SetTime(WHITE, 150_000)),
        [Effect::Corrected {
            side: WHITE,
            ms: 150_000,
            completed: 0
        }]
    );
    assert!(game.referee.is_paused());
    assert_eq!(game.referee.ticking(), None);
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(game.referee.remaining(WHITE, 30_000), 150_000);
    assert_eq!(game.referee.remaining(BLACK, 30_000), 300_000);
    // After the resume, White's time runs from the corrected value.
    assert_eq!(game.at(40_000, Input::Resume), [Effect::Resumed]);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.next_deadline(), Some(40_000 + 150_000));
    assert_eq!(game.referee.remaining(WHITE, 41_000), 149_000);
    assert_eq!(game.referee.refused_corrections(), 0);
}

#[test]
fn setting_the_other_sides_time_does_not_change_whose_clock_runs() {
    let mut game = paused_at_10_s();
    assert_eq!(
        game.at(11_000, Input::SetTime(BLACK, 200_000)),
        [Effect::Corrected {
            side: BLACK,
            ms: 200_000,
            completed: 0
        }]
    );
    game.at(12_000, Input::Resume);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.next_deadline(), Some(12_000 + 290_000));
    // White moves: Black's clock runs from the corrected 200 s.
    let effects = game.play_and_press(13_000, "e2e4");
    assert_eq!(Game::moves(&effects), ["e4"]);
    assert_eq!(game.referee.next_deadline(), Some(13_400 + 200_000));
}

#[test]
fn a_time_set_to_zero_flags_at_the_resume() {
    let mut game = paused_at_10_s();
    game.at(11_000, Input::SetTime(WHITE, 0));
    assert_eq!(game.wait(50_000), []);
    assert_eq!(game.at(60_000, Input::Resume), [Effect::Resumed]);
    assert_eq!(game.referee.next_deadline(), Some(60_000));
    assert_eq!(
        game.wait(60_000),
        [
            Effect::Flag { side: WHITE },
            Effect::Result {
                outcome: KnownOutcome::Decisive { winner: BLACK },
                reason: Reason::Timeout
            }
        ]
    );
}

#[test]
fn set_moves_moves_the_stage_without_giving_its_time() {
    let mut game = Game::started(rules("40/5400+30:1800+60"));
    game.at(10_000, Input::Pause);
    assert_eq!(
        game.at(11_000, Input::SetMoves(WHITE, 40)),
        [Effect::Corrected {
            side: WHITE,
            ms: 5_390_000,
            completed: 40
        }]
    );
    // The arbiter sets the time himself: the counter brings none.
    assert_eq!(game.referee.remaining(WHITE, 11_000), 5_390_000);
    assert_eq!(game.referee.moves_completed(WHITE), 40);
    assert_eq!(game.referee.stage(WHITE), 1);
    assert_eq!(game.referee.stage(BLACK), 0);
    game.at(12_000, Input::Resume);
    // White's next move is his 41st, in the second stage: +60 s, no stage time.
    let effects = game.play_and_press(13_000, "e2e4");
    let (white_ms, black_ms) = match &effects[..] {
        [Effect::Move(m)] => (m.white_ms, m.black_ms),
        other => panic!("{other:?}"),
    };
    assert_eq!(white_ms, 5_390_000 - 1_400 + 60_000);
    assert_eq!(black_ms, 5_400_000);
    assert_eq!(game.referee.moves_completed(WHITE), 41);
}

#[test]
fn a_counter_set_just_before_a_stage_boundary_earns_the_stage_time_on_the_next_move() {
    let mut game = Game::started(rules("40/5400+30:1800+60"));
    game.at(10_000, Input::Pause);
    game.at(11_000, Input::SetMoves(WHITE, 39));
    assert_eq!(game.referee.stage(WHITE), 0);
    game.at(12_000, Input::Resume);
    // The 40th move ends the first stage: +30 s increment and +1800 s.
    let effects = game.play_and_press(13_000, "e2e4");
    match &effects[..] {
        [Effect::Move(m)] => assert_eq!(m.white_ms, 5_390_000 - 1_400 + 30_000 + 1_800_000),
        other => panic!("{other:?}"),
    }
    assert_eq!(game.referee.stage(WHITE), 1);
}

#[test]
fn set_moves_changes_the_move_number_on_the_face() {
    let mut game = paused_at_10_s();
    game.at(11_000, Input::SetMoves(BLACK, 20));
    assert_eq!(
        tocada::session::view::from_referee(&game.referee, 11_000, None).move_number,
        21
    );
}

#[test]
fn near_miss_a_correction_while_the_clock_runs_is_refused() {
    let mut game = Game::started(rules("300"));
    assert_eq!(game.at(10_000, Input::SetTime(WHITE, 1_000)), []);
    assert_eq!(game.at(10_000, Input::SetMoves(WHITE, 40)), []);
    assert_eq!(game.referee.refused_corrections(), 2);
    assert_eq!(game.referee.remaining(WHITE, 10_000), 290_000);
    assert_eq!(game.referee.moves_completed(WHITE), 0);
    assert_eq!(game.referee.next_deadline(), Some(300_000));
    // Resumed, the clock refuses them again.
    game.at(11_000, Input::Pause);
    game.at(12_000, Input::Resume);
    assert_eq!(game.at(13_000, Input::SetTime(WHITE, 1_000)), []);
    assert_eq!(game.referee.refused_corrections(), 3);
}

#[test]
fn near_miss_a_correction_before_the_start_is_refused() {
    let mut game = Game::new(rules("300"));
    // The pause is refused before the start, so is the correction.
    assert_eq!(game.at(0, Input::Pause), []);
    assert_eq!(game.at(0, Input::SetTime(WHITE, 1_000)), []);
    assert_eq!(game.referee.refused_corrections(), 1);
    assert_eq!(game.referee.remaining(WHITE, 0), 300_000);
}

#[test]
fn near_miss_a_correction_after_the_game_is_over_is_refused() {
    let mut game = paused_at_10_s();
    // Resigning during a pause ends the game; the clock stays stopped.
    game.at(11_000, Input::Resign(WHITE));
    assert_eq!(game.at(12_000, Input::SetTime(BLACK, 1_000)), []);
    assert_eq!(game.at(12_000, Input::SetMoves(BLACK, 3)), []);
    assert_eq!(game.referee.refused_corrections(), 2);
    assert_eq!(game.referee.remaining(BLACK, 12_000), 300_000);
    assert_eq!(game.referee.moves_completed(BLACK), 0);
}

#[test]
fn near_miss_corrections_beyond_any_game_are_refused() {
    let mut game = paused_at_10_s();
    assert_eq!(
        game.at(11_000, Input::SetTime(WHITE, Referee::MAX_SET_TIME_MS + 1)),
        []
    );
    assert_eq!(game.at(11_000, Input::SetTime(WHITE, u64::MAX)), []);
    assert_eq!(
        game.at(11_000, Input::SetMoves(WHITE, Referee::MAX_SET_MOVES + 1)),
        []
    );
    assert_eq!(game.referee.refused_corrections(), 3);
    // The largest allowed ones are taken.
    assert_eq!(
        game.at(11_000, Input::SetTime(WHITE, Referee::MAX_SET_TIME_MS)),
        [Effect::Corrected {
            side: WHITE,
            ms: Referee::MAX_SET_TIME_MS,
            completed: 0
        }]
    );
    assert_eq!(
        game.at(11_000, Input::SetMoves(WHITE, Referee::MAX_SET_MOVES)),
        [Effect::Corrected {
            side: WHITE,
            ms: Referee::MAX_SET_TIME_MS,
            completed: Referee::MAX_SET_MOVES
        }]
    );
}

#[test]
fn a_correction_keeps_a_pending_move_and_its_press() {
    // White has made his move but not pressed when the arbiter stops the clock.
    let mut game = Game::started(rules("300+2"));
    game.play(1_000, "e2e4");
    game.at(2_000, Input::Pause);
    game.at(3_000, Input::SetTime(WHITE, 100_000));
    game.at(4_000, Input::Resume);
    let effects = game.at(5_000, Input::Press(WHITE));
    match &effects[..] {
        [Effect::Move(m)] => {
            assert_eq!(m.san, "e4");
            // 1 s more run on the corrected time, then the increment.
            assert_eq!(m.white_ms, 100_000 - 1_000 + 2_000);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn the_face_announces_a_correction() {
    let effect = Effect::Corrected {
        side: WHITE,
        ms: 1_500_000,
        completed: 20,
    };
    assert_eq!(
        tocada::words::alert_for(&effect, tocada::words::Language::English).as_deref(),
        Some("Set: White 25:00")
    );
}
