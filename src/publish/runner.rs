//! The thin tokio shell around the [`Follower`]: it follows the store
//! (read-only, polling SQLite's `data_version`), hands the follower what
//! was stored, publishes what it gives with QoS 1, and moves the
//! [`progress`] mark as the broker acknowledges.
//!
//! On every connection it starts again from the last acknowledged event
//! (a clean MQTT session: nothing half-sent is kept), so a broker restart,
//! a network cut and a reboot all come down to the same resend. At most
//! [`WINDOW`] events are unacknowledged at a time.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rumqttc::Outgoing;
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::{ConnectReturnCode, Filter, LastWill, Packet, PubAckReason};
use rumqttc::v5::{AsyncClient, ConnectionError, Event, EventLoop, MqttOptions};

use super::follower::{Follower, Mark, Pushed};
use super::pairing_file;
use super::progress::{self, PROGRESS_FILE, Progress, ProgressError};
use crate::broadcast::{
    BoardAddress, BoardPairing, Claim, OFFLINE, ONLINE, ResendRequest, printable,
};
use crate::broker::{BrokerUrl, Credentials, CredentialsError};
use crate::exit::{EX_CONFIG, EX_NOINPUT};
use crate::store::{Store, StoreError, Tip};

/// Events sent and not yet acknowledged, at most.
pub const WINDOW: usize = 64;

/// How often the store is looked at for new events.
pub const POLL: Duration = Duration::from_millis(200);

/// How often, at most, the acknowledged mark is written to the disk: a
/// write per event would wear a Pi's SD card for nothing (a mark a few
/// seconds old only means a few events are sent twice).
pub const SAVE_EVERY: Duration = Duration::from_secs(5);

/// The keep-alive: the broker gives up on a silent clock (and publishes
/// its last will) after one and a half of these.
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// The longest wait between two connection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The longest wait between two connection attempts of a publisher that
/// has held its board: back well within [`GRACE`] after a broker restart,
/// before another publisher of the board may take it over.
pub const HELD_MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How long a connection attempt may take, seconds (TCP and CONNACK).
const CONNECT_TIMEOUT_SECS: u64 = 5;

/// How long after subscribing to the board's claim the publisher waits
/// for the broker's retained one before it reads none as none.
pub const SETTLE: Duration = Duration::from_millis(300);

/// How long a publisher that found another's claim on its board waits
/// before taking the board over. A publisher holding the board, kicked
/// by this one's connection (the broker binds the client id to the
/// user), connects again within [`HELD_MAX_BACKOFF`] and a connection
/// attempt, and takes its board again with a new nonce: this one, back,
/// reads it and is refused. Nobody back within this time: the claim was
/// a dead clock's (a reboot, a crash, a replaced Pi).
pub const GRACE: Duration = Duration::from_secs(10);

// A holder's worst reconnection once the broker is back (an attempt begun
// before that times out, a wait, then the attempt that succeeds, with 2 s
// for it and the claim's read) must fit in the grace, or a clone takes its
// board after every broker restart.
const _: () = assert!(CONNECT_TIMEOUT_SECS + HELD_MAX_BACKOFF.as_secs() + 2 < GRACE.as_secs());

/// The file in the publisher's runtime directory that keeps its instance
/// id for the boot.
pub const INSTANCE_FILE: &str = "instance";

/// Everything the publisher needs, checked.
#[derive(Debug, Clone)]
pub struct Options {
    /// The broker.
    pub broker: BrokerUrl,
    /// This clock's place in the hall, the root of its topics.
    pub address: BoardAddress,
    /// The clock's user and password, if the broker wants them.
    pub credentials: Option<Credentials>,
    /// The daemon's game store (`games.sqlite`), opened read-only; it may
    /// not exist yet.
    pub store: PathBuf,
    /// The publisher's own state directory, where [`PROGRESS_FILE`] lives.
    pub state_directory: PathBuf,
    /// With no state file yet, publish every game in the store rather than
    /// from the game in progress on.
    pub from_start: bool,
    /// Where the hall's pairing of this board is written for the clock
    /// daemon (`publish.pairing_file`); `None`: not written.
    pub pairing_file: Option<PathBuf>,
    /// This publisher's claim on the board ([`this_claim`]).
    pub claim: Claim,
}

/// Why the publisher stopped.
#[derive(Debug)]
pub enum PublishError {
    /// The credentials file is missing or wrong.
    Credentials(CredentialsError),
    /// The publisher's state file is damaged, unreadable or unwritable.
    Progress(ProgressError),
    /// The game store exists but is not one this publisher can follow.
    Store {
        /// The store's path.
        path: PathBuf,
        /// Why.
        source: StoreError,
    },
    /// Another clock publishes this board with the same credentials (a
    /// cloned SD card): this one was refused.
    BoardTaken {
        /// The board's topics.
        topics: String,
        /// The clock that holds it.
        holder: Claim,
    },
}

impl PublishError {
    /// The exit code ([`crate::exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            // A file that cannot be read is missing input (66), one of the
            // wrong form a configuration error (78), which systemd's unit
            // does not restart into.
            PublishError::Credentials(CredentialsError::Read { .. }) => EX_NOINPUT,
            PublishError::Credentials(CredentialsError::Format { .. }) => EX_CONFIG,
            PublishError::Progress(err) => err.exit_code(),
            PublishError::Store { source, .. } => source.exit_code_reading(),
            // Two clocks configured as one board: restarting cannot help.
            PublishError::BoardTaken { .. } => EX_CONFIG,
        }
    }
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Credentials(err) => err.fmt(f),
            PublishError::Progress(err) => err.fmt(f),
            PublishError::Store { path, source } => {
                write!(
                    f,
                    "cannot follow the game store {}: {source}",
                    path.display()
                )
            }
            PublishError::BoardTaken { topics, holder } => write!(
                f,
                "refused: another clock (host {:?}, instance {:?}) already publishes {topics} with \
                 the same credentials; two clocks share this board's credentials (a cloned SD \
                 card?): give this clock its own board and credentials",
                holder.host, holder.instance
            ),
        }
    }
}

