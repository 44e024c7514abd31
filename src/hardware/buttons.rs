//! The clock's front: two levers, a draw and an adjust button per player,
//! and the arbiter's pause/menu button.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::Color;

use crate::controls::Button;

/// A button went down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ButtonPress {
    /// Which control.
    pub button: Button,
    /// When the edge happened, by the kernel's monotonic clock (time since
    /// boot): the press time, however late the daemon gets to it.
    pub at: Duration,
}

/// Where presses come from: the GPIO chip on a Pi, a fake on a desktop.
pub trait Buttons {
    /// What went wrong reading the buttons.
    type Error: core::fmt::Debug;

    /// The next press, waiting up to `timeout` (`None`: no wait at all).
    fn next_press(&mut self, timeout: Option<Duration>)
    -> Result<Option<ButtonPress>, Self::Error>;
}

/// Which BCM GPIO each control is wired to, and which lever is White's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ButtonPins {
    /// The lever on the left of the clock.
    pub lever_left: u8,
    /// The lever on the right.
    pub lever_right: u8,
    /// The left player's draw button.
    pub draw_left: u8,
    /// The right player's draw button.
    pub draw_right: u8,
    /// The left player's adjust button.
    pub adjust_left: u8,
    /// The right player's adjust button.
    pub adjust_right: u8,
    /// The arbiter's pause/menu button.
    pub menu: u8,
    /// The player on the left of the clock; the arbiter swaps sides per game.
    pub left: Color,
    /// Presses closer together than this on one pin are contact bounce.
    pub debounce: Duration,
}

impl Default for ButtonPins {
    /// The pins of `hardware/wiring.md`, White on the left.
    fn default() -> ButtonPins {
        ButtonPins {
            lever_left: 17,
            lever_right: 27,
            draw_left: 22,
            draw_right: 24,
            adjust_left: 23,
            adjust_right: 25,
            menu: 5,
            left: Color::White,
            debounce: Duration::from_millis(10),
        }
    }
}

impl ButtonPins {
    /// Every control with its pin.
    pub fn assignments(&self) -> [(Button, u8); 7] {
        let (l, r) = (self.left, self.left.other());
        [
            (Button::Lever(l), self.lever_left),
            (Button::Lever(r), self.lever_right),
            (Button::Draw(l), self.draw_left),
            (Button::Draw(r), self.draw_right),
            (Button::Adjust(l), self.adjust_left),
            (Button::Adjust(r), self.adjust_right),
            (Button::Menu, self.menu),
        ]
    }
}

/// Presses queued by a test or the simulator's keyboard.
#[derive(Debug, Default, Clone)]
pub struct FakeButtons {
    queue: VecDeque<ButtonPress>,
}

impl FakeButtons {
    /// No presses queued.
    pub fn new() -> FakeButtons {
        FakeButtons::default()
    }

    /// Queues a press of `button` at `at`.
    pub fn press(&mut self, button: Button, at: Duration) {
        self.queue.push_back(ButtonPress { button, at });
    }
}

impl Buttons for FakeButtons {
    type Error = core::convert::Infallible;

    fn next_press(
        &mut self,
        _timeout: Option<Duration>,
    ) -> Result<Option<ButtonPress>, Self::Error> {
        Ok(self.queue.pop_front())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapping_sides_swaps_the_levers() {
        let mut pins = ButtonPins::default();
        assert_eq!(pins.assignments()[0], (Button::Lever(Color::White), 17));
        pins.left = Color::Black;
        assert_eq!(pins.assignments()[0], (Button::Lever(Color::Black), 17));
        assert_eq!(pins.assignments()[1], (Button::Lever(Color::White), 27));
        let mut used: Vec<u8> = pins.assignments().iter().map(|(_, pin)| *pin).collect();
        used.sort_unstable();
        used.dedup();
        assert_eq!(used.len(), 7, "each control has its own pin");
    }

    #[test]
    fn the_fake_hands_out_presses_in_order() {
        let mut fake = FakeButtons::new();
        fake.press(Button::Lever(Color::Black), Duration::from_millis(5));
        fake.press(Button::Menu, Duration::from_millis(9));
        assert_eq!(
            fake.next_press(None).unwrap().map(|p| p.button),
            Some(Button::Lever(Color::Black))
        );
        assert_eq!(
            fake.next_press(None).unwrap().map(|p| p.at),
            Some(Duration::from_millis(9))
        );
        assert_eq!(fake.next_press(None).unwrap(), None);
    }
}
