//! A real Mosquitto broker for the tests: Debian's `mosquitto` on a free
//! loopback port, with a password file made by `mosquitto_passwd` and an
//! ACL, everything in a temporary directory; stopped (gracefully or
//! killed), restarted on the same port with the same persistence, and
//! killed when dropped.
//!
//! ```ignore
//! let broker = Mosquitto::start(
//!     &[("clock-12", "pw12"), ("hall", "pwhall")],
//!     &clock_acl("open", &[("clock-12", 12)], "hall"),
//! );
//! let url = broker.url(); // mqtt://127.0.0.1:PORT
//! ```

#![allow(dead_code)] // each test binary uses part of it

use std::fmt::Write as _;
use std::io::Read;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a broker may take to accept connections after it is started.
const READY_WITHIN: Duration = Duration::from_secs(15);

/// A running (or stopped) Mosquitto, owned by a test.
pub struct Mosquitto {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
    shipped: bool,
    extra: Vec<String>,
}

/// The settings of the shipped `packaging/mosquitto/tocada.conf` other
/// than where it listens and where its password file and ACL are: its
/// limits and client-id binding, as a hall's broker runs them.
pub fn shipped_settings() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/mosquitto/tocada.conf"
    );
    std::fs::read_to_string(path)
        .expect("packaging/mosquitto/tocada.conf")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|line| {
            let key = line.split_whitespace().next().unwrap_or("");
            !["listener", "allow_anonymous", "password_file", "acl_file"].contains(&key)
        })
        .map(str::to_owned)
        .collect()
}

/// What a clock's user may do on its own board's topics, each by name: a
/// publisher writes its events, state and status and the board's claims,
/// and reads the claims, the hall's requests to it and its pairing.
pub const CLOCK_TOPICS: [(&str, &str); 7] = [
    ("write", "events"),
    ("write", "state"),
    ("write", "status"),
    ("readwrite", "claim"),
    ("readwrite", "contender"),
    ("read", "resend"),
    ("read", "pairing"),
];

/// The ACL of a hall, the way `packaging/mosquitto/acl.example` writes it:
/// each clock's user may use only its own board's [`CLOCK_TOPICS`] (never
/// write its pairing or the hall's requests); the hall's user may read
/// the whole hall and write those requests and the pairings.
pub fn clock_acl(hall: &str, clocks: &[(&str, u32)], hall_user: &str) -> String {
    let mut acl = String::new();
    for (user, board) in clocks {
        writeln!(acl, "user {user}").unwrap();
        for (access, topic) in CLOCK_TOPICS {
            writeln!(acl, "topic {access} tocada/{hall}/{board}/{topic}").unwrap();
        }
        writeln!(acl).unwrap();
    }
    writeln!(
        acl,
        "user {hall_user}\ntopic read tocada/{hall}/#\ntopic write tocada/{hall}/+/resend\n\
         topic write tocada/{hall}/+/pairing"
    )
    .unwrap();
    acl
}

/// The `mosquitto` program: on PATH, or in /usr/sbin where Debian puts it
/// (not on an ordinary user's PATH).
pub fn mosquitto_program() -> Option<PathBuf> {
    program("mosquitto")
}

fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

impl Mosquitto {
    /// The broker of `hall` for the clocks of `boards`: the user
    /// `clock-N` with the password `pw-N` for board N, allowed only its
    /// own board's tree, and the user `hall` (`pw-hall`), allowed to read
    /// the whole hall.
    pub fn for_hall(hall: &str, boards: &[u32]) -> Mosquitto {
        let users: Vec<(String, String)> = boards
            .iter()
            .map(|b| (format!("clock-{b}"), format!("pw-{b}")))
            .chain([("hall".to_owned(), "pw-hall".to_owned())])
            .collect();
        let logins: Vec<(&str, &str)> = users
            .iter()
            .map(|(u, p)| (u.as_str(), p.as_str()))
            .collect();
        let clocks: Vec<(&str, u32)> = logins
            .iter()
            .map(|(u, _)| *u)
            .zip(boards.iter().copied())
            .collect();
        Mosquitto::start(&logins, &clock_acl(hall, &clocks, "hall"))
    }

    /// [`Mosquitto::for_hall`] with the shipped configuration's settings
    /// ([`shipped_settings`]): its packet limit, client ids bound to the
    /// user, its queues.
    pub fn for_hall_shipped(hall: &str, boards: &[u32]) -> Mosquitto {
        Mosquitto::for_hall_shipped_with(hall, boards, &[])
    }

    /// [`Mosquitto::for_hall_shipped`], then the settings `extra` (each a
    /// line of mosquitto.conf, overriding the shipped one of its name).
    pub fn for_hall_shipped_with(hall: &str, boards: &[u32], extra: &[&str]) -> Mosquitto {
        let mut broker = Mosquitto::for_hall(hall, boards);
        broker.stop();
        broker.shipped = true;
        broker.extra = extra.iter().map(|line| (*line).to_owned()).collect();
        broker.write_config();
        broker.spawn();
        broker
    }

