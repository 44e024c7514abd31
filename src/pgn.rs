//! A game as PGN: the score the players and the arbiter take home.
//!
//! [`GameRecord`] is fed every effect the referee emits, in order, and
//! writes the game in PGN export format: the seven tag roster with
//! `TimeControl` and `Termination` (and `SetUp`/`FEN` for a game from a set
//! position), each move with the mover's clock after it as `{[%clk h:mm:ss]}`,
//! offers, rulings, pauses and displacements as comments, and the result
//! token matching the referee's `Effect::Result` (`*` while it has none).
//! Told the rules ([`GameRecord::with_clock`]), it writes what `TimeControl`
//! cannot say in tags of its own: `WhiteTimeControl`/`BlackTimeControl` for
//! a control per side, `TimeDelay` for a Bronstein or US delay (never as a
//! `+N`, which readers take for Fischer), `DrawOdds`, and the clock in words
//! as a first comment.
//!
//! [`crate::transcript::pgn_from_lines`] rebuilds the PGN of a stored game
//! by replaying its replay lines into a fresh referee, the same way (and
//! under the same policy) the daemon recovers a game, so the PGN always
//! agrees with what the referee decided.
//!
//! ```text
//! [Event "Club night"]
//! ...
//! [TimeControl "300+2"]
//! [Termination "normal"]
//!
//! 1. e4 {[%clk 0:05:01]} e5 {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:58]}
//! {White offers a draw} 2... Nc6 {[%clk 0:04:59]} {Black declines} ...
//! ```

mod movetext;

use shakmaty::fen::Fen;
use shakmaty::{ByColor, Chess, Color, EnPassantMode, KnownOutcome};

use crate::{Effect, IncrementMode, Millis, MoveText, Reason, Rules, TimeControl};

pub use crate::words::pgn::clock_command;

use crate::words::pgn as comment;
use movetext::Movetext;

/// The tags a game is written with. An empty value is written as PGN's
/// "unknown": `?`, or `????.??.??` for the date.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    /// The event, e.g. the club night or tournament.
    pub event: String,
    /// Where it was played.
    pub site: String,
    /// The day the game started, `YYYY.MM.DD`.
    pub date: String,
    /// The round, e.g. `3`.
    pub round: String,
    /// White's name, `Last, First`.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The time control in the `TimeControl` tag grammar, e.g. `300+2`.
    pub time_control: String,
    /// The board, e.g. `7`, for a game of a round (the `Board` tag; not
    /// written when empty, nor are the four below).
    pub board: String,
    /// White's rating (`WhiteElo`).
    pub white_elo: String,
    /// Black's rating (`BlackElo`).
    pub black_elo: String,
    /// White's FIDE id (`WhiteFideId`).
    pub white_fide_id: String,
    /// Black's FIDE id (`BlackFideId`).
    pub black_fide_id: String,
}

impl Tags {
    /// Names the players of a pairing: `White`, `Black`, `Board`, `Round`
    /// (when the pairing says it) and the ratings and FIDE ids it has.
    /// The session's PGN and a stored game's
    /// ([`pgn_from_lines`](crate::transcript::pgn_from_lines)) both name
    /// them here, so the two say the same.
    pub fn name_players(&mut self, players: &crate::players::Players) {
        let text = |value: Option<String>| value.unwrap_or_default();
        if !players.round.is_empty() {
            self.round = players.round.clone();
        }
        self.board = players.board.to_string();
        self.white = players.white.name.clone();
        self.black = players.black.name.clone();
        self.white_elo = text(players.white.rating.map(|r| r.to_string()));
        self.black_elo = text(players.black.rating.map(|r| r.to_string()));
        self.white_fide_id = text(players.white.fide_id.map(|id| id.to_string()));
        self.black_fide_id = text(players.black.fide_id.map(|id| id.to_string()));
    }
}

/// Who a PGN is written for: the arbiter's has every ruling as a
/// comment; the public's (a spectators' feed) leaves the rulings out
/// (warnings, penalties, claims, corrections, displaced pieces, moves taken
/// back) and keeps the moves, the clocks, the offers, the pauses and the
/// result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Audience {
    /// Every comment.
    #[default]
    Arbiter,
    /// No ruling.
    Public,
}

/// One thing in the movetext, in game order.
#[derive(Debug, Clone)]
enum Element {
    /// A completed move and the mover's clock after it.
    Move {
        side: Color,
        number: u32,
        san: MoveText,
        clock_ms: u64,
    },
    /// Plain words about what happened.
    Comment(String),
}

/// A game being recorded from the referee's effects.
#[derive(Debug, Clone)]
pub struct GameRecord {
    tags: Tags,
    start_fen: Option<String>,
    elements: Vec<Element>,
    result: Option<(KnownOutcome, Reason)>,
    paused_at: Option<Millis>,
    /// A proper offer (made between moving and pressing) waiting for the
    /// press that completes its move: scoresheets note it after the move.
    offer: Option<(Color, String)>,
    /// The moves each side has completed, as the referee counts them (a
    /// correction may set it).
    completed: ByColor<u32>,
    /// A correction of each side's clock under way (6.10.2): every adjust
    /// press gives an effect, and the score gets one comment for them all.
    correction: ByColor<Option<Correction>>,
    /// The clock the game was played on, when known: what a `TimeControl`
    /// tag alone cannot say (a control for each side, a delay, draw odds).
    clock: Option<ClockSetting>,
    /// Whether rulings are written ([`Audience`]).
    audience: Audience,
}

