//! The `tocada` command: thin glue between the command line and the library.
//!
//! Each subcommand lives in the library, where tests and other tools can
//! reach it; this file only parses arguments, reports errors and sets the
//! exit code, always one of [`tocada::exit`]'s.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tocada::cli::{Cli, Command};

/// Loads the configuration, or says why not with `EX_CONFIG` (the
/// simulator's; `run` also logs it).
#[cfg(feature = "sim")]
fn load_config(path: &std::path::Path) -> Result<tocada::config::Config, ExitCode> {
    let config = tocada::config::Config::load(path).map_err(|err| {
        eprintln!("tocada: {err}");
        ExitCode::from(err.exit_code())
    })?;
    // As check-config says them: a file that means other than it says is
    // still played, but not without a word.
    for warning in config.warnings() {
        eprintln!("{}: warning: {warning}", path.display());
    }
    Ok(config)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config, fen } => {
            tocada::logging::init(None);
            // In the log too, at its level: under systemd standard error
            // reaches the journal as mere information.
            let config = match tocada::config::Config::load(&config) {
                Ok(config) => tocada::config::Config {
                    start: fen.unwrap_or_default(),
                    ..config
                },
                Err(err) => {
                    tracing::error!("{err}");
                    eprintln!("tocada: {err}");
                    return ExitCode::from(err.exit_code());
                }
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
            db,
            board,
            fen,
            language,
        } => {
            let mut config = match config {
                Some(path) => match load_config(&path) {
                    Ok(config) => config,
                    Err(code) => return code,
                },
                None => tocada::config::Config::default(),
            };
            // clap has checked the value, and that there is no --script:
            // the DGT model answers on a pseudo-terminal in real time.
            if let Some(model) = board
                .as_deref()
                .and_then(tocada::config::BoardModel::from_keyword)
            {
                config.board.model = model;
                // The whole rig a club owns: the board and its DGT 3000,
                // unless the file says otherwise.
                if model == tocada::config::BoardModel::Dgt
                    && config.board.clock == tocada::config::BoardClock::Auto
                {
                    config.board.clock = tocada::config::BoardClock::Dgt3000;
                }
            }
            if let Some(start) = fen {
                config.start = start;
            }
            // clap has checked the value.
            if let Some(language) = language
                .as_deref()
                .and_then(tocada::face::Language::from_keyword)
            {
                config.face.language = language;
            }
            let store = match &db {
                Some(path) => tocada::store::Store::open(path),
                None => tocada::store::Store::open_in_memory(),
            };
            let store = match store {
                Ok(store) => store,
                Err(err) => {
                    let name = db
                        .as_deref()
                        .map_or("memory".into(), |p| p.display().to_string());
                    eprintln!("tocada sim: cannot open the game store {name}: {err}");
                    return ExitCode::from(err.exit_code_writing());
                }
            };
            match script {
                Some(script) => {
                    tocada::logging::init(Some("warn"));
                    match tocada::sim::script::run(
                        &script,
                        &config,
                        &out,
                        Box::new(io::stdout()),
                        store,
                    ) {
                        Ok(_) => ExitCode::SUCCESS,
                        Err(err) => {
                            eprintln!("tocada sim: {err}");
                            ExitCode::from(err.exit_code())
                        }
                    }
                }
                None => match tocada::sim::tui::run(&config, store) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(err) => {
                        eprintln!("tocada sim: {err}");
                        ExitCode::from(tocada::exit::FAILURE)
                    }
                },
            }
        }
        Command::Replay { file } => {
            let result = tocada::transcript::open(file.as_deref())
                .and_then(|input| tocada::transcript::replay(input, io::stdout().lock()));
            match result {
                Ok(replayed) => {
                    if replayed.events == 0 {
                        eprintln!("tocada replay: the script is empty: no events to replay");
                    }
                    ExitCode::SUCCESS
                }
                Err(err) => {
                    eprintln!("tocada replay: {err}");
                    ExitCode::from(err.exit_code())
                }
            }
        }
        Command::CheckConfig { file, config } => {
            let file = file
                .or(config)
                .unwrap_or_else(|| PathBuf::from(tocada::config::DEFAULT_PATH));
            check_config(&file)
        }
        Command::Publish { args } => {
            let err = tocada::cli::exec_sibling("tocada-publish", &args);
            eprintln!("tocada publish: {err}");
            ExitCode::from(err.exit_code())
        }
        Command::Hall { args } => {
            let err = tocada::cli::exec_sibling("tocada-hall", &args);
            eprintln!("tocada hall: {err}");
            ExitCode::from(err.exit_code())
        }
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

/// `tocada check-config`: a summary and each preset in words, 0; or the
/// key at fault and 78.
fn check_config(file: &std::path::Path) -> ExitCode {
    match tocada::config::Config::load(file) {
        Ok(config) => {
            // Written, not printed: a reader that goes away (`| head -1`)
            // is a write error, as for replay and export, not a panic.
            let mut out = io::stdout().lock();
            let written = writeln!(out, "{}: ok: {}", file.display(), config.summary())
                .and_then(|()| {
                    config
                        .presets
                        .iter()
                        .try_for_each(|preset| writeln!(out, "  {}", preset.describe()))
                })
                .and_then(|()| out.flush());
            for warning in config.warnings() {
                eprintln!("{}: warning: {warning}", file.display());
            }
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("tocada check-config: {err}");
                    ExitCode::from(tocada::exit::EX_IOERR)
                }
            }
        }
        Err(err) => {
            eprintln!("{err}");
            ExitCode::from(err.exit_code())
        }
    }
}
