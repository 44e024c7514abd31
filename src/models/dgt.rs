//! A DGT e-board's model: the board side of DGT's serial protocol, so the
//! real driver ([`crate::hardware::dgt::DgtBoard`]) runs on a desktop.
//!
//! [`DgtBoardModel`] is sans-IO: commands in, the board's bytes out, each
//! stamped with when the board sent it; hands lift and place pieces on it
//! ([`Hands`]; touches are not sensed, as on the real board). Two lines
//! carry its bytes:
//! - [`DgtOnPty`] (Linux): a pseudo-terminal whose slave is reached through
//!   a symbolic link, as `/dev/ttyUSB0` is, answered by a thread: the
//!   driver opens and reads a real tty. Unplugging closes the master (the
//!   driver's reads fail, the link disappears); plugging makes a new one.
//! - [`ModelLine`]: in memory, each byte arriving one byte time (1.04 ms at
//!   9600 baud) after the one before, on a clock the caller keeps: the
//!   real-time benchmark's deterministic wire.
//!
//! Faults: garbage bytes, a message cut short, a field update dropped, cut
//! or corrupted ([`LineFault`]), a slow board (every answer late by a set
//! time), unplug and replug.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use shakmaty::{Board, Piece, Square};

use super::Hands;
use super::dgt3000::Dgt3000Model;
use crate::Millis;
use crate::hardware::dgt::{code_of, field_of_square, wire};
use crate::hardware::dgt3000::{
    self, ClockSide, ClockTime, Dgt3000Button, encode_ack, encode_times,
};
use crate::hardware::serial::{SerialPort, byte_time_us};

/// The serial number the model reports (five ASCII digits).
pub const MODEL_SERIAL: &[u8; 5] = b"31415";

/// What happens on the line to a field update the board sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFault {
    /// Lost whole: not one of its bytes arrives.
    Drop,
    /// Only its first bytes arrive (1 to 4 of its 5).
    Cut(usize),
    /// One of its bytes arrives changed: XORed with the mask (`0x80` makes
    /// a data byte look like a header; `0x40` puts a field or piece code
    /// out of range).
    Corrupt {
        /// Which byte, 0..5.
        index: usize,
        /// The bits flipped.
        mask: u8,
    },
}

/// A DGT board: 64 squares with pieces, idle or in update mode.
#[derive(Debug, Clone)]
pub struct DgtBoardModel {
    /// DGT piece codes by square (a1 = 0).
    squares: [u8; 64],
    /// Set up turned round (White at the board's 8 side).
    flipped: bool,
    /// Field updates are sent (`SEND_UPDATE_BRD`, `SEND_UPDATE`).
    updating: bool,
    /// The board's bytes, each with the instant it is sent.
    out: VecDeque<(Millis, u8)>,
    /// Added to the instant of every answer and update: a slow board.
    delay_ms: Millis,
    /// The next message goes out cut after this many bytes.
    truncate_next: Option<usize>,
    /// What happens to the next field update on the line.
    update_fault: Option<LineFault>,
    commands: u64,
    dumps_asked: u64,
    /// The DGT 3000 plugged into it, if one is.
    clock: Option<Dgt3000Model>,
    /// Update mode with the clock's reports (`SEND_UPDATE`,
    /// `SEND_UPDATE_NICE`): the clock's times, levers, buttons and acks
    /// are sent.
    reports_clock: bool,
    /// A clock message from the host, being received.
    clock_message: Vec<u8>,
    /// The clock's last report sent, and up to when the clock was looked
    /// at.
    last_report: Option<(ClockTime, ClockTime, u8)>,
    clock_seen: Millis,
}

