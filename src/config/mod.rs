//! The daemon's configuration: `/etc/tocada/tocada.toml`, read once at
//! start-up and checked whole before anything touches the hardware.
//!
//! Every key is optional and takes the default of `packaging/tocada.toml`
//! (an empty file is a valid configuration); an unknown key or a bad value is
//! an error that names the key, so a typo never silently falls back to a
//! default on a club's clock. `tocada check-config FILE` runs the same checks
//! and exits with [`EX_CONFIG`] on a bad file, which systemd's unit does not
//! restart into.
//!
//! ```
//! use tocada::config::{Config, LeverSide};
//!
//! let config = Config::parse("[clock]\nwhite = \"right\"\npreset = \"blitz\"\n", "example.toml").unwrap();
//! assert_eq!(config.clock.white, LeverSide::Right);
//! assert_eq!(config.preset("blitz").unwrap().time_control.to_string(), "180+2");
//!
//! let err = Config::parse("[board]\nkind = \"usb\"\n", "example.toml").unwrap_err();
//! assert_eq!(err.key(), Some("board.kind"));
//! ```

mod error;
pub(crate) mod file;
mod publish;
mod raw;
mod validate;
mod warning;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use shakmaty::{Chess, Color};

use crate::face::Language;
use crate::hardware::buttons::ButtonPins;
use crate::hardware::mcp23017_board;
use crate::protocol;
use crate::words;
use crate::{Enforcement, GameMode, IncrementMode, Laws, Rules, TimeControl};

pub use error::ConfigError;
pub use publish::{DEFAULT_PAIRING_FILE, PublishConfig};
pub use warning::ConfigWarning;

/// Where the Debian package installs the configuration, and where the daemon
/// looks when no `--config` is given.
pub const DEFAULT_PATH: &str = "/etc/tocada/tocada.toml";

/// The exit code for a bad or unreadable configuration (78), defined with
/// the others in [`crate::exit`].
pub use crate::exit::EX_CONFIG;

/// Larger files are refused unread: a real configuration is a few KiB, and a
/// wrong path (a device, a log) must not be read into memory whole.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The state directory when systemd gives none (`StateDirectory=tocada`).
pub const STATE_DIRECTORY: &str = "/var/lib/tocada";

/// The whole configuration, every value checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `[clock]`: the clock's state at power-on.
    pub clock: ClockConfig,
    /// `[rules]`: how the referee enforces the Laws.
    pub rules: RulesConfig,
    /// `[board]`: which sensor board, and where.
    pub board: BoardConfig,
    /// `[i2c]`: the bus shared by the board and the OLED.
    pub i2c: I2cConfig,
    /// `[pins]`: the front panel's GPIOs.
    pub pins: PinsConfig,
    /// `[state]`: where the game records are kept.
    pub state: StateConfig,
    /// `[face]`: the players' language.
    pub face: FaceConfig,
    /// `[[preset]]`: the time controls offered in the menu, in file order.
    pub presets: Vec<Preset>,
    /// `[publish]`: where `tocada-publish` sends the games; `None` (no
    /// section, the default) publishes nothing.
    pub publish: Option<PublishConfig>,
    /// The position every game starts from: the standard one, or the
    /// command line's `--fen`. Not a key of the file.
    pub start: Chess,
}

/// `[clock]`: what the clock shows when it is switched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockConfig {
    /// Which lever is White's at power-on; the arbiter can swap per game.
    pub white: LeverSide,
    /// The name of the preset selected at power-on; always one of
    /// [`Config::presets`].
    pub preset: String,
    /// Where the levers and the five buttons are read (`clock.levers`).
    pub levers: Levers,
}

/// Where the clock's levers and buttons are read (`clock.levers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Levers {
    /// Microswitches on the Pi's GPIO chip, at `[pins]`.
    #[default]
    Gpio,
    /// The `press`, `draw` and `adjust` lines of the replay format on
    /// standard input, each when it arrives (a laptop beside a DGT board;
    /// tests). The clock's decisions go to standard output as effect lines.
    Stdin,
    /// None on the Pi: the levers and buttons are a DGT 3000's, plugged
    /// into the DGT board (`board.clock`); without one nothing can start
    /// the clock. The daemon still reads the board.
    None,
}