    /// Starts a broker on a free loopback port that accepts only `users`
    /// (name, password) and enforces `acl` (Mosquitto's `acl_file`
    /// format), and waits until it accepts connections. Panics, with the
    /// broker's log, if it cannot: a test cannot go on without it.
    pub fn start(users: &[(&str, &str)], acl: &str) -> Mosquitto {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let passwd = dir.path().join("passwd");
        let mut plain = String::new();
        for (user, password) in users {
            writeln!(plain, "{user}:{password}").unwrap();
        }
        std::fs::write(&passwd, plain).unwrap();
        // -U hashes a file of plain `user:password` lines in place.
        let mosquitto_passwd = program("mosquitto_passwd")
            .expect("mosquitto_passwd not found: apt-get install mosquitto (.ci/run installs it)");
        let status = Command::new(mosquitto_passwd)
            .arg("-U")
            .arg(&passwd)
            .status()
            .expect("mosquitto_passwd runs");
        assert!(status.success(), "mosquitto_passwd -U failed: {status}");
        std::fs::write(dir.path().join("acl"), acl).unwrap();

        let port = free_port();
        let mut broker = Mosquitto {
            dir,
            port,
            child: None,
            shipped: false,
            extra: Vec::new(),
        };
        broker.write_config();
        broker.spawn();
        broker
    }

    /// A broker with the shipped configuration's settings
    /// ([`shipped_settings`]) that reads a password file already hashed
    /// (`mosquitto_passwd -U`, as `make-hall` and `make-federation` write
    /// it) and an ACL, copied from `passwd` and `acl`, then the settings
    /// `extra`; on a free loopback port, waited for.
    pub fn from_files(passwd: &Path, acl: &Path, extra: &[&str]) -> Mosquitto {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::copy(passwd, dir.path().join("passwd")).expect("the password file");
        std::fs::copy(acl, dir.path().join("acl")).expect("the ACL");
        let mut broker = Mosquitto {
            dir,
            port: free_port(),
            child: None,
            shipped: true,
            extra: extra.iter().map(|line| (*line).to_owned()).collect(),
        };
        broker.write_config();
        broker.spawn();
        broker
    }

    /// The port it listens on, on 127.0.0.1 (the same after a restart).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mqtt://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// The broker's temporary directory (its config, password file, ACL,
    /// log and persistence file).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What the broker logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }

    /// Whether the broker process is running.
    pub fn is_running(&mut self) -> bool {
        match &mut self.child {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Stops the broker as systemd would (SIGTERM: it saves its
    /// persistent sessions and queued messages) and waits for it to end.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the broker (SIGKILL, a crash or a power cut: nothing saved
    /// since its last autosave).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the broker again, on the same port with the same password
    /// file, ACL and persistence, after [`Mosquitto::stop`] or
    /// [`Mosquitto::kill`]; waits until it accepts connections.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    fn write_config(&self) {
        let dir = self.dir.path();
        let config = format!(
            "# tests/support/mosquitto.rs\n\
             # `user root` keeps root's privileges when the tests run as root\n\
             # (otherwise Mosquitto switches to the `mosquitto` user, who cannot\n\
             # read this directory); an ordinary user is not switched at all.\n\
             user root\n\
             listener {port} 127.0.0.1\n\
             allow_anonymous false\n\
             password_file {dir}/passwd\n\
             acl_file {dir}/acl\n\
             persistence true\n\
             persistence_location {dir}/\n\
             log_dest file {dir}/mosquitto.log\n\
             log_type error\n\
             log_type warning\n\
             log_type notice\n\
             log_type information\n\
             connection_messages true\n",
            port = self.port,
            dir = dir.display(),
        );
        let mut config = config;
        if self.shipped {
            for line in shipped_settings() {
                writeln!(config, "{line}").unwrap();
            }
        }
        for line in &self.extra {
            writeln!(config, "{line}").unwrap();
        }
        std::fs::write(dir.join("mosquitto.conf"), config).unwrap();
    }

    fn spawn(&mut self) {
        let program = mosquitto_program()
            .expect("mosquitto not found: apt-get install mosquitto (.ci/run installs it)");
        let mut child = Command::new(program)
            .arg("-c")
            .arg(self.dir.path().join("mosquitto.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mosquitto starts");
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = pipe.read_to_string(&mut stderr);
                }
                panic!(
                    "mosquitto exited at start ({status}):\n{stderr}\n{}",
                    self.log()
                );
            }
            if TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_ok() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "mosquitto did not listen on port {} within {READY_WITHIN:?}:\n{}",
                    self.port,
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.child = Some(child);
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nobody listens on now (the kernel's choice; the broker
/// takes it a moment later).
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_acl_confines_each_clock_to_its_own_board() {
        let acl = clock_acl("open", &[("clock-1", 1), ("clock-2", 2)], "hall");
        assert_eq!(
            acl,
            "user clock-1\ntopic write tocada/open/1/events\ntopic write tocada/open/1/state\n\
             topic write tocada/open/1/status\ntopic readwrite tocada/open/1/claim\n\
             topic readwrite tocada/open/1/contender\ntopic read tocada/open/1/resend\n\
             topic read tocada/open/1/pairing\n\n\
             user clock-2\ntopic write tocada/open/2/events\ntopic write tocada/open/2/state\n\
             topic write tocada/open/2/status\ntopic readwrite tocada/open/2/claim\n\
             topic readwrite tocada/open/2/contender\ntopic read tocada/open/2/resend\n\
             topic read tocada/open/2/pairing\n\n\
             user hall\ntopic read tocada/open/#\ntopic write tocada/open/+/resend\n\
             topic write tocada/open/+/pairing\n"
        );
    }
}
