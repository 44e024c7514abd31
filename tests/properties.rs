//! Properties over arbitrary event sequences: nothing panics, one clock at
//! most runs, pause stops both, and time only arrives through increments,
//! stage time, penalties and the arbiter's corrections.

mod support {
    pub mod referee;
}

use proptest::prelude::*;
use shakmaty::CastlingMode;
use shakmaty::uci::UciMove;
use shakmaty::{Color, Piece, Position, Role, Square};
use support::referee::hands;
use tocada::{Effect, Enforcement, IncrementMode, Input, Millis, Referee, Rules};

/// What the generator asks for; `Legal` is expanded against the position.
#[derive(Debug, Clone)]
enum Step {
    Raw(Input),
    /// The hands of the n-th legal move, then possibly a press.
    Legal(usize, bool),
}

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(|i| Square::new(i))
}

fn side() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn piece() -> impl Strategy<Value = Option<Piece>> {
    prop_oneof![
        3 => Just(None),
        1 => (side(), 0usize..6).prop_map(|(color, r)| Some(Piece { color, role: Role::ALL[r] })),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0usize..64, any::<bool>()).prop_map(|(n, press)| Step::Legal(n, press)),
        4 => side().prop_map(|s| Step::Raw(Input::Press(s))),
        2 => square().prop_map(|s| Step::Raw(Input::Lift(s))),
        2 => (square(), piece()).prop_map(|(s, p)| Step::Raw(Input::Place(s, p))),
        1 => square().prop_map(|s| Step::Raw(Input::Touch(s))),
        1 => square().prop_map(|s| Step::Raw(Input::Untouch(s))),
        1 => side().prop_map(|s| Step::Raw(Input::Adjust(s))),
        1 => side().prop_map(|s| Step::Raw(Input::Draw(s))),
        1 => side().prop_map(|s| Step::Raw(Input::Decline(s))),
        1 => (0usize..6).prop_map(|r| Step::Raw(Input::Promote(Role::ALL[r]))),
        1 => Just(Step::Raw(Input::Pause)),
        1 => Just(Step::Raw(Input::Resume)),
        // Mostly plausible corrections, sometimes absurd ones.
        1 => (side(), prop_oneof![3 => 0u64..10_000_000, 1 => any::<u64>()])
            .prop_map(|(s, ms)| Step::Raw(Input::SetTime(s, ms))),
        1 => (side(), prop_oneof![3 => 0u32..200, 1 => any::<u32>()])
            .prop_map(|(s, n)| Step::Raw(Input::SetMoves(s, n))),
    ]
}

fn rules() -> impl Strategy<Value = Rules> {
    (
        prop_oneof![Just("60+2"), Just("3/20+1:10+3"), Just("5"), Just("30+5")],
        prop_oneof![
            Just(IncrementMode::Fischer),
            Just(IncrementMode::Bronstein),
            Just(IncrementMode::Delay)
        ],
        prop_oneof![
            Just(Enforcement::Strict),
            Just(Enforcement::Claim),
            Just(Enforcement::Record)
        ],
    )
        .prop_map(|(tc, increment_mode, enforcement)| Rules {
            time_control: tc.parse().unwrap(),
            increment_mode,
            enforcement,
            ..Rules::default()
        })
}

/// The most time one completion can bring: increment plus any stage time.
fn max_bonus(rules: &Rules) -> u64 {
    let stages = rules.time_control.stages();
    stages.iter().map(|s| s.increment_ms).max().unwrap_or(0)
        + stages.iter().map(|s| s.time_ms).max().unwrap_or(0)
}

