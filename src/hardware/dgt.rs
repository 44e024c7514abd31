//! DGT e-boards over USB: the boards chess clubs already own.
//!
//! A DGT board is a serial device (9600 baud, 8N1) that knows which piece
//! stands on each square. The host asks, in single bytes; the board
//! answers in messages of a three-byte header (the message id with its top
//! bit set, then the whole message's length in two 7-bit halves) and 7-bit
//! data. The driver, generic over a [`SerialPort`]:
//!
//! 1. resets the board, asks its serial number and version, a board dump
//!    (all 64 squares) and then *update mode* without the clock
//!    (`DGT_SEND_UPDATE_BRD`), in which the board sends a field update for
//!    every square whose piece changes;
//! 2. turns field updates into the referee's lifts and places: a square
//!    emptied is a lift, a square filled is a place with the piece the
//!    board names (so a promotion's new piece comes from the board);
//! 3. resynchronises from a fresh board dump whenever a message was lost
//!    (garbage on the line, a message cut short or with impossible
//!    content, a field update that cannot follow the squares it holds), at
//!    the link's occupancy reading (every 10 s) and after the line came
//!    back. After a fault it holds the field updates back until the dump
//!    comes, then hands on what was lost before them, then them, in the
//!    board's order and at the instants the board saw them; it never asks
//!    a dump while one is on its way, and says so meanwhile
//!    ([`SensorBoard::news_pending`]: a press waits for it). A press with
//!    more pieces in the air than at the last press asks a dump at once
//!    ([`SensorBoard::press_came`]): a move's last place lost on the line
//!    is not left to the safety net;
//! 4. stamps every change with when the board sent it, as well as the
//!    line's timing tells (a byte takes 1.04 ms at 9600 baud; a message
//!    queued behind others was seen before they were sent), on the clock
//!    it was given ([`SensorBoard::board_time`]).
//!
//! What it cannot see: a DGT board senses pieces, not hands. A touch that
//! does not lift is invisible, and so is an adjustment that leaves the piece
//! on its square (`hardware/dgt.md`, and the table of `docs/src/laws.md`).
//!
//! The protocol's facts are DGT's published description of the board's
//! serial protocol; where it is silent the assumptions are written in
//! `hardware/dgt.md` (square order, orientation, USB identity).

use std::rc::Rc;

use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::dgt3000::{ClockEvent, ClockShown, Dgt3000};
use super::serial::{SerialPort, byte_time_us};
use super::{BoardEvent, SensorBoard};
use crate::{Input, Millis};

/// The protocol's bytes (DGT's board protocol description).
pub mod wire {
    /// The line's speed: 9600 baud, 8 data bits, no parity, one stop bit.
    pub const BAUD: u32 = 9600;

    /// Puts the board in idle mode, ending any update mode. No answer.
    pub const SEND_RESET: u8 = 0x40;
    /// Asks for a board dump ([`BOARD_DUMP`]).
    pub const SEND_BRD: u8 = 0x42;
    /// Update mode, field updates and the clock's times.
    pub const SEND_UPDATE: u8 = 0x43;
    /// Update mode, field updates only (what tocada uses: it is the clock).
    pub const SEND_UPDATE_BRD: u8 = 0x44;
    /// Asks for the serial number ([`SERIALNR`]).
    pub const RETURN_SERIALNR: u8 = 0x45;
    /// Asks for the bus address ([`BUSADRES`]).
    pub const RETURN_BUSADRES: u8 = 0x46;
    /// Asks for the trademark text ([`TRADEMARK`]).
    pub const SEND_TRADEMARK: u8 = 0x47;
    /// Update mode that leaves out a piece put back where it was.
    pub const SEND_UPDATE_NICE: u8 = 0x4b;
    /// Asks for the firmware version ([`VERSION`]).
    pub const SEND_VERSION: u8 = 0x4d;

    /// Set on the first byte of every message from the board; clear on
    /// every other byte.
    pub const MESSAGE_BIT: u8 = 0x80;
    /// The 64 squares' pieces: 3 + 64 bytes.
    pub const BOARD_DUMP: u8 = MESSAGE_BIT | 0x06;
    /// The clock's times (update mode with the clock): 3 + 7 bytes.
    pub const BWTIME: u8 = MESSAGE_BIT | 0x0d;
    /// One square's new piece: 3 + 2 bytes (field, piece).
    pub const FIELD_UPDATE: u8 = MESSAGE_BIT | 0x0e;
    /// The moves kept in the board's memory: variable length.
    pub const EE_MOVES: u8 = MESSAGE_BIT | 0x0f;
    /// The bus address: 3 + 2 bytes.
    pub const BUSADRES: u8 = MESSAGE_BIT | 0x10;
    /// The serial number: 3 + 5 ASCII digits.
    pub const SERIALNR: u8 = MESSAGE_BIT | 0x11;
    /// The trademark text: variable length.
    pub const TRADEMARK: u8 = MESSAGE_BIT | 0x12;
    /// The firmware version: 3 + 2 bytes (major, minor).
    pub const VERSION: u8 = MESSAGE_BIT | 0x13;
    /// The long serial number: 3 + 10 ASCII characters.
    pub const LONG_SERIALNR: u8 = MESSAGE_BIT | 0x22;

    /// The length (header included) of each message whose length is fixed.
    pub const fn fixed_len(id: u8) -> Option<usize> {
        match id {
            BOARD_DUMP => Some(67),
            BWTIME => Some(10),
            FIELD_UPDATE => Some(5),
            BUSADRES => Some(5),
            SERIALNR => Some(8),
            VERSION => Some(5),
            LONG_SERIALNR => Some(13),
            _ => None,
        }
    }

    /// The longest message accepted (a board's memory of moves can be
    /// long; anything longer is noise).
    pub const MAX_LEN: usize = 1 << 14;

    /// An empty square.
    pub const EMPTY: u8 = 0;
    /// The piece codes 1 to 12: white pawn, rook, knight, bishop, king,
    /// queen, then black's in the same order.
    pub const WPAWN: u8 = 1;
    /// The highest code: 13 to 15 are DGT's special pieces (markers some
    /// boards sense): occupied, identity unknown.
    pub const MAX_PIECE: u8 = 15;
}

/// A DGT piece code as the referee's piece: `None` for an empty square or
/// one of the special pieces.
pub fn piece_of(code: u8) -> Option<Piece> {
    let (color, index) = match code {
        1..=6 => (Color::White, code - 1),
        7..=12 => (Color::Black, code - 7),
        _ => return None,
    };
    let role = [
        Role::Pawn,
        Role::Rook,
        Role::Knight,
        Role::Bishop,
        Role::King,
        Role::Queen,
    ][usize::from(index)];
    Some(Piece { color, role })
}

/// The DGT code of a piece.
pub fn code_of(piece: Piece) -> u8 {
    let index = match piece.role {
        Role::Pawn => 0,
        Role::Rook => 1,
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::King => 4,
        Role::Queen => 5,
    };
    match piece.color {
        Color::White => 1 + index,
        Color::Black => 7 + index,
    }
}

/// The square of a DGT field number (0..64): field 0 is a8 and the fields
/// run along the rank to h8, then a7.. h7, down to h1 = 63, with White at
/// the side of the board's printed 1-8 labels. `flipped` for a board turned
/// round (White at the 8 side).
pub fn square_of_field(field: u8, flipped: bool) -> Square {
    let (row, col) = (u32::from(field / 8), u32::from(field % 8));
    let index = (7 - row) * 8 + col;
    Square::new(if flipped { 63 - index } else { index })
}

/// The field number of a square, the inverse of [`square_of_field`].
pub fn field_of_square(sq: Square, flipped: bool) -> u8 {
    let index = if flipped {
        63 - u32::from(sq)
    } else {
        u32::from(sq)
    };
    ((7 - index / 8) * 8 + index % 8) as u8
}

