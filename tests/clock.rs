//! Art. 6: starting, running, flags, increments, stages, pauses.

mod support {
    pub mod referee;
}

use support::referee::*;
use tocada::{Effect, IncrementMode, Input, KnownOutcome, Reason, Rules};

fn rules(tc: &str) -> Rules {
    Rules {
        time_control: tc.parse().unwrap(),
        ..Rules::default()
    }
}

#[test]
fn the_side_not_to_move_starts_the_clock_of_the_side_to_move() {
    let mut game = Game::new(rules("300"));
    assert_eq!(game.at(0, Input::Press(WHITE)), []);
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(
        game.at(10, Input::Press(BLACK)),
        [Effect::Started { side: WHITE }]
    );
    assert_eq!(game.referee.next_deadline(), Some(300_010));
    assert_eq!(game.referee.ticking(), Some(WHITE));
}

#[test]
fn a_press_on_the_lever_of_a_stopped_clock_does_nothing() {
    let mut game = Game::started(rules("300"));
    assert_eq!(game.at(1_000, Input::Press(BLACK)), []);
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.next_deadline(), Some(300_000));
}

#[test]
fn the_flag_falls_at_the_exact_millisecond_whatever_comes_later() {
    let mut game = Game::started(rules("60"));
    assert_eq!(game.referee.next_deadline(), Some(60_000));
    assert_eq!(game.wait(59_999), []);
    // The move arrives too late: the flag fell at 60 000 and ends the game.
    let effects = game.play_and_press(61_000, "e2e4");
    assert_eq!(
        effects,
        [
            Effect::Flag { side: WHITE },
            Effect::Result {
                outcome: KnownOutcome::Decisive { winner: BLACK },
                reason: Reason::Timeout
            },
        ]
    );
    assert_eq!(game.referee.remaining(WHITE, 70_000), 0);
    assert_eq!(game.referee.next_deadline(), None);
}

#[test]
fn the_flag_effect_carries_the_instant_it_fell() {
    let mut game = Game::started(rules("60"));
    game.referee.handle_timeout(1_000_000).unwrap();
    let (at, effect) = game.referee.poll_effect().unwrap();
    assert_eq!((at, effect), (60_000, Effect::Flag { side: WHITE }));
    let (at, _) = game.referee.poll_effect().unwrap();
    assert_eq!(at, 60_000);
    assert_eq!(game.referee.poll_effect(), None);
}

#[test]
fn a_flag_against_a_bare_king_is_a_draw() {
    let start = fen("4k3/8/8/8/8/8/8/4K2Q w - - 0 1");
    let mut game = Game::new(Rules {
        start,
        ..rules("60")
    });
    game.at(0, Input::Press(BLACK));
    game.play_and_press(1_000, "h1h2");
    // Black, with a bare king, flags: White has mating material, Black wins nothing.
    let effects = game.wait(200_000);
    assert_eq!(effects[0], Effect::Flag { side: BLACK });
    assert_eq!(
        effects[1],
        Effect::Result {
            outcome: KnownOutcome::Decisive { winner: WHITE },
            reason: Reason::Timeout
        }
    );

    // The other way round: White with the queen flags against a bare king.
    let start = fen("4k3/8/8/8/8/8/8/4K2Q w - - 0 1");
    let mut game = Game::new(Rules {
        start,
        ..rules("60")
    });
    game.at(0, Input::Press(BLACK));
    let effects = game.wait(200_000);
    assert_eq!(
        effects,
        [
            Effect::Flag { side: WHITE },
            Effect::Result {
                outcome: KnownOutcome::Draw,
                reason: Reason::TimeoutVsInsufficientMaterial
            },
        ]
    );
}

