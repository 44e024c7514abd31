//! The players a game begins under: the round, the board and each side's
//! name, rating and FIDE id, as the clock's core keeps them (the session
//! begins a game under them, the replay format stores them in a `players`
//! line, the PGN names them in its tags). A leaf: it uses nothing of the
//! crate, so the session, the PGN and the replay format share it without
//! knowing the hall's messages; `crate::broadcast::BoardPairing`, the
//! message that brings them, converts into it at the edges.
//!
//! What a clock keeps of a pairing is bounded here, once
//! ([`Players::bounded`]): a pairing read from the hall's message or file,
//! and a stored game's `players` line alike.

use std::fmt;

/// One side's player.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    /// The name, `Last, First`.
    pub name: String,
    /// The rating, if the pairing gives one.
    pub rating: Option<u16>,
    /// The FIDE id, if the pairing gives one.
    pub fide_id: Option<u64>,
}

/// Who plays a game: the round, the board and both players.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Players {
    /// The round, e.g. `3` (empty: not said).
    pub round: String,
    /// The board, from 1.
    pub board: u32,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
}

/// Why players are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayersError {
    /// A name is empty once its control characters are dropped.
    NoName,
}

impl fmt::Display for PlayersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayersError::NoName => f.write_str("a player without a name"),
        }
    }
}

impl std::error::Error for PlayersError {}

/// `text` with every control character dropped and at most `max`
/// characters, trimmed: what may go into a log line, a file or a face.
pub fn printable(text: &str, max: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(max)
        .collect::<String>()
        .trim()
        .to_owned()
}

impl Player {
    /// The player with the name cut to [`Players::MAX_NAME`] characters and
    /// every control character dropped, and a rating or FIDE id that cannot
    /// be one left out.
    fn bounded(self) -> Result<Player, PlayersError> {
        let name = printable(&self.name, Players::MAX_NAME);
        if name.is_empty() {
            return Err(PlayersError::NoName);
        }
        Ok(Player {
            name,
            rating: self.rating.filter(|r| *r > 0 && *r < 4000),
            fide_id: self.fide_id.filter(|id| *id > 0 && *id < 10_000_000_000),
        })
    }
}

impl Players {
    /// The longest name kept, characters (FIDE's are under 60).
    pub const MAX_NAME: usize = 64;
    /// The longest round kept, characters.
    pub const MAX_ROUND: usize = 16;

    /// The players with their names and round cut to their caps and every
    /// control character dropped, and a rating or FIDE id that cannot be
    /// one left out: what a clock keeps of a pairing, from the hall's
    /// message or a stored game's `players` line alike.
    pub fn bounded(self) -> Result<Players, PlayersError> {
        Ok(Players {
            round: printable(&self.round, Players::MAX_ROUND),
            board: self.board,
            white: self.white.bounded()?,
            black: self.black.bounded()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(white: &str, black: &str) -> Players {
        Players {
            round: "3".into(),
            board: 7,
            white: Player {
                name: white.into(),
                ..Player::default()
            },
            black: Player {
                name: black.into(),
                ..Player::default()
            },
        }
    }

    #[test]
    fn names_and_round_are_cut_to_their_caps_without_control_characters() {
        let mut given = named(&"M".repeat(100), "Anderssen,\u{7} Adolf");
        given.round = "R".repeat(40);
        let kept = given.bounded().unwrap();
        assert_eq!(kept.white.name, "M".repeat(Players::MAX_NAME));
        assert_eq!(kept.black.name, "Anderssen, Adolf");
        assert_eq!(kept.round, "R".repeat(Players::MAX_ROUND));
        assert_eq!(kept.board, 7);
    }

    #[test]
    fn a_rating_or_fide_id_that_cannot_be_one_is_left_out() {
        let mut given = named("Morphy, Paul", "Anderssen, Adolf");
        given.white.rating = Some(4000);
        given.white.fide_id = Some(10_000_000_000);
        given.black.rating = Some(2690);
        given.black.fide_id = Some(4_600_010);
        let kept = given.bounded().unwrap();
        assert_eq!((kept.white.rating, kept.white.fide_id), (None, None));
        assert_eq!(
            (kept.black.rating, kept.black.fide_id),
            (Some(2690), Some(4_600_010))
        );
    }

    #[test]
    fn a_name_of_control_characters_only_is_refused() {
        assert_eq!(
            named("\u{1}\u{2}", "B").bounded(),
            Err(PlayersError::NoName)
        );
        assert_eq!(named("A", " ").bounded(), Err(PlayersError::NoName));
    }
}
