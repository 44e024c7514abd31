//! The file through which the publisher hands the hall's pairing of its
//! board to the clock daemon, which has no network: the [`BoardPairing`]
//! as one line of JSON, checked and bounded before it is written (the
//! daemon checks it again when it reads it), or empty when nobody is
//! paired on the board. Replaced atomically (written beside it, synced,
//! renamed over it), readable by everyone: the daemon runs as another
//! user, and who plays on a board is public.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::broadcast::BoardPairing;

/// The file's contents for `pairing`: its JSON and a newline, or nothing.
pub fn contents(pairing: Option<&BoardPairing>) -> Vec<u8> {
    match pairing {
        Some(pairing) => {
            let mut text = serde_json::to_vec(pairing).expect("pairings are JSON");
            text.push(b'\n');
            text
        }
        None => Vec::new(),
    }
}

/// Replaces the file at `path` with `contents`: a reader sees the old
/// file or the new one, never half of one.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = Path::new(&temporary);
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(temporary)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    // The umask may have narrowed the mode given above.
    fs::set_permissions(
        temporary,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )?;
    fs::rename(temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::PlayerOnBoard;

    #[test]
    fn what_is_written_is_read_back_and_nobody_is_an_empty_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairing.json");
        let pairing = BoardPairing {
            round: "3".into(),
            board: 7,
            white: PlayerOnBoard {
                name: "Morphy, Paul".into(),
                rating: Some(2690),
                fide_id: Some(1503014),
            },
            black: PlayerOnBoard {
                name: "Anderssen, Adolf".into(),
                ..PlayerOnBoard::default()
            },
        };
        write(&path, &contents(Some(&pairing))).unwrap();
        let text = fs::read(&path).unwrap();
        assert_eq!(BoardPairing::parse(&text, 7).unwrap(), Some(pairing));
        let mode =
            std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&path).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o644);
        write(&path, &contents(None)).unwrap();
        assert_eq!(
            BoardPairing::parse(&fs::read(&path).unwrap(), 7).unwrap(),
            None
        );
        assert!(!dir.path().join("pairing.json.new").exists());
    }
}
