//! The daemon's loop on the device models, in simulated time: when it polls
//! the board, and that a press never overtakes the move it completes.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Color, Square};
use tocada::config::Config;
use tocada::daemon::{Alarm, Command, Session, Stats, model_shell};
use tocada::rig::models::World;
use tocada::{Input, Millis};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{JoinHandle, LocalSet};
use tokio::time::Instant;

/// The daemon's standard output, kept for the test to read.
#[derive(Clone, Default)]
struct Output(Rc<RefCell<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A running shell on a simulated world, and hands to play on it.
struct Rig {
    world: World,
    commands: mpsc::UnboundedSender<Command>,
    start: Instant,
    output: Output,
    stop: oneshot::Sender<()>,
    shell: JoinHandle<Stats>,
}

impl Rig {
    /// Must run inside a `LocalSet` with paused time.
    fn start() -> Rig {
        Rig::configured(&Config::default(), false)
    }

    /// With the board's interrupt line wired (`board.interrupt_pin`).
    fn with_interrupt_line() -> Rig {
        Rig::configured(&interrupt_config(), true)
    }

    fn configured(config: &Config, wired: bool) -> Rig {
        let world = World::new();
        let (commands, rx) = mpsc::unbounded_channel();
        if wired {
            world.wire_interrupt(commands.clone());
        }
        let output = Output::default();
        let start = Instant::now();
        let shell = model_shell(&world, Session::new(config), config, start)
            .with_output(Box::new(output.clone()));
        let (stop, stopped) = oneshot::channel::<()>();
        let shell = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
            let _ = stopped.await;
        }));
        Rig {
            world,
            commands,
            start,
            output,
            stop,
            shell,
        }
    }

    /// Does `input` at `t` ms on the shell's clock, as the hardware would.
    async fn at(&self, t: Millis, input: Input) {
        self.wait(t).await;
        self.world
            .apply(&self.commands, Duration::from_millis(t), input);
    }

    async fn wait(&self, t: Millis) {
        tokio::time::sleep_until(self.start + Duration::from_millis(t)).await;
    }

    /// Bytes the board model has sent and received so far.
    fn board_bytes(&self) -> u64 {
        self.world.bus().borrow().board().bytes_transferred()
    }

    /// What the loop has written so far.
    fn printed(&self) -> String {
        String::from_utf8(self.output.0.borrow().clone()).expect("UTF-8")
    }

    /// Stops the loop; returns what it wrote.
    async fn stop(self) -> String {
        let _ = self.stop.send(());
        self.shell.await.expect("the loop ends");
        String::from_utf8(self.output.0.borrow().clone()).expect("UTF-8")
    }
}

