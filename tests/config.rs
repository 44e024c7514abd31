//! Black-box tests of the configuration: the shipped `packaging/tocada.toml`
//! against the library's defaults, every kind of bad value against the key
//! its error names, and `tocada check-config` as the Debian package's
//! post-install and systemd's operators run it.

mod support {
    pub mod cli;
}

use std::path::{Path, PathBuf};
use std::process::Output;

use shakmaty::Color;
use support::cli::tocada;
use tocada::config::{BoardKind, Config, EX_CONFIG, LeverSide};
use tocada::{Enforcement, GameMode, IncrementMode};

/// The file the Debian package installs as /etc/tocada/tocada.toml.
fn shipped_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/tocada.toml")
}

fn shipped_text() -> String {
    std::fs::read_to_string(shipped_path()).expect("packaging/tocada.toml exists")
}

#[test]
fn the_shipped_file_is_every_default() {
    let config = Config::load(&shipped_path()).expect("the shipped file is valid");
    assert_eq!(config, Config::default());
}

#[test]
fn the_shipped_file_mentions_every_key() {
    // Keys whose default is "unset" are there commented out, with their
    // usual value, so an operator only has to uncomment them.
    let text = shipped_text();
    for key in [
        "white =",
        "preset =",
        "enforcement =",
        "min_press_gap_ms =",
        "knock_window_ms =",
        "kind =",
        "address =",
        "expanders =",
        "# interrupt_pin = 6",
        "poll_ms =",
        "bus =",
        "oled_address =",
        "lever_left =",
        "lever_right =",
        "draw_left =",
        "draw_right =",
        "adjust_left =",
        "adjust_right =",
        "menu =",
        "# buzzer = 12",
        "debounce_ms =",
        "# directory = \"/var/lib/tocada\"",
        "black_time_control =",
        "draw_odds =",
        "increment =",
        "mode =",
    ] {
        assert!(text.contains(key), "packaging/tocada.toml lacks {key:?}");
    }
    // The commented-out ones are valid as they stand once uncommented.
    let uncommented = text
        .replace("# interrupt_pin = 6", "interrupt_pin = 6")
        .replace("# buzzer = 12", "buzzer = 12")
        .replace("# directory = ", "directory = ");
    let config = Config::parse(&uncommented, "uncommented.toml").unwrap();
    assert_eq!(config.board.interrupt_pin, Some(6));
    assert_eq!(config.pins.buzzer, Some(12));
    assert_eq!(config.state.directory, Path::new("/var/lib/tocada"));
}

#[test]
fn an_empty_file_is_every_default() {
    let config = Config::parse("", "empty.toml").unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(config.clock.white, LeverSide::Left);
    assert_eq!(config.clock.preset, "rapid");
    assert_eq!(config.board.kind, BoardKind::Protocol);
    assert_eq!(config.board.address, 0x42);
    assert_eq!(config.board.expanders, [0x20, 0x21, 0x22, 0x23]);
    assert_eq!(config.board.interrupt_pin, None);
    assert_eq!(config.i2c.oled_address, 0x3C);
    assert_eq!(config.pins.buzzer, None);
    assert_eq!(config.rules.enforcement, Enforcement::Strict);
    assert_eq!(
        (config.rules.min_press_gap_ms, config.rules.knock_window_ms),
        (100, 2000)
    );
}

#[test]
fn the_default_presets_are_the_contractual_four() {
    let config = Config::default();
    let presets: Vec<String> = config
        .presets
        .iter()
        .map(|p| {
            let black = p.black_time_control.as_ref().map(ToString::to_string);
            format!(
                "{} {} {black:?} {:?} {:?}",
                p.name, p.time_control, p.draw_odds, p.mode
            )
        })
        .collect();
    assert_eq!(
        presets,
        [
            "classical 40/5400+30:1800+30 None None Standard",
            "rapid 900+10 None None Rapid",
            "blitz 180+2 None None Blitz",
            "armageddon 300+2 Some(\"240+2\") Some(Black) Blitz",
        ]
    );
    assert!(
        config
            .presets
            .iter()
            .all(|p| p.increment == IncrementMode::Fischer)
    );
}

