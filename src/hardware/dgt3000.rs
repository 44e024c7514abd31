//! A DGT 3000 clock plugged into a DGT e-board: tocada's levers, buttons
//! and face, through the board's serial line.
//!
//! The host wraps each clock command in a `DGT_CLOCK_MESSAGE` (0x2b, a
//! size, 0x03, the command, its content, 0x00); the board passes it to the
//! clock and, in update mode (`DGT_SEND_UPDATE` or `DGT_SEND_UPDATE_NICE`),
//! sends back what the clock says in `DGT_MSG_BWTIME` messages (0x8d, ten
//! bytes): either the clock's **times** (each side's hours, minutes and
//! seconds, and a status byte: the lever's position, whose turn, no clock
//! connected) or an **ack**, four bytes spread over the seven (the
//! command acknowledged, the clock's version, a button pressed). The facts
//! and their sources are in `hardware/dgt.md`, "DGT 3000".
//!
//! Sans-IO, like the rest of the drivers' protocol code:
//! - [`ClockCommand::encode`] makes the host's bytes;
//! - [`decode_report`] reads one `BWTIME` message's seven data bytes;
//! - [`Dgt3000`] follows the clock: it turns reports into [`ClockEvent`]s
//!   (a lever went down, a button was pressed, the clock came or went),
//!   and what tocada wants shown ([`ClockShown`]) into the commands to
//!   send, one at a time, each after the previous one's ack (DGT: "you
//!   cannot send multiple clock commands directly after each other").
//!
//! tocada stays the only authority on time: the clock is told both times
//! and whose runs (`SETNRUN`) whenever what it should show changes (a
//! press, a correction, an increment, a pause, a resume), and again when
//! the whole seconds it reports stray from tocada's by more than its
//! rounding ([`Dgt3000::counters`]`.resets`).

use std::collections::VecDeque;

use crate::Millis;

/// The clock's bytes (DGT's board protocol description, `dgtbrd.h`).
pub mod wire {
    /// The host's command that carries a clock command.
    pub const CLOCK_MESSAGE: u8 = 0x2b;
    /// Opens a clock command, after its size.
    pub const START_MESSAGE: u8 = 0x03;
    /// Closes a clock command.
    pub const END_MESSAGE: u8 = 0x00;

    /// Back to the clock's times ("clears the message").
    pub const CMD_END: u8 = 0x03;
    /// The clock's version, answered in an ack.
    pub const CMD_VERSION: u8 = 0x09;
    /// Both times and who runs ("set and run").
    pub const CMD_SETNRUN: u8 = 0x0a;
    /// A beep of 64 ms units.
    pub const CMD_BEEP: u8 = 0x0b;
    /// Eight ASCII characters on the DGT 3000's display, and a beep.
    pub const CMD_ASCII: u8 = 0x0c;

    /// `SETNRUN`'s last byte: the left clock counts down.
    pub const RUN_LEFT: u8 = 0x01;
    /// The right clock counts down.
    pub const RUN_RIGHT: u8 = 0x02;
    /// Both clocks stand.
    pub const PAUSE: u8 = 0x04;

    /// The characters of a text: DGT's `DGT_CMD_CLOCK_ASCII` carries eight.
    pub const TEXT_LEN: usize = 8;
    /// The longest beep of a text (0..=15; 0 is none).
    pub const MAX_TEXT_BEEP: u8 = 15;

    /// The status byte: the clock runs.
    pub const STATUS_RUNNING: u8 = 0x01;
    /// The lever is high on the right player's side (so down on the left).
    pub const STATUS_RIGHT_HIGH: u8 = 0x02;
    /// The battery is low.
    pub const STATUS_BATTERY_LOW: u8 = 0x04;
    /// The right player's turn.
    pub const STATUS_RIGHT_TURN: u8 = 0x08;
    /// The left player's turn.
    pub const STATUS_LEFT_TURN: u8 = 0x10;
    /// No clock connected: the reading is invalid.
    pub const STATUS_NO_CLOCK: u8 = 0x20;

    /// An ack's first byte when all is well.
    pub const ACK_OK: u8 = 0x10;
    /// An ack's second byte: a button was pressed (auto-generated).
    pub const ACK_BUTTON: u8 = 0x88;

    /// The five buttons' codes in a button ack's fourth byte.
    pub const BUTTON_BACK: u8 = 0x31;
    /// "+".
    pub const BUTTON_PLUS: u8 = 0x32;
    /// The middle one: run/pause.
    pub const BUTTON_RUN: u8 = 0x33;
    /// "-".
    pub const BUTTON_MINUS: u8 = 0x34;
    /// The right one: OK (forward).
    pub const BUTTON_OK: u8 = 0x35;
}

/// A side of the clock, as the players face it from their chairs: the
/// clock stands between them, its left is the left player's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSide {
    /// The left player's side.
    Left,
    /// The right player's side.
    Right,
}

impl ClockSide {
    /// The other side.
    pub fn other(self) -> ClockSide {
        match self {
            ClockSide::Left => ClockSide::Right,
            ClockSide::Right => ClockSide::Left,
        }
    }
}

/// The DGT 3000's five buttons, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dgt3000Button {
    /// "<", back.
    Back,
    /// "-".
    Minus,
    /// The middle one, run/pause.
    Run,
    /// "+".
    Plus,
    /// ">", OK (forward).
    Ok,
}

