//! The OLED and the sensor board on one I2C bus, as on the Pi: the real
//! drivers, each with its own `RefCellDevice` on a `SharedBus`, over the
//! device models routed by address.

use embedded_hal::i2c::ErrorKind;
use shakmaty::{Board, Color, Piece, Role, Square};
use tocada::face::{self, View};
use tocada::hardware::SensorBoard;
use tocada::hardware::bus::SharedBus;
use tocada::hardware::mcp23017_board::Mcp23017Board;
use tocada::hardware::oled::{self, Oled};
use tocada::hardware::protocol_board::ProtocolBoard;
use tocada::models::Hands;
use tocada::models::bus::ModelBus;
use tocada::models::mcp23017::ReedBoardModel;
use tocada::models::sensor_board::ProtocolBoardModel;
use tocada::protocol::Capabilities;
use tocada::session::view::from_referee;
use tocada::{Input, Referee, Rules};

const SERIAL: u64 = 0x0123_4567_89AB_CDEF;

const WHITE_PAWN: Piece = Piece {
    color: Color::White,
    role: Role::Pawn,
};
const WHITE_KNIGHT: Piece = Piece {
    color: Color::White,
    role: Role::Knight,
};

fn protocol_bus() -> SharedBus<ModelBus<ProtocolBoardModel>> {
    let caps = Capabilities {
        occupancy: true,
        contact: true,
        identity: true,
        ..Capabilities::default()
    };
    SharedBus::new(ModelBus::new(ProtocolBoardModel::new(
        &Board::default(),
        SERIAL,
        caps,
    )))
}

fn clock(white_ms: u64, black_ms: u64, move_number: u32) -> View {
    View {
        running: Some(Color::White),
        white_ms,
        black_ms,
        move_number,
        ..View::default()
    }
}

/// The panel of the OLED model shows exactly `view` as `face::render` makes it.
fn assert_panel_shows<B: embedded_hal::i2c::I2c<Error = ErrorKind>>(
    bus: &SharedBus<ModelBus<B>>,
    view: &View,
) {
    let want = face::render(view);
    let bus = bus.bus_mut();
    for y in 0..face::HEIGHT {
        for x in 0..face::WIDTH {
            assert_eq!(
                bus.oled().pixel(x as usize, y as usize),
                want.pixel(x, y),
                "pixel ({x}, {y})"
            );
        }
    }
}

/// Shows `view` on the panel: all its writes at once.
fn show<I2C: embedded_hal::i2c::I2c>(
    oled: &mut Oled<I2C>,
    view: &View,
) -> Result<(), oled::Error<I2C::Error>> {
    oled.show(&face::render(view), &face::urgent(view))
}

/// Polls until a poll went well and the board has nothing queued.
fn settle<I2C: embedded_hal::i2c::I2c<Error = ErrorKind>>(
    driver: &mut ProtocolBoard<I2C>,
    bus: &SharedBus<ModelBus<ProtocolBoardModel>>,
) -> Vec<Input> {
    let mut out = Vec::new();
    for _ in 0..20 {
        if driver.poll(&mut out).is_ok() && bus.bus_mut().board().queued() == 0 {
            return out;
        }
    }
    panic!("never settled: {:?}", driver.counters());
}

#[test]
fn the_oled_and_the_protocol_board_share_one_bus() {
    let bus = protocol_bus();
    let mut oled = Oled::new(bus.device());
    let mut board = ProtocolBoard::new(bus.device(), 0x42);

    // Start-up, interleaved: the panel, the board's identity, the first
    // face, pairing.
    oled.init().unwrap();
    let id = board.identify().unwrap();
    assert_eq!(id.serial, SERIAL);
    let referee = Referee::new(Rules {
        time_control: "300+3".parse().unwrap(),
        ..Rules::default()
    });
    let start = from_referee(&referee, 0, None);
    show(&mut oled, &start).unwrap();
    board.pair(0xC10C_0001).unwrap();
    assert_eq!(settle(&mut board, &bus), []);
    assert!(bus.bus_mut().oled().is_on());
    assert_panel_shows(&bus, &start);

    // e2-e4 made by hands, with a clock tick in the middle of it.
    bus.bus_mut().board_mut().lift(1_000, Square::E2);
    let tick = clock(299_000, 300_000, 1);
    show(&mut oled, &tick).unwrap();
    bus.bus_mut()
        .board_mut()
        .place(1_300, Square::E4, WHITE_PAWN);
    assert_eq!(
        settle(&mut board, &bus),
        [
            Input::Lift(Square::E2),
            Input::Place(Square::E4, Some(WHITE_PAWN))
        ]
    );
    assert_panel_shows(&bus, &tick);

    // The next tick sends only what changed: a fraction of the traffic so far.
    let before = bus.bus_mut().bytes_transferred();
    let next = clock(298_000, 300_000, 1);
    show(&mut oled, &next).unwrap();
    let sent = bus.bus_mut().bytes_transferred() - before;
    assert!(sent > 0 && sent < 600, "one tick sent {sent} B");
    assert_panel_shows(&bus, &next);

    // The OLED NACKs an update: its driver says so, the board's next poll
    // does not notice, and the next update sends what the NACKed write
    // would have, with its own change.
    bus.bus_mut().oled_mut().nack_next(1);
    let missed = clock(297_000, 300_000, 1);
    assert!(matches!(
        show(&mut oled, &missed),
        Err(oled::Error::Bus(ErrorKind::NoAcknowledge(_)))
    ));
    assert_panel_shows(&bus, &next);
    bus.bus_mut().board_mut().lift(3_000, Square::G1);
    bus.bus_mut()
        .board_mut()
        .place(3_400, Square::F3, WHITE_KNIGHT);
    let mut out = Vec::new();
    board.poll(&mut out).unwrap();
    assert_eq!(
        out,
        [
            Input::Lift(Square::G1),
            Input::Place(Square::F3, Some(WHITE_KNIGHT))
        ]
    );
    let recovered = clock(296_000, 300_000, 1);
    let data_before = bus.bus_mut().oled().data_bytes();
    show(&mut oled, &recovered).unwrap();
    let resent = bus.bus_mut().oled().data_bytes() - data_before;
    assert!(resent > 0 && resent < 100, "{resent} B resent");
    assert_panel_shows(&bus, &recovered);
    assert_eq!(board.counters(), Default::default());

    // Both drivers give their devices back; the bus is whole again.
    let _ = oled.release();
    let _ = board.release();
    let models = bus.into_inner();
    assert_eq!(models.board().occupancy(), {
        let mut b = Board::default().occupied();
        b.discard(Square::E2);
        b.discard(Square::G1);
        b.add(Square::E4);
        b.add(Square::F3);
        b
    });
}

#[test]
fn the_oled_and_the_reed_board_share_one_bus() {
    let bus = SharedBus::new(ModelBus::new(ReedBoardModel::new(&Board::default())));
    let mut oled = Oled::new(bus.device());
    let mut board = Mcp23017Board::new(bus.device());
    oled.init().unwrap();
    board.init().unwrap();
    assert_eq!(board.occupancy().unwrap(), Board::default().occupied());
    let view = clock(60_000, 60_000, 1);
    show(&mut oled, &view).unwrap();
    bus.bus_mut().board_mut().lift(0, Square::D2);
    let mut out = Vec::new();
    for _ in 0..4 {
        board.poll(&mut out).unwrap();
        show(&mut oled, &view).unwrap();
    }
    assert_eq!(out, [Input::Lift(Square::D2)]);
    assert_panel_shows(&bus, &view);
}
