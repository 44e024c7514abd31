//! A DGT e-board, modelled on a pseudo-terminal and read by the real DGT
//! driver through a real tty: `tocada check-config` accepts the board, the
//! daemon (`tocada run`, black box) plays a whole game from it, and the
//! daemon's loop rides out an unplugged cable, noise on the line, cut
//! messages and a slow board without losing a move.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, Position, Square};
use tocada::gesture::{self, Style};
use tocada::rig::models::World;
use tocada::transcript::{self, Event, Line};
use tocada::{Effect, Input, Millis};

mod support {
    pub mod cli;
    pub mod daemon;
    pub mod desk;
    pub mod tty;
}
use support::cli::tocada;
use support::daemon::{run_daemon, terminate};
use support::desk::{Desk, GAME, on_a_tty};
use support::tty::no_tty_here;

/// The game as replay-format lines: the hands of `gesture` (a board that
/// knows its pieces), each move's press 300 ms after its last event.
fn script() -> String {
    let mut position = Chess::default();
    let mut t: Millis = 0;
    let mut lines = vec![line(t, Input::Press(Color::Black))];
    for (i, san) in GAME.iter().enumerate() {
        let m = gesture::parse_san(&position, san).unwrap();
        let style = Style::from_index(i % Style::COUNT).with_identities(true);
        t += 400;
        let mut last = t;
        for (offset, input) in gesture::hand_events(&position, m, &style) {
            last = t + offset;
            lines.push(line(last, input));
        }
        t = last + 300;
        lines.push(line(t, Input::Press(position.turn())));
        position.play_unchecked(m);
    }
    lines.join("\n") + "\n"
}

fn line(t: Millis, input: Input) -> String {
    transcript::line_to_json(&Line {
        t,
        event: Event::Input(input),
    })
}

fn write_config(dir: &std::path::Path, board: &str) -> std::path::PathBuf {
    let path = dir.join("tocada.toml");
    std::fs::write(&path, board).unwrap();
    path
}

#[test]
fn check_config_accepts_a_dgt_board_and_refuses_what_it_cannot_have() {
    let dir = tempfile::tempdir().unwrap();
    let ok = write_config(
        dir.path(),
        "[board]\nkind = \"dgt\"\nserial = \"/dev/ttyUSB0\"\n",
    );
    let out = tocada().args(["check-config"]).arg(&ok).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("DGT board on /dev/ttyUSB0"), "{said}");

    let found = write_config(dir.path(), "[board]\nkind = \"dgt\"\n");
    let out = tocada()
        .args(["check-config"])
        .arg(&found)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("DGT board found on USB"));

    // Near misses: an interrupt pin on a USB board, a serial line for an
    // I2C board.
    for (text, key) in [
        (
            "[board]\nkind = \"dgt\"\ninterrupt_pin = 6\n",
            "board.interrupt_pin",
        ),
        (
            "[board]\nkind = \"protocol\"\nserial = \"/dev/ttyUSB0\"\n",
            "board.serial",
        ),
        (
            "[board]\nkind = \"dgt\"\nserial = \"ttyUSB0\"\n",
            "board.serial",
        ),
    ] {
        let bad = write_config(dir.path(), text);
        let out = tocada().args(["check-config"]).arg(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(78), "{text}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(key), "{text}: {said}");
    }
}

