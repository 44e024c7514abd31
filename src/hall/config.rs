//! The hall's own configuration, `/etc/tocada/hall.toml`: a separate file
//! from the clock's, every value checked when it is loaded, each error
//! naming its key.
//!
//! ```toml
//! hall = "open-2026"                      # the topic level tocada/<hall>/…
//! broker = "mqtt://192.168.1.10:1883"     # Mosquitto on the LAN
//! credentials = "/etc/tocada/hall.credentials"  # one line: user:password
//! listen = "0.0.0.0:8080"                 # the arbiter's page and the feed
//! store = "/var/lib/tocada-hall/hall.sqlite"
//! public_pgn = true                       # /pgn/round and /pgn/<board>
//! public_listen = "0.0.0.0:8081"          # optional: the spectators' page and feed
//! public_rulings = false                  # rulings in the public feed (off)
//!
//! [round]
//! event = "Club open 2026"
//! site = "Casino de Madrid"
//! date = "2026.11.24"
//! round = "3"
//!
//! [[arbiter]]
//! name = "ana"
//! password_hash = "$argon2id$v=19$m=19456,t=2,p=1$…"  # tocada-hall hash-password
//!
//! [[board]]
//! number = 1
//! white = "Morphy, Paul"
//! black = "Anderssen, Adolf"
//!
//! [push]                                  # optional: off when absent
//! url = "https://lichess.org/api/broadcast/round/ROUNDID/push"  # or http://
//! token_file = "/etc/tocada/hall.push-token"   # one line: the bearer token
//! every_s = 5                             # at most one push per 5 s
//! ca_file = "/etc/tocada/club-ca.pem"     # optional: trust this CA alone
//!
//! [limits]                                # optional: these are the defaults
//! games_per_board = 200                   # games a board may have
//! held_per_board = 10000                  # events held back for an earlier one
//! events_per_board = 100000               # events a board may have in all
//! login_hashes = 2                        # password checks at once
//! login_free_failures = 3                 # failed logins before any wait
//! login_backoff_max_s = 60                # the longest wait after failures
//! connections = 1024                      # HTTP connections open at once
//! connections_per_address = 64            # ... from one address
//! header_timeout_s = 10                   # to send a request's headers
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::auth::BackoffPolicy;
use super::ingest::{Pairing, Quotas, Round};
use crate::broadcast::BoardAddress;
use crate::broker::BrokerUrl;
use crate::config::ConfigError;
use crate::config::file;

/// Where the hall's configuration is read unless told otherwise.
pub const DEFAULT_PATH: &str = "/etc/tocada/hall.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    hall: String,
    broker: String,
    credentials: Option<PathBuf>,
    client_id: Option<String>,
    #[serde(default = "default_listen")]
    listen: String,
    #[serde(default = "default_store")]
    store: PathBuf,
    #[serde(default = "yes")]
    public_pgn: bool,
    public_listen: Option<String>,
    #[serde(default)]
    public_rulings: bool,
    #[serde(default)]
    round: RawRound,
    #[serde(default)]
    arbiter: Vec<RawArbiter>,
    #[serde(default)]
    board: Vec<RawBoard>,
    push: Option<RawPush>,
    #[serde(default)]
    limits: RawLimits,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawLimits {
    games_per_board: usize,
    held_per_board: usize,
    events_per_board: usize,
    login_hashes: usize,
    login_free_failures: u32,
    login_backoff_max_s: u64,
    connections: usize,
    connections_per_address: usize,
    header_timeout_s: u64,
}

impl Default for RawLimits {
    fn default() -> Self {
        let limits = Limits::default();
        RawLimits {
            games_per_board: limits.quotas.games_per_board,
            held_per_board: limits.quotas.held_per_board,
            events_per_board: limits.quotas.events_per_board,
            login_hashes: limits.login_hashes,
            login_free_failures: limits.backoff.free_failures,
            login_backoff_max_s: limits.backoff.max_ms / 1000,
            connections: limits.connections,
            connections_per_address: limits.connections_per_address,
            header_timeout_s: limits.header_timeout.as_secs(),
        }
    }
}

