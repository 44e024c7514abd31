//! Time controls in the grammar of the PGN `TimeControl` tag (6.3).

use std::fmt;
use std::str::FromStr;

/// One period of a time control: `moves/seconds+increment`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// Moves to complete in this period; `None` for the rest of the game.
    pub moves: Option<u32>,
    /// Time given for the period, in milliseconds.
    pub time_ms: u64,
    /// Increment (or delay) per move in this period, in milliseconds.
    pub increment_ms: u64,
}

/// A whole time control: one or more stages, e.g. `40/5400+30:1800+30`.
///
/// When a player completes a stage's move count, the next stage's time is
/// added to his clock. A last stage with a move count repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    stages: Vec<Stage>,
}

impl TimeControl {
    /// The stages, at least one.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The stage a player is in after completing `completed` moves.
    pub fn stage_index(&self, completed: u32) -> usize {
        let mut boundary = 0u32;
        for (i, stage) in self.stages.iter().enumerate() {
            match stage.moves {
                Some(n) => {
                    boundary = boundary.saturating_add(n);
                    if completed < boundary {
                        return i;
                    }
                }
                None => return i,
            }
        }
        // Past the last counted stage: it repeats.
        self.stages.len() - 1
    }

    /// The stage a player is in after completing `completed` moves.
    pub fn stage(&self, completed: u32) -> &Stage {
        &self.stages[self.stage_index(completed)]
    }

    /// The same control with every stage's time multiplied by `factor`,
    /// move counts and increments kept: `15+10` scaled by 60 is `900+10`.
    pub fn scaled(&self, factor: u64) -> TimeControl {
        TimeControl {
            stages: self
                .stages
                .iter()
                .map(|stage| Stage {
                    time_ms: stage.time_ms.saturating_mul(factor),
                    ..*stage
                })
                .collect(),
        }
    }

    /// Time to add when a player has just completed his `completed`-th move:
    /// the next stage's time if that move ended a stage.
    pub fn stage_time_earned(&self, completed: u32) -> u64 {
        let mut boundary = 0u32;
        for (i, stage) in self.stages.iter().enumerate() {
            let Some(n) = stage.moves else { return 0 };
            boundary = boundary.saturating_add(n);
            if completed == boundary {
                return self.stages.get(i + 1).unwrap_or(stage).time_ms;
            }
            if completed < boundary {
                return 0;
            }
        }
        // The last stage repeats: every further multiple of its move count.
        let last = self.stages[self.stages.len() - 1];
        match last.moves {
            Some(n) if n > 0 && (completed - boundary).is_multiple_of(n) => last.time_ms,
            _ => 0,
        }
    }
}

impl Default for TimeControl {
    /// `5400+30`: 90 minutes with 30 seconds a move.
    fn default() -> TimeControl {
        TimeControl {
            stages: vec![Stage {
                moves: None,
                time_ms: 5_400_000,
                increment_ms: 30_000,
            }],
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, stage) in self.stages.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            if let Some(n) = stage.moves {
                write!(f, "{n}/")?;
            }
            write_seconds(f, stage.time_ms)?;
            if stage.increment_ms > 0 {
                f.write_str("+")?;
                write_seconds(f, stage.increment_ms)?;
            }
        }
        Ok(())
    }
}

fn write_seconds(f: &mut fmt::Formatter<'_>, ms: u64) -> fmt::Result {
    if ms.is_multiple_of(1000) {
        write!(f, "{}", ms / 1000)
    } else {
        let fraction = format!("{:03}", ms % 1000);
        write!(f, "{}.{}", ms / 1000, fraction.trim_end_matches('0'))
    }
}

/// Why a `TimeControl` tag could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseTimeControlError {
    /// Nothing to read.
    Empty,
    /// `?`, `-` or a sandclock `*N`: not a time control a clock can run.
    Unsupported,
    /// A number that is missing, malformed or too large.
    BadNumber(String),
    /// A stage with no time at all.
    ZeroTime,
    /// A stage with a move count after a stage without one.
    StageAfterOpenStage,
}

impl fmt::Display for ParseTimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseTimeControlError::Empty => f.write_str("empty time control"),
            ParseTimeControlError::Unsupported => {
                f.write_str("unknown or sandclock time controls cannot be run")
            }
            ParseTimeControlError::BadNumber(s) => {
                write!(f, "not a number of seconds or moves: {s:?}")
            }
            ParseTimeControlError::ZeroTime => f.write_str("a stage needs some time"),
            ParseTimeControlError::StageAfterOpenStage => {
                f.write_str("a stage without a move count must be the last")
            }
        }
    }
}

