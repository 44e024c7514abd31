//! The words a PGN comment gives to the referee's effects: the clock after
//! a move as a `[%clk]` command, rulings, offers and pauses in plain
//! English with the article of the Laws they rest on.
//!
//! Kept apart from the layout (`crate::pgn`) so that the phrasing can
//! change (or grow a new effect) without touching how the movetext is built.

use shakmaty::{Color, KnownOutcome};

use crate::face::{duration_text, side_name};
use crate::{Reason, Rejection, Ruling};

/// `[%clk h:mm:ss]`, the clock command of the PGN specification supplement:
/// hours not padded, whole seconds, truncated as the clock's face shows them.
pub fn clock_command(ms: u64) -> String {
    let s = ms / 1000;
    format!("[%clk {}:{:02}:{:02}]", s / 3600, s / 60 % 60, s % 60)
}

/// A violation, e.g. `Violation by White: Touch-move: move the g1 knight (art. 4.3.1)`.
pub(crate) fn violation(ruling: &Ruling) -> String {
    ruling_text("Violation by", ruling)
}

/// A warning, e.g. `Warning to White: Press with the hand that moved (art. 6.2.3)`.
pub(crate) fn warning(ruling: &Ruling) -> String {
    ruling_text("Warning to", ruling)
}

fn ruling_text(what: &str, ruling: &Ruling) -> String {
    let side = side_name(ruling.side);
    let article = ruling.law.article();
    if ruling.detail.trim().is_empty() {
        format!("{what} {side} (art. {article})")
    } else {
        format!("{what} {side}: {} (art. {article})", ruling.detail.trim())
    }
}

/// A draw offer; one made at another moment than between move and press
/// still stands (9.1.2.1) but is noted.
pub(crate) fn draw_offer(side: Color, proper: bool) -> String {
    if proper {
        format!("{} offers a draw", side_name(side))
    } else {
        format!(
            "{} offers a draw, not between move and press (art. 9.1.2.1)",
            side_name(side)
        )
    }
}

/// The opponent of `offerer` rejects his offer.
pub(crate) fn draw_declined(offerer: Color, how: Rejection) -> String {
    let decliner = side_name(!offerer);
    match how {
        Rejection::Spoken => format!("{decliner} declines"),
        Rejection::Touch => format!("{decliner} declines by touching a piece (art. 9.1.2.1)"),
    }
}

/// Time given to a player, with the article that gives it.
pub(crate) fn time_added(side: Color, ms: u64, article: &str) -> String {
    format!(
        "{} added to {}'s clock (art. {article})",
        duration_text(ms),
        side_name(side)
    )
}

/// Pieces displaced, charged to `side`.
pub(crate) fn displaced(side: Color, squares: &[shakmaty::Square]) -> String {
    let squares: Vec<String> = squares.iter().map(ToString::to_string).collect();
    format!(
        "{} displaced pieces on {} (art. 7.4.1)",
        side_name(side),
        squares.join(", ")
    )
}

/// The board matches the position again.
pub(crate) fn restored(side: Color, ms: u64) -> String {
    format!(
        "Position restored, {} charged to {}",
        duration_text(ms),
        side_name(side)
    )
}

/// A fallen flag.
pub(crate) fn flag(side: Color) -> String {
    format!("{}'s flag fell", side_name(side))
}

/// An arbiter's correction while the clock stood (6.10.2), saying what
/// changed: the time (`ms`), the completed moves (`moves`, from and to), or
/// both; when his presses changed nothing in the end, the clock as it
/// stands (`now_ms` after `now_completed` moves).
pub(crate) fn corrected(
    side: Color,
    ms: Option<u64>,
    moves: Option<(u32, u32)>,
    now_ms: u64,
    now_completed: u32,
) -> String {
    let name = side_name(side);
    let clock = |ms| crate::face::clock_text(ms);
    match (ms, moves) {
        (Some(ms), Some((from, to))) => format!(
            "Arbiter set {name}'s clock to {} and completed moves from {from} to {to} (art. 6.10)",
            clock(ms)
        ),
        (Some(ms), None) => format!("Arbiter set {name}'s clock to {} (art. 6.10)", clock(ms)),
        (None, Some((from, to))) => {
            format!("Arbiter set {name}'s completed moves from {from} to {to} (art. 6.10)")
        }
        (None, None) => format!(
            "Arbiter left {name}'s clock at {} after {now_completed} moves (art. 6.10)",
            clock(now_ms)
        ),
    }
}

