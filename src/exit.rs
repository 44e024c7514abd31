//! The process exit codes of every `tocada` command, defined once, after
//! BSD's `sysexits.h`, so that a script can tell a bad input from a missing
//! file from a failing disk.
//!
//! [`CODES`] lists them with when each is returned, for the man page
//! (`packaging/tocada.1`) and the README.
//!
//! Argument errors found by the command-line parser itself exit 2, clap's
//! own code.

/// Something went wrong that has no code of its own (the daemon could not
/// start its hardware, the terminal could not be set up).
pub const FAILURE: u8 = 1;
/// `EX_USAGE`: the command was used wrongly, such as a date that does not
/// exist.
pub const EX_USAGE: u8 = 64;
/// `EX_DATAERR`: the input data was not valid, such as a bad script line.
pub const EX_DATAERR: u8 = 65;
/// `EX_NOINPUT`: an input file or the game database could not be opened.
pub const EX_NOINPUT: u8 = 66;
/// `EX_IOERR`: reading or writing failed midway.
pub const EX_IOERR: u8 = 74;
/// `EX_CONFIG`: the configuration is bad or unreadable. The systemd unit
/// lists it in `RestartPreventExitStatus=`, so a bad file is not restarted
/// in a loop.
pub const EX_CONFIG: u8 = 78;

/// Every exit code with its `sysexits.h` name and the commands that return
/// it, in the words of the man page's EXIT STATUS section.
pub const CODES: [(u8, &str, &str); 7] = [
    (0, "success", "every command"),
    (
        FAILURE,
        "failure",
        "run and the interactive sim when they cannot start",
    ),
    (
        EX_USAGE,
        "EX_USAGE",
        "export --since with a date that does not exist",
    ),
    (
        EX_DATAERR,
        "EX_DATAERR",
        "replay and sim --script: a bad line in the script",
    ),
    (
        EX_NOINPUT,
        "EX_NOINPUT",
        "replay, sim --script, sim --db, export: the input or the store cannot be opened",
    ),
    (EX_IOERR, "EX_IOERR", "reading or writing failed midway"),
    (
        EX_CONFIG,
        "EX_CONFIG",
        "run, sim --config, check-config: a bad configuration; run: a game store it cannot use (another program's, a newer tocada's, read-only or damaged)",
    ),
];
