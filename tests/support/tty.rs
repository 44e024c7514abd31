//! Whether this machine can set up a terminal line as the DGT driver does.

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