/// A completed move taken back: `Move 12. Nf3 by White taken back`.
pub(crate) fn taken_back(side: Color, number: u32, san: &str) -> String {
    let dots = match side {
        Color::White => ".",
        Color::Black => "...",
    };
    format!("{} move {number}{dots} {san} taken back", side_name(side))
}

/// An obligation the arbiter lifted.
pub(crate) fn waived(side: Color, article: &str) -> String {
    format!(
        "Arbiter waives {}'s obligation (art. {article})",
        side_name(side)
    )
}

/// A claim under article 4 (4.8), upheld or not.
pub(crate) fn claim(side: Color, article: &str, upheld: bool) -> String {
    if upheld && article == "7.5.1" {
        // A.5: the illegal move is not taken back; the claim ends the game.
        format!(
            "{} claims an illegal move (art. 7.5.1, A.5): upheld",
            side_name(side)
        )
    } else if upheld {
        format!(
            "{} claims a breach of art. {article}: upheld, the move is taken back",
            side_name(side)
        )
    } else {
        format!("{} claims (art. 4.8): not upheld", side_name(side))
    }
}

/// A penalty the 1858 laws leave to `side`'s choice, and his options.
pub(crate) fn choice(side: Color, law: &str, options: &[crate::Choice]) -> String {
    let options: Vec<&str> = options.iter().map(|o| o.as_str()).collect();
    format!(
        "{} chooses under law {law}: {}",
        side_name(side),
        options.join(", ")
    )
}

/// The clock stopped by the arbiter.
pub(crate) fn paused() -> String {
    "Clock paused".to_owned()
}

/// The clock back after a crash or a power cut, off for `off_ms` by the
/// wall clock when it could tell; the restored game waits paused.
pub(crate) fn power_cut(off_ms: Option<u64>) -> String {
    match off_ms {
        Some(ms) => format!(
            "Power cut: the clock was off for {}, its times kept as they stood",
            duration_text(ms)
        ),
        None => "Power cut: the clock was off, its times kept as they stood".to_owned(),
    }
}

/// The clock running again, with how long it stood if known.
pub(crate) fn resumed(stood_ms: Option<u64>) -> String {
    match stood_ms {
        Some(ms) => format!("Clock resumed after {}", duration_text(ms)),
        None => "Clock resumed".to_owned(),
    }
}

/// How the game ended, in words; `None` for a loss on time, which the
/// flag's own comment and the `Termination` tag already say.
pub(crate) fn ending(outcome: KnownOutcome, reason: Reason) -> Option<String> {
    let loser = match outcome {
        KnownOutcome::Decisive { winner } => Some(side_name(!winner)),
        KnownOutcome::Draw => None,
    };
    Some(match (reason, loser) {
        (Reason::Timeout, _) => return None,
        (Reason::Checkmate, _) => "Checkmate".to_owned(),
        (Reason::Resignation, Some(loser)) => format!("{loser} resigns"),
        (Reason::Resignation, None) => "Resignation".to_owned(),
        (Reason::TimeoutVsInsufficientMaterial, _) => {
            "Flag fell, but the opponent cannot mate: drawn (art. 6.9)".to_owned()
        }
        (Reason::Stalemate, _) => "Stalemate".to_owned(),
        (Reason::InsufficientMaterial, _) => "Neither side can mate: drawn (art. 5.2.2)".to_owned(),
        (Reason::Agreement, _) => "Draw agreed".to_owned(),
        (Reason::ThreefoldRepetition, _) => "Threefold repetition (art. 9.2)".to_owned(),
        (Reason::FiftyMoves, _) => "Fifty-move rule (art. 9.3)".to_owned(),
        (Reason::FivefoldRepetition, _) => "Fivefold repetition (art. 9.6.1)".to_owned(),
        (Reason::SeventyFiveMoves, _) => "Seventy-five-move rule (art. 9.6.2)".to_owned(),
        (Reason::IllegalMoves, Some(loser)) => {
            format!("{loser} loses: a second illegal move (art. 7.5.5)")
        }
        (Reason::IllegalMoves, None) => {
            "A second illegal move, but the opponent cannot mate: drawn (art. 7.5.5)".to_owned()
        }
        (Reason::Adjudicated(words), _) => format!("Adjudicated by the arbiter: {words}"),
    })
}

