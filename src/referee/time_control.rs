//! Time controls in the grammar of the PGN `TimeControl` tag (6.3), and the
//! same with units for people: `90m+30s`, `40/90m:30m+30s`, `1h30m`.

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

/// Periods after the main time, as a DGT 3000 offers them: byo-yomi
/// (`5x30`: five periods of 30 s, a move within a period gives it back
/// whole) and Canadian overtime (`20/300`: 20 moves in 5 min, then 5 min
/// again for the next 20).
///
/// The rule for both: when the main time runs out, a period begins;
/// completing `moves` moves within it gives a fresh period; a period that
/// runs out passes to the next; when the last runs out the flag falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overtime {
    /// Periods in all: byo-yomi's count, 1 for Canadian overtime.
    pub periods: u32,
    /// Moves that earn a fresh period: 1 for byo-yomi.
    pub moves: u32,
    /// A period's time, in milliseconds.
    pub period_ms: u64,
}

impl Overtime {
    /// Byo-yomi: one move a period, several periods.
    pub fn is_byo_yomi(&self) -> bool {
        self.moves == 1
    }
}

impl fmt::Display for Overtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.periods != 1 || self.moves == 1 {
            write!(f, "{}x", self.periods)?;
        }
        if self.moves != 1 {
            write!(f, "{}/", self.moves)?;
        }
        write_seconds(f, self.period_ms)
    }
}

/// A whole time control: one or more stages, e.g. `40/5400+30:1800+30`,
/// and perhaps overtime after them (`3600|5x30`).
///
/// When a player completes a stage's move count, the next stage's time is
/// added to his clock. A last stage with a move count repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    stages: Vec<Stage>,
    overtime: Option<Overtime>,
}

impl TimeControl {
    /// The stages, at least one.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The overtime after the last stage, if any (byo-yomi, Canadian).
    pub fn overtime(&self) -> Option<Overtime> {
        self.overtime
    }

    /// The same control without its overtime: what PGN's `TimeControl`
    /// tag can say.
    pub fn without_overtime(&self) -> TimeControl {
        TimeControl {
            overtime: None,
            ..self.clone()
        }
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
    #[inline]
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
            overtime: self.overtime,
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
            overtime: None,
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
        if let Some(overtime) = self.overtime {
            write!(f, "|{overtime}")?;
        }
        Ok(())
    }
}

impl TimeControl {
    /// The control with units, as people read and type it: `90m+30s`,
    /// `40/90m+30s:30m+30s`, `3m+2s`, `45s`. It parses back to the same.
    pub fn with_units(&self) -> String {
        let mut text = String::new();
        for (i, stage) in self.stages.iter().enumerate() {
            if i > 0 {
                text.push(':');
            }
            if let Some(n) = stage.moves {
                text.push_str(&format!("{n}/"));
            }
            text.push_str(&units_text(stage.time_ms));
            if stage.increment_ms > 0 {
                text.push('+');
                text.push_str(&units_text(stage.increment_ms));
            }
        }
        if let Some(overtime) = self.overtime {
            text.push('|');
            if overtime.periods != 1 || overtime.moves == 1 {
                text.push_str(&format!("{}x", overtime.periods));
            }
            if overtime.moves != 1 {
                text.push_str(&format!("{}/", overtime.moves));
            }
            text.push_str(&units_text(overtime.period_ms));
        }
        text
    }
}

/// Milliseconds in minutes and seconds: `90m`, `4m30s`, `30s`, `0.5s`, `0`.
pub(super) fn units_text(ms: u64) -> String {
    let (min, rest) = (ms / 60_000, ms % 60_000);
    match (min, rest) {
        (0, 0) => "0".to_owned(),
        (0, _) => format!("{}s", seconds_text(rest)),
        (_, 0) => format!("{min}m"),
        _ => format!("{min}m{}s", seconds_text(rest)),
    }
}

/// Milliseconds as seconds with only the decimals needed: `5`, `2.5`.
pub(super) fn seconds_text(ms: u64) -> String {
    struct Seconds(u64);
    impl fmt::Display for Seconds {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_seconds(f, self.0)
        }
    }
    Seconds(ms).to_string()
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
    /// A stage with no time at all: neither time nor an increment, or the
    /// first stage without time (the flag would fall at the start).
    ZeroTime,
    /// A stage with a move count after a stage without one.
    StageAfterOpenStage,
    /// Overtime that is not `PxT` (byo-yomi) or `M/T` (Canadian), or after
    /// a last stage that repeats and never runs out.
    BadOvertime(String),
}

