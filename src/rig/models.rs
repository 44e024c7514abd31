//! The models' rig: the daemon's drivers on the device models of
//! [`crate::models`], one modelled I2C bus carrying the SSD1306 and a
//! protocol-v1 sensor board, a buzzer that is a flag, and hands that lift
//! and place pieces on the board model.
//!
//! [`World`] is the simulated hardware, shared (single-threaded) between the
//! rig's drivers and whoever plays: standard input under `tocada run`
//! (`board.kind = "sim"`), a script, the simulator's keyboard, a test.
//! [`World::rig`] gives the [`ModelRig`] the daemon's loop drives.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use shakmaty::{Board, Color, Piece, Role, Square};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use super::{BoardSerial, Command, NoNotifier, Notifier, Rig};
use crate::controls::Button;
use crate::hardware::BoardEvent;
use crate::hardware::SensorBoard;
use crate::hardware::buttons::ButtonPress;
use crate::hardware::dgt::{self, DgtBoard};
use crate::hardware::dgt3000::{ClockEvent, ClockShown, ClockSide, Dgt3000Button};
use crate::hardware::link::{BoardLink, LinkPolicy};
use crate::hardware::oled::Oled;
use crate::hardware::protocol_board::ProtocolBoard;
#[cfg(target_os = "linux")]
use crate::hardware::serial::Tty;
use crate::models::bus::{BusClock, ModelBus};
#[cfg(target_os = "linux")]
use crate::models::dgt::DgtOnPty;
use crate::models::dgt::{DgtBoardModel, ModelLine};
use crate::models::sensor_board::{ModelClock, ProtocolBoardModel};
use crate::models::{Hands, Shared};
use crate::protocol::{Capabilities, DEFAULT_ADDRESS};
use crate::transcript::{self, Event};
use crate::{Input, Millis};

/// The modelled bus: the OLED model and the sensor board model.
pub type SimBus = Shared<ModelBus<ProtocolBoardModel>>;

/// The serial number the modelled board reports.
pub const SIM_SERIAL: u64 = 0x70ca_da00_0000_0001;

/// What the models' rig reads the time from.
#[derive(Debug, Clone)]
pub enum RigClock {
    /// tokio's clock since this instant: real time under `tocada run`,
    /// paused simulated time in the simulator's scripts and the tests.
    Tokio(tokio::time::Instant),
    /// Bus time: the modelled bus advances it by every transaction's time
    /// on the wire, and the driver of the benchmark by the waits between.
    Bus(BusClock),
}

impl RigClock {
    /// Time since the clock's start.
    pub fn now(&self) -> Duration {
        match self {
            RigClock::Tokio(start) => start.elapsed(),
            RigClock::Bus(clock) => Duration::from_micros(clock.micros()),
        }
    }
}

/// The simulated hardware: the OLED and a sensor board model on one bus,
/// the buzzer, and the hands that lift and place pieces.
#[derive(Clone)]
pub struct World {
    bus: SimBus,
    /// A DGT board on a pseudo-terminal in place of the protocol board,
    /// when modelled (`board.model = "dgt"`, `tocada sim --board dgt`).
    #[cfg(target_os = "linux")]
    dgt: Option<Rc<DgtOnPty>>,
    /// A DGT board on an in-memory line timed at 9600 baud on the bus
    /// clock (the real-time benchmark), and that clock.
    dgt_line: Option<(Rc<RefCell<DgtBoardModel>>, BusClock)>,
    /// Whether the DGT driver asks for the board's clock reports and
    /// drives a DGT 3000 that answers (`board.clock` other than "none").
    dgt_clock: bool,
    buzzer: Rc<Cell<bool>>,
    /// Where the board's interrupt line is wired, if it is: the loop's
    /// queue, as the GPIO thread is on a Pi.
    interrupt: Rc<OnceCell<mpsc::UnboundedSender<Command>>>,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

impl World {
    /// The pieces in their starting places on a board that senses
    /// occupancy and hand contact.
    pub fn new() -> World {
        World::with_board(&Board::default())
    }

