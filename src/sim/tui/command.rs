//! The simulator's command line: what a person types, parsed before it
//! touches anything, so that a typo gives a one-line error and never a
//! panic. Moves are recognised by their shape here and resolved against the
//! game's position with [`resolve_move`] when they are played.

use std::fmt;

use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Role, Square};

use crate::config::LeverSide;
use crate::face::{Expected, HELP_ROWS, Language};
use crate::gesture;
use crate::words;

/// One typed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimCommand {
    /// A move in UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`), as typed: the hands
    /// make it on the board.
    Move(String),
    /// A hand lifts the piece on a square and keeps it.
    Lift(Square),
    /// A hand puts the piece it holds (or the one lifted from that square)
    /// down on a square.
    Place(Square),
    /// A hand touches the piece on a square.
    Touch(Square),
    /// The hand leaves the piece on a square.
    Untouch(Square),
    /// A piece is knocked off its square: a lift nobody means.
    Knock(Square),
    /// A lever goes down, by where it sits on the clock.
    Lever(LeverSide),
    /// The arbiter's menu button: pause, resume, leave a finished game.
    Menu,
    /// A player's draw button: offer, accept, claim.
    Draw(Color),
    /// A player's adjust button: "j'adoube".
    Adjust(Color),
    /// A player resigns.
    Resign(Color),
    /// A player declines the draw offered to him, aloud.
    Decline(Color),
    /// A player claims that his opponent broke article 4 (4.8).
    Claim(Color),
    /// The promotion piece chosen on the clock.
    Promote(Role),
    /// Whether the mover's lever is pressed after a typed move.
    Auto(bool),
    /// The board's cable comes out.
    Unplug,
    /// The board's cable goes back in.
    Plug,
    /// The pieces are set up for a new game (between games only).
    SetUp,
    /// Write this session's games as PGN (the one in play so far, its
    /// result `*`) to a file: the one named, else the last one named, else
    /// [`PGN_FILE`]. Quitting writes them there too.
    Pgn(Option<String>),
    /// Show or hide the list of commands.
    Help,
    /// Leave the simulator.
    Quit,
}

/// Why a line could not be taken as a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// Nothing was typed.
    Empty,
    /// Neither a command nor anything shaped like a move.
    Unknown(String),
    /// The command needs an argument: what it expects.
    Missing {
        /// The command typed.
        command: &'static str,
        /// What it expects.
        expected: Expected,
    },
    /// Words after the last argument.
    TooMany {
        /// The command typed.
        command: &'static str,
    },
    /// Not a square from a1 to h8.
    BadSquare(String),
    /// Not `white` or `black`.
    BadSide(String),
    /// Not one of `q` `r` `b` `n`.
    BadPromotion(String),
    /// Not `on` or `off`.
    BadSwitch(String),
    /// No game is being played, so there is no position to move in.
    NoGame,
    /// The move is shaped right but not legal in the position.
    Illegal(String),
    /// A pawn's move to the last rank typed without the piece it becomes.
    NeedsPromotion(String),
    /// The pieces on the board are not the game's position (pieces lifted,
    /// knocked or put down by hand): the side to move.
    BoardDiffers(Color),
    /// This side made a move on the board and has not pressed its lever:
    /// the next move waits for the press.
    NotPressed(Color),
    /// The game is over: nothing more is played in it.
    GameOver,
    /// The hands are still busy with this.
    Busy(String),
    /// A game is being played: its pieces stay where they are.
    InGame,
}

