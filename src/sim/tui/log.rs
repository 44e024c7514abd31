//! The simulator's log pane: the referee's decisions as the daemon's loop
//! hands them over (typed values, [`Decisions`], put into words by
//! [`crate::words`], the moves in SAN), and the commands typed, so the pane
//! reads as a transcript of the game.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use shakmaty::Color;

use crate::daemon::{Decisions, GameRestored};
use crate::face::{Language, clock_text, duration_text};
use crate::{Effect, Millis, words};

/// The log keeps this many entries; older ones are dropped.
pub const CAPACITY: usize = 1_000;

/// What an entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A move completed.
    Move,
    /// A ruling against a player: a violation, a warning, time added, a
    /// displaced piece, a flag.
    Ruling,
    /// Any other decision: the start, draw offers, pauses, the result.
    Decision,
    /// A line the person typed.
    Typed,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// What it records, for its colour.
    pub kind: EntryKind,
    /// The line as shown.
    pub text: String,
}

/// The log's entries, oldest first, shared between the daemon's output and
/// the screen.
#[derive(Debug, Clone, Default)]
pub struct Log(Rc<RefCell<VecDeque<LogEntry>>>, Language);

impl Log {
    /// An empty log, in English.
    pub fn new() -> Log {
        Log::default()
    }

    /// An empty log that words the decisions in `language`.
    pub fn in_language(language: Language) -> Log {
        Log(Rc::default(), language)
    }

    /// Adds an entry, dropping the oldest beyond [`CAPACITY`].
    pub fn push(&self, kind: EntryKind, text: String) {
        let mut entries = self.0.borrow_mut();
        if entries.len() == CAPACITY {
            entries.pop_front();
        }
        entries.push_back(LogEntry { kind, text });
    }

    /// The last `n` entries, oldest first.
    pub fn last(&self, n: usize) -> Vec<LogEntry> {
        let entries = self.0.borrow();
        entries
            .iter()
            .skip(entries.len().saturating_sub(n))
            .cloned()
            .collect()
    }
}

/// The daemon's decisions ([`crate::daemon::Shell::with_decisions`]), each
/// logged in plain words.
impl Decisions for Log {
    fn decision(&mut self, t: Millis, effect: &Effect) {
        let (kind, text) = describe(t, effect, self.1);
        self.push(kind, text);
    }

    fn restored(&mut self, game: &GameRestored) {
        self.push(EntryKind::Decision, describe_restored(game, self.1));
    }
}

/// An effect in plain words, after the game time it happened at: a move as
/// on a score sheet with both clocks, a ruling with its article
/// ([`words::transcript_text`]).
pub fn describe(t: Millis, effect: &Effect, language: Language) -> (EntryKind, String) {
    let kind = match effect {
        Effect::Move(_) => EntryKind::Move,
        Effect::Violation(_)
        | Effect::Warning(_)
        | Effect::TimeAdded { .. }
        | Effect::Displaced { .. }
        | Effect::Flag { .. } => EntryKind::Ruling,
        _ => EntryKind::Decision,
    };
    let words = words::transcript_text(effect, language);
    (kind, format!("{:>8}  {words}", duration_text(t)))
}