/// A game drawn for the reason `drawn` says, won by `winner` on draw odds
/// (Armageddon).
pub(crate) fn won_on_odds(drawn: &str, winner: Color) -> String {
    format!(
        "{drawn}: a draw, which counts as a win for {} (draw odds)",
        side_name(winner)
    )
}

/// The `Termination` tag of the PGN standard (9.8.1) for a reason.
pub(crate) fn termination(reason: Reason) -> &'static str {
    match reason {
        Reason::Timeout | Reason::TimeoutVsInsufficientMaterial => "time forfeit",
        Reason::IllegalMoves => "rules infraction",
        Reason::Adjudicated(_) => "adjudication",
        _ => "normal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Law;

    #[test]
    fn clock_commands_have_unpadded_hours_and_whole_seconds() {
        assert_eq!(clock_command(0), "[%clk 0:00:00]");
        assert_eq!(clock_command(999), "[%clk 0:00:00]");
        assert_eq!(clock_command(59_999), "[%clk 0:00:59]");
        assert_eq!(clock_command(3_923_000), "[%clk 1:05:23]");
        assert_eq!(clock_command(36_000_000), "[%clk 10:00:00]");
    }

    #[test]
    fn rulings_name_side_detail_and_article() {
        let ruling = Ruling {
            side: Color::Black,
            law: Law::TouchedOwn,
            detail: "Touch-move: move the g8 knight".to_owned(),
        };
        assert_eq!(
            violation(&ruling),
            "Violation by Black: Touch-move: move the g8 knight (art. 4.3.1)"
        );
        let bare = Ruling {
            detail: " ".to_owned(),
            law: Law::PressHand,
            ..ruling
        };
        assert_eq!(warning(&bare), "Warning to Black (art. 6.2.3)");
    }

    #[test]
    fn offers_and_declines_name_the_right_player() {
        assert_eq!(draw_offer(Color::White, true), "White offers a draw");
        assert!(draw_offer(Color::Black, false).starts_with("Black offers a draw, not"));
        assert_eq!(
            draw_declined(Color::White, Rejection::Spoken),
            "Black declines"
        );
        assert!(draw_declined(Color::Black, Rejection::Touch).starts_with("White declines by"));
    }

    #[test]
    fn endings_in_words() {
        let white_wins = KnownOutcome::Decisive {
            winner: Color::White,
        };
        assert_eq!(
            ending(white_wins, Reason::Resignation).as_deref(),
            Some("Black resigns")
        );
        assert_eq!(ending(white_wins, Reason::Timeout), None);
        assert_eq!(
            ending(KnownOutcome::Draw, Reason::Agreement).as_deref(),
            Some("Draw agreed")
        );
        assert_eq!(termination(Reason::Timeout), "time forfeit");
        assert_eq!(termination(Reason::Checkmate), "normal");
        assert_eq!(termination(Reason::IllegalMoves), "rules infraction");
    }
}
