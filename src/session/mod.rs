//! The clock as a club works it: the front buttons, the setup and correction
//! screens, and one game at a time on a [`Referee`].
//!
//! Sans-IO like the referee it wraps: the shell passes in button presses and
//! board inputs with their instants, and drains [`Action`]s (store this,
//! sound the buzzer, the game is over). Every input the referee is given is
//! also handed out, typed ([`Recorded`]), so that a game is stored as the
//! events that make it and rebuilt by replaying them. Writing them down is
//! the shell's business, and reading them back the replay format's
//! (`tocada::transcript::restore`, which hands the rebuilt referee to
//! [`Session::resume_from`]): both sit above this module, which knows no
//! wire format.
//!
//! The buttons, with no keyboard in a club:
//! - **setup** (no game): adjust buttons move the preset selection (left up,
//!   right down), a draw button swaps sides, Black's lever starts the game;
//! - **game**: levers, draw and adjust buttons go to the referee, the menu
//!   button pauses (6.11); while a player's promotion waits for its piece
//!   ([`Referee::promotion_pending`]) the referee takes his adjust button
//!   for its choice, Q R B N in turn (4.4.4), and the face shows it;
//! - **paused**: the correction screen (6.10): adjust buttons choose a field,
//!   draw buttons take one off (left) or add one (right), the menu button
//!   resumes; after a restart any lever resumes too, and the lever of a
//!   player who had made a move and not pressed it also completes it. The
//!   arbiter's acts follow the fields: on *Waive obligation* and *Take back
//!   move* "+" does it; on *Adjudicate* "-" chooses the result and "+" twice
//!   gives it;
//! - **claim** (in a game): a player's adjust button twice within
//!   [`CLAIM_GESTURE_MS`] claims that his opponent broke article 4 (4.8);
//! - **game over**: the result stays up until the menu button.

use std::collections::VecDeque;

use shakmaty::{Bitboard, Color, Position};

use crate::config::Config;
use crate::controls::{Button, LinkChange};
use crate::face::{EditorRow, Field, Language};
use crate::pgn::{GameRecord, Tags};
use crate::players::Players;
use crate::words::Notice;
use crate::{Effect, Input, KnownOutcome, Millis, Referee, Rules, words};

pub mod controls;
pub mod editor;
mod input;
pub mod setup;
pub mod view;

pub use controls::{CLAIM_GESTURE_MS, Controls, Correction};
pub use input::SessionInput;

/// Something the shell must do for the session, in order: store a game
/// and its records, sound the buzzer, log a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A game began: store it before any of its records.
    Begin {
        /// The instant it began, on the shell's clock (which is the game's
        /// clock too, at its start).
        t: Millis,
        /// The preset it is played under.
        preset: String,
        /// Black's clock and lever are on the left.
        black_left: bool,
        /// The rules it is played under (boxed: a starting position is far
        /// bigger than anything else here).
        rules: Box<Rules>,
        /// Who plays, as the hall's pairing said when it began: stored
        /// with the game (its `players` line), so that it comes back with
        /// them whatever the pairing is by then.
        players: Option<Box<Players>>,
    },
    /// The referee was given something at `t`, on the game's clock: store
    /// it, so that the game can be rebuilt by giving it again.
    Record {
        /// The instant on the game's clock.
        t: Millis,
        /// What the referee was given.
        event: Recorded,
    },
    /// The game is over, or abandoned (`result` is then `*`).
    Finish {
        /// The PGN result token.
        result: String,
        /// The game's PGN.
        pgn: String,
    },
    /// Sound the buzzer.
    Buzz(Buzz),
    /// The referee decided this, at this instant of the game's clock (for
    /// the log and the simulator's output).
    Decision(Millis, Effect),
    /// A stored game was rebuilt after a restart (for the log and the
    /// simulator's output, so a test can hold it against the store).
    Restored(GameRestored),
}

/// A stored game rebuilt after a restart: where it stands at its last
/// stored instant `t`, where an unfinished game waits paused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRestored {
    /// The last stored instant, on the game's clock.
    pub t: Millis,
    /// White's time left then.
    pub white_ms: u64,
    /// Black's time left then.
    pub black_ms: u64,
    /// The moves completed (plies), as the stored lines replay.
    pub moves: usize,
    /// The position on the board in FEN, the move made and not yet
    /// completed by a press included.
    pub fen: String,
}

