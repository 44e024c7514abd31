//! The reference games: PGN read with pgn-reader (through `parsed.rs`,
//! which every user declares beside this file), and turned into scripts of
//! physical events. Shared by `tests/games.rs`, `tests/pgn.rs`,
//! `tests/power_cut.rs`, `tests/replay_writing.rs`, `benches/replay.rs` and
//! `examples/pgn_to_events.rs` (with `#[path]`), so all of them play the
//! same games the same way.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Position};
use tocada::gesture::Script;
use tocada::{Reason, Rules, TimeControl};

use super::parsed;

/// One game of a PGN file: its tags and its main line.
#[derive(Debug, Clone)]
pub struct PgnGame {
    /// Where it came from, for messages: `file.pgn#2`.
    pub name: String,
    /// The tag pairs, in file order.
    pub tags: Vec<(String, String)>,
    /// The main line in SAN, as written (suffixes included).
    pub sans: Vec<String>,
}

impl PgnGame {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `Result` tag: `1-0`, `0-1`, `1/2-1/2` (or `*`).
    pub fn result(&self) -> &str {
        self.tag("Result").unwrap_or("*")
    }

    /// The starting position: the `FEN` tag, or the standard one.
    pub fn start(&self) -> Chess {
        match self.tag("FEN") {
            Some(fen) => fen
                .parse::<Fen>()
                .unwrap_or_else(|e| panic!("{}: bad FEN: {e}", self.name))
                .into_position(CastlingMode::Standard)
                .unwrap_or_else(|e| panic!("{}: bad position: {e}", self.name)),
            None => Chess::default(),
        }
    }

    /// The rules to replay it under: the defaults, with the game's own
    /// `TimeControl` and start when it has them.
    pub fn rules(&self) -> Rules {
        let mut rules = Rules {
            start: self.start(),
            ..Rules::default()
        };
        if let Some(tc) = self.tag("TimeControl")
            && let Ok(tc) = tc.parse::<TimeControl>()
        {
            rules.time_control = tc;
        }
        rules
    }

    /// The position after the whole main line.
    pub fn end(&self) -> Chess {
        let mut pos = self.start();
        for san in &self.sans {
            let m = tocada::gesture::parse_san(&pos, san)
                .unwrap_or_else(|e| panic!("{}: {e}", self.name));
            pos.play_unchecked(m);
        }
        pos
    }

    /// How the referee should end the game: the outcome (as in the Result
    /// tag) and the reason. Mate, stalemate and dead positions end by
    /// themselves; other decisive games by the loser's resignation, other
    /// draws by agreement.
    pub fn expected_result(&self) -> (KnownOutcome, Reason) {
        let end = self.end();
        if end.is_checkmate() {
            (
                KnownOutcome::Decisive {
                    winner: !end.turn(),
                },
                Reason::Checkmate,
            )
        } else if end.is_stalemate() {
            (KnownOutcome::Draw, Reason::Stalemate)
        } else if end.is_insufficient_material() {
            (KnownOutcome::Draw, Reason::InsufficientMaterial)
        } else {
            let outcome: KnownOutcome = self
                .result()
                .parse()
                .unwrap_or_else(|_| panic!("{}: no result", self.name));
            match outcome {
                KnownOutcome::Decisive { .. } => (outcome, Reason::Resignation),
                KnownOutcome::Draw => (outcome, Reason::Agreement),
            }
        }
    }

    /// Plays the game into `script` (built from [`PgnGame::start`]) and adds
    /// the ending the referee needs to reach the PGN result: nothing after a
    /// mate or stalemate, the loser's resignation, or a draw offered by the
    /// last mover before his press and accepted by the other.
    pub fn play_into(&self, mut script: Script) -> Script {
        script
            .play_sans(&self.sans)
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        if !script.is_over() {
            match self.expected_result() {
                (KnownOutcome::Decisive { winner }, _) => {
                    script.resign(!winner).unwrap();
                }
                (KnownOutcome::Draw, _) => {
                    // The side that moved last is the one not to move now.
                    let last_mover: Color = !script.position().turn();
                    script.agree_draw(last_mover).unwrap();
                }
            }
        }
        script
    }
}

/// Every game of a PGN file.
pub fn read_pgn(path: &Path) -> io::Result<Vec<PgnGame>> {
    let file_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let games = parsed::read_all(fs::File::open(path)?)?;
    Ok(games
        .into_iter()
        .enumerate()
        .map(|(i, game)| PgnGame {
            name: format!("{file_name}#{}", i + 1),
            tags: game.tags,
            sans: game.sans,
        })
        .collect())
}

/// The directory of the reference games.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Every game of every `tests/data/*.pgn`, files in name order.
pub fn reference_games() -> Vec<PgnGame> {
    let mut paths: Vec<PathBuf> = fs::read_dir(data_dir())
        .expect("tests/data")
        .map(|entry| entry.expect("tests/data entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|path| read_pgn(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}
