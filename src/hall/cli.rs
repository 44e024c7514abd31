//! The command line of `tocada-hall`, which its binary parses and
//! `packaging/tocada-hall.1` documents.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::config::DEFAULT_PATH;
pub use super::results::ResultsFormat;

/// Every clock of a tournament hall on one arbiter's screen and in a live
/// PGN feed, through an MQTT broker.
#[derive(Parser)]
#[command(name = "tocada-hall", version)]
pub struct HallCli {
    #[command(subcommand)]
    /// What to do; `run` if nothing.
    pub command: Option<Command>,
}

/// The commands of `tocada-hall`.
#[derive(Subcommand)]
pub enum Command {
    /// Subscribe to the hall and serve the arbiter's page and the PGN feed
    /// (the default).
    Run {
        /// The hall's configuration.
        #[arg(long, default_value = DEFAULT_PATH)]
        config: PathBuf,
    },
    /// Check the hall's configuration and every file it names (the
    /// broker's credentials, the push's token and CA file) as `run` reads
    /// them, and exit: 0 if `run` would start with them, 78 with the key
    /// at fault if not.
    CheckConfig {
        /// The hall's configuration (/etc/tocada/hall.toml if neither this
        /// nor `--config` is given).
        #[arg(value_name = "FILE", conflicts_with = "config")]
        file: Option<PathBuf>,
        /// The same, as `run --config FILE` names it.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Import a round's pairings from the pairing program's file, a
    /// TRF-16 (any line starting 001) or a CSV with a header row (board,
    /// white, black, white_rating, black_rating, white_fide_id,
    /// black_fide_id), into the hall's store: a running hall plays that
    /// round within a second, its names on the games that start after.
    Pairings {
        /// The hall's configuration (its store and its name).
        #[arg(long, default_value = DEFAULT_PATH)]
        config: PathBuf,
        /// The round the file's pairings are for (a TRF's columns of
        /// that round are read).
        #[arg(long)]
        round: u32,
        /// The TRF or CSV file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Print a round's results on standard output, for the pairing
    /// program (TRF-16 result columns, or CSV board,white,black,result)
    /// or as the round's PGN.
    Results {
        /// The hall's configuration (its store and its name).
        #[arg(long, default_value = DEFAULT_PATH)]
        config: PathBuf,
        /// The round.
        #[arg(long)]
        round: u32,
        /// What to print.
        #[arg(long, value_enum, default_value = "trf")]
        format: ResultsFormat,
    },
    /// List the rounds imported into the hall's store, the one played
    /// now marked.
    Rounds {
        /// The hall's configuration (its store and its name).
        #[arg(long, default_value = DEFAULT_PATH)]
        config: PathBuf,
    },
    /// Read a password on standard input (its first line) and print its
    /// argon2 hash, for `password_hash` in the configuration.
    HashPassword,
}
