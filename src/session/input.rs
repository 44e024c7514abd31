//! What reaches a session from the shell.

use crate::controls::{Button, LinkChange};
use crate::{Input, Millis};

/// One thing the shell hands to [`Session::handle`](super::Session::handle),
/// with the instant the shell's clock read when it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionInput {
    /// A front control went down at `at` (the kernel's edge timestamp, on
    /// the shell's clock): a press is ruled at the instant the hand made
    /// it, not when the shell got round to it.
    Press {
        /// The control, as wired (the session turns it to the players' sides).
        button: Button,
        /// When it went down, on the shell's clock.
        at: Millis,
    },
    /// A board input (`Lift`, `Place`, `Touch`, `Untouch`): it also keeps
    /// the occupancy the setup screen shows up to date.
    Board(Input),
    /// An input for the referee that no front control gives (the
    /// simulator's resign, promote, decline): ignored outside a game.
    Referee(Input),
    /// The board link went down or came back.
    Link(LinkChange),
}

/// The referee input a front control gives during a game; `Menu` gives
/// none: the session reads it (pause, resume, settings).
pub fn referee_input(button: Button) -> Option<Input> {
    match button {
        Button::Lever(side) => Some(Input::Press(side)),
        Button::Draw(side) => Some(Input::Draw(side)),
        Button::Adjust(side) => Some(Input::Adjust(side)),
        Button::Menu => None,
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;

    #[test]
    fn buttons_give_the_referee_its_inputs() {
        assert_eq!(
            referee_input(Button::Lever(Color::Black)),
            Some(Input::Press(Color::Black))
        );
        assert_eq!(
            referee_input(Button::Draw(Color::White)),
            Some(Input::Draw(Color::White))
        );
        assert_eq!(
            referee_input(Button::Adjust(Color::White)),
            Some(Input::Adjust(Color::White))
        );
        assert_eq!(referee_input(Button::Menu), None);
    }
}
