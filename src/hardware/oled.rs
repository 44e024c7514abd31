//! The clock's face on the SSD1306 OLED, through the `ssd1306` crate's
//! buffered driver: only the pixels that changed since the last frame are
//! drawn, so a one-second tick sends a few dozen bytes, not a whole frame.

use core::fmt;

use display_interface::DisplayError;
use ssd1306::Ssd1306;
use ssd1306::mode::BufferedGraphicsMode;
use ssd1306::prelude::*;

use crate::face::{self, Frame, View};

/// What went wrong talking to the panel. The `ssd1306` driver does not keep
/// the bus error, only that a write failed.
#[derive(Debug, Clone)]
pub enum Error {
    /// A write to the controller failed: NACKed (panel unplugged, wrong
    /// address) or disturbed on the bus.
    Bus,
    /// The driver refused the request for another reason (a bug here).
    Driver(DisplayError),
}

impl From<DisplayError> for Error {
    fn from(e: DisplayError) -> Self {
        match e {
            DisplayError::BusWriteError => Error::Bus,
            other => Error::Driver(other),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Bus => f.write_str("OLED: a write on the I2C bus failed"),
            Error::Driver(e) => write!(f, "OLED: the display driver failed: {e:?}"),
        }
    }
}

impl core::error::Error for Error {}

/// The SSD1306's usual address; 0x3D is the other.
pub const DEFAULT_ADDRESS: u8 = 0x3C;

type Display<I2C> =
    Ssd1306<I2CInterface<I2C>, DisplaySize128x64, BufferedGraphicsMode<DisplaySize128x64>>;

/// The 128 × 64 SSD1306 at 0x3C, showing [`View`]s.
pub struct Oled<I2C> {
    display: Display<I2C>,
    /// What the panel shows, as far as the driver knows.
    shown: Frame,
    /// The panel may not show `shown` (not yet initialised, or a write
    /// failed): the next [`Oled::show`] sends a whole frame.
    stale: bool,
}

impl<I2C: embedded_hal::i2c::I2c> Oled<I2C> {
    /// A driver for the panel at 0x3C. No bus traffic until [`Oled::init`].
    pub fn new(i2c: I2C) -> Oled<I2C> {
        Oled::at(i2c, DEFAULT_ADDRESS)
    }

    /// A driver for the panel at `address` (0x3C, or 0x3D when the module's
    /// address jumper is moved).
    pub fn at(i2c: I2C, address: u8) -> Oled<I2C> {
        // 0x40: the control byte that starts a run of display data.
        let display = Ssd1306::new(
            I2CInterface::new(i2c, address, 0x40),
            DisplaySize128x64,
            DisplayRotation::Rotate0,
        )
        .into_buffered_graphics_mode();
        Oled {
            display,
            shown: Frame::new(),
            stale: true,
        }
    }

    /// Configures the controller and turns the panel on. Its display RAM
    /// is left as it was; the next [`Oled::show`] sends a whole frame.
    pub fn init(&mut self) -> Result<(), Error> {
        self.stale = true;
        self.display.init()?;
        Ok(())
    }

    /// Shows `view`: draws the pixels that differ from the last frame shown
    /// and sends them. After an error the next call sends a whole frame, so
    /// a NACKed update is not left half on the panel.
    pub fn show(&mut self, view: &View) -> Result<(), Error> {
        if self.stale {
            // clear_buffer marks the whole panel for the next flush.
            self.display.clear_buffer();
            self.shown = Frame::new();
        }
        // Drawing into the buffer does not touch the bus.
        face::update(view, &mut self.shown, &mut self.display)?;
        // The driver forgets its dirty box before sending, so a failed flush
        // must be followed by a whole frame.
        self.stale = true;
        self.display.flush()?;
        self.stale = false;
        Ok(())
    }

    /// Gives the bus back.
    pub fn release(self) -> I2C {
        self.display.release().release()
    }
}
