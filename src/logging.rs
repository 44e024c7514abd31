//! Where the daemon's log goes: the systemd journal when systemd started it
//! with stderr connected to the journal, stderr as text otherwise.
//!
//! Under systemd, lines written to stderr already reach the journal, but as
//! plain text at one priority. Sending events to journald's own socket keeps
//! each event's level as its `PRIORITY`, its target and its fields, so
//! `journalctl -u tocada -p warning` shows the warnings and nothing else.
//! Everywhere else (a terminal, a test, a container without a journal) the
//! same events go to stderr as text. Nothing here fails or panics: without a
//! usable journal, logging falls back to stderr.
//!
//! The decision is [`choose_sink`], a pure function of `JOURNAL_STREAM`, the
//! stream stderr is connected to and the journal socket's path, so it is
//! tested without systemd; [`init`] gathers those from the process and
//! installs the subscriber.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Where journald listens for its native protocol (`sd_journal_send`).
pub const JOURNAL_SOCKET: &str = "/run/systemd/journal/socket";

/// The filter when neither the caller nor `RUST_LOG` gives one (and the
/// level [`init`] falls back to when a filter does not parse).
pub const DEFAULT_FILTER: &str = "info";

/// An open stream as `JOURNAL_STREAM` names it: the device and inode of the
/// file (a socket, under systemd) behind a file descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamId {
    /// The device number (`st_dev`).
    pub device: u64,
    /// The inode number (`st_ino`).
    pub inode: u64,
}

impl StreamId {
    /// Parses `JOURNAL_STREAM`'s `DEVICE:INODE`, two decimal numbers, as
    /// systemd.exec(5) documents it; `None` for anything else.
    pub fn parse(value: &OsStr) -> Option<StreamId> {
        let (device, inode) = value.to_str()?.split_once(':')?;
        Some(StreamId {
            device: device.parse().ok()?,
            inode: inode.parse().ok()?,
        })
    }

    /// The stream behind this process's stderr; `None` if stderr is closed.
    pub fn of_stderr() -> Option<StreamId> {
        // A duplicate of fd 2, so that dropping the File leaves stderr open.
        let fd = io::stderr().as_fd().try_clone_to_owned().ok()?;
        let metadata = File::from(fd).metadata().ok()?;
        Some(StreamId {
            device: metadata.dev(),
            inode: metadata.ino(),
        })
    }
}

/// Where log events go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// journald's native protocol, one datagram an event, with its priority.
    Journald,
    /// Text lines on stderr.
    Stderr,
}

/// Chooses the sink: journald only when `journal_stream` (the value of
/// `JOURNAL_STREAM`) names the very stream stderr is connected to and
/// `journal_socket` is a socket.
///
/// systemd sets `JOURNAL_STREAM` for a service whose output goes to the
/// journal; a child whose stderr was redirected elsewhere inherits the
/// variable but not the stream, and must keep writing to its stderr, hence
/// the comparison (as systemd.exec(5) recommends). A missing or malformed
/// variable, a closed stderr or a missing socket all mean stderr.
pub fn choose_sink(
    journal_stream: Option<&OsStr>,
    stderr: Option<StreamId>,
    journal_socket: &Path,
) -> Sink {
    let connected = match (journal_stream.and_then(StreamId::parse), stderr) {
        (Some(journal), Some(stderr)) => journal == stderr,
        _ => false,
    };
    let listening = std::fs::metadata(journal_socket)
        .map(|metadata| metadata.file_type().is_socket())
        .unwrap_or(false);
    if connected && listening {
        Sink::Journald
    } else {
        Sink::Stderr
    }
}

/// The filter directives in force: `verbosity` if given and not blank, else
/// `rust_log` (the value of `RUST_LOG`) if not blank, else
/// [`DEFAULT_FILTER`]. An explicit choice (a command-line flag or a setting)
/// beats the environment.
pub fn filter_directives<'a>(verbosity: Option<&'a str>, rust_log: Option<&'a str>) -> &'a str {
    [verbosity, rust_log]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|directives| !directives.is_empty())
        .unwrap_or(DEFAULT_FILTER)
}

