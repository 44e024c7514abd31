//! The file through which the publisher hands the hall's pairing of its
//! board to the clock daemon, which has no network: the [`BoardPairing`]
//! as one line of JSON, checked and bounded before it is written (the
//! daemon checks it again when it reads it), or empty when nobody is
//! paired on the board. Replaced atomically ([`super::replace`]),
//! readable by everyone: the daemon runs as another user, and who plays
//! on a board is public.

use std::io;
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
/// file or the new one, never half of one; readable by everyone.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    super::replace::replace(path, contents, Some(0o644))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::PlayerOnBoard;
    use std::fs;

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
