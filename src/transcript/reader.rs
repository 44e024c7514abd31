//! The one reader of input lines: raw lines in, numbered and checked
//! [`Line`]s or [`Fault`]s out, as the caller's [`Policy`] says. Sans-IO:
//! it is handed one line at a time and never reads anything itself, so a
//! file, standard input, the store's rows and a test's string all go
//! through the same checks.

use std::fmt;

use super::line::{Event, Line, ParseLineError, parse_line};
use super::policy::{Games, LastLine, OnBadLine, OnTimeBackwards, Policy};
use crate::referee::Millis;

/// A bad line: where, and what is wrong with it. Displayed as
/// `line N: what`, the words `tocada replay` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The line number, from 1, blank lines included.
    pub line: usize,
    /// What is wrong with it.
    pub kind: FaultKind,
}

/// What is wrong with a bad line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// Its bytes are not UTF-8.
    NotUtf8,
    /// It is not a valid line of the format.
    Parse(ParseLineError),
    /// A `setup` line after another line ([`Games::One`]).
    SetupNotFirst,
    /// A line after `end` ([`Games::One`]).
    AfterEnd,
    /// A `players` line anywhere but right after `setup`, or a second one:
    /// a game's players are fixed when it begins.
    PlayersNotAfterSetup,
    /// Stamped earlier than the line before ([`OnTimeBackwards::Refuse`]).
    TimeWentBackwards {
        /// The line's instant.
        t: Millis,
        /// The instant of the line before.
        last: Millis,
    },
    /// The last line, without its line ending, does not parse: taken as cut
    /// short by its writer and dropped ([`LastLine::MayBeCut`]).
    Cut(ParseLineError),
    /// A line of the extending format ([`Reader::push_extended`]) that it
    /// refused, and why.
    Extra(String),
    /// A stored line later than the line after it, while the line before
    /// it is not: its time jumped ahead ([`restore`](super::restore)).
    AheadOfNext {
        /// The line's instant.
        t: Millis,
        /// The instant of the line after it.
        next: Millis,
    },
    /// A stored line stamped later than any game can last
    /// ([`LONGEST_GAME_MS`](super::feed::LONGEST_GAME_MS)): a damaged time,
    /// which every later line would follow.
    PastAnyGame {
        /// The line's instant.
        t: Millis,
    },
    /// A stored line too long after the line before it while a clock ran:
    /// the daemon stores a line at least every half second of a running
    /// clock ([`RUNNING_GAP_MAX_MS`](super::feed::RUNNING_GAP_MAX_MS)).
    GapWhileRunning {
        /// The line's instant.
        t: Millis,
        /// The instant of the line before.
        last: Millis,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::NotUtf8 => f.write_str("not UTF-8"),
            FaultKind::Parse(err) => err.fmt(f),
            FaultKind::SetupNotFirst => f.write_str("\"setup\" must be the first line"),
            FaultKind::AfterEnd => f.write_str("nothing may follow \"end\""),
            FaultKind::PlayersNotAfterSetup => {
                f.write_str("\"players\" must be the line right after \"setup\"")
            }
            FaultKind::TimeWentBackwards { t, last } => {
                write!(f, "time went backwards: t = {t} after t = {last}")
            }
            FaultKind::Cut(err) => write!(f, "cut short ({err})"),
            FaultKind::Extra(why) => f.write_str(why),
            FaultKind::AheadOfNext { t, next } => write!(
                f,
                "t = {t} cannot be: later than the line after it (t = {next})"
            ),
            FaultKind::PastAnyGame { t } => {
                write!(f, "t = {t} cannot be: later than any game can last")
            }
            FaultKind::GapWhileRunning { t, last } => write!(
                f,
                "t = {t} cannot be: {} ms after the line before (t = {last}) while a clock ran",
                t.saturating_sub(*last)
            ),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for Fault {}

/// What one input line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read<T = Line> {
    /// A line to act on, its `t` clamped if the policy clamps.
    Line(T),
    /// Nothing: a blank line.
    Blank,
    /// A bad line the policy skips (or a cut last line): tell someone, then
    /// go on.
    Skipped(Fault),
    /// A bad line the policy stops at. The reader stays stopped: every
    /// later line gives this same fault again, unread.
    Stop(Fault),
}

/// A line of a format that extends this one: either one of its own lines,
/// or one the extension recognised (the simulator's `face` lines), with its
/// instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry<X> {
    /// A line of this format.
    Line(Line),
    /// A line of the extension, at `t`.
    Extra {
        /// Its instant, checked for order like any line's.
        t: Millis,
        /// What the extension made of it.
        extra: X,
    },
}

