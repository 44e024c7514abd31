//! Every message of every language on the 128 × 64 face: none is cut (the
//! face marks a cut with `~`), runs off the panel or overlaps another
//! text; and the OLED's fonts have a glyph for every character used.
//! `TOCADA_FACE_PNGS=DIR cargo test --test face_languages` writes each
//! view as a PNG into DIR, to look at.

use embedded_graphics::mono_font::iso_8859_1;
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::Rectangle;
use embedded_graphics_simulator::{BinaryColorTheme, OutputSettingsBuilder, SimulatorDisplay};
use shakmaty::{Color, KnownOutcome, Role, Square};
use tocada::face::{self, Field, Language, Placed, Screen, View};
use tocada::session::editor::Editor;
use tocada::words::{self, Notice};
use tocada::{
    ArbiterWords, Choice, Effect, IncrementMode, Law, MoveText, Reason, Rejection, Ruling,
    TimeControl,
};

/// One of each sentence the referee writes in a ruling, with the longest
/// names it can hold.
const REFEREE_SENTENCES: [&str; 22] = [
    "Touch-move: move the g1 knight",
    "Touch-move: move the bishop",
    "Touch-move: take the g8 queen",
    "Touch-move: take the e5 bishop with the d4 knight",
    "Touch-move: king then rook, castle with the h1 rook",
    "Touch-move: castling is illegal, move the king",
    "Touch-move: rook then king, no castling; move the a8 rook",
    "Released piece: the g1 knight stays on f3",
    "Let go of the piece before pressing",
    "Pressed 140 ms after releasing: press with the hand that moved",
    "Restore d2 c2 e2 before pressing",
    "Pressed without making a move",
    "Pawn not promoted: it becomes a queen",
    "Illegal move: restore e2 e4 and make a legal move",
    "Illegal move: restore the position and make a legal move",
    "Penalty: take the piece on d5",
    "Penalty: move the king",
    "Penalty: move the piece from d5",
    "Castling is not allowed here: restore e1 g1 and move",
    "The touched piece cannot move without exposing the king: move the king",
    "Only the player having the move may adjust pieces",
    "Restore the position before pressing",
];

/// Every effect the face has an alert for, with long values.
fn effects() -> Vec<Effect> {
    let mut effects = Vec::new();
    for side in Color::ALL {
        for detail in REFEREE_SENTENCES {
            let ruling = Ruling {
                side,
                law: Law::TouchedOwn,
                detail: detail.to_owned(),
            };
            effects.push(Effect::Violation(ruling.clone()));
            effects.push(Effect::Warning(ruling));
        }
        effects.push(Effect::Violation(Ruling {
            side,
            law: Law::Adjust,
            detail: "Only the player having the move may adjust pieces".to_owned(),
        }));
        for law in [Law::IllegalMovePenalty, Law::PressHand] {
            effects.push(Effect::TimeAdded {
                side,
                ms: 120_000,
                law,
            });
        }
        effects.extend([
            Effect::Displaced {
                side,
                squares: vec![Square::D2, Square::C2, Square::E2, Square::F2],
            },
            Effect::Restored { side, ms: 700 },
            Effect::Flag { side },
            Effect::DrawOffer {
                side,
                proper: false,
            },
            Effect::DrawDeclined {
                side,
                how: Rejection::Touch,
            },
            Effect::Corrected {
                side,
                ms: 5_400_000,
                completed: 40,
            },
            Effect::TakenBack {
                side,
                number: 123,
                san: MoveText::new("Nbxd7+").expect("SAN"),
            },
            Effect::Waived {
                side,
                law: Law::TouchedOwn,
            },
            Effect::Claim {
                side,
                law: Law::TouchedOwn,
                upheld: true,
            },
            Effect::Claim {
                side,
                law: Law::TouchedOwn,
                upheld: false,
            },
        ]);
    }
    effects.push(Effect::Paused);
    effects
}

fn reasons() -> Vec<Reason> {
    vec![
        Reason::Checkmate,
        Reason::Resignation,
        Reason::Timeout,
        Reason::TimeoutVsInsufficientMaterial,
        Reason::Stalemate,
        Reason::InsufficientMaterial,
        Reason::Agreement,
        Reason::ThreefoldRepetition,
        Reason::FiftyMoves,
        Reason::FivefoldRepetition,
        Reason::SeventyFiveMoves,
        Reason::IllegalMoves,
        Reason::Adjudicated(ArbiterWords::new("Both flags").expect("words")),
    ]
}

