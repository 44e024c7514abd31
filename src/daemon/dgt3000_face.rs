//! The face written on a DGT 3000: what the clock plugged into a DGT board
//! shows of tocada's face, in its eight characters.
//!
//! The clock shows its two times normally, set by tocada ([`ClockShown`]:
//! each side's time and whose runs; the clock counts down between sets).
//! A message takes their place: the face's alert (a ruling, a draw offer,
//! a choice), the result, the time control chosen before the game. Each is
//! shortened ([`clock_pages`]: the words the face uses, shortened as in
//! the table of `hardware/dgt.md`, filler words left out) and cut at word
//! boundaries into pages of eight characters, shown [`PAGE_MS`] each. A
//! passing alert is shown once, then the times come back; an alert that
//! waits for someone (a choice, a promotion, a draw offer standing,
//! pieces to put back), the result and the menu go round until they
//! change. A new ruling beeps with its first page.
//!
//! The clock's own set-and-run counts the running side down and holds the
//! other: in a mode whose clocks do not (upcount counts up, the hourglass
//! pours one side's time into the other's, a US delay holds the time for
//! its seconds) the clock is set standing with tocada's times, again at
//! each of their whole seconds ([`View::not_countdown`]; in the hourglass
//! each clock's, the falling and the rising one changing at different
//! instants: two sets a second), so it never counts against tocada. Byo-yomi and Canadian periods count down: the
//! clock runs them, set again when a period begins.

use shakmaty::Color;

use crate::Millis;
use crate::controls::Button;
use crate::face::{EditorRow, Language, Screen, View};
use crate::hardware::dgt3000::{ClockShown, ClockSide, Dgt3000Button, text_cells, wire};

/// The control of tocada's front a DGT 3000's lever or button is, the
/// clock's left side being `wired_left`'s (`clock.white`): its levers are
/// the levers; "-" and "+" are the left and right players' draw buttons
/// (on the correction screen: take one off, add one), "<" and ">" their
/// adjust buttons (the previous and next field), the middle one the
/// arbiter's pause/menu button.
pub fn control_of(side_or_button: Result<ClockSide, Dgt3000Button>, wired_left: Color) -> Button {
    let color = |side: ClockSide| match side {
        ClockSide::Left => wired_left,
        ClockSide::Right => !wired_left,
    };
    match side_or_button {
        Ok(side) => Button::Lever(color(side)),
        Err(Dgt3000Button::Minus) => Button::Draw(color(ClockSide::Left)),
        Err(Dgt3000Button::Plus) => Button::Draw(color(ClockSide::Right)),
        Err(Dgt3000Button::Back) => Button::Adjust(color(ClockSide::Left)),
        Err(Dgt3000Button::Ok) => Button::Adjust(color(ClockSide::Right)),
        Err(Dgt3000Button::Run) => Button::Menu,
    }
}

/// How long each page of a message stays on the clock.
pub const PAGE_MS: Millis = 1_500;
/// A passing message stays at least this long, however short.
pub const MESSAGE_MS: Millis = 3_000;
/// The beep of a ruling: 62.5 ms + 2/16 s.
pub const RULING_BEEP: u8 = 2;

/// Words the clock writes shorter: the face's word, the clock's ("" left
/// out; "?" joined to the word before).
pub const SHORTER: [(&str, &str); 11] = [
    ("White", "W"),
    ("Black", "B"),
    ("White's", "W"),
    ("Black's", "B"),
    ("Touch-move:", "Touch"),
    ("move:", ""),
    ("offer:", "?"),
    ("J'adoube:", "Adjust"),
    ("checkmate", "mate"),
    ("stalemate", "stalemt"),
    ("disconnected", "off"),
];

/// Words left out.
const FILLER: [&str; 7] = ["the", "of", "a", "to", "by", "on", "is"];

