//! A DGT 3000's model, plugged into the DGT board's model
//! ([`super::dgt::DgtBoardModel`]): the clock side of the clock commands
//! the board passes on, so the real driver's DGT 3000 code runs on a
//! desktop.
//!
//! It keeps its own countdown from the last set-and-run, shows eight
//! characters of text or its two times, and has two levers and five
//! buttons for the hands. It answers as DGT describes the clock through
//! the board (`hardware/dgt.md`, "DGT 3000"): every command with an ack,
//! a button with an auto-generated ack, and its times with the status
//! byte (the lever's position, whose turn) whenever they change. What a
//! real board adds is not modelled: the board polls its clock a few times
//! a second, so a real lever is reported up to a poll later.

use crate::Millis;
use crate::hardware::dgt3000::{ClockSide, ClockTime, Dgt3000Button, wire};

/// A DGT 3000 in the mode a host drives it.
#[derive(Debug, Clone)]
pub struct Dgt3000Model {
    /// Each side's time in ms at `since`.
    left_ms: u64,
    right_ms: u64,
    since: Millis,
    /// Whose clock counts down.
    run: Option<ClockSide>,
    /// The side whose lever is down.
    lever_down: ClockSide,
    /// The text shown instead of the times.
    text: Option<[u8; wire::TEXT_LEN]>,
    /// Set-and-runs received, and when the last one was.
    sets: u64,
    set_at: Millis,
    /// Beeps asked (a text's or a beep command).
    beeps: u64,
    /// Plugged into the board.
    plugged: bool,
}

impl Default for Dgt3000Model {
    fn default() -> Self {
        Dgt3000Model::new()
    }
}

impl Dgt3000Model {
    /// A clock at 0:00 both sides, standing, the left lever down, plugged
    /// in.
    pub fn new() -> Dgt3000Model {
        Dgt3000Model {
            left_ms: 0,
            right_ms: 0,
            since: 0,
            run: None,
            lever_down: ClockSide::Left,
            text: None,
            sets: 0,
            set_at: 0,
            beeps: 0,
            plugged: true,
        }
    }

    /// Each side's time in ms at `now`, by its own countdown.
    pub fn times_ms(&self, now: Millis) -> (u64, u64) {
        let gone = now.saturating_sub(self.since);
        match self.run {
            Some(ClockSide::Left) => (self.left_ms.saturating_sub(gone), self.right_ms),
            Some(ClockSide::Right) => (self.left_ms, self.right_ms.saturating_sub(gone)),
            None => (self.left_ms, self.right_ms),
        }
    }

    /// Whose clock runs.
    pub fn running(&self) -> Option<ClockSide> {
        self.run
    }

    /// The side whose lever is down.
    pub fn lever_down(&self) -> ClockSide {
        self.lever_down
    }

    /// Set-and-runs received.
    pub fn sets(&self) -> u64 {
        self.sets
    }

    /// When the last set-and-run came (the clock's instant).
    pub fn set_at(&self) -> Millis {
        self.set_at
    }

    /// Beeps asked.
    pub fn beeps(&self) -> u64 {
        self.beeps
    }

    /// Whether it is plugged into the board.
    pub fn plugged(&self) -> bool {
        self.plugged
    }

    /// Plugs it in or out.
    pub fn set_plugged(&mut self, plugged: bool) {
        self.plugged = plugged;
    }

    /// Its time drifts: `ms` taken off the running side (a clock whose
    /// quartz is off, or set by hand), for tests of the host's re-set.
    pub fn drift(&mut self, now: Millis, ms: u64) {
        self.settle(now);
        match self.run {
            Some(ClockSide::Left) | None => self.left_ms = self.left_ms.saturating_sub(ms),
            Some(ClockSide::Right) => self.right_ms = self.right_ms.saturating_sub(ms),
        }
    }

    fn settle(&mut self, now: Millis) {
        let (l, r) = self.times_ms(now);
        self.left_ms = l;
        self.right_ms = r;
        self.since = now;
    }

    /// What the display shows at `now`: its text, or both times (a
    /// running side marked with `*`), `h:mm:ss` from an hour, `m:ss`
    /// under, as the clock shows them.
    pub fn display(&self, now: Millis) -> String {
        if let Some(text) = self.text {
            return String::from_utf8_lossy(&text).into_owned();
        }
        let (l, r) = self.times_ms(now);
        let side = |ms: u64, side| {
            let s = ms.div_ceil(1000);
            let t = if s >= 3600 {
                format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
            } else {
                format!("{}:{:02}", s / 60, s % 60)
            };
            if self.run == Some(side) {
                format!("{t}*")
            } else {
                format!("{t} ")
            }
        };
        format!("{} {}", side(l, ClockSide::Left), side(r, ClockSide::Right))
    }

