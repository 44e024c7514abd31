//! The hall's MQTT side (rumqttc): one subscription to
//! `tocada/<hall>/+/+` at QoS 1 in a persistent session (a fixed client
//! id, `clean_session = false`), so the broker keeps what the clocks
//! publish while the hall is down and hands it over when it comes back.
//!
//! Each message is acknowledged only once the core has stored it
//! (manual acks): a hall killed between the two gets the message again,
//! and the core drops the duplicate.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use super::ingest::{Ingested, REASON_BYTES};
use super::web::{Shared, wall_ms};
use crate::broadcast::{BoardAddress, Topic, hall_filter};
use crate::broker::Credentials;

/// How to reach the broker.
#[derive(Debug, Clone)]
pub struct Subscription {
    /// The hall's name.
    pub hall: String,
    /// The broker's host.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The fixed client id the broker keeps the session under.
    pub client_id: String,
    /// The hall's login at the broker, if it needs one.
    pub credentials: Option<Credentials>,
}

/// The largest MQTT packet the hall takes from the broker, bytes: four
/// times the shipped broker's `max_packet_size` (64 KiB,
/// `packaging/mosquitto/tocada.conf`), so that nothing the broker delivers
/// can fail the hall's connection. A packet over it would (rumqttc drops
/// the connection), and with a persistent session the broker would hand
/// the same packet over again at every reconnection, stopping every
/// board: under it, a payload over [`super::MAX_PAYLOAD`] is counted and
/// dropped like any bad message.
pub const MAX_INCOMING_PACKET: usize = 256 * 1024;

/// The most messages taken in one store transaction. The broker's
/// in-flight window to the hall bounds a burst first (20 in the shipped
/// configuration, `max_inflight_messages`).
const MAX_BATCH: usize = 1000;

/// How long to wait before connecting again after the broker is lost.
const RETRY: Duration = Duration::from_secs(1);