impl fmt::Display for ParseTimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseTimeControlError::Empty => f.write_str("empty time control"),
            ParseTimeControlError::Unsupported => {
                f.write_str("unknown or sandclock time controls cannot be run")
            }
            ParseTimeControlError::BadNumber(s) => {
                write!(
                    f,
                    "not a number of seconds or moves, nor a time in h, m and s: {s:?}"
                )
            }
            ParseTimeControlError::ZeroTime => f.write_str(
                "a stage needs some time (a later stage may have none with an increment, as 60/300:0+2)",
            ),
            ParseTimeControlError::StageAfterOpenStage => {
                f.write_str("a stage without a move count must be the last")
            }
            ParseTimeControlError::BadOvertime(s) => write!(
                f,
                "overtime is byo-yomi periods x seconds (\"|5x30s\") or Canadian moves / \
                 time (\"|20/5m\"), after a last stage without a move count, not {s:?}"
            ),
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
        let (s, overtime) = match s.split_once('|') {
            Some((main, overtime)) => (main, Some(parse_overtime(overtime)?)),
            None => (s, None),
        };
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
            let time_ms = parse_duration(time)?;
            let increment_ms = increment.map(parse_duration).transpose()?.unwrap_or(0);
            // A later stage may live on its increment alone (Armageddon's
            // +2 s from move 61); the first would flag at the start.
            if time_ms == 0 && (stages.is_empty() || increment_ms == 0) {
                return Err(ParseTimeControlError::ZeroTime);
            }
            stages.push(Stage {
                moves,
                time_ms,
                increment_ms,
            });
        }
        if overtime.is_some()
            && stages
                .last()
                .is_some_and(|stage: &Stage| stage.moves.is_some())
        {
            return Err(ParseTimeControlError::BadOvertime(s.to_owned()));
        }
        Ok(TimeControl { stages, overtime })
    }
}

/// `PxT` (byo-yomi), `M/T` (Canadian) or `PxM/T`; T with units or in
/// seconds.
fn parse_overtime(s: &str) -> Result<Overtime, ParseTimeControlError> {
    let bad = || ParseTimeControlError::BadOvertime(s.to_owned());
    let (periods, rest) = match s.split_once('x') {
        Some((periods, rest)) => (parse_integer(periods).map_err(|_| bad())?, rest),
        None => (1, s),
    };
    let (moves, time) = match rest.split_once('/') {
        Some((moves, time)) => (parse_integer(moves).map_err(|_| bad())?, time),
        None => (1, rest),
    };
    let period_ms = parse_duration(time).map_err(|_| bad())?;
    if periods == 0 || moves == 0 || period_ms == 0 {
        return Err(bad());
    }
    Ok(Overtime {
        periods,
        moves,
        period_ms,
    })
}

fn parse_integer(s: &str) -> Result<u32, ParseTimeControlError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseTimeControlError::BadNumber(s.to_owned()));
    }
    s.parse()
        .map_err(|_| ParseTimeControlError::BadNumber(s.to_owned()))
}

impl TimeControl {
    /// Whether `text` writes any time with a unit (`90m`, `30s`, `1h`):
    /// PGN's bare numbers are seconds, which people mistake for minutes.
    pub fn written_with_units(text: &str) -> bool {
        has_units(text)
    }
}

fn has_units(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, b'h' | b'm' | b's'))
}

/// A duration: bare seconds as PGN writes them (`5400`, `2.5`), or with
/// units in the order h, m, s, each at most once (`1h30m`, `90m`, `30s`,
/// `1m2.5s`; only seconds take decimals).
fn parse_duration(s: &str) -> Result<u64, ParseTimeControlError> {
    if !has_units(s) {
        return parse_seconds(s);
    }
    let bad = || ParseTimeControlError::BadNumber(s.to_owned());
    let mut total: u64 = 0;
    let mut rest = s;
    // The units still allowed, largest first.
    let mut units: &[(u8, u64)] = &[(b'h', 3_600_000), (b'm', 60_000), (b's', 1_000)];
    while !rest.is_empty() {
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (number, unit) = (&rest[..end], rest.as_bytes()[end]);
        let at = units.iter().position(|(u, _)| *u == unit).ok_or_else(bad)?;
        let scale = units[at].1;
        units = &units[at + 1..];
        let ms = if unit == b's' {
            parse_seconds(number).map_err(|_| bad())?
        } else {
            u64::from(parse_integer(number).map_err(|_| bad())?)
                .checked_mul(scale)
                .ok_or_else(bad)?
        };
        total = total.checked_add(ms).ok_or_else(bad)?;
        rest = &rest[end + 1..];
    }
    if total > MAX_MS {
        return Err(bad());
    }
    Ok(total)
}

