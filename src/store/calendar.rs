//! Calendar dates as people type them (`2026-11-21`, ISO 8601) and as PGN
//! writes them (`2026.11.21`), checked by hand so that `--since 2026-02-30`
//! is an error rather than a silent March the 2nd.

use std::fmt;

/// A date that is not a real `YYYY-MM-DD`, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateError {
    /// The date as given.
    pub date: String,
    /// What is wrong with it.
    pub kind: DateErrorKind,
}

/// What is wrong with a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateErrorKind {
    /// Not ten characters `YYYY-MM-DD`, all ASCII digits but the dashes.
    Shape,
    /// The month is not 1 to 12.
    NoSuchMonth,
    /// The day is not in that month (of that year).
    NoSuchDay,
}

impl fmt::Display for DateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.kind {
            DateErrorKind::Shape => "expected YYYY-MM-DD",
            DateErrorKind::NoSuchMonth => "no such month",
            DateErrorKind::NoSuchDay => "no such day in that month",
        };
        write!(f, "bad date {:?}: {why}", self.date)
    }
}

impl std::error::Error for DateError {}

/// Checks an ISO date `YYYY-MM-DD` and returns it in PGN form `YYYY.MM.DD`,
/// or says what is wrong with it.
pub fn pgn_date_from_iso(date: &str) -> Result<String, DateError> {
    let bad = |kind| DateError {
        date: date.to_owned(),
        kind,
    };
    let bytes = date.as_bytes();
    let shape_ok = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !shape_ok {
        return Err(bad(DateErrorKind::Shape));
    }
    // The shape check leaves only ASCII digits in these ranges.
    let number = |range: std::ops::Range<usize>| {
        date[range]
            .bytes()
            .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    if !(1..=12).contains(&month) {
        return Err(bad(DateErrorKind::NoSuchMonth));
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(bad(DateErrorKind::NoSuchDay));
    }
    Ok(format!("{year:04}.{month:02}.{day:02}"))
}

/// Days in a month of the Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_dates_become_pgn_dates() {
        assert_eq!(pgn_date_from_iso("2026-11-21").unwrap(), "2026.11.21");
        assert_eq!(pgn_date_from_iso("2024-02-29").unwrap(), "2024.02.29");
        assert_eq!(pgn_date_from_iso("2000-02-29").unwrap(), "2000.02.29");
        assert_eq!(pgn_date_from_iso("0001-01-31").unwrap(), "0001.01.31");
    }

    #[test]
    fn bad_dates_say_why() {
        for (date, why, kind) in [
            ("2026-1-21", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("2026.11.21", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("21-11-2026", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("2026-11-2x", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("2026-１1-21", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("", "expected YYYY-MM-DD", DateErrorKind::Shape),
            ("2026-13-01", "no such month", DateErrorKind::NoSuchMonth),
            ("2026-00-01", "no such month", DateErrorKind::NoSuchMonth),
            ("2026-02-29", "no such day", DateErrorKind::NoSuchDay),
            ("1900-02-29", "no such day", DateErrorKind::NoSuchDay),
            ("2026-04-31", "no such day", DateErrorKind::NoSuchDay),
            ("2026-05-00", "no such day", DateErrorKind::NoSuchDay),
        ] {
            let err = pgn_date_from_iso(date).unwrap_err();
            assert_eq!((err.date.as_str(), err.kind), (date, kind));
            let text = err.to_string();
            assert!(text.contains(why), "{date}: {text}");
            assert!(text.starts_with("bad date "), "{date}: {text}");
        }
    }
}
