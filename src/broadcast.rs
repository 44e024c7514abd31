//! The messages a clock's publisher (`tocada publish`) sends a hall
//! (`tocada hall`) through an MQTT broker: the topics and the payloads,
//! written once for both ends.
//!
//! One topic tree per clock, `tocada/<hall>/<board>/`:
//!
//! - `…/events`, QoS 1, not retained: one [`EventMessage`] per stored
//!   event of a game, in order, with the effects replaying it produced.
//!   A message may arrive twice (QoS 1, a resend after a broker restart);
//!   `(game, seq)` says which event it is, so a duplicate is dropped.
//! - `…/state`, QoS 1, retained: the board's [`BoardState`] after the last
//!   event published, so a hall that subscribes late sees every board at
//!   once.
//! - `…/status`, QoS 1, retained: [`ONLINE`] when the publisher connects,
//!   and [`OFFLINE`], its last will, when the broker loses it.
//! - `…/claim`, QoS 1, retained: the [`Claim`] of the publisher that holds
//!   the board (cleared when it stops), and `…/contender`, retained, the
//!   claim of one that connected with the same credentials while it held
//!   it (two clocks sharing a board's credentials, a cloned SD card): the
//!   second is refused and the first says so.
//! - `…/pairing`, QoS 1, retained, from the hall to the clock: who plays
//!   on the board this round ([`BoardPairing`]), empty when nobody does.
//!
//! The payloads are JSON. A stored event keeps the replay line format of
//! [`crate::transcript`] (it is the line the daemon stored, verbatim), so a
//! hall can rebuild and check a game with the same transcript code.

use serde::{Deserialize, Serialize};

use crate::players::{Player, Players, PlayersError};

/// The retained payload of `…/status` while the publisher is connected.
pub const ONLINE: &str = "online";
/// The publisher's last will on `…/status`: the clock dropped.
pub const OFFLINE: &str = "offline";

/// A clock's place in the hall: the hall's name and the board number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardAddress {
    hall: String,
    board: u32,
}

/// Why a hall name cannot be part of a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HallNameError {
    /// The name is empty.
    Empty,
    /// The name is longer than [`BoardAddress::MAX_HALL_LEN`] bytes.
    TooLong,
    /// The name has a character outside `A-Z a-z 0-9 - _ .`: MQTT gives
    /// `/`, `+` and `#` meanings, and a name people type in a config file
    /// gains nothing from the rest.
    Character(char),
}

impl std::fmt::Display for HallNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HallNameError::Empty => f.write_str("the hall's name is empty"),
            HallNameError::TooLong => write!(
                f,
                "the hall's name is longer than {} bytes",
                BoardAddress::MAX_HALL_LEN
            ),
            HallNameError::Character(c) => write!(
                f,
                "the hall's name has {c:?}: use letters, digits, '-', '_' and '.'"
            ),
        }
    }
}

impl std::error::Error for HallNameError {}

impl BoardAddress {
    /// The longest hall name, in bytes.
    pub const MAX_HALL_LEN: usize = 64;

    /// The address of board `board` in hall `hall`, if the name can be a
    /// topic level.
    pub fn new(hall: &str, board: u32) -> Result<BoardAddress, HallNameError> {
        check_hall(hall)?;
        Ok(BoardAddress {
            hall: hall.to_owned(),
            board,
        })
    }

    /// The hall's name.
    pub fn hall(&self) -> &str {
        &self.hall
    }

    /// The board number.
    pub fn board(&self) -> u32 {
        self.board
    }

    /// `tocada/<hall>/<board>`, the root of this clock's topics.
    pub fn root(&self) -> String {
        format!("tocada/{}/{}", self.hall, self.board)
    }

    /// `tocada/<hall>/<board>/events`.
    pub fn events_topic(&self) -> String {
        format!("{}/events", self.root())
    }

    /// `tocada/<hall>/<board>/state`.
    pub fn state_topic(&self) -> String {
        format!("{}/state", self.root())
    }

    /// `tocada/<hall>/<board>/status`.
    pub fn status_topic(&self) -> String {
        format!("{}/status", self.root())
    }

    /// `tocada/<hall>/<board>/resend`: the hall asks this clock's
    /// publisher to send its events again from a place ([`ResendRequest`]).
    pub fn resend_topic(&self) -> String {
        format!("{}/resend", self.root())
    }

    /// `tocada/<hall>/<board>/claim`: which publisher holds the board.
    pub fn claim_topic(&self) -> String {
        format!("{}/claim", self.root())
    }

