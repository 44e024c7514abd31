//! A serial line, as the drivers of serial boards (the DGT e-boards) use it.
//!
//! [`SerialPort`] is what a driver needs: read what has arrived without
//! waiting, write a command, open the line again after it failed (a USB
//! cable pulled and put back). [`Tty`] is the real one on Linux: a tty
//! device (`/dev/ttyUSB0`, `/dev/ttyACM0`, or a pseudo-terminal's slave
//! in the device models) set raw at 9600 8N1 through termios. The models
//! have an in-memory line of their own with the wire's byte time
//! ([`crate::models::dgt::ModelLine`]), for exact and deterministic tests.

/// A serial line a board driver reads and writes.
pub trait SerialPort {
    /// What went wrong on the line (unplugged, not there, not a tty).
    type Error: core::fmt::Debug;

    /// Reads what has arrived into `buf`, without waiting: `Ok(0)` when
    /// nothing has.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;

    /// Writes all of `bytes` (a few bytes of command: the line's buffer
    /// takes them at once).
    fn write(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;

    /// Opens the line again after a failure (the device came back), or
    /// for the first time. Bytes of the old line are gone.
    fn reopen(&mut self) -> Result<(), Self::Error>;
}

/// The time one byte takes on a line at `baud` with 8N1 framing (a start
/// bit, eight data bits, a stop bit), in microseconds: 1042 at 9600.
pub const fn byte_time_us(baud: u32) -> u64 {
    (10 * 1_000_000 + baud as u64 / 2) / baud as u64
}

#[cfg(target_os = "linux")]
pub use tty::{Tty, TtyError, find_usb_board};

#[cfg(target_os = "linux")]
mod tty {
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};

    use rustix::fs::{Mode, OFlags};
    use rustix::termios::{self, ControlModes, OptionalActions, QueueSelector, SpecialCodeIndex};

    use super::SerialPort;

    /// Why the line could not be used.
    #[derive(Debug)]
    pub enum TtyError {
        /// No device to open: none configured and none found by its USB
        /// identity, or the configured one is not there (unplugged).
        NotFound(String),
        /// The system refused: opening, setting the line, reading, writing.
        Io(std::io::Error),
        /// The device hung up (its cable pulled: reads end).
        HungUp,
    }

