//! The hall's sans-IO core: MQTT messages in (topic, payload, the instant
//! they arrived), the store and every board's rebuilt game updated, views
//! and PGN out. No sockets, no clock reads: the runner passes both in.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use shakmaty::Color;

use super::game::{Added, ReportedGame, RulingEntry};
use super::pairings::{BoardPairing, PairedPlayer};
use super::results::ResultsFormat;
use super::results::{self, BoardResult};
use super::store::HallStore;
use crate::broadcast::{
    BoardAddress, BoardState, EventMessage, OFFLINE, ONLINE, ResendRequest, Running, Topic,
};
use crate::pgn::{Audience, Tags};
use crate::transcript::{self, parse_line};
use crate::words;

/// The longest payload taken, bytes: a replay line and its effects are a
/// few hundred bytes; anything this big is not a clock's.
pub const MAX_PAYLOAD: usize = 64 * 1024;

/// The highest `seq` taken: a game of ten hours with a checkpoint every
/// half second stays far below it; a larger one is garbage that would
/// only wait forever for the events before it.
pub const MAX_SEQ: i64 = 10_000_000;

/// The highest game id taken: a clock's store numbers its games from 1, a
/// game every few minutes for years stays far below it. A larger one
/// (`i64::MAX`) would stand above every real game forever.
pub const MAX_GAME: i64 = 1_000_000_000;

/// The most time a clock may show in a retained state, ms: 24 hours, more
/// than any time control gives.
pub const MAX_CLOCK_MS: u64 = 24 * 3600 * 1000;

/// The most moves (plies) a retained state may list.
pub const MAX_STATE_MOVES: usize = 2000;

/// The most bytes of a dropped message's reason kept for the log and the
/// counters' detail: a reason that quotes a 60 kB payload is cut to this,
/// with the full length said.
pub const REASON_BYTES: usize = 200;

/// Per-board quotas: what one clock may make the hall hold, so that a
/// clock that floods harms only its own board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// Games a board may have in the hall; events of a further game are
    /// counted and dropped (`quota_games`).
    pub games_per_board: usize,
    /// Events a board may have held back (waiting for an earlier one) in
    /// all its games; more are counted and dropped (`quota_held`).
    pub held_per_board: usize,
    /// Events a board may have in the hall in all (the hall keeps every
    /// line of its games in memory, about 1.2 kB each); more are counted and
    /// dropped (`quota_events`).
    pub events_per_board: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            games_per_board: 200,
            held_per_board: 10_000,
            events_per_board: 100_000,
        }
    }
}

/// How long a board must lack events before the hall asks its clock to
/// send them again, ms: longer than a reordering or a state that arrives
/// just before the events it sums up.
pub const RESEND_AFTER_MS: u64 = 2000;

/// The least time between two requests to one clock, ms.
pub const RESEND_EVERY_MS: u64 = 5000;

/// `text` cut to [`REASON_BYTES`] on a character boundary, with its full
/// length said when it was cut.
pub fn capped(text: &str) -> String {
    if text.len() <= REASON_BYTES {
        return text.to_owned();
    }
    let mut end = REASON_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Who plays on a board this round.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Pairing {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
}

/// The round the hall plays: the PGN's tags, and the pairings by board.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Round {
    /// Event, site, date and round (the players come from the pairings,
    /// the time control from each game).
    pub tags: Tags,
    /// Who plays on each board.
    pub pairings: BTreeMap<u32, Pairing>,
}

/// Why a message was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dropped {
    /// The topic is not one of a hall's (`tocada/<hall>/<board>/…`).
    Topic,
    /// The topic belongs to another hall.
    OtherHall,
    /// Over [`MAX_PAYLOAD`] bytes.
    TooLarge,
    /// The payload is not the topic's JSON message.
    Payload(String),
    /// `seq` below 0 or over [`MAX_SEQ`], or a game id below 0 or over
    /// [`MAX_GAME`].
    Seq,
    /// The event's line is not a replay line, or disagrees with the
    /// message's `t`.
    Line(String),
    /// A retained state that cannot be a clock's ([`Hall::receive`]): why.
    State(String),
    /// Over the board's quota of games ([`Quotas::games_per_board`]).
    QuotaGames,
    /// Over the board's quota of held-back events
    /// ([`Quotas::held_per_board`]).
    QuotaHeld,
    /// Over the board's quota of events ([`Quotas::events_per_board`]).
    QuotaEvents,
}

impl Dropped {
    /// A short name, for the counters.
    pub fn name(&self) -> &'static str {
        match self {
            Dropped::Topic => "topic",
            Dropped::OtherHall => "other_hall",
            Dropped::TooLarge => "too_large",
            Dropped::Payload(_) => "payload",
            Dropped::Seq => "seq",
            Dropped::Line(_) => "line",
            Dropped::State(_) => "state",
            Dropped::QuotaGames => "quota_games",
            Dropped::QuotaHeld => "quota_held",
            Dropped::QuotaEvents => "quota_events",
        }
    }
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dropped::Topic => f.write_str("not a hall topic"),
            Dropped::OtherHall => f.write_str("another hall's topic"),
            Dropped::TooLarge => write!(f, "payload over {MAX_PAYLOAD} bytes"),
            Dropped::Payload(why) => write!(f, "bad payload: {}", capped(why)),
            Dropped::Seq => write!(f, "seq or game out of range"),
            Dropped::Line(why) => write!(f, "bad line: {}", capped(why)),
            Dropped::State(why) => write!(f, "bad state: {}", capped(why)),
            Dropped::QuotaGames => f.write_str("over the board's quota of games"),
            Dropped::QuotaHeld => f.write_str("over the board's quota of held-back events"),
            Dropped::QuotaEvents => f.write_str("over the board's quota of events"),
        }
    }
}

/// What a message did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ingested {
    /// A new event, stored; `fed` lines were fed to its game (0 while an
    /// earlier one is missing, more when it filled a gap).
    Event {
        /// The board.
        board: u32,
        /// The game.
        game: i64,
        /// The event's seq.
        seq: i64,
        /// Lines fed to the game.
        fed: usize,
    },
    /// An event the hall already had.
    Duplicate {
        /// The board.
        board: u32,
    },
    /// A board's retained state, newer than the one kept.
    State {
        /// The board.
        board: u32,
    },
    /// A state older than the one kept (a retained message seen again).
    StaleState {
        /// The board.
        board: u32,
    },
    /// A request to send events again, on a clock's `…/resend` (the
    /// hall's own, seen again through its subscription): nothing to take.
    Resend {
        /// The board.
        board: u32,
    },
    /// A message between the publishers of a board (`…/claim`,
    /// `…/contender`) or the hall's own pairing (`…/pairing`), seen
    /// through the subscription: nothing to take.
    Between {
        /// The board.
        board: u32,
    },
    /// The publisher's connection: online or not.
    Status {
        /// The board.
        board: u32,
        /// `true` for [`ONLINE`].
        online: bool,
    },
    /// Counted and dropped.
    Dropped(Dropped),
}

/// The counts a hall keeps since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// New events stored.
    pub events: u64,
    /// Events already had.
    pub duplicates: u64,
    /// States and statuses taken.
    pub states: u64,
    /// Messages dropped, by reason ([`Dropped::name`]).
    pub dropped: BTreeMap<&'static str, u64>,
    /// Requests to a clock to send its events again
    /// ([`Hall::resend_requests`]).
    pub resends: u64,
}

#[derive(Debug, Default)]
struct Board {
    games: BTreeMap<i64, ReportedGame>,
    state: Option<BoardState>,
    online: Option<bool>,
    /// Acknowledged rulings: (game, index) → arbiter.
    acks: HashMap<(i64, usize), String>,
    /// Bumped at every change: the page asks for what changed since.
    version: u64,
    /// Since when events the clock published are missing, ms.
    behind_since: Option<u64>,
    /// When the hall last asked the clock to send them again, ms.
    asked_at: Option<u64>,
    /// Each game's facts, fixed when the hall first heard of it.
    facts: HashMap<i64, Tags>,
    /// Events stored of all its games.
    events: usize,
}