fn expand(referee: &Referee, step: &Step) -> Vec<Input> {
    match step {
        Step::Raw(input) => vec![*input],
        Step::Legal(n, press) => {
            let position = referee.position();
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
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_well_formed_events_keeps_the_clock_honest(
        rules in rules(),
        steps in prop::collection::vec((0u64..4_000, step()), 1..150),
    ) {
        let bonus = max_bonus(&rules);
        let mut referee = Referee::new(rules);
        let mut now: Millis = 0;
        let mut over = false;
        let mut last_effect_at = 0;
        let mut movers = Vec::new();
        for (dt, step) in &steps {
            for input in expand(&referee, step) {
                now += dt / 4 + 1;
                let before = [Color::White, Color::Black].map(|c| referee.remaining(c, now));
                referee.handle(now, input).unwrap();
                let effects: Vec<(Millis, Effect)> = std::iter::from_fn(|| referee.poll_effect()).collect();
                prop_assert!(!over || effects.is_empty(), "something followed a result: {effects:?}");
                for (at, effect) in &effects {
                    prop_assert!(*at >= last_effect_at && *at <= now);
                    last_effect_at = *at;
                    match effect {
                        Effect::Result { .. } => over = true,
                        Effect::Move(m) => movers.push(m.side),
                        _ => {}
                    }
                }
                for (i, side) in [Color::White, Color::Black].into_iter().enumerate() {
                    let after = referee.remaining(side, now);
                    if after > before[i] {
                        let earned: u64 = effects.iter().map(|(_, e)| match e {
                            Effect::Move(m) if m.side == side => bonus,
                            Effect::TimeAdded { side: s, ms, .. } if *s == side => *ms,
                            Effect::Corrected { side: s, ms, .. } if *s == side => *ms,
                            _ => 0,
                        }).sum();
                        prop_assert!(after - before[i] <= earned, "{side:?} gained {} ms with {effects:?}", after - before[i]);
                    }
                }
                // One clock at most runs, and none while paused or over.
                let later = now + 1_000;
                let running: Vec<Color> = [Color::White, Color::Black]
                    .into_iter()
                    .filter(|c| referee.remaining(*c, later) < referee.remaining(*c, now))
                    .collect();
                prop_assert!(running.len() <= 1);
                if referee.is_paused() || over {
                    prop_assert!(running.is_empty());
                }
            }
        }
        // Moves come in game order: the sides alternate.
        for pair in movers.windows(2) {
            prop_assert_ne!(pair[0], pair[1]);
        }
        // Letting time run out after everything never panics either. A
        // clock may hold the most an arbiter can set, plus the penalties
        // and increments of every step: twice the most settable is past it.
        referee.handle_timeout(now + 2 * Referee::MAX_SET_TIME_MS).unwrap();
        while referee.poll_effect().is_some() {}
        prop_assert_eq!(referee.next_deadline(), None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The face says a ruling in the players' language by reading the
    /// referee's sentence back (`tocada::words::ruling`): every sentence
    /// the referee writes, under every profile of the laws, must be one it
    /// knows, or a Spanish clock would show it in English.
    #[test]
    fn every_ruling_the_referee_writes_is_said_in_every_language(
        laws in prop_oneof![
            Just(tocada::Laws::Fide2023),
            Just(tocada::Laws::Fide2023Unsupervised),
            Just(tocada::Laws::Regence1858),
        ],
        steps in prop::collection::vec((0u64..4_000, step()), 1..150),
    ) {
        use tocada::words::ruling::Sentence;
        let mut referee = Referee::new(Rules { laws, ..Rules::default() });
        let mut now: Millis = 0;
        for (dt, step) in &steps {
            for input in expand(&referee, step) {
                now += dt / 4 + 1;
                referee.handle(now, input).unwrap();
                while let Some((_, effect)) = referee.poll_effect() {
                    if let Effect::Violation(r) | Effect::Warning(r) = effect
                        && !r.detail.is_empty()
                    {
                        prop_assert!(
                            Sentence::read(&r.detail).is_some(),
                            "a sentence the face cannot say again: {:?} ({})",
                            r.detail,
                            r.law
                        );
                    }
                }
            }
        }
    }
}