/// What the referee of the game in play was given, as [`Action::Record`]
/// hands it out to be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// An input, given with [`Referee::handle`].
    Input(Input),
    /// Time passed up to the record's instant with no input, and the game
    /// ended on it (a flag): given with [`Referee::handle_timeout`]. The
    /// replay format writes it as its `end` line.
    Timeout,
    /// Time passed up to the record's instant on a running clock, and
    /// nothing happened: given with [`Referee::handle_timeout`], so that a
    /// restart resumes from here. The replay format's `checkpoint` line.
    Checkpoint {
        /// How far the running clock is known to have run, when that is
        /// past the record's instant: the referee's time stops where the
        /// board's news is complete (a silent board may yet report a move
        /// made meanwhile), but the clock ran on regardless, and a restart
        /// charges the running side up to here.
        ran_to: Option<Millis>,
    },
    /// The daemon came back after a crash or a power cut, off for `off_ms`
    /// when its wall clock can tell: nothing for the referee, a note for
    /// the score. The replay format's `restart` line.
    Restart {
        /// How long the clock was off, in ms.
        off_ms: Option<u64>,
    },
}

/// How long the buzzer sounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buzz {
    /// A ruling, or a button that does nothing here.
    Short,
    /// A flag, or the end of the game.
    Long,
}

impl Buzz {
    /// How long the buzzer stays on.
    pub const fn duration_ms(self) -> Millis {
        match self {
            Buzz::Short => 80,
            Buzz::Long => 600,
        }
    }
}

/// A stored game to rebuild after a restart.
#[derive(Debug, Clone)]
pub struct GameToResume<'a> {
    /// The preset it was started under.
    pub preset: &'a str,
    /// Black's clock and lever were on the left.
    pub black_left: bool,
    /// The PGN date it was started on.
    pub date: &'a str,
    /// Its lines, `setup` first, as stored.
    pub lines: &'a [String],
}

/// The game on the clock: in play, or just over.
#[derive(Debug)]
struct GameOnClock {
    referee: Referee,
    preset: String,
    date: String,
    /// Added to the shell's clock to give the game's: a restored game goes
    /// on from its last stored instant, so the time the clock was off is
    /// charged to nobody.
    offset: Millis,
    /// The last instant the referee was given; it never goes back.
    last: Millis,
    /// Paused by a restart rather than by the arbiter: a lever resumes.
    restored: bool,
    /// Every decision, for the PGN.
    decisions: Vec<(Millis, Effect)>,
    over: bool,
    /// What the players' buttons mean in play: the claim gesture, the
    /// promotion piece, the mark in a choice that waits.
    controls: Controls,
    /// Each restart of the daemon during the game (a crash, a power cut):
    /// its instant and how long the clock was off, for the PGN.
    restarts: Vec<(Millis, Option<u64>)>,
    /// Who plays, as the hall's pairing said when the game began: fixed
    /// for the game, whatever comes later.
    players: Option<Players>,
}

/// The clock as a club works it: presets, sides, the game on the clock
/// and its corrections, ruled from the front controls and the board.
#[derive(Debug)]
pub struct Session {
    /// Presets by name with their rules, in menu order.
    presets: Vec<(String, Rules)>,
    selected: usize,
    black_left: bool,
    /// The orientation the buttons report in: the configured one. A swap on
    /// the setup screen flips every button's side from then on.
    wired_black_left: bool,
    game: Option<GameOnClock>,
    /// How many games were taken up so far: tells one game's record from
    /// the next one's ([`Session::record_version`]).
    games_taken_up: u64,
    alert: Option<String>,
    board_disconnected: bool,
    /// The squares the board reports occupied, when known.
    occupancy: Option<Bitboard>,
    /// The pieces on the board, from a board that knows their identities.
    pieces: Option<shakmaty::Board>,
    actions: VecDeque<Action>,
    /// The face must be redrawn.
    changed: bool,
    /// The time-control editor, while open on the setup screen.
    editor: Option<editor::Editor>,
    /// The players' language (`face.language`): the face's words.
    language: Language,
    /// The hall's pairing of this board, for the next game to begin.
    pairing: Option<Players>,
}

impl Session {
    /// A session on the setup screen, with the configured presets and sides.
    pub fn new(config: &Config) -> Session {
        let presets: Vec<(String, Rules)> = config
            .presets
            .iter()
            .map(|p| {
                let mut rules = p.rules(&config.rules);
                rules.start = config.start.clone();
                rules.plain_clock = config.board.kind == crate::config::BoardKind::None;
                (p.name.clone(), rules)
            })
            .collect();
        let selected = presets
            .iter()
            .position(|(name, _)| *name == config.clock.preset)
            .unwrap_or(0);
        let black_left = config.clock.white == crate::config::LeverSide::Right;
        Session {
            presets,
            selected,
            black_left,
            wired_black_left: black_left,
            game: None,
            games_taken_up: 0,
            alert: None,
            board_disconnected: false,
            occupancy: None,
            pieces: None,
            actions: VecDeque::new(),
            changed: true,
            editor: None,
            language: config.face.language,
            pairing: None,
        }
    }