    /// `tocada/<hall>/<board>/contender`: a second publisher of the board.
    pub fn contender_topic(&self) -> String {
        format!("{}/contender", self.root())
    }

    /// `tocada/<hall>/<board>/pairing`: who plays on the board this round,
    /// from the hall.
    pub fn pairing_topic(&self) -> String {
        format!("{}/pairing", self.root())
    }

    /// The board a topic of this tree belongs to, and which of its topics
    /// it is: `("tocada/hall-a/12/events")` → board 12, [`Topic::Events`].
    pub fn parse_topic(topic: &str) -> Option<(BoardAddress, Topic)> {
        let mut levels = topic.split('/');
        if levels.next()? != "tocada" {
            return None;
        }
        let hall = levels.next()?;
        let board = levels.next()?;
        // A board number is written as it is read: no sign, no leading zeros.
        if board.is_empty() || (board.len() > 1 && board.starts_with('0')) {
            return None;
        }
        let board: u32 = board.parse().ok()?;
        let kind = match levels.next()? {
            "events" => Topic::Events,
            "state" => Topic::State,
            "status" => Topic::Status,
            "resend" => Topic::Resend,
            "claim" => Topic::Claim,
            "contender" => Topic::Contender,
            "pairing" => Topic::Pairing,
            _ => return None,
        };
        if levels.next().is_some() {
            return None;
        }
        Some((BoardAddress::new(hall, board).ok()?, kind))
    }
}

/// Which of a clock's topics a message came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// `…/events`: an [`EventMessage`].
    Events,
    /// `…/state`: a [`BoardState`].
    State,
    /// `…/status`: [`ONLINE`] or [`OFFLINE`].
    Status,
    /// `…/resend`: a [`ResendRequest`], from the hall to the clock.
    Resend,
    /// `…/claim`: the [`Claim`] of the publisher holding the board.
    Claim,
    /// `…/contender`: the [`Claim`] of a second publisher of the board.
    Contender,
    /// `…/pairing`: a [`BoardPairing`], from the hall to the clock.
    Pairing,
}

/// A publisher's word that it publishes a board, retained on `…/claim`
/// (and, from a second publisher with the same credentials, on
/// `…/contender`). A clone of a clock's SD card has the same
/// configuration, credentials and host name but not the same boot: the
/// instance is an id the publisher keeps for the boot (in its runtime
/// directory) with its state directory, the same for a publisher
/// restarted on the same clock, another on any other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// Which publisher: its id for this boot and its state directory.
    pub instance: String,
    /// The machine's host name, to tell people where it runs.
    pub host: String,
    /// New at each taking of the board (each connection of its holder):
    /// a claim rewritten with another nonce is a holder that is alive.
    /// Empty in a claim from a publisher that predates it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub nonce: String,
}

impl Claim {
    /// The largest claim read, bytes.
    pub const MAX_BYTES: usize = 1024;
    /// The longest instance or host kept, characters.
    pub const MAX_FIELD: usize = 128;

    /// The claim on a retained payload: `None` for an empty one (no
    /// claim), or one that is not a claim (too large, not JSON); the
    /// fields cut to [`Claim::MAX_FIELD`] printable characters, so a
    /// stranger's claim cannot flood a log line.
    pub fn parse(payload: &[u8]) -> Option<Claim> {
        if payload.is_empty() || payload.len() > Claim::MAX_BYTES {
            return None;
        }
        let claim: Claim = serde_json::from_slice(payload).ok()?;
        Some(Claim {
            instance: printable(&claim.instance, Claim::MAX_FIELD),
            host: printable(&claim.host, Claim::MAX_FIELD),
            nonce: printable(&claim.nonce, Claim::MAX_FIELD),
        })
    }
}

pub use crate::players::printable;

/// One player of a [`BoardPairing`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerOnBoard {
    /// The name, `Last, First`.
    pub name: String,
    /// The rating, if the pairing gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u16>,
    /// The FIDE id, if the pairing gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u64>,
}

/// Who plays on a board this round, as the hall publishes it retained on
/// `…/pairing` and the publisher hands it to the clock (the file
/// [`BoardPairing::parse`] reads back).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardPairing {
    /// The round, e.g. `3` (empty: not said).
    #[serde(default)]
    pub round: String,
    /// The board, from 1.
    pub board: u32,
    /// White.
    pub white: PlayerOnBoard,
    /// Black.
    pub black: PlayerOnBoard,
}