impl std::error::Error for PublishError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PublishError::Credentials(err) => Some(err),
            PublishError::Progress(err) => Some(err),
            PublishError::Store { source, .. } => Some(source),
            PublishError::BoardTaken { .. } => None,
        }
    }
}

impl From<ProgressError> for PublishError {
    fn from(err: ProgressError) -> PublishError {
        PublishError::Progress(err)
    }
}

/// A message handed to the client, until the broker acknowledges it: the
/// event it carries (`None` for the status and the board's state).
#[derive(Debug)]
struct Sent {
    mark: Option<Mark>,
    pkid: Option<u16>,
    acked: bool,
}

/// Where the publisher stands with the board's claim, on this connection.
#[derive(Debug)]
enum Standing {
    /// Subscribed to the claim; the broker's retained one may still come
    /// (since the subscription was acknowledged, if it was).
    Reading { subscribed_at: Option<Instant> },
    /// Another publisher's claim was there: waiting [`GRACE`] to see
    /// whether it is alive (it kicks this one) or dead.
    Contesting { since: Instant, holder: Claim },
    /// The board is this publisher's: it publishes.
    Held,
}

/// The publisher's state between two events of the loop.
struct Publisher {
    options: Options,
    client: AsyncClient,
    follower: Follower,
    store: Option<Store>,
    /// The store's `data_version` when a read last came back short: nothing
    /// new until it changes.
    caught_up_at: Option<i64>,
    /// Messages handed to the client, oldest first.
    sent: VecDeque<Sent>,
    connected: bool,
    acked: Option<Mark>,
    saved: Option<Mark>,
    last_save: Instant,
    /// The `seq` and game of the last board state published.
    state_published: Option<Mark>,
    /// The broker refused a message (its ACL): wait long before trying again.
    refused: bool,
    /// Said that the store is not there yet.
    waiting: bool,
    /// When the hall last had this publisher send its events again.
    rewound_at: Option<Instant>,
    /// This connection's standing with the board's claim.
    standing: Standing,
    /// The holder's claim this publisher waited on when its connection
    /// was lost: the same claim read again after reconnecting is a dead
    /// clock's still; a new nonce is a holder alive.
    contested: Option<Claim>,
    /// This publisher has held the board: it reconnects within
    /// [`HELD_MAX_BACKOFF`].
    has_held: bool,
    /// The subscriptions of this connection are still to be asked for
    /// (the request queue was full).
    subscribe_pending: bool,
    /// The claim retained on the board, as last read.
    retained_claim: Option<Claim>,
    /// The contender retained on the board, as last read.
    contender: Option<Claim>,
    /// The pairing last written to the pairing file.
    pairing_written: Option<Vec<u8>>,
}

/// Runs the publisher until `shutdown` completes: follows the store at
/// `options.store` and publishes under `options.address` to
/// `options.broker`. Broker and network failures are retried with a
/// backoff for ever; only a store or state file that cannot be used stops
/// it.
pub async fn run(options: Options, shutdown: impl Future<Output = ()>) -> Result<(), PublishError> {
    let progress_path = options.state_directory.join(PROGRESS_FILE);
    let acked = progress::load(&progress_path)?.map(|progress| progress.acked);
    let (client, mut eventloop) = AsyncClient::new(mqtt_options(&options), 4 * WINDOW);
    let mut publisher = Publisher::new(options, client, acked);
    match acked {
        Some(Mark::START) => {
            tracing::info!("nothing acknowledged yet: publishing the store from its first game")
        }
        Some(mark) => tracing::info!(
            game = mark.game,
            seq = mark.seq,
            "resuming after the last event the broker acknowledged"
        ),
        None => tracing::info!("no events published yet"),
    }
    tokio::pin!(shutdown);
    let mut ticks = tokio::time::interval(POLL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut backoff = Duration::from_millis(500);
    let mut failures = 0u32;
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            _ = ticks.tick() => {
                publisher.open_store()?;
                publisher.settle()?;
                publisher.fill();
                publisher.save_if_due(false)?;
            }
            event = eventloop.poll() => match event {
                Ok(event) => {
                    if publisher.handle(event) {
                        if failures > 0 {
                            tracing::info!(failures, "connected to the broker again");
                        }
                        failures = 0;
                        backoff = Duration::from_millis(500);
                    }
                    publisher.settle()?;
                    publisher.fill();
                }
                Err(err) => {
                    if matches!(publisher.standing, Standing::Contesting { .. }) {
                        // Kicked by a holder alive, or a network cut or a
                        // broker restart: only the claim read again after
                        // reconnecting tells (a new nonce: alive).
                        tracing::info!(
                            "connection lost while waiting on another's claim: reading it again \
                             after reconnecting"
                        );
                    }
                    publisher.disconnected();
                    failures += 1;
                    let refused = std::mem::take(&mut publisher.refused);
                    let wait = next_wait(backoff, refused, publisher.has_held);
                    if refused {
                        // Already said why, as an error.
                        tracing::info!(retry_in_ms = wait.as_millis() as u64, "disconnected after the refusal");
                    } else {
                        report(&publisher.options, &err, failures, wait);
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(wait) => {}
                    }
                }
            },
        }
    }
    publisher.stop(&mut eventloop).await;
    publisher.save_if_due(true)?;
    Ok(())
}

