//! Snapshots of the clock's face, compared with the PNGs in `tests/face/`.
//! `TOCADA_BLESS=1 cargo test --test face` writes them afresh; look at them
//! before committing.

use std::path::PathBuf;

use embedded_graphics::pixelcolor::{BinaryColor, Rgb888};
use embedded_graphics::prelude::*;
use embedded_graphics_simulator::{
    BinaryColorTheme, OutputSettings, OutputSettingsBuilder, SimulatorDisplay,
};
use proptest::prelude::*;
use shakmaty::Color;
use tocada::face::{self, Field, Frame, Screen, View};
use tocada::hardware::oled::{self, Oled};
use tocada::models::ssd1306::SharedSsd1306;
use tocada::session::view::from_referee;
use tocada::words::{Language, alert_for};
use tocada::{Effect, Input, Law, Referee, Rules, Ruling};

const SCALE: u32 = 2;

fn settings() -> OutputSettings {
    OutputSettingsBuilder::new()
        .scale(SCALE)
        .theme(BinaryColorTheme::OledWhite)
        .build()
}

fn render(view: &View) -> SimulatorDisplay<BinaryColor> {
    let mut display = SimulatorDisplay::new(Size::new(128, 64));
    face::draw(view, &mut display).unwrap();
    display
}

fn check(name: &str, view: &View) {
    let display = render(view);
    let image = display.to_rgb_output_image(&settings());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/face")
        .join(format!("{name}.png"));
    if std::env::var_os("TOCADA_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        image.save_png(&path).unwrap();
        return;
    }
    let golden = SimulatorDisplay::<Rgb888>::load_png(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (TOCADA_BLESS=1 writes it)", path.display()));
    let actual = image.as_image_buffer();
    assert_eq!(
        (
            golden.bounding_box().size.width,
            golden.bounding_box().size.height
        ),
        (actual.width(), actual.height()),
        "{name}: size"
    );
    let mut differ = 0;
    for p in golden.bounding_box().points() {
        let want = golden.get_pixel(p);
        let got = actual.get_pixel(p.x as u32, p.y as u32).0;
        if [want.r(), want.g(), want.b()] != got {
            differ += 1;
        }
    }
    assert_eq!(
        differ,
        0,
        "{name}: {differ} pixels differ from {}",
        path.display()
    );
}

fn clock(white_ms: u64, black_ms: u64) -> View {
    View {
        white_ms,
        black_ms,
        move_number: 1,
        ..View::default()
    }
}

fn start() -> View {
    let referee = Referee::new(Rules {
        time_control: "5400+30".parse().unwrap(),
        ..Rules::default()
    });
    from_referee(&referee, 0, None)
}

fn touch_move() -> View {
    let ruling = Ruling {
        side: Color::White,
        law: Law::TouchedOwn,
        detail: "Touch-move: move the g1 knight".into(),
    };
    View {
        running: Some(Color::White),
        move_number: 12,
        alert: alert_for(&Effect::Violation(ruling), Language::English),
        ..clock(754_000, 1_201_000)
    }
}

/// A game in the second hour of a classical time control, paused by the
/// arbiter: the correction screen with `field` selected.
fn correction(field: Field) -> View {
    View {
        paused: true,
        move_number: 38,
        white_moves: 37,
        black_moves: 37,
        screen: Screen::Correction { field },
        ..clock(3_725_000, 754_000)
    }
}

fn menu() -> View {
    let presets = [
        "Blitz 3+2",
        "Blitz 5+3",
        "Rapid 15+10",
        "Rapid 25+10",
        "Classical 90+30",
        "FIDE 90/40+30+30",
    ];
    View {
        screen: Screen::TimeControlMenu {
            presets: presets.map(String::from).to_vec(),
            selected: 4,
        },
        ..View::default()
    }
}

fn views() -> Vec<(&'static str, View)> {
    vec![
        ("start", start()),
        (
            "white-tenths",
            View {
                running: Some(Color::White),
                move_number: 41,
                ..clock(12_345, 65_000)
            },
        ),
        (
            "black-flagged",
            View {
                flag: Some(Color::Black),
                move_number: 38,
                white_stage: 1,
                black_stage: 0,
                alert: alert_for(&Effect::Flag { side: Color::Black }, Language::English),
                result: Some("1-0 on time".into()),
                ..clock(1_803_000, 0)
            },
        ),
        (
            "draw-offer",
            View {
                running: Some(Color::Black),
                draw_offer: Some(Color::White),
                move_number: 30,
                ..clock(312_000, 287_000)
            },
        ),
        (
            "paused",
            View {
                paused: true,
                draw_offer: Some(Color::Black),
                move_number: 22,
                ..clock(3_725_000, 1_200_000)
            },
        ),
        (
            "board-disconnected",
            View {
                running: Some(Color::Black),
                board_disconnected: true,
                move_number: 17,
                ..clock(420_000, 399_000)
            },
        ),
        ("touch-move", touch_move()),
        ("menu", menu()),
        (
            "menu-black-left",
            View {
                black_left: true,
                ..menu()
            },
        ),
        (
            "black-left",
            View {
                black_left: true,
                running: Some(Color::Black),
                black_stage: 1,
                draw_offer: Some(Color::White),
                move_number: 43,
                ..clock(861_000, 187_000)
            },
        ),
        (
            "black-left-flag",
            View {
                black_left: true,
                flag: Some(Color::White),
                white_stage: 2,
                move_number: 61,
                result: Some("0-1 on time".into()),
                ..clock(0, 95_000)
            },
        ),
        (
            "long-times",
            View {
                running: Some(Color::White),
                move_number: 101,
                ..clock(7_199_000, 7_199_999)
            },
        ),
        ("correction-white-seconds", correction(Field::WhiteSeconds)),
        (
            "correction-black-moves-black-left",
            View {
                black_left: true,
                ..correction(Field::BlackMoves)
            },
        ),
        ("correction-end-game", correction(Field::EndGame)),
        (
            "correction-long",
            View {
                white_ms: 7_199_000,
                black_ms: 7_199_999,
                white_moves: 123,
                black_moves: 122,
                ..correction(Field::WhiteMinutes)
            },
        ),
        (
            "correction-short",
            View {
                white_ms: 9_000,
                black_ms: 300_000,
                white_moves: 0,
                black_moves: 0,
                ..correction(Field::BlackSeconds)
            },
        ),
        (
            "adjust-out-of-turn",
            View {
                running: Some(Color::Black),
                move_number: 7,
                alert: alert_for(
                    &Effect::Violation(Ruling {
                        side: Color::White,
                        law: Law::Adjust,
                        detail: "Only the player having the move may adjust pieces".into(),
                    }),
                    Language::English,
                ),
                ..clock(601_000, 587_000)
            },
        ),
        (
            "jadoube",
            View {
                running: Some(Color::White),
                move_number: 7,
                alert: Some(tocada::words::adjusting(Color::White, Language::English)),
                ..clock(601_000, 587_000)
            },
        ),
        (
            "long-alert",
            View {
                running: Some(Color::White),
                move_number: 23,
                paused: true,
                alert: Some(
                    "Touch-move: move the g1 knight, or the f3 bishop touched first".into(),
                ),
                ..clock(601_000, 587_000)
            },
        ),
    ]
}

#[test]
fn snapshots() {
    for (name, view) in views() {
        check(name, &view);
    }
}

/// The driver, initialised, on the model.
fn driver(shared: &SharedSsd1306) -> Oled<SharedSsd1306> {
    let mut oled = Oled::new(shared.clone());
    oled.init().unwrap();
    oled
}

/// The model's panel shows `frame`, pixel for pixel.
fn assert_panel(shared: &SharedSsd1306, frame: &Frame, what: &str) {
    let model = shared.model();
    for y in 0..face::HEIGHT {
        for x in 0..face::WIDTH {
            assert_eq!(
                model.pixel(x as usize, y as usize),
                frame.pixel(x, y),
                "{what} at ({x}, {y})"
            );
        }
    }
}

#[test]
fn the_face_through_the_driver_matches_the_simulator() {
    let shared = SharedSsd1306::new();
    let mut oled = driver(&shared);
    for (name, view) in views() {
        oled.show(&face::render(&view), &face::urgent(&view))
            .unwrap();
        let simulated = render(&view);
        let model = shared.model();
        for p in simulated.bounding_box().points() {
            assert_eq!(
                model.pixel(p.x as usize, p.y as usize),
                simulated.get_pixel(p).is_on(),
                "{name} at {p:?}"
            );
        }
    }
}

/// A game in progress: the bytes a one-second update sends, against a full
/// frame. Run with `--nocapture` to see the figures.
#[test]
fn a_one_second_update_sends_a_fraction_of_a_frame() {
    let shared = SharedSsd1306::new();
    let mut oled = driver(&shared);
    let mut view = View {
        running: Some(Color::White),
        move_number: 23,
        ..clock(754_000, 1_201_000)
    };
    // A full frame, after init.
    shared.model_mut().reset_counters();
    oled.show(&face::render(&view), &face::urgent(&view))
        .unwrap();
    let full = shared.model().bytes_transferred();
    assert_eq!(shared.model().data_bytes(), 1024);

    let mut updates = Vec::new();
    for _ in 0..5 {
        view.white_ms -= 1000;
        shared.model_mut().reset_counters();
        oled.show(&face::render(&view), &face::urgent(&view))
            .unwrap();
        updates.push(shared.model().bytes_transferred());
    }
    assert_panel(&shared, &face::render(&view), "after the updates");
    println!("full frame: {full} B on the wire; one-second updates: {updates:?} B");
    assert!(updates.iter().all(|&u| u * 10 < full));
}

/// A press of the lever: the other clock's marker is the first write, the
/// old marker's erasure the second, each a single 16-byte write, before any
/// digit. Run with `--nocapture` to see the figures.
#[test]
fn a_switch_of_clocks_shows_first() {
    let shared = SharedSsd1306::new();
    let mut oled = driver(&shared);
    let before = View {
        running: Some(Color::White),
        move_number: 23,
        ..clock(754_000, 1_201_000)
    };
    oled.show(&face::render(&before), &face::urgent(&before))
        .unwrap();
    // White pressed: Black's clock runs, White got his increment.
    let after = View {
        running: Some(Color::Black),
        move_number: 23,
        white_moves: 23,
        ..clock(756_000, 1_201_000)
    };
    let marker_on = |view: &View| {
        let side = view.running.unwrap();
        let i = view.sides().iter().position(|&s| s == side).unwrap();
        let x = face::WIDTH / 4 + i as i32 * face::WIDTH / 2;
        (x - 8..x + 8).all(|x| shared.model().pixel(x as usize, 38))
    };
    shared.model_mut().reset_counters();
    oled.stage(&face::render(&after), &face::urgent(&after));
    let writes = oled.queued();
    assert!(oled.send_next().unwrap());
    assert!(marker_on(&after), "the first write lights the new marker");
    assert_eq!(shared.model().bytes_transferred(), 24);
    assert!(oled.send_next().unwrap());
    assert!(!marker_on(&before), "the second write clears the old one");
    let marker_bytes = shared.model().bytes_transferred();
    assert_eq!(marker_bytes, 48);
    oled.flush().unwrap();
    let total = shared.model().bytes_transferred();
    assert_panel(&shared, &face::render(&after), "after the switch");
    let ms = |bytes: u64, writes: u64| (bytes * 9 + writes * 2) as f64 / 100.0;
    println!(
        "a switch: {writes} writes, {total} B ({:.1} ms at 100 kHz); \
         the markers: 2 writes, {marker_bytes} B ({:.2} ms, the new one shown after {:.2} ms)",
        ms(total, writes as u64),
        ms(marker_bytes, 2),
        ms(24, 1),
    );
}

/// A frame for the property test: a clock screen from a few numbers.
fn any_view() -> impl Strategy<Value = View> {
    (
        0u64..8_000_000,
        0u64..8_000_000,
        0u8..3,
        any::<bool>(),
        any::<bool>(),
        0u32..200,
        prop::option::of("[a-z ]{0,30}"),
    )
        .prop_map(|(w, b, running, black_left, paused, moves, alert)| View {
            running: [None, Some(Color::White), Some(Color::Black)][running as usize],
            black_left,
            paused,
            alert,
            move_number: moves,
            screen: if moves % 17 == 0 {
                Screen::Correction {
                    field: Field::ALL[moves as usize % 7],
                }
            } else {
                Screen::Clock
            },
            ..clock(w, b)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Frames staged in any order, sent in part or whole, with writes cut
    /// short on the bus: once the last one is staged again and flushed,
    /// the panel shows exactly it.
    #[test]
    fn the_panel_ends_showing_the_last_frame_staged(
        steps in prop::collection::vec((any_view(), 0usize..80, prop::option::of(1usize..24)), 1..8)
    ) {
        let shared = SharedSsd1306::new();
        let mut oled = driver(&shared);
        let mut last = None;
        for (view, sends, nack) in steps {
            oled.stage(&face::render(&view), &face::urgent(&view));
            if let Some(at) = nack {
                shared.model_mut().nack_at_byte(at);
            }
            for _ in 0..sends {
                match oled.send_next() {
                    Ok(_) => {}
                    Err(oled::Error::Bus(_)) => oled.retry(),
                }
            }
            last = Some(view);
        }
        let view = last.unwrap();
        // A NACK armed for a write that never came must not hit the check.
        shared.model_mut().nack_at_byte(usize::MAX);
        oled.stage(&face::render(&view), &face::urgent(&view));
        oled.flush().unwrap();
        assert_panel(&shared, &face::render(&view), "the last frame");
    }
}

fn frame(view: &View) -> Frame {
    face::render(view)
}

/// The columns `xs` at which `a` and `b` differ somewhere.
fn differing_columns(a: &Frame, b: &Frame, xs: std::ops::Range<i32>) -> Vec<i32> {
    xs.filter(|&x| (0..face::HEIGHT).any(|y| a.pixel(x, y) != b.pixel(x, y)))
        .collect()
}

#[test]
fn the_fields_step_round_in_order() {
    let mut field = Field::ALL[0];
    let mut seen = Vec::new();
    for _ in 0..Field::ALL.len() {
        seen.push(field);
        assert_eq!(field.next().previous(), field);
        field = field.next();
    }
    assert_eq!(seen, Field::ALL);
    assert_eq!(field, Field::WhiteMinutes, "back to the first after ten");
    assert_eq!(Field::WhiteMinutes.previous(), Field::Adjudicate);
    assert_eq!(Field::EndGame.next(), Field::Waive);
    assert_eq!(Field::Adjudicate.next(), Field::WhiteMinutes);
    let mut labels: Vec<_> = Field::ALL.iter().map(|f| f.label()).collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), 10, "every field has its own label");
    assert_eq!(Field::BlackSeconds.label(), "Black seconds");
    assert_eq!(Field::EndGame.label(), "End game");
}

#[test]
fn black_left_puts_blacks_clock_over_the_left_lever() {
    let white_left = View {
        running: Some(Color::Black),
        move_number: 12,
        ..clock(754_000, 1_201_000)
    };
    let black_left = View {
        black_left: true,
        ..white_left.clone()
    };
    let (a, b) = (frame(&white_left), frame(&black_left));
    assert!(!differing_columns(&a, &b, 0..face::WIDTH / 2).is_empty());
    // The running marker follows Black to the left.
    let marker = |f: &Frame, xs: std::ops::Range<i32>| xs.clone().all(|x| f.pixel(x, 38));
    assert!(marker(&a, 88..104) && !marker(&a, 24..40));
    assert!(marker(&b, 24..40) && !marker(&b, 88..104));
    // Swapping the times back with the sides gives the same picture.
    let mirrored = View {
        white_ms: white_left.black_ms,
        black_ms: white_left.white_ms,
        running: Some(Color::White),
        ..black_left.clone()
    };
    let plain = View {
        black_left: false,
        ..white_left.clone()
    };
    let (m, p) = (frame(&mirrored), frame(&plain));
    // Only the names differ: the rows below them match.
    for y in 10..face::HEIGHT {
        for x in 0..face::WIDTH {
            assert_eq!(m.pixel(x, y), p.pixel(x, y), "({x}, {y})");
        }
    }
}

#[test]
fn the_selected_field_is_marked_on_its_own_side() {
    let minutes = frame(&correction(Field::WhiteMinutes));
    let seconds = frame(&correction(Field::WhiteSeconds));
    let differ = differing_columns(&minutes, &seconds, 0..face::WIDTH);
    assert!(!differ.is_empty());
    assert!(differ.iter().all(|&x| x < face::WIDTH / 2), "{differ:?}");

    let flipped = |field| {
        frame(&View {
            black_left: true,
            ..correction(field)
        })
    };
    let differ = differing_columns(
        &flipped(Field::WhiteMinutes),
        &flipped(Field::WhiteSeconds),
        0..face::WIDTH,
    );
    assert!(!differ.is_empty());
    assert!(differ.iter().all(|&x| x >= face::WIDTH / 2), "{differ:?}");

    // Every field marks something different.
    let frames: Vec<Frame> = Field::ALL.iter().map(|&f| frame(&correction(f))).collect();
    for (i, a) in frames.iter().enumerate() {
        for b in &frames[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn the_view_counts_each_sides_completed_moves() {
    let mut referee = Referee::new(Rules {
        time_control: "180+2".parse().unwrap(),
        ..Rules::default()
    });
    referee.handle(0, Input::Press(Color::Black)).unwrap();
    referee
        .handle(2_000, Input::Lift(shakmaty::Square::E2))
        .unwrap();
    referee
        .handle(2_300, Input::Place(shakmaty::Square::E4, None))
        .unwrap();
    referee.handle(2_600, Input::Press(Color::White)).unwrap();
    let view = from_referee(&referee, 3_000, None);
    assert_eq!((view.white_moves, view.black_moves), (1, 0));
    assert_eq!(view.move_number, 1);
    assert!(!view.black_left);
}