/// Why a pairing message or file is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingError {
    /// Over [`BoardPairing::MAX_BYTES`] bytes.
    TooLarge(usize),
    /// Not a pairing's JSON.
    Format(String),
    /// For another board than this clock's.
    OtherBoard {
        /// The board it names.
        named: u32,
        /// This clock's.
        ours: u32,
    },
    /// A name is empty once its control characters are dropped.
    NoName,
}

impl std::fmt::Display for PairingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairingError::TooLarge(bytes) => write!(
                f,
                "{bytes} bytes, over the {} a pairing may have",
                BoardPairing::MAX_BYTES
            ),
            PairingError::Format(why) => write!(f, "not a pairing: {why}"),
            PairingError::OtherBoard { named, ours } => {
                write!(f, "a pairing for board {named}, not this board {ours}")
            }
            PairingError::NoName => PlayersError::NoName.fmt(f),
        }
    }
}

impl std::error::Error for PairingError {}

impl BoardPairing {
    /// The largest pairing read, bytes.
    pub const MAX_BYTES: usize = 2048;
    /// The longest name kept, characters ([`Players::MAX_NAME`]).
    pub const MAX_NAME: usize = Players::MAX_NAME;
    /// The longest round kept, characters ([`Players::MAX_ROUND`]).
    pub const MAX_ROUND: usize = Players::MAX_ROUND;

    /// Reads a pairing for board `board` from `payload` (the hall's
    /// message, or the file the publisher wrote), bounded: at most
    /// [`BoardPairing::MAX_BYTES`], names and round cut to their caps
    /// with every control character dropped. `Ok(None)` for an empty
    /// payload: nobody plays on the board.
    pub fn parse(payload: &[u8], board: u32) -> Result<Option<BoardPairing>, PairingError> {
        if payload.len() > BoardPairing::MAX_BYTES {
            return Err(PairingError::TooLarge(payload.len()));
        }
        if payload.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let given: BoardPairing =
            serde_json::from_slice(payload).map_err(|err| PairingError::Format(err.to_string()))?;
        if given.board != board {
            return Err(PairingError::OtherBoard {
                named: given.board,
                ours: board,
            });
        }
        given.bounded().map(Some)
    }

    /// The pairing bounded as a clock keeps it ([`Players::bounded`]):
    /// names and round cut to their caps, every control character dropped,
    /// a rating or FIDE id that cannot be one left out.
    pub fn bounded(self) -> Result<BoardPairing, PairingError> {
        Ok(Players::from(self).bounded()?.into())
    }
}

impl From<PlayersError> for PairingError {
    fn from(err: PlayersError) -> PairingError {
        match err {
            PlayersError::NoName => PairingError::NoName,
        }
    }
}

impl From<PlayerOnBoard> for Player {
    fn from(p: PlayerOnBoard) -> Player {
        Player {
            name: p.name,
            rating: p.rating,
            fide_id: p.fide_id,
        }
    }
}

impl From<Player> for PlayerOnBoard {
    fn from(p: Player) -> PlayerOnBoard {
        PlayerOnBoard {
            name: p.name,
            rating: p.rating,
            fide_id: p.fide_id,
        }
    }
}

/// The pairing as the players a game begins under, as the clock's core
/// keeps them: the edges (the daemon reading the publisher's file, the
/// hall) convert here.
impl From<BoardPairing> for Players {
    fn from(p: BoardPairing) -> Players {
        Players {
            round: p.round,
            board: p.board,
            white: p.white.into(),
            black: p.black.into(),
        }
    }
}

impl From<Players> for BoardPairing {
    fn from(p: Players) -> BoardPairing {
        BoardPairing {
            round: p.round,
            board: p.board,
            white: p.white.into(),
            black: p.black.into(),
        }
    }
}

/// The hall's request to a clock's publisher, on `…/resend`: send every
/// event again from `seq` of `game` on. The hall asks when it lacks
/// events the clock has published (a gap, or a retained state ahead of
/// its events): a broker's queue for the hall that overflowed while
/// another clock flooded it drops them after the clock was told they
/// were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResendRequest {
    /// The game.
    pub game: i64,
    /// The first event missing.
    pub seq: i64,
}

/// The subscription that takes every clock of a hall.
pub fn hall_filter(hall: &str) -> Result<String, HallNameError> {
    check_hall(hall)?;
    Ok(format!("tocada/{hall}/+/+"))
}

