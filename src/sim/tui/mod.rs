//! `tocada sim`: the whole daemon on the device models, in the terminal.
//!
//! The daemon's own loop ([`crate::daemon::Shell`]) runs as a task on one
//! current-thread runtime, in real time, exactly as `tocada sim --script`
//! runs it in simulated time; this module is the person at the table. It
//! draws the OLED from the SSD1306 model's framebuffer, the board from the
//! game's position (published by the shell's watch) against the board
//! model's pieces, and turns keys into presses of the front controls and
//! typed commands into hands on the board model.
//!
//! - [`keys`]: which key is which control;
//! - [`command`]: the command line;
//! - [`hands`]: a typed move as a player makes it;
//! - [`oled`], [`board`], [`log`], [`render`]: the screen.

pub mod board;
pub mod command;
pub mod hands;
pub mod keys;
pub mod log;
pub mod oled;
pub mod render;

use std::io::{self, IsTerminal};
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event};
use shakmaty::{Board, Color, Piece, Position, Square};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{JoinHandle, LocalSet};
use tokio::time::{Instant, MissedTickBehavior};

use self::command::{CommandError, SimCommand};
use self::keys::{Control, KeyAction};
use self::log::{EntryKind, Log};
use self::oled::Pixels;
use self::render::{Message, SimScreen};
use super::World;
use crate::config::{Config, LeverSide};
use crate::controls::Button;
use crate::daemon::{Alarm, Command, ShownGame};
use crate::face::Language;
use crate::hardware::buttons::ButtonPress;
use crate::store::Store;
use crate::{Input, Millis};

/// The screen is redrawn this often (and after every key).
pub const FRAME_MS: u64 = 50;
/// A beep stays on the screen at least this long, to be seen.
const BEEP_SHOWN_MS: u64 = 300;
/// The log entries kept at hand for the screen.
const LOG_SHOWN: usize = 200;
/// Between two squares when the pieces are set up for a game.
const SETUP_STEP_MS: u64 = 25;

/// Runs the simulator in the terminal until the user quits. The terminal
/// is restored on the way out, and on a panic.
pub fn run(config: &Config, store: Store) -> io::Result<()> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "the simulator needs a terminal; `tocada sim --script FILE` runs without one",
        ));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut terminal = match ratatui::try_init() {
        Ok(terminal) => terminal,
        Err(err) => {
            ratatui::restore();
            return Err(err);
        }
    };
    let result = LocalSet::new().block_on(&runtime, session(config, store, &mut terminal));
    ratatui::restore();
    // Where the games went, on the terminal given back.
    result.map(|said| {
        if let Some(said) = said {
            println!("tocada sim: {said}");
        }
    })
}

/// The daemon and the screen, until the user quits or something fails.
/// Returns what became of the session's games (written as PGN on quit).
async fn session(
    config: &Config,
    store: Store,
    terminal: &mut DefaultTerminal,
) -> io::Result<Option<String>> {
    let world =
        crate::daemon::model_world(config, config.start.board()).map_err(io::Error::other)?;
    let log = Log::in_language(config.face.language);
    let (published, snapshots) = watch::channel(ShownGame::default());
    let start = Instant::now();
    let (shell, tx, rx) = crate::daemon::on_models(&world, config, start, store);
    let shell = shell
        .with_decisions(Box::new(log.clone()))
        .with_watch(published);
    let (stop, stopped) = oneshot::channel::<()>();
    let mut daemon = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
        let _ = stopped.await;
    }));
    let mut keys = spawn_keyboard()?;
    let mut app = App::new(world, tx, start, snapshots, log, config);
    let mut frames = tokio::time::interval(Duration::from_millis(FRAME_MS));
    frames.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut result = Ok(());
    let mut daemon_running = true;
    loop {
        app.sample();
        if let Err(err) = terminal.draw(|frame| app.draw(frame)) {
            result = Err(err);
            break;
        }
        if app.quit {
            break;
        }
        tokio::select! {
            key = keys.recv() => match key {
                Some(Ok(event)) => app.on_event(event),
                Some(Err(err)) => {
                    result = Err(err);
                    break;
                }
                None => break,
            },
            _ = frames.tick() => {}
            joined = &mut daemon, if daemon_running => {
                daemon_running = false;
                let why = match joined {
                    Ok(_) => "it returned".to_owned(),
                    Err(err) => err.to_string(),
                };
                result = Err(io::Error::other(format!("the daemon's loop stopped: {why}")));
                break;
            }
        }
    }
    // The daemon stores what is pending and stops.
    let _ = stop.send(());
    if daemon_running {
        let _ = daemon.await;
    }
    app.sample();
    let path = app.pgn_file.clone();
    let said = match app.write_pgn(&path) {
        Ok(0) => None,
        Ok(n) => Some(format!("{n} game(s) written as PGN to {path}")),
        Err(err) => Some(format!("the games could not be written to {path}: {err}")),
    };
    result.map(|()| said)
}