impl DgtBoardModel {
    /// A board holding `board`'s pieces, idle, the right way round.
    pub fn new(board: &Board) -> DgtBoardModel {
        let mut squares = [wire::EMPTY; 64];
        for (sq, piece) in board.clone() {
            squares[usize::from(sq)] = code_of(piece);
        }
        DgtBoardModel {
            squares,
            flipped: false,
            updating: false,
            out: VecDeque::new(),
            delay_ms: 0,
            truncate_next: None,
            update_fault: None,
            commands: 0,
            dumps_asked: 0,
            clock: None,
            reports_clock: false,
            clock_message: Vec::new(),
            last_report: None,
            clock_seen: 0,
        }
    }

    /// The same board with a DGT 3000 plugged into it.
    pub fn with_clock(mut self) -> DgtBoardModel {
        self.clock = Some(Dgt3000Model::new());
        self
    }

    /// The DGT 3000, if one is plugged in.
    pub fn clock(&self) -> Option<&Dgt3000Model> {
        self.clock.as_ref()
    }

    /// The DGT 3000, to change (faults).
    pub fn clock_mut(&mut self) -> Option<&mut Dgt3000Model> {
        self.clock.as_mut()
    }

    /// What the clock's display shows at `now`, if a clock is plugged in.
    pub fn clock_display(&self, now: Millis) -> Option<String> {
        self.clock.as_ref().map(|c| c.display(now))
    }

    /// A hand presses the clock's lever on `side` at `now`.
    pub fn press_lever(&mut self, now: Millis, side: ClockSide) {
        self.tick(now);
        if let Some(clock) = self.clock.as_mut()
            && clock.plugged()
        {
            clock.press_lever(now, side);
        }
        self.report_clock(now);
    }

    /// A hand presses one of the clock's buttons at `now`.
    pub fn press_button(&mut self, now: Millis, button: Dgt3000Button) {
        self.tick(now);
        if self.clock.as_ref().is_some_and(|c| c.plugged()) && self.reports_clock && self.updating {
            let ack = encode_ack(Dgt3000Model::button_ack(button));
            self.send(now, wire::BWTIME, &ack);
        }
    }

    /// The clock's cable out of (or into) the board at `now`.
    pub fn plug_clock(&mut self, now: Millis, plugged: bool) {
        self.tick(now);
        if let Some(clock) = self.clock.as_mut() {
            clock.set_plugged(plugged);
        }
        self.report_clock(now);
    }

    /// Sends the clock's times and status if they changed since the last
    /// report (the board in update mode with the clock).
    fn report_clock(&mut self, now: Millis) {
        let Some(clock) = self.clock.as_ref() else {
            return;
        };
        if !(self.updating && self.reports_clock) {
            return;
        }
        let report = clock.report(now);
        if self.last_report != Some(report) {
            self.last_report = Some(report);
            let (left, right, status) = report;
            self.send(now, wire::BWTIME, &encode_times(left, right, status));
        }
    }

    /// Reports each change of the running clock's seconds up to `now`, at
    /// its instant.
    fn tick(&mut self, now: Millis) {
        while let Some(at) = self
            .clock
            .as_ref()
            .and_then(|c| c.next_change(self.clock_seen))
            .filter(|&at| at <= now)
        {
            self.clock_seen = at;
            self.report_clock(at);
        }
        self.clock_seen = self.clock_seen.max(now);
    }

    /// A clock command's bytes, complete: passed to the clock, and its ack
    /// sent back in update mode with the clock (DGT: no ack otherwise).
    fn clock_command(&mut self, at: Millis) {
        let message = std::mem::take(&mut self.clock_message);
        let [
            dgt3000::wire::CLOCK_MESSAGE,
            _,
            dgt3000::wire::START_MESSAGE,
            id,
            ref content @ ..,
        ] = message[..]
        else {
            return;
        };
        let content = content
            .strip_suffix(&[dgt3000::wire::END_MESSAGE])
            .unwrap_or(content);
        let Some(clock) = self.clock.as_mut().filter(|c| c.plugged()) else {
            return;
        };
        let ack = clock.command(at, id, content);
        if let Some(ack) = ack
            && self.updating
            && self.reports_clock
        {
            self.send(at, wire::BWTIME, &encode_ack(ack));
            self.report_clock(at);
        }
    }

