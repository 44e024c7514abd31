//! The daemon's loop on the device models, in simulated time: when it polls
//! the board, and that a press never overtakes the move it completes.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Color, Square};
use tocada::config::Config;
use tocada::daemon::{Command, Panel, Stats};
use tocada::hardware::link::LinkPolicy;
use tocada::sim::World;
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
        let world = World::new();
        let (commands, rx) = mpsc::unbounded_channel();
        let output = Output::default();
        let shell = world
            .shell(Panel::new(&Config::default()), LinkPolicy::default(), rx)
            .with_output(Box::new(output.clone()));
        let start = shell.start();
        let (stop, stopped) = oneshot::channel::<()>();
        let shell = tokio::task::spawn_local(shell.run(async {
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