/// Every alert line the face can show in `language`.
fn alerts(language: Language) -> Vec<String> {
    let mut alerts: Vec<String> = effects()
        .iter()
        .filter_map(|e| words::alert_for(e, language))
        .collect();
    alerts.extend(Notice::ALL.map(|n| n.text(language).to_owned()));
    alerts.push(words::restarted_set_aside(12, language));
    alerts.push(words::restarted_set_aside(1, language));
    alerts.push(words::confirm("1/2-1/2", language));
    alerts.push(format!("{} 1/2-1/2", Field::Adjudicate.label_in(language)));
    for side in Color::ALL {
        alerts.push(words::adjusting(side, language));
    }
    for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        alerts.push(words::promotion_text(role, language));
    }
    // The 1858 choices, after the law: the longest set of three.
    for options in Choice::ALL.chunks(3) {
        alerts.push(format!(
            "{} {}",
            Law::Regence13,
            words::choice_text(options, 0, language)
        ));
    }
    alerts.push(words::set_up_text(
        &[Square::A1, Square::B1, Square::C1, Square::D1, Square::E1],
        &[Square::E4],
        &[],
        &[Square::H8],
        language,
    ));
    alerts
}

fn clock(language: Language) -> View {
    View {
        white_ms: 5_399_000,
        black_ms: 5_399_000,
        running: Some(Color::White),
        move_number: 123,
        language,
        ..View::default()
    }
}

/// Every view to check in `language`, named.
fn views(language: Language) -> Vec<(String, View)> {
    let mut views = Vec::new();
    for (i, alert) in alerts(language).into_iter().enumerate() {
        views.push((
            format!("alert-{i}"),
            View {
                alert: Some(alert),
                ..clock(language)
            },
        ));
    }
    for outcome in [
        KnownOutcome::Decisive {
            winner: Color::White,
        },
        KnownOutcome::Draw,
    ] {
        for (i, reason) in reasons().into_iter().enumerate() {
            views.push((
                format!("result-{i}"),
                View {
                    result: Some(words::result_text(outcome, reason, language)),
                    ..clock(language)
                },
            ));
        }
    }
    for black_left in [false, true] {
        let status = View {
            draw_offer: Some(Color::Black),
            paused: true,
            flag: Some(Color::White),
            white_stage: 2,
            black_stage: 2,
            black_left,
            ..clock(language)
        };
        views.push(("status".to_owned(), status.clone()));
        views.push((
            "flag-other".to_owned(),
            View {
                flag: Some(Color::Black),
                ..status.clone()
            },
        ));
        views.push((
            "disconnected".to_owned(),
            View {
                board_disconnected: true,
                ..status.clone()
            },
        ));
        views.push((
            "unsaved".to_owned(),
            View {
                games_unsaved: true,
                ..status
            },
        ));
        views.push((
            "menu".to_owned(),
            View {
                screen: Screen::TimeControlMenu {
                    presets: vec!["Blitz 3+2".into(), "Rapid 15+10".into()],
                    selected: 1,
                },
                black_left,
                ..clock(language)
            },
        ));
        // Presets named in words: hourglass and upcount, in the language.
        let words = &language.face().editor;
        let five: TimeControl = "300".parse().unwrap();
        let labels = [
            IncrementMode::Hourglass.label_in(&five, [words.hourglass, words.count_up]),
            IncrementMode::Upcount.label_in(&five, [words.hourglass, words.count_up]),
        ];
        for (i, label) in labels.into_iter().enumerate() {
            views.push((
                format!("menu-words-{i}"),
                View {
                    screen: Screen::TimeControlMenu {
                        presets: vec![format!("casual {label}"), "Blitz 3+2".into()],
                        selected: 0,
                    },
                    black_left,
                    ..clock(language)
                },
            ));
        }
        // The time-control editor: every value of every row, the row
        // selected (its arrows narrow the text), with the header and footer.
        let mut editor = Editor::default();
        // Moves 40 first, so that no row is left out as unused.
        for _ in 0..3 {
            editor.step_row(true);
        }
        editor.step_value(true);
        for row in 0..7 {
            for step in 0..15 {
                editor.step_value(true);
                views.push((
                    format!("editor-{row}-{step}"),
                    View {
                        screen: Screen::TimeControlEditor {
                            rows: editor.rows(),
                            selected: editor.selected(),
                        },
                        black_left,
                        ..clock(language)
                    },
                ));
            }
            editor.step_row(true);
        }
        for field in Field::ALL {
            views.push((
                format!("correction-{field:?}"),
                View {
                    screen: Screen::Correction { field },
                    paused: true,
                    black_left,
                    white_moves: 123,
                    black_moves: 122,
                    ..clock(language)
                },
            ));
        }
    }
    views
}

/// Whether `text` is a clock's reading, drawn doubled at half scale.
fn is_time(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
}

fn overlap(a: &Rectangle, b: &Rectangle) -> bool {
    let (a_end, b_end) = (a.top_left + a.size, b.top_left + b.size);
    a.top_left.x < b_end.x
        && b.top_left.x < a_end.x
        && a.top_left.y < b_end.y
        && b.top_left.y < a_end.y
}