/// `message` as the clock's pages of eight characters: words shortened
/// ([`SHORTER`]), fillers left out, then as many words on a page as fit
/// (a word longer than a page cut into pages of its own).
pub fn clock_pages(message: &str) -> Vec<[u8; wire::TEXT_LEN]> {
    let mut words: Vec<String> = Vec::new();
    for word in message.split_whitespace() {
        if FILLER.contains(&word) {
            continue;
        }
        // The clock shows ASCII: a Spanish, French or German face's
        // accented letters lose their accents rather than become `?`.
        let plain = plain_letters(word);
        let word = plain.as_str();
        let short = SHORTER
            .iter()
            .find(|(long, _)| *long == word)
            .map_or(word, |(_, short)| short);
        match short {
            "" => {}
            // "Draw offer:" is "Draw?": the mark joins its word.
            "?" => match words.last_mut() {
                Some(last) => last.push('?'),
                None => words.push("?".to_owned()),
            },
            _ => words.push(short.to_owned()),
        }
    }
    pack_pages(words)
}

/// `words` as pages of eight characters: as many words on a page as fit,
/// a word longer than a page cut into pages of its own.
fn pack_pages(words: impl IntoIterator<Item = String>) -> Vec<[u8; wire::TEXT_LEN]> {
    let mut pages = Vec::new();
    let mut page = String::new();
    for word in words {
        let mut word = word.as_str();
        if !page.is_empty() && page.len() + 1 + word.len() <= wire::TEXT_LEN {
            page.push(' ');
            page.push_str(word);
            continue;
        }
        if !page.is_empty() {
            pages.push(text_cells(&page));
            page.clear();
        }
        while word.chars().count() > wire::TEXT_LEN {
            let cut = word
                .char_indices()
                .nth(wire::TEXT_LEN)
                .map_or(word.len(), |(i, _)| i);
            pages.push(text_cells(&word[..cut]));
            word = &word[cut..];
        }
        page.push_str(word);
    }
    if !page.is_empty() {
        pages.push(text_cells(&page));
    }
    pages
}

/// `word` with the accented letters of the face's languages written
/// without their accents (`ß` as `ss`); anything else left as it is.
fn plain_letters(word: &str) -> String {
    let mut plain = String::with_capacity(word.len());
    for c in word.chars() {
        let base = match c {
            'á' | 'à' | 'â' | 'ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ñ' => 'n',
            'ç' => 'c',
            'Á' | 'À' | 'Â' | 'Ä' => 'A',
            'É' | 'È' | 'Ê' | 'Ë' => 'E',
            'Í' | 'Î' | 'Ï' => 'I',
            'Ó' | 'Ô' | 'Ö' => 'O',
            'Ú' | 'Û' | 'Ü' => 'U',
            'Ñ' => 'N',
            'Ç' => 'C',
            'ß' => {
                plain.push_str("ss");
                continue;
            }
            '¿' | '¡' => continue,
            other => other,
        };
        plain.push(base);
    }
    plain
}

/// What the face says in words, and how it is shown on the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Message {
    text: String,
    /// Shown after `text`, from a page of its own, its words as they are
    /// (not shortened): the players' names.
    names: Option<String>,
    /// Goes round until it changes (else shown once).
    stays: bool,
    /// A ruling: beeps with its first page.
    beeps: bool,
}

/// A row of the time-control editor as the clock writes it in its eight
/// characters, in `language`: the row in the face's words if it fits
/// ("Time 15m"), else in the short words of
/// [`EditorWords::short_rows`](crate::face::EditorWords::short_rows)
/// (the mode by its name alone: "Bronstn"; "T 120m", "Inc +10s", "B as W"),
/// and the space after the label dropped if it still does not fit
/// ("OT25/10m"). The short words are chosen so that every row fits:
/// nothing is cut mid-word.
pub fn editor_row_text(row: &EditorRow, language: Language) -> String {
    let words = &language.face().editor;
    let fits = |text: &str| plain_letters(text).chars().count() <= wire::TEXT_LEN;
    let whole = row.text(&words.rows);
    if fits(&whole) {
        return whole;
    }
    let short = row.text(&words.short_rows);
    if fits(&short) {
        return short;
    }
    short.replacen(' ', "", 1)
}