/// One message from the board, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// The pieces of the 64 fields, in field order.
    BoardDump([u8; 64]),
    /// One field's new piece.
    FieldUpdate {
        /// The field, 0..64 (`square_of_field`).
        field: u8,
        /// Its piece code now.
        piece: u8,
    },
    /// The serial number's digits.
    SerialNr([u8; 5]),
    /// The firmware's version.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// A clock's report (`BWTIME`): its seven data bytes, read by
    /// [`Dgt3000`].
    ClockReport([u8; 7]),
    /// A well-framed message tocada has no use for (the board's memory,
    /// its trademark): skipped.
    Other(u8),
}

/// What the decoder dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeFaults {
    /// Bytes outside any message (noise, a message's tail after its start
    /// was lost), or headers no message has.
    pub garbage_bytes: u64,
    /// Messages cut short by the start of another, or left unfinished.
    pub truncated: u64,
    /// Framed messages whose content cannot be (a field past 63, a piece
    /// code past 15).
    pub malformed: u64,
}

impl DecodeFaults {
    /// Everything dropped.
    pub fn total(&self) -> u64 {
        self.garbage_bytes + self.truncated + self.malformed
    }
}

/// Splits the board's byte stream into messages, sans-IO. Bad bytes are
/// counted and dropped, never a panic: a message starts only at a byte
/// with the top bit set, and every other byte of a message has it clear,
/// so after noise the decoder finds the next message's start.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    buf: Vec<u8>,
    faults: DecodeFaults,
}

impl Decoder {
    /// An empty decoder.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// What was dropped so far.
    pub fn faults(&self) -> DecodeFaults {
        self.faults
    }

    /// Whether part of a message is waiting for the rest.
    pub fn partial(&self) -> bool {
        !self.buf.is_empty()
    }

    /// The id of the message whose first bytes are waiting for the rest.
    pub fn partial_id(&self) -> Option<u8> {
        self.buf.first().copied()
    }

    /// Drops a partial message that will never be finished (the line went
    /// quiet, or was reopened).
    pub fn abandon(&mut self) {
        if !self.buf.is_empty() {
            self.buf.clear();
            self.faults.truncated += 1;
        }
    }

    /// Feeds `bytes`, appending each message they complete to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Message>) {
        for &byte in bytes {
            if byte & wire::MESSAGE_BIT != 0 {
                // A new message: whatever was unfinished was cut short.
                self.abandon();
                self.buf.push(byte);
                continue;
            }
            if self.buf.is_empty() {
                self.faults.garbage_bytes += 1;
                continue;
            }
            self.buf.push(byte);
            if self.buf.len() < 3 {
                continue;
            }
            let id = self.buf[0];
            let len = (usize::from(self.buf[1]) << 7) | usize::from(self.buf[2]);
            let expected = wire::fixed_len(id);
            if !(3..=wire::MAX_LEN).contains(&len) || expected.is_some_and(|e| e != len) {
                // No message has this header: three bytes of noise.
                self.faults.garbage_bytes += self.buf.len() as u64;
                self.buf.clear();
                continue;
            }
            if self.buf.len() == len {
                let message = self.decode();
                self.buf.clear();
                match message {
                    Some(message) => out.push(message),
                    None => self.faults.malformed += 1,
                }
            }
        }
    }

    fn decode(&self) -> Option<Message> {
        let data = &self.buf[3..];
        Some(match self.buf[0] {
            wire::BOARD_DUMP => {
                let mut fields = [0u8; 64];
                fields.copy_from_slice(data);
                if fields.iter().any(|&p| p > wire::MAX_PIECE) {
                    return None;
                }
                Message::BoardDump(fields)
            }
            wire::FIELD_UPDATE => {
                let (field, piece) = (data[0], data[1]);
                if field >= 64 || piece > wire::MAX_PIECE {
                    return None;
                }
                Message::FieldUpdate { field, piece }
            }
            wire::SERIALNR => {
                let mut digits = [0u8; 5];
                digits.copy_from_slice(data);
                Message::SerialNr(digits)
            }
            wire::VERSION => Message::Version {
                major: data[0],
                minor: data[1],
            },
            wire::BWTIME => {
                let mut report = [0u8; 7];
                report.copy_from_slice(data);
                Message::ClockReport(report)
            }
            other => Message::Other(other),
        })
    }
}

/// Who the board says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DgtIdentity {
    /// The serial number (its five digits as a number).
    pub serial: u64,
    /// The firmware version, once told.
    pub version: Option<(u8, u8)>,
}

/// Why a poll failed.
#[derive(Debug)]
pub enum Error<E> {
    /// The serial line failed (unplugged, not there).
    Line(E),
    /// The board has not answered a request for [`ANSWER_TIMEOUT_MS`].
    Silent,
    /// No board dump yet: the squares are not known.
    NotSynced,
}

/// How long the board may take to answer a request before the link counts
/// a failure (a board dump is 67 bytes, 70 ms at 9600 baud; DGT's boards
/// answer within a scan).
pub const ANSWER_TIMEOUT_MS: Millis = 1_500;
/// A message left unfinished this long after its last byte is dropped (the
/// bytes of one message follow each other at the line's speed, 5 ms for a
/// field update; a USB serial chip may hold them up to 16 ms).
pub const PARTIAL_TIMEOUT_MS: Millis = 40;

/// A board dump holds the line for 70 ms at 9600 baud, and a field update
/// sent meanwhile waits behind it: the safety-net dump is asked for only
/// after the board has been quiet this long (a player thinking), never
/// while hands are moving pieces. Dumps after a fault are asked at once.
pub const QUIET_BEFORE_DUMP_MS: Millis = 1_000;

/// A board dump asked for and not received this long after the request,
/// while the board keeps sending other bytes, was lost on the line (its
/// header garbled): it is asked again. 70 ms of dump behind at most a
/// dump's worth of updates, with room for a slow board.
pub const DUMP_LOST_MS: Millis = 400;

/// The most field updates held behind one fault (a few seconds of a
/// board sending without a pause).
const MAX_HELD: usize = 1_024;

/// The most pieces the driver remembers in the air: a capture takes its
/// piece out, but an en passant pawn or a knocked-off piece stays.
const MAX_IN_AIR: usize = 32;

/// What the driver counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DgtCounters {
    /// What the decoder dropped.
    pub decode: DecodeFaults,
    /// Board dumps received.
    pub dumps: u64,
    /// Board dumps asked for (at set-up, after a fault, as a safety net,
    /// again after a lost one).
    pub dumps_asked: u64,
    /// Board dumps that found squares other than the driver believed
    /// (each difference became a lift or a place).
    pub resyncs: u64,
    /// Field updates that cannot follow the squares the driver holds (the
    /// square already as it says, or a piece put down that no hand
    /// holds): a message before them was lost.
    pub out_of_step: u64,
    /// Field updates held back behind a fault until its board dump came.
    pub held: u64,
    /// Times the line was opened again.
    pub reopens: u64,
    /// Requests the board did not answer in time.
    pub timeouts: u64,
}

/// The host's clock, in ms, for the driver's timeouts.
pub type HostTime = Rc<dyn Fn() -> Millis>;

/// A field update held back behind a fault: the square, its piece code,
/// and when the board saw it (host ms).
#[derive(Debug, Clone, Copy)]
struct Held {
    sq: Square,
    piece: u8,
    seen: Millis,
}

/// When the bytes came, as well as the line lets the driver know: each
/// byte takes one byte time on the wire, and the bytes of a burst (the
/// board sending without a pause) were queued behind each other at the
/// board.
#[derive(Debug, Clone, Copy, Default)]
struct LineTiming {
    /// The wire's time per byte, µs.
    byte_us: u64,
    /// When the last byte arrived (estimated), µs; `None` before any.
    last_byte_us: Option<u64>,
    /// When the current burst began on the wire, µs.
    burst_start_us: u64,
    /// The earliest the board can have seen the message being decoded, µs.
    message_us: u64,
    /// The same for the message before it (the one a header cuts short).
    previous_message_us: u64,
}

