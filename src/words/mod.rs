//! The words the players read, in one place: the face's alert line and
//! result, and the status texts of the setup screen and the daemon, so the
//! face, the session and the log say the same thing the same way.
//!
//! The face draws whatever text it is given and fits it to its width
//! (shortening "Illegal move" to "Illegal" and so on); these are the full
//! sentences. The PGN's comments, which name the article each ruling rests
//! on, are in [`pgn`].

use shakmaty::{Color, KnownOutcome, Role, Square};

pub mod pgn;

use crate::face::duration_text;
use crate::{Choice, Effect, IncrementMode, Law, Reason, Ruling, TimeControl};

/// The setup screen, when the start's pieces stand a quarter turned: the
/// board lies across (7.2).
pub const BOARD_TURNED_QUARTER: &str = "Board turned 90 degrees";
/// The setup screen, when White's lever is pressed: the game waits for Black's.
pub const BLACKS_LEVER_STARTS: &str = "Black's lever starts";
/// No preset to start a game with (an empty configuration).
pub const NO_TIME_CONTROL: &str = "No time control configured";
/// A game rebuilt after a restart waits paused for a press.
pub const RESTARTED: &str = "Restarted: press to resume";

/// A game rebuilt after a restart up to a stored line it could not take:
/// that line and those after it, `lines` in all, are kept aside in the
/// store (the journal names them), and the game waits paused for a press.
pub fn restarted_set_aside(lines: usize) -> String {
    let noun = if lines == 1 { "line" } else { "lines" };
    format!("Restarted, {lines} {noun} set aside: press to resume")
}
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

