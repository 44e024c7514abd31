//! The broker a clock's publisher and the hall both connect to: its URL,
//! and the `user:password` login each of them gives it.
//!
//! A leaf: it uses nothing of the crate, so the publisher
//! ([`crate::publish`]), the hall ([`crate::hall`]) and the clock's
//! configuration ([`crate::config`], `[publish]`) all read these from here
//! without importing one another.
//!
//! The login is one line `user:password` in a file of its own (the
//! publisher's `[publish] credentials`, the hall's `credentials`), the
//! same line the broker's administrator gives `mosquitto_passwd -U`
//! (`docs/src/publish.md`). It is kept out of the TOML so that the
//! configuration can stay world-readable while this file is readable by
//! its program alone.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The MQTT port a broker listens on unless the URL says otherwise.
pub const MQTT_PORT: u16 = 1883;

/// A broker's address: `mqtt://host[:port]` (`tcp://` is read the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerUrl {
    /// Its host name or address (an IPv6 address without brackets).
    pub host: String,
    /// Its port, [`MQTT_PORT`] unless given.
    pub port: u16,
}

impl BrokerUrl {
    /// Reads `mqtt://host[:port]`, or says why it cannot, in words for the
    /// configuration's error message.
    pub(crate) fn parse(text: &str) -> Result<BrokerUrl, String> {
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(format!(
                "\"{text}\" is not a broker URL: expected mqtt://HOST or mqtt://HOST:PORT"
            ));
        };
        match scheme {
            "mqtt" | "tcp" => {}
            "mqtts" | "ssl" | "tls" | "wss" | "ws" => {
                return Err(format!(
                    "{scheme}:// is not supported: tocada publishes over plain MQTT \
                     (mqtt://) on the tournament's LAN; across the internet, bridge the \
                     hall's broker (docs/src/publish.md)"
                ));
            }
            other => {
                return Err(format!(
                    "unknown scheme \"{other}://\": expected mqtt://HOST or mqtt://HOST:PORT"
                ));
            }
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '@', '?', '#']) || rest.chars().any(char::is_whitespace) {
            return Err(format!(
                "\"{text}\": only a host and a port, no user, path or query \
                 (the user and password go in `credentials`)"
            ));
        }
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let Some((host, after)) = v6.split_once(']') else {
                return Err(format!("\"{text}\": an IPv6 address needs its closing ']'"));
            };
            (host, after.strip_prefix(':'))
        } else {
            match rest.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (rest, None),
            }
        };
        if host.is_empty() {
            return Err(format!("\"{text}\" names no host"));
        }
        let port = match port {
            None => MQTT_PORT,
            Some(port) => match port.parse::<u16>() {
                Ok(port) if port > 0 => port,
                _ => return Err(format!("\"{port}\" is not a port: expected 1..=65535")),
            },
        };
        Ok(BrokerUrl {
            host: host.to_owned(),
            port,
        })
    }
}

impl fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "mqtt://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "mqtt://{}:{}", self.host, self.port)
        }
    }
}

/// A larger file is not a credentials file.
const MAX_BYTES: u64 = 4096;

/// A user name and its password.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The broker's user name for this clock, or for the hall.
    pub user: String,
    /// Its password.
    pub password: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the password, whatever logs this.
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// Why the credentials file cannot be used.
#[derive(Debug)]
pub enum CredentialsError {
    /// It cannot be read (missing, not permitted).
    Read {
        /// The file.
        path: PathBuf,
        /// The configuration key that names it (`publish.credentials`).
        key: &'static str,
        /// Why.
        source: io::Error,
    },
    /// It is not one `user:password` line.
    Format {
        /// The file.
        path: PathBuf,
        /// The configuration key that names it.
        key: &'static str,
        /// What is wrong, without the password.
        why: &'static str,
    },
}

impl fmt::Display for CredentialsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialsError::Read { path, key, source } => write!(
                f,
                "cannot read the broker credentials {} ({key}): {source}",
                path.display()
            ),
            CredentialsError::Format { path, key, why } => write!(
                f,
                "{} ({key}): {why}: expected one line user:password",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CredentialsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CredentialsError::Read { source, .. } => Some(source),
            CredentialsError::Format { .. } => None,
        }
    }
}