/// How long to wait before the next connection attempt: long after a
/// refusal, within [`HELD_MAX_BACKOFF`] for a publisher that has held its
/// board (back before [`GRACE`] ends), else the backoff.
fn next_wait(backoff: Duration, refused: bool, has_held: bool) -> Duration {
    if refused {
        MAX_BACKOFF
    } else if has_held {
        backoff.min(HELD_MAX_BACKOFF)
    } else {
        backoff
    }
}

/// The client's options: a clean session (every connection resends from
/// the acknowledged mark), the last will, the keep-alive.
fn mqtt_options(options: &Options) -> MqttOptions {
    let address = &options.address;
    let client_id = format!("tocada-{}-{}", address.hall(), address.board());
    let mut mqtt = MqttOptions::new(client_id, options.broker.host.clone(), options.broker.port);
    mqtt.set_clean_start(true)
        .set_keep_alive(KEEP_ALIVE)
        .set_connection_timeout(CONNECT_TIMEOUT_SECS)
        .set_outgoing_inflight_upper_limit(u16::try_from(2 * WINDOW).unwrap_or(u16::MAX))
        .set_last_will(LastWill::new(
            address.status_topic(),
            OFFLINE,
            QoS::AtLeastOnce,
            true,
            None,
        ));
    if let Some(credentials) = &options.credentials {
        mqtt.set_credentials(credentials.user.clone(), credentials.password.clone());
    }
    mqtt
}

/// Logs a lost or refused connection: the first at warning, then one in
/// ten, so a broker down for an hour does not fill the journal.
fn report(options: &Options, err: &ConnectionError, failures: u32, wait: Duration) {
    let broker = &options.broker;
    let why = match err {
        ConnectionError::ConnectionRefused(
            code @ (ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized),
        ) => format!(
            "the broker refused this clock ({code:?}): check the user and password in \
             publish.credentials, and the broker's password file and ACL"
        ),
        ConnectionError::ConnectionRefused(code) => format!("the broker refused ({code:?})"),
        other => other.to_string(),
    };
    if failures == 1 || failures.is_multiple_of(10) {
        tracing::warn!(
            %broker,
            failures,
            retry_in_ms = wait.as_millis() as u64,
            "broker unreachable: {why}"
        );
    } else {
        tracing::debug!(%broker, failures, "broker unreachable: {why}");
    }
}

impl Publisher {
    /// A publisher not connected yet, resuming after `acked`.
    fn new(options: Options, client: AsyncClient, acked: Option<Mark>) -> Publisher {
        Publisher {
            follower: Follower::new(acked),
            options,
            client,
            store: None,
            caught_up_at: None,
            sent: VecDeque::new(),
            connected: false,
            acked,
            saved: acked,
            last_save: Instant::now(),
            state_published: None,
            refused: false,
            waiting: false,
            rewound_at: None,
            standing: Standing::Reading {
                subscribed_at: None,
            },
            contested: None,
            has_held: false,
            subscribe_pending: false,
            retained_claim: None,
            contender: None,
            pairing_written: None,
        }
    }

    /// Subscribes to the board's claim and contender and to the hall's
    /// messages; a full request queue leaves it pending, asked again at
    /// the next tick ([`Publisher::settle`]).
    fn subscribe(&mut self) {
        let address = &self.options.address;
        let filters = [
            address.claim_topic(),
            address.contender_topic(),
            address.resend_topic(),
            address.pairing_topic(),
        ]
        .map(|topic| Filter::new(topic, QoS::AtLeastOnce));
        match self.client.try_subscribe_many(filters) {
            Ok(()) => self.subscribe_pending = false,
            Err(err) => {
                if !self.subscribe_pending {
                    tracing::warn!(
                        "cannot subscribe to the board's claim and the hall's messages \
                         (asked again in a moment): {err}"
                    );
                }
                self.subscribe_pending = true;
            }
        }
    }

    /// Opens the store if it is not open yet: it may not exist before the
    /// daemon's first game. Once open, decides where a first start begins.
    fn open_store(&mut self) -> Result<(), PublishError> {
        if self.store.is_some() {
            return Ok(());
        }
        let path = self.options.store.clone();
        let path = &path;
        let store = match Store::open_read_only(path) {
            Ok(store) => store,
            // Not there yet, not readable yet, or being created (empty, its
            // schema not committed yet): the daemon makes it at its first
            // start.
            Err(err @ (StoreError::Open { .. } | StoreError::NotAGameStore { .. })) => {
                if !self.waiting {
                    tracing::info!(store = %path.display(), "waiting for the game store: {err}");
                    self.waiting = true;
                }
                return Ok(());
            }
            Err(source) => {
                return Err(PublishError::Store {
                    path: path.clone(),
                    source,
                });
            }
        };
        // Read once, at one instant: the daemon may be writing its first
        // game while this publisher joins (`Store::tip`).
        let tip = store.tip().map_err(|source| PublishError::Store {
            path: path.clone(),
            source,
        })?;
        // A mark in a game the store never reached: this is not the store
        // it was taken on (wiped, replaced). Waiting for that game id would
        // publish nothing for days: start again as on a first start.
        if let Some(acked) = self.acked
            && acked != Mark::START
            && tip.last_event.is_none_or(|(game, _)| game < acked.game)
        {
            tracing::warn!(
                game = acked.game,
                seq = acked.seq,
                "the store has no game as far as the last one published: a new store; \
                 publishing it as on a first start"
            );
            self.acked = None;
        }
        if self.acked.is_none() {
            let start = if self.options.from_start {
                tracing::info!("first start: publishing every game in the store");
                Mark::START
            } else {
                match first_start(tip) {
                    Some(start) if start.seq < 0 => {
                        tracing::info!(
                            game = start.game,
                            "first start: publishing from the game in progress on"
                        );
                        start
                    }
                    Some(start) => {
                        tracing::info!(
                            game = start.game,
                            seq = start.seq,
                            "first start: no game in progress; publishing the games begun \
                             from now on"
                        );
                        start
                    }
                    None => {
                        tracing::info!("first start: the store has no games yet; publishing all");
                        Mark::START
                    }
                }
            };
            // Kept at once: started again before the broker acknowledged
            // anything (a broker away all day, then a power cut), this
            // publisher must resume from here, not choose again from a
            // store that has moved on, nor from the mark of a store that
            // was replaced.
            self.acked = Some(start);
            self.saved = None;
            self.follower = Follower::new(Some(start));
            self.save_if_due(true)?;
        }
        tracing::info!(store = %path.display(), "following the game store");
        self.store = Some(store);
        Ok(())
    }

