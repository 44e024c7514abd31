//! A model of the SSD1306 OLED controller on its I2C bus side.
//!
//! [`Ssd1306Model`] answers at 0x3C and decodes what a driver writes the way
//! the chip does: the first byte of every write is a control byte (`0x00`:
//! commands follow, `0x40`: data for the display RAM follow; with the
//! continuation bit `0x80` set, one byte follows and then another control
//! byte). Commands set the addressing mode, the column and page window and
//! the panel's mapping; data bytes land in the 128 × 64 display RAM (GDDRAM)
//! at the address pointer, which moves and wraps as the datasheet says.
//!
//! [`Ssd1306Model::pixel`] shows the panel as it would look on the usual
//! 128 × 64 module, which `hardware::oled` sets up with segment remap and
//! reversed COM scan: what the driver draws at (0, 0) is top-left.
//! [`Ssd1306Model::nack_at_byte`] cuts a write short mid-transaction, as a
//! disturbed bus would.

use std::cell::RefCell;
use std::rc::Rc;

use embedded_hal::i2c::{
    ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation, SevenBitAddress,
};

/// Columns of the panel.
pub const WIDTH: usize = 128;
/// Rows of the panel.
pub const HEIGHT: usize = 64;
/// Pages of eight rows in the display RAM.
pub const PAGES: usize = HEIGHT / 8;
/// The controller's I2C address (SA0 low).
pub const ADDRESS: u8 = 0x3C;

/// How the address pointer moves after a data byte (command `0x20`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressingMode {
    /// Along the column window, then to the next page of the page window.
    Horizontal,
    /// Down the page window, then to the next column of the column window.
    Vertical,
    /// Along the page only; the page is set with `0xB0..=0xB7`.
    Page,
}

/// A software SSD1306 on the bus side of [`embedded_hal::i2c::I2c`].
#[derive(Debug, Clone)]
pub struct Ssd1306Model {
    ram: [u8; WIDTH * PAGES],
    on: bool,
    mode: AddressingMode,
    col_window: (u8, u8),
    page_window: (u8, u8),
    col: u8,
    page: u8,
    contrast: u8,
    segment_remap: bool,
    com_reversed: bool,
    display_offset: u8,
    start_line: u8,
    multiplex: u8,
    inverted: bool,
    all_on: bool,
    charge_pump: bool,
    scrolling: bool,
    /// A command byte waiting for its arguments, and those seen so far.
    pending: Option<(u8, Vec<u8>)>,
    nacks: u32,
    /// NACK the next transaction at this byte after the address.
    nack_at: Option<usize>,
    bytes: u64,
    data: u64,
    transactions: u64,
    unknown: u64,
}

impl Default for Ssd1306Model {
    fn default() -> Self {
        Self::new()
    }
}

/// Arguments a command byte takes (0 for single-byte commands).
fn arguments(cmd: u8) -> usize {
    match cmd {
        0x81 | 0x20 | 0xA8 | 0xD3 | 0xDA | 0xD5 | 0xD9 | 0xDB | 0x8D | 0xAD => 1,
        0x21 | 0x22 | 0xA3 => 2,
        0x26 | 0x27 => 6,
        0x29 | 0x2A => 5,
        _ => 0,
    }
}

impl Ssd1306Model {
    /// A controller as after reset: display off, page addressing, RAM
    /// cleared (the datasheet leaves it undefined), charge pump off.
    pub fn new() -> Ssd1306Model {
        Ssd1306Model {
            ram: [0; WIDTH * PAGES],
            on: false,
            mode: AddressingMode::Page,
            col_window: (0, WIDTH as u8 - 1),
            page_window: (0, PAGES as u8 - 1),
            col: 0,
            page: 0,
            contrast: 0x7F,
            segment_remap: false,
            com_reversed: false,
            display_offset: 0,
            start_line: 0,
            multiplex: HEIGHT as u8 - 1,
            inverted: false,
            all_on: false,
            charge_pump: false,
            scrolling: false,
            pending: None,
            nacks: 0,
            nack_at: None,
            bytes: 0,
            data: 0,
            transactions: 0,
            unknown: 0,
        }
    }

    /// Whether the panel is lit: display on (`0xAF`) with its charge pump.
    pub fn is_on(&self) -> bool {
        self.on && self.charge_pump
    }