/// The parts of the rules the PGN's clock tags say.
#[derive(Debug, Clone)]
struct ClockSetting {
    white: TimeControl,
    black: TimeControl,
    increment: IncrementMode,
    draw_odds: Option<Color>,
}

impl ClockSetting {
    /// Whether the standard's one `TimeControl` tag says it all.
    fn is_plain(&self) -> bool {
        self.white == self.black
            && self.draw_odds.is_none()
            && self.white.overtime().is_none()
            && match self.increment {
                IncrementMode::Fischer | IncrementMode::Hourglass => true,
                // `-` says no flag, not that `[%clk]` is the time used.
                IncrementMode::Upcount => false,
                IncrementMode::Bronstein | IncrementMode::Delay => !has_increment(&self.white),
            }
    }

    /// A control in the `TimeControl` grammar (PGN standard 9.6.1). A delay
    /// is not an increment: the main time alone is written, which no reader
    /// can mistake for a Fischer increment, and the delay goes in a tag of
    /// its own.
    fn control_tag(&self, control: &TimeControl) -> String {
        match self.increment {
            // Overtime is no part of the standard's grammar: a tag of its own.
            IncrementMode::Fischer => control.without_overtime().to_string(),
            // The standard's sandclock (9.6.1): `*` and the seconds of the glass.
            IncrementMode::Hourglass => format!("*{}", seconds(control.stage(0).time_ms)),
            // The standard's "no time control": nothing flags.
            IncrementMode::Upcount => "-".to_owned(),
            IncrementMode::Bronstein | IncrementMode::Delay => control
                .stages()
                .iter()
                .map(|stage| match stage.moves {
                    Some(n) => format!("{n}/{}", seconds(stage.time_ms)),
                    None => seconds(stage.time_ms),
                })
                .collect::<Vec<_>>()
                .join(":"),
        }
    }

    /// `Bronstein 3` or `delay 3` (seconds, one per stage joined by `:`),
    /// or `None` without a delay.
    fn delay_tag(&self, control: &TimeControl) -> Option<String> {
        let mode = match self.increment {
            IncrementMode::Fischer | IncrementMode::Hourglass | IncrementMode::Upcount => {
                return None;
            }
            IncrementMode::Bronstein => "Bronstein",
            IncrementMode::Delay => "delay",
        };
        if !has_increment(control) {
            return None;
        }
        let per_stage: Vec<String> = control
            .stages()
            .iter()
            .map(|stage| seconds(stage.increment_ms))
            .collect();
        Some(format!("{mode} {}", per_stage.join(":")))
    }

    /// `byo-yomi 5x30` or `Canadian 20/300` (seconds, as `TimeControl`
    /// writes them), or `None` without overtime.
    fn overtime_tag(&self, control: &TimeControl) -> Option<String> {
        let overtime = control.overtime()?;
        Some(if overtime.is_byo_yomi() {
            format!("byo-yomi {overtime}")
        } else {
            format!("Canadian {overtime}")
        })
    }

    /// The tags for the clock, in order.
    fn tags(&self) -> Vec<(&'static str, String)> {
        let mut tags = Vec::new();
        if self.white == self.black {
            tags.push(("TimeControl", self.control_tag(&self.white)));
        } else {
            // cutechess's and fastchess's tags for a control per side.
            tags.push(("WhiteTimeControl", self.control_tag(&self.white)));
            tags.push(("BlackTimeControl", self.control_tag(&self.black)));
        }
        let (white, black) = (self.delay_tag(&self.white), self.delay_tag(&self.black));
        if white == black {
            tags.extend(white.map(|delay| ("TimeDelay", delay)));
        } else {
            tags.extend(white.map(|delay| ("WhiteTimeDelay", delay)));
            tags.extend(black.map(|delay| ("BlackTimeDelay", delay)));
        }
        let (white, black) = (
            self.overtime_tag(&self.white),
            self.overtime_tag(&self.black),
        );
        if white == black {
            tags.extend(white.map(|overtime| ("Overtime", overtime)));
        } else {
            tags.extend(white.map(|overtime| ("WhiteOvertime", overtime)));
            tags.extend(black.map(|overtime| ("BlackOvertime", overtime)));
        }
        if let Some(side) = self.draw_odds {
            tags.push(("DrawOdds", crate::words::side_name(side).to_owned()));
        }
        tags
    }