impl Dgt3000Button {
    /// The five, left to right.
    pub const ALL: [Dgt3000Button; 5] = [
        Dgt3000Button::Back,
        Dgt3000Button::Minus,
        Dgt3000Button::Run,
        Dgt3000Button::Plus,
        Dgt3000Button::Ok,
    ];

    /// The button of a button ack's code, if it is one.
    pub fn from_code(code: u8) -> Option<Dgt3000Button> {
        Some(match code {
            wire::BUTTON_BACK => Dgt3000Button::Back,
            wire::BUTTON_MINUS => Dgt3000Button::Minus,
            wire::BUTTON_RUN => Dgt3000Button::Run,
            wire::BUTTON_PLUS => Dgt3000Button::Plus,
            wire::BUTTON_OK => Dgt3000Button::Ok,
            _ => return None,
        })
    }

    /// Its code in a button ack.
    pub fn code(self) -> u8 {
        match self {
            Dgt3000Button::Back => wire::BUTTON_BACK,
            Dgt3000Button::Minus => wire::BUTTON_MINUS,
            Dgt3000Button::Run => wire::BUTTON_RUN,
            Dgt3000Button::Plus => wire::BUTTON_PLUS,
            Dgt3000Button::Ok => wire::BUTTON_OK,
        }
    }
}

/// What the host tells the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockCommand {
    /// Both times, in whole seconds (at most 9:59:59), and whose clock
    /// counts down (`None`: both stand).
    SetAndRun {
        /// The left clock.
        left_s: u32,
        /// The right clock.
        right_s: u32,
        /// Whose clock runs.
        run: Option<ClockSide>,
    },
    /// Eight characters on the display instead of the times, with a beep
    /// (0 none, else 62.5 ms + value/16 s, up to 15).
    Text {
        /// The characters, space-padded.
        text: [u8; wire::TEXT_LEN],
        /// The beep.
        beep: u8,
    },
    /// Back to the times.
    EndText,
    /// A beep of `units` × 64 ms.
    Beep {
        /// How long.
        units: u8,
    },
    /// Asks the clock's version (its ack says the clock is there).
    Version,
}

/// The most a clock shows: 9:59:59.
pub const MAX_CLOCK_S: u32 = 10 * 3600 - 1;

impl ClockCommand {
    /// The clock command's id, which its ack names.
    pub fn id(&self) -> u8 {
        match self {
            ClockCommand::SetAndRun { .. } => wire::CMD_SETNRUN,
            ClockCommand::Text { .. } => wire::CMD_ASCII,
            ClockCommand::EndText => wire::CMD_END,
            ClockCommand::Beep { .. } => wire::CMD_BEEP,
            ClockCommand::Version => wire::CMD_VERSION,
        }
    }

    /// The host's bytes: `DGT_CLOCK_MESSAGE`, the size (the bytes after
    /// it), 0x03, the command, its content, 0x00.
    pub fn encode(&self) -> Vec<u8> {
        let mut content = Vec::with_capacity(10);
        match self {
            ClockCommand::SetAndRun {
                left_s,
                right_s,
                run,
            } => {
                for s in [*left_s, *right_s] {
                    let s = s.min(MAX_CLOCK_S);
                    // Plain binary values, as the hosts that drive real
                    // clocks send them (`hardware/dgt.md`).
                    content.extend_from_slice(&[
                        (s / 3600) as u8,
                        (s / 60 % 60) as u8,
                        (s % 60) as u8,
                    ]);
                }
                content.push(match run {
                    Some(ClockSide::Left) => wire::RUN_LEFT,
                    Some(ClockSide::Right) => wire::RUN_RIGHT,
                    None => wire::PAUSE,
                });
            }
            ClockCommand::Text { text, beep } => {
                content.extend(text.iter().map(|&c| c & 0x7f));
                content.push((*beep).min(wire::MAX_TEXT_BEEP));
            }
            ClockCommand::EndText | ClockCommand::Version => {}
            ClockCommand::Beep { units } => content.push(units & 0x7f),
        }
        let mut bytes = vec![
            wire::CLOCK_MESSAGE,
            (content.len() + 3) as u8,
            wire::START_MESSAGE,
            self.id(),
        ];
        bytes.extend_from_slice(&content);
        bytes.push(wire::END_MESSAGE);
        bytes
    }
}

/// One side's time as the clock reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockTime {
    /// Whole seconds left.
    pub seconds: u32,
    /// The flag has fallen (bits D4 or D6 of the hours byte).
    pub flag: bool,
}

/// What a `BWTIME` message says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockReport {
    /// The clock's times and its status byte.
    Times {
        /// The left clock.
        left: ClockTime,
        /// The right clock.
        right: ClockTime,
        /// The status byte (`wire::STATUS_*`).
        status: u8,
    },
    /// An ack, its four bytes put together as DGT describes.
    Ack([u8; 4]),
    /// All zeros: DGT's Bluetooth boards send one after a clock command,
    /// "to be ignored".
    Empty,
}

/// A `BWTIME` message whose content cannot be: a minute or second past 59,
/// a digit past 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadReport;