    /// The same board holding the pieces of `board`: a game restored after
    /// a restart, whose pieces stayed where they were.
    pub fn with_board(board: &Board) -> World {
        World::on_bus(ModelBus::new(sim_board(board)))
    }

    /// The starting position on a bus clocked at `hz` whose every
    /// transaction advances `clock` by its time on the wire.
    pub fn with_bus_clock(clock: BusClock, hz: u32) -> World {
        World::on_bus(ModelBus::new(sim_board(&Board::default())).with_clock(clock, hz))
    }

    fn on_bus(bus: ModelBus<ProtocolBoardModel>) -> World {
        World {
            bus: Shared::new(bus),
            #[cfg(target_os = "linux")]
            dgt: None,
            dgt_line: None,
            dgt_clock: true,
            buzzer: Rc::default(),
            interrupt: Rc::default(),
        }
    }

    /// A DGT e-board holding `board`'s pieces, on a pseudo-terminal whose
    /// slave is linked at `serial`: the rig reads it with the real DGT
    /// driver through a real tty. The OLED stays on the modelled bus.
    #[cfg(target_os = "linux")]
    pub fn with_dgt(board: &Board, serial: &std::path::Path) -> std::io::Result<World> {
        World::with_dgt_model(board, DgtBoardModel::new(board), serial)
    }

    /// [`World::with_dgt`] with a DGT 3000 plugged into the board: its
    /// levers and buttons are the hands' ([`World::press_clock_lever`]).
    #[cfg(target_os = "linux")]
    pub fn with_dgt3000(board: &Board, serial: &std::path::Path) -> std::io::Result<World> {
        World::with_dgt_model(board, DgtBoardModel::new(board).with_clock(), serial)
    }

    #[cfg(target_os = "linux")]
    fn with_dgt_model(
        board: &Board,
        model: DgtBoardModel,
        serial: &std::path::Path,
    ) -> std::io::Result<World> {
        let pty = DgtOnPty::open(model, serial)?;
        let mut world = World::with_board(board);
        world.dgt = Some(Rc::new(pty));
        Ok(world)
    }

    /// Whether the DGT driver uses the board's clock (`board.clock` other
    /// than "none"; the default).
    pub fn use_board_clock(mut self, used: bool) -> World {
        self.dgt_clock = used;
        self
    }

    /// The starting position on a DGT board whose line carries each byte
    /// in its time at 9600 baud on `clock`, the OLED on a bus clocked at
    /// `hz` advancing the same clock: the real-time benchmark's DGT rig.
    pub fn with_dgt_line(clock: BusClock, hz: u32) -> World {
        let mut world = World::with_bus_clock(clock.clone(), hz);
        let model = DgtBoardModel::new(&Board::default());
        world.dgt_line = Some((Rc::new(RefCell::new(model)), clock));
        world
    }

    /// The DGT board's model on the timed in-memory line, when this world
    /// has one ([`World::with_dgt_line`]): for its faults.
    pub fn dgt_line(&self) -> Option<Rc<RefCell<DgtBoardModel>>> {
        self.dgt_line.as_ref().map(|(model, _)| Rc::clone(model))
    }

    /// [`World::with_dgt_line`] with a DGT 3000 plugged into the board.
    pub fn with_dgt3000_line(clock: BusClock, hz: u32) -> World {
        let mut world = World::with_bus_clock(clock.clone(), hz);
        let model = DgtBoardModel::new(&Board::default()).with_clock();
        world.dgt_line = Some((Rc::new(RefCell::new(model)), clock));
        world
    }

    /// A hand presses the DGT 3000's lever on `side` (nothing without
    /// one).
    pub fn press_clock_lever(&self, side: ClockSide) {
        if let Some((model, bus)) = &self.dgt_line {
            let now = bus.micros() / 1_000;
            return model.borrow_mut().press_lever(now, side);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            dgt.press_lever(side);
        }
    }