#[test]
fn presets_in_the_file_replace_the_defaults() {
    let text = r#"
[clock]
preset = "club"

[[preset]]
name = "club"
time_control = "3600+15"
increment = "delay"
"#;
    let config = Config::parse(text, "club.toml").unwrap();
    assert_eq!(config.presets.len(), 1);
    let club = config.preset("club").unwrap();
    assert_eq!(club.time_control.to_string(), "3600+15");
    assert_eq!(
        (club.increment, club.mode),
        (IncrementMode::Delay, GameMode::Standard)
    );
    assert!(config.preset("rapid").is_none());
}

#[test]
fn values_written_differently_mean_the_same() {
    let text = r#"
[board]
kind = "mcp23017"
address = "0x43"
[i2c]
oled_address = 61
bus = "/dev/i2c-3"
[pins]
lever_left = 2
lever_right = 3
"#;
    let config = Config::parse(text, "t.toml").unwrap();
    assert_eq!(config.board.kind, BoardKind::Mcp23017);
    assert_eq!(config.board.address, 0x43);
    assert_eq!(config.i2c.oled_address, 0x3D);
    // GPIO2/3 are free for buttons when the bus is not the header's i2c-1.
    assert_eq!((config.pins.lever_left, config.pins.lever_right), (2, 3));
}

#[test]
fn the_power_on_side_decides_the_button_pins() {
    let config = Config::parse(
        "[clock]\nwhite = \"right\"\n[pins]\ndebounce_ms = 20",
        "t.toml",
    )
    .unwrap();
    let pins = config.button_pins();
    assert_eq!(pins.left, Color::Black);
    assert_eq!(pins.lever_left, 17);
    assert_eq!(pins.debounce.as_millis(), 20);
    assert_eq!(
        Config::default().button_pins(),
        tocada::hardware::buttons::ButtonPins::default()
    );
}

#[test]
fn a_preset_gives_the_referee_its_rules() {
    let config = Config::parse(
        "[rules]\nenforcement = \"claim\"\nknock_window_ms = 1500",
        "t.toml",
    )
    .unwrap();
    let rules = config.preset("blitz").unwrap().rules(&config.rules);
    assert_eq!(rules.time_control.to_string(), "180+2");
    assert_eq!(rules.mode, GameMode::Blitz);
    assert_eq!(rules.enforcement, Enforcement::Claim);
    assert_eq!((rules.min_press_gap_ms, rules.knock_window_ms), (100, 1500));
    assert_eq!(rules.laws, tocada::Laws::Fide2023);
    let config = Config::parse("[rules]\nlaws = \"regence-1858\"", "t.toml").unwrap();
    let rules = config.preset("blitz").unwrap().rules(&config.rules);
    assert_eq!(rules.laws, tocada::Laws::Regence1858);
}