#[tokio::test(start_paused = true)]
async fn a_press_right_after_the_release_completes_the_move() {
    LocalSet::new()
        .run_until(async {
            let rig = Rig::start();
            rig.at(0, Input::Press(Color::Black)).await;
            rig.at(1_000, Input::Lift(Square::E2)).await;
            // Polls fall at 1300 and 1305: the place is not seen on
            // schedule before the press, so the press must poll first.
            rig.at(1_302, Input::Place(Square::E4, None)).await;
            rig.at(1_303, Input::Press(Color::White)).await;
            rig.wait(1_400).await;
            let out = rig.stop().await;
            assert!(out.contains(r#""effect":"move""#), "{out}");
            assert!(out.contains(r#""san":"e4""#), "{out}");
            assert!(!out.contains("violation"), "{out}");
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_press_in_a_burst_of_nacks_waits_for_the_move_and_is_timed_by_the_board() {
    LocalSet::new()
        .run_until(async {
            let rig = Rig::start();
            rig.at(0, Input::Press(Color::Black)).await;
            rig.at(1_000, Input::Lift(Square::E2)).await;
            rig.at(1_300, Input::Place(Square::E4, None)).await;
            // The bus is disturbed from just after the place until well
            // after the press: the link backs off, and the press comes
            // exactly the 6.2.3 gap (100 ms) after the release.
            rig.world.bus().borrow_mut().board_mut().nack_next(12);
            rig.at(1_400, Input::Press(Color::White)).await;
            rig.wait(2_000).await;
            let out = rig.stop().await;
            let moves: Vec<&str> = out
                .lines()
                .filter(|l| l.contains(r#""effect":"move""#))
                .collect();
            assert_eq!(moves.len(), 1, "{out}");
            assert!(
                moves[0].starts_with(r#"{"t":1400,"#),
                "ruled at the press: {out}"
            );
            assert!(moves[0].contains(r#""san":"e4""#), "{out}");
            // Neither "pressed without making a move" (7.5.3) nor a false
            // "other hand" (6.2.3): the place is stamped when it happened,
            // not when the bus let it be read.
            assert!(!out.contains("violation"), "{out}");
            assert!(!out.contains("warning"), "{out}");
            assert!(!out.contains("time_added"), "{out}");
        })
        .await;
}

/// White plays e4 with the board NACKed from just after the lift (1000)
/// until after the press: long enough for the link to call it
/// disconnected before the press (five failed polls), and for a while
/// after it. The place is at 1300, the press at `press_at`; returns what
/// the daemon printed.
async fn e4_through_a_silent_board(press_at: u64) -> String {
    let rig = Rig::start();
    rig.at(0, Input::Press(Color::Black)).await;
    rig.at(1_000, Input::Lift(Square::E2)).await;
    rig.world.bus().borrow_mut().board_mut().nack_next(90);
    rig.at(1_300, Input::Place(Square::E4, None)).await;
    rig.at(press_at, Input::Press(Color::White)).await;
    rig.wait(4_000).await;
    let out = rig.stop().await;
    // The press waits for the place: it is not ruled a press without a
    // move (7.5.3).
    assert!(out.contains(r#""san":"e4""#), "{out}");
    assert!(!out.contains("violation"), "{out}");
    assert!(!out.contains("time_added"), "{out}");
    assert!(!out.contains(r#""effect":"result""#), "{out}");
    out
}

#[tokio::test(start_paused = true)]
async fn a_press_waits_for_a_board_the_link_just_gave_up() {
    LocalSet::new()
        .run_until(async {
            let out = e4_through_a_silent_board(1_600).await;
            // When the board answers again, its clock is read before the
            // place is stamped: the place keeps its instant (1300), so the
            // press is neither a false "other hand" (6.2.3) nor charged
            // the outage.
            assert!(!out.contains("warning"), "{out}");
            let moved = out
                .lines()
                .find(|l| l.contains(r#""effect":"move""#))
                .expect("the move");
            assert!(moved.starts_with(r#"{"t":1600,"#), "{out}");
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_checkpoint_while_the_board_is_silent_does_not_move_its_news_later() {
    LocalSet::new()
        .run_until(async {
            // A checkpoint (every 500 ms of a running clock, so at 1500)
            // comes between the place (1300) and the press (1550): it must
            // not take the referee's time past a change the board has yet
            // to report, or the place would be taken at 1500 and the
            // press, 250 ms after the release, ruled 50 ms after it (a
            // false 6.2.3 warning).
            let out = e4_through_a_silent_board(1_550).await;
            assert!(!out.contains("warning"), "{out}");
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn the_board_is_polled_slowly_on_the_setup_screen_and_every_5_ms_in_a_game() {
    LocalSet::new()
        .run_until(async {
            let rig = Rig::start();
            // Pairing and the first snapshot are over by 1 s; each window
            // below holds one full occupancy read (every 10 s).
            rig.wait(1_000).await;
            let before = rig.board_bytes();
            rig.wait(11_000).await;
            let setup = rig.board_bytes() - before;

            rig.at(11_000, Input::Press(Color::Black)).await;
            rig.wait(12_000).await;
            let before = rig.board_bytes();
            rig.wait(22_000).await;
            let game = rig.board_bytes() - before;
            let out = rig.stop().await;
            assert!(out.contains(r#""effect":"started""#), "{out}");

            // 200 polls against 2000: a tenth, give or take the snapshot.
            assert!(setup > 0, "the setup screen still reads the board");
            assert!(
                game >= 8 * setup && game <= 12 * setup,
                "setup screen {setup} B in 10 s, game {game} B in 10 s"
            );
        })
        .await;
}

fn interrupt_config() -> Config {
    let mut config = Config::default();
    config.board.interrupt_pin = Some(6);
    config
}

/// Board bytes over 10 s of a game in which nobody touches the board.
async fn quiet_game_bytes(rig: &Rig) -> u64 {
    rig.at(1_000, Input::Press(Color::Black)).await;
    rig.wait(2_000).await;
    let before = rig.board_bytes();
    rig.wait(12_000).await;
    rig.board_bytes() - before
}

#[tokio::test(start_paused = true)]
async fn with_the_interrupt_line_the_board_is_read_on_its_edge_and_polled_every_100_ms() {
    LocalSet::new()
        .run_until(async {
            let polled = Rig::start();
            let polled_bytes = quiet_game_bytes(&polled).await;
            polled.stop().await;

            let rig = Rig::with_interrupt_line();
            let quiet = quiet_game_bytes(&rig).await;
            // 100 polls against 2000, plus the occupancy read both make.
            assert!(
                quiet > 0 && quiet * 10 < polled_bytes,
                "{quiet} B with the line, {polled_bytes} B polling every 5 ms"
            );

            // White's hand knocks Black's e7 pawn over and sets it back,
            // both off the 100 ms schedule (polls near 12_000 + k * 100):
            // only the edge brings them to the referee at their own
            // instants, and White is charged exactly the 208 ms (7.4.1).
            rig.at(12_043, Input::Lift(Square::E7)).await;
            rig.at(12_251, Input::Place(Square::E7, None)).await;
            rig.wait(13_500).await;
            let out = rig.stop().await;
            assert!(
                out.contains(r#"{"t":12043,"effect":"displaced","side":"white","squares":["e7"]}"#),
                "{out}"
            );
            assert!(
                out.contains(r#"{"t":12251,"effect":"restored","side":"white","ms":208}"#),
                "{out}"
            );
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_burst_longer_than_one_batch_is_read_at_once_without_a_new_edge() {
    LocalSet::new()
        .run_until(async {
            let rig = Rig::with_interrupt_line();
            rig.at(1_000, Input::Press(Color::Black)).await;
            // A sleeve sweeps a rank: 16 frames at one instant, two batches
            // of 8, and the line only falls once.
            rig.wait(1_337).await;
            for file in shakmaty::File::ALL {
                let sq = Square::from_coords(file, shakmaty::Rank::Seventh);
                rig.world.lift(1_337, sq);
                rig.world.place(1_337, sq, None);
            }
            rig.wait(1_338).await;
            assert_eq!(
                rig.world.bus().borrow().board().queued(),
                0,
                "both batches read at 1337 ms"
            );
            rig.stop().await;
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_line_that_never_falls_is_given_up_for_polling() {
    LocalSet::new()
        .run_until(async {
            // Configured, but the wire is missing.
            let rig = Rig::configured(&interrupt_config(), false);
            rig.at(1_000, Input::Press(Color::Black)).await;
            // White's hand knocks e7 and sets it back, again and again:
            // the lift, the place and the next lift are seen only by the
            // safety net, three misses; from then on the board is polled.
            // The rulings carry the board's own time of each knock, so
            // when the loop saw it shows in when the ruling came out.
            let mut seen_within_5_ms = Vec::new();
            for k in 0..4 {
                let t = 2_013 + k * 1_000;
                rig.at(t, Input::Lift(Square::E7)).await;
                rig.wait(t + 5).await;
                seen_within_5_ms
                    .push(rig.printed().matches(r#""effect":"displaced""#).count() > k as usize);
                rig.at(t + 300, Input::Place(Square::E7, None)).await;
            }
            rig.wait(6_500).await;
            let out = rig.stop().await;
            let displaced: Vec<u64> = out
                .lines()
                .filter(|l| l.contains(r#""effect":"displaced""#))
                .map(|l| l[5..l.find(',').unwrap()].parse().unwrap())
                .collect();
            assert_eq!(
                displaced,
                [2_013, 3_013, 4_013, 5_013],
                "{out}: the board's times"
            );
            assert_eq!(
                seen_within_5_ms,
                [false, false, true, true],
                "the first two wait for the 100 ms poll, then the 5 ms poll sees them"
            );
        })
        .await;
}

/// Black's time left as the stored `lines` restore it.
fn restored_black_ms(lines: &[String]) -> u64 {
    restored_ms(lines, Color::Black)
}

/// `side`'s time left as the stored `lines` restore it.
fn restored_ms(lines: &[String], side: Color) -> u64 {
    let config = Config::default();
    let mut session = Session::new(&config);
    tocada::transcript::restore(
        &mut session,
        0,
        tocada::daemon::GameToResume {
            preset: "blitz",
            black_left: false,
            date: "2025.01.01",
            lines,
        },
        tocada::transcript::Policy::RESTORE,
    )
    .expect("the stored game restores");
    std::iter::from_fn(|| session.poll_action())
        .find_map(|action| match action {
            tocada::daemon::Action::Restored(game) => {
                Some(side.fold_wb(game.white_ms, game.black_ms))
            }
            _ => None,
        })
        .expect("a restored game says so")
}

#[tokio::test(start_paused = true)]
async fn a_power_cut_gives_back_at_most_a_second_of_a_running_clock() {
    use tocada::store::{DB_FILE, Journal, Store};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    LocalSet::new()
        .run_until(async {
            let config = Config::default();
            let world = World::new();
            let (commands, rx) = mpsc::unbounded_channel();
            let start = Instant::now();
            let journal = Journal::spawn(Store::open(&path).unwrap());
            let shell = model_shell(&world, Session::new(&config), &config, start)
                .with_journal(journal, None);
            let (stop, stopped) = oneshot::channel::<()>();
            let shell = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
                let _ = stopped.await;
            }));
            let at = |t: Millis, input: Input| {
                let world = world.clone();
                let commands = commands.clone();
                async move {
                    tokio::time::sleep_until(start + Duration::from_millis(t)).await;
                    world.apply(&commands, Duration::from_millis(t), input);
                }
            };
            at(0, Input::Press(Color::Black)).await;
            at(1_000, Input::Lift(Square::E2)).await;
            at(1_200, Input::Place(Square::E4, None)).await;
            at(1_300, Input::Press(Color::White)).await;
            // Black thinks for 20 s without touching the board; then the
            // power goes. What the journal was given is what a disk that
            // keeps up holds.
            tokio::time::sleep_until(start + Duration::from_millis(21_300)).await;
            let _ = stop.send(());
            shell.await.expect("the loop ends");
        })
        .await;
    let saved = Store::open(&path).unwrap().unfinished().unwrap().unwrap();
    let checkpoints = saved
        .lines
        .iter()
        .filter(|l| l.contains(r#""ev":"checkpoint""#))
        .count();
    assert!(
        checkpoints >= 39,
        "{checkpoints} checkpoints in 20 s: {:#?}",
        saved.lines
    );
    let without: Vec<String> = saved
        .lines
        .iter()
        .filter(|l| !l.contains(r#""ev":"checkpoint""#))
        .cloned()
        .collect();
    // Restored from the last move alone, Black would get all 20 s back.
    let at_the_move = restored_black_ms(&without);
    let restored = restored_black_ms(&saved.lines);
    let thought = at_the_move - restored;
    assert!(
        (19_000..=20_000).contains(&thought),
        "Black thought 20 s and is charged {thought} ms after the restart"
    );
}

/// White's clock runs from 0 while the board does not answer at all (from
/// 100 ms on), White presses at `press_at` if given, and the power goes at
/// `cut_at`: the game's stored lines.
async fn stored_through_a_silent_board(cut_at: Millis, press_at: Option<Millis>) -> Vec<String> {
    use tocada::store::{DB_FILE, Journal, Store};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    LocalSet::new()
        .run_until(async {
            let config = Config::default();
            let world = World::new();
            let (commands, rx) = mpsc::unbounded_channel();
            let start = Instant::now();
            let journal = Journal::spawn(Store::open(&path).unwrap());
            let shell = model_shell(&world, Session::new(&config), &config, start)
                .with_journal(journal, None);
            let (stop, stopped) = oneshot::channel::<()>();
            let shell = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
                let _ = stopped.await;
            }));
            world.apply(&commands, Duration::ZERO, Input::Press(Color::Black));
            tokio::time::sleep_until(start + Duration::from_millis(100)).await;
            world.bus().borrow_mut().board_mut().nack_next(1_000_000);
            if let Some(t) = press_at {
                tokio::time::sleep_until(start + Duration::from_millis(t)).await;
                world.apply(
                    &commands,
                    Duration::from_millis(t),
                    Input::Press(Color::White),
                );
            }
            tokio::time::sleep_until(start + Duration::from_millis(cut_at)).await;
            // What the journal was given is what a disk that keeps up holds.
            let _ = stop.send(());
            shell.await.expect("the loop ends");
        })
        .await;
    Store::open(&path)
        .unwrap()
        .unfinished()
        .unwrap()
        .expect("the game in play")
        .lines
}

#[tokio::test(start_paused = true)]
async fn a_power_cut_while_the_board_is_silent_gives_back_at_most_a_second() {
    // Before: the checkpoints went no further than 2 s before the cut
    // (`PRESS_WAITS_MS`), and 37 of 40 cuts gave back over a second.
    let mut given_back = Vec::new();
    for k in 0..40 {
        let cut_at = 2_600 + k * 97;
        let lines = stored_through_a_silent_board(cut_at, None).await;
        // White's time when the game began: the lines up to Black's start.
        let initial = restored_ms(&lines[..2], Color::White);
        let restored = restored_ms(&lines, Color::White);
        // White's clock ran from 0 to the cut: what the restart charges
        // less is given back.
        let ran = initial - restored;
        assert!(ran <= cut_at, "charged {ran} ms for {cut_at} ms");
        given_back.push(cut_at - ran);
    }
    let worst = given_back.iter().max().copied().unwrap_or_default();
    assert!(
        worst <= 1_000,
        "given back (ms) at each of the 40 cuts: {given_back:?}"
    );
}

#[test]
fn a_checkpoint_s_ran_to_is_believed_no_further_than_2_s_past_its_instant() {
    let lines = |ran_to: &str| {
        vec![
            r#"{"t":0,"ev":"setup","time_control":"300+0"}"#.to_owned(),
            r#"{"t":0,"ev":"press","side":"black"}"#.to_owned(),
            format!(r#"{{"t":1000,"ev":"checkpoint"{ran_to}}}"#),
        ]
    };
    let white = |ran_to| restored_ms(&lines(ran_to), Color::White);
    assert_eq!(white(""), 299_000);
    assert_eq!(white(r#","ran_to":2500"#), 297_500);
    // Near miss: exactly as far as a press waits for a silent board.
    assert_eq!(white(r#","ran_to":3000"#), 297_000);
    // A stored line saying more did not come from the daemon: no flag
    // falls on its word.
    assert_eq!(white(r#","ran_to":3001"#), 297_000);
    assert_eq!(white(r#","ran_to":18446744073709551615"#), 297_000);
}

#[tokio::test(start_paused = true)]
async fn a_power_cut_while_a_press_waits_for_a_silent_board_gives_back_at_most_a_second() {
    // White presses at 3000 and the press waits for the board (2 s, the
    // link having called it disconnected). Before: no checkpoint was
    // stored while a press waited, and a cut then gave back 2 s or more.
    let press_at = 3_000;
    let mut given_back = Vec::new();
    for k in 0..10 {
        let cut_at = press_at + 150 + k * 180;
        let lines = stored_through_a_silent_board(cut_at, Some(press_at)).await;
        let initial = restored_ms(&lines[..2], Color::White);
        let restored = restored_ms(&lines, Color::White);
        // White's clock ran at least until his press, which the cut lost.
        let ran = initial - restored;
        assert!(ran <= press_at, "charged {ran} ms for {press_at} ms");
        given_back.push(press_at - ran);
    }
    let worst = given_back.iter().max().copied().unwrap_or_default();
    assert!(
        worst <= 1_000,
        "given back (ms) at each of the 10 cuts: {given_back:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_face_says_when_games_are_not_being_saved_and_when_they_are_again() {
    use tocada::store::{DB_FILE, Journal, Store};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    let store = Store::open(&path).unwrap();
    store.set_busy_timeout(Duration::from_millis(10)).unwrap();
    // Someone holds the write lock from before the first press.
    let mut other = rusqlite::Connection::open(&path).unwrap();
    let lock = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    LocalSet::new()
        .run_until(async {
            let config = Config::default();
            let world = World::new();
            let (commands, rx) = mpsc::unbounded_channel();
            let start = Instant::now();
            let (watch, shown) = tokio::sync::watch::channel(Default::default());
            let shell = model_shell(&world, Session::new(&config), &config, start)
                .with_journal(Journal::spawn(store), None)
                .with_watch(watch);
            let (stop, stopped) = oneshot::channel::<()>();
            let shell = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
                let _ = stopped.await;
            }));
            let unsaved = || shown.borrow().view.games_unsaved;
            tokio::time::sleep_until(start + Duration::from_millis(100)).await;
            world.apply(
                &commands,
                Duration::from_millis(100),
                Input::Press(Color::Black),
            );
            tokio::time::sleep_until(start + Duration::from_millis(200)).await;
            // The writer works in real time, the loop on a paused clock:
            // give the writer real time, as much as a loaded machine needs,
            // and the loop 100 ms of its own each round.
            let mut t = 200;
            let mut until = async |want: bool| {
                for _ in 0..400 {
                    if unsaved() == want {
                        return true;
                    }
                    std::thread::sleep(Duration::from_millis(25));
                    t += 100;
                    tokio::time::sleep_until(start + Duration::from_millis(t)).await;
                }
                false
            };
            assert!(until(true).await, "the game's begin could not be committed");
            drop(lock);
            // The writer retries every half second.
            assert!(until(false).await, "saved again");
            let _ = stop.send(());
            shell.await.expect("the loop ends");
        })
        .await;
    // The game begun under the lock is stored.
    let saved = Store::open(&path).unwrap().unfinished().unwrap();
    assert!(saved.is_some_and(|g| g.lines.len() >= 2));
}