    /// Handles one event of the client; true when it is a new connection.
    fn handle(&mut self, event: Event) -> bool {
        match event {
            Event::Incoming(Packet::ConnAck(_)) => {
                tracing::info!(broker = %self.options.broker, topics = %self.options.address.root(), "connected to the broker");
                self.connected = true;
                self.sent.clear();
                // Start again from what the broker acknowledged.
                self.follower = Follower::new(self.acked);
                self.state_published = None;
                self.caught_up_at = None;
                self.standing = Standing::Reading {
                    subscribed_at: None,
                };
                self.retained_claim = None;
                self.contender = None;
                // Nothing is published before the board's claim is read
                // (settle). Then the hall's requests to send events again
                // and its pairing of the board (a clean session: subscribed
                // again on every connection). A broker whose ACL predates
                // one refuses it: nothing else changes.
                self.subscribe_pending = false;
                self.subscribe();
                return true;
            }
            Event::Incoming(Packet::SubAck(_)) => {
                if let Standing::Reading { subscribed_at } = &mut self.standing {
                    subscribed_at.get_or_insert_with(Instant::now);
                }
            }
            Event::Incoming(Packet::Publish(publish))
                if publish.topic == self.options.address.claim_topic().as_bytes() =>
            {
                self.retained_claim = Claim::parse(&publish.payload);
            }
            Event::Incoming(Packet::Publish(publish))
                if publish.topic == self.options.address.contender_topic().as_bytes() =>
            {
                self.contender = Claim::parse(&publish.payload);
                // Retained messages come after the claim's: a holder may
                // have taken the board before this one came.
                if matches!(self.standing, Standing::Held) {
                    self.report_contender();
                }
            }
            Event::Incoming(Packet::Publish(publish))
                if publish.topic == self.options.address.pairing_topic().as_bytes() =>
            {
                self.pairing(&publish.payload);
            }
            Event::Incoming(Packet::Publish(publish))
                if publish.topic == self.options.address.resend_topic().as_bytes() =>
            {
                match serde_json::from_slice::<ResendRequest>(&publish.payload) {
                    Ok(request) => self.rewind(request),
                    Err(err) => tracing::warn!("a request to resend that is not one: {err}"),
                }
            }
            Event::Outgoing(Outgoing::Publish(pkid)) => {
                if let Some(sent) = self.sent.iter_mut().find(|sent| sent.pkid.is_none()) {
                    sent.pkid = Some(pkid);
                }
            }
            Event::Incoming(Packet::PubAck(ack)) => {
                // After a refusal, nothing more counts as delivered until
                // the next connection: the refused message's packet id is
                // free again and may come back on a later message, whose
                // acknowledgement would otherwise be taken for its.
                if self.refused {
                    return false;
                }
                let refused = !matches!(
                    ack.reason,
                    PubAckReason::Success | PubAckReason::NoMatchingSubscribers
                );
                let Some(sent) = self
                    .sent
                    .iter_mut()
                    .find(|sent| sent.pkid == Some(ack.pkid) && !sent.acked)
                else {
                    return false;
                };
                if refused {
                    tracing::error!(
                        reason = ?ack.reason,
                        topics = %self.options.address.root(),
                        "the broker refuses this clock's messages: check [publish] hall and \
                         board against the user in publish.credentials and the broker's ACL"
                    );
                    self.refused = true;
                    // Nothing after it may count as delivered: reconnect
                    // and resend from the mark, after a long wait.
                    let _ = self.client.try_disconnect();
                    self.connected = false;
                    return false;
                }
                sent.acked = true;
                while self.sent.front().is_some_and(|sent| sent.acked) {
                    if let Some(Sent {
                        mark: Some(mark), ..
                    }) = self.sent.pop_front()
                    {
                        self.acked = Some(mark);
                    }
                }
            }
            Event::Incoming(Packet::Disconnect(disconnect)) => {
                tracing::warn!(reason = ?disconnect.reason_code, "the broker disconnected");
                self.connected = false;
            }
            _ => {}
        }
        false
    }

