//! The SSD1306 OLED on a shared I2C bus, sending [`Frame`]s a few bytes at a
//! time so that a sensor board on the same wires is never held up for long.
//!
//! A new frame is *staged* ([`Oled::stage`]): the driver compares it page
//! by page with what the panel shows and queues the changed columns as
//! bounded writes, the areas the caller named urgent first (the face's
//! running-clock marker, then its times), then the rest. Each call of
//! [`Oled::send_next`] sends exactly one of those writes, so the daemon's
//! loop can put a board poll between any two; [`Oled::flush`] sends them
//! all.
//!
//! # On the wire
//!
//! The controller runs in page addressing mode. Every write is one I2C
//! transaction that addresses itself and carries its data, using the
//! continuation bit (Co) of the control byte (SSD1306 datasheet § 8.1.5):
//!
//! ```text
//! 0x80 0xB0|page  0x80 0x00|col&15  0x80 0x10|col>>4  0x40 data…
//! ```
//!
//! Three commands, each after a `0x80` control byte (Co = 1: one command
//! byte follows, then another control byte), then `0x40` (Co = 0, D/C# = 1:
//! display data to the end of the transaction). That is 7 bytes beside the
//! address byte and at most [`MAX_DATA`] data bytes: 24 bytes, 2.2 ms at
//! 100 kHz, 0.55 ms at 400 kHz. Since each write sets its own address, a
//! write lost on the bus cannot misplace the next one.
//!
//! # Errors
//!
//! A write that fails leaves its columns unknown: they may hold the old
//! bytes, the new ones or a mix. The driver then stops sending ([`Oled::is_busy`]
//! turns false) and keeps nothing as shown that might not be; the next
//! [`Oled::stage`] (or [`Oled::retry`]) sends those columns again with
//! whatever else differs. [`Oled::init`] makes the whole panel unknown, so
//! the first frame after it is sent whole.

use core::fmt;
use std::collections::VecDeque;

use embedded_graphics::primitives::Rectangle;
use embedded_hal::i2c::I2c;

use crate::frame::{self, Frame, PAGES, WIDTH};

/// The SSD1306's usual address; 0x3D is the other.
pub const DEFAULT_ADDRESS: u8 = 0x3C;

/// The most display bytes one write carries. With the 7 bytes of control
/// and addressing and the address byte, a write is at most 24 bytes on the
/// wire: a board poll waits at most that long behind the OLED.
pub const MAX_DATA: usize = 16;

/// Bytes of a write besides its data: the address byte, three commands
/// with their control bytes, and the data's control byte.
pub const WRITE_OVERHEAD: usize = 8;

/// Unchanged columns between two changed runs are sent again rather than
/// start another write, when there are fewer of them than a write's
/// overhead: fewer bytes and fewer transactions.
const MERGE_GAP: usize = WRITE_OVERHEAD - 1;

/// The controller's set-up, in page addressing mode, mapped so the frame's
/// (0, 0) is the panel's top left. Split at command boundaries into writes
/// no longer than a data write.
const INIT: [&[u8]; 2] = [
    &[
        0x00, // control byte: commands follow
        0xAE, // display off while configuring
        0xD5, 0x80, // clock: divide ratio 1, oscillator at its default
        0xA8, 0x3F, // multiplex: 64 rows
        0xD3, 0x00, // no display offset
        0x40, // start line 0
        0x8D, 0x14, // charge pump on (internal supply, the usual module)
        0x20, 0x02, // page addressing mode
        0xA1, // segment remap: column 0 at the left
    ],
    &[
        0x00, // control byte: commands follow
        0xC8, // COM scan reversed: page 0 at the top
        0xDA, 0x12, // COM pins: alternative, no left/right remap (128 × 64)
        0x81, 0xCF, // contrast
        0xD9, 0xF1, // pre-charge: the charge pump's timing
        0xDB, 0x40, // VCOMH deselect level
        0x2E, // no scrolling
        0xA4, // show the RAM
        0xA6, // not inverted
        0xAF, // display on
    ],
];

/// What went wrong talking to the panel: the bus error, kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error<E> {
    /// A write on the bus failed: NACKed (panel unplugged, wrong address)
    /// or disturbed.
    Bus(E),
}

impl<E: fmt::Debug> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Bus(e) => write!(f, "OLED: a write on the I2C bus failed: {e:?}"),
        }
    }
}

impl<E: fmt::Debug> core::error::Error for Error<E> {}

/// One queued write: `len` columns of page `page` from column `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Write {
    /// Index of the first urgent area it belongs to; the rest rank last.
    rank: usize,
    page: u8,
    start: u8,
    len: u8,
}

/// The 128 × 64 SSD1306, showing [`Frame`]s.
pub struct Oled<I2C> {
    i2c: I2C,
    address: u8,
    /// The frame last staged.
    target: Frame,
    /// What the panel shows, where known.
    shown: Frame,
    /// Per page, the columns whose bytes on the panel are unknown (bit x).
    unknown: [u128; PAGES],
    /// The urgent areas of the frame last staged, most urgent first.
    urgent: Vec<Rectangle>,
    queue: VecDeque<Write>,
}

