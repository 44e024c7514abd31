//! Device models: software stand-ins for the clock's hardware that implement
//! the bus side of [`embedded_hal::i2c::I2c`], so the real drivers, the
//! daemon and the simulator run on any desktop. Each can inject faults.

pub mod bus;
pub mod mcp23017;
pub mod sensor_board;

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use embedded_hal::i2c::{ErrorType, I2c, Operation, SevenBitAddress};
use shakmaty::{Piece, Square};

use crate::Millis;

/// What hands do to a physical chessboard, for the models of boards that
/// sense pieces. `at` is the model's own clock, in milliseconds.
pub trait Hands {
    /// A piece leaves `sq` (lifted, or knocked off the board).
    fn lift(&mut self, at: Millis, sq: Square);
    /// `piece` is put down on `sq`.
    fn place(&mut self, at: Millis, sq: Square, piece: Piece);
    /// A hand comes into contact with the piece on `sq`.
    fn touch(&mut self, at: Millis, sq: Square);
    /// The hand leaves the piece on `sq`.
    fn untouch(&mut self, at: Millis, sq: Square);
}
pub mod ssd1306;

/// A model shared between the driver that owns the bus and whoever moves its
/// pieces or injects its faults (a test, the simulator). Single-threaded, as
/// the daemon's loop is.
#[derive(Debug, Default)]
pub struct Shared<M>(Rc<RefCell<M>>);

impl<M> Clone for Shared<M> {
    fn clone(&self) -> Shared<M> {
        Shared(Rc::clone(&self.0))
    }
}

impl<M> Shared<M> {
    pub fn new(model: M) -> Shared<M> {
        Shared(Rc::new(RefCell::new(model)))
    }

    /// The model, to look at.
    pub fn borrow(&self) -> Ref<'_, M> {
        self.0.borrow()
    }

    /// The model, to move pieces or inject faults.
    pub fn borrow_mut(&self) -> RefMut<'_, M> {
        self.0.borrow_mut()
    }
}

impl<M: ErrorType> ErrorType for Shared<M> {
    type Error = M::Error;
}

impl<M: I2c> I2c for Shared<M> {
    fn transaction(
        &mut self,
        address: SevenBitAddress,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        self.0.borrow_mut().transaction(address, operations)
    }
}
