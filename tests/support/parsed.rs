//! PGN read with pgn-reader: what another program sees of the PGN tocada
//! writes (`tests/pgn.rs`, `tests/export_cli.rs`, `tests/power_cut.rs`), and
//! the one reader of the reference games too (`pgn.rs` here, which
//! `benches/replay.rs` and `examples/pgn_to_events.rs` include with
//! `#[path]`, this file beside it).

// Each user takes only what it needs from this file.
#![allow(dead_code)]

use std::io;
use std::ops::ControlFlow;

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};

/// One game as a PGN reader sees it.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// The tag pairs, in order.
    pub tags: Vec<(String, String)>,
    /// The moves in SAN, suffixes included.
    pub sans: Vec<String>,
    /// Every comment, with the number of moves before it.
    pub comments: Vec<(usize, String)>,
    /// The result token, `None` when missing.
    pub outcome: Option<String>,
}

impl Parsed {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `[%clk]` value after each move, as written (`0:04:59`).
    pub fn clocks(&self) -> Vec<Option<String>> {
        (1..=self.sans.len())
            .map(|after| {
                self.comments
                    .iter()
                    .filter(|(n, _)| *n == after)
                    .find_map(|(_, text)| {
                        text.trim()
                            .strip_prefix("[%clk ")
                            .and_then(|rest| rest.strip_suffix(']'))
                            .map(str::to_owned)
                    })
            })
            .collect()
    }

    /// Comments that are not clock commands, in order.
    pub fn words(&self) -> Vec<String> {
        self.comments
            .iter()
            .map(|(_, text)| text.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|text| !text.starts_with("[%clk"))
            .collect()
    }
}

/// Collects tags, the main line, comments and the result; variations are
/// skipped (the default).
struct Collector;

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = Parsed;
    type Output = Parsed;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Parsed {
            tags,
            ..Parsed::default()
        })
    }

    fn san(&mut self, game: &mut Parsed, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        game.sans.push(san_plus.to_string());
        ControlFlow::Continue(())
    }

    fn comment(&mut self, game: &mut Parsed, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        game.comments.push((
            game.sans.len(),
            String::from_utf8_lossy(comment.as_bytes()).into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, game: &mut Parsed, outcome: Outcome) -> ControlFlow<Self::Output> {
        game.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: Parsed) -> Self::Output {
        game
    }
}

/// Every game a PGN reader finds in `input`.
pub fn read_all(input: impl io::Read) -> io::Result<Vec<Parsed>> {
    let mut reader = Reader::new(input);
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut Collector)? {
        games.push(game);
    }
    Ok(games)
}

/// Every game in a PGN text.
pub fn parse_all(pgn: &str) -> Vec<Parsed> {
    read_all(pgn.as_bytes()).expect("reading from memory")
}

/// The one game in a PGN text.
pub fn parse_one(pgn: &str) -> Parsed {
    let mut games = parse_all(pgn);
    assert_eq!(games.len(), 1, "one game in:\n{pgn}");
    games.remove(0)
}