/// Reads a `BWTIME` message's seven data bytes (after its 3-byte header).
pub fn decode_report(data: &[u8; 7]) -> Result<ClockReport, BadReport> {
    if data.iter().all(|&b| b == 0) {
        return Ok(ClockReport::Empty);
    }
    if data[0] & 0x0f == 0x0a || data[3] & 0x0f == 0x0a {
        // DGT: ack0..ack3 from bytes 4, 5, 7, 8 (of the whole message),
        // their top bits from bytes 6 and 3.
        let ack0 = (data[1] & 0x7f) | ((data[3] << 3) & 0x80);
        let ack1 = (data[2] & 0x7f) | ((data[3] << 2) & 0x80);
        let ack2 = (data[4] & 0x7f) | ((data[0] << 3) & 0x80);
        let ack3 = (data[5] & 0x7f) | ((data[0] << 2) & 0x80);
        return Ok(ClockReport::Ack([ack0, ack1, ack2, ack3]));
    }
    let bcd = |b: u8| -> Result<u32, BadReport> {
        let (tens, units) = (b >> 4, b & 0x0f);
        if tens > 5 || units > 9 {
            return Err(BadReport);
        }
        Ok(u32::from(tens) * 10 + u32::from(units))
    };
    let time = |h: u8, m: u8, s: u8| -> Result<ClockTime, BadReport> {
        let hours = h & 0x0f;
        if hours > 9 {
            return Err(BadReport);
        }
        Ok(ClockTime {
            seconds: u32::from(hours) * 3600 + bcd(m)? * 60 + bcd(s)?,
            flag: h & 0x50 != 0,
        })
    };
    Ok(ClockReport::Times {
        right: time(data[0], data[1], data[2])?,
        left: time(data[3], data[4], data[5])?,
        status: data[6] & 0x7f,
    })
}

/// Encodes a times report as the board sends it (the model's side of
/// [`decode_report`]).
pub fn encode_times(left: ClockTime, right: ClockTime, status: u8) -> [u8; 7] {
    let side = |t: ClockTime| {
        let s = t.seconds.min(MAX_CLOCK_S);
        let bcd = |v: u32| (((v / 10) << 4) | (v % 10)) as u8;
        [
            (s / 3600) as u8 | if t.flag { 0x10 } else { 0 },
            bcd(s / 60 % 60),
            bcd(s % 60),
        ]
    };
    let (r, l) = (side(right), side(left));
    [r[0], r[1], r[2], l[0], l[1], l[2], status & 0x7f]
}

/// Encodes an ack as the board sends it: `ack` spread over seven bytes,
/// the low nibbles of the first and fourth 0x0a (the model's side).
pub fn encode_ack(ack: [u8; 4]) -> [u8; 7] {
    let [a0, a1, a2, a3] = ack;
    // Bytes 3 and 6 (of the message) carry the four top bits and the
    // marker 0x0a in their low nibble.
    let b3 = 0x0a | ((a2 >> 3) & 0x10) | ((a3 >> 2) & 0x20);
    let b6 = 0x0a | ((a0 >> 3) & 0x10) | ((a1 >> 2) & 0x20);
    [b3, a0 & 0x7f, a1 & 0x7f, b6, a2 & 0x7f, a3 & 0x7f, 0]
}

/// What the clock did, with when the board sent it (the driver's clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockEvent {
    /// The lever went down on this side: its player pressed.
    Lever {
        /// The side pressed.
        side: ClockSide,
        /// When the board sent the report that showed it.
        at: Millis,
    },
    /// A button was pressed.
    Button {
        /// Which.
        button: Dgt3000Button,
        /// When the board sent its ack.
        at: Millis,
    },
    /// The clock answers (again).
    Connected,
    /// The board says no clock is connected, or the clock stopped
    /// answering its commands.
    Disconnected,
}

/// What tocada wants the clock to show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClockShown {
    /// The left clock's time, ms.
    pub left_ms: u64,
    /// The right clock's.
    pub right_ms: u64,
    /// Whose clock runs.
    pub run: Option<ClockSide>,
    /// Text in place of the times (space-padded), with a beep (0: none).
    pub text: Option<([u8; wire::TEXT_LEN], u8)>,
}

/// What [`Dgt3000`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockCounters {
    /// Times reports read.
    pub reports: u64,
    /// Reports dropped: impossible content.
    pub bad_reports: u64,
    /// Acks read.
    pub acks: u64,
    /// Acks that said an error (the clock not in the mode the host needs).
    pub ack_errors: u64,
    /// Commands sent.
    pub sent: u64,
    /// Commands sent again after no ack came in time.
    pub resent: u64,
    /// Set-and-runs sent because the clock's seconds strayed from tocada's.
    pub resets: u64,
    /// Lever presses seen.
    pub levers: u64,
    /// Button presses seen.
    pub buttons: u64,
}

/// How long a command may go unacknowledged before it is sent again (DGT:
/// "the ack is usually returned within one or two seconds").
pub const ACK_TIMEOUT_MS: Millis = 2_000;
/// After this many commands unacknowledged in a row, the clock is taken
/// for gone.
pub const SILENT_COMMANDS: u32 = 3;
/// How far the clock's reported whole seconds may be from tocada's before
/// it is set again: its rounding second, and the time a report takes to
/// come (the board polls the clock a few times a second).
pub const DRIFT_TOLERANCE_MS: u64 = 1_500;
/// A times report this soon after a set-and-run was acknowledged may show
/// the clock before it (DGT: within a second of a command, "the clock is
/// polled only 2-3 times a second"): not compared.
pub const SETTLE_MS: Millis = 1_000;

/// What was last set on the clock: the times at an instant and who runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Set {
    left_ms: u64,
    right_ms: u64,
    run: Option<ClockSide>,
    at: Millis,
}

impl Set {
    /// Each side's time at `now`, had the clock run as set.
    fn at(&self, now: Millis) -> (u64, u64) {
        let gone = now.saturating_sub(self.at);
        match self.run {
            Some(ClockSide::Left) => (self.left_ms.saturating_sub(gone), self.right_ms),
            Some(ClockSide::Right) => (self.left_ms, self.right_ms.saturating_sub(gone)),
            None => (self.left_ms, self.right_ms),
        }
    }
}