/// The message of `view`, if it has one for the clock.
fn message_of(view: &View) -> Option<Message> {
    // The editor's selected row, which the clock's buttons change.
    if let Screen::TimeControlEditor { rows, selected } = &view.screen {
        return rows.get(*selected).map(|row| Message {
            text: editor_row_text(row, view.language),
            names: None,
            stays: true,
            beeps: false,
        });
    }
    if let Screen::TimeControlMenu { presets, selected } = &view.screen {
        return presets.get(*selected).map(|name| {
            // Then who plays, on pages of their own: "Board 7",
            // "Morphy -", "Andersse", "n".
            let names = view.pairing.as_ref().map(|pairing| {
                format!(
                    "{} {} {} - {}",
                    view.language.face().board_number,
                    pairing.board,
                    pairing.white,
                    pairing.black
                )
            });
            Message {
                text: name.clone(),
                names,
                stays: true,
                beeps: false,
            }
        });
    }
    if let Some(result) = &view.result {
        return Some(Message {
            text: result.clone(),
            names: None,
            stays: true,
            beeps: false,
        });
    }
    let Some(alert) = view.alert.as_ref() else {
        // Said once when it happens; the clock keeps time meanwhile.
        return view.board_disconnected.then(|| Message {
            text: crate::face::BOARD_DISCONNECTED.to_owned(),
            names: None,
            stays: false,
            beeps: false,
        });
    };
    let waits = crate::words::is_instruction(alert, view.language)
        || alert.starts_with("Promote")
        || alert.starts_with("Choice")
        || (view.draw_offer.is_some() && alert.starts_with("Draw offer"));
    Some(Message {
        text: alert.clone(),
        names: None,
        stays: waits,
        beeps: view.screen == Screen::Clock && !view.paused,
    })
}

/// The face on a DGT 3000: what it shows of each view, and since when.
#[derive(Debug, Clone, Default)]
pub struct ClockFace {
    /// The message shown, its pages, and when it first was.
    message: Option<(Message, Vec<[u8; wire::TEXT_LEN]>, Millis)>,
}

impl ClockFace {
    /// Nothing shown yet.
    pub fn new() -> ClockFace {
        ClockFace::default()
    }

    /// What the clock shows of `view` at `now`: both times, whose runs
    /// (nobody's while paused, before the game and after it), and the
    /// message's page due now, if any.
    pub fn shown(&mut self, view: &View, now: Millis) -> ClockShown {
        let [left, right] = view.sides();
        let ms = |side: Color| match side {
            Color::White => view.white_ms,
            Color::Black => view.black_ms,
        };
        // A clock that does not simply count down (upcount, hourglass, a
        // US delay) is not the DGT 3000's countdown: it is set standing,
        // with tocada's times, at each of their whole seconds, and never
        // counts against them.
        let run = match view.running {
            Some(side) if !view.paused && view.result.is_none() && !view.not_countdown => {
                Some(if side == left {
                    ClockSide::Left
                } else {
                    ClockSide::Right
                })
            }
            _ => None,
        };
        let message = message_of(view);
        if self.message.as_ref().map(|(m, _, _)| m) != message.as_ref() {
            self.message = message.map(|m| {
                let mut pages = clock_pages(&m.text);
                // Names as they are: a player called White stays White.
                pages.extend(m.names.as_deref().map_or_else(Vec::new, |names| {
                    pack_pages(names.split_whitespace().map(plain_letters))
                }));
                (m, pages, now)
            });
        }
        ClockShown {
            left_ms: ms(left),
            right_ms: ms(right),
            run,
            text: self.page(now),
        }
    }

    /// The page of the message due at `now`, with its beep.
    fn page(&self, now: Millis) -> Option<([u8; wire::TEXT_LEN], u8)> {
        let (message, pages, since) = self.message.as_ref()?;
        if pages.is_empty() {
            return None;
        }
        let gone = now.saturating_sub(*since);
        let index = (gone / PAGE_MS) as usize;
        let shown_for = (pages.len() as Millis * PAGE_MS).max(MESSAGE_MS);
        let page = if message.stays {
            index % pages.len()
        } else if gone >= shown_for {
            return None;
        } else {
            index.min(pages.len() - 1)
        };
        let beep = if message.beeps && index == 0 {
            RULING_BEEP
        } else {
            0
        };
        Some((pages[page], beep))
    }