/// What one clock or one visitor may take of the hall (`[limits]`), so
/// that none can stop it: docs/src/hall.md says why each is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Per-board quotas of games and held-back events.
    pub quotas: Quotas,
    /// Password checks (argon2, 19 MiB each) at once; a login beyond them
    /// is answered 503 at once, never queued.
    pub login_hashes: usize,
    /// Failed logins' back-off, per address and per name.
    pub backoff: BackoffPolicy,
    /// HTTP connections open at once; more are closed as they come.
    pub connections: usize,
    /// HTTP connections open at once from one address.
    pub connections_per_address: usize,
    /// The time a client has to send a request's headers.
    pub header_timeout: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            quotas: Quotas::default(),
            login_hashes: 2,
            backoff: BackoffPolicy::default(),
            connections: 1024,
            connections_per_address: 64,
            header_timeout: std::time::Duration::from_secs(10),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPush {
    url: String,
    token_file: PathBuf,
    #[serde(default = "default_every_s")]
    every_s: u64,
    ca_file: Option<PathBuf>,
}

fn default_every_s() -> u64 {
    5
}

fn default_listen() -> String {
    "0.0.0.0:8080".to_owned()
}

fn default_store() -> PathBuf {
    PathBuf::from("/var/lib/tocada-hall/hall.sqlite")
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRound {
    #[serde(default)]
    event: String,
    #[serde(default)]
    site: String,
    #[serde(default)]
    date: String,
    #[serde(default)]
    round: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArbiter {
    name: String,
    password_hash: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    number: u32,
    #[serde(default)]
    white: String,
    #[serde(default)]
    black: String,
}

/// An arbiter who may log in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arbiter {
    /// The login name, logged with every action.
    pub name: String,
    /// The argon2 PHC string (`tocada-hall hash-password`).
    pub password_hash: String,
}

/// Where the round's PGN is pushed: a live broadcast's "push PGN"
/// endpoint, as lichess's `POST /api/broadcast/round/{id}/push`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    /// The endpoint, `https://` or `http://`.
    pub url: String,
    /// The file whose first line is the bearer token (never logged).
    pub token_file: PathBuf,
    /// The least time between two pushes, in seconds.
    pub every_s: u64,
    /// The PEM file of the CA an `https://` endpoint's certificate is
    /// checked against instead of the OS's roots (a private CA).
    pub ca_file: Option<PathBuf>,
}

/// The hall's configuration, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallConfig {
    /// The hall's name, as in the clocks' topics.
    pub hall: String,
    /// The broker.
    pub broker: BrokerUrl,
    /// The file with the hall's broker login, `user:password` on one line.
    pub credentials: Option<PathBuf>,
    /// The MQTT client id: fixed, so the broker keeps the hall's session
    /// (and queues its events) while it is down.
    pub client_id: String,
    /// Where the web side listens.
    pub listen: SocketAddr,
    /// The hall's SQLite store.
    pub store: PathBuf,
    /// Whether `/pgn/…` answers without a login.
    pub public_pgn: bool,
    /// Where the public side listens, if anywhere: the spectators' page
    /// and the PGN feed, nothing of the arbiter's.
    pub public_listen: Option<SocketAddr>,
    /// Whether the rulings (warnings, penalties, claims…) are written in
    /// the public PGN feed too; the arbiter's always has them.
    pub public_rulings: bool,
    /// The round: tags and pairings.
    pub round: Round,
    /// Who may log in.
    pub arbiters: Vec<Arbiter>,
    /// Where to push the round's PGN, if anywhere.
    pub push: Option<Push>,
    /// What one clock or one visitor may take of the hall.
    pub limits: Limits,
}

/// Checks a push URL: `https://host[:port]/path`, or `http://…` for a
/// relay on the LAN.
fn check_push_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| format!("{url:?}: expected https://HOST[:PORT]/PATH (or http://)"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    // The URL is logged with every push: a secret in it would be too (and
    // is not echoed here either).
    if host.contains('@') {
        return Err(
            "a user or password in the URL would be logged: the token goes in token_file"
                .to_owned(),
        );
    }
    // A query or a fragment too (a `?token=…`): a push URL has none.
    if url.contains(['?', '#']) {
        return Err(
            "a query string (?…) or fragment (#…) in the URL would be logged with every push: \
             the push URL has none, the token goes in token_file"
                .to_owned(),
        );
    }
    if host.is_empty()
        || url.parse::<axum::http::Uri>().is_err()
        || url.contains(char::is_whitespace)
    {
        return Err(format!("{url:?}: not a URL"));
    }
    Ok(())
}

