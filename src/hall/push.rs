//! Pushing the round's PGN to a live broadcast (`[push]` in the hall's
//! configuration): the text of `/pgn/round`, POSTed whole with
//! `Authorization: Bearer <token>`, the way lichess's broadcast endpoint
//! `POST /api/broadcast/round/{id}/push` takes it (`text/plain`; its
//! answer, 200 with a result per game, is logged as a success).
//!
//! A hall behind a club's router cannot be polled from the internet, so
//! it pushes, over HTTPS to lichess itself or over plain HTTP to a relay on
//! the LAN. HTTPS is rustls's: the server's certificate is always checked,
//! against the OS's roots or against the CA of `push.ca_file` alone
//! ([`tls_config`]); a certificate that fails is a failed push like any
//! other, logged with the reason and backed off.
//!
//! [`Pacer`] is the sans-IO part: when the next push may go. The task
//! ([`run`]) pushes when the round's PGN changed since the last push that
//! succeeded, never twice within `every_s`, and after a failure
//! (connection refused, a certificate refused, a status other than 2xx, no
//! answer) backs off, doubling up to [`MAX_BACKOFF_MS`]. It only reads the
//! hall: a dead endpoint never slows ingest down.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{Request, StatusCode, header};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::ClientConfig;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use super::web::Shared;

/// The longest wait between two attempts while the endpoint fails.
pub const MAX_BACKOFF_MS: u64 = 60_000;

/// How long one push may take before it counts as failed.
const TIMEOUT: Duration = Duration::from_secs(10);

/// When the next push may go: at least `every` after the last attempt,
/// longer after failures. Time is milliseconds passed in.
#[derive(Debug, Clone)]
pub struct Pacer {
    every_ms: u64,
    last_attempt: Option<u64>,
    last_check: Option<u64>,
    failures: u32,
}

impl Pacer {
    /// A pacer allowing one push every `every_ms`.
    pub fn new(every_ms: u64) -> Pacer {
        Pacer {
            every_ms: every_ms.max(1),
            last_attempt: None,
            last_check: None,
            failures: 0,
        }
    }

    /// The earliest time the next push may go, and the round's PGN be
    /// read again to see whether it changed: reading it holds the hall,
    /// so not more than once an interval either.
    pub fn next_at(&self) -> u64 {
        let pushed = self
            .last_attempt
            .map_or(0, |last| last.saturating_add(self.wait_ms()));
        let checked = self
            .last_check
            .map_or(0, |last| last.saturating_add(self.every_ms));
        pushed.max(checked)
    }

    /// The round's PGN, read at `now`, was what was last pushed: nothing
    /// to push.
    pub fn unchanged(&mut self, now: u64) {
        self.last_check = Some(now);
    }

    /// The wait after the last attempt: `every`, doubled for each failure
    /// in a row, up to [`MAX_BACKOFF_MS`] (never below `every`).
    pub fn wait_ms(&self) -> u64 {
        let doubled = self.every_ms.saturating_mul(1u64 << self.failures.min(20));
        if self.failures == 0 {
            self.every_ms
        } else {
            doubled.min(MAX_BACKOFF_MS.max(self.every_ms))
        }
    }

    /// A push that went at `now` succeeded.
    pub fn succeeded(&mut self, now: u64) {
        self.last_attempt = Some(now);
        self.failures = 0;
    }

    /// A push that went at `now` failed.
    pub fn failed(&mut self, now: u64) {
        self.last_attempt = Some(now);
        self.failures = self.failures.saturating_add(1);
    }