    /// The hall's pairing of this board (`None`: nobody paired): shown on
    /// the setup screen, and the players of the next game to begin. A
    /// game already begun keeps the players it began with.
    pub fn set_pairing(&mut self, pairing: Option<Players>) {
        if self.pairing != pairing {
            self.pairing = pairing;
            self.changed = true;
        }
    }

    /// The players of the game on the clock, as fixed when it began.
    pub fn players(&self) -> Option<&Players> {
        self.game.as_ref().and_then(|game| game.players.as_ref())
    }

    /// The pairing as a face shows it: the board and the surnames.
    pub fn pairing_shown(&self) -> Option<crate::face::PairingShown> {
        let pairing = self.pairing.as_ref()?;
        Some(crate::face::PairingShown {
            board: pairing.board,
            white: surname(&pairing.white.name),
            black: surname(&pairing.black.name),
        })
    }

    /// The pairing as the setup screen says it: `R3 B7 Morphy - Anderssen`
    /// (last names, as a scoresheet's heading).
    pub fn pairing_line(&self) -> Option<String> {
        let pairing = self.pairing.as_ref()?;
        let last = surname;
        let round = if pairing.round.is_empty() {
            String::new()
        } else {
            format!("R{} ", pairing.round)
        };
        Some(format!(
            "{round}B{} {} - {}",
            pairing.board,
            last(&pairing.white.name),
            last(&pairing.black.name)
        ))
    }

    /// The game on the clock as PGN so far (its result `*` while it is
    /// played), as the store gets it when it ends; `None` on the setup
    /// screen.
    pub fn pgn(&self) -> Option<String> {
        self.game.as_ref().map(|game| game_record(game).to_pgn())
    }

    /// What [`Session::pgn`] is made from, as a value that changes
    /// whenever the PGN may: the game's number and how many decisions and
    /// restarts it holds (`None` on the setup screen). A watcher rebuilds
    /// the PGN only when this changes, not at each tick of the face.
    pub fn record_version(&self) -> Option<(u64, usize, usize)> {
        self.game.as_ref().map(|game| {
            (
                self.games_taken_up,
                game.decisions.len(),
                game.restarts.len(),
            )
        })
    }

    /// The players' language, which every text on the face is in.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Adds `rules` as a preset named `name` and selects it (a script's
    /// `setup` line, a time control typed in the simulator).
    pub fn select_rules(&mut self, name: &str, rules: Rules) {
        match self.presets.iter().position(|(n, _)| n == name) {
            Some(i) => {
                self.presets[i].1 = rules;
                self.selected = i;
            }
            None => {
                self.presets.push((name.to_owned(), rules));
                self.selected = self.presets.len() - 1;
            }
        }
        self.changed = true;
    }

    /// Takes up a stored game that `tocada::transcript::restore` rebuilt:
    /// `referee` has been given its stored lines up to `last` (on the
    /// game's clock) and decided `decisions`. An unfinished game comes back
    /// paused at `last`, on a shell clock that reads `now`; a finished one
    /// is finished at once. `players` are the game's own, as its stored
    /// `players` line says (`None`: it began unpaired, or was stored
    /// before the players were): never the pairing on the clock now,
    /// which may be a later round's.
    pub fn resume_from(
        &mut self,
        now: Millis,
        saved: &GameToResume<'_>,
        referee: Referee,
        last: Millis,
        decisions: Vec<(Millis, Effect)>,
        players: Option<Players>,
    ) {
        self.black_left = saved.black_left;
        self.alert = decisions
            .iter()
            .rev()
            .find_map(|(_, e)| words::alert_for(e, self.language));
        self.games_taken_up += 1;
        self.game = Some(GameOnClock {
            referee,
            preset: saved.preset.to_owned(),
            date: saved.date.to_owned(),
            offset: last.saturating_sub(now),
            last,
            restored: false,
            decisions,
            over: false,
            controls: Controls::new(),
            restarts: Vec::new(),
            players,
        });
        let game = self.game.as_mut().expect("just set");
        if game.referee.result().is_some() {
            // Stopped between the result and its storing: finish it now.
            game.over = true;
            let action = finish_action(game);
            self.actions.push_back(action);
        } else {
            if !game.referee.is_paused() {
                self.feed(last, Input::Pause);
            }
            if let Some(game) = self.game.as_mut() {
                game.restored = true;
            }
            self.alert = Some(Notice::Restarted.text(self.language).to_owned());
        }
        if let Some(game) = self.game.as_ref() {
            self.actions.push_back(restored_action(game, last));
        }
        self.changed = true;
    }

