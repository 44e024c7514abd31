//! The command line: `tocada run`, `replay`, `sim`, `check-config`,
//! `export`, `publish` and `hall`, as `main.rs` parses it and the man page
//! (`packaging/tocada.1`, written by `tests/manpage.rs`) documents it.
//!
//! `publish` and `hall` are programs of their own (`tocada-publish`,
//! `tocada-hall`: the network code stays out of the clock's binary), run
//! git-style by [`exec_sibling`].

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

/// A club chess clock that enforces the Laws of Chess with a sensor board.
#[derive(Parser)]
#[command(name = "tocada", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Feed a JSON Lines script of board events to the referee and print its
    /// effects as JSON Lines.
    Replay {
        /// The script to replay; standard input when absent or `-`.
        file: Option<PathBuf>,
    },
    /// Run the clock: the daemon systemd starts on the Pi.
    Run {
        /// The configuration file.
        #[arg(long, default_value = crate::config::DEFAULT_PATH)]
        config: PathBuf,
        /// Start every game from this position (a FEN, quoted) instead of
        /// the standard one; the board must show it before Black's lever
        /// starts the clock.
        #[arg(long, value_name = "FEN", value_parser = crate::config::parse_start)]
        fen: Option<shakmaty::Chess>,
    },
    #[cfg(feature = "sim")]
    /// The whole clock on this computer, with the hardware simulated: in the
    /// terminal, or headless from a script. Not in the Debian package (built
    /// without feature `sim`): `cargo run --release -- sim` from the source.
    /// In the terminal, `pgn [FILE]` writes the games so far as PGN, and
    /// quitting writes them too (tocada-sim.pgn where it was started).
    Sim {
        /// Play this replay-format script in simulated time, headless,
        /// printing the decisions; `{"t":..,"ev":"face","png":"F.png"}`
        /// lines write the face.
        #[arg(long)]
        script: Option<PathBuf>,
        /// Where the face PNGs go.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// A configuration file for the presets and rules (the board is
        /// simulated whatever it says).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Keep the games in this SQLite store (created if need be), as the
        /// daemon keeps its own, so that `tocada export --db FILE` prints
        /// them; in memory, and gone at exit, when absent.
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
        /// The board modelled: `protocol` (tocada's own, sensing touches;
        /// the default) or `dgt` (a DGT e-board on a pseudo-terminal, read
        /// by the real DGT driver through a real tty, which answers in real
        /// time: in the terminal only, not with `--script`).
        #[arg(long, value_name = "MODEL", value_parser = ["protocol", "dgt"], conflicts_with = "script")]
        board: Option<String>,
        /// Start every game from this position (a FEN, quoted) instead of
        /// the standard one; the simulated board is set up with it.
        #[arg(long, value_name = "FEN", value_parser = crate::config::parse_start)]
        fen: Option<shakmaty::Chess>,
        /// The language of the face and the log: `en`, `es`, `fr` or `de`
        /// (the configuration's `face.language` when absent).
        #[arg(long, value_name = "LANG", value_parser = ["en", "es", "fr", "de"])]
        language: Option<String>,
    },
    /// Check a configuration file: a summary and each preset in words, and
    /// exit 0 when it is valid (with warnings on stderr for what is probably
    /// not meant), else the key at fault on stderr and exit 78 (EX_CONFIG).
    CheckConfig {
        /// The file to check (/etc/tocada/tocada.toml if neither this nor
        /// `--config` is given).
        #[arg(value_name = "FILE", conflicts_with = "config")]
        file: Option<PathBuf>,
        /// The file to check, as `run --config FILE` names it: the same
        /// as FILE.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Publish this clock's games to the hall's MQTT broker, as `[publish]` in
    /// the configuration says: runs tocada-publish, installed beside tocada,
    /// with ARGS (tocada publish --help lists them).
    #[command(disable_help_flag = true)]
    Publish {
        /// tocada-publish's arguments.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<OsString>,
    },
    /// The arbiter's hall: every clock of a tournament on one page, from the
    /// broker: runs tocada-hall, installed beside tocada, with ARGS (tocada
    /// hall --help lists them).
    #[command(disable_help_flag = true)]
    Hall {
        /// tocada-hall's arguments.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<OsString>,
    },
    /// Print the PGN of every finished game in the store, oldest first.
    Export {
        /// Only games started on this day or later (local time), YYYY-MM-DD.
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// The game database.
        #[arg(long, value_name = "PATH", default_value = crate::export::DEFAULT_DB)]
        db: PathBuf,
    },
}

/// Why [`exec_sibling`] could not run its program.
#[derive(Debug)]
pub enum SiblingError {
    /// Neither beside `tocada` nor on `PATH`.
    Missing {
        /// The program's name.
        program: String,
        /// Where it was looked for beside `tocada`.
        beside: Option<PathBuf>,
    },
    /// Found, but it could not be started.
    Exec {
        /// The program's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl SiblingError {
    /// The exit code: [`crate::exit::EX_UNAVAILABLE`] for a program that
    /// is not installed, [`crate::exit::FAILURE`] for one that would not start.
    pub fn exit_code(&self) -> u8 {
        match self {
            SiblingError::Missing { .. } => crate::exit::EX_UNAVAILABLE,
            SiblingError::Exec { .. } => crate::exit::FAILURE,
        }
    }
}

impl fmt::Display for SiblingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SiblingError::Missing { program, beside } => {
                write!(f, "{program} is not installed: not found ")?;
                if let Some(beside) = beside {
                    write!(f, "in {} nor ", beside.display())?;
                }
                write!(
                    f,
                    "on PATH (the Debian package installs it in /usr/bin; from the \
                     sources, `cargo build --release --bins` builds it beside tocada)"
                )
            }
            SiblingError::Exec { path, source } => {
                write!(f, "cannot run {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for SiblingError {}

/// Where `program` is: in the directory of the running `tocada` first (an
/// installed package, a cargo target directory), then on `PATH`.
pub fn find_sibling(program: &str) -> Result<PathBuf, SiblingError> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    let path = std::env::var_os("PATH").unwrap_or_default();
    beside
        .iter()
        .cloned()
        .chain(std::env::split_paths(&path))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| SiblingError::Missing {
            program: program.to_owned(),
            beside,
        })
}

/// Runs `program` with `args` in place of this process, git-style (its
/// signals, exit code and output are the command's own); returns only if
/// it could not.
pub fn exec_sibling(program: &str, args: &[OsString]) -> SiblingError {
    use std::os::unix::process::CommandExt;
    let path = match find_sibling(program) {
        Ok(path) => path,
        Err(err) => return err,
    };
    let source = std::process::Command::new(&path)
        .arg0(program)
        .args(args)
        .exec();
    SiblingError::Exec { path, source }
}