impl Levers {
    /// Every source, in the order the file's comments list them.
    pub const ALL: [Levers; 3] = [Levers::Gpio, Levers::Stdin, Levers::None];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            Levers::Gpio => "gpio",
            Levers::Stdin => "stdin",
            Levers::None => "none",
        }
    }

    /// The source a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<Levers> {
        Levers::ALL.into_iter().find(|l| l.as_str() == keyword)
    }
}

/// A side of the clock as the arbiter faces it, which is where the levers
/// and buttons are wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeverSide {
    /// The lever on GPIO `pins.lever_left`.
    #[default]
    Left,
    /// The lever on GPIO `pins.lever_right`.
    Right,
}

/// `[rules]`: the referee's settings shared by every preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesConfig {
    /// What the referee does when a rule is broken.
    pub enforcement: Enforcement,
    /// The laws games are played under (`fide-2023` unless set).
    pub laws: Laws,
    /// A press sooner than this after the last release is with the other
    /// hand (6.2.3).
    pub min_press_gap_ms: u64,
    /// A displacement this soon after a press is the presser's (7.4.1).
    pub knock_window_ms: u64,
}

/// Which sensor board the daemon drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoardKind {
    /// A microcontroller board speaking tocada's I2C protocol, at
    /// `board.address`.
    #[default]
    Protocol,
    /// The DIY reed board: four MCP23017 expanders at `board.expanders`.
    Mcp23017,
    /// A DGT e-board on a USB serial line, at `board.serial` or found by
    /// its USB identity.
    Dgt,
    /// The device models instead of hardware, for desktops and tests.
    Sim,
    /// No sensor board: a plain clock, the levers, the face and the time
    /// controls alone (each press completes a turn; the flag loses).
    None,
}

/// Which board the device models model, with `board.kind = "sim"`
/// (`board.model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoardModel {
    /// A protocol-v1 board on the modelled I2C bus, sensing contact.
    #[default]
    Protocol,
    /// A DGT e-board on a pseudo-terminal, read by the real DGT driver
    /// through a real tty.
    Dgt,
}

impl BoardModel {
    /// Every model.
    pub const ALL: [BoardModel; 2] = [BoardModel::Protocol, BoardModel::Dgt];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardModel::Protocol => "protocol",
            BoardModel::Dgt => "dgt",
        }
    }

    /// The model a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<BoardModel> {
        BoardModel::ALL.into_iter().find(|m| m.as_str() == keyword)
    }
}

/// The clock plugged into a DGT board (`board.clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoardClock {
    /// Left out: the board is asked for its clock's reports, and a DGT
    /// 3000 that answers is used; none, and nothing changes.
    #[default]
    Auto,
    /// A DGT 3000: its levers and buttons are tocada's, its display shows
    /// tocada's clocks and messages (`hardware/dgt.md`, "DGT 3000").
    Dgt3000,
    /// None: the board's clock reports are not asked for.
    None,
}

impl BoardClock {
    /// The keywords the file takes (`Auto` is the key left out).
    pub const KEYWORDS: [BoardClock; 2] = [BoardClock::Dgt3000, BoardClock::None];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardClock::Auto => "auto",
            BoardClock::Dgt3000 => "dgt3000",
            BoardClock::None => "none",
        }
    }

    /// The clock a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<BoardClock> {
        BoardClock::KEYWORDS
            .into_iter()
            .find(|c| c.as_str() == keyword)
    }

    /// Whether the board's clock reports are asked for.
    pub fn used(self) -> bool {
        self != BoardClock::None
    }
}

/// How `tocada run` plays the replay lines on its standard input with the
/// simulated board (`board.stdin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StdinPace {
    /// Each line when it arrives, its `t` ignored: a person or a program
    /// playing as hands would.
    #[default]
    Live,
    /// Each line at its `t` after the first line's, so that a recorded
    /// script piped in at once plays in real time.
    Script,
}

impl StdinPace {
    /// Every pace.
    pub const ALL: [StdinPace; 2] = [StdinPace::Live, StdinPace::Script];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            StdinPace::Live => "live",
            StdinPace::Script => "script",
        }
    }

    /// The pace a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<StdinPace> {
        StdinPace::ALL
            .into_iter()
            .find(|pace| pace.as_str() == keyword)
    }
}