    /// When what the clock shows changes next by itself (the next page,
    /// or the times back after a passing message).
    pub fn next_change(&self, now: Millis) -> Option<Millis> {
        let (message, pages, since) = self.message.as_ref()?;
        if pages.is_empty() {
            return None;
        }
        let gone = now.saturating_sub(*since);
        let shown_for = (pages.len() as Millis * PAGE_MS).max(MESSAGE_MS);
        if !message.stays && gone >= shown_for {
            return None;
        }
        if !message.stays && pages.len() == 1 {
            return Some(since + shown_for);
        }
        Some(since + (gone / PAGE_MS + 1) * PAGE_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_face_in_another_language_loses_its_accents_not_its_letters() {
        assert_eq!(pages("Pieza tocada: Cf3"), ["Pieza", "tocada:", "Cf3"]);
        assert_eq!(pages("¿Tablas? Árbitro"), ["Tablas?", "Arbitro"]);
        assert_eq!(pages("Weiß"), ["Weiss"]);
        assert_eq!(pages("Échec"), ["Echec"]);
    }

    fn pages(message: &str) -> Vec<String> {
        clock_pages(message)
            .iter()
            .map(|p| String::from_utf8_lossy(p).trim_end().to_owned())
            .collect()
    }

    #[test]
    fn face_messages_are_written_in_pages_of_eight() {
        assert_eq!(pages("Flag: White"), ["Flag: W"]);
        assert_eq!(pages("Draw offer: Black"), ["Draw? B"]);
        assert_eq!(pages("Touch-move: Nf3"), ["Touch", "Nf3"]);
        assert_eq!(
            pages("Touch-move: move the g1 knight"),
            ["Touch", "move g1", "knight"]
        );
        assert_eq!(pages("Illegal move: White +2:00"), ["Illegal", "W +2:00"]);
        assert_eq!(pages("Restore d2 c2"), ["Restore", "d2 c2"]);
        assert_eq!(pages("1-0 checkmate"), ["1-0 mate"]);
        assert_eq!(pages("J'adoube: White"), ["Adjust W"]);
        assert_eq!(pages("Blitz 3+2"), ["Blitz", "3+2"]);
        assert_eq!(pages("Promote [Q] R B N"), ["Promote", "[Q] R B", "N"]);
        assert_eq!(pages("Board disconnected"), ["Board", "off"]);
        assert_eq!(pages("Unbelievably"), ["Unbeliev", "ably"]);
        assert!(pages("").is_empty());
        for page in clock_pages("Ünïcode: ♞ moves") {
            assert!(page.iter().all(|b| b.is_ascii()));
        }
    }

    #[test]
    fn the_pairing_follows_the_time_control_on_pages_of_its_own_names_unshortened() {
        let view = View {
            screen: Screen::TimeControlMenu {
                presets: vec!["Blitz 3+2".to_owned()],
                selected: 0,
            },
            pairing: Some(crate::face::PairingShown {
                board: 12,
                white: "White".to_owned(),
                black: "Müller".to_owned(),
            }),
            ..View::default()
        };
        let mut face = ClockFace::new();
        let shown: Vec<String> = (0..6)
            .map(|page| {
                let (text, beep) = face.shown(&view, page * PAGE_MS).text.unwrap();
                assert_eq!(beep, 0);
                String::from_utf8_lossy(&text).trim_end().to_owned()
            })
            .collect();
        assert_eq!(
            shown,
            ["Blitz", "3+2", "Board 12", "White -", "Muller", "Blitz"]
        );
        // In the players' language: the board's word is theirs.
        let german = View {
            language: Language::German,
            ..view
        };
        let mut face = ClockFace::new();
        face.shown(&german, 0);
        let text = face.shown(&german, 2 * PAGE_MS).text.unwrap().0;
        assert_eq!(String::from_utf8_lossy(&text).trim_end(), "Brett 12");
    }

    fn view() -> View {
        View {
            white_ms: 300_000,
            black_ms: 295_400,
            running: Some(Color::Black),
            ..View::default()
        }
    }

    #[test]
    fn levers_and_buttons_are_the_fronts_controls() {
        let white_left = |c| control_of(c, Color::White);
        assert_eq!(
            white_left(Ok(ClockSide::Right)),
            Button::Lever(Color::Black)
        );
        assert_eq!(
            white_left(Err(Dgt3000Button::Minus)),
            Button::Draw(Color::White)
        );
        assert_eq!(
            white_left(Err(Dgt3000Button::Ok)),
            Button::Adjust(Color::Black)
        );
        assert_eq!(white_left(Err(Dgt3000Button::Run)), Button::Menu);
        assert_eq!(
            control_of(Ok(ClockSide::Left), Color::Black),
            Button::Lever(Color::Black)
        );
        assert_eq!(
            control_of(Err(Dgt3000Button::Plus), Color::Black),
            Button::Draw(Color::White)
        );
    }

    #[test]
    fn the_clocks_sit_over_their_levers_and_run_as_the_face_says() {
        let mut face = ClockFace::new();
        let shown = face.shown(&view(), 0);
        assert_eq!(
            shown,
            ClockShown {
                left_ms: 300_000,
                right_ms: 295_400,
                run: Some(ClockSide::Right),
                text: None
            }
        );
        let turned = View {
            black_left: true,
            ..view()
        };
        let shown = face.shown(&turned, 0);
        assert_eq!((shown.left_ms, shown.run), (295_400, Some(ClockSide::Left)));
        let paused = View {
            paused: true,
            ..view()
        };
        assert_eq!(face.shown(&paused, 0).run, None);
    }

    #[test]
    fn a_ruling_beeps_once_shows_its_pages_then_the_times_come_back() {
        let mut face = ClockFace::new();
        let ruling = View {
            alert: Some("Touch-move: Nf3".to_owned()),
            ..view()
        };
        let first = face.shown(&ruling, 10_000).text.unwrap();
        assert_eq!(&first.0, b"Touch   ");
        assert_eq!(first.1, RULING_BEEP);
        assert_eq!(face.next_change(10_000), Some(10_000 + PAGE_MS));
        let second = face.shown(&ruling, 10_000 + PAGE_MS).text.unwrap();
        assert_eq!((&second.0, second.1), (b"Nf3     ", 0));
        // The same alert standing is not shown again: the times are back.
        assert_eq!(face.shown(&ruling, 10_000 + 2 * PAGE_MS).text, None);
        assert_eq!(face.next_change(10_000 + 2 * PAGE_MS), None);
        // A draw offer standing goes round, without a beep after its first.
        let offer = View {
            alert: Some("Draw offer: White".to_owned()),
            draw_offer: Some(Color::White),
            ..view()
        };
        assert_eq!(face.shown(&offer, 20_000).text.unwrap().1, RULING_BEEP);
        let later = face.shown(&offer, 60_000).text.unwrap();
        assert_eq!((&later.0, later.1), (b"Draw? W ", 0));
        // The board's cable out: said once, then the times.
        let unplugged = View {
            board_disconnected: true,
            ..view()
        };
        assert_eq!(&face.shown(&unplugged, 65_000).text.unwrap().0, b"Board   ");
        assert_eq!(face.shown(&unplugged, 65_000 + MESSAGE_MS).text, None);
        // The menu's preset, before the game.
        let menu = View {
            screen: Screen::TimeControlMenu {
                presets: vec!["Rapid 15+10".to_owned()],
                selected: 0,
            },
            running: None,
            ..view()
        };
        let shown = face.shown(&menu, 70_000);
        assert_eq!(shown.run, None);
        assert_eq!(&shown.text.unwrap().0, b"Rapid   ");
    }

    /// The set-and-runs the driver sends over `until` ms of views `at` makes,
    /// the face and the driver asked every 100 ms as the daemon does, each
    /// command acknowledged 20 ms after it went.
    fn commands(at: impl Fn(Millis) -> View, until: Millis) -> Vec<(Millis, Vec<u8>)> {
        use crate::hardware::dgt3000::{ClockTime, Dgt3000, encode_ack, encode_times};
        let mut face = ClockFace::new();
        let mut clock = Dgt3000::new();
        let zero = ClockTime {
            seconds: 0,
            flag: false,
        };
        clock.report(&encode_times(zero, zero, 0), 0);
        let mut sent = Vec::new();
        let mut ack_due: Option<(Millis, u8)> = None;
        let mut now = 0;
        while now <= until {
            if let Some((due, id)) = ack_due
                && due <= now
            {
                clock.report(&encode_ack([wire::ACK_OK, id, 0, 0]), due);
                ack_due = None;
            }
            clock.show(face.shown(&at(now), now), now);
            if let Some(command) = clock.poll_command(now) {
                ack_due = Some((now + 20, command[3]));
                // The version asked at first is not a set.
                if command[3] == wire::CMD_SETNRUN {
                    sent.push((now, command));
                }
            }
            now += 10;
        }
        sent
    }

    fn set(left_ms: u64, right_ms: u64, run: Option<ClockSide>) -> Vec<u8> {
        crate::hardware::dgt3000::ClockCommand::SetAndRun {
            left_s: (left_ms / 1000) as u32,
            right_s: (right_ms / 1000) as u32,
            run,
        }
        .encode()
    }

    /// Upcount and the hourglass are not the DGT 3000's countdown: before,
    /// it was set running and counted against tocada, set again every
    /// half second or so. Now it is set standing with tocada's whole
    /// seconds, once at each of them.
    #[test]
    fn a_clock_that_does_not_count_down_is_set_standing_at_each_whole_second() {
        let upcount = |t: Millis| View {
            white_ms: 2_500 + t,
            black_ms: 7_000,
            running: Some(Color::White),
            not_countdown: true,
            ..View::default()
        };
        let hourglass = |t: Millis| View {
            white_ms: 60_000 - t,
            black_ms: 60_000 + t,
            running: Some(Color::White),
            not_countdown: true,
            ..View::default()
        };
        // Upcount: once a second. The hourglass: at each whole second of
        // either clock (the falling one's and the rising one's fall at
        // different instants, as on the face).
        for (name, at, sets) in [
            ("upcount", &upcount as &dyn Fn(Millis) -> View, 10..=12),
            ("hourglass", &hourglass, 20..=22),
        ] {
            let sent = commands(at, 10_000);
            assert!(
                sets.contains(&sent.len()),
                "{name}: {} sets in 10 s",
                sent.len()
            );
            for (t, command) in &sent {
                let view = at(*t);
                assert_eq!(
                    *command,
                    set(view.white_ms, view.black_ms, None),
                    "{name} at {t}"
                );
            }
        }
    }

    /// Byo-yomi's periods count down: the clock runs them, set again only
    /// when one begins (main time out, a period used up), never between.
    #[test]
    fn byo_yomi_periods_are_run_by_the_clock_and_set_as_each_begins() {
        // 2 s of main time, then periods of 10 s, White's clock running.
        let time = |t: Millis| {
            if t < 2_000 {
                2_000 - t
            } else {
                10_000 - (t - 2_000) % 10_000
            }
        };
        let at = |t: Millis| View {
            white_ms: time(t),
            black_ms: 60_000,
            running: Some(Color::White),
            white_overtime: (t >= 2_000).then(|| "BY2".to_owned()),
            ..View::default()
        };
        let sent = commands(at, 15_000);
        let when: Vec<Millis> = sent.iter().map(|(t, _)| *t).collect();
        // The first once the clock's version has answered.
        assert_eq!(when, [20, 2_000, 12_000], "{sent:?}");
        assert_eq!(sent[1].1, set(10_000, 60_000, Some(ClockSide::Left)));
    }

    /// The clock's text of a row, after `clock_pages`: one page, asserted.
    fn written(row: EditorRow, language: Language) -> String {
        let text = editor_row_text(&row, language);
        let pages = clock_pages(&text);
        assert_eq!(pages.len(), 1, "{row:?} in {language:?}: {pages:?}");
        String::from_utf8_lossy(&pages[0]).trim_end().to_owned()
    }

    /// Every row the editor can show is one page on the clock, readable.
    #[test]
    fn the_editors_rows_fit_the_clocks_eight_characters() {
        use EditorRow::*;
        for (row, shown) in [
            (Mode(0), "Fischer"),
            (Mode(1), "Bronstn"),
            (Mode(2), "US delay"),
            (Mode(3), "Hourglas"),
            (Time(15), "Time 15m"),
            (Time(120), "T 120m"),
            (Increment(Some(10)), "Inc +10s"),
            (Delay(10), "Dly 10s"),
            (Moves(Some(40)), "Moves 40"),
            (Moves(None), "Mv all"),
            (Then(Some(120)), "Th 120m"),
            (Overtime(Some("5x30s")), "OT 5x30s"),
            (Overtime(Some("25/10m")), "OT25/10m"),
            (Overtime(None), "Over -"),
            (Black(None), "B as W"),
            (Black(Some(120)), "B 120m"),
        ] {
            assert_eq!(written(row, Language::English), shown, "{row:?}");
        }
        // On the clock: the selected row, standing.
        let mut face = ClockFace::new();
        let view = View {
            screen: Screen::TimeControlEditor {
                rows: vec![Mode(0), Time(120)],
                selected: 1,
            },
            ..View::default()
        };
        let shown = face.shown(&view, 0);
        assert_eq!(&shown.text.unwrap().0, b"T 120m  ");
        assert_eq!(face.shown(&view, 60_000).text.unwrap().0, *b"T 120m  ");
    }

    /// In every language, every row of every value the editor steps
    /// through is written whole in the clock's eight characters: in the
    /// face's words or the short ones, never cut mid-word. Before, a row
    /// was parsed back from its English text, and another language's rows
    /// were run together and cut ("Jugadas todas": "Jugadast", "odas").
    #[test]
    fn the_editors_rows_are_written_whole_in_each_language() {
        use crate::session::editor::Editor;
        for language in Language::ALL {
            let mut editor = Editor::default();
            // Moves 40 first, so that no row is left out as unused.
            for _ in 0..3 {
                editor.step_row(true);
            }
            editor.step_value(true);
            let mut seen = 0;
            for _ in 0..7 {
                for _ in 0..16 {
                    for row in editor.rows() {
                        // Eight characters or fewer: no word of it is cut.
                        let text = plain_letters(&editor_row_text(&row, language));
                        assert!(text.chars().count() <= wire::TEXT_LEN, "{text}");
                        written(row, language);
                        seen += 1;
                    }
                    editor.step_value(true);
                }
                editor.step_row(true);
            }
            assert_eq!(seen, 7 * 16 * 7);
        }
        use EditorRow::*;
        for (language, rows) in [
            (
                Language::Spanish,
                [
                    (Mode(1), "Bronstn"),
                    (Time(5), "T 5m"),
                    (Delay(10), "Ret 10s"),
                    (Moves(None), "Jg todas"),
                    (Overtime(None), "Prorr. -"),
                    (Black(None), "N = B"),
                ],
            ),
            (
                Language::French,
                [
                    (Mode(2), "delai"),
                    (Time(5), "Temps 5m"),
                    (Delay(10), "Del 10s"),
                    (Moves(None), "Cp tous"),
                    (Overtime(Some("25/10m")), "Pr25/10m"),
                    (Black(None), "N = B"),
                ],
            ),
            (
                Language::German,
                [
                    (Mode(4), "aufwarts"),
                    (Time(120), "Z 120m"),
                    (Delay(10), "Vz 10s"),
                    (Moves(Some(40)), "Zuge 40"),
                    (Overtime(Some("5x30s")), "Vl 5x30s"),
                    (Black(Some(90)), "S 90m"),
                ],
            ),
        ] {
            for (row, shown) in rows {
                assert_eq!(written(row, language), shown, "{row:?} in {language:?}");
            }
        }
        // On the clock, in the configured language.
        let mut face = ClockFace::new();
        let view = View {
            screen: Screen::TimeControlEditor {
                rows: vec![Mode(0), Black(None)],
                selected: 1,
            },
            language: Language::Spanish,
            ..View::default()
        };
        assert_eq!(&face.shown(&view, 0).text.unwrap().0, b"N = B   ");
    }
}