impl CommandError {
    /// The error in words, in the players' `language`.
    pub fn text_in(&self, language: Language) -> String {
        let w = language.sim();
        let side = |side: Color| language.side(side);
        match self {
            CommandError::Empty => w.empty.to_owned(),
            CommandError::Unknown(word) => (w.unknown)(word),
            CommandError::Missing { command, expected } => {
                (w.missing)(command, w.expected(*expected))
            }
            CommandError::TooMany { command } => (w.too_many)(command),
            CommandError::BadSquare(s) => (w.bad_square)(s),
            CommandError::BadSide(s) => (w.bad_side)(s),
            CommandError::BadPromotion(s) => (w.bad_promotion)(s),
            CommandError::BadSwitch(s) => (w.bad_switch)(s),
            CommandError::NoGame => w.no_game.to_owned(),
            CommandError::Illegal(m) => (w.illegal)(m),
            CommandError::NeedsPromotion(m) => {
                // Typed as it would be with the piece: UCI's letter or SAN's.
                let uci = m.len() == 4 && m.parse::<UciMove>().is_ok();
                let ways: Vec<String> = ["q", "r", "b", "n"]
                    .iter()
                    .map(|p| {
                        if uci {
                            format!("{m}{p}")
                        } else {
                            format!("{m}={}", p.to_ascii_uppercase())
                        }
                    })
                    .collect();
                let or = match language {
                    Language::English => "or",
                    Language::Spanish => "o",
                    Language::French => "ou",
                    Language::German => "oder",
                };
                let ways = format!("{}, {}, {} {or} {}", ways[0], ways[1], ways[2], ways[3]);
                (w.needs_promotion)(m, &ways)
            }
            CommandError::BoardDiffers(s) => (w.board_differs)(side(*s)),
            CommandError::NotPressed(s) => (w.not_pressed)(side(*s)),
            CommandError::GameOver => w.game_over.to_owned(),
            CommandError::Busy(what) => (w.busy)(what),
            CommandError::InGame => w.in_game.to_owned(),
        }
    }
}

impl fmt::Display for CommandError {
    /// The error in English.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_in(Language::English))
    }
}

impl std::error::Error for CommandError {}

/// Where `pgn` and quitting write the session's games when no file was
/// named: in the directory the simulator was started from.
pub const PGN_FILE: &str = "tocada-sim.pgn";

/// Every command word with what it takes, for the help screen, in the
/// order of [`crate::face::SimWords::help`]: the words stay English in
/// every language.
pub const HELP: [&str; HELP_ROWS] = [
    "e2e4  e7e8q  Nf3  O-O",
    "lift e2",
    "place e4",
    "touch g1  untouch g1",
    "knock d4",
    "left  right",
    "menu",
    "draw white|black",
    "adjust white|black",
    "resign white|black",
    "decline white|black",
    "claim white|black",
    "promote q|r|b|n",
    "auto on|off",
    "unplug  plug",
    "setup",
    "pgn [FILE]",
    "help",
    "quit",
];

/// The help's rows in `language`: each command with what it does.
pub fn help(language: Language) -> impl Iterator<Item = (&'static str, &'static str)> {
    HELP.into_iter().zip(language.sim().help)
}