impl<I2C: I2c> Oled<I2C> {
    /// A driver for the panel at 0x3C. No bus traffic until [`Oled::init`].
    pub fn new(i2c: I2C) -> Oled<I2C> {
        Oled::at(i2c, DEFAULT_ADDRESS)
    }

    /// A driver for the panel at `address` (0x3C, or 0x3D when the module's
    /// address jumper is moved).
    pub fn at(i2c: I2C, address: u8) -> Oled<I2C> {
        Oled {
            i2c,
            address,
            target: Frame::new(),
            shown: Frame::new(),
            unknown: [u128::MAX; PAGES],
            urgent: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Configures the controller and turns the panel on, in two writes of
    /// at most 15 bytes. Its display RAM is left as it was: the whole panel
    /// counts as unknown, and the frame staged last (or the next one) is
    /// queued whole.
    pub fn init(&mut self) -> Result<(), Error<I2C::Error>> {
        self.unknown = [u128::MAX; PAGES];
        self.queue.clear();
        for part in INIT {
            self.i2c.write(self.address, part).map_err(Error::Bus)?;
        }
        self.plan();
        Ok(())
    }

    /// Makes `frame` the one to show, `urgent` areas first (most urgent
    /// first; `face::urgent` gives the face's). Replaces whatever of the
    /// previous frame was still queued: queues, as bounded writes, the
    /// columns of each page where `frame` differs from what the panel
    /// shows or may show. No bus traffic.
    pub fn stage(&mut self, frame: &Frame, urgent: &[Rectangle]) {
        self.target.clone_from(frame);
        self.urgent.clear();
        self.urgent.extend_from_slice(urgent);
        self.plan();
    }

    /// Queues again what the panel may not show of the frame staged last
    /// (after an error).
    pub fn retry(&mut self) {
        self.plan();
    }

    /// Whether writes are queued.
    pub fn is_busy(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The writes queued.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The urgent area the next write belongs to, as an index into the
    /// list given to [`Oled::stage`] (its length for the rest); `None` when
    /// nothing is queued. Once it is past 0, the most urgent area is shown.
    pub fn next_rank(&self) -> Option<usize> {
        self.queue.front().map(|w| w.rank)
    }

    /// Sends the next queued write, one I2C transaction of at most
    /// [`WRITE_OVERHEAD`] + [`MAX_DATA`] bytes. `Ok(false)` if nothing was
    /// queued. After an error nothing more is queued; its columns are sent
    /// again by the next [`Oled::stage`] or [`Oled::retry`].
    pub fn send_next(&mut self) -> Result<bool, Error<I2C::Error>> {
        let Some(w) = self.queue.pop_front() else {
            return Ok(false);
        };
        let (page, start, len) = (
            usize::from(w.page),
            usize::from(w.start),
            usize::from(w.len),
        );
        let columns = start..start + len;
        let mut buf = [0u8; WRITE_OVERHEAD - 1 + MAX_DATA];
        buf[..7].copy_from_slice(&[
            0x80,
            0xB0 | w.page,
            0x80,
            w.start & 0x0F,
            0x80,
            0x10 | w.start >> 4,
            0x40,
        ]);
        buf[7..7 + len].copy_from_slice(&self.target.page(page)[columns.clone()]);
        let mask = run_mask(columns.clone());
        match self.i2c.write(self.address, &buf[..7 + len]) {
            Ok(()) => {
                self.shown.copy_columns(&self.target, page, columns);
                self.unknown[page] &= !mask;
                Ok(true)
            }
            Err(e) => {
                // Part of it may have landed: neither frame's bytes are
                // known to be there.
                self.unknown[page] |= mask;
                self.queue.clear();
                Err(Error::Bus(e))
            }
        }
    }

    /// Sends every queued write, in order.
    pub fn flush(&mut self) -> Result<(), Error<I2C::Error>> {
        while self.send_next()? {}
        Ok(())
    }

    /// Stages `frame` and sends it all: [`Oled::stage`] then [`Oled::flush`].
    pub fn show(&mut self, frame: &Frame, urgent: &[Rectangle]) -> Result<(), Error<I2C::Error>> {
        self.stage(frame, urgent);
        self.flush()
    }

    /// Gives the bus back.
    pub fn release(self) -> I2C {
        self.i2c
    }

    /// Rebuilds the queue: the columns to send, grouped into writes, most
    /// urgent first, then page by page, left to right.
    fn plan(&mut self) {
        self.queue.clear();
        let rest = self.urgent.len();
        let mut ranks = [[rest; WIDTH]; PAGES];
        // Backwards, so the first area listed wins where areas overlap.
        for (rank, area) in self.urgent.iter().enumerate().rev() {
            for page in frame::pages_of(area) {
                ranks[page][frame::columns_of(area)].fill(rank);
            }
        }
        let mut writes = Vec::new();
        for (page, ranks) in ranks.iter().enumerate() {
            let unknown = self.unknown[page];
            let (want, have) = (self.target.page(page), self.shown.page(page));
            let dirty = |x: usize| want[x] != have[x] || unknown >> x & 1 == 1;
            let mut open: Option<Write> = None;
            for x in (0..WIDTH).filter(|&x| dirty(x)) {
                if let Some(w) = open.as_mut() {
                    let end = usize::from(w.start) + usize::from(w.len);
                    if ranks[x] == w.rank
                        && x - end <= MERGE_GAP
                        && x + 1 - usize::from(w.start) <= MAX_DATA
                    {
                        w.len = (x + 1 - usize::from(w.start)) as u8;
                        continue;
                    }
                    writes.push(*w);
                }
                open = Some(Write {
                    rank: ranks[x],
                    page: page as u8,
                    start: x as u8,
                    len: 1,
                });
            }
            writes.extend(open);
        }
        // Stable: within a rank, page by page and left to right.
        writes.sort_by_key(|w| w.rank);
        self.queue.extend(writes);
    }
}

/// Bits `columns` of a page's column mask.
fn run_mask(columns: core::ops::Range<usize>) -> u128 {
    columns.fold(0, |m, x| m | 1 << x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_graphics::prelude::*;
    use embedded_hal::i2c::ErrorKind;
    use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

    const A: u8 = DEFAULT_ADDRESS;

    fn write(page: u8, start: u8, data: &[u8]) -> Transaction {
        let mut bytes = vec![
            0x80,
            0xB0 | page,
            0x80,
            start & 0x0F,
            0x80,
            0x10 | start >> 4,
            0x40,
        ];
        bytes.extend_from_slice(data);
        Transaction::write(A, bytes)
    }

    /// A driver that believes the panel shows `shown` (as after a flush).
    fn showing(mock: Mock, shown: &Frame) -> Oled<Mock> {
        let mut oled = Oled::new(mock);
        oled.target = shown.clone();
        oled.shown = shown.clone();
        oled.unknown = [0; PAGES];
        oled
    }

    #[test]
    fn init_is_two_short_writes_and_queues_a_whole_frame() {
        let mock = Mock::new(&[
            Transaction::write(A, INIT[0].to_vec()),
            Transaction::write(A, INIT[1].to_vec()),
        ]);
        let mut oled = Oled::new(mock);
        oled.init().unwrap();
        assert!(INIT.iter().all(|w| w.len() < WRITE_OVERHEAD + MAX_DATA));
        // A dark frame still goes out whole: the RAM is unknown.
        assert_eq!(oled.queued(), PAGES * WIDTH / MAX_DATA);
        oled.release().done();
    }

    #[test]
    fn a_small_change_is_one_write_with_its_address() {
        let mut next = Frame::new();
        next.set_pixel(40, 33, true); // page 4, bit 1
        next.set_pixel(42, 32, true); // two columns on: merged over the gap
        let mock = Mock::new(&[write(4, 40, &[0x02, 0x00, 0x01])]);
        let mut oled = showing(mock, &Frame::new());
        oled.stage(&next, &[]);
        assert_eq!(oled.queued(), 1);
        assert!(oled.send_next().unwrap());
        assert!(!oled.send_next().unwrap());
        // Staging the same frame again sends nothing.
        oled.stage(&next, &[]);
        assert!(!oled.is_busy());
        oled.release().done();
    }

    #[test]
    fn urgent_areas_go_first_and_long_runs_are_split() {
        let mut next = Frame::new();
        // A whole row on page 0, and a marker on page 4.
        for x in 0..WIDTH as i32 {
            next.set_pixel(x, 0, true);
        }
        for x in 88..104 {
            next.set_pixel(x, 36, true);
        }
        let marker = Rectangle::new(Point::new(88, 36), Size::new(16, 4));
        let mut script = vec![write(4, 88, &[0x10; 16])];
        for start in (0..128).step_by(MAX_DATA) {
            script.push(write(0, start as u8, &[0x01; 16]));
        }
        let mut oled = showing(Mock::new(&script), &Frame::new());
        oled.stage(&next, &[marker]);
        assert_eq!(oled.next_rank(), Some(0));
        oled.send_next().unwrap();
        assert_eq!(oled.next_rank(), Some(1));
        oled.flush().unwrap();
        oled.release().done();
    }

    #[test]
    fn a_failed_write_is_sent_again_by_the_next_stage() {
        let mut a = Frame::new();
        a.set_pixel(0, 0, true);
        let mut c = a.clone();
        c.set_pixel(0, 1, true);
        let script = [
            // The write of c is NACKed: column 0 may now hold anything.
            write(0, 0, &[0x03]).with_error(ErrorKind::Other),
            // Staging a again resends column 0, though a is what the panel
            // showed before the failed write.
            write(0, 0, &[0x01]),
        ];
        let mut oled = showing(Mock::new(&script), &a);
        oled.stage(&c, &[]);
        assert_eq!(oled.send_next(), Err(Error::Bus(ErrorKind::Other)));
        assert!(!oled.is_busy());
        oled.stage(&a, &[]);
        assert_eq!(oled.queued(), 1);
        oled.flush().unwrap();
        oled.release().done();
    }
}
