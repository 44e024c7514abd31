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
pub mod ruling;

use crate::face::duration_text;
pub use crate::face::{FaceWords, Language};
use crate::{Choice, Effect, IncrementMode, Law, Reason, Ruling, TimeControl};

/// A fixed notice of the setup screen, the session or the daemon, said in
/// any [`Language`] by [`Notice::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// The start's pieces stand a quarter turned: the board lies across (7.2).
    BoardTurnedQuarter,
    /// White's lever is pressed: the game waits for Black's.
    BlacksLeverStarts,
    /// No preset to start a game with (an empty configuration).
    NoTimeControl,
    /// A game rebuilt after a restart waits paused for a press.
    Restarted,
    /// The arbiter ended the game from the correction screen.
    GameAbandoned,
    /// Pieces were back where they belong after a displacement.
    BoardRestored,
    /// A draw offer was declined.
    DrawDeclined,
    /// The arbiter paused the clock.
    PausedByTheArbiter,
    /// The arbiter's waive or takeback found nothing to act on.
    NothingToDo,
    /// The clock runs again after a pause.
    ClockResumed,
}

impl Notice {
    /// Every notice.
    pub const ALL: [Notice; 10] = [
        Notice::BoardTurnedQuarter,
        Notice::BlacksLeverStarts,
        Notice::NoTimeControl,
        Notice::Restarted,
        Notice::GameAbandoned,
        Notice::BoardRestored,
        Notice::DrawDeclined,
        Notice::PausedByTheArbiter,
        Notice::NothingToDo,
        Notice::ClockResumed,
    ];

    /// The notice in `language`.
    pub const fn text(self, language: Language) -> &'static str {
        use Language::*;
        use Notice::*;
        match (self, language) {
            (BoardTurnedQuarter, English) => "Board turned 90 degrees",
            (BoardTurnedQuarter, Spanish) => "Tablero girado 90 grados",
            (BoardTurnedQuarter, French) => "Échiquier tourné de 90°",
            (BoardTurnedQuarter, German) => "Brett um 90° gedreht",
            (BlacksLeverStarts, _) => language.face().blacks_lever_starts,
            (NoTimeControl, English) => "No time control configured",
            (NoTimeControl, Spanish) => "Sin control de tiempo configurado",
            (NoTimeControl, French) => "Aucune cadence configurée",
            (NoTimeControl, German) => "Keine Bedenkzeit eingestellt",
            (Restarted, English) => "Restarted: press to resume",
            (Restarted, Spanish) => "Reiniciado: pulse para seguir",
            (Restarted, French) => "Redémarré: appuyez pour reprendre",
            (Restarted, German) => "Neustart: zum Fortsetzen drücken",
            (GameAbandoned, English) => "Game abandoned",
            (GameAbandoned, Spanish) => "Partida interrumpida",
            (GameAbandoned, French) => "Partie interrompue",
            (GameAbandoned, German) => "Partie abgebrochen",
            (BoardRestored, English) => "Board restored",
            (BoardRestored, Spanish) => "Tablero repuesto",
            (BoardRestored, French) => "Échiquier rétabli",
            (BoardRestored, German) => "Brett wiederhergestellt",
            (DrawDeclined, English) => "Draw declined",
            (DrawDeclined, Spanish) => "Tablas rechazadas",
            (DrawDeclined, French) => "Nulle refusée",
            (DrawDeclined, German) => "Remis abgelehnt",
            (PausedByTheArbiter, English) => "Paused by the arbiter",
            (PausedByTheArbiter, Spanish) => "Pausa del árbitro",
            (PausedByTheArbiter, French) => "Pause de l'arbitre",
            (PausedByTheArbiter, German) => "Pause durch den Schiri",
            (NothingToDo, English) => "Nothing to do",
            (NothingToDo, Spanish) => "Nada que hacer",
            (NothingToDo, French) => "Rien à faire",
            (NothingToDo, German) => "Nichts zu tun",
            (ClockResumed, English) => "Clock resumed",
            (ClockResumed, Spanish) => "Reloj en marcha",
            (ClockResumed, French) => "Pendule relancée",
            (ClockResumed, German) => "Uhr läuft wieder",
        }
    }
}

