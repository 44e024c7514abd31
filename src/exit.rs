//! The process exit codes of every `tocada` command, defined once, after
//! BSD's `sysexits.h`, so that a script can tell a bad input from a missing
//! file from a failing disk.
//!
//! One rule per kind of failure, whatever the command:
//! - a configuration file, and every path it names that `run` cannot use
//!   (the state directory, the game store in it): [`EX_CONFIG`], even when
//!   the file is missing, so that `check-config` and `run` agree and systemd
//!   does not restart a daemon that cannot start until someone fixes it;
//! - a file named on the command line to be read (a script, a store to
//!   export) that is missing, unreadable or a directory: [`EX_NOINPUT`];
//! - such a file that opens but does not hold what the command reads (a bad
//!   or non-UTF-8 line, a file that is not a tocada game store, a store from
//!   a newer tocada): [`EX_DATAERR`];
//! - a file the command must create or write (a face PNG, `sim --db`'s
//!   store) that cannot be created: [`EX_CANTCREAT`];
//! - reading or writing that fails midway (a closed pipe, a full disk):
//!   [`EX_IOERR`]; for `run`, also a stop that lost what the game store
//!   could not take in time (the journal says how many operations), so
//!   that `systemctl status` shows the unit failed rather than a clean stop;
//! - a game store another process holds locked: [`EX_TEMPFAIL`], worth
//!   trying again (`export`, `sim --db`); `run` does not give up on a lock
//!   but waits for it, saying so;
//! - a program a command hands over to (`tocada publish` runs
//!   `tocada-publish`) that is not installed: [`EX_UNAVAILABLE`].
//!
//! [`CODES`] lists them with when each is returned, for the man page
//! (`packaging/tocada.1`) and the book (`docs/src/raspberry-pi.md`).
//!
//! Argument errors found by the command-line parser itself exit 2, clap's
//! own code.

/// Something went wrong that has no code of its own (the daemon could not
/// start its hardware, the terminal could not be set up).
pub const FAILURE: u8 = 1;
/// `EX_USAGE`: the command was used wrongly, such as a date that does not
/// exist.
pub const EX_USAGE: u8 = 64;
/// `EX_DATAERR`: an input file opened but its data is not valid, such as a
/// bad script line or a file that is not a game store.
pub const EX_DATAERR: u8 = 65;
/// `EX_NOINPUT`: an input file named on the command line could not be
/// opened.
pub const EX_NOINPUT: u8 = 66;
/// `EX_UNAVAILABLE`: a program the command runs is not installed
/// (`tocada publish` without `tocada-publish` beside `tocada`).
pub const EX_UNAVAILABLE: u8 = 69;
/// `EX_CANTCREAT`: a file the command writes could not be created.
pub const EX_CANTCREAT: u8 = 73;
/// `EX_IOERR`: reading or writing failed midway; `run`: stopping, the game
/// store could still not be written when its wait ran out, and what it
/// held is lost.
pub const EX_IOERR: u8 = 74;
/// `EX_TEMPFAIL`: the game store is locked by another process; trying again
/// later may work. `run` waits for such a lock instead.
pub const EX_TEMPFAIL: u8 = 75;
/// `EX_CONFIG`: the configuration is bad or unreadable, or names a path the
/// daemon cannot use. The systemd unit lists it in
/// `RestartPreventExitStatus=`, so a bad file is not restarted in a loop.
pub const EX_CONFIG: u8 = 78;

/// The rule the codes follow, in one paragraph for the man page.
pub const RULE: &str = "One rule per kind of failure, whatever the command: a configuration file, \
and every path it names that run cannot use, is 78, even when the file is missing, so that \
systemd does not restart a daemon that cannot start; a file named on the command line to be \
read is 66 when it cannot be opened and 65 when what it holds is wrong; a file to be written \
that cannot be created is 73.";

