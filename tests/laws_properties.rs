//! Properties of the laws profiles over arbitrary event sequences, false
//! moves, claims and choices among them: nothing panics, effects come in
//! time order and none after the result, at most one clock runs, a choice
//! is only ever given with options the chooser can answer, and the game
//! waits for it.

mod support {
    pub mod referee;
}

use proptest::prelude::*;
use shakmaty::CastlingMode;
use shakmaty::uci::UciMove;
use shakmaty::{
    CastlingSide, Chess, Color, EnPassantMode, File, FromSetup, Position, Rank, Role, Square,
};
use support::referee::hands;
use tocada::{Choice, Effect, Input, Laws, Millis, Referee, Rules};

#[derive(Debug, Clone)]
enum Step {
    Raw(Input),
    /// The hands of the n-th legal move, then possibly a press.
    Legal(usize, bool),
    /// A piece of the side to move (the n-th) lifted and put on the m-th
    /// empty square, then a press: mostly a false move.
    False(usize, usize),
    /// The hands of the n-th legal move, then of the m-th legal move of
    /// the same side as if the opponent had passed, then a press: two
    /// moves in a row (1858, 15ª).
    Twice(usize, usize),
    /// The king and the rook of the side to move set down as if castling
    /// on the n-th side, whether castling is allowed or not, then a press
    /// (1858, 20ª).
    Castle(usize),
}

fn side() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0usize..64, any::<bool>()).prop_map(|(n, press)| Step::Legal(n, press)),
        3 => (0usize..16, 0usize..64).prop_map(|(n, m)| Step::False(n, m)),
        2 => (0usize..64, 0usize..64).prop_map(|(n, m)| Step::Twice(n, m)),
        1 => (0usize..2).prop_map(Step::Castle),
        2 => side().prop_map(|s| Step::Raw(Input::Press(s))),
        1 => square().prop_map(|s| Step::Raw(Input::Lift(s))),
        1 => square().prop_map(|s| Step::Raw(Input::Place(s, None))),
        2 => square().prop_map(|s| Step::Raw(Input::Touch(s))),
        1 => side().prop_map(|s| Step::Raw(Input::Adjust(s))),
        2 => side().prop_map(|s| Step::Raw(Input::Claim(s))),
        3 => (side(), prop::sample::select(Choice::ALL.to_vec()))
            .prop_map(|(s, c)| Step::Raw(Input::Choose(s, c))),
        1 => Just(Step::Raw(Input::Pause)),
        1 => Just(Step::Raw(Input::Resume)),
        1 => Just(Step::Raw(Input::TakeBack)),
    ]
}

fn expand(referee: &Referee, step: &Step) -> Vec<Input> {
    let position = referee.position();
    match step {
        Step::Raw(input) => vec![*input],
        Step::Legal(n, press) => {
            let moves = position.legal_moves();
            if moves.is_empty() {
                return Vec::new();
            }
            let m = moves[n % moves.len()];
            let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
            let mut inputs = hands(position, &uci);
            if *press {
                inputs.push(Input::Press(position.turn()));
            }
            inputs
        }
        Step::False(n, m) => {
            let us = position.turn();
            let own: Vec<Square> = position.board().by_color(us).into_iter().collect();
            let empty: Vec<Square> = (!position.board().occupied()).into_iter().collect();
            if own.is_empty() || empty.is_empty() {
                return Vec::new();
            }
            let from = own[n % own.len()];
            let to = empty[m % empty.len()];
            vec![Input::Lift(from), Input::Place(to, None), Input::Press(us)]
        }
        Step::Twice(n, m) => {
            let us = position.turn();
            let moves = position.legal_moves();
            if moves.is_empty() {
                return Vec::new();
            }
            let first = moves[n % moves.len()];
            let uci = UciMove::from_move(first, CastlingMode::Standard).to_string();
            let mut inputs = hands(position, &uci);
            let mut after = position.clone();
            after.play_unchecked(first);
            let mut setup = after.to_setup(EnPassantMode::Legal);
            setup.swap_turn();
            let Ok(passed) = Chess::from_setup(setup, CastlingMode::Standard) else {
                return inputs;
            };
            let seconds = passed.legal_moves();
            if !seconds.is_empty() {
                let second = seconds[m % seconds.len()];
                let uci = UciMove::from_move(second, CastlingMode::Standard).to_string();
                inputs.extend(hands(&passed, &uci));
            }
            inputs.push(Input::Press(us));
            inputs
        }
        Step::Castle(n) => {
            let us = position.turn();
            let side = CastlingSide::ALL[n % 2];
            let back = us.fold_wb(Rank::First, Rank::Eighth);
            let king = Square::from_coords(File::E, back);
            let rook = Square::from_coords(
                if side == CastlingSide::KingSide {
                    File::H
                } else {
                    File::A
                },
                back,
            );
            let board = position.board();
            let (king_to, rook_to) = (side.king_to(us), side.rook_to(us));
            if board.king_of(us) != Some(king)
                || board.piece_at(rook) != Some(Role::Rook.of(us))
                || board.occupied().contains(king_to)
                || board.occupied().contains(rook_to)
            {
                return Vec::new();
            }
            vec![
                Input::Lift(king),
                Input::Place(king_to, None),
                Input::Lift(rook),
                Input::Place(rook_to, None),
                Input::Press(us),
            ]
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn the_profiles_never_panic_and_choices_are_answerable(
        laws in prop_oneof![Just(Laws::Fide2023Unsupervised), Just(Laws::Regence1858)],
        steps in prop::collection::vec((0u64..4_000, step()), 1..120),
    ) {
        let mut referee = Referee::new(Rules {
            time_control: "60+2".parse().unwrap(),
            laws,
            ..Rules::default()
        });
        referee.handle(0, Input::Press(Color::Black)).unwrap();
        let mut now: Millis = 0;
        let mut over = false;
        let mut last_effect_at = 0;
        for (dt, step) in &steps {
            for input in expand(&referee, step) {
                now += dt / 4 + 1;
                let waiting = referee.choice_pending();
                let refused = referee.refused_choices();
                referee.handle(now, input).unwrap();
                let effects: Vec<(Millis, Effect)> =
                    std::iter::from_fn(|| referee.poll_effect()).collect();
                prop_assert!(!over || effects.is_empty(), "after the result: {effects:?}");
                for (at, effect) in &effects {
                    prop_assert!(*at >= last_effect_at && *at <= now);
                    last_effect_at = *at;
                    match effect {
                        Effect::Result { .. } => over = true,
                        Effect::Choice { side, options, .. } => {
                            prop_assert!(laws == Laws::Regence1858);
                            prop_assert!(!options.as_slice().is_empty());
                            prop_assert_eq!(
                                referee.choice_pending().map(|(s, _, o)| (s, o)),
                                Some((*side, *options))
                            );
                        }
                        _ => {}
                    }
                }
                // An answer to a waiting choice is honoured exactly when it
                // is the chooser's and one of his options.
                if let (Input::Choose(side, option), Some((chooser, _, options))) = (input, waiting)
                    && !over
                {
                    let fits = side == chooser && options.contains(option);
                    prop_assert_eq!(referee.refused_choices() == refused, fits);
                }
                let later = now + 1_000;
                let running = [Color::White, Color::Black]
                    .into_iter()
                    .filter(|c| referee.remaining(*c, later) < referee.remaining(*c, now))
                    .count();
                prop_assert!(running <= 1);
            }
        }
        referee.handle_timeout(now + 10_000_000).unwrap();
        while referee.poll_effect().is_some() {}
        prop_assert_eq!(referee.next_deadline(), None);
    }
}
