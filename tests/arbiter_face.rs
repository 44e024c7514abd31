//! The arbiter's acts on the correction screen: the act's line shows the
//! field's name, or what the panel says about it (the result proposed, the
//! question to confirm it, the act done).

use tocada::face::{self, Field, Frame, Screen, View};

fn correction(field: Field, alert: Option<&str>) -> Frame {
    face::render(&View {
        paused: true,
        white_ms: 600_000,
        black_ms: 540_000,
        screen: Screen::Correction { field },
        alert: alert.map(str::to_owned),
        ..View::default()
    })
}

/// The rows at which `a` and `b` differ somewhere.
fn differing_rows(a: &Frame, b: &Frame) -> Vec<i32> {
    (0..face::HEIGHT)
        .filter(|&y| (0..face::WIDTH).any(|x| a.pixel(x, y) != b.pixel(x, y)))
        .collect()
}

#[test]
fn the_act_line_says_what_the_panel_says_about_the_act() {
    let name = correction(Field::Adjudicate, None);
    let asked = correction(Field::Adjudicate, Some("Confirm 1-0?"));
    let rows = differing_rows(&name, &asked);
    assert!(!rows.is_empty());
    // Only the act's line changes: below the moves, above the hints.
    assert!(
        rows.iter().all(|&y| (34..face::HEIGHT - 16).contains(&y)),
        "{rows:?}"
    );
    // The acts are told apart by name.
    assert_ne!(
        correction(Field::Waive, None),
        correction(Field::TakeBack, None)
    );
    // On a clock's field the alert is no part of the screen.
    assert_eq!(
        correction(Field::WhiteMinutes, None),
        correction(Field::WhiteMinutes, Some("Confirm 1-0?"))
    );
}