    /// The hall lacks events from `request` on (a broker's queue for it
    /// overflowed): the follower starts again from there, at most once a
    /// second, and only backwards.
    fn rewind(&mut self, request: ResendRequest) {
        let mark = if request.seq <= 0 {
            Mark::before(request.game)
        } else {
            Mark {
                game: request.game,
                seq: request.seq - 1,
            }
        };
        if self.follower.last().is_none_or(|last| mark >= last)
            || self
                .rewound_at
                .is_some_and(|at| at.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        tracing::info!(
            game = request.game,
            seq = request.seq,
            "the hall lacks events: sending them again"
        );
        self.rewound_at = Some(Instant::now());
        self.follower = Follower::new(Some(mark));
        self.caught_up_at = None;
        self.state_published = None;
    }

    /// The connection is gone: whatever was sent and not acknowledged will
    /// be sent again from the mark once it is back.
    fn disconnected(&mut self) {
        self.connected = false;
        self.sent.clear();
        self.standing = Standing::Reading {
            subscribed_at: None,
        };
    }

    /// Moves on with the board's claim: once the retained claim is read
    /// (or none came within [`SETTLE`]), the board is taken if it is free
    /// or this publisher's own; another's is contested: this publisher
    /// says so on `…/contender` and waits [`GRACE`] before taking it.
    ///
    /// Refused (the holder is alive) when the holder's claim comes back
    /// with a new nonce: it took the board again since this one read it.
    fn settle(&mut self) -> Result<(), PublishError> {
        if !self.connected {
            return Ok(());
        }
        if self.subscribe_pending {
            self.subscribe();
        }
        if let (Some(holder), Some(read)) = (&self.contested, &self.retained_claim)
            && !matches!(self.standing, Standing::Held)
            && read.instance == holder.instance
            && read.nonce != holder.nonce
        {
            return Err(PublishError::BoardTaken {
                topics: self.options.address.root(),
                holder: read.clone(),
            });
        }
        match &self.standing {
            Standing::Reading { subscribed_at } => match self.retained_claim.clone() {
                Some(claim) if claim.instance != self.options.claim.instance => {
                    tracing::warn!(
                        topics = %self.options.address.root(),
                        holder_host = %claim.host,
                        holder_instance = %claim.instance,
                        "another clock holds this board with the same credentials: \
                         waiting {} s to see whether it is still there",
                        GRACE.as_secs()
                    );
                    self.publish(
                        self.options.address.contender_topic(),
                        claim_payload(&self.options.claim),
                        true,
                        None,
                    );
                    // Kept across connections: read again after a lost
                    // connection, the same nonce is a dead clock's still.
                    self.contested = Some(claim.clone());
                    self.standing = Standing::Contesting {
                        since: Instant::now(),
                        holder: claim,
                    };
                }
                Some(_) => self.take(),
                None if subscribed_at.is_some_and(|at| at.elapsed() >= SETTLE) => self.take(),
                None => {}
            },
            Standing::Contesting { since, holder } if since.elapsed() >= GRACE => {
                tracing::warn!(
                    topics = %self.options.address.root(),
                    holder_host = %holder.host,
                    "the clock that held this board is gone: taking the board over"
                );
                self.take();
            }
            Standing::Contesting { .. } | Standing::Held => {}
        }
        Ok(())
    }

    /// The board is this publisher's: its claim, then `online`; a
    /// contender it finds (a clone refused while this one was kicked) is
    /// reported and cleared.
    fn take(&mut self) {
        self.standing = Standing::Held;
        self.has_held = true;
        self.contested = None;
        // A new nonce at each taking: a contender that reads it knows this
        // publisher is alive.
        self.options.claim.nonce = nonce();
        let address = self.options.address.clone();
        self.publish(
            address.claim_topic(),
            claim_payload(&self.options.claim),
            true,
            None,
        );
        self.publish(address.status_topic(), ONLINE.into(), true, None);
        self.report_contender();
    }

    /// A contender on the board this publisher holds (a clone refused
    /// while this one was kicked): reported, and cleared.
    fn report_contender(&mut self) {
        let address = self.options.address.clone();
        if let Some(contender) = self.contender.take() {
            if contender.instance != self.options.claim.instance {
                tracing::warn!(
                    topics = %address.root(),
                    contender_host = %contender.host,
                    contender_instance = %contender.instance,
                    "another clock with this board's credentials connected (host {:?}) and \
                     was refused: two clocks share them (a cloned SD card?)",
                    contender.host
                );
            }
            self.publish(address.contender_topic(), Vec::new(), true, None);
        }
    }

    /// The hall's pairing of this board: checked and bounded, then written
    /// for the clock daemon when it changed. One that is refused is
    /// logged, and the file says nobody is paired: the last good one may
    /// be another round's, and a game with no names is better than one
    /// with the wrong players (the arbiter names them at the hall).
    fn pairing(&mut self, payload: &[u8]) {
        let board = self.options.address.board();
        let pairing = match BoardPairing::parse(payload, board) {
            Ok(pairing) => pairing,
            Err(err) => {
                tracing::warn!(
                    bytes = payload.len(),
                    "the hall's pairing refused: {err}; nobody paired on this board until the \
                     hall sends one that reads"
                );
                None
            }
        };
        let Some(path) = self.options.pairing_file.clone() else {
            return;
        };
        let text = pairing_file::contents(pairing.as_ref());
        if self.pairing_written.as_ref() == Some(&text) {
            return;
        }
        match pairing_file::write(&path, &text) {
            Ok(()) => {
                match &pairing {
                    Some(p) => tracing::info!(
                        round = %p.round,
                        white = %p.white.name,
                        black = %p.black.name,
                        file = %path.display(),
                        "the hall's pairing of this board written for the clock"
                    ),
                    None => {
                        tracing::info!(file = %path.display(), "nobody paired on this board: the pairing file emptied")
                    }
                }
                self.pairing_written = Some(text);
            }
            Err(err) => tracing::warn!(file = %path.display(), "cannot write the pairing: {err}"),
        }
    }

    fn publish(&mut self, topic: String, payload: Vec<u8>, retain: bool, mark: Option<Mark>) {
        match self
            .client
            .try_publish(topic, QoS::AtLeastOnce, retain, payload)
        {
            Ok(()) => self.sent.push_back(Sent {
                mark,
                pkid: None,
                acked: false,
            }),
            // The request queue is four windows deep: full only when the
            // loop is gone. Resent from the mark on the next connection.
            Err(err) => {
                tracing::warn!("cannot queue a message: {err}");
                self.connected = false;
            }
        }
    }

    /// Reads what was stored since, up to the window, and publishes it;
    /// then the board's state, when it changed.
    fn fill(&mut self) {
        if !self.connected || !matches!(self.standing, Standing::Held) {
            return;
        }
        // Taken out while publishing, which needs `self` whole.
        let Some(store) = self.store.take() else {
            return;
        };
        self.fill_from(&store);
        self.store = Some(store);
    }

    fn fill_from(&mut self, store: &Store) {
        let version = match store.data_version() {
            Ok(version) => version,
            Err(err) => {
                tracing::warn!("cannot read the game store: {err}");
                return;
            }
        };
        if self.caught_up_at == Some(version) {
            return;
        }
        loop {
            let in_flight = self.sent.iter().filter(|sent| sent.mark.is_some()).count();
            let room = WINDOW.saturating_sub(in_flight);
            if room == 0 {
                break;
            }
            let from = self.follower.read_from();
            let events = match store.events_from(from.game, from.seq, room) {
                Ok(events) => events,
                Err(err) => {
                    tracing::warn!("cannot read the game store: {err}");
                    return;
                }
            };
            let short = events.len() < room;
            let mut messages = Vec::new();
            for event in &events {
                if let Pushed::Message(message) = self.follower.push(event) {
                    messages.push(message);
                }
            }
            let topic = self.options.address.events_topic();
            for message in messages {
                let mark = Mark {
                    game: message.game,
                    seq: message.seq,
                };
                let payload = serde_json::to_vec(&message).expect("messages are JSON");
                self.publish(topic.clone(), payload, false, Some(mark));
            }
            if short {
                self.caught_up_at = Some(version);
                break;
            }
        }
        let last = self.follower.last();
        if last.is_some() && last != self.state_published {
            if let Some(state) = self.follower.board_state() {
                let payload = serde_json::to_vec(&state).expect("states are JSON");
                self.publish(self.options.address.state_topic(), payload, true, None);
            }
            self.state_published = last;
        }
    }

    /// Writes the acknowledged mark when it moved and [`SAVE_EVERY`] has
    /// passed, or at once with `now`.
    fn save_if_due(&mut self, now: bool) -> Result<(), ProgressError> {
        let Some(acked) = self.acked else {
            return Ok(());
        };
        if self.saved == Some(acked) || (!now && self.last_save.elapsed() < SAVE_EVERY) {
            return Ok(());
        }
        let path = self.options.state_directory.join(PROGRESS_FILE);
        progress::save(&path, &Progress { acked })?;
        self.saved = Some(acked);
        self.last_save = Instant::now();
        Ok(())
    }

    /// A clean stop: the clock says it is offline (its will is for
    /// a drop), the acknowledgements still on the way are taken, and the
    /// connection is closed.
    async fn stop(&mut self, eventloop: &mut EventLoop) {
        if !self.connected {
            return;
        }
        if matches!(self.standing, Standing::Held) {
            // The board is free for the next start, on this clock or
            // another.
            self.publish(self.options.address.claim_topic(), Vec::new(), true, None);
        }
        self.publish(
            self.options.address.status_topic(),
            OFFLINE.into(),
            true,
            None,
        );
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while !self.sent.is_empty() {
            match tokio::time::timeout_at(deadline, eventloop.poll()).await {
                Ok(Ok(event)) => {
                    self.handle(event);
                }
                Ok(Err(_)) | Err(_) => break,
            }
        }
        let _ = self.client.try_disconnect();
        let _ = tokio::time::timeout_at(deadline, eventloop.poll()).await;
        tracing::info!("disconnected from the broker");
    }
}

/// A claim's payload.
fn claim_payload(claim: &Claim) -> Vec<u8> {
    serde_json::to_vec(claim).expect("claims are JSON")
}

/// A new nonce for a claim: random, else the time (never one a
/// contender has read before).
fn nonce() -> String {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => hex(&bytes),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_nanos().to_string())
            .unwrap_or_default(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Why this publisher cannot tell itself from a clone of its clock.
#[derive(Debug)]
pub enum IdentityError {
    /// The instance file in the runtime directory cannot be read or
    /// written.
    RuntimeFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No runtime directory, and no boot id to read.
    Nothing,
}

impl fmt::Display for IdentityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdentityError::RuntimeFile { path, source } => write!(
                f,
                "cannot keep this publisher's instance id in {}: {source}",
                path.display()
            ),
            IdentityError::Nothing => f.write_str(
                "cannot make this publisher's instance id: no runtime directory \
                 ($RUNTIME_DIRECTORY, the unit's RuntimeDirectory=) to keep one in, and the \
                 machine's boot id is unreadable",
            ),
        }
    }
}

