//! The simulator's screen, laid out from what it shows: the OLED as the
//! Pi's face, the board, the simulated hardware's state, the log of
//! decisions, the keys, and the command line. A pure function of
//! [`SimScreen`], so tests render it on ratatui's test backend.
//!
//! ```text
//! ┌ OLED 128×64 ───────────────────┐┌ Board ─────────────┐
//! │ the face, a character per two  ││ 8 r n b q k b n r  │
//! │ pixels                         │└────────────────────┘
//! │                                │┌ Clock ─────────────┐
//! │                                ││ Levers ← White ... │
//! └────────────────────────────────┘└────────────────────┘
//! ┌ Log ───────────────────────────────────────────────────┐
//! └────────────────────────────────────────────────────────┘
//!  keys
//!  the last error or note
//!  > command line
//! ```
//!
//! In a terminal too small for the face at one character per two pixels,
//! it is drawn in Braille, four times smaller; in one smaller still, the
//! screen says how large it needs to be.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color as Colour, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use shakmaty::{Board, Color, Piece, Position, Square};

use super::board::{self, LEGEND, SQUARE_SIZES};
use super::command::{self, HELP};
use super::log::{EntryKind, LogEntry};
use super::oled::Pixels;
use crate::daemon::ShownGame;
use crate::face::Language;
use crate::models::ssd1306::{HEIGHT, WIDTH};
use crate::words::Standing;

/// A line for the person at the keyboard: an error in red, or a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// One line of plain words.
    pub text: String,
    /// Whether it reports something that was refused.
    pub error: bool,
}

/// Everything the simulator's terminal shows (the clock's own screens
/// are [`crate::face::Screen`]).
#[derive(Debug, Clone, Copy)]
pub struct SimScreen<'a> {
    /// The OLED's pixels.
    pub pixels: &'a Pixels,
    /// The game as the daemon last showed it.
    pub snapshot: &'a ShownGame,
    /// The piece on each square of the board model, by square index.
    pub physical: &'a [Option<Piece>; 64],
    /// The latest log entries, oldest first (more than fit is fine).
    pub log: &'a [LogEntry],
    /// The buzzer sounds (or just did).
    pub buzzing: bool,
    /// What the hands are doing ("making e2e4"), if anything.
    pub hand: Option<&'a str>,
    /// The mover's lever is pressed after a typed move.
    pub auto_press: bool,
    /// The board's cable is out.
    pub unplugged: bool,
    /// What is typed so far.
    pub line: &'a str,
    /// The answer to the last command.
    pub message: Option<&'a Message>,
    /// The list of commands replaces the log.
    pub show_help: bool,
    /// What the DGT 3000 plugged into the DGT board shows, if one is:
    /// drawn in the buzzer's place (the clock beeps itself).
    pub dgt3000: Option<&'a str>,
}

/// The keys, on one line (English: the words of the other languages are
/// in [`crate::face::SimWords::keys`]).
pub const KEYS: &str = Language::English.sim().keys;

/// The keys on two lines, for a terminal narrower than [`KEYS`].
pub const KEYS_SPLIT: [&str; 2] = Language::English.sim().keys_split;

/// The keys in `language` as lines that fit `width` columns: one line
/// when they fit, else their two lines, each wrapped at words.
fn key_lines(width: u16, language: Language) -> Vec<String> {
    let width = usize::from(width.max(1));
    let words = language.sim();
    if words.keys.chars().count() <= width {
        return vec![words.keys.to_owned()];
    }
    words
        .keys_split
        .iter()
        .flat_map(|line| wrap(line, width))
        .collect()
}

/// `text` in lines of at most `width` characters, broken between words (a
/// word longer than a line is cut). What leads the text (spaces, or a
/// list's `▸ ` mark) stays, and its continuation lines are indented as far,
/// so that a wrapped item of a list still reads as one item.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let body = text
        .strip_prefix("▸ ")
        .unwrap_or_else(|| text.trim_start_matches(' '));
    let lead = &text[..text.len() - body.len()];
    let hang = " ".repeat(lead.chars().count());
    let mut lines = Vec::new();
    let mut line = lead.to_owned();
    let mut words = 0;
    for word in body.split(' ') {
        let needed = line.chars().count() + usize::from(words > 0) + word.chars().count();
        if words > 0 && needed > width {
            lines.push(std::mem::replace(&mut line, hang.clone()));
            words = 0;
        }
        if words > 0 {
            line.push(' ');
        }
        line.push_str(word);
        words += 1;
    }
    if words > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .map(|l| l.chars().take(width).collect())
        .collect()
}