impl LineTiming {
    /// The `index`th of `count` bytes read at `read_us` arrived: when, and
    /// whether it starts a new message.
    fn byte(&mut self, read_us: u64, index: usize, count: usize, header: bool) -> u64 {
        // The last byte read had just arrived; each before it one byte time
        // earlier (an upper bound: the read may come late).
        let behind = (count - 1 - index) as u64 * self.byte_us;
        let arrived = read_us.saturating_sub(behind);
        // A byte that follows the previous one within a byte time (and the
        // read's own uncertainty, a byte time and the clock's ms) was sent
        // back to back with it: the same burst.
        let queued = self
            .last_byte_us
            .is_some_and(|last| arrived <= last + 2 * self.byte_us + 1_000);
        if !queued {
            self.burst_start_us = arrived.saturating_sub(self.byte_us);
        }
        self.last_byte_us = Some(arrived);
        if header {
            // A message queued behind N bytes of a burst was seen by the
            // board at the latest when it began to send, at the earliest
            // when the burst began: the earliest, the benefit of the doubt
            // going to the player (`hardware/dgt.md`), never before the
            // message before it.
            self.previous_message_us = self.message_us;
            self.message_us = self.burst_start_us.max(self.message_us);
        }
        arrived
    }
}

/// What the driver believes of the board and its line.
#[derive(Debug, Clone)]
struct Tracking {
    /// What stands on each square (a1 = 0), as DGT piece codes.
    squares: [u8; 64],
    timing: LineTiming,
    /// Field updates held back behind a fault.
    held: Vec<Held>,
    /// The pieces lifted and not put down again (in a hand, or beside the
    /// board), as DGT codes; a captured piece leaves it.
    in_air: Vec<u8>,
    /// The piece last lifted from each square, while it is in the air.
    lifted_from: [u8; 64],
    /// How many pieces were in the air at the last press (or fewer, as
    /// they were put down since): more at a press, and a place of the move
    /// may have been lost.
    air_at_press: usize,
}

/// A DGT e-board on a serial line.
pub struct DgtBoard<P> {
    port: P,
    clock: HostTime,
    decoder: Decoder,
    messages: Vec<Message>,
    /// What the driver believes, and how it came to (boxed: a rig holds
    /// one of several boards by value).
    state: Box<Tracking>,
    /// A dump has been received since the driver started: `squares` is
    /// the board's.
    synced: bool,
    /// The line must be opened and the board set up before the next read.
    needs_setup: bool,
    /// The line has been opened once: later openings are reopenings.
    opened: bool,
    /// Turned round: White at the 8 side; decided when the board shows
    /// the game's start one way or the other, never guessed from another
    /// position (read as labelled until then).
    flipped: Option<bool>,
    /// The game's start, from which the orientation is taken.
    start: shakmaty::Board,
    /// When a board dump was first asked for and not received yet.
    dump_asked: Option<Millis>,
    /// When the request for it was last sent.
    dump_sent: Millis,
    /// Bytes came since the request was last sent (the board is talking).
    heard_since_ask: bool,
    /// When the last byte arrived.
    last_byte: Millis,
    /// A request went unanswered and nothing has arrived since.
    silent: bool,
    identity: Option<DgtIdentity>,
    pending: Vec<BoardEvent>,
    counters: DgtCounters,
    /// A fault was seen (a message lost, cut or out of step) at this
    /// instant, and its board dump has not come yet: field updates are
    /// held back (`Tracking::held`) until it does.
    fault: Option<Millis>,
    /// The instant of the last event handed on: later ones never earlier.
    last_event: Millis,
    /// When the line failed (the cable pulled), until it is set up again:
    /// what changed meanwhile is a lost message from that instant.
    cut_at: Option<Millis>,
    /// The DGT 3000 plugged into the board, when one is used: update mode
    /// then reports its times, levers and buttons.
    dgt3000: Option<Box<Dgt3000>>,
    /// When the board last sent a message of its own, not its clock's (the
    /// safety-net dump waits for a quiet board; a clock's reports do not
    /// make it busy).
    last_board_news: Millis,
}

