//! The publisher's sans-IO core: the store's events in, in store order, the
//! messages to publish out, and where to read next.
//!
//! Each game is replayed through [`crate::transcript`] (the one reader of
//! replay lines, under [`Policy::RESTORE`], as the daemon restores a game)
//! so that every [`EventMessage`] carries the effects its event produced,
//! and the board's [`BoardState`] is known after every event. Events up to
//! the last one the broker acknowledged ([`Follower::new`]'s `after`) are
//! replayed to rebuild the game, never sent again.

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode};

use crate::Effect;
use crate::broadcast::{BoardState, EventMessage, Running};
use crate::store::{GameId, StoredEvent};
use crate::transcript::{Fault, Feed, Policy, effect_to_value};

/// An event's place in the store: its game, then its place in the game.
/// Ordered as the store orders events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Mark {
    /// The game's id.
    pub game: GameId,
    /// The event's `seq` in its game; -1 for "before the game's first".
    pub seq: i64,
}

impl Mark {
    /// The place before every event of a store (its games are numbered
    /// from 1): where a publisher that is to send the whole store stands.
    pub const START: Mark = Mark { game: 1, seq: -1 };

    /// The place before every event of `game`.
    pub fn before(game: GameId) -> Mark {
        Mark { game, seq: -1 }
    }
}

/// What one stored event gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Pushed {
    /// An event at or before the resume point: replayed to rebuild its
    /// game, already published.
    Replayed,
    /// A new event, to publish.
    Message(EventMessage),
}

/// One game being followed.
#[derive(Debug)]
struct FollowedGame {
    id: GameId,
    /// Reads and feeds the stored lines; it holds the line the game could
    /// not be replayed past, after which later events are still published,
    /// without effects.
    feed: Feed,
    /// The `seq` of the last event pushed.
    seq: i64,
    moves: Vec<String>,
    last_ruling: Option<serde_json::Value>,
}

impl FollowedGame {
    fn new(id: GameId) -> FollowedGame {
        FollowedGame {
            id,
            feed: Feed::new(Policy::RESTORE),
            seq: -1,
            moves: Vec::new(),
            last_ruling: None,
        }
    }

    /// Feeds one stored line, returning the effect lines it produced.
    fn feed(&mut self, line: &str) -> Vec<serde_json::Value> {
        let mut effects = Vec::new();
        let (moves, last_ruling) = (&mut self.moves, &mut self.last_ruling);
        // A bad line is the feed's to keep (`fault`): later events are
        // published without effects.
        let _ = self.feed.push_str(line, |t, effect| {
            let json = effect_to_value(t, &effect);
            match &effect {
                Effect::Move(m) => moves.push(m.san.as_str().to_owned()),
                Effect::TakenBack { .. } => {
                    moves.pop();
                    *last_ruling = Some(json.clone());
                }
                _ => *last_ruling = Some(json.clone()),
            }
            effects.push(json);
        });
        effects
    }

    fn state(&self) -> Option<BoardState> {
        let referee = self.feed.referee()?;
        let t = self.feed.last_t().unwrap_or(0);
        let running = referee.ticking().map(|side| match side {
            Color::White => Running::White,
            Color::Black => Running::Black,
        });
        Some(BoardState {
            game: self.id,
            seq: self.seq,
            fen: Fen::from_position(referee.position(), EnPassantMode::Legal).to_string(),
            white_ms: referee.remaining(Color::White, t),
            black_ms: referee.remaining(Color::Black, t),
            running,
            last_ruling: self.last_ruling.clone(),
            result: referee
                .result()
                .map(|(outcome, _)| outcome.as_str().to_owned()),
            moves: self.moves.clone(),
        })
    }
}

/// The stored line as a JSON value: itself when it is JSON (always, for
/// lines the daemon stored), else its text as a JSON string, so that even
/// a damaged line reaches the hall as it is in the store.
fn line_value(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|_| serde_json::Value::String(line.to_owned()))
}