/// A DGT 3000 as the host follows it, sans-IO: reports in, events and
/// commands out.
#[derive(Debug, Clone, Default)]
pub struct Dgt3000 {
    /// Whether the clock is there: `None` until a report says.
    present: Option<bool>,
    /// The side whose lever is down, once a report has said.
    lever: Option<ClockSide>,
    /// The clock's version, once its ack has come.
    version: Option<(u8, u8)>,
    events: VecDeque<ClockEvent>,
    counters: ClockCounters,
    /// What tocada wants shown, and when it said so.
    want: Option<(ClockShown, Millis)>,
    /// What was last set (sent) on the clock.
    set: Option<Set>,
    /// When the last set-and-run was acknowledged.
    set_acked: Option<Millis>,
    /// The text last sent (`None`: the times).
    text: Option<([u8; wire::TEXT_LEN], u8)>,
    /// The command waiting for its ack, and when it was sent.
    in_flight: Option<(ClockCommand, Millis)>,
    /// Commands sent in a row without an ack.
    unanswered: u32,
    /// A report strayed: set again at the next chance.
    drifted: bool,
    /// A version request is due (at set-up).
    ask_version: bool,
}

impl Dgt3000 {
    /// Nothing known yet; the clock's version will be asked.
    pub fn new() -> Dgt3000 {
        Dgt3000 {
            ask_version: true,
            ..Dgt3000::default()
        }
    }

    /// Whether the clock is there, as far as its reports tell.
    pub fn present(&self) -> Option<bool> {
        self.present
    }

    /// The side whose lever is down.
    pub fn lever(&self) -> Option<ClockSide> {
        self.lever
    }

    /// The clock's version (main, sub), once it answered.
    pub fn version(&self) -> Option<(u8, u8)> {
        self.version
    }

    /// What was counted.
    pub fn counters(&self) -> ClockCounters {
        self.counters
    }

    /// The text last sent, `None` when the times are shown.
    pub fn text(&self) -> Option<[u8; wire::TEXT_LEN]> {
        self.text.map(|(t, _)| t)
    }

    /// The clock was set up again (the line came back, the board reset):
    /// everything is sent afresh.
    pub fn reset(&mut self) {
        self.set = None;
        self.set_acked = None;
        self.text = None;
        self.in_flight = None;
        self.unanswered = 0;
        self.ask_version = true;
    }

    /// Takes the next event.
    pub fn next_event(&mut self) -> Option<ClockEvent> {
        self.events.pop_front()
    }

    /// A report of bad content was dropped.
    pub fn bad_report(&mut self) {
        self.counters.bad_reports += 1;
    }

    fn set_present(&mut self, present: bool) {
        if self.present != Some(present) {
            let was = self.present;
            self.present = Some(present);
            if present {
                self.events.push_back(ClockEvent::Connected);
            } else if was.is_some() {
                self.events.push_back(ClockEvent::Disconnected);
            }
            if !present {
                self.lever = None;
                // When it comes back it knows nothing of what was set.
                self.set = None;
                self.set_acked = None;
                self.text = None;
                self.in_flight = None;
            }
        }
    }

    /// A `BWTIME` message's data, which the board sent at `at`.
    pub fn report(&mut self, data: &[u8; 7], at: Millis) {
        match decode_report(data) {
            Err(BadReport) => self.counters.bad_reports += 1,
            Ok(ClockReport::Empty) => {}
            Ok(ClockReport::Ack(ack)) => self.ack(ack, at),
            Ok(ClockReport::Times {
                left,
                right,
                status,
            }) => {
                self.counters.reports += 1;
                if status & wire::STATUS_NO_CLOCK != 0 {
                    self.set_present(false);
                    return;
                }
                self.set_present(true);
                // Right side high: the left lever is down.
                let down = if status & wire::STATUS_RIGHT_HIGH != 0 {
                    ClockSide::Left
                } else {
                    ClockSide::Right
                };
                if self.lever.is_some_and(|was| was != down) {
                    self.counters.levers += 1;
                    self.events.push_back(ClockEvent::Lever { side: down, at });
                }
                self.lever = Some(down);
                self.compare(left.seconds, right.seconds, at);
            }
        }
    }

    /// Whether the reported seconds stray from what tocada wants shown.
    fn compare(&mut self, left_s: u32, right_s: u32, at: Millis) {
        let (Some((want, since)), Some(acked), None) =
            (&self.want, self.set_acked, &self.in_flight)
        else {
            return;
        };
        if at < acked + SETTLE_MS || self.text.is_some() {
            return;
        }
        let set = Set {
            left_ms: want.left_ms,
            right_ms: want.right_ms,
            run: want.run,
            at: *since,
        };
        let (left_ms, right_ms) = set.at(at);
        let off = |reported: u32, ms: u64| {
            u64::from(reported) * 1000 > ms + DRIFT_TOLERANCE_MS
                || u64::from(reported) * 1000 + DRIFT_TOLERANCE_MS < ms
        };
        if off(left_s, left_ms) || off(right_s, right_ms) {
            self.drifted = true;
        }
    }