impl std::error::Error for ParseTimeControlError {}

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    fn from_str(s: &str) -> Result<TimeControl, ParseTimeControlError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(ParseTimeControlError::Empty);
        }
        if s == "?" || s == "-" || s.starts_with('*') {
            return Err(ParseTimeControlError::Unsupported);
        }
        let mut stages = Vec::new();
        for part in s.split(':') {
            if stages
                .last()
                .is_some_and(|stage: &Stage| stage.moves.is_none())
            {
                return Err(ParseTimeControlError::StageAfterOpenStage);
            }
            let (moves, rest) = match part.split_once('/') {
                Some((moves, rest)) => {
                    let n: u32 = parse_integer(moves)?;
                    if n == 0 {
                        return Err(ParseTimeControlError::BadNumber(moves.to_owned()));
                    }
                    (Some(n), rest)
                }
                None => (None, part),
            };
            let (time, increment) = match rest.split_once('+') {
                Some((time, increment)) => (time, Some(increment)),
                None => (rest, None),
            };
            let time_ms = parse_seconds(time)?;
            if time_ms == 0 {
                return Err(ParseTimeControlError::ZeroTime);
            }
            let increment_ms = increment.map(parse_seconds).transpose()?.unwrap_or(0);
            stages.push(Stage {
                moves,
                time_ms,
                increment_ms,
            });
        }
        Ok(TimeControl { stages })
    }
}

fn parse_integer(s: &str) -> Result<u32, ParseTimeControlError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseTimeControlError::BadNumber(s.to_owned()));
    }
    s.parse()
        .map_err(|_| ParseTimeControlError::BadNumber(s.to_owned()))
}

/// Seconds, with up to three decimals (`2.5`), as milliseconds.
fn parse_seconds(s: &str) -> Result<u64, ParseTimeControlError> {
    let bad = || ParseTimeControlError::BadNumber(s.to_owned());
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty()
        || fraction.len() > 3
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let whole: u64 = whole.parse().map_err(|_| bad())?;
    let fraction: u64 = format!("{fraction:0<3}").parse().map_err(|_| bad())?;
    // A week is far beyond any game; the bound keeps the arithmetic far from overflow.
    let ms = whole
        .checked_mul(1000)
        .and_then(|ms| ms.checked_add(fraction))
        .ok_or_else(bad)?;
    if ms > 7 * 24 * 3_600_000 {
        return Err(bad());
    }
    Ok(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn parses_the_tag_grammar() {
        assert_eq!(
            tc("300").stages(),
            [Stage {
                moves: None,
                time_ms: 300_000,
                increment_ms: 0
            }]
        );
        assert_eq!(
            tc("300+2").stages(),
            [Stage {
                moves: None,
                time_ms: 300_000,
                increment_ms: 2_000
            }]
        );
        assert_eq!(
            tc("40/5400+30:1800+30").stages(),
            [
                Stage {
                    moves: Some(40),
                    time_ms: 5_400_000,
                    increment_ms: 30_000
                },
                Stage {
                    moves: None,
                    time_ms: 1_800_000,
                    increment_ms: 30_000
                },
            ]
        );
        assert_eq!(tc("40/7200:20/3600:900+30").stages().len(), 3);
        assert_eq!(tc("180+0.5").stages()[0].increment_ms, 500);
    }

    #[test]
    fn displays_what_it_parsed() {
        for s in [
            "300",
            "300+2",
            "40/5400+30:1800+30",
            "40/7200:20/3600:900+30",
            "60+0.5",
        ] {
            assert_eq!(tc(s).to_string(), s);
        }
    }

    #[test]
    fn rejects_what_a_clock_cannot_run() {
        for s in [
            "",
            "?",
            "-",
            "*180",
            "abc",
            "300+",
            "/300",
            "0",
            "40/0",
            "0/300",
            "300:40/60",
            "1.2345",
            "99999999999999",
        ] {
            assert!(s.parse::<TimeControl>().is_err(), "{s:?} was accepted");
        }
        assert_eq!(
            "300:40/60".parse::<TimeControl>(),
            Err(ParseTimeControlError::StageAfterOpenStage)
        );
    }

    #[test]
    fn stage_time_is_earned_at_the_end_of_each_stage() {
        let t = tc("40/7200:20/3600:900+30");
        assert_eq!(t.stage_time_earned(39), 0);
        assert_eq!(t.stage_time_earned(40), 3_600_000);
        assert_eq!(t.stage_time_earned(41), 0);
        assert_eq!(t.stage_time_earned(60), 900_000);
        assert_eq!(t.stage_time_earned(61), 0);
        assert_eq!(t.stage_time_earned(100), 0);
        assert_eq!(t.stage_index(39), 0);
        assert_eq!(t.stage_index(40), 1);
        assert_eq!(t.stage_index(60), 2);
        assert_eq!(t.stage_index(600), 2);
    }

    #[test]
    fn a_last_counted_stage_repeats() {
        let t = tc("40/5400");
        assert_eq!(t.stage_time_earned(40), 5_400_000);
        assert_eq!(t.stage_time_earned(80), 5_400_000);
        assert_eq!(t.stage_time_earned(81), 0);
        assert_eq!(tc("300").stage_time_earned(40), 0);
    }
}
