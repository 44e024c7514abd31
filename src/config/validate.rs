//! From the file's text to a checked [`Config`]: TOML syntax, then the
//! shape (known keys, right types) through serde, then every value's meaning.
//!
//! Each step stops at the first fault and names its key, so the arbiter
//! reading the daemon's log knows which line to fix.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use shakmaty::Color;

use super::file;
use super::raw::{
    Address, Integer, RawBoard, RawClock, RawConfig, RawFace, RawI2c, RawPins, RawPreset, RawRules,
    RawState,
};
use super::{
    BoardClock, BoardConfig, BoardKind, BoardModel, ClockConfig, Config, ConfigError, FaceConfig,
    I2cConfig, LeverSide, Levers, PinsConfig, Preset, RulesConfig, StateConfig, StdinPace,
    default_presets,
};
use crate::face::Language;
use crate::words;
use crate::{Enforcement, GameMode, IncrementMode, Laws, TimeControl};

/// BCM GPIOs on the Pi's 40-pin header.
const GPIO: RangeInclusive<i64> = 0..=27;

/// 7-bit I2C addresses that are not reserved (0x00-0x07 and 0x78-0x7F are).
const I2C_ADDRESSES: RangeInclusive<i64> = 0x08..=0x77;

/// An SSD1306 answers at 0x3C, or at 0x3D with its SA0 pin high.
const OLED_ADDRESSES: [u8; 2] = [0x3C, 0x3D];

/// The Pi's `/dev/i2c-1` is on GPIO2 (SDA) and GPIO3 (SCL).
const I2C1: (&str, [(u8, &str); 2]) = ("/dev/i2c-1", [(2, "SDA"), (3, "SCL")]);

/// The menu shows a preset's name on one OLED line in an ISO 8859-1 font.
const MAX_PRESET_NAME: usize = 20;

const ENFORCEMENTS: [Enforcement; 3] =
    [Enforcement::Strict, Enforcement::Claim, Enforcement::Record];
const LAWS: [Laws; 3] = [
    Laws::Fide2023,
    Laws::Fide2023Unsupervised,
    Laws::Regence1858,
];
const INCREMENTS: [IncrementMode; 5] = [
    IncrementMode::Fischer,
    IncrementMode::Bronstein,
    IncrementMode::Delay,
    IncrementMode::Hourglass,
    IncrementMode::Upcount,
];
const MODES: [GameMode; 3] = [GameMode::Standard, GameMode::Rapid, GameMode::Blitz];

/// Parses and checks `text`; `state_directory` is `[state] directory`'s
/// default, passed in so tests need not touch the environment.
pub(super) fn parse(
    text: &str,
    origin: &str,
    state_directory: &Path,
) -> Result<Config, ConfigError> {
    let raw: RawConfig = file::deserialize(text, origin)?;
    Checker { origin }.config(raw, state_directory)
}

/// Checks the values of one file, making errors that start with its name.
struct Checker<'a> {
    origin: &'a str,
}

