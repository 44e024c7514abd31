//! `tocada-hall`: the hall of issue 14 on the arbiter's machine. Thin: the
//! command line here, everything else in `tocada::hall`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tocada::exit::{EX_DATAERR, EX_IOERR, EX_NOINPUT};
use tocada::hall::cli::{Command, HallCli, ResultsFormat};
use tocada::hall::config::DEFAULT_PATH;
use tocada::hall::{Hall, HallConfig, HallStore, hash_password, pairings};

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
        Command::Pairings {
            config,
            round,
            file,
        } => import_pairings(&config, round, &file),
        Command::Results {
            config,
            round,
            format,
        } => print_results(&config, round, format),
        Command::Rounds { config } => list_rounds(&config),
        Command::HashPassword => hash_from_stdin(),
    }
}

/// The configuration at `path`, or the exit code that says why not.
fn load(path: &std::path::Path) -> Result<HallConfig, ExitCode> {
    HallConfig::load(path).map_err(|err| {
        eprintln!("tocada-hall: {err}");
        ExitCode::from(err.exit_code())
    })
}

/// `tocada-hall pairings`: the file parsed, then stored in one
/// transaction; the running hall sees the new import within a second.
fn import_pairings(config_path: &std::path::Path, round: u32, file: &std::path::Path) -> ExitCode {
    let config = match load(config_path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("tocada-hall: {}: {err}", file.display());
            return ExitCode::from(EX_NOINPUT);
        }
    };
    // Pairing programs on Windows write Latin-1 as often as UTF-8.
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => err.into_bytes().iter().map(|&b| b as char).collect(),
    };
    let boards = match pairings::parse(&text, round) {
        Ok(boards) => boards,
        Err(err) => {
            eprintln!("tocada-hall: {}: {err}", file.display());
            return ExitCode::from(EX_DATAERR);
        }
    };
    let format = if pairings::is_trf(&text) {
        "trf"
    } else {
        "csv"
    };
    // Pairings may come before the hall's first run: its store's
    // directory made as `run` makes it.
    if let Some(dir) = config.store.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(err) = std::fs::create_dir_all(dir)
    {
        eprintln!("tocada-hall: {}: {err}", dir.display());
        return ExitCode::from(EX_IOERR);
    }
    let stored = HallStore::open(&config.store, &config.hall).and_then(|mut store| {
        store.import_round(round, format, &text, &boards, tocada::hall::web::wall_ms())
    });
    match stored {
        Ok(_) => {
            println!(
                "round {round}: {} board(s) imported from {} ({format}) into {}",
                boards.len(),
                file.display(),
                config.store.display()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("tocada-hall: {}: {err}", config.store.display());
            ExitCode::from(EX_IOERR)
        }
    }
}

/// `tocada-hall results`: every game rebuilt from the store, as `run`
/// does, and the round's results printed.
fn print_results(config_path: &std::path::Path, round: u32, format: ResultsFormat) -> ExitCode {
    let config = match load(config_path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let text = Hall::open(&config.hall, &config.store, config.round.clone())
        .and_then(|mut hall| hall.results_text(round, format));
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("tocada-hall: {}: {err}", config.store.display());
            ExitCode::from(EX_IOERR)
        }
    }
}

/// `tocada-hall rounds`: one line per imported round.
fn list_rounds(config_path: &std::path::Path) -> ExitCode {
    let config = match load(config_path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let listed = HallStore::open(&config.store, &config.hall).and_then(|store| {
        let newest = store.newest_import()?.map(|(round, _)| round);
        for imported in store.rounds()? {
            let boards = store.pairings(imported.round)?.len();
            println!(
                "round {}: {boards} board(s), {}{}",
                imported.round,
                imported.format,
                if newest == Some(imported.round) {
                    ", played now"
                } else {
                    ""
                }
            );
        }
        Ok(())
    });
    match listed {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tocada-hall: {}: {err}", config.store.display());
            ExitCode::from(EX_IOERR)
        }
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
