//! Telling systemd how the daemon is doing (`Type=notify`): READY once the
//! hardware answers, WATCHDOG from the loop that drives the referee, so a
//! hung loop is killed and restarted, STOPPING on the way out.

use std::time::Duration;

use crate::rig::Notifier;

/// The service manager, through `$NOTIFY_SOCKET`; does nothing without one.
#[derive(Debug, Default)]
pub struct Systemd {
    watchdog: Option<Duration>,
}

impl Systemd {
    /// Reads `$WATCHDOG_USEC` (for this process only) to know how often to
    /// ping: twice per period, as sd_watchdog_enabled(3) advises.
    pub fn from_env() -> Systemd {
        let watchdog = sd_notify::watchdog_enabled()
            .map(|period| period / 2)
            .filter(|d| !d.is_zero());
        Systemd { watchdog }
    }

    /// While the daemon waits at start-up (a locked game store): `status`
    /// for `systemctl status`, the watchdog fed, and the start timeout
    /// extended by `next`, the longest until it says so again.
    pub fn waiting(&mut self, status: &str, next: Duration) {
        let usec = u32::try_from(next.as_micros()).unwrap_or(u32::MAX);
        self.notify(&[
            sd_notify::NotifyState::Status(status),
            sd_notify::NotifyState::Watchdog,
            sd_notify::NotifyState::ExtendTimeoutUsec(usec),
        ]);
    }

    fn notify(&self, states: &[sd_notify::NotifyState<'_>]) {
        if let Err(err) = sd_notify::notify(states) {
            tracing::debug!("sd_notify: {err}");
        }
    }
}

impl Notifier for Systemd {
    fn ready(&mut self, status: &str) {
        self.notify(&[
            sd_notify::NotifyState::Ready,
            sd_notify::NotifyState::Status(status),
        ]);
    }

    fn watchdog(&mut self) {
        self.notify(&[sd_notify::NotifyState::Watchdog]);
    }

    fn watchdog_every(&self) -> Option<Duration> {
        self.watchdog
    }

    fn stopping(&mut self) {
        self.notify(&[sd_notify::NotifyState::Stopping]);
    }
}