/// A week is far beyond any game; the bound keeps the arithmetic far from overflow.
const MAX_MS: u64 = 7 * 24 * 3_600_000;

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
    let ms = whole
        .checked_mul(1000)
        .and_then(|ms| ms.checked_add(fraction))
        .ok_or_else(bad)?;
    if ms > MAX_MS {
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
            "0+2",
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
    fn units_read_as_people_write_them() {
        assert_eq!(tc("90m+30s"), tc("5400+30"));
        assert_eq!(tc("40/90m+30s:30m+30s"), tc("40/5400+30:1800+30"));
        assert_eq!(tc("40/90m:30m+30s").to_string(), "40/5400:1800+30");
        assert_eq!(tc("5400s"), tc("5400"));
        assert_eq!(tc("1h30m"), tc("5400"));
        assert_eq!(tc("1h30m15s+2.5s").to_string(), "5415+2.5");
        assert_eq!(tc("3m+2").to_string(), "180+2");
        for bad in [
            "30m1h", "90mm", "90x", "m", "1.5m", "90m+", "s", "1h1h", "90m30",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad:?} was accepted");
        }
        assert!(has_units("90m+30s") && !has_units("5400+30"));
    }

    #[test]
    fn written_with_units_it_reads_back_the_same() {
        for s in [
            "5400+30",
            "40/5400+30:1800+30",
            "180+2",
            "45",
            "270+0.5",
            "60/300:0+2",
        ] {
            let units = tc(s).with_units();
            assert_eq!(tc(&units), tc(s), "{s} written {units}");
        }
        assert_eq!(tc("5400+30").with_units(), "90m+30s");
        assert_eq!(tc("270+0.5").with_units(), "4m30s+0.5s");
        assert_eq!(tc("60/300:0+2").with_units(), "60/5m:0+2s");
    }

    #[test]
    fn overtime_is_byo_yomi_or_canadian_after_the_main_time() {
        let byo = tc("60m|5x30s");
        assert_eq!(
            byo.overtime(),
            Some(Overtime {
                periods: 5,
                moves: 1,
                period_ms: 30_000
            })
        );
        assert_eq!(byo.to_string(), "3600|5x30");
        assert_eq!(tc("3600|5x30"), byo);
        assert_eq!(byo.with_units(), "60m|5x30s");
        assert_eq!(byo.without_overtime().to_string(), "3600");
        let canadian = tc("60m|20/5m");
        assert_eq!(
            canadian.overtime(),
            Some(Overtime {
                periods: 1,
                moves: 20,
                period_ms: 300_000
            })
        );
        assert_eq!(canadian.to_string(), "3600|20/300");
        assert_eq!(tc(&canadian.with_units()), canadian);
        assert_eq!(tc("3600|1x30").to_string(), "3600|1x30");
        assert_eq!(tc("3600|1x30").overtime(), tc("3600|30").overtime());
        for bad in [
            "3600|",
            "3600|0x30",
            "3600|5x0",
            "40/3600|5x30",
            "3600|x30",
            "3600|5x30|2",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_later_stage_may_live_on_its_increment_alone() {
        assert_eq!(
            tc("60/300:0+2").stages()[1],
            Stage {
                moves: None,
                time_ms: 0,
                increment_ms: 2_000
            }
        );
        assert_eq!(tc("60/300:0+2").to_string(), "60/300:0+2");
        assert_eq!(
            "0+2".parse::<TimeControl>(),
            Err(ParseTimeControlError::ZeroTime)
        );
        assert_eq!(
            "60/300:0".parse::<TimeControl>(),
            Err(ParseTimeControlError::ZeroTime)
        );
    }

    #[test]
    fn a_delay_is_labelled_as_a_delay() {
        use crate::IncrementMode::{Bronstein, Delay, Fischer};
        assert_eq!(Delay.label(&tc("5400+5")), "G/90 d5");
        assert_eq!(Bronstein.label(&tc("5400+5")), "G/90 b5");
        assert_eq!(Fischer.label(&tc("5400+5")), "90m+5s");
        assert_eq!(Delay.label(&tc("40/7200+5:1800+5")), "40/120 SD/30 d5");
        assert_eq!(Delay.label(&tc("40/7200:1800+5")), "40/120 SD/30 d5");
        assert_eq!(Delay.label(&tc("270+2.5")), "G/4m30s d2.5");
        assert_eq!(Delay.label(&tc("300")), "G/5");
        assert_eq!(
            crate::IncrementMode::Hourglass.label(&tc("300")),
            "hourglass 5m"
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
