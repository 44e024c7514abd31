//! A game as PGN: the score the players and the arbiter take home.
//!
//! [`GameRecord`] is fed every effect the referee emits, in order, and
//! writes the game in PGN export format: the seven tag roster with
//! `TimeControl` and `Termination` (and `SetUp`/`FEN` for a game from a set
//! position), each move with the mover's clock after it as `{[%clk h:mm:ss]}`,
//! offers, rulings, pauses and displacements as comments, and the result
//! token matching the referee's `Effect::Result` (`*` while it has none).
//!
//! [`crate::transcript::pgn_from_lines`] rebuilds the PGN of a stored game
//! by replaying its replay lines into a fresh referee, the same way (and
//! under the same policy) the daemon recovers a game, so the PGN always
//! agrees with what the referee decided.
//!
//! ```text
//! [Event "Club night"]
//! ...
//! [TimeControl "300+2"]
//! [Termination "normal"]
//!
//! 1. e4 {[%clk 0:05:01]} e5 {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:58]}
//! {White offers a draw} 2... Nc6 {[%clk 0:04:59]} {Black declines} ...
//! ```

mod movetext;

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, KnownOutcome};

use crate::{Effect, Millis, MoveText, Reason, Rules};

pub use crate::words::pgn::clock_command;

use crate::words::pgn as comment;
use movetext::Movetext;

/// The tags a game is written with. An empty value is written as PGN's
/// "unknown": `?`, or `????.??.??` for the date.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    /// The event, e.g. the club night or tournament.
    pub event: String,
    /// Where it was played.
    pub site: String,
    /// The day the game started, `YYYY.MM.DD`.
    pub date: String,
    /// The round, e.g. `3`.
    pub round: String,
    /// White's name, `Last, First`.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The time control in the `TimeControl` tag grammar, e.g. `300+2`.
    pub time_control: String,
}

/// One thing in the movetext, in game order.
#[derive(Debug, Clone)]
enum Element {
    /// A completed move and the mover's clock after it.
    Move {
        side: Color,
        number: u32,
        san: MoveText,
        clock_ms: u64,
    },
    /// Plain words about what happened.
    Comment(String),
}

/// A game being recorded from the referee's effects.
#[derive(Debug, Clone)]
pub struct GameRecord {
    tags: Tags,
    start_fen: Option<String>,
    elements: Vec<Element>,
    result: Option<(KnownOutcome, Reason)>,
    paused_at: Option<Millis>,
    /// A proper offer (made between moving and pressing) waiting for the
    /// press that completes its move: scoresheets note it after the move.
    offer: Option<(Color, String)>,
}

impl GameRecord {
    /// An empty record. `start_fen` is `None` for the standard starting
    /// position; a FEN adds the `SetUp` and `FEN` tags.
    pub fn new(tags: Tags, start_fen: Option<String>) -> GameRecord {
        GameRecord {
            tags,
            start_fen,
            elements: Vec::new(),
            result: None,
            paused_at: None,
            offer: None,
        }
    }

