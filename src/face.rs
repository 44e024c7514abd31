//! The clock's face on the 128 × 64 OLED: a pure function from a [`View`]
//! to a [`Frame`].
//!
//! [`View`] is everything the face shows, as plain data with its texts
//! already chosen (the session builds it from the referee, in
//! `session::view`); [`render`] draws it into a [`Frame`], the panel's
//! picture in the controller's page layout, and [`draw`] onto any
//! embedded-graphics target (a simulator display, a PNG in the tests).
//! [`urgent`] tells a driver which parts of the picture to send first, so a
//! press of the lever shows the other clock running before anything else
//! reaches the panel. The face knows nothing of the referee, the session or
//! the hardware.
//!
//! The clock screen, top to bottom:
//!
//! ```text
//!  White P2            Black FLAG     names; period (stage) from the 2nd on,
//!                                    or overtime (BY3, C12); FLAG
//!   12:34                0.0         the times, as large as both fit
//!     ▀▀                             under the running clock, a short marker
//!  Move 23        ½? White PAUSED    move number, draw offer, pause; or the
//!                                    result, or "Board disconnected"
//!  Touch-move: g1 knight             one alert, shortened to fit
//! ```
//!
//! The marker is 16 columns in one page ([`MARKER_WIDTH`]): a switch of
//! clocks costs the panel two 16-byte writes, one to light the new marker
//! and one to clear the old.
//!
//! With [`View::black_left`] the two halves swap, so each clock sits over
//! its own player's lever. Two more screens serve the front-panel menus,
//! worked with the players' buttons alone:
//!
//! - [`Screen::TimeControlMenu`], before the game: the sides as they sit
//!   (a draw button swaps them), the presets (the adjust buttons move the
//!   selection, left up and right down) and "Black's lever starts".
//! - [`Screen::TimeControlEditor`], opened from the setup screen by Menu:
//!   the rows of a time control (mode, time, increment, moves, then,
//!   Black's time), the adjust buttons choosing one, the draw buttons
//!   stepping it down and up; Menu saves it as the preset `edited`.
//! - [`Screen::Correction`], while the arbiter has paused the clock (6.10,
//!   6.11): both times in `h:mm:ss` and the moves each side completed, one
//!   [`Field`] selected; the adjust buttons choose the field, the draw
//!   buttons take one off (left) or add one (right), Menu resumes.

use embedded_graphics::mono_font::{
    MonoFont, MonoTextStyle, MonoTextStyleBuilder, ascii, iso_8859_1,
};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{PrimitiveStyle, Rectangle};
use embedded_graphics::text::{Alignment, Baseline, Text, TextStyleBuilder};
use shakmaty::Color;

pub use crate::frame::Frame;

mod editor_row;
mod glyphs;
mod language;
mod sim_words;

pub use editor_row::EditorRow;
pub use language::{EditorWords, FaceWords, Language, RowWords};
pub use sim_words::{Expected, HELP_ROWS, SimWords};

/// Width of the panel in pixels.
pub const WIDTH: i32 = crate::frame::WIDTH as i32;
/// Height of the panel in pixels.
pub const HEIGHT: i32 = crate::frame::HEIGHT as i32;

/// The status row's words when the sensor board does not answer.
pub const BOARD_DISCONNECTED: &str = "Board disconnected";
/// The status row's words when the game store cannot commit (a full disk,
/// a read-only or locked database): the clock runs on, unrecorded.
pub const GAMES_NOT_SAVED: &str = "Games not saved";

/// What the screen is showing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Screen {
    /// Both clocks: the game.
    #[default]
    Clock,
    /// Choosing a time control before the game.
    TimeControlMenu {
        /// The time controls on offer, by name: "Blitz 3+2".
        presets: Vec<String>,
        /// The index of the one selected; none is marked when out of range.
        selected: usize,
    },
    /// The time-control editor before the game: its rows ("Time 90m"),
    /// one selected.
    TimeControlEditor {
        /// The rows, in order, each written in the face's words.
        rows: Vec<EditorRow>,
        /// The index of the selected row.
        selected: usize,
    },
    /// The arbiter's correction of the times and move counts while the
    /// clock is paused (6.10, 6.11).
    Correction {
        /// The field the draw buttons change.
        field: Field,
    },
}

/// What the arbiter can correct on [`Screen::Correction`], in the order the
/// adjust buttons step through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// White's time, in whole minutes (the hours go with them).
    WhiteMinutes,
    /// White's time, the seconds.
    WhiteSeconds,
    /// Black's time, in whole minutes.
    BlackMinutes,
    /// Black's time, the seconds.
    BlackSeconds,
    /// The moves White has completed, which decide the next period (6.10.2).
    WhiteMoves,
    /// The moves Black has completed.
    BlackMoves,
    /// Ends the game: "+" on it abandons the game for the arbiter to score.
    EndGame,
    /// "+" waives the obligation in force (a touched or released piece).
    Waive,
    /// "+" takes back the last move with its clock times.
    TakeBack,
    /// "-" chooses the result, "+" twice gives it (the second confirms).
    Adjudicate,
}

impl Field {
    /// Every field, in order.
    pub const ALL: [Field; 10] = [
        Field::WhiteMinutes,
        Field::WhiteSeconds,
        Field::BlackMinutes,
        Field::BlackSeconds,
        Field::WhiteMoves,
        Field::BlackMoves,
        Field::EndGame,
        Field::Waive,
        Field::TakeBack,
        Field::Adjudicate,
    ];