    fn ack(&mut self, ack: [u8; 4], at: Millis) {
        self.counters.acks += 1;
        let [ack0, ack1, ack2, ack3] = ack;
        // Any ack, even a refusal, says the clock is there.
        self.set_present(true);
        self.unanswered = 0;
        if ack0 != wire::ACK_OK {
            self.counters.ack_errors += 1;
            if self.counters.ack_errors.is_power_of_two() {
                tracing::warn!(
                    "the DGT 3000 refused a command ({} so far): is it in the mode a \
                     computer drives (hardware/dgt.md, \"DGT 3000\")?",
                    self.counters.ack_errors
                );
            }
            // The command was refused: sent again after the timeout.
            return;
        }
        if ack1 == wire::ACK_BUTTON {
            if let Some(button) = Dgt3000Button::from_code(ack3) {
                self.counters.buttons += 1;
                self.events.push_back(ClockEvent::Button { button, at });
            }
            return;
        }
        if ack1 == wire::CMD_VERSION {
            self.version = Some((ack2 >> 4, ack2 & 0x0f));
        }
        if ack1 & 0x80 == 0
            && let Some((command, _)) = &self.in_flight
            && command.id() == ack1
        {
            if ack1 == wire::CMD_SETNRUN {
                self.set_acked = Some(at);
            }
            self.in_flight = None;
        }
    }

    /// What tocada wants the clock to show now (`now` on the driver's
    /// clock, the times as at `now`).
    pub fn show(&mut self, shown: ClockShown, now: Millis) {
        self.want = Some((shown, now));
    }

    /// The next command to send at `now`, if one is due: none while one
    /// waits for its ack (unless it timed out: then it again), else a
    /// set-and-run when who runs, or a time, differs from what was set
    /// (or the clock strayed), then the text.
    pub fn poll_command(&mut self, now: Millis) -> Option<Vec<u8>> {
        if let Some((command, sent)) = &self.in_flight {
            if now.saturating_sub(*sent) < ACK_TIMEOUT_MS {
                return None;
            }
            let command = command.clone();
            self.unanswered += 1;
            if self.unanswered >= SILENT_COMMANDS && self.present == Some(true) {
                self.unanswered = 0;
                self.set_present(false);
                return None;
            }
            self.counters.resent += 1;
            self.in_flight = Some((command.clone(), now));
            return Some(command.encode());
        }
        if self.present != Some(true) {
            // Nobody to tell yet: a version request finds out.
            if self.ask_version {
                self.ask_version = false;
                return Some(self.send(ClockCommand::Version, now));
            }
            return None;
        }
        let (want, since) = self.want.clone()?;
        let (left_ms, right_ms) = Set {
            left_ms: want.left_ms,
            right_ms: want.right_ms,
            run: want.run,
            at: since,
        }
        .at(now);
        let stale = match self.set {
            None => true,
            // Standing: what was sent is whole seconds, set again when
            // tocada's whole seconds are others (a clock tocada counts
            // otherwise than down, set at each of its seconds).
            Some(set) if want.run.is_none() => {
                set.run.is_some()
                    || set.left_ms / 1000 != left_ms / 1000
                    || set.right_ms / 1000 != right_ms / 1000
            }
            Some(set) => {
                let (l, r) = set.at(now);
                set.run != want.run || l.abs_diff(left_ms) >= 1_000 || r.abs_diff(right_ms) >= 1_000
            }
        };
        if stale || self.drifted {
            if self.drifted && !stale {
                self.counters.resets += 1;
            }
            self.drifted = false;
            self.set = Some(Set {
                left_ms,
                right_ms,
                run: want.run,
                at: now,
            });
            self.set_acked = None;
            // Whole seconds, rounded down as the face shows them.
            return Some(self.send(
                ClockCommand::SetAndRun {
                    left_s: (left_ms / 1000) as u32,
                    right_s: (right_ms / 1000) as u32,
                    run: want.run,
                },
                now,
            ));
        }
        if want.text != self.text {
            let command = match want.text {
                Some((text, beep)) => ClockCommand::Text { text, beep },
                None => ClockCommand::EndText,
            };
            self.text = want.text;
            return Some(self.send(command, now));
        }
        None
    }

    fn send(&mut self, command: ClockCommand, now: Millis) -> Vec<u8> {
        self.counters.sent += 1;
        let bytes = command.encode();
        self.in_flight = Some((command, now));
        bytes
    }
}

