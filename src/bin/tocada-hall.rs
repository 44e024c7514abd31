//! `tocada-hall`: the hall of issue 14 on the arbiter's machine. Thin: the
//! command line here, everything else in `tocada::hall`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tocada::exit::{EX_DATAERR, EX_IOERR};
use tocada::hall::cli::{Command, HallCli};
use tocada::hall::config::DEFAULT_PATH;
use tocada::hall::{HallConfig, hash_password};

fn main() -> ExitCode {
    let cli = HallCli::parse();
    match cli.command.unwrap_or(Command::Run {
        config: PathBuf::from(DEFAULT_PATH),
    }) {
        Command::Run { config } => run(config),
        Command::CheckConfig { file, config } => {
            let config_path = file
                .or(config)
                .unwrap_or_else(|| PathBuf::from(DEFAULT_PATH));
            check_config(&config_path)
        }
        Command::HashPassword => hash_from_stdin(),
    }
}

/// `tocada-hall check-config`: what `run` reads before it starts, read the
/// same way, so that "ok" means `run` starts.
fn check_config(config_path: &std::path::Path) -> ExitCode {
    match HallConfig::load(config_path) {
        Ok(config) => {
            // The credentials and the token are read at start: read here
            // the same way, so a missing one is found before the round.
            if let Err(err) = tocada::hall::runner::check(&config) {
                eprintln!("tocada-hall: {}: {err}", config_path.display());
                return ExitCode::from(err.exit_code());
            }
            println!(
                "{}: ok: hall {:?}, broker {}:{}, listening on {}, {} arbiter(s), {} board(s) paired, public PGN {}{}",
                config_path.display(),
                config.hall,
                config.broker.host,
                config.broker.port,
                config.listen,
                config.arbiters.len(),
                config.round.pairings.len(),
                if config.public_pgn { "on" } else { "off" },
                match config.public_listen {
                    Some(at) => format!(
                        ", public side on {at} ({})",
                        if config.public_rulings {
                            "with rulings"
                        } else {
                            "without rulings"
                        }
                    ),
                    None => String::new(),
                },
            );
            if let Some(push) = &config.push {
                println!(
                    "pushing the round's PGN to {} every {} s",
                    push.url, push.every_s
                );
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("tocada-hall: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

fn hash_from_stdin() -> ExitCode {
    let mut input = String::new();
    if let Err(err) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("tocada-hall: cannot read the password: {err}");
        return ExitCode::from(EX_IOERR);
    }
    let password = input.lines().next().unwrap_or("");
    if password.is_empty() {
        eprintln!("tocada-hall: no password on standard input (its first line)");
        return ExitCode::from(EX_DATAERR);
    }
    match hash_password(password) {
        Ok(hash) => {
            println!("{hash}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("tocada-hall: {why}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: PathBuf) -> ExitCode {
    tocada::logging::init(None);
    let config = match HallConfig::load(&path) {
        Ok(config) => config,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("tocada-hall: {err}");
            return ExitCode::from(err.exit_code());
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tocada-hall: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(tocada::hall::runner::run_both(config, |address, public| {
        // Type=notify: systemd hears the hall is up once it listens.
        let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);
        println!("tocada-hall: listening on http://{address}");
        if let Some(public) = public {
            // Whoever started the hall may have read the first line only
            // and closed its end: a second line must not stop the hall.
            use std::io::Write;
            let _ = writeln!(
                std::io::stdout(),
                "tocada-hall: public side on http://{public}"
            );
        }
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("tocada-hall: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
