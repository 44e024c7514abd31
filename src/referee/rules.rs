//! The settings a game is played under, fixed before it starts (6.3).

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode};

use super::TimeControl;
use super::time_control::{seconds_text, units_text};

/// What `+N` in a time control means, and how the clocks count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncrementMode {
    /// N seconds added when a move is completed by the press, from move 1.
    #[default]
    Fischer,
    /// The time used for the move is added back, at most N seconds.
    Bronstein,
    /// US delay: the countdown starts N seconds after the clock starts.
    Delay,
    /// Hourglass (sandclock, PGN's `*N`): the time one player uses is
    /// added to his opponent's; the flag falls when a clock reaches zero.
    /// No increment, one stage.
    Hourglass,
    /// Upcount (a DGT 3000's "upcount"): each clock counts the time its
    /// player has used, up from zero; no flag ever falls. The time control's
    /// times are not used.
    Upcount,
}

impl IncrementMode {
    /// Whether the clocks count down to a flag (every mode but upcount).
    pub const fn has_flag(self) -> bool {
        !matches!(self, IncrementMode::Upcount)
    }

    /// Whether the `+N` and the stages of a time control mean anything
    /// (not in hourglass nor upcount, which have neither).
    pub const fn takes_increments(self) -> bool {
        !matches!(self, IncrementMode::Hourglass | IncrementMode::Upcount)
    }

    /// `control` as a clock's face names it under this mode, its increment written as
    /// what it is: a Fischer increment as `90m+30s`, a US delay and a
    /// Bronstein delay as US Chess writes them, `G/90 d5` and `G/90 b5`
    /// (`40/120 SD/30 d5` for stages), never as a `+` a player reads as an
    /// increment.
    pub fn label(self, control: &TimeControl) -> String {
        self.label_in(control, ["hourglass", "count up"])
    }

    /// [`IncrementMode::label`] with the two modes it names in words,
    /// hourglass and upcount, named in the players' language.
    pub fn label_in(self, control: &TimeControl, [hourglass, count_up]: [&str; 2]) -> String {
        let mark = match self {
            IncrementMode::Fischer => return control.with_units(),
            IncrementMode::Delay => 'd',
            IncrementMode::Bronstein => 'b',
            IncrementMode::Hourglass => {
                return format!("{hourglass} {}", units_text(control.stage(0).time_ms));
            }
            IncrementMode::Upcount => return count_up.to_owned(),
        };
        // US Chess counts minutes; anything else keeps its units.
        let minutes = |ms: u64| {
            if ms.is_multiple_of(60_000) {
                (ms / 60_000).to_string()
            } else {
                units_text(ms)
            }
        };
        let mut text = String::new();
        let mut delay = None;
        for (i, stage) in control.stages().iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            match stage.moves {
                Some(n) => text.push_str(&format!("{n}/{}", minutes(stage.time_ms))),
                None if i == 0 => text.push_str(&format!("G/{}", minutes(stage.time_ms))),
                None => text.push_str(&format!("SD/{}", minutes(stage.time_ms))),
            }
            // One delay for the whole game is written once, at the end.
            if control
                .stages()
                .iter()
                .all(|s| s.increment_ms == stage.increment_ms)
            {
                delay = Some(stage.increment_ms);
            } else if stage.increment_ms > 0 {
                text.push_str(&format!(" {mark}{}", seconds_text(stage.increment_ms)));
            }
        }
        if let Some(ms) = delay.filter(|ms| *ms > 0) {
            text.push_str(&format!(" {mark}{}", seconds_text(ms)));
        }
        if let Some(overtime) = control.overtime() {
            text.push_str(&format!(" |{overtime}"));
        }
        text
    }
}

/// The kind of game, for the penalties of appendices A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GameMode {
    /// A standard game: the Laws' articles as they stand.
    #[default]
    Standard,
    /// A rapid game (Appendix A).
    Rapid,
    /// A blitz game (Appendix B).
    Blitz,
}

impl GameMode {
    /// Time given to the opponent of a player who completes an illegal move (7.5.5, A.3, B.3).
    pub const fn penalty_ms(self) -> u64 {
        match self {
            GameMode::Standard => 120_000,
            GameMode::Rapid | GameMode::Blitz => 60_000,
        }
    }
}

/// What the referee does when a rule is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Enforcement {
    /// The press that would complete the offending move is refused: the
    /// offender's clock runs on until he sets the board right and completes a
    /// correct move.
    #[default]
    Strict,
    /// The violation is shown and the press goes through; the opponent decides
    /// whether to call the arbiter. Illegal moves (7.5) are still refused, as
    /// no game can go on from an illegal position.
    Claim,
    /// Violations are only logged; illegal moves are refused without penalty.
    Record,
}

macro_rules! keyword_enum {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),+) => {
        impl $ty {
            /// The lower-case keyword used in files and on the command line.
            pub const fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = UnknownKeyword;

            fn from_str(s: &str) -> Result<$ty, UnknownKeyword> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(UnknownKeyword { what: $what, expected: concat!($("`", $name, "` "),+) }),
                }
            }
        }
    };
}