#[test]
fn the_daemon_plays_a_whole_game_from_a_dgt_board_on_a_pseudo_terminal() {
    if no_tty_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    let config = write_config(
        dir.path(),
        &format!(
            "[board]\nkind = \"sim\"\nmodel = \"dgt\"\nserial = \"{}\"\nstdin = \"script\"\n",
            tty.display()
        ),
    );
    let (mut daemon, rx) = run_daemon(&config, dir.path(), &script());
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut effects: Vec<String> = Vec::new();
    while !effects.iter().any(|l| l.contains(r#""effect":"result""#)) {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => effects.push(line),
            Err(_) => break,
        }
    }
    assert!(
        tty.exists(),
        "the model's tty is linked where board.serial says"
    );
    let status = terminate(&mut daemon);
    let sans: Vec<&str> = effects
        .iter()
        .filter(|l| l.contains(r#""effect":"move""#))
        .filter_map(|l| l.split(r#""san":""#).nth(1)?.split('"').next())
        .collect();
    assert_eq!(sans, GAME, "{effects:#?}");
    let result = effects.last().unwrap();
    assert!(
        result.contains(r#""result":"1-0""#) && result.contains("checkmate"),
        "{result}"
    );
    assert!(
        !effects.iter().any(|l| l.contains("violation")),
        "{effects:#?}"
    );
    assert!(status.success(), "{status}");
    assert!(!tty.exists(), "the model's link is gone with the daemon");
    // Paired: the board's serial number (the model's 31415) remembered.
    let paired = std::fs::read_to_string(dir.path().join("board-serial")).unwrap();
    assert_eq!(
        paired.trim(),
        format!("{:016x}", tocada::rig::DGT_SERIAL_BASE | 31415)
    );
}

/// The daemon's loop on the DGT board's model at `tty`, the game started
/// by Black's press once the board is read: White's clock runs.
async fn game_on(tty: &std::path::Path) -> Desk {
    let mut desk = Desk::open(World::with_dgt(&shakmaty::Board::default(), tty).unwrap());
    desk.pause(300).await;
    desk.hand(Input::Press(Color::Black));
    desk.until("the game", |s| s.ticking == Some(Color::White))
        .await;
    desk
}

#[test]
fn unplugged_noisy_and_slow_the_dgt_board_loses_no_move() {
    on_a_tty(|tty| async move {
        let mut desk = game_on(&tty).await;
        let mut position = Chess::default();
        desk.play(&mut position, "e4").await;
        desk.until("e4", |s| s.ticking == Some(Color::Black)).await;

        // The cable out: the face says so and the clock keeps time.
        desk.world.dgt().unwrap().unplug();
        desk.until("disconnected", |s| s.view.board_disconnected)
            .await;
        // Black replies while the board is away; the cable goes back in.
        desk.world.lift(0, Square::E7);
        desk.world.place(0, Square::E5, None);
        desk.world.dgt().unwrap().plug().unwrap();
        desk.until("reconnected", |s| !s.view.board_disconnected)
            .await;
        desk.pause(300).await;
        desk.hand(Input::Press(Color::Black));
        position.play_unchecked(gesture::parse_san(&position, "e5").unwrap());
        desk.until("e5", |s| s.ticking == Some(Color::White)).await;

        // Noise on the line, and the next field update cut short.
        let asked = desk.world.dgt().unwrap().with_model(|model, now| {
            model.inject_garbage(now, &[0x01, 0x7f, 0x23]);
            model.truncate_next(3);
            model.commands()
        });
        desk.play(&mut position, "Nf3").await;
        desk.until("Nf3", |s| s.ticking == Some(Color::Black)).await;
        let asked_after = desk
            .world
            .dgt()
            .unwrap()
            .with_model(|model, _| model.commands());
        assert!(
            asked_after > asked,
            "the driver asked for a board dump after dropping bytes"
        );

        // A slow board: every byte 150 ms late.
        desk.world
            .dgt()
            .unwrap()
            .with_model(|model, _| model.set_delay(150));
        desk.play(&mut position, "Nc6").await;
        desk.until("Nc6", |s| s.ticking == Some(Color::White)).await;

        assert_eq!(desk.moves(), ["e4", "e5", "Nf3", "Nc6"]);
        desk.close().await;
    });
}

/// Through the daemon's own loop, on a real tty: a lift lost whole, an
/// update cut short and one corrupted cost no move, displace nothing and
/// draw no ruling; the driver asked one dump for each.
#[test]
fn a_lost_cut_or_corrupted_update_costs_the_daemon_nothing() {
    use tocada::models::dgt::LineFault;
    on_a_tty(|tty| async move {
        let mut desk = game_on(&tty).await;
        let mut position = Chess::default();
        let faults = [
            // e4's lift lost whole: its place comes first.
            Some(LineFault::Drop),
            // e5's lift cut after three bytes.
            Some(LineFault::Cut(3)),
            None,
            // Nc6's lift with its field byte turned into a header.
            Some(LineFault::Corrupt {
                index: 3,
                mask: 0x80,
            }),
            None,
            None,
        ];
        let sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
        for (san, fault) in sans.iter().zip(faults) {
            let dgt = desk.world.dgt().unwrap();
            let before = dgt.with_model(|model, _| {
                if let Some(fault) = fault {
                    model.fault_next_update(fault);
                }
                model.dumps_asked()
            });
            let mover = position.turn();
            desk.play(&mut position, san).await;
            desk.until(san, |s| s.ticking == Some(!mover)).await;
            desk.pause(200).await;
            let dgt = desk.world.dgt().unwrap();
            let (after, pending) =
                dgt.with_model(|model, _| (model.dumps_asked(), model.update_fault_pending()));
            assert!(!pending, "{san}: the fault happened");
            if fault.is_some() {
                assert_eq!(after - before, 1, "{san}: one dump for the fault");
            }
        }
        assert_eq!(desk.moves(), sans);
        assert!(
            !desk.decided_any(|e| matches!(
                e,
                Effect::Violation(_) | Effect::Warning(_) | Effect::Displaced { .. }
            )),
            "{:#?}",
            desk.decided.0.borrow()
        );
        desk.close().await;
    });
}