/// Every exit code with its `sysexits.h` name and the commands that return
/// it, in the words of the man page's EXIT STATUS section.
pub const CODES: [(u8, &str, &str); 10] = [
    (0, "success", "every command"),
    (
        FAILURE,
        "failure",
        "run and the interactive sim when they cannot start (the hardware, the terminal)",
    ),
    (
        EX_USAGE,
        "EX_USAGE",
        "export --since with a date that does not exist",
    ),
    (
        EX_DATAERR,
        "EX_DATAERR",
        "replay, sim --script: a bad or non-UTF-8 line in the script; export, sim --db, publish: a file that is not a tocada game store, or one from a newer tocada; publish: its state file is damaged",
    ),
    (
        EX_NOINPUT,
        "EX_NOINPUT",
        "replay, sim --script, export: the file named cannot be opened (missing, unreadable, a directory); publish: the credentials file cannot be read",
    ),
    (
        EX_UNAVAILABLE,
        "EX_UNAVAILABLE",
        "publish, hall: the program tocada-publish or tocada-hall is not installed beside tocada nor on PATH",
    ),
    (
        EX_CANTCREAT,
        "EX_CANTCREAT",
        "sim --script: a face PNG cannot be written; sim --db: the store cannot be created or written; publish: its state directory or state file cannot be written",
    ),
    (
        EX_IOERR,
        "EX_IOERR",
        "reading or writing failed midway (a closed pipe, a full disk); run: stopping, the game store could still not be written after waiting 20 s (a lock held by another process, a full disk), so what it held is lost: the journal says how many operations",
    ),
    (
        EX_TEMPFAIL,
        "EX_TEMPFAIL",
        "export, sim --db: the game store is locked by another process (try again); run waits for the lock instead, saying so in the journal and in systemctl status",
    ),
    (
        EX_CONFIG,
        "EX_CONFIG",
        "run, sim --config, check-config: the configuration file is missing, unreadable, not UTF-8 or bad; run: a state directory or game store it cannot use (missing, not a directory, read-only, another program's, a newer tocada's, damaged), or a DGT board's serial device that is there but is no serial line or may not be opened (a board not plugged in yet is waited for); publish: no [publish] section, or a credentials file that is not one line user:password; systemd does not restart",
    ),
];

/// `tocada-hall`'s exit codes and when each is returned, for its man page
/// (`packaging/tocada-hall.1`); argument errors exit 2 as for `tocada`.
pub const HALL_CODES: [(u8, &str, &str); 6] = [
    (
        0,
        "success",
        "run: stopped by SIGTERM or SIGINT; check-config: the configuration and every file it names are good, so run starts with them; pairings: the round is imported; results: the results are printed; rounds: the rounds are listed; hash-password: the hash is printed",
    ),
    (
        FAILURE,
        "failure",
        "run: the runtime cannot start; hash-password: the hash cannot be computed",
    ),
    (
        EX_DATAERR,
        "EX_DATAERR",
        "pairings: the file is neither a TRF-16 nor a CSV of the round's pairings (the line and column at fault are named); hash-password: no password on the first line of standard input",
    ),
    (
        EX_NOINPUT,
        "EX_NOINPUT",
        "pairings: the pairings file cannot be read",
    ),
    (
        EX_IOERR,
        "EX_IOERR",
        "run: the hall's store cannot be opened, the listen address cannot be bound, or the web server fails; pairings, results, rounds: the hall's store cannot be opened or written; hash-password: standard input cannot be read",
    ),
    (
        EX_CONFIG,
        "EX_CONFIG",
        "run, check-config, pairings, results, rounds: the configuration is missing, unreadable or bad (the key at fault is named), or a file it names cannot be used: the broker's credentials (missing, or not one line user:password), the push's token file, its CA file (push.ca_file: missing or no PEM certificate), or an https:// push.url with no root certificate in the OS's store; systemd does not restart",
    ),
];

/// `tocada-publish`'s exit codes and when each is returned, for its man
/// page (`packaging/tocada-publish.1`); argument errors exit 2.
pub const PUBLISH_CODES: [(u8, &str, &str); 9] = [
    (
        0,
        "success",
        "stopped by SIGTERM or SIGINT; check-config: the publisher would start with this configuration, its credentials and its state directory",
    ),
    (FAILURE, "failure", "the runtime cannot start"),
    (
        EX_DATAERR,
        "EX_DATAERR",
        "the game store is not a tocada game store, or a newer tocada's; the publisher's state file is damaged (remove it to publish again from the game in progress)",
    ),
    (
        EX_NOINPUT,
        "EX_NOINPUT",
        "the credentials file (publish.credentials) or the game store cannot be opened",
    ),
    (
        EX_CANTCREAT,
        "EX_CANTCREAT",
        "the state directory is not a directory, or the state file cannot be written",
    ),
    (
        EX_IOERR,
        "EX_IOERR",
        "reading the state file or the game store failed midway",
    ),
    (
        EX_TEMPFAIL,
        "EX_TEMPFAIL",
        "the game store is locked by another process (try again)",
    ),
    (
        EX_CONFIG,
        "EX_CONFIG",
        "the configuration is missing, unreadable or bad, has no [publish] section, or its credentials file is not one line user:password; or another clock already publishes this board with the same credentials (a cloned SD card: refused, the log names its host); systemd does not restart",
    ),
    (
        EX_UNAVAILABLE,
        "EX_UNAVAILABLE",
        "(tocada publish only) tocada-publish is not installed beside tocada nor on PATH",
    ),
];