/// The reader: feed it lines in order with [`Reader::push`] (raw bytes, as
/// read up to and including `\n`) or [`Reader::push_str`] (whole lines,
/// such as the store's rows).
///
/// Besides the policy's checks it takes: a UTF-8 byte order mark at the
/// start of the first line (ignored), `\r\n` line endings, blank lines
/// (counted, never bad), and an empty input (no lines at all: what that
/// means is the caller's to say).
#[derive(Debug, Clone)]
pub struct Reader {
    policy: Policy,
    /// Lines pushed so far.
    number: usize,
    /// The instant of the last line taken.
    last: Option<Millis>,
    /// A line other than `setup` was taken, so no `setup` may come.
    begun: bool,
    /// `end` was taken.
    ended: bool,
    stopped: Option<Fault>,
}

impl Reader {
    /// A reader of the first line, under `policy`.
    pub fn new(policy: Policy) -> Reader {
        Reader {
            policy,
            number: 0,
            last: None,
            begun: false,
            ended: false,
            stopped: None,
        }
    }

    /// The policy it reads under.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// How many lines have been pushed, blank and bad ones included: the
    /// number of the last one.
    pub fn lines(&self) -> usize {
        self.number
    }

    /// The instant of the last line taken, if any.
    pub fn last_t(&self) -> Option<Millis> {
        self.last
    }

    /// The fault reading stopped at, if it did.
    pub fn stopped(&self) -> Option<&Fault> {
        self.stopped.as_ref()
    }

    /// One line as read from a stream, its `\n` included unless it is the
    /// last and has none.
    pub fn push(&mut self, raw: &[u8]) -> Read {
        self.push_extended(raw, |_| None::<Result<(Millis, ()), String>>)
            .map_entry()
    }

    /// One whole line, without its line ending (a stored row, an item of
    /// [`str::lines`]): never taken as cut short.
    pub fn push_str(&mut self, text: &str) -> Read {
        self.next(Ok(text), true, |_| None::<Result<(Millis, ()), String>>)
            .map_entry()
    }

    /// As [`Reader::push`], for a format that extends this one: `extra` is
    /// offered each line's text first, and a line it claims comes out as
    /// [`Entry::Extra`], checked for time order like the others (but free
    /// to come before `setup`). A line it claims but refuses
    /// (`Some(Err(why))`) is a [`FaultKind::Extra`].
    pub fn push_extended<X>(
        &mut self,
        raw: &[u8],
        extra: impl FnOnce(&str) -> Option<Result<(Millis, X), String>>,
    ) -> Read<Entry<X>> {
        let terminated = raw.ends_with(b"\n");
        self.next(std::str::from_utf8(raw).map_err(|_| ()), terminated, extra)
    }