    /// The field after this one, from the last back to the first.
    pub fn next(self) -> Field {
        Field::ALL[(self as usize + 1) % Field::ALL.len()]
    }

    /// The field before this one, from the first round to the last.
    pub fn previous(self) -> Field {
        Field::ALL[(self as usize + Field::ALL.len() - 1) % Field::ALL.len()]
    }

    /// The field in words in `language`: "Segundos blancas".
    pub fn label_in(self, language: Language) -> &'static str {
        language.face().fields[self as usize]
    }

    /// The field in words: "White seconds".
    pub fn label(self) -> &'static str {
        match self {
            Field::WhiteMinutes => "White minutes",
            Field::WhiteSeconds => "White seconds",
            Field::BlackMinutes => "Black minutes",
            Field::BlackSeconds => "Black seconds",
            Field::WhiteMoves => "White moves",
            Field::BlackMoves => "Black moves",
            Field::EndGame => "End game",
            Field::Waive => "Waive obligation",
            Field::TakeBack => "Take back move",
            Field::Adjudicate => "Adjudicate",
        }
    }
}

/// Everything the face shows, as plain data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// White's time left, in milliseconds.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
    /// Whose time is going down, if anyone's.
    pub running: Option<Color>,
    /// The move being played, as on a score sheet.
    pub move_number: u32,
    /// The moves White has completed.
    pub white_moves: u32,
    /// The moves Black has completed.
    pub black_moves: u32,
    /// The stage (period) of the time control White plays in, from 0.
    pub white_stage: usize,
    /// Black's stage, from 0.
    pub black_stage: usize,
    /// White's overtime once his main time has run out, shown where the
    /// period is: `BY3` (byo-yomi, periods left), `C12` (Canadian, moves to
    /// make in the period).
    pub white_overtime: Option<String>,
    /// Black's overtime.
    pub black_overtime: Option<String>,
    /// The side whose flag fell first.
    pub flag: Option<Color>,
    /// The side whose draw offer stands.
    pub draw_offer: Option<Color>,
    /// The arbiter has paused the clock.
    pub paused: bool,
    /// The sensor board does not answer.
    pub board_disconnected: bool,
    /// The game store cannot commit: games are not being saved.
    pub games_unsaved: bool,
    /// One line of plain words: the latest ruling or event.
    pub alert: Option<String>,
    /// The result, once the game is over: "1-0 checkmate".
    pub result: Option<String>,
    /// Which screen to draw.
    pub screen: Screen,
    /// Black's clock is on the left and White's on the right, because each
    /// clock sits over its own player's lever. False: White on the left.
    pub black_left: bool,
    /// The language of the face's own words; the alert and the result
    /// come already in it.
    pub language: Language,
    /// The running clock does not simply count down while the other
    /// stands (upcount, hourglass, a US delay's hold): a clock that counts
    /// by itself from a set (a DGT 3000) cannot follow it and is set again
    /// at each whole second instead.
    pub not_countdown: bool,
    /// Who plays next on this board, as the hall paired it: on the setup
    /// screen only, for a face that cannot show the whole alert line (a
    /// DGT 3000's eight characters).
    pub pairing: Option<PairingShown>,
}

/// The hall's pairing of the board as a face shows it: the board and the
/// players' surnames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PairingShown {
    /// The board, from 1.
    pub board: u32,
    /// White's surname.
    pub white: String,
    /// Black's surname.
    pub black: String,
}

