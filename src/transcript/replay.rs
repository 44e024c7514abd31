//! `tocada replay`: a script read under [`Policy::REPLAY`], fed to one
//! referee, every effect written as a JSON line.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::feed::Feed;
use super::line::effect_to_json;
use super::policy::Policy;
use super::reader::{Fault, Read};
use crate::exit::{EX_DATAERR, EX_IOERR, EX_NOINPUT};

/// Why a replay stopped before the end of its input.
#[derive(Debug)]
pub enum ReplayError {
    /// The input file could not be opened.
    Open {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be opened.
        source: io::Error,
    },
    /// Reading the input or writing the effects failed.
    Io(io::Error),
    /// A line of the script is not valid.
    Data(Fault),
}

impl ReplayError {
    /// The process exit code for this error ([`crate::exit`]), so that
    /// scripts can tell a bad script (65) from a missing file (66).
    pub fn exit_code(&self) -> u8 {
        match self {
            ReplayError::Open { .. } => EX_NOINPUT,
            ReplayError::Io(_) => EX_IOERR,
            ReplayError::Data(_) => EX_DATAERR,
        }
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Open { path, source } => {
                write!(f, "cannot open {}: {source}", path.display())
            }
            ReplayError::Io(err) => write!(f, "i/o error: {err}"),
            ReplayError::Data(fault) => fault.fmt(f),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Open { source, .. } => Some(source),
            ReplayError::Io(err) => Some(err),
            ReplayError::Data(fault) => Some(fault),
        }
    }
}

impl From<io::Error> for ReplayError {
    fn from(err: io::Error) -> ReplayError {
        ReplayError::Io(err)
    }
}

/// Opens the script to replay: standard input for `None` or `-`, else the file.
pub fn open(path: Option<&Path>) -> Result<Box<dyn BufRead>, ReplayError> {
    match path {
        None => Ok(Box::new(io::stdin().lock())),
        Some(path) if path == Path::new("-") => Ok(Box::new(io::stdin().lock())),
        Some(path) => match File::open(path) {
            // A directory opens on Linux and fails at the first read, which
            // would look like a disk failing midway.
            Ok(file) if file.metadata().is_ok_and(|m| m.is_dir()) => Err(ReplayError::Open {
                path: path.to_owned(),
                source: io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
            }),
            Ok(file) => Ok(Box::new(BufReader::new(file))),
            Err(source) => Err(ReplayError::Open {
                path: path.to_owned(),
                source,
            }),
        },
    }
}

/// What a replay that reached the end of its input went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// The events fed to the referee (blank lines not counted): none means
    /// the script was empty, which `tocada replay` says.
    pub events: usize,
}

/// Replays a script: reads it under [`Policy::REPLAY`], feeds every line to
/// a referee and writes each effect as a JSON line, in time order.
///
/// Effects are flushed after each input line that produced some, so a
/// consumer following a live script sees them at once, and everything
/// produced before a bad line is on `output` when the error is returned.
pub fn replay<R: BufRead, W: Write>(input: R, output: W) -> Result<Replayed, ReplayError> {
    let mut out = BufWriter::new(output);
    let result = run(input, &mut out);
    // Flush even on error: the effects before the bad line are part of the answer.
    let flushed = out.flush();
    let replayed = result?;
    flushed?;
    Ok(replayed)
}

