//! One game of a board as the hall rebuilds it: its stored lines in `seq`
//! order, fed through [`crate::transcript`] as they arrive, so the hall
//! knows the position, the clocks and every ruling without trusting the
//! clock's own account of them.

use std::collections::BTreeMap;

use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, Position};

use crate::broadcast::Running;
use crate::pgn::{Audience, Tags};
use crate::transcript::{Fault, Feed, Policy, effect_to_value, pgn_from_lines_for};
use crate::words;
use crate::{Effect, Millis};

/// Events held back when an earlier one is missing, at most, per game: a
/// gap this long is a lost message, not a reordering, and the rest waits
/// in the store for the next start.
const MAX_PENDING: usize = 50_000;

/// A ruling, or any effect other than a plain move and the start: what the
/// arbiter's log shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RulingEntry {
    /// Its place among the game's effects, from 0: with the board and the
    /// game, what an arbiter acknowledges.
    pub index: usize,
    /// The game's instant, ms.
    pub t: Millis,
    /// In words, as the clock's face says it.
    pub text: String,
    /// The effect line of the replay format.
    pub effect: serde_json::Value,
}

/// How a line given to [`ReportedGame::add`] was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The game already had this `seq`.
    Duplicate,
    /// Held until the lines before it arrive.
    Pending,
    /// Fed, with the lines it unblocked: how many were fed in all.
    Fed(usize),
}

/// A game being rebuilt from its lines.
#[derive(Debug)]
pub struct ReportedGame {
    /// Lines `0..lines.len()`, every one of them fed.
    lines: Vec<String>,
    /// Lines after a gap, by `seq`.
    pending: BTreeMap<i64, String>,
    /// Reads and feeds the lines; it holds the first line the transcript
    /// refused, after which nothing is fed.
    feed: Feed,
    effects: Vec<(Millis, Effect)>,
    /// The PGN for the arbiter and for the public, kept until a line
    /// arrives.
    pgn: Option<String>,
    public_pgn: Option<String>,
}

impl Default for ReportedGame {
    fn default() -> Self {
        ReportedGame::new()
    }
}

impl ReportedGame {
    /// A game with no line yet.
    pub fn new() -> ReportedGame {
        ReportedGame {
            lines: Vec::new(),
            pending: BTreeMap::new(),
            feed: Feed::new(Policy::RESTORE),
            effects: Vec::new(),
            pgn: None,
            public_pgn: None,
        }
    }

    /// Takes line `seq` of the game, in any order; the lines are fed once
    /// every line before them is here.
    pub fn add(&mut self, seq: i64, line: String) -> Added {
        let next = self.lines.len() as i64;
        if seq < next || self.pending.contains_key(&seq) {
            return Added::Duplicate;
        }
        if seq > next {
            if self.pending.len() >= MAX_PENDING {
                // Still in the store: a restart of the hall feeds it.
                return Added::Pending;
            }
            self.pending.insert(seq, line);
            return Added::Pending;
        }
        self.feed_line(line);
        let mut fed = 1;
        while let Some(line) = self.pending.remove(&(self.lines.len() as i64)) {
            self.feed_line(line);
            fed += 1;
        }
        Added::Fed(fed)
    }

    fn feed_line(&mut self, line: String) {
        self.pgn = None;
        self.public_pgn = None;
        let effects = &mut self.effects;
        // A bad line is the feed's to keep (`fault`); the line is kept too.
        let _ = self
            .feed
            .push_str(&line, |t, effect| effects.push((t, effect)));
        self.lines.push(line);
    }

    /// The lines fed, from `seq` 0 on without a gap.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// How many lines wait for an earlier one.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The `seq` of the last line fed, if any.
    pub fn last_seq(&self) -> Option<i64> {
        (self.lines.len() as i64).checked_sub(1)
    }

    /// The first line the transcript refused, if one was.
    pub fn fault(&self) -> Option<&Fault> {
        self.feed.fault()
    }

    /// The position, as FEN, once a line made the game.
    pub fn fen(&self) -> Option<String> {
        let referee = self.feed.referee()?;
        Some(Fen::from_position(referee.position(), EnPassantMode::Legal).to_string())
    }

    /// Whose move it is, once a line made the game.
    pub fn to_move(&self) -> Option<Color> {
        Some(self.feed.referee()?.position().turn())
    }

