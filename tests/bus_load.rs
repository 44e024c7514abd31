//! The structural facts the book's bus figures (`docs/src/figures.md`)
//! rest on, counted (not timed) through a `BusMeter`: `examples/bus_load.rs` measures the figures.

use std::cell::RefCell;
use std::rc::Rc;

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, Operation};
use shakmaty::{Board, Color};
use tocada::face::{self, View};
use tocada::hardware::SensorBoard;
use tocada::hardware::bus::{BusMeter, transfer_time_us};
use tocada::hardware::oled::Oled;
use tocada::hardware::protocol_board::ProtocolBoard;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::models::ssd1306::Ssd1306Model;
use tocada::protocol::{Capabilities, DEFAULT_ADDRESS};

/// A metered bus the test keeps a handle on while a driver owns another.
struct Metered<I>(Rc<RefCell<BusMeter<I>>>);

impl<I> Clone for Metered<I> {
    fn clone(&self) -> Self {
        Metered(self.0.clone())
    }
}

impl<I> ErrorType for Metered<I> {
    type Error = ErrorKind;
}

impl<I: I2c<Error = ErrorKind>> I2c for Metered<I> {
    fn transaction(&mut self, address: u8, ops: &mut [Operation<'_>]) -> Result<(), ErrorKind> {
        self.0.borrow_mut().transaction(address, ops)
    }
}

#[test]
fn a_seconds_update_is_a_small_fraction_of_a_full_frame() {
    let bus = Metered(Rc::new(RefCell::new(BusMeter::new(Ssd1306Model::new()))));
    let mut oled = Oled::new(bus.clone());
    oled.init().unwrap();
    let mut view = View {
        white_ms: 754_000,
        black_ms: 1_201_000,
        running: Some(Color::White),
        move_number: 23,
        ..View::default()
    };
    let show = |oled: &mut Oled<_>, view: &View| {
        oled.show(&face::render(view), &face::urgent(view)).unwrap();
    };
    // A full frame, as after start-up: the 1024 B of RAM in writes of at
    // most 16, 8 B of overhead each; 66 writes, not 64, because the
    // markers' columns on page 4 are cut out to go first.
    bus.0.borrow_mut().reset();
    show(&mut oled, &view);
    let full = bus.0.borrow().total();
    assert_eq!((full.bytes, full.transactions), (1024 + 66 * 8, 66));

    // The same face again sends nothing.
    bus.0.borrow_mut().reset();
    show(&mut oled, &view);
    assert_eq!(bus.0.borrow().total().bytes, 0);

    // The seconds digit changes: under a tenth of a frame, and no single
    // transaction longer than one write of 16 data bytes (24 B).
    for _ in 0..12 {
        view.white_ms -= 1000;
        bus.0.borrow_mut().reset();
        show(&mut oled, &view);
        let second = bus.0.borrow().total();
        assert!(
            second.bytes > 0 && second.bytes * 10 < full.bytes,
            "a second {} B, a frame {} B",
            second.bytes,
            full.bytes
        );
        assert!(second.largest.unwrap().bytes <= 24);
    }
    // The panel agrees with a full redraw.
    let fresh = face::render(&view);
    let meter = bus.0.borrow();
    for y in 0..64 {
        for x in 0..128 {
            assert_eq!(meter.inner().pixel(x, y), fresh.pixel(x as i32, y as i32));
        }
    }
}

/// A switch of clocks: the marker lit, then the old one cleared, each one
/// write of 16 data bytes, 24 B on the wire: 2.18 ms at 100 kHz.
#[test]
fn a_switch_of_clocks_is_two_short_writes_first() {
    let bus = Metered(Rc::new(RefCell::new(BusMeter::new(Ssd1306Model::new()))));
    let mut oled = Oled::new(bus.clone());
    oled.init().unwrap();
    let before = View {
        white_ms: 754_000,
        black_ms: 1_201_000,
        running: Some(Color::White),
        move_number: 23,
        ..View::default()
    };
    oled.show(&face::render(&before), &face::urgent(&before))
        .unwrap();
    let after = View {
        white_ms: 756_000,
        running: Some(Color::Black),
        white_moves: 23,
        ..before.clone()
    };
    bus.0.borrow_mut().reset();
    oled.stage(&face::render(&after), &face::urgent(&after));
    oled.send_next().unwrap();
    oled.send_next().unwrap();
    let markers = bus.0.borrow().total();
    assert_eq!((markers.bytes, markers.transactions), (48, 2));
    assert_eq!(transfer_time_us(24, 1, 100_000), 2_180);
    oled.flush().unwrap();
    let all = bus.0.borrow().total();
    assert!(all.largest.unwrap().bytes <= 24);
    println!(
        "a switch: {} B in {} writes, {} µs at 100 kHz; the markers first: 48 B, {} µs",
        all.bytes,
        all.transactions,
        all.time_us(100_000),
        markers.time_us(100_000)
    );
}

#[test]
fn an_idle_protocol_board_poll_is_a_bare_status_read() {
    let model = ProtocolBoardModel::new(
        &Board::default(),
        0x0123_4567_89AB_CDEF,
        Capabilities::from_bits(0x01),
    );
    let bus = Metered(Rc::new(RefCell::new(BusMeter::new(model))));
    let mut driver = ProtocolBoard::new(bus.clone(), DEFAULT_ADDRESS);
    let mut out = Vec::new();
    for _ in 0..20 {
        let _ = driver.poll(&mut out);
    }
    assert!(out.is_empty());
    bus.0.borrow_mut().reset();
    for _ in 0..200 {
        driver.poll(&mut out).unwrap();
    }
    assert!(out.is_empty());
    // § 9.2: addr + 3 bytes, one start, ≈ 0.38 ms at 100 kHz; every 5 ms
    // that is ≈ 8 % of the bus at 100 kHz, ≈ 2 % at 400 kHz.
    let idle = bus.0.borrow().device(DEFAULT_ADDRESS);
    assert_eq!(
        (idle.transactions, idle.bytes, idle.starts),
        (200, 800, 200)
    );
    assert_eq!(transfer_time_us(4, 1, 100_000), 380);
    let per_second_at_5_ms = idle.time_us(100_000) / 200 * 200;
    assert_eq!(per_second_at_5_ms, 76_000); // 7.6 % of a second
}