/// `[board]`: the sensor board and how it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardConfig {
    /// Which board.
    pub kind: BoardKind,
    /// The protocol board's I2C address.
    pub address: u8,
    /// The MCP23017 board's expanders, ranks 1-2, 3-4, 5-6 and 7-8.
    pub expanders: Vec<u8>,
    /// The BCM GPIO of the board's interrupt line (BOARD_INT); `None` to
    /// poll only.
    pub interrupt_pin: Option<u8>,
    /// How often the board is polled (without an interrupt line) in
    /// milliseconds.
    pub poll_ms: u64,
    /// With the simulated board, how standard input's lines are played.
    pub stdin: StdinPace,
    /// The DGT board's serial device (`/dev/ttyUSB0`); `None`: the first
    /// USB serial device that names itself DGT. With the simulated DGT
    /// board, where its pseudo-terminal is linked.
    pub serial: Option<PathBuf>,
    /// With the simulated board, which board is modelled.
    pub model: BoardModel,
    /// The clock plugged into a DGT board (`board.clock`): a DGT 3000, or
    /// none; left out, found from the board's reports. With the simulated
    /// DGT board, `dgt3000` plugs a modelled DGT 3000 into it.
    pub clock: BoardClock,
}

/// `[i2c]`: the bus the board and the OLED share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct I2cConfig {
    /// The I2C adapter's device node.
    pub bus: PathBuf,
    /// The SSD1306's address: 0x3C, or 0x3D with its SA0 pin high.
    pub oled_address: u8,
    /// Whether an OLED is fitted (`i2c.oled`); without one, and with a DGT
    /// board, the daemon opens no I2C bus at all.
    pub oled: bool,
}

/// `[pins]`: BCM GPIO numbers of the front panel (`hardware/wiring.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinsConfig {
    /// The left lever's microswitch.
    pub lever_left: u8,
    /// The right lever's microswitch.
    pub lever_right: u8,
    /// The left player's draw button.
    pub draw_left: u8,
    /// The right player's draw button.
    pub draw_right: u8,
    /// The left player's adjust button.
    pub adjust_left: u8,
    /// The right player's adjust button.
    pub adjust_right: u8,
    /// The arbiter's pause/menu button.
    pub menu: u8,
    /// The buzzer driver's gate; `None` when no buzzer is fitted.
    pub buzzer: Option<u8>,
    /// Edges closer together than this on one pin are contact bounce.
    pub debounce_ms: u64,
}

/// `[face]`: what the face says, and in which language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FaceConfig {
    /// `face.language`: `"en"` (the default), `"es"`, `"fr"` or `"de"`.
    /// Every word the face and the simulator show is in it; the records
    /// (replay lines, PGN) stay in English.
    pub language: Language,
}

/// `[state]`: the daemon's persistent files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateConfig {
    /// The directory holding `games.sqlite`.
    pub directory: PathBuf,
}

/// A time control offered in the menu, with the kind of game it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    /// The name shown in the menu, unique among the presets.
    pub name: String,
    /// The time control, White's (and Black's unless `black_time_control`).
    pub time_control: TimeControl,
    /// Black's own time control, for armageddon-like games.
    pub black_time_control: Option<TimeControl>,
    /// The side for which a draw counts as a win (armageddon: Black).
    pub draw_odds: Option<Color>,
    /// What the `+N` of the time control means.
    pub increment: IncrementMode,
    /// Standard, rapid or blitz: the penalties of appendices A and B.
    pub mode: GameMode,
    /// Whether the file wrote every time control of the preset with units
    /// (`90m+30s`): then it says what it means, and no warning asks.
    pub units: bool,
}

