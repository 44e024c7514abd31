//! The only module that opens the Pi's I2C adapter, through
//! `linux-embedded-hal`. The daemon opens `/dev/i2c-1` once and shares it
//! between the OLED and the sensor board with [`super::bus::SharedBus`].

use std::fmt;
use std::path::{Path, PathBuf};

pub use linux_embedded_hal::I2cdev;
use linux_embedded_hal::i2cdev::linux::LinuxI2CError;

/// The header's I2C bus on every supported Pi (`hardware/wiring.md`).
pub const I2C_BUS: &str = "/dev/i2c-1";

/// The I2C adapter could not be opened.
#[derive(Debug)]
pub struct OpenError {
    /// The device node that was tried.
    pub path: PathBuf,
    /// What the kernel said.
    pub source: LinuxI2CError,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot open {}: {}; enable I2C with dtparam=i2c_arm=on and add the \
             daemon's user to the i2c group (see hardware/wiring.md)",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Opens the I2C adapter at `path` (normally [`I2C_BUS`]).
pub fn open_i2c(path: &Path) -> Result<I2cdev, OpenError> {
    I2cdev::new(path).map_err(|source| OpenError {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_adapter_gives_an_error_naming_it_not_a_panic() {
        let path = Path::new("/dev/i2c-tocada-test-does-not-exist");
        let Err(e) = open_i2c(path) else {
            panic!("opened {}", path.display());
        };
        let text = e.to_string();
        assert!(
            text.starts_with("cannot open /dev/i2c-tocada-test-does-not-exist: "),
            "{text}"
        );
        assert!(text.contains("dtparam=i2c_arm=on"), "{text}");
        assert!(text.contains("hardware/wiring.md"), "{text}");
    }
}
