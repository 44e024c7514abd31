//! A round's pairings as pairing programs write them, read without IO:
//! FIDE's Tournament Report File (TRF-16, as Swiss-Manager, JaVaFo,
//! bbpPairings and Vega export it) and a plain CSV.
//!
//! TRF-16 (FIDE Handbook C.04 Annex 2, "Data Exchange Format"): a player
//! is one line starting `001`, its fields at fixed columns (1-based):
//! start rank 5–8, sex 10, title 11–13, name 15–47, rating 49–52,
//! federation 54–56, FIDE id 58–68, birth date 70–79, points 81–84, rank
//! 86–89; then ten columns per round, round 1 at 92–99: the opponent's
//! start rank 92–95 (`0000` or blank: none), the colour at 97 (`w`, `b`,
//! `-`), the result at 99 (`1`, `0`, `=`, `+`, `-`, `W`, `D`, `L`, `H`,
//! `F`, `U`, `Z`, blank while unplayed). Round `n`'s columns are those of
//! round 1 moved `10 × (n − 1)` to the right. A TRF names no boards:
//! they are numbered as FIDE orders them (C.04.2 D): the higher score of
//! the pair before the round first, then the higher sum, then the
//! higher-ranked player's start rank.
//!
//! The CSV: a header row naming the columns `board`, `white`, `black`
//! (required) and `white_rating`, `black_rating`, `white_fide_id`,
//! `black_fide_id` (optional), in any order; fields quoted with `"` when
//! they hold a comma or a quote (doubled).

use std::collections::BTreeMap;
use std::fmt;

/// The first column of a round's columns in a TRF player line, round 1.
pub const TRF_ROUND_1: usize = 92;
/// How far each round's columns are from the previous round's.
pub const TRF_ROUND_WIDTH: usize = 10;
/// The most rounds a TRF line is read for (a longer line is refused).
pub const MAX_ROUND: u32 = 99;
/// The most boards a round has.
pub const MAX_BOARDS: usize = 2000;
/// The longest name read, characters: a longer one is not a name (a
/// column shifted, a file that is not pairings). Shown and published cut
/// to [`crate::broadcast::BoardPairing::MAX_NAME`].
pub const MAX_NAME: usize = 200;

/// One player of a pairing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PairedPlayer {
    /// The name, `Last, First` as the file has it.
    pub name: String,
    /// The rating, if the file gives one (0 or blank: none).
    pub rating: Option<u16>,
    /// The FIDE id, if the file gives one.
    pub fide_id: Option<u64>,
    /// The start rank in the tournament (TRF only).
    pub start_rank: Option<u16>,
}

/// Who plays on one board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPairing {
    /// The board's number, from 1.
    pub board: u32,
    /// White.
    pub white: PairedPlayer,
    /// Black.
    pub black: PairedPlayer,
}

/// Why a file is not a round's pairings: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingsError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1: a character in a TRF, a field in a CSV.
    pub column: usize,
    /// What is wrong there.
    pub kind: PairingsErrorKind,
}