    /// The clock in words, for a reader that knows none of the tags above.
    fn words(&self) -> String {
        let white = crate::words::time_control_text(&self.white, self.increment);
        let mut words = if self.white == self.black {
            format!("Clock: {white}")
        } else {
            let black = crate::words::time_control_text(&self.black, self.increment);
            format!("Clock: White {white}; Black {black}")
        };
        if let Some(side) = self.draw_odds {
            words.push_str(&format!(
                "; a draw counts as a win for {} (Armageddon)",
                crate::words::side_name(side)
            ));
        }
        words
    }
}

fn has_increment(control: &TimeControl) -> bool {
    control.stages().iter().any(|stage| stage.increment_ms > 0)
}

/// Seconds as the `TimeControl` grammar writes them: `300`, `0.5`.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        let fraction = format!("{:03}", ms % 1000);
        format!("{}.{}", ms / 1000, fraction.trim_end_matches('0'))
    }
}

/// The arbiter's presses on one side's clock while it stands, gathered.
#[derive(Debug, Clone, Copy)]
struct Correction {
    /// The main time left after the last press.
    ms: u64,
    /// The completed moves after the last press.
    completed: u32,
    /// The completed moves before the first.
    completed_before: u32,
    /// Whether a press changed the time. The effects carry the values after
    /// each press only: the first press changed the time when it left the
    /// moves alone.
    clock_changed: bool,
}

impl Correction {
    fn words(&self, side: Color) -> String {
        let moves = (self.completed != self.completed_before)
            .then_some((self.completed_before, self.completed));
        let ms = self.clock_changed.then_some(self.ms);
        comment::corrected(side, ms, moves, self.ms, self.completed)
    }
}

impl GameRecord {
    /// An empty record. `start_fen` is `None` for the standard starting
    /// position; a FEN adds the `SetUp` and `FEN` tags.
    pub fn new(tags: Tags, start_fen: Option<String>) -> GameRecord {
        GameRecord {
            tags,
            start_fen,
            elements: Vec::new(),
            result: None,
            paused_at: None,
            offer: None,
            completed: ByColor::new_with(|_| 0),
            correction: ByColor::new_with(|_| None),
            clock: None,
            audience: Audience::Arbiter,
        }
    }

    /// The same record, written for `audience`: for the public, without
    /// the rulings.
    pub fn for_audience(mut self, audience: Audience) -> GameRecord {
        self.audience = audience;
        self
    }

    /// The same record, told the clock the game is played on: a control
    /// for each side, a Bronstein or US delay, and draw odds then get tags
    /// of their own (and the clock a comment in words) instead of a
    /// `TimeControl` tag that would say something else; a draw won on
    /// odds says so. A `TimeControl` tag given in the tags other than
    /// White's control as the rules write it is kept as given.
    pub fn with_clock(mut self, rules: &Rules) -> GameRecord {
        self.clock = Some(ClockSetting {
            white: rules.time_control.clone(),
            black: rules.time_control_of(Color::Black).clone(),
            increment: rules.increment_mode,
            draw_odds: rules.draw_odds,
        });
        self
    }