    impl std::fmt::Display for TtyError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                TtyError::NotFound(what) => f.write_str(what),
                TtyError::Io(err) => write!(f, "{err}"),
                TtyError::HungUp => f.write_str("the serial device hung up"),
            }
        }
    }

    impl std::error::Error for TtyError {}

    impl From<rustix::io::Errno> for TtyError {
        fn from(errno: rustix::io::Errno) -> TtyError {
            TtyError::Io(errno.into())
        }
    }

    /// A tty device set raw at a fixed speed, 8N1, non-blocking.
    #[derive(Debug)]
    pub struct Tty {
        /// The device node, or `None` to look for the board by its USB
        /// identity at each opening.
        path: Option<PathBuf>,
        baud: u32,
        fd: Option<OwnedFd>,
    }

    impl Tty {
        /// A line on `path` (or found by [`find_usb_board`] when `None`)
        /// at `baud`, not opened yet: the first read or write opens it.
        pub fn new(path: Option<PathBuf>, baud: u32) -> Tty {
            Tty {
                path,
                baud,
                fd: None,
            }
        }

        /// The device it opens, when configured.
        pub fn path(&self) -> Option<&Path> {
            self.path.as_deref()
        }

        fn open(&mut self) -> Result<&OwnedFd, TtyError> {
            if self.fd.is_none() {
                let path = match &self.path {
                    Some(path) => path.clone(),
                    None => find_usb_board().ok_or_else(|| {
                        TtyError::NotFound("no DGT board found among the USB serial devices".into())
                    })?,
                };
                let fd = rustix::fs::open(
                    &path,
                    OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|errno| match errno {
                    rustix::io::Errno::NOENT | rustix::io::Errno::NODEV => {
                        TtyError::NotFound(format!("{} is not there", path.display()))
                    }
                    other => TtyError::Io(other.into()),
                })?;
                let mut mode = termios::tcgetattr(&fd)?;
                // Raw: no echo, no line editing, no CR/LF translation, no
                // signals; 8 data bits, no parity, one stop bit, the
                // modem lines ignored (a USB serial board has none).
                mode.make_raw();
                mode.control_modes &= !(ControlModes::PARENB | ControlModes::CSTOPB);
                mode.control_modes |=
                    ControlModes::CS8 | ControlModes::CLOCAL | ControlModes::CREAD;
                // A read returns what is there; the descriptor is
                // non-blocking, so an empty line is EAGAIN, and 0 bytes
                // means the device hung up.
                mode.special_codes[SpecialCodeIndex::VMIN] = 1;
                mode.special_codes[SpecialCodeIndex::VTIME] = 0;
                mode.set_speed(self.baud)?;
                termios::tcsetattr(&fd, OptionalActions::Now, &mode)?;
                // What a previous owner left unread is not this board's answer.
                termios::tcflush(&fd, QueueSelector::IFlush)?;
                // Nobody else opens the line while the clock has it (a
                // second daemon, a modem manager probing a new ttyACM);
                // root still may, and a line that refuses is used anyway.
                let _ = termios::ioctl_tiocexcl(&fd);
                self.fd = Some(fd);
            }
            Ok(self.fd.as_ref().expect("opened above"))
        }

        /// Drops the descriptor after a failure, so the next use opens the
        /// device again.
        fn failed<T>(&mut self, err: TtyError) -> Result<T, TtyError> {
            self.fd = None;
            Err(err)
        }
    }

    impl SerialPort for Tty {
        type Error = TtyError;

        fn read(&mut self, buf: &mut [u8]) -> Result<usize, TtyError> {
            let fd = self.open()?;
            match rustix::io::read(fd, &mut *buf) {
                Ok(0) if !buf.is_empty() => self.failed(TtyError::HungUp),
                Ok(n) => Ok(n),
                Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => Ok(0),
                Err(errno) => self.failed(errno.into()),
            }
        }

        fn write(&mut self, mut bytes: &[u8]) -> Result<(), TtyError> {
            let mut stalls = 0;
            while !bytes.is_empty() {
                let fd = self.open()?;
                match rustix::io::write(fd, bytes) {
                    Ok(n) => bytes = &bytes[n..],
                    // A full output buffer drains at the line's speed; a
                    // few bytes of command never wait long.
                    Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) if stalls < 50 => {
                        stalls += 1;
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    Err(errno) => return self.failed(errno.into()),
                }
            }
            Ok(())
        }

        fn reopen(&mut self) -> Result<(), TtyError> {
            self.fd = None;
            self.open().map(|_| ())
        }
    }

    /// The words a DGT board's USB device gives as its maker or product
    /// (compared without case). Assumed: DGT's USB boards name themselves
    /// "DGT" there; see `hardware/dgt.md`.
    const DGT_USB_NAMES: [&str; 2] = ["dgt", "digital game technology"];

    /// The tty of the first USB serial device whose maker or product names
    /// DGT, read from sysfs (`/sys/class/tty/ttyUSB*` and `ttyACM*`), in
    /// name order.
    pub fn find_usb_board() -> Option<PathBuf> {
        find_usb_board_in(Path::new("/sys/class/tty"), Path::new("/dev"))
    }

    /// [`find_usb_board`] over another sysfs tree (tests).
    pub fn find_usb_board_in(class: &Path, dev: &Path) -> Option<PathBuf> {
        let mut names: Vec<String> = std::fs::read_dir(class)
            .ok()?
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with("ttyUSB") || name.starts_with("ttyACM"))
            .collect();
        names.sort();
        names
            .into_iter()
            .find(|name| usb_names(&class.join(name).join("device")).any(is_dgt))
            .map(|name| dev.join(name))
    }

    fn is_dgt(text: String) -> bool {
        let text = text.to_lowercase();
        DGT_USB_NAMES.iter().any(|name| text.contains(name))
    }

    /// The `manufacturer` and `product` strings of the USB device above a
    /// tty's interface (its parent directories, up to three levels).
    fn usb_names(device: &Path) -> impl Iterator<Item = String> {
        let mut dir = std::fs::canonicalize(device).ok();
        let mut found = Vec::new();
        for _ in 0..4 {
            let Some(d) = dir else { break };
            for file in ["manufacturer", "product"] {
                if let Ok(text) = std::fs::read_to_string(d.join(file)) {
                    found.push(text.trim().to_owned());
                }
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        found.into_iter()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_dgt_board_is_found_by_its_usb_product_and_nothing_else_is() {
            let sys = tempfile::tempdir().unwrap();
            let usb = |tty: &str, product: &str| {
                let device = sys.path().join("devices").join(tty);
                std::fs::create_dir_all(device.join("iface")).unwrap();
                std::fs::write(device.join("product"), format!("{product}\n")).unwrap();
                let class = sys.path().join("class").join(tty);
                std::fs::create_dir_all(&class).unwrap();
                std::os::unix::fs::symlink(device.join("iface"), class.join("device")).unwrap();
            };
            usb("ttyUSB0", "FT232R USB UART");
            let class = sys.path().join("class");
            assert_eq!(find_usb_board_in(&class, Path::new("/dev")), None);
            usb("ttyACM1", "DGT USB e-Board");
            assert_eq!(
                find_usb_board_in(&class, Path::new("/dev")),
                Some(PathBuf::from("/dev/ttyACM1"))
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_byte_at_9600_baud_takes_ten_bit_times() {
        assert_eq!(super::byte_time_us(9600), 1042);
        assert_eq!(super::byte_time_us(115_200), 87);
    }
}