    /// Whether pixel (`x`, `y`) is lit as the panel shows it, `(0, 0)` top-left.
    pub fn pixel(&self, x: usize, y: usize) -> bool {
        if x >= WIDTH || y >= HEIGHT || !self.is_on() {
            return false;
        }
        if self.all_on {
            return true;
        }
        // The panel's top row is COM63 and its left column SEG127.
        let com = HEIGHT - 1 - y;
        let row = if self.com_reversed {
            HEIGHT - 1 - com
        } else {
            com
        };
        if row > usize::from(self.multiplex) {
            return false;
        }
        let seg = WIDTH - 1 - x;
        let col = if self.segment_remap {
            WIDTH - 1 - seg
        } else {
            seg
        };
        let line = (row + usize::from(self.start_line) + usize::from(self.display_offset)) % HEIGHT;
        let lit = self.ram[line / 8 * WIDTH + col] >> (line % 8) & 1 == 1;
        lit != self.inverted
    }

    /// Bytes on the wire: the address byte of each write plus every byte
    /// written (control bytes, commands, data).
    pub fn bytes_transferred(&self) -> u64 {
        self.bytes
    }

    /// Data bytes written into the display RAM.
    pub fn data_bytes(&self) -> u64 {
        self.data
    }

    /// Transactions acknowledged.
    pub fn transactions(&self) -> u64 {
        self.transactions
    }

    /// Command bytes the model accepted without knowing them.
    #[cfg(test)]
    pub fn unknown_commands(&self) -> u64 {
        self.unknown
    }

    /// The contrast set with `0x81`.
    pub fn contrast(&self) -> u8 {
        self.contrast
    }

    /// The addressing mode set with `0x20`.
    #[cfg(test)]
    pub fn addressing_mode(&self) -> AddressingMode {
        self.mode
    }

    /// Refuse the next `n` transactions with a NACK of the address byte.
    pub fn nack_next(&mut self, n: u32) {
        self.nacks = n;
    }

    /// NACK the next transaction at its `n`th byte after the address byte
    /// (from 1): the bytes before it are taken as written, that one and
    /// the rest are not. A write cut short on the bus.
    pub fn nack_at_byte(&mut self, n: usize) {
        self.nack_at = Some(n.max(1));
    }

    /// Zeroes the bus-load counters.
    pub fn reset_counters(&mut self) {
        self.bytes = 0;
        self.data = 0;
        self.transactions = 0;
    }

    /// One message: a write with its control bytes.
    fn message(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some((&control, tail)) = rest.split_first() {
            let data = control & 0x40 != 0;
            let continuation = control & 0x80 != 0;
            let (now, later) = if continuation {
                tail.split_at(tail.len().min(1))
            } else {
                (tail, &[][..])
            };
            for &b in now {
                if data {
                    self.write_ram(b);
                } else {
                    self.command_byte(b);
                }
            }
            rest = later;
        }
    }

    fn write_ram(&mut self, b: u8) {
        self.data += 1;
        self.ram[usize::from(self.page) * WIDTH + usize::from(self.col)] = b;
        let (c0, c1) = self.col_window;
        let (p0, p1) = self.page_window;
        match self.mode {
            AddressingMode::Horizontal => {
                if self.col >= c1 {
                    self.col = c0;
                    self.page = if self.page >= p1 { p0 } else { self.page + 1 };
                } else {
                    self.col += 1;
                }
            }
            AddressingMode::Vertical => {
                if self.page >= p1 {
                    self.page = p0;
                    self.col = if self.col >= c1 { c0 } else { self.col + 1 };
                } else {
                    self.page += 1;
                }
            }
            AddressingMode::Page => {
                // The pointer wraps to column 0 and stays on its page.
                self.col = if usize::from(self.col) >= WIDTH - 1 {
                    0
                } else {
                    self.col + 1
                };
            }
        }
    }

    fn command_byte(&mut self, b: u8) {
        let (cmd, mut args) = match self.pending.take() {
            Some((cmd, mut args)) => {
                args.push(b);
                (cmd, args)
            }
            None => (b, Vec::new()),
        };
        if args.len() < arguments(cmd) {
            self.pending = Some((cmd, args));
            return;
        }
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let page = |v: u8| v.min(PAGES as u8 - 1);
        let column = |v: u8| v.min(WIDTH as u8 - 1);
        match cmd {
            0x00..=0x0F => self.col = column(self.col & 0xF0 | cmd),
            0x10..=0x1F => self.col = column((cmd & 0x0F) << 4 | self.col & 0x0F),
            0x20 => {
                self.mode = match arg(0) & 0x03 {
                    0 => AddressingMode::Horizontal,
                    1 => AddressingMode::Vertical,
                    _ => AddressingMode::Page,
                }
            }
            0x21 => {
                self.col_window = (column(arg(0)), column(arg(1)));
                self.col = self.col_window.0;
            }
            0x22 => {
                self.page_window = (page(arg(0)), page(arg(1)));
                self.page = self.page_window.0;
            }
            0x26 | 0x27 | 0x29 | 0x2A | 0xA3 => {} // scroll setup: accepted
            0x2E => self.scrolling = false,
            0x2F => self.scrolling = true,
            0x40..=0x7F => self.start_line = cmd & 0x3F,
            0x81 => self.contrast = arg(0),
            0x8D => self.charge_pump = arg(0) & 0x04 != 0,
            0xA0 | 0xA1 => self.segment_remap = cmd == 0xA1,
            0xA4 | 0xA5 => self.all_on = cmd == 0xA5,
            0xA6 | 0xA7 => self.inverted = cmd == 0xA7,
            0xA8 => self.multiplex = (arg(0) & 0x3F).max(15),
            0xAD | 0xD5 | 0xD9 | 0xDA | 0xDB | 0xE3 => {} // analogue settings, NOP
            0xAE | 0xAF => self.on = cmd == 0xAF,
            0xB0..=0xB7 => self.page = cmd & 0x07,
            0xC0 | 0xC8 => self.com_reversed = cmd == 0xC8,
            0xD3 => self.display_offset = arg(0) & 0x3F,
            _ => {
                args.clear();
                self.unknown += 1;
            }
        }
    }
}

