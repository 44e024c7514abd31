//! The order in which a board's scan reports a move (issue 21): a sliding
//! piece seen on both squares in one scan is reported placed before it is
//! lifted, and is read as the move it is; near misses are ruled as before.
//! And a capture attempt on the en passant square inside the knock window
//! is the capturer's (7.5.1), not the presser's knock (7.4.1).
//!
//! quinn-proto style: inputs at instants, the clock advanced to each
//! `next_deadline()` on the way, exactly the effects asserted.

mod support {
    pub mod referee;
}

use shakmaty::{Color, Piece, Role};
use support::referee::*;
use tocada::{
    CompletedMove, Effect, Input, Law, Millis, MoveText, ONE_SCAN_MS, Referee, Rules, Ruling,
};

/// A referee started by Black's press at 0 from `start` (White to move),
/// fed `events` in order: every deadline due before an event is handled
/// first, as a host does. Returns every effect with its instant.
fn rule(start: &str, events: &[(Millis, Input)]) -> Vec<(Millis, Effect)> {
    let mut referee = Referee::new(Rules {
        start: fen(start),
        ..Rules::default()
    });
    let mut effects = Vec::new();
    referee.handle(0, Input::Press(BLACK)).unwrap();
    while let Some(e) = referee.poll_effect() {
        effects.push(e);
    }
    for (t, input) in events {
        while let Some(due) = referee.next_deadline().filter(|due| due <= t) {
            referee.handle_timeout(due).unwrap();
        }
        referee.handle(*t, *input).unwrap();
        while let Some(e) = referee.poll_effect() {
            effects.push(e);
        }
    }
    assert_eq!(effects.remove(0), (0, Effect::Started { side: WHITE }));
    effects
}

fn completed(side: Color, number: u32, uci: &str, san: &str, clocks: (u64, u64)) -> Effect {
    Effect::Move(CompletedMove {
        side,
        number,
        uci: MoveText::new(uci).unwrap(),
        san: MoveText::new(san).unwrap(),
        white_ms: clocks.0,
        black_ms: clocks.1,
    })
}