impl Board {
    /// The first event the hall lacks of what the clock published, if it
    /// knows of one: the gap before events held back in a game, else the
    /// events a retained state of the newest game counts that the hall
    /// does not have.
    fn missing(&self) -> Option<ResendRequest> {
        if let Some((id, game)) = self.games.iter().rev().find(|(_, g)| g.pending() > 0) {
            return Some(ResendRequest {
                game: *id,
                seq: game.lines().len() as i64,
            });
        }
        let state = self.state.as_ref()?;
        if self
            .games
            .keys()
            .next_back()
            .is_some_and(|g| *g > state.game)
        {
            return None;
        }
        let have = self
            .games
            .get(&state.game)
            .map_or(0, |g| g.lines().len() as i64);
        (have <= state.seq).then_some(ResendRequest {
            game: state.game,
            seq: have,
        })
    }

    /// The game on the board now: the newest one the hall has lines of.
    fn current(&self) -> Option<(i64, &ReportedGame)> {
        self.games.iter().next_back().map(|(id, game)| (*id, game))
    }
}

/// A ruling in the arbiter's log, with who acknowledged it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RulingView {
    /// Its index among the game's effects.
    pub index: usize,
    /// The game's instant, ms.
    pub t: u64,
    /// In words.
    pub text: String,
    /// The effect line.
    pub effect: serde_json::Value,
    /// The arbiter who acknowledged it, if one did.
    pub acknowledged_by: Option<String>,
}

/// A board at a glance, for the arbiter's page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardView {
    /// The board number.
    pub board: u32,
    /// Its current game's id in the clock's store.
    pub game: Option<i64>,
    /// White's name, from the round's pairings.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The position, FEN.
    pub fen: Option<String>,
    /// `white` or `black`.
    pub to_move: Option<&'static str>,
    /// White's time left at the last event, ms.
    pub white_ms: Option<u64>,
    /// Black's time left at the last event, ms.
    pub black_ms: Option<u64>,
    /// Whose clock runs.
    pub running: Option<Running>,
    /// The moves played.
    pub moves: usize,
    /// The last move, SAN.
    pub last_move: Option<String>,
    /// The last ruling.
    pub last_ruling: Option<RulingView>,
    /// Rulings no arbiter has acknowledged.
    pub unacknowledged: usize,
    /// The result token, once over.
    pub result: Option<String>,
    /// The result in words.
    pub result_text: Option<String>,
    /// Whose flag fell.
    pub flag: Option<&'static str>,
    /// The publisher's connection, if it said.
    pub online: Option<bool>,
    /// Events fed.
    pub events: usize,
    /// Events waiting for an earlier one.
    pub waiting: usize,
    /// The transcript's complaint about a line, if any.
    pub fault: Option<String>,
    /// `true` when the hall has not every event of the game from its start
    /// and shows the clock's retained state instead.
    pub from_state: bool,
    /// The board's change counter.
    pub version: u64,
}

/// A hall: every board's games, rebuilt from the events as they arrive.
#[derive(Debug)]
pub struct Hall {
    name: String,
    store: HallStore,
    round: Round,
    boards: BTreeMap<u32, Board>,
    counters: Counters,
    version: u64,
    quotas: Quotas,
    /// The sequence number of the imported round the hall plays, if any.
    imported: Option<i64>,
}

impl Hall {
    /// The hall `name` on the store at `path`, every stored game rebuilt.
    pub fn open(name: &str, path: &Path, round: Round) -> rusqlite::Result<Hall> {
        Hall::with_store(name, HallStore::open(path, name)?, round)
    }

    /// The hall on a store already open (in memory in the tests).
    pub fn with_store(name: &str, store: HallStore, round: Round) -> rusqlite::Result<Hall> {
        let mut hall = Hall {
            name: name.to_owned(),
            store,
            round,
            boards: BTreeMap::new(),
            counters: Counters::default(),
            version: 0,
            quotas: Quotas::default(),
            imported: None,
        };
        for (board, game, seq, line) in hall.store.events()? {
            let entry = hall.board_mut(board);
            entry.events += 1;
            entry.games.entry(game).or_default().add(seq, line);
        }
        for (board, game, tags) in hall.store.facts()? {
            hall.board_mut(board).facts.insert(game, tags);
        }
        hall.reload_round()?;
        // Games stored before facts were (an older store): fixed now, as
        // the configuration has them, and never again.
        let unfixed: Vec<(u32, i64)> = hall
            .boards
            .iter()
            .flat_map(|(board, entry)| {
                entry
                    .games
                    .keys()
                    .filter(|game| !entry.facts.contains_key(game))
                    .map(|game| (*board, *game))
            })
            .collect();
        for (board, game) in unfixed {
            hall.fix_facts(board, game)?;
        }
        for (board, state, status) in hall.store.boards()? {
            let entry = hall.board_mut(board);
            entry.state = state
                .and_then(|s| serde_json::from_str(&s).ok())
                .filter(|s| check_state(s).is_ok());
            entry.online = status.map(|s| s == ONLINE);
        }
        for (board, game, ruling, arbiter) in hall.store.acks()? {
            hall.board_mut(board).acks.insert((game, ruling), arbiter);
        }
        Ok(hall)
    }

    fn board_mut(&mut self, board: u32) -> &mut Board {
        self.version += 1;
        let version = self.version;
        let entry = self.boards.entry(board).or_default();
        entry.version = version;
        entry
    }

    /// Sets the per-board quotas (the defaults until then).
    pub fn set_quotas(&mut self, quotas: Quotas) {
        self.quotas = quotas;
    }

    /// The hall's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The counts since the hall started.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The store, to read.
    pub fn store(&self) -> &HallStore {
        &self.store
    }

    /// The hall's change counter: it grows at every change of any board.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The hall's change counter as it read at `board`'s last change (0
    /// for a board it does not know): a board's own PGN changes only
    /// with it, so a poller of one board is answered "not modified"
    /// while the others move.
    pub fn board_version(&self, board: u32) -> u64 {
        self.boards.get(&board).map_or(0, |entry| entry.version)
    }

    /// Takes one message as it came from the broker, at `now_ms` (any
    /// clock: it is stored as the arrival time). A bad message is counted
    /// and dropped; only the store failing is an error.
    pub fn receive(
        &mut self,
        topic: &str,
        payload: &[u8],
        now_ms: u64,
    ) -> rusqlite::Result<Ingested> {
        let ingested = self.take(topic, payload, now_ms)?;
        match &ingested {
            Ingested::Event { .. } => self.counters.events += 1,
            Ingested::Duplicate { .. } => self.counters.duplicates += 1,
            Ingested::State { .. } | Ingested::StaleState { .. } | Ingested::Status { .. } => {
                self.counters.states += 1
            }
            Ingested::Resend { .. } | Ingested::Between { .. } => {}
            Ingested::Dropped(why) => *self.counters.dropped.entry(why.name()).or_default() += 1,
        }
        Ok(ingested)
    }

    /// Takes `messages` as [`Hall::receive`] takes each, in one store
    /// transaction: what each became, in order, once all are stored. An
    /// error of one message's own (inner) leaves the others taken; the
    /// commit failing (outer) stores none of them, and none is to be
    /// acknowledged: the broker sends them again, and the store then
    /// takes them (the hall's memory, ahead of its store, drops nothing
    /// it has not stored).
    pub fn receive_batch(
        &mut self,
        messages: &[(&str, &[u8])],
        now_ms: u64,
    ) -> rusqlite::Result<Vec<rusqlite::Result<Ingested>>> {
        self.store.begin()?;
        let taken = messages
            .iter()
            .map(|(topic, payload)| self.receive(topic, payload, now_ms))
            .collect();
        self.store.commit()?;
        Ok(taken)
    }