/// What is wrong with the texts of one view.
fn faults(placed: &[Placed]) -> Vec<String> {
    let panel = Rectangle::new(Point::zero(), Size::new(128, 64));
    let mut faults = Vec::new();
    let words: Vec<&Placed> = placed.iter().filter(|p| !is_time(&p.text)).collect();
    for p in &words {
        if p.text.ends_with('~') {
            faults.push(format!("cut: {:?}", p.text));
        }
        let end = p.area.top_left + p.area.size - Point::new(1, 1);
        let inside = panel.contains(p.area.top_left) && panel.contains(end);
        if !inside && !p.area.is_zero_sized() {
            faults.push(format!("off the panel: {:?} at {:?}", p.text, p.area));
        }
    }
    for (i, a) in words.iter().enumerate() {
        for b in &words[i + 1..] {
            // ":" between the minutes and the seconds of the correction
            // screen sits between its neighbours by design; text on a
            // selected field's fill is drawn after the fill, not over text.
            // A column clear between two texts, or they read as one word.
            let widened = Rectangle::new(
                a.area.top_left - Point::new(1, 0),
                a.area.size + Size::new(2, 0),
            );
            if overlap(&widened, &b.area) {
                faults.push(format!("{:?} overlaps {:?}", a.text, b.text));
            }
        }
    }
    faults
}

#[test]
fn every_message_of_every_language_fits_the_face() {
    let out = std::env::var_os("TOCADA_FACE_PNGS").map(std::path::PathBuf::from);
    let mut all = Vec::new();
    let mut checked = 0;
    for language in Language::ALL {
        for (name, view) in views(language) {
            let placed = face::placed_texts(&view);
            assert!(!placed.is_empty(), "{name}: nothing drawn");
            checked += 1;
            for fault in faults(&placed) {
                all.push(format!("{} {name}: {fault}", language.as_str()));
            }
            if let Some(dir) = &out {
                let mut display = SimulatorDisplay::<BinaryColor>::new(Size::new(128, 64));
                face::draw(&view, &mut display).unwrap();
                let settings = OutputSettingsBuilder::new()
                    .scale(2)
                    .theme(BinaryColorTheme::OledWhite)
                    .build();
                display
                    .to_rgb_output_image(&settings)
                    .save_png(dir.join(format!("{}-{name}.png", language.as_str())))
                    .unwrap();
            }
        }
    }
    assert!(checked > 4 * 100, "{checked} views");
    assert!(all.is_empty(), "{} faults:\n{}", all.len(), all.join("\n"));
}

#[test]
fn the_fonts_have_every_character_the_languages_use() {
    // The face's text fonts are ISO 8859-1: a character outside it would
    // be drawn as the font's replacement glyph.
    let mut texts: Vec<String> = Vec::new();
    for language in Language::ALL {
        texts.extend(alerts(language));
        let w = language.face();
        texts.extend(
            [
                w.white,
                w.black,
                w.flag,
                w.move_number,
                w.paused,
                w.board_disconnected,
                w.games_not_saved,
                w.draw_swaps,
                w.blacks_lever_starts,
                w.arbiter,
                w.moves,
            ]
            .map(String::from),
        );
        texts.extend(w.fields.map(String::from));
        texts.extend(w.correction_hints.map(String::from));
    }
    let replacement = iso_8859_1::FONT_6X10.glyph_mapping.index('\u{FFFD}');
    for text in &texts {
        for c in text.chars() {
            assert!(
                u32::from(c) < 0x100,
                "{c:?} in {text:?} is not in the OLED's ISO 8859-1 fonts"
            );
            if c != ' ' && c != '?' {
                assert_ne!(
                    iso_8859_1::FONT_6X10.glyph_mapping.index(c),
                    replacement,
                    "{c:?}"
                );
            }
        }
    }
    // The accents the four languages need are in every text font.
    for c in "áéíóúñüàèêëöäßÉÁçÑÜÖÄ¿¡°½".chars() {
        assert_ne!(
            iso_8859_1::FONT_4X6.glyph_mapping.index(c),
            replacement,
            "{c:?}"
        );
        assert_ne!(
            iso_8859_1::FONT_5X8.glyph_mapping.index(c),
            replacement,
            "{c:?}"
        );
    }
}

#[test]
fn the_same_touch_move_ruling_in_each_language() {
    let ruling = Effect::Violation(Ruling {
        side: Color::White,
        law: Law::TouchedOwn,
        detail: "Touch-move: move the g1 knight".to_owned(),
    });
    let said = Language::ALL.map(|l| words::alert_for(&ruling, l).unwrap());
    assert_eq!(
        said,
        [
            "Touch-move: move the g1 knight",
            "Pieza tocada: mueva el caballo de g1",
            "Pièce touchée: jouez le cavalier g1",
            "Berührt-geführt: ziehen Sie den Springer g1",
        ]
    );
    // Moves in the language's piece letters; the PGN keeps English ones.
    let taken = Effect::TakenBack {
        side: Color::White,
        number: 2,
        san: MoveText::new("Nf3").expect("SAN"),
    };
    assert_eq!(
        words::alert_for(&taken, Language::German).unwrap(),
        "Zurückgenommen: Weiß 2. Sf3"
    );
}