fn times(effects: &[Effect]) -> Vec<(u64, u64)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Move(m) => Some((m.white_ms, m.black_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn fischer_increments_come_with_the_press() {
    let mut game = Game::started(rules("300+2"));
    // e2e4 is two events, 100 ms apart, then the press 300 ms after the last: at 10 400.
    let effects = game.play_and_press(10_000, "e2e4");
    assert_eq!(times(&effects), [(300_000 - 10_400 + 2_000, 300_000)]);
    assert_eq!(effects.len(), 1);
}

#[test]
fn bronstein_gives_back_the_time_used_up_to_the_increment() {
    let mut game = Game::started(Rules {
        increment_mode: IncrementMode::Bronstein,
        ..rules("300+5")
    });
    let effects = game.play_and_press(1_000, "e2e4");
    assert_eq!(times(&effects), [(300_000, 300_000)]);
    let effects = game.play_and_press(11_300, "e7e5");
    // Black used 10 300 ms, 5 000 come back.
    assert_eq!(times(&effects), [(300_000, 294_700)]);
}

#[test]
fn delay_holds_the_countdown_at_the_start_of_each_turn() {
    let mut game = Game::started(Rules {
        increment_mode: IncrementMode::Delay,
        ..rules("300+5")
    });
    assert_eq!(game.referee.next_deadline(), Some(305_000));
    let effects = game.play_and_press(2_000, "e2e4");
    assert_eq!(times(&effects), [(300_000, 300_000)]);
    let effects = game.play_and_press(2_300 + 7_000, "e7e5");
    assert_eq!(times(&effects), [(300_000, 300_000 - 2_300)]);
}

#[test]
fn stage_time_is_added_when_the_stage_move_count_is_completed() {
    let mut game = Game::started(rules("2/60+1:30+1"));
    let mut t = 1_000;
    let mut all = Vec::new();
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
        all.extend(game.play_and_press(t, uci));
        t += 1_000;
    }
    let times = times(&all);
    // White presses at 1 400; then each turn lasts 1 000 ms.
    assert_eq!(times[0].0, 60_000 - 1_400 + 1_000);
    // White's second move completes stage one: +30 s.
    assert_eq!(times[2].0, 60_000 - 1_400 - 1_000 + 2_000 + 30_000);
    assert_eq!(times[3].1, 60_000 - 2_000 + 2_000 + 30_000);
    assert_eq!(game.referee.stage(WHITE), 1);
    assert_eq!(game.referee.moves_completed(WHITE), 2);
}

#[test]
fn pause_stops_both_clocks_until_resumed() {
    let mut game = Game::started(rules("60"));
    assert_eq!(game.at(10_000, Input::Pause), [Effect::Paused]);
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(game.referee.ticking(), None);
    // A press while paused changes nothing.
    assert_eq!(game.at(20_000, Input::Press(WHITE)), []);
    assert_eq!(game.wait(500_000), []);
    assert_eq!(game.referee.remaining(WHITE, 500_000), 50_000);
    assert_eq!(game.referee.remaining(BLACK, 500_000), 60_000);
    assert_eq!(game.at(500_000, Input::Resume), [Effect::Resumed]);
    assert_eq!(game.referee.next_deadline(), Some(550_000));
    // Near miss: resuming a running clock does nothing.
    assert_eq!(game.at(500_001, Input::Resume), []);
}

#[test]
fn pause_before_the_start_does_nothing() {
    let mut game = Game::new(rules("60"));
    assert_eq!(game.at(0, Input::Pause), []);
    assert_eq!(game.at(0, Input::Resume), []);
}

#[test]
fn time_going_backwards_is_refused_and_changes_nothing() {
    let mut game = Game::started(rules("60"));
    game.wait(5_000);
    let err = game.referee.handle(4_999, Input::Press(WHITE)).unwrap_err();
    assert_eq!((err.last, err.now), (5_000, 4_999));
    assert_eq!(game.referee.next_deadline(), Some(60_000));
}

#[test]
fn resignation_ends_the_game_and_nothing_follows() {
    let mut game = Game::started(rules("60"));
    assert_eq!(
        game.at(1_000, Input::Resign(WHITE)),
        [Effect::Result {
            outcome: KnownOutcome::Decisive { winner: BLACK },
            reason: Reason::Resignation
        }]
    );
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(game.play_and_press(2_000, "e2e4"), []);
    assert_eq!(game.wait(1_000_000), []);
}

/// Armageddon rules: Black plays under his own time control and wins draws.
fn armageddon(white: &str, black: &str) -> Rules {
    Rules {
        black_time_control: Some(black.parse().unwrap()),
        draw_odds: Some(BLACK),
        ..rules(white)
    }
}

#[test]
fn armageddon_black_starts_with_his_own_time_and_increment() {
    let mut game = Game::started(armageddon("300+2", "240+3"));
    assert_eq!(game.referee.remaining(WHITE, 0), 300_000);
    assert_eq!(game.referee.remaining(BLACK, 0), 240_000);
    assert_eq!(game.referee.next_deadline(), Some(300_000));
    // White presses at 10 400 and earns his own 2 s.
    let effects = game.play_and_press(10_000, "e2e4");
    assert_eq!(times(&effects), [(300_000 - 10_400 + 2_000, 240_000)]);
    assert_eq!(game.referee.next_deadline(), Some(10_400 + 240_000));
    // Black presses at 15 400, 5 000 ms later, and earns his own 3 s.
    let effects = game.play_and_press(15_000, "e7e5");
    assert_eq!(
        times(&effects),
        [(300_000 - 10_400 + 2_000, 240_000 - 5_000 + 3_000)]
    );
}

#[test]
fn armageddon_black_flags_on_his_own_time() {
    let mut game = Game::started(armageddon("300", "240"));
    game.play_and_press(0, "e2e4");
    // White pressed at 400: Black's 240 s run out at 240 400, not 300 400.
    let effects = game.wait(240_400);
    assert_eq!(effects[0], Effect::Flag { side: BLACK });
    assert_eq!(
        effects[1],
        Effect::Result {
            outcome: KnownOutcome::Decisive { winner: WHITE },
            reason: Reason::Timeout
        }
    );
}

#[test]
fn each_side_passes_his_own_stages() {
    let mut game = Game::started(armageddon("2/60+1:30+1", "1/50:20+5"));
    let mut t = 1_000;
    let mut all = Vec::new();
    for uci in ["g1f3", "g8f6", "f3g1"] {
        all.extend(game.play_and_press(t, uci));
        t += 1_000;
    }
    let times = times(&all);
    // Black's first move ends his first stage: his 20 s arrive, no increment yet.
    assert_eq!(times[1].1, 50_000 - 1_000 + 20_000);
    assert_eq!(game.referee.stage(BLACK), 1);
    // White's second move ends his own first stage: +1 s and +30 s.
    assert_eq!(times[2].0, 60_000 - 1_400 - 1_000 + 2_000 + 30_000);
    assert_eq!(game.referee.stage(WHITE), 1);
    // Black's second stage has its own increment: 5 s.
    let effects = game.play_and_press(t, "f6g8");
    assert_eq!(
        effects_times(&effects).1,
        50_000 - 1_000 + 20_000 - 1_000 + 5_000
    );
}

fn effects_times(effects: &[Effect]) -> (u64, u64) {
    let times = times(effects);
    assert_eq!(times.len(), 1, "{effects:?}");
    times[0]
}

#[test]
fn near_miss_without_a_black_time_control_both_play_the_same_one() {
    let mut game = Game::started(Rules {
        draw_odds: Some(BLACK),
        ..rules("300+2")
    });
    let effects = game.play_and_press(10_000, "e2e4");
    assert_eq!(times(&effects), [(300_000 - 10_400 + 2_000, 300_000)]);
    assert_eq!(game.referee.next_deadline(), Some(10_400 + 300_000));
}

fn with_mode(tc: &str, increment_mode: IncrementMode) -> Rules {
    Rules {
        increment_mode,
        ..rules(tc)
    }
}

#[test]
fn hourglass_the_flag_falls_when_the_sand_has_run_to_the_other_side() {
    let mut game = Game::started(with_mode("60", IncrementMode::Hourglass));
    // White presses at 10 400: his 10.4 s went into Black's glass.
    let effects = game.play_and_press(10_000, "e2e4");
    assert_eq!(times(&effects), [(49_600, 70_400)]);
    // Black's 70.4 s run out at 80 800, to the millisecond.
    assert_eq!(game.referee.next_deadline(), Some(80_800));
    assert_eq!(game.wait(80_799), []);
    assert_eq!(game.referee.remaining(WHITE, 80_799), 49_600 + 70_399);
    let deadline = game.referee.next_deadline().unwrap();
    game.referee.handle_timeout(deadline).unwrap();
    let (at, effect) = game.referee.poll_effect().unwrap();
    assert_eq!((at, effect), (80_800, Effect::Flag { side: BLACK }));
    assert_eq!(game.referee.remaining(WHITE, 80_800), 120_000);
}

#[test]
fn upcount_shows_the_time_used_and_no_flag_ever_falls() {
    let mut game = Game::started(with_mode("60", IncrementMode::Upcount));
    assert_eq!(game.referee.next_deadline(), None);
    let effects = game.play_and_press(100_000, "e2e4");
    // White used 100.4 s of a "60" control, and plays on.
    assert_eq!(times(&effects), [(100_400, 0)]);
    assert_eq!(game.wait(10_000_000), []);
    assert_eq!(game.referee.next_deadline(), None);
    assert_eq!(
        game.referee.remaining(BLACK, 10_000_000),
        10_000_000 - 100_400
    );
}

#[test]
fn byo_yomi_flags_when_the_last_period_runs_out_to_the_millisecond() {
    // 20 s main time, then two byo-yomi periods of 5 s.
    let mut game = Game::started(rules("20|2x5"));
    assert_eq!(game.referee.next_deadline(), Some(30_000));
    // White moves 3 s into his first period: it is his again, whole.
    let effects = game.play_and_press(22_600, "e2e4");
    assert_eq!(times(&effects), [(5_000, 20_000)]);
    game.play_and_press(23_000, "e7e5");
    // Black pressed at 23 400: White has 5 s and one more period of 5 s.
    assert_eq!(game.referee.next_deadline(), Some(33_400));
    assert_eq!(game.referee.overtime_left(WHITE, 29_000), Some((1, 1)));
    assert_eq!(game.wait(33_399), []);
    let deadline = game.referee.next_deadline().unwrap();
    game.referee.handle_timeout(deadline).unwrap();
    let (at, effect) = game.referee.poll_effect().unwrap();
    assert_eq!((at, effect), (33_400, Effect::Flag { side: WHITE }));
}

#[test]
fn canadian_overtime_flags_when_its_moves_are_not_made_in_the_period() {
    // 10 s main time, then 2 moves in 10 s, renewed.
    let mut game = Game::started(rules("10|2/10"));
    game.play_and_press(10_000, "e2e4");
    // White pressed at 10 400, 0.4 s into his period, one move of two made.
    game.play_and_press(11_000, "e7e5");
    assert_eq!(game.referee.overtime_left(WHITE, 11_400), Some((1, 1)));
    // His period, begun at 10 000, ends at 20 000 whatever he did in it.
    assert_eq!(game.referee.next_deadline(), Some(11_400 + 9_600));
    let effects = game.wait(21_000);
    assert_eq!(effects[0], Effect::Flag { side: WHITE });
}

#[test]
fn a_plain_clock_completes_a_turn_with_each_press_and_its_flag_loses() {
    // A bare king against a queen: on a board, White's flag would draw.
    let mut game = Game::new(Rules {
        plain_clock: true,
        start: fen("4k3/8/8/8/8/8/8/4K2Q b - - 0 1"),
        ..rules("60+1")
    });
    assert_eq!(
        game.at(0, Input::Press(WHITE)),
        [Effect::Started { side: BLACK }]
    );
    let effects = game.at(5_000, Input::Press(BLACK));
    let Effect::Move(m) = &effects[0] else {
        panic!("{effects:?}")
    };
    assert_eq!(
        (m.side, m.number, &*m.san, &*m.uci),
        (BLACK, 1, "--", "0000")
    );
    assert_eq!(times(&effects), [(60_000, 56_000)]);
    // A press of the clock that does not run does nothing.
    assert_eq!(game.at(6_000, Input::Press(BLACK)), []);
    // Black, with his bare king, is not the one who flags: White is, at
    // 65 000, and loses, position or no position.
    assert_eq!(game.referee.next_deadline(), Some(65_000));
    game.referee.handle_timeout(65_000).unwrap();
    let effects: Vec<_> = std::iter::from_fn(|| game.referee.poll_effect()).collect();
    assert_eq!(
        effects,
        [
            (65_000, Effect::Flag { side: WHITE }),
            (
                65_000,
                Effect::Result {
                    outcome: KnownOutcome::Decisive { winner: BLACK },
                    reason: Reason::Timeout
                }
            )
        ]
    );
}