impl Config {
    /// Reads and checks the file at `path`; the error names the path, and the
    /// key at fault or the OS error.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let (origin, text) = file::read(path)?;
        let config = Config::parse(&text, &origin)?;
        config.check_paths(&origin)?;
        Ok(config)
    }

    /// As [`Config::load`], with `state_directory` as `[state] directory`'s
    /// default instead of `$STATE_DIRECTORY`: for a program beside the
    /// daemon (`tocada-publish`), whose own state directory is not the
    /// clock's.
    pub fn load_with_state(path: &Path, state_directory: &Path) -> Result<Config, ConfigError> {
        let (origin, text) = file::read(path)?;
        let config = validate::parse(&text, &origin, state_directory)?;
        config.check_paths(&origin)?;
        Ok(config)
    }

    /// Checks the paths the file names against this machine, where they
    /// exist: a state directory that is a file, or an I2C bus that is a
    /// directory, would only fail later, at `run`, with a code systemd
    /// restarts on. A path that does not exist yet is not an error here
    /// (the installer makes the directory, the kernel the device node).
    pub fn check_paths(&self, origin: &str) -> Result<(), ConfigError> {
        let directory = &self.state.directory;
        if let Ok(meta) = std::fs::metadata(directory)
            && !meta.is_dir()
        {
            return Err(ConfigError::at_key(
                origin,
                "state.directory",
                None,
                &format!("{} is not a directory", directory.display()),
            ));
        }
        if let Some(serial) = &self.board.serial
            && self.board.kind == BoardKind::Dgt
            && std::fs::metadata(serial).is_ok_and(|meta| meta.is_dir())
        {
            return Err(ConfigError::at_key(
                origin,
                "board.serial",
                None,
                &format!("{} is a directory, not a serial device", serial.display()),
            ));
        }
        if let Some(credentials) = self.publish.as_ref().and_then(|p| p.credentials.as_ref())
            && std::fs::metadata(credentials).is_ok_and(|meta| meta.is_dir())
        {
            return Err(ConfigError::at_key(
                origin,
                "publish.credentials",
                None,
                &format!(
                    "{} is a directory, not a file of user:password",
                    credentials.display()
                ),
            ));
        }
        let bus = &self.i2c.bus;
        if self.uses_i2c()
            && let Ok(meta) = std::fs::metadata(bus)
            && meta.is_dir()
        {
            return Err(ConfigError::at_key(
                origin,
                "i2c.bus",
                None,
                &format!("{} is a directory, not an I2C device node", bus.display()),
            ));
        }
        Ok(())
    }

    /// Checks a configuration's text; `origin` (a file name) starts every
    /// error message.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        validate::parse(text, origin, &state_directory_default())
    }

    /// Whether `run` opens the I2C bus: for the board unless it is a DGT
    /// board (on its serial line) or the models, and for the OLED.
    pub fn uses_i2c(&self) -> bool {
        match self.board.kind {
            BoardKind::Sim => false,
            BoardKind::Dgt | BoardKind::None => self.i2c.oled,
            BoardKind::Protocol | BoardKind::Mcp23017 => true,
        }
    }

    /// The preset called `name`.
    pub fn preset(&self, name: &str) -> Option<&Preset> {
        self.presets.iter().find(|preset| preset.name == name)
    }

    /// The preset selected at power-on (`clock.preset`).
    #[cfg(test)]
    pub fn power_on_preset(&self) -> Option<&Preset> {
        self.preset(&self.clock.preset)
    }

    /// The GPIO assignment of `[pins]`, with White on the lever
    /// `clock.white` names.
    pub fn button_pins(&self) -> ButtonPins {
        let pins = &self.pins;
        ButtonPins {
            lever_left: pins.lever_left,
            lever_right: pins.lever_right,
            draw_left: pins.draw_left,
            draw_right: pins.draw_right,
            adjust_left: pins.adjust_left,
            adjust_right: pins.adjust_right,
            menu: pins.menu,
            left: match self.clock.white {
                LeverSide::Left => Color::White,
                LeverSide::Right => Color::Black,
            },
            debounce: Duration::from_millis(pins.debounce_ms),
        }
    }

    /// What in this configuration is valid but probably not meant (a
    /// preset of 15 seconds written for 15 minutes), for
    /// `tocada check-config` and the daemon's start-up log.
    pub fn warnings(&self) -> Vec<ConfigWarning> {
        self.presets
            .iter()
            .filter(|preset| !preset.units && preset.increment.has_flag())
            .flat_map(|preset| {
                let white = warning::seconds_for_minutes(
                    &preset.name,
                    "time_control",
                    &preset.time_control,
                    preset.increment,
                );
                let black = preset.black_time_control.as_ref().and_then(|tc| {
                    warning::seconds_for_minutes(
                        &preset.name,
                        "black_time_control",
                        tc,
                        preset.increment,
                    )
                });
                white.into_iter().chain(black)
            })
            .collect()
    }

    /// One line saying what the configuration sets up, for
    /// `tocada check-config` and the daemon's start-up log.
    pub fn summary(&self) -> String {
        let board = match self.board.kind {
            BoardKind::Protocol => format!("protocol board at {:#04x}", self.board.address),
            BoardKind::Mcp23017 => format!(
                "MCP23017 board at {}",
                self.board
                    .expanders
                    .iter()
                    .map(|address| format!("{address:#04x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            BoardKind::Dgt => match &self.board.serial {
                Some(path) => format!("DGT board on {}", path.display()),
                None => "DGT board found on USB".to_owned(),
            },
            BoardKind::Sim => match self.board.model {
                BoardModel::Protocol => "simulated board".to_owned(),
                BoardModel::Dgt => "simulated DGT board on a pseudo-terminal".to_owned(),
            },
            BoardKind::None => "no sensor board: a plain clock".to_owned(),
        };
        let polling = match (self.board.kind, self.board.interrupt_pin) {
            (BoardKind::None, _) => String::new(),
            (_, Some(pin)) => format!(" (interrupt on GPIO{pin})"),
            (_, None) => format!(" (polled every {} ms)", self.board.poll_ms),
        };
        let presets: Vec<&str> = self.presets.iter().map(|p| p.name.as_str()).collect();
        let publish = match &self.publish {
            Some(publish) => format!(
                "; published to {} as board {} of hall {}",
                publish.broker,
                publish.address.board(),
                publish.address.hall()
            ),
            None => String::new(),
        };
        // A DGT board is not on the bus: without an OLED none is opened.
        let panel = match (self.i2c.oled, self.board.kind) {
            (true, _) => format!(
                " on {}, OLED at {:#04x}",
                self.i2c.bus.display(),
                self.i2c.oled_address
            ),
            (false, BoardKind::Dgt | BoardKind::None) => ", no OLED, no I2C bus".to_owned(),
            (false, _) => format!(" on {}, no OLED", self.i2c.bus.display()),
        };
        let levers = match (self.clock.levers, self.board.kind, self.board.clock) {
            (_, BoardKind::Sim, _) | (Levers::Gpio, _, _) => "",
            (Levers::Stdin, _, _) => " (levers and buttons: press lines on standard input)",
            (Levers::None, BoardKind::Dgt, BoardClock::Dgt3000) => {
                " (levers and buttons: the DGT 3000's on the board)"
            }
            (Levers::None, BoardKind::Dgt, BoardClock::Auto) => {
                " (levers and buttons: a DGT 3000's on the board, if one answers; without \
                 one nothing can start the clock)"
            }
            (Levers::None, _, _) => " (no levers: nothing can start the clock)",
        };
        let levers = match (self.board.kind, self.board.clock, self.clock.levers) {
            // Both: the GPIO's or standard input's, and the clock's.
            (BoardKind::Dgt, BoardClock::Dgt3000, Levers::Gpio | Levers::Stdin) => {
                format!("{levers} and a DGT 3000 on the board")
            }
            _ => levers.to_owned(),
        };
        let summary = format!(
            "{board}{polling}{panel}; White on the {white} lever{levers}; \
             {enforcement} enforcement{laws}; presets {presets} (power-on {preset}); state in {state}{publish}",
            white = self.clock.white,
            enforcement = self.rules.enforcement,
            // Said only when not the FIDE Laws, as every summary before
            // the profiles existed read.
            laws = match self.rules.laws {
                Laws::Fide2023 => String::new(),
                laws => format!(" under the {laws} laws"),
            },
            presets = presets.join(", "),
            preset = self.clock.preset,
            state = self.state.directory.display(),
        );
        // Said only when not English, as every summary before it read.
        match self.face.language {
            Language::English => summary,
            language => format!("{summary}; the face in {}", language.as_str()),
        }
    }
}

/// The position a `--fen` names, for `tocada run` and `tocada sim`: a FEN
/// whose position is legal to start a game from (standard castling); the
/// error says what is wrong, for the command line's message.
pub fn parse_start(fen: &str) -> Result<Chess, String> {
    let setup: shakmaty::fen::Fen = fen
        .trim()
        .parse()
        .map_err(|err| format!("{fen:?} is not a FEN: {err}"))?;
    setup
        .into_position(shakmaty::CastlingMode::Standard)
        .map_err(|err| format!("{fen:?} is no position to start a game from: {err}"))
}

impl Default for Config {
    /// Every default: the same configuration as an empty file, and as the
    /// shipped `packaging/tocada.toml`.
    fn default() -> Config {
        Config {
            clock: ClockConfig::default(),
            rules: RulesConfig::default(),
            board: BoardConfig::default(),
            i2c: I2cConfig::default(),
            pins: PinsConfig::default(),
            state: StateConfig::default(),
            face: FaceConfig::default(),
            presets: default_presets(),
            publish: None,
            start: Chess::default(),
        }
    }
}

impl Preset {
    /// The preset in words, as `tocada check-config` lists it: "rapid: 15
    /// min + 10 s per move from move 1 (rapid)".
    pub fn describe(&self) -> String {
        let white = words::time_control_text(&self.time_control, self.increment);
        let clocks = match &self.black_time_control {
            Some(black) => format!(
                "White {white}; Black {}",
                words::time_control_text(black, self.increment)
            ),
            None => white,
        };
        let odds = match self.draw_odds {
            Some(side) => format!("; a draw counts as a win for {}", words::side_name(side)),
            None => String::new(),
        };
        format!("{}: {clocks}{odds} ({})", self.name, self.mode)
    }

    /// The referee's rules for a new game under this preset, from the
    /// standard starting position.
    pub fn rules(&self, rules: &RulesConfig) -> Rules {
        Rules {
            time_control: self.time_control.clone(),
            black_time_control: self.black_time_control.clone(),
            draw_odds: self.draw_odds,
            increment_mode: self.increment,
            mode: self.mode,
            enforcement: rules.enforcement,
            laws: rules.laws,
            min_press_gap_ms: rules.min_press_gap_ms,
            knock_window_ms: rules.knock_window_ms,
            start: Chess::default(),
            plain_clock: false,
        }
    }
}

impl LeverSide {
    /// Every side, in the order the file's comments list them.
    pub const ALL: [LeverSide; 2] = [LeverSide::Left, LeverSide::Right];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            LeverSide::Left => "left",
            LeverSide::Right => "right",
        }
    }

    /// The side a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<LeverSide> {
        LeverSide::ALL
            .into_iter()
            .find(|side| side.as_str() == keyword)
    }
}