/// The setup screen, when the start's pieces stand a quarter turned: the
/// board lies across (7.2).
pub const BOARD_TURNED_QUARTER: &str = Notice::BoardTurnedQuarter.text(Language::English);
/// The setup screen, when White's lever is pressed: the game waits for Black's.
pub const BLACKS_LEVER_STARTS: &str = Notice::BlacksLeverStarts.text(Language::English);
/// No preset to start a game with (an empty configuration).
pub const NO_TIME_CONTROL: &str = Notice::NoTimeControl.text(Language::English);
/// A game rebuilt after a restart waits paused for a press.
pub const RESTARTED: &str = Notice::Restarted.text(Language::English);

/// A game rebuilt after a restart up to a stored line it could not take:
/// that line and those after it, `lines` in all, are kept aside in the
/// store (the journal names them), and the game waits paused for a press.
pub fn restarted_set_aside(lines: usize, language: Language) -> String {
    let one = lines == 1;
    match language {
        Language::English => {
            let noun = if one { "line" } else { "lines" };
            format!("Restarted, {lines} {noun} set aside: press to resume")
        }
        Language::Spanish => {
            let noun = if one {
                "línea apartada"
            } else {
                "líneas apartadas"
            };
            format!("Reiniciado, {lines} {noun}: pulse para seguir")
        }
        Language::French => {
            let noun = if one { "ligne mise" } else { "lignes mises" };
            format!("Redémarré, {lines} {noun} de côté: appuyez pour reprendre")
        }
        Language::German => {
            let noun = if one { "Zeile" } else { "Zeilen" };
            format!("Neustart, {lines} {noun} beiseite: zum Fortsetzen drücken")
        }
    }
}
/// The arbiter ended the game from the correction screen.
pub const GAME_ABANDONED: &str = Notice::GameAbandoned.text(Language::English);
/// The sensor board does not answer (the face's status row says it).
pub use crate::face::BOARD_DISCONNECTED;
/// Pieces were back where they belong after a displacement.
pub const BOARD_RESTORED: &str = Notice::BoardRestored.text(Language::English);
/// A draw offer was declined.
pub const DRAW_DECLINED: &str = Notice::DrawDeclined.text(Language::English);
/// The arbiter paused the clock.
pub const PAUSED_BY_THE_ARBITER: &str = Notice::PausedByTheArbiter.text(Language::English);

/// The result's reason on the face when the arbiter gave it.
pub const ADJUDICATED: &str = "arbiter";
/// The reason the pause menu gives for an adjudication (it cannot type).
/// It is stored in the record, which is in English.
pub const ADJUDICATED_FROM_THE_MENU: &str = "Adjudicated from the clock's menu";
/// A menu act asks for a second "+" before it is done: "Confirm 1-0?".
pub const CONFIRM: &str = "Confirm";
/// The arbiter's waive or takeback found nothing to act on.
pub const NOTHING_TO_DO: &str = Notice::NothingToDo.text(Language::English);

