//! `tocada sim`: the whole daemon on a desktop, with the device models in
//! place of `/dev/i2c-1` and the GPIO chip.
//!
//! - [`World`]: the simulated hardware: the OLED and a sensor board model on
//!   one bus, the buzzer, and the hands that lift and place pieces.
//! - [`script`]: `tocada sim --script FILE.jsonl`, the replay format played
//!   through the whole stack in simulated time, headless, writing the face
//!   as PNG when a line asks for it.
//! - [`tui`]: the interactive simulator in the terminal.
//!
//! The daemon's own loop ([`crate::daemon::Shell`]) runs unchanged on the
//! models; only where its commands come from differs.

pub mod png;
pub mod script;
pub mod tui;

use std::cell::{Cell, OnceCell};
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Board, Color, Piece, Role, Square};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::daemon::{Buzzer, Command, Session, Shell, link_policy, with_interrupt_line};
use crate::hardware::buttons::{Button, ButtonPress};
use crate::hardware::link::{BoardLink, LinkPolicy};
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
use crate::hardware::protocol_board::wire::{Capabilities, DEFAULT_ADDRESS};
use crate::models::bus::ModelBus;
use crate::models::sensor_board::ProtocolBoardModel;
use crate::models::{Hands, Shared};
use crate::transcript::{self, Event};
use crate::{Input, Millis};

/// The simulated bus: the OLED model and the sensor board model.
pub type SimBus = Shared<ModelBus<ProtocolBoardModel>>;

/// The serial number the simulated board reports.
pub const SIM_SERIAL: u64 = 0x70ca_da00_0000_0001;

/// The simulated hardware, shared (single-threaded) between the daemon's
/// drivers and whoever plays: a script, the keyboard, a test.
#[derive(Clone)]
pub struct World {
    bus: SimBus,
    buzzer: Rc<Cell<bool>>,
    /// Where the board's interrupt line is wired, if it is: the shell's
    /// queue, as the GPIO thread is on a Pi.
    interrupt: Rc<OnceCell<mpsc::UnboundedSender<Command>>>,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

/// The buzzer as a flag the simulator's screen shows.
#[derive(Debug, Clone, Default)]
pub struct SimBuzzer(Rc<Cell<bool>>);

impl Buzzer for SimBuzzer {
    fn set(&mut self, on: bool) {
        self.0.set(on);
    }
}

/// The daemon's loop on the models.
pub type SimShell = Shell<ProtocolBoard<SimBus>, SimBus, SimBuzzer>;

impl World {
    /// The pieces in their starting places on a board that senses
    /// occupancy and hand contact.
    pub fn new() -> World {
        World::with_board(&Board::default())
    }

    /// The same board holding the pieces of `board`: a game restored after
    /// a restart, whose pieces stayed where they were.
    pub fn with_board(board: &Board) -> World {
        let caps = Capabilities {
            occupancy: true,
            contact: true,
            int_line: true,
            ..Capabilities::default()
        };
        let board = ProtocolBoardModel::new(board, SIM_SERIAL, caps);
        World {
            bus: Shared::new(ModelBus::new(board)),
            buzzer: Rc::default(),
            interrupt: Rc::default(),
        }
    }

    /// Wires the board's interrupt line (§ 8.2 of the protocol) to the
    /// shell's queue: when the line falls, the shell hears
    /// [`Command::BoardInterrupt`], as from the GPIO thread on a Pi
    /// (`board.interrupt_pin`). A world is wired once; later calls are
    /// ignored.
    pub fn wire_interrupt(&self, tx: mpsc::UnboundedSender<Command>) {
        let _ = self.interrupt.set(tx);
    }

    /// Lets `hand` act on the board model, then tells the shell if that
    /// pulled the interrupt line low.
    fn on_board(&self, hand: impl FnOnce(&mut ProtocolBoardModel)) {
        let fell = {
            let mut bus = self.bus.borrow_mut();
            let board = bus.board_mut();
            let before = board.interrupt_asserted();
            hand(board);
            !before && board.interrupt_asserted()
        };
        if let (true, Some(tx)) = (fell, self.interrupt.get()) {
            let _ = tx.send(Command::BoardInterrupt);
        }
    }

    /// The bus, to look at the models or inject faults.
    pub fn bus(&self) -> &SimBus {
        &self.bus
    }

    /// Whether the buzzer sounds.
    pub fn buzzing(&self) -> bool {
        self.buzzer.get()
    }

