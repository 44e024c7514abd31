//! A ruling's sentence in the players' language.
//!
//! The referee writes each ruling's detail in English ("Touch-move: move
//! the g1 knight"): it is part of the replay format, the record every
//! clock, hall and replay reads, and stays one language there. This is the
//! one place that reads those sentences back into what they say, a
//! [`Sentence`], and says that in another language ("Pieza tocada: mueva
//! el caballo de g1"). A sentence it does not know is shown as written.

use shakmaty::{Role, Square};

use crate::face::Language;

/// A piece a ruling names, with its square when it has one: "g1 knight".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedPiece {
    /// What piece.
    pub role: Role,
    /// Where it stands.
    pub square: Option<Square>,
}

/// What to put back: squares, or the position when the board shows no
/// difference the referee can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restore {
    /// These squares.
    Squares(Vec<Square>),
    /// "the position".
    Position,
}

/// What a ruling's detail says, one variant for each sentence the referee
/// writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sentence {
    /// 4.3.1: "Touch-move: move the g1 knight".
    MoveThe(NamedPiece),
    /// 4.3.2: "Touch-move: take the g8 knight".
    TakeThe(NamedPiece),
    /// 4.3.3: "Touch-move: take the e5 pawn with the d4 pawn".
    TakeWith(NamedPiece, NamedPiece),
    /// 4.4.2: "Touch-move: king then rook, castle with the h1 rook".
    CastleWith(Square),
    /// 4.4.3: "Touch-move: castling is illegal, move the king".
    CastlingIllegal,
    /// 4.4.1: "Touch-move: rook then king, no castling; move the h1 rook".
    RookThenKing(Square),
    /// 4.7: "Released piece: the g1 knight stays on f3".
    Released(NamedPiece, Square),
    /// "Let go of the piece before pressing".
    LetGo,
    /// 6.2.3: "Pressed 40 ms after releasing: press with the hand that moved".
    PressedAfterReleasing(u64),
    /// 7.4.1: "Restore d2 before pressing".
    RestoreBeforePressing(Restore),
    /// "Pressed without making a move".
    NoMove,
    /// 7.5.2: "Pawn not promoted: it becomes a queen".
    Unpromoted,
    /// 7.5.1: "Illegal move: restore e4 and make a legal move".
    IllegalMove(Restore),
    /// 1858: "Penalty: take the piece on d5".
    PenaltyTake(Square),
    /// 1858: "Penalty: move the king".
    PenaltyKing,
    /// 1858: "Penalty: move the piece from d5".
    PenaltyPiece(Square),
    /// 1858, 20ª: "Castling is not allowed here: restore e1 g1 and move".
    CastlingNotAllowed(Restore),
    /// 1858, 22ª: "The touched piece cannot move without exposing the king:
    /// move the king".
    PinnedMoveTheKing,
    /// 4.2.1: "Only the player having the move may adjust pieces".
    OnlyThePlayerToMoveAdjusts,
}

fn role(word: &str) -> Option<Role> {
    Some(match word {
        "pawn" => Role::Pawn,
        "knight" => Role::Knight,
        "bishop" => Role::Bishop,
        "rook" => Role::Rook,
        "queen" => Role::Queen,
        "king" => Role::King,
        _ => return None,
    })
}

fn piece(words: &str) -> Option<NamedPiece> {
    match words.split_once(' ') {
        Some((square, name)) => Some(NamedPiece {
            role: role(name)?,
            square: Some(square.parse().ok()?),
        }),
        None => Some(NamedPiece {
            role: role(words)?,
            square: None,
        }),
    }
}

fn restore(words: &str) -> Option<Restore> {
    if words == "the position" {
        return Some(Restore::Position);
    }
    let squares: Option<Vec<Square>> = words.split(' ').map(|s| s.parse().ok()).collect();
    squares.filter(|s| !s.is_empty()).map(Restore::Squares)
}

