//! The hall's HTTP server loop: hyper's HTTP/1 server under the router,
//! with what `axum::serve` lacks against a visitor who would stop it
//! (slowloris): a time limit to send a request's headers, a cap on the
//! connections open at once, and a smaller one per address, so that a
//! thousand half-sent requests from one machine leave the page answering
//! everyone else.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

/// The client's address, put in every request's extensions for the
/// handlers (the login throttles by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// The server's limits ([`super::config::Limits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// Connections open at once.
    pub connections: usize,
    /// Connections open at once from one address.
    pub per_address: usize,
    /// The time to send a request's headers.
    pub header_timeout: Duration,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// One connection's place among the open ones, given back when dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    address: IpAddr,
}

impl Slot {
    fn take(open: &Arc<Mutex<Open>>, address: IpAddr, limits: ServeLimits) -> Option<Slot> {
        let mut counts = open.lock().unwrap_or_else(|p| p.into_inner());
        let here = counts.by_address.get(&address).copied().unwrap_or(0);
        if counts.total >= limits.connections || here >= limits.per_address {
            return None;
        }
        counts.total += 1;
        counts.by_address.insert(address, here + 1);
        Some(Slot {
            open: Arc::clone(open),
            address,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.open.lock().unwrap_or_else(|p| p.into_inner());
        counts.total = counts.total.saturating_sub(1);
        if let Some(n) = counts.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.by_address.remove(&self.address);
            }
        }
    }
}

/// Serves `router` on `listener` until `stop` completes; then open
/// connections are asked to close after their current request and get
/// `grace` to do it.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ServeLimits,
    stop: impl Future<Output = ()>,
    grace: Duration,
) {
    let open = Arc::new(Mutex::new(Open::default()));
    let (stopping, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut refused: u64 = 0;
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of file descriptors, most likely: wait for some to close.
                tracing::warn!("cannot accept a connection: {err}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = Slot::take(&open, peer.ip(), limits) else {
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(%peer, refused, "connection refused: too many open");
            }
            drop(stream);
            continue;
        };
        let router = router.clone();
        let mut stopped = stopped.clone();
        connections.spawn(async move {
            let _slot = slot;
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ClientAddr(peer));
                    router.clone().oneshot(request)
                });
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = async {
                    loop {
                        let stop = *stopped.borrow_and_update();
                        if stop || stopped.changed().await.is_err() {
                            break;
                        }
                    }
                } => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(err) = served {
                tracing::debug!(%peer, "connection ended: {err}");
            }
        });
    }
    let _ = stopping.send(true);
    let _ = tokio::time::timeout(grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.abort_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_capped_in_all_and_per_address_and_given_back() {
        let limits = ServeLimits {
            connections: 3,
            per_address: 2,
            header_timeout: Duration::from_secs(1),
        };
        let open = Arc::new(Mutex::new(Open::default()));
        let a: IpAddr = [127, 0, 0, 2].into();
        let b: IpAddr = [127, 0, 0, 1].into();
        let a1 = Slot::take(&open, a, limits).unwrap();
        let _a2 = Slot::take(&open, a, limits).unwrap();
        assert!(Slot::take(&open, a, limits).is_none());
        let b1 = Slot::take(&open, b, limits).unwrap();
        assert!(Slot::take(&open, b, limits).is_none(), "the total cap");
        drop(a1);
        drop(b1);
        assert!(Slot::take(&open, b, limits).is_some());
        assert_eq!(open.lock().unwrap().by_address.get(&b), None);
    }
}
