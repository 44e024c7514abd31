//! The arbiter's acts from the pause menu and the claim gesture, through the
//! session ([`Session`]): what each button does, what is stored, and
//! that the stored lines rebuild the same game.

use shakmaty::{Color, Position, Square};
use tocada::config::Config;
use tocada::controls::Button;
use tocada::face::{Field, Screen};
use tocada::session::{Action, GameToResume, Session, SessionInput};
use tocada::transcript::{Policy, restore};
use tocada::{Effect, Enforcement, Input, KnownOutcome, Law, Reason, Rules};

const WHITE: Color = Color::White;
const BLACK: Color = Color::Black;
/// With White on the left (the default), Black's draw button is "+".
const PLUS: Button = Button::Draw(BLACK);
const MINUS: Button = Button::Draw(WHITE);
/// Black's adjust button, on the right, steps to the next field.
const NEXT_FIELD: Button = Button::Adjust(BLACK);

fn session(enforcement: Enforcement) -> Session {
    let mut session = Session::new(&Config::default());
    session.select_rules(
        "test",
        Rules {
            time_control: "300".parse().unwrap(),
            enforcement,
            ..Rules::default()
        },
    );
    session
}

fn actions(session: &mut Session) -> Vec<Action> {
    std::iter::from_fn(|| session.poll_action()).collect()
}

fn press(session: &mut Session, at: u64, button: Button) -> Vec<Action> {
    session.handle(at, SessionInput::Press { button, at });
    actions(session)
}

fn decisions(all: &[Action]) -> Vec<Effect> {
    all.iter()
        .filter_map(|a| match a {
            Action::Decision(_, effect) => Some(effect.clone()),
            _ => None,
        })
        .collect()
}

mod support {
    pub mod lines;
}
use support::lines::stored_lines as stored;

/// A move on the board at `t`, then its press.
fn play(session: &mut Session, t: u64, from: Square, to: Square, side: Color) -> Vec<Action> {
    session.handle(t, SessionInput::Board(Input::Lift(from)));
    session.handle(t + 200, SessionInput::Board(Input::Place(to, None)));
    let mut all = actions(session);
    all.extend(press(session, t + 400, Button::Lever(side)));
    all
}

/// Black starts, then 1. e4 e5 2. Nf3.
fn opening(session: &mut Session) -> Vec<Action> {
    let mut all = press(session, 1_000, Button::Lever(BLACK));
    all.extend(play(session, 4_000, Square::E2, Square::E4, WHITE));
    all.extend(play(session, 7_000, Square::E7, Square::E5, BLACK));
    all.extend(play(session, 10_000, Square::G1, Square::F3, WHITE));
    all
}

/// Pauses at `t` and steps to `field`.
fn menu_to(session: &mut Session, t: u64, field: Field) -> Vec<Action> {
    let mut all = press(session, t, Button::Menu);
    while !matches!(session.view(t).screen, Screen::Correction { field: f } if f == field) {
        all.extend(press(session, t, NEXT_FIELD));
    }
    all
}