/// A side by name, as the face labels its clock: "White".
pub fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl View {
    /// The sides as they sit: the left one, then the right one.
    pub fn sides(&self) -> [Color; 2] {
        if self.black_left {
            [Color::Black, Color::White]
        } else {
            [Color::White, Color::Black]
        }
    }

    fn moves(&self, side: Color) -> u32 {
        match side {
            Color::White => self.white_moves,
            Color::Black => self.black_moves,
        }
    }

    fn time(&self, side: Color) -> u64 {
        match side {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }

    fn overtime(&self, side: Color) -> Option<&str> {
        match side {
            Color::White => self.white_overtime.as_deref(),
            Color::Black => self.black_overtime.as_deref(),
        }
    }

    fn stage(&self, side: Color) -> usize {
        match side {
            Color::White => self.white_stage,
            Color::Black => self.black_stage,
        }
    }
}

/// A clock reading: `h:mm:ss` from one hour, `m:ss` under, and seconds with
/// tenths (`s.t`) under 20 seconds. Always rounded down, so a clock shows
/// `0.0` only when its flag has fallen.
pub fn clock_text(ms: u64) -> String {
    if ms < TENTHS_BELOW_MS {
        format!("{}.{}", ms / 1000, ms / 100 % 10)
    } else {
        duration_text(ms)
    }
}

/// Below this a clock shows tenths of a second; from it on, whole seconds.
pub const TENTHS_BELOW_MS: u64 = 20_000;

/// `ms` rounded down to what the face can show of it: tenths of a second
/// under [`TENTHS_BELOW_MS`], whole seconds from it on. Two times with the
/// same displayed value draw the same, so views built with displayed times
/// compare equal exactly when the face would look the same; the clock's
/// reading changes next when its time falls below this value.
pub fn displayed_ms(ms: u64) -> u64 {
    if ms < TENTHS_BELOW_MS {
        ms / 100 * 100
    } else {
        ms / 1000 * 1000
    }
}

/// A span of time in whole seconds: `h:mm:ss` from one hour, `m:ss` under.
pub fn duration_text(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A text the face drew, and where: what [`placed_texts`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The words drawn, as fitted: a `~` at the end marks a cut.
    pub text: String,
    /// The rows and columns its glyphs' cells take, in the face's
    /// coordinates (when drawn doubled, at half scale).
    pub area: Rectangle,
}

thread_local! {
    /// The texts drawn while [`placed_texts`] listens.
    static PLACED: std::cell::RefCell<Option<Vec<Placed>>> = const { std::cell::RefCell::new(None) };
}

/// Every text the face draws for `view`, in drawing order: so a test can
/// tell that nothing was cut, ran off the panel or overlapped.
pub fn placed_texts(view: &View) -> Vec<Placed> {
    PLACED.with(|placed| *placed.borrow_mut() = Some(Vec::new()));
    let _ = render(view);
    PLACED.with(|placed| placed.borrow_mut().take().unwrap_or_default())
}

/// The face of `view`, as the panel should show it.
pub fn render(view: &View) -> Frame {
    let mut frame = Frame::new();
    let Ok(()) = draw(view, &mut frame);
    frame
}

/// Draws `view` onto `target`, which should be 128 × 64 and is cleared first.
pub fn draw<D: DrawTarget<Color = BinaryColor>>(
    view: &View,
    target: &mut D,
) -> Result<(), D::Error> {
    target.clear(BinaryColor::Off)?;
    match &view.screen {
        Screen::Clock => draw_clock(view, target),
        Screen::TimeControlMenu { presets, selected } => draw_menu(
            view,
            presets,
            *selected,
            (
                view.language.face().draw_swaps,
                view.language.face().blacks_lever_starts,
            ),
            target,
        ),
        Screen::TimeControlEditor { rows, selected } => {
            let words = &view.language.face().editor;
            let rows: Vec<String> = rows.iter().map(|row| row.text(&words.rows)).collect();
            draw_menu(view, &rows, *selected, (words.header, words.footer), target)
        }
        Screen::Correction { field } => draw_correction(view, *field, target),
    }
}

/// The running clock's marker: this wide, centred in its clock's half.
pub const MARKER_WIDTH: u32 = 16;
/// The marker's rows: the bottom four of the times' last page, two rows
/// clear of the digits, so it reads as a mark and not as a decimal comma.
const MARKER_TOP: i32 = 36;
const MARKER_HEIGHT: u32 = 4;

/// Where the marker of the clock in half `i` (0: left, 1: right) sits.
fn marker(i: usize) -> Rectangle {
    let centre = WIDTH / 4 + i as i32 * WIDTH / 2;
    Rectangle::new(
        Point::new(centre - MARKER_WIDTH as i32 / 2, MARKER_TOP),
        Size::new(MARKER_WIDTH, MARKER_HEIGHT),
    )
}

/// The rows the times are drawn in, in any of their fonts.
const TIMES_TOP: i32 = 10;

/// The parts of `view`'s face a driver should send first, most urgent first;
/// the rest of the picture follows. On the clock screen: the running
/// clock's marker, then the other marker (so a switch is shown by the first
/// write and completed by the second), then the running clock's time, then
/// the other time. Nothing is urgent on the menus.
pub fn urgent(view: &View) -> Vec<Rectangle> {
    if view.screen != Screen::Clock {
        return Vec::new();
    }
    let half = WIDTH / 2;
    let time = |i: usize| {
        Rectangle::new(
            Point::new(i as i32 * half, TIMES_TOP),
            Size::new(half as u32, (MARKER_TOP - TIMES_TOP) as u32),
        )
    };
    // The running side's half first; the left one when none runs.
    let first = view
        .running
        .and_then(|side| view.sides().iter().position(|&s| s == side))
        .unwrap_or(0);
    let second = 1 - first;
    vec![marker(first), marker(second), time(first), time(second)]
}

const SMALL: &MonoFont<'static> = &iso_8859_1::FONT_6X10;
/// The alert line's fonts, largest first: 21, 25 and 32 characters.
const LINE_FONTS: [&MonoFont<'static>; 3] = [
    &iso_8859_1::FONT_6X10,
    &iso_8859_1::FONT_5X8,
    &iso_8859_1::FONT_4X6,
];

/// The times' baseline: their digits end on row 33, the last but six of
/// page 4, leaving the page's bottom rows to the running clock's marker.
const TIME_BASELINE: i32 = 33;
const STATUS_TOP: i32 = 42;
const ALERT_TOP: i32 = 54;

fn text_width(font: &MonoFont, text: &str) -> i32 {
    let n = text.chars().count() as i32;
    n * (font.character_size.width + font.character_spacing) as i32
}

fn style(font: &'static MonoFont<'static>, inverted: bool) -> MonoTextStyle<'static, BinaryColor> {
    let builder = MonoTextStyleBuilder::new().font(font);
    if inverted {
        builder
            .text_color(BinaryColor::Off)
            .background_color(BinaryColor::On)
            .build()
    } else {
        builder.text_color(BinaryColor::On).build()
    }
}

fn text<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    s: &str,
    at: Point,
    font: &'static MonoFont<'static>,
    alignment: Alignment,
    baseline: Baseline,
    inverted: bool,
) -> Result<(), D::Error> {
    let text_style = TextStyleBuilder::new()
        .alignment(alignment)
        .baseline(baseline)
        .build();
    PLACED.with(|placed| {
        if let Some(placed) = placed.borrow_mut().as_mut() {
            let style = MonoTextStyle::new(font, BinaryColor::On);
            let area = Text::with_text_style(s, at, style, text_style).bounding_box();
            placed.push(Placed {
                text: s.to_owned(),
                area,
            });
        }
    });
    if !inverted && !s.contains('\n') {
        return glyphs::draw_lit(target, s, at, font, text_style);
    }
    Text::with_text_style(s, at, style(font, inverted), text_style).draw(target)?;
    Ok(())
}

