//! The words the players read, in one place: the face's alert line and
//! result, and the status texts of the setup screen and the daemon, so the
//! face, the session and the log say the same thing the same way.
//!
//! The face draws whatever text it is given and fits it to its width
//! (shortening "Illegal move" to "Illegal" and so on); these are the full
//! sentences. The PGN's comments have their own words (`pgn::comment`).

use shakmaty::{Color, KnownOutcome, Square};

use crate::face::duration_text;
use crate::{Effect, Law, Reason, Ruling};

/// The setup screen, when the board's pieces are not on their start squares.
pub const SET_UP_THE_PIECES: &str = "Set up the pieces";
/// The setup screen, when White's lever is pressed: the game waits for Black's.
pub const BLACKS_LEVER_STARTS: &str = "Black's lever starts";
/// No preset to start a game with (an empty configuration).
pub const NO_TIME_CONTROL: &str = "No time control configured";
/// A game rebuilt after a restart waits paused for a press.
pub const RESTARTED: &str = "Restarted: press to resume";
/// The arbiter ended the game from the correction screen.
pub const GAME_ABANDONED: &str = "Game abandoned";
/// The sensor board does not answer (the face's status row says it).
pub use crate::face::BOARD_DISCONNECTED;
/// Pieces were back where they belong after a displacement.
pub const BOARD_RESTORED: &str = "Board restored";
/// A draw offer was declined.
pub const DRAW_DECLINED: &str = "Draw declined";
/// The arbiter paused the clock.
pub const PAUSED_BY_THE_ARBITER: &str = "Paused by the arbiter";

/// The result's reason on the face when the arbiter gave it.
pub const ADJUDICATED: &str = "arbiter";
/// The reason the pause menu gives for an adjudication (it cannot type).
pub const ADJUDICATED_FROM_THE_MENU: &str = "Adjudicated from the clock's menu";
/// A menu act asks for a second "+" before it is done: "Confirm 1-0?".
pub const CONFIRM: &str = "Confirm";
/// The arbiter's waive or takeback found nothing to act on.
pub const NOTHING_TO_DO: &str = "Nothing to do";

/// A side by name, as the face labels its clock: "White".
pub use crate::face::side_name;

/// The result in words: the score, then why ("1-0 checkmate").
pub fn result_text(outcome: KnownOutcome, reason: Reason) -> String {
    let score = match outcome {
        KnownOutcome::Decisive {
            winner: Color::White,
        } => "1-0",
        KnownOutcome::Decisive {
            winner: Color::Black,
        } => "0-1",
        KnownOutcome::Draw => "½-½",
    };
    let why = match reason {
        Reason::Checkmate => "checkmate",
        Reason::Resignation => "resignation",
        Reason::Timeout => "on time",
        Reason::TimeoutVsInsufficientMaterial => "time, no mate",
        Reason::Stalemate => "stalemate",
        Reason::InsufficientMaterial => "no mate possible",
        Reason::Agreement => "agreed",
        Reason::ThreefoldRepetition => "repetition",
        Reason::FiftyMoves => "50 moves",
        Reason::FivefoldRepetition => "5-fold repetition",
        Reason::SeventyFiveMoves => "75 moves",
        Reason::IllegalMoves => "illegal moves",
        Reason::Adjudicated(_) => ADJUDICATED,
    };
    format!("{score} {why}")
}

/// A ruling as the players read it: the referee's own sentence when it
/// has one ("Touch-move: move the g1 knight"), else the side and the law.
pub fn ruling_text(ruling: &Ruling) -> String {
    if ruling.detail.is_empty() {
        format!("{}: {}", side_name(ruling.side), ruling.law)
    } else {
        ruling.detail.clone()
    }
}

/// The squares to put pieces back on: "Restore d2 c2".
pub fn restore_text(squares: &[Square]) -> String {
    let mut text = "Restore".to_owned();
    for sq in squares {
        text.push(' ');
        text.push_str(&sq.to_string());
    }
    text
}

/// The alert line for an effect, if it deserves one.
pub fn alert_for(effect: &Effect) -> Option<String> {
    match effect {
        Effect::Violation(ruling) | Effect::Warning(ruling) => Some(ruling_text(ruling)),
        Effect::TimeAdded { side, ms, law } => Some(match law {
            Law::IllegalMovePenalty | Law::IllegalMove | Law::Unpromoted | Law::NoMove => {
                format!("Illegal move: {} +{}", side_name(*side), duration_text(*ms))
            }
            _ => format!("{} +{}", side_name(*side), duration_text(*ms)),
        }),
        Effect::Displaced { squares, .. } => Some(restore_text(squares)),
        Effect::Restored { .. } => Some(BOARD_RESTORED.to_owned()),
        Effect::Flag { side } => Some(format!("Flag: {}", side_name(*side))),
        Effect::DrawOffer { side, .. } => Some(format!("Draw offer: {}", side_name(*side))),
        Effect::DrawDeclined { .. } => Some(DRAW_DECLINED.to_owned()),
        Effect::Paused => Some(PAUSED_BY_THE_ARBITER.to_owned()),
        Effect::Corrected { side, ms, .. } => {
            Some(format!("Set: {} {}", side_name(*side), duration_text(*ms)))
        }
        Effect::Result { outcome, reason } => Some(result_text(*outcome, *reason)),
        Effect::TakenBack { side, number, san } => Some(format!(
            "Taken back: {} {number}{} {san}",
            side_name(*side),
            if *side == shakmaty::Color::White {
                "."
            } else {
                "..."
            }
        )),
        Effect::Waived { side, law } => Some(format!("Waived: {} {law}", side_name(*side))),
        Effect::Claim { side, law, upheld } => Some(if *upheld {
            format!("Claim {law} upheld: {}", side_name(*side))
        } else {
            format!("Claim refused: {}", side_name(*side))
        }),
        Effect::Started { .. } | Effect::Move(_) | Effect::Resumed => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alerts_in_plain_words() {
        let ruling = Ruling {
            side: Color::White,
            law: Law::TouchedOwn,
            detail: "Touch-move: move the g1 knight".into(),
        };
        assert_eq!(
            alert_for(&Effect::Violation(ruling)).unwrap(),
            "Touch-move: move the g1 knight"
        );
        let added = Effect::TimeAdded {
            side: Color::Black,
            ms: 120_000,
            law: Law::IllegalMovePenalty,
        };
        assert_eq!(alert_for(&added).unwrap(), "Illegal move: Black +2:00");
        let displaced = Effect::Displaced {
            side: Color::White,
            squares: vec![Square::D2, Square::C2],
        };
        assert_eq!(alert_for(&displaced).unwrap(), "Restore d2 c2");
        assert_eq!(
            alert_for(&Effect::Flag { side: Color::White }).unwrap(),
            "Flag: White"
        );
        assert_eq!(alert_for(&Effect::Started { side: Color::White }), None);
        assert_eq!(
            result_text(KnownOutcome::Draw, Reason::Agreement),
            "½-½ agreed"
        );
    }
}
