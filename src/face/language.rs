//! The players' language (`[face] language`): the face's own words in
//! each, one typed table a language, so a word missing in one language is
//! a compile error rather than an English word left on a Spanish clock.
//!
//! The words of rulings and events are [`crate::words`]' (it knows the
//! referee's effects; the face does not), each a function taking a
//! [`Language`]. Moves are written in SAN with the language's piece
//! letters on the face and in the simulator (Spanish `Cf3`, French
//! `Cf3`, German `Sf3`): the letters the players learnt. The PGN keeps
//! English letters, as the PGN standard requires.

use shakmaty::Color;

/// A language the face and the simulator speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    /// English, the default.
    #[default]
    English,
    /// Spanish, with the vocabulary of the Spanish Laws ("pieza tocada").
    Spanish,
    /// French.
    French,
    /// German.
    German,
}

/// The face's own words in one language: labels, hints and status rows.
#[derive(Debug)]
pub struct FaceWords {
    /// White's clock's label.
    pub white: &'static str,
    /// Black's clock's label.
    pub black: &'static str,
    /// The mark beside the side whose flag fell.
    pub flag: &'static str,
    /// The status row's move number: "Move 23".
    pub move_number: &'static str,
    /// The status row's pause mark.
    pub paused: &'static str,
    /// The status row when the sensor board does not answer.
    pub board_disconnected: &'static str,
    /// The status row when the game store cannot commit.
    pub games_not_saved: &'static str,
    /// A board of the round, before its number, where eight characters
    /// show the pairing (a DGT 3000): "Board 7".
    pub board_number: &'static str,
    /// The setup screen's hint: a draw button swaps the sides.
    pub draw_swaps: &'static str,
    /// The setup screen's last row: Black's lever starts the game.
    pub blacks_lever_starts: &'static str,
    /// The correction screen's title.
    pub arbiter: &'static str,
    /// The correction screen's label before a move count.
    pub moves: &'static str,
    /// The correction screen's fields, in [`super::Field::ALL`]'s order.
    pub fields: [&'static str; 10],
    /// The correction screen's two hint lines.
    pub correction_hints: [&'static str; 2],
    /// Words the alert line drops or shortens when it is too long, in
    /// order.
    pub abbreviations: &'static [(&'static str, &'static str)],
    /// The piece letters of SAN: king, queen, rook, bishop, knight.
    pub pieces: [char; 5],
    /// The time-control editor's words.
    pub editor: EditorWords,
}

/// The time-control editor's words: its header and footer, its rows' words
/// on the face and on a display of eight characters, and the presets'
/// labels of the modes without a time to add.
#[derive(Debug)]
pub struct EditorWords {
    /// The header: the draw buttons step the value down and up.
    pub header: &'static str,
    /// The footer: Menu saves the control.
    pub footer: &'static str,
    /// The rows' words on the face: "Time 90m".
    pub rows: RowWords,
    /// The rows' words on a display of eight characters (a DGT 3000's):
    /// shorter labels, the mode by its name alone, so that every row of
    /// every value fits once its accents are gone ("T 120m", "Fischer").
    pub short_rows: RowWords,
    /// A preset's label for an hourglass control, before its time.
    pub hourglass: &'static str,
    /// A preset's label for an upcount control.
    pub count_up: &'static str,
}

/// The words of the editor's rows ([`super::EditorRow`]): each row's
/// label (the value follows it: "Time 90m"; an empty label is left out)
/// and the values that are words.
#[derive(Debug)]
pub struct RowWords {
    /// The timing modes, in the editor's order: Fischer, Bronstein,
    /// delay, hourglass, upcount.
    pub modes: [&'static str; 5],
    /// The mode's row.
    pub mode: &'static str,
    /// The first period's time.
    pub time: &'static str,
    /// A Fischer increment.
    pub increment: &'static str,
    /// A delay (Bronstein or US).
    pub delay: &'static str,
    /// The moves of the first period.
    pub moves: &'static str,
    /// The value of the moves row when one period is the whole game.
    pub all_moves: &'static str,
    /// The second period's time.
    pub then: &'static str,
    /// Overtime (byo-yomi, Canadian).
    pub overtime: &'static str,
    /// Black's own time (handicap, Armageddon).
    pub black: &'static str,
    /// Black's row when Black has White's time.
    pub black_as_white: &'static str,
}

const ENGLISH: FaceWords = FaceWords {
    white: "White",
    black: "Black",
    flag: "FLAG",
    move_number: "Move",
    paused: "PAUSED",
    board_disconnected: "Board disconnected",
    board_number: "Board",
    games_not_saved: "Games not saved",
    draw_swaps: "Draw: swap",
    blacks_lever_starts: "Black's lever starts",
    arbiter: "Arbiter",
    moves: "Moves ",
    fields: [
        "White minutes",
        "White seconds",
        "Black minutes",
        "Black seconds",
        "White moves",
        "Black moves",
        "End game",
        "Waive obligation",
        "Take back move",
        "Adjudicate",
    ],
    correction_hints: ["Adjust: prev/next field", "Draw: -/+   Menu: resume"],
    abbreviations: &[
        ("move the ", ""),
        (" the ", " "),
        ("Illegal move", "Illegal"),
        ("disconnected", "lost"),
        ("Draw offer", "½?"),
    ],
    pieces: ['K', 'Q', 'R', 'B', 'N'],
    editor: EditorWords {
        header: "Draw: - +",
        footer: "Menu saves",
        rows: RowWords {
            modes: ["fischer", "bronstein", "delay", "hourglass", "upcount"],
            mode: "Mode",
            time: "Time",
            increment: "Incr",
            delay: "Delay",
            moves: "Moves",
            all_moves: "all",
            then: "Then",
            overtime: "Over",
            black: "Black",
            black_as_white: "Black as White",
        },
        short_rows: RowWords {
            modes: ["Fischer", "Bronstn", "US delay", "Hourglas", "Upcount"],
            mode: "",
            time: "T",
            increment: "Inc",
            delay: "Dly",
            moves: "Mv",
            all_moves: "all",
            then: "Th",
            overtime: "OT",
            black: "B",
            black_as_white: "B as W",
        },
        hourglass: "hourglass",
        count_up: "count up",
    },
};

const SPANISH: FaceWords = FaceWords {
    white: "Blancas",
    black: "Negras",
    flag: "CAÍDA",
    move_number: "Jugada",
    paused: "PAUSA",
    board_disconnected: "Tablero desconectado",
    board_number: "Mesa",
    games_not_saved: "Partidas sin guardar",
    draw_swaps: "Cambiar",
    blacks_lever_starts: "Empiezan las negras",
    arbiter: "Árb.",
    moves: "Jug. ",
    fields: [
        "Minutos blancas",
        "Segundos blancas",
        "Minutos negras",
        "Segundos negras",
        "Jugadas blancas",
        "Jugadas negras",
        "Terminar partida",
        "Anular obligación",
        "Retirar jugada",
        "Adjudicar",
    ],
    correction_hints: ["Ajuste: campo ant./sig.", "Tablas: -/+  Menú: seguir"],
    abbreviations: &[
        ("mueva el ", ""),
        ("mueva la ", ""),
        ("capture el ", "x "),
        ("capture la ", "x "),
        (" el ", " "),
        ("Jugada ilegal", "Ilegal"),
        ("Oferta de tablas", "½?"),
        ("desconectado", "perdido"),
    ],
    pieces: ['R', 'D', 'T', 'A', 'C'],
    editor: EditorWords {
        header: "Tablas ±",
        footer: "Menú guarda",
        rows: RowWords {
            modes: ["Fischer", "Bronstein", "retardo", "arena", "ascend."],
            mode: "Modo",
            time: "Tiempo",
            increment: "Incr.",
            delay: "Retardo",
            moves: "Jugadas",
            all_moves: "todas",
            then: "Luego",
            overtime: "Prórr.",
            black: "Negras",
            black_as_white: "Negras = blancas",
        },
        short_rows: RowWords {
            modes: ["Fischer", "Bronstn", "retardo", "arena", "ascend."],
            mode: "",
            time: "T",
            increment: "Inc",
            delay: "Ret",
            moves: "Jg",
            all_moves: "todas",
            then: "Lg",
            overtime: "Pr",
            black: "N",
            black_as_white: "N = B",
        },
        hourglass: "reloj de arena",
        count_up: "ascendente",
    },
};

const FRENCH: FaceWords = FaceWords {
    white: "Blancs",
    black: "Noirs",
    flag: "CHUTE",
    move_number: "Coup",
    paused: "PAUSE",
    board_disconnected: "Échiquier déconnecté",
    board_number: "Table",
    games_not_saved: "Parties non sauvées",
    draw_swaps: "Inverser",
    blacks_lever_starts: "Les Noirs démarrent",
    arbiter: "Arbitre",
    moves: "Coups ",
    fields: [
        "Minutes Blancs",
        "Secondes Blancs",
        "Minutes Noirs",
        "Secondes Noirs",
        "Coups Blancs",
        "Coups Noirs",
        "Finir la partie",
        "Lever l'obligation",
        "Reprendre le coup",
        "Arbitrer",
    ],
    correction_hints: ["Ajust.: champ préc/suiv", "Nulle: -/+  Menu: reprise"],
    abbreviations: &[
        ("jouez le ", ""),
        ("jouez la ", ""),
        ("prenez le ", "x "),
        ("prenez la ", "x "),
        (" le ", " "),
        (" la ", " "),
        ("Coup illégal", "Illégal"),
        ("Offre de nulle", "½?"),
        ("déconnecté", "perdu"),
    ],
    pieces: ['R', 'D', 'T', 'F', 'C'],
    editor: EditorWords {
        header: "Nulle: - +",
        footer: "Menu enregistre",
        rows: RowWords {
            modes: ["Fischer", "Bronstein", "délai", "sablier", "montant"],
            mode: "Mode",
            time: "Temps",
            increment: "Incr.",
            delay: "Délai",
            moves: "Coups",
            all_moves: "tous",
            then: "Puis",
            overtime: "Prolong.",
            black: "Noirs",
            black_as_white: "Noirs = Blancs",
        },
        short_rows: RowWords {
            modes: ["Fischer", "Bronstn", "délai", "sablier", "montant"],
            mode: "",
            time: "T",
            increment: "Inc",
            delay: "Dél",
            moves: "Cp",
            all_moves: "tous",
            then: "Ps",
            overtime: "Pr",
            black: "N",
            black_as_white: "N = B",
        },
        hourglass: "sablier",
        count_up: "chrono montant",
    },
};

const GERMAN: FaceWords = FaceWords {
    white: "Weiß",
    black: "Schwarz",
    flag: "ZEIT",
    move_number: "Zug",
    paused: "PAUSE",
    board_disconnected: "Brett getrennt",
    board_number: "Brett",
    games_not_saved: "Partien ungesichert",
    draw_swaps: "Tauschen",
    blacks_lever_starts: "Schwarz startet",
    arbiter: "Schiri",
    moves: "Züge ",
    fields: [
        "Minuten Weiß",
        "Sekunden Weiß",
        "Minuten Schwarz",
        "Sekunden Schwarz",
        "Züge Weiß",
        "Züge Schwarz",
        "Partie beenden",
        "Pflicht erlassen",
        "Zug zurücknehmen",
        "Entscheiden",
    ],
    correction_hints: ["Justieren: Feld zur./vor", "Remis: -/+  Menü: weiter"],
    abbreviations: &[
        ("ziehen Sie den ", ""),
        ("ziehen Sie die ", ""),
        ("ziehen Sie ", ""),
        ("schlagen Sie den ", "x "),
        ("schlagen Sie die ", "x "),
        ("Unerlaubter Zug", "Unerlaubt"),
        ("Remisangebot", "½?"),
        ("getrennt", "weg"),
    ],
    pieces: ['K', 'D', 'T', 'L', 'S'],
    editor: EditorWords {
        header: "Remis ±",
        footer: "Menü speichert",
        rows: RowWords {
            modes: ["Fischer", "Bronstein", "Verzög.", "Sanduhr", "aufwärts"],
            mode: "Modus",
            time: "Zeit",
            increment: "Inkr.",
            delay: "Verzög.",
            moves: "Züge",
            all_moves: "alle",
            then: "Dann",
            overtime: "Verläng.",
            black: "Schwarz",
            black_as_white: "Schwarz = Weiß",
        },
        short_rows: RowWords {
            modes: ["Fischer", "Bronstn", "Verzög.", "Sanduhr", "aufwärts"],
            mode: "",
            time: "Z",
            increment: "Ink",
            delay: "Vz",
            moves: "Zg",
            all_moves: "alle",
            then: "Dn",
            overtime: "Vl",
            black: "S",
            black_as_white: "S = W",
        },
        hourglass: "Sanduhr",
        count_up: "aufwärts",
    },
};

impl Language {
    /// Every language, English first.
    pub const ALL: [Language; 4] = [
        Language::English,
        Language::Spanish,
        Language::French,
        Language::German,
    ];

    /// The keyword of the configuration and of `sim --language`: ISO 639-1.
    pub const fn as_str(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Spanish => "es",
            Language::French => "fr",
            Language::German => "de",
        }
    }

    /// The language a keyword names.
    pub fn from_keyword(keyword: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == keyword)
    }

    /// The face's own words in this language.
    pub const fn face(self) -> &'static FaceWords {
        match self {
            Language::English => &ENGLISH,
            Language::Spanish => &SPANISH,
            Language::French => &FRENCH,
            Language::German => &GERMAN,
        }
    }

    /// A side by name, as the face labels its clock: "Blancas".
    pub const fn side(self, side: Color) -> &'static str {
        match side {
            Color::White => self.face().white,
            Color::Black => self.face().black,
        }
    }

    /// `san` with this language's piece letters: `Nf3` is `Cf3` in
    /// Spanish, `Sf3` in German. Files are lower case and castling is
    /// `O-O`, so every other capital in SAN is a piece.
    pub fn san(self, san: &str) -> String {
        let letters = self.face().pieces;
        san.chars()
            .map(|c| match "KQRBN".find(c) {
                Some(i) => letters[i],
                None => c,
            })
            .collect()
    }
}