/// Why the push token's file, a secret the hall reads at start, cannot
/// serve (the broker login is read by [`crate::broker::Credentials::load`]).
#[derive(Debug)]
pub enum SecretFileError {
    /// It cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It does not hold what it should.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, in words (never the secret).
        why: &'static str,
        /// What it should hold, in words.
        expected: &'static str,
    },
}

impl fmt::Display for SecretFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretFileError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            SecretFileError::Format {
                path,
                why,
                expected,
            } => write!(f, "{}: {why}: expected {expected}", path.display()),
        }
    }
}

impl std::error::Error for SecretFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SecretFileError::Read { source, .. } => Some(source),
            SecretFileError::Format { .. } => None,
        }
    }
}

/// The text of the secrets file at `path`.
fn read_secret_file(path: &Path) -> Result<String, SecretFileError> {
    std::fs::read_to_string(path).map_err(|source| SecretFileError::Read {
        path: path.to_owned(),
        source,
    })
}

/// The bearer token in a token file: its first line, trimmed.
pub fn read_token(path: &Path) -> Result<String, SecretFileError> {
    let text = read_secret_file(path)?;
    let token = text.lines().next().unwrap_or("").trim();
    if token.is_empty() || token.chars().any(|c| c.is_control()) {
        return Err(SecretFileError::Format {
            path: path.to_owned(),
            why: "no token, or control characters in it",
            expected: "the token on its first line",
        });
    }
    Ok(token.to_owned())
}

/// Reads the hall's `broker` as the publisher reads its own: a bare
/// `host[:port]` is taken as `mqtt://host[:port]`.
fn broker_url(text: &str) -> Result<BrokerUrl, String> {
    if text.contains("://") {
        BrokerUrl::parse(text)
    } else {
        BrokerUrl::parse(&format!("mqtt://{text}"))
    }
}

impl HallConfig {
    /// Reads and checks the file at `path`, as the clock's configuration
    /// is read ([`crate::config::Config::load`]): the same size limit, key
    /// paths and [`ConfigError`].
    pub fn load(path: &Path) -> Result<HallConfig, ConfigError> {
        let (origin, text) = file::read(path)?;
        HallConfig::parse(&text, &origin)
    }

