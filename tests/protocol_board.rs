//! The protocol v1 driver against the board model: the whole conversation,
//! and recovery from every fault the model can inject.

use embedded_hal::i2c::ErrorKind;
use proptest::prelude::*;
use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};
use tocada::Input;
use tocada::hardware::SensorBoard;
use tocada::hardware::protocol_board::{Error, ProtocolBoard};
use tocada::models::Hands;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::protocol::Capabilities;

/// The model on a bus the test can still reach, to move pieces and inject
/// faults while the driver owns its end.
type Bus = tocada::models::Shared<ProtocolBoardModel>;

const SERIAL: u64 = 0x0123_4567_89AB_CDEF;

fn caps(identity: bool) -> Capabilities {
    Capabilities {
        occupancy: true,
        contact: true,
        identity,
        ..Capabilities::default()
    }
}

/// A driver, its board, and what the referee believes from the inputs.
struct Rig {
    board: Bus,
    driver: ProtocolBoard<Bus>,
    believed: Bitboard,
    inputs: Vec<Input>,
    errors: usize,
    now: u64,
}

impl Rig {
    fn new(identity: bool) -> Rig {
        let board = Bus::new(ProtocolBoardModel::new(
            &Board::default(),
            SERIAL,
            caps(identity),
        ));
        let driver = ProtocolBoard::new(board.clone(), 0x42);
        let mut rig = Rig {
            board,
            driver,
            believed: Board::default().occupied(),
            inputs: Vec::new(),
            errors: 0,
            now: 0,
        };
        rig.settle();
        assert_eq!(rig.errors, 0);
        rig
    }

    fn model(&self) -> std::cell::RefMut<'_, ProtocolBoardModel> {
        self.board.borrow_mut()
    }

    /// One poll; inputs update the believed board as the referee's would.
    fn poll(&mut self) -> Result<(), Error<ErrorKind>> {
        let mut out = Vec::new();
        let r = self.driver.poll(&mut out);
        if r.is_err() {
            self.errors += 1;
            assert!(out.is_empty(), "inputs went out with an error");
        }
        for input in &out {
            match *input {
                Input::Lift(sq) => self.believed.discard(sq),
                Input::Place(sq, _) => self.believed.add(sq),
                _ => {}
            }
        }
        self.inputs.extend(out);
        r
    }

    /// Polls until the board has nothing queued and a poll went well.
    fn settle(&mut self) {
        for _ in 0..50 {
            if self.poll().is_ok() && self.board.borrow().queued() == 0 {
                return;
            }
        }
        panic!("did not settle: {:?}", self.driver.counters());
    }

    fn lift(&mut self, sq: Square) {
        self.now += 100;
        let now = self.now;
        self.model().lift(now, sq);
    }

    fn place(&mut self, sq: Square, piece: Piece) {
        self.now += 100;
        let now = self.now;
        self.model().place(now, sq, piece);
    }

    fn play(&mut self, from: Square, to: Square) {
        let piece = self.board.borrow().piece_at(from).unwrap();
        self.lift(from);
        if self.board.borrow().piece_at(to).is_some() {
            self.lift(to);
        }
        self.place(to, piece);
    }

    /// The driver's view, the referee's view and the physical board agree.
    fn assert_converged(&mut self) {
        self.settle();
        let physical = self.board.borrow().occupancy();
        assert_eq!(self.believed, physical, "inputs do not add up to the board");
        self.assert_converged_after_snapshot();
    }

    /// The same, once a voluntary snapshot has shown what frames could not:
    /// a frame lost last of all leaves no gap until the next one.
    fn assert_converged_after_snapshot(&mut self) {
        self.settle();
        let physical = self.board.borrow().occupancy();
        let reported = (0..10)
            .find_map(|_| self.driver.occupancy().ok())
            .expect("occupancy");
        assert_eq!(reported, physical);
        self.settle();
        assert_eq!(self.believed, physical);
    }
}

