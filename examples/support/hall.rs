//! What the hall's examples share (`hall-load`, `hall-attack`): a
//! `tocada-hall` in its own process (the example's own program again,
//! `--hall CONFIG`), so that its memory and CPU are its own; its
//! configuration written for a test broker; and the open-file limit
//! raised for a thousand connections. Included by each with
//! `#[path = "support/hall.rs"]`.

#![allow(dead_code)] // each example uses part of it

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The hall's own process: `tocada-hall run` through the library, on one
/// thread as `tocada-hall` runs. Prints `listening on ADDRESS` first.
pub fn serve(config: PathBuf) -> ExitCode {
    tocada::logging::init(Some("warn"));
    let config = match tocada::hall::HallConfig::load(&config) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(err.exit_code());
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let served = runtime.block_on(tocada::hall::runner::run(config, |address| {
        println!("listening on {address}");
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}

/// Writes, in `dir`, the hall's broker credentials (the user `hall`,
/// `pw-hall`, as `tests/support/mosquitto.rs` makes it) and a `hall.toml`
/// for `hall` on `broker_url`, its store in `dir`, listening on a free
/// loopback port, with one arbiter `name` of `password`; `extra` is
/// appended (a `[limits]` table, say). Returns the configuration's path.
pub fn write_config(
    dir: &Path,
    hall: &str,
    broker_url: &str,
    name: &str,
    password: &str,
    extra: &str,
) -> PathBuf {
    std::fs::write(dir.join("credentials"), "hall:pw-hall\n").unwrap();
    let hash = tocada::hall::hash_password(password).unwrap();
    let config = dir.join("hall.toml");
    std::fs::write(
        &config,
        format!(
            "hall = \"{hall}\"\nbroker = \"{broker_url}\"\ncredentials = \"{d}/credentials\"\n\
             listen = \"127.0.0.1:0\"\nstore = \"{d}/hall.sqlite\"\n\
             [[arbiter]]\nname = \"{name}\"\npassword_hash = \"{hash}\"\n{extra}",
            d = dir.display()
        ),
    )
    .unwrap();
    config
}

/// The hall's process, started by [`HallChild::start`], killed when
/// dropped.
pub struct HallChild {
    child: Child,
    /// Where its web side listens.
    pub addr: SocketAddr,
}

impl HallChild {
    /// Starts this program again as the hall of `config` (`--hall
    /// CONFIG`), its log appended to `log` if given (else the terminal's),
    /// and waits until it listens and has had half a second to subscribe.
    pub fn start(config: &Path, log: Option<&Path>) -> HallChild {
        let stderr = match log {
            Some(log) => Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .unwrap(),
            ),
            None => Stdio::inherit(),
        };
        let mut child = Command::new(std::env::current_exe().unwrap())
            .arg("--hall")
            .arg(config)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the hall starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .expect("the hall listens")
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500)); // subscribed
        HallChild { child, addr }
    }

    /// CPU seconds used so far (user and system).
    pub fn cpu_s(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // utime and stime, fields 14 and 15, after the parenthesised name.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, r)| r)
            .split_whitespace()
            .collect();
        let ticks: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
            + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        ticks as f64 / 100.0
    }

    /// The peak resident memory so far, KiB (VmHWM).
    pub fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// Stops it as systemd would (SIGTERM), killed after 10 s.
    pub fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HallChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Raises this process's soft limit of open files to its hard one and
/// returns the limit now in force. A thousand clocks are a thousand
/// sockets here and a thousand in the broker, which inherits the limit:
/// the usual soft limit, 1024, stops both short of an Olympiad's hall.
pub fn raise_open_files() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    // `None` is no limit at all.
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(err) = setrlimit(Resource::Nofile, limit) {
            eprintln!("cannot raise the open-file limit: {err}");
        }
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}