    /// Checks a configuration's text; `origin` starts every error.
    pub fn parse(text: &str, origin: &str) -> Result<HallConfig, ConfigError> {
        let raw: Raw = file::deserialize(text, origin)?;
        let at = |key: &str, why: String| ConfigError::at_key(origin, key, None, &why);
        BoardAddress::new(&raw.hall, 0).map_err(|err| at("hall", err.to_string()))?;
        let broker = broker_url(&raw.broker).map_err(|why| at("broker", why))?;
        let listen: SocketAddr = raw.listen.parse().map_err(|_| {
            at(
                "listen",
                format!("{:?} is not an address and port (0.0.0.0:8080)", raw.listen),
            )
        })?;
        let public_listen = match &raw.public_listen {
            None => None,
            Some(text) => Some(text.parse::<SocketAddr>().map_err(|_| {
                at(
                    "public_listen",
                    format!("{text:?} is not an address and port (0.0.0.0:8081)"),
                )
            })?),
        };
        if public_listen.is_some_and(|p| p == listen) {
            return Err(at(
                "public_listen",
                "the same address and port as listen".to_owned(),
            ));
        }
        if raw.store.as_os_str().is_empty() {
            return Err(at("store", "empty path".to_owned()));
        }
        let client_id = raw
            .client_id
            .unwrap_or_else(|| format!("tocada-hall-{}", raw.hall));
        if client_id.is_empty() || client_id.len() > 128 {
            return Err(at("client_id", "from 1 to 128 bytes".to_owned()));
        }
        if raw.arbiter.is_empty() {
            return Err(at(
                "arbiter",
                "no [[arbiter]]: nobody could log in to the arbiter's page".to_owned(),
            ));
        }
        let mut arbiters: Vec<Arbiter> = Vec::new();
        for (i, arbiter) in raw.arbiter.into_iter().enumerate() {
            if arbiter.name.trim().is_empty()
                || arbiter.name.len() > 64
                || arbiter.name.chars().any(char::is_control)
            {
                return Err(at(
                    &format!("arbiter[{i}].name"),
                    "from 1 to 64 printable characters".to_owned(),
                ));
            }
            if arbiters.iter().any(|a| a.name == arbiter.name) {
                return Err(at(
                    &format!("arbiter[{i}].name"),
                    format!("{:?} is already an arbiter", arbiter.name),
                ));
            }
            super::auth::check_hash(&arbiter.password_hash)
                .map_err(|why| at(&format!("arbiter[{i}].password_hash"), why.to_string()))?;
            arbiters.push(Arbiter {
                name: arbiter.name,
                password_hash: arbiter.password_hash,
            });
        }
        let mut pairings = BTreeMap::new();
        for (i, board) in raw.board.into_iter().enumerate() {
            if pairings
                .insert(
                    board.number,
                    Pairing {
                        white: board.white,
                        black: board.black,
                    },
                )
                .is_some()
            {
                return Err(at(
                    &format!("board[{i}].number"),
                    format!("board {} is paired twice", board.number),
                ));
            }
        }
        let date = raw.round.date;
        if !date.is_empty() && !is_pgn_date(&date) {
            return Err(at(
                "round.date",
                format!("{date:?} is not a PGN date (YYYY.MM.DD)"),
            ));
        }
        let mut round = Round {
            pairings,
            ..Round::default()
        };
        round.tags.event = raw.round.event;
        round.tags.site = raw.round.site;
        round.tags.date = date;
        round.tags.round = raw.round.round;
        let push = match raw.push {
            None => None,
            Some(push) => {
                check_push_url(&push.url).map_err(|why| at("push.url", why))?;
                if push.token_file.as_os_str().is_empty() {
                    return Err(at("push.token_file", "empty path".to_owned()));
                }
                if push.every_s == 0 || push.every_s > 3600 {
                    return Err(at(
                        "push.every_s",
                        format!("{} is not from 1 to 3600 seconds", push.every_s),
                    ));
                }
                if let Some(ca_file) = &push.ca_file {
                    if ca_file.as_os_str().is_empty() {
                        return Err(at("push.ca_file", "empty path".to_owned()));
                    }
                    if !push.url.starts_with("https://") {
                        return Err(at(
                            "push.ca_file",
                            "only for an https:// push.url".to_owned(),
                        ));
                    }
                }
                Some(Push {
                    url: push.url,
                    token_file: push.token_file,
                    every_s: push.every_s,
                    ca_file: push.ca_file,
                })
            }
        };
        let l = raw.limits;
        let positive = |key: &str, value: u64, max: u64| {
            if value == 0 || value > max {
                Err(at(
                    &format!("limits.{key}"),
                    format!("{value} is not from 1 to {max}"),
                ))
            } else {
                Ok(())
            }
        };
        positive("games_per_board", l.games_per_board as u64, 1_000_000)?;
        positive("held_per_board", l.held_per_board as u64, 10_000_000)?;
        positive("events_per_board", l.events_per_board as u64, 100_000_000)?;
        positive("login_hashes", l.login_hashes as u64, 64)?;
        positive("login_backoff_max_s", l.login_backoff_max_s, 86_400)?;
        positive("connections", l.connections as u64, 1_000_000)?;
        positive(
            "connections_per_address",
            l.connections_per_address as u64,
            1_000_000,
        )?;
        positive("header_timeout_s", l.header_timeout_s, 3600)?;
        let limits = Limits {
            quotas: Quotas {
                games_per_board: l.games_per_board,
                held_per_board: l.held_per_board,
                events_per_board: l.events_per_board,
            },
            login_hashes: l.login_hashes,
            backoff: BackoffPolicy {
                free_failures: l.login_free_failures,
                max_ms: l.login_backoff_max_s * 1000,
                first_ms: (l.login_backoff_max_s * 1000).min(1000),
                ..BackoffPolicy::default()
            },
            connections: l.connections,
            connections_per_address: l.connections_per_address,
            header_timeout: std::time::Duration::from_secs(l.header_timeout_s),
        };
        Ok(HallConfig {
            limits,
            hall: raw.hall,
            broker,
            credentials: raw.credentials,
            client_id,
            listen,
            store: raw.store,
            public_pgn: raw.public_pgn,
            public_listen,
            public_rulings: raw.public_rulings,
            round,
            arbiters,
            push,
        })
    }
}

