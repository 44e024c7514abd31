//! The simulator's keyboard: which key is which control of the clock, and
//! which edits the command line.
//!
//! The controls answer whatever is typed, so a lever can be pressed in the
//! middle of a command: arrows for the levers, F1 to F4 for the draw and
//! adjust buttons in the order they sit on the clock (left draw, left
//! adjust, right adjust, right draw), F5 for the arbiter's menu button.
//! With the command line empty, `[` and `]` are the levers too, and Space
//! is the lever of the side whose clock runs (a player pressing his clock
//! after moving).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::config::LeverSide;

/// A control on the clock, by where it sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// The lever on this side.
    Lever(LeverSide),
    /// The draw button on this side.
    Draw(LeverSide),
    /// The adjust button on this side.
    Adjust(LeverSide),
    /// The arbiter's pause and menu button.
    Menu,
    /// The lever of the side whose clock runs (Black's before the game,
    /// which starts it).
    RunningLever,
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// Works a control on the clock.
    Control(Control),
    /// Adds a character to the command line.
    Type(char),
    /// Deletes the last character typed.
    Backspace,
    /// Runs the command line.
    Enter,
    /// Clears the command line (or closes the help).
    Clear,
    /// The previous command typed.
    HistoryBack,
    /// The next command typed.
    HistoryForward,
    /// Leaves the simulator.
    Quit,
}

/// What `key` does, given whether the command line is empty; `None` for
/// keys that do nothing (and for key releases, which some terminals report).
pub fn action(key: KeyEvent, line_empty: bool) -> Option<KeyAction> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let control = |c| Some(KeyAction::Control(c));
    match key.code {
        KeyCode::Char('c') if ctrl => Some(KeyAction::Quit),
        KeyCode::Char('u') if ctrl => Some(KeyAction::Clear),
        KeyCode::Left => control(Control::Lever(LeverSide::Left)),
        KeyCode::Right => control(Control::Lever(LeverSide::Right)),
        KeyCode::F(1) => control(Control::Draw(LeverSide::Left)),
        KeyCode::F(2) => control(Control::Adjust(LeverSide::Left)),
        KeyCode::F(3) => control(Control::Adjust(LeverSide::Right)),
        KeyCode::F(4) => control(Control::Draw(LeverSide::Right)),
        KeyCode::F(5) => control(Control::Menu),
        KeyCode::Char('[') if line_empty => control(Control::Lever(LeverSide::Left)),
        KeyCode::Char(']') if line_empty => control(Control::Lever(LeverSide::Right)),
        KeyCode::Char(' ') if line_empty => control(Control::RunningLever),
        KeyCode::Char(c) if !ctrl => Some(KeyAction::Type(c)),
        KeyCode::Backspace => Some(KeyAction::Backspace),
        KeyCode::Enter => Some(KeyAction::Enter),
        KeyCode::Esc => Some(KeyAction::Clear),
        KeyCode::Up => Some(KeyAction::HistoryBack),
        KeyCode::Down => Some(KeyAction::HistoryForward),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyEventState;

    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_controls_answer_whatever_is_typed() {
        for line_empty in [true, false] {
            assert_eq!(
                action(key(KeyCode::Left), line_empty),
                Some(KeyAction::Control(Control::Lever(LeverSide::Left)))
            );
            assert_eq!(
                action(key(KeyCode::Right), line_empty),
                Some(KeyAction::Control(Control::Lever(LeverSide::Right)))
            );
            assert_eq!(
                action(key(KeyCode::F(1)), line_empty),
                Some(KeyAction::Control(Control::Draw(LeverSide::Left)))
            );
            assert_eq!(
                action(key(KeyCode::F(2)), line_empty),
                Some(KeyAction::Control(Control::Adjust(LeverSide::Left)))
            );
            assert_eq!(
                action(key(KeyCode::F(3)), line_empty),
                Some(KeyAction::Control(Control::Adjust(LeverSide::Right)))
            );
            assert_eq!(
                action(key(KeyCode::F(4)), line_empty),
                Some(KeyAction::Control(Control::Draw(LeverSide::Right)))
            );
            assert_eq!(
                action(key(KeyCode::F(5)), line_empty),
                Some(KeyAction::Control(Control::Menu))
            );
            assert_eq!(
                action(
                    KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
                    line_empty
                ),
                Some(KeyAction::Quit)
            );
        }
    }

    #[test]
    fn brackets_and_space_are_controls_only_on_an_empty_line() {
        assert_eq!(
            action(key(KeyCode::Char('[')), true),
            Some(KeyAction::Control(Control::Lever(LeverSide::Left)))
        );
        assert_eq!(
            action(key(KeyCode::Char(']')), true),
            Some(KeyAction::Control(Control::Lever(LeverSide::Right)))
        );
        assert_eq!(
            action(key(KeyCode::Char(' ')), true),
            Some(KeyAction::Control(Control::RunningLever))
        );
        assert_eq!(
            action(key(KeyCode::Char(' ')), false),
            Some(KeyAction::Type(' '))
        );
        assert_eq!(
            action(key(KeyCode::Char(']')), false),
            Some(KeyAction::Type(']'))
        );
    }

    #[test]
    fn editing_keys_edit() {
        assert_eq!(
            action(key(KeyCode::Char('e')), true),
            Some(KeyAction::Type('e'))
        );
        assert_eq!(
            action(key(KeyCode::Backspace), false),
            Some(KeyAction::Backspace)
        );
        assert_eq!(action(key(KeyCode::Enter), false), Some(KeyAction::Enter));
        assert_eq!(action(key(KeyCode::Esc), false), Some(KeyAction::Clear));
        assert_eq!(action(key(KeyCode::Up), true), Some(KeyAction::HistoryBack));
        assert_eq!(action(key(KeyCode::Tab), true), None);
        let release = KeyEvent {
            kind: KeyEventKind::Release,
            state: KeyEventState::NONE,
            ..key(KeyCode::Left)
        };
        assert_eq!(action(release, true), None, "a release presses nothing");
    }
}