/// What is wrong with a pairings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingsErrorKind {
    /// A field that must be a number is not one (the field's name).
    NotANumber(&'static str),
    /// A required field is empty (its name).
    Missing(&'static str),
    /// Two player lines have the same start rank.
    DuplicateRank(u16),
    /// A player's opponent has no player line.
    UnknownOpponent(u16),
    /// The two players of a pairing do not name each other with opposite
    /// colours.
    Mismatch(u16, u16),
    /// A colour other than `w`, `b`, `-`.
    BadColour(char),
    /// The round asked for is outside 1..=99.
    BadRound(u32),
    /// Two rows of a CSV for the same board.
    DuplicateBoard(u32),
    /// A CSV row has another number of fields than its header.
    FieldCount(usize, usize),
    /// A quote that is never closed, or text after a closing quote.
    BadQuote,
    /// The CSV's header lacks a required column (its name).
    NoColumn(&'static str),
    /// No pairing at all in the file.
    Empty,
    /// More than [`MAX_BOARDS`] boards.
    TooMany,
    /// A name longer than [`MAX_NAME`] characters (whose: white or black).
    NameTooLong(&'static str),
}

impl fmt::Display for PairingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        match &self.kind {
            PairingsErrorKind::NotANumber(what) => write!(f, "{what} is not a number"),
            PairingsErrorKind::Missing(what) => write!(f, "{what} is empty"),
            PairingsErrorKind::DuplicateRank(rank) => {
                write!(f, "start rank {rank} has two player lines")
            }
            PairingsErrorKind::UnknownOpponent(rank) => {
                write!(f, "the opponent {rank} has no player line")
            }
            PairingsErrorKind::Mismatch(a, b) => write!(
                f,
                "players {a} and {b} do not name each other with opposite colours"
            ),
            PairingsErrorKind::BadColour(c) => write!(f, "colour {c:?} is not w, b or -"),
            PairingsErrorKind::BadRound(n) => write!(f, "round {n} is not in 1..={MAX_ROUND}"),
            PairingsErrorKind::DuplicateBoard(board) => write!(f, "board {board} appears twice"),
            PairingsErrorKind::FieldCount(got, want) => {
                write!(f, "{got} fields where the header has {want}")
            }
            PairingsErrorKind::BadQuote => write!(f, "a quote is not closed, or text follows it"),
            PairingsErrorKind::NoColumn(name) => write!(f, "the header has no column {name:?}"),
            PairingsErrorKind::Empty => write!(f, "no pairing in the file"),
            PairingsErrorKind::TooMany => write!(f, "more than {MAX_BOARDS} boards"),
            PairingsErrorKind::NameTooLong(what) => {
                write!(f, "{what}'s name is longer than {MAX_NAME} characters")
            }
        }
    }
}

impl std::error::Error for PairingsError {}

fn error(line: usize, column: usize, kind: PairingsErrorKind) -> PairingsError {
    PairingsError { line, column, kind }
}

/// Which of the two formats a file is: a TRF if any line starts `001`.
pub fn is_trf(text: &str) -> bool {
    text.lines().any(|line| line.starts_with("001"))
}

/// One TRF player line, as read.
#[derive(Debug, Clone)]
struct TrfPlayer {
    line: usize,
    player: PairedPlayer,
    rank: u16,
    /// Each round's (opponent, colour, result), from round 1.
    rounds: Vec<(Option<u16>, char, char)>,
}

/// The characters `from..=to` (1-based) of a line, trimmed.
fn field(chars: &[char], from: usize, to: usize) -> String {
    let from = from - 1;
    if from >= chars.len() {
        return String::new();
    }
    let to = to.min(chars.len());
    chars[from..to].iter().collect::<String>().trim().to_owned()
}

fn number<T: std::str::FromStr>(
    text: &str,
    line: usize,
    column: usize,
    what: &'static str,
) -> Result<Option<T>, PairingsError> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| error(line, column, PairingsErrorKind::NotANumber(what)))
}

fn read_trf_player(text: &str, line: usize) -> Result<TrfPlayer, PairingsError> {
    let chars: Vec<char> = text.trim_end_matches('\r').chars().collect();
    let rank: u16 = number(&field(&chars, 5, 8), line, 5, "the start rank")?
        .ok_or_else(|| error(line, 5, PairingsErrorKind::Missing("the start rank")))?;
    let name = field(&chars, 15, 47);
    if name.is_empty() {
        return Err(error(line, 15, PairingsErrorKind::Missing("the name")));
    }
    let rating: Option<u16> = number(&field(&chars, 49, 52), line, 49, "the rating")?;
    let fide_id: Option<u64> = number(&field(&chars, 58, 68), line, 58, "the FIDE id")?;
    let mut rounds = Vec::new();
    let mut start = TRF_ROUND_1;
    while start <= chars.len() {
        if rounds.len() as u32 >= MAX_ROUND {
            return Err(error(
                line,
                start,
                PairingsErrorKind::BadRound(MAX_ROUND + 1),
            ));
        }
        let opponent: Option<u16> = number(
            &field(&chars, start, start + 3),
            line,
            start,
            "the opponent",
        )?;
        let colour = chars.get(start + 4).copied().unwrap_or(' ');
        let colour = match colour {
            'w' | 'W' => 'w',
            'b' | 'B' => 'b',
            '-' | ' ' => '-',
            other => return Err(error(line, start + 5, PairingsErrorKind::BadColour(other))),
        };
        let result = chars.get(start + 6).copied().unwrap_or(' ');
        rounds.push((opponent.filter(|r| *r != 0), colour, result));
        start += TRF_ROUND_WIDTH;
    }
    Ok(TrfPlayer {
        line,
        player: PairedPlayer {
            name,
            rating: rating.filter(|r| *r != 0),
            fide_id: fide_id.filter(|id| *id != 0),
            start_rank: Some(rank),
        },
        rank,
        rounds,
    })
}

