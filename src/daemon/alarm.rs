//! The loop's one timer.
//!
//! tokio's timer wheel files a deadline that lies in another 64 ms block of
//! its clock at the start of that block, and wakes the thread there to file
//! it again: a deadline 100 ms ahead costs two wakeups. A clock left running
//! all day wakes about ten times a second (the face's tick, the board's
//! safety poll), so on a Pi the loop sleeps on a kernel timer (timerfd)
//! instead, which wakes it once, at the deadline; deadlines a few
//! milliseconds ahead (the 5 ms board poll) rarely cross a block and stay
//! with tokio, which needs no system call to set them. The simulator's
//! paused, simulated clock is tokio's, so there the loop keeps tokio's
//! timer. Measured (`perf stat`, a game with the board's interrupt line and
//! nobody moving): 10 wakeups a second instead of 20 to 28.

use std::io;
use std::pin::Pin;

use tokio::time::{Instant, Sleep};

/// What the loop sleeps on until its next deadline.
#[derive(Debug, Default)]
pub enum Alarm {
    /// tokio's timer: follows a paused clock (the simulator, tests).
    #[default]
    Tokio,
    /// tokio's timer, one entry kept and moved from deadline to deadline
    /// rather than a new one filed for every wait: the loop waits hundreds
    /// of times a second when it polls the board every 5 ms.
    TokioKept(Pin<Box<Sleep>>),
    /// A kernel timer: one wakeup per deadline, on the real clock only.
    #[cfg(target_os = "linux")]
    Kernel(kernel::KernelTimer),
}

impl Alarm {
    /// A kernel timer where there is one (Linux) and the clock is real.
    /// Must be called within the tokio runtime that will wait on it.
    pub fn kernel() -> io::Result<Alarm> {
        #[cfg(target_os = "linux")]
        {
            kernel::KernelTimer::new().map(Alarm::Kernel)
        }
        #[cfg(not(target_os = "linux"))]
        {
            Ok(Alarm::Tokio)
        }
    }

    /// Completes at `deadline` (at once if it has passed). Cancel-safe: a
    /// dropped wait leaves nothing behind but an armed timer, which the
    /// next wait re-arms.
    pub async fn until(&mut self, deadline: Instant) {
        match self {
            Alarm::Tokio => {
                let mut sleep = Box::pin(tokio::time::sleep_until(deadline));
                (&mut sleep).await;
                *self = Alarm::TokioKept(sleep);
            }
            Alarm::TokioKept(sleep) => {
                if sleep.deadline() != deadline {
                    sleep.as_mut().reset(deadline);
                }
                sleep.as_mut().await;
            }
            #[cfg(target_os = "linux")]
            Alarm::Kernel(timer) => {
                if let Err(err) = timer.until(deadline).await {
                    // Never stop the clock for its timer: fall back for good.
                    tracing::error!("the kernel timer failed: {err}; using tokio's");
                    *self = Alarm::Tokio;
                    tokio::time::sleep_until(deadline).await;
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod kernel {
    use std::io;
    use std::os::fd::OwnedFd;
    use std::time::Duration;

    use rustix::time::{
        Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, timerfd_create,
        timerfd_settime,
    };
    use tokio::io::Interest;
    use tokio::io::unix::AsyncFd;
    use tokio::time::Instant;

    /// Deadlines at most this far ahead are left to tokio's timer.
    const SHORT: Duration = Duration::from_millis(20);

    /// A `CLOCK_MONOTONIC` timerfd (the clock `Instant` reads on Linux)
    /// registered with tokio's reactor.
    #[derive(Debug)]
    pub struct KernelTimer {
        fd: AsyncFd<OwnedFd>,
        /// The deadline the timer is set for, if it has not been read yet.
        armed: Option<Instant>,
    }

    impl KernelTimer {
        pub fn new() -> io::Result<KernelTimer> {
            let fd = timerfd_create(
                TimerfdClockId::Monotonic,
                TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
            )?;
            // SAFETY: the `OwnedFd` is moved into the `AsyncFd`, which owns
            // it until dropped: the descriptor stays open and the same.
            let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
                .map_err(|e| e.into_parts().1)?;
            Ok(KernelTimer { fd, armed: None })
        }

        pub async fn until(&mut self, deadline: Instant) -> io::Result<()> {
            let now = Instant::now();
            if deadline <= now {
                return Ok(());
            }
            if deadline - now <= SHORT {
                // tokio's wheel wakes once for a deadline this close, as
                // long as it does not lie past a 64 ms block's end; two
                // system calls fewer than the kernel timer's.
                tokio::time::sleep_until(deadline).await;
                return Ok(());
            }
            if self.armed != Some(deadline) {
                // Relative to now: `Instant` does not expose its timespec.
                // Setting the timer also clears an expiry nobody read.
                let ahead = deadline - now;
                let spec = Itimerspec {
                    it_interval: timespec(Duration::ZERO),
                    it_value: timespec(ahead),
                };
                timerfd_settime(self.fd.get_ref(), TimerfdTimerFlags::empty(), &spec)?;
                self.armed = Some(deadline);
            }
            loop {
                let mut ready = self.fd.readable().await?;
                // The expiry count is left unread: re-arming zeroes it, and
                // its next expiry is a new edge for the reactor. Readiness
                // can be stale (an expiry that re-arming cleared), so the
                // deadline decides.
                ready.clear_ready();
                if Instant::now() >= deadline {
                    self.armed = None;
                    return Ok(());
                }
            }
        }
    }

    fn timespec(d: Duration) -> Timespec {
        Timespec {
            tv_sec: d.as_secs() as _,
            tv_nsec: d.subsec_nanos() as _,
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::time::Duration;

    use tokio::time::Instant;

    use super::Alarm;

    #[tokio::test]
    async fn the_kernel_timer_wakes_at_its_deadline_however_it_is_rearmed() {
        let mut alarm = Alarm::kernel().expect("a timerfd");
        assert!(matches!(alarm, Alarm::Kernel(_)));
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);

        alarm.until(at(30)).await;
        assert!(Instant::now() >= at(30));

        // Waits given up (the loop heard a command first), the second one
        // after its timer expired unread: the next wait still waits.
        let gave_up = tokio::time::timeout(Duration::from_millis(5), alarm.until(at(1_000))).await;
        assert!(gave_up.is_err(), "not before its deadline");
        let _ = tokio::time::timeout(Duration::from_millis(40), alarm.until(at(60))).await;
        assert!(Instant::now() >= at(60));
        alarm.until(at(120)).await;
        assert!(
            Instant::now() >= at(120),
            "a stale expiry does not end a wait"
        );

        // A deadline already past completes at once, as the same deadline
        // waited for again after it was reached.
        alarm.until(at(120)).await;
        alarm.until(start).await;
        assert!(matches!(alarm, Alarm::Kernel(_)), "no fallback");
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