impl Sentence {
    /// What the referee's `detail` says, if it is one of its sentences.
    pub fn read(detail: &str) -> Option<Sentence> {
        use Sentence::*;
        let fixed = [
            (
                "Touch-move: castling is illegal, move the king",
                CastlingIllegal,
            ),
            ("Let go of the piece before pressing", LetGo),
            ("Pressed without making a move", NoMove),
            ("Pawn not promoted: it becomes a queen", Unpromoted),
            ("Penalty: move the king", PenaltyKing),
            (
                "The touched piece cannot move without exposing the king: move the king",
                PinnedMoveTheKing,
            ),
            (
                "Only the player having the move may adjust pieces",
                OnlyThePlayerToMoveAdjusts,
            ),
        ];
        if let Some((_, sentence)) = fixed.into_iter().find(|(text, _)| *text == detail) {
            return Some(sentence);
        }
        if let Some(rest) = detail.strip_prefix("Touch-move: ") {
            if let Some(rook) = rest
                .strip_prefix("king then rook, castle with the ")
                .and_then(|r| r.strip_suffix(" rook"))
            {
                return Some(CastleWith(rook.parse().ok()?));
            }
            if let Some(rook) = rest
                .strip_prefix("rook then king, no castling; move the ")
                .and_then(|r| r.strip_suffix(" rook"))
            {
                return Some(RookThenKing(rook.parse().ok()?));
            }
            if let Some(p) = rest.strip_prefix("move the ") {
                return Some(MoveThe(piece(p)?));
            }
            if let Some(p) = rest.strip_prefix("take the ") {
                return Some(match p.split_once(" with the ") {
                    Some((theirs, ours)) => TakeWith(piece(theirs)?, piece(ours)?),
                    None => TakeThe(piece(p)?),
                });
            }
            return None;
        }
        if let Some(rest) = detail.strip_prefix("Released piece: the ") {
            let (p, square) = rest.split_once(" stays on ")?;
            return Some(Released(piece(p)?, square.parse().ok()?));
        }
        if let Some(rest) = detail.strip_prefix("Pressed ") {
            let ms = rest.strip_suffix(" ms after releasing: press with the hand that moved")?;
            return Some(PressedAfterReleasing(ms.parse().ok()?));
        }
        if let Some(rest) = detail.strip_prefix("Illegal move: restore ") {
            return Some(IllegalMove(restore(
                rest.strip_suffix(" and make a legal move")?,
            )?));
        }
        if let Some(rest) = detail.strip_prefix("Castling is not allowed here: restore ") {
            return Some(CastlingNotAllowed(restore(
                rest.strip_suffix(" and move")?,
            )?));
        }
        if let Some(rest) = detail.strip_prefix("Restore ") {
            return Some(RestoreBeforePressing(restore(
                rest.strip_suffix(" before pressing")?,
            )?));
        }
        if let Some(rest) = detail.strip_prefix("Penalty: take the piece on ") {
            return Some(PenaltyTake(rest.parse().ok()?));
        }
        if let Some(rest) = detail.strip_prefix("Penalty: move the piece from ") {
            return Some(PenaltyPiece(rest.parse().ok()?));
        }
        None
    }

    /// The sentence in `language`.
    pub fn say(&self, language: Language) -> String {
        match language {
            Language::English => english(self),
            Language::Spanish => spanish(self),
            Language::French => french(self),
            Language::German => german(self),
        }
    }
}

/// A ruling's `detail` in `language`: the referee's sentence said again,
/// or as written when it is not one this module knows.
pub fn detail_in(detail: &str, language: Language) -> String {
    match (language, Sentence::read(detail)) {
        (Language::English, _) | (_, None) => detail.to_owned(),
        (_, Some(sentence)) => sentence.say(language),
    }
}

fn squares(restore: &Restore, position: &str) -> String {
    match restore {
        Restore::Squares(squares) => {
            let names: Vec<String> = squares.iter().map(Square::to_string).collect();
            names.join(" ")
        }
        Restore::Position => position.to_owned(),
    }
}

