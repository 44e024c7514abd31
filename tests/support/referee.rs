//! A fake clock and a pair of hands for driving a referee in tests.
#![allow(dead_code)]

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Square};
use tocada::{Effect, Input, Millis, Referee, Rules};

pub const WHITE: Color = Color::White;
pub const BLACK: Color = Color::Black;

pub fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

pub fn fen(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// A referee, the instant the test has reached, and what it said.
pub struct Game {
    pub referee: Referee,
    pub now: Millis,
}

impl Game {
    pub fn new(rules: Rules) -> Game {
        Game {
            referee: Referee::new(rules),
            now: 0,
        }
    }

    pub fn with_time_control(tc: &str) -> Game {
        Game::new(Rules {
            time_control: tc.parse().unwrap(),
            ..Rules::default()
        })
    }

    /// Black presses at 0: White's clock starts.
    pub fn started(rules: Rules) -> Game {
        let mut game = Game::new(rules);
        let effects = game.at(0, Input::Press(BLACK));
        assert_eq!(effects, [Effect::Started { side: WHITE }]);
        game
    }

    /// Handles `input` at `t` and returns every effect it produced.
    pub fn at(&mut self, t: Millis, input: Input) -> Vec<Effect> {
        self.now = t;
        self.referee.handle(t, input).unwrap();
        self.drain()
    }

    /// Lets time pass to `t`.
    pub fn wait(&mut self, t: Millis) -> Vec<Effect> {
        self.now = t;
        self.referee.handle_timeout(t).unwrap();
        self.drain()
    }

    pub fn drain(&mut self) -> Vec<Effect> {
        std::iter::from_fn(|| self.referee.poll_effect())
            .map(|(_, e)| e)
            .collect()
    }

    /// Applies several inputs 100 ms apart from `t`, returning all effects.
    pub fn inputs(&mut self, t: Millis, inputs: &[Input]) -> Vec<Effect> {
        let mut effects = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            effects.extend(self.at(t + 100 * i as Millis, *input));
        }
        effects
    }

    /// The lifts and places of a move in UCI, made naturally: captured piece
    /// first, king before rook. Starts at `t`, 100 ms apart.
    pub fn play(&mut self, t: Millis, uci: &str) -> Vec<Effect> {
        let hands = hands(self.referee.position(), uci);
        self.inputs(t, &hands)
    }

    /// Makes a move and presses 300 ms after its last event.
    pub fn play_and_press(&mut self, t: Millis, uci: &str) -> Vec<Effect> {
        let side = self.referee.position().turn();
        let hands = hands(self.referee.position(), uci);
        let mut effects = self.inputs(t, &hands);
        effects.extend(self.at(t + 100 * hands.len() as Millis + 200, Input::Press(side)));
        effects
    }

    pub fn moves(effects: &[Effect]) -> Vec<String> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Move(m) => Some(m.san.to_string()),
                _ => None,
            })
            .collect()
    }
}

pub fn parse_move(position: &Chess, uci: &str) -> Move {
    UciMove::from_ascii(uci.as_bytes())
        .unwrap()
        .to_move(position)
        .unwrap()
}

/// The sensor events of a move, in the most natural order.
pub fn hands(position: &Chess, uci: &str) -> Vec<Input> {
    let m = parse_move(position, uci);
    let color = position.turn();
    match m {
        Move::Castle { king, rook } => {
            let side = m.castling_side().unwrap();
            vec![
                Input::Lift(king),
                Input::Place(side.king_to(color), None),
                Input::Lift(rook),
                Input::Place(side.rook_to(color), None),
            ]
        }
        Move::EnPassant { from, to } => vec![
            Input::Lift(Square::from_coords(to.file(), from.rank())),
            Input::Lift(from),
            Input::Place(to, None),
        ],
        _ => {
            let mut inputs = Vec::new();
            if m.is_capture() {
                inputs.push(Input::Lift(m.to()));
            }
            inputs.push(Input::Lift(m.from().unwrap()));
            inputs.push(Input::Place(m.to(), None));
            inputs
        }
    }
}