/// "Confirm 1-0?" in `language`: the menu's act waits for a second "+".
pub fn confirm(score: &str, language: Language) -> String {
    let word = match language {
        Language::English => CONFIRM,
        Language::Spanish => "Confirmar",
        Language::French => "Confirmer",
        Language::German => "Bestätigen",
    };
    format!("{word} {score}?")
}

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
pub fn result_text(outcome: KnownOutcome, reason: Reason, language: Language) -> String {
    use Language::*;
    let score = match outcome {
        KnownOutcome::Decisive {
            winner: Color::White,
        } => "1-0",
        KnownOutcome::Decisive {
            winner: Color::Black,
        } => "0-1",
        KnownOutcome::Draw => "½-½",
    };
    let why = match (reason, language) {
        (Reason::Checkmate, English) => "checkmate",
        (Reason::Checkmate, Spanish) => "jaque mate",
        (Reason::Checkmate, French) => "échec et mat",
        (Reason::Checkmate, German) => "Matt",
        (Reason::Resignation, English) => "resignation",
        (Reason::Resignation, Spanish) => "abandono",
        (Reason::Resignation, French) => "abandon",
        (Reason::Resignation, German) => "Aufgabe",
        (Reason::Timeout, English) => "on time",
        (Reason::Timeout, Spanish) => "por tiempo",
        (Reason::Timeout, French) => "au temps",
        (Reason::Timeout, German) => "auf Zeit",
        (Reason::TimeoutVsInsufficientMaterial, English) => "time, no mate",
        (Reason::TimeoutVsInsufficientMaterial, Spanish) => "tiempo, sin mate",
        (Reason::TimeoutVsInsufficientMaterial, French) => "temps, pas de mat",
        (Reason::TimeoutVsInsufficientMaterial, German) => "Zeit, kein Matt",
        (Reason::Stalemate, English) => "stalemate",
        (Reason::Stalemate, Spanish) => "ahogado",
        (Reason::Stalemate, French) => "pat",
        (Reason::Stalemate, German) => "Patt",
        (Reason::InsufficientMaterial, English) => "no mate possible",
        (Reason::InsufficientMaterial, Spanish) => "mate imposible",
        (Reason::InsufficientMaterial, French) => "mat impossible",
        (Reason::InsufficientMaterial, German) => "kein Matt möglich",
        (Reason::Agreement, English) => "agreed",
        (Reason::Agreement, Spanish) => "acuerdo",
        (Reason::Agreement, French) => "accord",
        (Reason::Agreement, German) => "Einigung",
        (Reason::ThreefoldRepetition, English) => "repetition",
        (Reason::ThreefoldRepetition, Spanish) => "repetición",
        (Reason::ThreefoldRepetition, French) => "répétition",
        (Reason::ThreefoldRepetition, German) => "Wiederholung",
        (Reason::FiftyMoves, English) => "50 moves",
        (Reason::FiftyMoves, Spanish) => "50 jugadas",
        (Reason::FiftyMoves, French) => "50 coups",
        (Reason::FiftyMoves, German) => "50 Züge",
        (Reason::FivefoldRepetition, English) => "5-fold repetition",
        (Reason::FivefoldRepetition, Spanish) => "5 repeticiones",
        (Reason::FivefoldRepetition, French) => "5 répétitions",
        (Reason::FivefoldRepetition, German) => "5-fache Wdh.",
        (Reason::SeventyFiveMoves, English) => "75 moves",
        (Reason::SeventyFiveMoves, Spanish) => "75 jugadas",
        (Reason::SeventyFiveMoves, French) => "75 coups",
        (Reason::SeventyFiveMoves, German) => "75 Züge",
        (Reason::IllegalMoves, English) => "illegal moves",
        (Reason::IllegalMoves, Spanish) => "jugadas ilegales",
        (Reason::IllegalMoves, French) => "coups illégaux",
        (Reason::IllegalMoves, German) => "unerlaubte Züge",
        (Reason::Adjudicated(_), English) => ADJUDICATED,
        (Reason::Adjudicated(_), Spanish) => "árbitro",
        (Reason::Adjudicated(_), French) => "arbitre",
        (Reason::Adjudicated(_), German) => "Schiri",
    };
    format!("{score} {why}")
}

/// A ruling as the players read it: the referee's own sentence when it
/// has one ("Touch-move: move the g1 knight", in Spanish "Pieza tocada:
/// mueva el caballo de g1"), else the side and the law.
pub fn ruling_text(ruling: &Ruling, language: Language) -> String {
    if ruling.detail.is_empty() {
        format!("{}: {}", language.side(ruling.side), ruling.law)
    } else {
        ruling::detail_in(&ruling.detail, language)
    }
}

/// A player's announcement heard: "J'adoube: White" (4.2.1); in Spanish
/// "Compongo: Blancas".
pub fn adjusting(side: Color, language: Language) -> String {
    let word = match language {
        Language::Spanish => "Compongo",
        _ => "J'adoube",
    };
    format!("{word}: {}", language.side(side))
}

/// The word that starts [`restore_text`] in `language`.
fn restore_word(language: Language) -> &'static str {
    match language {
        Language::English => "Restore",
        Language::Spanish => "Reponga",
        Language::French => "Replacez",
        Language::German => "Zurückstellen",
    }
}

