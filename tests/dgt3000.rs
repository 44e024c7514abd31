//! A DGT 3000 plugged into a DGT board, both modelled on a pseudo-terminal
//! and read by the real driver through a real tty: the clock's levers are
//! the only presses, every move is ruled, the clock shows the other side
//! running after each press, its buttons are the front's, and a clock
//! whose seconds stray is set again. `check-config` takes `board.clock`.
#![cfg(target_os = "linux")]

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Chess, Color, Position};
use tocada::config::Config;
use tocada::daemon::{
    Alarm, Command, Decisions, GameRestored, Session, ShownGame, Stats, model_shell,
};
use tocada::gesture::{self, Style};
use tocada::hardware::dgt3000::{ClockSide, Dgt3000Button};
use tocada::rig::models::World;
use tocada::{Effect, Input, Millis};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

mod support {
    pub mod cli;
    pub mod tty;
}
use support::cli::tocada;
use support::tty::ttys_work;

const NO_TTY: &str = "skipped: no termios here (qemu-user); run natively";

/// Légal's mate.
const GAME: [&str; 13] = [
    "e4", "e5", "Nf3", "d6", "Bc4", "Bg4", "Nc3", "g6", "Nxe5", "Bxd1", "Bxf7+", "Ke7", "Nd5#",
];

#[derive(Clone, Default)]
struct Decided(Rc<RefCell<Vec<Effect>>>);

impl Decisions for Decided {
    fn decision(&mut self, _: Millis, effect: &Effect) {
        self.0.borrow_mut().push(effect.clone());
    }

    fn restored(&mut self, _: &GameRestored) {}
}

struct Desk {
    world: World,
    commands: tokio::sync::mpsc::UnboundedSender<Command>,
    start: tokio::time::Instant,
    decided: Decided,
    shown: watch::Receiver<ShownGame>,
}