impl Credentials {
    /// Reads the file at `path`, which the configuration's `key` names
    /// (`publish.credentials` for the publisher, `credentials` for the
    /// hall): errors name both.
    pub fn load(path: &Path, key: &'static str) -> Result<Credentials, CredentialsError> {
        let read = |source| CredentialsError::Read {
            path: path.to_owned(),
            key,
            source,
        };
        let file = std::fs::File::open(path).map_err(read)?;
        if file.metadata().is_ok_and(|meta| meta.is_dir()) {
            return Err(read(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        let mut bytes = Vec::new();
        file.take(MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        let format = |why| CredentialsError::Format {
            path: path.to_owned(),
            key,
            why,
        };
        if bytes.len() as u64 > MAX_BYTES {
            return Err(format("too large"));
        }
        let text = String::from_utf8(bytes).map_err(|_| format("not UTF-8"))?;
        Credentials::parse(&text).map_err(format)
    }

    /// Reads `user:password` from the text of a credentials file: one
    /// line, its line ending optional.
    pub fn parse(text: &str) -> Result<Credentials, &'static str> {
        let line = text
            .strip_suffix('\n')
            .map(|line| line.strip_suffix('\r').unwrap_or(line))
            .unwrap_or(text);
        if line.trim().is_empty() {
            return Err("empty");
        }
        if line.contains('\n') {
            return Err("more than one line");
        }
        let Some((user, password)) = line.split_once(':') else {
            return Err("no ':' between the user and the password");
        };
        if user.is_empty() || user.trim() != user {
            return Err("the user name is empty or has spaces around it");
        }
        if password.is_empty() {
            return Err("the password is empty");
        }
        Ok(Credentials {
            user: user.to_owned(),
            password: password.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls_are_a_host_and_a_port() {
        let url = |host: &str, port| BrokerUrl {
            host: host.to_owned(),
            port,
        };
        assert_eq!(
            BrokerUrl::parse("mqtt://hall.local"),
            Ok(url("hall.local", 1883))
        );
        assert_eq!(
            BrokerUrl::parse("mqtt://10.0.0.2:1884/"),
            Ok(url("10.0.0.2", 1884))
        );
        assert_eq!(BrokerUrl::parse("tcp://[::1]:1885"), Ok(url("::1", 1885)));
        assert_eq!(url("::1", 1885).to_string(), "mqtt://[::1]:1885");
        for bad in [
            "hall.local",
            "mqtt://",
            "mqtt://host:0",
            "mqtt://host:99999",
            "mqtt://user:pw@host",
            "mqtt://host/topic",
            "http://host",
            "mqtt://[::1",
        ] {
            assert!(BrokerUrl::parse(bad).is_err(), "{bad}");
        }
        assert!(
            BrokerUrl::parse("mqtts://host")
                .unwrap_err()
                .contains("not supported")
        );
    }

    #[test]
    fn one_line_of_user_and_password() {
        let ok = Credentials::parse("clock-12:s3cr:et\n").unwrap();
        assert_eq!(
            (ok.user.as_str(), ok.password.as_str()),
            ("clock-12", "s3cr:et")
        );
        assert_eq!(Credentials::parse("u:p\r\n").unwrap().password, "p");
        assert_eq!(Credentials::parse("u:p").unwrap().user, "u");
        for bad in ["", "\n", "clock-12", ":pw", "u:", "u:p\nv:q\n", " u:p"] {
            assert!(Credentials::parse(bad).is_err(), "{bad:?}");
        }
        assert!(!format!("{ok:?}").contains("s3cr"));
    }

    #[test]
    fn a_missing_file_names_itself_and_the_key() {
        let err = Credentials::load(
            Path::new("/nonexistent/publish.credentials"),
            "publish.credentials",
        )
        .unwrap_err();
        assert!(matches!(err, CredentialsError::Read { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("/nonexistent/publish.credentials")
                && text.contains("publish.credentials)"),
            "{text}"
        );
    }

    #[test]
    fn a_file_of_the_wrong_form_is_named_with_its_key_and_never_shows_the_password() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.credentials");
        std::fs::write(&path, "hall:pw:with:colons\n").unwrap();
        let login = Credentials::load(&path, "credentials").unwrap();
        assert_eq!(
            (login.user.as_str(), login.password.as_str()),
            ("hall", "pw:with:colons")
        );
        std::fs::write(&path, "hall:secret\nsecond:line\n").unwrap();
        let err = Credentials::load(&path, "credentials").unwrap_err();
        assert!(matches!(err, CredentialsError::Format { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("more than one line")
                && text.contains("(credentials)")
                && !text.contains("secret"),
            "{text}"
        );
        std::fs::write(&path, "x".repeat(5000)).unwrap();
        let err = Credentials::load(&path, "credentials").unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
        let err = Credentials::load(dir.path(), "credentials").unwrap_err();
        assert!(matches!(err, CredentialsError::Read { .. }), "{err}");
    }
}