    /// Each side's time left at the game's last instant, ms.
    pub fn clocks(&self) -> Option<(u64, u64)> {
        let referee = self.feed.referee()?;
        let t = self.feed.last_t().unwrap_or(0);
        Some((
            referee.remaining(Color::White, t),
            referee.remaining(Color::Black, t),
        ))
    }

    /// Whose clock runs.
    pub fn running(&self) -> Option<Running> {
        let referee = self.feed.referee()?;
        if referee.result().is_some() || referee.is_paused() {
            return None;
        }
        referee.ticking().map(|side| match side {
            Color::White => Running::White,
            Color::Black => Running::Black,
        })
    }

    /// The result token (`1-0`, `0-1`, `1/2-1/2`) and the result in words,
    /// once the game is over.
    pub fn result(&self) -> Option<(&'static str, String)> {
        let (outcome, reason) = self.feed.referee()?.result()?;
        Some((
            outcome.as_str(),
            words::result_text(outcome, reason, words::Language::English),
        ))
    }

    /// Whose flag fell, if one did.
    pub fn flag(&self) -> Option<Color> {
        self.effects.iter().find_map(|(_, effect)| match effect {
            Effect::Flag { side } => Some(*side),
            _ => None,
        })
    }

    /// The moves played, in SAN, takebacks taken out.
    pub fn moves(&self) -> Vec<String> {
        let mut moves = Vec::new();
        for (_, effect) in &self.effects {
            match effect {
                Effect::Move(m) => moves.push(m.san.as_str().to_owned()),
                Effect::TakenBack { .. } => {
                    moves.pop();
                }
                _ => {}
            }
        }
        moves
    }

    /// How many moves [`ReportedGame::moves`] has, and its last: without
    /// copying every move, for the page's view of a board, built again at
    /// each change.
    pub fn moves_count_and_last(&self) -> (usize, Option<String>) {
        let mut count = 0usize;
        for (_, effect) in &self.effects {
            match effect {
                Effect::Move(_) => count += 1,
                Effect::TakenBack { .. } => count = count.saturating_sub(1),
                _ => {}
            }
        }
        // The last move no takeback took out, walking back.
        let mut taken_back = 0usize;
        let mut last = None;
        if count > 0 {
            for (_, effect) in self.effects.iter().rev() {
                match effect {
                    Effect::TakenBack { .. } => taken_back += 1,
                    Effect::Move(_) if taken_back > 0 => taken_back -= 1,
                    Effect::Move(m) => {
                        last = Some(m.san.as_str().to_owned());
                        break;
                    }
                    _ => {}
                }
            }
        }
        (count, last)
    }

    /// Every effect but the moves and the start, in order: the game's log
    /// of rulings.
    pub fn rulings(&self) -> Vec<RulingEntry> {
        self.ruling_indices()
            .filter_map(|index| self.ruling(index))
            .collect()
    }

    /// The indices of [`ReportedGame::rulings`], without their words.
    pub fn ruling_indices(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.effects
            .iter()
            .enumerate()
            .filter(|(_, (_, effect))| !matches!(effect, Effect::Move(_) | Effect::Started { .. }))
            .map(|(index, _)| index)
    }

    /// The ruling at effect `index`, in words.
    pub fn ruling(&self, index: usize) -> Option<RulingEntry> {
        let (t, effect) = self.effects.get(index)?;
        Some(RulingEntry {
            index,
            t: *t,
            text: words::log_text(effect, words::Language::English),
            effect: effect_to_value(*t, effect),
        })
    }

    /// The game's PGN with `tags`, each move with its `[%clk]` and the
    /// rulings as comments, rebuilt from the lines by
    /// [`crate::transcript::pgn_from_lines`] as `tocada export` would write it; a game cut at
    /// a bad line ends with a note saying so. Kept until a line arrives.
    pub fn pgn(&mut self, tags: &Tags) -> &str {
        self.pgn_for(tags, Audience::Arbiter)
    }

