//! What the hall's examples share (`hall-load`, `hall-attack`,
//! `hall-federation`): a `tocada-hall` in its own process (the example's
//! own program again, `--hall CONFIG`), so that its memory and CPU are its
//! own; its configuration written for a test broker; the open-file limit
//! raised for a thousand connections; and the round they time: clocks
//! publishing real games, the hall's live feed read for when each event
//! becomes visible. Included by each with `#[path = "support/hall.rs"]`,
//! beside the `tests/support` modules `http`, `lines` and `pgn`.

#![allow(dead_code)] // each example uses part of it

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, MqttOptions, QoS};
use tocada::broadcast::{BoardAddress, EventMessage};
use tocada::gesture::Script;

use crate::{http, lines, pgn};

/// What an example's command line asks for.
pub enum Invocation {
    /// A round, its numeric options set.
    Run,
    /// The hall's own process, from this configuration (see [`serve`]).
    Hall(PathBuf),
}

/// Reads `--NAME N` options into `options` (each a name and its value,
/// given its default), and `--hall CONFIG`: anything else is an error that
/// names `usage`.
pub fn parse_options(options: &mut [(&str, &mut u64)], usage: &str) -> Result<Invocation, String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--hall" {
            let config = args.next().ok_or("--hall CONFIG")?;
            return Ok(Invocation::Hall(PathBuf::from(config)));
        }
        let Some((name, value)) = options
            .iter_mut()
            .find(|(name, _)| arg.strip_prefix("--") == Some(*name))
        else {
            return Err(format!("unexpected argument {arg:?}; usage: {usage}"));
        };
        **value = args
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("--{name} needs a number"))?;
    }
    Ok(Invocation::Run)
}

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
    let credentials = dir.join("credentials");
    std::fs::write(&credentials, "hall:pw-hall\n").unwrap();
    write_config_with(dir, hall, broker_url, &credentials, name, password, extra)
}