    fn take(&mut self, topic: &str, payload: &[u8], now_ms: u64) -> rusqlite::Result<Ingested> {
        let dropped = |why| Ok(Ingested::Dropped(why));
        let Some((address, kind)) = BoardAddress::parse_topic(topic) else {
            return dropped(Dropped::Topic);
        };
        if address.hall() != self.name {
            return dropped(Dropped::OtherHall);
        }
        if payload.len() > MAX_PAYLOAD {
            return dropped(Dropped::TooLarge);
        }
        let board = address.board();
        match kind {
            Topic::Events => {
                let message: EventMessage = match serde_json::from_slice(payload) {
                    Ok(message) => message,
                    Err(err) => return dropped(Dropped::Payload(err.to_string())),
                };
                if !(0..=MAX_SEQ).contains(&message.seq) || !(0..=MAX_GAME).contains(&message.game)
                {
                    return dropped(Dropped::Seq);
                }
                if !message.line.is_object() {
                    return dropped(Dropped::Line("not a JSON object".to_owned()));
                }
                let line = message.line.to_string();
                match parse_line(&line) {
                    Ok(Some(parsed)) if parsed.t == message.t => {}
                    Ok(Some(parsed)) => {
                        return dropped(Dropped::Line(format!(
                            "t {} in the line, {} in the message",
                            parsed.t, message.t
                        )));
                    }
                    Ok(None) => return dropped(Dropped::Line("empty".to_owned())),
                    Err(err) => return dropped(Dropped::Line(err.to_string())),
                }
                if let Some(over) = self.over_quota(board, message.game, message.seq) {
                    return dropped(over);
                }
                let new_game = self
                    .boards
                    .get(&board)
                    .is_none_or(|entry| !entry.facts.contains_key(&message.game));
                if new_game {
                    self.fix_facts(board, message.game)?;
                }
                if !self.store.insert_event(
                    board,
                    message.game,
                    message.seq,
                    message.t,
                    &line,
                    now_ms,
                )? {
                    return Ok(Ingested::Duplicate { board });
                }
                let entry = self.board_mut(board);
                entry.events += 1;
                let game = entry.games.entry(message.game).or_default();
                let fed = match game.add(message.seq, line) {
                    Added::Fed(n) => n,
                    Added::Pending | Added::Duplicate => 0,
                };
                Ok(Ingested::Event {
                    board,
                    game: message.game,
                    seq: message.seq,
                    fed,
                })
            }
            Topic::State => {
                let state: BoardState = match serde_json::from_slice(payload) {
                    Ok(state) => state,
                    Err(err) => return dropped(Dropped::Payload(err.to_string())),
                };
                if let Err(why) = check_state(&state) {
                    return dropped(Dropped::State(why));
                }
                let newer = match self.boards.get(&board) {
                    Some(Board {
                        state: Some(kept),
                        games,
                        ..
                    }) => {
                        // A kept state ahead of every game the hall has
                        // events of is the clock's word alone: a state of
                        // a lower game replaces it, so no id sticks.
                        let unconfirmed = games.keys().next_back().is_none_or(|g| kept.game > *g);
                        (unconfirmed && state.game < kept.game)
                            || (state.game, state.seq) > (kept.game, kept.seq)
                    }
                    _ => true,
                };
                if !newer {
                    return Ok(Ingested::StaleState { board });
                }
                let text = serde_json::to_string(&state).unwrap_or_default();
                self.store.set_state(board, &text)?;
                self.board_mut(board).state = Some(state);
                Ok(Ingested::State { board })
            }
            Topic::Resend => Ok(Ingested::Resend { board }),
            Topic::Claim | Topic::Contender | Topic::Pairing => Ok(Ingested::Between { board }),
            Topic::Status => {
                let online = match payload {
                    p if p == ONLINE.as_bytes() => true,
                    p if p == OFFLINE.as_bytes() => false,
                    _ => {
                        return dropped(Dropped::Payload(format!(
                            "status is neither {ONLINE:?} nor {OFFLINE:?}"
                        )));
                    }
                };
                self.store
                    .set_status(board, if online { ONLINE } else { OFFLINE })?;
                self.board_mut(board).online = Some(online);
                Ok(Ingested::Status { board, online })
            }
        }
    }

    /// The clocks to ask, at `now_ms`, to send their events again, and
    /// from where: each board that has lacked events for
    /// [`RESEND_AFTER_MS`], at most once every [`RESEND_EVERY_MS`]. The
    /// runner publishes each on the board's `…/resend`.
    pub fn resend_requests(&mut self, now_ms: u64) -> Vec<(u32, ResendRequest)> {
        let mut out = Vec::new();
        for (board, entry) in &mut self.boards {
            let Some(request) = entry.missing() else {
                entry.behind_since = None;
                continue;
            };
            let since = *entry.behind_since.get_or_insert(now_ms);
            let due = now_ms.saturating_sub(since) >= RESEND_AFTER_MS
                && entry
                    .asked_at
                    .is_none_or(|at| now_ms.saturating_sub(at) >= RESEND_EVERY_MS);
            if due {
                entry.asked_at = Some(now_ms);
                out.push((*board, request));
            }
        }
        self.counters.resends += out.len() as u64;
        out
    }

    /// Whether an event of `game`, `seq` on `board` would take the board
    /// over its quotas: a new game beyond [`Quotas::games_per_board`], or
    /// one more held-back event beyond [`Quotas::held_per_board`].
    fn over_quota(&self, board: u32, game: i64, seq: i64) -> Option<Dropped> {
        let entry = self.boards.get(&board)?;
        if entry.events >= self.quotas.events_per_board {
            return Some(Dropped::QuotaEvents);
        }
        let Some(known) = entry.games.get(&game) else {
            if entry.games.len() >= self.quotas.games_per_board {
                return Some(Dropped::QuotaGames);
            }
            return None;
        };
        let held: usize = entry.games.values().map(ReportedGame::pending).sum();
        let next = known.lines().len() as i64;
        (seq > next && held >= self.quotas.held_per_board).then_some(Dropped::QuotaHeld)
    }

    /// The boards the hall knows, in order.
    pub fn boards(&self) -> Vec<u32> {
        let mut boards: Vec<u32> = self.boards.keys().copied().collect();
        for board in self.round.pairings.keys() {
            if !self.boards.contains_key(board) {
                boards.push(*board);
            }
        }
        boards.sort_unstable();
        boards
    }