/// A result's points, in halves: what the player scored.
fn halves(result: char) -> u32 {
    match result {
        '1' | '+' | 'W' | 'F' | 'U' => 2,
        '=' | 'D' | 'H' => 1,
        _ => 0,
    }
}

/// Round `round`'s pairings from a TRF-16 file: the boards, numbered in
/// FIDE's order. Players without an opponent that round (byes, absent)
/// are left out.
pub fn parse_trf(text: &str, round: u32) -> Result<Vec<BoardPairing>, PairingsError> {
    if round == 0 || round > MAX_ROUND {
        return Err(error(0, 0, PairingsErrorKind::BadRound(round)));
    }
    let mut players: BTreeMap<u16, TrfPlayer> = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        if !line.starts_with("001") {
            continue;
        }
        let player = read_trf_player(line, index + 1)?;
        if players.contains_key(&player.rank) {
            return Err(error(
                index + 1,
                5,
                PairingsErrorKind::DuplicateRank(player.rank),
            ));
        }
        players.insert(player.rank, player);
    }
    let column = TRF_ROUND_1 + TRF_ROUND_WIDTH * (round as usize - 1);
    let at = |player: &TrfPlayer| {
        player
            .rounds
            .get(round as usize - 1)
            .copied()
            .unwrap_or((None, '-', ' '))
    };
    let score = |player: &TrfPlayer| -> u32 {
        player
            .rounds
            .iter()
            .take(round as usize - 1)
            .map(|r| halves(r.2))
            .sum()
    };
    let mut pairs = Vec::new();
    for player in players.values() {
        let (opponent, colour, _) = at(player);
        let Some(opponent) = opponent else { continue };
        let Some(other) = players.get(&opponent) else {
            return Err(error(
                player.line,
                column,
                PairingsErrorKind::UnknownOpponent(opponent),
            ));
        };
        let (back, other_colour, _) = at(other);
        let opposite = matches!((colour, other_colour), ('w', 'b') | ('b', 'w'));
        if back != Some(player.rank) || !opposite {
            return Err(error(
                player.line,
                column,
                PairingsErrorKind::Mismatch(player.rank, opponent),
            ));
        }
        if colour == 'w' {
            pairs.push((player, other));
        }
    }
    if pairs.is_empty() {
        return Err(error(0, 0, PairingsErrorKind::Empty));
    }
    if pairs.len() > MAX_BOARDS {
        return Err(error(0, 0, PairingsErrorKind::TooMany));
    }
    pairs.sort_by_key(|(white, black)| {
        let (a, b) = (score(white), score(black));
        (
            std::cmp::Reverse(a.max(b)),
            std::cmp::Reverse(a + b),
            white.rank.min(black.rank),
        )
    });
    Ok(pairs
        .into_iter()
        .enumerate()
        .map(|(index, (white, black))| BoardPairing {
            board: index as u32 + 1,
            white: white.player.clone(),
            black: black.player.clone(),
        })
        .collect())
}

/// Splits one CSV line into its fields; `None` on a bad quote (the column
/// of the field at fault).
fn csv_fields(line: &str) -> Result<Vec<String>, usize> {
    let mut fields = vec![String::new()];
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        let current = fields.len();
        let field = fields.last_mut().expect("one field at least");
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                    was_quoted = true;
                }
            } else {
                field.push(c);
            }
        } else if c == ',' {
            fields.push(String::new());
            was_quoted = false;
        } else if c == '"' && field.trim().is_empty() && !was_quoted {
            field.clear();
            quoted = true;
        } else if was_quoted && !c.is_whitespace() {
            return Err(current);
        } else {
            field.push(c);
        }
    }
    if quoted {
        return Err(fields.len());
    }
    Ok(fields.into_iter().map(|f| f.trim().to_owned()).collect())
}

