//! The `tocada` command: thin glue between the command line and the library.
//!
//! Each subcommand lives in the library, where tests and other tools can
//! reach it; this file only parses arguments, reports errors and sets the
//! exit code, always one of [`tocada::exit`]'s.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tocada::exit;

/// A club chess clock that enforces the Laws of Chess with a sensor board.
#[derive(Parser)]
#[command(name = "tocada", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Feed a JSON Lines script of board events to the referee and print its
    /// effects as JSON Lines.
    Replay {
        /// The script to replay; standard input when absent or `-`.
        file: Option<PathBuf>,
    },
    /// Run the clock: the daemon systemd starts on the Pi.
    Run {
        /// The configuration file.
        #[arg(long, default_value = tocada::config::DEFAULT_PATH)]
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
    },
    /// Check a configuration file: a one-line summary and exit 0 when it is
    /// valid, else the key at fault on stderr and exit 78 (EX_CONFIG).
    CheckConfig {
        /// The file to check.
        #[arg(default_value = tocada::config::DEFAULT_PATH)]
        file: PathBuf,
    },
    /// Print the PGN of every finished game in the store, oldest first.
    Export {
        /// Only games started on this day or later (local time), YYYY-MM-DD.
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// The game database.
        #[arg(long, value_name = "PATH", default_value = tocada::export::DEFAULT_DB)]
        db: PathBuf,
    },
}

/// Loads the configuration, or says why not with `EX_CONFIG`.
fn load_config(path: &std::path::Path) -> Result<tocada::config::Config, ExitCode> {
    tocada::config::Config::load(path).map_err(|err| {
        eprintln!("tocada: {err}");
        ExitCode::from(err.exit_code())
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config } => {
            tocada::logging::init(None);
            let config = match load_config(&config) {
                Ok(config) => config,
                Err(code) => return code,
            };
            match tocada::daemon::run(&config, tocada::daemon::shutdown_signal()) {
                Ok(_) => ExitCode::SUCCESS,
                Err(err) => {
                    tracing::error!("{err}");
                    eprintln!("tocada run: {err}");
                    ExitCode::from(err.exit_code())
                }
            }
        }
        #[cfg(feature = "sim")]
        Command::Sim {
            script,
            out,
            config,
        } => {
            let config = match config {
                Some(path) => match load_config(&path) {
                    Ok(config) => config,
                    Err(code) => return code,
                },
                None => tocada::config::Config::default(),
            };
            match script {
                Some(script) => {
                    tocada::logging::init(Some("warn"));
                    match tocada::sim::script::run(&script, &config, &out, Box::new(io::stdout())) {
                        Ok(_) => ExitCode::SUCCESS,
                        Err(err) => {
                            eprintln!("tocada sim: {err}");
                            ExitCode::from(err.exit_code())
                        }
                    }
                }
                None => match tocada::sim::tui::run(&config) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(err) => {
                        eprintln!("tocada sim: {err}");
                        ExitCode::from(exit::FAILURE)
                    }
                },
            }
        }
        Command::Replay { file } => {
            let result = tocada::transcript::open(file.as_deref())
                .and_then(|input| tocada::transcript::replay(input, io::stdout().lock()));
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("tocada replay: {err}");
                    ExitCode::from(err.exit_code())
                }
            }
        }
        Command::CheckConfig { file } => match tocada::config::Config::load(&file) {
            Ok(config) => {
                println!("{}: ok: {}", file.display(), config.summary());
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("{err}");
                ExitCode::from(err.exit_code())
            }
        },
        Command::Export { since, db } => {
            match tocada::export::export(&db, since.as_deref(), &mut io::stdout().lock()) {
                Ok(_) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("tocada export: {err}");
                    ExitCode::from(err.exit_code())
                }
            }
        }
    }
}
