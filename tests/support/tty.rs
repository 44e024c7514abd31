//! Whether this machine can set up a terminal line as the DGT driver does,
//! and what a test that needs one says where it cannot.

// Each user takes only what it needs from this file.
#![allow(dead_code)]

/// False only where the termios ioctls are missing: qemu's user-mode
/// emulator, which CI runs the aarch64 tests under, answers `TCGETS2` with
/// ENOSYS (a Pi's kernel has had it since Linux 2.6.20). Tests of a real
/// tty say they were skipped there; they run natively.
pub fn ttys_work() -> bool {
    use rustix::pty::{OpenptFlags, openpt};
    let Ok(master) = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY) else {
        return true; // not this gap: let the test say what fails
    };
    !matches!(
        rustix::termios::tcgetattr(&master),
        Err(rustix::io::Errno::NOSYS)
    )
}

/// The skip note of a test that needs a real tty, where there is none.
pub const NO_TTY: &str = "skipped: no termios here (qemu-user); run natively";

/// Whether a test that needs a real tty is to be skipped here; says so
/// where it is.
pub fn no_tty_here() -> bool {
    let none = !ttys_work();
    if none {
        eprintln!("{NO_TTY}");
    }
    none
}