impl ErrorType for Ssd1306Model {
    type Error = ErrorKind;
}

impl I2c<SevenBitAddress> for Ssd1306Model {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), ErrorKind> {
        if address != ADDRESS {
            return Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address));
        }
        if self.nacks > 0 {
            self.nacks -= 1;
            return Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address));
        }
        self.transactions += 1;
        // Adjacent writes are one message on the wire; a read starts another.
        let mut message: Vec<u8> = Vec::new();
        let mut writing = false;
        for op in operations.iter_mut() {
            match op {
                Operation::Write(bytes) => {
                    if !writing {
                        self.bytes += 1; // address byte
                        writing = true;
                    }
                    self.bytes += bytes.len() as u64;
                    message.extend_from_slice(bytes);
                }
                Operation::Read(buf) => {
                    self.message(&std::mem::take(&mut message));
                    writing = false;
                    self.bytes += 1 + buf.len() as u64;
                    // The status byte: bit 6 set while the display is off.
                    buf.fill(if self.on { 0x00 } else { 0x40 });
                }
            }
        }
        if let Some(n) = self.nack_at.take()
            && n <= message.len()
        {
            message.truncate(n - 1);
            self.message(&message);
            return Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Data));
        }
        self.message(&message);
        Ok(())
    }
}

/// A shared handle on a model, so a test or the simulator can look at the
/// panel while a driver owns the bus.
#[derive(Debug, Clone, Default)]
pub struct SharedSsd1306(pub Rc<RefCell<Ssd1306Model>>);

impl SharedSsd1306 {
    /// A handle on a fresh model.
    pub fn new() -> SharedSsd1306 {
        SharedSsd1306::default()
    }

    /// Borrows the model.
    pub fn model(&self) -> std::cell::Ref<'_, Ssd1306Model> {
        self.0.borrow()
    }

    /// Borrows the model mutably (to inject faults).
    pub fn model_mut(&self) -> std::cell::RefMut<'_, Ssd1306Model> {
        self.0.borrow_mut()
    }
}

impl ErrorType for SharedSsd1306 {
    type Error = ErrorKind;
}

