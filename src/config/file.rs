//! From a configuration file to the values serde reads, the same for every
//! file tocada reads: the clock's (`tocada.toml`, [`super::Config`]) and
//! the hall's (`hall.toml`, `crate::hall::HallConfig`).
//!
//! The file is read with a size limit, parsed as TOML, and deserialized
//! with the path of every key kept, so that every fault is one
//! [`ConfigError`] naming the file, then the line or the key, and exits
//! with [`EX_CONFIG`](crate::exit::EX_CONFIG). What each value means is
//! the caller's to check, with [`ConfigError::at_key`].

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

use super::{ConfigError, MAX_FILE_BYTES};

/// Reads the file at `path`: the origin every error names (the path as
/// given) and its text.
pub(crate) fn read(path: &Path) -> Result<(String, String), ConfigError> {
    let origin = path.display().to_string();
    let text = read_limited(path).map_err(|err| ConfigError::read(&origin, err))?;
    Ok((origin, text))
}

/// Deserializes `text` as TOML into `T`: a syntax error names its line, a
/// shape error (an unknown key, a wrong type, a missing key) its key path
/// (`board.kind`, `preset[2].time_control`); `origin` starts both.
pub(crate) fn deserialize<T: DeserializeOwned>(text: &str, origin: &str) -> Result<T, ConfigError> {
    let deserializer = toml::Deserializer::parse(text)
        .map_err(|err| ConfigError::syntax(origin, line_of(text, err.span()), err.message()))?;
    serde_path_to_error::deserialize(deserializer).map_err(|err| shape_error(origin, text, &err))
}

/// The file as UTF-8 text, refused when larger than [`MAX_FILE_BYTES`].
fn read_limited(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {MAX_FILE_BYTES} bytes: not a configuration file"),
        ));
    }
    Ok(text)
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> Option<usize> {
    let start = span?.start.min(text.len());
    Some(
        text.as_bytes()[..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1,
    )
}

/// A serde error (unknown key, wrong type) with the key path it happened at.
fn shape_error(
    origin: &str,
    text: &str,
    err: &serde_path_to_error::Error<toml::de::Error>,
) -> ConfigError {
    let mut key = String::new();
    for segment in err.path() {
        match segment {
            Segment::Seq { index } => key.push_str(&format!("[{index}]")),
            Segment::Map { key: name } | Segment::Enum { variant: name } => {
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(name);
            }
            Segment::Unknown => {}
        }
    }
    let inner = err.inner();
    let line = line_of(text, inner.span());
    let message = inner.message();
    // serde names an unknown field in its message: "unknown field `kindd`,
    // expected one of `kind`, ...". The path ends with it already.
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((name, expected)) = rest.split_once('`')
    {
        let last = err.path().iter().next_back();
        if !matches!(last, Some(Segment::Map { key }) if key == name) {
            if !key.is_empty() {
                key.push('.');
            }
            key.push_str(name);
        }
        return ConfigError::at_key(origin, &key, line, &format!("unknown key{expected}"));
    }
    ConfigError::at_key(origin, &key, line, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_from_one() {
        let text = "a\nb\nc";
        assert_eq!(line_of(text, Some(0..1)), Some(1));
        assert_eq!(line_of(text, Some(4..5)), Some(3));
        assert_eq!(line_of(text, Some(99..100)), Some(3), "a span past the end");
        assert_eq!(line_of(text, None), None);
    }

    #[test]
    fn a_missing_key_at_the_top_names_no_key() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Top {
            hall: String,
        }
        let err = deserialize::<Top>("", "t.toml").unwrap_err();
        assert_eq!(err.key(), None, "{err}");
        assert!(
            err.to_string().starts_with("t.toml: missing field"),
            "{err}"
        );
    }
}