/// Parses one line of the command line.
pub fn parse(line: &str) -> Result<SimCommand, CommandError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Err(CommandError::Empty);
    };
    let rest: Vec<&str> = words.collect();
    let keyword = first.to_ascii_lowercase();
    let command: &'static str = match keyword.as_str() {
        "lift" => "lift",
        "place" => "place",
        "touch" => "touch",
        "untouch" => "untouch",
        "knock" => "knock",
        "left" => "left",
        "right" => "right",
        "menu" => "menu",
        "draw" => "draw",
        "adjust" => "adjust",
        "resign" => "resign",
        "decline" => "decline",
        "claim" => "claim",
        "promote" => "promote",
        "auto" => "auto",
        "unplug" => "unplug",
        "plug" => "plug",
        "setup" => "setup",
        "pgn" => "pgn",
        "help" | "?" => "help",
        "quit" | "exit" => "quit",
        _ => {
            if !rest.is_empty() || !looks_like_move(first) {
                return Err(CommandError::Unknown(line.trim().to_owned()));
            }
            return Ok(SimCommand::Move(first.to_owned()));
        }
    };
    let one = |expected: Expected| -> Result<&str, CommandError> {
        match rest.as_slice() {
            [] => Err(CommandError::Missing { command, expected }),
            [word] => Ok(word),
            _ => Err(CommandError::TooMany { command }),
        }
    };
    let none = |made: SimCommand| -> Result<SimCommand, CommandError> {
        if rest.is_empty() {
            Ok(made)
        } else {
            Err(CommandError::TooMany { command })
        }
    };
    let square = || one(Expected::Square).and_then(parse_square);
    let side = || one(Expected::Side).and_then(parse_side);
    match command {
        "lift" => square().map(SimCommand::Lift),
        "place" => square().map(SimCommand::Place),
        "touch" => square().map(SimCommand::Touch),
        "untouch" => square().map(SimCommand::Untouch),
        "knock" => square().map(SimCommand::Knock),
        "left" => none(SimCommand::Lever(LeverSide::Left)),
        "right" => none(SimCommand::Lever(LeverSide::Right)),
        "menu" => none(SimCommand::Menu),
        "draw" => side().map(SimCommand::Draw),
        "adjust" => side().map(SimCommand::Adjust),
        "resign" => side().map(SimCommand::Resign),
        "decline" => side().map(SimCommand::Decline),
        "claim" => side().map(SimCommand::Claim),
        "promote" => one(Expected::Piece).and_then(parse_promotion),
        "auto" => one(Expected::Switch).and_then(|word| match word.to_ascii_lowercase().as_str() {
            "on" => Ok(SimCommand::Auto(true)),
            "off" => Ok(SimCommand::Auto(false)),
            _ => Err(CommandError::BadSwitch(word.to_owned())),
        }),
        "unplug" => none(SimCommand::Unplug),
        "plug" => none(SimCommand::Plug),
        "setup" => none(SimCommand::SetUp),
        "pgn" => match rest.as_slice() {
            [] => Ok(SimCommand::Pgn(None)),
            [file] => Ok(SimCommand::Pgn(Some((*file).to_owned()))),
            _ => Err(CommandError::TooMany { command }),
        },
        "help" => none(SimCommand::Help),
        _ => none(SimCommand::Quit),
    }
}

/// Whether `text` is shaped like a UCI or SAN move (legal or not).
fn looks_like_move(text: &str) -> bool {
    text.parse::<UciMove>().is_ok() || SanPlus::from_ascii(text.as_bytes()).is_ok()
}

fn parse_square(word: &str) -> Result<Square, CommandError> {
    word.to_ascii_lowercase()
        .parse()
        .map_err(|_| CommandError::BadSquare(word.to_owned()))
}

fn parse_side(word: &str) -> Result<Color, CommandError> {
    // The keyword the files use, or FEN's letter for short.
    let word_lower = word.to_ascii_lowercase();
    words::side_of_keyword(&word_lower)
        .or_else(|| word_lower.parse().ok().and_then(Color::from_char))
        .ok_or_else(|| CommandError::BadSide(word.to_owned()))
}

fn parse_promotion(word: &str) -> Result<SimCommand, CommandError> {
    let role = match word.to_ascii_lowercase().as_str() {
        "q" | "queen" => Role::Queen,
        "r" | "rook" => Role::Rook,
        "b" | "bishop" => Role::Bishop,
        "n" | "knight" => Role::Knight,
        _ => return Err(CommandError::BadPromotion(word.to_owned())),
    };
    Ok(SimCommand::Promote(role))
}

/// The move `text` (UCI first, then SAN) means in `position`, if legal.
pub fn resolve_move(position: &Chess, text: &str) -> Result<Move, CommandError> {
    let illegal = || {
        // The move with a queen would be legal: the piece is what is missing.
        let promoted = match text.parse::<UciMove>() {
            Ok(_) => format!("{text}q")
                .parse::<UciMove>()
                .is_ok_and(|uci| uci.to_move(position).is_ok()),
            Err(_) => {
                let (san, check) = match text.find(['+', '#']) {
                    Some(i) => text.split_at(i),
                    None => (text, ""),
                };
                gesture::parse_san(position, &format!("{san}=Q{check}")).is_ok()
            }
        };
        if promoted {
            CommandError::NeedsPromotion(text.to_owned())
        } else {
            CommandError::Illegal(text.to_owned())
        }
    };
    if let Ok(uci) = text.parse::<UciMove>() {
        return uci.to_move(position).map_err(|_| illegal());
    }
    gesture::parse_san(position, text).map_err(|_| illegal())
}