    /// Takes one effect, at the instant the referee gave it. Feed every
    /// effect in order; anything after the result is ignored, as the
    /// referee promises there is none.
    pub fn record(&mut self, t: Millis, effect: &Effect) {
        if self.result.is_some() {
            return;
        }
        if let Effect::DrawOffer { side, proper: true } = effect {
            self.flush_offer();
            self.offer = Some((*side, comment::draw_offer(*side, true)));
            return;
        }
        let offer_follows_move = matches!(
            (effect, &self.offer),
            (Effect::Move(m), Some((side, _))) if m.side == *side
        );
        if !offer_follows_move {
            // Anything else first (a refused press, a flag): the offer stays where it was made.
            self.flush_offer();
        }
        let words = match effect {
            Effect::Move(m) => {
                self.elements.push(Element::Move {
                    side: m.side,
                    number: m.number,
                    san: m.san,
                    clock_ms: match m.side {
                        Color::White => m.white_ms,
                        Color::Black => m.black_ms,
                    },
                });
                self.flush_offer();
                None
            }
            Effect::Violation(ruling) => Some(comment::violation(ruling)),
            Effect::Warning(ruling) => Some(comment::warning(ruling)),
            Effect::TimeAdded { side, ms, law } => {
                Some(comment::time_added(*side, *ms, law.article()))
            }
            Effect::DrawOffer { side, proper } => Some(comment::draw_offer(*side, *proper)),
            Effect::DrawDeclined { side, how } => Some(comment::draw_declined(*side, *how)),
            Effect::Displaced { side, squares } => Some(comment::displaced(*side, squares)),
            Effect::Restored { side, ms } => Some(comment::restored(*side, *ms)),
            Effect::Flag { side } => Some(comment::flag(*side)),
            Effect::Corrected {
                side,
                ms,
                completed,
            } => Some(comment::corrected(*side, *ms, *completed)),
            Effect::Paused => {
                self.paused_at = Some(t);
                Some(comment::paused())
            }
            Effect::Resumed => {
                let stood = self.paused_at.take().map(|at| t.saturating_sub(at));
                Some(comment::resumed(stood))
            }
            Effect::TakenBack { side, number, san } => {
                // A move taken back is not in the score: only the note is.
                if let Some(i) = self.elements.iter().rposition(|e| {
                    matches!(e, Element::Move { side: s, number: n, .. } if s == side && n == number)
                }) {
                    self.elements.remove(i);
                }
                Some(comment::taken_back(*side, *number, san))
            }
            Effect::Waived { side, law } => Some(comment::waived(*side, law.article())),
            Effect::Claim { side, law, upheld } => {
                Some(comment::claim(*side, law.article(), *upheld))
            }
            Effect::Choice { side, law, options } => {
                Some(comment::choice(*side, law.article(), options.as_slice()))
            }
            Effect::Result { outcome, reason } => {
                self.result = Some((*outcome, *reason));
                comment::ending(*outcome, *reason)
            }
            // Effects that say nothing a reader of the score needs (the
            // first press), and any the referee grows later until they are
            // given words here.
            _ => None,
        };
        if let Some(words) = words {
            self.elements.push(Element::Comment(words));
        }
    }

    /// Writes out a waiting draw offer.
    /// Ends the moves with `words` as a last comment (an offer still
    /// waiting for its move goes first): a game cut short by a fault.
    pub fn close_with_note(&mut self, words: String) {
        self.flush_offer();
        self.elements.push(Element::Comment(words));
    }

    fn flush_offer(&mut self) {
        if let Some((_, words)) = self.offer.take() {
            self.elements.push(Element::Comment(words));
        }
    }

