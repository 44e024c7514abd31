//! `tocada-publish` (also `tocada publish`): follows the clock's game store
//! and publishes every event to the hall's MQTT broker, as `[publish]` in
//! the clock's configuration says. Thin glue: the work is in
//! `tocada::publish`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use tocada::broker::Credentials;
use tocada::config::{self, Config};
use tocada::exit::{EX_CANTCREAT, EX_CONFIG, FAILURE};
use tocada::publish::{self, Options, PublishCli, PublishCommand, PublishError, STATE_DIRECTORY};

fn main() -> ExitCode {
    let mut args = PublishCli::parse();
    if let Some(PublishCommand::CheckConfig { file, config }) = args.command.take() {
        if let Some(path) = file.or(config) {
            args.config = path;
        }
        return match options(&args) {
            Ok(options) => {
                println!(
                    "{}: ok: publishing to {} under {}, from the store {}, state in {}",
                    args.config.display(),
                    options.broker,
                    options.address.root(),
                    options.store.display(),
                    options.state_directory.display()
                );
                ExitCode::SUCCESS
            }
            Err((code, message)) => {
                eprintln!("tocada-publish: {message}");
                ExitCode::from(code)
            }
        };
    }
    tocada::logging::init(None);
    match options(&args) {
        Ok(options) => run(options),
        Err((code, message)) => {
            tracing::error!("{message}");
            eprintln!("tocada-publish: {message}");
            ExitCode::from(code)
        }
    }
}

/// Everything checked before the first connection.
fn options(args: &PublishCli) -> Result<Options, (u8, String)> {
    // The clock's own state directory is the default store's, whatever
    // this unit's $STATE_DIRECTORY says.
    let config = Config::load_with_state(&args.config, Path::new(config::STATE_DIRECTORY))
        .map_err(|err| (err.exit_code(), err.to_string()))?;
    let Some(publish) = config.publish else {
        return Err((
            EX_CONFIG,
            format!(
                "{}: no [publish] section: publishing is off (the file shipped in \
                 /etc/tocada shows the section, commented out)",
                args.config.display()
            ),
        ));
    };
    let credentials = publish
        .credentials
        .as_deref()
        .map(|path| Credentials::load(path, "publish.credentials"))
        .transpose()
        .map_err(PublishError::Credentials)
        .map_err(|err| (err.exit_code(), err.to_string()))?;
    let state_directory = args.state.clone().unwrap_or_else(|| {
        std::env::var_os("STATE_DIRECTORY")
            .and_then(|dirs| {
                std::env::split_paths(&dirs)
                    .next()
                    .filter(|dir| dir.is_absolute())
            })
            .unwrap_or_else(|| PathBuf::from(STATE_DIRECTORY))
    });
    if !state_directory.is_dir() {
        return Err((
            EX_CANTCREAT,
            format!(
                "the publisher's state directory {} is not a directory (--state)",
                state_directory.display()
            ),
        ));
    }
    // Without an identity a clone could not be told from this clock: it
    // would take the board as its own and the two would kick each other.
    let claim = publish::this_claim(&state_directory).map_err(|err| {
        let code = match err {
            publish::IdentityError::RuntimeFile { .. } => EX_CANTCREAT,
            publish::IdentityError::Nothing => EX_CONFIG,
        };
        (code, err.to_string())
    })?;
    Ok(Options {
        broker: publish.broker,
        address: publish.address,
        credentials,
        store: args
            .store
            .clone()
            .unwrap_or_else(|| config.state.directory.join(tocada::store::DB_FILE)),
        claim,
        state_directory,
        from_start: args.from_start,
        pairing_file: Some(publish.pairing_file),
    })
}

fn run(options: Options) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tocada-publish: cannot start: {err}");
            return ExitCode::from(FAILURE);
        }
    };
    tracing::info!(
        broker = %options.broker,
        topics = %options.address.root(),
        store = %options.store.display(),
        "publishing"
    );
    match runtime.block_on(publish::run(options, shutdown())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err}");
            eprintln!("tocada-publish: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// SIGTERM (systemd's stop) or SIGINT (Ctrl-C).
async fn shutdown() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // Without signal handlers the default action still ends the
        // process; only the clean goodbye is lost.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