impl<P> core::fmt::Debug for DgtBoard<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DgtBoard")
            .field("synced", &self.synced)
            .field("identity", &self.identity)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl<P: SerialPort> DgtBoard<P> {
    /// A driver for the board on `port`, timing its requests on `clock`.
    /// Nothing is sent before the first poll.
    pub fn new(port: P, clock: HostTime) -> DgtBoard<P> {
        DgtBoard {
            port,
            clock,
            decoder: Decoder::new(),
            messages: Vec::new(),
            state: Box::new(Tracking {
                squares: [wire::EMPTY; 64],
                timing: LineTiming {
                    byte_us: byte_time_us(wire::BAUD),
                    ..LineTiming::default()
                },
                held: Vec::new(),
                in_air: Vec::new(),
                lifted_from: [wire::EMPTY; 64],
                air_at_press: 0,
            }),
            synced: false,
            needs_setup: true,
            opened: false,
            flipped: None,
            start: shakmaty::Board::default(),
            dump_asked: None,
            dump_sent: 0,
            heard_since_ask: false,
            last_byte: 0,
            silent: false,
            identity: None,
            pending: Vec::new(),
            counters: DgtCounters::default(),
            fault: None,
            last_event: 0,
            cut_at: None,
            dgt3000: None,
            last_board_news: 0,
        }
    }

    /// Uses the DGT 3000 plugged into the board (or finds whether one
    /// is): the board is put in update mode with the clock's reports
    /// (`DGT_SEND_UPDATE_NICE`) instead of the board's alone, and the
    /// clock's commands go out through it (`hardware/dgt.md`, "DGT 3000").
    pub fn with_clock(mut self) -> DgtBoard<P> {
        self.dgt3000 = Some(Box::new(Dgt3000::new()));
        self
    }

    /// The clock, when one is used.
    pub fn dgt3000(&self) -> Option<&Dgt3000> {
        self.dgt3000.as_deref()
    }

    /// Sends the clock's next command, if one is due.
    fn flush_clock(&mut self) -> Result<(), Error<P::Error>> {
        let now = self.now();
        let Some(bytes) = self.dgt3000.as_mut().and_then(|c| c.poll_command(now)) else {
            return Ok(());
        };
        self.port.write(&bytes).map_err(|err| {
            self.needs_setup = true;
            Error::Line(err)
        })
    }

    /// Who the board said it is, once it has.
    pub fn identity(&self) -> Option<DgtIdentity> {
        self.identity
    }

    /// What the driver counted.
    pub fn counters(&self) -> DgtCounters {
        DgtCounters {
            decode: self.decoder.faults(),
            ..self.counters
        }
    }

    /// Whether the board is turned round (White at its 8 side), once it
    /// has shown the game's start (FIDE 7.2).
    pub fn flipped(&self) -> Option<bool> {
        self.flipped
    }

    /// The game's start, whose position on the board decides which way
    /// round the board is (the standard position unless told otherwise: a
    /// setup's FEN, or a game restored after a restart as it stands).
    /// Until the board shows it, one way or the other, its fields are read
    /// as labelled; once decided, the orientation stays.
    pub fn expect_start(&mut self, start: shakmaty::Board) {
        self.start = start;
        if self.synced && self.flipped.is_none() {
            let seen = self.last_event;
            self.orient(seen);
        }
    }

    /// The pieces on the board as the driver knows them, once a dump has
    /// said (a DGT board knows every piece's identity).
    pub fn pieces(&self) -> Option<shakmaty::Board> {
        self.synced.then(|| board_of(&self.state.squares))
    }

    /// Decides the orientation if the squares (read as labelled) show the
    /// game's start, straight or turned round; turned, the driver's picture
    /// is turned with it, its differences handed on as lifts and places at
    /// `seen` (the squares as labelled were what the driver said so far).
    fn orient(&mut self, seen: Millis) {
        let straight = self.state.squares;
        self.flipped = orientation(&straight, &self.start);
        if self.flipped == Some(true) {
            let turned = turned(&straight);
            for sq in Square::ALL {
                if straight[usize::from(sq)] != turned[usize::from(sq)]
                    && straight[usize::from(sq)] != wire::EMPTY
                {
                    self.set_square(sq, wire::EMPTY, seen);
                }
            }
            for sq in Square::ALL {
                self.set_square(sq, turned[usize::from(sq)], seen);
            }
            // The frame's change lifted nothing into a hand.
            self.state.in_air.clear();
            self.state.lifted_from = [wire::EMPTY; 64];
        }
    }

    /// Whether field updates are held back behind a fault, waiting for its
    /// board dump: the board's news up to now is not all handed on yet (a
    /// press made now should wait for it).
    pub fn resynchronising(&self) -> bool {
        self.fault.is_some()
    }

    /// The piece the board has on `sq`, as far as the driver knows.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        piece_of(self.state.squares[usize::from(sq)])
    }

    /// The port, to look at.
    pub fn port(&self) -> &P {
        &self.port
    }

    /// The port, for faults in tests.
    pub fn port_mut(&mut self) -> &mut P {
        &mut self.port
    }

    /// Gives the port back.
    pub fn release(self) -> P {
        self.port
    }

    fn now(&self) -> Millis {
        (self.clock)()
    }

    /// Opens the line (again) and sets the board up: idle, who it is, all
    /// its squares, then update mode.
    fn set_up(&mut self) -> Result<(), Error<P::Error>> {
        self.port.reopen().map_err(Error::Line)?;
        if self.opened {
            self.counters.reopens += 1;
        }
        self.opened = true;
        self.decoder.abandon();
        // With a clock, the update mode that also reports it (and in
        // which the board acknowledges clock commands).
        let update = match self.dgt3000.as_mut() {
            Some(clock) => {
                clock.reset();
                wire::SEND_UPDATE_NICE
            }
            None => wire::SEND_UPDATE_BRD,
        };
        self.port
            .write(&[
                wire::SEND_RESET,
                wire::RETURN_SERIALNR,
                wire::SEND_VERSION,
                wire::SEND_BRD,
                update,
            ])
            .map_err(Error::Line)?;
        self.needs_setup = false;
        self.counters.dumps_asked += 1;
        let now = self.now();
        if let Some(cut) = self.cut_at.take() {
            // The changes made while the cable was out come with the dump,
            // as a lost message's do: at the instant the line failed, the
            // field updates behind them held back until it comes.
            self.fault_at(cut * 1_000);
        }
        self.dump_asked = Some(now);
        self.dump_sent = now;
        self.heard_since_ask = false;
        Ok(())
    }

    /// Asks for a board dump, unless one is already on its way.
    fn ask_dump(&mut self) -> Result<(), Error<P::Error>> {
        if self.dump_asked.is_none() {
            self.send_dump_request()?;
            self.dump_asked = Some(self.dump_sent);
        }
        Ok(())
    }

    fn send_dump_request(&mut self) -> Result<(), Error<P::Error>> {
        self.port.write(&[wire::SEND_BRD]).map_err(|err| {
            self.needs_setup = true;
            Error::Line(err)
        })?;
        self.counters.dumps_asked += 1;
        self.dump_sent = self.now();
        self.heard_since_ask = false;
        Ok(())
    }

    /// A message was lost (or may have been) at `at_us`: updates are held
    /// back from now until a board dump says what the board holds. One
    /// dump answers any number of faults: every dump completed after a
    /// fault was sent after the bytes that carried it, so it shows their
    /// change.
    fn fault_at(&mut self, at_us: u64) {
        if self.synced && self.fault.is_none() {
            self.fault = Some((at_us / 1_000).max(self.last_event));
        }
    }

    /// Reads what the board sent and turns it into events (in `pending`).
    fn step(&mut self) -> Result<(), Error<P::Error>> {
        if self.needs_setup {
            self.set_up()?;
        }
        let mut buf = [0u8; 256];
        let mut faulted = false;
        let mut dump_cut = false;
        loop {
            let n = match self.port.read(&mut buf) {
                Ok(n) => n,
                Err(err) => {
                    self.needs_setup = true;
                    let now = self.now();
                    self.cut_at.get_or_insert(now);
                    return Err(Error::Line(err));
                }
            };
            if n == 0 {
                break;
            }
            let now = self.now();
            self.last_byte = now;
            self.heard_since_ask = true;
            let mut messages = std::mem::take(&mut self.messages);
            for (i, &byte) in buf[..n].iter().enumerate() {
                let header = byte & wire::MESSAGE_BIT != 0;
                let cut = header && self.decoder.partial();
                if cut && self.decoder.partial_id() == Some(wire::BOARD_DUMP) {
                    dump_cut = true;
                }
                let inside = self.decoder.partial();
                let arrived = self.state.timing.byte(now * 1_000, i, n, header);
                let dropped = self.decoder.faults().total();
                self.decoder.push(&[byte], &mut messages);
                if self.decoder.faults().total() != dropped {
                    faulted = true;
                    // When the lost message was sent: the one cut short's
                    // start, or the noise's own arrival.
                    let at = if cut {
                        self.state.timing.previous_message_us
                    } else if inside {
                        self.state.timing.message_us
                    } else {
                        arrived.saturating_sub(self.state.timing.byte_us)
                    };
                    self.fault_at(at);
                }
                let seen = self.state.timing.message_us / 1_000;
                for message in messages.drain(..) {
                    self.handle(message, seen);
                }
            }
            self.messages = messages;
            self.silent = false;
        }
        if faulted {
            let total = self.decoder.faults().total();
            // Counted, and said now and then: a board that keeps sending
            // noise has a cable or a port worth a look.
            if total.is_power_of_two() {
                tracing::warn!(
                    "DGT board: {total} bad bytes or messages dropped so far ({:?}); \
                     resynchronised from its board dump",
                    self.decoder.faults()
                );
            }
        }
        let now = self.now();
        if self.decoder.partial() && now.saturating_sub(self.last_byte) >= PARTIAL_TIMEOUT_MS {
            if self.decoder.partial_id() == Some(wire::BOARD_DUMP) {
                dump_cut = true;
            }
            self.decoder.abandon();
            self.fault_at(self.state.timing.message_us);
        }
        if dump_cut && self.dump_asked.is_some() {
            // The dump on its way was itself cut: it will never come.
            self.send_dump_request()?;
        } else if self.dump_asked.is_some()
            && self.heard_since_ask
            && now.saturating_sub(self.dump_sent) >= DUMP_LOST_MS
        {
            // The board talks but the dump has not come: lost.
            self.send_dump_request()?;
        }
        if self.fault.is_some() || (faulted && !self.synced) {
            self.ask_dump()?;
        }
        if let Some(asked) = self.dump_asked
            && now.saturating_sub(asked) >= ANSWER_TIMEOUT_MS
            && !self.heard_since_ask
        {
            // Asked again; until the board sends something every poll is
            // a failure for the link to count, so a board that never
            // answers is called disconnected.
            self.counters.timeouts += 1;
            self.dump_asked = None;
            self.silent = true;
            if self.counters.timeouts.is_multiple_of(3) {
                // Perhaps it was reset and forgot update mode.
                self.needs_setup = true;
            } else {
                self.ask_dump()?;
            }
        }
        if self.silent {
            return Err(Error::Silent);
        }
        self.flush_clock()
    }

    fn handle(&mut self, message: Message, seen: Millis) {
        if !matches!(message, Message::ClockReport(_)) {
            self.last_board_news = self.now();
        }
        match message {
            Message::FieldUpdate { field, piece } => {
                if !self.synced {
                    // Before the first dump the squares are unknown; the
                    // dump (asked before update mode) will say.
                    return;
                }
                let flipped = self.flipped.unwrap_or(false);
                let sq = square_of_field(field, flipped);
                if self.fault.is_none() && !self.follows(sq, piece) {
                    self.counters.out_of_step += 1;
                    self.fault_at(seen * 1_000);
                }
                if self.fault.is_some() {
                    // Beyond a bound (dumps lost again and again), the dump
                    // still shows what they did: only their order is lost.
                    if self.state.held.len() < MAX_HELD {
                        self.counters.held += 1;
                        self.state.held.push(Held { sq, piece, seen });
                    }
                    return;
                }
                self.set_square(sq, piece, seen);
                if self.flipped.is_none() {
                    self.orient(seen);
                }
            }
            Message::BoardDump(fields) => {
                self.counters.dumps += 1;
                self.dump_asked = None;
                let flipped = self.flipped.unwrap_or(false);
                let mut now = [wire::EMPTY; 64];
                for (field, &piece) in fields.iter().enumerate() {
                    now[usize::from(square_of_field(field as u8, flipped))] = piece;
                }
                if !self.synced {
                    if self.flipped.is_none() {
                        // The first picture is no news: turned, it is
                        // taken turned, without events.
                        self.flipped = orientation(&now, &self.start);
                        if self.flipped == Some(true) {
                            now = turned(&now);
                        }
                    }
                    self.state.squares = now;
                    self.synced = true;
                    self.fault = None;
                    self.state.held.clear();
                    return;
                }
                self.resynchronise(&now, seen);
                if self.flipped.is_none() {
                    self.orient(seen);
                }
            }
            Message::SerialNr(digits) => {
                let serial = digits
                    .iter()
                    .filter(|d| d.is_ascii_digit())
                    .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
                let version = self.identity.and_then(|id| id.version);
                self.identity = Some(DgtIdentity { serial, version });
            }
            Message::Version { major, minor } => {
                if let Some(identity) = self.identity.as_mut() {
                    identity.version = Some((major, minor));
                }
            }
            Message::ClockReport(data) => {
                if let Some(clock) = self.dgt3000.as_mut() {
                    clock.report(&data, seen);
                }
            }
            Message::Other(_) => {}
        }
    }

    /// Whether a field update can follow the squares as the driver holds
    /// them: the board sends one only for a change, and a piece put down
    /// comes from a hand (lifted before), or is a promotion's new piece
    /// (a pawn of its colour lifted).
    fn follows(&self, sq: Square, piece: u8) -> bool {
        let was = self.state.squares[usize::from(sq)];
        if was == piece {
            // No change: a lift and a put-back (or a place and a lift)
            // were lost between.
            return false;
        }
        if piece == wire::EMPTY {
            return true;
        }
        // A piece replaced by another in one scan lifts it first.
        let mut in_air = self.state.in_air.clone();
        if was != wire::EMPTY {
            in_air.push(was);
        }
        if in_air.contains(&piece) {
            return true;
        }
        piece_of(piece).is_some_and(|p| {
            matches!(
                p.role,
                Role::Queen | Role::Rook | Role::Bishop | Role::Knight
            ) && in_air.contains(&code_of(Piece {
                color: p.color,
                role: Role::Pawn,
            }))
        })
    }

    /// The board dump `now` (by square) came: the driver's squares become
    /// its, and the differences are handed on in the order the board saw
    /// them, as well as it can be known. After a fault: first what was
    /// lost before the fault (squares no held update names: what left a
    /// square, then what arrived), at the fault's instant; then the held
    /// updates in their order, at their own instants; then what the dump
    /// still shows otherwise on their squares (lost after them). Without
    /// a fault (the safety net): what left a square, then what arrived.
    fn resynchronise(&mut self, now: &[u8; 64], seen: Millis) {
        let believed = self.state.squares;
        let held = std::mem::take(&mut self.state.held);
        let fault = self.fault.take();
        let at = fault.unwrap_or(seen);
        let named: Bitboard = held.iter().map(|h| h.sq).collect();
        let lost =
            |sq: Square| !named.contains(sq) && believed[usize::from(sq)] != now[usize::from(sq)];
        if Square::ALL.into_iter().any(&lost) {
            self.counters.resyncs += 1;
        }
        for sq in Square::ALL.into_iter().filter(|&sq| lost(sq)) {
            if believed[usize::from(sq)] != wire::EMPTY {
                self.set_square(sq, wire::EMPTY, at);
            }
        }
        for sq in Square::ALL.into_iter().filter(|&sq| lost(sq)) {
            self.set_square(sq, now[usize::from(sq)], at);
        }
        let mut last = at;
        for h in &held {
            // The same piece again (its lift and put-back lost, or a board
            // that repeats itself) is no event: a lift the driver did not
            // see would oblige a player to a piece (4.3) on a guess.
            self.set_square(h.sq, h.piece, h.seen);
            last = last.max(h.seen);
        }
        let rest = |sq: Square, squares: &[u8; 64]| {
            named.contains(sq) && squares[usize::from(sq)] != now[usize::from(sq)]
        };
        for sq in Square::ALL {
            if rest(sq, &self.state.squares) && self.state.squares[usize::from(sq)] != wire::EMPTY {
                self.counters.resyncs += 1;
                self.set_square(sq, wire::EMPTY, last);
            }
        }
        for sq in Square::ALL {
            if rest(sq, &self.state.squares) {
                self.set_square(sq, now[usize::from(sq)], last);
            }
        }
        debug_assert_eq!(&self.state.squares, now);
        self.state.squares = *now;
    }

    /// `sq` now holds `piece`: a lift, a place, or both (a piece replaced
    /// by another between two scans, as in a quick capture), seen by the
    /// board at `seen`.
    fn set_square(&mut self, sq: Square, piece: u8, seen: Millis) {
        let i = usize::from(sq);
        let was = self.state.squares[i];
        if was == piece {
            return;
        }
        self.state.squares[i] = piece;
        let at = seen.max(self.last_event);
        self.last_event = at;
        let board_ms = Some(at as u32);
        if was != wire::EMPTY {
            self.pending.push(BoardEvent {
                input: Input::Lift(sq),
                board_ms,
            });
            // The most recent lifts only: a piece long gone (a pawn taken
            // en passant, a piece knocked off) stops vouching for others.
            if self.state.in_air.len() == MAX_IN_AIR {
                self.state.in_air.remove(0);
            }
            self.state.in_air.push(was);
            self.state.lifted_from[i] = was;
        }
        if piece != wire::EMPTY {
            self.pending.push(BoardEvent {
                input: Input::Place(sq, piece_of(piece)),
                board_ms,
            });
            self.put_down(piece);
            self.state.air_at_press = self.state.air_at_press.min(self.state.in_air.len());
            // The piece lifted from this square and still in the air, if
            // another: captured, off the board now.
            let gone = std::mem::replace(&mut self.state.lifted_from[i], wire::EMPTY);
            if gone != wire::EMPTY
                && gone != piece
                && let Some(k) = self.state.in_air.iter().position(|&p| p == gone)
            {
                self.state.in_air.remove(k);
            }
        }
    }

    /// `piece` was put down: out of the air (or, for a promotion's new
    /// piece, the pawn it replaces).
    fn put_down(&mut self, piece: u8) {
        if let Some(k) = self.state.in_air.iter().position(|&p| p == piece) {
            self.state.in_air.remove(k);
            return;
        }
        if let Some(p) = piece_of(piece) {
            let pawn = code_of(Piece {
                color: p.color,
                role: Role::Pawn,
            });
            if let Some(k) = self.state.in_air.iter().position(|&c| c == pawn) {
                self.state.in_air.remove(k);
            }
        }
    }
}