    /// Failed attempts since the last success.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

/// Where and how to push.
pub struct Target {
    /// The endpoint (`https://` or `http://`).
    pub url: axum::http::Uri,
    /// The bearer token: never logged.
    pub token: String,
    /// The least time between two pushes.
    pub every: Duration,
    /// What an `https://` endpoint's certificate is checked against
    /// ([`tls_for`]).
    pub tls: Arc<ClientConfig>,
}

/// Why the push's TLS cannot be set up: `check-config` and `run` refuse
/// to start with it.
#[derive(Debug)]
pub enum TlsError {
    /// `push.ca_file` cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `push.ca_file` holds no PEM certificate, or one that is not a CA
    /// certificate rustls can use.
    CaFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The OS's certificate store gave no root to check a server against.
    NoOsRoots {
        /// What the store's loader reported, if anything.
        why: String,
    },
    /// rustls refused the configuration (its provider offers no protocol
    /// version it may use).
    Rustls(rustls::Error),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            TlsError::CaFile { path, why } => write!(
                f,
                "{}: {why}: expected the CA's certificates, PEM (BEGIN CERTIFICATE)",
                path.display()
            ),
            TlsError::NoOsRoots { why } => write!(
                f,
                "no root certificate in the OS's store ({why}): install ca-certificates, or name the CA in push.ca_file"
            ),
            TlsError::Rustls(err) => write!(f, "TLS: {err}"),
        }
    }
}

impl std::error::Error for TlsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TlsError::Read { source, .. } => Some(source),
            TlsError::Rustls(err) => Some(err),
            TlsError::CaFile { .. } | TlsError::NoOsRoots { .. } => None,
        }
    }
}

/// The TLS client's configuration for an `https://` push: the server's
/// certificate checked against the certificates of `ca_file` alone (a
/// private CA, the way `curl --cacert` takes it), or without one against
/// the OS's roots (`/etc/ssl/certs`, `SSL_CERT_FILE` and `SSL_CERT_DIR`
/// honoured). Always checked: there is no switch to skip it. The crypto is
/// `ring`'s, named here rather than left to a process-wide default.
pub fn tls_config(ca_file: Option<&Path>) -> Result<ClientConfig, TlsError> {
    with_roots(roots(ca_file)?)
}

/// The TLS client's configuration for pushing to `url`: [`tls_config`]
/// for an `https://` one; an `http://` one never reaches TLS, so it gets
/// one that trusts nothing rather than reading the OS's store (a relay on
/// the LAN needs no ca-certificates).
pub fn tls_for(url: &axum::http::Uri, ca_file: Option<&Path>) -> Result<ClientConfig, TlsError> {
    if url.scheme() == Some(&axum::http::uri::Scheme::HTTPS) {
        tls_config(ca_file)
    } else {
        with_roots(rustls::RootCertStore::empty())
    }
}

/// The roots of `ca_file`, or the OS's.
fn roots(ca_file: Option<&Path>) -> Result<rustls::RootCertStore, TlsError> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|source| TlsError::Read {
                path: path.to_owned(),
                source,
            })?;
            let bad = |why: String| TlsError::CaFile {
                path: path.to_owned(),
                why,
            };
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|err| bad(format!("not PEM: {err}")))?;
                roots
                    .add(cert)
                    .map_err(|err| bad(format!("a certificate rustls refuses: {err}")))?;
            }
            if roots.is_empty() {
                return Err(bad("no certificate in it".to_owned()));
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _ignored) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                let why = match found.errors.first() {
                    Some(err) => err.to_string(),
                    None => "none found".to_owned(),
                };
                return Err(TlsError::NoOsRoots { why });
            }
        }
    }
    Ok(roots)
}

/// A client configuration checking servers against `roots`.
fn with_roots(roots: rustls::RootCertStore) -> Result<ClientConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Rustls)?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Sends pushes to one [`Target`]: its HTTP(S) client and what it sends.
pub struct Pusher {
    target: Target,
    client: Client<HttpsConnector<HttpConnector>, String>,
}

impl Pusher {
    /// A pusher for `target`, its connections made as they are needed.
    pub fn new(target: Target) -> Pusher {
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(ClientConfig::clone(&target.tls))
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Pusher { target, client }
    }

    /// What is pushed to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// POSTs `pgn` once: the status if it was 2xx, otherwise why not, in
    /// words for the log (never the token).
    pub async fn push(&self, pgn: String) -> Result<StatusCode, String> {
        let request = Request::post(self.target.url.clone())
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", self.target.token),
            )
            // As lichess documents its push: raw PGN as text/plain.
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(pgn)
            .map_err(|err| err.to_string())?;
        let response = tokio::time::timeout(TIMEOUT, self.client.request(request))
            .await
            .map_err(|_| format!("no answer within {} s", TIMEOUT.as_secs()))?
            .map_err(|err| causes(&err))?;
        let status = response.status();
        if status.is_success() {
            Ok(status)
        } else {
            Err(format!("answered {status}"))
        }
    }
}