impl fmt::Display for LeverSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl BoardKind {
    /// Every kind, in the order the file's comments list them.
    pub const ALL: [BoardKind; 5] = [
        BoardKind::Protocol,
        BoardKind::Mcp23017,
        BoardKind::Dgt,
        BoardKind::Sim,
        BoardKind::None,
    ];

    /// The keyword used in the file.
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardKind::Protocol => "protocol",
            BoardKind::Mcp23017 => "mcp23017",
            BoardKind::Dgt => "dgt",
            BoardKind::Sim => "sim",
            BoardKind::None => "none",
        }
    }

    /// The kind a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<BoardKind> {
        BoardKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == keyword)
    }
}

impl fmt::Display for BoardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Default for ClockConfig {
    /// White on the left lever, the rapid preset.
    fn default() -> ClockConfig {
        ClockConfig {
            white: LeverSide::Left,
            preset: "rapid".to_owned(),
            levers: Levers::Gpio,
        }
    }
}

impl Default for RulesConfig {
    /// The referee's own defaults.
    fn default() -> RulesConfig {
        let rules = Rules::default();
        RulesConfig {
            enforcement: rules.enforcement,
            laws: rules.laws,
            min_press_gap_ms: rules.min_press_gap_ms,
            knock_window_ms: rules.knock_window_ms,
        }
    }
}

