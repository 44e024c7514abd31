//! The time-control editor of the setup screen, worked with the clock's own
//! buttons: Menu opens it, the adjust buttons choose a field, the draw
//! buttons step its value down (left) or up (right), Menu saves the control
//! as the preset `edited` and selects it.
//!
//! The values step through the controls clubs play, not one by one, so a
//! common control takes a handful of presses (counted in the tests and in
//! the book's time-controls page).

use crate::face::EditorRow;
use crate::{GameMode, IncrementMode, Rules, TimeControl};

/// The modes, in the order the draw buttons step through them.
const MODES: [IncrementMode; 5] = [
    IncrementMode::Fischer,
    IncrementMode::Bronstein,
    IncrementMode::Delay,
    IncrementMode::Hourglass,
    IncrementMode::Upcount,
];
/// Minutes for a period.
const MINUTES: [u64; 14] = [1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 45, 60, 90, 120];
/// Seconds of increment or delay.
const SECONDS: [u64; 10] = [0, 1, 2, 3, 5, 10, 15, 20, 30, 60];
/// Moves of the first period; 0: the whole game.
const MOVES: [u32; 5] = [0, 40, 30, 35, 60];
/// Overtime after the last period, in the time control's own text: none,
/// byo-yomi, Canadian.
const OVERTIMES: [&str; 6] = ["", "5x30s", "3x1m", "1x30s", "20/5m", "25/10m"];

/// The name the edited control is saved under.
pub const EDITED: &str = "edited";

/// What the editor's rows set, in the order the adjust buttons step:
/// mode, time, increment, moves of the first period, the second period's
/// time, overtime, Black's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Mode,
    Minutes,
    Increment,
    Moves,
    Then,
    Overtime,
    Black,
}

const ROWS: [Row; 7] = [
    Row::Mode,
    Row::Minutes,
    Row::Increment,
    Row::Moves,
    Row::Then,
    Row::Overtime,
    Row::Black,
];

/// The editor's state: an index into each row's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor {
    row: usize,
    mode: usize,
    minutes: usize,
    increment: usize,
    moves: usize,
    then: usize,
    overtime: usize,
    /// Black's minutes: 0 is "as White", else `MINUTES[black - 1]`.
    black: usize,
}

impl Default for Editor {
    /// Fischer, 5 minutes, no increment, one period; 30 minutes ready for
    /// a second period; Black as White.
    fn default() -> Editor {
        Editor {
            row: 0,
            mode: 0,
            minutes: 4,
            increment: 0,
            moves: 0,
            then: 9,
            overtime: 0,
            black: 0,
        }
    }
}

impl Editor {
    /// The next row (`forward`) or the previous one, skipping what the
    /// control leaves unused.
    pub fn step_row(&mut self, forward: bool) {
        let n = ROWS.len();
        for _ in 0..n {
            self.row = if forward {
                (self.row + 1) % n
            } else {
                (self.row + n - 1) % n
            };
            if self.shown(ROWS[self.row]) {
                return;
            }
        }
    }

    /// The selected row's value one step up (`up`) or down, round the ends.
    pub fn step_value(&mut self, up: bool) {
        let step = |i: &mut usize, n: usize| *i = if up { (*i + 1) % n } else { (*i + n - 1) % n };
        match ROWS[self.row] {
            Row::Mode => step(&mut self.mode, MODES.len()),
            Row::Minutes => step(&mut self.minutes, MINUTES.len()),
            Row::Increment => step(&mut self.increment, SECONDS.len()),
            Row::Moves => step(&mut self.moves, MOVES.len()),
            Row::Then => step(&mut self.then, MINUTES.len()),
            Row::Overtime => step(&mut self.overtime, OVERTIMES.len()),
            Row::Black => step(&mut self.black, MINUTES.len() + 1),
        }
    }

    /// Whether a row means anything for the control as it stands.
    fn shown(&self, row: Row) -> bool {
        let mode = MODES[self.mode];
        match row {
            Row::Mode | Row::Minutes | Row::Black => true,
            Row::Increment | Row::Moves | Row::Overtime => mode.takes_increments(),
            Row::Then => mode.takes_increments() && MOVES[self.moves] > 0,
        }
    }

    /// The selected row, from 0, among all rows.
    pub fn selected(&self) -> usize {
        self.row
    }