    /// The same board turned round: its field 0 is h1.
    pub fn turned_round(mut self) -> DgtBoardModel {
        self.flipped = true;
        self
    }

    /// Whether the board sends field updates.
    #[cfg(test)]
    pub fn updating(&self) -> bool {
        self.updating
    }

    /// Command bytes received.
    pub fn commands(&self) -> u64 {
        self.commands
    }

    /// Board dumps asked for (`SEND_BRD` received).
    pub fn dumps_asked(&self) -> u64 {
        self.dumps_asked
    }

    /// The next field update the board sends meets `fault` on the line.
    pub fn fault_next_update(&mut self, fault: LineFault) {
        self.update_fault = Some(fault);
    }

    /// Whether a fault set by [`DgtBoardModel::fault_next_update`] is still
    /// to happen.
    pub fn update_fault_pending(&self) -> bool {
        self.update_fault.is_some()
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        crate::hardware::dgt::piece_of(self.squares[usize::from(sq)])
    }

    /// Every answer and update from now on is this late: a board that
    /// answers slowly.
    pub fn set_delay(&mut self, ms: Millis) {
        self.delay_ms = ms;
    }

    /// Noise on the line at `at`.
    pub fn inject_garbage(&mut self, at: Millis, bytes: &[u8]) {
        let at = at + self.delay_ms;
        self.out.extend(bytes.iter().map(|&b| (at, b)));
    }

    /// The next message goes out with only its first `bytes` bytes.
    pub fn truncate_next(&mut self, bytes: usize) {
        self.truncate_next = Some(bytes);
    }

    /// The board loses power: idle again when it comes back, its squares
    /// as the hands leave them.
    pub fn power_cycle(&mut self) {
        self.updating = false;
        self.reports_clock = false;
        self.clock_message.clear();
        self.out.clear();
    }

    /// Bytes from the host at `at`.
    pub fn receive(&mut self, at: Millis, bytes: &[u8]) {
        self.tick(at);
        for &command in bytes {
            if !self.clock_message.is_empty() {
                // A clock message's bytes: its size (the bytes after it)
                // says where it ends.
                self.clock_message.push(command);
                let size = usize::from(self.clock_message[1]);
                if self.clock_message.len() >= 2 + size {
                    self.clock_command(at);
                }
                continue;
            }
            self.commands += 1;
            match command {
                dgt3000::wire::CLOCK_MESSAGE => self.clock_message.push(command),
                wire::SEND_RESET => self.updating = false,
                wire::SEND_BRD => {
                    self.dumps_asked += 1;
                    let mut fields = [wire::EMPTY; 64];
                    for sq in Square::ALL {
                        fields[usize::from(field_of_square(sq, self.flipped))] =
                            self.squares[usize::from(sq)];
                    }
                    self.send(at, wire::BOARD_DUMP, &fields);
                }
                wire::SEND_UPDATE | wire::SEND_UPDATE_NICE => {
                    self.updating = true;
                    self.reports_clock = true;
                    self.last_report = None;
                    self.report_clock(at);
                }
                wire::SEND_UPDATE_BRD => {
                    self.updating = true;
                    self.reports_clock = false;
                }
                wire::RETURN_SERIALNR => self.send(at, wire::SERIALNR, MODEL_SERIAL),
                wire::SEND_VERSION => self.send(at, wire::VERSION, &[1, 7]),
                wire::RETURN_BUSADRES => self.send(at, wire::BUSADRES, &[0x0c, 0x1e]),
                // Unknown commands are ignored, as the board does.
                _ => {}
            }
        }
    }

    /// Takes the bytes sent by `now`, in order.
    pub fn sent_by(&mut self, now: Millis, out: &mut Vec<u8>) {
        self.tick(now);
        while let Some(&(at, byte)) = self.out.front() {
            if at > now {
                break;
            }
            out.push(byte);
            self.out.pop_front();
        }
    }

