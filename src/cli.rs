//! The command line: `tocada run`, `replay`, `sim`, `check-config` and
//! `export`, as `main.rs` parses it and the man page
//! (`packaging/tocada.1`, written by `tests/manpage.rs`) documents it.

use std::path::PathBuf;

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
    },
    #[cfg(feature = "sim")]
    /// The whole clock on this computer, with the hardware simulated: in the
    /// terminal, or headless from a script.
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
    },
    /// Check a configuration file: a summary and each preset in words, and
    /// exit 0 when it is valid (with warnings on stderr for what is probably
    /// not meant), else the key at fault on stderr and exit 78 (EX_CONFIG).
    CheckConfig {
        /// The file to check.
        #[arg(default_value = crate::config::DEFAULT_PATH)]
        file: PathBuf,
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
