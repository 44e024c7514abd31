//! `tocada-hall run` as a child process, for the hall's black-box tests:
//! started on a configuration file, its address read from the line it
//! prints first, its log kept beside the configuration.

// Each test binary uses what it needs of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cli::program;

/// A running `tocada-hall`; killed when dropped.
pub struct HallProcess {
    child: Child,
    /// Where its web side listens.
    pub addr: SocketAddr,
    log: PathBuf,
}

impl HallProcess {
    /// Starts `tocada-hall run --config CONFIG` (its log in `CONFIG.log`)
    /// and waits until it listens, then until it has subscribed: from
    /// then on the broker keeps what the hall misses.
    pub fn start(config: &Path, within: Duration) -> HallProcess {
        let log = config.with_extension("log");
        let mut child = program(env!("CARGO_BIN_EXE_tocada-hall"))
            .args(["run", "--config"])
            .arg(config)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("tocada-hall starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("tocada-hall: listening on http://")
            .unwrap_or_else(|| {
                panic!(
                    "tocada-hall said {line:?}: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            })
            .parse()
            .unwrap();
        let hall = HallProcess { child, addr, log };
        assert!(
            eventually(within, || hall.log().contains("subscribed")),
            "tocada-hall did not subscribe: {}",
            hall.log()
        );
        hall
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its peak resident memory so far, KiB (Linux's VmHWM).
    pub fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default()
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// What it has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, as systemd stops it, and wait.
    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HallProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `check` comes true within `within`, asked every 50 ms.
pub fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

/// Writes `dir/hall.toml` for `hall` on the broker at `broker_url`: the
/// hall's broker login `hall:pw-hall` in `dir/credentials` (as
/// `Mosquitto::for_hall` makes it), its store in `dir`, a free loopback
/// port, the round's `event`, the one arbiter `ana` with the argon2
/// `hash`, then `boards` (`[[board]]` tables, or nothing).
pub fn write_hall_config(
    dir: &Path,
    hall: &str,
    broker_url: &str,
    hash: &str,
    public_pgn: bool,
    event: &str,
    boards: &str,
) -> PathBuf {
    std::fs::write(dir.join("credentials"), "hall:pw-hall\n").unwrap();
    let config = format!(
        "hall = \"{hall}\"\n\
         broker = \"{broker_url}\"\n\
         credentials = \"{dir}/credentials\"\n\
         listen = \"127.0.0.1:0\"\n\
         store = \"{dir}/hall.sqlite\"\n\
         public_pgn = {public_pgn}\n\
         [round]\nevent = \"{event}\"\nround = \"1\"\n\
         [[arbiter]]\nname = \"ana\"\npassword_hash = \"{hash}\"\n\
         {boards}",
        dir = dir.display(),
    );
    let path = dir.join("hall.toml");
    std::fs::write(&path, config).unwrap();
    path
}