    /// Takes one effect, at the instant the referee gave it. Feed every
    /// effect in order; anything after the result is ignored, as the
    /// referee promises there is none.
    pub fn record(&mut self, t: Millis, effect: &Effect) {
        if self.result.is_some() {
            return;
        }
        if let Effect::Corrected {
            side,
            ms,
            completed,
        } = *effect
        {
            let before = *self.completed.get(side);
            let pending = self.correction.get_mut(side);
            *pending = Some(match *pending {
                None => Correction {
                    ms,
                    completed,
                    completed_before: before,
                    clock_changed: completed == before,
                },
                Some(so_far) => Correction {
                    ms,
                    completed,
                    clock_changed: so_far.clock_changed || so_far.ms != ms,
                    ..so_far
                },
            });
            *self.completed.get_mut(side) = completed;
            return;
        }
        self.flush_corrections();
        if let Effect::DrawOffer { side, proper: true } = effect {
            self.flush_offer();
            self.offer = Some((*side, comment::draw_offer(*side, true)));
            return;
        }
        let offer_follows_move = matches!(
            (effect, &self.offer),
            (Effect::Move(m), Some((side, _))) if m.side == *side
        );
        if !offer_follows_move {
            // Anything else first (a refused press, a flag): the offer stays where it was made.
            self.flush_offer();
        }
        let words = match effect {
            Effect::Move(m) => {
                let completed = self.completed.get_mut(m.side);
                *completed = completed.saturating_add(1);
                self.elements.push(Element::Move {
                    side: m.side,
                    number: m.number,
                    san: m.san,
                    clock_ms: match m.side {
                        Color::White => m.white_ms,
                        Color::Black => m.black_ms,
                    },
                });
                self.flush_offer();
                None
            }
            Effect::Violation(ruling) => Some(comment::violation(ruling)),
            Effect::Warning(ruling) => Some(comment::warning(ruling)),
            Effect::TimeAdded { side, ms, law } => {
                Some(comment::time_added(*side, *ms, law.article()))
            }
            Effect::DrawOffer { side, proper } => Some(comment::draw_offer(*side, *proper)),
            Effect::DrawDeclined { side, how } => Some(comment::draw_declined(*side, *how)),
            Effect::Displaced { side, squares } => Some(comment::displaced(*side, squares)),
            Effect::Restored { side, ms } => Some(comment::restored(*side, *ms)),
            Effect::Flag { side } => Some(comment::flag(*side)),
            Effect::Paused => {
                self.paused_at = Some(t);
                Some(comment::paused())
            }
            Effect::Resumed => {
                let stood = self.paused_at.take().map(|at| t.saturating_sub(at));
                Some(comment::resumed(stood))
            }
            Effect::TakenBack { side, number, san } => {
                // A move taken back is not in the score: only the note is.
                if let Some(i) = self.elements.iter().rposition(|e| {
                    matches!(e, Element::Move { side: s, number: n, .. } if s == side && n == number)
                }) {
                    self.elements.remove(i);
                }
                let completed = self.completed.get_mut(*side);
                *completed = completed.saturating_sub(1);
                Some(comment::taken_back(*side, *number, san))
            }
            Effect::Waived { side, law } => Some(comment::waived(*side, law.article())),
            Effect::Claim { side, law, upheld } => {
                Some(comment::claim(*side, law.article(), *upheld))
            }
            Effect::Choice { side, law, options } => {
                Some(comment::choice(*side, law.article(), options.as_slice()))
            }
            Effect::Result { outcome, reason } => {
                self.result = Some((*outcome, *reason));
                let odds = self.clock.as_ref().and_then(|c| c.draw_odds);
                match (outcome, odds) {
                    (KnownOutcome::Decisive { winner }, Some(odds))
                        if *winner == odds && is_drawn(*reason) =>
                    {
                        comment::ending(KnownOutcome::Draw, *reason)
                            .map(|drawn| comment::won_on_odds(&drawn, odds))
                    }
                    _ => comment::ending(*outcome, *reason),
                }
            }
            // Effects that say nothing a reader of the score needs (the
            // first press), and any the referee grows later until they are
            // given words here.
            _ => None,
        };
        // The public's score: the move taken back is gone all the same,
        // only the words of the ruling are left out.
        let ruling = matches!(
            effect,
            Effect::Violation(_)
                | Effect::Warning(_)
                | Effect::TimeAdded { .. }
                | Effect::Displaced { .. }
                | Effect::Restored { .. }
                | Effect::TakenBack { .. }
                | Effect::Waived { .. }
                | Effect::Claim { .. }
                | Effect::Choice { .. }
        );
        if let Some(words) = words.filter(|_| !ruling || self.audience == Audience::Arbiter) {
            self.elements.push(Element::Comment(words));
        }
    }

    /// Takes every effect of a game in order, with its restarts (a crash, a
    /// power cut: each one's instant and how long the clock was off, as the
    /// `restart` lines give them) noted after the effects of their instant.
    pub fn record_all(&mut self, effects: &[(Millis, Effect)], restarts: &[(Millis, Option<u64>)]) {
        let mut restarts = restarts.iter().peekable();
        for (t, effect) in effects {
            while let Some(&&(at, off_ms)) = restarts.peek() {
                if at >= *t {
                    break;
                }
                self.power_cut(at, off_ms);
                restarts.next();
            }
            self.record(*t, effect);
        }
        for &(at, off_ms) in restarts {
            self.power_cut(at, off_ms);
        }
    }

    /// Notes that the clock came back at `t` (its last stored instant)
    /// after a crash or a power cut, off for `off_ms` when known: its note
    /// replaces the `Clock paused` of the pause the restored game came back
    /// in, at the same instant.
    pub fn power_cut(&mut self, t: Millis, off_ms: Option<u64>) {
        if self.result.is_some() {
            return;
        }
        self.flush_corrections();
        self.flush_offer();
        let paused = comment::paused();
        if self.paused_at == Some(t)
            && matches!(self.elements.last(), Some(Element::Comment(words)) if *words == paused)
        {
            self.elements.pop();
        }
        self.elements
            .push(Element::Comment(comment::power_cut(off_ms)));
    }

    /// Writes out a waiting draw offer.
    /// Ends the moves with `words` as a last comment (an offer still
    /// waiting for its move goes first): a game cut short by a fault.
    pub fn close_with_note(&mut self, words: String) {
        self.flush_corrections();
        self.flush_offer();
        self.elements.push(Element::Comment(words));
    }

