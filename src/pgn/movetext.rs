//! PGN export-format layout: tokens left-justified on lines of fewer than
//! 80 characters (PGN standard 8.2.6), breaking only between tokens.
//!
//! Kept apart from the game record so that the rules of what to write and
//! the rules of where lines break can each be read on their own.

/// The longest movetext line: "less than 80 printing characters" (8.2.6).
pub(super) const MAX_LINE: usize = 79;

/// Movetext being laid out, line by line.
#[derive(Debug, Default)]
pub(super) struct Movetext {
    text: String,
    line_len: usize,
}

impl Movetext {
    /// Appends one token that must not be split (a move, a move number, a
    /// `{[%clk 0:04:59]}` comment), on a new line if it does not fit. A
    /// token longer than a whole line stands alone on its own line.
    pub(super) fn token(&mut self, token: &str) {
        let width = token.chars().count();
        if self.line_len > 0 {
            if self.line_len + 1 + width > MAX_LINE {
                self.text.push('\n');
                self.line_len = 0;
            } else {
                self.text.push(' ');
                self.line_len += 1;
            }
        }
        self.text.push_str(token);
        self.line_len += width;
    }

    /// Appends a comment of plain words, `{` and `}` added: it may break
    /// between words like any other tokens, which PGN readers take as a
    /// single space.
    pub(super) fn comment(&mut self, text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [] => self.token("{}"),
            [only] => self.token(&format!("{{{only}}}")),
            [first, middle @ .., last] => {
                self.token(&format!("{{{first}"));
                for word in middle {
                    self.token(word);
                }
                self.token(&format!("{last}}}"));
            }
        }
    }

    /// The laid-out text, without a final newline.
    pub(super) fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_stay_under_80_characters_and_break_between_tokens() {
        let mut movetext = Movetext::default();
        for n in 1..=40 {
            movetext.token(&format!("{n}."));
            movetext.token("Nf3");
            movetext.token("{[%clk 1:23:45]}");
        }
        let text = movetext.finish();
        assert!(text.lines().count() > 10, "{text}");
        for line in text.lines() {
            assert!(line.len() <= MAX_LINE, "{} chars: {line}", line.len());
            assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
            // The clock command is never split.
            assert_eq!(line.matches("{[%clk").count(), line.matches("]}").count());
        }
        // Nothing lost or added but the line breaks.
        let expected: Vec<String> = (1..=40)
            .map(|n| format!("{n}. Nf3 {{[%clk 1:23:45]}}"))
            .collect();
        assert_eq!(text.replace('\n', " "), expected.join(" "));
    }

    #[test]
    fn a_line_is_filled_up_to_79_characters() {
        let mut movetext = Movetext::default();
        // 26 tokens of "ab" and their spaces make 77 characters; one more
        // "a" fits at 79, "b" then goes on the next line.
        for _ in 0..26 {
            movetext.token("ab");
        }
        movetext.token("a");
        movetext.token("b");
        let text = movetext.finish();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), 79);
        assert_eq!(lines[1], "b");
    }

    #[test]
    fn comments_wrap_between_words_inside_their_braces() {
        let mut movetext = Movetext::default();
        movetext.token("1.");
        movetext.comment("  White   offers a draw ");
        movetext.comment("");
        movetext.comment("Paused");
        assert_eq!(movetext.finish(), "1. {White offers a draw} {} {Paused}");

        let mut movetext = Movetext::default();
        let long = "word ".repeat(40);
        movetext.comment(&long);
        let text = movetext.finish();
        assert!(text.lines().count() > 1);
        assert!(text.lines().all(|line| line.len() <= MAX_LINE));
        assert!(text.starts_with("{word") && text.ends_with("word}"));
    }

    #[test]
    fn an_overlong_token_stands_alone() {
        let mut movetext = Movetext::default();
        let long = "x".repeat(100);
        movetext.token("1.");
        movetext.token(&long);
        movetext.token("e4");
        assert_eq!(movetext.finish(), format!("1.\n{long}\ne4"));
    }
}
