//! Every command's exit code for each kind of failure, black-box: the rule
//! of `tocada::exit` (a configuration and the paths it names: 78; a file
//! named to be read that cannot be opened: 66; one whose content is wrong:
//! 65; a file to write that cannot be created: 73), the same whichever
//! command meets it.

mod support {
    pub mod cli;
}

use std::path::Path;
use std::process::{Output, Stdio};

use support::cli::tocada;
use tocada::exit::{EX_CANTCREAT, EX_CONFIG, EX_DATAERR, EX_NOINPUT};

fn output(args: &[&std::ffi::OsStr]) -> Output {
    tocada()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("tocada runs")
}

/// Asserts that `args` exit with `code` and say why on stderr.
fn assert_exits(args: &[&std::ffi::OsStr], code: u8) {
    let out = output(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(i32::from(code)),
        "{args:?}: {stderr}"
    );
    assert!(!stderr.trim().is_empty(), "{args:?} says why");
}

struct Files {
    _dir: tempfile::TempDir,
    missing: std::path::PathBuf,
    directory: std::path::PathBuf,
    not_utf8: std::path::PathBuf,
    text: std::path::PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let not_utf8 = dir.path().join("latin1.jsonl");
    // A byte-order mark for UTF-16, then Latin-1 text.
    std::fs::write(
        &not_utf8,
        b"\xff\xfe{\"t\":0,\"ev\":\"setup\",\"white\":\"Pe\xf1a\"}\n",
    )
    .unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "[Event \"a text file\"]\n".repeat(50)).unwrap();
    Files {
        missing: dir.path().join("missing"),
        directory: dir.path().to_owned(),
        not_utf8,
        text,
        _dir: dir,
    }
}

fn os(path: &Path) -> &std::ffi::OsStr {
    path.as_os_str()
}

#[test]
fn an_input_file_that_cannot_be_opened_is_66_and_bad_content_65() {
    let f = files();
    let replay = std::ffi::OsStr::new("replay");
    let export = std::ffi::OsStr::new("export");
    let db = std::ffi::OsStr::new("--db");
    assert_exits(&[replay, os(&f.missing)], EX_NOINPUT);
    assert_exits(&[replay, os(&f.directory)], EX_NOINPUT);
    assert_exits(&[replay, os(&f.not_utf8)], EX_DATAERR);
    assert_exits(&[replay, os(&f.text)], EX_DATAERR);
    assert_exits(&[export, db, os(&f.missing)], EX_NOINPUT);
    assert_exits(&[export, db, os(&f.directory)], EX_NOINPUT);
    assert_exits(&[export, db, os(&f.not_utf8)], EX_DATAERR);
    assert_exits(&[export, db, os(&f.text)], EX_DATAERR);
}

#[cfg(feature = "sim")]
#[test]
fn the_simulator_follows_the_same_rule_and_73_for_what_it_cannot_write() {
    let f = files();
    let sim = std::ffi::OsStr::new("sim");
    let script = std::ffi::OsStr::new("--script");
    let db = std::ffi::OsStr::new("--db");
    let out = std::ffi::OsStr::new("--out");
    assert_exits(&[sim, script, os(&f.missing)], EX_NOINPUT);
    assert_exits(&[sim, script, os(&f.directory)], EX_NOINPUT);
    assert_exits(&[sim, script, os(&f.not_utf8)], EX_DATAERR);
    assert_exits(&[sim, script, os(&f.text)], EX_DATAERR);
    let empty = f.directory.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    // The store is written: a file that is not one is bad data, a place it
    // cannot be created is 73.
    assert_exits(&[sim, db, os(&f.text), script, os(&empty)], EX_DATAERR);
    let nowhere = f.missing.join("games.sqlite");
    assert_exits(&[sim, db, os(&nowhere), script, os(&empty)], EX_CANTCREAT);
    let faced = f.directory.join("face.jsonl");
    std::fs::write(
        &faced,
        "{\"t\":0,\"ev\":\"setup\",\"time_control\":\"60\"}\n{\"t\":10,\"ev\":\"face\",\"png\":\"x.png\"}\n",
    )
    .unwrap();
    assert_exits(
        &[sim, script, os(&faced), out, os(&f.missing)],
        EX_CANTCREAT,
    );
    // A configuration is a configuration, for the simulator too.
    let config = std::ffi::OsStr::new("--config");
    assert_exits(
        &[sim, config, os(&f.missing), script, os(&empty)],
        EX_CONFIG,
    );
}