    /// The comments of the corrections under way, White's first.
    fn correction_comments(&self) -> impl Iterator<Item = Element> + '_ {
        let written = self.audience == Audience::Arbiter;
        [Color::White, Color::Black]
            .into_iter()
            .filter_map(move |side| {
                if !written {
                    return None;
                }
                self.correction
                    .get(side)
                    .map(|c| Element::Comment(c.words(side)))
            })
    }

    /// Writes out the corrections under way: something else happened.
    fn flush_corrections(&mut self) {
        let comments: Vec<Element> = self.correction_comments().collect();
        self.elements.extend(comments);
        self.correction = ByColor::new_with(|_| None);
    }

    fn flush_offer(&mut self) {
        if let Some((_, words)) = self.offer.take() {
            self.elements.push(Element::Comment(words));
        }
    }

    /// The result token: `1-0`, `0-1`, `1/2-1/2`, or `*` while the game
    /// has no result.
    pub fn result_token(&self) -> &'static str {
        match self.result {
            Some((outcome, _)) => outcome.as_str(),
            None => "*",
        }
    }

    /// The complete PGN text: tags, a blank line, the movetext ending in
    /// the result token, and a final newline.
    pub fn to_pgn(&self) -> String {
        let mut pgn = String::new();
        let unknown = |value: &str, default: &'static str| {
            if value.trim().is_empty() {
                default.to_owned()
            } else {
                value.trim().to_owned()
            }
        };
        let termination = match self.result {
            Some((_, reason)) => comment::termination(reason),
            None => "unterminated",
        };
        let mut tags = vec![
            ("Event", unknown(&self.tags.event, "?")),
            ("Site", unknown(&self.tags.site, "?")),
            ("Date", unknown(&self.tags.date, "????.??.??")),
            ("Round", unknown(&self.tags.round, "?")),
            ("White", unknown(&self.tags.white, "?")),
            ("Black", unknown(&self.tags.black, "?")),
            ("Result", self.result_token().to_owned()),
        ];
        // The players' facts a pairing gave, after the seven tag roster.
        for (name, value) in [
            ("WhiteElo", &self.tags.white_elo),
            ("BlackElo", &self.tags.black_elo),
            ("WhiteFideId", &self.tags.white_fide_id),
            ("BlackFideId", &self.tags.black_fide_id),
            ("Board", &self.tags.board),
        ] {
            if !value.trim().is_empty() {
                tags.push((name, value.trim().to_owned()));
            }
        }
        let given = self.tags.time_control.trim();
        match &self.clock {
            Some(clock) if given.is_empty() || given == clock.white.to_string() => {
                tags.extend(clock.tags());
            }
            _ => tags.push(("TimeControl", unknown(given, "?"))),
        }
        tags.push(("Termination", termination.to_owned()));
        if let Some(fen) = &self.start_fen {
            tags.push(("SetUp", "1".to_owned()));
            tags.push(("FEN", fen.clone()));
        }
        for (name, value) in tags {
            pgn.push_str(&format!("[{name} \"{}\"]\n", tag_value(&value)));
        }
        pgn.push('\n');

        let mut movetext = Movetext::default();
        // Black's move needs its own number after a comment or at the start
        // (8.2.2.2); right after White's move and clock it does not.
        let mut after_white_move = false;
        if let Some(clock) = self.clock.as_ref().filter(|c| !c.is_plain()) {
            movetext.comment(&comment_text(&clock.words()));
        }
        let pending: Vec<Element> = self
            .correction_comments()
            .chain(
                self.offer
                    .as_ref()
                    .map(|(_, words)| Element::Comment(words.clone())),
            )
            .collect();
        for element in self.elements.iter().chain(&pending) {
            match element {
                Element::Move {
                    side,
                    number,
                    san,
                    clock_ms,
                } => {
                    match side {
                        Color::White => movetext.token(&format!("{number}.")),
                        Color::Black if !after_white_move => {
                            movetext.token(&format!("{number}..."))
                        }
                        Color::Black => {}
                    }
                    movetext.token(san);
                    movetext.token(&format!("{{{}}}", clock_command(*clock_ms)));
                    after_white_move = *side == Color::White;
                }
                Element::Comment(words) => {
                    movetext.comment(&comment_text(words));
                    after_white_move = false;
                }
            }
        }
        movetext.token(self.result_token());
        pgn.push_str(&movetext.finish());
        pgn.push('\n');
        pgn
    }
}

/// Whether a game ending for `reason` is a draw before any draw odds: the
/// result of a game won on odds gives the winner, the reason why it was a
/// draw.
fn is_drawn(reason: Reason) -> bool {
    matches!(
        reason,
        Reason::Agreement
            | Reason::Stalemate
            | Reason::InsufficientMaterial
            | Reason::ThreefoldRepetition
            | Reason::FiftyMoves
            | Reason::FivefoldRepetition
            | Reason::SeventyFiveMoves
            | Reason::TimeoutVsInsufficientMaterial
    )
}

/// A tag value with `\` and `"` escaped (8.1.1) and no line breaks.
fn tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' | '"' => {
                out.push('\\');
                out.push(ch);
            }
            ch if ch.is_control() => out.push(' '),
            ch => out.push(ch),
        }
    }
    out
}

/// Comment words that cannot end the comment early: PGN has no escape for
/// `}` inside a brace comment.
fn comment_text(words: &str) -> String {
    words
        .chars()
        .map(|ch| match ch {
            '{' => '(',
            '}' => ')',
            ch if ch.is_control() => ' ',
            ch => ch,
        })
        .collect()
}