    /// Takes the bytes sent by `now` with the instant each was sent.
    fn stamped_by(&mut self, now: Millis, out: &mut Vec<(Millis, u8)>) {
        self.tick(now);
        while let Some(&(at, byte)) = self.out.front() {
            if at > now {
                break;
            }
            out.push((at, byte));
            self.out.pop_front();
        }
    }

    fn send(&mut self, at: Millis, id: u8, data: &[u8]) {
        let len = data.len() + 3;
        let mut message = vec![id, (len >> 7) as u8 & 0x7f, len as u8 & 0x7f];
        message.extend_from_slice(data);
        if let Some(keep) = self.truncate_next.take() {
            message.truncate(keep);
        }
        if id == wire::FIELD_UPDATE {
            match self.update_fault.take() {
                Some(LineFault::Drop) => return,
                Some(LineFault::Cut(keep)) => message.truncate(keep),
                Some(LineFault::Corrupt { index, mask }) => {
                    if let Some(byte) = message.get_mut(index) {
                        *byte ^= mask;
                    }
                }
                None => {}
            }
        }
        // Never before what is already queued: the line keeps its order.
        let at = (at + self.delay_ms).max(self.out.back().map_or(0, |&(t, _)| t));
        self.out.extend(message.into_iter().map(|b| (at, b)));
    }

    fn set(&mut self, at: Millis, sq: Square, code: u8) {
        if self.squares[usize::from(sq)] == code {
            return;
        }
        self.squares[usize::from(sq)] = code;
        if self.updating {
            let field = field_of_square(sq, self.flipped);
            self.send(at, wire::FIELD_UPDATE, &[field, code]);
        }
    }
}

impl Hands for DgtBoardModel {
    fn lift(&mut self, at: Millis, sq: Square) {
        self.set(at, sq, wire::EMPTY);
    }

    fn place(&mut self, at: Millis, sq: Square, piece: Piece) {
        self.set(at, sq, code_of(piece));
    }

    /// A DGT board senses pieces, not hands.
    fn touch(&mut self, _at: Millis, _sq: Square) {}

    fn untouch(&mut self, _at: Millis, _sq: Square) {}
}

/// A clock in microseconds, shared by a line and whoever keeps time.
pub type MicroClock = Rc<dyn Fn() -> u64>;

/// The model's bytes on an in-memory wire at 9600 baud: each byte arrives
/// one byte time after the previous one has, from when the board sent it.
pub struct ModelLine {
    model: Rc<RefCell<DgtBoardModel>>,
    clock: MicroClock,
    /// Bytes on the wire, with the instant (µs) each has arrived.
    wire: VecDeque<(u64, u8)>,
    /// When the wire is free for the next byte.
    free_at_us: u64,
    byte_us: u64,
    sent: Vec<(Millis, u8)>,
}

impl ModelLine {
    /// The line to `model`, timed on `clock`.
    pub fn new(model: Rc<RefCell<DgtBoardModel>>, clock: MicroClock) -> ModelLine {
        ModelLine {
            model,
            clock,
            wire: VecDeque::new(),
            free_at_us: 0,
            byte_us: byte_time_us(wire::BAUD),
            sent: Vec::new(),
        }
    }

    /// Moves what the board has sent by now onto the wire.
    fn carry(&mut self) {
        let now_us = (self.clock)();
        self.sent.clear();
        self.model
            .borrow_mut()
            .stamped_by(now_us / 1000, &mut self.sent);
        for &(at, byte) in &self.sent {
            let start = (at * 1000).max(self.free_at_us);
            self.free_at_us = start + self.byte_us;
            self.wire.push_back((self.free_at_us, byte));
        }
    }
}