/// Each bad file, the key its error must name, and a word the reason must
/// contain.
const BAD: &[(&str, &str, &str)] = &[
    ("colour = 1", "colour", "unknown key"),
    (
        "[board]\nkindd = \"protocol\"",
        "board.kindd",
        "unknown key",
    ),
    (
        "[[preset]]\nname = \"x\"\ntime_control = \"60\"\nincrement_ms = 3",
        "preset[0].increment_ms",
        "unknown key",
    ),
    ("[clock]\nwhite = \"north\"", "clock.white", "left, right"),
    (
        "[clock]\npreset = \"bullet\"",
        "clock.preset",
        "no preset named \"bullet\"",
    ),
    (
        "[rules]\nenforcement = \"lenient\"",
        "rules.enforcement",
        "strict, claim, record",
    ),
    (
        "[rules]\nlaws = \"fide-1999\"",
        "rules.laws",
        "fide-2023, fide-2023-unsupervised, regence-1858",
    ),
    (
        "[rules]\nmin_press_gap_ms = \"100\"",
        "rules.min_press_gap_ms",
        "an integer",
    ),
    (
        "[rules]\nknock_window_ms = -5",
        "rules.knock_window_ms",
        "out of range",
    ),
    (
        "[board]\nkind = \"usb\"",
        "board.kind",
        "unknown board kind \"usb\": expected one of protocol, mcp23017, dgt, sim, none",
    ),
    ("[board]\naddress = 0x80", "board.address", "0x08..=0x77"),
    ("[board]\naddress = 0x3C", "board.address", "OLED"),
    (
        "[board]\naddress = \"sixty\"",
        "board.address",
        "I2C address",
    ),
    (
        "[board]\nexpanders = [0x20, 0x21, 0x22, 0x24]",
        "board.expanders",
        "0x20, 0x21, 0x22, 0x23",
    ),
    (
        "[board]\nexpanders = [0x20, 0x200]",
        "board.expanders[1]",
        "7-bit",
    ),
    ("[board]\npoll_ms = 0", "board.poll_ms", "1..=100"),
    (
        "[board]\nkind = \"mcp23017\"\ninterrupt_pin = 6",
        "board.interrupt_pin",
        "MCP23017 board is polled",
    ),
    (
        "[board]\ninterrupt_pin = 17",
        "board.interrupt_pin",
        "pins.lever_left",
    ),
    ("[i2c]\noled_address = 0x3E", "i2c.oled_address", "SA0"),
    ("[i2c]\nbus = \"i2c-1\"", "i2c.bus", "absolute"),
    ("[pins]\nmenu = 28", "pins.menu", "0..=27"),
    (
        "[pins]\ndraw_left = 17",
        "pins.draw_left",
        "GPIO17 is already pins.lever_left",
    ),
    ("[pins]\nbuzzer = 2", "pins.buzzer", "SDA"),
    ("[pins]\nlever_left = 17.5", "pins.lever_left", "an integer"),
    (
        "[state]\ndirectory = \"games\"",
        "state.directory",
        "absolute",
    ),
    ("preset = []", "preset", "at least one"),
    (
        "[board]\nkind = \"sim\"\nmodel = \"reed\"",
        "board.model",
        "expected one of protocol, dgt",
    ),
    (
        "[board]\nkind = \"dgt\"\nmodel = \"dgt\"",
        "board.model",
        "only the simulated board",
    ),
    (
        "[board]\nkind = \"mcp23017\"\nserial = \"/dev/ttyUSB0\"",
        "board.serial",
        "only a DGT board",
    ),
    (
        "[board]\nkind = \"dgt\"\nserial = \"\"",
        "board.serial",
        "absolute path",
    ),
    (
        "[board]\nkind = \"dgt\"\ninterrupt_pin = 6",
        "board.interrupt_pin",
        "no interrupt line",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"60\"\n[[preset]]\nname = \"a\"\ntime_control = \"90\"",
        "preset[1].name",
        "preset[0]",
    ),
    (
        "[[preset]]\nname = \"\"\ntime_control = \"60\"",
        "preset[0].name",
        "non-empty",
    ),
    (
        "[[preset]]\ntime_control = \"60\"",
        "preset[0].name",
        "missing",
    ),
    (
        "[[preset]]\nname = \"a\"",
        "preset[0].time_control",
        "missing",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"90 minutes\"",
        "preset[0].time_control",
        "bad time control",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"60\"\nblack_time_control = \"?\"",
        "preset[0].black_time_control",
        "bad time control",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"60\"\ndraw_odds = \"both\"",
        "preset[0].draw_odds",
        "white, black",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"60\"\nincrement = \"simple\"",
        "preset[0].increment",
        "fischer, bronstein, delay",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = \"60\"\nmode = \"bullet\"",
        "preset[0].mode",
        "standard, rapid, blitz",
    ),
    (
        "[[preset]]\nname = \"a\"\ntime_control = 60",
        "preset[0].time_control",
        "a string",
    ),
    (
        "[[preset]]\nname = \"a\\u0007\"\ntime_control = \"60\"",
        "preset[0].name",
        "cannot be shown",
    ),
    ("board = 5", "board", "invalid type"),
];

#[test]
fn every_bad_value_is_refused_with_its_key() {
    for (text, key, why) in BAD {
        let err = match Config::parse(text, "tocada.toml") {
            Ok(config) => panic!("{text:?} was accepted as {config:?}"),
            Err(err) => err,
        };
        assert_eq!(err.key(), Some(*key), "{text:?}: {err}");
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("tocada.toml: {key}: ")),
            "{text:?}: {message}"
        );
        assert!(message.contains(why), "{text:?}: {message} lacks {why:?}");
        assert!(!message.contains('\n'), "{text:?}: one line: {message}");
    }
}