/// `s` with the words the alert line drops or shortens when it is too
/// long in `language` ([`FaceWords::abbreviations`]).
fn abbreviate(s: &str, language: Language) -> String {
    language
        .face()
        .abbreviations
        .iter()
        .fold(s.to_owned(), |s, (long, short)| s.replace(long, short))
}

/// Fits `s` into `width` pixels: in the larger line fonts, then shortened,
/// then in the smallest font, and at last cut, with `~` marking the cut.
fn fit_line(s: &str, width: i32, language: Language) -> (String, &'static MonoFont<'static>) {
    let short = abbreviate(s, language);
    let tries = [(s, 0), (s, 1), (&*short, 0), (&*short, 1), (&*short, 2)];
    for (text, font) in tries {
        if text_width(LINE_FONTS[font], text) <= width {
            return (text.to_owned(), LINE_FONTS[font]);
        }
    }
    let font = LINE_FONTS[LINE_FONTS.len() - 1];
    let fits = (width / text_width(font, "x")) as usize;
    let cut: String = short.chars().take(fits.saturating_sub(1)).collect();
    (format!("{}~", cut.trim_end()), font)
}

/// Fits the alert `s` into the face's last rows: on one line as
/// [`fit_line`] does when it fits whole (shortened if need be), else in two
/// lines of the smallest font, broken between words, the second cut with
/// `~` only if even that is too little. The rows under the status row hold
/// two lines of it.
fn fit_alert(s: &str, language: Language) -> (Vec<String>, &'static MonoFont<'static>) {
    let (one, font) = fit_line(s, WIDTH, language);
    if !one.ends_with('~') {
        return (vec![one], font);
    }
    let font = LINE_FONTS[LINE_FONTS.len() - 1];
    let per_line = (WIDTH / text_width(font, "x")) as usize;
    let short = abbreviate(s, language);
    let mut first = String::new();
    let mut rest = short.as_str();
    for (i, _) in short.match_indices(' ') {
        if short[..i].chars().count() > per_line {
            break;
        }
        first = short[..i].to_owned();
        rest = &short[i + 1..];
    }
    if first.is_empty() {
        return (vec![one], font);
    }
    let (second, _) = fit_line_in(rest, WIDTH, font);
    (vec![first, second], font)
}

/// `s` in `font`, cut with `~` if it is wider than `width`.
fn fit_line_in(
    s: &str,
    width: i32,
    font: &'static MonoFont<'static>,
) -> (String, &'static MonoFont<'static>) {
    if text_width(font, s) <= width {
        return (s.to_owned(), font);
    }
    let fits = (width / text_width(font, "x")) as usize;
    let cut: String = s.chars().take(fits.saturating_sub(1)).collect();
    (format!("{}~", cut.trim_end()), font)
}

/// Pixels drawn twice as large: every pixel becomes a 2 × 2 block.
struct Doubled<'a, D> {
    target: &'a mut D,
}

impl<D: DrawTarget<Color = BinaryColor>> OriginDimensions for Doubled<'_, D> {
    fn size(&self) -> Size {
        self.target.bounding_box().size / 2
    }
}

impl<D: DrawTarget<Color = BinaryColor>> DrawTarget for Doubled<'_, D> {
    type Color = BinaryColor;
    type Error = D::Error;

    fn draw_iter<I: IntoIterator<Item = Pixel<BinaryColor>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), D::Error> {
        self.target
            .draw_iter(pixels.into_iter().flat_map(|Pixel(p, c)| {
                [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .map(|(dx, dy)| Pixel(Point::new(2 * p.x + dx, 2 * p.y + dy), c))
            }))
    }
}

/// The biggest way to draw both times side by side, each in half the width.
enum TimeFont {
    /// A font drawn twice as large.
    Doubled(&'static MonoFont<'static>),
    Plain(&'static MonoFont<'static>),
}

/// The gap kept between the two times.
const TIME_GAP: i32 = 6;

impl TimeFont {
    fn width(&self, s: &str) -> i32 {
        match *self {
            TimeFont::Doubled(font) => 2 * text_width(font, s),
            TimeFont::Plain(font) => text_width(font, s),
        }
    }
}

/// The biggest font in which both times fit side by side, each in its half
/// when it is short and with `TIME_GAP` between them.
fn time_font(left: &str, right: &str) -> TimeFont {
    let half = WIDTH / 2;
    let fonts = [
        TimeFont::Doubled(&ascii::FONT_6X13_BOLD),
        TimeFont::Plain(&ascii::FONT_10X20),
        TimeFont::Plain(&ascii::FONT_9X18_BOLD),
        TimeFont::Plain(&ascii::FONT_8X13_BOLD),
        TimeFont::Plain(&ascii::FONT_7X13_BOLD),
    ];
    for font in fonts {
        let (l, r) = (font.width(left), font.width(right));
        // Doubled digits stay 2 px clear of the middle, so they never touch.
        let halves = matches!(font, TimeFont::Plain(_)) || (l <= half - 4 && r <= half - 4);
        if halves && l + r + TIME_GAP <= WIDTH && l.max(r) <= half {
            return font;
        }
    }
    TimeFont::Plain(&ascii::FONT_6X10)
}