    /// A hand presses one of the DGT 3000's buttons.
    pub fn press_clock_button(&self, button: Dgt3000Button) {
        if let Some((model, bus)) = &self.dgt_line {
            let now = bus.micros() / 1_000;
            return model.borrow_mut().press_button(now, button);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            dgt.press_button(button);
        }
    }

    /// Whether a DGT 3000 is modelled on the board: its levers and
    /// buttons are the hands' ([`World::press_on_clock`]).
    pub fn has_clock_model(&self) -> bool {
        self.with_clock_model(|_, _| ()).is_some()
    }

    /// A hand presses the DGT 3000's control that is `button` as tocada
    /// reads it, the clock's left side being `wired_left`'s (the mapping of
    /// `hardware/dgt.md`); `false` when no DGT 3000 is modelled.
    pub fn press_on_clock(&self, button: Button, wired_left: Color) -> bool {
        if !self.has_clock_model() {
            return false;
        }
        let side = |color: Color| match color == wired_left {
            true => ClockSide::Left,
            false => ClockSide::Right,
        };
        match button {
            Button::Lever(color) => self.press_clock_lever(side(color)),
            Button::Draw(color) => self.press_clock_button(match side(color) {
                ClockSide::Left => Dgt3000Button::Minus,
                ClockSide::Right => Dgt3000Button::Plus,
            }),
            Button::Adjust(color) => self.press_clock_button(match side(color) {
                ClockSide::Left => Dgt3000Button::Back,
                ClockSide::Right => Dgt3000Button::Ok,
            }),
            Button::Menu => self.press_clock_button(Dgt3000Button::Run),
        }
        true
    }

    /// The DGT 3000's cable out of the board, or back in.
    pub fn plug_clock(&self, plugged: bool) {
        if let Some((model, bus)) = &self.dgt_line {
            let now = bus.micros() / 1_000;
            return model.borrow_mut().plug_clock(now, plugged);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            dgt.plug_clock(plugged);
        }
    }

    /// What the DGT 3000's display shows, when there is one.
    pub fn clock_display(&self) -> Option<String> {
        if let Some((model, bus)) = &self.dgt_line {
            return model.borrow().clock_display(bus.micros() / 1_000);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.clock_display();
        }
        None
    }

    /// Looks at the DGT 3000's model, or changes it (faults), with the
    /// board model's instant.
    pub fn with_clock_model<T>(
        &self,
        f: impl FnOnce(&mut crate::models::dgt3000::Dgt3000Model, Millis) -> T,
    ) -> Option<T> {
        if let Some((model, bus)) = &self.dgt_line {
            let now = bus.micros() / 1_000;
            return model.borrow_mut().clock_mut().map(|c| f(c, now));
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.with_model(|model, now| model.clock_mut().map(|c| f(c, now)));
        }
        None
    }

    /// The DGT board's model, when this world has one.
    #[cfg(target_os = "linux")]
    pub fn dgt(&self) -> Option<&DgtOnPty> {
        self.dgt.as_deref()
    }