/// Rows under the top panels: keys, message, command line.
const FOOTER: u16 = 3;
/// The smallest log worth showing: a border and two entries.
const MIN_LOG: u16 = 4;
/// The clock box: a border and its five lines.
const CLOCK_BOX: u16 = 7;

/// How the face is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FaceScale {
    /// A character per pixel across, per two pixels down.
    HalfBlocks,
    /// A character per two pixels across, per four down.
    Braille,
}

impl FaceScale {
    /// The face's box, border included.
    fn size(self) -> (u16, u16) {
        let (w, h) = (WIDTH as u16, HEIGHT as u16);
        match self {
            FaceScale::HalfBlocks => (w + 2, h / 2 + 2),
            FaceScale::Braille => (w / 2 + 2, h / 4 + 2),
        }
    }
}

/// The board's box for the smallest squares, border included.
fn small_board() -> (u16, u16) {
    let (w, h) = board::board_size(SQUARE_SIZES[SQUARE_SIZES.len() - 1]);
    (w + 2, h + 2)
}

/// The smallest terminal the screen fits in.
pub fn minimum_size() -> (u16, u16) {
    let (face_w, face_h) = FaceScale::Braille.size();
    let (board_w, board_h) = small_board();
    (
        face_w + board_w,
        face_h.max(board_h + CLOCK_BOX) + MIN_LOG + FOOTER,
    )
}

