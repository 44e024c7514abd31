//! The process exit codes of every `tocada` command, defined once, after
//! BSD's `sysexits.h`, so that a script can tell a bad input from a missing
//! file from a failing disk.
//!
//! | code | name | returned by |
//! |---|---|---|
//! | 0 | success | every command |
//! | 1 | [`FAILURE`] | `run` and the interactive `sim` when they cannot start |
//! | 64 | [`EX_USAGE`] | `export --since` with a date that does not exist |
//! | 65 | [`EX_DATAERR`] | `replay` and `sim --script`: a bad line in the script |
//! | 66 | [`EX_NOINPUT`] | `replay`, `sim --script`, `export`: the input cannot be opened |
//! | 74 | [`EX_IOERR`] | reading or writing failed midway |
//! | 78 | [`EX_CONFIG`] | `run`, `sim --config`, `check-config`: a bad configuration; `run`: a game store it cannot use (not one, newer, read-only, damaged, or its path not a directory) |
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