impl std::error::Error for IdentityError {}

/// This publisher's id for this boot: kept in [`INSTANCE_FILE`] in its
/// runtime directory, made at random there on the first start after a
/// boot (a tmpfs, which a clone of the SD card never copies, and which
/// the unit keeps through a restart); without a runtime directory, the
/// machine's boot id. Neither: an error, never an id a clone would share.
pub fn instance_id(
    runtime_directory: Option<&Path>,
    boot_id: Option<String>,
) -> Result<String, IdentityError> {
    let Some(dir) = runtime_directory else {
        return boot_id
            .filter(|id| !id.trim().is_empty())
            .map(|id| id.trim().to_owned())
            .ok_or(IdentityError::Nothing);
    };
    let path = dir.join(INSTANCE_FILE);
    let failed = |source| IdentityError::RuntimeFile {
        path: path.clone(),
        source,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(failed(err)),
    }
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| failed(std::io::Error::other(err.to_string())))?;
    let id = hex(&bytes);
    std::fs::write(&path, format!("{id}\n")).map_err(failed)?;
    Ok(id)
}

/// This publisher's claim: its [`instance_id`] (a clone of the SD card
/// has another) with the state directory (two publishers on one machine
/// have two), and the host name for people to read. The runtime
/// directory is `$RUNTIME_DIRECTORY`'s first, when systemd sets it.
pub fn this_claim(state_directory: &Path) -> Result<Claim, IdentityError> {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_owned())
            .filter(|text| !text.is_empty())
    };
    let runtime = std::env::var_os("RUNTIME_DIRECTORY").and_then(|dirs| {
        std::env::split_paths(&dirs)
            .next()
            .filter(|dir| dir.is_absolute())
    });
    let id = instance_id(runtime.as_deref(), read("/proc/sys/kernel/random/boot_id"))?;
    let host = read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .unwrap_or_else(|| "?".to_owned());
    let directory =
        std::fs::canonicalize(state_directory).unwrap_or_else(|_| state_directory.to_path_buf());
    // Cut as a claim read back is, so that this publisher knows its own.
    Ok(Claim {
        instance: printable(&format!("{id}:{}", directory.display()), Claim::MAX_FIELD),
        host: printable(&host, Claim::MAX_FIELD),
        nonce: String::new(),
    })
}