/// Takes the hall's messages into `shared` forever, reconnecting after
/// every loss of the broker.
pub async fn run(subscription: Subscription, shared: Arc<Shared>) {
    let filter = match hall_filter(&subscription.hall) {
        Ok(filter) => filter,
        Err(err) => {
            tracing::error!("cannot subscribe: {err}");
            return;
        }
    };
    let mut options = MqttOptions::new(
        subscription.client_id.clone(),
        subscription.host.clone(),
        subscription.port,
    );
    options
        .set_clean_session(false)
        .set_manual_acks(true)
        .set_keep_alive(Duration::from_secs(15))
        .set_max_packet_size(MAX_INCOMING_PACKET, 4096)
        .set_inflight(100);
    if let Some(login) = &subscription.credentials {
        options.set_credentials(login.user.clone(), login.password.clone());
    }
    // Acks and the subscription go through this channel to the loop below,
    // which alone drains it: large enough never to fill between polls.
    let (client, mut eventloop) = AsyncClient::new(options, 10_000);
    let mut connected = false;
    // Stored, to acknowledge. The request channel this loop alone drains
    // can be full after a broker's restart floods the hall with what it
    // queued: an ack refused then is kept and offered again, never
    // dropped (a dropped ack holds one of the broker's in-flight slots for
    // the hall until the next connection, and enough of them stall it).
    let mut unacked: VecDeque<rumqttc::Publish> = VecDeque::new();
    // What the event loop gave after a burst of messages, to handle next.
    let mut after = None;
    // Once a second: the clocks whose events the hall lacks are asked for
    // them again (a broker's queue that overflowed drops them silently).
    let mut ticks = tokio::time::interval(Duration::from_secs(1));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pairings = PairingsSent::default();
    loop {
        while let Some(publish) = unacked.front() {
            match client.try_ack(publish) {
                Ok(()) => {
                    unacked.pop_front();
                }
                Err(rumqttc::ClientError::TryRequest(_)) => break,
                Err(err) => {
                    tracing::warn!("cannot acknowledge a message: {err}");
                    unacked.pop_front();
                }
            }
        }
        let polled = match after.take() {
            Some(polled) => polled,
            None => tokio::select! {
                polled = eventloop.poll() => polled,
                _ = ticks.tick() => {
                    if connected {
                        ask_again(&client, &subscription.hall, &shared);
                        pairings.send(&client, &subscription.hall, &shared);
                    }
                    continue;
                }
            },
        };
        match polled {
            Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                connected = true;
                // Sent again on every connection: a broker without
                // persistence has lost the retained ones.
                pairings = PairingsSent::default();
                tracing::info!(
                    broker = %format!("{}:{}", subscription.host, subscription.port),
                    session_present = ack.session_present,
                    "connected to the broker"
                );
                // Again on every connection: harmless when the broker kept
                // the session, needed when it did not.
                if let Err(err) = client.try_subscribe(filter.clone(), QoS::AtLeastOnce) {
                    tracing::error!("cannot subscribe to {filter}: {err}");
                }
            }
            Ok(Event::Incoming(Packet::Publish(publish))) => {
                // With it, every message already read: one store
                // transaction for the burst (after a broker's restart,
                // the broker's whole in-flight window to the hall).
                let mut batch = vec![publish];
                while batch.len() < MAX_BATCH {
                    match eventloop.poll().now_or_never() {
                        Some(Ok(Event::Incoming(Packet::Publish(publish)))) => batch.push(publish),
                        Some(other) => {
                            after = Some(other);
                            break;
                        }
                        None => break,
                    }
                }
                // A pairing the broker holds (retained from the last round,
                // before a restart of the hall, or this hall's own echoed):
                // noted, so that the next send clears a board the round
                // does not have.
                for publish in &batch {
                    if let Some((address, Topic::Pairing)) =
                        BoardAddress::parse_topic(&publish.topic)
                        && address.hall() == subscription.hall
                    {
                        pairings.heard(address.board(), &publish.payload);
                    }
                }
                take(&shared, batch, &mut unacked);
            }
            Ok(Event::Incoming(Packet::SubAck(ack))) => {
                tracing::info!(filter = %filter, codes = ?ack.return_codes, "subscribed");
            }
            Ok(_) => {}
            Err(err) => {
                if connected {
                    tracing::warn!("lost the broker: {err}");
                } else {
                    tracing::debug!("cannot reach the broker: {err}");
                }
                connected = false;
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

/// Takes a burst of messages into the hall in one store transaction and
/// queues the acknowledgement of each it stored; tells the live pages once.
fn take(shared: &Shared, batch: Vec<rumqttc::Publish>, unacked: &mut VecDeque<rumqttc::Publish>) {
    let messages: Vec<(&str, &[u8])> = batch
        .iter()
        .map(|publish| (publish.topic.as_str(), &publish.payload[..]))
        .collect();
    let taken = shared.hall().receive_batch(&messages, wall_ms());
    let taken = match taken {
        Ok(taken) => taken,
        // None acknowledged: the broker sends them again.
        Err(err) => {
            tracing::error!(messages = batch.len(), "cannot store: {err}");
            return;
        }
    };
    for (publish, taken) in batch.into_iter().zip(taken) {
        match taken {
            Ok(ingested) => {
                if let Ingested::Dropped(why) = &ingested {
                    // The payload's head only: a 60 kB message is not a
                    // 60 kB log line.
                    let head = &publish.payload[..publish.payload.len().min(REASON_BYTES)];
                    tracing::warn!(
                        topic = %super::capped(&publish.topic),
                        bytes = publish.payload.len(),
                        head = %String::from_utf8_lossy(head),
                        "message dropped: {why}"
                    );
                }
                unacked.push_back(publish);
            }
            // Not acknowledged: the broker sends it again.
            Err(err) => tracing::error!(topic = %publish.topic, "cannot store: {err}"),
        }
    }
    shared.notify();
}

/// Publishes the hall's requests to send events again, each on its
/// board's `…/resend`.
fn ask_again(client: &AsyncClient, hall: &str, shared: &Shared) {
    let requests = shared.hall().resend_requests(wall_ms());
    for (board, request) in requests {
        let Ok(address) = BoardAddress::new(hall, board) else {
            continue;
        };
        let payload = serde_json::to_vec(&request).unwrap_or_default();
        tracing::info!(
            board,
            game = request.game,
            seq = request.seq,
            "asking the clock to send its events again"
        );
        if let Err(err) =
            client.try_publish(address.resend_topic(), QoS::AtLeastOnce, false, payload)
        {
            tracing::warn!(board, "cannot ask the clock again: {err}");
        }
    }
}

/// The pairings the broker holds for the clocks, each retained on its
/// board's `…/pairing`: those published on this connection and those
/// heard back from the broker (a hall restarted finds the last round's).
#[derive(Debug, Default)]
struct PairingsSent {
    /// The round's version they were read at; `None` before the first.
    version: Option<Option<i64>>,
    /// Each board's payload as sent.
    sent: std::collections::BTreeMap<u32, Vec<u8>>,
}

impl PairingsSent {
    /// The broker holds `payload` on `board`'s `…/pairing`: noted as sent,
    /// and the round looked at again at the next send, which replaces it
    /// or, for a board the round does not have, clears it.
    fn heard(&mut self, board: u32, payload: &[u8]) {
        if self.sent.get(&board).map_or(&[][..], Vec::as_slice) == payload {
            return;
        }
        self.sent.insert(board, payload.to_vec());
        self.version = None;
    }

    /// Publishes each board's pairing that changed since the last time
    /// (a new round imported), and clears the boards that left the round.
    fn send(&mut self, client: &AsyncClient, hall: &str, shared: &Shared) {
        let (version, wanted) = {
            let hall = shared.hall();
            let version = hall.pairings_version();
            if self.version == Some(version) {
                return;
            }
            match hall.clock_pairings() {
                Ok(wanted) => (version, wanted),
                Err(err) => {
                    tracing::warn!("cannot read the round's pairings: {err}");
                    return;
                }
            }
        };
        let mut payloads: std::collections::BTreeMap<u32, Vec<u8>> = wanted
            .iter()
            .map(|(board, pairing)| (*board, serde_json::to_vec(pairing).unwrap_or_default()))
            .collect();
        for board in self.sent.keys() {
            payloads.entry(*board).or_default();
        }
        let mut published = 0;
        for (board, payload) in &payloads {
            if self.sent.get(board) == Some(payload) {
                continue;
            }
            let Ok(address) = BoardAddress::new(hall, *board) else {
                continue;
            };
            if let Err(err) = client.try_publish(
                address.pairing_topic(),
                QoS::AtLeastOnce,
                true,
                payload.clone(),
            ) {
                // Tried again at the next tick.
                tracing::warn!(board, "cannot publish the board's pairing: {err}");
                return;
            }
            published += 1;
            self.sent.insert(*board, payload.clone());
        }
        self.sent.retain(|_, payload| !payload.is_empty());
        self.version = Some(version);
        if published > 0 {
            tracing::info!(
                boards = published,
                "the round's pairings published to the clocks"
            );
        }
    }
}