impl Default for BoardConfig {
    /// A protocol board at its default address, polled every 5 ms (the
    /// protocol's § 9.3); the expanders the MCP23017 driver reads.
    fn default() -> BoardConfig {
        BoardConfig {
            kind: BoardKind::Protocol,
            address: protocol::DEFAULT_ADDRESS,
            expanders: mcp23017_expanders(),
            interrupt_pin: None,
            poll_ms: 5,
            stdin: StdinPace::Live,
            serial: None,
            model: BoardModel::Protocol,
            clock: BoardClock::Auto,
        }
    }
}

impl Default for I2cConfig {
    /// The header's bus on every supported Pi, the OLED at 0x3C.
    fn default() -> I2cConfig {
        I2cConfig {
            bus: PathBuf::from("/dev/i2c-1"),
            oled_address: 0x3C,
            oled: true,
        }
    }
}

impl Default for PinsConfig {
    /// The pins of `hardware/wiring.md`, no buzzer.
    fn default() -> PinsConfig {
        let pins = ButtonPins::default();
        PinsConfig {
            lever_left: pins.lever_left,
            lever_right: pins.lever_right,
            draw_left: pins.draw_left,
            draw_right: pins.draw_right,
            adjust_left: pins.adjust_left,
            adjust_right: pins.adjust_right,
            menu: pins.menu,
            buzzer: None,
            // Whole milliseconds: ButtonPins' default is 10 ms.
            debounce_ms: u64::try_from(pins.debounce.as_millis()).unwrap_or(10),
        }
    }
}