fn violation(side: Color, law: Law, detail: &str) -> Effect {
    Effect::Violation(Ruling {
        side,
        law,
        detail: detail.to_owned(),
    })
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// 1.e4 d5: White may take on d5.
const SCANDINAVIAN: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
/// White may castle short.
const CASTLE: &str = "rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
/// 1.e4 Nf6 2.e5 d5: White may take en passant on d6.
const EN_PASSANT: &str = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
/// A white pawn on e7 promotes on e8.
const PROMOTION: &str = "8/4P3/8/8/8/k7/7R/4K3 w - - 0 1";

const WHITE_PAWN: Piece = Piece {
    color: WHITE,
    role: Role::Pawn,
};

/// White's clock after a press at `t` with nothing else charged: 90
/// minutes, 30 s increment.
fn white_after(t: Millis) -> u64 {
    5_400_000 - t + 30_000
}

#[test]
fn a_quiet_move_placed_before_its_lift_is_the_move() {
    let slid = rule(
        START,
        &[
            (3_000, Input::Place(sq("e4"), None)),
            (3_005, Input::Lift(sq("e2"))),
            (3_500, Input::Press(WHITE)),
        ],
    );
    assert_eq!(
        slid,
        [(
            3_500,
            completed(WHITE, 1, "e2e4", "e4", (white_after(3_500), 5_400_000))
        )]
    );
}

#[test]
fn a_place_waits_one_scan_for_its_lift_and_no_longer() {
    assert_eq!(ONE_SCAN_MS, 300);
    let mut referee = Referee::new(Rules::default());
    referee.handle(0, Input::Press(BLACK)).unwrap();
    assert_eq!(referee.next_deadline(), Some(5_400_000));
    referee.handle(3_000, Input::Place(sq("e4"), None)).unwrap();
    assert_eq!(referee.next_deadline(), Some(3_000 + ONE_SCAN_MS));
    // Meanwhile both clocks show the instant of the place.
    assert_eq!(referee.remaining(WHITE, 3_200), 5_400_000 - 3_000);
    referee.handle(3_299, Input::Lift(sq("e2"))).unwrap();
    // The lift came on the last instant of the scan: the move is made.
    assert_eq!(referee.next_deadline(), Some(5_400_000));
    assert!(referee.awaits_press(WHITE));
    assert_eq!(referee.remaining(WHITE, 3_299), 5_400_000 - 3_299);
    assert_eq!(
        referee.poll_effect(),
        Some((0, Effect::Started { side: WHITE }))
    );
    assert_eq!(referee.poll_effect(), None);
}

#[test]
fn a_capture_slid_onto_the_captured_piece_s_square_is_the_capture() {
    for identity in [None, Some(WHITE_PAWN)] {
        let slid = rule(
            SCANDINAVIAN,
            &[
                (3_000, Input::Lift(sq("d5"))),
                (3_200, Input::Place(sq("d5"), identity)),
                (3_205, Input::Lift(sq("e4"))),
                (3_500, Input::Press(WHITE)),
            ],
        );
        assert_eq!(
            slid,
            [(
                3_500,
                completed(WHITE, 2, "e4d5", "exd5", (white_after(3_500), 5_400_000))
            )],
            "identity {identity:?}"
        );
    }
}

/// The natural order and the slid order of the same hands are ruled alike.
fn alike(
    start: &str,
    natural: &[(Millis, Input)],
    slid: &[(Millis, Input)],
) -> Vec<(Millis, Effect)> {
    let expected = rule(start, natural);
    assert_eq!(rule(start, slid), expected);
    expected
}

#[test]
fn castling_slid_king_first_is_castling() {
    let effects = alike(
        CASTLE,
        &[
            (3_000, Input::Lift(sq("e1"))),
            (3_005, Input::Place(sq("g1"), None)),
            (3_200, Input::Lift(sq("h1"))),
            (3_205, Input::Place(sq("f1"), None)),
            (3_500, Input::Press(WHITE)),
        ],
        &[
            (3_000, Input::Place(sq("g1"), None)),
            (3_005, Input::Lift(sq("e1"))),
            (3_200, Input::Place(sq("f1"), None)),
            (3_205, Input::Lift(sq("h1"))),
            (3_500, Input::Press(WHITE)),
        ],
    );
    assert_eq!(
        effects,
        [(
            3_500,
            completed(WHITE, 4, "e1g1", "O-O", (white_after(3_500), 5_400_000))
        )]
    );
}

#[test]
fn castling_slid_rook_first_is_ruled_as_rook_first() {
    let effects = alike(
        CASTLE,
        &[
            (3_000, Input::Lift(sq("h1"))),
            (3_005, Input::Place(sq("f1"), None)),
            (3_200, Input::Lift(sq("e1"))),
            (3_205, Input::Place(sq("g1"), None)),
            (3_500, Input::Press(WHITE)),
        ],
        &[
            (3_000, Input::Place(sq("f1"), None)),
            (3_005, Input::Lift(sq("h1"))),
            (3_200, Input::Place(sq("g1"), None)),
            (3_205, Input::Lift(sq("e1"))),
            (3_500, Input::Press(WHITE)),
        ],
    );
    // 4.4.2 and 4.7: the rook released on f1 was a rook move.
    assert_eq!(
        effects,
        [(
            3_500,
            violation(
                WHITE,
                Law::Released,
                "Released piece: the h1 rook stays on f1"
            )
        )]
    );
}

#[test]
fn en_passant_slid_is_en_passant_whenever_the_captured_pawn_is_lifted() {
    let press = (3_500, Input::Press(WHITE));
    let orders: [&[(Millis, Input)]; 3] = [
        // The captured pawn first.
        &[
            (3_000, Input::Lift(sq("d5"))),
            (3_200, Input::Place(sq("d6"), None)),
            (3_205, Input::Lift(sq("e5"))),
            press,
        ],
        // After the slide.
        &[
            (3_000, Input::Place(sq("d6"), None)),
            (3_005, Input::Lift(sq("e5"))),
            (3_200, Input::Lift(sq("d5"))),
            press,
        ],
        // In the same scan, between the place and its lift.
        &[
            (3_000, Input::Place(sq("d6"), None)),
            (3_003, Input::Lift(sq("d5"))),
            (3_006, Input::Lift(sq("e5"))),
            press,
        ],
    ];
    for order in orders {
        assert_eq!(
            rule(EN_PASSANT, order),
            [(
                3_500,
                completed(WHITE, 3, "e5d6", "exd6", (white_after(3_500), 5_400_000))
            )],
            "{order:?}"
        );
    }
}

#[test]
fn a_promotion_placed_before_the_pawn_is_lifted_is_still_a_promotion() {
    let queen = Some(Piece {
        color: WHITE,
        role: Role::Queen,
    });
    let knight = Some(Piece {
        color: WHITE,
        role: Role::Knight,
    });
    for (identity, lift_at, uci, san) in [
        (None, 3_005, "e7e8q", "e8=Q"),
        (queen, 3_005, "e7e8q", "e8=Q"),
        (knight, 3_005, "e7e8n", "e8=N"),
        // Taken off long after: 4.6, in any order.
        (None, 4_000, "e7e8q", "e8=Q"),
        (knight, 4_000, "e7e8n", "e8=N"),
    ] {
        assert_eq!(
            rule(
                PROMOTION,
                &[
                    (3_000, Input::Place(sq("e8"), identity)),
                    (lift_at, Input::Lift(sq("e7"))),
                    (4_500, Input::Press(WHITE)),
                ],
            ),
            [(
                4_500,
                completed(WHITE, 1, uci, san, (white_after(4_500), 5_400_000))
            )],
            "{identity:?} lifted at {lift_at}"
        );
    }
}

#[test]
fn near_miss_a_lift_after_the_scan_leaves_the_place_an_extra_piece() {
    let effects = rule(
        START,
        &[
            (3_000, Input::Place(sq("e4"), None)),
            (3_400, Input::Lift(sq("e2"))),
            (3_600, Input::Press(WHITE)),
        ],
    );
    assert_eq!(
        effects,
        [
            (
                3_000,
                Effect::Displaced {
                    side: WHITE,
                    squares: vec![sq("e4")]
                }
            ),
            (
                3_600,
                violation(WHITE, Law::PressHand, "Let go of the piece before pressing")
            ),
        ]
    );
}

#[test]
fn near_miss_a_lift_of_a_piece_that_cannot_go_there_is_no_slide() {
    // The d-pawn cannot reach e4; the knight cannot either.
    for from in ["d2", "g1"] {
        let effects = rule(
            START,
            &[
                (3_000, Input::Place(sq("e4"), None)),
                (3_005, Input::Lift(sq(from))),
                (3_600, Input::Press(WHITE)),
            ],
        );
        assert_eq!(
            effects,
            [
                (
                    3_000,
                    Effect::Displaced {
                        side: WHITE,
                        squares: vec![sq("e4")]
                    }
                ),
                (
                    3_600,
                    violation(WHITE, Law::PressHand, "Let go of the piece before pressing")
                ),
            ],
            "lifted {from}"
        );
    }
}

#[test]
fn near_miss_a_place_no_piece_of_the_mover_can_reach_is_ruled_at_once() {
    let black_pawn = Some(Piece {
        color: BLACK,
        role: Role::Pawn,
    });
    // e5: no white piece goes there; e4 with a black pawn: not his.
    for (square, identity) in [("e5", None), ("e4", black_pawn)] {
        let mut referee = Referee::new(Rules::default());
        referee.handle(0, Input::Press(BLACK)).unwrap();
        let _ = referee.poll_effect();
        referee
            .handle(3_000, Input::Place(sq(square), identity))
            .unwrap();
        assert_eq!(referee.next_deadline(), Some(5_400_000));
        assert_eq!(
            referee.poll_effect(),
            Some((
                3_000,
                Effect::Displaced {
                    side: WHITE,
                    squares: vec![sq(square)]
                }
            ))
        );
    }
}

#[test]
fn near_miss_another_input_reads_the_place_as_it_is() {
    // A press before any lift: the piece put on e4 is an extra piece.
    let effects = rule(
        START,
        &[
            (3_000, Input::Place(sq("e4"), None)),
            (3_100, Input::Press(WHITE)),
        ],
    );
    assert_eq!(
        effects[0],
        (
            3_000,
            Effect::Displaced {
                side: WHITE,
                squares: vec![sq("e4")]
            }
        )
    );
}

/// 1.e4 d5 2.e5 c6, Black's press at 10 000: White's e5 pawn stands beside
/// Black's d5 pawn, which came by d7-d5 a move ago, so en passant is gone.
fn late_en_passant() -> Game {
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4");
    game.play_and_press(3_000, "d7d5");
    game.play_and_press(5_000, "e4e5");
    game.play(9_000, "c7c6");
    assert_eq!(Game::moves(&game.at(10_000, Input::Press(BLACK))), ["c6"]);
    game
}

#[test]
fn en_passant_one_move_too_late_is_the_capturer_s_illegal_move_not_a_knock() {
    let mut game = late_en_passant();
    let white = game.referee.remaining(WHITE, 10_000);
    let black = game.referee.remaining(BLACK, 10_000);
    // 1.5 s after Black's press, inside its knock window: taken for Black's
    // knock until White's pawn shows what it was.
    assert_eq!(
        game.at(11_500, Input::Lift(sq("d5"))),
        [Effect::Displaced {
            side: BLACK,
            squares: vec![sq("d5")]
        }]
    );
    assert_eq!(game.at(11_600, Input::Lift(sq("e5"))), []);
    // His pawn put where it would have captured en passant: his capture
    // attempt. The 300 ms Black's clock ran since the lift go back to him.
    assert_eq!(
        game.at(11_800, Input::Place(sq("d6"), None)),
        [
            Effect::TimeAdded {
                side: BLACK,
                ms: 300,
                law: Law::Displaced
            },
            Effect::Displaced {
                side: WHITE,
                squares: vec![sq("d5")]
            }
        ]
    );
    assert_eq!(game.referee.ticking(), Some(WHITE));
    assert_eq!(game.referee.remaining(BLACK, 11_800), black);
    // His press completes an illegal move (7.5.1): the penalty, as for
    // any other.
    let effects = game.at(12_000, Input::Press(WHITE));
    assert_eq!(
        effects,
        [
            violation(
                WHITE,
                Law::IllegalMove,
                "Illegal move: restore d5 e5 d6 and make a legal move"
            ),
            Effect::TimeAdded {
                side: BLACK,
                ms: 120_000,
                law: Law::IllegalMovePenalty
            }
        ]
    );
    // He sets the position right on his own time, and plays.
    assert_eq!(game.at(13_000, Input::Lift(sq("d6"))), []);
    assert_eq!(game.at(13_100, Input::Place(sq("e5"), None)), []);
    assert_eq!(
        game.at(13_500, Input::Place(sq("d5"), None)),
        [Effect::Restored {
            side: WHITE,
            ms: 2_000
        }]
    );
    assert_eq!(game.referee.remaining(WHITE, 13_500), white - 3_500);
    assert_eq!(game.referee.remaining(BLACK, 13_500), black + 120_000);
    // 7.5.1: 4.3 applies to the move that replaces it: he touched his
    // e5 pawn, and must move it.
    assert_eq!(game.play(14_000, "g1f3"), []);
    assert_eq!(
        game.at(14_500, Input::Press(WHITE)),
        [violation(
            WHITE,
            Law::TouchedOwn,
            "Touch-move: move the e5 pawn"
        )]
    );
    game.inputs(
        15_000,
        &[
            Input::Lift(sq("f3")),
            Input::Place(sq("g1"), None),
            Input::Lift(sq("e5")),
            Input::Place(sq("e6"), None),
        ],
    );
    assert_eq!(Game::moves(&game.at(16_000, Input::Press(WHITE))), ["e6"]);
}

#[test]
fn en_passant_one_move_too_late_is_black_s_attempt_too() {
    // 1.Nf3 e5 2.Nc3 e4 3.d4 Nf6 4.a3, White's press at 10 000: Black's e4
    // pawn beside White's d4 pawn, whose d2-d4 is no longer the last move.
    let mut game = Game::started(Rules::default());
    let mut t = 1_000;
    for uci in ["g1f3", "e7e5", "b1c3", "e5e4", "d2d4", "g8f6"] {
        assert_eq!(Game::moves(&game.play_and_press(t, uci)).len(), 1, "{uci}");
        t += 1_000;
    }
    game.play(9_000, "a2a3");
    assert_eq!(Game::moves(&game.at(10_000, Input::Press(WHITE))), ["a3"]);
    assert_eq!(
        game.at(10_500, Input::Lift(sq("d4"))),
        [Effect::Displaced {
            side: WHITE,
            squares: vec![sq("d4")]
        }]
    );
    assert_eq!(game.at(10_600, Input::Lift(sq("e4"))), []);
    assert_eq!(
        game.at(10_700, Input::Place(sq("d3"), None)),
        [
            Effect::TimeAdded {
                side: WHITE,
                ms: 200,
                law: Law::Displaced
            },
            Effect::Displaced {
                side: BLACK,
                squares: vec![sq("d4")]
            }
        ]
    );
    assert_eq!(game.referee.ticking(), Some(BLACK));
    assert!(matches!(
        game.at(11_000, Input::Press(BLACK)).as_slice(),
        [
            Effect::Violation(Ruling {
                side: BLACK,
                law: Law::IllegalMove,
                ..
            }),
            Effect::TimeAdded { side: WHITE, .. }
        ]
    ));
}

#[test]
fn near_miss_a_pawn_put_behind_a_pawn_it_never_stood_beside_is_no_capture_attempt() {
    // Only a pawn from beside it on the fifth rank would have taken the d5
    // pawn en passant: White's f2 pawn put on d6 after the knock is no
    // capture attempt, and the knock stays Black's.
    let mut game = late_en_passant();
    game.at(11_500, Input::Lift(sq("d5")));
    game.at(11_600, Input::Lift(sq("f2")));
    let effects = game.at(11_800, Input::Place(sq("d6"), None));
    assert!(
        !effects.iter().any(|e| matches!(
            e,
            Effect::TimeAdded { .. } | Effect::Displaced { side: WHITE, .. }
        )),
        "{effects:?}"
    );
    assert_eq!(game.referee.ticking(), Some(BLACK));
}

#[test]
fn en_passant_slid_inside_the_knock_window_is_en_passant() {
    // 1.e4 Nf6 2.e5 d5 pressed at 10 000; 500 ms later White lifts d5,
    // slides his e5 pawn to d6: the board reports d6 before e5.
    let mut game = Game::started(Rules::default());
    game.play_and_press(1_000, "e2e4");
    game.play_and_press(3_000, "g8f6");
    game.play_and_press(5_000, "e4e5");
    game.play(9_000, "d7d5");
    assert_eq!(Game::moves(&game.at(10_000, Input::Press(BLACK))), ["d5"]);
    assert_eq!(game.at(10_500, Input::Lift(sq("d5"))), []);
    assert_eq!(game.at(10_700, Input::Place(sq("d6"), None)), []);
    assert_eq!(game.at(10_705, Input::Lift(sq("e5"))), []);
    assert_eq!(Game::moves(&game.at(11_000, Input::Press(WHITE))), ["exd6"]);
}

#[test]
fn near_miss_an_opponent_s_lift_alone_leaves_the_place_an_extra_piece_at_its_instant() {
    // Black's d7 pawn lifted in the scan (a capture's piece, were there
    // one), and no white piece lifted: the place is read as it came, at
    // its own instant, then the lift of d7 at its own: the extra piece is
    // displaced, d7 off the board joins it, and the press finds no move.
    let effects = rule(
        START,
        &[
            (3_000, Input::Place(sq("e4"), None)),
            (3_100, Input::Lift(sq("d7"))),
            (3_600, Input::Press(WHITE)),
        ],
    );
    assert_eq!(
        effects,
        [
            (
                3_000,
                Effect::Displaced {
                    side: WHITE,
                    squares: vec![sq("e4")]
                }
            ),
            (
                3_600,
                violation(WHITE, Law::NoMove, "Pressed without making a move")
            ),
            (
                3_600,
                Effect::TimeAdded {
                    side: BLACK,
                    ms: 120_000,
                    law: Law::IllegalMovePenalty
                }
            ),
        ]
    );
}

/// The events of `m` from `position`, in the natural order or slid (each
/// piece's place reported before its lift), 5 ms apart within a piece and
/// 100 ms between pieces, from `t`; with the board's identity of each
/// piece placed when `identity`.
fn hands_of(
    position: &shakmaty::Chess,
    m: shakmaty::Move,
    slid: bool,
    identity: bool,
    t: Millis,
) -> Vec<(Millis, Input)> {
    use shakmaty::{Move, Position, Square};
    let color = position.turn();
    let named = |role: Role| identity.then_some(Piece { color, role });
    // The captured square, lifted first; each piece carried, with the
    // piece the board names on its new square.
    type Carried = (Square, Square, Option<Piece>);
    let (captured, pieces): (Option<Square>, Vec<Carried>) = match m {
        Move::Castle { king, rook } => {
            let side = m.castling_side().unwrap();
            (
                None,
                vec![
                    (king, side.king_to(color), named(Role::King)),
                    (rook, side.rook_to(color), named(Role::Rook)),
                ],
            )
        }
        Move::EnPassant { from, to } => (
            Some(Square::from_coords(to.file(), from.rank())),
            vec![(from, to, named(Role::Pawn))],
        ),
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => (
            capture.map(|_| to),
            vec![(from, to, named(promotion.unwrap_or(role)))],
        ),
        Move::Put { .. } => unreachable!("no drops in chess"),
    };
    let mut events = Vec::new();
    let mut at = t;
    if let Some(sq) = captured {
        events.push((at, Input::Lift(sq)));
        at += 100;
    }
    for (from, to, piece) in pieces {
        if slid {
            events.push((at, Input::Place(to, piece)));
            events.push((at + 5, Input::Lift(from)));
        } else {
            events.push((at, Input::Lift(from)));
            events.push((at + 5, Input::Place(to, piece)));
        }
        at += 100;
    }
    events
}

/// A game of pseudo-random legal moves from the start, `seed` choosing
/// them, every move pressed 300 ms after its last event: its events, natural
/// or slid.
fn random_game(seed: u64, slid: bool, identity: bool) -> Vec<(Millis, Input)> {
    use shakmaty::Position;
    let mut position = shakmaty::Chess::default();
    let mut state = seed;
    let mut events = Vec::new();
    let mut t = 1_000;
    for _ in 0..160 {
        let mut moves = position.legal_moves();
        // Without the board's identity the new piece is a queen.
        if !identity {
            moves.retain(|m| m.promotion().is_none_or(|role| role == Role::Queen));
        }
        if moves.is_empty() || position.is_insufficient_material() {
            break;
        }
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // Promotions, captures and castling first when there are any, so
        // that every kind of move is slid.
        let special: Vec<_> = moves
            .iter()
            .filter(|m| m.is_promotion() || m.is_castle() || m.is_en_passant())
            .collect();
        let m = if !special.is_empty() && state >> 62 == 0 {
            *special[(state >> 33) as usize % special.len()]
        } else {
            moves[(state >> 33) as usize % moves.len()]
        };
        let side = position.turn();
        events.extend(hands_of(&position, m, slid, identity, t));
        position.play_unchecked(m);
        events.push((t + 600, Input::Press(side)));
        t += 1_000;
    }
    events
}

#[test]
fn every_move_slid_is_ruled_as_the_same_move_lifted_first() {
    let mut kinds = [0; 3];
    for seed in 0..24 {
        for identity in [false, true] {
            let natural = rule(START, &random_game(seed, false, identity));
            let slid = rule(START, &random_game(seed, true, identity));
            assert_eq!(slid, natural, "seed {seed}, identity {identity}");
            assert!(
                !natural.iter().any(|(_, e)| matches!(
                    e,
                    Effect::Violation(_) | Effect::Warning(_) | Effect::Displaced { .. }
                )),
                "seed {seed}: {natural:?}"
            );
            for (_, e) in &natural {
                if let Effect::Move(m) = e {
                    let uci = m.uci.to_string();
                    kinds[0] += usize::from(uci.len() == 5);
                    kinds[1] += usize::from(m.san.to_string().starts_with("O-O"));
                    kinds[2] += usize::from(m.san.to_string().contains('x'));
                }
            }
        }
    }
    // Promotions, castling and captures were among them.
    assert!(kinds.iter().all(|&n| n > 0), "{kinds:?}");
}