    /// A command from the host (`CMD_*` and its content) at `now`: the
    /// ack's four bytes, or `None` when it is not one the clock knows.
    pub fn command(&mut self, now: Millis, id: u8, content: &[u8]) -> Option<[u8; 4]> {
        match (id, content) {
            (wire::CMD_SETNRUN, &[lh, lm, ls, rh, rm, rs, run, ..]) => {
                let ms = |h: u8, m: u8, s: u8| {
                    (u64::from(h & 0x0f) * 3600 + u64::from(m) * 60 + u64::from(s)) * 1000
                };
                self.left_ms = ms(lh, lm, ls);
                self.right_ms = ms(rh, rm, rs);
                self.since = now;
                self.run = match run & 0x07 {
                    wire::RUN_LEFT => Some(ClockSide::Left),
                    wire::RUN_RIGHT => Some(ClockSide::Right),
                    _ => None,
                };
                self.sets += 1;
                self.set_at = now;
            }
            (wire::CMD_ASCII, [text @ .., beep]) if text.len() >= wire::TEXT_LEN => {
                let mut cells = [b' '; wire::TEXT_LEN];
                cells.copy_from_slice(&text[..wire::TEXT_LEN]);
                self.text = Some(cells);
                if *beep > 0 {
                    self.beeps += 1;
                }
            }
            (wire::CMD_END, _) => self.text = None,
            (wire::CMD_BEEP, _) => self.beeps += 1,
            (wire::CMD_VERSION, _) => return Some([wire::ACK_OK, wire::CMD_VERSION, 0x21, 0]),
            _ => return None,
        }
        Some([wire::ACK_OK, id, 0, 0])
    }

    /// A hand presses the lever on `side` at `now`: that side goes down
    /// (the clock itself switches nothing; the host does). Whether it
    /// moved.
    pub fn press_lever(&mut self, _now: Millis, side: ClockSide) -> bool {
        let moved = self.lever_down != side;
        self.lever_down = side;
        moved
    }

    /// The ack a button press sends.
    pub fn button_ack(button: Dgt3000Button) -> [u8; 4] {
        [wire::ACK_OK, wire::ACK_BUTTON, 0x05, button.code()]
    }

    /// Its times and status at `now`, as the board reports them.
    pub fn report(&self, now: Millis) -> (ClockTime, ClockTime, u8) {
        if !self.plugged {
            let zero = ClockTime {
                seconds: 0,
                flag: false,
            };
            return (zero, zero, wire::STATUS_NO_CLOCK);
        }
        let (l, r) = self.times_ms(now);
        let time = |ms: u64| ClockTime {
            seconds: ms.div_ceil(1000) as u32,
            flag: ms == 0,
        };
        let mut status = 0;
        if self.run.is_some() {
            status |= wire::STATUS_RUNNING;
        }
        if self.lever_down == ClockSide::Left {
            status |= wire::STATUS_RIGHT_HIGH;
        }
        match self.run {
            Some(ClockSide::Left) => status |= wire::STATUS_LEFT_TURN,
            Some(ClockSide::Right) => status |= wire::STATUS_RIGHT_TURN,
            None => {}
        }
        (time(l), time(r), status)
    }

    /// When, after `after`, the seconds it reports next change (a running
    /// clock's next whole second), if they will.
    pub fn next_change(&self, after: Millis) -> Option<Millis> {
        let side = self.run?;
        let (l, r) = self.times_ms(after);
        let left = match side {
            ClockSide::Left => l,
            ClockSide::Right => r,
        };
        if left == 0 {
            return None;
        }
        // Its seconds (rounded up) change when the time crosses the
        // whole second below.
        let below = (left - 1) / 1000 * 1000;
        Some(after + (left - below))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::dgt3000::ClockCommand;

    fn apply(clock: &mut Dgt3000Model, now: Millis, command: &ClockCommand) -> Option<[u8; 4]> {
        let bytes = command.encode();
        clock.command(now, bytes[3], &bytes[4..bytes.len() - 1])
    }

    #[test]
    fn the_clock_counts_down_from_what_it_was_set_and_shows_text() {
        let mut clock = Dgt3000Model::new();
        let set = ClockCommand::SetAndRun {
            left_s: 65,
            right_s: 3600,
            run: Some(ClockSide::Right),
        };
        assert_eq!(
            apply(&mut clock, 1_000, &set),
            Some([0x10, wire::CMD_SETNRUN, 0, 0])
        );
        assert_eq!(clock.display(1_000), "1:05  1:00:00*");
        assert_eq!(clock.display(2_500), "1:05  59:59*");
        assert_eq!(clock.next_change(2_500), Some(3_000));
        let (left, right, status) = clock.report(2_500);
        assert_eq!((left.seconds, right.seconds), (65, 3599));
        assert_eq!(
            status,
            wire::STATUS_RUNNING | wire::STATUS_RIGHT_HIGH | wire::STATUS_RIGHT_TURN
        );
        apply(
            &mut clock,
            3_000,
            &ClockCommand::Text {
                text: *b"Flag W  ",
                beep: 2,
            },
        );
        assert_eq!(clock.display(3_000), "Flag W  ");
        assert_eq!(clock.beeps(), 1);
        apply(&mut clock, 3_100, &ClockCommand::EndText);
        assert!(clock.display(3_100).ends_with('*'));
        // The lever: down on the right, the clock itself runs on as set.
        assert!(clock.press_lever(4_000, ClockSide::Right));
        assert!(!clock.press_lever(4_100, ClockSide::Right));
        assert_eq!(clock.report(4_100).2 & wire::STATUS_RIGHT_HIGH, 0);
        assert_eq!(clock.running(), Some(ClockSide::Right));
    }
}