/// Installs the process-wide `tracing` subscriber, to journald or stderr as
/// [`choose_sink`] decides for this process.
///
/// `verbosity` is a list of `target=level` directives such as `debug` or
/// `tocada=trace,info` (`RUST_LOG`'s syntax without span and field
/// filters: [`Targets`], which needs no regular-expression engine); see [`filter_directives`] for how it combines with
/// `RUST_LOG`. A directive that does not parse is replaced by
/// [`DEFAULT_FILTER`] and reported as a warning in the log itself. If the
/// journal cannot be reached after all, events go to stderr and a warning
/// says why. A second call, or a call after another subscriber was
/// installed, changes nothing.
pub fn init(verbosity: Option<&str>) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let directives = filter_directives(verbosity, rust_log.as_deref());
    let (filter, bad_filter) = match directives.parse::<Targets>() {
        Ok(filter) => (filter, None),
        Err(err) => (
            Targets::new().with_default(tracing::Level::INFO),
            Some(format!("{directives:?}: {err}")),
        ),
    };

    let sink = choose_sink(
        std::env::var_os("JOURNAL_STREAM").as_deref(),
        StreamId::of_stderr(),
        Path::new(JOURNAL_SOCKET),
    );
    let mut journal_error = None;
    let journald = match sink {
        Sink::Journald => match tracing_journald::layer() {
            Ok(layer) => Some(layer),
            Err(err) => {
                journal_error = Some(err);
                None
            }
        },
        Sink::Stderr => None,
    };
    let stderr = journald.is_none().then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(io::stderr)
            .with_ansi(false)
    });

    // Err only when a global subscriber is already set: keep that one.
    if tracing_subscriber::registry()
        .with(filter)
        .with(journald)
        .with(stderr)
        .try_init()
        .is_err()
    {
        return;
    }
    if let Some(bad_filter) = bad_filter {
        tracing::warn!("log filter {bad_filter}; logging at {DEFAULT_FILTER}");
    }
    if let Some(err) = journal_error {
        tracing::warn!("journald unreachable at {JOURNAL_SOCKET} ({err}); logging to stderr");
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::os::unix::net::UnixDatagram;
    use std::path::PathBuf;

    use super::*;

    /// A directory of its own under the system's temporary directory,
    /// removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("tocada-logging-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const STDERR: StreamId = StreamId {
        device: 24,
        inode: 187_654,
    };

    fn env(value: &str) -> OsString {
        OsString::from(value)
    }

    #[test]
    fn journal_stream_parses_as_device_and_inode() {
        assert_eq!(StreamId::parse(&env("24:187654")), Some(STDERR));
        assert_eq!(
            StreamId::parse(&env("18446744073709551615:0")),
            Some(StreamId {
                device: u64::MAX,
                inode: 0
            })
        );
    }

    #[test]
    fn malformed_journal_streams_are_none() {
        for bad in [
            "",
            "24",
            "24:",
            ":187654",
            "24:187654:1",
            "a:b",
            "-1:2",
            " 24:187654",
        ] {
            assert_eq!(StreamId::parse(&env(bad)), None, "{bad:?}");
        }
    }

    #[test]
    fn the_journal_when_stderr_is_the_journal_stream_and_the_socket_listens() {
        let scratch = Scratch::new("listening");
        let socket = scratch.0.join("socket");
        let _journald = UnixDatagram::bind(&socket).unwrap();
        let stream = env("24:187654");
        assert_eq!(
            choose_sink(Some(&stream), Some(STDERR), &socket),
            Sink::Journald
        );
    }

    #[test]
    fn stderr_without_journal_stream() {
        let scratch = Scratch::new("no-variable");
        let socket = scratch.0.join("socket");
        let _journald = UnixDatagram::bind(&socket).unwrap();
        assert_eq!(choose_sink(None, Some(STDERR), &socket), Sink::Stderr);
    }

    #[test]
    fn stderr_when_stderr_was_redirected_away_from_the_journal() {
        let scratch = Scratch::new("redirected");
        let socket = scratch.0.join("socket");
        let _journald = UnixDatagram::bind(&socket).unwrap();
        for other in ["24:187655", "25:187654"] {
            let stream = env(other);
            assert_eq!(
                choose_sink(Some(&stream), Some(STDERR), &socket),
                Sink::Stderr,
                "{other}"
            );
        }
    }

    #[test]
    fn stderr_when_stderr_is_closed_or_the_variable_malformed() {
        let scratch = Scratch::new("closed");
        let socket = scratch.0.join("socket");
        let _journald = UnixDatagram::bind(&socket).unwrap();
        let stream = env("24:187654");
        assert_eq!(choose_sink(Some(&stream), None, &socket), Sink::Stderr);
        let garbled = env("24-187654");
        assert_eq!(
            choose_sink(Some(&garbled), Some(STDERR), &socket),
            Sink::Stderr
        );
    }

    #[test]
    fn stderr_when_the_journal_socket_is_missing_or_not_a_socket() {
        let scratch = Scratch::new("no-socket");
        let stream = env("24:187654");
        let missing = scratch.0.join("socket");
        assert_eq!(
            choose_sink(Some(&stream), Some(STDERR), &missing),
            Sink::Stderr
        );
        let plain = scratch.0.join("plain");
        std::fs::write(&plain, b"").unwrap();
        assert_eq!(
            choose_sink(Some(&stream), Some(STDERR), &plain),
            Sink::Stderr
        );
    }

    #[test]
    fn stderr_of_this_process_is_identified() {
        // The harness captures what tests print, but fd 2 itself is open:
        // its identity is the one stat gives for /proc/self/fd/2.
        let stderr = StreamId::of_stderr().expect("cargo test runs with stderr open");
        let direct = std::fs::metadata("/proc/self/fd/2").unwrap();
        assert_eq!(
            stderr,
            StreamId {
                device: direct.dev(),
                inode: direct.ino()
            }
        );
    }

    #[test]
    fn an_explicit_verbosity_beats_rust_log_which_beats_the_default() {
        assert_eq!(filter_directives(Some("debug"), Some("warn")), "debug");
        assert_eq!(
            filter_directives(None, Some("tocada=trace")),
            "tocada=trace"
        );
        assert_eq!(filter_directives(None, None), DEFAULT_FILTER);
        assert_eq!(filter_directives(Some("  "), Some("warn")), "warn");
        assert_eq!(filter_directives(Some(""), Some(" ")), DEFAULT_FILTER);
        assert_eq!(filter_directives(Some(" error "), None), "error");
    }

    #[test]
    fn a_bad_filter_falls_back_to_info_and_a_second_init_changes_nothing() {
        init(Some("tocada=[{"));
        assert!(tracing::dispatcher::has_been_set());
        assert!(tracing::enabled!(tracing::Level::INFO));
        assert!(!tracing::enabled!(tracing::Level::DEBUG));
        init(Some("trace"));
        assert!(!tracing::enabled!(tracing::Level::DEBUG));
    }
}
