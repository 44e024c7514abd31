//! Pushing the round's PGN to a live broadcast (`[push]` in the hall's
//! configuration): the text of `/pgn/round`, POSTed whole with
//! `Authorization: Bearer <token>`, the way lichess's broadcast endpoint
//! `POST /api/broadcast/round/{id}/push` takes it (`text/plain`; its
//! answer, 200 with a result per game, is logged as a success).
//!
//! [`Pacer`] is the sans-IO part: when the next push may go. The task
//! ([`run`]) pushes when the round's PGN changed since the last push that
//! succeeded, never twice within `every_s`, and after a failure
//! (connection refused, a status other than 2xx, no answer) backs off,
//! doubling up to [`MAX_BACKOFF_MS`]. It only reads the hall: a dead
//! endpoint never slows ingest down.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{Request, StatusCode, header};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

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
    /// The endpoint (`http://`).
    pub url: axum::http::Uri,
    /// The bearer token: never logged.
    pub token: String,
    /// The least time between two pushes.
    pub every: Duration,
}

/// Pushes the round's PGN of `shared` to `target` as it changes, until
/// the task is aborted.
pub async fn run(target: Target, shared: Arc<Shared>) {
    let client: Client<HttpConnector, String> = Client::builder(TokioExecutor::new()).build_http();
    let mut changes = shared.subscribe();
    let start = tokio::time::Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut pacer = Pacer::new(target.every.as_millis() as u64);
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
        match push(&client, &target, pgn.clone()).await {
            Ok(status) => {
                pacer.succeeded(at);
                tracing::info!(url = %target.url, %status, bytes = pgn.len(), "round pushed");
                pushed = Some(pgn);
            }
            Err(why) => {
                pacer.failed(at);
                tracing::warn!(
                    url = %target.url,
                    failures = pacer.failures(),
                    retry_in_ms = pacer.wait_ms(),
                    "push failed: {why}"
                );
            }
        }
    }
}

async fn push(
    client: &Client<HttpConnector, String>,
    target: &Target,
    pgn: String,
) -> Result<StatusCode, String> {
    let request = Request::post(target.url.clone())
        .header(header::AUTHORIZATION, format!("Bearer {}", target.token))
        // As lichess documents its push: raw PGN as text/plain.
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(pgn)
        .map_err(|err| err.to_string())?;
    let response = tokio::time::timeout(TIMEOUT, client.request(request))
        .await
        .map_err(|_| format!("no answer within {} s", TIMEOUT.as_secs()))?
        .map_err(|err| err.to_string())?;
    let status = response.status();
    if status.is_success() {
        Ok(status)
    } else {
        Err(format!("answered {status}"))
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