/// As [`write_config`], with the broker credentials already in the file
/// `credentials` (as `make-federation` writes the central hall's).
pub fn write_config_with(
    dir: &Path,
    hall: &str,
    broker_url: &str,
    credentials: &Path,
    name: &str,
    password: &str,
    extra: &str,
) -> PathBuf {
    let hash = tocada::hall::hash_password(password).unwrap();
    let config = dir.join("hall.toml");
    std::fs::write(
        &config,
        format!(
            "hall = \"{hall}\"\nbroker = \"{broker_url}\"\ncredentials = \"{c}\"\n\
             listen = \"127.0.0.1:0\"\nstore = \"{d}/hall.sqlite\"\n\
             [[arbiter]]\nname = \"{name}\"\npassword_hash = \"{hash}\"\n{extra}",
            c = credentials.display(),
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

/// The games the clocks play: each reference game (`tests/data`) played
/// four ways by hands, as (instant in the game, replay line) per event.
pub fn games() -> Vec<Vec<(u64, String)>> {
    let reference = pgn::reference_games();
    (0..reference.len() * 4)
        .map(|i| {
            let game = &reference[i % reference.len()];
            let script = game.play_into(Script::varied(game.start(), false, i as u64 + 1));
            lines::game_lines(&game.rules(), script.events())
                .into_iter()
                .map(|line| {
                    let t = serde_json::from_str::<serde_json::Value>(&line).unwrap()["t"]
                        .as_u64()
                        .unwrap();
                    (t, line)
                })
                .collect()
        })
        .collect()
}

/// When each (board, seq) was published, and when first visible in the
/// hall; the board as the hall numbers it.
#[derive(Default)]
pub struct Times {
    /// When its clock published it.
    pub published: HashMap<(u32, usize), Instant>,
    /// When the hall's live feed first counted it.
    pub visible: HashMap<(u32, usize), Instant>,
}

impl Times {
    /// The catch-up after `since` (a broker's restart, a link's
    /// restoration): the milliseconds until every event published before
    /// it was visible; `never` if one of them never was.
    pub fn catch_up_ms(&self, since: Instant) -> String {
        let before: Vec<_> = self
            .published
            .iter()
            .filter(|(_, at)| **at < since)
            .map(|(key, _)| self.visible.get(key))
            .collect();
        if before.iter().any(Option::is_none) {
            "never".to_owned()
        } else {
            before
                .iter()
                .flatten()
                .max()
                .map_or(0, |at| at.saturating_duration_since(since).as_millis())
                .to_string()
        }
    }
}

/// Reads the hall's live feed (the arbiter's server-sent events, as
/// `cookie`) on a thread of its own, noting in `times` when each event
/// becomes visible.
pub fn watch_feed(addr: SocketAddr, cookie: String, times: Arc<Mutex<Times>>) {
    std::thread::spawn(move || {
        let mut stream = http::EventStream::open(addr, "/arbiter/events", Some(&cookie));
        let mut seen: HashMap<u32, usize> = HashMap::new();
        while let Some(data) = stream.next("boards", Duration::from_secs(3600)) {
            let now = Instant::now();
            let views: serde_json::Value = serde_json::from_str(&data).unwrap_or_default();
            let mut times = times.lock().unwrap();
            for view in views.as_array().into_iter().flatten() {
                let board = view["board"].as_u64().unwrap_or(0) as u32;
                let events = view["events"].as_u64().unwrap_or(0) as usize;
                let before = seen.insert(board, events).unwrap_or(0);
                for seq in before..events {
                    times.visible.entry((board, seq)).or_insert(now);
                }
            }
        }
    });
}

/// A clock publishing to its hall's broker: the broker user
/// `clock-N`/`pw-N` of `tests/support/mosquitto.rs`, in a persistent
/// session at QoS 1.
pub struct Clock {
    /// Its hall.
    pub hall: &'static str,
    /// Its board in that hall.
    pub board: u32,
    /// Its board as the watching hall numbers it (the same, but in a
    /// federation's central hall): its key in [`Times`].
    pub key: u32,
    /// Its broker's port on loopback.
    pub port: u16,
    /// How many requests its client may queue.
    pub queue: usize,
}

/// A clock's client and the task that runs its connection.
pub type Connection = (AsyncClient, tokio::task::JoinHandle<()>);

impl Clock {
    /// Publishes `game`'s events at their instants scaled into `span`
    /// from `start`, noting each in `times`; returns its connection, to
    /// run on until the round ends: what waits in it (through an outage)
    /// goes out then.
    pub async fn play(
        self,
        game: Vec<(u64, String)>,
        start: Instant,
        span: Duration,
        times: Arc<Mutex<Times>>,
    ) -> Connection {
        let Clock {
            hall,
            board,
            key,
            port,
            queue,
        } = self;
        let mut options = MqttOptions::new(format!("clock-{board}"), "127.0.0.1", port);
        options
            .set_credentials(format!("clock-{board}"), format!("pw-{board}"))
            .set_clean_session(false)
            .set_keep_alive(Duration::from_secs(30))
            // A window wider than a game: rumqttc never reuses a packet id
            // within one (it wraps them at the window).
            .set_inflight(1000);
        let (client, mut eventloop) = AsyncClient::new(options, queue);
        let pump = tokio::spawn(async move {
            loop {
                if eventloop.poll().await.is_err() {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        });
        let last_t = game.last().map_or(1, |(t, _)| (*t).max(1));
        let topic = BoardAddress::new(hall, board).unwrap().events_topic();
        for (seq, (t, line)) in game.iter().enumerate() {
            let at = start + span.mul_f64(*t as f64 / last_t as f64);
            tokio::time::sleep_until(at.into()).await;
            let payload = serde_json::to_vec(&EventMessage {
                game: 1,
                seq: seq as i64,
                t: *t,
                line: serde_json::from_str(line).unwrap(),
                effects: vec![],
            })
            .unwrap();
            times
                .lock()
                .unwrap()
                .published
                .insert((key, seq), Instant::now());
            let _ = client
                .publish(topic.clone(), QoS::AtLeastOnce, false, payload)
                .await;
        }
        (client, pump)
    }
}

/// Ends the round: waits for every clock to have published, then until
/// `total` events are visible or `within` has passed, the clocks'
/// connections running meanwhile; then stops them.
pub async fn settle(
    clocks: Vec<tokio::task::JoinHandle<Connection>>,
    times: &Mutex<Times>,
    total: usize,
    within: Duration,
) {
    let mut pumps = Vec::new();
    for clock in clocks {
        if let Ok(connection) = clock.await {
            pumps.push(connection);
        }
    }
    let deadline = Instant::now() + within;
    while times.lock().unwrap().visible.len() < total && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (_client, pump) in pumps {
        pump.abort();
    }
}