    /// The piece on `sq` of the board the hands play on.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        if let Some((model, _)) = &self.dgt_line {
            return model.borrow().piece_at(sq);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.with_model(|model, _| model.piece_at(sq));
        }
        self.bus.borrow().board().piece_at(sq)
    }

    /// Wires the board's interrupt line (§ 8.2 of the protocol) to the
    /// loop's queue: when the line falls, the loop hears
    /// [`Command::BoardInterrupt`], as from the GPIO thread on a Pi
    /// (`board.interrupt_pin`). A world is wired once; later calls are
    /// ignored.
    pub fn wire_interrupt(&self, tx: mpsc::UnboundedSender<Command>) {
        let _ = self.interrupt.set(tx);
    }

    /// Lets `hand` act on the board model, then tells the loop if that
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

    /// The rig the daemon's loop drives: the real drivers on this world's
    /// bus, each with its own handle, so they share it one transaction at
    /// a time.
    pub fn rig(&self, policy: LinkPolicy, clock: RigClock) -> ModelRig {
        // The board's crystal runs on the rig's clock: the hands stamp its
        // changes on that clock too, so its TIME maps one to one.
        let crystal = clock.clone();
        self.bus
            .borrow_mut()
            .board_mut()
            .set_clock(ModelClock(Rc::new(move || {
                crystal.now().as_millis() as Millis
            })));
        #[cfg(target_os = "linux")]
        let board = match (&self.dgt_line, &self.dgt) {
            (Some((model, bus)), _) => line_board(model, bus, &clock, self.dgt_clock),
            (None, Some(dgt)) => {
                let line = Tty::new(Some(dgt.path().to_path_buf()), dgt::wire::BAUD);
                let clock = clock.clone();
                let driver =
                    DgtBoard::new(line, Rc::new(move || clock.now().as_millis() as Millis));
                ModelBoard::Dgt(match self.dgt_clock {
                    true => driver.with_clock(),
                    false => driver,
                })
            }
            (None, None) => {
                ModelBoard::Protocol(ProtocolBoard::new(self.bus.clone(), DEFAULT_ADDRESS))
            }
        };
        #[cfg(not(target_os = "linux"))]
        let board = match &self.dgt_line {
            Some((model, bus)) => line_board(model, bus, &clock, self.dgt_clock),
            None => ModelBoard::Protocol(ProtocolBoard::new(self.bus.clone(), DEFAULT_ADDRESS)),
        };
        ModelRig {
            link: BoardLink::new(board, policy),
            oled: Oled::new(self.bus.clone()),
            buzzer: Rc::clone(&self.buzzer),
            notifier: Box::new(NoNotifier),
            clock,
        }
    }

    /// A hand lifts the piece on `sq` (or knocks it off the board).
    pub fn lift(&self, at: Millis, sq: Square) {
        if let Some((model, _)) = &self.dgt_line {
            return model.borrow_mut().lift(at, sq);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.lift(sq);
        }
        self.on_board(|board| board.lift(at, sq));
    }

    /// A hand puts `piece` on `sq`; without one, a pawn of `side`, since
    /// this board does not tell pieces apart (a DGT board's model puts down
    /// the piece the hand lifted last: it does tell them apart).
    pub fn place(&self, at: Millis, sq: Square, piece: Option<Piece>) {
        if let (Some((model, _)), Some(piece)) = (&self.dgt_line, piece) {
            return model.borrow_mut().place(at, sq, piece);
        }
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.place(sq, piece);
        }
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
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            return dgt.unplug();
        }
        self.on_board(ProtocolBoardModel::unplug);
    }

    /// The board's cable goes back in: it powers up with its BOOT frame
    /// waiting.
    pub fn plug(&self) {
        #[cfg(target_os = "linux")]
        if let Some(dgt) = &self.dgt {
            if let Err(err) = dgt.plug() {
                tracing::warn!("the DGT model's pseudo-terminal: {err}");
            }
            return;
        }
        self.on_board(ProtocolBoardModel::plug);
    }

    /// Whether the OLED lights the pixel at (`x`, `y`).
    pub fn pixel(&self, x: usize, y: usize) -> bool {
        self.bus.borrow().oled().pixel(x, y)
    }

    /// Plays one line of a script (`sim --script`, standard input under
    /// `tocada run`) at `at` on the loop's clock: a `setup` chooses the
    /// game's rules (as a preset named `script`), `players` its players,
    /// an input is done as the
    /// hardware would ([`World::apply`]); `end`, `checkpoint` and `restart`
    /// do nothing here (time passes by itself).
    pub fn play(&self, tx: &mpsc::UnboundedSender<Command>, at: Duration, event: Event) {
        match event {
            Event::Setup(rules) => {
                let _ = tx.send(Command::Rules {
                    name: "script".to_owned(),
                    rules,
                });
            }
            Event::Players(players) => {
                let _ = tx.send(Command::Players(players));
            }
            Event::Input(input) => self.apply(tx, at, input),
            Event::End | Event::Checkpoint { .. } | Event::Restart { .. } => {}
        }
    }

    /// Does what an input says, as the hardware would: pieces on the board
    /// model, controls as presses at `at` on the loop's clock, and the
    /// rest (resign, promote, decline) straight to the loop.
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