/// Whether an alert tells the players what to do (put pieces back, press
/// to resume), so that a passing note must not replace it.
pub fn is_instruction(alert: &str, language: Language) -> bool {
    let restarted = Notice::Restarted.text(language);
    let restarted = restarted.split([':', ',']).next().unwrap_or(restarted);
    alert.starts_with(restore_word(language)) || alert.starts_with(restarted)
}

/// The squares to put pieces back on: "Restore d2 c2".
pub fn restore_text(squares: &[Square], language: Language) -> String {
    let mut text = restore_word(language).to_owned();
    for sq in squares {
        text.push(' ');
        text.push_str(&sq.to_string());
    }
    text
}

/// The face's promotion line, the piece chosen in brackets: `Promote [Q] R B N`
/// (the language's piece letters: `Promoción [D] T A C`).
pub fn promotion_text(chosen: Role, language: Language) -> String {
    let mut text = match language {
        Language::English => "Promote",
        Language::Spanish => "Promoción",
        Language::French => "Promotion",
        Language::German => "Umwandlung",
    }
    .to_owned();
    let letters = language.face().pieces;
    for (role, letter) in [
        (Role::Queen, letters[1]),
        (Role::Rook, letters[2]),
        (Role::Bishop, letters[3]),
        (Role::Knight, letters[4]),
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
pub fn alert_for(effect: &Effect, language: Language) -> Option<String> {
    use Language::*;
    let side = |s: Color| language.side(s);
    match effect {
        // The referee's sentence names nobody and does not fit the face's
        // line: say who may.
        Effect::Violation(ruling) | Effect::Warning(ruling) if ruling.law == Law::Adjust => {
            let other = side(!ruling.side);
            Some(match language {
                English => format!("Only {other} may adjust"),
                Spanish => format!("Solo componen {other}"),
                French => format!("Seuls les {other} ajustent"),
                German => format!("Nur {other} darf rücken"),
            })
        }
        Effect::Violation(ruling) | Effect::Warning(ruling) => Some(ruling_text(ruling, language)),
        Effect::TimeAdded { side: s, ms, law } => Some(match law {
            Law::IllegalMovePenalty | Law::IllegalMove | Law::Unpromoted | Law::NoMove => {
                let illegal = match language {
                    English => "Illegal move",
                    Spanish => "Jugada ilegal",
                    French => "Coup illégal",
                    German => "Unerlaubter Zug",
                };
                format!("{illegal}: {} +{}", side(*s), duration_text(*ms))
            }
            _ => format!("{} +{}", side(*s), duration_text(*ms)),
        }),
        Effect::Displaced { squares, .. } => Some(restore_text(squares, language)),
        Effect::Restored { .. } => Some(Notice::BoardRestored.text(language).to_owned()),
        Effect::Flag { side: s } => Some(format!("{}: {}", flag_word(language), side(*s))),
        Effect::DrawOffer { side: s, .. } => {
            Some(format!("{}: {}", draw_offer_word(language), side(*s)))
        }
        Effect::DrawDeclined { .. } => Some(Notice::DrawDeclined.text(language).to_owned()),
        Effect::Paused => Some(Notice::PausedByTheArbiter.text(language).to_owned()),
        Effect::Corrected { side: s, ms, .. } => {
            let set = match language {
                English => "Set",
                Spanish => "Corregido",
                French => "Réglé",
                German => "Gestellt",
            };
            Some(format!("{set}: {} {}", side(*s), duration_text(*ms)))
        }
        Effect::Result { outcome, reason } => Some(result_text(*outcome, *reason, language)),
        Effect::TakenBack {
            side: s,
            number,
            san,
        } => {
            let taken = match language {
                English => "Taken back",
                Spanish => "Retirada",
                French => "Repris",
                German => "Zurückgenommen",
            };
            let dots = if *s == Color::White { "." } else { "..." };
            Some(format!(
                "{taken}: {} {number}{dots} {}",
                side(*s),
                language.san(san.as_str())
            ))
        }
        Effect::Waived { side: s, law } => {
            let waived = match language {
                English => "Waived",
                Spanish => "Anulada",
                French => "Levée",
                German => "Erlassen",
            };
            Some(format!("{waived}: {} {law}", side(*s)))
        }
        Effect::Claim {
            side: s,
            law,
            upheld,
        } => Some(match (language, upheld) {
            (English, true) => format!("Claim {law} upheld: {}", side(*s)),
            (English, false) => format!("Claim refused: {}", side(*s)),
            (Spanish, true) => format!("Reclamación {law} aceptada: {}", side(*s)),
            (Spanish, false) => format!("Reclamación rechazada: {}", side(*s)),
            (French, true) => format!("Réclamation {law} admise: {}", side(*s)),
            (French, false) => format!("Réclamation rejetée: {}", side(*s)),
            (German, true) => format!("Reklamation {law} angenommen: {}", side(*s)),
            (German, false) => format!("Reklamation abgelehnt: {}", side(*s)),
        }),
        // The face shows a choice while it waits, with its mark (the
        // session's view): an alert would outlive it.
        Effect::Choice { .. } | Effect::Started { .. } | Effect::Move(_) | Effect::Resumed => None,
    }
}

/// "Flag" in `language`, as an alert says whose fell.
fn flag_word(language: Language) -> &'static str {
    match language {
        Language::English => "Flag",
        Language::Spanish => "Bandera",
        Language::French => "Drapeau",
        Language::German => "Zeit",
    }
}

/// "Draw offer" in `language`.
fn draw_offer_word(language: Language) -> &'static str {
    match language {
        Language::English => "Draw offer",
        Language::Spanish => "Oferta de tablas",
        Language::French => "Offre de nulle",
        Language::German => "Remisangebot",
    }
}