/// The laws a game is played under: the FIDE Laws of 2023, with or
/// without adequate supervision (Appendix A), or the 1858 laws of the
/// London committee and the Café de la Régence (the seeds' chapter XII).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Laws {
    /// The FIDE Laws of Chess in force since 1 January 2023.
    #[default]
    Fide2023,
    /// The FIDE Laws for rapid and blitz where supervision is inadequate
    /// (Appendix A.5): article 4 and illegal moves are ruled on only when
    /// the opponent claims, and an illegal move stands until he does.
    Fide2023Unsupervised,
    /// The "Leyes del juego" of 1858 (Borao, chapter XII): the opponent
    /// chooses the penalty for a touched enemy piece or a false move.
    Regence1858,
}

keyword_enum!(IncrementMode, "increment mode", Fischer => "fischer", Bronstein => "bronstein", Delay => "delay", Hourglass => "hourglass", Upcount => "upcount");
keyword_enum!(GameMode, "mode", Standard => "standard", Rapid => "rapid", Blitz => "blitz");
keyword_enum!(Enforcement, "enforcement", Strict => "strict", Claim => "claim", Record => "record");
keyword_enum!(Laws, "laws", Fide2023 => "fide-2023", Fide2023Unsupervised => "fide-2023-unsupervised", Regence1858 => "regence-1858");

/// A keyword that is not one of the expected ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKeyword {
    what: &'static str,
    expected: &'static str,
}

impl fmt::Display for UnknownKeyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {}: expected one of {}",
            self.what,
            self.expected.trim_end()
        )
    }
}

impl std::error::Error for UnknownKeyword {}

/// Everything the referee needs to know before the game starts.
#[derive(Debug, Clone)]
pub struct Rules {
    /// White's time control, and Black's too unless `black_time_control` says otherwise.
    pub time_control: TimeControl,
    /// Black's own time control when it differs from White's (Armageddon:
    /// White `300+2`, Black `240+2`); `None` when both play under `time_control`.
    pub black_time_control: Option<TimeControl>,
    /// The side that wins a game that would otherwise be drawn (Armageddon:
    /// Black). Every drawn result becomes a win for this side, with the
    /// reason the game was drawn.
    pub draw_odds: Option<Color>,
    /// What the `+N` of the time controls means.
    pub increment_mode: IncrementMode,
    /// Standard, rapid or blitz: the penalties of appendices A and B.
    pub mode: GameMode,
    /// What happens when a rule is broken.
    pub enforcement: Enforcement,
    /// The laws the game is played under.
    pub laws: Laws,
    /// A press sooner than this after the last release is a press with the
    /// other hand (6.2.3): a warning.
    pub min_press_gap_ms: u64,
    /// A displacement that begins this soon after a press is charged to the
    /// player who pressed (7.4.1).
    pub knock_window_ms: u64,
    /// The position on the board when the game starts.
    pub start: Chess,
    /// A plain clock, with no sensor board (`board.kind = "none"`): each
    /// press of the running clock's lever completes a turn, written `--`
    /// (a move nobody saw), and only the clock's rules apply: the flag
    /// loses (6.9, the position unknown).
    pub plain_clock: bool,
}

impl Rules {
    /// The time control `side` plays under.
    pub fn time_control_of(&self, side: Color) -> &TimeControl {
        match (side, &self.black_time_control) {
            (Color::Black, Some(black)) => black,
            _ => &self.time_control,
        }
    }

    /// The starting position as FEN, en passant only when it can be taken:
    /// what the game depends on, move counters included.
    pub fn start_fen(&self) -> Fen {
        Fen::from_position(&self.start, EnPassantMode::Legal)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            time_control: TimeControl::default(),
            black_time_control: None,
            draw_odds: None,
            increment_mode: IncrementMode::default(),
            mode: GameMode::default(),
            enforcement: Enforcement::default(),
            laws: Laws::default(),
            min_press_gap_ms: 100,
            knock_window_ms: 2000,
            plain_clock: false,
            start: Chess::default(),
        }
    }
}

/// Equal rules make the same game. Written by hand because `Chess`'s own
/// equality ignores the move counters, which matter here (the fifty-move
/// rule, the move numbers): starting positions compare by their FEN.
impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        // Destructured so that a new field cannot be forgotten here.
        let Rules {
            time_control,
            black_time_control,
            draw_odds,
            increment_mode,
            mode,
            enforcement,
            laws,
            min_press_gap_ms,
            knock_window_ms,
            start: _,
            plain_clock,
        } = self;
        *time_control == other.time_control
            && *black_time_control == other.black_time_control
            && *draw_odds == other.draw_odds
            && *increment_mode == other.increment_mode
            && *mode == other.mode
            && *enforcement == other.enforcement
            && *laws == other.laws
            && *min_press_gap_ms == other.min_press_gap_ms
            && *knock_window_ms == other.knock_window_ms
            && *plain_clock == other.plain_clock
            && self.start_fen() == other.start_fen()
    }
}

impl Eq for Rules {}
