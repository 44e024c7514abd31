//! The host's driver for a protocol-v1 board (`ProtocolBoard`, with the
//! checks of `tocada::protocol`), reading a board through a hostile bus:
//! every transaction may be NACKed, fail, find the data line stuck low
//! (writes lost, reads all zeros) or high (all ones), or have its read
//! bytes flipped or replaced by anything, while hands move pieces, the
//! board resets and the cable comes out. The driver never panics, and once
//! the bus is clean again and it has resynchronised, the lifts and places it
//! reported add up to the pieces on the board: nothing is lost for good.
#![no_main]

use std::cell::RefCell;
use std::rc::Rc;

use arbitrary::Arbitrary;
use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation};
use libfuzzer_sys::fuzz_target;
use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};
use tocada::Input;
use tocada::hardware::SensorBoard;
use tocada::hardware::protocol_board::ProtocolBoard;
use tocada::models::Hands;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::protocol::{Capabilities, DEFAULT_ADDRESS};

/// What the wire does to one transaction.
#[derive(Debug, Clone, Arbitrary)]
enum Wire {
    Clean,
    Nack,
    BusError,
    /// SDA held low: the board hears nothing, every byte read is 0x00.
    StuckLow,
    /// SDA held high: every byte read is 0xFF.
    StuckHigh,
    /// Bit `bit` of read byte `at` flips.
    Flip {
        at: u8,
        bit: u8,
    },
    /// The read bytes from `at` on are these instead.
    Replace {
        at: u8,
        bytes: Vec<u8>,
    },
}

#[derive(Debug, Arbitrary)]
enum Op {
    /// The next transactions go through these faults, in order.
    Faults(Vec<Wire>),
    Poll,
    Occupancy,
    Time,
    Lift(u8),
    Place(u8, u8),
    Touch(u8),
    Untouch(u8),
    Reset,
    Unplug,
    Plug,
    Corrupt,
    Drop,
    CorruptRead,
    Wait(u8),
}

/// The model behind a wire that does what the script says.
struct Hostile {
    model: Rc<RefCell<ProtocolBoardModel>>,
    faults: Rc<RefCell<Vec<Wire>>>,
}

impl ErrorType for Hostile {
    type Error = ErrorKind;
}

