//! Which sensor board answers, across restarts: the serial of the first
//! board seen is remembered in the state directory, and another board
//! answering later is worth a look (a board swapped mid-event).
//!
//! Not the protocol's PAIR handshake (`hardware::protocol_board`), nor the
//! hall's pairings of players.

use std::path::Path;

/// The file in the state directory that holds the remembered board's serial.
pub const SERIAL_FILE: &str = "board-serial";

/// What the remembered serial says about the board that answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardIdentity {
    /// The board remembered before.
    Known,
    /// The first board seen: now remembered.
    First,
    /// Another board than the one remembered (now remembered instead).
    Changed {
        /// The serial remembered before.
        was: u64,
    },
}

/// Checks `serial` against the one remembered in `dir` and remembers it.
/// A state directory that cannot be written is logged, never fatal.
pub fn check(dir: &Path, serial: u64) -> BoardIdentity {
    let path = dir.join(SERIAL_FILE);
    let known = std::fs::read_to_string(&path)
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim(), 16).ok());
    let identity = match known {
        Some(known) if known == serial => return BoardIdentity::Known,
        Some(was) => {
            tracing::warn!("a different sensor board answers: {serial:016x}, was {was:016x}");
            BoardIdentity::Changed { was }
        }
        None => {
            tracing::info!("paired with sensor board {serial:016x}");
            BoardIdentity::First
        }
    };
    if let Err(err) = std::fs::write(&path, format!("{serial:016x}\n")) {
        tracing::warn!(
            "cannot remember the board's serial in {}: {err}",
            path.display()
        );
    }
    identity
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_board_is_remembered_and_another_one_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check(dir.path(), 0xabc), BoardIdentity::First);
        assert_eq!(check(dir.path(), 0xabc), BoardIdentity::Known);
        assert_eq!(
            check(dir.path(), 0xdef),
            BoardIdentity::Changed { was: 0xabc }
        );
        assert_eq!(check(dir.path(), 0xdef), BoardIdentity::Known);
    }
}