/// The DGT driver on `model`'s in-memory line, timed by `bus`, its
/// timeouts on the rig's `clock`.
fn line_board(
    model: &Rc<RefCell<DgtBoardModel>>,
    bus: &BusClock,
    clock: &RigClock,
    with_clock: bool,
) -> ModelBoard {
    let bus = bus.clone();
    let line = ModelLine::new(Rc::clone(model), Rc::new(move || bus.micros()));
    let clock = clock.clone();
    let driver = DgtBoard::new(line, Rc::new(move || clock.now().as_millis() as Millis));
    ModelBoard::DgtLine(match with_clock {
        true => driver.with_clock(),
        false => driver,
    })
}

/// A protocol-v1 board model holding `board`'s pieces, sensing occupancy
/// and hand contact, with its interrupt line.
fn sim_board(board: &Board) -> ProtocolBoardModel {
    let caps = Capabilities {
        occupancy: true,
        contact: true,
        int_line: true,
        ..Capabilities::default()
    };
    ProtocolBoardModel::new(board, SIM_SERIAL, caps)
}

/// The board driver of the models' rig: the protocol board's on the
/// modelled bus, or the DGT board's on a pseudo-terminal.
#[derive(Debug)]
pub enum ModelBoard {
    /// Protocol v1 on the modelled I2C bus.
    Protocol(ProtocolBoard<SimBus>),
    /// A DGT board read through a real tty.
    #[cfg(target_os = "linux")]
    Dgt(DgtBoard<Tty>),
    /// A DGT board on the benchmark's timed in-memory line.
    DgtLine(DgtBoard<ModelLine>),
}

/// Why the models' board failed a poll.
#[derive(Debug)]
pub enum ModelBoardError {
    /// The protocol board's.
    Protocol(<ProtocolBoard<SimBus> as SensorBoard>::Error),
    /// The DGT board's.
    #[cfg(target_os = "linux")]
    Dgt(dgt::Error<crate::hardware::serial::TtyError>),
    /// The DGT board's on the in-memory line.
    DgtLine(dgt::Error<()>),
}

impl SensorBoard for ModelBoard {
    type Error = ModelBoardError;

    fn poll_stamped(&mut self, out: &mut Vec<BoardEvent>) -> Result<(), Self::Error> {
        match self {
            ModelBoard::Protocol(b) => b.poll_stamped(out).map_err(ModelBoardError::Protocol),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.poll_stamped(out).map_err(ModelBoardError::Dgt),
            ModelBoard::DgtLine(b) => b.poll_stamped(out).map_err(ModelBoardError::DgtLine),
        }
    }

    fn board_time(&mut self) -> Result<Option<u32>, Self::Error> {
        match self {
            ModelBoard::Protocol(b) => b.board_time().map_err(ModelBoardError::Protocol),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.board_time().map_err(ModelBoardError::Dgt),
            ModelBoard::DgtLine(b) => b.board_time().map_err(ModelBoardError::DgtLine),
        }
    }

    fn occupancy(&mut self) -> Result<shakmaty::Bitboard, Self::Error> {
        match self {
            ModelBoard::Protocol(b) => b.occupancy().map_err(ModelBoardError::Protocol),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.occupancy().map_err(ModelBoardError::Dgt),
            ModelBoard::DgtLine(b) => b.occupancy().map_err(ModelBoardError::DgtLine),
        }
    }