/// "White's clock started" in `language`.
fn clock_started(side: Color, language: Language) -> String {
    let name = language.side(side);
    match language {
        Language::English => format!("{name}'s clock started"),
        Language::Spanish => format!("Reloj de {name} en marcha"),
        Language::French => format!("Pendule des {name} lancée"),
        Language::German => format!("Uhr von {name} läuft"),
    }
}

/// Where the game stands, as the simulator titles its board: "White to
/// move", "Black to move · paused", "White moved, not pressed", "game
/// over", or before a game "set up for a game".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// No game: the pieces wait for one.
    SetUp,
    /// This side is to move.
    ToMove(Color),
    /// This side is to move, the clock paused.
    ToMovePaused(Color),
    /// This side moved on the board and has not pressed.
    MovedNotPressed(Color),
    /// The game is over.
    GameOver,
}

impl Standing {
    /// In `language`.
    pub fn text(self, language: Language) -> String {
        use Language::*;
        use Standing::*;
        let side = |s: Color| language.side(s);
        match (self, language) {
            (SetUp, English) => "set up for a game".to_owned(),
            (SetUp, Spanish) => "listo para una partida".to_owned(),
            (SetUp, French) => "en place pour une partie".to_owned(),
            (SetUp, German) => "bereit für eine Partie".to_owned(),
            (ToMove(s), English) => format!("{} to move", side(s)),
            (ToMove(s), Spanish) => format!("juegan {}", side(s)),
            (ToMove(s), French) => format!("trait aux {}", side(s)),
            (ToMove(s), German) => format!("{} am Zug", side(s)),
            (ToMovePaused(s), _) => format!(
                "{} · {}",
                ToMove(s).text(language),
                language.face().paused.to_lowercase()
            ),
            (MovedNotPressed(s), English) => format!("{} moved, not pressed", side(s)),
            (MovedNotPressed(s), Spanish) => format!("{} movieron, sin pulsar", side(s)),
            (MovedNotPressed(s), French) => format!("{} ont joué, sans appuyer", side(s)),
            (MovedNotPressed(s), German) => format!("{} zog, nicht gedrückt", side(s)),
            (GameOver, English) => "game over".to_owned(),
            (GameOver, Spanish) => "partida terminada".to_owned(),
            (GameOver, French) => "partie terminée".to_owned(),
            (GameOver, German) => "Partie beendet".to_owned(),
        }
    }
}