impl I2c<SevenBitAddress> for SharedSsd1306 {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), ErrorKind> {
        self.0.borrow_mut().transaction(address, operations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Frame;
    use crate::hardware::oled::Oled;
    use embedded_graphics::mono_font::MonoTextStyle;
    use embedded_graphics::mono_font::ascii::FONT_6X10;
    use embedded_graphics::pixelcolor::BinaryColor;
    use embedded_graphics::prelude::*;
    use embedded_graphics::text::Text;

    fn assert_shows(shared: &SharedSsd1306, frame: &Frame) {
        let m = shared.model();
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                assert_eq!(
                    m.pixel(x, y),
                    frame.pixel(x as i32, y as i32),
                    "pixel ({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn the_driver_draws_on_the_model() {
        let shared = SharedSsd1306::new();
        let mut oled = Oled::new(shared.clone());
        oled.init().unwrap();
        assert!(shared.model().is_on());
        assert_eq!(shared.model().unknown_commands(), 0);
        assert_eq!(shared.model().addressing_mode(), AddressingMode::Page);

        let mut frame = Frame::new();
        for (x, y) in [(0, 0), (127, 0), (0, 63), (127, 63), (5, 9)] {
            frame.set_pixel(x, y, true);
        }
        Text::new(
            "12:34",
            Point::new(40, 30),
            MonoTextStyle::new(&FONT_6X10, BinaryColor::On),
        )
        .draw(&mut frame)
        .unwrap();
        shared.model_mut().reset_counters();
        oled.show(&frame, &[]).unwrap();
        assert_shows(&shared, &frame);
        // After init the whole RAM is sent: 64 writes of 16 columns.
        assert_eq!(shared.model().data_bytes(), 1024);
        assert_eq!(shared.model().transactions(), 64);
        let full = shared.model().bytes_transferred();
        assert_eq!(full, 64 * 24);

        // One pixel changes: one write of one column, 9 bytes on the wire.
        shared.model_mut().reset_counters();
        frame.set_pixel(64, 40, true);
        oled.show(&frame, &[]).unwrap();
        assert_shows(&shared, &frame);
        assert_eq!(shared.model().data_bytes(), 1);
        assert_eq!(shared.model().bytes_transferred(), 9);
    }

    #[test]
    fn a_write_cut_short_is_repaired_by_the_next_stage() {
        let shared = SharedSsd1306::new();
        let mut oled = Oled::new(shared.clone());
        oled.init().unwrap();
        let mut a = Frame::new();
        oled.show(&a, &[]).unwrap();
        for x in 10..26 {
            a.set_pixel(x, 20, true);
        }
        // Cut after 3 of the 16 data bytes (7 bytes of addressing first).
        shared.model_mut().nack_at_byte(11);
        oled.stage(&a, &[]);
        assert!(oled.send_next().is_err());
        assert!(!oled.is_busy());
        assert!(shared.model().pixel(12, 20) && !shared.model().pixel(13, 20));
        oled.retry();
        oled.flush().unwrap();
        assert_shows(&shared, &a);
    }

    #[test]
    fn other_addresses_and_injected_faults_are_nacked() {
        let mut m = Ssd1306Model::new();
        let nack = Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address));
        assert_eq!(m.write(0x3D, &[0x00, 0xAF]), nack);
        m.nack_next(1);
        assert_eq!(m.write(ADDRESS, &[0x00, 0xAF]), nack);
        assert!(!m.on);
        assert_eq!(m.write(ADDRESS, &[0x00, 0xAF]), Ok(()));
        assert!(m.on);
    }

    #[test]
    fn vertical_and_page_modes_wrap_in_their_windows() {
        let mut m = Ssd1306Model::new();
        // Vertical mode, columns 10..=11, pages 2..=3: four bytes fill the box.
        m.write(ADDRESS, &[0x00, 0x20, 0x01, 0x21, 10, 11, 0x22, 2, 3])
            .unwrap();
        m.write(ADDRESS, &[0x40, 1, 2, 3, 4, 5]).unwrap();
        assert_eq!(m.ram[2 * WIDTH + 10], 5); // wrapped to the start
        assert_eq!(m.ram[3 * WIDTH + 10], 2);
        assert_eq!(m.ram[2 * WIDTH + 11], 3);
        assert_eq!(m.ram[3 * WIDTH + 11], 4);
        // Page mode: page 7, column 126 (0x0E, 0x17), wraps to column 0.
        m.write(ADDRESS, &[0x00, 0x20, 0x02, 0xB7, 0x0E, 0x17])
            .unwrap();
        m.write(ADDRESS, &[0x40, 9, 8, 7]).unwrap();
        assert_eq!(&m.ram[7 * WIDTH + 126..], &[9, 8]);
        assert_eq!(m.ram[7 * WIDTH], 7);
        // Co bit: one command, then a data byte, each after its control byte.
        m.write(ADDRESS, &[0x80, 0xB0, 0xC0, 0x55]).unwrap();
        assert_eq!(m.ram[1], 0x55);
        m.write(ADDRESS, &[0x00, 0xFF]).unwrap();
        assert_eq!(m.unknown_commands(), 1);
    }

    #[test]
    fn remap_and_scan_direction_flip_the_panel() {
        let mut m = Ssd1306Model::new();
        m.write(
            ADDRESS,
            &[0x00, 0x8D, 0x14, 0xAF, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7],
        )
        .unwrap();
        m.write(ADDRESS, &[0x40, 0x01]).unwrap(); // column 0, row 0
        // Reset mapping: column 0 is at the right, row 0 at the bottom.
        assert!(m.pixel(127, 63));
        m.write(ADDRESS, &[0x00, 0xA1, 0xC8]).unwrap();
        assert!(m.pixel(0, 0));
        m.write(ADDRESS, &[0x00, 0xA7]).unwrap();
        assert!(!m.pixel(0, 0) && m.pixel(1, 0));
        m.write(ADDRESS, &[0x00, 0xAE]).unwrap();
        assert!(!m.is_on() && !m.pixel(1, 0));
    }
}
