//! The thin runner of `tocada-hall run`: the store opened, the MQTT
//! subscription and the web server started on one tokio runtime, until
//! SIGTERM or Ctrl-C.

use std::fmt;
use std::sync::Arc;

use super::config::{HallConfig, read_token};
use super::ingest::Hall;
use super::mqtt::{self, Subscription};
use super::push;
use super::rounds;
use super::serve::{ServeLimits, serve};
use super::web::{Shared, public_router, router};
use crate::broker::Credentials;
use crate::exit::{EX_CONFIG, EX_IOERR};

/// Why the hall could not run.
#[derive(Debug)]
pub enum RunError {
    /// The broker's credentials file cannot be read, or is not one
    /// `user:password` line: the message names the file and the key.
    Credentials(String),
    /// The push cannot start: the key at fault (`push.token_file`,
    /// `push.ca_file`, or `push.url` when the OS has no roots) and why.
    Push(String),
    /// The store cannot be opened.
    Store(String),
    /// The listen address cannot be bound.
    Listen(String),
    /// The server failed.
    Serve(String),
}

impl RunError {
    /// The exit code ([`crate::exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Credentials(_) | RunError::Push(_) => EX_CONFIG,
            RunError::Store(_) | RunError::Listen(_) | RunError::Serve(_) => EX_IOERR,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Credentials(why) => write!(f, "{why}"),
            RunError::Push(why) => write!(f, "{why}"),
            RunError::Store(why) => write!(f, "store: {why}"),
            RunError::Listen(why) => write!(f, "listen: {why}"),
            RunError::Serve(why) => write!(f, "server: {why}"),
        }
    }
}

impl std::error::Error for RunError {}

/// What `tocada-hall check-config` checks beyond the configuration
/// itself: the files it names and the push's URL, read exactly as
/// [`run`] reads them before it starts, so that a configuration it passes
/// does not stop `run` with [`EX_CONFIG`].
pub fn check(config: &HallConfig) -> Result<(), RunError> {
    read_files(config).map(drop)
}

/// The broker's credentials and the push's target, read from the files the
/// configuration names.
fn read_files(
    config: &HallConfig,
) -> Result<(Option<Credentials>, Option<push::Target>), RunError> {
    let credentials = match &config.credentials {
        Some(path) => Some(
            Credentials::load(path, "credentials")
                .map_err(|err| RunError::Credentials(err.to_string()))?,
        ),
        None => None,
    };
    let push_target = match &config.push {
        Some(push) => {
            let url: axum::http::Uri = push
                .url
                .parse()
                .map_err(|err| RunError::Push(format!("push.url: {err}")))?;
            let token = read_token(&push.token_file)
                .map_err(|why| RunError::Push(format!("push.token_file: {why}")))?;
            // The roots are read once, here: check-config finds a bad CA
            // file or an empty OS store as run would.
            let tls = push::tls_for(&url, push.ca_file.as_deref()).map_err(|why| {
                let key = if push.ca_file.is_some() {
                    "push.ca_file"
                } else {
                    "push.url"
                };
                RunError::Push(format!("{key}: {why}"))
            })?;
            Some(push::Target {
                url,
                token,
                every: std::time::Duration::from_secs(push.every_s),
                tls: Arc::new(tls),
            })
        }
        None => None,
    };
    Ok((credentials, push_target))
}

/// Runs the hall of `config` until SIGTERM or Ctrl-C. `ready` is called
/// with the address the web side listens on once it does.
pub async fn run(
    config: HallConfig,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), RunError> {
    run_until(config, ready, shutdown()).await
}

/// The same, `ready` told both addresses: the arbiter's side's, and the
/// public side's if `public_listen` is set.
pub async fn run_both(
    config: HallConfig,
    ready: impl FnOnce(std::net::SocketAddr, Option<std::net::SocketAddr>),
) -> Result<(), RunError> {
    run_both_until(config, ready, shutdown()).await
}