impl Desk {
    /// The daemon's loop on the board and clock at `tty`, White on the
    /// left (the default `clock.white`), `board.clock` left out: the
    /// clock is found from the board's reports.
    fn open(tty: &Path) -> (Desk, oneshot::Sender<()>, JoinHandle<Stats>) {
        let world = World::with_dgt3000(&shakmaty::Board::default(), tty).unwrap();
        let config = Config::default();
        let (commands, rx) = tokio::sync::mpsc::unbounded_channel();
        let decided = Decided::default();
        let start = tokio::time::Instant::now();
        let (published, shown) = watch::channel(ShownGame::default());
        let shell = model_shell(&world, Session::new(&config), &config, start)
            .with_decisions(Box::new(decided.clone()))
            .with_watch(published);
        let (stop, stopped) = oneshot::channel::<()>();
        let daemon = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
            let _ = stopped.await;
        }));
        let desk = Desk {
            world,
            commands,
            start,
            decided,
            shown,
        };
        (desk, stop, daemon)
    }

    async fn pause(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    fn hand(&self, input: Input) {
        self.world
            .apply(&self.commands, self.start.elapsed(), input);
    }

    /// Waits until the modelled clock runs `side`'s time: the face's
    /// switch as the DGT 3000 shows it.
    async fn until_running(&self, side: Option<ClockSide>) {
        for _ in 0..500 {
            if self.world.with_clock_model(|c, _| c.running()) == Some(side) {
                return;
            }
            self.pause(10).await;
        }
        panic!(
            "the clock never ran {side:?}: it shows {:?}",
            self.world.clock_display()
        );
    }

    /// Plays `san` with the board's identities, then its player presses
    /// the DGT 3000's lever on his side (White's on the left).
    async fn play(&self, position: &mut Chess, san: &str) {
        let m = gesture::parse_san(position, san).unwrap();
        let style = Style::default().with_identities(true);
        let mut at = 0;
        for (offset, input) in gesture::hand_events(position, m, &style) {
            self.pause(offset - at).await;
            at = offset;
            self.hand(input);
        }
        self.pause(400).await;
        let side = match position.turn() {
            Color::White => ClockSide::Left,
            Color::Black => ClockSide::Right,
        };
        self.world.press_clock_lever(side);
        position.play_unchecked(m);
        // The other side's clock runs on the DGT 3000: tocada set it; a
        // mate stops both.
        let next = (!position.is_game_over()).then_some(side.other());
        self.until_running(next).await;
    }

    /// Plays `san`, its press on the front's lever (as the GPIO's or a
    /// script's), not the DGT 3000's.
    async fn front_move(&self, position: &mut Chess, san: &str) {
        let m = gesture::parse_san(position, san).unwrap();
        let style = Style::default().with_identities(true);
        let mut at = 0;
        for (offset, input) in gesture::hand_events(position, m, &style) {
            self.pause(offset - at).await;
            at = offset;
            self.hand(input);
        }
        self.pause(400).await;
        self.hand(Input::Press(position.turn()));
        position.play_unchecked(m);
    }

    fn moves(&self) -> Vec<String> {
        self.decided
            .0
            .borrow()
            .iter()
            .filter_map(|e| match e {
                Effect::Move(m) => Some(m.san.to_string()),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn the_dgt_3000s_levers_play_a_game_and_its_display_follows_tocada() {
    if !ttys_work() {
        eprintln!("{NO_TTY}");
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let (desk, stop, daemon) = Desk::open(&tty);
        // Found from its reports: tocada sets it (paused, no clock runs)
        // before the game.
        for _ in 0..300 {
            if desk.world.with_clock_model(|c, _| c.sets()) > Some(0) {
                break;
            }
            desk.pause(10).await;
        }
        assert!(
            desk.world.with_clock_model(|c, _| c.sets()) > Some(0),
            "the clock was never set: {:?}",
            desk.world.clock_display()
        );
        // Black's lever, on the right, starts White's clock.
        desk.world.press_clock_lever(ClockSide::Right);
        desk.until_running(Some(ClockSide::Left)).await;
        let mut position = Chess::default();
        for san in &GAME[..4] {
            desk.play(&mut position, san).await;
        }
        // The clock's "-" is the left player's draw button: White offers
        // a draw, and the display says so.
        desk.world.press_clock_button(Dgt3000Button::Minus);
        for _ in 0..200 {
            if desk
                .world
                .clock_display()
                .is_some_and(|d| d.starts_with("Draw? W"))
            {
                break;
            }
            desk.pause(10).await;
        }
        assert_eq!(desk.world.clock_display().as_deref(), Some("Draw? W "));
        assert!(
            desk.decided.0.borrow().iter().any(|e| matches!(
                e,
                Effect::DrawOffer {
                    side: Color::White,
                    ..
                }
            )),
            "{:?}",
            desk.decided.0.borrow()
        );
        for san in &GAME[4..8] {
            desk.play(&mut position, san).await;
        }
        // White thinks; his clock loses five seconds (set by hand, a
        // quartz off): at its next report tocada sets it again.
        desk.pause(1_500).await;
        let sets = desk.world.with_clock_model(|c, _| c.sets()).unwrap();
        let white = |desk: &Desk| desk.shown.borrow().view.white_ms;
        let drifted = desk
            .world
            .with_clock_model(|c, now| {
                c.drift(now, 5_000);
                c.times_ms(now).0
            })
            .unwrap();
        assert!(white(&desk).abs_diff(drifted) >= 3_000, "drifted");
        let mut reset = false;
        for _ in 0..300 {
            if desk.world.with_clock_model(|c, _| c.sets()).unwrap() > sets {
                reset = true;
                break;
            }
            desk.pause(10).await;
        }
        assert!(reset, "the strayed clock was not set again");
        let left = desk
            .world
            .with_clock_model(|c, now| c.times_ms(now).0)
            .unwrap();
        assert!(
            white(&desk).abs_diff(left) <= 1_500,
            "set again to {left} ms, tocada's {}",
            white(&desk)
        );
        // The middle button is the arbiter's: the clock stands, says so
        // page by page, then shows the standing times; again, it runs on.
        desk.world.press_clock_button(Dgt3000Button::Run);
        desk.until_running(None).await;
        let mut seen = Vec::new();
        for _ in 0..800 {
            let shown = desk.world.clock_display().unwrap_or_default();
            if seen.last() != Some(&shown) {
                seen.push(shown.clone());
            }
            if shown.contains(':') && seen.iter().any(|s| !s.contains(':')) {
                break;
            }
            desk.pause(10).await;
        }
        // The standing set goes first, one command at a time: the clock may
        // show the stopped times for a moment before the text comes.
        let first_text = seen.iter().position(|s| !s.contains(':')).unwrap_or(0);
        let seen = seen.split_off(first_text);
        assert!(
            seen.starts_with(&["Paused  ".to_owned(), "arbiter ".to_owned()]),
            "{seen:?}"
        );
        assert!(
            seen.last()
                .is_some_and(|s| s.contains(':') && !s.contains('*')),
            "the standing times come back: {seen:?}"
        );
        desk.pause(300).await;
        desk.world.press_clock_button(Dgt3000Button::Run);
        desk.until_running(Some(ClockSide::Left)).await;
        desk.pause(300).await;
        for san in &GAME[8..] {
            desk.play(&mut position, san).await;
        }
        assert_eq!(desk.moves(), GAME);
        // Checkmate: the result on the clock, which stands.
        assert_eq!(desk.world.with_clock_model(|c, _| c.running()), Some(None));
        for _ in 0..200 {
            if desk.world.clock_display().as_deref() == Some("1-0 mate") {
                break;
            }
            desk.pause(10).await;
        }
        assert_eq!(desk.world.clock_display().as_deref(), Some("1-0 mate"));
        let _ = stop.send(());
        daemon.await.unwrap();
    });
}

/// The clock's cable pulled from the board mid-game: the board says so,
/// the front's levers go on, and the clock put back is set again with
/// tocada's times and whose clock runs.
#[test]
fn a_clock_unplugged_from_the_board_is_set_again_when_it_comes_back() {
    if !ttys_work() {
        eprintln!("{NO_TTY}");
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let (desk, stop, daemon) = Desk::open(&tty);
        desk.pause(500).await;
        desk.world.press_clock_lever(ClockSide::Right);
        desk.until_running(Some(ClockSide::Left)).await;
        let mut position = Chess::default();
        desk.play(&mut position, "e4").await;
        desk.world.plug_clock(false);
        desk.pause(300).await;
        let sets = desk.world.with_clock_model(|c, _| c.sets()).unwrap();
        // Black replies and presses the front's lever (a script's press,
        // as the GPIO's would be): the move is ruled without the clock.
        desk.front_move(&mut position, "e5").await;
        desk.pause(500).await;
        assert_eq!(desk.moves(), ["e4", "e5"]);
        assert_eq!(
            desk.world.with_clock_model(|c, _| c.sets()),
            Some(sets),
            "nothing reaches a clock that is not there"
        );
        // Back in: set again, White's clock running, with tocada's times.
        desk.world.plug_clock(true);
        desk.until_running(Some(ClockSide::Left)).await;
        assert!(desk.world.with_clock_model(|c, _| c.sets()).unwrap() > sets);
        let white = desk.shown.borrow().view.white_ms;
        let left = desk
            .world
            .with_clock_model(|c, now| c.times_ms(now).0)
            .unwrap();
        assert!(white.abs_diff(left) <= 1_500, "{white} against {left}");
        // White presses the front's lever too (the DGT 3000's is down on
        // his side already: a seesaw), then Black's reply is pressed on
        // the DGT 3000: its levers are the levers again.
        desk.front_move(&mut position, "Nf3").await;
        desk.until_running(Some(ClockSide::Right)).await;
        desk.play(&mut position, "Nc6").await;
        assert_eq!(desk.moves(), ["e4", "e5", "Nf3", "Nc6"]);
        let _ = stop.send(());
        daemon.await.unwrap();
    });
}

/// The time-control editor from the DGT 3000's buttons alone: the middle
/// button opens it, ">" goes to the next row, "+" steps its value up, the
/// middle button saves; each row reads on the clock's eight characters.
/// 15 minutes + 10 s set so, the game starts with 15:00 on both clocks,
/// and White's first press adds his 10 s.
#[test]
fn the_time_control_editor_works_from_the_dgt_3000s_buttons() {
    if !ttys_work() {
        eprintln!("{NO_TTY}");
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    tokio::task::LocalSet::new().block_on(&runtime, async {
        let (desk, stop, daemon) = Desk::open(&tty);
        for _ in 0..300 {
            if desk.world.with_clock_model(|c, _| c.sets()) > Some(0) {
                break;
            }
            desk.pause(10).await;
        }
        let shows = |desk: &Desk, text: &str| {
            desk.world
                .clock_display()
                .is_some_and(|d| d.trim_end() == text)
        };
        let mut seen = Vec::new();
        for (button, then) in [
            (Dgt3000Button::Run, "Fischer"),
            (Dgt3000Button::Ok, "Time 5m"),
            (Dgt3000Button::Plus, "Time 10m"),
            (Dgt3000Button::Plus, "Time 15m"),
            (Dgt3000Button::Ok, "Incr +0s"),
            (Dgt3000Button::Plus, "Incr +1s"),
            (Dgt3000Button::Plus, "Incr +2s"),
            (Dgt3000Button::Plus, "Incr +3s"),
            (Dgt3000Button::Plus, "Incr +5s"),
            (Dgt3000Button::Plus, "Inc +10s"),
        ] {
            desk.world.press_clock_button(button);
            for _ in 0..500 {
                if shows(&desk, then) {
                    break;
                }
                desk.pause(10).await;
            }
            let shown = desk.world.clock_display().unwrap_or_default();
            assert_eq!(shown.trim_end(), then, "after {button:?}; before: {seen:?}");
            seen.push(shown);
        }
        // Saved: the setup screen's preset, standing until the start.
        desk.world.press_clock_button(Dgt3000Button::Run);
        for _ in 0..500 {
            if !shows(&desk, "Inc +10s") {
                break;
            }
            desk.pause(10).await;
        }
        desk.pause(300).await;
        desk.world.press_clock_lever(ClockSide::Right);
        desk.until_running(Some(ClockSide::Left)).await;
        let (left, right) = desk
            .world
            .with_clock_model(|c, now| c.times_ms(now))
            .unwrap();
        assert_eq!(right, 900_000, "Black's 15 minutes");
        assert!((880_000..=900_000).contains(&left), "White's: {left}");
        let mut position = Chess::default();
        desk.play(&mut position, "e4").await;
        let white = desk.shown.borrow().view.white_ms;
        assert!(white > 900_000, "White's 10 s added: {white}");
        let _ = stop.send(());
        daemon.await.unwrap();
    });
}

#[test]
fn check_config_takes_a_dgt_3000_and_refuses_a_clock_where_none_can_be() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tocada.toml");
    for (text, ok) in [
        ("[board]\nkind = \"dgt\"\nclock = \"dgt3000\"\n", true),
        ("[board]\nkind = \"dgt\"\nclock = \"none\"\n", true),
        (
            "[board]\nkind = \"sim\"\nmodel = \"dgt\"\nclock = \"dgt3000\"\n",
            true,
        ),
        (
            "[board]\nkind = \"dgt\"\nserial = \"/dev/rfcomm0\"\nclock = \"dgt3000\"\n",
            true,
        ),
        ("[board]\nkind = \"dgt\"\nclock = \"dgt2010\"\n", false),
        ("[board]\nkind = \"protocol\"\nclock = \"dgt3000\"\n", false),
    ] {
        std::fs::write(&path, text).unwrap();
        let out = tocada().args(["check-config"]).arg(&path).output().unwrap();
        assert_eq!(out.status.success(), ok, "{text}: {out:?}");
        if ok && text.contains("clock = \"dgt3000\"") && text.contains("kind = \"dgt\"") {
            let said = String::from_utf8_lossy(&out.stdout);
            assert!(
                said.contains("and a DGT 3000 on the board"),
                "{text}: {said}"
            );
        }
        if !ok {
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(said.contains("board.clock"), "{text}: {said}");
        }
    }
    // The clock's levers alone.
    std::fs::write(
        &path,
        "[clock]\nlevers = \"none\"\n[board]\nkind = \"dgt\"\nclock = \"dgt3000\"\n",
    )
    .unwrap();
    let out = tocada().args(["check-config"]).arg(&path).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("levers and buttons: the DGT 3000's on the board"),
        "{said}"
    );
}
