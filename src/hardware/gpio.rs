//! The only module that touches the Pi's GPIO chip, through rppal (the
//! maintained `rpi-pal` fork): levers and buttons as kernel edge events.

use std::time::Duration;

use rppal::gpio::{Gpio, InputPin, OutputPin, Trigger};

use super::buttons::{ButtonPins, ButtonPress, Buttons};
use crate::controls::Button;

/// The front controls read from `/dev/gpiochip*` with the kernel's debounce
/// and its timestamps.
pub struct GpioButtons {
    gpio: Gpio,
    pins: Vec<(Button, InputPin)>,
}

impl GpioButtons {
    /// Opens the GPIO chip and claims the pins: inputs with pull-ups, a press
    /// pulls the line low, so the falling edge is the press.
    pub fn open(pins: &ButtonPins) -> Result<GpioButtons, rppal::gpio::Error> {
        let gpio = Gpio::new()?;
        let mut claimed = Vec::new();
        for (button, number) in pins.assignments() {
            let mut pin = gpio.get(number)?.into_input_pullup();
            pin.set_interrupt(Trigger::FallingEdge, Some(pins.debounce))?;
            claimed.push((button, pin));
        }
        Ok(GpioButtons {
            gpio,
            pins: claimed,
        })
    }
}

impl Buttons for GpioButtons {
    type Error = rppal::gpio::Error;

    fn next_press(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<ButtonPress>, Self::Error> {
        let inputs: Vec<&InputPin> = self.pins.iter().map(|(_, pin)| pin).collect();
        let wait = Some(timeout.unwrap_or(Duration::ZERO));
        let Some((pin, event)) = self.gpio.poll_interrupts(&inputs, false, wait)? else {
            return Ok(None);
        };
        let button = self
            .pins
            .iter()
            .find(|(_, claimed)| claimed.pin() == pin.pin())
            .map(|(button, _)| *button);
        Ok(button.map(|button| ButtonPress {
            button,
            at: event.timestamp,
        }))
    }
}

/// The sensor board's interrupt output (open-drain, active low): it goes
/// low when the board has events queued.
pub struct GpioInterrupt {
    pin: InputPin,
}

impl GpioInterrupt {
    /// Claims `pin` (BCM) as an input with a pull-up, interrupting on the
    /// falling edge.
    pub fn open(pin: u8) -> Result<GpioInterrupt, rppal::gpio::Error> {
        let mut pin = Gpio::new()?.get(pin)?.into_input_pullup();
        pin.set_interrupt(Trigger::FallingEdge, None)?;
        Ok(GpioInterrupt { pin })
    }

    /// Waits up to `timeout` for the line to fall; true if it did.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool, rppal::gpio::Error> {
        Ok(self.pin.poll_interrupt(false, Some(timeout))?.is_some())
    }

    /// Whether the line is low now (events still queued).
    pub fn is_asserted(&self) -> bool {
        self.pin.is_low()
    }
}

/// The buzzer's driver transistor on an output pin: high sounds it.
pub struct GpioBuzzer {
    pin: OutputPin,
}

impl GpioBuzzer {
    /// Claims `pin` (BCM) as an output, silent.
    pub fn open(pin: u8) -> Result<GpioBuzzer, rppal::gpio::Error> {
        let pin = Gpio::new()?.get(pin)?.into_output_low();
        Ok(GpioBuzzer { pin })
    }

    /// Sounds the buzzer or silences it.
    pub fn set(&mut self, on: bool) {
        if on {
            self.pin.set_high();
        } else {
            self.pin.set_low();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_without_the_gpio_chip_gives_an_error_not_a_panic() {
        if std::path::Path::new("/dev/gpiochip0").exists() {
            return; // a Pi: the pins may be in use by the running daemon
        }
        assert!(GpioButtons::open(&ButtonPins::default()).is_err());
    }
}