    /// The daemon's loop with the real drivers on this world's bus, each
    /// with its own handle, so they share it one transaction at a time.
    pub fn shell(
        &self,
        panel: Session,
        policy: LinkPolicy,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> SimShell {
        let board = ProtocolBoard::new(self.bus.clone(), DEFAULT_ADDRESS);
        let oled = Oled::new(self.bus.clone());
        Shell::new(
            panel,
            BoardLink::new(board, policy),
            oled,
            SimBuzzer(Rc::clone(&self.buzzer)),
            commands,
        )
    }

    /// The daemon as the simulator runs it: `config`'s presets and rules,
    /// the board read as configured (on its interrupt line when
    /// `board.interrupt_pin` is set, polled every `poll_ms` otherwise),
    /// games in an in-memory store. Commands for it go to the sender.
    pub fn daemon(
        &self,
        config: &crate::config::Config,
    ) -> Result<(SimShell, mpsc::UnboundedSender<Command>), crate::store::StoreError> {
        let store = crate::store::Store::open_in_memory()?;
        let (tx, rx) = mpsc::unbounded_channel();
        if config.board.interrupt_pin.is_some() {
            self.wire_interrupt(tx.clone());
        }
        let shell = self
            .shell(Session::new(config), link_policy(config), rx)
            .with_journal(crate::store::Journal::spawn(store), None);
        Ok((with_interrupt_line(shell, config), tx))
    }

    /// A hand lifts the piece on `sq` (or knocks it off the board).
    pub fn lift(&self, at: Millis, sq: Square) {
        self.on_board(|board| board.lift(at, sq));
    }

    /// A hand puts `piece` on `sq`; without one, a pawn of `side`, since
    /// this board does not tell pieces apart.
    pub fn place(&self, at: Millis, sq: Square, piece: Option<Piece>) {
        let piece = piece.unwrap_or(Piece {
            color: Color::White,
            role: Role::Pawn,
        });
        self.on_board(|board| board.place(at, sq, piece));
    }

    /// A hand touches the piece on `sq`.
    pub fn touch(&self, at: Millis, sq: Square) {
        self.on_board(|board| board.touch(at, sq));
    }

    /// The hand leaves the piece on `sq`.
    pub fn untouch(&self, at: Millis, sq: Square) {
        self.on_board(|board| board.untouch(at, sq));
    }

    /// The board's cable comes out.
    pub fn unplug(&self) {
        self.on_board(ProtocolBoardModel::unplug);
    }

    /// The board's cable goes back in: it powers up with its BOOT frame
    /// waiting.
    pub fn plug(&self) {
        self.on_board(ProtocolBoardModel::plug);
    }

    /// Whether the OLED lights the pixel at (`x`, `y`).
    pub fn pixel(&self, x: usize, y: usize) -> bool {
        self.bus.borrow().oled().pixel(x, y)
    }

    /// Does what an input says, as the hardware would: pieces on the board
    /// model, controls as presses at `at` on the shell's clock, and the
    /// rest (resign, promote, decline) straight to the daemon.
    pub fn apply(&self, tx: &mpsc::UnboundedSender<Command>, at: Duration, input: Input) {
        let ms = at.as_millis() as Millis;
        let press = |button| {
            let _ = tx.send(Command::Press(ButtonPress { button, at }));
        };
        match input {
            Input::Press(side) => press(Button::Lever(side)),
            Input::Draw(side) => press(Button::Draw(side)),
            Input::Adjust(side) => press(Button::Adjust(side)),
            Input::Lift(sq) => self.lift(ms, sq),
            Input::Place(sq, piece) => self.place(ms, sq, piece),
            Input::Touch(sq) => self.touch(ms, sq),
            Input::Untouch(sq) => self.untouch(ms, sq),
            other => {
                let _ = tx.send(Command::Input(other));
            }
        }
    }
}

/// Plays replay-format lines from standard input on `world` as they arrive
/// (`tocada run` with `board.kind = "sim"`), read under
/// [`transcript::Policy::LIVE`]: their `t` is ignored, the arrival time
/// counts, as with real hands. A bad line is reported on standard error and
/// skipped.
pub async fn feed_stdin(world: World, tx: mpsc::UnboundedSender<Command>, start: Instant) {
    let mut input = tokio::io::BufReader::new(tokio::io::stdin());
    let mut reader = transcript::Reader::new(transcript::Policy::LIVE);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(err) => {
                tracing::warn!("standard input: {err}");
                return;
            }
        }
        match reader.push(&buf) {
            transcript::Read::Line(line) => match line.event {
                Event::Setup(rules) => {
                    let _ = tx.send(Command::Rules {
                        name: "script".to_owned(),
                        rules,
                    });
                }
                Event::Input(input) => world.apply(&tx, start.elapsed(), input),
                Event::End => {}
            },
            transcript::Read::Blank => {}
            transcript::Read::Skipped(fault) => eprintln!("tocada: standard input {fault}"),
            transcript::Read::Stop(fault) => {
                eprintln!("tocada: standard input {fault}");
                return;
            }
        }
    }
}