impl Default for StateConfig {
    /// `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else
    /// `/var/lib/tocada`.
    fn default() -> StateConfig {
        StateConfig {
            directory: state_directory_default(),
        }
    }
}

/// The presets of an empty file: classical, rapid, blitz and armageddon.
pub fn default_presets() -> Vec<Preset> {
    let preset = |name: &str, time_control: &str, mode| Preset {
        name: name.to_owned(),
        time_control: time_control_of(time_control),
        black_time_control: None,
        draw_odds: None,
        increment: IncrementMode::Fischer,
        mode,
        units: false,
    };
    vec![
        preset("classical", "40/5400+30:1800+30", GameMode::Standard),
        preset("rapid", "900+10", GameMode::Rapid),
        preset("blitz", "180+2", GameMode::Blitz),
        Preset {
            black_time_control: Some(time_control_of("240+2")),
            draw_odds: Some(Color::Black),
            ..preset("armageddon", "300+2", GameMode::Blitz)
        },
    ]
}

/// A time control written in this file; the unit tests parse every one.
fn time_control_of(text: &str) -> TimeControl {
    text.parse()
        .expect("the default presets' time controls are valid")
}

/// The MCP23017 driver's expanders: [`mcp23017_board::BASE_ADDRESS`] and the
/// three after it.
fn mcp23017_expanders() -> Vec<u8> {
    (0..mcp23017_board::EXPANDERS as u8)
        .map(|chip| mcp23017_board::BASE_ADDRESS + chip)
        .collect()
}

/// `$STATE_DIRECTORY`, else `/var/lib/tocada`. systemd joins several
/// directories with `:`; tocada asks for one, so the first is taken.
fn state_directory_default() -> PathBuf {
    std::env::var_os("STATE_DIRECTORY")
        .and_then(|dirs| {
            let dirs = dirs.to_string_lossy().into_owned();
            dirs.split(':')
                .next()
                .map(PathBuf::from)
                .filter(|first| first.is_absolute())
        })
        .unwrap_or_else(|| PathBuf::from(STATE_DIRECTORY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dgt_board_alone_opens_no_i2c_bus_and_levers_are_named() {
        let alone = "[clock]\nlevers = \"stdin\"\n[board]\nkind = \"dgt\"\n[i2c]\noled = false\n";
        let config = Config::parse(alone, "t.toml").unwrap();
        assert_eq!(config.clock.levers, Levers::Stdin);
        assert!(!config.i2c.oled);
        assert!(!config.uses_i2c());
        // The OLED still wants the bus; an I2C board always does.
        let with_oled = Config::parse("[board]\nkind = \"dgt\"\n", "t.toml").unwrap();
        assert!(with_oled.uses_i2c());
        let protocol = Config::parse("[i2c]\noled = false\n", "t.toml").unwrap();
        assert!(protocol.uses_i2c());
        assert_eq!(Config::default().clock.levers, Levers::Gpio);
        let err = Config::parse("[clock]\nlevers = \"usb\"\n", "t.toml").unwrap_err();
        assert_eq!(err.key(), Some("clock.levers"));
        assert!(err.to_string().contains("gpio, stdin, none"), "{err}");
        for levers in Levers::ALL {
            assert_eq!(Levers::from_keyword(levers.as_str()), Some(levers));
        }
    }

    #[test]
    fn keywords_round_trip() {
        for side in LeverSide::ALL {
            assert_eq!(LeverSide::from_keyword(side.as_str()), Some(side));
        }
        for kind in BoardKind::ALL {
            assert_eq!(BoardKind::from_keyword(&kind.to_string()), Some(kind));
        }
        assert_eq!(
            BoardKind::from_keyword("Protocol"),
            None,
            "keywords are lower case"
        );
    }

    #[test]
    fn the_default_is_an_empty_file() {
        assert_eq!(Config::parse("", "empty.toml").unwrap(), Config::default());
        assert_eq!(Config::default().power_on_preset().unwrap().name, "rapid");
    }

    #[test]
    fn the_mcp23017_expanders_are_the_drivers() {
        assert_eq!(mcp23017_expanders(), [0x20, 0x21, 0x22, 0x23]);
    }
}