/// An effect in words for an arbiter's log (the hall's): the face's alert
/// when it has one, else the words for what the face says otherwise.
pub fn log_text(effect: &Effect, language: Language) -> String {
    if let Some(alert) = alert_for(effect, language) {
        return alert;
    }
    match effect {
        Effect::Resumed => Notice::ClockResumed.text(language).to_owned(),
        Effect::Started { side } => clock_started(*side, language),
        Effect::Move(m) => format!("{} {}", language.side(m.side), language.san(m.san.as_str())),
        Effect::Choice { side, law, options } => format!(
            "{} {law}: {}, {}",
            match language {
                Language::English => "Choice",
                Language::Spanish => "Elección",
                Language::French => "Choix",
                Language::German => "Wahl",
            },
            language.side(*side),
            choice_text(options.as_slice(), usize::MAX, language)
        ),
        // Every other effect has its alert.
        _ => "ruling".to_owned(),
    }
}

/// An effect in words for a running transcript of the game (the
/// simulator's log): a move as on a score sheet with both clocks, a ruling
/// with its article and detail.
pub fn transcript_text(effect: &Effect, language: Language) -> String {
    use Language::*;
    let side = |s: Color| language.side(s);
    match effect {
        Effect::Started { side } => clock_started(*side, language),
        Effect::Move(m) => {
            let dots = if m.side == Color::Black { "..." } else { "." };
            // White's and Black's moves in one column, as on a score sheet.
            let numbered = format!("{}{dots}", m.number);
            format!(
                "{numbered:<7}{:<9} {} {}  {} {}",
                language.san(m.san.as_str()),
                side(Color::White),
                crate::face::clock_text(m.white_ms),
                side(Color::Black),
                crate::face::clock_text(m.black_ms)
            )
        }
        Effect::Violation(r) => ruling_line(
            match language {
                English => "Violation",
                Spanish => "Infracción",
                French => "Infraction",
                German => "Verstoß",
            },
            r,
            language,
        ),
        Effect::Warning(r) => ruling_line(
            match language {
                English => "Warning",
                Spanish => "Aviso",
                French => "Avertissement",
                German => "Warnung",
            },
            r,
            language,
        ),
        Effect::TimeAdded { side: s, ms, law } => {
            format!("{} +{} ({law})", side(*s), duration_text(*ms))
        }
        Effect::DrawOffer { side: s, proper } => {
            let how = match (proper, language) {
                (true, _) => "",
                (false, English) => " (not between moving and pressing)",
                (false, Spanish) => " (no entre mover y pulsar)",
                (false, French) => " (pas entre le coup et l'appui)",
                (false, German) => " (nicht zwischen Zug und Drücken)",
            };
            format!("{}: {}{how}", draw_offer_word(language), side(*s))
        }
        Effect::DrawDeclined { side: s, how } => {
            let how = match (how, language) {
                (crate::Rejection::Touch, English) => "touch",
                (crate::Rejection::Spoken, English) => "spoken",
                (crate::Rejection::Touch, Spanish) => "tocando",
                (crate::Rejection::Spoken, Spanish) => "de palabra",
                (crate::Rejection::Touch, French) => "en touchant",
                (crate::Rejection::Spoken, French) => "de vive voix",
                (crate::Rejection::Touch, German) => "berührt",
                (crate::Rejection::Spoken, German) => "gesagt",
            };
            let name = side(*s);
            match language {
                English => format!("{name}'s draw offer declined ({how})"),
                Spanish => format!("Oferta de tablas de {name} rechazada ({how})"),
                French => format!("Offre de nulle des {name} refusée ({how})"),
                German => format!("Remisangebot von {name} abgelehnt ({how})"),
            }
        }
        Effect::Displaced { side: s, squares } => {
            let squares: Vec<String> = squares.iter().map(Square::to_string).collect();
            let (name, squares) = (side(*s), squares.join(" "));
            match language {
                English => format!("Displaced, {name}'s clock runs: restore {squares}"),
                Spanish => {
                    format!("Piezas desplazadas, corre el reloj de {name}: reponga {squares}")
                }
                French => {
                    format!("Pièces déplacées, la pendule des {name} tourne: replacez {squares}")
                }
                German => format!("Verschoben, Uhr von {name} läuft: {squares} zurückstellen"),
            }
        }
        Effect::Restored { side: s, ms } => {
            let (name, spent) = (side(*s), seconds_text(*ms));
            match language {
                English => format!("Board restored ({name} charged {spent})"),
                Spanish => format!("Tablero repuesto ({name} gastan {spent})"),
                French => format!("Échiquier rétabli ({name} débités de {spent})"),
                German => format!("Brett wiederhergestellt ({name} verbraucht {spent})"),
            }
        }
        Effect::Flag { side: s } => format!("{}: {}", flag_word(language), side(*s)),
        Effect::Paused => Notice::PausedByTheArbiter.text(language).to_owned(),
        Effect::Resumed => match language {
            English => "Resumed".to_owned(),
            _ => Notice::ClockResumed.text(language).to_owned(),
        },
        Effect::Corrected {
            side: s,
            ms,
            completed,
        } => {
            let (name, time) = (side(*s), duration_text(*ms));
            match language {
                English => format!("Set: {name} {time}, {completed} moves completed"),
                Spanish => format!("Corregido: {name} {time}, {completed} jugadas hechas"),
                French => format!("Réglé: {name} {time}, {completed} coups joués"),
                German => format!("Gestellt: {name} {time}, {completed} Züge gespielt"),
            }
        }
        Effect::Result { outcome, reason } => match language {
            English => format!(
                "Game over: {} ({})",
                outcome.as_str(),
                reason.as_str().replace('_', " ")
            ),
            _ => {
                let over = match language {
                    Spanish => "Fin de la partida",
                    French => "Fin de partie",
                    _ => "Partie beendet",
                };
                format!("{over}: {}", result_text(*outcome, *reason, language))
            }
        },
        // The rest as the arbiter's log says them.
        other => log_text(other, language),
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
fn ruling_line(what: &str, ruling: &Ruling, language: Language) -> String {
    let (side, law) = (language.side(ruling.side), ruling.law);
    if ruling.detail.is_empty() {
        format!("{what} ({side}, {law})")
    } else {
        format!(
            "{what} ({side}, {law}): {}",
            ruling::detail_in(&ruling.detail, language)
        )
    }
}

/// A choice's name in `language`: "take" is "tomar" in Spanish.
pub fn choice_name(choice: Choice, language: Language) -> &'static str {
    use Language::*;
    match (choice, language) {
        (_, English) => choice.as_str(),
        (Choice::Take, Spanish) => "tomar",
        (Choice::Leave, Spanish) => "dejar",
        (Choice::King, Spanish) => "rey",
        (Choice::Restore, Spanish) => "reponer",
        (Choice::First, Spanish) => "primera",
        (Choice::Second, Spanish) => "segunda",
        (Choice::Capture, Spanish) => "capturar",
        (Choice::Move, Spanish) => "mover",
        (Choice::Stand, Spanish) => "vale",
        (Choice::Elsewhere, Spanish) => "otra casilla",
        (Choice::Undo, Spanish) => "deshacer",
        (Choice::Keep, Spanish) => "mantener",
        (Choice::Rook, Spanish) => "torre",
        (Choice::Take, French) => "prendre",
        (Choice::Leave, French) => "laisser",
        (Choice::King, French) => "roi",
        (Choice::Restore, French) => "replacer",
        (Choice::First, French) => "première",
        (Choice::Second, French) => "seconde",
        (Choice::Capture, French) => "capturer",
        (Choice::Move, French) => "jouer",
        (Choice::Stand, French) => "maintenir",
        (Choice::Elsewhere, French) => "ailleurs",
        (Choice::Undo, French) => "annuler",
        (Choice::Keep, French) => "garder",
        (Choice::Rook, French) => "tour",
        (Choice::Take, German) => "nehmen",
        (Choice::Leave, German) => "lassen",
        (Choice::King, German) => "König",
        (Choice::Restore, German) => "zurück",
        (Choice::First, German) => "erste",
        (Choice::Second, German) => "zweite",
        (Choice::Capture, German) => "schlagen",
        (Choice::Move, German) => "ziehen",
        (Choice::Stand, German) => "gilt",
        (Choice::Elsewhere, German) => "anderswo",
        (Choice::Undo, German) => "rückgängig",
        (Choice::Keep, German) => "behalten",
        (Choice::Rook, German) => "Turm",
    }
}

/// The face's line for a choice the laws give a player (the 1858
/// penalties), the marked option in brackets: `[take] leave king`.
pub fn choice_text(options: &[Choice], marked: usize, language: Language) -> String {
    let mut text = String::new();
    for (i, option) in options.iter().enumerate() {
        if !text.is_empty() {
            text.push(' ');
        }
        let name = choice_name(*option, language);
        if i == marked {
            text.push_str(&format!("[{name}]"));
        } else {
            text.push_str(name);
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
    language: Language,
) -> String {
    use Language::*;
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
        let word = match language {
            English => "missing",
            Spanish => "faltan",
            French => "manque",
            German => "fehlt",
        };
        parts.push(format!("{word} {}", list(missing)));
    }
    if !extra.is_empty() {
        let word = match language {
            English => "extra",
            Spanish => "sobran",
            French => "en trop",
            German => "zu viel",
        };
        parts.push(format!("{word} {}", list(extra)));
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
            let swapped = match language {
                English => "swapped",
                Spanish => "cambiados",
                French => "inversés",
                German => "vertauscht",
            };
            let (first, second) = (
                language.san(&first.to_string()),
                language.san(&second.to_string()),
            );
            format!("{first}-{second} {swapped} {x} {y}")
        })
        .collect();
    swaps.sort();
    parts.extend(swaps);
    if !wrong.is_empty() {
        let word = match language {
            English => "wrong piece",
            Spanish => "pieza errónea",
            French => "mauvaise pièce",
            German => "falsche Figur",
        };
        parts.push(format!("{word} {}", list(wrong)));
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
            restarted_set_aside(1, Language::English),
            "Restarted, 1 line set aside: press to resume"
        );
        assert_eq!(
            restarted_set_aside(2, Language::English),
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
        assert_eq!(
            log_text(&Effect::Resumed, Language::English),
            "Clock resumed"
        );
        assert_eq!(
            log_text(&Effect::Paused, Language::English),
            "Paused by the arbiter"
        );
        assert_eq!(
            log_text(&Effect::Started { side: Color::White }, Language::English),
            "White's clock started"
        );
        let choice = Effect::Choice {
            side: Color::Black,
            law: Law::Regence9,
            options: crate::ChoiceOptions::from_slice(&[Choice::Take, Choice::King]),
        };
        assert_eq!(
            log_text(&choice, Language::English),
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
            alert_for(&Effect::Violation(ruling), Language::English).unwrap(),
            "Touch-move: move the g1 knight"
        );
        let added = Effect::TimeAdded {
            side: Color::Black,
            ms: 120_000,
            law: Law::IllegalMovePenalty,
        };
        assert_eq!(
            alert_for(&added, Language::English).unwrap(),
            "Illegal move: Black +2:00"
        );
        let displaced = Effect::Displaced {
            side: Color::White,
            squares: vec![Square::D2, Square::C2],
        };
        assert_eq!(
            alert_for(&displaced, Language::English).unwrap(),
            "Restore d2 c2"
        );
        assert_eq!(
            alert_for(&Effect::Flag { side: Color::White }, Language::English).unwrap(),
            "Flag: White"
        );
        assert_eq!(
            alert_for(&Effect::Started { side: Color::White }, Language::English),
            None
        );
        assert_eq!(
            result_text(KnownOutcome::Draw, Reason::Agreement, Language::English),
            "½-½ agreed"
        );
    }

    #[test]
    fn the_simulators_board_title_in_each_language() {
        let english: Vec<String> = [
            Standing::SetUp,
            Standing::ToMove(Color::White),
            Standing::ToMovePaused(Color::Black),
            Standing::MovedNotPressed(Color::White),
            Standing::GameOver,
        ]
        .iter()
        .map(|s| s.text(Language::English))
        .collect();
        assert_eq!(
            english,
            [
                "set up for a game",
                "White to move",
                "Black to move · paused",
                "White moved, not pressed",
                "game over"
            ]
        );
        assert_eq!(
            Standing::ToMovePaused(Color::Black).text(Language::Spanish),
            "juegan Negras · pausa"
        );
        assert_eq!(
            Standing::ToMove(Color::White).text(Language::German),
            "Weiß am Zug"
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