#[test]
fn take_back_from_the_menu_undoes_the_last_move_and_is_stored() {
    let mut p = session(Enforcement::Strict);
    let mut all = opening(&mut p);
    let white_before_nf3 = 300_000 - 3_000 - 400;
    all.extend(menu_to(&mut p, 20_000, Field::TakeBack));
    assert_eq!(
        p.view(20_000).alert,
        None,
        "the field's name shows on the line"
    );
    let done = press(&mut p, 20_100, PLUS);
    assert_eq!(
        decisions(&done),
        [Effect::TakenBack {
            side: WHITE,
            number: 2,
            san: tocada::MoveText::new("Nf3").unwrap(),
        }]
    );
    assert!(stored(&done)[0].ends_with(r#""ev":"takeback"}"#));
    assert_eq!(
        p.view(20_100).alert.as_deref(),
        Some("Taken back: White 2. Nf3")
    );
    all.extend(done);
    let referee = p.referee().unwrap();
    assert_eq!(referee.position().turn(), WHITE);
    assert_eq!(referee.remaining(WHITE, 20_100), white_before_nf3);
    // "-" does nothing here; the board is set back, the menu resumes.
    all.extend(press(&mut p, 20_200, MINUS));
    p.handle(20_300, SessionInput::Board(Input::Lift(Square::F3)));
    p.handle(20_400, SessionInput::Board(Input::Place(Square::G1, None)));
    all.extend(actions(&mut p));
    all.extend(press(&mut p, 21_000, Button::Menu));
    all.extend(play(&mut p, 22_000, Square::B1, Square::C3, WHITE));
    assert_eq!(
        p.referee().unwrap().remaining(WHITE, 22_400),
        white_before_nf3 - 1_400
    );

    // The stored lines rebuild the same game.
    let lines = stored(&all);
    let mut q = Session::new(&Config::default());
    restore(
        &mut q,
        0,
        GameToResume {
            preset: "test",
            black_left: false,
            date: "2026.01.01",
            lines: &lines,
        },
        Policy::RESTORE,
    )
    .unwrap();
    let rebuilt = q.referee().unwrap();
    assert_eq!(
        rebuilt.position().board(),
        p.referee().unwrap().position().board()
    );
    assert_eq!(rebuilt.remaining(WHITE, 0), white_before_nf3 - 1_400);
}

#[test]
fn waive_from_the_menu_frees_a_refused_press() {
    let mut p = session(Enforcement::Strict);
    opening(&mut p);
    // Black touches his b8 knight, then plays d6: refused (4.3.1).
    p.handle(13_000, SessionInput::Board(Input::Touch(Square::B8)));
    let all = play(&mut p, 13_500, Square::D7, Square::D6, BLACK);
    assert!(matches!(decisions(&all)[..], [Effect::Violation(ref r)] if r.law == Law::TouchedOwn));
    menu_to(&mut p, 20_000, Field::Waive);
    let done = press(&mut p, 20_100, PLUS);
    assert_eq!(
        decisions(&done),
        [Effect::Waived {
            side: BLACK,
            law: Law::TouchedOwn
        }]
    );
    assert!(stored(&done)[0].ends_with(r#""ev":"waive"}"#));
    // Nothing more to waive: a short buzz and the session says so.
    let again = press(&mut p, 20_200, PLUS);
    assert!(decisions(&again).is_empty());
    assert!(again.contains(&Action::Buzz(tocada::daemon::Buzz::Short)));
    assert_eq!(p.view(20_200).alert.as_deref(), Some("Nothing to do"));
    press(&mut p, 21_000, Button::Menu);
    let all = press(&mut p, 22_000, Button::Lever(BLACK));
    assert!(
        matches!(decisions(&all)[..], [Effect::Move(ref m)] if m.san == "d6"),
        "{all:?}"
    );
}

#[test]
fn adjudicate_from_the_menu_asks_for_confirmation() {
    let mut p = session(Enforcement::Strict);
    opening(&mut p);
    menu_to(&mut p, 20_000, Field::Adjudicate);
    assert_eq!(p.view(20_000).alert.as_deref(), Some("Adjudicate 1-0"));
    // "-" chooses the next result; "+" asks to confirm; stepping away and
    // back forgets the question.
    press(&mut p, 20_100, MINUS);
    assert_eq!(p.view(20_100).alert.as_deref(), Some("Adjudicate 0-1"));
    let asked = press(&mut p, 20_200, PLUS);
    assert!(decisions(&asked).is_empty() && stored(&asked).is_empty());
    assert_eq!(p.view(20_200).alert.as_deref(), Some("Confirm 0-1?"));
    press(&mut p, 20_300, MINUS);
    assert_eq!(p.view(20_300).alert.as_deref(), Some("Adjudicate 1/2-1/2"));
    press(&mut p, 20_400, PLUS);
    let done = press(&mut p, 20_500, PLUS);
    let (result, pgn) = done
        .iter()
        .find_map(|a| match a {
            Action::Finish { result, pgn } => Some((result.clone(), pgn.clone())),
            _ => None,
        })
        .expect("the game is finished");
    assert_eq!(result, "1/2-1/2");
    assert!(pgn.contains("Adjudicated by the arbiter"), "{pgn}");
    assert!(
        stored(&done)[0].contains(
            r#""ev":"adjudicate","result":"1/2-1/2","reason":"Adjudicated from the clock's menu""#
        ),
        "{done:?}"
    );
    assert!(matches!(
        p.referee().unwrap().result(),
        Some((KnownOutcome::Draw, Reason::Adjudicated(_)))
    ));
}

#[test]
fn a_double_press_of_the_adjust_button_claims_under_4_8() {
    let mut p = session(Enforcement::Claim);
    press(&mut p, 1_000, Button::Lever(BLACK));
    // White touches g1, plays e4 and presses: shown, and it stands.
    p.handle(2_000, SessionInput::Board(Input::Touch(Square::G1)));
    let all = play(&mut p, 2_500, Square::E2, Square::E4, WHITE);
    assert_eq!(decisions(&all).len(), 2, "{all:?}");
    // Black's adjust button twice: the claim.
    let mut claim = press(&mut p, 4_000, Button::Adjust(BLACK));
    claim.extend(press(&mut p, 4_300, Button::Adjust(BLACK)));
    assert_eq!(
        decisions(&claim),
        [
            Effect::Claim {
                side: BLACK,
                law: Law::TouchedOwn,
                upheld: true
            },
            Effect::TakenBack {
                side: WHITE,
                number: 1,
                san: tocada::MoveText::new("e4").unwrap(),
            },
        ]
    );
    let lines = stored(&claim);
    assert!(lines[0].ends_with(r#""ev":"adjust","side":"black"}"#));
    assert!(lines[1].ends_with(r#""ev":"claim","side":"black"}"#));
    assert_eq!(
        p.view(4_300).alert.as_deref(),
        Some("Taken back: White 1. e4")
    );
    assert_eq!(p.referee().unwrap().position().turn(), WHITE);
}

#[test]
fn two_adjust_presses_far_apart_are_no_claim() {
    let mut p = session(Enforcement::Claim);
    press(&mut p, 1_000, Button::Lever(BLACK));
    p.handle(2_000, SessionInput::Board(Input::Touch(Square::G1)));
    play(&mut p, 2_500, Square::E2, Square::E4, WHITE);
    let mut all = press(&mut p, 4_000, Button::Adjust(BLACK));
    all.extend(press(&mut p, 5_000, Button::Adjust(BLACK)));
    assert!(decisions(&all).is_empty(), "{all:?}");
    assert!(stored(&all).iter().all(|l| l.contains(r#""ev":"adjust""#)));
}