    /// The restarts the restored game's stored lines record, before this
    /// one: `tocada::transcript::restore` hands them on.
    pub fn restarted_before(&mut self, restarts: Vec<(Millis, Option<u64>)>) {
        if let Some(game) = self.game.as_mut() {
            game.restarts = restarts;
        }
    }

    /// The restarts of the game in play so far, and how long the clock was
    /// off for each, when known.
    pub fn restarts(&self) -> &[(Millis, Option<u64>)] {
        self.game.as_ref().map_or(&[], |game| &game.restarts)
    }

    /// Notes the restart that brought back the unfinished game just
    /// restored, off for `off_ms` by the wall clock if it can tell: stored
    /// as a `restart` line at the game's last instant, and said in the PGN.
    pub fn power_cut(&mut self, off_ms: Option<u64>) {
        let Some(game) = self.game.as_mut().filter(|game| !game.over) else {
            return;
        };
        let t = game.last;
        game.restarts.push((t, off_ms));
        self.actions.push_back(Action::Record {
            t,
            event: Recorded::Restart { off_ms },
        });
    }

    /// Shows `text` on the alert line until something else replaces it.
    pub fn notice(&mut self, text: String) {
        self.alert = Some(text);
        self.changed = true;
    }

    /// The PGN date of the game in play, once the shell knows it.
    pub fn set_date(&mut self, date: &str) {
        if let Some(game) = self.game.as_mut() {
            game.date = date.to_owned();
        }
    }

    /// Hands the session something from the shell, whose clock reads `now`;
    /// then drain [`Session::poll_action`].
    pub fn handle(&mut self, now: Millis, input: SessionInput) {
        match input {
            SessionInput::Press { button, at } => self.press(now, button, at),
            SessionInput::Board(input) => self.board(now, input),
            SessionInput::Referee(input) => self.input(now, input),
            SessionInput::Link(change) => self.link(change),
        }
    }

    /// A front control went down at `at` (the kernel's timestamp, on the
    /// shell's clock); the shell's clock reads `now`.
    fn press(&mut self, now: Millis, button: Button, at: Millis) {
        let at = at.min(now);
        let button = self.oriented(button);
        self.changed = true;
        let Some(game) = self.game.as_mut() else {
            self.setup_press(button, at);
            return;
        };
        let t = at + game.offset;
        if game.over {
            if button == Button::Menu {
                self.game = None;
                self.alert = None;
            }
            return;
        }
        if !game.referee.is_paused() {
            // The buttons' meaning in play, shared with scripts: a choice's
            // mark and answer, the promotion piece, the claim gesture.
            let Some(input) = input::referee_input(button) else {
                self.feed(t, Input::Pause);
                return;
            };
            let choosing = Controls::chooses_promotion(&game.referee, input);
            // The instant the referee will be given, as stored: a replay of
            // the stored lines times the gesture the same.
            let t = t.max(game.last);
            let Some(meant) = game.controls.meaning(&game.referee, t, input) else {
                return;
            };
            if meant != input {
                self.feed(t, meant);
                return;
            }
            let adjusting = match input {
                Input::Adjust(side) if !choosing => Some(side),
                _ => None,
            };
            let before = adjusting.and_then(|_| self.alert.take());
            self.feed(t, input);
            if let Some(side) = adjusting
                && self.alert.is_none()
            {
                // Nothing ruled: the announcement stands (4.2.1), and the
                // face says it was heard, unless it shows what to put back.
                self.alert = match before {
                    Some(kept) if words::is_instruction(&kept, self.language) => Some(kept),
                    _ => Some(words::adjusting(side, self.language)),
                };
                self.changed = true;
            }
            return;
        }
        match button {
            Button::Menu => self.resume(t),
            Button::Lever(side) if game.restored => {
                self.resume(t);
                // 6.2.1: a move made on the board before the power cut and
                // not pressed yet is completed by this press, as it would
                // have been without the cut: otherwise the mover's clock
                // would run on through his opponent's reply.
                if self
                    .game
                    .as_ref()
                    .is_some_and(|g| g.referee.awaits_press(side))
                {
                    self.feed(t, Input::Press(side));
                }
            }
            Button::Lever(_) => self.buzz(Buzz::Short),
            Button::Adjust(side) | Button::Draw(side) => {
                let input = if matches!(button, Button::Draw(_)) {
                    Input::Draw(side)
                } else {
                    Input::Adjust(side)
                };
                let black_left = self.black_left;
                let left = move |side: Color| (side == Color::Black) == black_left;
                let game = self.game.as_mut().expect("checked above");
                let t = t.max(game.last);
                match game.controls.paused(&game.referee, t, input, left) {
                    Correction::Field(field) => {
                        self.alert = match field {
                            Field::Adjudicate => Some(adjudication_text(
                                game.controls.adjudication(),
                                self.language,
                            )),
                            _ => None,
                        };
                    }
                    Correction::Propose(outcome, armed) => {
                        self.alert = Some(adjudication_text((outcome, armed), self.language));
                    }
                    Correction::Give(input @ Input::Adjudicate(_)) => self.feed(t, input),
                    Correction::Give(input) => self.correct(t, input),
                    Correction::Abandon => self.abandon(),
                    Correction::Nothing => {}
                }
            }
        }
    }