fn english(s: &Sentence) -> String {
    use Sentence::*;
    let name = |p: &NamedPiece| {
        let role = match p.role {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        };
        match p.square {
            Some(sq) => format!("{sq} {role}"),
            None => role.to_owned(),
        }
    };
    let position = "the position";
    match s {
        MoveThe(p) => format!("Touch-move: move the {}", name(p)),
        TakeThe(p) => format!("Touch-move: take the {}", name(p)),
        TakeWith(t, o) => format!("Touch-move: take the {} with the {}", name(t), name(o)),
        CastleWith(r) => format!("Touch-move: king then rook, castle with the {r} rook"),
        CastlingIllegal => "Touch-move: castling is illegal, move the king".to_owned(),
        RookThenKing(r) => format!("Touch-move: rook then king, no castling; move the {r} rook"),
        Released(p, sq) => format!("Released piece: the {} stays on {sq}", name(p)),
        LetGo => "Let go of the piece before pressing".to_owned(),
        PressedAfterReleasing(ms) => {
            format!("Pressed {ms} ms after releasing: press with the hand that moved")
        }
        RestoreBeforePressing(r) => format!("Restore {} before pressing", squares(r, position)),
        NoMove => "Pressed without making a move".to_owned(),
        Unpromoted => "Pawn not promoted: it becomes a queen".to_owned(),
        IllegalMove(r) => format!(
            "Illegal move: restore {} and make a legal move",
            squares(r, position)
        ),
        PenaltyTake(sq) => format!("Penalty: take the piece on {sq}"),
        PenaltyKing => "Penalty: move the king".to_owned(),
        PenaltyPiece(sq) => format!("Penalty: move the piece from {sq}"),
        CastlingNotAllowed(r) => format!(
            "Castling is not allowed here: restore {} and move",
            squares(r, position)
        ),
        PinnedMoveTheKing => {
            "The touched piece cannot move without exposing the king: move the king".to_owned()
        }
        OnlyThePlayerToMoveAdjusts => {
            "Only the player having the move may adjust pieces".to_owned()
        }
    }
}

fn spanish(s: &Sentence) -> String {
    use Sentence::*;
    // "el caballo de g1", "la torre de a1".
    let name = |p: &NamedPiece| {
        let role = match p.role {
            Role::Pawn => "el peón",
            Role::Knight => "el caballo",
            Role::Bishop => "el alfil",
            Role::Rook => "la torre",
            Role::Queen => "la dama",
            Role::King => "el rey",
        };
        match p.square {
            Some(sq) => format!("{role} de {sq}"),
            None => role.to_owned(),
        }
    };
    let position = "la posición";
    match s {
        MoveThe(p) => format!("Pieza tocada: mueva {}", name(p)),
        TakeThe(p) => format!("Pieza tocada: capture {}", name(p)),
        TakeWith(t, o) => format!("Pieza tocada: capture {} con {}", name(t), name(o)),
        CastleWith(r) => format!("Pieza tocada: rey y torre, enroque con la torre de {r}"),
        CastlingIllegal => "Pieza tocada: enroque ilegal, mueva el rey".to_owned(),
        RookThenKing(r) => format!("Pieza tocada: torre y rey, sin enroque; mueva la torre de {r}"),
        Released(p, sq) => format!("Pieza soltada: {} queda en {sq}", name(p)),
        LetGo => "Suelte la pieza antes de pulsar".to_owned(),
        PressedAfterReleasing(ms) => {
            format!("Pulsó {ms} ms tras soltar: pulse con la mano que movió")
        }
        RestoreBeforePressing(r) => format!("Reponga {} antes de pulsar", squares(r, position)),
        NoMove => "Pulsó sin hacer una jugada".to_owned(),
        Unpromoted => "Peón sin promocionar: será dama".to_owned(),
        IllegalMove(r) => format!(
            "Jugada ilegal: reponga {} y haga una jugada legal",
            squares(r, position)
        ),
        PenaltyTake(sq) => format!("Penalización: capture la pieza de {sq}"),
        PenaltyKing => "Penalización: mueva el rey".to_owned(),
        PenaltyPiece(sq) => format!("Penalización: mueva la pieza de {sq}"),
        CastlingNotAllowed(r) => format!(
            "Aquí no se puede enrocar: reponga {} y mueva",
            squares(r, position)
        ),
        PinnedMoveTheKing => {
            "La pieza tocada no puede moverse sin exponer al rey: mueva el rey".to_owned()
        }
        OnlyThePlayerToMoveAdjusts => {
            "Solo el jugador que tiene el turno puede componer".to_owned()
        }
    }
}