/// Where each time starts: centred in its half, unless that would bring
/// them closer than `TIME_GAP`.
fn time_positions(left_width: i32, right_width: i32) -> (i32, i32) {
    let half = WIDTH / 2;
    let left = (half / 2 - left_width / 2)
        .min(half - TIME_GAP / 2 - left_width)
        .max(0);
    let right = (half + half / 2 - right_width / 2)
        .max(half + TIME_GAP / 2)
        .min(WIDTH - right_width);
    (left, right)
}

fn draw_time<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    s: &str,
    x: i32,
    font: &TimeFont,
) -> Result<(), D::Error> {
    match *font {
        TimeFont::Doubled(font) => text(
            &mut Doubled { target },
            s,
            Point::new(x / 2, TIME_BASELINE / 2),
            font,
            Alignment::Left,
            Baseline::Alphabetic,
            false,
        ),
        TimeFont::Plain(font) => text(
            target,
            s,
            Point::new(x, TIME_BASELINE),
            font,
            Alignment::Left,
            Baseline::Alphabetic,
            false,
        ),
    }
}

fn draw_clock<D: DrawTarget<Color = BinaryColor>>(
    view: &View,
    target: &mut D,
) -> Result<(), D::Error> {
    let half = WIDTH / 2;
    let sides = view.sides();
    let times = sides.map(|side| clock_text(view.time(side)));
    let font = time_font(&times[0], &times[1]);
    let (left_x, right_x) = time_positions(font.width(&times[0]), font.width(&times[1]));

    // The names, then FLAG, the overtime or the period; a period or an
    // overtime gives way to a flag when long names leave no room for both
    // (Spanish: "Blancas CAÍDA").
    let mark = |side: Color, periods: bool| -> Option<(String, bool)> {
        if view.flag == Some(side) {
            Some((view.language.face().flag.to_owned(), true))
        } else if !periods {
            None
        } else if let Some(overtime) = view.overtime(side) {
            Some((overtime.to_owned(), false))
        } else if view.stage(side) > 0 {
            Some((format!("P{}", view.stage(side) + 1), false))
        } else {
            None
        }
    };
    let label_width = |side: Color, mark: &Option<(String, bool)>| {
        text_width(SMALL, view.language.side(side))
            + mark.as_ref().map_or(0, |(m, _)| 6 + text_width(SMALL, m))
    };
    let mut marks = sides.map(|side| mark(side, true));
    if label_width(sides[0], &marks[0]) + label_width(sides[1], &marks[1]) + 6 > WIDTH - 2 {
        marks = sides.map(|side| mark(side, false));
    }
    for (i, (side, mark)) in sides.into_iter().zip(marks).enumerate() {
        let name = view.language.side(side);
        let label_width = label_width(side, &mark);
        let start = if i == 0 { 1 } else { WIDTH - 1 - label_width };
        text(
            target,
            name,
            Point::new(start, 0),
            SMALL,
            Alignment::Left,
            Baseline::Top,
            false,
        )?;
        if let Some((m, inverted)) = mark {
            let x = start + text_width(SMALL, name) + 6;
            if inverted {
                Rectangle::new(
                    Point::new(x - 1, 0),
                    Size::new(text_width(SMALL, &m) as u32 + 2, 10),
                )
                .into_styled(PrimitiveStyle::with_fill(BinaryColor::On))
                .draw(target)?;
            }
            text(
                target,
                &m,
                Point::new(x, 0),
                SMALL,
                Alignment::Left,
                Baseline::Top,
                inverted,
            )?;
        }

        draw_time(
            target,
            &times[i],
            if i == 0 { left_x } else { right_x },
            &font,
        )?;

        if view.running == Some(side) {
            marker(i)
                .into_styled(PrimitiveStyle::with_fill(BinaryColor::On))
                .draw(target)?;
        }
    }

    // The status row.
    if view.board_disconnected || view.games_unsaved {
        let words = if view.board_disconnected {
            view.language.face().board_disconnected
        } else {
            view.language.face().games_not_saved
        };
        text(
            target,
            words,
            Point::new(half, STATUS_TOP),
            SMALL,
            Alignment::Center,
            Baseline::Top,
            true,
        )?;
    } else if let Some(result) = &view.result {
        let (s, f) = fit_line(result, WIDTH, view.language);
        text(
            target,
            &s,
            Point::new(half, STATUS_TOP),
            f,
            Alignment::Center,
            Baseline::Top,
            false,
        )?;
    } else {
        let mut right = Vec::new();
        if let Some(side) = view.draw_offer {
            right.push(format!("½? {}", view.language.side(side)));
        }
        if view.paused {
            right.push(view.language.face().paused.to_owned());
        }
        let right = right.join(" ");
        let moves = format!("{} {}", view.language.face().move_number, view.move_number);
        if text_width(SMALL, &right) + text_width(SMALL, &moves) + 6 <= WIDTH {
            text(
                target,
                &moves,
                Point::new(1, STATUS_TOP),
                SMALL,
                Alignment::Left,
                Baseline::Top,
                false,
            )?;
        }
        text(
            target,
            &right,
            Point::new(WIDTH - 1, STATUS_TOP),
            SMALL,
            Alignment::Right,
            Baseline::Top,
            false,
        )?;
    }

    // The alert line.
    if let Some(alert) = &view.alert {
        let (lines, f) = fit_alert(alert, view.language);
        let height = f.character_size.height as i32;
        let n = lines.len() as i32;
        // One line sits no higher than ALERT_TOP; two take the rows from
        // just under the status row.
        let top = (HEIGHT - n * height).max(if n > 1 { STATUS_TOP + 10 } else { ALERT_TOP });
        for (i, s) in lines.iter().enumerate() {
            text(
                target,
                s,
                Point::new(0, top + i as i32 * height),
                f,
                Alignment::Left,
                Baseline::Top,
                false,
            )?;
        }
    }
    Ok(())
}

