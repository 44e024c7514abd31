//! A round's results written for the pairing program, without IO: TRF-16
//! result columns (the columns [`super::pairings`] reads, so a TRF
//! imported comes back with the round's results in it) and a plain CSV.

use std::collections::BTreeMap;

use clap::ValueEnum;

use super::pairings::{PairedPlayer, TRF_ROUND_1, TRF_ROUND_WIDTH};

/// One board's result in a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardResult {
    /// The board.
    pub board: u32,
    /// White.
    pub white: PairedPlayer,
    /// Black.
    pub black: PairedPlayer,
    /// The PGN result token (`1-0`, `0-1`, `1/2-1/2`), `None` while the
    /// game is not over (or never started).
    pub result: Option<String>,
}

impl BoardResult {
    /// The result as PGN writes it, `*` while unfinished.
    pub fn token(&self) -> &str {
        self.result.as_deref().unwrap_or("*")
    }

    /// White's and Black's TRF result characters (`1`, `0`, `=`), blank
    /// while unfinished.
    fn trf_chars(&self) -> (char, char) {
        match self.result.as_deref() {
            Some("1-0") => ('1', '0'),
            Some("0-1") => ('0', '1'),
            Some("1/2-1/2") => ('=', '='),
            _ => (' ', ' '),
        }
    }
}

/// The start ranks of each board's players: as the pairings gave them,
/// else by board (White of board `b` is `2b − 1`, Black `2b`).
fn ranks(results: &[BoardResult]) -> Vec<(u16, u16)> {
    results
        .iter()
        .map(|r| {
            let by_board = (r.board.min(u16::MAX as u32 / 2) * 2) as u16;
            (
                r.white.start_rank.unwrap_or(by_board.saturating_sub(1)),
                r.black.start_rank.unwrap_or(by_board),
            )
        })
        .collect()
}

/// Round `round`'s columns of every player on a board: (opponent,
/// colour, result) by start rank.
fn columns(results: &[BoardResult]) -> BTreeMap<u16, (u16, char, char)> {
    let mut out = BTreeMap::new();
    for (result, (white, black)) in results.iter().zip(ranks(results)) {
        let (w, b) = result.trf_chars();
        out.insert(white, (black, 'w', w));
        out.insert(black, (white, 'b', b));
    }
    out
}

/// Writes round `round`'s columns into a player line at their columns,
/// padding the line with blanks up to them.
fn put_round(line: &str, round: u32, (opponent, colour, result): (u16, char, char)) -> String {
    let start = TRF_ROUND_1 + TRF_ROUND_WIDTH * (round.max(1) as usize - 1);
    let mut chars: Vec<char> = line.trim_end_matches('\r').chars().collect();
    if chars.len() < start + 7 {
        chars.resize(start + 7, ' ');
    }
    let opponent: Vec<char> = format!("{opponent:>4}").chars().collect();
    chars[start - 1..start + 3].copy_from_slice(&opponent);
    chars[start + 3] = ' ';
    chars[start + 4] = colour;
    chars[start + 5] = ' ';
    // A game not (yet) over on a clock keeps what the file says: the
    // pairing program's own entry (a forfeit, a result by hand) stays.
    if result != ' ' {
        chars[start + 6] = result;
    }
    chars.into_iter().collect::<String>().trim_end().to_owned()
}

/// A player line written anew (the pairings came from a CSV): start
/// rank, name, rating and FIDE id at their columns, the other fields
/// blank.
fn player_line(rank: u16, player: &PairedPlayer) -> String {
    let name: String = player.name.chars().take(33).collect();
    let rating = player.rating.map(|r| r.to_string()).unwrap_or_default();
    let fide = player.fide_id.map(|id| id.to_string()).unwrap_or_default();
    format!(
        "001 {rank:>4}      {name:<33} {rating:>4}     {fide:>11}                      {rank:>4}"
    )
}