impl I2c for Hostile {
    fn transaction(&mut self, address: u8, ops: &mut [Operation<'_>]) -> Result<(), ErrorKind> {
        let wire = {
            let mut faults = self.faults.borrow_mut();
            if faults.is_empty() {
                Wire::Clean
            } else {
                faults.remove(0)
            }
        };
        let fill = |ops: &mut [Operation<'_>], byte: u8| {
            for op in ops.iter_mut() {
                if let Operation::Read(buf) = op {
                    buf.fill(byte);
                }
            }
        };
        match wire {
            Wire::Nack => return Err(ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address)),
            Wire::BusError => return Err(ErrorKind::Bus),
            Wire::StuckLow => {
                fill(ops, 0x00);
                return Ok(());
            }
            Wire::StuckHigh => {
                fill(ops, 0xFF);
                return Ok(());
            }
            _ => {}
        }
        self.model.borrow_mut().transaction(address, ops)?;
        let mut read: Vec<&mut [u8]> = ops
            .iter_mut()
            .filter_map(|op| match op {
                Operation::Read(buf) => Some(&mut **buf),
                Operation::Write(_) => None,
            })
            .collect();
        let Some(buf) = read.first_mut() else {
            return Ok(());
        };
        match wire {
            Wire::Flip { at, bit } => {
                if let Some(b) = buf.get_mut(usize::from(at)) {
                    *b ^= 1 << (bit % 8);
                }
            }
            Wire::Replace { at, bytes } => {
                for (b, new) in buf.iter_mut().skip(usize::from(at)).zip(bytes) {
                    *b = new;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

const PIECES: [Piece; 4] = [
    Piece {
        color: Color::White,
        role: Role::Pawn,
    },
    Piece {
        color: Color::Black,
        role: Role::Knight,
    },
    Piece {
        color: Color::White,
        role: Role::Queen,
    },
    Piece {
        color: Color::Black,
        role: Role::King,
    },
];

fuzz_target!(|ops: Vec<Op>| {
    let model = Rc::new(RefCell::new(ProtocolBoardModel::new(
        &Board::default(),
        0x1234,
        Capabilities {
            occupancy: true,
            contact: true,
            identity: true,
            int_line: false,
            fast_mode: false,
        },
    )));
    let faults = Rc::new(RefCell::new(Vec::new()));
    let bus = Hostile {
        model: model.clone(),
        faults: faults.clone(),
    };
    let mut driver = ProtocolBoard::new(bus, DEFAULT_ADDRESS);
    let mut out = Vec::new();
    // Paired and synchronised on a clean bus first: the starting position
    // is the driver's starting point.
    let mut believed = Board::default().occupied();
    settle(&mut driver, &mut out);
    apply(&mut believed, &mut out);
    assert_eq!(believed, model.borrow().occupancy(), "no start");

    let mut now = 1_000;
    for op in ops.into_iter().take(256) {
        match op {
            Op::Faults(wires) => faults.borrow_mut().extend(wires.into_iter().take(64)),
            Op::Poll => {
                let _ = driver.poll_stamped(&mut out);
            }
            Op::Occupancy => {
                let _ = driver.occupancy();
            }
            Op::Time => {
                let _ = driver.board_time();
            }
            Op::Lift(sq) => model.borrow_mut().lift(now, square(sq)),
            Op::Place(sq, p) => {
                model
                    .borrow_mut()
                    .place(now, square(sq), PIECES[usize::from(p % 4)])
            }
            Op::Touch(sq) => model.borrow_mut().touch(now, square(sq)),
            Op::Untouch(sq) => model.borrow_mut().untouch(now, square(sq)),
            Op::Reset => model.borrow_mut().reset(),
            Op::Unplug => model.borrow_mut().unplug(),
            Op::Plug => model.borrow_mut().plug(),
            Op::Corrupt => model.borrow_mut().corrupt_next_frame(),
            Op::Drop => model.borrow_mut().drop_next_frame(),
            Op::CorruptRead => model.borrow_mut().corrupt_next_read(),
            Op::Wait(ms) => now += u64::from(ms) * 10,
        }
        // Never more inputs than a board can explain: a burst of resets
        // must not pile up differences without bound.
        assert!(out.len() <= 64 * 1024, "{} inputs piled up", out.len());
    }
    // The bus is clean again and the cable in: after a resynchronisation
    // the driver's account adds up to the board.
    faults.borrow_mut().clear();
    model.borrow_mut().plug();
    let _ = driver.poll_stamped(&mut out);
    let mut fresh = None;
    for _ in 0..64 {
        if let Ok(occupied) = driver.occupancy() {
            fresh = Some(occupied);
            break;
        }
    }
    let fresh = fresh.expect("a clean bus gives a snapshot");
    settle(&mut driver, &mut out);
    apply(&mut believed, &mut out);
    let board = model.borrow().occupancy();
    assert_eq!(fresh, board, "the snapshot is not the board");
    assert_eq!(
        believed, board,
        "lifts and places reported do not add up to the board"
    );
});

fn square(sq: u8) -> Square {
    Square::new(u32::from(sq % 64))
}

/// Polls a clean bus until the driver has nothing more to say.
fn settle<B: SensorBoard>(driver: &mut B, out: &mut Vec<tocada::hardware::BoardEvent>) {
    let mut quiet = 0;
    for _ in 0..256 {
        let before = out.len();
        match driver.poll_stamped(out) {
            Ok(()) if out.len() == before => quiet += 1,
            _ => quiet = 0,
        }
        if quiet >= 4 {
            return;
        }
    }
    panic!("the driver never settles on a clean bus");
}

fn apply(occupied: &mut Bitboard, events: &mut Vec<tocada::hardware::BoardEvent>) {
    for event in events.drain(..) {
        match event.input {
            Input::Lift(sq) => occupied.discard(sq),
            Input::Place(sq, _) => occupied.add(sq),
            _ => {}
        }
    }
}
