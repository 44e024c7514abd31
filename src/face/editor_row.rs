//! A row of the time-control editor as typed data: what it sets and its
//! value, which each face writes in its own words and language (the
//! OLED in [`RowWords`] whole, a DGT 3000 in its eight characters).

use super::language::{Language, RowWords};

/// A row of the time-control editor: what it sets and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorRow {
    /// The timing mode, by its place in [`RowWords::modes`]: Fischer,
    /// Bronstein, US delay, hourglass, upcount.
    Mode(usize),
    /// The first period's minutes.
    Time(u64),
    /// A Fischer increment's seconds; `None` where the mode takes no time
    /// per move.
    Increment(Option<u64>),
    /// A delay's seconds (Bronstein or US), in the increment's place.
    Delay(u64),
    /// The first period's moves; `None`: the period is the whole game.
    Moves(Option<u32>),
    /// The second period's minutes; `None` where there is no second
    /// period.
    Then(Option<u64>),
    /// Overtime after the last period, in the time control's own text
    /// (`5x30s` byo-yomi, `20/5m` Canadian); `None`: none.
    Overtime(Option<&'static str>),
    /// Black's own minutes; `None`: Black has White's time.
    Black(Option<u64>),
}

impl EditorRow {
    /// The row in `words`: its label, a space, its value ("Time 90m",
    /// "Incr +2s", "Moves all", "Then -"); an empty label is left out.
    pub fn text(&self, words: &RowWords) -> String {
        let labelled = |label: &str, value: &str| match label {
            "" => value.to_owned(),
            label => format!("{label} {value}"),
        };
        let minutes = |label: &str, minutes: Option<u64>| match minutes {
            Some(m) => labelled(label, &format!("{m}m")),
            None => labelled(label, "-"),
        };
        match *self {
            EditorRow::Mode(i) => labelled(words.mode, words.modes.get(i).copied().unwrap_or("?")),
            EditorRow::Time(m) => minutes(words.time, Some(m)),
            EditorRow::Increment(Some(s)) => labelled(words.increment, &format!("+{s}s")),
            EditorRow::Increment(None) => labelled(words.increment, "-"),
            EditorRow::Delay(s) => labelled(words.delay, &format!("{s}s")),
            EditorRow::Moves(Some(n)) => labelled(words.moves, &n.to_string()),
            EditorRow::Moves(None) => labelled(words.moves, words.all_moves),
            EditorRow::Then(m) => minutes(words.then, m),
            EditorRow::Overtime(overtime) => labelled(words.overtime, overtime.unwrap_or("-")),
            EditorRow::Black(Some(m)) => minutes(words.black, Some(m)),
            EditorRow::Black(None) => words.black_as_white.to_owned(),
        }
    }

    /// The row as the face writes it, in `language`.
    pub fn text_in(&self, language: Language) -> String {
        self.text(&language.face().editor.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_face_writes_each_row_as_label_and_value() {
        use EditorRow::*;
        let english = |row: EditorRow| row.text_in(Language::English);
        assert_eq!(english(Mode(0)), "Mode fischer");
        assert_eq!(english(Time(90)), "Time 90m");
        assert_eq!(english(Increment(Some(2))), "Incr +2s");
        assert_eq!(english(Increment(None)), "Incr -");
        assert_eq!(english(Delay(5)), "Delay 5s");
        assert_eq!(english(Moves(Some(40))), "Moves 40");
        assert_eq!(english(Moves(None)), "Moves all");
        assert_eq!(english(Then(Some(30))), "Then 30m");
        assert_eq!(english(Then(None)), "Then -");
        assert_eq!(english(Overtime(Some("5x30s"))), "Over 5x30s");
        assert_eq!(english(Overtime(None)), "Over -");
        assert_eq!(english(Black(Some(4))), "Black 4m");
        assert_eq!(english(Black(None)), "Black as White");
        // The short words leave the mode's label out.
        let short = &Language::German.face().editor.short_rows;
        assert_eq!(Mode(2).text(short), "Verzög.");
        assert_eq!(Mode(9).text_in(Language::English), "Mode ?");
    }
}