const WHITE_PAWN: Piece = Piece {
    color: Color::White,
    role: Role::Pawn,
};

#[test]
fn identify_and_pair() {
    let board = Bus::new(ProtocolBoardModel::new(
        &Board::default(),
        SERIAL,
        caps(true),
    ));
    let mut driver = ProtocolBoard::new(board.clone(), 0x42);
    let id = driver.identify().unwrap();
    assert_eq!((id.serial, id.boot_counter, id.version), (SERIAL, 1, 1));
    assert!(id.capabilities.identity && id.capabilities.contact);
    driver.pair(0xDEAD_BEEF).unwrap();
    let mut out = Vec::new();
    driver.poll(&mut out).unwrap();
    assert_eq!(out, []);
    assert_eq!(driver.occupancy().unwrap(), Board::default().occupied());
    // The wrong address is NACKed.
    let mut other = ProtocolBoard::new(board, 0x43);
    assert!(matches!(
        other.identify(),
        Err(Error::Bus(ErrorKind::NoAcknowledge(_)))
    ));
}

#[test]
fn a_move_arrives_as_lift_and_place() {
    let mut rig = Rig::new(true);
    rig.play(Square::E2, Square::E4);
    rig.poll().unwrap();
    assert_eq!(
        rig.inputs,
        [
            Input::Lift(Square::E2),
            Input::Place(Square::E4, Some(WHITE_PAWN))
        ]
    );
    rig.model().touch(1_000, Square::G8);
    rig.model().untouch(1_100, Square::G8);
    rig.inputs.clear();
    rig.poll().unwrap();
    assert_eq!(
        rig.inputs,
        [Input::Touch(Square::G8), Input::Untouch(Square::G8)]
    );
    assert_eq!(rig.driver.counters(), Default::default());
    assert!(rig.model().bytes_transferred() > 0);
}

#[test]
fn without_identity_pieces_are_unknown() {
    let mut rig = Rig::new(false);
    rig.play(Square::E2, Square::E4);
    rig.poll().unwrap();
    assert_eq!(
        rig.inputs,
        [Input::Lift(Square::E2), Input::Place(Square::E4, None)]
    );
}

#[test]
fn a_frame_corrupt_on_the_wire_is_read_again() {
    let mut rig = Rig::new(true);
    rig.model().corrupt_next_read();
    rig.play(Square::E2, Square::E4);
    rig.poll().unwrap();
    assert_eq!(
        rig.inputs,
        [
            Input::Lift(Square::E2),
            Input::Place(Square::E4, Some(WHITE_PAWN))
        ]
    );
    let c = rig.driver.counters();
    assert_eq!((c.crc_errors, c.resyncs), (1, 0));
}

#[test]
fn a_frame_corrupt_for_good_leads_to_a_resync() {
    let mut rig = Rig::new(true);
    rig.model().corrupt_next_frame();
    rig.play(Square::G1, Square::F3);
    rig.assert_converged();
    let c = rig.driver.counters();
    assert_eq!((c.crc_errors, c.resyncs), (3, 1));
    assert!(rig.inputs.contains(&Input::Place(
        Square::F3,
        Some(Piece {
            color: Color::White,
            role: Role::Knight
        })
    )));
}

#[test]
fn a_dropped_frame_is_a_gap() {
    let mut rig = Rig::new(true);
    rig.model().drop_next_frame();
    rig.play(Square::E2, Square::E4);
    rig.assert_converged();
    let c = rig.driver.counters();
    assert_eq!((c.sequence_gaps, c.resyncs), (1, 1));
}

#[test]
fn a_reset_mid_game_is_noticed_and_repaired() {
    let mut rig = Rig::new(true);
    rig.play(Square::E2, Square::E4);
    rig.settle();
    rig.play(Square::D7, Square::D5);
    rig.model().reset();
    rig.play(Square::E4, Square::D5);
    rig.assert_converged();
    let c = rig.driver.counters();
    assert_eq!(c.resets, 1);
    assert_eq!(rig.driver.identity().unwrap().boot_counter, 2);
}