#[test]
fn a_configuration_and_the_paths_it_names_are_78_for_every_command() {
    let f = files();
    let run = std::ffi::OsStr::new("run");
    let check = std::ffi::OsStr::new("check-config");
    let config = std::ffi::OsStr::new("--config");
    let bad_config = f.directory.join("bad.toml");
    std::fs::write(&bad_config, "[clock\n").unwrap();
    for path in [&f.missing, &f.directory, &f.not_utf8, &bad_config] {
        assert_exits(&[check, os(path)], EX_CONFIG);
        assert_exits(&[run, config, os(path)], EX_CONFIG);
    }
    // A state directory that cannot hold the store (here: below a regular
    // file, so that it fails even as root) stops the daemon with 78, which
    // the systemd unit does not restart.
    let below_a_file = f.text.join("state");
    let toml = f.directory.join("state.toml");
    std::fs::write(
        &toml,
        format!("[board]\nkind = \"sim\"\n[state]\ndirectory = {below_a_file:?}\n"),
    )
    .unwrap();
    assert_exits(&[run, config, os(&toml)], EX_CONFIG);
    let unit = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("systemd/tocada.service"),
    )
    .unwrap();
    let prevented = unit
        .lines()
        .find_map(|l| l.strip_prefix("RestartPreventExitStatus="))
        .expect("the unit names the codes not to restart");
    assert!(
        prevented
            .split_whitespace()
            .any(|c| c == EX_CONFIG.to_string()),
        "{prevented}"
    );
}

#[test]
fn a_reader_gone_from_the_output_is_a_write_error_not_a_panic() {
    // A pipe whose reading end is closed before tocada writes: what
    // `tocada check-config FILE | head -1` meets once head has its line.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/tocada.toml");
    let out = tocada()
        .arg("check-config")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(writer)
        .output()
        .expect("tocada runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        out.status.code(),
        Some(i32::from(tocada::exit::EX_IOERR)),
        "{stderr}"
    );
    assert!(stderr.contains("tocada check-config:"), "{stderr}");
}

/// Makes directory `dir` unwritable for this process, if it can: by its
/// mode, and for root (who writes through any mode) by the immutable
/// attribute. Whether it worked.
fn make_unwritable(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join("probe");
    let writable = || {
        let ok = std::fs::File::create(&probe).is_ok();
        let _ = std::fs::remove_file(&probe);
        ok
    };
    if writable() {
        let _ = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status();
    }
    !writable()
}

#[test]
fn a_state_directory_that_cannot_be_written_is_named_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let toml = dir.path().join("tocada.toml");
    std::fs::write(
        &toml,
        format!("[board]\nkind = \"sim\"\n[state]\ndirectory = {state:?}\n"),
    )
    .unwrap();
    // Once with no store yet, once with one (its -wal and -shm gone, as a
    // clean stop leaves it).
    for with_store in [false, true] {
        if with_store {
            drop(tocada::store::Store::open(&state.join(tocada::store::DB_FILE)).unwrap());
        }
        if !make_unwritable(&state) {
            eprintln!("cannot make a directory read-only here; nothing to check");
            return;
        }
        let out = output(&[
            std::ffi::OsStr::new("run"),
            std::ffi::OsStr::new("--config"),
            os(&toml),
        ]);
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&state)
            .status();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(i32::from(EX_CONFIG)), "{stderr}");
        assert!(
            stderr.contains(&format!("the state directory {}", state.display())),
            "the directory is named: {stderr}"
        );
        assert!(stderr.contains("writable"), "what to do: {stderr}");
    }
}