/// The smaller font for hints, 25 characters to the line.
const HINT: &MonoFont<'static> = &iso_8859_1::FONT_5X8;

fn fill<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
) -> Result<(), D::Error> {
    Rectangle::new(
        Point::new(x, y),
        Size::new(width.max(0) as u32, height.max(0) as u32),
    )
    .into_styled(PrimitiveStyle::with_fill(BinaryColor::On))
    .draw(target)
}

/// The players' names where the clock screen has them, so a player finds
/// his side in the same corner on every screen, and `title` between them.
fn draw_header<D: DrawTarget<Color = BinaryColor>>(
    view: &View,
    title: &str,
    title_font: &'static MonoFont<'static>,
    target: &mut D,
) -> Result<(), D::Error> {
    let [left, right] = view.sides();
    text(
        target,
        view.language.side(left),
        Point::new(1, 0),
        SMALL,
        Alignment::Left,
        Baseline::Top,
        false,
    )?;
    text(
        target,
        view.language.side(right),
        Point::new(WIDTH - 1, 0),
        SMALL,
        Alignment::Right,
        Baseline::Top,
        false,
    )?;
    // Smaller fonts sit a pixel down, level with the names' capitals.
    let top = (SMALL.character_size.height as i32 - title_font.character_size.height as i32) / 2;
    text(
        target,
        title,
        Point::new(WIDTH / 2, top),
        title_font,
        Alignment::Center,
        Baseline::Top,
        false,
    )
}

/// A triangle 7 px wide and 4 px high with its top left at (`x`, `y`):
/// which way the selection moves.
fn draw_arrow<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    x: i32,
    y: i32,
    up: bool,
    color: BinaryColor,
) -> Result<(), D::Error> {
    for row in 0..ARROW_HEIGHT {
        let half_width = if up { row } else { ARROW_HEIGHT - 1 - row };
        Rectangle::new(
            Point::new(x + ARROW_HEIGHT - 1 - half_width, y + row),
            Size::new(2 * half_width as u32 + 1, 1),
        )
        .into_styled(PrimitiveStyle::with_fill(color))
        .draw(target)?;
    }
    Ok(())
}

const ARROW_HEIGHT: i32 = 4;
const ARROW_WIDTH: i32 = 2 * ARROW_HEIGHT - 1;

/// Preset rows on the setup screen: four, so the hint fits below.
const MENU_ROWS: usize = 4;
const MENU_ROW: i32 = 10;
const MENU_TOP: i32 = 13;
/// Where the presets' names start, clear of the selection's up arrow.
const MENU_TEXT_X: i32 = ARROW_WIDTH + 3;

/// The setup screen. The button mapping it hints at is the daemon's: the
/// adjust buttons move the selection (left up, right down), a draw button
/// swaps the sides, Black's lever starts White's clock.
fn draw_menu<D: DrawTarget<Color = BinaryColor>>(
    view: &View,
    presets: &[String],
    selected: usize,
    (title, footer): (&str, &str),
    target: &mut D,
) -> Result<(), D::Error> {
    draw_header(view, title, HINT, target)?;
    fill(target, 0, 11, WIDTH, 1)?;
    let first = selected.saturating_sub(MENU_ROWS - 1);
    for (row, (i, preset)) in presets
        .iter()
        .enumerate()
        .skip(first)
        .take(MENU_ROWS)
        .enumerate()
    {
        let y = MENU_TOP + row as i32 * MENU_ROW;
        let chosen = i == selected;
        if chosen {
            fill(target, 0, y, WIDTH, MENU_ROW)?;
            // The left adjust button moves up, the right one down.
            draw_arrow(target, 1, y + 2, true, BinaryColor::Off)?;
            draw_arrow(
                target,
                WIDTH - 1 - ARROW_WIDTH,
                y + 2,
                false,
                BinaryColor::Off,
            )?;
        }
        let (s, f) = fit_line(preset, WIDTH - 2 * MENU_TEXT_X, view.language);
        let top = y + (MENU_ROW - f.character_size.height as i32) / 2;
        text(
            target,
            &s,
            Point::new(MENU_TEXT_X, top),
            f,
            Alignment::Left,
            Baseline::Top,
            chosen,
        )?;
    }
    text(
        target,
        footer,
        Point::new(WIDTH / 2, HEIGHT - SMALL.character_size.height as i32),
        SMALL,
        Alignment::Center,
        Baseline::Top,
        false,
    )
}

/// A time split as the arbiter corrects it: `h:mm` (the minutes field) and
/// `ss` (the seconds), rounded down like the clock.
fn minutes_and_seconds(ms: u64) -> (String, String) {
    let s = ms / 1000;
    (
        format!("{}:{:02}", s / 3600, s / 60 % 60),
        format!("{:02}", s % 60),
    )
}

/// Draws `s` from (`x`, `top`), inverted with a pixel's margin when
/// `selected`, and returns where the next text starts.
fn draw_segment<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    s: &str,
    x: i32,
    top: i32,
    font: &'static MonoFont<'static>,
    selected: bool,
) -> Result<i32, D::Error> {
    let width = text_width(font, s);
    if selected {
        fill(
            target,
            x - 1,
            top,
            width + 2,
            font.character_size.height as i32,
        )?;
    }
    text(
        target,
        s,
        Point::new(x, top),
        font,
        Alignment::Left,
        Baseline::Top,
        selected,
    )?;
    Ok(x + width)
}

