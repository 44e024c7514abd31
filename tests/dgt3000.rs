//! A DGT 3000 plugged into a DGT board, both modelled on a pseudo-terminal
//! and read by the real driver through a real tty: the clock's levers are
//! the only presses, every move is ruled, the clock shows the other side
//! running after each press, its buttons are the front's, and a clock
//! whose seconds stray is set again. `check-config` takes `board.clock`.
#![cfg(target_os = "linux")]

use shakmaty::{Chess, Color, Position};
use tocada::Effect;
use tocada::config::Config;
use tocada::hardware::dgt3000::{ClockSide, Dgt3000Button};
use tocada::rig::models::World;

mod support {
    pub mod cli;
    pub mod desk;
    pub mod tty;
}
use support::cli::tocada;
use support::desk::{Desk, GAME, on_a_tty};

/// The daemon's loop on the board and DGT 3000 at `tty`, White on the
/// left (the default `clock.white`), `board.clock` left out: the clock is
/// found from the board's reports.
fn open(tty: &std::path::Path) -> Desk {
    Desk::open(World::with_dgt3000(&shakmaty::Board::default(), tty).unwrap())
}

/// Waits until the modelled clock runs `side`'s time: the face's
/// switch as the DGT 3000 shows it.
async fn until_running(desk: &Desk, side: Option<ClockSide>) {
    let ran = desk
        .polls(5_000, |w| {
            w.with_clock_model(|c, _| c.running()) == Some(side)
        })
        .await;
    assert!(
        ran,
        "the clock never ran {side:?}: it shows {:?}",
        desk.world.clock_display()
    );
}

/// Waits, 3 s at the most, until tocada has set the clock (found from
/// its reports, paused, no clock running); says whether it did.
async fn until_set(desk: &Desk) -> bool {
    desk.polls(3_000, |w| w.with_clock_model(|c, _| c.sets()) > Some(0))
        .await
}

/// Plays `san` with the board's identities, then its player presses the
/// DGT 3000's lever on his side (White's on the left).
async fn play_on_clock(desk: &Desk, position: &mut Chess, san: &str) {
    let m = desk.hands(position, san).await;
    let side = match position.turn() {
        Color::White => ClockSide::Left,
        Color::Black => ClockSide::Right,
    };
    desk.world.press_clock_lever(side);
    position.play_unchecked(m);
    // The other side's clock runs on the DGT 3000: tocada set it; a mate
    // stops both.
    let next = (!position.is_game_over()).then_some(side.other());
    until_running(desk, next).await;
}