    /// Board `board` at a glance: `None` if the hall does not know it (no
    /// message and no pairing).
    pub fn board_view(&self, board: u32) -> Option<BoardView> {
        let pairing = self.round.pairings.get(&board).cloned();
        let entry = self.boards.get(&board);
        if entry.is_none() && pairing.is_none() {
            return None;
        }
        let pairing = pairing.unwrap_or_default();
        let mut view = BoardView {
            board,
            game: None,
            white: pairing.white,
            black: pairing.black,
            fen: None,
            to_move: None,
            white_ms: None,
            black_ms: None,
            running: None,
            moves: 0,
            last_move: None,
            last_ruling: None,
            unacknowledged: 0,
            result: None,
            result_text: None,
            flag: None,
            online: None,
            events: 0,
            waiting: 0,
            fault: None,
            from_state: false,
            version: 0,
        };
        let Some(entry) = entry else {
            return Some(view);
        };
        view.online = entry.online;
        view.version = entry.version;
        let current = entry.current();
        // The game rebuilt from its events whenever the hall has any line
        // of one: a retained state is the clock's own account, unchecked
        // against the laws, so it never stands in for events the hall has
        // (a forged one would replace a finished game on the page). It
        // shows only a board the hall has no event of yet.
        let complete = entry
            .games
            .iter()
            .rev()
            .find(|(_, game)| !game.lines().is_empty())
            .map(|(id, game)| (*id, game));
        match (complete, &entry.state) {
            (Some((id, game)), _) => {
                // The players of the game shown, as fixed at its start.
                if let Some(facts) = entry.facts.get(&id) {
                    view.white = facts.white.clone();
                    view.black = facts.black.clone();
                }
                // Counted, and only the last move and ruling in words:
                // the view is built again at every change of the board.
                let (moves, last_move) = game.moves_count_and_last();
                let acks = &entry.acks;
                view.game = Some(id);
                view.fen = game.fen();
                view.to_move = game.to_move().map(words::side_keyword);
                if let Some((white, black)) = game.clocks() {
                    view.white_ms = Some(white);
                    view.black_ms = Some(black);
                }
                view.running = game.running();
                view.moves = moves;
                view.last_move = last_move;
                view.unacknowledged = game
                    .ruling_indices()
                    .filter(|index| !acks.contains_key(&(id, *index)))
                    .count();
                view.last_ruling = game
                    .ruling_indices()
                    .next_back()
                    .and_then(|index| game.ruling(index))
                    .map(|entry| self.ruling_view(board, id, entry));
                if let Some((token, words)) = game.result() {
                    view.result = Some(token.to_owned());
                    view.result_text = Some(words);
                }
                view.flag = game.flag().map(words::side_keyword);
                view.events = game.lines().len();
                view.waiting = game.pending();
                view.fault = game.fault().map(|f| f.to_string());
            }
            (None, Some(state)) => {
                view.game = Some(state.game);
                view.fen = Some(state.fen.clone());
                view.to_move = state
                    .fen
                    .split(' ')
                    .nth(1)
                    .and_then(|c| c.parse().ok())
                    .and_then(Color::from_char)
                    .map(words::side_keyword);
                view.white_ms = Some(state.white_ms);
                view.black_ms = Some(state.black_ms);
                view.running = state.running;
                view.moves = state.moves.len();
                view.last_move = state.moves.last().cloned();
                view.last_ruling = state.last_ruling.clone().map(|effect| {
                    // Read once through the transcript, worded as the
                    // hall's own log words it.
                    let typed = transcript::parse_effect_line(&effect.to_string());
                    RulingView {
                        index: 0,
                        t: typed.as_ref().map_or(0, |(t, _)| *t),
                        text: typed.map_or_else(
                            |_| "ruling".to_owned(),
                            |(_, effect)| words::log_text(&effect, words::Language::English),
                        ),
                        effect,
                        acknowledged_by: None,
                    }
                });
                // The result only ever from the events: a state's word
                // for it is not shown.
                view.from_state = true;
                if let Some((_, game)) = current {
                    view.waiting = game.pending();
                }
            }
            (None, None) => {}
        }
        Some(view)
    }

    /// Every board at a glance, in order.
    pub fn board_views(&self) -> Vec<BoardView> {
        self.boards()
            .into_iter()
            .filter_map(|b| self.board_view(b))
            .collect()
    }

    /// The boards changed since the hall's change counter read `since`.
    pub fn changed_since(&self, since: u64) -> Vec<BoardView> {
        self.boards
            .iter()
            .filter(|(_, b)| b.version > since)
            .filter_map(|(n, _)| self.board_view(*n))
            .collect()
    }

    fn rulings_of(&self, board: u32, id: i64, game: &ReportedGame) -> Vec<RulingView> {
        game.rulings()
            .into_iter()
            .map(|entry| self.ruling_view(board, id, entry))
            .collect()
    }

    /// A ruling of game `id` on `board` with who acknowledged it.
    fn ruling_view(&self, board: u32, id: i64, entry: RulingEntry) -> RulingView {
        let RulingEntry {
            index,
            t,
            text,
            effect,
        } = entry;
        RulingView {
            index,
            t,
            text,
            effect,
            acknowledged_by: self
                .boards
                .get(&board)
                .and_then(|b| b.acks.get(&(id, index)).cloned()),
        }
    }

    /// The full log of rulings of a board's current game.
    pub fn rulings(&self, board: u32) -> Option<(i64, Vec<RulingView>)> {
        let (id, game) = self.boards.get(&board)?.current()?;
        Some((id, self.rulings_of(board, id, game)))
    }

    /// `arbiter` acknowledges ruling `index` of game `game` on `board`, at
    /// `now_ms`: `Ok(false)` if there is no such ruling or it already was.
    /// It changes nothing in the game.
    pub fn acknowledge(
        &mut self,
        board: u32,
        game: i64,
        index: usize,
        arbiter: &str,
        now_ms: u64,
    ) -> rusqlite::Result<bool> {
        let exists = self
            .boards
            .get(&board)
            .and_then(|b| b.games.get(&game))
            .is_some_and(|g| g.rulings().iter().any(|r| r.index == index));
        if !exists
            || !self
                .store
                .acknowledge(board, game, index, arbiter, now_ms)?
        {
            return Ok(false);
        }
        self.board_mut(board)
            .acks
            .insert((game, index), arbiter.to_owned());
        Ok(true)
    }

    /// Fixes the facts of `game` on `board` as the round stands now.
    fn fix_facts(&mut self, board: u32, game: i64) -> rusqlite::Result<()> {
        let tags = self.tags(board);
        self.store.fix_facts(board, game, &tags)?;
        self.board_mut(board).facts.entry(game).or_insert(tags);
        Ok(())
    }

    /// A game's facts: as fixed at its start, else as the round stands.
    fn game_tags(&self, board: u32, game: i64) -> Tags {
        self.boards
            .get(&board)
            .and_then(|entry| entry.facts.get(&game))
            .cloned()
            .unwrap_or_else(|| self.tags(board))
    }

    fn tags(&self, board: u32) -> Tags {
        let mut tags = self.round.tags.clone();
        if let Some(pairing) = self.round.pairings.get(&board) {
            tags.white = pairing.white.clone();
            tags.black = pairing.black.clone();
        }
        tags
    }

    /// The PGN of game `game` on `board` (its current game if `None`).
    pub fn pgn(&mut self, board: u32, game: Option<i64>) -> Option<String> {
        self.pgn_for(board, game, Audience::Arbiter)
    }

    /// The same, written for `audience` ([`Audience::Public`]: without
    /// the rulings).
    pub fn pgn_for(&mut self, board: u32, game: Option<i64>, audience: Audience) -> Option<String> {
        let id = match game {
            Some(id) => id,
            None => *self.boards.get(&board)?.games.keys().next_back()?,
        };
        let tags = self.game_tags(board, id);
        let game = self.boards.get_mut(&board)?.games.get_mut(&id)?;
        if game.lines().is_empty() {
            return None;
        }
        Some(game.pgn_for(&tags, audience).to_owned())
    }

    /// Imports round `round`'s pairings (parsed from `source`, a `format`
    /// file) into the store, and plays that round from now on: the games
    /// that start after it carry its names, the games already started
    /// keep the facts fixed at their start.
    pub fn import_pairings(
        &mut self,
        round: u32,
        format: &str,
        source: &str,
        boards: &[BoardPairing],
        now_ms: u64,
    ) -> rusqlite::Result<()> {
        self.store
            .import_round(round, format, source, boards, now_ms)?;
        self.reload_round()?;
        Ok(())
    }