    /// The result token: `1-0`, `0-1`, `1/2-1/2`, or `*` while the game
    /// has no result.
    pub fn result_token(&self) -> &'static str {
        match self.result {
            Some((outcome, _)) => outcome.as_str(),
            None => "*",
        }
    }

    /// The complete PGN text: tags, a blank line, the movetext ending in
    /// the result token, and a final newline.
    pub fn to_pgn(&self) -> String {
        let mut pgn = String::new();
        let unknown = |value: &str, default: &'static str| {
            if value.trim().is_empty() {
                default.to_owned()
            } else {
                value.trim().to_owned()
            }
        };
        let termination = match self.result {
            Some((_, reason)) => comment::termination(reason),
            None => "unterminated",
        };
        let mut tags = vec![
            ("Event", unknown(&self.tags.event, "?")),
            ("Site", unknown(&self.tags.site, "?")),
            ("Date", unknown(&self.tags.date, "????.??.??")),
            ("Round", unknown(&self.tags.round, "?")),
            ("White", unknown(&self.tags.white, "?")),
            ("Black", unknown(&self.tags.black, "?")),
            ("Result", self.result_token().to_owned()),
            ("TimeControl", unknown(&self.tags.time_control, "?")),
            ("Termination", termination.to_owned()),
        ];
        if let Some(fen) = &self.start_fen {
            tags.push(("SetUp", "1".to_owned()));
            tags.push(("FEN", fen.clone()));
        }
        for (name, value) in tags {
            pgn.push_str(&format!("[{name} \"{}\"]\n", tag_value(&value)));
        }
        pgn.push('\n');

        let mut movetext = Movetext::default();
        // Black's move needs its own number after a comment or at the start
        // (8.2.2.2); right after White's move and clock it does not.
        let mut after_white_move = false;
        let offer = self
            .offer
            .as_ref()
            .map(|(_, words)| Element::Comment(words.clone()));
        for element in self.elements.iter().chain(offer.as_ref()) {
            match element {
                Element::Move {
                    side,
                    number,
                    san,
                    clock_ms,
                } => {
                    match side {
                        Color::White => movetext.token(&format!("{number}.")),
                        Color::Black if !after_white_move => {
                            movetext.token(&format!("{number}..."))
                        }
                        Color::Black => {}
                    }
                    movetext.token(san);
                    movetext.token(&format!("{{{}}}", clock_command(*clock_ms)));
                    after_white_move = *side == Color::White;
                }
                Element::Comment(words) => {
                    movetext.comment(&comment_text(words));
                    after_white_move = false;
                }
            }
        }
        movetext.token(self.result_token());
        pgn.push_str(&movetext.finish());
        pgn.push('\n');
        pgn
    }
}

/// A tag value with `\` and `"` escaped (8.1.1) and no line breaks.
fn tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' | '"' => {
                out.push('\\');
                out.push(ch);
            }
            ch if ch.is_control() => out.push(' '),
            ch => out.push(ch),
        }
    }
    out
}

/// Comment words that cannot end the comment early: PGN has no escape for
/// `}` inside a brace comment.
fn comment_text(words: &str) -> String {
    words
        .chars()
        .map(|ch| match ch {
            '{' => '(',
            '}' => ')',
            ch if ch.is_control() => ' ',
            ch => ch,
        })
        .collect()
}