fn french(s: &Sentence) -> String {
    use Sentence::*;
    // "le cavalier g1", "la tour a1".
    let name = |p: &NamedPiece| {
        let role = match p.role {
            Role::Pawn => "le pion",
            Role::Knight => "le cavalier",
            Role::Bishop => "le fou",
            Role::Rook => "la tour",
            Role::Queen => "la dame",
            Role::King => "le roi",
        };
        match p.square {
            Some(sq) => format!("{role} {sq}"),
            None => role.to_owned(),
        }
    };
    let position = "la position";
    match s {
        MoveThe(p) => format!("Pièce touchée: jouez {}", name(p)),
        TakeThe(p) => format!("Pièce touchée: prenez {}", name(p)),
        TakeWith(t, o) => format!("Pièce touchée: prenez {} avec {}", name(t), name(o)),
        CastleWith(r) => format!("Pièce touchée: roi puis tour, roquez avec la tour {r}"),
        CastlingIllegal => "Pièce touchée: roque illégal, jouez le roi".to_owned(),
        RookThenKing(r) => format!("Pièce touchée: tour puis roi, pas de roque; jouez la tour {r}"),
        Released(p, sq) => format!("Pièce lâchée: {} reste en {sq}", name(p)),
        LetGo => "Lâchez la pièce avant d'appuyer".to_owned(),
        PressedAfterReleasing(ms) => {
            format!("Appui {ms} ms après lâcher: appuyez de la main qui joue")
        }
        RestoreBeforePressing(r) => format!("Replacez {} avant d'appuyer", squares(r, position)),
        NoMove => "Appui sans avoir joué".to_owned(),
        Unpromoted => "Pion non promu: il devient dame".to_owned(),
        IllegalMove(r) => format!(
            "Coup illégal: replacez {} et jouez un coup légal",
            squares(r, position)
        ),
        PenaltyTake(sq) => format!("Pénalité: prenez la pièce en {sq}"),
        PenaltyKing => "Pénalité: jouez le roi".to_owned(),
        PenaltyPiece(sq) => format!("Pénalité: jouez la pièce en {sq}"),
        CastlingNotAllowed(r) => format!(
            "Roque interdit ici: replacez {} et jouez",
            squares(r, position)
        ),
        PinnedMoveTheKing => {
            "La pièce touchée ne peut bouger sans exposer le roi: jouez le roi".to_owned()
        }
        OnlyThePlayerToMoveAdjusts => "Seul le joueur au trait peut ajuster les pièces".to_owned(),
    }
}