/// The largest face scale that fits in `area`, if any.
fn face_scale(area: Rect) -> Option<FaceScale> {
    let (board_w, board_h) = small_board();
    [FaceScale::HalfBlocks, FaceScale::Braille]
        .into_iter()
        .find(|scale| {
            let (w, h) = scale.size();
            area.width >= w + board_w
                && area.height >= h.max(board_h + CLOCK_BOX) + MIN_LOG + FOOTER
        })
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame<'_>, screen: &SimScreen<'_>) {
    let area = frame.area();
    let Some(scale) = face_scale(area) else {
        let (w, h) = minimum_size();
        let text = format!(
            "tocada sim needs a terminal of at least {w}×{h}; this one is {}×{}. \
             Enlarge it (or make the font smaller). Ctrl-C quits.",
            area.width, area.height
        );
        frame.render_widget(
            Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    };
    let (face_w, face_h) = scale.size();
    let (_, small_board_h) = small_board();
    let top_h = face_h.max(small_board_h + CLOCK_BOX);
    let keys_text = key_lines(area.width, screen.snapshot.view.language);
    let keys_h = u16::try_from(keys_text.len()).unwrap_or(1);
    let [top, log, keys, message, command] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Min(MIN_LOG.saturating_sub(keys_h - 1)),
        Constraint::Length(keys_h),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let [face, right] =
        Layout::horizontal([Constraint::Length(face_w), Constraint::Min(0)]).areas(top);
    draw_face(frame, screen.pixels, scale, face);
    let square = SQUARE_SIZES
        .into_iter()
        .find(|size| {
            let (w, h) = board::board_size(*size);
            w + 2 <= right.width && h + 2 + CLOCK_BOX <= right.height
        })
        .unwrap_or(SQUARE_SIZES[SQUARE_SIZES.len() - 1]);
    let (board_w, board_h) = board::board_size(square);
    let [board_area, clock_area] =
        Layout::vertical([Constraint::Length(board_h + 2), Constraint::Min(0)]).areas(right);
    // The board and the clock box share one width, so they line up.
    let width = (board_w + 2).min(right.width);
    draw_board(
        frame,
        screen,
        square,
        Rect {
            width,
            ..board_area
        },
    );
    draw_clock(
        frame,
        screen,
        Rect {
            width,
            ..clock_area
        },
    );
    // Braille is too fine to read the face's small print: its words, beside.
    let spare = right.width.saturating_sub(width);
    if scale == FaceScale::Braille && spare >= MIN_WORDS_WIDTH {
        draw_face_words(
            frame,
            &screen.snapshot.view,
            Rect {
                x: right.x + width,
                width: spare,
                ..right
            },
        );
    }
    if screen.show_help {
        // Too long for the log's place: over the panels too, so that no
        // command is cut off (Esc brings them back).
        // The commands, the note that their words are English, the border.
        let needed = u16::try_from(HELP.len())
            .unwrap_or(u16::MAX)
            .saturating_add(3);
        let place = if needed > log.height {
            let height = needed.min(top.height + log.height);
            Rect {
                y: log.bottom() - height,
                height,
                ..log
            }
        } else {
            log
        };
        frame.render_widget(ratatui::widgets::Clear, place);
        draw_help(frame, place, screen.snapshot.view.language);
    } else {
        draw_log(frame, screen.log, log, screen.snapshot.view.language);
    }
    frame.render_widget(
        Paragraph::new(keys_text.join("\n")).style(Style::new().fg(Colour::DarkGray)),
        keys,
    );
    if let Some(m) = screen.message {
        let style = if m.error {
            Style::new().fg(Colour::LightRed)
        } else {
            Style::new().fg(Colour::LightGreen)
        };
        frame.render_widget(Paragraph::new(m.text.as_str()).style(style), message);
    }
    let prompt = Line::from(vec![
        Span::styled("> ", Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(screen.line),
    ]);
    frame.render_widget(Paragraph::new(prompt), command);
    let typed = u16::try_from(screen.line.chars().count()).unwrap_or(u16::MAX);
    let x = command
        .x
        .saturating_add(2)
        .saturating_add(typed)
        .min(command.right().saturating_sub(1));
    frame.set_cursor_position((x, command.y));
}

/// The narrowest box worth giving the face's words: a border and 18
/// characters ("Only Black may adjust" wraps in two).
const MIN_WORDS_WIDTH: u16 = 20;

/// The face's texts as lines of plain words: what a terminal too small for
/// the face's pixels still lets one read.
pub fn face_words(view: &crate::face::View) -> Vec<String> {
    use crate::face::{Screen, clock_text};
    let words = view.language.face();
    let side_name = |side: Color| view.language.side(side);
    let mut lines = Vec::new();
    match &view.screen {
        Screen::Clock => {
            for side in view.sides() {
                let ms = match side {
                    Color::White => view.white_ms,
                    Color::Black => view.black_ms,
                };
                let mut line = format!("{:<6}{:>8}", side_name(side), clock_text(ms));
                if view.flag == Some(side) {
                    line.push(' ');
                    line.push_str(words.flag);
                } else if view.running == Some(side) {
                    line.push_str(" ◂");
                }
                lines.push(line);
            }
            if let Some(result) = &view.result {
                lines.push(result.clone());
            } else if view.board_disconnected {
                lines.push(words.board_disconnected.to_owned());
            } else {
                let mut status = vec![format!("{} {}", words.move_number, view.move_number)];
                if let Some(side) = view.draw_offer {
                    status.push(format!("½? {}", side_name(side)));
                }
                if view.paused {
                    status.push(words.paused.to_owned());
                }
                lines.push(status.join(" · "));
            }
            if view.games_unsaved && !view.board_disconnected {
                lines.push(words.games_not_saved.to_owned());
            }
        }
        Screen::TimeControlMenu { presets, selected } => {
            lines.push(view.language.sim().time_control.to_owned());
            for (i, preset) in presets.iter().enumerate() {
                let mark = if i == *selected { "▸ " } else { "  " };
                lines.push(format!("{mark}{preset}"));
            }
        }
        Screen::TimeControlEditor { rows, selected } => {
            lines.push(view.language.sim().editor_title.to_owned());
            for (i, row) in rows.iter().enumerate() {
                let mark = if i == *selected { "▸ " } else { "  " };
                lines.push(format!("{mark}{}", row.text_in(view.language)));
            }
        }
        Screen::Correction { field } => {
            lines.push(format!("{} {}", words.white, clock_text(view.white_ms)));
            lines.push(format!("{} {}", words.black, clock_text(view.black_ms)));
            lines.push(format!(
                "{}{} / {}",
                words.moves, view.white_moves, view.black_moves
            ));
            lines.push(format!("▸ {}", field.label_in(view.language)));
        }
    }
    if let Some(alert) = &view.alert {
        lines.push(alert.clone());
    }
    lines
}

fn draw_face_words(frame: &mut Frame<'_>, view: &crate::face::View, area: Rect) {
    let width = usize::from(area.width.saturating_sub(2));
    let lines: Vec<Line> = face_words(view)
        .iter()
        .flat_map(|line| wrap(line, width))
        .map(Line::from)
        .collect();
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(format!(" {} ", view.language.sim().boxes[1]))),
        area,
    );
}