impl SerialPort for ModelLine {
    type Error = ();

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        self.carry();
        let now_us = (self.clock)();
        let mut n = 0;
        while n < buf.len()
            && let Some(&(arrived, byte)) = self.wire.front()
            && arrived <= now_us
        {
            buf[n] = byte;
            n += 1;
            self.wire.pop_front();
        }
        Ok(n)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ()> {
        // The command's own bytes take their time on the wire before the
        // board has them.
        let now_us = (self.clock)() + self.byte_us * bytes.len() as u64;
        self.model.borrow_mut().receive(now_us / 1000, bytes);
        Ok(())
    }

    fn reopen(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

#[cfg(target_os = "linux")]
pub use pty::DgtOnPty;

#[cfg(target_os = "linux")]
mod pty {
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex, MutexGuard};
    use std::time::{Duration, Instant};

    use rustix::fs::OFlags;
    use rustix::pty::OpenptFlags;
    use shakmaty::{Piece, Square};

    use crate::hardware::dgt3000::{ClockSide, Dgt3000Button};

    use super::{DgtBoardModel, Hands};
    use crate::Millis;

    struct Inner {
        model: DgtBoardModel,
        master: Option<OwnedFd>,
        start: Instant,
        out: Vec<u8>,
        /// The pieces the hands hold, last lifted last.
        held: Vec<Piece>,
    }

    impl Inner {
        fn now(&self) -> Millis {
            self.start.elapsed().as_millis() as Millis
        }

        /// Reads the host's commands and writes what the board has sent by
        /// now.
        fn service(&mut self) {
            let Some(master) = self.master.as_ref() else {
                return;
            };
            let mut buf = [0u8; 64];
            let mut commands = Vec::new();
            while let Ok(n @ 1..) = rustix::io::read(master, &mut buf) {
                commands.extend_from_slice(&buf[..n]);
            }
            let now = self.now();
            if !commands.is_empty() {
                self.model.receive(now, &commands);
            }
            self.out.clear();
            let mut out = std::mem::take(&mut self.out);
            self.model.sent_by(now, &mut out);
            let mut rest = &out[..];
            while !rest.is_empty() {
                match rustix::io::write(master, rest) {
                    Ok(n) => rest = &rest[n..],
                    Err(rustix::io::Errno::AGAIN) => {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    // Nobody on the other end: what the board sends is lost,
                    // as on a cable nobody reads.
                    Err(_) => break,
                }
            }
            self.out = out;
        }
    }

    /// A DGT board model answering on a pseudo-terminal, whose slave is at
    /// [`DgtOnPty::path`] (a symbolic link, as udev makes them).
    pub struct DgtOnPty {
        inner: Arc<Mutex<Inner>>,
        path: PathBuf,
        stop: Arc<AtomicBool>,
        thread: Option<std::thread::JoinHandle<()>>,
    }

    impl std::fmt::Debug for DgtOnPty {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("DgtOnPty")
                .field("path", &self.path)
                .finish_non_exhaustive()
        }
    }

    /// A new pseudo-terminal: its master, and the slave's path.
    fn open_pty() -> std::io::Result<(OwnedFd, PathBuf)> {
        // Close-on-exec: a daemon spawned by the test (`tocada run`) must
        // not inherit the master, or unplugging would not hang its line up.
        let master =
            rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
        rustix::pty::grantpt(&master)?;
        rustix::pty::unlockpt(&master)?;
        let name = rustix::pty::ptsname(&master, Vec::new())?;
        let flags = rustix::fs::fcntl_getfl(&master)?;
        rustix::fs::fcntl_setfl(&master, flags | OFlags::NONBLOCK)?;
        let path = PathBuf::from(name.to_string_lossy().into_owned());
        Ok((master, path))
    }

    impl DgtOnPty {
        /// The model on a new pseudo-terminal, its slave linked at `path`
        /// (replacing what was there), answered every millisecond by a
        /// thread of its own.
        pub fn open(model: DgtBoardModel, path: &Path) -> std::io::Result<DgtOnPty> {
            let inner = Arc::new(Mutex::new(Inner {
                model,
                master: None,
                start: Instant::now(),
                out: Vec::new(),
                held: Vec::new(),
            }));
            let stop = Arc::new(AtomicBool::new(false));
            let mut dgt = DgtOnPty {
                inner: Arc::clone(&inner),
                path: path.to_path_buf(),
                stop: Arc::clone(&stop),
                thread: None,
            };
            dgt.plug()?;
            let thread = std::thread::Builder::new()
                .name("dgt-model".to_owned())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        if let Ok(mut inner) = inner.lock() {
                            inner.service();
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                })?;
            dgt.thread = Some(thread);
            Ok(dgt)
        }

        /// Where the board's tty is, as `board.serial` names it.
        pub fn path(&self) -> &Path {
            &self.path
        }

        fn lock(&self) -> MutexGuard<'_, Inner> {
            self.inner
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        }