/// Which way round `squares` (read as labelled) show `start`: `Some(false)`
/// as labelled, `Some(true)` turned round, `None` neither (not guessed).
fn orientation(squares: &[u8; 64], start: &shakmaty::Board) -> Option<bool> {
    if board_of(squares) == *start {
        Some(false)
    } else if board_of(&turned(squares)) == *start {
        Some(true)
    } else {
        None
    }
}

/// The fields turned round: a1's piece on h8, and so on.
fn turned(squares: &[u8; 64]) -> [u8; 64] {
    let mut turned = [wire::EMPTY; 64];
    for (i, &piece) in squares.iter().enumerate() {
        turned[63 - i] = piece;
    }
    turned
}

/// The pieces the fields hold.
fn board_of(squares: &[u8; 64]) -> shakmaty::Board {
    let mut board = shakmaty::Board::empty();
    for sq in Square::ALL {
        if let Some(piece) = piece_of(squares[usize::from(sq)]) {
            board.set_piece_at(sq, piece);
        }
    }
    board
}

impl<P: SerialPort> SensorBoard for DgtBoard<P> {
    type Error = Error<P::Error>;

    fn pieces(&self) -> Option<shakmaty::Board> {
        DgtBoard::pieces(self)
    }

    fn expect_start(&mut self, start: &shakmaty::Board) {
        if *start != self.start {
            DgtBoard::expect_start(self, start.clone());
        }
    }

