//! The publisher's own small state: the last event the broker
//! acknowledged, so that it resends from there after a broker restart, a
//! network cut or a reboot of the Pi. One JSON object in one file,
//! replaced atomically (written beside it, synced, renamed over it, the
//! directory synced): a power cut leaves the old mark or the new one,
//! never half of one. An old mark only means a few events are sent twice,
//! which the hall drops by `(game, seq)`.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::follower::Mark;
use crate::exit::{EX_CANTCREAT, EX_DATAERR, EX_IOERR};

/// The state file's name in the publisher's state directory.
pub const PROGRESS_FILE: &str = "published.json";

/// A state file larger than this is not one of ours.
const MAX_BYTES: u64 = 4096;

/// What the file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Every event up to here (in store order) reached the broker.
    pub acked: Mark,
}

/// Why the state file could not be read or written.
#[derive(Debug)]
pub enum ProgressError {
    /// It exists but could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It is not a state file of this publisher: damaged, or someone
    /// else's.
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// It could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl ProgressError {
    /// The exit code ([`crate::exit`]): a damaged file is bad data (65), an
    /// unreadable one an i/o error (74), one that cannot be written 73.
    pub fn exit_code(&self) -> u8 {
        match self {
            ProgressError::Read { .. } => EX_IOERR,
            ProgressError::Damaged { .. } => EX_DATAERR,
            ProgressError::Write { .. } => EX_CANTCREAT,
        }
    }
}

impl fmt::Display for ProgressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgressError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ProgressError::Damaged { path, why } => write!(
                f,
                "{} is damaged ({why}): it says which events the broker has; \
                 remove it to publish again from the game in progress",
                path.display()
            ),
            ProgressError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ProgressError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProgressError::Read { source, .. } | ProgressError::Write { source, .. } => {
                Some(source)
            }
            ProgressError::Damaged { .. } => None,
        }
    }
}

/// Reads the state file: `None` when there is none yet (a first start).
pub fn load(path: &Path) -> Result<Option<Progress>, ProgressError> {
    let read = |source| ProgressError::Read {
        path: path.to_owned(),
        source,
    };
    let damaged = |why: String| ProgressError::Damaged {
        path: path.to_owned(),
        why,
    };
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(read(err)),
    };
    if !meta.is_file() {
        return Err(damaged("not a regular file".to_owned()));
    }
    if meta.len() > MAX_BYTES {
        return Err(damaged(format!("{} bytes", meta.len())));
    }
    let bytes = fs::read(path).map_err(read)?;
    let progress: Progress =
        serde_json::from_slice(&bytes).map_err(|err| damaged(err.to_string()))?;
    if progress.acked.game < 1 || progress.acked.seq < -1 {
        return Err(damaged(format!(
            "game {} seq {} is no event",
            progress.acked.game, progress.acked.seq
        )));
    }
    Ok(Some(progress))
}

/// Replaces the state file with `progress`, atomically.
pub fn save(path: &Path, progress: &Progress) -> Result<(), ProgressError> {
    let write = |source| ProgressError::Write {
        path: path.to_owned(),
        source,
    };
    let mut text = serde_json::to_vec(progress).expect("a mark is two integers");
    text.push(b'\n');
    super::replace::replace(path, &text, None).map_err(write)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_mark_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PROGRESS_FILE);
        assert_eq!(load(&path).unwrap(), None);
        let progress = Progress {
            acked: Mark { game: 3, seq: 57 },
        };
        save(&path, &progress).unwrap();
        assert_eq!(load(&path).unwrap(), Some(progress));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\"acked\":{\"game\":3,\"seq\":57}}\n"
        );
        // Saved again over it, and no temporary file left behind.
        save(
            &path,
            &Progress {
                acked: Mark::before(4),
            },
        )
        .unwrap();
        assert_eq!(load(&path).unwrap().unwrap().acked, Mark::before(4));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_damaged_file_is_an_error_that_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PROGRESS_FILE);
        for text in [
            "",
            "{\"acked\":{\"game\":3}}",
            "{\"acked\":{\"game\":0,\"seq\":1}}",
            "\u{0}\u{0}\u{0}",
            "{\"acked\":{\"game\":3,\"seq\":5},\"x\":1}",
        ] {
            fs::write(&path, text).unwrap();
            let err = load(&path).unwrap_err();
            assert_eq!(err.exit_code(), EX_DATAERR, "{text:?}");
            assert!(err.to_string().contains("remove it"), "{err}");
        }
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        assert!(matches!(load(&path), Err(ProgressError::Damaged { .. })));
    }
}