    /// A board input (`Lift`, `Place`, `Touch`, `Untouch`) seen at `now`.
    fn board(&mut self, now: Millis, input: Input) {
        if let Some(occupied) = self.occupancy.as_mut() {
            match input {
                Input::Lift(sq) => occupied.discard(sq),
                Input::Place(sq, _) => occupied.add(sq),
                _ => {}
            }
        }
        if let Some(pieces) = self.pieces.as_mut() {
            match input {
                Input::Lift(sq) => {
                    pieces.discard_piece_at(sq);
                }
                Input::Place(sq, Some(piece)) => pieces.set_piece_at(sq, piece),
                // A piece put down without its identity: the board does
                // not know them after all.
                Input::Place(_, None) => self.pieces = None,
                _ => {}
            }
        }
        if self.game.is_none() {
            self.changed = true;
        }
        self.input(now, input);
    }

    /// What the board reports occupied, read afresh (at start, and after
    /// the link comes back).
    pub fn set_occupancy(&mut self, occupied: Bitboard) {
        if self.occupancy != Some(occupied) {
            self.changed = self.game.is_none();
        }
        self.occupancy = Some(occupied);
    }

    /// The pieces a board that knows their identities reports, read
    /// afresh with the occupancy (a DGT board's picture).
    pub fn set_pieces(&mut self, pieces: shakmaty::Board) {
        if self.pieces.as_ref() != Some(&pieces) {
            self.changed = self.game.is_none();
        }
        self.pieces = Some(pieces);
    }

    /// The start of the game the next press begins: the selected preset's
    /// (the standard position, or a setup's FEN).
    pub fn start_board(&self) -> shakmaty::Board {
        self.presets
            .get(self.selected)
            .map_or_else(shakmaty::Board::default, |(_, rules)| {
                rules.start.board().clone()
            })
    }

    /// The pieces the board should show now: the game's as they stand
    /// (a game restored after a restart included), else the next game's
    /// start. A DGT board takes its orientation from them.
    pub fn expected_board(&self) -> shakmaty::Board {
        match self.game.as_ref() {
            Some(game) if !game.over => game.referee.physical_board(),
            _ => self.start_board(),
        }
    }

    /// What is wrong with the pieces on the board for the next game's
    /// start, as far as the board says (FIDE 7.3).
    pub fn set_up_fault(&self) -> Option<setup::SetUpFault> {
        let occupied = self.occupancy?;
        setup::check(&self.start_board(), occupied, self.pieces.as_ref())
    }

    /// An input for the referee that no front control gives (the
    /// simulator's resign, promote, decline): ignored outside a game.
    fn input(&mut self, now: Millis, input: Input) {
        let Some(game) = self.game.as_ref() else {
            return;
        };
        if game.over {
            return;
        }
        let t = now + game.offset;
        self.feed(t, input);
    }

    /// The board link went down or came back.
    fn link(&mut self, change: LinkChange) {
        self.board_disconnected = change == LinkChange::Disconnected;
        self.changed = true;
    }

