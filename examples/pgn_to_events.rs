//! Turns the games of a PGN file into the event streams `tocada replay`
//! reads: JSON Lines, one event an object, as hands would play them on a
//! sensor board.
//!
//! ```text
//! cargo run --example pgn_to_events -- GAME.pgn [--game N] [--seed S] [--identities]
//! ```
//!
//! Without `--game`, every game is written, one after the other, each ending
//! with its `end` line. The board only sees occupancy unless `--identities`
//! is given; orders vary move by move with the seed. A decisive game that
//! does not end in mate ends with the loser's resignation, a draw with an
//! agreement, so the referee can reach the PGN's result.

#[path = "../tests/support/parsed.rs"]
mod parsed;
#[path = "../tests/support/pgn.rs"]
mod pgn;

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tocada::gesture::Script;
use tocada::transcript::{self, Event, Line};

struct Args {
    path: PathBuf,
    game: Option<usize>,
    seed: u64,
    identities: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut path, mut game, mut seed, mut identities) = (None, None, 1, false);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--game" => game = Some(number("--game")? as usize),
            "--seed" => seed = number("--seed")?,
            "--identities" => identities = true,
            _ if path.is_none() && !arg.starts_with("--") => path = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    let path = path.ok_or("usage: pgn_to_events GAME.pgn [--game N] [--seed S] [--identities]")?;
    Ok(Args {
        path,
        game,
        seed,
        identities,
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let games = match pgn::read_pgn(&args.path) {
        Ok(games) => games,
        Err(e) => {
            eprintln!("{}: {e}", args.path.display());
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = args.game
        && (n == 0 || n > games.len())
    {
        eprintln!(
            "{}: no game {n}: the file has {} (--game counts from 1)",
            args.path.display(),
            games.len()
        );
        return ExitCode::from(2);
    }
    match write_games(&games, &args) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`| head`) is no failure of ours.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pgn_to_events: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the chosen games' lines, each game ending with its `end`.
fn write_games(games: &[pgn::PgnGame], args: &Args) -> io::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    for (i, game) in games.iter().enumerate() {
        if args.game.is_some_and(|n| n != i + 1) {
            continue;
        }
        let script = Script::varied(game.start(), args.identities, args.seed);
        let events = game.play_into(script).into_events();
        for &(t, input) in &events {
            writeln!(out, "{}", transcript::input_to_json(t, &input))?;
        }
        // The recording stops a second after the last event.
        let end = Line {
            t: events.last().map_or(0, |&(t, _)| t + 1000),
            event: Event::End,
        };
        writeln!(out, "{}", transcript::line_to_json(&end))?;
    }
    out.flush()
}