/// `text` as the clock's eight characters: ASCII only (others become
/// `?`), cut at eight, space-padded.
pub fn text_cells(text: &str) -> [u8; wire::TEXT_LEN] {
    let mut cells = [b' '; wire::TEXT_LEN];
    for (cell, c) in cells.iter_mut().zip(text.chars()) {
        *cell = if c.is_ascii() && !c.is_ascii_control() {
            c as u8
        } else {
            b'?'
        };
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_wrapped_as_dgt_describes() {
        assert_eq!(
            ClockCommand::SetAndRun {
                left_s: 5 * 60,
                right_s: 3600 + 2 * 60 + 7,
                run: Some(ClockSide::Right),
            }
            .encode(),
            [0x2b, 0x0a, 0x03, 0x0a, 0, 5, 0, 1, 2, 7, 0x02, 0x00]
        );
        assert_eq!(
            ClockCommand::SetAndRun {
                left_s: 1,
                right_s: 2,
                run: None
            }
            .encode()[10],
            wire::PAUSE
        );
        assert_eq!(
            ClockCommand::Text {
                text: text_cells("Nf3"),
                beep: 2
            }
            .encode(),
            [
                0x2b, 0x0c, 0x03, 0x0c, b'N', b'f', b'3', b' ', b' ', b' ', b' ', b' ', 2, 0x00
            ]
        );
        assert_eq!(
            ClockCommand::EndText.encode(),
            [0x2b, 0x03, 0x03, 0x03, 0x00]
        );
        assert_eq!(
            ClockCommand::Version.encode(),
            [0x2b, 0x03, 0x03, 0x09, 0x00]
        );
        assert_eq!(
            ClockCommand::Beep { units: 4 }.encode(),
            [0x2b, 0x04, 0x03, 0x0b, 4, 0x00]
        );
        // Ten hours and more are 9:59:59: no byte ever has its top bit.
        let far = ClockCommand::SetAndRun {
            left_s: 99_999,
            right_s: 0,
            run: None,
        }
        .encode();
        assert_eq!(&far[4..7], [9, 59, 59]);
        assert!(far.iter().skip(1).all(|b| b & 0x80 == 0));
    }

    #[test]
    fn times_and_acks_are_read_and_what_cannot_be_is_refused() {
        // Right 1:02:07 (its flag down), left 0:05:00, right side high.
        let data = [0x01, 0x02, 0x07, 0x00, 0x05, 0x00, 0x03];
        assert_eq!(
            decode_report(&data),
            Ok(ClockReport::Times {
                left: ClockTime {
                    seconds: 300,
                    flag: false
                },
                right: ClockTime {
                    seconds: 3727,
                    flag: false
                },
                status: 0x03
            })
        );
        let left = ClockTime {
            seconds: 59 * 60 + 59,
            flag: true,
        };
        let right = ClockTime {
            seconds: 9 * 3600,
            flag: false,
        };
        assert_eq!(
            decode_report(&encode_times(left, right, 0x11)),
            Ok(ClockReport::Times {
                left,
                right,
                status: 0x11
            })
        );
        // Minutes 0x60: no BCD minute; seconds 0x0b: no digit.
        assert_eq!(decode_report(&[0, 0x60, 0, 0, 0, 0, 0]), Err(BadReport));
        assert_eq!(decode_report(&[0, 0, 0x0b, 0, 0, 0, 0]), Err(BadReport));
        assert_eq!(decode_report(&[0; 7]), Ok(ClockReport::Empty));
        // Acks, their top bits carried in bytes 3 and 6.
        for ack in [
            [0x10, 0x88, 0x05, 0x31],
            [0x10, 0x09, 0x21, 0x00],
            [0x40, 0x0a, 0x00, 0x00],
            [0x10, 0x81, 0xff, 0xb5],
        ] {
            assert_eq!(decode_report(&encode_ack(ack)), Ok(ClockReport::Ack(ack)));
        }
        // picochess's button 0 as DGT's board sends it.
        assert_eq!(
            decode_report(&[0x0a, 0x10, 0x08, 0x0a | 0x20, 0x05, 0x31, 0]),
            Ok(ClockReport::Ack([0x10, 0x88, 0x05, 0x31]))
        );
    }

    fn times(left_s: u32, right_s: u32, status: u8) -> [u8; 7] {
        let t = |seconds| ClockTime {
            seconds,
            flag: false,
        };
        encode_times(t(left_s), t(right_s), status)
    }

    fn ack(id: u8) -> [u8; 7] {
        encode_ack([wire::ACK_OK, id, 0x21, 0])
    }

    #[test]
    fn the_lever_going_down_is_a_press_of_that_side_and_buttons_are_named() {
        let mut clock = Dgt3000::new();
        // The first report says where the lever is: no press.
        clock.report(&times(300, 300, wire::STATUS_RIGHT_HIGH), 100);
        assert_eq!(clock.next_event(), Some(ClockEvent::Connected));
        assert_eq!(clock.next_event(), None);
        assert_eq!(clock.lever(), Some(ClockSide::Left));
        // The right player presses: right side down, left high.
        clock.report(&times(300, 300, 0), 1_250);
        assert_eq!(
            clock.next_event(),
            Some(ClockEvent::Lever {
                side: ClockSide::Right,
                at: 1_250
            })
        );
        // The same position again is no press.
        clock.report(&times(299, 300, 0), 2_000);
        assert_eq!(clock.next_event(), None);
        clock.report(&encode_ack([0x10, 0x88, 0x05, 0x34]), 2_100);
        assert_eq!(
            clock.next_event(),
            Some(ClockEvent::Button {
                button: Dgt3000Button::Minus,
                at: 2_100
            })
        );
        // The board says the clock is gone, then it is back.
        clock.report(&times(0, 0, wire::STATUS_NO_CLOCK), 3_000);
        assert_eq!(clock.next_event(), Some(ClockEvent::Disconnected));
        assert_eq!(clock.lever(), None);
        clock.report(&times(300, 300, wire::STATUS_RIGHT_HIGH), 4_000);
        assert_eq!(clock.next_event(), Some(ClockEvent::Connected));
        assert_eq!(clock.next_event(), None, "no press from a replugged clock");
        // Impossible content is counted and dropped.
        clock.report(&[0, 0x7a, 0, 0, 0, 0, 0], 5_000);
        assert_eq!(clock.counters().bad_reports, 1);
        assert_eq!(clock.counters().levers, 1);
        for button in Dgt3000Button::ALL {
            assert_eq!(Dgt3000Button::from_code(button.code()), Some(button));
        }
    }

    #[test]
    fn tocada_sets_both_times_and_who_runs_one_command_at_a_time() {
        let mut clock = Dgt3000::new();
        // At first the clock's version is asked, to find it.
        assert_eq!(clock.poll_command(0), Some(ClockCommand::Version.encode()));
        assert_eq!(clock.poll_command(10), None, "waits for the ack");
        clock.report(&ack(wire::CMD_VERSION), 50);
        assert_eq!(clock.version(), Some((2, 1)));
        assert_eq!(clock.present(), Some(true));
        let shown = |left_ms, right_ms, run| ClockShown {
            left_ms,
            right_ms,
            run,
            text: None,
        };
        clock.show(shown(300_000, 300_000, Some(ClockSide::Left)), 100);
        assert_eq!(
            clock.poll_command(100),
            Some(
                ClockCommand::SetAndRun {
                    left_s: 300,
                    right_s: 300,
                    run: Some(ClockSide::Left)
                }
                .encode()
            )
        );
        // Nothing more while it runs as set, even as the seconds go.
        clock.report(&ack(wire::CMD_SETNRUN), 150);
        clock.show(shown(290_000, 300_000, Some(ClockSide::Left)), 10_100);
        assert_eq!(clock.poll_command(10_100), None);
        // A press: the right clock runs, with an increment on the left.
        clock.show(shown(292_000, 300_000, Some(ClockSide::Right)), 10_200);
        assert_eq!(
            clock.poll_command(10_200),
            Some(
                ClockCommand::SetAndRun {
                    left_s: 292,
                    right_s: 300,
                    run: Some(ClockSide::Right)
                }
                .encode()
            )
        );
        // A text waits for the set-and-run's ack; the ack lost, the
        // set-and-run goes again after the timeout.
        clock.show(
            ClockShown {
                text: Some((text_cells("Flag W"), 2)),
                ..shown(292_000, 300_000, Some(ClockSide::Right))
            },
            10_300,
        );
        assert_eq!(clock.poll_command(10_300), None);
        let again = clock.poll_command(10_200 + ACK_TIMEOUT_MS).unwrap();
        assert_eq!(again[3], wire::CMD_SETNRUN);
        assert_eq!(clock.counters().resent, 1);
        clock.report(&ack(wire::CMD_SETNRUN), 12_300);
        let text = clock.poll_command(12_300).unwrap();
        assert_eq!(&text[4..12], b"Flag W  ");
        assert_eq!(text[12], 2);
        clock.report(&ack(wire::CMD_ASCII), 12_400);
        assert_eq!(clock.text(), Some(*b"Flag W  "));
        clock.show(shown(292_000, 295_200, Some(ClockSide::Right)), 15_000);
        assert_eq!(
            clock.poll_command(15_000),
            Some(ClockCommand::EndText.encode())
        );
    }

    #[test]
    fn a_clock_whose_seconds_stray_is_set_again_and_counted() {
        let mut clock = Dgt3000::new();
        clock.report(&times(300, 300, 0), 0);
        let want = ClockShown {
            left_ms: 300_000,
            right_ms: 300_000,
            run: Some(ClockSide::Right),
            text: None,
        };
        clock.show(want.clone(), 0);
        assert!(clock.poll_command(0).is_some());
        clock.report(&ack(wire::CMD_SETNRUN), 20);
        // Right on time, and a rounding second off: nothing.
        clock.report(&times(300, 295, 0), 5_000);
        clock.report(&times(300, 294, 0), 5_400);
        assert_eq!(clock.poll_command(5_400), None);
        // Three seconds off (the clock was set by hand, or lost a command).
        clock.report(&times(300, 291, 0), 6_000);
        let set = clock.poll_command(6_000).unwrap();
        assert_eq!(
            set,
            ClockCommand::SetAndRun {
                left_s: 300,
                right_s: 294,
                run: Some(ClockSide::Right)
            }
            .encode()
        );
        assert_eq!(clock.counters().resets, 1);
    }

    #[test]
    fn a_clock_that_never_answers_is_taken_for_gone() {
        let mut clock = Dgt3000::new();
        clock.report(&times(60, 60, 0), 0);
        assert_eq!(clock.next_event(), Some(ClockEvent::Connected));
        clock.show(
            ClockShown {
                left_ms: 60_000,
                right_ms: 60_000,
                run: None,
                text: None,
            },
            0,
        );
        let mut now = 0;
        let mut sent = 0;
        while clock.present() == Some(true) && now < 60_000 {
            if clock.poll_command(now).is_some() {
                sent += 1;
            }
            now += 100;
        }
        assert_eq!(clock.present(), Some(false));
        assert_eq!(sent, SILENT_COMMANDS);
        assert_eq!(clock.next_event(), Some(ClockEvent::Disconnected));
    }

    #[test]
    fn a_clock_that_refuses_is_there_and_asked_again_later() {
        let mut clock = Dgt3000::new();
        clock.report(&times(60, 60, 0), 0);
        clock.show(
            ClockShown {
                left_ms: 60_000,
                right_ms: 60_000,
                run: Some(ClockSide::Left),
                text: None,
            },
            0,
        );
        assert!(clock.poll_command(0).is_some());
        for round in 1..=5 {
            // Not in the mode a host drives: an error ack.
            clock.report(&encode_ack([0x40, wire::CMD_SETNRUN, 0, 0]), round * 10);
            assert_eq!(clock.poll_command(round * 10 + 1), None, "not at once");
            let again = clock.poll_command(round * ACK_TIMEOUT_MS + 5).unwrap();
            assert_eq!(again[3], wire::CMD_SETNRUN);
        }
        assert_eq!(clock.present(), Some(true));
        assert_eq!(clock.counters().ack_errors, 5);
    }

    /// A line that hands out scripted chunks and keeps what was written.
    #[derive(Default)]
    struct Script {
        incoming: VecDeque<Vec<u8>>,
        written: Vec<u8>,
    }

    impl crate::hardware::serial::SerialPort for Script {
        type Error = ();
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
            let Some(chunk) = self.incoming.pop_front() else {
                return Ok(0);
            };
            buf[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
        fn write(&mut self, bytes: &[u8]) -> Result<(), ()> {
            self.written.extend_from_slice(bytes);
            Ok(())
        }
        fn reopen(&mut self) -> Result<(), ()> {
            Ok(())
        }
    }

    fn bwtime(data: [u8; 7]) -> Vec<u8> {
        let mut bytes = vec![0x8d, 0, 10];
        bytes.extend_from_slice(&data);
        bytes
    }

    #[test]
    fn the_board_driver_carries_the_clock_both_ways_byte_for_byte() {
        use std::cell::Cell;
        use std::rc::Rc;

        use crate::hardware::SensorBoard;
        use crate::hardware::dgt::{DgtBoard, wire as board};

        let time = Rc::new(Cell::new(0));
        let t = time.clone();
        let mut dgt = DgtBoard::new(Script::default(), Rc::new(move || t.get())).with_clock();
        let mut events = Vec::new();
        dgt.poll_stamped(&mut events).unwrap();
        // Set up in the update mode that reports the clock, then the
        // clock's version asked, to find it.
        let mut expected = vec![0x40, 0x45, 0x4d, 0x42, board::SEND_UPDATE_NICE];
        expected.extend_from_slice(&ClockCommand::Version.encode());
        assert_eq!(dgt.port().written, expected);
        assert!(!dgt.has_clock());
        let mut dump = vec![board::BOARD_DUMP, 0, 67];
        dump.extend_from_slice(&[0; 64]);
        dump[3 + 12] = 1;
        dgt.port_mut().incoming.push_back(dump);
        dgt.port_mut()
            .incoming
            .push_back(bwtime(encode_ack([0x10, 0x09, 0x21, 0])));
        dgt.port_mut()
            .incoming
            .push_back(bwtime(times(600, 600, wire::STATUS_RIGHT_HIGH)));
        time.set(100);
        dgt.poll_stamped(&mut events).unwrap();
        assert!(dgt.has_clock());
        assert_eq!(dgt.dgt3000().and_then(|c| c.version()), Some((2, 1)));
        let mut clock_events = Vec::new();
        dgt.clock_events(&mut clock_events);
        assert_eq!(clock_events, [ClockEvent::Connected]);
        // tocada's times go out at once.
        dgt.port_mut().written.clear();
        dgt.show_on_clock(ClockShown {
            left_ms: 600_000,
            right_ms: 600_000,
            run: Some(ClockSide::Left),
            text: None,
        });
        assert_eq!(
            dgt.port().written,
            [0x2b, 0x0a, 0x03, 0x0a, 0, 10, 0, 0, 10, 0, 0x01, 0x00]
        );
        // The ack, then the right player's press: the lever down on the
        // right, reported in a times message, stamped when it came.
        dgt.port_mut()
            .incoming
            .push_back(bwtime(encode_ack([0x10, 0x0a, 0, 0])));
        time.set(5_000);
        dgt.poll_stamped(&mut events).unwrap();
        dgt.port_mut()
            .incoming
            .push_back(bwtime(times(595, 600, 0)));
        time.set(5_020);
        dgt.poll_stamped(&mut events).unwrap();
        clock_events.clear();
        dgt.clock_events(&mut clock_events);
        assert!(
            matches!(
                clock_events[..],
                [ClockEvent::Lever {
                    side: ClockSide::Right,
                    at: 5_000..=5_020
                }]
            ),
            "{clock_events:?}"
        );
        // A button, and a times message that cannot be: counted, dropped,
        // and the board's own news goes on.
        dgt.port_mut()
            .incoming
            .push_back(bwtime(encode_ack([0x10, 0x88, 0x05, 0x33])));
        dgt.port_mut()
            .incoming
            .push_back(bwtime([0x01, 0x7f, 0x00, 0, 0, 0, 0]));
        dgt.port_mut()
            .incoming
            .push_back(vec![board::FIELD_UPDATE, 0, 5, 12, 0]);
        time.set(5_100);
        dgt.poll_stamped(&mut events).unwrap();
        clock_events.clear();
        dgt.clock_events(&mut clock_events);
        // Stamped when the board began to send it: the 25 bytes read at
        // 5.1 s came back to back, 26 ms of line.
        assert!(
            matches!(
                clock_events[..],
                [ClockEvent::Button {
                    button: Dgt3000Button::Run,
                    at: 5_070..=5_100
                }]
            ),
            "{clock_events:?}"
        );
        assert_eq!(dgt.dgt3000().map(|c| c.counters().bad_reports), Some(1));
        assert_eq!(events.len(), 1, "the board's lift still came: {events:?}");
        assert_eq!(dgt.counters().decode.total(), 0);
    }

    #[test]
    fn random_reports_never_panic() {
        let mut clock = Dgt3000::new();
        let mut state = 0x2545_f491_u32;
        for i in 0..50_000u32 {
            let mut data = [0u8; 7];
            for b in &mut data {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                *b = (state >> 9) as u8 & 0x7f;
            }
            clock.report(&data, Millis::from(i));
            let _ = clock.poll_command(Millis::from(i) * 10);
            while clock.next_event().is_some() {}
        }
        assert!(clock.counters().bad_reports > 0);
    }
}
