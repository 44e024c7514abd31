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
use tocada::{CompletedMove, Effect, Input, Law, Millis, MoveText, Referee, Rules, Ruling};

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
    let mut referee = Referee::new(Rules::default());
    referee.handle(0, Input::Press(BLACK)).unwrap();
    assert_eq!(referee.next_deadline(), Some(5_400_000));
    referee.handle(3_000, Input::Place(sq("e4"), None)).unwrap();
    assert_eq!(referee.next_deadline(), Some(3_300));
    referee.handle(3_299, Input::Lift(sq("e2"))).unwrap();
    // The lift came on the last instant of the scan: the move is made.
    assert_eq!(referee.next_deadline(), Some(5_400_000));
    assert!(referee.awaits_press(WHITE));
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
    assert!(
        effects
            .iter()
            .any(|(_, e)| matches!(e, Effect::Violation(_))),
        "{effects:?}"
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
                3_300,
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
                    3_005,
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
            3_100,
            Effect::Displaced {
                side: WHITE,
                squares: vec![sq("e4")]
            }
        )
    );
}
