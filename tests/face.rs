//! Snapshots of the clock's face, compared with the PNGs in `tests/face/`.
//! `TOCADA_BLESS=1 cargo test --test face` writes them afresh; look at them
//! before committing.

use std::path::PathBuf;

use embedded_graphics::pixelcolor::{BinaryColor, Rgb888};
use embedded_graphics::prelude::*;
use embedded_graphics_simulator::{
    BinaryColorTheme, OutputSettings, OutputSettingsBuilder, SimulatorDisplay,
};
use shakmaty::Color;
use ssd1306::mode::BufferedGraphicsMode;
use ssd1306::prelude::*;
use ssd1306::{I2CDisplayInterface, Ssd1306};
use tocada::face::{self, Screen, View};
use tocada::models::ssd1306::SharedSsd1306;
use tocada::{Effect, Law, Referee, Rules, Ruling};

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
    View::from_referee(&referee, 0, None)
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
        alert: face::alert_for(&Effect::Violation(ruling)),
        ..clock(754_000, 1_201_000)
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
                alert: face::alert_for(&Effect::Flag { side: Color::Black }),
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
    ]
}

#[test]
fn snapshots() {
    for (name, view) in views() {
        check(name, &view);
    }
}

/// The real ssd1306 driver, initialised, on the model.
fn driver(
    shared: &SharedSsd1306,
) -> Ssd1306<I2CInterface<SharedSsd1306>, DisplaySize128x64, BufferedGraphicsMode<DisplaySize128x64>>
{
    let mut display = Ssd1306::new(
        I2CDisplayInterface::new(shared.clone()),
        DisplaySize128x64,
        DisplayRotation::Rotate0,
    )
    .into_buffered_graphics_mode();
    display.init().unwrap();
    display
}

#[test]
fn the_face_through_the_driver_matches_the_simulator() {
    let shared = SharedSsd1306::new();
    let mut display = driver(&shared);
    for (name, view) in views() {
        face::draw(&view, &mut display).unwrap();
        display.flush().unwrap();
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
    let mut display = driver(&shared);
    let mut view = View {
        running: Some(Color::White),
        move_number: 23,
        ..clock(754_000, 1_201_000)
    };
    // A full frame: the whole buffer redrawn and sent.
    shared.model_mut().reset_counters();
    display.clear_buffer();
    face::draw(&view, &mut display).unwrap();
    display.flush().unwrap();
    let full = shared.model().bytes_transferred();
    assert_eq!(shared.model().data_bytes(), 1024);
    let mut shown = face::Frame::new();
    face::draw(&view, &mut shown).unwrap();

    let mut updates = Vec::new();
    for _ in 0..5 {
        view.white_ms -= 1000;
        shared.model_mut().reset_counters();
        face::update(&view, &mut shown, &mut display).unwrap();
        display.flush().unwrap();
        updates.push(shared.model().bytes_transferred());
    }
    // The screen matches a full redraw.
    let simulated = render(&view);
    for p in simulated.bounding_box().points() {
        assert_eq!(
            shared.model().pixel(p.x as usize, p.y as usize),
            simulated.get_pixel(p).is_on()
        );
    }
    println!("full frame: {full} B on the wire; one-second updates: {updates:?} B");
    assert!(updates.iter().all(|&u| u < full));
}
