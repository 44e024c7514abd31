//! The real MCP23017 board driver against the model of the board.

use proptest::prelude::*;
use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};
use tocada::Input;
use tocada::hardware::SensorBoard;
use tocada::hardware::mcp23017_board::{Error, Mcp23017Board};
use tocada::models::Hands;
use tocada::models::mcp23017::ReedBoardModel;

/// The model on a bus the test shares with the driver, so hands can move
/// pieces while the driver owns its end of the bus.
type Shared = tocada::models::Shared<ReedBoardModel>;

type Driver = Mcp23017Board<Shared>;

const PAWN: Piece = Piece {
    color: Color::White,
    role: Role::Pawn,
};

fn start() -> (Driver, Shared) {
    let bus = Shared::new(ReedBoardModel::new(&Board::default()));
    let mut driver = Mcp23017Board::new(bus.clone());
    driver.init().unwrap();
    (driver, bus)
}

/// Polls until four polls in a row succeed and report nothing new; returns
/// the events. One quiet poll is not enough: a poll whose scans disagree, or
/// that reconfigures a chip, reports nothing and leaves the change to a later
/// poll (at most three in all once the faults stop).
fn settle(driver: &mut Driver) -> Vec<Input> {
    let mut out = Vec::new();
    let mut quiet = 0;
    for _ in 0..20 {
        let before = out.len();
        if driver.poll(&mut out).is_ok() && out.len() == before {
            quiet += 1;
            if quiet == 4 {
                return out;
            }
        } else {
            quiet = 0;
        }
    }
    panic!("never settled: {out:?}");
}

#[test]
fn the_initial_position_reads_as_the_start_occupancy() {
    let (mut driver, _bus) = start();
    assert_eq!(driver.occupancy().unwrap(), Board::default().occupied());
}

#[test]
fn e2_e4_is_a_lift_then_a_place() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    bus.borrow_mut().lift(0, Square::E2);
    bus.borrow_mut().place(300, Square::E4, PAWN);
    let mut out = Vec::new();
    driver.poll(&mut out).unwrap();
    assert_eq!(
        out,
        [Input::Lift(Square::E2), Input::Place(Square::E4, None)]
    );
    // Touches are invisible to reed switches.
    bus.borrow_mut().touch(400, Square::E4);
    assert!(settle(&mut driver).is_empty());
}

#[test]
fn a_bounce_is_filtered() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    bus.borrow_mut().bounce(Square::D1);
    bus.borrow_mut().bounce(Square::D4);
    assert!(settle(&mut driver).is_empty());
    assert_eq!(driver.unstable_scans(), 1);
    assert_eq!(driver.occupancy().unwrap(), Board::default().occupied());
}

#[test]
fn a_steady_board_costs_one_scan_per_poll() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    let before = bus.borrow().bytes_transferred();
    driver.poll(&mut Vec::new()).unwrap();
    // Per chip: address, register, repeated-start address, GPIOA, GPIOB.
    assert_eq!(bus.borrow().bytes_transferred() - before, 4 * 5);
}

#[test]
fn unplug_and_plug_recover_by_themselves() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    bus.borrow_mut().unplug();
    assert!(matches!(
        driver.poll(&mut Vec::new()),
        Err(Error::I2c { address: 0x20, .. })
    ));
    // Pieces move while the cable is out.
    bus.borrow_mut().lift(0, Square::G1);
    bus.borrow_mut().place(0, Square::F3, PAWN);
    bus.borrow_mut().plug();
    let events = settle(&mut driver);
    assert_eq!(
        events,
        [Input::Lift(Square::G1), Input::Place(Square::F3, None)]
    );
    assert_eq!(driver.occupancy().unwrap(), bus.borrow().occupancy());
    assert_eq!(driver.bus_errors(), 1);
    assert_eq!(driver.reconfigurations(), 4);
}

#[test]
fn a_power_cycled_expander_is_reconfigured_without_bogus_events() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    bus.borrow_mut().power_cycle(3);
    assert!(settle(&mut driver).is_empty());
    assert_eq!(driver.reconfigurations(), 1);
    assert_eq!(bus.borrow().expander(3).register(0x0C), 0xFF);
    assert_eq!(driver.occupancy().unwrap(), bus.borrow().occupancy());
}

#[test]
fn a_power_cycle_of_an_unchanging_chip_is_caught_by_the_periodic_read_back() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    // U2 (ranks 3-4) is empty: with the config lost it reads all occupied,
    // so the change check catches it; the periodic read-back catches it too
    // after at most VERIFY_EVERY polls even if it did not change.
    bus.borrow_mut().power_cycle(1);
    for _ in 0..tocada::hardware::mcp23017_board::VERIFY_EVERY + 1 {
        let mut out = Vec::new();
        driver.poll(&mut out).unwrap();
        assert!(out.is_empty());
    }
    assert_eq!(bus.borrow().expander(1).register(0x02), 0xFF);
}

#[test]
fn nacks_are_errors_the_driver_survives() {
    let (mut driver, bus) = start();
    driver.occupancy().unwrap();
    bus.borrow_mut().nack_next(3);
    bus.borrow_mut().lift(0, Square::A2);
    let mut out = Vec::new();
    for _ in 0..3 {
        assert!(driver.poll(&mut out).is_err());
    }
    out.extend(settle(&mut driver));
    assert_eq!(out, [Input::Lift(Square::A2)]);
    assert_eq!(driver.bus_errors(), 3);
}

#[derive(Debug, Clone)]
enum Step {
    Toggle(Square),
    Nack(u32),
    Unplug,
    Plug,
    PowerCycle(usize),
    Bounce(Square),
    Poll,
}

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => square().prop_map(Step::Toggle),
        1 => (1u32..4).prop_map(Step::Nack),
        1 => Just(Step::Unplug),
        1 => Just(Step::Plug),
        1 => (0usize..4).prop_map(Step::PowerCycle),
        2 => square().prop_map(Step::Bounce),
        6 => Just(Step::Poll),
    ]
}

/// Applies events to an occupancy, checking each is possible.
fn apply(mut occupancy: Bitboard, events: &[Input]) -> Bitboard {
    for event in events {
        match *event {
            Input::Lift(sq) => {
                assert!(occupancy.contains(sq), "lift of empty {sq}");
                occupancy.discard(sq);
            }
            Input::Place(sq, None) => {
                assert!(!occupancy.contains(sq), "place on occupied {sq}");
                occupancy.add(sq);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    occupancy
}

proptest! {
    #[test]
    fn random_hands_and_faults_never_panic_and_converge(steps in prop::collection::vec(step(), 0..80)) {
        let (mut driver, bus) = start();
        let mut seen = driver.occupancy().unwrap();
        for step in steps {
            let mut model = bus.borrow_mut();
            match step {
                Step::Toggle(sq) => {
                    if model.occupancy().contains(sq) {
                        model.lift(0, sq);
                    } else {
                        model.place(0, sq, PAWN);
                    }
                }
                Step::Nack(n) => model.nack_next(n),
                Step::Unplug => model.unplug(),
                Step::Plug => model.plug(),
                Step::PowerCycle(k) => model.power_cycle(k),
                Step::Bounce(sq) => model.bounce(sq),
                Step::Poll => {
                    drop(model);
                    let mut out = Vec::new();
                    let _ = driver.poll(&mut out);
                    seen = apply(seen, &out);
                }
            }
        }
        bus.borrow_mut().plug();
        seen = apply(seen, &settle(&mut driver));
        let truth = bus.borrow().occupancy();
        prop_assert_eq!(seen, truth);
        prop_assert_eq!(driver.occupancy().unwrap(), truth);
    }
}