fn german(s: &Sentence) -> String {
    use Sentence::*;
    // The accusative ("den Springer g1") and the dative ("dem Springer g1").
    let name = |p: &NamedPiece, dative: bool| {
        let (role, feminine) = match p.role {
            Role::Pawn => ("Bauern", false),
            Role::Knight => ("Springer", false),
            Role::Bishop => ("Läufer", false),
            Role::Rook => ("Turm", false),
            Role::Queen => ("Dame", true),
            Role::King => ("König", false),
        };
        let article = match (feminine, dative) {
            (true, false) => "die",
            (true, true) => "der",
            (false, false) => "den",
            (false, true) => "dem",
        };
        match p.square {
            Some(sq) => format!("{article} {role} {sq}"),
            None => format!("{article} {role}"),
        }
    };
    let position = "die Stellung";
    match s {
        MoveThe(p) => format!("Berührt-geführt: ziehen Sie {}", name(p, false)),
        TakeThe(p) => format!("Berührt-geführt: schlagen Sie {}", name(p, false)),
        TakeWith(t, o) => format!(
            "Berührt-geführt: schlagen Sie {} mit {}",
            name(t, false),
            name(o, true)
        ),
        CastleWith(r) => format!("Berührt-geführt: König, dann Turm; rochieren Sie mit Turm {r}"),
        CastlingIllegal => "Berührt-geführt: Rochade unerlaubt, ziehen Sie den König".to_owned(),
        RookThenKing(r) => {
            format!("Berührt-geführt: Turm, dann König, keine Rochade; ziehen Sie den Turm {r}")
        }
        Released(p, sq) => {
            let named = name(p, false);
            let named = named
                .replacen("den ", "der ", 1)
                .replacen("Bauern", "Bauer", 1);
            format!("Losgelassen: {named} bleibt auf {sq}")
        }
        LetGo => "Figur vor dem Drücken loslassen".to_owned(),
        PressedAfterReleasing(ms) => {
            format!("{ms} ms nach Loslassen gedrückt: mit der Zughand drücken")
        }
        RestoreBeforePressing(r) => {
            format!("Vor dem Drücken {} zurückstellen", squares(r, position))
        }
        NoMove => "Gedrückt ohne zu ziehen".to_owned(),
        Unpromoted => "Bauer nicht umgewandelt: er wird Dame".to_owned(),
        IllegalMove(r) => format!(
            "Unerlaubter Zug: {} zurückstellen, legal ziehen",
            squares(r, position)
        ),
        PenaltyTake(sq) => format!("Strafe: schlagen Sie die Figur auf {sq}"),
        PenaltyKing => "Strafe: ziehen Sie den König".to_owned(),
        PenaltyPiece(sq) => format!("Strafe: ziehen Sie die Figur auf {sq}"),
        CastlingNotAllowed(r) => format!(
            "Rochade hier verboten: {} zurückstellen und ziehen",
            squares(r, position)
        ),
        PinnedMoveTheKing => "Berührte Figur ist gefesselt: ziehen Sie den König".to_owned(),
        OnlyThePlayerToMoveAdjusts => {
            "Nur der Spieler am Zug darf Figuren zurechtrücken".to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each sentence, as the referee writes it.
    pub(crate) const REFEREE_SENTENCES: [&str; 22] = [
        "Touch-move: move the g1 knight",
        "Touch-move: move the knight",
        "Touch-move: take the g8 queen",
        "Touch-move: take the e5 pawn with the d4 pawn",
        "Touch-move: king then rook, castle with the h1 rook",
        "Touch-move: castling is illegal, move the king",
        "Touch-move: rook then king, no castling; move the a8 rook",
        "Released piece: the g1 knight stays on f3",
        "Let go of the piece before pressing",
        "Pressed 40 ms after releasing: press with the hand that moved",
        "Restore d2 c2 before pressing",
        "Pressed without making a move",
        "Pawn not promoted: it becomes a queen",
        "Illegal move: restore e2 e4 and make a legal move",
        "Illegal move: restore the position and make a legal move",
        "Penalty: take the piece on d5",
        "Penalty: move the king",
        "Penalty: move the piece from d5",
        "Castling is not allowed here: restore e1 g1 and move",
        "The touched piece cannot move without exposing the king: move the king",
        "Only the player having the move may adjust pieces",
        "Restore the position before pressing",
    ];

    #[test]
    fn every_referee_sentence_is_read_and_said_back_the_same_in_english() {
        for detail in REFEREE_SENTENCES {
            let sentence = Sentence::read(detail).unwrap_or_else(|| panic!("{detail}"));
            assert_eq!(sentence.say(Language::English), detail);
            for language in [Language::Spanish, Language::French, Language::German] {
                assert_ne!(sentence.say(language), detail, "{language:?}");
            }
        }
    }

    #[test]
    fn touch_move_in_spanish_names_the_piece_and_its_square() {
        assert_eq!(
            detail_in("Touch-move: move the g1 knight", Language::Spanish),
            "Pieza tocada: mueva el caballo de g1"
        );
        assert_eq!(
            detail_in(
                "Touch-move: take the e5 pawn with the d4 pawn",
                Language::German
            ),
            "Berührt-geführt: schlagen Sie den Bauern e5 mit dem Bauern d4"
        );
        // An unknown sentence is shown as written, not dropped.
        assert_eq!(detail_in("Both flags", Language::French), "Both flags");
        assert_eq!(Sentence::read("Touch-move: move the z9 knight"), None);
    }
}