/// A side as files write it, in lower case: "white", "black" (the replay
/// format's `side`, the configuration's `draw_odds`); [`side_name`] is the
/// one people read.
pub fn side_keyword(side: Color) -> &'static str {
    match side {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The side a [`side_keyword`] names, if it is one.
pub fn side_of_keyword(keyword: &str) -> Option<Color> {
    Color::ALL
        .into_iter()
        .find(|&side| side_keyword(side) == keyword)
}

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

/// A player's announcement heard: "J'adoube: White" (4.2.1).
pub fn adjusting(side: Color) -> String {
    format!("J'adoube: {}", side_name(side))
}

/// Whether an alert tells the players what to do (put pieces back, press
/// to resume), so that a passing note must not replace it.
pub fn is_instruction(alert: &str) -> bool {
    alert.starts_with("Restore") || alert.starts_with("Restarted")
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

/// The face's promotion line, the piece chosen in brackets: `Promote [Q] R B N`.
pub fn promotion_text(chosen: Role) -> String {
    let mut text = "Promote".to_owned();
    for (role, letter) in [
        (Role::Queen, 'Q'),
        (Role::Rook, 'R'),
        (Role::Bishop, 'B'),
        (Role::Knight, 'N'),
    ] {
        if role == chosen {
            text.push_str(&format!(" [{letter}]"));
        } else {
            text.push(' ');
            text.push(letter);
        }
    }
    text
}

/// The alert line for an effect, if it deserves one.
pub fn alert_for(effect: &Effect) -> Option<String> {
    match effect {
        // The referee's sentence names nobody and does not fit the face's
        // line: say who may.
        Effect::Violation(ruling) | Effect::Warning(ruling) if ruling.law == Law::Adjust => {
            Some(format!("Only {} may adjust", side_name(!ruling.side)))
        }
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
        // The face shows a choice while it waits, with its mark (the
        // session's view): an alert would outlive it.
        Effect::Choice { .. } | Effect::Started { .. } | Effect::Move(_) | Effect::Resumed => None,
    }
}

/// An effect in words for an arbiter's log (the hall's): the face's alert
/// when it has one, else the words for what the face says otherwise.
pub fn log_text(effect: &Effect) -> String {
    if let Some(alert) = alert_for(effect) {
        return alert;
    }
    match effect {
        Effect::Resumed => "Clock resumed".to_owned(),
        Effect::Started { side } => format!("{}'s clock started", side_name(*side)),
        Effect::Move(m) => format!("{} {}", side_name(m.side), m.san),
        Effect::Choice { side, law, options } => format!(
            "Choice {law}: {}, {}",
            side_name(*side),
            choice_text(options.as_slice(), usize::MAX)
        ),
        // Every other effect has its alert.
        _ => "ruling".to_owned(),
    }
}

/// An effect in words for a running transcript of the game (the
/// simulator's log): a move as on a score sheet with both clocks, a ruling
/// with its article and detail.
pub fn transcript_text(effect: &Effect) -> String {
    match effect {
        Effect::Started { side } => format!("{}'s clock started", side_name(*side)),
        Effect::Move(m) => {
            let dots = if m.side == Color::Black { "..." } else { "." };
            // White's and Black's moves in one column, as on a score sheet.
            let numbered = format!("{}{dots}", m.number);
            format!(
                "{numbered:<7}{:<9} White {}  Black {}",
                m.san.as_str(),
                crate::face::clock_text(m.white_ms),
                crate::face::clock_text(m.black_ms)
            )
        }
        Effect::Violation(r) => ruling_line("Violation", r),
        Effect::Warning(r) => ruling_line("Warning", r),
        Effect::TimeAdded { side, ms, law } => {
            format!("{} +{} ({law})", side_name(*side), duration_text(*ms))
        }
        Effect::DrawOffer { side, proper } => {
            let how = if *proper {
                ""
            } else {
                " (not between moving and pressing)"
            };
            format!("Draw offer: {}{how}", side_name(*side))
        }
        Effect::DrawDeclined { side, how } => format!(
            "{}'s draw offer declined ({})",
            side_name(*side),
            match how {
                crate::Rejection::Touch => "touch",
                crate::Rejection::Spoken => "spoken",
            }
        ),
        Effect::Displaced { side, squares } => {
            let squares: Vec<String> = squares.iter().map(Square::to_string).collect();
            format!(
                "Displaced, {}'s clock runs: restore {}",
                side_name(*side),
                squares.join(" ")
            )
        }
        Effect::Restored { side, ms } => format!(
            "Board restored ({} charged {})",
            side_name(*side),
            seconds_text(*ms)
        ),
        Effect::Flag { side } => format!("Flag: {}", side_name(*side)),
        Effect::Paused => PAUSED_BY_THE_ARBITER.to_owned(),
        Effect::Resumed => "Resumed".to_owned(),
        Effect::Corrected {
            side,
            ms,
            completed,
        } => format!(
            "Set: {} {}, {completed} moves completed",
            side_name(*side),
            duration_text(*ms)
        ),
        Effect::Result { outcome, reason } => format!(
            "Game over: {} ({})",
            outcome.as_str(),
            reason.as_str().replace('_', " ")
        ),
        // The rest as the arbiter's log says them.
        other => log_text(other),
    }
}

/// A short span in seconds with tenths (`0.7 s`), a long one as a clock.
fn seconds_text(ms: u64) -> String {
    if ms < 60_000 {
        format!("{}.{} s", ms / 1000, ms / 100 % 10)
    } else {
        duration_text(ms)
    }
}

/// A ruling in a transcript: what, who, the article, and its detail.
fn ruling_line(what: &str, ruling: &Ruling) -> String {
    let (side, law) = (side_name(ruling.side), ruling.law);
    if ruling.detail.is_empty() {
        format!("{what} ({side}, {law})")
    } else {
        format!("{what} ({side}, {law}): {}", ruling.detail)
    }
}

/// The face's line for a choice the laws give a player (the 1858
/// penalties), the marked option in brackets: `[take] leave king`.
pub fn choice_text(options: &[Choice], marked: usize) -> String {
    let mut text = String::new();
    for (i, option) in options.iter().enumerate() {
        if !text.is_empty() {
            text.push(' ');
        }
        if i == marked {
            text.push_str(&format!("[{option}]"));
        } else {
            text.push_str(option.as_str());
        }
    }
    text
}

/// A time control in words, as `tocada check-config` prints a preset:
/// "15 min + 10 s per move from move 1", "40 moves in 90 min + 30 s per
/// move from move 1, then 30 min + 30 s per move".
pub fn time_control_text(time_control: &TimeControl, increment: IncrementMode) -> String {
    match increment {
        IncrementMode::Hourglass => {
            return format!(
                "{} hourglass, the time one uses given to the other",
                span_text(time_control.stage(0).time_ms)
            );
        }
        IncrementMode::Upcount => return "counting up the time used, no flag".to_owned(),
        _ => {}
    }
    let stages = time_control.stages();
    let mut text = String::new();
    for (i, stage) in stages.iter().enumerate() {
        if i > 0 {
            text.push_str(", then ");
        }
        if let Some(moves) = stage.moves {
            text.push_str(&format!("{moves} moves in "));
        }
        text.push_str(&span_text(stage.time_ms));
        if stage.increment_ms > 0 {
            let each = span_text(stage.increment_ms);
            text.push_str(&match increment {
                IncrementMode::Fischer if i == 0 => format!(" + {each} per move from move 1"),
                IncrementMode::Fischer => format!(" + {each} per move"),
                IncrementMode::Bronstein => format!(", up to {each} a move given back (Bronstein)"),
                IncrementMode::Delay => format!(", {each} delay a move"),
                IncrementMode::Hourglass | IncrementMode::Upcount => String::new(),
            });
        }
    }
    if stages.last().is_some_and(|stage| stage.moves.is_some()) {
        text.push_str(", repeated");
    }
    match time_control.overtime() {
        Some(overtime) if overtime.is_byo_yomi() => text.push_str(&format!(
            ", then byo-yomi: {} period{} of {}",
            overtime.periods,
            if overtime.periods == 1 { "" } else { "s" },
            span_text(overtime.period_ms)
        )),
        Some(overtime) => text.push_str(&format!(
            ", then {}{} moves in {}, renewed (Canadian overtime)",
            match overtime.periods {
                1 => String::new(),
                n => format!("{n} periods of "),
            },
            overtime.moves,
            span_text(overtime.period_ms)
        )),
        None => {}
    }
    text
}

/// A span of time in the units a time control is spoken in: "90 min",
/// "1 min 30 s", "10 s", "0.5 s".
fn span_text(ms: u64) -> String {
    let (min, s, frac) = (ms / 60_000, ms / 1000 % 60, ms % 1000);
    let seconds = if frac == 0 {
        format!("{s} s")
    } else {
        let frac = format!("{frac:03}");
        format!("{s}.{} s", frac.trim_end_matches('0'))
    };
    match (min, s, frac) {
        (0, _, _) => seconds,
        (_, 0, 0) => format!("{min} min"),
        _ => format!("{min} min {seconds}"),
    }
}

/// Squares named on the setup screen before the rest are counted.
const SET_UP_SQUARES: usize = 4;

/// The setup screen's words for pieces not where the game's start has them
/// (7.3): "Missing d1; extra e4", "K-Q swapped d8 e8", "Wrong piece a1";
/// past four squares of a kind, the rest are counted ("+28").
pub fn set_up_text(
    missing: &[shakmaty::Square],
    extra: &[shakmaty::Square],
    swapped: &[(
        shakmaty::Piece,
        shakmaty::Square,
        shakmaty::Piece,
        shakmaty::Square,
    )],
    wrong: &[shakmaty::Square],
) -> String {
    let list = |squares: &[shakmaty::Square]| {
        let mut text: Vec<String> = squares
            .iter()
            .take(SET_UP_SQUARES)
            .map(ToString::to_string)
            .collect();
        if squares.len() > SET_UP_SQUARES {
            text.push(format!("+{}", squares.len() - SET_UP_SQUARES));
        }
        text.join(" ")
    };
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("missing {}", list(missing)));
    }
    if !extra.is_empty() {
        parts.push(format!("extra {}", list(extra)));
    }
    let mut swaps: Vec<String> = swapped
        .iter()
        .map(|&(a, a_sq, b, b_sq)| {
            // The pair named in a fixed order (K-Q, B-N), its squares
            // from a to h.
            let (mut first, mut second) = (a.role.upper_char(), b.role.upper_char());
            let order = |c: char| "KQRBNP".find(c).unwrap_or(6);
            if order(second) < order(first) {
                std::mem::swap(&mut first, &mut second);
            }
            let (x, y) = if a_sq < b_sq {
                (a_sq, b_sq)
            } else {
                (b_sq, a_sq)
            };
            format!("{first}-{second} swapped {x} {y}")
        })
        .collect();
    swaps.sort();
    parts.extend(swaps);
    if !wrong.is_empty() {
        parts.push(format!("wrong piece {}", list(wrong)));
    }
    let text = parts.join("; ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_face_counts_lines_set_aside_in_words() {
        assert_eq!(
            restarted_set_aside(1),
            "Restarted, 1 line set aside: press to resume"
        );
        assert_eq!(
            restarted_set_aside(2),
            "Restarted, 2 lines set aside: press to resume"
        );
    }

    #[test]
    fn a_side_is_written_lower_case_in_files_and_named_capitalised() {
        for side in Color::ALL {
            assert_eq!(side_of_keyword(side_keyword(side)), Some(side));
            assert_eq!(side_keyword(side), side_name(side).to_lowercase());
        }
        assert_eq!(side_keyword(Color::White), "white");
        assert_eq!(side_of_keyword("White"), None, "files are lower case");
        assert_eq!(side_of_keyword(""), None);
    }

    #[test]
    fn the_log_has_words_for_every_effect_the_face_has_no_alert_for() {
        assert_eq!(log_text(&Effect::Resumed), "Clock resumed");
        assert_eq!(log_text(&Effect::Paused), "Paused by the arbiter");
        assert_eq!(
            log_text(&Effect::Started { side: Color::White }),
            "White's clock started"
        );
        let choice = Effect::Choice {
            side: Color::Black,
            law: Law::Regence9,
            options: crate::ChoiceOptions::from_slice(&[Choice::Take, Choice::King]),
        };
        assert_eq!(
            log_text(&choice),
            format!("Choice {}: Black, take king", Law::Regence9)
        );
    }

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

    #[test]
    fn time_controls_are_spoken_as_an_arbiter_announces_them() {
        let text = |tc: &str, mode| time_control_text(&tc.parse().unwrap(), mode);
        assert_eq!(
            text("900+10", IncrementMode::Fischer),
            "15 min + 10 s per move from move 1"
        );
        assert_eq!(
            text("40/5400+30:1800+30", IncrementMode::Fischer),
            "40 moves in 90 min + 30 s per move from move 1, then 30 min + 30 s per move"
        );
        assert_eq!(
            text("90+0.5", IncrementMode::Fischer),
            "1 min 30 s + 0.5 s per move from move 1"
        );
        assert_eq!(
            text("300+3", IncrementMode::Bronstein),
            "5 min, up to 3 s a move given back (Bronstein)"
        );
        assert_eq!(
            text("300+5", IncrementMode::Delay),
            "5 min, 5 s delay a move"
        );
        assert_eq!(
            text("40/7200", IncrementMode::Fischer),
            "40 moves in 120 min, repeated"
        );
        assert_eq!(text("15", IncrementMode::Fischer), "15 s");
    }
}
