//! A broadcast's "push PGN" endpoint over HTTPS on loopback, with
//! certificate authorities made at test time (rcgen): no key is checked
//! in, and each run's CA is one nobody else trusts. The stand-in records
//! every request that got through TLS and counts the handshakes that did
//! not; the certificate it serves can be changed while it runs.

// Each test binary uses what it needs of this module.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls::ServerConfig;
use rustls::pki_types::PrivateKeyDer;

/// A certificate authority of the test's own.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl TestCa {
    /// A new CA called `name`, with a new key.
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        TestCa { issuer }
    }

    /// The CA's certificate, PEM: what `push.ca_file` holds.
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server's TLS configuration with a certificate this CA signed for
    /// `127.0.0.1` and `localhost`.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        let key = KeyPair::generate().unwrap();
        let params =
            CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
        let leaf = params.signed_by(&key, &self.issuer).unwrap();
        let chain = vec![leaf.der().clone(), self.issuer.der().clone()];
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(chain, PrivateKeyDer::from(key))
                .unwrap();
        Arc::new(config)
    }
}

/// One request the stand-in received over TLS.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// The request's path.
    pub path: String,
    /// Its `Authorization` header.
    pub authorization: String,
    /// Its `Content-Type` header.
    pub content_type: String,
    /// Its body.
    pub body: String,
}

/// The HTTPS stand-in, answering 200 to every request; it runs until the
/// test ends.
pub struct HttpsStandIn {
    /// Where it listens (loopback).
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Pushed>>>,
    serving: Arc<Mutex<Arc<ServerConfig>>>,
    refused: Arc<AtomicUsize>,
}

impl HttpsStandIn {
    /// Starts it on a free loopback port, serving `config`'s certificate.
    pub fn start(config: Arc<ServerConfig>) -> HttpsStandIn {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let stand_in = HttpsStandIn {
            addr,
            received: Arc::default(),
            serving: Arc::new(Mutex::new(config)),
            refused: Arc::default(),
        };
        let received = Arc::clone(&stand_in.received);
        let serving = Arc::clone(&stand_in.serving);
        let refused = Arc::clone(&stand_in.refused);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        continue;
                    };
                    let config = Arc::clone(&serving.lock().unwrap());
                    let received = Arc::clone(&received);
                    let refused = Arc::clone(&refused);
                    tokio::spawn(async move {
                        let Ok(tls) = tokio_rustls::TlsAcceptor::from(config).accept(tcp).await
                        else {
                            // The client refused the certificate (or hung up).
                            refused.fetch_add(1, Ordering::SeqCst);
                            return;
                        };
                        let service = hyper::service::service_fn(move |request| {
                            let received = Arc::clone(&received);
                            async move {
                                let pushed = read(request).await;
                                received.lock().unwrap().push(pushed);
                                Ok::<_, std::convert::Infallible>(hyper::Response::new(
                                    axum::body::Body::from("{\"games\":[]}"),
                                ))
                            }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                            .await;
                    });
                }
            });
        });
        stand_in
    }

    /// From the next connection on, serves `config`'s certificate.
    pub fn serve(&self, config: Arc<ServerConfig>) {
        *self.serving.lock().unwrap() = config;
    }

    /// What it received, in order.
    pub fn received(&self) -> Vec<Pushed> {
        self.received.lock().unwrap().clone()
    }

    /// Connections whose TLS handshake failed.
    pub fn refused_handshakes(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }
}

async fn read(request: hyper::Request<hyper::body::Incoming>) -> Pushed {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    let path = request.uri().path().to_owned();
    let authorization = header("authorization");
    let content_type = header("content-type");
    let body = axum::body::to_bytes(axum::body::Body::new(request.into_body()), 1 << 24)
        .await
        .unwrap();
    Pushed {
        path,
        authorization,
        content_type,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}