/// Where a publisher without a state file starts: before the game in
/// progress, else after the last event stored (the clock's history is not
/// the hall's); `None` in a store without games (everything is new).
fn first_start(tip: Tip) -> Option<Mark> {
    match tip.unfinished {
        Some(game) => Some(Mark::before(game)),
        None => tip.last_event.map(|(game, seq)| Mark { game, seq }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rumqttc::v5::mqttbytes::v5::ConnAck;
    use rumqttc::v5::{Request, mqttbytes::v5::ConnectReturnCode as Code};

    #[test]
    fn two_instances_made_without_a_boot_id_differ_and_one_is_kept_through_a_restart() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first = instance_id(Some(a.path()), None).unwrap();
        let other = instance_id(Some(b.path()), None).unwrap();
        assert_ne!(first, other);
        assert_eq!(first.len(), 32, "{first}");
        // The same runtime directory (a restart): the same instance.
        assert_eq!(instance_id(Some(a.path()), None).unwrap(), first);
        // Neither a runtime directory nor a boot id: refused, never a
        // constant a clone would share.
        assert!(matches!(
            instance_id(None, None),
            Err(IdentityError::Nothing)
        ));
        assert!(matches!(
            instance_id(None, Some(" \n".into())),
            Err(IdentityError::Nothing)
        ));
        assert_eq!(instance_id(None, Some("boot\n".into())).unwrap(), "boot");
        // A runtime directory that cannot hold the file: refused.
        let gone = a.path().join("missing");
        assert!(matches!(
            instance_id(Some(&gone), None),
            Err(IdentityError::RuntimeFile { .. })
        ));
    }

    #[test]
    fn a_publisher_that_held_its_board_is_back_within_the_grace() {
        assert_eq!(next_wait(MAX_BACKOFF, false, false), MAX_BACKOFF);
        assert_eq!(next_wait(MAX_BACKOFF, false, true), HELD_MAX_BACKOFF);
        assert_eq!(
            next_wait(Duration::from_millis(500), false, true),
            Duration::from_millis(500)
        );
        // The worst: an attempt that times out, the wait, the attempt.
        let worst = Duration::from_secs(CONNECT_TIMEOUT_SECS) + next_wait(MAX_BACKOFF, false, true);
        assert!(worst + Duration::from_secs(2) < GRACE, "{worst:?}");
        assert_eq!(next_wait(Duration::ZERO, true, true), MAX_BACKOFF);
    }

    #[test]
    fn a_first_start_begins_before_the_game_in_progress_else_after_the_last_event() {
        let tip = |unfinished, last_event| Tip {
            unfinished,
            last_event,
        };
        assert_eq!(first_start(tip(None, None)), None);
        // The game in progress is the hall's from its setup on, however
        // far it has gone.
        assert_eq!(
            first_start(tip(Some(1), Some((1, 1)))),
            Some(Mark::before(1))
        );
        assert_eq!(
            first_start(tip(None, Some((4, 80)))),
            Some(Mark { game: 4, seq: 80 })
        );
    }

    /// A publisher on a store in `dir`, as the daemon would leave it, with
    /// `acked` read from its state file.
    fn publisher_on(dir: &Path, acked: Option<Mark>) -> Publisher {
        let options = Options {
            store: dir.join("games.sqlite"),
            state_directory: dir.to_path_buf(),
            ..options()
        };
        let (client, _eventloop) = AsyncClient::new(mqtt_options(&options), 64);
        Publisher::new(options, client, acked)
    }

    fn saved_mark(dir: &Path) -> Option<Mark> {
        progress::load(&dir.join(PROGRESS_FILE))
            .unwrap()
            .map(|progress| progress.acked)
    }

    #[test]
    fn a_first_start_is_kept_at_once_so_a_restart_resumes_from_it() {
        use crate::store::NewGame;
        use crate::transcript::{Event as LineEvent, Line};

        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("games.sqlite")).unwrap();
        // A store without games yet: everything it will hold is the hall's.
        let mut first = publisher_on(dir.path(), None);
        first.open_store().unwrap();
        assert_eq!(first.acked, Some(Mark::START));
        assert_eq!(saved_mark(dir.path()), Some(Mark::START));

        // Games played while nothing was acknowledged (a broker away all
        // day): one finished, one in progress.
        let setup = Line {
            t: 0,
            event: LineEvent::Setup(Box::default()),
        };
        let new_game = NewGame {
            started_at: std::time::SystemTime::now(),
            preset: "rapid 10+0",
            white_left: true,
            setup: &setup,
        };
        let game = store.begin_game(&new_game).unwrap();
        store.finish(game, "1-0", "1-0").unwrap();
        store.begin_game(&new_game).unwrap();

        // Started again (a power cut): it resumes from what it kept, the
        // finished game included, rather than choosing again.
        let mut again = publisher_on(dir.path(), saved_mark(dir.path()));
        again.open_store().unwrap();
        assert_eq!(again.acked, Some(Mark::START));
        assert_eq!(again.follower.read_from(), Mark { game: 1, seq: 0 });

        // A mark of a store since replaced is replaced on disk too: a
        // restart cannot bring it back once the new store reaches its game.
        progress::save(
            &dir.path().join(PROGRESS_FILE),
            &Progress {
                acked: Mark { game: 99, seq: 5 },
            },
        )
        .unwrap();
        let mut replaced = publisher_on(dir.path(), saved_mark(dir.path()));
        replaced.open_store().unwrap();
        assert_eq!(
            replaced.acked,
            Some(Mark::before(2)),
            "the game in progress"
        );
        assert_eq!(saved_mark(dir.path()), Some(Mark::before(2)));
    }

    #[test]
    fn after_a_refusal_no_acknowledgement_counts_until_the_next_connection() {
        use rumqttc::v5::mqttbytes::v5::PubAck;

        let (client, _eventloop) = AsyncClient::new(mqtt_options(&options()), 64);
        let mut publisher = Publisher::new(options(), client, Some(Mark::START));
        publisher.handle(connack());
        let ack = |pkid, reason| {
            Event::Incoming(Packet::PubAck(PubAck {
                pkid,
                reason,
                properties: None,
            }))
        };
        let send = |publisher: &mut Publisher, seq, pkid| {
            let mark = Mark { game: 1, seq };
            publisher.publish("t".into(), Vec::new(), false, Some(mark));
            publisher.handle(Event::Outgoing(Outgoing::Publish(pkid)));
        };
        send(&mut publisher, 0, 1);
        send(&mut publisher, 1, 2);
        publisher.handle(ack(1, PubAckReason::NotAuthorized));
        assert!(publisher.refused);
        // Queued before the disconnection went out: packet id 1 is free
        // again and comes back on another message, which the broker takes.
        send(&mut publisher, 2, 1);
        publisher.handle(ack(1, PubAckReason::Success));
        publisher.handle(ack(2, PubAckReason::Success));
        assert_eq!(
            publisher.acked,
            Some(Mark::START),
            "the refused event is not delivered"
        );
    }

    fn options() -> Options {
        Options {
            broker: BrokerUrl::parse("mqtt://127.0.0.1:1").unwrap(),
            address: BoardAddress::new("open", 3).unwrap(),
            credentials: None,
            store: PathBuf::from("/nonexistent/games.sqlite"),
            state_directory: PathBuf::from("/nonexistent"),
            from_start: false,
            pairing_file: None,
            claim: Claim {
                instance: "me:/s".into(),
                host: "h".into(),
                nonce: String::new(),
            },
        }
    }

    fn connack() -> Event {
        Event::Incoming(Packet::ConnAck(ConnAck {
            session_present: false,
            code: Code::Success,
            properties: None,
        }))
    }

    #[test]
    fn a_subscription_the_full_queue_refused_is_asked_again_at_the_next_tick() {
        // A queue of one request, full: the subscription at the ConnAck
        // cannot be queued.
        let (client, mut eventloop) = AsyncClient::new(mqtt_options(&options()), 1);
        client
            .try_publish("x", QoS::AtLeastOnce, false, Vec::new())
            .unwrap();
        let mut publisher = Publisher::new(options(), client, None);
        assert!(publisher.handle(connack()));
        assert!(publisher.subscribe_pending);
        // The tick while the queue is still full: still pending.
        publisher.settle().unwrap();
        assert!(publisher.subscribe_pending);
        // The queue drained: the next tick subscribes.
        eventloop.clean();
        publisher.settle().unwrap();
        assert!(!publisher.subscribe_pending);
        eventloop.clean();
        assert!(
            eventloop
                .pending
                .iter()
                .any(|request| matches!(request, Request::Subscribe(s) if s.filters.len() == 4)),
            "{:?}",
            eventloop.pending
        );
    }

    fn claim_event(claim: &Claim) -> Event {
        let topic = BoardAddress::new("open", 3).unwrap().claim_topic();
        Event::Incoming(Packet::Publish(rumqttc::v5::mqttbytes::v5::Publish::new(
            topic,
            QoS::AtLeastOnce,
            claim_payload(claim),
            None,
        )))
    }

    #[test]
    fn a_contender_cut_off_is_refused_only_if_the_holder_took_the_board_again() {
        let (client, _eventloop) = AsyncClient::new(mqtt_options(&options()), 64);
        let mut publisher = Publisher::new(options(), client, None);
        let holder = Claim {
            instance: "other:/s".into(),
            host: "h".into(),
            nonce: "n1".into(),
        };
        publisher.handle(connack());
        publisher.handle(claim_event(&holder));
        publisher.settle().unwrap();
        assert!(matches!(publisher.standing, Standing::Contesting { .. }));
        // The connection lost (a broker restart): the same claim read again
        // is a dead clock's still: contested again, not refused.
        publisher.disconnected();
        publisher.handle(connack());
        publisher.handle(claim_event(&holder));
        publisher.settle().unwrap();
        assert!(matches!(publisher.standing, Standing::Contesting { .. }));
        // Lost again, and the holder took the board meanwhile: refused.
        publisher.disconnected();
        publisher.handle(connack());
        let retaken = Claim {
            nonce: "n2".into(),
            ..holder.clone()
        };
        publisher.handle(claim_event(&retaken));
        match publisher.settle() {
            Err(PublishError::BoardTaken { holder, .. }) => assert_eq!(holder, retaken),
            other => panic!("{other:?}"),
        }
    }
}