/// The FEN of `rules.start`, or `None` for the standard starting position.
pub fn start_fen(rules: &Rules) -> Option<String> {
    let fen = Fen::from_position(&rules.start, EnPassantMode::Legal).to_string();
    let standard = Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
    (fen != standard).then_some(fen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CompletedMove, Law, Ruling};

    fn moved(side: Color, number: u32, san: &str, white_ms: u64, black_ms: u64) -> Effect {
        Effect::Move(CompletedMove {
            side,
            number,
            uci: MoveText::default(),
            san: MoveText::new(san).expect("a SAN move"),
            white_ms,
            black_ms,
        })
    }

    fn tags() -> Tags {
        Tags {
            event: "Club \"night\"".to_owned(),
            site: "Lisbon".to_owned(),
            date: "2026.11.21".to_owned(),
            round: "3".to_owned(),
            white: "Ana".to_owned(),
            black: "Rui".to_owned(),
            time_control: "300+2".to_owned(),
            ..Tags::default()
        }
    }

    #[test]
    fn a_pairings_facts_follow_the_roster_and_none_is_written_empty() {
        let given = Tags {
            white_elo: "2690".to_owned(),
            black_fide_id: "4600022".to_owned(),
            board: "7".to_owned(),
            ..tags()
        };
        let pgn = GameRecord::new(given, None).to_pgn();
        let result = pgn.find("[Result ").unwrap();
        let elo = pgn.find("[WhiteElo \"2690\"]").expect(&pgn);
        let fide = pgn.find("[BlackFideId \"4600022\"]").expect(&pgn);
        let board = pgn.find("[Board \"7\"]").expect(&pgn);
        assert!(result < elo && elo < fide && fide < board, "{pgn}");
        assert!(
            !pgn.contains("BlackElo") && !pgn.contains("WhiteFideId"),
            "{pgn}"
        );
        let plain = GameRecord::new(tags(), None).to_pgn();
        assert!(
            !plain.contains("Elo") && !plain.contains("Board"),
            "{plain}"
        );
    }

    #[test]
    fn tags_come_in_roster_order_escaped() {
        let pgn = GameRecord::new(tags(), None).to_pgn();
        let tag_lines: Vec<&str> = pgn.lines().take_while(|l| !l.is_empty()).collect();
        assert_eq!(
            tag_lines,
            [
                r#"[Event "Club \"night\""]"#,
                r#"[Site "Lisbon"]"#,
                r#"[Date "2026.11.21"]"#,
                r#"[Round "3"]"#,
                r#"[White "Ana"]"#,
                r#"[Black "Rui"]"#,
                r#"[Result "*"]"#,
                r#"[TimeControl "300+2"]"#,
                r#"[Termination "unterminated"]"#,
            ]
        );
        assert!(pgn.ends_with("\n\n*\n"), "{pgn:?}");
    }

    #[test]
    fn unknown_tags_are_question_marks_and_a_set_position_has_its_fen() {
        let fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1".to_owned();
        let pgn = GameRecord::new(Tags::default(), Some(fen.clone())).to_pgn();
        assert!(pgn.contains("[Event \"?\"]\n"));
        assert!(pgn.contains("[Date \"????.??.??\"]\n"));
        assert!(pgn.contains("[SetUp \"1\"]\n"));
        assert!(pgn.contains(&format!("[FEN \"{fen}\"]\n")));
    }

    #[test]
    fn black_gets_a_number_after_a_comment_only() {
        let mut record = GameRecord::new(tags(), None);
        record.record(0, &Effect::Started { side: Color::White });
        record.record(1, &moved(Color::White, 1, "e4", 301_000, 300_000));
        record.record(2, &moved(Color::Black, 1, "e5", 301_000, 299_500));
        record.record(3, &moved(Color::White, 2, "Nf3", 299_000, 299_500));
        record.record(
            4,
            &Effect::DrawOffer {
                side: Color::White,
                proper: true,
            },
        );
        record.record(5, &moved(Color::Black, 2, "Nc6", 299_000, 3_661_000));
        record.record(
            6,
            &Effect::Violation(Ruling {
                side: Color::White,
                law: Law::TouchedOwn,
                detail: "Touch-move: move the {f3} knight".to_owned(),
            }),
        );
        record.record(
            7,
            &Effect::Result {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
                reason: Reason::Resignation,
            },
        );
        // Nothing after the result.
        record.record(8, &moved(Color::White, 3, "Bc4", 1, 1));
        let pgn = record.to_pgn();
        let movetext = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext.trim_end(),
            "1. e4 {[%clk 0:05:01]} e5 {[%clk 0:04:59]} 2. Nf3 {[%clk 0:04:59]} \
             {White offers a draw} 2... Nc6 {[%clk 1:01:01]} \
             {Violation by White: Touch-move: move the (f3) knight (art. 4.3.1)} \
             {White resigns} 0-1"
        );
        assert!(pgn.contains("[Result \"0-1\"]"));
        assert!(pgn.contains("[Termination \"normal\"]"));
    }

    #[test]
    fn a_proper_offer_is_noted_after_the_move_it_came_with() {
        let offer = Effect::DrawOffer {
            side: Color::White,
            proper: true,
        };
        let mut record = GameRecord::new(tags(), None);
        record.record(1, &offer);
        // Not written yet, but not lost either.
        assert!(record.to_pgn().ends_with("{White offers a draw} *\n"));
        record.record(2, &moved(Color::White, 1, "e4", 300_000, 300_000));
        let pgn = record.to_pgn();
        assert!(
            pgn.ends_with("1. e4 {[%clk 0:05:00]} {White offers a draw} *\n"),
            "{pgn}"
        );

        // A refused press: the offer stays before the ruling.
        let mut record = GameRecord::new(tags(), None);
        record.record(1, &offer);
        record.record(
            2,
            &Effect::Violation(Ruling {
                side: Color::White,
                law: Law::IllegalMove,
                detail: String::new(),
            }),
        );
        record.record(3, &moved(Color::White, 1, "d4", 300_000, 300_000));
        let pgn = record.to_pgn();
        assert!(
            pgn.contains("{White offers a draw} {Violation by White (art. 7.5.1)} 1. d4"),
            "{pgn}"
        );
    }

    #[test]
    fn a_correction_is_one_comment_saying_what_changed() {
        let corrected = |side, ms, completed| Effect::Corrected {
            side,
            ms,
            completed,
        };
        let mut record = GameRecord::new(tags(), None);
        record.record(1, &moved(Color::White, 1, "e4", 300_000, 300_000));
        record.record(2, &Effect::Paused);
        // Three presses on White's minutes, one on Black's moves.
        for (i, ms) in [360_000, 420_000, 480_000].into_iter().enumerate() {
            record.record(3 + i as u64, &corrected(Color::White, ms, 1));
        }
        record.record(7, &corrected(Color::Black, 290_000, 1));
        // Not lost while the clock still stands.
        let pgn = record.to_pgn().replace('\n', " ");
        assert!(
            pgn.ends_with(
                "{Arbiter set White's clock to 8:00 (art. 6.10)} \
                 {Arbiter set Black's completed moves from 0 to 1 (art. 6.10)} * "
            ),
            "{pgn}"
        );
        record.record(8, &Effect::Resumed);
        record.record(9, &Effect::Paused);
        // Moves, then time: both said, once.
        record.record(10, &corrected(Color::White, 480_000, 2));
        record.record(11, &corrected(Color::White, 470_000, 2));
        record.record(12, &Effect::Resumed);
        let pgn = record.to_pgn();
        let movetext = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext.trim_end(),
            "1. e4 {[%clk 0:05:00]} {Clock paused} \
             {Arbiter set White's clock to 8:00 (art. 6.10)} \
             {Arbiter set Black's completed moves from 0 to 1 (art. 6.10)} \
             {Clock resumed after 0:00} {Clock paused} \
             {Arbiter set White's clock to 7:50 and completed moves from 1 to 2 (art. 6.10)} \
             {Clock resumed after 0:00} *"
        );
    }

    fn drawn_by_agreement(winner: Color) -> Effect {
        Effect::Result {
            outcome: KnownOutcome::Decisive { winner },
            reason: Reason::Agreement,
        }
    }

    #[test]
    fn an_armageddon_game_says_both_controls_and_why_a_draw_is_black_s_win() {
        let rules = Rules {
            time_control: "300+2".parse().unwrap(),
            black_time_control: Some("240+2".parse().unwrap()),
            draw_odds: Some(Color::Black),
            ..Rules::default()
        };
        let mut record = GameRecord::new(tags(), None).with_clock(&rules);
        record.record(1, &moved(Color::White, 1, "e4", 300_000, 240_000));
        record.record(2, &drawn_by_agreement(Color::Black));
        let pgn = record.to_pgn();
        assert!(
            pgn.contains(
                "[Result \"0-1\"]\n[WhiteTimeControl \"300+2\"]\n\
                 [BlackTimeControl \"240+2\"]\n[DrawOdds \"Black\"]\n\
                 [Termination \"normal\"]\n"
            ),
            "{pgn}"
        );
        assert!(!pgn.contains("[TimeControl "), "{pgn}");
        let movetext = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext.trim_end(),
            "{Clock: White 5 min + 2 s per move from move 1; Black 4 min + 2 s per move \
             from move 1; a draw counts as a win for Black (Armageddon)} \
             1. e4 {[%clk 0:05:00]} \
             {Draw agreed: a draw, which counts as a win for Black (draw odds)} 0-1"
        );

        // A win over the board is only a win.
        let mut record = GameRecord::new(tags(), None).with_clock(&rules);
        record.record(
            1,
            &Effect::Result {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
                reason: Reason::Resignation,
            },
        );
        assert!(record.to_pgn().contains("{White resigns} 0-1"));
    }

    #[test]
    fn overtime_has_a_tag_of_its_own_and_words() {
        let pgn = |tc: &str| {
            let rules = Rules {
                time_control: tc.parse().unwrap(),
                ..Rules::default()
            };
            let mut given = tags();
            given.time_control = rules.time_control.to_string();
            GameRecord::new(given, None).with_clock(&rules).to_pgn()
        };
        let byo = pgn("60m|5x30s");
        assert!(
            byo.contains("[TimeControl \"3600\"]\n[Overtime \"byo-yomi 5x30\"]\n"),
            "{byo}"
        );
        assert!(
            byo.contains("{Clock: 60 min, then byo-yomi: 5 periods of 30 s}"),
            "{byo}"
        );
        let canadian = pgn("60m|20/5m");
        assert!(
            canadian.contains("[TimeControl \"3600\"]\n[Overtime \"Canadian 20/300\"]\n"),
            "{canadian}"
        );
        assert!(
            canadian
                .contains("{Clock: 60 min, then 20 moves in 5 min, renewed (Canadian overtime)}"),
            "{canadian}"
        );
    }

    #[test]
    fn an_hourglass_is_the_standards_sandclock_and_upcount_no_time_control() {
        let pgn = |tc: &str, mode| {
            let rules = Rules {
                time_control: tc.parse().unwrap(),
                increment_mode: mode,
                ..Rules::default()
            };
            let mut given = tags();
            given.time_control = rules.time_control.to_string();
            GameRecord::new(given, None).with_clock(&rules).to_pgn()
        };
        let hourglass = pgn("180", IncrementMode::Hourglass);
        assert!(
            hourglass.contains("[TimeControl \"*180\"]\n[Termination"),
            "{hourglass}"
        );
        assert!(!hourglass.contains("{Clock:"), "{hourglass}");
        let upcount = pgn("300", IncrementMode::Upcount);
        assert!(
            upcount.contains("[TimeControl \"-\"]\n[Termination"),
            "{upcount}"
        );
        assert!(
            upcount.contains("\n\n{Clock: counting up the time used, no flag}"),
            "{upcount}"
        );
    }

    #[test]
    fn a_delay_is_not_written_as_an_increment() {
        for (mode, words) in [
            (IncrementMode::Bronstein, "Bronstein 3"),
            (IncrementMode::Delay, "delay 3"),
        ] {
            let rules = Rules {
                time_control: "3600+3".parse().unwrap(),
                increment_mode: mode,
                ..Rules::default()
            };
            let mut given = tags();
            given.time_control = rules.time_control.to_string();
            let pgn = GameRecord::new(given, None).with_clock(&rules).to_pgn();
            assert!(
                pgn.contains(&format!(
                    "[TimeControl \"3600\"]\n[TimeDelay \"{words}\"]\n"
                )),
                "{pgn}"
            );
            assert!(pgn.contains("\n\n{Clock: 60 min, "), "{pgn}");
        }
        let rules = Rules {
            time_control: "40/5400+30:1800+30".parse().unwrap(),
            increment_mode: IncrementMode::Bronstein,
            ..Rules::default()
        };
        let pgn = GameRecord::new(Tags::default(), None)
            .with_clock(&rules)
            .to_pgn();
        assert!(
            pgn.contains("[TimeControl \"40/5400:1800\"]\n[TimeDelay \"Bronstein 30:30\"]\n"),
            "{pgn}"
        );
        // Fischer, one control, no odds: the standard's tag alone, no comment.
        let rules = Rules {
            time_control: "300+2".parse().unwrap(),
            ..Rules::default()
        };
        let pgn = GameRecord::new(Tags::default(), None)
            .with_clock(&rules)
            .to_pgn();
        assert!(
            pgn.contains("[TimeControl \"300+2\"]\n[Termination"),
            "{pgn}"
        );
        assert!(pgn.ends_with("\n\n*\n"), "{pgn}");
    }

    #[test]
    fn a_power_cut_says_so_and_how_long_the_clock_was_off() {
        let effects = [
            (1, moved(Color::White, 1, "e4", 300_000, 300_000)),
            // The restored game comes back paused at its last instant...
            (1_500, Effect::Paused),
            // ...and a press 12 s after the restart resumes it.
            (13_500, Effect::Resumed),
        ];
        let mut record = GameRecord::new(tags(), None);
        record.record_all(&effects, &[(1_500, Some(205_000))]);
        let pgn = record.to_pgn().replace('\n', " ");
        assert!(
            pgn.ends_with(
                "1. e4 {[%clk 0:05:00]} {Power cut: the clock was off for 3:25, its times \
                 kept as they stood} {Clock resumed after 0:12} * "
            ),
            "{pgn}"
        );
        // An arbiter's pause before the cut stays; a time off the wall
        // clock could not tell is not made up.
        let effects = [(1_000, Effect::Paused)];
        let mut record = GameRecord::new(tags(), None);
        record.record_all(&effects, &[(4_000, None)]);
        let pgn = record.to_pgn().replace('\n', " ");
        assert!(
            pgn.ends_with(
                "{Clock paused} {Power cut: the clock was off, its times kept as they stood} * "
            ),
            "{pgn}"
        );
    }

    #[test]
    fn pauses_show_how_long_the_clock_stood() {
        let mut record = GameRecord::new(tags(), None);
        record.record(10_000, &Effect::Paused);
        record.record(143_000, &Effect::Resumed);
        let pgn = record.to_pgn();
        assert!(
            pgn.contains("{Clock paused} {Clock resumed after 2:13} *"),
            "{pgn}"
        );
    }
}