    fn has_clock(&self) -> bool {
        self.dgt3000
            .as_ref()
            .is_some_and(|c| c.present() == Some(true))
    }

    fn clock_events(&mut self, out: &mut Vec<ClockEvent>) {
        if let Some(clock) = self.dgt3000.as_mut() {
            while let Some(event) = clock.next_event() {
                out.push(event);
            }
        }
    }

    /// Sent at once if the clock is free: a press's switch is not left
    /// waiting for the next poll.
    fn show_on_clock(&mut self, shown: ClockShown) {
        let now = self.now();
        if let Some(clock) = self.dgt3000.as_mut() {
            clock.show(shown, now);
            if self.flush_clock().is_err() {
                tracing::debug!("the DGT board's line failed sending to its clock");
            }
        }
    }

    /// The changes handed on, each stamped (`board_ms`) with when the
    /// board saw it on the driver's clock ([`SensorBoard::board_time`]):
    /// the line's timing tells, see `hardware/dgt.md`.
    fn poll_stamped(&mut self, out: &mut Vec<BoardEvent>) -> Result<(), Self::Error> {
        let stepped = self.step();
        out.append(&mut self.pending);
        stepped
    }

    /// The driver's own clock: a DGT board keeps none, so the driver
    /// stamps events with the instant the line's timing puts them at, on
    /// the clock it was given.
    fn board_time(&mut self) -> Result<Option<u32>, Self::Error> {
        Ok(Some(self.now() as u32))
    }

    /// While a message is half read (its rest arrives within a few ms, or
    /// it is dropped after [`PARTIAL_TIMEOUT_MS`] and a dump asked), and
    /// while a board dump is on its way: after a fault the changes behind
    /// it are held back until it comes, and any field update the board
    /// sends meanwhile waits on the line behind its 70 ms.
    fn news_pending(&self) -> bool {
        self.synced && (self.fault.is_some() || self.decoder.partial() || self.dump_asked.is_some())
    }

    /// A press with more pieces in the air than at the last press (a
    /// place of the move lost on the line without a trace, or a hand that
    /// still holds a piece, or a pawn taken en passant) asks a board dump
    /// at once, as a fault would; what it shows is stamped at the last
    /// change handed on (the place came after it and before the press:
    /// the benefit of the doubt goes to the player for 6.2.3).
    fn press_came(&mut self) -> Result<(), Self::Error> {
        let in_air = self.state.in_air.len();
        let suspect = in_air > self.state.air_at_press;
        self.state.air_at_press = in_air;
        if self.synced && suspect && !self.needs_setup {
            self.fault_at(self.last_event * 1_000);
            self.ask_dump()?;
        }
        Ok(())
    }