/// A round's pairings from a CSV with a header row.
pub fn parse_csv(text: &str) -> Result<Vec<BoardPairing>, PairingsError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(error(1, 1, PairingsErrorKind::Empty));
    };
    let header = csv_fields(header.trim_start_matches('\u{feff}'))
        .map_err(|column| error(header_line, column, PairingsErrorKind::BadQuote))?;
    let position = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
    let required = |name: &'static str| {
        position(name).ok_or_else(|| error(header_line, 1, PairingsErrorKind::NoColumn(name)))
    };
    let (board_at, white_at, black_at) =
        (required("board")?, required("white")?, required("black")?);
    let optional = [
        ("white_rating", position("white_rating")),
        ("black_rating", position("black_rating")),
        ("white_fide_id", position("white_fide_id")),
        ("black_fide_id", position("black_fide_id")),
    ];
    let mut boards: BTreeMap<u32, BoardPairing> = BTreeMap::new();
    for (line, text) in lines {
        let fields =
            csv_fields(text).map_err(|column| error(line, column, PairingsErrorKind::BadQuote))?;
        if fields.len() != header.len() {
            return Err(error(
                line,
                fields.len().min(header.len()),
                PairingsErrorKind::FieldCount(fields.len(), header.len()),
            ));
        }
        let board: u32 = number(&fields[board_at], line, board_at + 1, "board")?
            .filter(|b| *b != 0)
            .ok_or_else(|| error(line, board_at + 1, PairingsErrorKind::Missing("board")))?;
        let name = |at: usize, what: &'static str| {
            let name = fields[at].clone();
            if name.is_empty() {
                Err(error(line, at + 1, PairingsErrorKind::Missing(what)))
            } else if name.chars().count() > MAX_NAME {
                Err(error(line, at + 1, PairingsErrorKind::NameTooLong(what)))
            } else {
                Ok(name)
            }
        };
        let mut white = PairedPlayer {
            name: name(white_at, "white")?,
            ..PairedPlayer::default()
        };
        let mut black = PairedPlayer {
            name: name(black_at, "black")?,
            ..PairedPlayer::default()
        };
        for (what, at) in optional {
            let Some(at) = at else { continue };
            let text = &fields[at];
            match what {
                "white_rating" => white.rating = number(text, line, at + 1, what)?,
                "black_rating" => black.rating = number(text, line, at + 1, what)?,
                "white_fide_id" => white.fide_id = number(text, line, at + 1, what)?,
                _ => black.fide_id = number(text, line, at + 1, what)?,
            }
        }
        if boards.contains_key(&board) {
            return Err(error(
                line,
                board_at + 1,
                PairingsErrorKind::DuplicateBoard(board),
            ));
        }
        if boards.len() >= MAX_BOARDS {
            return Err(error(line, 1, PairingsErrorKind::TooMany));
        }
        boards.insert(
            board,
            BoardPairing {
                board,
                white,
                black,
            },
        );
    }
    if boards.is_empty() {
        return Err(error(header_line, 1, PairingsErrorKind::Empty));
    }
    Ok(boards.into_values().collect())
}