fn run<R: BufRead, W: Write>(mut input: R, out: &mut W) -> Result<Replayed, ReplayError> {
    let mut game = Feed::new(Policy::REPLAY);
    let mut buf = Vec::new();
    let mut events = 0;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(Replayed { events });
        }
        let mut written = Ok(false);
        let read = game.push(&buf, |t, effect| {
            if let Ok(wrote) = &mut written {
                let json = effect_to_json(t, &effect);
                match out
                    .write_all(json.as_bytes())
                    .and_then(|()| out.write_all(b"\n"))
                {
                    Ok(()) => *wrote = true,
                    Err(err) => written = Err(err),
                }
            }
        });
        match read {
            Read::Line(_) => events += 1,
            Read::Blank | Read::Skipped(_) => continue,
            Read::Stop(fault) => return Err(ReplayError::Data(fault)),
        }
        if written? {
            out.flush()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{FaultKind, ParseLineError};

    fn replayed(script: &str) -> (String, Result<Replayed, ReplayError>) {
        let mut out = Vec::new();
        let result = replay(script.as_bytes(), &mut out);
        (String::from_utf8(out).unwrap(), result)
    }

    fn data_error(script: &str) -> (usize, String) {
        match replayed(script).1 {
            Err(ReplayError::Data(fault)) => (fault.line, fault.kind.to_string()),
            other => panic!("{script:?}: {other:?}"),
        }
    }

    #[test]
    fn replay_counts_the_events_it_fed_and_none_in_an_empty_script() {
        assert_eq!(replayed("").1.unwrap(), Replayed { events: 0 });
        assert_eq!(replayed("\n\r\n").1.unwrap(), Replayed { events: 0 });
        let script = "{\"t\":0,\"ev\":\"pause\"}\n\n{\"t\":1,\"ev\":\"resume\"}\n";
        assert_eq!(replayed(script).1.unwrap(), Replayed { events: 2 });
    }

    #[test]
    fn replay_numbers_lines_from_one_counting_blanks() {
        assert_eq!(
            data_error("{\"t\":0,\"ev\":\"pause\"}\n\n{\"t\":1,\"ev\":\"jump\"}\n"),
            (3, r#"unknown event "jump""#.to_owned())
        );
    }

    #[test]
    fn replay_rejects_time_going_backwards() {
        let (line, message) =
            data_error("{\"t\":5,\"ev\":\"pause\"}\n{\"t\":4,\"ev\":\"resume\"}\n");
        assert_eq!(line, 2);
        assert!(message.contains("backwards"), "{message}");
        // Equal instants are fine.
        let (_, result) = replayed("{\"t\":5,\"ev\":\"pause\"}\n{\"t\":5,\"ev\":\"resume\"}\n");
        assert!(result.is_ok());
    }

    #[test]
    fn replay_takes_setup_first_only() {
        let ok = "\n{\"t\":0,\"ev\":\"setup\",\"time_control\":\"60\"}\n{\"t\":0,\"ev\":\"end\"}\n";
        assert!(replayed(ok).1.is_ok());
        let (line, message) =
            data_error("{\"t\":0,\"ev\":\"pause\"}\n{\"t\":0,\"ev\":\"setup\"}\n");
        assert_eq!(line, 2);
        assert!(message.contains("first line"), "{message}");
        let (line, _) = data_error("{\"t\":0,\"ev\":\"setup\"}\n{\"t\":0,\"ev\":\"setup\"}\n");
        assert_eq!(line, 2);
    }

    #[test]
    fn replay_takes_nothing_after_end() {
        assert!(replayed("{\"t\":9,\"ev\":\"end\"}\n\n").1.is_ok());
        let (line, _) = data_error("{\"t\":9,\"ev\":\"end\"}\n{\"t\":9,\"ev\":\"pause\"}\n");
        assert_eq!(line, 2);
    }

    #[test]
    fn replay_rejects_invalid_utf8() {
        let mut out = Vec::new();
        let err = replay(&b"{\"t\":0,\"ev\":\"pause\"}\n\xff\n"[..], &mut out).unwrap_err();
        assert!(
            matches!(err, ReplayError::Data(Fault { line: 2, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn replay_accepts_a_last_line_without_newline_and_crlf() {
        assert!(
            replayed("{\"t\":0,\"ev\":\"pause\"}\r\n{\"t\":1,\"ev\":\"end\"}")
                .1
                .is_ok()
        );
    }

    #[test]
    fn errors_display_and_exit_codes() {
        let data = ReplayError::Data(Fault {
            line: 3,
            kind: FaultKind::Parse(ParseLineError::UnknownEvent("jump".to_owned())),
        });
        assert_eq!(data.to_string(), r#"line 3: unknown event "jump""#);
        assert_eq!(data.exit_code(), 65);
        let open = ReplayError::Open {
            path: PathBuf::from("game.jsonl"),
            source: io::Error::from(io::ErrorKind::NotFound),
        };
        assert!(open.to_string().starts_with("cannot open game.jsonl: "));
        assert_eq!(open.exit_code(), 66);
        assert_eq!(ReplayError::Io(io::Error::other("disk")).exit_code(), 74);
    }

    #[test]
    fn open_reports_a_missing_file() {
        let err = open(Some(Path::new("/nonexistent/tocada/game.jsonl")))
            .err()
            .unwrap();
        assert_eq!(err.exit_code(), EX_NOINPUT);
    }

    #[test]
    fn replay_applies_corrections_while_paused() {
        let script = [
            r#"{"t":0,"ev":"setup","time_control":"60"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":10000,"ev":"pause"}"#,
            r#"{"t":11000,"ev":"set_time","side":"white","ms":5000}"#,
            r#"{"t":11000,"ev":"set_moves","side":"white","n":12}"#,
            r#"{"t":20000,"ev":"resume"}"#,
            r#"{"t":30000,"ev":"end"}"#,
        ]
        .join("\n");
        let (out, result) = replayed(&script);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            out.lines().collect::<Vec<_>>(),
            [
                r#"{"t":0,"effect":"started","side":"white"}"#,
                r#"{"t":10000,"effect":"paused"}"#,
                r#"{"t":11000,"effect":"corrected","side":"white","ms":5000,"completed":0}"#,
                r#"{"t":11000,"effect":"corrected","side":"white","ms":5000,"completed":12}"#,
                r#"{"t":20000,"effect":"resumed"}"#,
                r#"{"t":25000,"effect":"flag","side":"white"}"#,
                r#"{"t":25000,"effect":"result","result":"0-1","reason":"timeout"}"#,
            ]
        );
    }

    /// 4.8: a claim made with the clock's gesture, the claimant's adjust
    /// button twice within 600 ms, is the claim the clock hears: upheld
    /// here as on the clock, not two "j'adoube"s.
    #[test]
    fn replay_hears_adjust_twice_as_the_claim_the_clock_hears() {
        let script = [
            r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1000,"ev":"touch","sq":"d2"}"#,
            r#"{"t":1100,"ev":"untouch","sq":"d2"}"#,
            r#"{"t":1500,"ev":"lift","sq":"e2"}"#,
            r#"{"t":1700,"ev":"place","sq":"e4"}"#,
            r#"{"t":3000,"ev":"press","side":"white"}"#,
            r#"{"t":4000,"ev":"adjust","side":"black"}"#,
            r#"{"t":4600,"ev":"adjust","side":"black"}"#,
            r#"{"t":9000,"ev":"end"}"#,
        ]
        .join("\n");
        let (out, result) = replayed(&script);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            out.lines().skip(3).collect::<Vec<_>>(),
            [
                r#"{"t":4600,"effect":"claim","side":"black","law":"4.3.1","upheld":true}"#,
                r#"{"t":4600,"effect":"takeback","side":"white","n":1,"san":"e4"}"#,
            ]
        );
        // 601 ms apart: two "j'adoube"s, no claim.
        let slow = script.replace(r#""t":4600"#, r#""t":4601"#);
        let (out, _) = replayed(&slow);
        assert_eq!(out.lines().count(), 3, "{out}");
    }

    /// 1858, 15ª: the same gesture claims a second move the opponent made
    /// after his press, and the claimant is not charged with displacing the
    /// piece his opponent moved.
    #[test]
    fn replay_hears_the_claim_gesture_of_a_second_move() {
        let script = [
            r#"{"t":0,"ev":"setup","time_control":"300","laws":"regence-1858"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1000,"ev":"lift","sq":"e2"}"#,
            r#"{"t":1500,"ev":"place","sq":"e4"}"#,
            r#"{"t":3000,"ev":"press","side":"white"}"#,
            r#"{"t":6000,"ev":"lift","sq":"g1"}"#,
            r#"{"t":6200,"ev":"place","sq":"f3"}"#,
            r#"{"t":7000,"ev":"adjust","side":"black"}"#,
            r#"{"t":7200,"ev":"adjust","side":"black"}"#,
            r#"{"t":8000,"ev":"lift","sq":"f3"}"#,
            r#"{"t":8200,"ev":"place","sq":"g1"}"#,
            r#"{"t":11000,"ev":"end"}"#,
        ]
        .join("\n");
        let (out, result) = replayed(&script);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            out.lines().skip(2).collect::<Vec<_>>(),
            [
                r#"{"t":6000,"effect":"displaced","side":"black","squares":["g1"]}"#,
                r#"{"t":7200,"effect":"claim","side":"black","law":"1858.15","upheld":true}"#,
                r#"{"t":7200,"effect":"displaced","side":"white","squares":["g1","f3"]}"#,
                r#"{"t":8200,"effect":"restored","side":"white","ms":1000}"#,
            ]
        );
    }
}
