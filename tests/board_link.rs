//! Faults are not crashes: the real drivers on the device models, behind a
//! BoardLink, feeding a referee. The board goes away mid-game; the clock keeps
//! timing; what changed meanwhile reaches the referee when it comes back.

use shakmaty::{Board, Color, Square};
use tocada::controls::LinkChange;
use tocada::hardware::SensorBoard;
use tocada::hardware::link::{BoardLink, LinkPolicy};
use tocada::hardware::mcp23017_board::Mcp23017Board;
use tocada::hardware::protocol_board::ProtocolBoard;
use tocada::models::mcp23017::ReedBoardModel;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::models::{Hands, Shared};
use tocada::protocol::{Capabilities, DEFAULT_ADDRESS};
use tocada::{Effect, Input, Millis, Referee, Rules};

/// A model the test can unplug and knock pieces on.
trait Unpluggable: Hands {
    fn unplug(&mut self);
    fn plug(&mut self);
}

impl Unpluggable for ProtocolBoardModel {
    fn unplug(&mut self) {
        ProtocolBoardModel::unplug(self)
    }
    fn plug(&mut self) {
        ProtocolBoardModel::plug(self)
    }
}

impl Unpluggable for ReedBoardModel {
    fn unplug(&mut self) {
        ReedBoardModel::unplug(self)
    }
    fn plug(&mut self) {
        ReedBoardModel::plug(self)
    }
}

/// Runs the daemon's loop in simulated time from `from` to `to`: polls the
/// link when due, feeds what it saw to the referee, collects everything.
fn run<B: SensorBoard>(
    link: &mut BoardLink<B>,
    referee: &mut Referee,
    from: Millis,
    to: Millis,
    changes: &mut Vec<(Millis, LinkChange)>,
    effects: &mut Vec<Effect>,
) {
    let mut inputs = Vec::new();
    for now in from..to {
        if let Some(change) = link.poll(now, &mut inputs) {
            changes.push((now, change));
        }
        for input in inputs.drain(..) {
            referee.handle(now, input.input).unwrap();
        }
        referee.handle_timeout(now).unwrap();
        effects.extend(std::iter::from_fn(|| referee.poll_effect()).map(|(_, e)| e));
    }
}

fn board_goes_away_and_comes_back<M, B>(model: Shared<M>, driver: B)
where
    M: Unpluggable,
    B: SensorBoard,
{
    let mut referee = Referee::new(Rules {
        time_control: "60".parse().unwrap(),
        ..Rules::default()
    });
    let mut link = BoardLink::new(driver, LinkPolicy::default());
    let (mut changes, mut effects) = (Vec::new(), Vec::new());
    referee.handle(0, Input::Press(Color::Black)).unwrap();
    run(
        &mut link,
        &mut referee,
        0,
        1_000,
        &mut changes,
        &mut effects,
    );
    assert_eq!(changes, []);
    assert!(link.is_connected());

    // White plays e4 on the board; the driver sees it and White presses.
    model.borrow_mut().lift(1_000, Square::E2);
    model
        .borrow_mut()
        .place(1_200, Square::E4, Color::White.pawn());
    run(
        &mut link,
        &mut referee,
        1_000,
        1_500,
        &mut changes,
        &mut effects,
    );
    referee.handle(1_500, Input::Press(Color::White)).unwrap();
    effects.extend(std::iter::from_fn(|| referee.poll_effect()).map(|(_, e)| e));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Move(m) if m.san == "e4")),
        "{effects:?}"
    );

    // The cable comes out. The clock keeps timing Black.
    model.borrow_mut().unplug();
    run(
        &mut link,
        &mut referee,
        1_500,
        10_000,
        &mut changes,
        &mut effects,
    );
    assert!(
        matches!(changes[..], [(_, LinkChange::Disconnected)]),
        "{changes:?}"
    );
    assert!(!link.is_connected());
    assert_eq!(referee.ticking(), Some(Color::Black));
    assert_eq!(referee.remaining(Color::Black, 10_000), 60_000 - 8_500);

    // Meanwhile a white pawn is knocked off the board.
    model.borrow_mut().lift(9_000, Square::A2);
    model.borrow_mut().plug();
    run(
        &mut link,
        &mut referee,
        10_000,
        13_000,
        &mut changes,
        &mut effects,
    );
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(changes[1].1, LinkChange::Reconnected);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Displaced { squares, .. } if squares == &[Square::A2])),
        "the board as it is now reaches the referee: {effects:?}"
    );
    // Nothing else went wrong on the way.
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Violation(_) | Effect::Result { .. })),
        "{effects:?}"
    );
}

#[test]
fn the_protocol_board_goes_away_and_comes_back() {
    let caps = Capabilities {
        occupancy: true,
        contact: false,
        identity: false,
        int_line: false,
        fast_mode: false,
    };
    let model = Shared::new(ProtocolBoardModel::new(
        &Board::default(),
        0x1234_5678,
        caps,
    ));
    let driver = ProtocolBoard::new(model.clone(), DEFAULT_ADDRESS);
    board_goes_away_and_comes_back(model, driver);
}

#[test]
fn the_reed_board_goes_away_and_comes_back() {
    let model = Shared::new(ReedBoardModel::new(&Board::default()));
    let driver = Mcp23017Board::new(model.clone());
    board_goes_away_and_comes_back(model, driver);
}
