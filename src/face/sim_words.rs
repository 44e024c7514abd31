//! The simulator's own words in each players' language: its answers to
//! typed commands, its help, its welcome line and its Clock pane. One
//! typed table a language, like [`super::FaceWords`], so that a sentence
//! missing in one language is a compile error. The command words
//! themselves (`lift`, `place`, `left`, `pgn` …) stay English in every
//! language: they are a command language, like the PGN's.

use super::Language;

/// How many commands the help lists, one description each.
pub const HELP_ROWS: usize = 19;

/// What a command that takes an argument expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A square, such as e4.
    Square,
    /// A side: white or black.
    Side,
    /// A promotion piece: q, r, b or n.
    Piece,
    /// `on` or `off`.
    Switch,
}

/// The simulator's words in one language. Sentences with something in
/// them are functions of it.
#[derive(Debug)]
pub struct SimWords {
    /// The first line of the log: how a game starts; the arrow of Black's
    /// lever key.
    pub welcome: fn(&str) -> String,
    /// The keys under the screen, on one line (the key names themselves,
    /// F1, Space, Esc, stay as printed on the keyboard).
    pub keys: &'static str,
    /// The same keys on two lines, for a narrower terminal.
    pub keys_split: [&'static str; 2],
    /// The help box's title.
    pub help_title: &'static str,
    /// The help's first row: the command words are English.
    pub help_note: &'static str,
    /// What each command of the help does, in the help's order.
    pub help: [&'static str; HELP_ROWS],
    /// The Clock pane's title.
    pub clock_title: &'static str,
    /// The other boxes' names: the board, the face's words, the log.
    pub boxes: [&'static str; 3],
    /// The Clock pane's labels, 8 columns wide: levers, buzzer, board,
    /// hands, auto.
    pub labels: [&'static str; 5],
    /// The buzzer when it is silent.
    pub quiet: &'static str,
    /// The board when its cable is out.
    pub cable_out: &'static str,
    /// The board when it does not answer.
    pub not_answering: &'static str,
    /// The board when it answers.
    pub connected: &'static str,
    /// The hands when they do nothing.
    pub free: &'static str,
    /// Auto-press on and off, 18 characters at most.
    pub auto: [&'static str; 2],
    /// The hands making a move.
    pub making: fn(&str) -> String,
    /// The hands setting up the pieces.
    pub setting_up: &'static str,
    /// The setup screen's title in the Face pane.
    pub time_control: &'static str,
    /// The editor's title in the Face pane.
    pub editor_title: &'static str,
    /// The pieces' names: pawn, knight, bishop, rook, queen, king.
    pub roles: [&'static str; 6],
    /// What an argument expects, in [`Expected`]'s order.
    pub expected: [&'static str; 4],
    /// Nothing was typed.
    pub empty: &'static str,
    /// Neither a command nor a move.
    pub unknown: fn(&str) -> String,
    /// A command without its argument: the command, what it needs.
    pub missing: fn(&str, &str) -> String,
    /// Words after the last argument.
    pub too_many: fn(&str) -> String,
    /// Not a square.
    pub bad_square: fn(&str) -> String,
    /// Not a side.
    pub bad_side: fn(&str) -> String,
    /// Not a promotion piece.
    pub bad_promotion: fn(&str) -> String,
    /// Not on or off.
    pub bad_switch: fn(&str) -> String,
    /// No game is being played.
    pub no_game: &'static str,
    /// Not legal in the position.
    pub illegal: fn(&str) -> String,
    /// A promotion typed without its piece: the move, the four ways to
    /// type it with one.
    pub needs_promotion: fn(&str, &str) -> String,
    /// The board differs from the game: the side to move.
    pub board_differs: fn(&str) -> String,
    /// The mover has not pressed: the side.
    pub not_pressed: fn(&str) -> String,
    /// The game is over.
    pub game_over: &'static str,
    /// The hands are busy: with what.
    pub busy: fn(&str) -> String,
    /// A game is in play: its pieces stay.
    pub in_game: &'static str,
    /// The running-lever key with no clock running.
    pub no_clock_running: &'static str,
    /// No piece on the square.
    pub no_piece: fn(&str) -> String,
    /// A knocked piece lies beside the board.
    pub knocked: fn(&str) -> String,
    /// A square already taken.
    pub taken: fn(&str) -> String,
    /// A piece put down that nobody held: the side, the piece, the square.
    pub from_beside: fn(&str, &str, &str) -> String,
    /// Nothing to touch on the square.
    pub nothing_to_touch: fn(&str) -> String,
    /// Nothing to let go of on the square.
    pub nothing_to_let_go: fn(&str) -> String,
    /// Auto-press switched on.
    pub auto_on: &'static str,
    /// Auto-press switched off.
    pub auto_off: &'static str,
    /// `unplug` with the cable out.
    pub already_out: &'static str,
    /// `plug` with the cable in.
    pub already_in: &'static str,
    /// The cable pulled out.
    pub unplugged: &'static str,
    /// `pgn` before any game.
    pub no_game_pgn: &'static str,
    /// `pgn` done: how many games, where.
    pub pgn_written: fn(usize, &str) -> String,
    /// `pgn` failed: where, why.
    pub cannot_write: fn(&str, &str) -> String,
}

const ENGLISH: SimWords = SimWords {
    keys: "←/→ levers · F1 left draw · F2 left adjust · F3 right adjust · F4 right draw · F5 menu · Space lever of the running clock ([ ] levers) · Esc clear · Ctrl-C quit · help",
    keys_split: [
        "←/→ levers · Space lever of the running clock ([ ] levers) · F5 menu · Esc clear · Ctrl-C quit · help",
        "F1 left draw · F2 left adjust · F3 right adjust · F4 right draw",
    ],
    welcome: |arrow| {
        format!(
            "Black's lever ({arrow}) starts the game; then type moves (e2e4, Nf3) \
             and Enter. help lists the commands"
        )
    },
    help_title: " Commands · help or Esc closes ",
    help_note: "The command words are English in every language.",
    help: [
        "a move: the hand lifts and places the pieces",
        "lift the piece on e2 and hold it",
        "put down the piece held (or the one lifted from e4)",
        "touch the piece on g1, let go of it",
        "knock the piece off d4 (place d4 puts it back)",
        "press the left or the right lever",
        "the arbiter's button: pause, resume, next game",
        "that player's draw button",
        "that player's adjust button (j'adoube)",
        "that player resigns",
        "that player declines the draw offered",
        "that player claims a touch-move breach (4.8)",
        "choose the promotion piece on the clock",
        "press the mover's lever after a typed move",
        "pull the board's cable out, put it back",
        "set the pieces up for a new game (between games)",
        "write the games so far as PGN (tocada-sim.pgn; quit writes it too)",
        "show or hide this list",
        "leave (Ctrl-C too)",
    ],
    clock_title: " Clock ",
    boxes: ["Board", "Face", "Log"],
    labels: ["Levers", "Buzzer", "Board", "Hands", "Auto"],
    quiet: "quiet",
    cable_out: "cable out",
    not_answering: "not answering",
    connected: "connected",
    free: "free",
    auto: ["on: moves pressed", "off: Space presses"],
    making: |m| format!("making {m}"),
    setting_up: "setting up the pieces",
    time_control: "Time control:",
    editor_title: "Time control editor (Menu saves):",
    roles: ["pawn", "knight", "bishop", "rook", "queen", "king"],
    expected: [
        "a square, such as e4",
        "a side: white or black",
        "a piece: q, r, b or n",
        "on or off",
    ],
    empty: "type a move or a command (help lists them)",
    unknown: |w| format!("`{w}` is neither a command nor a move (help lists them)"),
    missing: |c, e| format!("`{c}` needs {e}"),
    too_many: |c| format!("too many words after `{c}`"),
    bad_square: |s| format!("`{s}` is not a square (a1 to h8)"),
    bad_side: |s| format!("`{s}` is not a side (white or black)"),
    bad_promotion: |s| format!("`{s}` is not a promotion piece (q, r, b or n)"),
    bad_switch: |s| format!("`{s}`: say on or off"),
    no_game: "no game yet: Black's lever starts one (the face shows which)",
    illegal: |m| format!("{m} is not legal in this position"),
    needs_promotion: |m, ways| format!("{m} promotes a pawn: to which piece? type {ways}"),
    board_differs: |side| {
        format!(
            "the pieces are not where the game has them: a move made by hand waits for \
             {side}'s lever (Space), pieces off their squares for place; then type the move"
        )
    },
    not_pressed: |side| {
        format!("{side} moved and has not pressed: press the lever (Space) before the next move")
    },
    game_over: "the game is over: menu (F5) leaves it, setup sets up the pieces",
    busy: |what| format!("the hands are still busy {what}"),
    in_game: "a game is in play: pause it (F5) to correct the clock instead",
    no_clock_running: "no clock is running: the lever keys press one anyway",
    no_piece: |sq| format!("there is no piece on {sq}"),
    knocked: |sq| format!("the {sq} piece lies beside the board: place {sq} puts it back"),
    taken: |sq| format!("{sq} is taken: lift or knock its piece first"),
    from_beside: |side, piece, sq| {
        format!("no piece was held: a {side} {piece} from beside the board is put on {sq}")
    },
    nothing_to_touch: |sq| format!("there is no piece on {sq} to touch"),
    nothing_to_let_go: |sq| format!("there is no piece on {sq} to let go of"),
    auto_on: "the mover's lever goes down 300 ms after a typed move",
    auto_off: "typed moves leave the lever alone: Space presses it",
    already_out: "the board's cable is already out: plug puts it back",
    already_in: "the board's cable is already in",
    unplugged: "the board's cable is out: the clock keeps time, hands are not seen",
    no_game_pgn: "no game yet: nothing to write as PGN",
    pgn_written: |n, path| {
        format!(
            "{n} game(s) written as PGN to {path} (the one in play with result *); \
             quit writes them there again"
        )
    },
    cannot_write: |path, err| format!("cannot write {path}: {err}"),
};

const SPANISH: SimWords = SimWords {
    keys: "←/→ pulsadores · F1 tablas izq. · F2 compongo izq. · F3 compongo der. · F4 tablas der. · F5 menú · Espacio pulsador del reloj en marcha ([ ] pulsadores) · Esc borrar · Ctrl-C salir · help",
    keys_split: [
        "←/→ pulsadores · Espacio pulsador del reloj en marcha ([ ] pulsadores) · F5 menú · Esc borrar · Ctrl-C salir · help",
        "F1 tablas izq. · F2 compongo izq. · F3 compongo der. · F4 tablas der.",
    ],
    welcome: |arrow| {
        format!(
            "El pulsador de las negras ({arrow}) pone en marcha la partida; luego escriba \
             las jugadas (e2e4, Nf3) e Intro. help lista las órdenes"
        )
    },
    help_title: " Órdenes · help o Esc cierra ",
    help_note: "Las palabras de las órdenes van en inglés en todos los idiomas.",
    help: [
        "una jugada: la mano levanta y suelta las piezas",
        "levantar la pieza de e2 y sostenerla",
        "soltar la pieza sostenida (o la levantada de e4)",
        "tocar la pieza de g1, soltarla",
        "tirar la pieza de d4 (place d4 la repone)",
        "pulsar el pulsador izquierdo o el derecho",
        "el botón del árbitro: pausa, seguir, otra partida",
        "el botón de tablas de ese jugador",
        "el botón de componer de ese jugador (compongo)",
        "ese jugador abandona",
        "ese jugador rechaza las tablas ofrecidas",
        "ese jugador reclama pieza tocada (4.8)",
        "elegir en el reloj la pieza de la promoción",
        "pulsar el reloj del que juega tras una jugada escrita",
        "desenchufar el cable del tablero, volver a enchufarlo",
        "colocar las piezas para otra partida (entre partidas)",
        "escribir las partidas en PGN (tocada-sim.pgn; quit también)",
        "mostrar u ocultar esta lista",
        "salir (también Ctrl-C)",
    ],
    clock_title: " Reloj ",
    boxes: ["Tablero", "Pantalla", "Registro"],
    labels: ["Pulsad.", "Zumbad.", "Tablero", "Manos", "Auto"],
    quiet: "callado",
    cable_out: "cable fuera",
    not_answering: "no responde",
    connected: "conectado",
    free: "libres",
    auto: ["sí: se pulsa solo", "no: Espacio pulsa"],
    making: |m| format!("jugando {m}"),
    setting_up: "colocando las piezas",
    time_control: "Ritmo de juego:",
    editor_title: "Editor del ritmo (Menú guarda):",
    roles: ["peón", "caballo", "alfil", "torre", "dama", "rey"],
    expected: [
        "una casilla, como e4",
        "un bando: white o black",
        "una pieza: q, r, b o n",
        "on u off",
    ],
    empty: "escriba una jugada o una orden (help las lista)",
    unknown: |w| format!("`{w}` no es ni una orden ni una jugada (help las lista)"),
    missing: |c, e| format!("`{c}` necesita {e}"),
    too_many: |c| format!("sobran palabras tras `{c}`"),
    bad_square: |s| format!("`{s}` no es una casilla (de a1 a h8)"),
    bad_side: |s| format!("`{s}` no es un bando (white o black)"),
    bad_promotion: |s| format!("`{s}` no es una pieza de promoción (q, r, b o n)"),
    bad_switch: |s| format!("`{s}`: diga on u off"),
    no_game: "aún no hay partida: el pulsador de las negras la empieza (el reloj muestra cuál)",
    illegal: |m| format!("{m} no es legal en esta posición"),
    needs_promotion: |m, ways| format!("{m} promociona un peón: ¿a qué pieza? escriba {ways}"),
    board_differs: |side| {
        format!(
            "las piezas no están donde las tiene la partida: una jugada hecha a mano espera \
             el pulsador de {side} (Espacio), las piezas fuera de su casilla, place; luego \
             escriba la jugada"
        )
    },
    not_pressed: |side| {
        format!(
            "{side} jugaron y no han pulsado: pulse el reloj (Espacio) antes de la siguiente \
             jugada"
        )
    },
    game_over: "la partida ha terminado: menu (F5) la deja, setup coloca las piezas",
    busy: |what| format!("las manos siguen ocupadas {what}"),
    in_game: "hay una partida en juego: páusela (F5) para corregir el reloj",
    no_clock_running: "ningún reloj está en marcha: las teclas de pulsador pulsan igualmente",
    no_piece: |sq| format!("no hay pieza en {sq}"),
    knocked: |sq| format!("la pieza de {sq} está fuera del tablero: place {sq} la repone"),
    taken: |sq| format!("{sq} está ocupada: levante o tire antes su pieza"),
    from_beside: |side, piece, sq| {
        format!("no se sostenía pieza: un {piece} de {side} de fuera del tablero va a {sq}")
    },
    nothing_to_touch: |sq| format!("no hay pieza en {sq} que tocar"),
    nothing_to_let_go: |sq| format!("no hay pieza en {sq} que soltar"),
    auto_on: "el reloj del que juega se pulsa 300 ms tras una jugada escrita",
    auto_off: "las jugadas escritas no pulsan el reloj: lo pulsa Espacio",
    already_out: "el cable del tablero ya está fuera: plug lo enchufa",
    already_in: "el cable del tablero ya está enchufado",
    unplugged: "el cable del tablero está fuera: el reloj sigue, las manos no se ven",
    no_game_pgn: "aún no hay partida: nada que escribir en PGN",
    pgn_written: |n, path| {
        format!(
            "{n} partida(s) escritas en PGN en {path} (la que se juega con resultado *); \
             quit las vuelve a escribir"
        )
    },
    cannot_write: |path, err| format!("no se puede escribir {path}: {err}"),
};

const FRENCH: SimWords = SimWords {
    keys: "←/→ leviers · F1 nulle gauche · F2 j'adoube gauche · F3 j'adoube droite · F4 nulle droite · F5 menu · Espace levier de la pendule en marche ([ ] leviers) · Esc effacer · Ctrl-C quitter · help",
    keys_split: [
        "←/→ leviers · Espace levier de la pendule en marche ([ ] leviers) · F5 menu · Esc effacer · Ctrl-C quitter · help",
        "F1 nulle gauche · F2 j'adoube gauche · F3 j'adoube droite · F4 nulle droite",
    ],
    welcome: |arrow| {
        format!(
            "Le levier des Noirs ({arrow}) lance la partie ; tapez ensuite les coups \
             (e2e4, Nf3) et Entrée. help liste les commandes"
        )
    },
    help_title: " Commandes · help ou Échap ferme ",
    help_note: "Les mots des commandes restent en anglais dans toutes les langues.",
    help: [
        "un coup : la main lève et pose les pièces",
        "lever la pièce de e2 et la tenir",
        "poser la pièce tenue (ou celle levée de e4)",
        "toucher la pièce de g1, la lâcher",
        "faire tomber la pièce de d4 (place d4 la remet)",
        "appuyer sur le levier gauche ou droit",
        "le bouton de l'arbitre : pause, reprise, partie suivante",
        "le bouton de nulle de ce joueur",
        "le bouton « j'adoube » de ce joueur",
        "ce joueur abandonne",
        "ce joueur refuse la nulle offerte",
        "ce joueur réclame une pièce touchée (4.8)",
        "choisir sur la pendule la pièce de promotion",
        "appuyer le levier de celui qui joue après un coup tapé",
        "débrancher le câble de l'échiquier, le rebrancher",
        "placer les pièces pour une nouvelle partie (entre parties)",
        "écrire les parties en PGN (tocada-sim.pgn ; quit aussi)",
        "afficher ou cacher cette liste",
        "quitter (Ctrl-C aussi)",
    ],
    clock_title: " Pendule ",
    boxes: ["Échiquier", "Écran", "Journal"],
    labels: ["Leviers", "Bipeur", "Échiq.", "Mains", "Auto"],
    quiet: "muet",
    cable_out: "câble débranché",
    not_answering: "ne répond pas",
    connected: "connecté",
    free: "libres",
    auto: ["oui : coups pressés", "non : Espace presse"],
    making: |m| format!("en jouant {m}"),
    setting_up: "en plaçant les pièces",
    time_control: "Cadence :",
    editor_title: "Éditeur de cadence (Menu enregistre) :",
    roles: ["pion", "cavalier", "fou", "tour", "dame", "roi"],
    expected: [
        "une case, comme e4",
        "un camp : white ou black",
        "une pièce : q, r, b ou n",
        "on ou off",
    ],
    empty: "tapez un coup ou une commande (help les liste)",
    unknown: |w| format!("`{w}` n'est ni une commande ni un coup (help les liste)"),
    missing: |c, e| format!("`{c}` attend {e}"),
    too_many: |c| format!("trop de mots après `{c}`"),
    bad_square: |s| format!("`{s}` n'est pas une case (de a1 à h8)"),
    bad_side: |s| format!("`{s}` n'est pas un camp (white ou black)"),
    bad_promotion: |s| format!("`{s}` n'est pas une pièce de promotion (q, r, b ou n)"),
    bad_switch: |s| format!("`{s}` : dites on ou off"),
    no_game: "pas encore de partie : le levier des Noirs en lance une (la pendule montre lequel)",
    illegal: |m| format!("{m} n'est pas légal dans cette position"),
    needs_promotion: |m, ways| format!("{m} promeut un pion : en quelle pièce ? tapez {ways}"),
    board_differs: |side| {
        format!(
            "les pièces ne sont pas où la partie les a : un coup joué à la main attend le \
             levier des {side} (Espace), des pièces hors de leur case, place ; puis tapez le coup"
        )
    },
    not_pressed: |side| {
        format!(
            "les {side} ont joué sans appuyer : appuyez sur le levier (Espace) avant le coup \
             suivant"
        )
    },
    game_over: "la partie est finie : menu (F5) la quitte, setup place les pièces",
    busy: |what| format!("les mains sont encore occupées {what}"),
    in_game: "une partie est en cours : mettez-la en pause (F5) pour corriger la pendule",
    no_clock_running: "aucune pendule ne tourne : les touches de levier appuient quand même",
    no_piece: |sq| format!("il n'y a pas de pièce en {sq}"),
    knocked: |sq| format!("la pièce de {sq} est à côté de l'échiquier : place {sq} la remet"),
    taken: |sq| format!("{sq} est occupée : levez ou faites tomber sa pièce d'abord"),
    from_beside: |side, piece, sq| {
        format!("aucune pièce tenue : un {piece} des {side} pris à côté de l'échiquier va en {sq}")
    },
    nothing_to_touch: |sq| format!("il n'y a pas de pièce à toucher en {sq}"),
    nothing_to_let_go: |sq| format!("il n'y a pas de pièce à lâcher en {sq}"),
    auto_on: "le levier de celui qui joue s'abaisse 300 ms après un coup tapé",
    auto_off: "les coups tapés laissent le levier : Espace l'abaisse",
    already_out: "le câble de l'échiquier est déjà débranché : plug le rebranche",
    already_in: "le câble de l'échiquier est déjà branché",
    unplugged: "le câble de l'échiquier est débranché : la pendule tourne, les mains ne sont pas vues",
    no_game_pgn: "pas encore de partie : rien à écrire en PGN",
    pgn_written: |n, path| {
        format!(
            "{n} partie(s) écrite(s) en PGN dans {path} (celle en cours avec le résultat *) ; \
             quit les écrit à nouveau"
        )
    },
    cannot_write: |path, err| format!("impossible d'écrire {path} : {err}"),
};

const GERMAN: SimWords = SimWords {
    keys: "←/→ Hebel · F1 Remis links · F2 j'adoube links · F3 j'adoube rechts · F4 Remis rechts · F5 Menü · Leertaste Hebel der laufenden Uhr ([ ] Hebel) · Esc löschen · Strg-C beenden · help",
    keys_split: [
        "←/→ Hebel · Leertaste Hebel der laufenden Uhr ([ ] Hebel) · F5 Menü · Esc löschen · Strg-C beenden · help",
        "F1 Remis links · F2 j'adoube links · F3 j'adoube rechts · F4 Remis rechts",
    ],
    welcome: |arrow| {
        format!(
            "Der Hebel von Schwarz ({arrow}) startet die Partie; dann Züge tippen \
             (e2e4, Nf3) und Enter. help listet die Befehle"
        )
    },
    help_title: " Befehle · help oder Esc schließt ",
    help_note: "Die Befehlswörter bleiben in jeder Sprache englisch.",
    help: [
        "ein Zug: die Hand hebt und setzt die Figuren",
        "die Figur auf e2 heben und halten",
        "die gehaltene Figur absetzen (oder die von e4 gehobene)",
        "die Figur auf g1 berühren, loslassen",
        "die Figur von d4 umwerfen (place d4 stellt sie zurück)",
        "den linken oder rechten Hebel drücken",
        "die Taste des Schiedsrichters: Pause, weiter, nächste Partie",
        "die Remistaste dieses Spielers",
        "die Zurechtrücken-Taste dieses Spielers (j'adoube)",
        "dieser Spieler gibt auf",
        "dieser Spieler lehnt das Remisangebot ab",
        "dieser Spieler reklamiert „berührt, geführt“ (4.8)",
        "die Umwandlungsfigur an der Uhr wählen",
        "den Hebel des Ziehenden nach einem getippten Zug drücken",
        "das Kabel des Bretts ziehen, wieder einstecken",
        "die Figuren für eine neue Partie aufstellen (zwischen Partien)",
        "die Partien als PGN schreiben (tocada-sim.pgn; quit auch)",
        "diese Liste zeigen oder verbergen",
        "beenden (auch Ctrl-C)",
    ],
    clock_title: " Uhr ",
    boxes: ["Brett", "Anzeige", "Protokoll"],
    labels: ["Hebel", "Summer", "Brett", "Hände", "Auto"],
    quiet: "still",
    cable_out: "Kabel gezogen",
    not_answering: "antwortet nicht",
    connected: "verbunden",
    free: "frei",
    auto: ["an: Züge gedrückt", "aus: Leertaste"],
    making: |m| format!("mit {m}"),
    setting_up: "mit dem Aufstellen",
    time_control: "Bedenkzeit:",
    editor_title: "Bedenkzeit-Editor (Menü speichert):",
    roles: ["Bauer", "Springer", "Läufer", "Turm", "Dame", "König"],
    expected: [
        "ein Feld, etwa e4",
        "eine Seite: white oder black",
        "eine Figur: q, r, b oder n",
        "on oder off",
    ],
    empty: "einen Zug oder Befehl tippen (help listet sie)",
    unknown: |w| format!("`{w}` ist weder Befehl noch Zug (help listet sie)"),
    missing: |c, e| format!("`{c}` braucht {e}"),
    too_many: |c| format!("zu viele Wörter nach `{c}`"),
    bad_square: |s| format!("`{s}` ist kein Feld (a1 bis h8)"),
    bad_side: |s| format!("`{s}` ist keine Seite (white oder black)"),
    bad_promotion: |s| format!("`{s}` ist keine Umwandlungsfigur (q, r, b oder n)"),
    bad_switch: |s| format!("`{s}`: on oder off"),
    no_game: "noch keine Partie: der Hebel von Schwarz startet eine (die Uhr zeigt welcher)",
    illegal: |m| format!("{m} ist in dieser Stellung nicht erlaubt"),
    needs_promotion: |m, ways| {
        format!("{m} wandelt einen Bauern um: in welche Figur? {ways} tippen")
    },
    board_differs: |side| {
        format!(
            "die Figuren stehen nicht, wo die Partie sie hat: ein Zug von Hand wartet auf den \
             Hebel von {side} (Leertaste), Figuren neben ihrem Feld auf place; dann den Zug tippen"
        )
    },
    not_pressed: |side| {
        format!(
            "{side} hat gezogen und nicht gedrückt: den Hebel drücken (Leertaste) vor dem \
             nächsten Zug"
        )
    },
    game_over: "die Partie ist vorbei: menu (F5) verlässt sie, setup stellt die Figuren auf",
    busy: |what| format!("die Hände sind noch beschäftigt {what}"),
    in_game: "eine Partie läuft: zum Korrigieren der Uhr pausieren (F5)",
    no_clock_running: "keine Uhr läuft: die Hebeltasten drücken trotzdem einen",
    no_piece: |sq| format!("auf {sq} steht keine Figur"),
    knocked: |sq| format!("die Figur von {sq} liegt neben dem Brett: place {sq} stellt sie zurück"),
    taken: |sq| format!("{sq} ist besetzt: erst seine Figur heben oder umwerfen"),
    from_beside: |side, piece, sq| {
        format!("keine Figur gehalten: ein {piece} ({side}) von neben dem Brett kommt auf {sq}")
    },
    nothing_to_touch: |sq| format!("auf {sq} steht keine Figur zum Berühren"),
    nothing_to_let_go: |sq| format!("auf {sq} steht keine Figur zum Loslassen"),
    auto_on: "der Hebel des Ziehenden geht 300 ms nach einem getippten Zug hinunter",
    auto_off: "getippte Züge lassen den Hebel: die Leertaste drückt ihn",
    already_out: "das Kabel des Bretts ist schon gezogen: plug steckt es ein",
    already_in: "das Kabel des Bretts steckt schon",
    unplugged: "das Kabel des Bretts ist gezogen: die Uhr läuft, die Hände sind nicht zu sehen",
    no_game_pgn: "noch keine Partie: nichts als PGN zu schreiben",
    pgn_written: |n, path| {
        format!(
            "{n} Partie(n) als PGN nach {path} geschrieben (die laufende mit Ergebnis *); \
             quit schreibt sie erneut"
        )
    },
    cannot_write: |path, err| format!("{path} kann nicht geschrieben werden: {err}"),
};

impl Language {
    /// The simulator's own words in this language.
    pub const fn sim(self) -> &'static SimWords {
        match self {
            Language::English => &ENGLISH,
            Language::Spanish => &SPANISH,
            Language::French => &FRENCH,
            Language::German => &GERMAN,
        }
    }
}

impl SimWords {
    /// What an argument expects, in words.
    pub fn expected(&self, expected: Expected) -> &'static str {
        self.expected[expected as usize]
    }
}