    fn pieces(&self) -> Option<shakmaty::Board> {
        match self {
            ModelBoard::Protocol(_) => None,
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => SensorBoard::pieces(b),
            ModelBoard::DgtLine(b) => SensorBoard::pieces(b),
        }
    }

    fn expect_start(&mut self, start: &shakmaty::Board) {
        match self {
            ModelBoard::Protocol(_) => {}
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => SensorBoard::expect_start(b, start),
            ModelBoard::DgtLine(b) => SensorBoard::expect_start(b, start),
        }
    }

    fn news_pending(&self) -> bool {
        match self {
            ModelBoard::Protocol(b) => b.news_pending(),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.news_pending(),
            ModelBoard::DgtLine(b) => b.news_pending(),
        }
    }

    fn press_came(&mut self) -> Result<(), Self::Error> {
        match self {
            ModelBoard::Protocol(b) => b.press_came().map_err(ModelBoardError::Protocol),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.press_came().map_err(ModelBoardError::Dgt),
            ModelBoard::DgtLine(b) => b.press_came().map_err(ModelBoardError::DgtLine),
        }
    }

    fn has_clock(&self) -> bool {
        match self {
            ModelBoard::Protocol(_) => false,
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.has_clock(),
            ModelBoard::DgtLine(b) => b.has_clock(),
        }
    }

    fn clock_events(&mut self, out: &mut Vec<ClockEvent>) {
        match self {
            ModelBoard::Protocol(_) => {}
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.clock_events(out),
            ModelBoard::DgtLine(b) => b.clock_events(out),
        }
    }

    fn show_on_clock(&mut self, shown: ClockShown) {
        match self {
            ModelBoard::Protocol(_) => {}
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.show_on_clock(shown),
            ModelBoard::DgtLine(b) => b.show_on_clock(shown),
        }
    }
}

impl BoardSerial for ModelBoard {
    fn serial(&self) -> Option<u64> {
        match self {
            ModelBoard::Protocol(b) => b.serial(),
            #[cfg(target_os = "linux")]
            ModelBoard::Dgt(b) => b.serial(),
            ModelBoard::DgtLine(b) => b.serial(),
        }
    }
}

/// The daemon's drivers on a [`World`]'s models.
pub struct ModelRig {
    link: BoardLink<ModelBoard>,
    oled: Oled<SimBus>,
    buzzer: Rc<Cell<bool>>,
    notifier: Box<dyn Notifier>,
    clock: RigClock,
}

impl ModelRig {
    /// Tells `notifier` when the hardware answers and that the loop lives
    /// (systemd under `tocada run`).
    pub fn with_notifier(mut self, notifier: Box<dyn Notifier>) -> ModelRig {
        self.notifier = notifier;
        self
    }
}

impl Rig for ModelRig {
    type Board = ModelBoard;
    type Display = SimBus;

    fn link(&mut self) -> &mut BoardLink<Self::Board> {
        &mut self.link
    }

    fn link_ref(&self) -> &BoardLink<Self::Board> {
        &self.link
    }

    fn oled(&mut self) -> &mut Oled<SimBus> {
        &mut self.oled
    }

    fn oled_ref(&self) -> &Oled<SimBus> {
        &self.oled
    }

    fn set_buzzer(&mut self, on: bool) {
        self.buzzer.set(on);
    }

    fn notifier(&mut self) -> &mut dyn Notifier {
        self.notifier.as_mut()
    }

    fn now(&self) -> Duration {
        self.clock.now()
    }

    fn instant_at(&self, at: Duration) -> tokio::time::Instant {
        match &self.clock {
            RigClock::Tokio(start) => *start + at,
            RigClock::Bus(_) => tokio::time::Instant::now() + at.saturating_sub(self.now()),
        }
    }
}