    /// Plays the round imported last, if the store has one newer than the
    /// round the hall plays (an import by `tocada-hall pairings` in
    /// another process): `true` if the round changed.
    pub fn reload_round(&mut self) -> rusqlite::Result<bool> {
        let Some((round, seq)) = self.store.newest_import()? else {
            return Ok(false);
        };
        if self.imported == Some(seq) {
            return Ok(false);
        }
        let pairings = self.store.pairings(round)?;
        self.imported = Some(seq);
        self.round.tags.round = round.to_string();
        let old: Vec<u32> = self.round.pairings.keys().copied().collect();
        self.round.pairings = pairings
            .into_iter()
            .map(|p| {
                (
                    p.board,
                    Pairing {
                        white: p.white.name,
                        black: p.black.name,
                    },
                )
            })
            .collect();
        // Every board whose names may change is shown anew.
        let boards: Vec<u32> = old
            .into_iter()
            .chain(self.round.pairings.keys().copied())
            .collect();
        for board in boards {
            self.board_mut(board);
        }
        Ok(true)
    }

    /// Which round's pairings the hall plays: changes with every import
    /// (`None`: the configuration's).
    pub fn pairings_version(&self) -> Option<i64> {
        self.imported
    }

    /// Each board's pairing as its clock is told it (`…/pairing`): the
    /// round imported last, with ratings and FIDE ids, else the
    /// configuration's names.
    pub fn clock_pairings(
        &self,
    ) -> rusqlite::Result<BTreeMap<u32, crate::broadcast::BoardPairing>> {
        use crate::broadcast::printable;
        use crate::broadcast::{BoardPairing as ClockPairing, PlayerOnBoard};
        // Cut as the clock reads them (BoardPairing::parse): a payload
        // over its limit would be refused, and the clock left with
        // another round's players.
        let round = printable(&self.round.tags.round, ClockPairing::MAX_ROUND);
        let imported = match (self.imported, self.round.tags.round.parse::<u32>()) {
            (Some(_), Ok(number)) => Some(self.store.pairings(number)?),
            _ => None,
        };
        let player = |p: &super::pairings::PairedPlayer| PlayerOnBoard {
            name: printable(&p.name, ClockPairing::MAX_NAME),
            rating: p.rating,
            fide_id: p.fide_id,
        };
        Ok(match imported {
            Some(boards) => boards
                .iter()
                .map(|p| {
                    let pairing = ClockPairing {
                        round: round.clone(),
                        board: p.board,
                        white: player(&p.white),
                        black: player(&p.black),
                    };
                    (p.board, pairing)
                })
                .collect(),
            None => self
                .round
                .pairings
                .iter()
                .map(|(board, p)| {
                    let name = |name: &str| PlayerOnBoard {
                        name: printable(name, ClockPairing::MAX_NAME),
                        ..PlayerOnBoard::default()
                    };
                    let pairing = ClockPairing {
                        round: round.clone(),
                        board: *board,
                        white: name(&p.white),
                        black: name(&p.black),
                    };
                    (*board, pairing)
                })
                .collect(),
        })
    }

    /// The round the hall plays now (its `Round` tag).
    pub fn round_number(&self) -> &str {
        &self.round.tags.round
    }

    /// Each board's newest game fixed in round `round` (its `Round` tag).
    fn games_of_round(&self, round: &str) -> BTreeMap<u32, (i64, Tags)> {
        let mut out = BTreeMap::new();
        for (board, entry) in &self.boards {
            let newest = entry
                .facts
                .iter()
                .filter(|(game, tags)| {
                    tags.round == round
                        && entry.games.get(game).is_some_and(|g| !g.lines().is_empty())
                })
                .max_by_key(|(game, _)| **game);
            if let Some((game, tags)) = newest {
                out.insert(*board, (*game, tags.clone()));
            }
        }
        out
    }

    /// Round `round`'s results, board by board: the imported pairings of
    /// the round with the result of the game each board played in it (as
    /// fixed at its start), or, for a round never imported, every game of
    /// that round with the names fixed at its start.
    pub fn round_results(&self, round: u32) -> rusqlite::Result<Vec<BoardResult>> {
        let games = self.games_of_round(&round.to_string());
        let result_of = |board: u32| {
            let (game, _) = games.get(&board)?;
            let (token, _) = self.boards.get(&board)?.games.get(game)?.result()?;
            Some(token.to_owned())
        };
        let pairings = self.store.pairings(round)?;
        if !pairings.is_empty() {
            return Ok(pairings
                .into_iter()
                .map(|p| BoardResult {
                    board: p.board,
                    result: result_of(p.board),
                    white: p.white,
                    black: p.black,
                })
                .collect());
        }
        Ok(games
            .iter()
            .map(|(board, (_, tags))| BoardResult {
                board: *board,
                white: PairedPlayer {
                    name: tags.white.clone(),
                    ..PairedPlayer::default()
                },
                black: PairedPlayer {
                    name: tags.black.clone(),
                    ..PairedPlayer::default()
                },
                result: result_of(*board),
            })
            .collect())
    }

    /// Round `round`'s PGN: each board's game of that round, board by
    /// board, one blank line between games.
    pub fn pgn_of_round(&mut self, round: u32) -> String {
        let games = self.games_of_round(&round.to_string());
        let mut out = String::new();
        for (board, (game, _)) in games {
            if let Some(pgn) = self.pgn(board, Some(game)) {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(pgn.trim_end_matches('\n'));
                out.push('\n');
            }
        }
        out
    }

    /// Round `round`'s results as `format` writes them.
    pub fn results_text(&mut self, round: u32, format: ResultsFormat) -> rusqlite::Result<String> {
        Ok(match format {
            ResultsFormat::Pgn => self.pgn_of_round(round),
            ResultsFormat::Csv => results::csv(&self.round_results(round)?),
            ResultsFormat::Trf => {
                let source = self
                    .store
                    .rounds()?
                    .into_iter()
                    .find(|r| r.round == round && r.format == "trf")
                    .map(|r| r.source);
                results::trf(source.as_deref(), round, &self.round_results(round)?)
            }
        })
    }

    /// The round's PGN: every board's current game, board by board, one
    /// blank line between games.
    pub fn round_pgn(&mut self) -> String {
        self.round_pgn_for(Audience::Arbiter)
    }

    /// The same, written for `audience`.
    pub fn round_pgn_for(&mut self, audience: Audience) -> String {
        let mut out = String::new();
        for board in self.boards() {
            if let Some(pgn) = self.pgn_for(board, None, audience) {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(pgn.trim_end_matches('\n'));
                out.push('\n');
            }
        }
        out
    }
}