#[test]
fn the_dgt_3000s_levers_play_a_game_and_its_display_follows_tocada() {
    on_a_tty(|tty| async move {
        let desk = open(&tty);
        // Found from its reports: tocada sets it (paused, no clock runs)
        // before the game.
        assert!(
            until_set(&desk).await,
            "the clock was never set: {:?}",
            desk.world.clock_display()
        );
        // Black's lever, on the right, starts White's clock.
        desk.world.press_clock_lever(ClockSide::Right);
        until_running(&desk, Some(ClockSide::Left)).await;
        let mut position = Chess::default();
        for san in &GAME[..4] {
            play_on_clock(&desk, &mut position, san).await;
        }
        // The clock's "-" is the left player's draw button: White offers
        // a draw, and the display says so.
        desk.world.press_clock_button(Dgt3000Button::Minus);
        desk.polls(2_000, |w| {
            w.clock_display().is_some_and(|d| d.starts_with("Draw? W"))
        })
        .await;
        assert_eq!(desk.world.clock_display().as_deref(), Some("Draw? W "));
        assert!(
            desk.decided_any(|e| matches!(
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
            play_on_clock(&desk, &mut position, san).await;
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
        let reset = desk
            .polls(3_000, |w| {
                w.with_clock_model(|c, _| c.sets()).unwrap() > sets
            })
            .await;
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
        until_running(&desk, None).await;
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
        until_running(&desk, Some(ClockSide::Left)).await;
        desk.pause(300).await;
        for san in &GAME[8..] {
            play_on_clock(&desk, &mut position, san).await;
        }
        assert_eq!(desk.moves(), GAME);
        // Checkmate: the result on the clock, which stands.
        assert_eq!(desk.world.with_clock_model(|c, _| c.running()), Some(None));
        desk.polls(2_000, |w| w.clock_display().as_deref() == Some("1-0 mate"))
            .await;
        assert_eq!(desk.world.clock_display().as_deref(), Some("1-0 mate"));
        desk.close().await;
    });
}

/// The clock's cable pulled from the board mid-game: the board says so,
/// the front's levers go on, and the clock put back is set again with
/// tocada's times and whose clock runs.
#[test]
fn a_clock_unplugged_from_the_board_is_set_again_when_it_comes_back() {
    on_a_tty(|tty| async move {
        let desk = open(&tty);
        desk.pause(500).await;
        desk.world.press_clock_lever(ClockSide::Right);
        until_running(&desk, Some(ClockSide::Left)).await;
        let mut position = Chess::default();
        play_on_clock(&desk, &mut position, "e4").await;
        desk.world.plug_clock(false);
        desk.pause(300).await;
        let sets = desk.world.with_clock_model(|c, _| c.sets()).unwrap();
        // Black replies and presses the front's lever (a script's press,
        // as the GPIO's would be): the move is ruled without the clock.
        desk.play(&mut position, "e5").await;
        desk.pause(500).await;
        assert_eq!(desk.moves(), ["e4", "e5"]);
        assert_eq!(
            desk.world.with_clock_model(|c, _| c.sets()),
            Some(sets),
            "nothing reaches a clock that is not there"
        );
        // Back in: set again, White's clock running, with tocada's times.
        desk.world.plug_clock(true);
        until_running(&desk, Some(ClockSide::Left)).await;
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
        desk.play(&mut position, "Nf3").await;
        until_running(&desk, Some(ClockSide::Right)).await;
        play_on_clock(&desk, &mut position, "Nc6").await;
        assert_eq!(desk.moves(), ["e4", "e5", "Nf3", "Nc6"]);
        desk.close().await;
    });
}

/// The time-control editor from the DGT 3000's buttons alone: the middle
/// button opens it, ">" goes to the next row, "+" steps its value up, the
/// middle button saves; each row reads on the clock's eight characters.
/// 15 minutes + 10 s set so, the game starts with 15:00 on both clocks,
/// and White's first press adds his 10 s.
#[test]
fn the_time_control_editor_works_from_the_dgt_3000s_buttons() {
    on_a_tty(|tty| async move {
        let desk = open(&tty);
        until_set(&desk).await;
        let shows =
            |world: &World, text: &str| world.clock_display().is_some_and(|d| d.trim_end() == text);
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
            desk.polls(5_000, |w| shows(w, then)).await;
            let shown = desk.world.clock_display().unwrap_or_default();
            assert_eq!(shown.trim_end(), then, "after {button:?}; before: {seen:?}");
            seen.push(shown);
        }
        // Saved: the setup screen's preset, standing until the start.
        desk.world.press_clock_button(Dgt3000Button::Run);
        desk.polls(5_000, |w| !shows(w, "Inc +10s")).await;
        desk.pause(300).await;
        desk.world.press_clock_lever(ClockSide::Right);
        until_running(&desk, Some(ClockSide::Left)).await;
        let (left, right) = desk
            .world
            .with_clock_model(|c, now| c.times_ms(now))
            .unwrap();
        assert_eq!(right, 900_000, "Black's 15 minutes");
        assert!((880_000..=900_000).contains(&left), "White's: {left}");
        let mut position = Chess::default();
        play_on_clock(&desk, &mut position, "e4").await;
        let white = desk.shown.borrow().view.white_ms;
        assert!(white > 900_000, "White's 10 s added: {white}");
        desk.close().await;
    });
}

/// The editor on the DGT 3000 in the players' language (`[face]
/// language = "es"`): each row in Spanish, in short words where the face's
/// do not fit, none cut mid-word (before, the rows were parsed back as
/// English and "Jugadas todas" came out as "Jugadast", "odas").
#[test]
fn the_dgt_3000_shows_the_editor_in_the_players_language() {
    on_a_tty(|tty| async move {
        let config = Config::parse("[face]\nlanguage = \"es\"\n", "es.toml").unwrap();
        let world = World::with_dgt3000(&shakmaty::Board::default(), &tty).unwrap();
        let desk = Desk::configured(world, &config);
        until_set(&desk).await;
        let mut seen = Vec::new();
        for (button, then) in [
            (Dgt3000Button::Run, "Fischer"),
            (Dgt3000Button::Ok, "T 5m"),
            (Dgt3000Button::Ok, "Inc +0s"),
            (Dgt3000Button::Ok, "Jg todas"),
            (Dgt3000Button::Ok, "Prorr. -"),
            (Dgt3000Button::Ok, "N = B"),
            (Dgt3000Button::Plus, "N 1m"),
            (Dgt3000Button::Ok, "Fischer"),
            (Dgt3000Button::Plus, "Bronstn"),
            (Dgt3000Button::Ok, "T 5m"),
            (Dgt3000Button::Ok, "Ret 0s"),
        ] {
            desk.world.press_clock_button(button);
            desk.polls(5_000, |w| {
                w.clock_display().is_some_and(|d| d.trim_end() == then)
            })
            .await;
            let shown = desk.world.clock_display().unwrap_or_default();
            assert_eq!(shown.trim_end(), then, "after {button:?}; before: {seen:?}");
            seen.push(shown);
        }
        desk.close().await;
    });
}

/// The hall's pairing on the DGT 3000 before the first press, after the
/// time control, in the players' language: the board by its Spanish word,
/// then the surnames, paged in eight characters. The first press puts the
/// times back.
#[test]
fn the_dgt_3000_shows_the_pairing_before_the_first_press_in_the_players_language() {
    use tocada::players::{Player, Players};
    on_a_tty(|tty| async move {
        let config = Config::parse("[face]\nlanguage = \"es\"\n", "es.toml").unwrap();
        let world = World::with_dgt3000(&shakmaty::Board::default(), &tty).unwrap();
        let desk = Desk::configured(world, &config);
        until_set(&desk).await;
        let player = |name: &str| Player {
            name: name.to_owned(),
            ..Player::default()
        };
        desk.command(tocada::daemon::Command::Players(Box::new(Players {
            round: "3".to_owned(),
            board: 7,
            white: player("Morphy, Paul"),
            black: player("Anderssen, Adolf"),
        })));
        let mut seen: Vec<String> = Vec::new();
        for page in ["Mesa 7", "Morphy -", "Andersse", "n"] {
            let shown = desk
                .polls(6_000, |w| {
                    w.clock_display().is_some_and(|d| d.trim_end() == page)
                })
                .await;
            assert!(shown, "{page:?} not shown; before it: {seen:?}");
            seen.push(page.to_owned());
        }
        // Round again, from the time control.
        let shown = desk
            .polls(6_000, |w| {
                w.clock_display().is_some_and(|d| d.trim_end() == "Mesa 7")
            })
            .await;
        assert!(shown, "the pages go round");
        desk.world.press_clock_lever(ClockSide::Right);
        let times = desk
            .polls(3_000, |w| {
                w.clock_display().is_some_and(|d| d.contains(':'))
            })
            .await;
        assert!(
            times,
            "the times after the first press: {:?}",
            desk.world.clock_display()
        );
        desk.close().await;
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