        /// Looks at the model or changes it (faults).
        pub fn with_model<T>(&self, f: impl FnOnce(&mut DgtBoardModel, Millis) -> T) -> T {
            let mut inner = self.lock();
            let now = inner.now();
            f(&mut inner.model, now)
        }

        /// The cable out: the tty hangs up and its link goes.
        pub fn unplug(&self) {
            let mut inner = self.lock();
            inner.master = None;
            inner.model.power_cycle();
            let _ = std::fs::remove_file(&self.path);
        }

        /// The cable in: a new tty at the same link, the board idle.
        pub fn plug(&self) -> std::io::Result<()> {
            let (master, slave) = open_pty()?;
            let mut inner = self.lock();
            inner.model.power_cycle();
            let _ = std::fs::remove_file(&self.path);
            std::os::unix::fs::symlink(&slave, &self.path)?;
            inner.master = Some(master);
            Ok(())
        }

        fn hand(&self, f: impl FnOnce(&mut DgtBoardModel, Millis)) {
            let mut inner = self.lock();
            let now = inner.now();
            f(&mut inner.model, now);
            // Sent at once, not at the thread's next turn.
            inner.service();
        }

        /// A hand presses the clock's lever on `side`.
        pub fn press_lever(&self, side: ClockSide) {
            self.hand(|model, now| model.press_lever(now, side));
        }

        /// A hand presses one of the clock's buttons.
        pub fn press_button(&self, button: Dgt3000Button) {
            self.hand(|model, now| model.press_button(now, button));
        }

        /// The clock's cable out of the board, or back in.
        pub fn plug_clock(&self, plugged: bool) {
            self.hand(|model, now| model.plug_clock(now, plugged));
        }

        /// What the clock's display shows now, if a clock is plugged in.
        pub fn clock_display(&self) -> Option<String> {
            self.with_model(|model, now| model.clock_display(now))
        }

        /// A hand lifts the piece on `sq`, and holds it.
        pub fn lift(&self, sq: Square) {
            let mut inner = self.lock();
            if let Some(piece) = inner.model.piece_at(sq) {
                inner.held.push(piece);
            }
            drop(inner);
            self.hand(|model, now| model.lift(now, sq));
        }