/// Whether a retained state can be a clock's: its game and seq in range,
/// a FEN shakmaty reads as a legal position, clocks of at most
/// [`MAX_CLOCK_MS`], at most [`MAX_STATE_MOVES`] moves each of SAN's
/// letters, and a result, if any, one of PGN's. Otherwise why not.
fn check_state(state: &BoardState) -> Result<(), String> {
    if !(0..=MAX_GAME).contains(&state.game) || !(0..=MAX_SEQ).contains(&state.seq) {
        return Err("game or seq out of range".to_owned());
    }
    let fen: shakmaty::fen::Fen = state
        .fen
        .parse()
        .map_err(|err| format!("FEN {}: {err}", capped(&state.fen)))?;
    fen.into_position::<shakmaty::Chess>(shakmaty::CastlingMode::Standard)
        .map_err(|err| format!("FEN {}: {err}", capped(&state.fen)))?;
    if state.white_ms > MAX_CLOCK_MS || state.black_ms > MAX_CLOCK_MS {
        return Err(format!("a clock over {MAX_CLOCK_MS} ms"));
    }
    if state.moves.len() > MAX_STATE_MOVES
        || state
            .moves
            .iter()
            .any(|m| m.is_empty() || m.len() > 10 || m.parse::<shakmaty::san::SanPlus>().is_err())
    {
        return Err("moves that are not SAN".to_owned());
    }
    if let Some(result) = &state.result
        && !["1-0", "0-1", "1/2-1/2", "*"].contains(&result.as_str())
    {
        return Err(format!("result {}", capped(result)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;
    use crate::gesture::{Style, script_from_sans};
    use crate::transcript::{Event, Line, input_to_json, line_to_json};
    use shakmaty::Chess;

    /// The lines of a short real game (the Opera game's first moves), as a
    /// clock stores them: the setup, then every hand on the board.
    fn game_lines() -> Vec<String> {
        let rules = Rules {
            time_control: "300+2".parse().unwrap(),
            ..Rules::default()
        };
        let script = script_from_sans(
            Chess::default(),
            ["e4", "e5", "Nf3", "d6", "d4", "Bg4"],
            Style::all().next().unwrap(),
            7,
        )
        .unwrap();
        let mut lines = vec![line_to_json(&Line {
            t: 0,
            event: Event::Setup(Box::new(rules)),
        })];
        lines.extend(script.events().iter().map(|&(t, i)| input_to_json(t, &i)));
        lines
    }

    fn message(game: i64, seq: i64, line: &str) -> Vec<u8> {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        serde_json::to_vec(&EventMessage {
            game,
            seq,
            t: value["t"].as_u64().unwrap(),
            line: value,
            effects: vec![],
        })
        .unwrap()
    }

    fn hall() -> Hall {
        let mut round = Round::default();
        round.tags.event = "Club open".to_owned();
        round.pairings.insert(
            3,
            Pairing {
                white: "Morphy, Paul".to_owned(),
                black: "Isouard, Charles".to_owned(),
            },
        );
        Hall::with_store("open", HallStore::in_memory("open").unwrap(), round).unwrap()
    }

    const EVENTS: &str = "tocada/open/3/events";

    #[test]
    fn every_event_once_in_any_order_makes_the_game_the_clock_played() {
        let lines = game_lines();
        let mut hall = hall();
        // Reversed, and every event twice: QoS 1 after a broker restart.
        for (seq, line) in lines.iter().enumerate().rev() {
            for _ in 0..2 {
                hall.receive(EVENTS, &message(5, seq as i64, line), 1)
                    .unwrap();
            }
        }
        assert_eq!(hall.counters().events, lines.len() as u64);
        assert_eq!(hall.counters().duplicates, lines.len() as u64);
        assert_eq!(hall.store().count_events().unwrap(), lines.len() as u64);
        let view = hall.board_view(3).unwrap();
        assert_eq!(view.game, Some(5));
        assert_eq!(view.white, "Morphy, Paul");
        assert_eq!(view.moves, 6);
        assert_eq!(view.last_move.as_deref(), Some("Bg4"));
        assert_eq!(view.to_move, Some("white"));
        assert_eq!(view.running, Some(Running::White));
        assert!(!view.from_state);
        assert_eq!(view.waiting, 0);
        let pgn = hall.pgn(3, None).unwrap();
        assert!(pgn.contains("[White \"Morphy, Paul\"]"), "{pgn}");
        assert!(pgn.contains("[Event \"Club open\"]"), "{pgn}");
        // Every move with its clock.
        assert_eq!(pgn.matches("[%clk ").count(), 6, "{pgn}");
        assert!(pgn.contains("3. d4 {[%clk"), "{pgn}");
        // The same PGN as the clock's own export of those lines.
        let tags = hall.tags(3);
        assert_eq!(
            pgn,
            crate::transcript::pgn_from_lines(&lines, tags).unwrap()
        );
        assert_eq!(hall.round_pgn(), pgn);
    }

    #[test]
    fn a_burst_in_one_transaction_is_taken_as_each_message_alone_and_stored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.sqlite");
        let lines = game_lines();
        // Out of order, a duplicate, and a message that is not one.
        let mut payloads: Vec<Vec<u8>> = lines
            .iter()
            .enumerate()
            .rev()
            .map(|(seq, line)| message(2, seq as i64, line))
            .collect();
        payloads.push(message(2, 3, &lines[3]));
        payloads.push(b"{not json".to_vec());
        let messages: Vec<(&str, &[u8])> = payloads.iter().map(|p| (EVENTS, &p[..])).collect();
        let one_by_one: Vec<Ingested> = {
            let mut alone = hall();
            messages
                .iter()
                .map(|(topic, payload)| alone.receive(topic, payload, 1).unwrap())
                .collect()
        };
        {
            let mut hall = Hall::open("open", &path, Round::default()).unwrap();
            let taken: Vec<Ingested> = hall
                .receive_batch(&messages, 1)
                .unwrap()
                .into_iter()
                .map(Result::unwrap)
                .collect();
            assert_eq!(taken, one_by_one);
            assert!(
                matches!(taken.last(), Some(Ingested::Dropped(Dropped::Payload(_)))),
                "{taken:?}"
            );
            assert_eq!(hall.counters().duplicates, 1);
            assert_eq!(hall.board_view(3).unwrap().moves, 6);
        }
        // Committed: a hall started again on the store has every event.
        let hall = Hall::open("open", &path, Round::default()).unwrap();
        assert_eq!(hall.store().count_events().unwrap(), lines.len() as u64);
        assert_eq!(
            hall.board_view(3).unwrap().last_move.as_deref(),
            Some("Bg4")
        );
    }

    #[test]
    fn a_restarted_hall_rebuilds_every_game_from_its_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.sqlite");
        let lines = game_lines();
        {
            let mut hall = Hall::open("open", &path, Round::default()).unwrap();
            for (seq, line) in lines.iter().enumerate().skip(1) {
                hall.receive(EVENTS, &message(1, seq as i64, line), 1)
                    .unwrap();
            }
            // The setup line missing: nothing fed yet.
            assert_eq!(hall.board_view(3).unwrap().moves, 0);
        }
        let mut hall = Hall::open("open", &path, Round::default()).unwrap();
        let got = hall.receive(EVENTS, &message(1, 0, &lines[0]), 2).unwrap();
        assert_eq!(
            got,
            Ingested::Event {
                board: 3,
                game: 1,
                seq: 0,
                fed: lines.len()
            }
        );
        assert_eq!(hall.board_view(3).unwrap().moves, 6);
        assert_eq!(
            hall.receive(EVENTS, &message(1, 4, &lines[4]), 3).unwrap(),
            Ingested::Duplicate { board: 3 }
        );
    }

    #[test]
    fn bad_messages_are_counted_and_dropped() {
        let mut hall = hall();
        let good = message(1, 0, &game_lines()[0]);
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("tocada/open/3/moves", good.clone(), "topic"),
            ("tocada/other/3/events", good.clone(), "other_hall"),
            (EVENTS, b"not json".to_vec(), "payload"),
            (EVENTS, vec![0xff, 0xfe], "payload"),
            (EVENTS, vec![b' '; MAX_PAYLOAD + 1], "too_large"),
            (EVENTS, message(1, -1, r#"{"t":0,"ev":"pause"}"#), "seq"),
            (
                EVENTS,
                message(1, MAX_SEQ + 1, r#"{"t":0,"ev":"pause"}"#),
                "seq",
            ),
            (EVENTS, message(1, 0, r#"{"t":0,"ev":"jump"}"#), "line"),
            (
                EVENTS,
                br#"{"game":1,"seq":0,"t":5,"line":{"t":0,"ev":"pause"},"effects":[]}"#.to_vec(),
                "line",
            ),
            (
                EVENTS,
                br#"{"game":1,"seq":0,"t":0,"line":"pause","effects":[]}"#.to_vec(),
                "line",
            ),
            ("tocada/open/3/status", b"maybe".to_vec(), "payload"),
            ("tocada/open/3/state", b"{}".to_vec(), "payload"),
        ];
        for (topic, payload, reason) in &cases {
            match hall.receive(topic, payload, 1).unwrap() {
                Ingested::Dropped(why) => assert_eq!(why.name(), *reason, "{topic} {why}"),
                other => panic!("{topic}: {other:?}"),
            }
        }
        assert_eq!(
            hall.counters().dropped.values().sum::<u64>(),
            cases.len() as u64
        );
        assert_eq!(hall.counters().events, 0);
        assert_eq!(hall.store().count_events().unwrap(), 0);
        // Still takes good messages.
        assert!(matches!(
            hall.receive(EVENTS, &good, 1).unwrap(),
            Ingested::Event { fed: 1, .. }
        ));
    }

    #[test]
    fn a_board_known_only_by_its_retained_state_shows_that_state() {
        let mut hall = hall();
        let state = BoardState {
            game: 4,
            seq: 90,
            fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".to_owned(),
            white_ms: 290_000,
            black_ms: 288_000,
            running: Some(Running::White),
            last_ruling: Some(serde_json::json!(
                {"t":61000,"effect":"flag","side":"black"}
            )),
            result: None,
            moves: vec!["e4".to_owned(), "e5".to_owned()],
        };
        let payload = serde_json::to_vec(&state).unwrap();
        assert_eq!(
            hall.receive("tocada/open/7/state", &payload, 1).unwrap(),
            Ingested::State { board: 7 }
        );
        assert_eq!(
            hall.receive("tocada/open/7/state", &payload, 2).unwrap(),
            Ingested::StaleState { board: 7 }
        );
        hall.receive("tocada/open/7/status", b"offline", 3).unwrap();
        let view = hall.board_view(7).unwrap();
        assert!(view.from_state);
        assert_eq!(view.moves, 2);
        assert_eq!(view.black_ms, Some(288_000));
        assert_eq!(view.online, Some(false));
        // The side to move from the FEN's letter, as the files spell it.
        assert_eq!(view.to_move, Some("white"));
        // The last ruling in the hall's own words, at its instant.
        let ruling = view.last_ruling.unwrap();
        assert_eq!((ruling.t, ruling.text.as_str()), (61_000, "Flag: Black"));
        // Board 3 is in the pairings without a message yet.
        assert_eq!(hall.boards(), [3, 7]);
    }

    fn state(game: i64, fen: &str, white_ms: u64, result: Option<&str>) -> Vec<u8> {
        serde_json::to_vec(&BoardState {
            game,
            seq: 900,
            fen: fen.to_owned(),
            white_ms,
            black_ms: 1000,
            running: None,
            last_ruling: None,
            result: result.map(str::to_owned),
            moves: vec!["e4".to_owned()],
        })
        .unwrap()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_clocks_pairing_is_cut_to_what_the_clock_reads() {
        use crate::broadcast::BoardPairing as ClockPairing;
        let mut hall = hall();
        // Long names (under the import's cap, over the clock's), with
        // characters of four bytes: uncut, the payload is over the
        // clock's limit and refused.
        let long = "\u{1F600}".repeat(super::super::pairings::MAX_NAME);
        let csv = format!("board,white,black\n4,{long},{long}\n");
        let boards = super::super::pairings::parse_csv(&csv).unwrap();
        hall.import_pairings(2, "csv", &csv, &boards, 2).unwrap();
        let pairings = hall.clock_pairings().unwrap();
        let payload = serde_json::to_vec(&pairings[&4]).unwrap();
        assert!(
            payload.len() <= ClockPairing::MAX_BYTES,
            "{}",
            payload.len()
        );
        let read = ClockPairing::parse(&payload, 4).unwrap().unwrap();
        assert_eq!(read.white.name.chars().count(), ClockPairing::MAX_NAME);
        assert_eq!(read, pairings[&4]);
    }

    #[test]
    fn an_imported_round_names_the_games_that_start_after_it_only() {
        let lines = game_lines();
        let mut hall = hall();
        hall.receive(EVENTS, &message(5, 0, &lines[0]), 1).unwrap();
        let csv = "board,white,black\n3,Anderssen,Kieseritzky\n";
        let boards = super::super::pairings::parse_csv(csv).unwrap();
        hall.import_pairings(2, "csv", csv, &boards, 2).unwrap();
        assert_eq!(hall.round_number(), "2");
        // The game under way keeps its players and its round.
        let view = hall.board_view(3).unwrap();
        assert_eq!(
            (view.white.as_str(), view.black.as_str()),
            ("Morphy, Paul", "Isouard, Charles")
        );
        // The board's next game is round 2's, with round 2's names.
        for (seq, line) in lines.iter().enumerate() {
            hall.receive(EVENTS, &message(6, seq as i64, line), 3)
                .unwrap();
        }
        let view = hall.board_view(3).unwrap();
        assert_eq!(
            (view.white.as_str(), view.black.as_str()),
            ("Anderssen", "Kieseritzky")
        );
        let pgn = hall.pgn(3, Some(6)).unwrap();
        assert!(
            pgn.contains("[Round \"2\"]") && pgn.contains("[White \"Anderssen\"]"),
            "{pgn}"
        );
        assert!(
            hall.pgn(3, Some(5))
                .unwrap()
                .contains("[White \"Morphy, Paul\"]")
        );
        // Round 2's results: its pairing, the game not over.
        assert_eq!(
            hall.results_text(2, ResultsFormat::Csv).unwrap(),
            "board,white,black,result\n3,Anderssen,Kieseritzky,*\n"
        );
        assert_eq!(hall.pgn_of_round(2), pgn);
        // Imported again in the same store (a restarted hall), the round
        // stays round 2 and is not applied twice.
        assert!(!hall.reload_round().unwrap());
        assert_eq!(hall.store().rounds().unwrap().len(), 1);
    }

    #[test]
    fn a_forged_state_never_replaces_the_events_nor_sticks() {
        let lines = game_lines();
        let mut hall = hall();
        for (seq, line) in lines.iter().enumerate() {
            hall.receive(EVENTS, &message(5, seq as i64, line), 1)
                .unwrap();
        }
        const STATE: &str = "tocada/open/3/state";
        let refused =
            |hall: &mut Hall, payload: Vec<u8>| match hall.receive(STATE, &payload, 2).unwrap() {
                Ingested::Dropped(Dropped::State(_)) => {}
                other => panic!("{other:?}"),
            };
        // An HTML FEN, a 27 777-hour clock, a made-up result, i64::MAX.
        refused(
            &mut hall,
            state(99, "<script>alert(1)</script>", 1000, None),
        );
        refused(&mut hall, state(99, START, 27_777 * 3600 * 1000, None));
        refused(&mut hall, state(99, START, 1000, Some("2-0")));
        refused(&mut hall, state(i64::MAX, START, 1000, None));
        // A well-formed state of a game the hall has no event of is kept,
        // but the page still shows the events' game.
        assert_eq!(
            hall.receive(STATE, &state(99, START, 1000, Some("1-0")), 3)
                .unwrap(),
            Ingested::State { board: 3 }
        );
        let view = hall.board_view(3).unwrap();
        assert_eq!(view.game, Some(5));
        assert!(!view.from_state);
        assert_eq!(view.moves, 6);
        assert_eq!(view.result, None);
        // Unconfirmed by events, it does not stick: a lower game replaces it.
        assert_eq!(
            hall.receive(STATE, &state(6, START, 1000, None), 4)
                .unwrap(),
            Ingested::State { board: 3 }
        );
        // A board known only by its state never shows a result from it.
        hall.receive(
            "tocada/open/8/state",
            &state(2, START, 1000, Some("1-0")),
            5,
        )
        .unwrap();
        let view = hall.board_view(8).unwrap();
        assert!(view.from_state);
        assert_eq!((view.game, view.result), (Some(2), None));
    }

    #[test]
    fn a_board_over_its_quotas_loses_only_its_own_events() {
        let mut hall = hall();
        hall.set_quotas(Quotas {
            games_per_board: 3,
            held_per_board: 4,
            events_per_board: 10,
        });
        let setup = r#"{"t":0,"ev":"setup","time_control":"60+0"}"#;
        let pause = r#"{"t":0,"ev":"pause"}"#;
        for game in 1..=3 {
            assert!(matches!(
                hall.receive(EVENTS, &message(game, 0, setup), 1).unwrap(),
                Ingested::Event { .. }
            ));
        }
        assert_eq!(
            hall.receive(EVENTS, &message(4, 0, setup), 1).unwrap(),
            Ingested::Dropped(Dropped::QuotaGames)
        );
        // Held back: seq 2.. wait for seq 1.
        for seq in 2..6 {
            assert!(matches!(
                hall.receive(EVENTS, &message(1, seq, pause), 1).unwrap(),
                Ingested::Event { fed: 0, .. }
            ));
        }
        assert_eq!(
            hall.receive(EVENTS, &message(2, 7, pause), 1).unwrap(),
            Ingested::Dropped(Dropped::QuotaHeld)
        );
        // The next event in order still goes in and unblocks the held.
        assert!(matches!(
            hall.receive(EVENTS, &message(1, 1, pause), 1).unwrap(),
            Ingested::Event { fed: 5, .. }
        ));
        // Another board is untouched by board 3's quotas.
        assert!(matches!(
            hall.receive("tocada/open/4/events", &message(4, 0, setup), 1)
                .unwrap(),
            Ingested::Event { fed: 1, .. }
        ));
        // Board 3 has 8 events now: two more, then no more.
        for seq in 6..8 {
            assert!(matches!(
                hall.receive(EVENTS, &message(1, seq, pause), 1).unwrap(),
                Ingested::Event { fed: 1, .. }
            ));
        }
        assert_eq!(
            hall.receive(EVENTS, &message(1, 8, pause), 1).unwrap(),
            Ingested::Dropped(Dropped::QuotaEvents)
        );
        assert_eq!(hall.counters().dropped.get("quota_games"), Some(&1));
        assert_eq!(hall.counters().dropped.get("quota_held"), Some(&1));
        assert_eq!(hall.counters().dropped.get("quota_events"), Some(&1));
    }

    #[test]
    fn a_board_that_lacks_events_asks_its_clock_again_and_not_too_often() {
        let lines = game_lines();
        let mut hall = hall();
        // Events 0 and 1, then 4: 2 and 3 lost.
        for seq in [0, 1, 4] {
            hall.receive(EVENTS, &message(5, seq, &lines[seq as usize]), 0)
                .unwrap();
        }
        assert_eq!(hall.resend_requests(0), []);
        assert_eq!(hall.resend_requests(RESEND_AFTER_MS - 1), []);
        let want = ResendRequest { game: 5, seq: 2 };
        assert_eq!(hall.resend_requests(RESEND_AFTER_MS), [(3, want)]);
        assert_eq!(hall.resend_requests(RESEND_AFTER_MS + 1), []);
        assert_eq!(
            hall.resend_requests(RESEND_AFTER_MS + RESEND_EVERY_MS),
            [(3, want)]
        );
        for (seq, line) in lines.iter().enumerate().skip(2) {
            hall.receive(EVENTS, &message(5, seq as i64, line), 9)
                .unwrap();
        }
        assert_eq!(hall.resend_requests(60_000), []);
        // A retained state of a later game the hall has no event of: all
        // of it is asked for; its own request seen again is nothing.
        let later = state(6, START, 1000, None);
        hall.receive("tocada/open/3/state", &later, 60_000).unwrap();
        hall.resend_requests(60_000);
        assert_eq!(
            hall.resend_requests(60_000 + RESEND_AFTER_MS),
            [(3, ResendRequest { game: 6, seq: 0 })]
        );
        assert_eq!(
            hall.receive("tocada/open/3/resend", br#"{"game":6,"seq":0}"#, 1)
                .unwrap(),
            Ingested::Resend { board: 3 }
        );
        assert_eq!(hall.counters().resends, 3);
    }

    #[test]
    fn a_games_facts_are_fixed_at_its_start_and_a_later_round_never_rewrites_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hall.sqlite");
        let round = |number: &str, white: &str, black: &str| {
            let mut round = Round::default();
            round.tags.event = "Club open".to_owned();
            round.tags.round = number.to_owned();
            round.pairings.insert(
                3,
                Pairing {
                    white: white.to_owned(),
                    black: black.to_owned(),
                },
            );
            round
        };
        let lines = game_lines();
        {
            let mut hall =
                Hall::open("open", &path, round("3", "Morphy, Paul", "Isouard")).unwrap();
            for (seq, line) in lines.iter().enumerate() {
                hall.receive(EVENTS, &message(5, seq as i64, line), 1)
                    .unwrap();
            }
        }
        // The organiser edits the round and its pairings; the hall restarts.
        let mut hall = Hall::open("open", &path, round("4", "Anderssen", "Kieseritzky")).unwrap();
        let pgn = hall.pgn(3, Some(5)).unwrap();
        assert!(pgn.contains("[Round \"3\"]"), "{pgn}");
        assert!(pgn.contains("[White \"Morphy, Paul\"]"), "{pgn}");
        assert!(pgn.contains("[Black \"Isouard\"]"), "{pgn}");
        assert_eq!(hall.board_view(3).unwrap().white, "Morphy, Paul");
        // The board's next game is round 4's.
        hall.receive(EVENTS, &message(6, 0, &lines[0]), 2).unwrap();
        let pgn = hall.pgn(3, None).unwrap();
        assert!(pgn.contains("[Round \"4\"]"), "{pgn}");
        assert!(pgn.contains("[White \"Anderssen\"]"), "{pgn}");
        assert_eq!(hall.board_view(3).unwrap().white, "Anderssen");
        // And round 3's game still its own.
        assert!(hall.pgn(3, Some(5)).unwrap().contains("[Round \"3\"]"));
    }

    #[test]
    fn a_dropped_reason_quotes_at_most_a_few_hundred_bytes() {
        let mut hall = hall();
        let huge = format!(r#"{{"t":0,"ev":"{}"}}"#, "x".repeat(60_000));
        let Ingested::Dropped(why) = hall.receive(EVENTS, &message(1, 0, &huge), 1).unwrap() else {
            panic!("taken");
        };
        let text = why.to_string();
        assert!(text.len() < REASON_BYTES + 100, "{} bytes", text.len());
        assert!(text.contains("bytes)"), "{text}");
    }

    #[test]
    fn an_acknowledgement_names_its_arbiter_and_only_real_rulings_take_one() {
        let mut hall = hall();
        let lines = [
            r#"{"t":0,"ev":"setup","time_control":"60+0"}"#,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1000,"ev":"pause"}"#,
        ];
        for (seq, line) in lines.iter().enumerate() {
            hall.receive(EVENTS, &message(2, seq as i64, line), 1)
                .unwrap();
        }
        let (game, log) = hall.rulings(3).unwrap();
        assert_eq!(game, 2);
        assert_eq!(log.len(), 1);
        let index = log[0].index;
        assert_eq!(hall.board_view(3).unwrap().unacknowledged, 1);
        assert!(!hall.acknowledge(3, 2, index + 5, "ana", 9).unwrap());
        assert!(hall.acknowledge(3, 2, index, "ana", 9).unwrap());
        assert!(!hall.acknowledge(3, 2, index, "bea", 10).unwrap());
        let view = hall.board_view(3).unwrap();
        assert_eq!(view.unacknowledged, 0);
        assert_eq!(
            view.last_ruling.unwrap().acknowledged_by.as_deref(),
            Some("ana")
        );
        // The game is untouched by it.
        assert_eq!(
            hall.pgn(3, None).unwrap().matches("Clock paused").count(),
            1
        );
    }
}