    /// The squares as the driver knows them, and a fresh board dump asked
    /// for if the line has been quiet for [`QUIET_BEFORE_DUMP_MS`]: its
    /// differences come out as lifts and places with a later poll. Before
    /// the first dump (at start, after the line came back) it waits for
    /// one, up to about a fifth of a second.
    fn occupancy(&mut self) -> Result<Bitboard, Self::Error> {
        self.step()?;
        if self.synced {
            let quiet_since = self.last_board_news.max(match self.dgt3000 {
                Some(_) => 0,
                None => self.last_byte,
            });
            if self.now().saturating_sub(quiet_since) >= QUIET_BEFORE_DUMP_MS {
                self.ask_dump()?;
            }
        } else {
            for _ in 0..100 {
                std::thread::sleep(std::time::Duration::from_millis(2));
                self.step()?;
                if self.synced {
                    break;
                }
            }
            if !self.synced {
                return Err(Error::NotSynced);
            }
        }
        Ok(self
            .state
            .squares
            .iter()
            .enumerate()
            .filter(|(_, p)| **p != wire::EMPTY)
            .map(|(i, _)| Square::new(i as u32))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::collections::VecDeque;

    use super::*;

    /// A line that hands out scripted chunks and keeps what was written.
    #[derive(Default)]
    struct Script {
        incoming: VecDeque<Vec<u8>>,
        written: Vec<u8>,
        fail: bool,
    }

    impl SerialPort for Script {
        type Error = ();
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
            if self.fail {
                return Err(());
            }
            let Some(chunk) = self.incoming.pop_front() else {
                return Ok(0);
            };
            buf[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
        fn write(&mut self, bytes: &[u8]) -> Result<(), ()> {
            if self.fail {
                return Err(());
            }
            self.written.extend_from_slice(bytes);
            Ok(())
        }
        fn reopen(&mut self) -> Result<(), ()> {
            if self.fail { Err(()) } else { Ok(()) }
        }
    }

    fn start_dump() -> Vec<u8> {
        let mut fields = [0u8; 64];
        let board = shakmaty::Board::default();
        for (sq, piece) in board {
            fields[usize::from(field_of_square(sq, false))] = code_of(piece);
        }
        let mut bytes = vec![wire::BOARD_DUMP, 0, 67];
        bytes.extend_from_slice(&fields);
        bytes
    }

    fn update(sq: Square, piece: u8) -> Vec<u8> {
        vec![wire::FIELD_UPDATE, 0, 5, field_of_square(sq, false), piece]
    }

    fn board(time: Rc<Cell<Millis>>) -> DgtBoard<Script> {
        DgtBoard::new(Script::default(), Rc::new(move || time.get()))
    }

    fn inputs(board: &mut DgtBoard<Script>) -> Vec<Input> {
        let mut out = Vec::new();
        board.poll(&mut out).unwrap();
        out
    }

    #[test]
    fn fields_run_from_a8_along_the_ranks_to_h1() {
        assert_eq!(square_of_field(0, false), Square::A8);
        assert_eq!(square_of_field(7, false), Square::H8);
        assert_eq!(square_of_field(8, false), Square::A7);
        assert_eq!(square_of_field(63, false), Square::H1);
        assert_eq!(square_of_field(0, true), Square::H1);
        for sq in Square::ALL {
            for flipped in [false, true] {
                assert_eq!(square_of_field(field_of_square(sq, flipped), flipped), sq);
            }
        }
        for code in 1..=12 {
            assert_eq!(code_of(piece_of(code).unwrap()), code);
        }
        assert_eq!(piece_of(13), None);
    }

    #[test]
    fn the_driver_sets_the_board_up_then_turns_updates_into_lifts_and_places() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(
            dgt.port().written,
            [0x40, 0x45, 0x4d, 0x42, 0x44],
            "reset, serial, version, dump, update mode"
        );
        dgt.port_mut()
            .incoming
            .push_back(b"\x91\x00\x0812345".to_vec());
        dgt.port_mut()
            .incoming
            .push_back(vec![wire::VERSION, 0, 5, 1, 7]);
        // The dump arrives in two pieces, as a USB serial chip sends it.
        let dump = start_dump();
        dgt.port_mut().incoming.push_back(dump[..30].to_vec());
        dgt.port_mut().incoming.push_back(dump[30..].to_vec());
        assert!(inputs(&mut dgt).is_empty(), "the first dump is the board");
        assert_eq!(
            dgt.identity(),
            Some(DgtIdentity {
                serial: 12345,
                version: Some((1, 7))
            })
        );
        assert_eq!(dgt.flipped(), Some(false));
        assert_eq!(
            dgt.occupancy().unwrap(),
            shakmaty::Board::default().occupied()
        );

        dgt.port_mut().incoming.push_back(update(Square::E2, 0));
        dgt.port_mut().incoming.push_back(update(Square::E4, 1));
        assert_eq!(
            inputs(&mut dgt),
            [
                Input::Lift(Square::E2),
                Input::Place(Square::E4, piece_of(1))
            ]
        );
        // A pawn replaced by a knight between two scans (a capture in one
        // movement, the knight lifted first): both.
        dgt.port_mut().incoming.push_back(update(Square::G1, 0));
        dgt.port_mut().incoming.push_back(update(Square::E4, 3));
        assert_eq!(
            inputs(&mut dgt),
            [
                Input::Lift(Square::G1),
                Input::Lift(Square::E4),
                Input::Place(Square::E4, piece_of(3))
            ]
        );
        dgt.port_mut().written.clear();
        // A bishop put down that no hand lifted: a message was lost before
        // it. Held back until the board dump says what stands where.
        dgt.port_mut().incoming.push_back(update(Square::G1, 4));
        assert!(inputs(&mut dgt).is_empty());
        assert!(dgt.resynchronising());
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        // Near miss: the same piece again is no event, and no second dump
        // is asked while one is on its way.
        dgt.port_mut().incoming.push_back(update(Square::E4, 3));
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        let mut dump = start_dump();
        for (sq, code) in [(Square::E2, 0), (Square::E4, 3), (Square::G1, 4)] {
            dump[3 + usize::from(field_of_square(sq, false))] = code;
        }
        dgt.port_mut().incoming.push_back(dump);
        assert_eq!(inputs(&mut dgt), [Input::Place(Square::G1, piece_of(4))]);
        assert!(!dgt.resynchronising());
        assert_eq!(dgt.counters().out_of_step, 1);
    }

    #[test]
    fn garbage_and_a_cut_message_are_dropped_and_the_dump_recovers_the_lost_move() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        dgt.port_mut().written.clear();
        // Noise, then the lift of e2 cut short by the next message.
        let mut noise = vec![0x13, 0x7f, 0x00];
        noise.extend_from_slice(&update(Square::E2, 0)[..3]);
        noise.extend_from_slice(&update(Square::D2, 0));
        dgt.port_mut().incoming.push_back(noise);
        // The lift of d2 is held back: the lost message came before it.
        assert!(inputs(&mut dgt).is_empty());
        let faults = dgt.counters().decode;
        assert_eq!((faults.garbage_bytes, faults.truncated), (3, 1));
        assert_eq!(dgt.port().written, [wire::SEND_BRD], "one dump is asked");
        // The dump shows e2 empty too: its lift was not lost, and comes
        // before d2's, as the board saw them.
        let mut dump = start_dump();
        dump[3 + usize::from(field_of_square(Square::E2, false))] = 0;
        dump[3 + usize::from(field_of_square(Square::D2, false))] = 0;
        dgt.port_mut().incoming.push_back(dump);
        assert_eq!(
            inputs(&mut dgt),
            [Input::Lift(Square::E2), Input::Lift(Square::D2)]
        );
        assert_eq!(dgt.counters().resyncs, 1);
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        // A message whose tail never comes is dropped after a while.
        dgt.port_mut()
            .incoming
            .push_back(update(Square::C2, 0)[..4].to_vec());
        time.set(10);
        assert!(inputs(&mut dgt).is_empty());
        time.set(10 + PARTIAL_TIMEOUT_MS);
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.counters().decode.truncated, 2);
        // Bad content in a good frame: a field past 63.
        dgt.port_mut()
            .incoming
            .push_back(vec![wire::FIELD_UPDATE, 0, 5, 64, 1]);
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.counters().decode.malformed, 1);
    }

    #[test]
    fn one_dump_per_fault_and_again_only_when_it_is_lost() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        dgt.port_mut().written.clear();
        // A cut lift, then more noise while its dump is on its way: one
        // request.
        dgt.port_mut()
            .incoming
            .push_back(update(Square::E2, 0)[..2].to_vec());
        dgt.port_mut().incoming.push_back(update(Square::D2, 0));
        assert!(inputs(&mut dgt).is_empty());
        dgt.port_mut().incoming.push_back(vec![0x13, 0x13]);
        dgt.port_mut()
            .incoming
            .push_back(update(Square::C2, 0)[..4].to_vec());
        time.set(PARTIAL_TIMEOUT_MS);
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        // The dump itself comes cut: it will never come whole, asked again
        // at once.
        let mut dump = start_dump();
        for sq in [Square::E2, Square::D2, Square::C2] {
            dump[3 + usize::from(field_of_square(sq, false))] = 0;
        }
        dgt.port_mut().incoming.push_back(dump[..40].to_vec());
        dgt.port_mut().incoming.push_back(update(Square::B2, 0));
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.port().written, [wire::SEND_BRD, wire::SEND_BRD]);
        // Its answer lost without a trace: the board talks on, and 400 ms
        // later it is asked once more.
        time.set(PARTIAL_TIMEOUT_MS + DUMP_LOST_MS - 1);
        dgt.port_mut().incoming.push_back(update(Square::A2, 0));
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.port().written.len(), 2);
        time.set(PARTIAL_TIMEOUT_MS + DUMP_LOST_MS);
        assert!(inputs(&mut dgt).is_empty());
        assert_eq!(dgt.port().written.len(), 3);
        assert!(dgt.resynchronising());
        // The dump: the lost lifts (e2, c2) first, then the held ones in
        // the board's order (d2, b2, a2).
        for sq in [Square::B2, Square::A2] {
            dump[3 + usize::from(field_of_square(sq, false))] = 0;
        }
        dgt.port_mut().incoming.push_back(dump);
        assert_eq!(
            inputs(&mut dgt),
            [Square::C2, Square::E2, Square::D2, Square::B2, Square::A2].map(Input::Lift)
        );
        assert!(!dgt.resynchronising());
        assert_eq!(dgt.counters().dumps_asked, 4, "set-up, fault, cut, lost");
    }

    #[test]
    fn a_silent_board_fails_polls_and_a_dead_line_is_set_up_again() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        time.set(ANSWER_TIMEOUT_MS - 1);
        assert!(dgt.poll(&mut Vec::new()).is_ok(), "not yet");
        time.set(ANSWER_TIMEOUT_MS);
        assert!(matches!(dgt.poll(&mut Vec::new()), Err(Error::Silent)));
        assert_eq!(dgt.counters().timeouts, 1);
        time.set(ANSWER_TIMEOUT_MS + 5);
        assert!(
            matches!(dgt.poll(&mut Vec::new()), Err(Error::Silent)),
            "still silent: every poll fails until the board speaks"
        );
        assert_eq!(dgt.counters().timeouts, 1, "asked again only later");
        // It answers late: fine from then on.
        dgt.port_mut().incoming.push_back(start_dump());
        assert!(dgt.poll(&mut Vec::new()).is_ok());
        // The line dies, then comes back: the driver sets the board up anew.
        dgt.port_mut().fail = true;
        assert!(matches!(dgt.poll(&mut Vec::new()), Err(Error::Line(()))));
        dgt.port_mut().fail = false;
        dgt.port_mut().written.clear();
        assert!(dgt.poll(&mut Vec::new()).is_ok());
        assert_eq!(dgt.port().written, [0x40, 0x45, 0x4d, 0x42, 0x44]);
        // While it was away, e2-e4 was played: the dump tells.
        let mut dump = start_dump();
        dump[3 + usize::from(field_of_square(Square::E2, false))] = 0;
        dump[3 + usize::from(field_of_square(Square::E4, false))] = 1;
        dgt.port_mut().incoming.push_back(dump);
        assert_eq!(
            inputs(&mut dgt),
            [
                Input::Lift(Square::E2),
                Input::Place(Square::E4, piece_of(1))
            ]
        );
    }

    #[test]
    fn a_press_with_a_piece_still_in_the_air_asks_a_dump_and_waits_for_it() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        assert!(!dgt.news_pending());
        dgt.port_mut().written.clear();
        // e2 lifted at 100 ms; its place on e4 lost on the line.
        time.set(100);
        dgt.port_mut().incoming.push_back(update(Square::E2, 0));
        let mut lifted = Vec::new();
        dgt.poll_stamped(&mut lifted).unwrap();
        assert_eq!(lifted.len(), 1);
        assert_eq!(lifted[0].input, Input::Lift(Square::E2));
        // The press at 400 ms: a piece more in the air than at the last
        // press. A dump is asked, and the news is pending until it comes.
        time.set(400);
        dgt.press_came().unwrap();
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        assert!(dgt.news_pending());
        let mut dump = start_dump();
        dump[3 + usize::from(field_of_square(Square::E2, false))] = 0;
        dump[3 + usize::from(field_of_square(Square::E4, false))] = 1;
        time.set(475);
        dgt.port_mut().incoming.push_back(dump);
        let mut events = Vec::new();
        dgt.poll_stamped(&mut events).unwrap();
        // The place, stamped at the lift's instant: before the press.
        assert_eq!(
            events,
            [BoardEvent {
                input: Input::Place(Square::E4, piece_of(1)),
                board_ms: lifted[0].board_ms,
            }]
        );
        assert!(lifted[0].board_ms.is_some_and(|ms| ms <= 100));
        assert!(!dgt.news_pending());
        // Near miss: the next press, nothing more in the air, asks nothing.
        time.set(2_000);
        dgt.press_came().unwrap();
        assert_eq!(dgt.port().written, [wire::SEND_BRD]);
        assert!(!dgt.news_pending());
    }

    #[test]
    fn a_half_read_message_is_news_pending() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        dgt.port_mut()
            .incoming
            .push_back(update(Square::E2, 0)[..2].to_vec());
        inputs(&mut dgt);
        assert!(dgt.news_pending());
        dgt.port_mut()
            .incoming
            .push_back(update(Square::E2, 0)[2..].to_vec());
        assert_eq!(inputs(&mut dgt), [Input::Lift(Square::E2)]);
        assert!(!dgt.news_pending());
    }

    #[test]
    fn what_changed_while_the_line_was_down_is_stamped_when_it_failed() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        // The cable out at 1 s; back at 5 s.
        time.set(1_000);
        dgt.port_mut().fail = true;
        assert!(dgt.poll(&mut Vec::new()).is_err());
        time.set(3_000);
        assert!(dgt.poll(&mut Vec::new()).is_err());
        dgt.port_mut().fail = false;
        time.set(5_000);
        assert!(inputs(&mut dgt).is_empty());
        assert!(dgt.news_pending(), "set up again, its dump on its way");
        let mut dump = start_dump();
        dump[3 + usize::from(field_of_square(Square::E2, false))] = 0;
        dump[3 + usize::from(field_of_square(Square::E4, false))] = 1;
        time.set(5_080);
        dgt.port_mut().incoming.push_back(dump);
        let mut events = Vec::new();
        dgt.poll_stamped(&mut events).unwrap();
        let stamps: Vec<_> = events.iter().map(|e| (e.input, e.board_ms)).collect();
        assert_eq!(
            stamps,
            [
                (Input::Lift(Square::E2), Some(1_000)),
                (Input::Place(Square::E4, piece_of(1)), Some(1_000)),
            ]
        );
        assert!(!dgt.news_pending());
    }

    /// A dump of `board`'s pieces, the board turned round or not.
    fn dump_of(board: &shakmaty::Board, turned_round: bool) -> Vec<u8> {
        let mut fields = [0u8; 64];
        for (sq, piece) in board.clone() {
            fields[usize::from(field_of_square(sq, turned_round))] = code_of(piece);
        }
        let mut bytes = vec![wire::BOARD_DUMP, 0, 67];
        bytes.extend_from_slice(&fields);
        bytes
    }

    #[test]
    fn a_first_dump_that_is_no_start_is_not_guessed_from_until_the_start_is_there() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time);
        inputs(&mut dgt);
        // Turned round, White's king not on the board yet: more White
        // pieces at the 8 side, but no start, so no orientation.
        let mut short = shakmaty::Board::default();
        let king = short.remove_piece_at(Square::E1).unwrap();
        dgt.port_mut().incoming.push_back(dump_of(&short, true));
        inputs(&mut dgt);
        assert_eq!(dgt.flipped(), None);
        // Read as labelled meanwhile: White's pieces where the board says.
        assert_eq!(dgt.piece_at(Square::E8), short.piece_at(Square::D1));
        // The king put on its square: the start, turned round.
        let field = field_of_square(Square::E1, true);
        dgt.port_mut()
            .incoming
            .push_back(vec![wire::FIELD_UPDATE, 0, 5, field, code_of(king)]);
        let mut turned = inputs(&mut dgt);
        // A piece put down that no hand lifted: the driver asks the board
        // for the whole picture, which comes.
        if dgt.flipped().is_none() {
            dgt.port_mut()
                .incoming
                .push_back(dump_of(&shakmaty::Board::default(), true));
            turned.extend(inputs(&mut dgt));
        }
        assert_eq!(dgt.flipped(), Some(true));
        assert_eq!(dgt.pieces(), Some(shakmaty::Board::default()));
        // What the daemon was told adds up to the start.
        let mut told = shakmaty::Board::empty();
        for (sq, piece) in short.clone() {
            told.set_piece_at(Square::new(63 - u32::from(sq)), piece);
        }
        for input in turned {
            match input {
                Input::Lift(sq) => told.discard_piece_at(sq),
                Input::Place(sq, Some(piece)) => told.set_piece_at(sq, piece),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(told, shakmaty::Board::default());
    }

    #[test]
    fn a_setups_fen_is_the_start_the_orientation_is_taken_from() {
        use shakmaty::fen::Fen;
        let fen: Fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse().unwrap();
        let start = fen.as_setup().board.clone();
        for turned_round in [false, true] {
            let time = Rc::new(Cell::new(0));
            let mut dgt = board(time);
            SensorBoard::expect_start(&mut dgt, &start);
            inputs(&mut dgt);
            dgt.port_mut()
                .incoming
                .push_back(dump_of(&start, turned_round));
            inputs(&mut dgt);
            assert_eq!(dgt.flipped(), Some(turned_round));
            assert_eq!(dgt.pieces(), Some(start.clone()));
        }
        // The standard start is no start for this game: not guessed from.
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time);
        SensorBoard::expect_start(&mut dgt, &start);
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        assert_eq!(dgt.flipped(), None);
    }

    #[test]
    fn a_board_turned_round_is_read_the_right_way_up() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time);
        inputs(&mut dgt);
        let mut dump = start_dump();
        dump[3..].reverse();
        dgt.port_mut().incoming.push_back(dump);
        inputs(&mut dgt);
        assert_eq!(dgt.flipped(), Some(true));
        assert_eq!(dgt.piece_at(Square::E1), piece_of(5), "the white king");
        // The field the board calls e2's (field 52) is e7 here.
        dgt.port_mut().incoming.push_back(update(Square::E2, 0));
        assert_eq!(inputs(&mut dgt), [Input::Lift(Square::D7)]);
    }

    #[test]
    fn random_bytes_through_the_driver_never_panic_nor_stop_it() {
        let time = Rc::new(Cell::new(0));
        let mut dgt = board(time.clone());
        inputs(&mut dgt);
        dgt.port_mut().incoming.push_back(start_dump());
        inputs(&mut dgt);
        let mut state = 0x9e37_79b9_u32;
        for round in 0..5_000u32 {
            let chunk: Vec<u8> = (0..1 + round % 23)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    // Headers of real messages now and then, so that
                    // framed nonsense reaches the decoding too.
                    match state % 5 {
                        0 => wire::FIELD_UPDATE,
                        1 => (state >> 8) as u8 & 0x7f,
                        _ => (state >> 8) as u8,
                    }
                })
                .collect();
            dgt.port_mut().incoming.push_back(chunk);
            time.set(time.get() + 7);
            let _ = dgt.poll_stamped(&mut Vec::new());
        }
        assert!(dgt.counters().decode.total() > 0);
        // And the driver still reads the board: a dump and a good update
        // after it all.
        time.set(time.get() + PARTIAL_TIMEOUT_MS);
        let _ = dgt.poll_stamped(&mut Vec::new());
        dgt.port_mut().incoming.push_back(start_dump());
        dgt.port_mut().incoming.push_back(update(Square::E2, 0));
        let _ = dgt.poll_stamped(&mut Vec::new());
        assert_eq!(dgt.piece_at(Square::E1), piece_of(5));
        assert_eq!(dgt.piece_at(Square::E2), None);
        assert!(!dgt.resynchronising());
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut decoder = Decoder::new();
        let mut out = Vec::new();
        let mut state = 0x1234_5678_u32;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            decoder.push(&[state as u8], &mut out);
        }
        assert!(decoder.faults().total() > 0);
    }
}