/// The round's results as TRF-16: `source` (the TRF the round's pairings
/// were imported from) with round `round`'s result column filled in for
/// every finished game, every other line as it was; or, without a
/// source, one player line per paired player with that round's columns.
pub fn trf(source: Option<&str>, round: u32, results: &[BoardResult]) -> String {
    let columns = columns(results);
    let mut out = String::new();
    match source {
        Some(source) => {
            for line in source.lines() {
                let rank = line
                    .starts_with("001")
                    .then(|| line.get(4..8).and_then(|r| r.trim().parse::<u16>().ok()))
                    .flatten();
                match rank.and_then(|rank| columns.get(&rank)) {
                    Some(column) => out.push_str(&put_round(line, round, *column)),
                    None => out.push_str(line.trim_end_matches('\r')),
                }
                out.push('\n');
            }
        }
        None => {
            let mut players = BTreeMap::new();
            for (result, (white, black)) in results.iter().zip(ranks(results)) {
                players.insert(white, &result.white);
                players.insert(black, &result.black);
            }
            for (rank, player) in players {
                let line = player_line(rank, player);
                out.push_str(&put_round(&line, round, columns[&rank]));
                out.push('\n');
            }
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The round's results as CSV: `board,white,black,result`, the result as
/// PGN writes it (`*` while unfinished).
pub fn csv(results: &[BoardResult]) -> String {
    let mut out = String::from("board,white,black,result\n");
    for result in results {
        out.push_str(&format!(
            "{},{},{},{}\n",
            result.board,
            csv_field(&result.white.name),
            csv_field(&result.black.name),
            result.token()
        ));
    }
    out
}

/// What `tocada-hall results` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResultsFormat {
    /// The TRF-16 imported with the round's result columns filled in (or
    /// player lines written anew for a round imported from a CSV).
    Trf,
    /// `board,white,black,result`, the result as PGN writes it.
    Csv,
    /// Every game of the round.
    Pgn,
}

#[cfg(test)]
mod tests {
    use super::super::pairings::{parse_csv, parse_trf};
    use super::*;

    const TRF: &str = include_str!("../../tests/data/round1.trf");

    fn results(result: &[Option<&str>]) -> Vec<BoardResult> {
        parse_trf(TRF, 1)
            .unwrap()
            .into_iter()
            .zip(result)
            .map(|(pairing, result)| BoardResult {
                board: pairing.board,
                white: pairing.white,
                black: pairing.black,
                result: result.map(str::to_owned),
            })
            .collect()
    }

    #[test]
    fn a_trf_comes_back_with_the_rounds_results_in_its_columns() {
        let out = trf(
            Some(TRF),
            1,
            &results(&[Some("1-0"), Some("1/2-1/2"), None]),
        );
        let round1 = |rank: &str| {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("001 {rank:>4}")))
                .unwrap();
            line.chars().skip(91).take(8).collect::<String>()
        };
        assert_eq!(round1("1"), "   4 w 1");
        assert_eq!(round1("4"), "   1 b 0");
        assert_eq!(round1("2"), "   3 w =");
        assert_eq!(round1("3"), "   2 b =");
        // Board 3 unfinished: paired, no result yet.
        assert_eq!(round1("6").trim_end(), "   5 w");
        // The bye and the header lines as they were.
        assert!(out.contains("0000 - U"), "{out}");
        assert!(out.starts_with("012 Club open 1858\n"), "{out}");
        // And the pairing program reads its own file back.
        assert_eq!(parse_trf(&out, 1).unwrap(), parse_trf(TRF, 1).unwrap());
    }

    #[test]
    fn a_result_the_file_has_and_the_hall_does_not_is_kept() {
        let played = include_str!("../../tests/data/round.trf");
        let out = trf(Some(played), 1, &results(&[Some("0-1"), None, None]));
        let round1 = |rank: &str| {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("001 {rank:>4}")))
                .unwrap();
            line.chars().skip(91).take(18).collect::<String>()
        };
        // Board 1 as the hall saw it, boards 2 and 3 as the file had them,
        // round 2's columns untouched.
        assert_eq!(round1("1"), "   4 w 0     3 b");
        assert_eq!(round1("4"), "   1 b 1     5 w");
        assert_eq!(round1("2"), "   3 w 0     6 b");
        assert_eq!(round1("5"), "   6 b =     4 b");
    }

    #[test]
    fn a_csv_round_gets_trf_lines_and_a_csv_of_results() {
        let pairings =
            parse_csv("board,white,black\n1,\"Morphy, Paul\",Anderssen\n2,Staunton,Harrwitz\n")
                .unwrap();
        let results: Vec<BoardResult> = pairings
            .into_iter()
            .zip([Some("0-1"), None])
            .map(|(p, r)| BoardResult {
                board: p.board,
                white: p.white,
                black: p.black,
                result: r.map(str::to_owned),
            })
            .collect();
        let out = trf(None, 3, &results);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("001    1      Morphy, Paul"), "{out}");
        let round3: String = lines[0].chars().skip(111).collect();
        assert_eq!(round3, "   2 w 0");
        let round3: String = lines[1].chars().skip(111).collect();
        assert_eq!(round3, "   1 b 1");
        let again = parse_trf(&out, 3).unwrap();
        assert_eq!(again[0].white.name, "Morphy, Paul");
        assert_eq!(
            csv(&results),
            "board,white,black,result\n1,\"Morphy, Paul\",Anderssen,0-1\n2,Staunton,Harrwitz,*\n"
        );
    }
}