const CORRECTION_TIME_TOP: i32 = 12;
const CORRECTION_MOVES_TOP: i32 = 26;
const CORRECTION_END_TOP: i32 = 37;
/// The two hint lines, in [`HINT`], fill the bottom 16 rows.
const CORRECTION_HINT_TOP: i32 = HEIGHT - 16;

/// The arbiter's correction screen: per side, in its half, the time and the
/// moves completed; then "End game" and the buttons' hint.
fn draw_correction<D: DrawTarget<Color = BinaryColor>>(
    view: &View,
    field: Field,
    target: &mut D,
) -> Result<(), D::Error> {
    let half = WIDTH / 2;
    draw_header(view, view.language.face().arbiter, SMALL, target)?;
    let sides = view.sides();
    let times = sides.map(|side| minutes_and_seconds(view.time(side)));
    let width = |font: &MonoFont, (m, s): &(String, String)| {
        text_width(font, m) + text_width(font, ":") + text_width(font, s)
    };
    // The largest font in which both times fit their halves with a margin.
    let time_fonts: [&'static MonoFont<'static>; 4] = [
        &ascii::FONT_8X13_BOLD,
        &ascii::FONT_7X13_BOLD,
        SMALL,
        &iso_8859_1::FONT_4X6,
    ];
    let time_font = time_fonts
        .into_iter()
        .find(|&font| times.iter().all(|t| width(font, t) <= half - 4))
        .unwrap_or(&iso_8859_1::FONT_4X6);

    for (i, side) in sides.into_iter().enumerate() {
        let left = i as i32 * half;
        let (minutes, seconds, moves) = match side {
            Color::White => (Field::WhiteMinutes, Field::WhiteSeconds, Field::WhiteMoves),
            Color::Black => (Field::BlackMinutes, Field::BlackSeconds, Field::BlackMoves),
        };
        let time = &times[i];
        let x = left + (half - width(time_font, time)) / 2;
        let x = draw_segment(
            target,
            &time.0,
            x,
            CORRECTION_TIME_TOP,
            time_font,
            field == minutes,
        )?;
        let x = draw_segment(target, ":", x, CORRECTION_TIME_TOP, time_font, false)?;
        draw_segment(
            target,
            &time.1,
            x,
            CORRECTION_TIME_TOP,
            time_font,
            field == seconds,
        )?;

        // "Moves 41", or the bare count when a huge one leaves no room.
        let count = view.moves(side).to_string();
        let (label, font) = [view.language.face().moves, ""]
            .into_iter()
            .flat_map(|label| LINE_FONTS.map(|font| (label, font)))
            .find(|&(label, font)| text_width(font, label) + text_width(font, &count) <= half - 4)
            .unwrap_or(("", LINE_FONTS[LINE_FONTS.len() - 1]));
        let x = left + (half - text_width(font, label) - text_width(font, &count)) / 2;
        let x = draw_segment(target, label, x, CORRECTION_MOVES_TOP, font, false)?;
        draw_segment(
            target,
            &count,
            x,
            CORRECTION_MOVES_TOP,
            font,
            field == moves,
        )?;
    }

    // The arbiter's acts share the line: the selected one by name, or what
    // the panel says about it (the result proposed, the act done).
    let end = match field {
        Field::Waive | Field::TakeBack | Field::Adjudicate => view
            .alert
            .as_deref()
            .unwrap_or(field.label_in(view.language)),
        _ => Field::EndGame.label_in(view.language),
    };
    draw_segment(
        target,
        end,
        (WIDTH - text_width(SMALL, end)) / 2,
        CORRECTION_END_TOP,
        SMALL,
        matches!(
            field,
            Field::EndGame | Field::Waive | Field::TakeBack | Field::Adjudicate
        ),
    )?;

    // Left to right as the buttons sit: the left one steps back or takes
    // one off, the right one steps on or adds one.
    for (row, hint) in view
        .language
        .face()
        .correction_hints
        .into_iter()
        .enumerate()
    {
        text(
            target,
            hint,
            Point::new(
                WIDTH / 2,
                CORRECTION_HINT_TOP + row as i32 * HINT.character_size.height as i32,
            ),
            HINT,
            Alignment::Center,
            Baseline::Top,
            false,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_text_boundaries() {
        assert_eq!(clock_text(0), "0.0");
        assert_eq!(clock_text(99), "0.0");
        assert_eq!(clock_text(100), "0.1");
        assert_eq!(clock_text(19_900), "19.9");
        assert_eq!(clock_text(19_999), "19.9");
        assert_eq!(clock_text(20_000), "0:20");
        assert_eq!(clock_text(59_999), "0:59");
        assert_eq!(clock_text(60_000), "1:00");
        assert_eq!(clock_text(3_599_999), "59:59");
        assert_eq!(clock_text(3_599_000), "59:59");
        assert_eq!(clock_text(3_600_000), "1:00:00");
        assert_eq!(clock_text(5_400_000), "1:30:00");
        assert_eq!(clock_text(36_000_000), "10:00:00");
    }

    #[test]
    fn the_correction_splits_times_into_minutes_and_seconds() {
        assert_eq!(
            minutes_and_seconds(7_199_999),
            ("1:59".to_owned(), "59".to_owned())
        );
        assert_eq!(
            minutes_and_seconds(9_999),
            ("0:00".to_owned(), "09".to_owned())
        );
        assert_eq!(
            minutes_and_seconds(36_000_000),
            ("10:00".to_owned(), "00".to_owned())
        );
    }

    #[test]
    fn views_out_of_range_still_draw() {
        let huge = View {
            white_ms: u64::MAX,
            black_ms: u64::MAX,
            white_moves: u32::MAX,
            black_moves: u32::MAX,
            ..View::default()
        };
        for screen in [
            Screen::Correction {
                field: Field::BlackMoves,
            },
            Screen::TimeControlMenu {
                presets: vec!["Blitz 3+2".into()],
                selected: 7,
            },
            Screen::TimeControlMenu {
                presets: Vec::new(),
                selected: 0,
            },
            Screen::TimeControlEditor {
                rows: vec![EditorRow::Mode(0), EditorRow::Time(120)],
                selected: 9,
            },
        ] {
            let frame = render(&View {
                screen,
                ..huge.clone()
            });
            // The names are drawn whatever else does not fit.
            assert!((0..WIDTH).any(|x| (0..10).any(|y| frame.pixel(x, y))));
        }
        // A 10-digit count drops its label rather than shrink to the
        // smallest font: its digits still reach the 6 x 10 font's lower
        // rows, and stay in their half.
        let frame = render(&View {
            screen: Screen::Correction {
                field: Field::EndGame,
            },
            white_moves: u32::MAX,
            ..View::default()
        });
        let lit = |xs: core::ops::Range<i32>, ys: core::ops::Range<i32>| {
            xs.clone().any(|x| ys.clone().any(|y| frame.pixel(x, y)))
        };
        assert!(lit(0..WIDTH / 2, 32..35));
        assert!(!lit(WIDTH / 2 - 1..WIDTH / 2 + 1, 26..36));
    }

    #[test]
    fn the_status_row_says_when_games_are_not_saved() {
        let view = View {
            white_ms: 60_000,
            black_ms: 60_000,
            ..View::default()
        };
        let plain = render(&view);
        let unsaved = render(&View {
            games_unsaved: true,
            ..view.clone()
        });
        let disconnected = render(&View {
            board_disconnected: true,
            ..view.clone()
        });
        let both = render(&View {
            board_disconnected: true,
            games_unsaved: true,
            ..view
        });
        assert_ne!(unsaved, plain);
        assert_ne!(unsaved, disconnected);
        // A board that does not answer is the more urgent news.
        assert_eq!(both, disconnected);
    }

    #[test]
    fn displayed_times_round_down_to_what_the_face_shows() {
        for ms in [
            0, 99, 100, 19_999, 20_000, 20_999, 59_999, 3_600_000, 3_600_999,
        ] {
            assert_eq!(clock_text(displayed_ms(ms)), clock_text(ms), "{ms}");
        }
        assert_eq!(displayed_ms(19_999), 19_900);
        assert_eq!(displayed_ms(20_999), 20_000);
        assert_eq!(displayed_ms(99), 0);
    }

    #[test]
    fn the_running_marker_is_one_page_and_sent_first() {
        let view = View {
            running: Some(Color::Black),
            white_ms: 60_000,
            black_ms: 60_000,
            ..View::default()
        };
        let order = urgent(&view);
        // Black runs on the right: its marker first, then White's.
        assert_eq!(order[0], marker(1));
        assert_eq!(order[1], marker(0));
        for m in [marker(0), marker(1)] {
            assert_eq!(crate::frame::pages_of(&m).len(), 1);
            assert_eq!(crate::frame::columns_of(&m).len(), MARKER_WIDTH as usize);
        }
        let frame = render(&view);
        let lit = |r: Rectangle| r.points().all(|p| frame.pixel(p.x, p.y));
        assert!(lit(marker(1)) && !marker(0).points().any(|p| frame.pixel(p.x, p.y)));
        // The marker's page holds nothing else of the running clock's
        // half below the digits: the rows between are dark.
        assert!((0..WIDTH).all(|x| !frame.pixel(x, MARKER_TOP - 1)));
        assert!(
            urgent(&View {
                screen: Screen::TimeControlMenu {
                    presets: Vec::new(),
                    selected: 0
                },
                ..View::default()
            })
            .is_empty()
        );
    }

    #[test]
    fn long_lines_are_cut_to_fit() {
        let (s, f) = fit_line("Touch-move: move the g1 knight", WIDTH, Language::English);
        assert_eq!(
            (s.as_str(), f.character_size.width),
            ("Touch-move: g1 knight", 6)
        );
        let (s, f) = fit_line("Illegal move: Black +2:00", WIDTH, Language::English);
        assert_eq!(
            (s.as_str(), f.character_size.width),
            ("Illegal move: Black +2:00", 5)
        );
        let (s, f) = fit_line(&"x".repeat(50), WIDTH, Language::English);
        assert!(text_width(f, &s) <= WIDTH && s.ends_with('~'));
    }

    #[test]
    fn a_long_alert_takes_two_lines_rather_than_being_cut() {
        let (lines, f) = fit_alert(
            "Only the player having the move may adjust pieces",
            Language::English,
        );
        assert_eq!(lines, ["Only player having move may", "adjust pieces"]);
        assert!(lines.iter().all(|l| text_width(f, l) <= WIDTH));
        // What fits on one line stays on one, in the largest font it fits.
        let (lines, f) = fit_alert("Only Black may adjust", Language::English);
        assert_eq!((lines.len(), f.character_size.width), (1, 6));
        // Too long even for two lines: the second is cut, and says so.
        let (lines, _) = fit_alert(&"word ".repeat(20), Language::English);
        assert_eq!(lines.len(), 2);
        assert!(lines[1].ends_with('~'), "{lines:?}");
    }
}