#[test]
fn syntax_errors_name_the_line() {
    let text = "[clock]\nwhite = \"left\"\n\n[rules]\nenforcement = strict\n";
    let err = Config::parse(text, "tocada.toml").unwrap_err();
    assert_eq!(err.key(), None);
    assert_eq!(err.line(), Some(5));
    assert!(
        err.to_string().starts_with("tocada.toml: line 5: "),
        "{err}"
    );

    let err = Config::parse("[board]\nkind = \"sim\"\nkind = \"sim\"\n", "t.toml").unwrap_err();
    assert_eq!(err.line(), Some(3), "{err}");
}

#[test]
fn a_missing_file_names_its_path() {
    let path = Path::new("/nonexistent/tocada.toml");
    let err = Config::load(path).unwrap_err();
    assert!(err.is_unreadable());
    assert_eq!(err.key(), None);
    assert!(
        err.to_string()
            .starts_with("/nonexistent/tocada.toml: cannot read: "),
        "{err}"
    );
}

fn check_config(path: &Path) -> Output {
    tocada()
        .arg("check-config")
        .arg(path)
        .output()
        .expect("the tocada binary runs")
}

/// A file of this test's own in the target directory's temporary space.
fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("config");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn check_config_warns_of_seconds_written_for_minutes_and_still_accepts_them() {
    let path = scratch_file(
        "seconds.toml",
        "[clock]\npreset = \"quick\"\n[[preset]]\nname = \"quick\"\ntime_control = \"15+10\"\n",
    );
    let output = check_config(&path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("  quick: 15 s + 10 s per move from move 1"),
        "{stdout}"
    );
    assert_eq!(
        stderr.trim_end(),
        format!(
            "{}: warning: preset \"quick\": time_control = \"15+10\" read as 15 s + 10 s per \
             move from move 1, as PGN counts seconds; write \"15m+10s\" for 15 minutes",
            path.display()
        )
    );
}

#[test]
fn check_config_names_the_reading_of_ninety_plus_thirty_and_takes_units() {
    // No clock.preset: a file's own presets need not name one.
    let path = scratch_file(
        "ninety.toml",
        "[[preset]]\nname = \"fide\"\ntime_control = \"90+30\"\n\
         [[preset]]\nname = \"fide units\"\ntime_control = \"40/90m+30s:30m+30s\"\n\
         [[preset]]\nname = \"armageddon 61\"\ntime_control = \"60/5m:0+2s\"\n\
         black_time_control = \"60/4m:0+2s\"\ndraw_odds = \"black\"\n",
    );
    let output = check_config(&path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("(power-on fide)"), "{stdout}");
    assert!(
        stdout.contains(
            "  fide units: 40 moves in 90 min + 30 s per move from move 1, then 30 min + 30 s per move"
        ),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("White 60 moves in 5 min, then 0 s + 2 s per move; Black 60 moves in 4 min"),
        "{stdout}"
    );
    assert_eq!(
        stderr.trim_end(),
        format!(
            "{}: warning: preset \"fide\": time_control = \"90+30\" read as 1 min 30 s + 30 s \
             per move from move 1, as PGN counts seconds; write \"90m+30s\" for 90 minutes",
            path.display()
        )
    );
}