/// Runs the hall of `config` until `stop` completes (the tests' way to
/// stop one).
pub async fn run_until(
    config: HallConfig,
    ready: impl FnOnce(std::net::SocketAddr),
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), RunError> {
    run_both_until(config, |arbiter, _| ready(arbiter), stop).await
}

/// The same, `ready` told both addresses: the arbiter's side's and the
/// public side's, if `public_listen` is set.
pub async fn run_both_until(
    config: HallConfig,
    ready: impl FnOnce(std::net::SocketAddr, Option<std::net::SocketAddr>),
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), RunError> {
    let (credentials, push_target) = read_files(&config)?;
    if let Some(dir) = config.store.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|err| RunError::Store(format!("{}: {err}", dir.display())))?;
    }
    let hall = Hall::open(&config.hall, &config.store, config.round.clone())
        .map_err(|err| RunError::Store(format!("{}: {err}", config.store.display())))?;
    let shared = Shared::with_limits(
        hall,
        config.arbiters.clone(),
        config.public_pgn,
        &config.limits,
    );
    shared.set_public_rulings(config.public_rulings);
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|err| RunError::Listen(format!("{}: {err}", config.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|err| RunError::Listen(err.to_string()))?;
    tracing::info!(hall = %config.hall, %address, store = %config.store.display(), "hall serving");
    let public = match config.public_listen {
        Some(at) => {
            let listener = tokio::net::TcpListener::bind(at)
                .await
                .map_err(|err| RunError::Listen(format!("public_listen {at}: {err}")))?;
            let address = listener
                .local_addr()
                .map_err(|err| RunError::Listen(err.to_string()))?;
            tracing::info!(%address, rulings = config.public_rulings, "public side serving");
            Some((listener, address))
        }
        None => None,
    };
    let subscription = Subscription {
        hall: config.hall.clone(),
        host: config.broker.host.clone(),
        port: config.broker.port,
        client_id: config.client_id.clone(),
        credentials,
    };
    let mqtt = tokio::spawn(mqtt::run(subscription, Arc::clone(&shared)));
    let pusher = push_target.map(|target| {
        tracing::info!(url = %target.url, every_s = target.every.as_secs(), "pushing the round's PGN");
        tokio::spawn(push::run(target, Arc::clone(&shared)))
    });
    // A round imported by `tocada-hall pairings` (another process, the
    // same store) is played from the next second on.
    let rounds = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                every.tick().await;
                let changed = shared.hall().reload_round();
                match changed {
                    Ok(true) => {
                        tracing::info!(round = %shared.hall().round_number(), "round imported: its pairings played");
                        shared.notify();
                    }
                    Ok(false) => {}
                    Err(err) => tracing::warn!("reading the imported rounds: {err}"),
                }
            }
        })
    };
    ready(address, public.as_ref().map(|(_, address)| *address));
    // Graceful, but not forever: a live page's event stream never ends
    // by itself, so open connections get two seconds after the stop.
    let limits = ServeLimits {
        connections: config.limits.connections,
        per_address: config.limits.connections_per_address,
        header_timeout: config.limits.header_timeout,
    };
    // One stop for both sides: the public one stops with the arbiter's.
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let public = public.map(|(listener, _)| {
        let mut stopped = stopped.clone();
        tokio::spawn(serve(
            listener,
            public_router(Arc::clone(&shared)),
            limits,
            async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            },
            std::time::Duration::from_secs(2),
        ))
    });
    serve(
        listener,
        router(Arc::clone(&shared)).merge(rounds::routes(shared)),
        limits,
        async move {
            stop.await;
            let _ = stopping.send(true);
        },
        std::time::Duration::from_secs(2),
    )
    .await;
    if let Some(public) = public {
        let _ = public.await;
    }
    mqtt.abort();
    rounds.abort();
    if let Some(pusher) = pusher {
        pusher.abort();
    }
    Ok(())
}

async fn shutdown() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async {
            match term.as_mut() {
                Some(term) => { term.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
    tracing::info!("hall stopping");
}