    /// The same, written for `audience` ([`Audience::Public`]: without
    /// the rulings).
    pub fn pgn_for(&mut self, tags: &Tags, audience: Audience) -> &str {
        let lines = &self.lines;
        let kept = match audience {
            Audience::Arbiter => &mut self.pgn,
            Audience::Public => &mut self.public_pgn,
        };
        kept.get_or_insert_with(|| {
            pgn_from_lines_for(lines, tags.clone(), audience).unwrap_or_else(|err| err.pgn)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scholar() -> Vec<String> {
        [
            r#"{"t":0,"ev":"setup","time_control":"180+2"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1000,"ev":"lift","sq":"e2"}"#,
            r#"{"t":1200,"ev":"place","sq":"e4"}"#,
            r#"{"t":1500,"ev":"press","side":"white"}"#,
            r#"{"t":3000,"ev":"lift","sq":"e7"}"#,
            r#"{"t":3200,"ev":"place","sq":"e5"}"#,
            r#"{"t":4000,"ev":"press","side":"black"}"#,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    #[test]
    fn lines_out_of_order_are_fed_once_the_gap_is_filled() {
        let lines = scholar();
        let mut game = ReportedGame::new();
        assert_eq!(game.add(0, lines[0].clone()), Added::Fed(1));
        for seq in (2..lines.len()).rev() {
            assert_eq!(game.add(seq as i64, lines[seq].clone()), Added::Pending);
        }
        assert_eq!(game.pending(), lines.len() - 2);
        assert_eq!(game.moves(), Vec::<String>::new());
        assert_eq!(game.add(1, lines[1].clone()), Added::Fed(lines.len() - 1));
        assert_eq!(game.add(3, lines[3].clone()), Added::Duplicate);
        assert_eq!(game.moves(), ["e4", "e5"]);
        assert_eq!(game.last_seq(), Some(7));
        assert_eq!(game.to_move(), Some(Color::White));
        assert_eq!(game.running(), Some(Running::White));
        // White: 180 s - 1.5 s + 2 s; Black: 180 s - 2.5 s + 2 s.
        assert_eq!(game.clocks(), Some((180_500, 179_500)));
        assert!(
            game.fen()
                .unwrap()
                .starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/")
        );
        let pgn = game.pgn(&Tags::default()).to_owned();
        assert!(
            pgn.contains("1. e4 {[%clk 0:03:00]} e5 {[%clk 0:02:59]}"),
            "{pgn}"
        );
    }

    #[test]
    fn the_count_and_last_move_are_the_moves_after_takebacks() {
        let mut lines = scholar();
        let mut game = ReportedGame::new();
        assert_eq!(game.moves_count_and_last(), (0, None));
        // e4 e5, both taken back, then e4 again.
        lines.extend(
            [
                r#"{"t":5000,"ev":"pause"}"#,
                r#"{"t":5500,"ev":"takeback"}"#,
                r#"{"t":5600,"ev":"takeback"}"#,
            ]
            .map(str::to_owned),
        );
        let mut seen = Vec::new();
        for (seq, line) in lines.iter().enumerate() {
            game.add(seq as i64, line.clone());
            let moves = game.moves();
            assert_eq!(
                game.moves_count_and_last(),
                (moves.len(), moves.last().cloned()),
                "after line {seq}"
            );
            seen.push(moves.len());
        }
        // Both moves were made, and both taken back.
        assert!(seen.contains(&2), "{seen:?}");
        assert_eq!(
            game.moves_count_and_last(),
            (0, None),
            "{:?}",
            game.rulings()
        );
    }

    #[test]
    fn a_bad_line_stops_the_game_there_and_the_pgn_says_so() {
        let mut lines = scholar();
        lines.insert(5, r#"{"t":2000,"ev":"jump"}"#.to_owned());
        let mut game = ReportedGame::new();
        for (seq, line) in lines.iter().enumerate() {
            game.add(seq as i64, line.clone());
        }
        assert_eq!(game.fault().map(|f| f.line), Some(6));
        assert_eq!(game.moves(), ["e4"]);
        assert!(game.pgn(&Tags::default()).contains("stops here"));
    }

    #[test]
    fn a_ruling_is_in_the_log_with_its_words() {
        let lines = [
            r#"{"t":0,"ev":"setup","time_control":"180+2"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1000,"ev":"pause"}"#,
            r#"{"t":200000,"ev":"resume"}"#,
            r#"{"t":400000,"ev":"end"}"#,
        ];
        let mut game = ReportedGame::new();
        for (seq, line) in lines.iter().enumerate() {
            game.add(seq as i64, line.to_string());
        }
        let log = game.rulings();
        let kinds: Vec<_> = log.iter().map(|r| r.effect["effect"].clone()).collect();
        assert_eq!(kinds, ["paused", "resumed", "flag", "result"]);
        assert_eq!(game.flag(), Some(Color::White));
        assert_eq!(game.result().map(|r| r.0), Some("0-1"));
        assert_eq!(game.running(), None);
        assert_eq!(log[0].text, "Paused by the arbiter");
    }
}