#[test]
fn check_config_accepts_the_shipped_file() {
    let output = check_config(&shipped_path());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The summary, then each of the four presets in words.
    assert_eq!(stdout.lines().count(), 5, "{stdout}");
    assert!(stdout.contains("protocol board at 0x42"), "{stdout}");
    assert!(
        stdout.contains("\n  rapid: 15 min + 10 s per move from move 1 (rapid)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("classical, rapid, blitz, armageddon"),
        "{stdout}"
    );
    assert!(output.stderr.is_empty());
}

#[test]
fn check_config_names_the_bad_key_and_exits_78() {
    let text = shipped_text().replace("kind = \"protocol\"", "kind = \"usb\"");
    let path = scratch_file("bad-kind.toml", &text);
    let output = check_config(&path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(i32::from(EX_CONFIG)));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "{}: board.kind: unknown board kind \"usb\": expected one of protocol, mcp23017, dgt, sim, none",
            path.display()
        )
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn check_config_reports_syntax_errors_with_exit_78() {
    let path = scratch_file("syntax.toml", "[clock\nwhite = \"left\"\n");
    let output = check_config(&path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(78));
    assert!(
        stderr.starts_with(&format!("{}: line 1: ", path.display())),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn check_config_refuses_a_missing_file_with_exit_78() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("config/does-not-exist.toml");
    let output = check_config(&path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(78));
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("No such file"), "{stderr}");
}

#[test]
fn an_oversized_file_is_refused_unread() {
    let size = usize::try_from(tocada::config::MAX_FILE_BYTES).unwrap() + 1;
    let path = scratch_file("huge.toml", &"#".repeat(size));
    let err = Config::load(&path).unwrap_err();
    assert!(err.is_unreadable());
    assert!(err.to_string().contains("larger than"), "{err}");
}

#[test]
fn paths_that_exist_as_the_wrong_kind_are_refused_by_check_config_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    let cases = [
        (
            format!("[state]\ndirectory = {:?}\n[board]\nkind = \"sim\"\n", file),
            "state.directory",
        ),
        (format!("[i2c]\nbus = {:?}\n", dir.path()), "i2c.bus"),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("tocada-{i}.toml"));
        std::fs::write(&path, text).unwrap();
        // Parsing alone cannot know: the paths are this machine's.
        assert!(Config::parse(text, "t.toml").is_ok(), "{text}");
        let err = Config::load(&path).unwrap_err();
        assert_eq!(err.key(), Some(*key), "{err}");
        for command in ["check-config", "run"] {
            let out = match command {
                "run" => tocada()
                    .arg("run")
                    .arg("--config")
                    .arg(&path)
                    .stdin(std::process::Stdio::null())
                    .output(),
                _ => tocada().arg(command).arg(&path).output(),
            }
            .unwrap();
            assert_eq!(
                out.status.code(),
                Some(i32::from(EX_CONFIG)),
                "{command} {text}"
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(key), "{command}: {stderr}");
        }
    }
    // A state directory that is a directory, and a bus path that does not
    // exist on this machine, are fine.
    let text = format!(
        "[state]\ndirectory = {:?}\n[i2c]\nbus = \"/dev/no-such-i2c\"\n",
        dir.path()
    );
    let path = dir.path().join("good.toml");
    std::fs::write(&path, text).unwrap();
    Config::load(&path).unwrap();
}

#[test]
fn run_refuses_a_game_store_it_cannot_use_with_ex_config() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(tocada::store::DB_FILE);
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let path = dir.path().join("tocada.toml");
    let text = format!(
        "[state]\ndirectory = {:?}\n[board]\nkind = \"sim\"\n",
        dir.path()
    );
    std::fs::write(&path, text).unwrap();
    let out = tocada()
        .arg("run")
        .arg("--config")
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(i32::from(EX_CONFIG)), "{stderr}");
    assert!(stderr.contains("schema version 99"), "{stderr}");
}

#[test]
fn sim_says_the_warning_check_config_says() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ninety.toml");
    std::fs::write(
        &config,
        "[[preset]]\nname = \"fide\"\ntime_control = \"90+30\"\n",
    )
    .unwrap();
    let script = dir.path().join("empty.jsonl");
    std::fs::write(&script, "{\"t\":0,\"ev\":\"end\"}\n").unwrap();
    let output = tocada()
        .args(["sim", "--out"])
        .arg(dir.path())
        .arg("--config")
        .arg(&config)
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: warning: preset \"fide\": time_control = \"90+30\" read as 1 min 30 s",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
fn check_config_takes_the_file_as_run_names_it_too() {
    let good = scratch_file("either-form.toml", "[face]\nlanguage = \"es\"\n");
    let bad = scratch_file("either-form-bad.toml", "[face]\nlanguage = \"xx\"\n");
    for form in [&["check-config"][..], &["check-config", "--config"][..]] {
        let out = tocada().args(form).arg(&good).output().unwrap();
        assert!(out.status.success(), "{form:?}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(stdout.contains("either-form.toml: ok"), "{stdout}");
        assert!(stdout.contains("; the face in es"), "{stdout}");
        let out = tocada().args(form).arg(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(78), "{form:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("face.language"));
    }
}