/// A round's pairings from either format: a TRF if any line starts `001`,
/// else a CSV.
pub fn parse(text: &str, round: u32) -> Result<Vec<BoardPairing>, PairingsError> {
    if is_trf(text) {
        parse_trf(text, round)
    } else {
        parse_csv(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TRF: &str = include_str!("../../tests/data/round.trf");

    #[test]
    fn an_absurdly_long_name_is_refused_at_its_line() {
        let csv = format!(
            "board,white,black\n1,A,B\n2,{},D\n",
            "x".repeat(MAX_NAME + 1)
        );
        let err = parse_csv(&csv).unwrap_err();
        assert_eq!((err.line, err.column), (3, 2));
        assert_eq!(err.kind, PairingsErrorKind::NameTooLong("white"));
        assert_eq!(
            err.to_string(),
            format!("line 3, column 2: white's name is longer than {MAX_NAME} characters")
        );
        let at_cap = format!("board,white,black\n1,A,{}\n", "y".repeat(MAX_NAME));
        assert_eq!(parse_csv(&at_cap).unwrap()[0].black.name.len(), MAX_NAME);
    }

    #[test]
    fn a_trf_rounds_pairings_are_read_from_its_columns_in_fides_board_order() {
        let round1 = parse_trf(TRF, 1).unwrap();
        assert_eq!(round1.len(), 3);
        assert_eq!(round1[0].white.name, "Morphy, Paul");
        assert_eq!(round1[0].white.rating, Some(2690));
        assert_eq!(round1[0].white.fide_id, Some(1503014));
        assert_eq!(round1[0].white.start_rank, Some(1));
        assert_eq!(round1[0].black.name, "Anderssen, Adolf");
        assert_eq!(round1[0].black.start_rank, Some(4));
        assert_eq!(round1[1].white.name, "Staunton, Howard");
        assert_eq!(round1[1].black.name, "Harrwitz, Daniel");
        // Round 2: board 1 is the pair with the higher score before it.
        let round2 = parse_trf(TRF, 2).unwrap();
        assert_eq!(round2.len(), 3);
        assert_eq!(round2[0].white.name, "Harrwitz, Daniel");
        assert_eq!(round2[0].black.name, "Morphy, Paul");
        // Player 7 has a bye in round 2: on no board.
        assert!(
            round2
                .iter()
                .all(|b| b.white.start_rank != Some(7) && b.black.start_rank != Some(7))
        );
    }

    #[test]
    fn a_trf_whose_players_disagree_names_the_line_and_column() {
        // Anderssen (4) given White too in round 1 (column 97).
        let broken: String = TRF
            .lines()
            .map(|line| {
                let mut chars: Vec<char> = line.chars().collect();
                if line.starts_with("001    4") {
                    chars[96] = 'w';
                }
                chars.into_iter().collect::<String>() + "\n"
            })
            .collect();
        assert_ne!(broken, TRF, "the test's line is in the file");
        let err = parse_trf(&broken, 1).unwrap_err();
        assert_eq!(err.column, 92);
        assert_eq!(err.kind, PairingsErrorKind::Mismatch(1, 4));
        let text = err.to_string();
        assert!(text.starts_with("line "), "{text}");

        let err = parse_trf("001  x1 m    Morphy, Paul", 1).unwrap_err();
        assert_eq!(
            (err.line, err.column, err.kind),
            (1, 5, PairingsErrorKind::NotANumber("the start rank"))
        );
        assert_eq!(
            parse_trf(TRF, 0).unwrap_err().kind,
            PairingsErrorKind::BadRound(0)
        );
        assert_eq!(
            parse_trf(TRF, 9).unwrap_err().kind,
            PairingsErrorKind::Empty
        );
    }

    #[test]
    fn a_csv_with_quoted_fields_is_read_by_its_header() {
        let csv = "board,white,black,white_rating,black_rating,white_fide_id,black_fide_id\n\
                   2,\"Staunton, Howard\",\"Harrwitz, Daniel\",2500,2480,,\n\
                   1,\"Morphy, Paul\",\"Anderssen, \"\"Adolf\"\"\",2690,2600,1503014,4600022\n";
        let boards = parse_csv(csv).unwrap();
        assert_eq!(boards.len(), 2);
        assert_eq!(boards[0].board, 1);
        assert_eq!(boards[0].white.name, "Morphy, Paul");
        assert_eq!(boards[0].black.name, "Anderssen, \"Adolf\"");
        assert_eq!(boards[0].black.fide_id, Some(4600022));
        assert_eq!(boards[1].white.rating, Some(2500));
        assert_eq!(boards[1].white.fide_id, None);
        assert!(!is_trf(csv));
        assert_eq!(parse(csv, 1).unwrap(), boards);
    }

    #[test]
    fn a_bad_csv_is_refused_at_its_line_and_column() {
        let err = parse_csv("board,white,black,white_rating\n1,A,B,12x\n").unwrap_err();
        assert_eq!(
            (err.line, err.column, err.kind),
            (2, 4, PairingsErrorKind::NotANumber("white_rating"))
        );
        let err = parse_csv("board,white\n1,A\n").unwrap_err();
        assert_eq!(err.kind, PairingsErrorKind::NoColumn("black"));
        let err = parse_csv("board,white,black\n1,\"A,B\n").unwrap_err();
        assert_eq!((err.line, err.kind), (2, PairingsErrorKind::BadQuote));
        let err = parse_csv("board,white,black\n1,A,B\n1,C,D\n").unwrap_err();
        assert_eq!(
            (err.line, err.column, err.kind),
            (3, 1, PairingsErrorKind::DuplicateBoard(1))
        );
        let err = parse_csv("board,white,black\n1,A\n").unwrap_err();
        assert_eq!(err.kind, PairingsErrorKind::FieldCount(2, 3));
        let err = parse_csv("board,white,black\n3,,B\n").unwrap_err();
        assert_eq!(
            (err.column, err.kind),
            (2, PairingsErrorKind::Missing("white"))
        );
    }

    proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_panicking(text in "\\PC{0,300}", round in 0u32..120) {
            let _ = parse(&text, round);
            let _ = parse_csv(&text);
            let _ = parse_trf(&text, round);
        }

        #[test]
        fn any_player_line_is_read_or_refused_without_panicking(
            tail in "[ 0-9wb=+\\-a-zA-Z,.]{0,200}",
            round in 1u32..12,
        ) {
            let text = format!("001{tail}\n001{tail}");
            if let Err(err) = parse_trf(&text, round) {
                prop_assert!(!err.to_string().is_empty());
            }
        }
    }
}