/// Follows the store: stored events in, in store order from
/// [`Follower::read_from`], messages out.
#[derive(Debug)]
pub struct Follower {
    /// Everything up to here is published already.
    after: Option<Mark>,
    game: Option<FollowedGame>,
}

impl Follower {
    /// A follower that publishes every event after `after` (every event of
    /// the store for `None`); the game of `after` is read from its start
    /// to rebuild it.
    pub fn new(after: Option<Mark>) -> Follower {
        Follower { after, game: None }
    }

    /// The place of the first event to read next: stored events from here
    /// on, in store order, are what [`Follower::push`] wants.
    pub fn read_from(&self) -> Mark {
        match (&self.game, self.after) {
            (Some(game), _) => Mark {
                game: game.id,
                seq: game.seq + 1,
            },
            (None, Some(after)) => Mark {
                game: after.game,
                seq: 0,
            },
            (None, None) => Mark {
                game: GameId::MIN,
                seq: 0,
            },
        }
    }

    /// The last event pushed, if any.
    pub fn last(&self) -> Option<Mark> {
        self.game.as_ref().map(|game| Mark {
            game: game.id,
            seq: game.seq,
        })
    }

    /// One stored event, the next in store order.
    ///
    /// A game is replayed from its first stored event; one whose first
    /// event is not its setup (rows missing from the store) is published
    /// without effects rather than replayed under rules it was not played
    /// by.
    pub fn push(&mut self, event: &StoredEvent) -> Pushed {
        let game = match &mut self.game {
            Some(game) if game.id == event.game => game,
            slot => {
                let mut game = FollowedGame::new(event.game);
                if event.seq != 0 {
                    game.feed.stop_without_setup();
                }
                slot.insert(game)
            }
        };
        game.seq = event.seq;
        let effects = game.feed(&event.line);
        let mark = Mark {
            game: event.game,
            seq: event.seq,
        };
        if self.after.is_some_and(|after| mark <= after) {
            return Pushed::Replayed;
        }
        Pushed::Message(EventMessage {
            game: event.game,
            seq: event.seq,
            t: u64::try_from(event.t).unwrap_or(0),
            line: line_value(&event.line),
            effects,
        })
    }

    /// The board after the last event pushed: `None` before any, or while
    /// the game has no referee (its first line is damaged).
    pub fn board_state(&self) -> Option<BoardState> {
        self.game.as_ref()?.state()
    }

    /// The stored line the current game could not be replayed past, if
    /// any: its later events go out without effects.
    pub fn fault(&self) -> Option<&Fault> {
        self.game.as_ref()?.feed.fault()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETUP: &str = r#"{"t":0,"ev":"setup","time_control":"300+2"}"#;

    fn event(game: GameId, seq: i64, line: &str) -> StoredEvent {
        let t = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v["t"].as_i64())
            .unwrap_or(0);
        StoredEvent {
            game,
            seq,
            t,
            line: line.to_owned(),
        }
    }

    /// White's 1. e4, as the daemon stores it.
    fn e4(game: GameId) -> Vec<StoredEvent> {
        [
            SETUP,
            r#"{"t":0,"ev":"press","side":"black"}"#,
            r#"{"t":1500,"ev":"lift","sq":"e2"}"#,
            r#"{"t":1700,"ev":"place","sq":"e4"}"#,
            r#"{"t":1900,"ev":"press","side":"white"}"#,
        ]
        .iter()
        .enumerate()
        .map(|(seq, line)| event(game, seq as i64, line))
        .collect()
    }

    fn messages(follower: &mut Follower, events: &[StoredEvent]) -> Vec<EventMessage> {
        events
            .iter()
            .filter_map(|e| match follower.push(e) {
                Pushed::Message(m) => Some(m),
                Pushed::Replayed => None,
            })
            .collect()
    }