/// A game taken up after a restart, in plain words: paused, with both
/// clocks and the moves made.
pub fn describe_restored(game: &GameRestored, language: Language) -> String {
    let restored = match language {
        Language::English => "Game restored, paused after {} plies",
        Language::Spanish => "Partida restaurada, en pausa tras {} medias jugadas",
        Language::French => "Partie restaurée, en pause après {} demi-coups",
        Language::German => "Partie wiederhergestellt, pausiert nach {} Halbzügen",
    }
    .replace("{}", &game.moves.to_string());
    format!(
        "{:>8}  {restored}: {} {}  {} {}",
        duration_text(game.t),
        language.side(Color::White),
        clock_text(game.white_ms),
        language.side(Color::Black),
        clock_text(game.black_ms),
    )
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;
    use crate::referee::{CompletedMove, Law, MoveText, Ruling};

    #[test]
    fn moves_read_as_a_score_sheet() {
        let effect = Effect::Move(CompletedMove {
            side: Color::Black,
            number: 1,
            uci: MoveText::new("e7e5").expect("a UCI move"),
            san: MoveText::new("e5").expect("a SAN move"),
            white_ms: 905_000,
            black_ms: 899_400,
        });
        let (kind, text) = describe(65_000, &effect, Language::English);
        assert_eq!(kind, EntryKind::Move);
        assert_eq!(text, "    1:05  1...   e5        White 15:05  Black 14:59");
    }

    #[test]
    fn rulings_carry_their_article_and_detail() {
        let effect = Effect::Violation(Ruling {
            side: Color::White,
            law: Law::TouchedOwn,
            detail: "Touch-move: move the g1 knight".to_owned(),
        });
        let (kind, text) = describe(3_000, &effect, Language::English);
        assert_eq!(kind, EntryKind::Ruling);
        assert!(
            text.ends_with("Violation (White, 4.3.1): Touch-move: move the g1 knight"),
            "{text}"
        );
        let (_, text) = describe(
            0,
            &Effect::Displaced {
                side: Color::Black,
                squares: vec![shakmaty::Square::D4],
            },
            Language::English,
        );
        assert!(text.ends_with("restore d4"), "{text}");
        let (_, text) = describe(
            0,
            &Effect::Restored {
                side: Color::White,
                ms: 700,
            },
            Language::English,
        );
        assert!(
            text.ends_with("Board restored (White charged 0.7 s)"),
            "{text}"
        );
    }

    #[test]
    fn every_effect_has_its_words() {
        let claim = Effect::Claim {
            side: Color::Black,
            law: Law::TouchedOwn,
            upheld: true,
        };
        let (kind, text) = describe(4_300, &claim, Language::English);
        assert_eq!(kind, EntryKind::Decision);
        assert_eq!(text, "    0:04  Claim 4.3.1 upheld: Black");
    }

    #[test]
    fn the_log_speaks_the_players_language() {
        let effect = Effect::Violation(Ruling {
            side: Color::White,
            law: Law::TouchedOwn,
            detail: "Touch-move: move the g1 knight".to_owned(),
        });
        let (_, text) = describe(3_000, &effect, Language::Spanish);
        assert!(
            text.ends_with("Infracción (Blancas, 4.3.1): Pieza tocada: mueva el caballo de g1"),
            "{text}"
        );
        let mv = Effect::Move(CompletedMove {
            side: Color::White,
            number: 2,
            uci: MoveText::new("g1f3").expect("a UCI move"),
            san: MoveText::new("Nf3").expect("a SAN move"),
            white_ms: 905_000,
            black_ms: 899_400,
        });
        let (_, text) = describe(0, &mv, Language::German);
        assert!(text.contains("2.     Sf3"), "{text}");
        assert!(text.ends_with("Weiß 15:05  Schwarz 14:59"), "{text}");
        let mut log = Log::in_language(Language::French);
        log.decision(0, &Effect::Started { side: Color::White });
        assert_eq!(log.last(1)[0].text, "    0:00  Pendule des Blancs lancée");
    }

    #[test]
    fn the_log_takes_decisions_as_values_and_keeps_the_last() {
        let mut log = Log::new();
        let mut decisions: Box<dyn Decisions> = Box::new(log.clone());
        decisions.decision(0, &Effect::Started { side: Color::White });
        decisions.restored(&GameRestored {
            t: 61_000,
            white_ms: 299_000,
            black_ms: 300_000,
            moves: 1,
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".to_owned(),
        });
        let entries = log.last(10);
        assert_eq!(entries[0].text, "    0:00  White's clock started");
        assert_eq!(entries[0].kind, EntryKind::Decision);
        assert_eq!(
            entries[1].text,
            "    1:01  Game restored, paused after 1 plies: White 4:59  Black 5:00"
        );
        for i in 0..CAPACITY + 5 {
            log.push(EntryKind::Typed, format!("> {i}"));
        }
        let last = log.last(2);
        assert_eq!(last[1].text, format!("> {}", CAPACITY + 4));
        assert_eq!(log.last(usize::MAX).len(), CAPACITY);
        log.decision(1, &Effect::Paused);
        assert_eq!(log.last(1)[0].text, "    0:00  Paused by the arbiter");
    }
}