fn check_hall(hall: &str) -> Result<(), HallNameError> {
    if hall.is_empty() {
        return Err(HallNameError::Empty);
    }
    if hall.len() > BoardAddress::MAX_HALL_LEN {
        return Err(HallNameError::TooLong);
    }
    match hall
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        Some(c) => Err(HallNameError::Character(c)),
        None => Ok(()),
    }
}

/// One stored event of a game, on `…/events`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventMessage {
    /// The game's id in the clock's store.
    pub game: i64,
    /// The event's place in its game, from 0, as the store numbers it.
    pub seq: i64,
    /// The event's instant in the game, milliseconds (its line's `t`).
    pub t: u64,
    /// The stored replay line, as a JSON object
    /// (`{"t":1500,"ev":"lift","sq":"e2"}`).
    pub line: serde_json::Value,
    /// The effects the event produced when the game was replayed up to it,
    /// each an effect line of the replay format
    /// (`{"t":1900,"effect":"move",…}`); often none.
    pub effects: Vec<serde_json::Value>,
}

/// Whose clock runs, in a [`BoardState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Running {
    /// White's clock runs.
    White,
    /// Black's clock runs.
    Black,
}

/// A board at a glance, retained on `…/state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardState {
    /// The game being played (or the last one played).
    pub game: i64,
    /// The `seq` of the last event this state includes.
    pub seq: i64,
    /// The position, as FEN.
    pub fen: String,
    /// White's time left, milliseconds, at the last event.
    pub white_ms: u64,
    /// Black's time left, milliseconds, at the last event.
    pub black_ms: u64,
    /// Whose clock runs; `None` before the start, while paused and after
    /// the end.
    pub running: Option<Running>,
    /// The last ruling (an effect line of the replay format other than a
    /// plain move), if any.
    pub last_ruling: Option<serde_json::Value>,
    /// The result (`1-0` `0-1` `1/2-1/2`) once the game is over.
    pub result: Option<String>,
    /// The moves played, in SAN, in order.
    pub moves: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pairing_is_read_bounded_and_a_hostile_one_is_refused() {
        let good = r#"{"round":"3","board":7,"white":{"name":"Morphy, Paul","rating":2690,"fide_id":1503014},"black":{"name":"Anderssen, Adolf"}}"#;
        let pairing = BoardPairing::parse(good.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(pairing.round, "3");
        assert_eq!(pairing.white.name, "Morphy, Paul");
        assert_eq!(pairing.white.fide_id, Some(1503014));
        assert_eq!(pairing.black.rating, None);
        // Empty: nobody is paired.
        assert_eq!(BoardPairing::parse(b"", 7), Ok(None));
        assert_eq!(BoardPairing::parse(b" \n", 7), Ok(None));
        // Another board's, too large, not JSON, a name of nothing.
        assert_eq!(
            BoardPairing::parse(good.as_bytes(), 8),
            Err(PairingError::OtherBoard { named: 7, ours: 8 })
        );
        let huge = format!(
            r#"{{"board":7,"white":{{"name":"{}"}},"black":{{"name":"B"}}}}"#,
            "x".repeat(BoardPairing::MAX_BYTES)
        );
        assert!(matches!(
            BoardPairing::parse(huge.as_bytes(), 7),
            Err(PairingError::TooLarge(_))
        ));
        assert!(matches!(
            BoardPairing::parse(b"<script>", 7),
            Err(PairingError::Format(_))
        ));
        let blank = r#"{"board":7,"white":{"name":"\u001b\u0007"},"black":{"name":"B"}}"#;
        assert_eq!(
            BoardPairing::parse(blank.as_bytes(), 7),
            Err(PairingError::NoName)
        );
        // Control characters dropped, names and round cut, absurd numbers
        // not kept.
        let long = format!(
            r#"{{"round":"{}","board":7,"white":{{"name":"A\u001b[2J{}","rating":65535,"fide_id":0}},"black":{{"name":"B\nC"}}}}"#,
            "9".repeat(40),
            "n".repeat(200)
        );
        let pairing = BoardPairing::parse(long.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(pairing.round.chars().count(), BoardPairing::MAX_ROUND);
        assert_eq!(pairing.white.name.chars().count(), BoardPairing::MAX_NAME);
        assert!(
            pairing.white.name.starts_with("A[2J"),
            "{:?}",
            pairing.white.name
        );
        assert_eq!(pairing.white.rating, None);
        assert_eq!(pairing.white.fide_id, None);
        assert_eq!(pairing.black.name, "BC");
    }

    #[test]
    fn a_pairing_converts_to_the_clocks_players_and_back_unchanged() {
        let message = r#"{"round":"3","board":7,"white":{"name":"Morphy, Paul","rating":2690,"fide_id":1503014},"black":{"name":"Anderssen, Adolf"}}"#;
        let pairing = BoardPairing::parse(message.as_bytes(), 7).unwrap().unwrap();
        let players = Players::from(pairing.clone());
        assert_eq!(players.white.name, "Morphy, Paul");
        assert_eq!(players.white.fide_id, Some(1503014));
        assert_eq!(players.black.rating, None);
        // Bounded by the one rule, the same either way round; the message
        // written back is the one read, byte for byte.
        assert_eq!(players.clone().bounded().unwrap(), players);
        let back = BoardPairing::from(players);
        assert_eq!(back, pairing);
        assert_eq!(serde_json::to_string(&back).unwrap(), message);
        assert_eq!(
            BoardPairing::from(Players::from(BoardPairing {
                round: "1".into(),
                board: 2,
                white: PlayerOnBoard::default(),
                black: PlayerOnBoard::default(),
            }))
            .bounded(),
            Err(PairingError::NoName)
        );
    }

    #[test]
    fn a_claim_is_read_bounded_and_an_empty_one_is_none() {
        let claim = Claim {
            instance: "boot:/var/lib/tocada-publish".into(),
            host: "clock-7".into(),
            nonce: "n1".into(),
        };
        let payload = serde_json::to_vec(&claim).unwrap();
        assert_eq!(Claim::parse(&payload), Some(claim));
        assert_eq!(Claim::parse(b""), None);
        assert_eq!(Claim::parse(b"online"), None);
        assert_eq!(Claim::parse(&vec![b' '; Claim::MAX_BYTES + 1]), None);
        let long = format!(r#"{{"instance":"{}","host":"h\u0000"}}"#, "i".repeat(500));
        let read = Claim::parse(long.as_bytes()).unwrap();
        assert_eq!(read.instance.len(), Claim::MAX_FIELD);
        assert_eq!(read.host, "h");
        // A claim from a publisher without a nonce is still read.
        let old = Claim::parse(br#"{"instance":"i","host":"h"}"#).unwrap();
        assert_eq!(old.nonce, "");
    }

    #[test]
    fn a_topic_is_read_back_as_the_board_and_kind_it_was_written_for() {
        let board = BoardAddress::new("open-2026", 12).unwrap();
        assert_eq!(board.events_topic(), "tocada/open-2026/12/events");
        for (topic, kind) in [
            (board.events_topic(), Topic::Events),
            (board.state_topic(), Topic::State),
            (board.status_topic(), Topic::Status),
            (board.claim_topic(), Topic::Claim),
            (board.contender_topic(), Topic::Contender),
            (board.pairing_topic(), Topic::Pairing),
        ] {
            assert_eq!(
                BoardAddress::parse_topic(&topic),
                Some((board.clone(), kind))
            );
        }
    }

    #[test]
    fn topics_outside_the_tree_are_not_read() {
        for topic in [
            "tocada/hall",
            "tocada/hall/12",
            "tocada/hall/012/events",
            "tocada/hall/-1/events",
            "tocada/hall/12/moves",
            "tocada/hall/12/events/extra",
            "other/hall/12/events",
            "tocada/ha+ll/12/events",
            "tocada//12/events",
        ] {
            assert_eq!(BoardAddress::parse_topic(topic), None, "{topic}");
        }
    }

    #[test]
    fn a_hall_name_with_mqtt_wildcards_is_refused() {
        assert_eq!(
            BoardAddress::new("a/b", 1),
            Err(HallNameError::Character('/'))
        );
        assert_eq!(hall_filter("#"), Err(HallNameError::Character('#')));
        assert_eq!(BoardAddress::new("", 1), Err(HallNameError::Empty));
        assert_eq!(hall_filter("club").unwrap(), "tocada/club/+/+");
    }

    #[test]
    fn an_event_message_survives_json() {
        let message = EventMessage {
            game: 3,
            seq: 7,
            t: 1900,
            line: serde_json::json!({"t":1900,"ev":"press","side":"white"}),
            effects: vec![serde_json::json!({"t":1900,"effect":"move","san":"e4"})],
        };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(
            serde_json::from_str::<EventMessage>(&text).unwrap(),
            message
        );
    }
}