/// Reads the keyboard on a thread of its own (crossterm's read blocks) and
/// forwards what it reads, until the screen stops listening.
fn spawn_keyboard() -> io::Result<mpsc::UnboundedReceiver<io::Result<Event>>> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("keyboard".to_owned())
        .spawn(move || {
            while !tx.is_closed() {
                match event::poll(Duration::from_millis(100)) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(err) => {
                        let _ = tx.send(Err(err));
                        return;
                    }
                }
                let read = event::read();
                let failed = read.is_err();
                if tx.send(read).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok(rx)
}

/// Does what the hands planned, each step at its offset from now: board
/// contacts on the board model, the press on `lever` (as wired). Times go
/// to the models and the daemon on the shell's clock, which counts from
/// `start`.
async fn play_steps(
    world: World,
    tx: mpsc::UnboundedSender<Command>,
    start: Instant,
    steps: Vec<(Millis, Input)>,
    lever: Button,
    wired_left: Color,
) {
    let begin = Instant::now();
    for (offset, input) in steps {
        tokio::time::sleep_until(begin + Duration::from_millis(offset)).await;
        let at = start.elapsed();
        match input {
            Input::Press(_) => {
                // On a DGT 3000, its lever; else the front's.
                if !world.press_on_clock(lever, wired_left) {
                    let _ = tx.send(Command::Press(ButtonPress { button: lever, at }));
                }
            }
            other => world.apply(&tx, at, other),
        }
    }
}

/// The first line shown: how a game starts, with the arrow of Black's
/// lever as wired (`wired_left` plays on the left).
fn welcome(wired_left: Color, language: Language) -> String {
    let arrow = if wired_left == Color::Black {
        "←"
    } else {
        "→"
    };
    (language.sim().welcome)(arrow)
}

/// The person at the table: the keyboard, the command line, the hands.
struct App {
    world: World,
    tx: mpsc::UnboundedSender<Command>,
    /// The shell's clock starts here; board and press times count from it.
    start: Instant,
    snapshots: watch::Receiver<ShownGame>,
    snapshot: ShownGame,
    log: Log,
    /// The player whose lever is wired on the left (the configuration's
    /// `clock.white`): presses are sent as the wiring reports them.
    wired_left: Color,
    /// The players' language (`face.language`): the simulator's words.
    language: Language,
    line: String,
    history: Vec<String>,
    /// The history entry shown on the line, while browsing it.
    recalled: Option<usize>,
    message: Option<Message>,
    auto_press: bool,
    show_help: bool,
    /// What the hands are doing, and the task doing it.
    hand: Option<(String, JoinHandle<()>)>,
    /// Pieces lifted by hand and not yet put down: where from, which.
    held: Vec<(Square, Piece)>,
    beep_until: Option<Instant>,
    unplugged: bool,
    quit: bool,
    /// Where `setup` puts the pieces: the game's start (`--fen`'s).
    start_board: Board,
    /// The PGN of the games of this session that have left the clock.
    games: Vec<String>,
    /// Where `pgn` and quitting write the games.
    pgn_file: String,
}

impl App {
    fn new(
        world: World,
        tx: mpsc::UnboundedSender<Command>,
        start: Instant,
        snapshots: watch::Receiver<ShownGame>,
        log: Log,
        config: &Config,
    ) -> App {
        App {
            world,
            tx,
            start,
            snapshots,
            snapshot: ShownGame::default(),
            log,
            wired_left: config.button_pins().left,
            language: config.face.language,
            line: String::new(),
            history: Vec::new(),
            recalled: None,
            message: Some(Message {
                text: welcome(config.button_pins().left, config.face.language),
                error: false,
            }),
            auto_press: true,
            show_help: false,
            hand: None,
            held: Vec::new(),
            beep_until: None,
            unplugged: false,
            quit: false,
            start_board: config.start.board().clone(),
            games: Vec::new(),
            pgn_file: command::PGN_FILE.to_owned(),
        }
    }

    /// Every game of this session as PGN, the one on the clock last.
    fn all_pgn(&self) -> Vec<String> {
        self.games
            .iter()
            .chain(self.snapshot.pgn.as_ref())
            .cloned()
            .collect()
    }

    /// Writes every game of this session to `path` as PGN, replacing it;
    /// how many. Nothing is written when no game was played.
    fn write_pgn(&self, path: &str) -> io::Result<usize> {
        let games = self.all_pgn();
        if games.is_empty() {
            return Ok(0);
        }
        let mut text = String::new();
        for game in &games {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(game.trim_end());
            text.push('\n');
        }
        std::fs::write(path, text)?;
        Ok(games.len())
    }

    /// Takes in what changed since the last frame.
    fn sample(&mut self) {
        if self.snapshots.has_changed().unwrap_or(false) {
            let before = self.snapshot.pgn.take();
            self.snapshot = self.snapshots.borrow_and_update().clone();
            // A game left the clock: its PGN is kept for `pgn` and the quit.
            if self.snapshot.pgn.is_none()
                && let Some(left) = before
            {
                self.games.push(left);
            }
        }
        if self
            .hand
            .as_ref()
            .is_some_and(|(_, task)| task.is_finished())
        {
            self.hand = None;
        }
        if self.world.buzzing() {
            self.beep_until = Some(Instant::now() + Duration::from_millis(BEEP_SHOWN_MS));
        }
    }

    fn draw(&self, frame: &mut ratatui::Frame<'_>) {
        let (pixels, physical) = {
            let bus = self.world.bus().borrow();
            let oled = bus.oled();
            let pixels = Pixels::from_fn(|x, y| oled.pixel(x, y));
            drop(bus);
            let physical: [Option<Piece>; 64] =
                std::array::from_fn(|i| self.world.piece_at(Square::new(i as u32)));
            (pixels, physical)
        };
        let log = self.log.last(LOG_SHOWN);
        let dgt3000 = self.world.clock_display();
        let screen = SimScreen {
            pixels: &pixels,
            snapshot: &self.snapshot,
            physical: &physical,
            log: &log,
            buzzing: self.beep_until.is_some_and(|until| Instant::now() < until),
            hand: self.hand.as_ref().map(|(what, _)| what.as_str()),
            auto_press: self.auto_press,
            unplugged: self.unplugged,
            line: &self.line,
            message: self.message.as_ref(),
            show_help: self.show_help,
            dgt3000: dgt3000.as_deref(),
        };
        render::draw(frame, &screen);
    }

    fn on_event(&mut self, event: Event) {
        let Event::Key(key) = event else {
            // A resize is taken care of by the next frame.
            return;
        };
        let Some(action) = keys::action(key, self.line.is_empty()) else {
            return;
        };
        match action {
            KeyAction::Control(control) => self.control(control),
            KeyAction::Type(c) => {
                self.line.push(c);
                self.recalled = None;
            }
            KeyAction::Backspace => {
                self.line.pop();
            }
            KeyAction::Enter => self.enter(),
            KeyAction::Clear => {
                self.line.clear();
                self.recalled = None;
                self.show_help = false;
            }
            KeyAction::HistoryBack => self.recall(true),
            KeyAction::HistoryForward => self.recall(false),
            KeyAction::Quit => self.quit = true,
        }
    }

    fn recall(&mut self, back: bool) {
        let last = self.history.len().checked_sub(1);
        let index = match (self.recalled, back) {
            (None, true) => last,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if Some(i) != last => Some(i + 1),
            _ => None,
        };
        self.recalled = index;
        self.line = index
            .and_then(|i| self.history.get(i))
            .cloned()
            .unwrap_or_default();
    }

    fn enter(&mut self) {
        let text = std::mem::take(&mut self.line);
        self.recalled = None;
        if text.trim().is_empty() {
            return;
        }
        if self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.log
            .push(EntryKind::Typed, format!("> {}", text.trim()));
        self.message = None;
        let done = command::parse(&text).and_then(|c| self.execute(c));
        if let Err(err) = done {
            self.message = Some(Message {
                text: err.text_in(self.language),
                error: true,
            });
        }
    }

    fn note(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn refuse(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
        });
    }

    /// The shell's clock now, for the board model's events.
    fn now_ms(&self) -> Millis {
        self.start.elapsed().as_millis() as Millis
    }

    /// Presses `button` now, as the wiring reports it: on the DGT 3000
    /// when one is plugged into the board.
    fn press(&self, button: Button) {
        if self.world.press_on_clock(button, self.wired_left) {
            return;
        }
        let press = ButtonPress {
            button,
            at: self.start.elapsed(),
        };
        let _ = self.tx.send(Command::Press(press));
    }

    /// The colour the wiring gives the controls on `side` of the clock.
    fn wired(&self, side: LeverSide) -> Color {
        match side {
            LeverSide::Left => self.wired_left,
            LeverSide::Right => !self.wired_left,
        }
    }

    /// Where `player` sits now (the arbiter may have swapped the sides).
    fn side_of(&self, player: Color) -> LeverSide {
        if (player == Color::Black) == self.snapshot.view.black_left {
            LeverSide::Left
        } else {
            LeverSide::Right
        }
    }

    fn control(&mut self, control: Control) {
        match control {
            Control::Lever(side) => self.press(Button::Lever(self.wired(side))),
            Control::Draw(side) => self.press(Button::Draw(self.wired(side))),
            Control::Adjust(side) => self.press(Button::Adjust(self.wired(side))),
            Control::Menu => self.press(Button::Menu),
            Control::RunningLever => {
                let player = match (self.snapshot.ticking, self.snapshot.position.is_some()) {
                    (Some(player), _) => player,
                    (None, false) => Color::Black,
                    (None, true) => {
                        self.refuse(self.language.sim().no_clock_running);
                        return;
                    }
                };
                self.press(Button::Lever(self.wired(self.side_of(player))));
            }
        }
    }

    fn game_position(&self) -> Result<shakmaty::Chess, CommandError> {
        self.snapshot.position.clone().ok_or(CommandError::NoGame)
    }

    fn execute(&mut self, command: SimCommand) -> Result<(), CommandError> {
        let now = self.now_ms();
        match command {
            SimCommand::Move(text) => self.play(&text)?,
            SimCommand::Lift(sq) | SimCommand::Knock(sq) => {
                let knocked = matches!(command, SimCommand::Knock(_));
                let Some(piece) = self.world.piece_at(sq) else {
                    self.refuse((self.language.sim().no_piece)(&sq.to_string()));
                    return Ok(());
                };
                self.held.push((sq, piece));
                self.world.lift(now, sq);
                if knocked {
                    self.note((self.language.sim().knocked)(&sq.to_string()));
                }
            }
            SimCommand::Place(sq) => {
                if self.world.piece_at(sq).is_some() {
                    self.refuse((self.language.sim().taken)(&sq.to_string()));
                    return Ok(());
                }
                let piece = match self.held.iter().position(|(from, _)| *from == sq) {
                    Some(i) => Some(self.held.remove(i).1),
                    None => self.held.pop().map(|(_, piece)| piece),
                };
                let held = piece.is_some();
                let piece = piece.or_else(|| {
                    let turn = self
                        .snapshot
                        .position
                        .as_ref()
                        .map_or(Color::White, |p| p.turn());
                    Some(turn.pawn())
                });
                self.world.place(now, sq, piece);
                if !held && let Some(piece) = piece {
                    let words = self.language.sim();
                    self.note((words.from_beside)(
                        self.language.side(piece.color),
                        words.roles[piece.role as usize - 1],
                        &sq.to_string(),
                    ));
                }
            }
            SimCommand::Touch(sq) => {
                if self.world.piece_at(sq).is_none() {
                    self.refuse((self.language.sim().nothing_to_touch)(&sq.to_string()));
                    return Ok(());
                }
                self.world.touch(now, sq);
            }
            SimCommand::Untouch(sq) => {
                if self.world.piece_at(sq).is_none() {
                    self.refuse((self.language.sim().nothing_to_let_go)(&sq.to_string()));
                    return Ok(());
                }
                self.world.untouch(now, sq);
            }
            SimCommand::Lever(side) => self.control(Control::Lever(side)),
            SimCommand::Menu => self.control(Control::Menu),
            SimCommand::Draw(player) => {
                self.press(Button::Draw(self.wired(self.side_of(player))));
            }
            SimCommand::Adjust(player) => {
                self.press(Button::Adjust(self.wired(self.side_of(player))));
            }
            SimCommand::Resign(player) => self.tell(Input::Resign(player))?,
            SimCommand::Decline(player) => self.tell(Input::Decline(player))?,
            SimCommand::Claim(player) => self.tell(Input::Claim(player))?,
            SimCommand::Promote(role) => self.tell(Input::Promote(role))?,
            SimCommand::Auto(on) => {
                self.auto_press = on;
                let words = self.language.sim();
                self.note(if on { words.auto_on } else { words.auto_off });
            }
            SimCommand::Unplug if self.unplugged => {
                self.refuse(self.language.sim().already_out);
            }
            SimCommand::Plug if !self.unplugged => {
                self.refuse(self.language.sim().already_in);
            }
            SimCommand::Unplug => {
                self.world.unplug();
                self.unplugged = true;
                self.note(self.language.sim().unplugged);
            }
            SimCommand::Plug => {
                self.world.plug();
                self.unplugged = false;
            }
            SimCommand::SetUp => self.set_up()?,
            SimCommand::Pgn(file) => {
                if let Some(file) = file {
                    self.pgn_file = file;
                }
                let path = self.pgn_file.clone();
                match self.write_pgn(&path) {
                    Ok(0) => self.refuse(self.language.sim().no_game_pgn),
                    Ok(n) => self.note((self.language.sim().pgn_written)(n, &path)),
                    Err(err) => {
                        self.refuse((self.language.sim().cannot_write)(&path, &err.to_string()))
                    }
                }
            }
            SimCommand::Help => self.show_help = !self.show_help,
            SimCommand::Quit => self.quit = true,
        }
        Ok(())
    }

    /// Gives the daemon an input no front control gives.
    fn tell(&self, input: Input) -> Result<(), CommandError> {
        self.game_position()?;
        let _ = self.tx.send(Command::Input(input));
        Ok(())
    }

    /// Whether the hands are busy, with an error saying with what.
    fn hands_free(&self) -> Result<(), CommandError> {
        match self.hand.as_ref() {
            Some((what, task)) if !task.is_finished() => Err(CommandError::Busy(what.clone())),
            _ => Ok(()),
        }
    }

    /// Makes the move `text` on the board with the hands, then presses the
    /// mover's lever unless told not to.
    fn play(&mut self, text: &str) -> Result<(), CommandError> {
        self.hands_free()?;
        let position = self.game_position()?;
        if self.snapshot.view.result.is_some() {
            return Err(CommandError::GameOver);
        }
        // A move made on the board waits for its press: the position has
        // it, and the next one would be played on a clock still running for
        // its maker, and not be taken.
        if let Some(running) = self.snapshot.ticking
            && running != position.turn()
        {
            return Err(CommandError::NotPressed(running));
        }
        // The hands plan from the game's position: on a board that is not
        // it, the move would be something else.
        if Square::ALL
            .into_iter()
            .any(|sq| self.world.piece_at(sq) != position.board().piece_at(sq))
        {
            return Err(CommandError::BoardDiffers(position.turn()));
        }
        let m = command::resolve_move(&position, text)?;
        let lever = Button::Lever(self.wired(self.side_of(position.turn())));
        let steps = hands::plan(&position, m, self.auto_press);
        let task = tokio::task::spawn_local(play_steps(
            self.world.clone(),
            self.tx.clone(),
            self.start,
            steps,
            lever,
            self.wired_left,
        ));
        self.hand = Some(((self.language.sim().making)(text), task));
        Ok(())
    }

    /// Puts every piece where a game starts, square after square, as an
    /// arbiter would between games.
    fn set_up(&mut self) -> Result<(), CommandError> {
        self.hands_free()?;
        if self.snapshot.position.is_some() && self.snapshot.view.result.is_none() {
            return Err(CommandError::InGame);
        }
        let start = self.start_board.clone();
        let now: [Option<Piece>; 64] =
            std::array::from_fn(|i| self.world.piece_at(Square::new(i as u32)));
        let mut steps = Vec::new();
        for sq in Square::ALL {
            let (has, wants) = (now[sq as usize], start.piece_at(sq));
            if has == wants {
                continue;
            }
            if has.is_some() {
                steps.push(Input::Lift(sq));
            }
            if wants.is_some() {
                steps.push(Input::Place(sq, wants));
            }
        }
        self.held.clear();
        let world = self.world.clone();
        let tx = self.tx.clone();
        let clock = self.start;
        let task = tokio::task::spawn_local(async move {
            for input in steps {
                world.apply(&tx, clock.elapsed(), input);
                tokio::time::sleep(Duration::from_millis(SETUP_STEP_MS)).await;
            }
        });
        self.hand = Some((self.language.sim().setting_up.to_owned(), task));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use shakmaty::{Chess, Role};

    use super::*;
    use crate::daemon::Session;

    /// The shell's loop on a world, in paused time, publishing on a watch
    /// as `tocada sim` runs it; `play` gets the world, the command queue and
    /// the shell's start, and the watch.
    fn with_daemon<F: Future<Output = ()>>(
        play: impl FnOnce(
            World,
            mpsc::UnboundedSender<Command>,
            Instant,
            watch::Receiver<ShownGame>,
        ) -> F,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        LocalSet::new().block_on(&runtime, async {
            let world = World::new();
            let (tx, rx) = mpsc::unbounded_channel();
            let (published, snapshots) = watch::channel(ShownGame::default());
            let start = Instant::now();
            let config = Config::default();
            let shell = crate::daemon::model_shell(&world, Session::new(&config), &config, start)
                .with_watch(published);
            let (stop, stopped) = oneshot::channel::<()>();
            let daemon = tokio::task::spawn_local(shell.run(rx, Alarm::Tokio, async {
                let _ = stopped.await;
            }));
            play(world, tx, start, snapshots).await;
            let _ = stop.send(());
            daemon.await.unwrap();
        });
    }

    #[test]
    fn the_game_the_screen_draws_comes_from_the_shell_and_typed_moves_reach_it() {
        with_daemon(|world, tx, start, mut snapshots| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert_eq!(snapshots.borrow_and_update().position, None, "no game yet");
            // Black's lever (on the right by default) starts White's clock.
            let press = |button| {
                let _ = tx.send(Command::Press(ButtonPress {
                    button,
                    at: start.elapsed(),
                }));
            };
            press(Button::Lever(Color::Black));
            tokio::time::sleep(Duration::from_millis(50)).await;
            let started = snapshots.borrow_and_update().clone();
            assert_eq!(started.position, Some(Chess::default()));
            assert_eq!(started.ticking, Some(Color::White));
            assert_eq!(started.view.running, Some(Color::White));

            let position = Chess::default();
            let m = command::resolve_move(&position, "e2e4").unwrap();
            let steps = hands::plan(&position, m, true);
            play_steps(
                world.clone(),
                tx.clone(),
                start,
                steps,
                Button::Lever(Color::White),
                Color::White,
            )
            .await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            let moved = snapshots.borrow_and_update().clone();
            let board = moved.position.as_ref().map(|p| p.board().clone());
            assert_eq!(
                board.and_then(|b| b.piece_at(Square::E4)),
                Some(Color::White.pawn())
            );
            assert_eq!(moved.ticking, Some(Color::Black), "the hands pressed");
            assert_eq!(moved.view.white_moves, 1);
            // The board model holds the pieces the screen compares with.
            let bus = world.bus().borrow();
            assert_eq!(bus.board().piece_at(Square::E2), None);
            assert_eq!(
                bus.board().piece_at(Square::E4).map(|p| p.role),
                Some(Role::Pawn)
            );
        });
    }

    #[test]
    fn refused_commands_are_answered_in_the_players_language() {
        // What each language says to `e2e4` before a game, to `plug` with
        // the cable in, and to `lift` on an empty square.
        let cases = [
            (
                Language::English,
                ["no game yet", "already in", "no piece on e4"],
            ),
            (
                Language::Spanish,
                [
                    "aún no hay partida",
                    "ya está enchufado",
                    "no hay pieza en e4",
                ],
            ),
            (
                Language::French,
                ["pas encore de partie", "déjà branché", "pas de pièce en e4"],
            ),
            (
                Language::German,
                [
                    "noch keine Partie",
                    "steckt schon",
                    "auf e4 steht keine Figur",
                ],
            ),
        ];
        for (language, expected) in cases {
            with_daemon(move |world, tx, start, snapshots| async move {
                let mut config = Config::default();
                config.face.language = language;
                let mut app = App::new(world, tx, start, snapshots, Log::new(), &config);
                let said = |app: &App| app.message.as_ref().map(|m| m.text.clone());
                for (typed, expected) in ["e2e4", "plug", "lift e4"].into_iter().zip(expected) {
                    app.line = typed.to_owned();
                    app.enter();
                    let answer = said(&app).unwrap_or_default();
                    assert!(answer.contains(expected), "{language:?} {typed}: {answer}");
                    assert!(app.message.as_ref().is_some_and(|m| m.error), "{typed}");
                }
            });
        }
    }

    #[test]
    fn typed_commands_say_why_they_are_not_done_and_pgn_writes_the_games() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("games.pgn").display().to_string();
        with_daemon(|world, tx, start, snapshots| async move {
            let config = Config::default();
            let mut app = App::new(world, tx, start, snapshots, Log::new(), &config);
            let settle = async || tokio::time::sleep(Duration::from_millis(1_100)).await;
            let said = |app: &App| {
                app.message
                    .as_ref()
                    .map(|m| m.text.clone())
                    .unwrap_or_default()
            };
            // No game yet: nothing to write, and it says so.
            app.execute(SimCommand::Pgn(Some(file.clone()))).unwrap();
            assert!(said(&app).contains("no game yet"), "{}", said(&app));
            assert!(!std::path::Path::new(&file).exists());
            // Black's lever, on the right, starts the game.
            app.execute(SimCommand::Lever(LeverSide::Right)).unwrap();
            settle().await;
            app.sample();
            // White moves by hand and does not press: the game has the move,
            // White's clock still runs. A typed move (Black's e7e5 was
            // made, pressed and dropped without a word) waits for the
            // press, and says so.
            app.execute(SimCommand::Lift(Square::E2)).unwrap();
            app.execute(SimCommand::Place(Square::E4)).unwrap();
            settle().await;
            app.sample();
            for typed in ["e7e5", "Nf3"] {
                let refused = app.execute(SimCommand::Move(typed.to_owned()));
                assert_eq!(refused, Err(CommandError::NotPressed(Color::White)));
                assert!(refused.unwrap_err().to_string().contains("press the lever"));
            }
            app.execute(SimCommand::Lever(LeverSide::Left)).unwrap();
            settle().await;
            app.sample();
            app.execute(SimCommand::Move("e7e5".to_owned())).unwrap();
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            app.sample();
            assert_eq!(app.snapshot.ticking, Some(Color::White), "Black pressed");
            // A piece off its square: a typed move says why it waits.
            app.execute(SimCommand::Knock(Square::A2)).unwrap();
            settle().await;
            app.sample();
            assert_eq!(
                app.execute(SimCommand::Move("Nf3".to_owned())),
                Err(CommandError::BoardDiffers(Color::White))
            );
            app.execute(SimCommand::Place(Square::A2)).unwrap();
            // Plugging a plugged cable does nothing, and says why.
            app.execute(SimCommand::Plug).unwrap();
            assert!(said(&app).contains("already in"), "{}", said(&app));
            // The game so far, as PGN, where the person said.
            app.execute(SimCommand::Pgn(None)).unwrap();
            assert!(said(&app).contains("1 game(s) written"), "{}", said(&app));
            let pgn = std::fs::read_to_string(&file).unwrap();
            assert!(pgn.contains("1. e4"), "{pgn}");
            assert!(pgn.contains("e5"), "{pgn}");
            assert!(pgn.trim_end().ends_with('*'), "{pgn}");
            // Quitting writes them to the same file.
            std::fs::remove_file(&file).unwrap();
            assert_eq!(app.write_pgn(&app.pgn_file.clone()).unwrap(), 1);
            assert!(std::fs::read_to_string(&file).unwrap().contains("1. e4"));
        });
    }

    #[test]
    fn the_welcome_points_at_blacks_lever() {
        assert!(welcome(Color::White, Language::English).contains("Black's lever (→)"));
        assert!(welcome(Color::Black, Language::English).contains("Black's lever (←)"));
        assert!(welcome(Color::Black, Language::Spanish).contains("las negras (←)"));
    }
}
