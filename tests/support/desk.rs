//! The daemon's loop in process, in real time, on a world whose board is
//! modelled on a pseudo-terminal and read by the real driver through a
//! real tty (`tests/dgt_board.rs`, `tests/dgt3000.rs`): the desk the
//! hands, the board and the clock sit on, with the loop's decisions as
//! values and the game as it shows it. Each user declares `tty.rs`
//! beside this file.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use std::cell::RefCell;
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Chess, Move, Position};
use tocada::config::Config;
use tocada::daemon::{
    Alarm, Command, Decisions, GameRestored, Session, ShownGame, Stats, model_shell,
};
use tocada::gesture::{self, Style};
use tocada::rig::models::World;
use tocada::{Effect, Input, Millis};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::tty::no_tty_here;

/// Légal's mate: captures, a queen taken, a check and the mate.
pub const GAME: [&str; 13] = [
    "e4", "e5", "Nf3", "d6", "Bc4", "Bg4", "Nc3", "g6", "Nxe5", "Bxd1", "Bxf7+", "Ke7", "Nd5#",
];

/// The loop's decisions, as values, as it made them.
#[derive(Clone, Default)]
pub struct Decided(pub Rc<RefCell<Vec<Effect>>>);

impl Decisions for Decided {
    fn decision(&mut self, _: Millis, effect: &Effect) {
        self.0.borrow_mut().push(effect.clone());
    }

    fn restored(&mut self, _: &GameRestored) {}
}

/// Runs `test` where the model's tty is to be linked (in a directory of
/// its own, gone after), on a current-thread runtime within a `LocalSet`
/// as the daemon runs its loop; says it was skipped where there are no
/// ttys to be had.
pub fn on_a_tty<F: Future<Output = ()>>(test: impl FnOnce(PathBuf) -> F) {
    if no_tty_here() {
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tty = dir.path().join("ttyDGT");
    tokio::task::LocalSet::new().block_on(&runtime, test(tty));
}

/// The daemon's loop on `world`, in real time.
pub struct Desk {
    /// The board (and clock) the hands are on.
    pub world: World,
    commands: tokio::sync::mpsc::UnboundedSender<Command>,
    start: tokio::time::Instant,
    /// The game as the loop last showed it.
    pub shown: watch::Receiver<ShownGame>,
    /// Every decision of the loop.
    pub decided: Decided,
    stop: oneshot::Sender<()>,
    daemon: JoinHandle<Stats>,
}

impl Desk {
    /// The daemon's loop started on `world` (within a `LocalSet`), on the
    /// default configuration: White on the left, `board.clock` left out
    /// (a clock is found from the board's reports).
    pub fn open(world: World) -> Desk {
        Desk::configured(world, &Config::default())
    }

    /// The daemon's loop started on `world` with `config`.
    pub fn configured(world: World, config: &Config) -> Desk {
        let (commands, rx) = tokio::sync::mpsc::unbounded_channel();
        let (published, shown) = watch::channel(ShownGame::default());
        let decided = Decided::default();
        let start = tokio::time::Instant::now();
        let shell = model_shell(&world, Session::new(config), config, start)
            .with_decisions(Box::new(decided.clone()))
            .with_watch(published);
        let (stop, stopped) = oneshot::channel::<()>();
        let daemon = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
            let _ = stopped.await;
        }));
        Desk {
            world,
            commands,
            start,
            shown,
            decided,
            stop,
            daemon,
        }
    }

    /// The loop stopped, and ended.
    pub async fn close(self) -> Stats {
        let _ = self.stop.send(());
        self.daemon.await.unwrap()
    }

    /// The time since the loop started.
    pub fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// `command` given to the loop now, as a script's line gives it
    /// (`players`: the hall's pairing of the board).
    pub fn command(&self, command: Command) {
        let _ = self.commands.send(command);
    }

    /// `input` done on the world now.
    pub fn hand(&self, input: Input) {
        self.world.apply(&self.commands, self.now(), input);
    }

    /// `ms` of real time.
    pub async fn pause(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    /// The hands of `san` with the board's own identities, then a wait of
    /// 400 ms: the press comes well past 6.2.3's 100 ms, since on a real
    /// serial line a loop held up by a loaded machine reads (and so
    /// stamps) a release late; a press 200 ms after it drew false
    /// warnings when the whole suite ran beside a CI build. The move,
    /// not yet played on `position`.
    pub async fn hands(&self, position: &Chess, san: &str) -> Move {
        let m = gesture::parse_san(position, san).unwrap();
        let style = Style::default().with_identities(true);
        let mut at = 0;
        for (offset, input) in gesture::hand_events(position, m, &style) {
            self.pause(offset - at).await;
            at = offset;
            self.hand(input);
        }
        self.pause(400).await;
        m
    }

    /// Plays `san` ([`Desk::hands`]) and presses the front's lever (a
    /// script's press, as the GPIO's would be), then lets the loop see it.
    pub async fn play(&self, position: &mut Chess, san: &str) {
        let m = self.hands(position, san).await;
        self.hand(Input::Press(position.turn()));
        position.play_unchecked(m);
        self.pause(100).await;
    }

    /// Looks at the world every 10 ms until it passes `test`, `ms` at the
    /// most; says whether it did.
    pub async fn polls(&self, ms: u64, test: impl Fn(&World) -> bool) -> bool {
        for _ in 0..ms / 10 {
            if test(&self.world) {
                return true;
            }
            self.pause(10).await;
        }
        test(&self.world)
    }

    /// Waits, 10 s at the most, until the game as shown passes `test`.
    pub async fn until(&mut self, what: &str, test: impl Fn(&ShownGame) -> bool) {
        let waited =
            tokio::time::timeout(Duration::from_secs(10), self.shown.wait_for(|s| test(s))).await;
        assert!(waited.is_ok(), "waited in vain for {what}");
    }

    /// The moves ruled so far, in SAN.
    pub fn moves(&self) -> Vec<String> {
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

    /// Whether the loop decided anything that `test` picks.
    pub fn decided_any(&self, test: impl Fn(&Effect) -> bool) -> bool {
        self.decided.0.borrow().iter().any(test)
    }
}