    /// The rows, typed: what each sets and its value, "-" (`None`) where
    /// the control leaves it unused. Each face writes them in its words.
    pub fn rows(&self) -> Vec<EditorRow> {
        let mode = MODES[self.mode];
        ROWS.iter()
            .map(|row| {
                let shown = self.shown(*row);
                match row {
                    Row::Mode => EditorRow::Mode(self.mode),
                    Row::Minutes => EditorRow::Time(MINUTES[self.minutes]),
                    Row::Increment => match (shown, mode) {
                        (false, _) => EditorRow::Increment(None),
                        (true, IncrementMode::Fischer) => {
                            EditorRow::Increment(Some(SECONDS[self.increment]))
                        }
                        (true, _) => EditorRow::Delay(SECONDS[self.increment]),
                    },
                    Row::Moves => {
                        EditorRow::Moves(Some(MOVES[self.moves]).filter(|n| shown && *n > 0))
                    }
                    Row::Then => EditorRow::Then(shown.then_some(MINUTES[self.then])),
                    Row::Overtime => EditorRow::Overtime(
                        Some(OVERTIMES[self.overtime]).filter(|o| shown && !o.is_empty()),
                    ),
                    Row::Black => EditorRow::Black(self.black.checked_sub(1).map(|i| MINUTES[i])),
                }
            })
            .collect()
    }

    /// White's control and Black's as set.
    fn controls(&self) -> (TimeControl, Option<TimeControl>) {
        let mode = MODES[self.mode];
        let control = |minutes: u64| {
            let text = match (mode.takes_increments(), MOVES[self.moves]) {
                (false, _) => format!("{minutes}m"),
                (true, 0) => format!("{minutes}m+{}s", SECONDS[self.increment]),
                (true, n) => format!(
                    "{n}/{minutes}m+{inc}s:{then}m+{inc}s",
                    inc = SECONDS[self.increment],
                    then = MINUTES[self.then]
                ),
            };
            let text = match OVERTIMES[self.overtime] {
                overtime if mode.takes_increments() && !overtime.is_empty() => {
                    format!("{text}|{overtime}")
                }
                _ => text,
            };
            text.parse::<TimeControl>()
                .expect("the editor's values make a valid control")
        };
        let white = control(MINUTES[self.minutes]);
        let black = match self.black {
            0 => None,
            i => Some(control(MINUTES[i - 1])),
        };
        (white, black)
    }

    /// The rules of `base` (enforcement, laws, start, plain clock) under
    /// the control as set, its kind of game from the time a player has for
    /// 60 moves (FIDE: blitz up to 10 minutes, rapid under 60).
    pub fn rules(&self, base: &Rules) -> Rules {
        let (time_control, black_time_control) = self.controls();
        let stage = time_control.stage(0);
        let budget = stage.time_ms + 60 * stage.increment_ms;
        Rules {
            time_control,
            black_time_control,
            increment_mode: MODES[self.mode],
            mode: match budget {
                ..=600_000 => GameMode::Blitz,
                600_001..3_600_000 => GameMode::Rapid,
                _ => GameMode::Standard,
            },
            // Odds are the configuration's to give; the editor gives times.
            draw_odds: None,
            ..base.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_skip_what_the_mode_leaves_unused() {
        let mut editor = Editor::default();
        editor.step_row(true);
        editor.step_row(true);
        editor.step_row(true);
        // Moves "all": Then is skipped.
        assert_eq!(ROWS[editor.selected()], Row::Moves);
        editor.step_row(true);
        assert_eq!(ROWS[editor.selected()], Row::Overtime);
        editor.step_value(true);
        assert_eq!(
            editor.rules(&Rules::default()).time_control.to_string(),
            "300|5x30"
        );
        editor.step_value(false);
        editor.step_row(true);
        assert_eq!(ROWS[editor.selected()], Row::Black);
        editor.row = 0;
        for _ in 0..3 {
            editor.step_value(true);
        }
        assert_eq!(MODES[editor.mode], IncrementMode::Hourglass);
        editor.step_row(true);
        editor.step_row(true);
        assert_eq!(ROWS[editor.selected()], Row::Black);
        assert_eq!(
            editor.rules(&Rules::default()).time_control.to_string(),
            "300"
        );
    }

    #[test]
    fn values_go_round_the_ends() {
        let mut editor = Editor {
            row: 1,
            ..Editor::default()
        };
        for _ in 0..5 {
            editor.step_value(false);
        }
        assert_eq!(MINUTES[editor.minutes], 120);
        editor.step_value(true);
        assert_eq!(MINUTES[editor.minutes], 1);
    }
}