    fn next<X>(
        &mut self,
        text: Result<&str, ()>,
        terminated: bool,
        extra: impl FnOnce(&str) -> Option<Result<(Millis, X), String>>,
    ) -> Read<Entry<X>> {
        if let Some(fault) = &self.stopped {
            return Read::Stop(fault.clone());
        }
        self.number += 1;
        let Ok(mut text) = text else {
            return self.bad(FaultKind::NotUtf8);
        };
        if self.number == 1 {
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        if let Some(claimed) = extra(text) {
            let (t, extra) = match claimed {
                Ok(claimed) => claimed,
                Err(why) => return self.bad(FaultKind::Extra(why)),
            };
            return match self.stamp(t) {
                Ok(t) => {
                    self.last = Some(t);
                    Read::Line(Entry::Extra { t, extra })
                }
                Err(kind) => self.bad(kind),
            };
        }
        let mut line = match parse_line(text) {
            Ok(Some(line)) => line,
            Ok(None) => return Read::Blank,
            Err(err) if !terminated && self.policy.last_line == LastLine::MayBeCut => {
                return Read::Skipped(Fault {
                    line: self.number,
                    kind: FaultKind::Cut(err),
                });
            }
            Err(err) => return self.bad(FaultKind::Parse(err)),
        };
        let one_game = self.policy.games == Games::One;
        if one_game && self.ended {
            return self.bad(FaultKind::AfterEnd);
        }
        // Out of place before out of time: a restore blames the line
        // before a line out of time, when this one is otherwise good.
        if one_game && self.begun && matches!(line.event, Event::Setup(_)) {
            return self.bad(FaultKind::SetupNotFirst);
        }
        let t = match self.stamp(line.t) {
            Ok(t) => t,
            Err(kind) => return self.bad(kind),
        };
        if matches!(line.event, Event::End) {
            self.ended = true;
        }
        self.begun = true;
        self.last = Some(t);
        line.t = t;
        Read::Line(Entry::Line(line))
    }

    /// The instant a line stamped `t` is taken at, or why it cannot be.
    fn stamp(&self, t: Millis) -> Result<Millis, FaultKind> {
        match self.last {
            Some(last) if t < last => match self.policy.on_time_backwards {
                OnTimeBackwards::Refuse => Err(FaultKind::TimeWentBackwards { t, last }),
                OnTimeBackwards::Clamp => Ok(last),
            },
            _ => Ok(t),
        }
    }

    fn bad<T>(&mut self, kind: FaultKind) -> Read<T> {
        let fault = Fault {
            line: self.number,
            kind,
        };
        match self.policy.on_bad_line {
            OnBadLine::Skip => Read::Skipped(fault),
            OnBadLine::Stop => {
                self.stopped = Some(fault.clone());
                Read::Stop(fault)
            }
        }
    }
}

impl<X> Read<Entry<X>> {
    /// The plain lines of an extension-free read.
    fn map_entry(self) -> Read {
        match self {
            Read::Line(Entry::Line(line)) => Read::Line(line),
            Read::Line(Entry::Extra { .. }) => unreachable!("no extension claims lines"),
            Read::Blank => Read::Blank,
            Read::Skipped(fault) => Read::Skipped(fault),
            Read::Stop(fault) => Read::Stop(fault),
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;
    use crate::referee::Input;

    /// Every read of `input` split as a stream is, `\n` kept.
    fn read_all(policy: Policy, input: &[u8]) -> Vec<Read> {
        let mut reader = Reader::new(policy);
        input
            .split_inclusive(|&b| b == b'\n')
            .map(|raw| reader.push(raw))
            .collect()
    }

    fn times(reads: &[Read]) -> Vec<Millis> {
        reads
            .iter()
            .filter_map(|read| match read {
                Read::Line(line) => Some(line.t),
                _ => None,
            })
            .collect()
    }

    fn faults(reads: &[Read]) -> Vec<(usize, String)> {
        reads
            .iter()
            .filter_map(|read| match read {
                Read::Skipped(fault) | Read::Stop(fault) => {
                    Some((fault.line, fault.kind.to_string()))
                }
                _ => None,
            })
            .collect()
    }

    const BAD_SECOND: &[u8] =
        b"{\"t\":1,\"ev\":\"pause\"}\n{\"t\":2,\"ev\":\"jump\"}\n{\"t\":3,\"ev\":\"resume\"}\n";

    #[test]
    fn a_bad_line_stops_or_is_skipped() {
        let reads = read_all(Policy::REPLAY, BAD_SECOND);
        assert_eq!(times(&reads), [1]);
        assert!(matches!(&reads[1], Read::Stop(Fault { line: 2, .. })));
        // Stopped for good: the third line is not read, the fault repeats.
        assert_eq!(reads[2], reads[1]);

        let reads = read_all(Policy::LIVE, BAD_SECOND);
        assert_eq!(times(&reads), [1, 3]);
        assert_eq!(faults(&reads), [(2, r#"unknown event "jump""#.to_owned())]);
        assert!(matches!(reads[1], Read::Skipped(_)));
    }

    #[test]
    fn time_going_backwards_is_refused_or_clamped() {
        let input = b"{\"t\":5,\"ev\":\"pause\"}\n{\"t\":4,\"ev\":\"resume\"}\n{\"t\":6,\"ev\":\"pause\"}\n";
        let reads = read_all(Policy::REPLAY, input);
        assert_eq!(
            faults(&reads)[0],
            (2, "time went backwards: t = 4 after t = 5".to_owned())
        );
        let reads = read_all(Policy::RESTORE, input);
        assert_eq!(times(&reads), [5, 5, 6]);
        assert!(faults(&reads).is_empty());
        // A refused line does not move the clock on, when skipped.
        let skip_refuse = Policy {
            on_bad_line: OnBadLine::Skip,
            ..Policy::REPLAY
        };
        let reads = read_all(
            skip_refuse,
            b"{\"t\":5,\"ev\":\"pause\"}\n{\"t\":9,\"ev\":\"jump\"}\n{\"t\":7,\"ev\":\"resume\"}\n",
        );
        assert_eq!(times(&reads), [5, 7]);
    }

    #[test]
    fn a_last_line_without_newline_is_whole_or_may_be_cut() {
        let cut = b"{\"t\":1,\"ev\":\"pause\"}\n{\"t\":2,\"ev\":\"res";
        let reads = read_all(Policy::REPLAY, cut);
        assert!(matches!(
            &reads[1],
            Read::Stop(Fault {
                line: 2,
                kind: FaultKind::Parse(_)
            })
        ));
        let reads = read_all(Policy::LIVE, cut);
        assert!(matches!(
            &reads[1],
            Read::Skipped(Fault {
                line: 2,
                kind: FaultKind::Cut(_)
            })
        ));
        assert!(faults(&reads)[0].1.starts_with("cut short (malformed JSON"));
        // Whole, it is read under either policy.
        let whole = b"{\"t\":1,\"ev\":\"pause\"}\n{\"t\":2,\"ev\":\"resume\"}";
        assert_eq!(times(&read_all(Policy::REPLAY, whole)), [1, 2]);
        assert_eq!(times(&read_all(Policy::LIVE, whole)), [1, 2]);
        // A bad line with its newline is bad, not cut, even under LIVE.
        let reads = read_all(Policy::LIVE, b"{\"t\":2,\"ev\":\"res\n");
        assert!(matches!(
            &reads[0],
            Read::Skipped(Fault {
                kind: FaultKind::Parse(_),
                ..
            })
        ));
        // Stored rows have no line ending and are never cut.
        let mut reader = Reader::new(Policy::LIVE);
        assert!(matches!(
            reader.push_str("{\"t\":2"),
            Read::Skipped(Fault {
                kind: FaultKind::Parse(_),
                ..
            })
        ));
    }

    #[test]
    fn a_byte_order_mark_crlf_and_blank_lines() {
        let input = b"\xef\xbb\xbf{\"t\":0,\"ev\":\"press\",\"side\":\"black\"}\r\n\r\n\n{\"t\":1,\"ev\":\"end\"}\r\n";
        let reads = read_all(Policy::REPLAY, input);
        assert_eq!(times(&reads), [0, 1]);
        assert_eq!(reads[1], Read::Blank);
        assert_eq!(
            reads[0],
            Read::Line(Line {
                t: 0,
                event: Event::Input(Input::Press(Color::Black))
            })
        );
        // Only at the very start: a mark inside is bad JSON.
        let reads = read_all(
            Policy::REPLAY,
            b"\n\xef\xbb\xbf{\"t\":0,\"ev\":\"pause\"}\n",
        );
        assert_eq!(faults(&reads)[0].0, 2);
    }

    #[test]
    fn an_empty_input_is_no_lines() {
        for policy in [Policy::REPLAY, Policy::RESTORE, Policy::LIVE] {
            assert!(read_all(policy, b"").is_empty());
            let reader = Reader::new(policy);
            assert_eq!((reader.lines(), reader.last_t()), (0, None));
            assert!(reader.stopped().is_none());
        }
    }

    #[test]
    fn not_utf8_is_a_bad_line() {
        let reads = read_all(Policy::LIVE, b"\xff\xfe\n{\"t\":1,\"ev\":\"pause\"}\n");
        assert_eq!(faults(&reads), [(1, "not UTF-8".to_owned())]);
        assert_eq!(times(&reads), [1]);
    }

    #[test]
    fn one_game_or_many() {
        let input = b"{\"t\":0,\"ev\":\"setup\"}\n{\"t\":1,\"ev\":\"end\"}\n{\"t\":2,\"ev\":\"setup\"}\n{\"t\":3,\"ev\":\"pause\"}\n";
        let reads = read_all(Policy::REPLAY, input);
        assert_eq!(
            faults(&reads)[0],
            (3, "nothing may follow \"end\"".to_owned())
        );
        let reads = read_all(Policy::LIVE, input);
        assert_eq!(times(&reads), [0, 1, 2, 3]);
        let reads = read_all(
            Policy::RESTORE,
            b"{\"t\":0,\"ev\":\"pause\"}\n{\"t\":0,\"ev\":\"setup\"}\n",
        );
        assert_eq!(
            faults(&reads)[0],
            (2, "\"setup\" must be the first line".to_owned())
        );
    }

    #[test]
    fn extension_lines_are_numbered_and_ordered_too() {
        let mut reader = Reader::new(Policy::REPLAY);
        let face = |text: &str| text.contains("face").then_some(Ok((7, "png")));
        assert_eq!(
            reader.push_extended(b"{\"t\":7,\"ev\":\"face\"}\n", face),
            Read::Line(Entry::Extra { t: 7, extra: "png" })
        );
        // Before any line of the format, so setup may still come.
        assert!(matches!(
            reader.push_extended(b"{\"t\":8,\"ev\":\"setup\"}\n", face),
            Read::Line(Entry::Line(_))
        ));
        assert!(matches!(
            reader.push_extended(b"{\"t\":1,\"ev\":\"pause\"}\n", face),
            Read::Stop(Fault {
                line: 3,
                kind: FaultKind::TimeWentBackwards { t: 1, last: 8 }
            })
        ));
    }
}