/// Where a paced script (`board.stdin = "script"`) goes on from when the
/// daemon restored an unfinished game: the script's lines already in the
/// stored game are not played again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptResume {
    /// The stored game's inputs, in order, pauses and resumes aside: the
    /// script's own lines up to where the game was cut.
    pub stored: Vec<Input>,
    /// The lever that resumes the restored game before the script goes
    /// on: the player's whose clock does not run, so that it completes
    /// nothing (a move made and not pressed waits for the script's press).
    pub lever: Color,
}

/// How long the hands wait after resuming a restored game before the
/// script goes on: a press at once would be a second lever pressed with the
/// same hand (6.2.3).
const RESUME_GAP: Duration = Duration::from_secs(1);

/// Plays replay-format lines from standard input on `world` (`tocada run`
/// with `board.kind = "sim"`), read under [`transcript::Policy::LIVE`]. A
/// bad line is reported on standard error and skipped.
///
/// Unless `paced`, each line is played as it arrives and its `t` is
/// ignored: the arrival time counts, as with real hands. `paced`, each is
/// played no sooner than its `t` after the first line's arrival, so a
/// recorded script piped in at once plays in real time, as it was made.
///
/// With `resume` (a paced script and a restored game), the script's lines
/// that the stored game already holds are skipped (setups, pauses and
/// resumes aside, its inputs must be the stored ones, in order), the game
/// is resumed with `resume.lever`, and the script goes on from its first
/// line past the stored game. A script that is not the stored game's is
/// not played at all: it would move pieces that are not where it thinks.
pub async fn feed_stdin(
    world: World,
    tx: mpsc::UnboundedSender<Command>,
    clock: RigClock,
    paced: bool,
    mut resume: Option<ScriptResume>,
) {
    let mut input = tokio::io::BufReader::new(tokio::io::stdin());
    let mut reader = transcript::Reader::new(transcript::Policy::LIVE);
    let mut buf = Vec::new();
    // The first line's arrival and its `t`: the script's clock, when paced.
    let mut origin: Option<(Duration, u64)> = None;
    // How many of `resume.stored` the script has matched so far.
    let mut matched = 0;
    let mut number = 0;
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
        number += 1;
        match reader.push(&buf) {
            transcript::Read::Line(line) => {
                if let Some(skip) = &resume {
                    match &line.event {
                        Event::Setup(_)
                        | Event::Players(_)
                        | Event::End
                        | Event::Checkpoint { .. }
                        | Event::Restart { .. } => {
                            continue;
                        }
                        Event::Input(Input::Pause | Input::Resume) => continue,
                        Event::Input(input) if skip.stored.get(matched) == Some(input) => {
                            matched += 1;
                            continue;
                        }
                        Event::Input(_) if matched < skip.stored.len() => {
                            tracing::error!(
                                line = number,
                                "the script on standard input is not the restored game's \
                                 (its input {} is not the one stored): not played",
                                matched + 1
                            );
                            return;
                        }
                        Event::Input(_) => {
                            tracing::info!(
                                skipped = matched,
                                "the script goes on from the restored game: resumed"
                            );
                            world.apply(&tx, clock.now(), Input::Press(skip.lever));
                            resume = None;
                            tokio::time::sleep(RESUME_GAP).await;
                        }
                    }
                }
                if paced {
                    let (arrived, t0) = *origin.get_or_insert((clock.now(), line.t));
                    let due = arrived + Duration::from_millis(line.t.saturating_sub(t0));
                    let now = clock.now();
                    if due > now {
                        tokio::time::sleep(due - now).await;
                    }
                }
                world.play(&tx, clock.now(), line.event);
            }
            transcript::Read::Blank => {}
            transcript::Read::Skipped(fault) => eprintln!("tocada: standard input {fault}"),
            transcript::Read::Stop(fault) => {
                eprintln!("tocada: standard input {fault}");
                return;
            }
        }
    }
}