#[test]
fn unplugged_errors_then_recovers() {
    let mut rig = Rig::new(true);
    rig.model().unplug();
    rig.play(Square::E2, Square::E4);
    for _ in 0..5 {
        assert!(matches!(
            rig.poll(),
            Err(Error::Bus(ErrorKind::NoAcknowledge(_)))
        ));
    }
    rig.model().plug();
    rig.assert_converged();
    let c = rig.driver.counters();
    assert_eq!((c.bus_errors, c.resets), (5, 1));
}

#[test]
fn nacks_and_bus_errors_are_retried_by_the_caller() {
    let mut rig = Rig::new(true);
    rig.model().nack_next(3);
    rig.play(Square::E2, Square::E4);
    for _ in 0..3 {
        assert!(rig.poll().is_err());
    }
    rig.poll().unwrap();
    assert_eq!(
        rig.inputs,
        [
            Input::Lift(Square::E2),
            Input::Place(Square::E4, Some(WHITE_PAWN))
        ]
    );
    rig.model().bus_error_burst(2);
    rig.play(Square::E7, Square::E5);
    assert_eq!(rig.poll(), Err(Error::Bus(ErrorKind::Bus)));
    assert_eq!(rig.poll(), Err(Error::Bus(ErrorKind::Bus)));
    rig.assert_converged();
    let c = rig.driver.counters();
    assert_eq!((c.bus_errors, c.resyncs, c.crc_errors), (5, 0, 0));
}

#[test]
fn an_overflow_is_recovered_from_a_snapshot() {
    let mut rig = Rig::new(false);
    for _ in 0..40 {
        rig.lift(Square::E2);
        rig.place(Square::E2, WHITE_PAWN);
    }
    rig.play(Square::E2, Square::E4);
    rig.assert_converged();
    assert!(rig.driver.counters().overflows >= 1);
}

/// One step of a random session.
#[derive(Debug, Clone)]
enum Step {
    Lift(u8),
    Place(u8),
    Poll,
    Fault(u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => any::<u8>().prop_map(Step::Lift),
        3 => any::<u8>().prop_map(Step::Place),
        3 => Just(Step::Poll),
        1 => (0u8..8).prop_map(Step::Fault),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Faults interleaved with hands never panic, and once they stop the
    /// driver's picture converges to the physical board.
    #[test]
    fn random_faults_converge(steps in prop::collection::vec(step(), 0..120)) {
        let mut rig = Rig::new(true);
        let mut hand: Vec<Piece> = Vec::new();
        for s in steps {
            match s {
                Step::Lift(i) => {
                    let occupied: Vec<Square> = rig.board.borrow().occupancy().into_iter().collect();
                    if !occupied.is_empty() {
                        let sq = occupied[usize::from(i) % occupied.len()];
                        hand.push(rig.board.borrow().piece_at(sq).unwrap());
                        rig.lift(sq);
                    }
                }
                Step::Place(i) => {
                    let empty: Vec<Square> = (!rig.board.borrow().occupancy()).into_iter().collect();
                    if let Some(piece) = hand.pop() {
                        rig.place(empty[usize::from(i) % empty.len()], piece);
                    }
                }
                Step::Poll => {
                    let _ = rig.poll();
                }
                Step::Fault(k) => {
                    let mut m = rig.model();
                    match k {
                        0 => m.nack_next(2),
                        1 => m.bus_error_burst(3),
                        2 => m.corrupt_next_frame(),
                        3 => m.corrupt_next_read(),
                        4 => m.drop_next_frame(),
                        5 => m.reset(),
                        6 => m.unplug(),
                        _ => m.plug(),
                    }
                }
            }
        }
        rig.model().plug();
        rig.assert_converged_after_snapshot();
    }
}
