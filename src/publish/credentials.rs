//! The clock's user name and password for the broker: one line
//! `user:password` in the file `[publish] credentials` names, the same line
//! the broker's administrator gives `mosquitto_passwd -U`
//! (`docs/src/publish.md`). Kept out of the TOML so that the configuration can stay
//! world-readable while this file is readable by the publisher alone.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::exit::{EX_CONFIG, EX_NOINPUT};

/// A larger file is not a credentials file.
const MAX_BYTES: u64 = 4096;

/// A user name and its password.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The broker's user name for this clock.
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
        /// Why.
        source: io::Error,
    },
    /// It is not one `user:password` line.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, without the password.
        why: &'static str,
    },
}

impl CredentialsError {
    /// The exit code ([`crate::exit`]): a file that cannot be read is
    /// missing input (66), one of the wrong form a configuration error
    /// (78), which systemd's unit does not restart into.
    pub fn exit_code(&self) -> u8 {
        match self {
            CredentialsError::Read { .. } => EX_NOINPUT,
            CredentialsError::Format { .. } => EX_CONFIG,
        }
    }
}

impl fmt::Display for CredentialsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialsError::Read { path, source } => write!(
                f,
                "cannot read the broker credentials {} (publish.credentials): {source}",
                path.display()
            ),
            CredentialsError::Format { path, why } => write!(
                f,
                "{} (publish.credentials): {why}: expected one line user:password",
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
    /// Reads the file at `path`.
    pub fn load(path: &Path) -> Result<Credentials, CredentialsError> {
        let read = |source| CredentialsError::Read {
            path: path.to_owned(),
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
        let err = Credentials::load(Path::new("/nonexistent/publish.credentials")).unwrap_err();
        assert_eq!(err.exit_code(), EX_NOINPUT);
        let text = err.to_string();
        assert!(
            text.contains("/nonexistent/publish.credentials")
                && text.contains("publish.credentials)"),
            "{text}"
        );
    }
}