    /// Lets the referee see time pass up to `now` (flags).
    pub fn handle_timeout(&mut self, now: Millis) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        if game.over {
            return;
        }
        let t = (now + game.offset).max(game.last);
        game.last = t;
        let place_awaited_lift = game.referee.place_awaits_lift();
        if game.referee.handle_timeout(t).is_err() {
            return;
        }
        if game.referee.result().is_some() {
            // The flag fell with no input after it: the stored records
            // must still replay to the same result.
            self.actions.push_back(Action::Record {
                t,
                event: Recorded::Timeout,
            });
        } else if place_awaited_lift && !game.referee.place_awaits_lift() {
            // Time alone read a place whose lift did not follow: the stored
            // records must replay to it, or a restore would still wait for
            // that lift and could read the next one as its slide.
            self.actions.push_back(Action::Record {
                t,
                event: Recorded::Checkpoint { ran_to: None },
            });
        }
        self.drain();
    }

    /// Lets time pass up to `now` and, if a clock is still running, records
    /// the instant as a [`Recorded::Checkpoint`]: what the shell stores
    /// every so often so that a power cut gives back no more time than
    /// since. A flag due by then falls and is recorded instead.
    ///
    /// `ran_to` (no earlier than `now`) is how far the running clock is
    /// known to have run: the shell holds the referee's time back to where
    /// the board's news is complete, so that a move read late is still
    /// ruled at its own instant, but the clock ran on meanwhile; the record
    /// carries both, and a restart charges the running side up to
    /// `ran_to`.
    pub fn checkpoint(&mut self, now: Millis, ran_to: Millis) {
        self.handle_timeout(now);
        let Some(game) = self.game.as_ref() else {
            return;
        };
        if game.over || game.referee.result().is_some() || game.referee.ticking().is_none() {
            return;
        }
        let ran_to = (ran_to + game.offset).max(game.last);
        self.actions.push_back(Action::Record {
            t: game.last,
            event: Recorded::Checkpoint {
                ran_to: (ran_to > game.last).then_some(ran_to),
            },
        });
    }

    /// Whether a clock of the game in play is running, so that time passing
    /// is worth a [`Session::checkpoint`].
    pub fn clock_running(&self) -> bool {
        self.game
            .as_ref()
            .is_some_and(|g| !g.over && g.referee.ticking().is_some())
    }

    /// When [`Session::handle_timeout`] is next due, on the shell's clock.
    pub fn next_deadline(&self) -> Option<Millis> {
        let game = self.game.as_ref().filter(|g| !g.over)?;
        let deadline = game.referee.next_deadline()?;
        Some(deadline.saturating_sub(game.offset))
    }

    /// The next thing to do, in order.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// Whether something changed since the last call, so the face must be
    /// redrawn (the shell redraws a running clock on its own schedule).
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// Whether a clock is running, so the face changes by itself.
    pub fn is_ticking(&self) -> bool {
        self.game
            .as_ref()
            .is_some_and(|g| !g.over && g.referee.ticking().is_some())
    }

    /// The referee of the game in play, if any.
    pub fn referee(&self) -> Option<&Referee> {
        self.game.as_ref().map(|g| &g.referee)
    }

    /// Whether a game is being played (not on the setup screen, not over).
    pub fn in_game(&self) -> bool {
        self.game.as_ref().is_some_and(|g| !g.over)
    }

    /// The game's clock at `now` on the shell's.
    pub fn game_time(&self, now: Millis) -> Option<Millis> {
        self.game.as_ref().map(|g| (now + g.offset).max(g.last))
    }

    fn setup_press(&mut self, button: Button, at: Millis) {
        // Left moves up and takes one off, right moves down and adds.
        let right = !self.is_left_of(button);
        if let Some(editor) = self.editor.as_mut() {
            match button {
                Button::Adjust(_) => editor.step_row(right),
                Button::Draw(_) => editor.step_value(right),
                Button::Menu => self.save_edited(),
                Button::Lever(_) => {}
            }
            return;
        }
        match button {
            Button::Lever(Color::Black) => {
                // 7.3: the clock starts only on the game's start.
                // The face says what is wrong, as it is now.
                if self.set_up_fault().is_some() {
                    self.alert = None;
                    self.buzz(Buzz::Short);
                    return;
                }
                self.begin(at);
            }
            // A start with Black to move: White's lever, the one a seesaw
            // (a DGT 3000's) leaves up for Black, starts it too.
            Button::Lever(Color::White)
                if self
                    .presets
                    .get(self.selected)
                    .is_some_and(|(_, rules)| rules.start.turn() == Color::Black) =>
            {
                if self.set_up_fault().is_some() {
                    self.alert = None;
                    self.buzz(Buzz::Short);
                    return;
                }
                self.begin(at);
            }
            Button::Lever(Color::White) => {
                self.alert = Some(Notice::BlacksLeverStarts.text(self.language).to_owned());
                self.buzz(Buzz::Short);
            }
            Button::Adjust(side) => {
                let n = self.presets.len().max(1);
                self.selected = if self.is_left(side) {
                    (self.selected + n - 1) % n
                } else {
                    (self.selected + 1) % n
                };
            }
            Button::Draw(_) => self.black_left = !self.black_left,
            Button::Menu => self.editor = Some(editor::Editor::default()),
        }
    }

    /// Whether `button` is on the left of the clock as the sides sit.
    fn is_left_of(&self, button: Button) -> bool {
        match button {
            Button::Adjust(side) | Button::Draw(side) | Button::Lever(side) => self.is_left(side),
            Button::Menu => false,
        }
    }

    /// Closes the editor, its control saved as the preset `edited`, on the
    /// selected preset's other rules, and selected.
    fn save_edited(&mut self) {
        let Some(editor) = self.editor.take() else {
            return;
        };
        let base = self
            .presets
            .get(self.selected)
            .map(|(_, rules)| rules.clone())
            .unwrap_or_default();
        self.select_rules(editor::EDITED, editor.rules(&base));
    }

    /// The editor's rows and selected row, while it is open.
    pub fn editor_rows(&self) -> Option<(Vec<EditorRow>, usize)> {
        self.editor
            .as_ref()
            .map(|editor| (editor.rows(), editor.selected()))
    }

    fn begin(&mut self, at: Millis) {
        let Some((preset, rules)) = self.presets.get(self.selected).cloned() else {
            self.alert = Some(Notice::NoTimeControl.text(self.language).to_owned());
            return;
        };
        self.actions.push_back(Action::Begin {
            t: at,
            preset: preset.clone(),
            black_left: self.black_left,
            rules: Box::new(rules.clone()),
            players: self.pairing.clone().map(Box::new),
        });
        self.alert = None;
        let not_to_move = !rules.start.turn();
        self.games_taken_up += 1;
        self.game = Some(GameOnClock {
            referee: Referee::new(rules),
            preset,
            date: "????.??.??".to_owned(),
            offset: 0,
            last: at,
            restored: false,
            decisions: Vec::new(),
            over: false,
            controls: Controls::new(),
            restarts: Vec::new(),
            players: self.pairing.clone(),
        });
        // Black's lever begins every game; the referee starts the clock of
        // the side to move on the other side's press (a FEN with Black to
        // move included, which a press of Black's own would not start).
        self.feed(at, Input::Press(not_to_move));
    }

    fn resume(&mut self, t: Millis) {
        if let Some(game) = self.game.as_mut() {
            game.restored = false;
        }
        self.alert = None;
        self.feed(t, Input::Resume);
    }

    /// Gives the referee a correction made on the correction screen, and
    /// says so when it refuses it.
    fn correct(&mut self, t: Millis, input: Input) {
        let Some(game) = self.game.as_ref() else {
            return;
        };
        let refused = game.referee.refused_corrections();
        self.feed(t, input);
        if self
            .game
            .as_ref()
            .is_some_and(|g| g.referee.refused_corrections() > refused)
        {
            self.buzz(Buzz::Short);
            if matches!(input, Input::Waive | Input::TakeBack) {
                self.alert = Some(Notice::NothingToDo.text(self.language).to_owned());
            }
        }
    }

    /// Ends the game in play without a result (the arbiter's decision).
    fn abandon(&mut self) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        game.over = true;
        let action = finish_action(game);
        self.actions.push_back(action);
        self.alert = Some(Notice::GameAbandoned.text(self.language).to_owned());
    }

    /// Gives the game's referee `input` at `t` (game time), records it and
    /// drains what it decided.
    fn feed(&mut self, t: Millis, input: Input) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let t = t.max(game.last);
        game.last = t;
        if game.referee.handle(t, input).is_err() {
            // Unreachable: `t` never goes back. Dropping the input is safer
            // than a clock that panics.
            return;
        }
        game.controls.given(&input);
        self.actions.push_back(Action::Record {
            t,
            event: Recorded::Input(input),
        });
        self.drain();
    }

    fn drain(&mut self) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        while let Some((t, effect)) = game.referee.poll_effect() {
            self.changed = true;
            game.controls.decided(&effect);
            match &effect {
                Effect::Move(_) | Effect::Resumed | Effect::Started { .. } => self.alert = None,
                other => {
                    if let Some(alert) = words::alert_for(other, self.language) {
                        self.alert = Some(alert);
                    }
                }
            }
            let buzz = match effect {
                Effect::Flag { .. } => Some(Buzz::Long),
                Effect::Violation(_) | Effect::TimeAdded { .. } | Effect::Displaced { .. } => {
                    Some(Buzz::Short)
                }
                _ => None,
            };
            if let Some(buzz) = buzz {
                self.actions.push_back(Action::Buzz(buzz));
            }
            let over = matches!(effect, Effect::Result { .. });
            game.decisions.push((t, effect.clone()));
            self.actions.push_back(Action::Decision(t, effect));
            if over && !game.over {
                game.over = true;
                let action = finish_action(game);
                self.actions.push_back(action);
            }
        }
    }

    fn buzz(&mut self, buzz: Buzz) {
        self.actions.push_back(Action::Buzz(buzz));
    }

    /// The button as it is now, after any swap of sides since the buttons
    /// were opened.
    fn oriented(&self, button: Button) -> Button {
        if self.black_left == self.wired_black_left {
            return button;
        }
        match button {
            Button::Lever(c) => Button::Lever(!c),
            Button::Draw(c) => Button::Draw(!c),
            Button::Adjust(c) => Button::Adjust(!c),
            Button::Menu => Button::Menu,
        }
    }

    /// The side whose controls were wired on the left (`clock.white`),
    /// before any swap of sides: a control as its hardware names it.
    pub fn wired_left(&self) -> Color {
        if self.wired_black_left {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Whether `side`'s controls are on the left of the clock.
    fn is_left(&self, side: Color) -> bool {
        (side == Color::Black) == self.black_left
    }
}

/// What the *Adjudicate* field shows: the result proposed, or asks to
/// confirm it.
fn adjudication_text((outcome, armed): (KnownOutcome, bool), language: Language) -> String {
    if armed {
        words::confirm(outcome.as_str(), language)
    } else {
        format!(
            "{} {}",
            Field::Adjudicate.label_in(language),
            outcome.as_str()
        )
    }
}

/// A preset as the setup screen lists it: its name and its control as a
/// clock writes it, a delay as a delay (`G/90 d5`) and each side's time
/// when they differ (`W5m+2s B4m+2s`).
fn preset_label(name: &str, rules: &Rules, language: Language) -> String {
    let words = &language.face().editor;
    let label = |control| {
        rules
            .increment_mode
            .label_in(control, [words.hourglass, words.count_up])
    };
    let white = label(&rules.time_control);
    match &rules.black_time_control {
        Some(black) if *black != rules.time_control => {
            // Each side by its initial in the language: W/B, B/N, W/S.
            let initial = |side| language.side(side).chars().next().unwrap_or(' ');
            format!(
                "{name} {}{white} {}{}",
                initial(Color::White),
                initial(Color::Black),
                label(black)
            )
        }
        _ => format!("{name} {white}"),
    }
}

/// The `Restored` action for a game rebuilt up to `last`.
fn restored_action(game: &GameOnClock, last: Millis) -> Action {
    let fen =
        shakmaty::fen::Fen::from_position(game.referee.position(), shakmaty::EnPassantMode::Legal);
    Action::Restored(GameRestored {
        t: last,
        white_ms: game.referee.remaining(Color::White, last),
        black_ms: game.referee.remaining(Color::Black, last),
        moves: game
            .decisions
            .iter()
            .filter(|(_, e)| matches!(e, Effect::Move(_)))
            .count(),
        fen: fen.to_string(),
    })
}

/// A name's surname: what comes before the comma of `Last, First`.
fn surname(name: &str) -> String {
    name.split(',').next().unwrap_or(name).trim().to_owned()
}

/// The game's record as PGN so far: what the store gets when it ends.
fn game_record(game: &GameOnClock) -> GameRecord {
    let rules = game.referee.rules();
    let mut tags = Tags {
        event: format!("tocada {}", game.preset),
        site: "?".to_owned(),
        date: game.date.clone(),
        round: "-".to_owned(),
        white: "?".to_owned(),
        black: "?".to_owned(),
        time_control: rules.time_control.to_string(),
        ..Tags::default()
    };
    if let Some(players) = &game.players {
        tags.name_players(players);
    }
    let mut record = GameRecord::new(tags, crate::pgn::start_fen(rules)).with_clock(rules);
    record.record_all(&game.decisions, &game.restarts);
    record
}

/// The `Finish` action for `game`: its result and its PGN so far.
fn finish_action(game: &GameOnClock) -> Action {
    let record = game_record(game);
    // The score's own result token, so the stored result and the PGN's
    // cannot disagree.
    Action::Finish {
        result: record.result_token().to_owned(),
        pgn: record.to_pgn(),
    }
}