fn is_pgn_date(date: &str) -> bool {
    let parts: Vec<&str> = date.split('.').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_digit() || c == '?'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$ZnBWY8V1mJ5y8m8QbF0f3S7t9k9q0vT3xQ0Gz0b1Q2c";

    fn config(extra: &str) -> String {
        format!(
            "hall = \"open\"\nbroker = \"mqtt://127.0.0.1:1884\"\n{extra}\n[[arbiter]]\nname = \"ana\"\npassword_hash = \"{HASH}\"\n"
        )
    }

    fn config_text_with(extra: &str) -> String {
        config(extra)
    }

    #[test]
    fn a_whole_config_is_read_with_its_defaults() {
        let text = config(
            "public_pgn = false\n[round]\nevent = \"Open\"\ndate = \"2026.11.24\"\n[[board]]\nnumber = 4\nwhite = \"A\"\nblack = \"B\"\n",
        );
        // [round] and [[board]] before [[arbiter]] in TOML would swallow it:
        // the arbiter table comes last in config(), so it parses.
        let config = HallConfig::parse(&text, "hall.toml").unwrap();
        assert_eq!(
            config.broker,
            BrokerUrl {
                host: "127.0.0.1".into(),
                port: 1884
            }
        );
        assert_eq!(config.client_id, "tocada-hall-open");
        assert_eq!(config.listen, "0.0.0.0:8080".parse().unwrap());
        assert!(!config.public_pgn);
        assert_eq!(config.public_listen, None);
        assert!(!config.public_rulings);
        let public = HallConfig::parse(
            &config_text_with("public_listen = \"127.0.0.1:8081\"\npublic_rulings = true"),
            "hall.toml",
        )
        .unwrap();
        assert_eq!(
            public.public_listen,
            Some("127.0.0.1:8081".parse().unwrap())
        );
        assert!(public.public_rulings);
        assert_eq!(config.round.tags.event, "Open");
        assert_eq!(config.round.pairings[&4].white, "A");
        assert_eq!(config.arbiters[0].name, "ana");
        assert_eq!(config.push, None);
        let text = config_text_with_push();
        let push = HallConfig::parse(&text, "hall.toml").unwrap().push.unwrap();
        assert_eq!(
            push.url,
            "http://127.0.0.1:8081/api/broadcast/round/abcd1234/push"
        );
        assert_eq!(
            push.token_file,
            PathBuf::from("/etc/tocada/hall.push-token")
        );
        assert_eq!(push.every_s, 5);
        assert_eq!(push.ca_file, None);
        // lichess itself, over HTTPS, or through a private CA.
        let https = "[push]\nurl = \"https://lichess.org/api/broadcast/round/abcd1234/push\"\ntoken_file = \"t\"\n";
        let push = HallConfig::parse(&self::config(https), "hall.toml")
            .unwrap()
            .push
            .unwrap();
        assert_eq!(
            push.url,
            "https://lichess.org/api/broadcast/round/abcd1234/push"
        );
        let private = format!("{https}ca_file = \"/etc/tocada/club-ca.pem\"\n");
        let push = HallConfig::parse(&self::config(&private), "hall.toml")
            .unwrap()
            .push
            .unwrap();
        assert_eq!(push.ca_file, Some(PathBuf::from("/etc/tocada/club-ca.pem")));
    }

    fn config_text_with_push() -> String {
        config(
            "[push]\nurl = \"http://127.0.0.1:8081/api/broadcast/round/abcd1234/push\"\ntoken_file = \"/etc/tocada/hall.push-token\"\n",
        )
    }

    #[test]
    fn the_file_is_read_as_the_clocks_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.toml");
        // A valid file, padded past the size a configuration can have.
        let padding = format!("# {}\n", "x".repeat(300 * 1024));
        std::fs::write(&path, format!("{}{padding}", config(""))).unwrap();
        let err = HallConfig::load(&path).unwrap_err();
        assert!(err.is_unreadable(), "{err}");
        assert!(err.to_string().contains("larger than"), "{err}");
        assert_eq!(err.exit_code(), crate::exit::EX_CONFIG);
        std::fs::write(&path, config("")).unwrap();
        assert_eq!(HallConfig::load(&path).unwrap().hall, "open");
        // An unknown key is named, and said, as in the clock's file.
        let err = HallConfig::parse(&config("colour = 1"), "hall.toml").unwrap_err();
        assert_eq!((err.key(), err.line()), (Some("colour"), Some(3)), "{err}");
        assert!(
            err.to_string()
                .starts_with("hall.toml: colour: unknown key, expected one of"),
            "{err}"
        );
    }

    #[test]
    fn a_token_file_is_read_to_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "lip_secret\n").unwrap();
        assert_eq!(read_token(&path).unwrap(), "lip_secret");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_token(&path).is_err());
        assert!(read_token(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn each_error_names_its_key() {
        let cases = [
            (config("").replace("open", "op/en"), "hall"),
            (
                config("").replace("mqtt://127.0.0.1:1884", "https://x"),
                "broker",
            ),
            (config("").replace("1884", "99999"), "broker"),
            (config("listen = \"everywhere\""), "listen"),
            (config("colour = \"blue\""), "colour"),
            (config("public_pgn = \"yes\""), "public_pgn"),
            (config("public_listen = \"8081\""), "public_listen"),
            (config("public_listen = \"0.0.0.0:8080\""), "public_listen"),
            (config("public_rulings = 1"), "public_rulings"),
            (
                config("").replace(HASH, "hunter2"),
                "arbiter[0].password_hash",
            ),
            (
                config("").replace(HASH, "$pbkdf2-sha256$i=1000$c2FsdA$aGFzaA"),
                "arbiter[0].password_hash",
            ),
            (
                config("[[board]]\nnumber = 1\n[[board]]\nnumber = 1\n"),
                "board[1].number",
            ),
            (config("[round]\ndate = \"24/11/2026\""), "round.date"),
            (
                config("[push]\nurl = \"ftp://x/\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (
                config("[push]\nurl = \"https:///x\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (
                config(
                    "[push]\nurl = \"http://relay/x\"\ntoken_file = \"t\"\nca_file = \"ca.pem\"",
                ),
                "push.ca_file",
            ),
            (
                config("[push]\nurl = \"https://x/\"\ntoken_file = \"t\"\nca_file = \"\""),
                "push.ca_file",
            ),
            (
                config("[push]\nurl = \"http:///push\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (
                config("[push]\nurl = \"https://u:lip_x@lichess.org/\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (
                config("[push]\nurl = \"https://lichess.org/p?token=lip_x\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (
                config("[push]\nurl = \"https://lichess.org/p#lip_x\"\ntoken_file = \"t\""),
                "push.url",
            ),
            (config("[push]\nurl = \"http://x/\""), "push"),
            (
                config("[push]\nurl = \"http://x/\"\ntoken_file = \"\""),
                "push.token_file",
            ),
            (
                config("[push]\nurl = \"http://x/\"\ntoken_file = \"t\"\nevery_s = 0"),
                "push.every_s",
            ),
            (
                config("[push]\nurl = \"http://x/\"\ntoken_file = \"t\"\ntoken = \"s\""),
                "push.token",
            ),
        ];
        for (text, key) in cases {
            let err = HallConfig::parse(&text, "hall.toml").unwrap_err();
            assert!(
                err.key().is_some_and(|k| k.starts_with(key)),
                "{key}: {err}"
            );
            assert!(err.to_string().starts_with("hall.toml: "), "{err}");
        }
        // A secret in the URL is refused without being repeated.
        let err = HallConfig::parse(
            &config("[push]\nurl = \"https://u:lip_x@lichess.org/\"\ntoken_file = \"t\""),
            "hall.toml",
        )
        .unwrap_err();
        assert!(!err.to_string().contains("lip_x"), "{err}");
        let err = HallConfig::parse(
            &config("[push]\nurl = \"https://lichess.org/p?token=lip_x\"\ntoken_file = \"t\""),
            "hall.toml",
        )
        .unwrap_err();
        assert!(!err.to_string().contains("lip_x"), "{err}");
        assert!(err.to_string().contains("query string"), "{err}");
        let no_arbiter = "hall = \"open\"\nbroker = \"mqtt://h\"\n";
        let err = HallConfig::parse(no_arbiter, "hall.toml").unwrap_err();
        assert_eq!(err.key(), Some("arbiter"), "{err}");
        let err = HallConfig::parse("hall = ", "hall.toml").unwrap_err();
        assert_eq!((err.key(), err.line()), (None, Some(1)), "{err}");
        assert_eq!(err.exit_code(), crate::exit::EX_CONFIG);
    }

    #[test]
    fn broker_urls() {
        assert_eq!(broker_url("mqtt://hall.lan").unwrap().port, 1883);
        assert_eq!(broker_url("tcp://10.0.0.2:1999/").unwrap().port, 1999);
        assert_eq!(broker_url("[::1]:1884").unwrap().host, "::1");
        assert!(broker_url("mqtt://").is_err());
        assert!(broker_url("mqtts://h").is_err());
        assert!(broker_url("hall.lan:1883/rounds").is_err());
        assert_eq!(broker_url("hall.lan:1999").unwrap().host, "hall.lan");
    }
}
