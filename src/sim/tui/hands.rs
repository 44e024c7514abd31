//! The simulator's hands: a typed move turned into what a player does at
//! the board, with human timing ([`gesture::hand_events`]), then his press
//! on the clock.

use shakmaty::{Chess, Move, Position};

use crate::gesture::{self, Style};
use crate::{Input, Millis};

/// How long after setting the last piece down the mover presses his lever.
pub const PRESS_AFTER_MS: Millis = 300;

/// What the hands do to make `m` in `position`, with offsets in
/// milliseconds from the first contact, ending with the mover's press when
/// `press` is set. The board only senses occupancy, so the referee never
/// learns which piece comes down; the pieces are named anyway, so that the
/// board model (and the screen) holds the right ones.
pub fn plan(position: &Chess, m: Move, press: bool) -> Vec<(Millis, Input)> {
    let after = position.clone().play(m).ok();
    let mut steps: Vec<(Millis, Input)> = gesture::hand_events(position, m, &Style::default())
        .into_iter()
        .map(|(t, input)| match input {
            Input::Place(sq, None) => (
                t,
                Input::Place(sq, after.as_ref().and_then(|a| a.board().piece_at(sq))),
            ),
            other => (t, other),
        })
        .collect();
    if press {
        let last = steps.last().map_or(0, |(t, _)| *t);
        steps.push((last + PRESS_AFTER_MS, Input::Press(position.turn())));
    }
    steps
}

#[cfg(test)]
mod tests {
    use shakmaty::{Color, Piece, Role, Square};

    use super::*;
    use crate::sim::tui::command::resolve_move;

    #[test]
    fn a_pawn_move_is_a_lift_a_place_and_the_press() {
        let start = Chess::default();
        let steps = plan(&start, resolve_move(&start, "e2e4").unwrap(), true);
        assert_eq!(steps.len(), 3, "{steps:?}");
        assert_eq!(steps[0], (0, Input::Lift(Square::E2)));
        let (placed_at, place) = steps[1];
        assert_eq!(place, Input::Place(Square::E4, Some(Color::White.pawn())));
        assert!(
            (150..=400).contains(&placed_at),
            "human-like: {placed_at} ms"
        );
        assert_eq!(
            steps[2],
            (placed_at + PRESS_AFTER_MS, Input::Press(Color::White))
        );
    }

    #[test]
    fn without_the_press_the_lever_is_left_alone() {
        let start = Chess::default();
        let steps = plan(&start, resolve_move(&start, "Nf3").unwrap(), false);
        assert!(steps.iter().all(|(_, i)| !matches!(i, Input::Press(_))));
        assert_eq!(
            steps.last().map(|(_, i)| *i),
            Some(Input::Place(
                Square::F3,
                Some(Piece {
                    color: Color::White,
                    role: Role::Knight
                })
            ))
        );
    }

    #[test]
    fn a_capture_takes_the_captured_piece_off_first_and_in_time_order() {
        let position =
            gesture::script_from_sans(Chess::default(), ["e4", "d5"], Style::default(), 1)
                .unwrap()
                .position()
                .clone();
        let steps = plan(&position, resolve_move(&position, "exd5").unwrap(), true);
        let inputs: Vec<Input> = steps.iter().map(|(_, i)| *i).collect();
        assert_eq!(
            inputs,
            [
                Input::Lift(Square::D5),
                Input::Lift(Square::E4),
                Input::Place(Square::D5, Some(Color::White.pawn())),
                Input::Press(Color::White),
            ]
        );
        assert!(steps.windows(2).all(|w| w[0].0 < w[1].0), "{steps:?}");
    }
}
