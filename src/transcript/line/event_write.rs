//! Writing an event line: [`line_to_json`] and [`input_to_json`], which
//! [`parse_line`](super::parse_line) reads back the same.

use shakmaty::{Color, Square};

use super::wire::WireLine;
use super::{Event, Line};
use crate::referee::{Input, Laws, Millis, Rules, TimeControl};
use crate::words::side_keyword;

/// One input line as a compact JSON object, without the newline, that
/// [`parse_line`](super::parse_line) reads back to an equal [`Line`].
///
/// A setup writes every rule, defaults included, so that a recorded game
/// does not change meaning if the defaults do; the starting position only
/// when it is not the standard one (its FEN, en passant only when it can be
/// taken, as the referee sees it).
///
/// Two things do not come back, neither of which the daemon makes: an
/// `Input::Promote` of a pawn or a king (written `p` or `k`, which no clock
/// button offers and the reader refuses; the referee ignores them anyway),
/// and a starting position set up in Chess960 castling mode.
pub fn line_to_json(line: &Line) -> String {
    let wire = match &line.event {
        Event::Setup(rules) => setup_wire(line.t, rules),
        Event::Input(input) => input_wire(line.t, input),
        Event::End => bare_wire(line.t, "end"),
        Event::Checkpoint { ran_to } => WireLine {
            ran_to: ran_to.filter(|&ran_to| ran_to > line.t),
            ..bare_wire(line.t, "checkpoint")
        },
        Event::Restart { off_ms } => WireLine {
            ms: *off_ms,
            ..bare_wire(line.t, "restart")
        },
        Event::Players(players) => WireLine {
            round: (!players.round.is_empty()).then(|| players.round.clone()),
            board: Some(players.board),
            white: Some(players.white.name.clone()),
            black: Some(players.black.name.clone()),
            white_elo: players.white.rating,
            black_elo: players.black.rating,
            white_fide_id: players.white.fide_id,
            black_fide_id: players.black.fide_id,
            ..bare_wire(line.t, "players")
        },
    };
    serde_json::to_string(&wire).expect("wire lines are plain strings and numbers")
}

/// One input as a JSON line, without the newline: what the daemon records
/// for each event it feeds the referee. Same as [`line_to_json`].
pub fn input_to_json(t: Millis, input: &Input) -> String {
    serde_json::to_string(&input_wire(t, input)).expect("wire lines are plain strings and numbers")
}

/// A line with only `t` and `ev`, for the others to fill in.
fn bare_wire(t: Millis, ev: &str) -> WireLine {
    WireLine {
        t,
        ev: ev.to_owned(),
        ..WireLine::default()
    }
}

fn setup_wire(t: Millis, rules: &Rules) -> WireLine {
    let fen = rules.start_fen();
    WireLine {
        time_control: Some(rules.time_control.to_string()),
        black_time_control: rules
            .black_time_control
            .as_ref()
            .map(TimeControl::to_string),
        draw_odds: rules.draw_odds.map(|side| side_keyword(side).to_owned()),
        increment_mode: Some(rules.increment_mode.as_str().to_owned()),
        mode: Some(rules.mode.as_str().to_owned()),
        enforcement: Some(rules.enforcement.as_str().to_owned()),
        // Written only when not the default: every game recorded before
        // the profiles existed is a `fide-2023` game, and its setup line
        // stays byte for byte what it was.
        laws: (rules.laws != Laws::default()).then(|| rules.laws.as_str().to_owned()),
        min_press_gap_ms: Some(rules.min_press_gap_ms),
        knock_window_ms: Some(rules.knock_window_ms),
        fen: (fen != Rules::default().start_fen()).then(|| fen.to_string()),
        // Only when set: every game on a sensor board keeps its line.
        plain_clock: rules.plain_clock.then_some(true),
        ..bare_wire(t, "setup")
    }
}

fn input_wire(t: Millis, input: &Input) -> WireLine {
    let with_side = |ev: &str, side: Color| WireLine {
        side: Some(side_keyword(side).to_owned()),
        ..bare_wire(t, ev)
    };
    let with_square = |ev: &str, sq: Square| WireLine {
        sq: Some(sq.to_string()),
        ..bare_wire(t, ev)
    };
    match *input {
        Input::Press(side) => with_side("press", side),
        Input::Adjust(side) => with_side("adjust", side),
        Input::Draw(side) => with_side("draw", side),
        Input::Decline(side) => with_side("decline", side),
        Input::Resign(side) => with_side("resign", side),
        Input::Claim(side) => with_side("claim", side),
        Input::Choose(side, option) => WireLine {
            option: Some(option.as_str().to_owned()),
            ..with_side("choose", side)
        },
        Input::Waive => bare_wire(t, "waive"),
        Input::TakeBack => bare_wire(t, "takeback"),
        Input::Adjudicate(adjudication) => WireLine {
            result: Some(adjudication.outcome.as_str().to_owned()),
            reason: Some(adjudication.reason.as_str().to_owned()),
            ..bare_wire(t, "adjudicate")
        },
        Input::Lift(sq) => with_square("lift", sq),
        Input::Touch(sq) => with_square("touch", sq),
        Input::Untouch(sq) => with_square("untouch", sq),
        Input::Place(sq, piece) => WireLine {
            piece: piece.map(|piece| piece.char().to_string()),
            ..with_square("place", sq)
        },
        // The clock's buttons write UCI's lower case, as `promotion` reads.
        Input::Promote(role) => WireLine {
            piece: Some(role.char().to_string()),
            ..bare_wire(t, "promote")
        },
        Input::Pause => bare_wire(t, "pause"),
        Input::Resume => bare_wire(t, "resume"),
        Input::SetTime(side, ms) => WireLine {
            ms: Some(ms),
            ..with_side("set_time", side)
        },
        Input::SetMoves(side, n) => WireLine {
            n: Some(n),
            ..with_side("set_moves", side)
        },
    }
}
