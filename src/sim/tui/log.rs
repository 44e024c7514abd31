//! The simulator's log pane: the referee's decisions as the daemon writes
//! them (replay-format effect lines, read back once through the transcript
//! and put into words by [`crate::words`], the moves in SAN), and the
//! commands typed, so the pane reads as a transcript of the game.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::rc::Rc;

use crate::face::duration_text;
use crate::{Effect, transcript, words};

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
pub struct Entry {
    /// What it records, for its colour.
    pub kind: EntryKind,
    /// The line as shown.
    pub text: String,
}

/// The log's entries, oldest first, shared between the daemon's output and
/// the screen.
#[derive(Debug, Clone, Default)]
pub struct Log(Rc<RefCell<VecDeque<Entry>>>);

impl Log {
    /// An empty log.
    pub fn new() -> Log {
        Log::default()
    }

    /// Adds an entry, dropping the oldest beyond [`CAPACITY`].
    pub fn push(&self, kind: EntryKind, text: String) {
        let mut entries = self.0.borrow_mut();
        if entries.len() == CAPACITY {
            entries.pop_front();
        }
        entries.push_back(Entry { kind, text });
    }

    /// The last `n` entries, oldest first.
    pub fn last(&self, n: usize) -> Vec<Entry> {
        let entries = self.0.borrow();
        entries
            .iter()
            .skip(entries.len().saturating_sub(n))
            .cloned()
            .collect()
    }

    /// A writer for the daemon's decisions ([`crate::daemon::Shell::with_output`]).
    pub fn writer(&self) -> LogWriter {
        LogWriter {
            log: self.clone(),
            partial: Vec::new(),
        }
    }
}

/// Takes the daemon's effect lines and logs each in plain words.
#[derive(Debug)]
pub struct LogWriter {
    log: Log,
    /// Bytes of a line not yet ended.
    partial: Vec<u8>,
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &byte in buf {
            if byte == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                let (kind, text) = describe(&line);
                self.log.push(kind, text);
            } else {
                self.partial.push(byte);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An effect line in plain words, after the game time it happened at: a
/// move as on a score sheet with both clocks, a ruling with its article
/// ([`words::transcript_text`]). The line is read once, through the
/// transcript; one that is not an effect line is shown as it came.
pub fn describe(line: &str) -> (EntryKind, String) {
    let Ok((t, effect)) = transcript::parse_effect_line(line) else {
        return (EntryKind::Decision, line.to_owned());
    };
    let kind = match effect {
        Effect::Move(_) => EntryKind::Move,
        Effect::Violation(_)
        | Effect::Warning(_)
        | Effect::TimeAdded { .. }
        | Effect::Displaced { .. }
        | Effect::Flag { .. } => EntryKind::Ruling,
        _ => EntryKind::Decision,
    };
    let words = words::transcript_text(&effect);
    (kind, format!("{:>8}  {words}", duration_text(t)))
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
        let (kind, text) = describe(&transcript::effect_to_json(65_000, &effect));
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
        let (kind, text) = describe(&transcript::effect_to_json(3_000, &effect));
        assert_eq!(kind, EntryKind::Ruling);
        assert!(
            text.ends_with("Violation (White, 4.3.1): Touch-move: move the g1 knight"),
            "{text}"
        );
        let (_, text) = describe(&transcript::effect_to_json(
            0,
            &Effect::Displaced {
                side: Color::Black,
                squares: vec![shakmaty::Square::D4],
            },
        ));
        assert!(text.ends_with("restore d4"), "{text}");
        let (_, text) = describe(&transcript::effect_to_json(
            0,
            &Effect::Restored {
                side: Color::White,
                ms: 700,
            },
        ));
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
        let (kind, text) = describe(&transcript::effect_to_json(4_300, &claim));
        assert_eq!(kind, EntryKind::Decision);
        assert_eq!(text, "    0:04  Claim 4.3.1 upheld: Black");
    }

    #[test]
    fn an_unreadable_line_is_shown_as_it_came() {
        assert_eq!(
            describe("not json"),
            (EntryKind::Decision, "not json".to_owned())
        );
        assert_eq!(
            describe(r#"{"t":1,"effect":"new_thing"}"#).1,
            r#"{"t":1,"effect":"new_thing"}"#
        );
    }

    #[test]
    fn the_writer_logs_whole_lines_and_keeps_the_last() {
        let log = Log::new();
        let mut writer = log.writer();
        let line = transcript::effect_to_json(0, &Effect::Started { side: Color::White });
        let (head, tail) = line.split_at(10);
        writer.write_all(head.as_bytes()).unwrap();
        assert!(log.last(10).is_empty(), "half a line waits for its end");
        writer.write_all(format!("{tail}\n").as_bytes()).unwrap();
        assert_eq!(log.last(10)[0].text, "    0:00  White's clock started");
        for i in 0..CAPACITY + 5 {
            log.push(EntryKind::Typed, format!("> {i}"));
        }
        let last = log.last(2);
        assert_eq!(last[1].text, format!("> {}", CAPACITY + 4));
        assert_eq!(log.last(usize::MAX).len(), CAPACITY);
    }
}