/// An error and its causes, one after the other: hyper's own text is
/// only "client error (Connect)", the reason (a refused certificate, a
/// refused connection) is further down.
fn causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        // io::Error shows its inner error's text and gives it as source too.
        if !text.ends_with(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

/// Pushes the round's PGN of `shared` to `target` as it changes, until
/// the task is aborted.
pub async fn run(target: Target, shared: Arc<Shared>) {
    let every_ms = target.every.as_millis() as u64;
    let pusher = Pusher::new(target);
    let mut changes = shared.subscribe();
    let start = tokio::time::Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut pacer = Pacer::new(every_ms);
    // An empty round has nothing to broadcast: the first push waits for a
    // game (at once after a restart with games in the store).
    let mut pushed: Option<String> = Some(String::new());
    loop {
        let wait = pacer.next_at().saturating_sub(now());
        if wait > 0 {
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
        // The latest text, with whatever came in while waiting.
        changes.mark_unchanged();
        let audience = shared.public_audience();
        let pgn = shared.hall().round_pgn_for(audience);
        let at = now();
        if pushed.as_ref() == Some(&pgn) {
            // Nothing new: wait for the hall to change.
            pacer.unchanged(at);
            if changes.changed().await.is_err() {
                return;
            }
            continue;
        }
        let url = &pusher.target().url;
        match pusher.push(pgn.clone()).await {
            Ok(status) => {
                pacer.succeeded(at);
                tracing::info!(%url, %status, bytes = pgn.len(), "round pushed");
                pushed = Some(pgn);
            }
            Err(why) => {
                pacer.failed(at);
                tracing::warn!(
                    %url,
                    failures = pacer.failures(),
                    retry_in_ms = pacer.wait_ms(),
                    "push failed: {why}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_push_goes_at_once_then_one_per_interval() {
        let mut pacer = Pacer::new(5_000);
        assert_eq!(pacer.next_at(), 0);
        pacer.succeeded(1_000);
        assert_eq!(pacer.next_at(), 6_000);
        pacer.succeeded(6_200);
        assert_eq!(pacer.next_at(), 11_200);
    }

    #[test]
    fn failures_back_off_doubling_to_a_ceiling_and_a_success_resets() {
        let mut pacer = Pacer::new(5_000);
        pacer.failed(0);
        assert_eq!(pacer.next_at(), 10_000);
        pacer.failed(10_000);
        assert_eq!(pacer.next_at(), 30_000);
        pacer.failed(30_000);
        assert_eq!(pacer.wait_ms(), 40_000);
        for t in 1..40 {
            pacer.failed(t * 100_000);
        }
        assert_eq!(pacer.wait_ms(), MAX_BACKOFF_MS);
        assert_eq!(pacer.failures(), 42);
        pacer.succeeded(5_000_000);
        assert_eq!(pacer.next_at(), 5_005_000);
        assert_eq!(pacer.failures(), 0);
    }

    #[test]
    fn an_unchanged_round_is_read_again_no_sooner_than_an_interval() {
        let mut pacer = Pacer::new(5_000);
        pacer.succeeded(1_000);
        pacer.unchanged(7_000);
        assert_eq!(pacer.next_at(), 12_000);
        // Backing off counts from the failed push, reading from the read.
        pacer.failed(12_000);
        pacer.unchanged(12_500);
        assert_eq!(pacer.next_at(), 22_000);
        pacer.unchanged(30_000);
        assert_eq!(pacer.next_at(), 35_000);
    }

    #[test]
    fn an_interval_longer_than_the_ceiling_is_kept() {
        let mut pacer = Pacer::new(120_000);
        pacer.failed(0);
        assert_eq!(pacer.wait_ms(), 120_000);
    }
}