fn draw_face(frame: &mut Frame<'_>, pixels: &Pixels, scale: FaceScale, area: Rect) {
    let lit = Style::new()
        .fg(Colour::Rgb(0xd8, 0xf0, 0xff))
        .bg(Colour::Black);
    let block = Block::bordered().title(" OLED 128×64 ").style(lit);
    let rows = match scale {
        FaceScale::HalfBlocks => pixels.half_blocks(),
        FaceScale::Braille => pixels.braille(),
    };
    let lines: Vec<Line<'_>> = rows.into_iter().map(Line::from).collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_board(frame: &mut Frame<'_>, screen: &SimScreen<'_>, square: (u16, u16), area: Rect) {
    // Before a game the pieces are set up for one: the start position is
    // what the board should show.
    let start = Board::default();
    let view = &screen.snapshot.view;
    let (expected, title) = match screen.snapshot.position.as_ref() {
        Some(position) => {
            let turn = position.turn();
            let standing = match screen.snapshot.ticking {
                _ if view.result.is_some() => Standing::GameOver,
                _ if view.paused => Standing::ToMovePaused(turn),
                // A move made on the board and not yet completed: the
                // position has it, the clock still runs for its maker.
                Some(running) if running != turn => Standing::MovedNotPressed(running),
                _ => Standing::ToMove(turn),
            };
            (position.board(), standing.text(view.language))
        }
        None => (&start, Standing::SetUp.text(view.language)),
    };
    // The box may be as narrow as the smallest board: the state alone then.
    let full = format!(" {} · {title} ", view.language.sim().boxes[0]);
    let title = if full.chars().count() + 2 <= usize::from(area.width) {
        full
    } else {
        format!(" {title} ")
    };
    let lines = board::lines(expected, |sq: Square| screen.physical[sq as usize], square);
    let block = Block::bordered()
        .title(title)
        .title_bottom(format!(" {LEGEND} "));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_clock(frame: &mut Frame<'_>, screen: &SimScreen<'_>, area: Rect) {
    let view = &screen.snapshot.view;
    let [left, right] = view.sides();
    let words = view.language.sim();
    // Eight columns: the values line up after the longest label.
    let label = |i: usize| {
        Span::styled(
            format!("{:<8}", words.labels[i]),
            Style::new().fg(Colour::DarkGray),
        )
    };
    let buzzer = if screen.buzzing {
        Span::styled(
            " BEEP ",
            Style::new()
                .fg(Colour::Black)
                .bg(Colour::LightRed)
                .add_modifier(Modifier::BOLD),
        )
    } else {
        Span::raw(words.quiet)
    };
    let board = if screen.unplugged {
        Span::styled(words.cable_out, Style::new().fg(Colour::LightRed))
    } else if view.board_disconnected {
        Span::styled(words.not_answering, Style::new().fg(Colour::LightRed))
    } else {
        Span::raw(words.connected)
    };
    let hands = match screen.hand {
        Some(what) => Span::styled(what, Style::new().fg(Colour::Yellow)),
        None => Span::raw(words.free),
    };
    // 18 characters at most: the box is as narrow as the smallest board.
    let auto = words.auto[usize::from(!screen.auto_press)];
    let lines = vec![
        Line::from(vec![
            label(0),
            Span::raw(format!(
                "← {}  {} →",
                view.language.side(left),
                view.language.side(right)
            )),
        ]),
        match screen.dgt3000 {
            Some(display) => Line::from(vec![
                Span::styled("DGT3000 ", Style::new().fg(Colour::DarkGray)),
                Span::styled(
                    format!("[{display}]"),
                    Style::new().fg(Colour::Black).bg(Colour::Gray),
                ),
                if screen.buzzing {
                    Span::styled(" ♪", Style::new().fg(Colour::LightRed))
                } else {
                    Span::raw("")
                },
            ]),
            None => Line::from(vec![label(1), buzzer]),
        },
        Line::from(vec![label(2), board]),
        Line::from(vec![label(3), hands]),
        Line::from(vec![label(4), Span::raw(auto)]),
    ];
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(words.clock_title)),
        area,
    );
}