#[cfg(test)]
mod tests {
    use shakmaty::Position;

    use super::*;

    #[test]
    fn every_command_parses() {
        let cases = [
            ("lift e2", SimCommand::Lift(Square::E2)),
            ("place E4", SimCommand::Place(Square::E4)),
            ("touch g1", SimCommand::Touch(Square::G1)),
            ("untouch g1", SimCommand::Untouch(Square::G1)),
            ("knock d4", SimCommand::Knock(Square::D4)),
            ("left", SimCommand::Lever(LeverSide::Left)),
            ("  Right ", SimCommand::Lever(LeverSide::Right)),
            ("menu", SimCommand::Menu),
            ("draw white", SimCommand::Draw(Color::White)),
            ("adjust black", SimCommand::Adjust(Color::Black)),
            ("resign b", SimCommand::Resign(Color::Black)),
            ("decline White", SimCommand::Decline(Color::White)),
            ("claim black", SimCommand::Claim(Color::Black)),
            ("promote n", SimCommand::Promote(Role::Knight)),
            ("promote rook", SimCommand::Promote(Role::Rook)),
            ("auto off", SimCommand::Auto(false)),
            ("auto ON", SimCommand::Auto(true)),
            ("unplug", SimCommand::Unplug),
            ("plug", SimCommand::Plug),
            ("setup", SimCommand::SetUp),
            ("pgn", SimCommand::Pgn(None)),
            ("pgn game.pgn", SimCommand::Pgn(Some("game.pgn".to_owned()))),
            ("help", SimCommand::Help),
            ("?", SimCommand::Help),
            ("quit", SimCommand::Quit),
            ("exit", SimCommand::Quit),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), Ok(expected), "{text:?}");
        }
    }

    #[test]
    fn moves_are_recognised_by_shape() {
        for text in [
            "e2e4", "e7e8q", "Nf3", "exd5", "O-O", "O-O-O", "e8=Q+", "Qh4#",
        ] {
            assert_eq!(parse(text), Ok(SimCommand::Move(text.to_owned())), "{text}");
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let cases = [
            ("", CommandError::Empty),
            ("   ", CommandError::Empty),
            ("hello", CommandError::Unknown("hello".to_owned())),
            ("e2e4 e7e5", CommandError::Unknown("e2e4 e7e5".to_owned())),
            (
                "lift",
                CommandError::Missing {
                    command: "lift",
                    expected: Expected::Square,
                },
            ),
            ("lift e2 e4", CommandError::TooMany { command: "lift" }),
            ("place i9", CommandError::BadSquare("i9".to_owned())),
            ("touch e", CommandError::BadSquare("e".to_owned())),
            ("draw red", CommandError::BadSide("red".to_owned())),
            (
                "resign",
                CommandError::Missing {
                    command: "resign",
                    expected: Expected::Side,
                },
            ),
            ("promote k", CommandError::BadPromotion("k".to_owned())),
            ("auto maybe", CommandError::BadSwitch("maybe".to_owned())),
            ("menu now", CommandError::TooMany { command: "menu" }),
            ("quit please", CommandError::TooMany { command: "quit" }),
            ("pgn a b", CommandError::TooMany { command: "pgn" }),
            ("é2é4", CommandError::Unknown("é2é4".to_owned())),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn every_error_reads_as_one_line() {
        let errors = [
            CommandError::Empty,
            CommandError::Unknown("x".to_owned()),
            CommandError::NoGame,
            CommandError::Illegal("e2e5".to_owned()),
            CommandError::NeedsPromotion("b7a8".to_owned()),
            CommandError::BoardDiffers(Color::White),
            CommandError::NotPressed(Color::White),
            CommandError::GameOver,
            CommandError::Busy("making e2e4".to_owned()),
            CommandError::InGame,
        ];
        for error in errors {
            let text = error.to_string();
            assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
        }
    }

    #[test]
    fn errors_are_said_in_each_language() {
        let not_pressed = CommandError::NotPressed(Color::White);
        let promotion = CommandError::NeedsPromotion("b7a8".to_owned());
        let cases = [
            (
                Language::English,
                "White moved and has not pressed",
                "type b7a8q, b7a8r, b7a8b or b7a8n",
            ),
            (
                Language::Spanish,
                "Blancas jugaron y no han pulsado",
                "¿a qué pieza? escriba b7a8q, b7a8r, b7a8b o b7a8n",
            ),
            (
                Language::French,
                "les Blancs ont joué sans appuyer",
                "en quelle pièce ? tapez b7a8q, b7a8r, b7a8b ou b7a8n",
            ),
            (
                Language::German,
                "Weiß hat gezogen und nicht gedrückt",
                "in welche Figur? b7a8q, b7a8r, b7a8b oder b7a8n tippen",
            ),
        ];
        for (language, pressed, promote) in cases {
            let said = not_pressed.text_in(language);
            assert!(said.contains(pressed), "{said}");
            let said = promotion.text_in(language);
            assert!(said.contains(promote), "{said}");
        }
        let missing = parse("lift").unwrap_err();
        assert_eq!(
            missing.text_in(Language::Spanish),
            "`lift` necesita una casilla, como e4"
        );
    }

    #[test]
    fn moves_resolve_in_uci_and_san() {
        let start = Chess::default();
        let e4 = resolve_move(&start, "e2e4").unwrap();
        assert_eq!((e4.from(), e4.to()), (Some(Square::E2), Square::E4));
        assert_eq!(resolve_move(&start, "Nf3").unwrap().to(), Square::F3);
        assert!(start.is_legal(resolve_move(&start, "e4").unwrap()));
        assert_eq!(
            resolve_move(&start, "e2e5"),
            Err(CommandError::Illegal("e2e5".to_owned()))
        );
        assert_eq!(
            resolve_move(&start, "Nf6"),
            Err(CommandError::Illegal("Nf6".to_owned()))
        );
    }

    #[test]
    fn castling_and_promotion_resolve_in_uci() {
        let castle: Chess = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert!(matches!(
            resolve_move(&castle, "e1g1"),
            Ok(Move::Castle { .. })
        ));
        let promote: Chess = "8/4P3/8/8/8/8/8/k6K w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert_eq!(
            resolve_move(&promote, "e7e8n").unwrap().promotion(),
            Some(Role::Knight)
        );
    }

    #[test]
    fn a_promotion_typed_without_its_piece_asks_for_it() {
        let promote: Chess = "r7/1P6/8/8/8/8/8/k6K w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let asked = resolve_move(&promote, "b7a8").unwrap_err();
        assert_eq!(asked, CommandError::NeedsPromotion("b7a8".to_owned()));
        assert_eq!(
            asked.to_string(),
            "b7a8 promotes a pawn: to which piece? type b7a8q, b7a8r, b7a8b or b7a8n"
        );
        let asked = resolve_move(&promote, "bxa8").unwrap_err();
        assert_eq!(asked, CommandError::NeedsPromotion("bxa8".to_owned()));
        assert!(asked.to_string().contains("bxa8=Q"), "{asked}");
        assert_eq!(
            resolve_move(&promote, "b7b8").unwrap_err(),
            CommandError::NeedsPromotion("b7b8".to_owned())
        );
        // What no piece would make legal stays illegal.
        assert_eq!(
            resolve_move(&promote, "b7c8"),
            Err(CommandError::Illegal("b7c8".to_owned()))
        );
        assert_eq!(
            resolve_move(&promote, "b7a8q").unwrap().promotion(),
            Some(Role::Queen)
        );
    }
}