    #[test]
    fn each_event_carries_the_effects_it_produced() {
        let mut follower = Follower::new(None);
        assert_eq!(follower.read_from().seq, 0);
        let sent = messages(&mut follower, &e4(1));
        assert_eq!(sent.len(), 5);
        assert_eq!(sent[1].effects[0]["effect"], "started");
        assert_eq!(sent[1].effects[0]["side"], "white");
        assert!(sent[2].effects.is_empty() && sent[3].effects.is_empty());
        assert_eq!(sent[4].effects[0]["effect"], "move");
        assert_eq!(sent[4].effects[0]["san"], "e4");
        assert_eq!(sent[4].line["sq"], serde_json::Value::Null);
        assert_eq!(sent[4].line["side"], "white");
        assert_eq!((sent[4].game, sent[4].seq, sent[4].t), (1, 4, 1900));

        let state = follower.board_state().unwrap();
        assert_eq!(state.moves, ["e4"]);
        assert_eq!(state.running, Some(Running::Black));
        assert_eq!(state.white_ms, 300_000 - 1_900 + 2_000);
        assert_eq!(state.black_ms, 300_000);
        assert_eq!(
            state.fen,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert_eq!(state.last_ruling.unwrap()["effect"], "started");
        assert_eq!((state.game, state.seq), (1, 4));
        assert_eq!(follower.read_from(), Mark { game: 1, seq: 5 });
    }

    #[test]
    fn a_resumed_follower_rebuilds_the_game_and_sends_only_what_follows() {
        let events = e4(7);
        let mut fresh = Follower::new(None);
        let all = messages(&mut fresh, &events);

        let mut resumed = Follower::new(Some(Mark { game: 7, seq: 2 }));
        assert_eq!(resumed.read_from(), Mark { game: 7, seq: 0 });
        let sent = messages(&mut resumed, &events);
        assert_eq!(sent, all[3..], "same messages, effects included");
        assert_eq!(resumed.board_state(), fresh.board_state());
    }

    #[test]
    fn the_next_game_starts_a_new_replay() {
        let mut follower = Follower::new(Some(Mark { game: 1, seq: 4 }));
        let mut events = e4(1);
        events.extend(e4(2));
        let sent = messages(&mut follower, &events);
        assert_eq!(sent.len(), 5);
        assert!(sent.iter().all(|m| m.game == 2));
        assert_eq!(sent[4].effects[0]["san"], "e4");
        assert_eq!(follower.board_state().unwrap().moves, ["e4"]);
    }

    #[test]
    fn a_damaged_line_is_published_and_the_rest_without_effects() {
        let mut events = e4(1);
        events[2].line = "{\"t\":1500,\"ev\":\"lift\",\"sq\":\"e2\"".to_owned();
        let mut follower = Follower::new(None);
        let sent = messages(&mut follower, &events);
        assert_eq!(sent.len(), 5, "every stored event goes out");
        assert_eq!(
            sent[2].line,
            serde_json::Value::String(events[2].line.clone())
        );
        assert!(sent[4].effects.is_empty());
        assert_eq!(follower.fault().unwrap().line, 3);
        // The board as it stood before the damage.
        assert!(follower.board_state().unwrap().moves.is_empty());
    }

    #[test]
    fn a_game_read_from_its_middle_is_not_replayed_under_default_rules() {
        let events = e4(3);
        let mut follower = Follower::new(None);
        let sent = messages(&mut follower, &events[2..]);
        assert_eq!(sent.len(), 3);
        assert!(sent.iter().all(|m| m.effects.is_empty()));
        assert!(follower.fault().is_some());
        assert_eq!(follower.board_state(), None);
    }

    #[test]
    fn marks_order_as_the_store_does() {
        let mark = |game, seq| Mark { game, seq };
        assert!(mark(1, 900) < mark(2, 0));
        assert!(Mark::before(2) < mark(2, 0));
        assert!(mark(2, 3) < mark(2, 4));
    }
}
