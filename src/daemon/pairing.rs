//! The hall's pairing of this board, handed over by `tocada-publish` in a
//! file (`publish.pairing_file`): the daemon has no network, so the
//! publisher takes the hall's message and writes it, and the loop looks
//! at the file now and then. What it reads is checked again and bounded
//! ([`BoardPairing::parse`]): a file that is too large, not a pairing, or
//! another board's is refused and logged once, and the last good pairing
//! stays. The file is the hall's message ([`BoardPairing`]); what the
//! clock keeps is its [`Players`].

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::Millis;
use crate::broadcast::BoardPairing;
use crate::players::Players;

/// How often the loop looks at the file: a pairing changes between rounds.
pub const PAIRING_EVERY_MS: Millis = 2_000;

/// The file, and what was last read from it.
#[derive(Debug)]
pub struct PairingFile {
    path: PathBuf,
    board: u32,
    /// The file's inode, length and modification time when last read:
    /// the same again is not read again.
    seen: Option<(u64, u64, Option<SystemTime>)>,
}

impl PairingFile {
    /// The pairing of board `board`, in the file at `path`.
    pub fn new(path: PathBuf, board: u32) -> PairingFile {
        PairingFile {
            path,
            board,
            seen: None,
        }
    }

    /// The pairing, if the file changed since the last look: `Some(None)`
    /// when it is gone or empty (nobody paired), `None` when nothing
    /// changed or what is there is refused.
    pub fn changed(&mut self) -> Option<Option<Players>> {
        // The file's own entry, not a link's target: the publisher's user
        // owns the directory, and a link could point anywhere.
        let stamp = std::fs::symlink_metadata(&self.path)
            .ok()
            .map(|meta| (meta.ino(), meta.len(), meta.modified().ok()));
        let Some(stamp) = stamp else {
            // No file: nobody paired (the publisher not running, or no
            // hall).
            return match self.seen.replace((0, 0, None)) {
                Some((0, 0, None)) => None,
                _ => Some(None),
            };
        };
        if self.seen == Some(stamp) {
            return None;
        }
        self.seen = Some(stamp);
        let mut bytes = Vec::new();
        let read = open_regular(&self.path).and_then(|file| {
            file.take(BoardPairing::MAX_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        });
        if let Err(err) = read {
            tracing::warn!(file = %self.path.display(), "cannot read the pairing: {err}");
            return None;
        }
        match BoardPairing::parse(&bytes, self.board) {
            Ok(pairing) => {
                match &pairing {
                    Some(p) => tracing::info!(
                        round = %p.round,
                        white = %p.white.name,
                        black = %p.black.name,
                        "the hall paired this board"
                    ),
                    None => tracing::info!("nobody paired on this board"),
                }
                Some(pairing.map(Players::from))
            }
            Err(err) => {
                tracing::warn!(file = %self.path.display(), "the pairing file refused: {err}");
                None
            }
        }
    }
}

/// Opens a regular file for reading without ever waiting: this runs on the
/// clock's loop, and the directory belongs to the publisher, a networked
/// process, so what is there may be a FIFO (whose open would block until a
/// writer came, the clock stopped with it), a device or a link. Only a
/// regular file, not a link, is read.
fn open_regular(path: &std::path::Path) -> std::io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let file = File::from(fd);
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pairing_is_read_once_per_change_and_a_bad_file_keeps_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairing.json");
        let mut file = PairingFile::new(path.clone(), 7);
        // No file yet: nobody, said once.
        assert_eq!(file.changed(), Some(None));
        assert_eq!(file.changed(), None);
        let good = r#"{"round":"3","board":7,"white":{"name":"Morphy, Paul","rating":2690},"black":{"name":"Anderssen, Adolf"}}"#;
        std::fs::write(&path, good).unwrap();
        let pairing = file.changed().unwrap().unwrap();
        assert_eq!(pairing.white.name, "Morphy, Paul");
        assert_eq!(pairing.white.rating, Some(2690));
        assert_eq!(file.changed(), None, "unchanged: not read again");
        // Another board's, a huge one, garbage: refused, nothing changes.
        for bad in [
            good.replace("\"board\":7", "\"board\":8").into_bytes(),
            vec![b' '; BoardPairing::MAX_BYTES + 10],
            b"{\"board\":7,".to_vec(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(file.changed(), None);
        }
        std::fs::write(&path, b"").unwrap();
        assert_eq!(file.changed(), Some(None));
    }

    #[test]
    fn a_fifo_or_a_link_in_place_of_the_file_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairing.json");
        let target = dir.path().join("elsewhere.json");
        std::fs::write(
            &target,
            r#"{"board":7,"white":{"name":"Morphy, Paul"},"black":{"name":"Anderssen, Adolf"}}"#,
        )
        .unwrap();
        let mut file = PairingFile::new(path.clone(), 7);
        // A link to a good pairing is not followed.
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert_eq!(file.changed(), None);
        std::fs::remove_file(&path).unwrap();
        // A FIFO with no writer: an open that waited would never return.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert_eq!(file.changed(), None);
        // A regular file again is read.
        std::fs::remove_file(&path).unwrap();
        std::fs::copy(&target, &path).unwrap();
        assert_eq!(file.changed().unwrap().unwrap().white.name, "Morphy, Paul");
    }
}
