//! `tocada-publish`'s command line (also `tocada publish ARGS`), which its
//! `main` parses and its man page (`packaging/tocada-publish.1`, written by
//! `tests/publish.rs`) documents.

use std::path::PathBuf;

use clap::Parser;

/// Where the publisher keeps its own state when systemd gives no
/// `$STATE_DIRECTORY` (`StateDirectory=tocada-publish`).
pub const STATE_DIRECTORY: &str = "/var/lib/tocada-publish";

/// Publish this clock's games to the hall's MQTT broker.
///
/// As `[publish]` in the clock's configuration says: every stored event
/// with the effects it produced, the board's state (retained) and the
/// clock's status, resent from the last event the broker acknowledged
/// after any cut (a broker restart, the network, a reboot).
#[derive(Debug, Parser)]
#[command(name = "tocada-publish", version)]
pub struct PublishCli {
    /// The clock's configuration file, with its `[publish]` section.
    #[arg(long, value_name = "FILE", default_value = crate::config::DEFAULT_PATH)]
    pub config: PathBuf,
    /// The clock's game store; by default `games.sqlite` in the
    /// configuration's `[state] directory`.
    #[arg(long, value_name = "FILE")]
    pub store: Option<PathBuf>,
    /// The publisher's own state directory (the last event the broker
    /// acknowledged); by default `$STATE_DIRECTORY`, else
    /// /var/lib/tocada-publish.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// On a first start (no state yet), publish every game in the store,
    /// not only from the game in progress on.
    #[arg(long)]
    pub from_start: bool,
    /// What to do: publish (no command), or check the configuration.
    #[command(subcommand)]
    pub command: Option<PublishCommand>,
}

/// `tocada-publish`'s commands; without one it publishes.
#[derive(Debug, clap::Subcommand)]
pub enum PublishCommand {
    /// Check the configuration's `[publish]` section and every file it
    /// names (the credentials) and the state directory, as publishing
    /// reads them, and exit: 0 if the publisher would start with them, the
    /// exit status it would stop with if not (78 for the configuration).
    CheckConfig {
        /// The clock's configuration (the top-level `--config`, else
        /// /etc/tocada/tocada.toml, if neither this nor `--config` is
        /// given here).
        #[arg(value_name = "FILE", conflicts_with = "config")]
        file: Option<PathBuf>,
        /// The same, as the top-level `--config FILE` names it.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
}
