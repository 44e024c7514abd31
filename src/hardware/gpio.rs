//! The only module that touches the Pi's GPIO chip, through the kernel's
//! GPIO character device ([`gpiochip`](super::gpiochip)): levers and
//! buttons as kernel edge events, the board's interrupt line, the buzzer.

use std::time::Duration;

use super::buttons::{ButtonPins, ButtonPress, Buttons};
use super::gpiochip::{Chip, Edge, GpioError, LineMode, Lines};
use crate::controls::Button;

/// An edge slot before the kernel fills it.
const NO_EDGE: Edge = Edge {
    offset: 0,
    at: Duration::ZERO,
    falling: false,
};

/// The front controls read from the Pi's `/dev/gpiochip*` with the
/// kernel's debounce and its timestamps: one request holds every pin.
pub struct GpioButtons {
    lines: Lines,
    pins: Vec<(Button, u32)>,
}

impl GpioButtons {
    /// Opens the GPIO chip and claims the pins: inputs with pull-ups, a press
    /// pulls the line low, so the falling edge is the press.
    pub fn open(pins: &ButtonPins) -> Result<GpioButtons, GpioError> {
        let chip = Chip::raspberry_pi()?;
        let assigned: Vec<(Button, u32)> = pins
            .assignments()
            .into_iter()
            .map(|(button, pin)| (button, u32::from(pin)))
            .collect();
        let offsets: Vec<u32> = assigned.iter().map(|&(_, pin)| pin).collect();
        let lines = chip.request(
            &offsets,
            LineMode::FallingEdges {
                debounce: Some(pins.debounce),
            },
        )?;
        Ok(GpioButtons::on(lines, assigned))
    }

    /// The controls on `pins`, whose edges `lines` reports.
    fn on(lines: Lines, pins: Vec<(Button, u32)>) -> GpioButtons {
        GpioButtons { lines, pins }
    }
}

impl Buttons for GpioButtons {
    type Error = std::io::Error;

    fn next_press(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<ButtonPress>, Self::Error> {
        // One edge at a time: the others stay queued in the kernel for the
        // next call, which finds them without waiting.
        let mut edge = [NO_EDGE];
        if self
            .lines
            .wait_edges(timeout.unwrap_or(Duration::ZERO), &mut edge)?
            == 0
        {
            return Ok(None);
        }
        let [edge] = edge;
        let button = self
            .pins
            .iter()
            .find(|&&(_, pin)| pin == edge.offset)
            .map(|&(button, _)| button);
        Ok(button.map(|button| ButtonPress {
            button,
            at: edge.at,
        }))
    }
}

/// The sensor board's interrupt output (open-drain, active low): it goes
/// low when the board has events queued.
pub struct GpioInterrupt {
    lines: Lines,
}

impl GpioInterrupt {
    /// Claims `pin` (BCM) as an input with a pull-up, interrupting on the
    /// falling edge.
    pub fn open(pin: u8) -> Result<GpioInterrupt, GpioError> {
        let lines = Chip::raspberry_pi()?
            .request(&[u32::from(pin)], LineMode::FallingEdges { debounce: None })?;
        Ok(GpioInterrupt { lines })
    }

    /// Waits up to `timeout` for the line to fall; true if it did. Every
    /// edge already queued is taken at once: one poll of the board reads
    /// all it holds.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool, std::io::Error> {
        let mut edges = [NO_EDGE; 8];
        Ok(self.lines.wait_edges(timeout, &mut edges)? > 0)
    }

    /// Whether the line is low now (events still queued). A line that
    /// cannot be read counts as not asserted: the board is polled anyway.
    pub fn is_asserted(&self) -> bool {
        matches!(self.lines.values(), Ok(bits) if bits & 1 == 0)
    }
}

/// The buzzer's driver transistor on an output pin: high sounds it.
pub struct GpioBuzzer {
    lines: Lines,
    failed: bool,
}

impl GpioBuzzer {
    /// Claims `pin` (BCM) as an output, silent.
    pub fn open(pin: u8) -> Result<GpioBuzzer, GpioError> {
        let lines = Chip::raspberry_pi()?.request(&[u32::from(pin)], LineMode::OutputLow)?;
        Ok(GpioBuzzer {
            lines,
            failed: false,
        })
    }

    /// Sounds the buzzer or silences it. A buzzer that cannot be set is
    /// said once in the journal; the clock goes on without it.
    pub fn set(&mut self, on: bool) {
        match self.lines.set_values(u64::from(on), 1) {
            Ok(()) => self.failed = false,
            Err(err) if !self.failed => {
                self.failed = true;
                tracing::warn!("the buzzer's pin: {err}");
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;
    use std::io::Write;
    use std::os::fd::OwnedFd;

    #[test]
    fn a_machine_without_the_gpio_chip_gives_an_error_not_a_panic() {
        if std::path::Path::new("/dev/gpiochip0").exists() {
            return; // a Pi: the pins may be in use by the running daemon
        }
        let err = GpioButtons::open(&ButtonPins::default()).err().unwrap();
        assert!(err.to_string().contains("GPIO chip"), "{err}");
    }

    /// A kernel edge record, as a line request's descriptor reads.
    fn record(offset: u32, at_ns: u64) -> Vec<u8> {
        let mut record = vec![0u8; super::super::gpiochip::EVENT_SIZE];
        record[0..8].copy_from_slice(&at_ns.to_ne_bytes());
        record[8..12].copy_from_slice(&2u32.to_ne_bytes()); // falling
        record[12..16].copy_from_slice(&offset.to_ne_bytes());
        record
    }

    /// A fake chip (a pipe of the kernel's records): each edge is the
    /// press of the control on its pin, at the kernel's time; an edge on a
    /// pin no control has is not a press.
    #[test]
    fn edges_are_the_presses_of_the_controls_on_their_pins() {
        let pins = ButtonPins::default();
        let assigned = pins
            .assignments()
            .into_iter()
            .map(|(button, pin)| (button, u32::from(pin)))
            .collect();
        let (reader, writer) = std::io::pipe().unwrap();
        let mut buttons = GpioButtons::on(Lines::from_fd(OwnedFd::from(reader)), assigned);
        let mut writer = std::fs::File::from(OwnedFd::from(writer));
        assert_eq!(buttons.next_press(None).unwrap(), None);
        writer.write_all(&record(27, 5_000_000_000)).unwrap();
        writer.write_all(&record(3, 6_000_000_000)).unwrap();
        writer.write_all(&record(5, 7_000_000_000)).unwrap();
        let wait = Some(Duration::from_secs(1));
        assert_eq!(
            buttons.next_press(wait).unwrap(),
            Some(ButtonPress {
                button: Button::Lever(Color::Black),
                at: Duration::from_secs(5),
            })
        );
        assert_eq!(buttons.next_press(wait).unwrap(), None);
        assert_eq!(
            buttons.next_press(wait).unwrap(),
            Some(ButtonPress {
                button: Button::Menu,
                at: Duration::from_secs(7),
            })
        );
    }
}