fn draw_log(frame: &mut Frame<'_>, entries: &[LogEntry], area: Rect, language: Language) {
    let rows = usize::from(area.height.saturating_sub(2));
    let lines: Vec<Line<'_>> = entries
        .iter()
        .skip(entries.len().saturating_sub(rows))
        .map(|entry| {
            let style = match entry.kind {
                EntryKind::Move => Style::new(),
                EntryKind::Ruling => Style::new().fg(Colour::LightRed),
                EntryKind::Decision => Style::new().fg(Colour::LightCyan),
                EntryKind::Typed => Style::new().fg(Colour::DarkGray),
            };
            Line::styled(entry.text.as_str(), style)
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(format!(" {} ", language.sim().boxes[2]))),
        area,
    );
}

fn draw_help(frame: &mut Frame<'_>, area: Rect, language: Language) {
    let width = HELP.iter().map(|c| c.chars().count()).max().unwrap_or(0);
    let words = language.sim();
    let lines: Vec<Line<'_>> = std::iter::once(Line::styled(
        format!("  {}", words.help_note),
        Style::new().fg(Colour::DarkGray),
    ))
    .chain(command::help(language).map(|(command, what)| {
        Line::from(vec![
            Span::styled(
                format!("  {command:<width$}  "),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::raw(what),
        ])
    }))
    .collect();
    let block = Block::bordered().title(words.help_title);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use shakmaty::Chess;

    use super::*;
    use crate::face::View;

    fn start_pieces() -> [Option<Piece>; 64] {
        let board = Board::default();
        std::array::from_fn(|i| board.piece_at(Square::new(i as u32)))
    }

    /// The screen as text, a line per row.
    fn render(width: u16, height: u16, screen: &SimScreen<'_>) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|frame| draw(frame, screen)).unwrap();
        let buffer = terminal.backend().buffer();
        (0..height)
            .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
            .collect()
    }

    fn screen<'a>(
        pixels: &'a Pixels,
        snapshot: &'a ShownGame,
        physical: &'a [Option<Piece>; 64],
        log: &'a [LogEntry],
    ) -> SimScreen<'a> {
        SimScreen {
            pixels,
            snapshot,
            physical,
            log,
            buzzing: false,
            hand: None,
            auto_press: true,
            unplugged: false,
            line: "",
            message: None,
            show_help: false,
            dgt3000: None,
        }
    }

    #[test]
    fn a_wrapped_list_item_keeps_its_indent_and_hangs_under_itself() {
        assert_eq!(
            wrap("  classical 40/5400+30:1800+30", 16),
            ["  classical", "  40/5400+30:180"]
        );
        assert_eq!(
            wrap("▸ rapid 900+10 and more", 14),
            ["▸ rapid 900+10", "  and more"]
        );
        assert_eq!(
            wrap("Black's lever starts", 12),
            ["Black's", "lever starts"]
        );
        assert_eq!(wrap("", 5), [""]);
    }

    #[test]
    fn the_face_is_drawn_at_two_pixels_a_cell_when_it_fits() {
        // A lit frame around the panel's edge.
        let pixels = Pixels::from_fn(|x, y| x == 0 || x == 127 || y == 0 || y == 63);
        let snapshot = ShownGame::default();
        let physical = start_pieces();
        let rows = render(200, 60, &screen(&pixels, &snapshot, &physical, &[]));
        assert!(rows[0].starts_with("┌ OLED 128×64 "), "{}", rows[0]);
        assert_eq!(rows[1].chars().nth(1), Some('█'));
        assert_eq!(rows[1].chars().nth(2), Some('▀'));
        assert_eq!(rows[1].chars().nth(128), Some('█'));
        assert_eq!(rows[32].chars().nth(5), Some('▄'));
        assert_eq!(rows[33].chars().next(), Some('└'));
    }

    #[test]
    fn the_dgt_3000s_display_is_drawn_in_the_clock_box() {
        let pixels = Pixels::default();
        let snapshot = ShownGame::default();
        let physical = start_pieces();
        let plain = render(200, 60, &screen(&pixels, &snapshot, &physical, &[]));
        assert!(plain.iter().any(|r| r.contains("Buzzer")));
        assert!(!plain.iter().any(|r| r.contains("DGT3000")));
        let with_clock = SimScreen {
            dgt3000: Some("4:59* 5:00 "),
            ..screen(&pixels, &snapshot, &physical, &[])
        };
        let rows = render(200, 60, &with_clock);
        assert!(
            rows.iter().any(|r| r.contains("DGT3000 [4:59* 5:00 ]")),
            "{rows:#?}"
        );
    }

    #[test]
    fn a_smaller_terminal_gets_the_face_in_braille_and_a_small_one_a_note() {
        let pixels = Pixels::from_fn(|_, _| true);
        let snapshot = ShownGame::default();
        let physical = start_pieces();
        let (w, h) = minimum_size();
        let rows = render(w, h, &screen(&pixels, &snapshot, &physical, &[]));
        assert_eq!(rows[1].chars().nth(1), Some('⣿'));
        assert!(rows.iter().any(|r| r.contains("8  r  n  b  q  k  b  n  r")));
        let rows = render(w - 1, h, &screen(&pixels, &snapshot, &physical, &[]));
        assert!(
            rows[0].starts_with("tocada sim needs a terminal of at least"),
            "{}",
            rows[0]
        );
    }

    #[test]
    fn the_board_shows_the_position_and_who_moves() {
        let pixels = Pixels::default();
        let position = Chess::default()
            .play(shakmaty::Move::Normal {
                role: shakmaty::Role::Pawn,
                from: Square::E2,
                capture: None,
                to: Square::E4,
                promotion: None,
            })
            .unwrap();
        let mut physical: [Option<Piece>; 64] =
            std::array::from_fn(|i| position.board().piece_at(Square::new(i as u32)));
        // Black has lifted his knight.
        physical[Square::G8 as usize] = None;
        let snapshot = ShownGame {
            position: Some(position),
            ticking: Some(Color::Black),
            view: View::default(),
            pgn: None,
        };
        let log = [LogEntry {
            kind: EntryKind::Move,
            text: "    0:03  1. e4".to_owned(),
        }];
        let mut shown = screen(&pixels, &snapshot, &physical, &log);
        let message = Message {
            text: "`x` is neither a command nor a move".to_owned(),
            error: true,
        };
        shown.message = Some(&message);
        shown.line = "Nf6";
        shown.buzzing = true;
        let rows = render(200, 60, &shown);
        let all = rows.join("\n");
        assert!(all.contains("Board · Black to move"), "{all}");
        assert!(all.contains("(n)"), "the lifted knight is marked");
        assert!(all.contains("1. e4"));
        assert!(all.contains("BEEP"));
        assert!(all.contains("← White  Black →"));
        assert!(rows[58].starts_with("`x` is neither"));
        assert!(rows[59].starts_with("> Nf6"));
        let e4_rank = rows.iter().find(|r| r.contains("│4 ")).unwrap();
        assert_eq!(e4_rank.matches('P').count(), 1, "{e4_rank}");
    }

    #[test]
    fn at_120_by_40_every_text_fits_and_the_face_is_also_in_words() {
        let pixels = Pixels::default();
        let position = Chess::default()
            .play(shakmaty::Move::Normal {
                role: shakmaty::Role::Pawn,
                from: Square::E2,
                capture: None,
                to: Square::E4,
                promotion: None,
            })
            .unwrap();
        let physical: [Option<Piece>; 64] =
            std::array::from_fn(|i| position.board().piece_at(Square::new(i as u32)));
        let snapshot = ShownGame {
            position: Some(position),
            // White has moved and not pressed.
            ticking: Some(Color::White),
            view: View {
                white_ms: 601_000,
                black_ms: 587_000,
                running: Some(Color::White),
                move_number: 1,
                draw_offer: Some(Color::Black),
                alert: Some("Only the player having the move may adjust pieces".to_owned()),
                ..View::default()
            },
            pgn: None,
        };
        let rows = render(120, 40, &screen(&pixels, &snapshot, &physical, &[]));
        let all = rows.join("\n");
        assert!(all.contains("┐┌ Face "), "{all}");
        for words in [
            "White moved, not pressed",
            "on: moves pressed",
            "White    10:01 ◂",
            "Move 1 · ½? Black",
            "Only the player having",
            "the move may adjust",
            "pieces",
            "Space lever of the running clock ([ ] levers) · F5 menu · Esc clear · Ctrl-C quit · help",
            "F1 left draw · F2 left adjust · F3 right adjust · F4 right draw",
        ] {
            assert!(all.contains(words), "{words}:\n{all}");
        }
        // No line runs off its box: each row ends with a border or blank.
        for row in &rows[..20] {
            assert!(row.trim_end().ends_with(['│', '┐', '┘']), "{row}");
        }
        for language in Language::ALL {
            let keys = key_lines(94, language);
            assert!(keys.iter().all(|l| l.chars().count() <= 94), "{keys:?}");
        }
        let spanish = key_lines(200, Language::Spanish).join(" ");
        assert!(spanish.contains("F2 compongo izq."), "{spanish}");
    }

    #[test]
    fn help_answers_and_the_clock_pane_are_in_the_players_language() {
        // The Clock pane's labels and states, a refused command's answer,
        // the help's note and one of its rows, as each language writes
        // them; and none of the English ones elsewhere.
        let cases = [
            (
                Language::English,
                ["Buzzer", "quiet", "on: moves pressed", "Board ·", " Log "],
                "`i9` is not a square",
                ["command words are English", "lift the piece on e2"],
            ),
            (
                Language::Spanish,
                [
                    "Zumbad.",
                    "callado",
                    "sí: se pulsa solo",
                    "Tablero ·",
                    " Registro ",
                ],
                "`i9` no es una casilla",
                ["van en inglés", "levantar la pieza de e2"],
            ),
            (
                Language::French,
                [
                    "Bipeur",
                    "muet",
                    "oui : coups pressés",
                    "Échiquier ·",
                    " Journal ",
                ],
                "`i9` n'est pas une case",
                ["restent en anglais", "lever la pièce de e2 et la tenir"],
            ),
            (
                Language::German,
                [
                    "Summer",
                    "still",
                    "an: Züge gedrückt",
                    "Brett ·",
                    " Protokoll ",
                ],
                "`i9` ist kein Feld",
                [
                    "bleiben in jeder Sprache englisch",
                    "die Figur auf e2 heben",
                ],
            ),
        ];
        let pixels = Pixels::default();
        let physical = start_pieces();
        for (language, clock, refused, help) in cases {
            let snapshot = ShownGame {
                view: View {
                    language,
                    ..View::default()
                },
                ..ShownGame::default()
            };
            let answer = Message {
                text: command::parse("place i9").unwrap_err().text_in(language),
                error: true,
            };
            let mut shown = screen(&pixels, &snapshot, &physical, &[]);
            shown.message = Some(&answer);
            let all = render(200, 60, &shown).join("\n");
            for text in clock.iter().chain([&refused]) {
                assert!(all.contains(text), "{language:?}: {text}\n{all}");
            }
            if language != Language::English {
                for english in ["Buzzer", "quiet", "moves pressed", "is not a square"] {
                    assert!(!all.contains(english), "{language:?}: {english}\n{all}");
                }
            }
            shown.show_help = true;
            let all = render(200, 60, &shown).join("\n");
            for text in help {
                assert!(all.contains(text), "{language:?}: {text}\n{all}");
            }
            // The command words themselves stay English.
            assert!(all.contains("promote q|r|b|n"), "{language:?}\n{all}");
        }
    }

    #[test]
    fn help_replaces_the_log() {
        let pixels = Pixels::default();
        let snapshot = ShownGame::default();
        let physical = start_pieces();
        let mut shown = screen(&pixels, &snapshot, &physical, &[]);
        shown.show_help = true;
        for (width, height) in [(200, 60), (120, 40)] {
            let all = render(width, height, &shown).join("\n");
            for command in HELP {
                assert!(all.contains(command), "{width}×{height}: {command}\n{all}");
            }
        }
    }
}
