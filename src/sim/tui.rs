//! The interactive simulator in the terminal (ratatui). Placeholder until
//! the TUI lands.

use crate::config::Config;

/// Runs the simulator in the terminal until the user quits.
pub fn run(_config: &Config) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "the terminal simulator is not built yet",
    ))
}