impl Checker<'_> {
    fn fail<T>(&self, key: &str, why: impl AsRef<str>) -> Result<T, ConfigError> {
        Err(ConfigError::at_key(self.origin, key, None, why.as_ref()))
    }

    fn config(&self, raw: RawConfig, state_directory: &Path) -> Result<Config, ConfigError> {
        let white = self.clock_white(raw.clock.as_ref())?;
        let rules = self.rules(raw.rules.unwrap_or_default())?;
        let i2c = self.i2c(raw.i2c.unwrap_or_default())?;
        let board = self.board(raw.board.unwrap_or_default(), &i2c)?;
        let pins = self.pins(raw.pins.unwrap_or_default(), &board, &i2c)?;
        let state = self.state(raw.state.unwrap_or_default(), state_directory)?;
        let face = self.face(raw.face.unwrap_or_default())?;
        let presets = match raw.preset {
            Some(raw) => self.presets(raw)?,
            None => default_presets(),
        };
        let clock = self.clock_preset(white, raw.clock.unwrap_or_default(), &presets)?;
        let publish = raw
            .publish
            .map(|publish| super::publish::check(publish, self.origin))
            .transpose()?;
        Ok(Config {
            clock,
            rules,
            board,
            i2c,
            pins,
            state,
            face,
            presets,
            publish,
            start: shakmaty::Chess::default(),
        })
    }

    fn clock_white(&self, clock: Option<&RawClock>) -> Result<LeverSide, ConfigError> {
        match clock.and_then(|clock| clock.white.as_deref()) {
            None => Ok(ClockConfig::default().white),
            Some(value) => self.keyword(
                "clock.white",
                value,
                "lever side",
                LeverSide::from_keyword,
                LeverSide::ALL.map(LeverSide::as_str),
            ),
        }
    }

    /// `clock.preset` must name one of the presets, once they are known.
    fn clock_preset(
        &self,
        white: LeverSide,
        clock: RawClock,
        presets: &[Preset],
    ) -> Result<ClockConfig, ConfigError> {
        // Unnamed, the power-on preset is the default one where the file
        // keeps it, else the file's first: a file with presets of its own
        // need not also name one (it used to be refused, the default
        // "rapid" not among them).
        let preset = clock.preset.unwrap_or_else(|| {
            let default = ClockConfig::default().preset;
            match presets.iter().any(|p| p.name == default) {
                true => default,
                false => presets[0].name.clone(),
            }
        });
        if !presets.iter().any(|p| p.name == preset) {
            let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
            return self.fail(
                "clock.preset",
                format!(
                    "no preset named \"{preset}\": expected one of {}",
                    names.join(", ")
                ),
            );
        }
        let levers = match clock.levers.as_deref() {
            None => ClockConfig::default().levers,
            Some(value) => self.keyword(
                "clock.levers",
                value,
                "lever source",
                Levers::from_keyword,
                Levers::ALL.map(Levers::as_str),
            )?,
        };
        Ok(ClockConfig {
            white,
            preset,
            levers,
        })
    }

    fn rules(&self, rules: RawRules) -> Result<RulesConfig, ConfigError> {
        let default = RulesConfig::default();
        Ok(RulesConfig {
            enforcement: match rules.enforcement.as_deref() {
                None => default.enforcement,
                Some(value) => self.keyword(
                    "rules.enforcement",
                    value,
                    "enforcement",
                    |s| s.parse().ok(),
                    ENFORCEMENTS.map(Enforcement::as_str),
                )?,
            },
            laws: match rules.laws.as_deref() {
                None => default.laws,
                Some(value) => self.keyword(
                    "rules.laws",
                    value,
                    "laws",
                    |s| s.parse().ok(),
                    LAWS.map(Laws::as_str),
                )?,
            },
            // A gap over a second would flag ordinary quick presses (6.2.3).
            min_press_gap_ms: self.millis(
                "rules.min_press_gap_ms",
                rules.min_press_gap_ms,
                default.min_press_gap_ms,
                0..=1_000,
            )?,
            // Longer, and a knock long after the press is still charged to
            // the presser rather than to the player whose clock runs (7.4.1).
            knock_window_ms: self.millis(
                "rules.knock_window_ms",
                rules.knock_window_ms,
                default.knock_window_ms,
                0..=10_000,
            )?,
        })
    }

    fn i2c(&self, i2c: RawI2c) -> Result<I2cConfig, ConfigError> {
        let default = I2cConfig::default();
        let bus = match i2c.bus {
            None => default.bus,
            Some(bus) => self.absolute_path("i2c.bus", &bus, "a device node such as /dev/i2c-1")?,
        };
        let oled_address = match i2c.oled_address {
            None => default.oled_address,
            Some(address) => {
                let address = self.address("i2c.oled_address", address)?;
                if !OLED_ADDRESSES.contains(&address) {
                    return self.fail(
                        "i2c.oled_address",
                        format!(
                            "an SSD1306 answers at 0x3c or 0x3d (its SA0 pin), not {address:#04x}"
                        ),
                    );
                }
                address
            }
        };
        Ok(I2cConfig {
            bus,
            oled_address,
            oled: i2c.oled.unwrap_or(default.oled),
        })
    }

    fn board(&self, board: RawBoard, i2c: &I2cConfig) -> Result<BoardConfig, ConfigError> {
        let default = BoardConfig::default();
        let kind = match board.kind.as_deref() {
            None => default.kind,
            Some(value) => self.keyword(
                "board.kind",
                value,
                "board kind",
                BoardKind::from_keyword,
                BoardKind::ALL.map(BoardKind::as_str),
            )?,
        };
        let address = match board.address {
            None => default.address,
            Some(address) => self.address("board.address", address)?,
        };
        if address == i2c.oled_address {
            return self.fail(
                "board.address",
                format!("{address:#04x} is the OLED's address (i2c.oled_address)"),
            );
        }
        let expanders = match board.expanders {
            None => default.expanders,
            Some(raw) => self.expanders(raw, &default.expanders)?,
        };
        let interrupt_pin = board
            .interrupt_pin
            .map(|pin| self.pin("board.interrupt_pin", pin))
            .transpose()?;
        // Read on an edge that never comes, the reed board would be seen
        // only by the slow safety-net poll.
        if interrupt_pin.is_some() && kind == BoardKind::Dgt {
            return self.fail(
                "board.interrupt_pin",
                "a DGT board has no interrupt line (it sends on its USB serial line): \
                 leave the key out",
            );
        }
        if interrupt_pin.is_some() && kind == BoardKind::None {
            return self.fail(
                "board.interrupt_pin",
                "a plain clock (kind = \"none\") has no board to interrupt: leave the key out",
            );
        }
        if interrupt_pin.is_some() && kind == BoardKind::Mcp23017 {
            return self.fail(
                "board.interrupt_pin",
                "the MCP23017 board is polled (its driver leaves the expanders' \
                 interrupts off): leave the key out",
            );
        }
        // The protocol asks for a poll every 5 ms without an interrupt line
        // (§ 9.3); past 100 ms a move is shown and timed late.
        let poll_ms = self.millis("board.poll_ms", board.poll_ms, default.poll_ms, 1..=100)?;
        let stdin = match board.stdin.as_deref() {
            None => default.stdin,
            Some(value) => self.keyword(
                "board.stdin",
                value,
                "pace",
                StdinPace::from_keyword,
                StdinPace::ALL.map(StdinPace::as_str),
            )?,
        };
        let model = match board.model.as_deref() {
            None => default.model,
            Some(_) if kind != BoardKind::Sim => {
                return self.fail(
                    "board.model",
                    "only the simulated board (kind = \"sim\") has a model: leave the key out",
                );
            }
            Some(value) => self.keyword(
                "board.model",
                value,
                "board model",
                BoardModel::from_keyword,
                BoardModel::ALL.map(BoardModel::as_str),
            )?,
        };
        let serial = match board.serial {
            None => None,
            Some(_) if !(kind == BoardKind::Dgt || model == BoardModel::Dgt) => {
                return self.fail(
                    "board.serial",
                    "only a DGT board (kind = \"dgt\") is on a serial line: leave the key out",
                );
            }
            Some(path) if path.trim().is_empty() || !path.starts_with('/') => {
                return self.fail(
                    "board.serial",
                    format!(
                        "{path:?} is not an absolute path to a serial device such as \
                         \"/dev/ttyUSB0\" (leave the key out to find the board on USB)"
                    ),
                );
            }
            Some(path) => Some(std::path::PathBuf::from(path)),
        };
        let clock = match board.clock.as_deref() {
            None => default.clock,
            Some(_) if !(kind == BoardKind::Dgt || model == BoardModel::Dgt) => {
                return self.fail(
                    "board.clock",
                    "only a DGT board (kind = \"dgt\") has a clock plugged into it: leave the \
                     key out",
                );
            }
            Some(value) => self.keyword(
                "board.clock",
                value,
                "clock",
                BoardClock::from_keyword,
                BoardClock::KEYWORDS.map(BoardClock::as_str),
            )?,
        };
        Ok(BoardConfig {
            kind,
            address,
            expanders,
            interrupt_pin,
            poll_ms,
            stdin,
            serial,
            model,
            clock,
        })
    }

    /// The MCP23017 driver reads four expanders at fixed addresses, so the
    /// list can only say what is strapped: it must be exactly those.
    fn expanders(&self, raw: Vec<Address>, supported: &[u8]) -> Result<Vec<u8>, ConfigError> {
        let mut expanders = Vec::with_capacity(raw.len());
        for (i, address) in raw.into_iter().enumerate() {
            expanders.push(self.address(&format!("board.expanders[{i}]"), address)?);
        }
        if expanders != supported {
            let list = |addresses: &[u8]| {
                addresses
                    .iter()
                    .map(|a| format!("{a:#04x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return self.fail(
                "board.expanders",
                format!(
                    "the MCP23017 board reads ranks 1-2, 3-4, 5-6, 7-8 from [{}] (A2-A0 strapped 0-3), \
                     not [{}]",
                    list(supported),
                    list(&expanders)
                ),
            );
        }
        Ok(expanders)
    }

    fn pins(
        &self,
        pins: RawPins,
        board: &BoardConfig,
        i2c: &I2cConfig,
    ) -> Result<PinsConfig, ConfigError> {
        let default = PinsConfig::default();
        let pin = |key: &str, value: Option<Integer>, default: u8| match value {
            None => Ok(default),
            Some(value) => self.pin(key, value),
        };
        let checked = PinsConfig {
            lever_left: pin("pins.lever_left", pins.lever_left, default.lever_left)?,
            lever_right: pin("pins.lever_right", pins.lever_right, default.lever_right)?,
            draw_left: pin("pins.draw_left", pins.draw_left, default.draw_left)?,
            draw_right: pin("pins.draw_right", pins.draw_right, default.draw_right)?,
            adjust_left: pin("pins.adjust_left", pins.adjust_left, default.adjust_left)?,
            adjust_right: pin("pins.adjust_right", pins.adjust_right, default.adjust_right)?,
            menu: pin("pins.menu", pins.menu, default.menu)?,
            buzzer: pins
                .buzzer
                .map(|value| self.pin("pins.buzzer", value))
                .transpose()?,
            // Longer than this and a quick second press is swallowed.
            debounce_ms: self.millis(
                "pins.debounce_ms",
                pins.debounce_ms,
                default.debounce_ms,
                0..=100,
            )?,
        };
        let used = [
            ("pins.lever_left", Some(checked.lever_left)),
            ("pins.lever_right", Some(checked.lever_right)),
            ("pins.draw_left", Some(checked.draw_left)),
            ("pins.draw_right", Some(checked.draw_right)),
            ("pins.adjust_left", Some(checked.adjust_left)),
            ("pins.adjust_right", Some(checked.adjust_right)),
            ("pins.menu", Some(checked.menu)),
            ("pins.buzzer", checked.buzzer),
            ("board.interrupt_pin", board.interrupt_pin),
        ];
        let mut owners: HashMap<u8, &str> = HashMap::new();
        for (key, pin) in used {
            let Some(pin) = pin else { continue };
            if let Some(owner) = owners.insert(pin, key) {
                return self.fail(key, format!("GPIO{pin} is already {owner}"));
            }
            let (bus, lines) = I2C1;
            if i2c.bus == Path::new(bus)
                && let Some((_, line)) = lines.iter().find(|(gpio, _)| *gpio == pin)
            {
                return self.fail(key, format!("GPIO{pin} is {line} of {bus} (i2c.bus)"));
            }
        }
        Ok(checked)
    }

    fn face(&self, face: RawFace) -> Result<FaceConfig, ConfigError> {
        let language = match face.language.as_deref() {
            None => FaceConfig::default().language,
            Some(value) => self.keyword(
                "face.language",
                value,
                "language",
                Language::from_keyword,
                Language::ALL.map(Language::as_str),
            )?,
        };
        Ok(FaceConfig { language })
    }

    fn state(&self, state: RawState, default: &Path) -> Result<StateConfig, ConfigError> {
        let directory = match state.directory {
            None => default.to_path_buf(),
            Some(dir) => self.absolute_path(
                "state.directory",
                &dir,
                "a directory such as /var/lib/tocada",
            )?,
        };
        Ok(StateConfig { directory })
    }

    fn presets(&self, raw: Vec<RawPreset>) -> Result<Vec<Preset>, ConfigError> {
        if raw.is_empty() {
            return self.fail("preset", "at least one [[preset]] is needed");
        }
        let mut presets: Vec<Preset> = Vec::with_capacity(raw.len());
        for (i, preset) in raw.into_iter().enumerate() {
            let preset = self.preset(i, preset)?;
            if let Some(j) = presets.iter().position(|p| p.name == preset.name) {
                return self.fail(
                    &format!("preset[{i}].name"),
                    format!("\"{}\" is already the name of preset[{j}]", preset.name),
                );
            }
            presets.push(preset);
        }
        Ok(presets)
    }

    fn preset(&self, i: usize, raw: RawPreset) -> Result<Preset, ConfigError> {
        let key = |name: &str| format!("preset[{i}].{name}");
        let Some(name) = raw.name else {
            return self.fail(&key("name"), "missing: every preset needs a name");
        };
        self.preset_name(&key("name"), &name)?;
        let increment = match raw.increment.as_deref() {
            None => IncrementMode::default(),
            Some(value) => self.keyword(
                &key("increment"),
                value,
                "increment mode",
                |s| s.parse().ok(),
                INCREMENTS.map(IncrementMode::as_str),
            )?,
        };
        // Upcount counts from zero: it needs no time.
        let time_control = match (raw.time_control, increment) {
            (Some(text), _) => text,
            (None, IncrementMode::Upcount) => TimeControl::default().to_string(),
            (None, _) => {
                return self.fail(
                    &key("time_control"),
                    "missing: every preset needs a time control",
                );
            }
        };
        let units = TimeControl::written_with_units(&time_control)
            && raw
                .black_time_control
                .as_deref()
                .is_none_or(TimeControl::written_with_units);
        let time_control = self.time_control(&key("time_control"), &time_control)?;
        let black_time_control = raw
            .black_time_control
            .map(|text| self.time_control(&key("black_time_control"), &text))
            .transpose()?;
        let draw_odds = raw
            .draw_odds
            .map(|value| {
                self.keyword(
                    &key("draw_odds"),
                    &value,
                    "side",
                    words::side_of_keyword,
                    Color::ALL.map(words::side_keyword),
                )
            })
            .transpose()?;
        if increment == IncrementMode::Hourglass {
            for (name, control) in [("time_control", Some(&time_control))]
                .into_iter()
                .chain([("black_time_control", black_time_control.as_ref())])
            {
                if let Some(control) = control
                    && (control.stages().len() > 1
                        || control.stage(0).increment_ms > 0
                        || control.overtime().is_some())
                {
                    return self.fail(
                        &key(name),
                        format!(
                            "an hourglass has one time and no increment, as \"5m\", not \"{control}\""
                        ),
                    );
                }
            }
        }
        let mode = match raw.mode.as_deref() {
            None => GameMode::default(),
            Some(value) => self.keyword(
                &key("mode"),
                value,
                "mode",
                |s| s.parse().ok(),
                MODES.map(GameMode::as_str),
            )?,
        };
        Ok(Preset {
            name,
            time_control,
            black_time_control,
            draw_odds,
            increment,
            mode,
            units,
        })
    }

    /// A name the menu can show: printable, ISO 8859-1, one line.
    fn preset_name(&self, key: &str, name: &str) -> Result<(), ConfigError> {
        if name.trim().is_empty() {
            return self.fail(key, "a preset needs a non-empty name");
        }
        if name.chars().count() > MAX_PRESET_NAME {
            return self.fail(
                key,
                format!(
                    "\"{name}\" is longer than {MAX_PRESET_NAME} characters, too long for the OLED"
                ),
            );
        }
        if let Some(c) = name
            .chars()
            .find(|&c| c.is_control() || u32::from(c) > 0xFF)
        {
            return self.fail(
                key,
                format!("{c:?} cannot be shown: the OLED's font has only printable ISO 8859-1 characters"),
            );
        }
        Ok(())
    }

    fn time_control(&self, key: &str, text: &str) -> Result<TimeControl, ConfigError> {
        text.parse()
            .or_else(|err| self.fail(key, format!("bad time control \"{text}\": {err}")))
    }

    /// One of a few keywords, parsed by `parse`; `choices` lists them all
    /// for the message.
    fn keyword<T, const N: usize>(
        &self,
        key: &str,
        value: &str,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
        choices: [&str; N],
    ) -> Result<T, ConfigError> {
        match parse(value) {
            Some(parsed) => Ok(parsed),
            None => self.fail(
                key,
                format!(
                    "unknown {what} \"{value}\": expected one of {}",
                    choices.join(", ")
                ),
            ),
        }
    }

    /// A duration in milliseconds within `bounds`, `default` when absent.
    fn millis(
        &self,
        key: &str,
        value: Option<Integer>,
        default: u64,
        bounds: RangeInclusive<i64>,
    ) -> Result<u64, ConfigError> {
        let Some(Integer(value)) = value else {
            return Ok(default);
        };
        match u64::try_from(value) {
            Ok(ms) if bounds.contains(&value) => Ok(ms),
            _ => self.fail(
                key,
                format!(
                    "{value} ms is out of range: expected {}..={} ms",
                    bounds.start(),
                    bounds.end()
                ),
            ),
        }
    }

    /// A BCM GPIO on the header.
    fn pin(&self, key: &str, Integer(value): Integer) -> Result<u8, ConfigError> {
        match u8::try_from(value) {
            Ok(pin) if GPIO.contains(&value) => Ok(pin),
            _ => self.fail(
                key,
                format!(
                    "GPIO{value} is not on the header: expected a BCM number {}..={}",
                    GPIO.start(),
                    GPIO.end()
                ),
            ),
        }
    }

    /// A usable 7-bit I2C address.
    fn address(&self, key: &str, Address(value): Address) -> Result<u8, ConfigError> {
        match u8::try_from(value) {
            Ok(address) if I2C_ADDRESSES.contains(&value) => Ok(address),
            _ => {
                let shown = match u8::try_from(value) {
                    Ok(byte) => format!("{byte:#04x}"),
                    Err(_) => value.to_string(),
                };
                self.fail(
                    key,
                    format!(
                        "{shown} is not a usable 7-bit I2C address: expected {:#04x}..={:#04x}",
                        I2C_ADDRESSES.start(),
                        I2C_ADDRESSES.end()
                    ),
                )
            }
        }
    }

    /// An absolute path, so the daemon does not depend on its working
    /// directory.
    fn absolute_path(&self, key: &str, text: &str, example: &str) -> Result<PathBuf, ConfigError> {
        let path = PathBuf::from(text);
        if !path.is_absolute() {
            return self.fail(
                key,
                format!("\"{text}\" is not an absolute path: expected {example}"),
            );
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keywords the referee's own parser lists in its error message.
    fn referee_keywords<T: std::str::FromStr>() -> Vec<String>
    where
        T::Err: std::fmt::Display,
    {
        let message = match "?".parse::<T>() {
            Err(err) => err.to_string(),
            Ok(_) => panic!("\"?\" is no keyword"),
        };
        message
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_listed_keywords_are_the_referees() {
        // The messages list the choices from these arrays, the parsing is the
        // referee's: a keyword added there must be added here.
        assert_eq!(
            referee_keywords::<Enforcement>(),
            ENFORCEMENTS.map(Enforcement::as_str)
        );
        assert_eq!(
            referee_keywords::<IncrementMode>(),
            INCREMENTS.map(IncrementMode::as_str)
        );
        assert_eq!(referee_keywords::<GameMode>(), MODES.map(GameMode::as_str));
    }

    #[test]
    fn presets_of_its_own_need_no_clock_preset() {
        let config = |text: &str| parse(text, "t.toml", Path::new("/x"));
        let own = "[[preset]]\nname = \"g60\"\ntime_control = \"60m\"\n\
                   [[preset]]\nname = \"g30\"\ntime_control = \"30m\"\n";
        assert_eq!(config(own).unwrap().clock.preset, "g60");
        let with_rapid = "[[preset]]\nname = \"g60\"\ntime_control = \"60m\"\n\
                          [[preset]]\nname = \"rapid\"\ntime_control = \"15m+10s\"\n";
        assert_eq!(config(with_rapid).unwrap().clock.preset, "rapid");
        let named = format!("[clock]\npreset = \"rapid\"\n{own}");
        let err = config(&named).unwrap_err();
        assert_eq!(err.key(), Some("clock.preset"));
    }

    #[test]
    fn units_silence_the_seconds_warning_and_bare_minutes_raise_it() {
        let warnings = |tc: &str| {
            parse(
                &format!("[[preset]]\nname = \"g\"\ntime_control = \"{tc}\"\n"),
                "t.toml",
                Path::new("/x"),
            )
            .unwrap()
            .warnings()
            .len()
        };
        assert_eq!(warnings("90+30"), 1);
        assert_eq!(warnings("90s+30s"), 0);
        assert_eq!(warnings("90m+30s"), 0);
        assert_eq!(warnings("5400+30"), 0);
    }

    #[test]
    fn an_hourglass_has_one_time_and_upcount_needs_none() {
        let preset = |text: &str| {
            parse(
                &format!("[[preset]]\nname = \"g\"\n{text}"),
                "t.toml",
                Path::new("/x"),
            )
        };
        let ok = preset("time_control = \"3m\"\nincrement = \"hourglass\"\n").unwrap();
        assert_eq!(ok.presets[0].increment, IncrementMode::Hourglass);
        let err = preset("time_control = \"3m+2s\"\nincrement = \"hourglass\"\n").unwrap_err();
        assert_eq!(err.key(), Some("preset[0].time_control"));
        assert!(
            err.to_string().contains("one time and no increment"),
            "{err}"
        );
        let upcount = preset("increment = \"upcount\"\n").unwrap();
        assert_eq!(upcount.presets[0].increment, IncrementMode::Upcount);
        assert!(preset("increment = \"fischer\"\n").is_err());
    }

    #[test]
    fn the_face_speaks_the_configured_language() {
        let config = parse("", "t.toml", Path::new("/x")).unwrap();
        assert_eq!(config.face.language, Language::English);
        for language in Language::ALL {
            let text = format!("[face]\nlanguage = \"{}\"", language.as_str());
            let config = parse(&text, "t.toml", Path::new("/x")).unwrap();
            assert_eq!(config.face.language, language);
        }
        let err = parse("[face]\nlanguage = \"spanish\"", "t.toml", Path::new("/x")).unwrap_err();
        assert_eq!(err.key(), Some("face.language"));
        assert!(err.to_string().contains("en, es, fr, de"), "{err}");
        let err = parse("[face]\nlang = \"es\"", "t.toml", Path::new("/x")).unwrap_err();
        assert!(err.to_string().contains("lang"), "{err}");
    }

    #[test]
    fn the_state_directory_default_is_passed_in() {
        let config = parse("", "t.toml", Path::new("/run/elsewhere")).unwrap();
        assert_eq!(config.state.directory, Path::new("/run/elsewhere"));
        let config = parse(
            "[state]\ndirectory = \"/srv/tocada\"",
            "t.toml",
            Path::new("/x"),
        )
        .unwrap();
        assert_eq!(config.state.directory, Path::new("/srv/tocada"));
    }

    #[test]
    fn shape_errors_carry_the_line() {
        let err = parse("[pins]\n\nmenu = \"five\"\n", "t.toml", Path::new("/x")).unwrap_err();
        assert_eq!((err.key(), err.line()), (Some("pins.menu"), Some(3)));
    }

    #[test]
    fn the_simulated_boards_stdin_is_live_unless_a_script_pace_is_asked() {
        let board = |text: &str| parse(text, "t.toml", Path::new("/x")).map(|c| c.board.stdin);
        assert_eq!(board("").unwrap(), StdinPace::Live);
        assert_eq!(
            board("[board]\nstdin = \"script\"").unwrap(),
            StdinPace::Script
        );
        let err = board("[board]\nstdin = \"fast\"").unwrap_err();
        assert_eq!(err.key(), Some("board.stdin"));
        assert!(
            err.to_string().contains("expected one of live, script"),
            "{err}"
        );
    }

    #[test]
    fn every_gpio_and_address_bound_is_inclusive() {
        let ok = |text: &str| parse(text, "t.toml", Path::new("/x")).is_ok();
        assert!(ok("[pins]\nmenu = 0\nlever_left = 27\nlever_right = 26"));
        assert!(!ok("[pins]\nmenu = -1"));
        assert!(ok("[board]\naddress = 0x08"));
        assert!(ok("[board]\naddress = 0x77"));
        assert!(!ok("[board]\naddress = 0x07"));
        assert!(!ok("[board]\naddress = 0x78"));
        assert!(ok("[board]\npoll_ms = 100"));
        assert!(!ok("[board]\npoll_ms = 101"));
    }
}
