//! Why a configuration file was refused: one message that names the file,
//! then the key (or the line, for TOML syntax) and what is wrong with it.
//!
//! The daemon, `tocada check-config` and `tocada-hall check-config` (the
//! hall's file is read through the same [`super::file`]) print it as it
//! is, so it must read well on its own: `tocada.toml: board.kind: unknown board kind "usb": ...`.

use std::fmt;
use std::io;

/// A configuration file that cannot be used.
#[derive(Debug)]
pub struct ConfigError {
    origin: String,
    cause: Cause,
}

/// What went wrong, by where it is in the file.
#[derive(Debug)]
enum Cause {
    /// The file could not be read at all.
    Read(io::Error),
    /// The text is not TOML.
    Syntax { line: Option<usize>, why: String },
    /// A key is unknown, of the wrong type, or has a value out of bounds.
    Key {
        key: String,
        line: Option<usize>,
        why: String,
    },
}

impl ConfigError {
    /// The process exit code for any configuration error:
    /// [`EX_CONFIG`](crate::exit::EX_CONFIG), whatever the cause, so that
    /// systemd does not restart the daemon into the same file.
    pub fn exit_code(&self) -> u8 {
        crate::exit::EX_CONFIG
    }

    /// The file could not be read (missing, unreadable, not UTF-8, too big).
    pub(super) fn read(origin: &str, err: io::Error) -> ConfigError {
        ConfigError {
            origin: origin.to_owned(),
            cause: Cause::Read(err),
        }
    }

    /// The text is not valid TOML, at `line` (1-based) when the parser knows.
    pub(super) fn syntax(origin: &str, line: Option<usize>, why: &str) -> ConfigError {
        ConfigError {
            origin: origin.to_owned(),
            cause: Cause::Syntax {
                line,
                why: one_line(why),
            },
        }
    }

    /// The value at `key` is wrong, because of `why`: for the checks of
    /// every file read through [`super::file`], the clock's and the hall's.
    pub(crate) fn at_key(origin: &str, key: &str, line: Option<usize>, why: &str) -> ConfigError {
        ConfigError {
            origin: origin.to_owned(),
            cause: Cause::Key {
                key: key.to_owned(),
                line,
                why: one_line(why),
            },
        }
    }

    /// The file name the message starts with (the path given to
    /// [`Config::load`](super::Config::load), or the origin given to
    /// [`Config::parse`](super::Config::parse); the same for the hall's).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The key path at fault, as in the file: `board.kind`,
    /// `preset[2].time_control` (presets counted from 0). `None` when the
    /// file could not be read or is not TOML, and when the fault is the
    /// file's as a whole (a required key missing at the top).
    pub fn key(&self) -> Option<&str> {
        match &self.cause {
            Cause::Key { key, .. } if key.is_empty() => None,
            Cause::Key { key, .. } => Some(key),
            Cause::Read(_) | Cause::Syntax { .. } => None,
        }
    }

    /// The 1-based line at fault, when the TOML parser gave a position
    /// (syntax errors, and unknown keys and wrong types).
    pub fn line(&self) -> Option<usize> {
        match &self.cause {
            Cause::Syntax { line, .. } | Cause::Key { line, .. } => *line,
            Cause::Read(_) => None,
        }
    }

    /// Whether the file could not be read at all, rather than being wrong.
    pub fn is_unreadable(&self) -> bool {
        matches!(self.cause, Cause::Read(_))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = &self.origin;
        match &self.cause {
            Cause::Read(err) => write!(f, "{origin}: cannot read: {err}"),
            Cause::Syntax {
                line: Some(line),
                why,
            } => write!(f, "{origin}: line {line}: {why}"),
            Cause::Syntax { line: None, why } => write!(f, "{origin}: {why}"),
            Cause::Key { key, why, .. } if key.is_empty() => write!(f, "{origin}: {why}"),
            Cause::Key { key, why, .. } => write!(f, "{origin}: {key}: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.cause {
            Cause::Read(err) => Some(err),
            Cause::Syntax { .. } | Cause::Key { .. } => None,
        }
    }
}

/// The message on one line: the daemon's log and check-config print one
/// line per error, and the parser's messages may span several.
fn one_line(why: &str) -> String {
    why.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_file_then_the_key() {
        let err = ConfigError::at_key("tocada.toml", "board.kind", Some(3), "unknown board kind");
        assert_eq!(
            err.to_string(),
            "tocada.toml: board.kind: unknown board kind"
        );
        assert_eq!((err.key(), err.line()), (Some("board.kind"), Some(3)));
        assert!(!err.is_unreadable());
    }

    #[test]
    fn syntax_errors_name_the_line_on_one_line() {
        let err = ConfigError::syntax("a.toml", Some(7), "invalid string\nexpected `\"`\n");
        assert_eq!(
            err.to_string(),
            "a.toml: line 7: invalid string; expected `\"`"
        );
        assert_eq!(err.key(), None);
    }

    #[test]
    fn read_errors_keep_the_os_error() {
        let err = ConfigError::read("/nope", io::Error::from(io::ErrorKind::NotFound));
        assert!(err.is_unreadable());
        assert!(err.to_string().starts_with("/nope: cannot read: "));
        assert!(std::error::Error::source(&err).is_some());
    }
}
