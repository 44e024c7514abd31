//! Halls together (issue 22 §3): `packaging/mosquitto/make-federation`'s
//! files on real Mosquitto processes. Two halls' board 1 are two boards of
//! the event at the central broker, the central hall's requests reach the
//! right hall's clock, the central hall's pairings reach the right
//! hall's clocks retained, and a bridge cannot write another hall's boards.
//! The link cut for 60 s is `examples/hall-federation.rs` (CI runs it).

mod support {
    pub mod mosquitto;
}

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
use support::mosquitto::{Mosquitto, mosquitto_program};

/// Where make-federation is told the central broker is; each hall's
/// bridge is pointed at the real one's port once it is known.
const PLACEHOLDER: &str = "central.invalid:1";

/// An MQTT client of a test: what it received, by topic and payload,
/// and whether it came retained (held by the broker before it subscribed).
struct Peer {
    client: Client,
    received: Arc<Mutex<Vec<(String, String, bool)>>>,
}

impl Peer {
    /// Connects as `user` (clean session), subscribed to `filters`, and
    /// waits for the broker's SUBACK (or CONNACK).
    fn connect(port: u16, user: &str, password: &str, filters: &[&str]) -> Peer {
        let mut options = MqttOptions::new(user, "127.0.0.1", port);
        options
            .set_credentials(user, password)
            .set_keep_alive(Duration::from_secs(5));
        let (client, mut connection) = Client::new(options, 64);
        let received = Arc::new(Mutex::new(Vec::new()));
        let ready = Arc::new(AtomicBool::new(false));
        let (sink, flag, subscriber) = (Arc::clone(&received), Arc::clone(&ready), client.clone());
        let filters: Vec<rumqttc::SubscribeFilter> = filters
            .iter()
            .map(|f| rumqttc::SubscribeFilter::new((*f).to_owned(), QoS::AtLeastOnce))
            .collect();
        std::thread::spawn(move || {
            for event in connection.iter() {
                match event {
                    Ok(Event::Incoming(Packet::ConnAck(_))) if filters.is_empty() => {
                        flag.store(true, Ordering::SeqCst)
                    }
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = subscriber.try_subscribe_many(filters.clone());
                    }
                    Ok(Event::Incoming(Packet::SubAck(_))) => flag.store(true, Ordering::SeqCst),
                    Ok(Event::Incoming(Packet::Publish(publish))) => {
                        sink.lock().unwrap().push((
                            publish.topic.clone(),
                            String::from_utf8_lossy(&publish.payload).into_owned(),
                            publish.retain,
                        ));
                    }
                    Ok(_) => {}
                    Err(rumqttc::ConnectionError::RequestsDone) => return,
                    Err(_) => std::thread::sleep(Duration::from_millis(100)),
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(15);
        while !ready.load(Ordering::SeqCst) {
            assert!(
                Instant::now() < deadline,
                "{user}: no answer from the broker"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Peer { client, received }
    }

    fn publish(&self, topic: &str, payload: &str) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload.as_bytes().to_vec())
            .unwrap();
    }

    /// Publishes retained, as the hall publishes a board's pairing (an
    /// empty `payload` clears it).
    fn publish_retained(&self, topic: &str, payload: &str) {
        self.client
            .publish(topic, QoS::AtLeastOnce, true, payload.as_bytes().to_vec())
            .unwrap();
    }

    /// Disconnects, so that another client may log in as its user.
    fn leave(self) {
        let _ = self.client.disconnect();
        std::thread::sleep(Duration::from_millis(200));
    }

    /// Whether (topic, payload) arrives within `within`.
    fn gets(&self, topic: &str, payload: &str, within: Duration) -> bool {
        self.gets_where(topic, payload, within, |_| true)
    }

    /// Whether (topic, payload) arrives retained within `within`: the
    /// broker held it when this client subscribed.
    fn gets_retained(&self, topic: &str, payload: &str, within: Duration) -> bool {
        self.gets_where(topic, payload, within, |retained| retained)
    }

    fn gets_where(
        &self,
        topic: &str,
        payload: &str,
        within: Duration,
        retained: impl Fn(bool) -> bool,
    ) -> bool {
        let deadline = Instant::now() + within;
        loop {
            let got = self
                .received
                .lock()
                .unwrap()
                .iter()
                .any(|(t, p, r)| t == topic && p == payload && retained(*r));
            if got || Instant::now() > deadline {
                return got;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn topics(&self) -> Vec<String> {
        let mut topics: Vec<String> = self
            .received
            .lock()
            .unwrap()
            .iter()
            .map(|(t, _, _)| t.clone())
            .collect();
        topics.sort();
        topics
    }
}

/// Runs make-federation for event `olympiad`, halls east:2 and west:2.
fn make_federation(dir: &Path) {
    let status = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/packaging/mosquitto/make-federation"
    ))
    .args(["olympiad", PLACEHOLDER])
    .arg(dir)
    .args(["east:2", "west:2"])
    .status()
    .expect("make-federation runs");
    assert!(status.success(), "make-federation: {status}");
}

/// The `user:password` line of a credentials file, split.
fn login(line: &str) -> (String, String) {
    let (user, password) = line.trim().split_once(':').unwrap();
    (user.to_owned(), password.to_owned())
}

/// The central broker with make-federation's users and ACL, and its
/// hall's user (from `central/hall.credentials`) connected to it,
/// subscribed to `topics`.
fn central_broker(dir: &Path, topics: &[&str]) -> (Mosquitto, Peer) {
    let central = Mosquitto::from_files(
        &dir.join("central/tocada.passwd"),
        &dir.join("central/tocada.acl"),
        &[],
    );
    let (user, password) =
        login(&std::fs::read_to_string(dir.join("central/hall.credentials")).unwrap());
    let hall = Peer::connect(central.port(), &user, &password, topics);
    (central, hall)
}

/// A hall's broker (its clocks 1 and 2, the shipped settings) with the
/// bridge make-federation wrote for it, pointed at `central`.
fn hall_broker(dir: &Path, hall: &str, central: u16) -> (Mosquitto, String) {
    let bridge = std::fs::read_to_string(dir.join(hall).join("tocada-bridge.conf")).unwrap();
    let bridge = bridge.replace(PLACEHOLDER, &format!("127.0.0.1:{central}"));
    let password = bridge
        .lines()
        .find_map(|line| line.strip_prefix("remote_password "))
        .unwrap()
        .to_owned();
    let lines: Vec<&str> = bridge.lines().collect();
    (
        Mosquitto::for_hall_shipped_with(hall, &[1, 2], &lines),
        password,
    )
}

#[test]
fn two_halls_boards_are_the_events_own_and_each_bridge_writes_only_its_own() {
    if mosquitto_program().is_none() {
        eprintln!("skipped: mosquitto is not installed (apt-get install mosquitto)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_federation(dir.path());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("boards.txt")).unwrap(),
        "east 1 1\neast 2 2\nwest 1 3\nwest 2 4\n"
    );
    let (central, hall) = central_broker(
        dir.path(),
        &["tocada/olympiad/+/+", "$SYS/broker/connection/+/state"],
    );
    let (east, east_bridge_password) = hall_broker(dir.path(), "east", central.port());
    let (west, _) = hall_broker(dir.path(), "west", central.port());

    // Both halls' board 1, each publishing on its own broker; the bridges
    // may still be connecting, and QoS 1 with cleansession false keeps
    // what they have not passed on yet.
    let east_1 = Peer::connect(east.port(), "clock-1", "pw-1", &["tocada/east/1/resend"]);
    let west_1 = Peer::connect(west.port(), "clock-1", "pw-1", &["tocada/west/1/resend"]);
    east_1.publish("tocada/east/1/events", "east's board 1");
    west_1.publish("tocada/west/1/events", "west's board 1");
    let within = Duration::from_secs(30);
    assert!(
        hall.gets("tocada/olympiad/1/events", "east's board 1", within),
        "{:?}\n{}",
        hall.topics(),
        central.log()
    );
    assert!(
        hall.gets("tocada/olympiad/3/events", "west's board 1", within),
        "{:?}\n{}",
        hall.topics(),
        central.log()
    );

    // The central hall's user sees which halls are linked.
    for bridge in ["bridge-east", "bridge-west"] {
        let topic = format!("$SYS/broker/connection/{bridge}/state");
        assert!(hall.gets(&topic, "1", within), "{:?}", hall.topics());
    }

    // The central hall's request for the event's board 3 reaches west's
    // board 1, and not east's.
    hall.publish("tocada/olympiad/3/resend", "{\"game\":1,\"seq\":0}");
    assert!(west_1.gets("tocada/west/1/resend", "{\"game\":1,\"seq\":0}", within));
    assert!(!east_1.gets(
        "tocada/east/1/resend",
        "{\"game\":1,\"seq\":0}",
        Duration::from_secs(1)
    ));

    // East's bridge user, straight at the central broker: its own board
    // goes through, west's boards (the event's 3 and 4) do not.
    let forger = Peer::connect(central.port(), "bridge-east", &east_bridge_password, &[]);
    forger.publish("tocada/olympiad/3/events", "forged for west");
    forger.publish("tocada/olympiad/2/events", "east's own board 2");
    assert!(hall.gets("tocada/olympiad/2/events", "east's own board 2", within));
    assert!(!hall.gets(
        "tocada/olympiad/3/events",
        "forged for west",
        Duration::from_secs(2)
    ));
}

#[test]
fn the_central_halls_pairings_reach_only_their_own_halls_clocks_retained_and_cleared() {
    if mosquitto_program().is_none() {
        eprintln!("skipped: mosquitto is not installed (apt-get install mosquitto)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_federation(dir.path());
    let (central, hall) = central_broker(dir.path(), &["$SYS/broker/connection/+/state"]);
    let within = Duration::from_secs(30);
    let pairing = |board: u32, round: u32| {
        format!(
            "{{\"round\":{round},\"board\":{board},\"white\":{{\"name\":\"W{board}\"}},\"black\":{{\"name\":\"B{board}\"}}}}"
        )
    };

    // The event's board 1 (east's 1) is paired before any hall is linked:
    // the central broker holds it, and hands it to east's bridge when it
    // subscribes.
    hall.publish_retained("tocada/olympiad/1/pairing", &pairing(1, 1));
    let (east, _) = hall_broker(dir.path(), "east", central.port());
    let (mut west, _) = hall_broker(dir.path(), "west", central.port());
    for bridge in ["bridge-east", "bridge-west"] {
        let topic = format!("$SYS/broker/connection/{bridge}/state");
        assert!(hall.gets(&topic, "1", within), "{}", central.log());
    }
    // Each hall's own tocada-hall watching every pairing of its hall.
    let east_hall = Peer::connect(east.port(), "hall", "pw-hall", &["tocada/east/+/pairing"]);
    let west_hall = Peer::connect(west.port(), "hall", "pw-hall", &["tocada/west/+/pairing"]);

    // Boards 2 (east's 2) and 3 (west's 1) are paired while linked.
    hall.publish_retained("tocada/olympiad/2/pairing", &pairing(2, 1));
    hall.publish_retained("tocada/olympiad/3/pairing", &pairing(3, 1));
    assert!(
        east_hall.gets("tocada/east/1/pairing", &pairing(1, 1), within),
        "{:?}\n{}",
        east_hall.topics(),
        east.log()
    );
    assert!(east_hall.gets("tocada/east/2/pairing", &pairing(2, 1), within));
    assert!(west_hall.gets("tocada/west/1/pairing", &pairing(3, 1), within));

    // A clock that connects later finds its pairing retained at its own
    // hall's broker, on its own board number.
    let east_1 = Peer::connect(east.port(), "clock-1", "pw-1", &["tocada/east/1/pairing"]);
    let east_2 = Peer::connect(east.port(), "clock-2", "pw-2", &["tocada/east/2/pairing"]);
    let west_1 = Peer::connect(west.port(), "clock-1", "pw-1", &["tocada/west/1/pairing"]);
    assert!(east_1.gets_retained("tocada/east/1/pairing", &pairing(1, 1), within));
    assert!(east_2.gets_retained("tocada/east/2/pairing", &pairing(2, 1), within));
    assert!(west_1.gets_retained("tocada/west/1/pairing", &pairing(3, 1), within));

    // Nothing of one hall's boards reached the other.
    assert_eq!(
        east_hall.topics(),
        ["tocada/east/1/pairing", "tocada/east/2/pairing"]
    );
    assert_eq!(west_hall.topics(), ["tocada/west/1/pairing"]);

    // The central hall clears board 2 (it left the round): the empty
    // retained message crosses, and east's broker holds no pairing for
    // it any more.
    hall.publish_retained("tocada/olympiad/2/pairing", "");
    assert!(east_2.gets("tocada/east/2/pairing", "", within));
    east_2.leave();
    let east_2 = Peer::connect(east.port(), "clock-2", "pw-2", &["tocada/east/2/pairing"]);
    assert!(!east_2.gets(
        "tocada/east/2/pairing",
        &pairing(2, 1),
        Duration::from_secs(2)
    ));
    assert_eq!(east_2.topics(), Vec::<String>::new());

    // West's broker is away (it keeps west's board 1 paired on disk);
    // meanwhile the central hall clears board 3 and pairs board 4 (west's
    // 2). Back, west's bridge gets the clear the central broker queued for
    // it and board 4's pairing.
    west_1.leave();
    west_hall.leave();
    west.stop();
    let linked = |state: &str| {
        hall.received
            .lock()
            .unwrap()
            .iter()
            .filter(|(t, p, _)| t == "$SYS/broker/connection/bridge-west/state" && p == state)
            .count()
    };
    let deadline = Instant::now() + within;
    while linked("0") == 0 {
        assert!(Instant::now() < deadline, "west's bridge never seen gone");
        std::thread::sleep(Duration::from_millis(20));
    }
    hall.publish_retained("tocada/olympiad/3/pairing", "");
    hall.publish_retained("tocada/olympiad/4/pairing", &pairing(4, 2));
    west.restart();
    let deadline = Instant::now() + within;
    while linked("1") < 2 {
        assert!(Instant::now() < deadline, "west's bridge never back");
        std::thread::sleep(Duration::from_millis(20));
    }
    // West's hall sees board 4's pairing come over the bridge; a clock
    // connecting after that finds it held.
    let west_hall = Peer::connect(west.port(), "hall", "pw-hall", &["tocada/west/+/pairing"]);
    assert!(
        west_hall.gets("tocada/west/2/pairing", &pairing(4, 2), within),
        "{}",
        west.log()
    );
    let west_2 = Peer::connect(west.port(), "clock-2", "pw-2", &["tocada/west/2/pairing"]);
    assert!(
        west_2.gets_retained("tocada/west/2/pairing", &pairing(4, 2), within),
        "{}",
        west.log()
    );
    let west_1 = Peer::connect(west.port(), "clock-1", "pw-1", &["tocada/west/1/pairing"]);
    assert!(!west_1.gets(
        "tocada/west/1/pairing",
        &pairing(3, 1),
        Duration::from_secs(2)
    ));
    assert_eq!(west_1.topics(), Vec::<String>::new());
}