        /// A hand puts `piece` on `sq`; without one, the piece it lifted
        /// last (a white pawn if it holds none).
        pub fn place(&self, sq: Square, piece: Option<Piece>) {
            let mut inner = self.lock();
            let piece = match piece {
                Some(piece) => {
                    if let Some(i) = inner.held.iter().rposition(|&p| p == piece) {
                        inner.held.remove(i);
                    }
                    piece
                }
                None => inner.held.pop().unwrap_or(Piece {
                    color: shakmaty::Color::White,
                    role: shakmaty::Role::Pawn,
                }),
            };
            drop(inner);
            self.hand(|model, now| model.place(now, sq, piece));
        }
    }

    impl Drop for DgtOnPty {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::Input;
    use crate::hardware::SensorBoard;
    use crate::hardware::dgt::{DgtBoard, piece_of};

    /// The driver on the model of a board in the starting position, over
    /// the timed line, and the microseconds both go by.
    fn timed_driver() -> (
        Rc<Cell<u64>>,
        Rc<RefCell<DgtBoardModel>>,
        DgtBoard<ModelLine>,
    ) {
        let now_us = Rc::new(Cell::new(0u64));
        let model = Rc::new(RefCell::new(DgtBoardModel::new(&Board::default())));
        let t = now_us.clone();
        let line = ModelLine::new(model.clone(), Rc::new(move || t.get()));
        let t = now_us.clone();
        let dgt = DgtBoard::new(line, Rc::new(move || (t.get() / 1000) as Millis));
        (now_us, model, dgt)
    }

    #[test]
    fn the_driver_reads_the_model_over_a_timed_line() {
        let (now_us, model, mut dgt) = timed_driver();
        let mut out = Vec::new();
        dgt.poll(&mut out).unwrap();
        assert!(model.borrow().updating());
        // The board has the five commands at 5.2 ms; its serial (8 bytes),
        // version (5) and dump (67) take 83.4 ms more on the wire.
        now_us.set(85_000);
        dgt.poll(&mut out).unwrap();
        assert_eq!(
            dgt.piece_at(Square::E1),
            None,
            "the dump is still on the wire"
        );
        now_us.set(89_000);
        dgt.poll(&mut out).unwrap();
        assert_eq!(dgt.piece_at(Square::E1), piece_of(5));
        assert!(out.is_empty(), "the first dump is the board, not events");
        assert_eq!(dgt.identity().map(|id| id.serial), Some(31415));
        // A lift at 100 ms is 5 bytes on the wire: read at 105.2 ms.
        model.borrow_mut().lift(100, Square::E2);
        now_us.set(105_000);
        dgt.poll(&mut out).unwrap();
        assert!(out.is_empty());
        now_us.set(105_300);
        dgt.poll(&mut out).unwrap();
        assert_eq!(out, [Input::Lift(Square::E2)]);
        // A promotion: the board names the piece put down.
        let queen = piece_of(6).unwrap();
        model.borrow_mut().place(200, Square::E8, queen);
        now_us.set(210_000);
        out.clear();
        dgt.poll(&mut out).unwrap();
        assert_eq!(
            out,
            [
                Input::Lift(Square::E8),
                Input::Place(Square::E8, Some(queen))
            ]
        );
    }

    #[test]
    fn noise_and_cut_messages_never_lose_a_change() {
        for seed in 1..=12u64 {
            let (now_us, model, mut dgt) = timed_driver();
            let mut out = Vec::new();
            let advance = |dgt: &mut DgtBoard<ModelLine>, ms: u64, out: &mut Vec<Input>| {
                for _ in 0..ms {
                    now_us.set(now_us.get() + 1_000);
                    let _ = dgt.poll(out);
                }
            };
            advance(&mut dgt, 200, &mut out);
            let mut believed: [Option<Piece>; 64] =
                std::array::from_fn(|i| dgt.piece_at(Square::new(i as u32)));
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut faults = 0;
            for _ in 0..300 {
                let r = next();
                let at = now_us.get() / 1_000;
                match r % 7 {
                    0 => {
                        let noise: Vec<u8> = (0..1 + r % 7).map(|_| next() as u8).collect();
                        model.borrow_mut().inject_garbage(at, &noise);
                        faults += 1;
                    }
                    1 => {
                        model.borrow_mut().truncate_next(1 + (r as usize >> 8) % 4);
                        faults += 1;
                    }
                    _ => {
                        let sq = Square::new((r >> 8) as u32 % 64);
                        let mut m = model.borrow_mut();
                        if m.piece_at(sq).is_some() {
                            m.lift(at, sq);
                        } else {
                            let piece = crate::hardware::dgt::piece_of(1 + (r >> 16) as u8 % 12);
                            m.place(at, sq, piece.unwrap());
                        }
                    }
                }
                advance(&mut dgt, 1 + (r >> 24) % 40, &mut out);
            }
            // A quiet board: the safety-net dump settles any doubt.
            advance(&mut dgt, 1_500, &mut out);
            let _ = dgt.occupancy();
            advance(&mut dgt, 300, &mut out);
            for input in &out {
                match *input {
                    Input::Lift(sq) => believed[usize::from(sq)] = None,
                    Input::Place(sq, piece) => believed[usize::from(sq)] = piece,
                    _ => {}
                }
            }
            for sq in Square::ALL {
                assert_eq!(
                    believed[usize::from(sq)],
                    model.borrow().piece_at(sq),
                    "seed {seed}, {sq}: the events lost a change"
                );
            }
            assert!(
                faults > 0 && dgt.counters().decode.total() > 0,
                "seed {seed}"
            );
        }
    }

    #[test]
    fn a_board_that_never_answers_is_called_disconnected() {
        use crate::controls::LinkChange;
        use crate::hardware::link::{BoardLink, LinkPolicy};
        let (now_us, model, board) = timed_driver();
        // The board sends nothing: every answer is later than the test.
        model.borrow_mut().set_delay(Millis::MAX / 4);
        let mut link = BoardLink::new(board, LinkPolicy::default());
        let mut changes = Vec::new();
        let mut events = Vec::new();
        for ms in 0..5_000 {
            now_us.set(ms * 1_000);
            if let Some(change) = link.poll(ms, &mut events) {
                changes.push((ms, change));
            }
        }
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].1, LinkChange::Disconnected);
        // The first request times out at 1.5 s; five failed polls later.
        assert!((1_500..2_000).contains(&changes[0].0), "{changes:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_driver_reads_the_model_on_a_real_tty_through_unplug_and_replug() {
        use crate::hardware::serial::Tty;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ttyDGT");
        let pty = DgtOnPty::open(DgtBoardModel::new(&Board::default()), &path).unwrap();
        let start = std::time::Instant::now();
        let clock = Rc::new(move || start.elapsed().as_millis() as Millis);
        let mut dgt = DgtBoard::new(Tty::new(Some(path.clone()), wire::BAUD), clock);
        let mut out = Vec::new();
        match dgt.poll(&mut out) {
            // qemu-user answers the termios ioctls with ENOSYS; a Pi's
            // kernel has them. Tested natively.
            Err(crate::hardware::dgt::Error::Line(crate::hardware::serial::TtyError::Io(e)))
                if e.raw_os_error() == Some(rustix::io::Errno::NOSYS.raw_os_error()) =>
            {
                eprintln!("skipped: no termios here (qemu-user): {e}");
                return;
            }
            result => result.unwrap(),
        }
        assert_eq!(dgt.occupancy().unwrap(), Board::default().occupied());
        pty.lift(Square::G1);
        pty.place(Square::F3, None);
        let until = |dgt: &mut DgtBoard<Tty>, out: &mut Vec<Input>, n: usize| {
            for _ in 0..500 {
                let _ = dgt.poll(out);
                if out.len() >= n {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        };
        until(&mut dgt, &mut out, 2);
        assert_eq!(
            out,
            [
                Input::Lift(Square::G1),
                Input::Place(Square::F3, piece_of(3))
            ]
        );
        pty.unplug();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(dgt.poll(&mut Vec::new()).is_err(), "the tty hung up");
        // While unplugged, Nf3 is taken back on the board.
        pty.with_model(|model, now| {
            model.lift(now, Square::F3);
            model.place(now, Square::G1, piece_of(3).unwrap());
        });
        pty.plug().unwrap();
        out.clear();
        for _ in 0..200 {
            if dgt.poll(&mut out).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(dgt.occupancy().is_ok());
        until(&mut dgt, &mut out, 2);
        assert_eq!(
            out,
            [
                Input::Lift(Square::F3),
                Input::Place(Square::G1, piece_of(3))
            ]
        );
        assert_eq!(dgt.counters().reopens, 1);
    }
}