/// The FEN of `rules.start`, or `None` for the standard starting position.
pub fn start_fen(rules: &Rules) -> Option<String> {
    let fen = Fen::from_position(&rules.start, EnPassantMode::Legal).to_string();
    let standard = Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
    (fen != standard).then_some(fen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CompletedMove, Law, Ruling};

    fn moved(side: Color, number: u32, san: &str, white_ms: u64, black_ms: u64) -> Effect {
        Effect::Move(CompletedMove {
            side,
            number,
            uci: MoveText::default(),
            san: MoveText::new(san).expect("a SAN move"),
            white_ms,
            black_ms,
        })
    }

    fn tags() -> Tags {
        Tags {
            event: "Club \"night\"".to_owned(),
            site: "Lisbon".to_owned(),
            date: "2026.11.21".to_owned(),
            round: "3".to_owned(),
            white: "Ana".to_owned(),
            black: "Rui".to_owned(),
            time_control: "300+2".to_owned(),
        }
    }

    #[test]
    fn tags_come_in_roster_order_escaped() {
        let pgn = GameRecord::new(tags(), None).to_pgn();
        let tag_lines: Vec<&str> = pgn.lines().take_while(|l| !l.is_empty()).collect();
        assert_eq!(
            tag_lines,
            [
                r#"[Event "Club \"night\""]"#,
                r#"[Site "Lisbon"]"#,
                r#"[Date "2026.11.21"]"#,
                r#"[Round "3"]"#,
                r#"[White "Ana"]"#,
                r#"[Black "Rui"]"#,
                r#"[Result "*"]"#,
                r#"[TimeControl "300+2"]"#,
                r#"[Termination "unterminated"]"#,
            ]
        );
        assert!(pgn.ends_with("\n\n*\n"), "{pgn:?}");
    }

    #[test]
    fn unknown_tags_are_question_marks_and_a_set_position_has_its_fen() {
        let fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1".to_owned();
        let pgn = GameRecord::new(Tags::default(), Some(fen.clone())).to_pgn();
        assert!(pgn.contains("[Event \"?\"]\n"));
        assert!(pgn.contains("[Date \"????.??.??\"]\n"));
        assert!(pgn.contains("[SetUp \"1\"]\n"));
        assert!(pgn.contains(&format!("[FEN \"{fen}\"]\n")));
    }

    #[test]
    fn black_gets_a_number_after_a_comment_only() {
        let mut record = GameRecord::new(tags(), None);
        record.record(0, &Effect::Started { side: Color::White });
        record.record(1, &moved(Color::White, 1, "e4", 301_000, 300_000));
        record.record(2, &moved(Color::Black, 1, "e5", 301_000, 299_500));
        record.record(3, &moved(Color::White, 2, "Nf3", 299_000, 299_500));
        record.record(
            4,
            &Effect::DrawOffer {
                side: Color::White,
                proper: true,
            },
        );
        record.record(5, &moved(Color::Black, 2, "Nc6", 299_000, 3_661_000));
        record.record(
            6,
            &Effect::Violation(Ruling {
                side: Color::White,
                law: Law::TouchedOwn,
                detail: "Touch-move: move the {f3} knight".to_owned(),
            }),
        );
        record.record(
            7,
            &Effect::Result {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
                reason: Reason::Resignation,
            },
        );
        // Nothing after the result.
        record.record(8, &moved(Color::White, 3, "Bc4", 1, 1));
        let pgn = record.to_pgn();
        let movetext = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext.trim_end(),
            "1. e4 {[%clk 0:05:01]} e5 {[%clk 0:04:59]} 2. Nf3 {[%clk 0:04:59]} \
             {White offers a draw} 2... Nc6 {[%clk 1:01:01]} \
             {Violation by White: Touch-move: move the (f3) knight (art. 4.3.1)} \
             {White resigns} 0-1"
        );
        assert!(pgn.contains("[Result \"0-1\"]"));
        assert!(pgn.contains("[Termination \"normal\"]"));
    }

    #[test]
    fn a_proper_offer_is_noted_after_the_move_it_came_with() {
        let offer = Effect::DrawOffer {
            side: Color::White,
            proper: true,
        };
        let mut record = GameRecord::new(tags(), None);
        record.record(1, &offer);
        // Not written yet, but not lost either.
        assert!(record.to_pgn().ends_with("{White offers a draw} *\n"));
        record.record(2, &moved(Color::White, 1, "e4", 300_000, 300_000));
        let pgn = record.to_pgn();
        assert!(
            pgn.ends_with("1. e4 {[%clk 0:05:00]} {White offers a draw} *\n"),
            "{pgn}"
        );

        // A refused press: the offer stays before the ruling.
        let mut record = GameRecord::new(tags(), None);
        record.record(1, &offer);
        record.record(
            2,
            &Effect::Violation(Ruling {
                side: Color::White,
                law: Law::IllegalMove,
                detail: String::new(),
            }),
        );
        record.record(3, &moved(Color::White, 1, "d4", 300_000, 300_000));
        let pgn = record.to_pgn();
        assert!(
            pgn.contains("{White offers a draw} {Violation by White (art. 7.5.1)} 1. d4"),
            "{pgn}"
        );
    }

    #[test]
    fn pauses_show_how_long_the_clock_stood() {
        let mut record = GameRecord::new(tags(), None);
        record.record(10_000, &Effect::Paused);
        record.record(143_000, &Effect::Resumed);
        let pgn = record.to_pgn();
        assert!(
            pgn.contains("{Clock paused} {Clock resumed after 2:13} *"),
            "{pgn}"
        );
    }
}
