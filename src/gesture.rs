//! How hands make a move on a sensor board.
//!
//! The referee never sees a move: it sees squares emptied and filled, and the
//! levers. This module turns a move into the contacts a player's hand makes,
//! in the orders people actually use, so that tests, benchmarks and the
//! simulator can drive the referee the way a club player would:
//!
//! - [`Style`] names the physical orders (how a capture, an en passant, a
//!   castling and a promotion are carried out, and whether the board
//!   identifies pieces). [`Style::all`] enumerates every combination.
//! - [`hand_events`] gives the timed lifts and places of one move.
//! - [`Script`] strings whole games together: the opening press, thinking
//!   times, each move's contacts, the presses, and endings (resignation, draw
//!   agreement).
//!
//! Everything is deterministic: timings come from a small hash of the move
//! and a seed, never from a random source, so a failing test replays exactly.
//!
//! What a board without identities cannot tell apart:
//!
//! - Occupancy snapshots alone are ambiguous: a capture empties its origin
//!   and leaves its target occupied, so lifting any piece gives the occupancy
//!   of every capture that piece could make, and a capture made capturing
//!   piece first ([`CaptureOrder::CapturingFirst`]) has its final occupancy
//!   from the first lift. A referee must also track which squares were
//!   emptied and filled since the move began; with that, no order here looks
//!   finished early, except:
//! - a pawn set on the last rank before it is exchanged
//!   ([`PromotionOrder::PawnThenExchange`]) already gives the occupancy, and
//!   the squares, of the promotion, to any piece. Only a board that
//!   identifies pieces sees the pawn; any other board must wait for the press.

use std::fmt;

use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

use crate::{Input, Millis};

/// How a player takes an opponent's piece (other than en passant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaptureOrder {
    /// The captured piece is taken off the board first, then the capturing
    /// piece is lifted and set on the emptied square.
    CapturedFirst,
    /// The capturing piece is lifted first, the captured piece is taken off
    /// with the other fingers, then the capturing piece is set down.
    CapturingFirst,
}

/// When the pawn taken en passant leaves the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnPassantOrder {
    /// The captured pawn is removed before the capturing pawn moves.
    CapturedFirst,
    /// The capturing pawn is set on its square, then the captured pawn is
    /// removed: the last contact of the move is a lift.
    CapturedLast,
}

/// The order of the two pieces of a castling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastlingOrder {
    /// King lifted and placed, then rook lifted and placed: the order the
    /// Laws ask for (4.4.1).
    KingThenRook,
    /// King lifted, rook lifted, then king placed, rook placed: both pieces
    /// in the air at once. The king is still touched first, so it is castling.
    BothLifted,
}

/// How the pawn becomes the new piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PromotionOrder {
    /// The pawn is set on the last rank, then lifted again and exchanged for
    /// the new piece.
    PawnThenExchange,
    /// The pawn is lifted and the new piece set directly on the last rank.
    NewPieceDirectly,
}

/// The physical orders a player uses, and what the board can see.
///
/// There are [`Style::COUNT`] styles; [`Style::from_index`] and
/// [`Style::index`] number them so tests can cover every combination and
/// scripts can vary them from a seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    /// How captures are made.
    pub capture: CaptureOrder,
    /// How en passant captures are made.
    pub en_passant: EnPassantOrder,
    /// How castling is made.
    pub castling: CastlingOrder,
    /// How promotions are made.
    pub promotion: PromotionOrder,
    /// The board reports which piece is placed: every `Place` carries
    /// `Some(piece)`. Otherwise places carry `None`, and a promotion to
    /// anything but a queen is announced first with [`Input::Promote`].
    pub identifies_pieces: bool,
}

impl Style {
    /// How many distinct styles there are: five binary choices.
    pub const COUNT: usize = 32;

    /// The style numbered `index` (taken modulo [`Style::COUNT`]): bit 0 the
    /// capture order, bit 1 en passant, bit 2 castling, bit 3 promotion,
    /// bit 4 whether the board identifies pieces.
    pub const fn from_index(index: usize) -> Style {
        Style {
            capture: if index & 1 == 1 {
                CaptureOrder::CapturingFirst
            } else {
                CaptureOrder::CapturedFirst
            },
            en_passant: if (index >> 1) & 1 == 1 {
                EnPassantOrder::CapturedLast
            } else {
                EnPassantOrder::CapturedFirst
            },
            castling: if (index >> 2) & 1 == 1 {
                CastlingOrder::BothLifted
            } else {
                CastlingOrder::KingThenRook
            },
            promotion: if (index >> 3) & 1 == 1 {
                PromotionOrder::NewPieceDirectly
            } else {
                PromotionOrder::PawnThenExchange
            },
            identifies_pieces: (index >> 4) & 1 == 1,
        }
    }

    /// The number of this style: `Style::from_index(style.index()) == style`.
    pub const fn index(&self) -> usize {
        (matches!(self.capture, CaptureOrder::CapturingFirst) as usize)
            | (matches!(self.en_passant, EnPassantOrder::CapturedLast) as usize) << 1
            | (matches!(self.castling, CastlingOrder::BothLifted) as usize) << 2
            | (matches!(self.promotion, PromotionOrder::NewPieceDirectly) as usize) << 3
            | (self.identifies_pieces as usize) << 4
    }

    /// Every style, in index order.
    pub fn all() -> impl Iterator<Item = Style> {
        (0..Style::COUNT).map(Style::from_index)
    }

    /// This style on a board that does (or does not) identify pieces.
    pub const fn with_identities(mut self, identifies_pieces: bool) -> Style {
        self.identifies_pieces = identifies_pieces;
        self
    }
}

impl Default for Style {
    /// Style 0: captured piece first, en passant pawn first, king then rook,
    /// pawn then exchange, on a board that only sees occupancy (the cheapest
    /// hardware).
    fn default() -> Style {
        Style::from_index(0)
    }
}

impl fmt::Display for Style {
    /// A short label for test messages, e.g. `capture:captured-first ep:captured-last
    /// castling:king-then-rook promotion:direct board:occupancy`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let capture = match self.capture {
            CaptureOrder::CapturedFirst => "captured-first",
            CaptureOrder::CapturingFirst => "capturing-first",
        };
        let en_passant = match self.en_passant {
            EnPassantOrder::CapturedFirst => "captured-first",
            EnPassantOrder::CapturedLast => "captured-last",
        };
        let castling = match self.castling {
            CastlingOrder::KingThenRook => "king-then-rook",
            CastlingOrder::BothLifted => "both-lifted",
        };
        let promotion = match self.promotion {
            PromotionOrder::PawnThenExchange => "exchange",
            PromotionOrder::NewPieceDirectly => "direct",
        };
        let board = if self.identifies_pieces {
            "identity"
        } else {
            "occupancy"
        };
        write!(
            f,
            "capture:{capture} ep:{en_passant} castling:{castling} promotion:{promotion} board:{board}"
        )
    }
}

/// SplitMix64: a tiny, good-enough mixer for human-like jitter. A crate for
/// randomness would be overkill, and determinism is the point.
fn mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in `lo..=hi`, advancing the state.
fn between(state: &mut u64, lo: u64, hi: u64) -> u64 {
    lo + mix(state) % (hi - lo + 1)
}

/// The contacts of one move as they are made, with the hand's own clock.
struct Hand {
    events: Vec<(Millis, Input)>,
    t: Millis,
    state: u64,
    color: Color,
    identifies_pieces: bool,
}

impl Hand {
    /// Lets `lo..=hi` ms pass before the next contact (none before the first:
    /// offsets count from it).
    fn wait(&mut self, lo: u64, hi: u64) {
        if !self.events.is_empty() {
            self.t += between(&mut self.state, lo, hi);
        }
    }

    fn push(&mut self, input: Input) {
        self.events.push((self.t, input));
    }

    fn lift(&mut self, sq: Square) {
        self.push(Input::Lift(sq));
    }

    /// Sets one of the mover's pieces down; the board reports its identity
    /// only if it can.
    fn place(&mut self, sq: Square, role: Role) {
        let piece = self.identifies_pieces.then_some(Piece {
            color: self.color,
            role,
        });
        self.push(Input::Place(sq, piece));
    }
}

/// The square of the pawn taken en passant: beside the capturing pawn, on
/// the file it moves to.
fn en_passant_victim(from: Square, to: Square) -> Square {
    Square::from_coords(to.file(), from.rank())
}

/// The contacts a hand makes to play `m` in `position`, in `style`, with
/// offsets in milliseconds from the first event. No press: the caller decides
/// when (and whether) the lever goes down.
///
/// Lifts and places follow the board's occupancy: applying them to the
/// position's occupancy gives the occupancy after the move (and, with
/// identities, its pieces). No earlier prefix looks like the result of any
/// legal move, judged by the pieces on a board with identities, or by
/// occupancy together with the squares contacted on a blind one, except the
/// pawn set on the last rank before an exchange (see the module
/// documentation for both caveats). Timings are
/// human-like: 150–400 ms between a lift and its place, longer to set a
/// captured piece aside or fetch a promotion piece. They vary with the move
/// and the style, deterministically.
///
/// On a board without identities a promotion to anything but a queen starts
/// with [`Input::Promote`] (the choice made on the clock), at offset 0.
///
/// `m` is expected to be legal in `position`; the contacts of an illegal move
/// are produced all the same (that is how a test makes one).
pub fn hand_events(position: &Chess, m: Move, style: &Style) -> Vec<(Millis, Input)> {
    let from = m.from().map_or(64, |sq| u64::from(sq.to_u32()));
    let to = u64::from(m.to().to_u32());
    let mut hand = Hand {
        events: Vec::with_capacity(6),
        t: 0,
        state: (from << 8 | to) ^ (style.index() as u64) << 16 ^ (m.role() as u64) << 24,
        color: position.turn(),
        identifies_pieces: style.identifies_pieces,
    };
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            if let Some(new) = promotion
                && new != Role::Queen
                && !style.identifies_pieces
            {
                // Announced on the clock before the hand moves: the
                // referee cannot see which piece comes down.
                hand.push(Input::Promote(new));
                hand.t += between(&mut hand.state, 300, 900);
            }
            match (capture, style.capture) {
                (None, _) => hand.lift(from),
                (Some(_), CaptureOrder::CapturedFirst) => {
                    hand.lift(to);
                    // The captured piece is set aside before the hand returns.
                    hand.wait(300, 700);
                    hand.lift(from);
                }
                (Some(_), CaptureOrder::CapturingFirst) => {
                    hand.lift(from);
                    hand.wait(100, 300);
                    hand.lift(to);
                }
            }
            match (promotion, style.promotion) {
                (None, _) => {
                    hand.wait(150, 400);
                    hand.place(to, role);
                }
                (Some(new), PromotionOrder::PawnThenExchange) => {
                    hand.wait(150, 400);
                    hand.place(to, Role::Pawn);
                    hand.wait(300, 800);
                    hand.lift(to);
                    // Fetching the new piece from beside the board.
                    hand.wait(600, 1500);
                    hand.place(to, new);
                }
                (Some(new), PromotionOrder::NewPieceDirectly) => {
                    hand.wait(600, 1500);
                    hand.place(to, new);
                }
            }
        }
        Move::EnPassant { from, to } => {
            let victim = en_passant_victim(from, to);
            match style.en_passant {
                EnPassantOrder::CapturedFirst => {
                    hand.lift(victim);
                    hand.wait(300, 700);
                    hand.lift(from);
                    hand.wait(150, 400);
                    hand.place(to, Role::Pawn);
                }
                EnPassantOrder::CapturedLast => {
                    hand.lift(from);
                    hand.wait(150, 400);
                    hand.place(to, Role::Pawn);
                    hand.wait(200, 500);
                    hand.lift(victim);
                }
            }
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let color = position.turn();
            let (king_to, rook_to) = (side.king_to(color), side.rook_to(color));
            match style.castling {
                CastlingOrder::KingThenRook => {
                    hand.lift(king);
                    hand.wait(150, 400);
                    hand.place(king_to, Role::King);
                    hand.wait(100, 300);
                    hand.lift(rook);
                    hand.wait(150, 400);
                    hand.place(rook_to, Role::Rook);
                }
                CastlingOrder::BothLifted => {
                    hand.lift(king);
                    hand.wait(80, 250);
                    hand.lift(rook);
                    hand.wait(150, 400);
                    hand.place(king_to, Role::King);
                    hand.wait(100, 300);
                    hand.place(rook_to, Role::Rook);
                }
            }
        }
        // Drops exist only in Crazyhouse; a piece from the hand comes down.
        Move::Put { role, to } => hand.place(to, role),
    }
    hand.events
}

/// Why a move or an ending could not be added to a [`Script`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not SAN.
    BadSan(String),
    /// The move is not legal in the position reached (SAN or UCI given).
    IllegalMove(String),
    /// The game is already over: mate, stalemate, resignation or agreement.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::BadSan(s) => write!(f, "not a move in SAN: {s:?}"),
            MoveError::IllegalMove(s) => write!(f, "illegal move: {s}"),
            MoveError::GameOver => f.write_str("the game is already over"),
        }
    }
}

impl std::error::Error for MoveError {}

/// Where each move's style comes from.
#[derive(Debug, Clone, Copy)]
enum Orders {
    /// Every move in the same style.
    Fixed(Style),
    /// A style drawn for each move from the seed; the board stays the same.
    Varied { identifies_pieces: bool },
}

/// A whole game as the board and the levers see it, built move by move.
///
/// It starts with the press of the lever of the side not to move at t = 0,
/// which starts the other side's clock (6.6). Each move then takes a thinking
/// time (2–30 s), the hand's contacts ([`hand_events`]), and the mover's press
/// 150–600 ms after the last contact, except after a move that ends the game
/// by itself (mate, stalemate, dead position by insufficient material), which
/// the referee ends at release. Timings and varied styles come from the seed.
#[derive(Debug, Clone)]
pub struct Script {
    position: Chess,
    events: Vec<(Millis, Input)>,
    now: Millis,
    state: u64,
    orders: Orders,
    over: bool,
}

impl Script {
    /// A game from `start`, every move made in `style`; thinking times vary
    /// with `seed`.
    pub fn new(start: Chess, style: Style, seed: u64) -> Script {
        Script::with_orders(start, Orders::Fixed(style), seed)
    }

    /// A game from `start` whose orders (capture, en passant, castling,
    /// promotion) change from move to move with `seed`, as they do with real
    /// players, on a board that does or does not identify pieces.
    pub fn varied(start: Chess, identifies_pieces: bool, seed: u64) -> Script {
        Script::with_orders(start, Orders::Varied { identifies_pieces }, seed)
    }

    fn with_orders(start: Chess, orders: Orders, seed: u64) -> Script {
        let starter = !start.turn();
        Script {
            position: start,
            events: vec![(0, Input::Press(starter))],
            now: 0,
            // Mixed once so that neighbouring seeds give unrelated games.
            state: mix(&mut seed.clone()),
            orders,
            over: false,
        }
    }

    /// The position after the moves played so far.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// The instant of the last event.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Whether the game is over: no more moves or endings can be added.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The events so far, in time order.
    pub fn events(&self) -> &[(Millis, Input)] {
        &self.events
    }

    /// The events, in time order.
    pub fn into_events(self) -> Vec<(Millis, Input)> {
        self.events
    }

    /// The style the next move is made in.
    fn next_style(&mut self) -> Style {
        match self.orders {
            Orders::Fixed(style) => style,
            Orders::Varied { identifies_pieces } => {
                Style::from_index(mix(&mut self.state) as usize).with_identities(identifies_pieces)
            }
        }
    }

    /// Plays a legal move: thinking time, the hand's contacts, the press.
    pub fn play(&mut self, m: Move) -> Result<&mut Script, MoveError> {
        if self.over {
            return Err(MoveError::GameOver);
        }
        if !self.position.is_legal(m) {
            return Err(MoveError::IllegalMove(
                m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
            ));
        }
        let style = self.next_style();
        let mover = self.position.turn();
        let start = self.now + between(&mut self.state, 2_000, 30_000);
        for (dt, input) in hand_events(&self.position, m, &style) {
            self.now = start + dt;
            self.events.push((self.now, input));
        }
        self.position.play_unchecked(m);
        if self.position.is_game_over() {
            // The referee ends the game at release; a press would be noise.
            self.over = true;
        } else {
            self.now += between(&mut self.state, 150, 600);
            self.events.push((self.now, Input::Press(mover)));
        }
        Ok(self)
    }

    /// Plays a move given in SAN (a check or mate suffix is allowed).
    pub fn play_san(&mut self, san: &str) -> Result<&mut Script, MoveError> {
        if self.over {
            return Err(MoveError::GameOver);
        }
        let m = parse_san(&self.position, san)?;
        self.play(m)
    }

    /// Plays moves given in SAN, in order.
    pub fn play_sans<I, S>(&mut self, sans: I) -> Result<&mut Script, MoveError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for san in sans {
            self.play_san(san.as_ref())?;
        }
        Ok(self)
    }

    /// Ends the game: `loser` resigns after a moment's thought.
    pub fn resign(&mut self, loser: Color) -> Result<&mut Script, MoveError> {
        if self.over {
            return Err(MoveError::GameOver);
        }
        self.now += between(&mut self.state, 1_000, 10_000);
        self.events.push((self.now, Input::Resign(loser)));
        self.over = true;
        Ok(self)
    }

    /// Ends the game by agreement: `offerer` offers a draw, the opponent
    /// accepts on his own time.
    ///
    /// When `offerer` made the last move, the offer goes where the Laws want
    /// it (9.1.2.1): after the move, before his press. Otherwise (or before
    /// any move) he offers on his own turn, which is still an offer (9.1.2.2).
    pub fn agree_draw(&mut self, offerer: Color) -> Result<&mut Script, MoveError> {
        if self.over {
            return Err(MoveError::GameOver);
        }
        let len = self.events.len();
        match self.events.as_slice() {
            [.., (released, _), (pressed, Input::Press(side))] if len > 2 && *side == offerer => {
                let offer_at = released + (pressed - released) / 2;
                self.events
                    .insert(len - 1, (offer_at, Input::Draw(offerer)));
            }
            _ => {
                self.now += between(&mut self.state, 1_000, 10_000);
                self.events.push((self.now, Input::Draw(offerer)));
            }
        }
        self.now += between(&mut self.state, 2_000, 20_000);
        self.events.push((self.now, Input::Draw(!offerer)));
        self.over = true;
        Ok(self)
    }
}

/// A game from `start` played in SAN, every move in `style`: a shorthand for
/// [`Script::new`] and [`Script::play_sans`].
pub fn script_from_sans<I, S>(
    start: Chess,
    sans: I,
    style: Style,
    seed: u64,
) -> Result<Script, MoveError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut script = Script::new(start, style, seed);
    script.play_sans(sans)?;
    Ok(script)
}

/// The SAN of `m` in `position`, with its suffix, as in PGN: what the referee
/// reports for the move.
pub fn san_plus(position: &Chess, m: Move) -> String {
    SanPlus::from_move(position.clone(), m).to_string()
}

/// Parses a SAN move in `position` (suffixes allowed).
pub fn parse_san(position: &Chess, san: &str) -> Result<Move, MoveError> {
    let parsed: San = SanPlus::from_ascii(san.as_bytes())
        .map_err(|_| MoveError::BadSan(san.to_owned()))?
        .san;
    parsed
        .to_move(position)
        .map_err(|_| MoveError::IllegalMove(san.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use shakmaty::fen::Fen;
    use shakmaty::{Bitboard, Board, CastlingMode};

    use super::*;

    fn fen(s: &str) -> Chess {
        s.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// A short game with en passant for both sides, both castlings and an
    /// underpromotion with capture.
    const OWN_GAME: &[&str] = &[
        "e4", "d5", "e5", "f5", "exf6", "Nc6", "fxg7", "Be6", "Nf3", "Qd6", "Bc4", "O-O-O", "O-O",
        "Nf6", "gxh8=N", "Bg4", "Bb3", "d4", "c4", "dxc3", "Nxc3",
    ];

    /// Positions holding every kind of move for both colours.
    fn positions() -> Vec<Chess> {
        let mut positions = vec![
            Chess::default(),
            // En passant for White (exf6) and for Black (exd3).
            fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
            fen("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 3"),
            // Both castlings, both colours, with captures on the open files.
            fen("r3k2r/7p/8/8/8/8/7P/R3K2R w KQkq - 0 1"),
            fen("r3k2r/7p/8/8/8/8/7P/R3K2R b KQkq - 0 1"),
            // Promotions with and without capture, both colours.
            fen("1n2k3/P1P5/8/8/8/8/5p1p/K5N1 w - - 0 1"),
            fen("1n2k3/P1P5/8/8/8/8/5p1p/K5N1 b - - 0 1"),
        ];
        let mut pos = Chess::default();
        for san in OWN_GAME {
            let m = parse_san(&pos, san).unwrap();
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        positions
    }

    /// What the board shows after some contacts: occupancy, the squares
    /// lifted or placed since the move began (what a referee without
    /// identities must track), and the pieces as an identifying board
    /// reports them.
    #[derive(Clone)]
    struct Seen {
        occupied: Bitboard,
        touched: Bitboard,
        board: Board,
    }

    /// The squares a move changes: what a blind board sees it by.
    fn move_squares(pos: &Chess, m: Move) -> Bitboard {
        match m {
            Move::Normal { from, to, .. } => Bitboard::from(from) | to,
            Move::EnPassant { from, to } => Bitboard::from(from) | to | en_passant_victim(from, to),
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                Bitboard::from(king) | rook | side.king_to(pos.turn()) | side.rook_to(pos.turn())
            }
            Move::Put { to, .. } => Bitboard::from(to),
        }
    }

    /// Applies the contacts one by one, checking each is physically
    /// possible, and returns the board after each of them.
    fn apply(pos: &Chess, events: &[(Millis, Input)], style: &Style) -> Vec<Seen> {
        let mut seen = Seen {
            occupied: pos.board().occupied(),
            touched: Bitboard::EMPTY,
            board: pos.board().clone(),
        };
        let mut states = Vec::new();
        for &(_, input) in events {
            match input {
                Input::Lift(sq) => {
                    assert!(seen.occupied.contains(sq), "lift from empty {sq}");
                    seen.occupied.discard(sq);
                    seen.touched.add(sq);
                    seen.board.discard_piece_at(sq);
                }
                Input::Place(sq, piece) => {
                    assert!(!seen.occupied.contains(sq), "place on occupied {sq}");
                    assert_eq!(piece.is_some(), style.identifies_pieces, "{input:?}");
                    seen.occupied.add(sq);
                    seen.touched.add(sq);
                    if let Some(piece) = piece {
                        seen.board.set_piece_at(sq, piece);
                    }
                }
                Input::Promote(_) => {}
                other => panic!("not a hand contact: {other:?}"),
            }
            states.push(seen.clone());
        }
        states
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    enum Kind {
        Quiet,
        Capture,
        EnPassant,
        CastleShort,
        CastleLong,
        Promotion,
        CapturePromotion,
        Underpromotion,
    }

    fn kinds(m: Move) -> Vec<Kind> {
        let mut kinds = Vec::new();
        match m {
            Move::EnPassant { .. } => kinds.push(Kind::EnPassant),
            Move::Castle { king, rook } if king < rook => kinds.push(Kind::CastleShort),
            Move::Castle { .. } => kinds.push(Kind::CastleLong),
            _ => match (m.is_capture(), m.promotion()) {
                (false, None) => kinds.push(Kind::Quiet),
                (true, None) => kinds.push(Kind::Capture),
                (false, Some(_)) => kinds.push(Kind::Promotion),
                (true, Some(_)) => kinds.push(Kind::CapturePromotion),
            },
        }
        if m.promotion().is_some_and(|role| role != Role::Queen) {
            kinds.push(Kind::Underpromotion);
        }
        kinds
    }

    /// The one order whose half-made state already has the after-position's
    /// occupancy.
    fn exchanges_blind(m: Move, style: &Style) -> bool {
        m.is_promotion()
            && style.promotion == PromotionOrder::PawnThenExchange
            && !style.identifies_pieces
    }

    #[test]
    fn styles_are_numbered_one_to_one() {
        let all: Vec<Style> = Style::all().collect();
        assert_eq!(all.len(), Style::COUNT);
        assert_eq!(all.iter().collect::<HashSet<_>>().len(), Style::COUNT);
        for (i, style) in all.iter().enumerate() {
            assert_eq!(style.index(), i);
            assert_eq!(Style::from_index(i + Style::COUNT), *style);
        }
        assert_eq!(Style::default().index(), 0);
    }

    #[test]
    fn every_move_in_every_style_reaches_the_position_after_it() {
        let mut covered = HashSet::new();
        for pos in positions() {
            let legal = pos.legal_moves();
            let results: Vec<(Move, Chess)> = legal
                .iter()
                .map(|&m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    (m, after)
                })
                .collect();
            for (m, after) in &results {
                for kind in kinds(*m) {
                    covered.insert((pos.turn(), kind));
                }
                for style in Style::all() {
                    let events = hand_events(&pos, *m, &style);
                    let context = format!(
                        "{m} in {} ({style})",
                        Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );

                    // Offsets start at 0 and go forward: one hand, one
                    // contact at a time.
                    assert_eq!(events[0].0, 0, "{context}");
                    assert!(
                        events.windows(2).all(|w| w[0].0 < w[1].0),
                        "{context}: {events:?}"
                    );

                    // Promotions to other than a queen are announced, first,
                    // only where the board cannot see the piece.
                    let announced = events
                        .iter()
                        .filter(|(_, i)| matches!(i, Input::Promote(_)))
                        .count();
                    let underpromotion = m.promotion().is_some_and(|r| r != Role::Queen);
                    assert_eq!(
                        announced,
                        usize::from(underpromotion && !style.identifies_pieces),
                        "{context}"
                    );
                    if announced == 1 {
                        assert_eq!(
                            events[0].1,
                            Input::Promote(m.promotion().unwrap()),
                            "{context}"
                        );
                    }

                    let states = apply(&pos, &events, &style);
                    let last = states.last().unwrap();
                    assert_eq!(last.occupied, after.board().occupied(), "{context}");
                    assert_eq!(last.touched, move_squares(&pos, *m), "{context}");
                    if style.identifies_pieces {
                        assert_eq!(&last.board, after.board(), "{context}: identities");
                    }

                    // No earlier state may look like the finished move, nor
                    // like any other legal move made: by the pieces on an
                    // identifying board, by occupancy and the squares
                    // contacted on a blind one (occupancy alone is not
                    // enough: see `occupancy_snapshots_alone_are_ambiguous`).
                    for (k, state) in states[..states.len() - 1].iter().enumerate() {
                        let looks_like: Vec<Move> = results
                            .iter()
                            .filter(|(other_move, other)| {
                                if style.identifies_pieces {
                                    &state.board == other.board()
                                } else {
                                    state.occupied == other.board().occupied()
                                        && state.touched == move_squares(&pos, *other_move)
                                }
                            })
                            .map(|(other, _)| *other)
                            .collect();
                        if exchanges_blind(*m, &style) && k == states.len() - 3 {
                            // The pawn set on the last rank: documented in
                            // `a_pawn_set_on_the_last_rank_looks_promoted_to_a_blind_board`.
                            assert!(looks_like.contains(m), "{context}");
                            continue;
                        }
                        assert!(
                            looks_like.is_empty(),
                            "{context}: after {:?} looks like {looks_like:?}",
                            &events[..=k]
                        );
                    }
                }
            }
        }
        for color in Color::ALL {
            for kind in [
                Kind::Quiet,
                Kind::Capture,
                Kind::EnPassant,
                Kind::CastleShort,
                Kind::CastleLong,
                Kind::Promotion,
                Kind::CapturePromotion,
                Kind::Underpromotion,
            ] {
                assert!(
                    covered.contains(&(color, kind)),
                    "{color:?} {kind:?} not covered"
                );
            }
        }
    }

    /// On a board that only sees occupancy, a pawn set on the last rank
    /// before being exchanged already gives the occupancy of the promotion,
    /// to any piece: the move looks made one lift and one place early, and
    /// the board cannot tell which piece was meant. Only the press says it is
    /// complete; the piece is the one announced with `Promote` (a queen if
    /// none). A board with identities sees a pawn there, which is no legal
    /// result.
    #[test]
    fn a_pawn_set_on_the_last_rank_looks_promoted_to_a_blind_board() {
        let pos = fen("1n2k3/P1P5/8/8/8/8/5p1p/K5N1 w - - 0 1");
        for sans in [
            ["c8=Q", "c8=N", "c8=R", "c8=B"],
            ["axb8=Q", "axb8=N", "axb8=R", "axb8=B"],
        ] {
            let moves: Vec<Move> = sans.iter().map(|s| parse_san(&pos, s).unwrap()).collect();
            let afters: Vec<Chess> = moves
                .iter()
                .map(|&m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    after
                })
                .collect();
            for identifies_pieces in [false, true] {
                let style = Style {
                    promotion: PromotionOrder::PawnThenExchange,
                    ..Style::default()
                }
                .with_identities(identifies_pieces);
                let events = hand_events(&pos, moves[1], &style);
                let states = apply(&pos, &events, &style);
                let pawn_down = &states[states.len() - 3];
                assert!(matches!(events[events.len() - 3].1, Input::Place(_, _)));
                for after in &afters {
                    assert_eq!(pawn_down.occupied, after.board().occupied());
                    assert_ne!(&pawn_down.board, after.board());
                }
                if identifies_pieces {
                    assert_eq!(
                        events[events.len() - 3].1,
                        Input::Place(
                            moves[1].to(),
                            Some(Piece {
                                color: Color::White,
                                role: Role::Pawn
                            })
                        )
                    );
                }
            }
            // Set directly, the new piece is the last contact: nothing looks
            // made early.
            let style = Style {
                promotion: PromotionOrder::NewPieceDirectly,
                ..Style::default()
            };
            let states = apply(&pos, &hand_events(&pos, moves[2], &style), &style);
            for state in &states[..states.len() - 1] {
                assert_ne!(state.occupied, afters[2].board().occupied());
            }
        }
    }

    /// A referee that compares only occupancy snapshots with the positions
    /// after the legal moves is fooled on a blind board, in every style: a
    /// capture empties its origin and leaves its target occupied, so
    ///
    /// - lifting any piece that has a capture gives the occupancy of that
    ///   capture, even when a quiet move is meant;
    /// - a capture made capturing piece first looks finished from its first
    ///   lift, before the captured piece has left the board.
    ///
    /// It must track the squares contacted since the move began (the
    /// captured square has to be emptied and filled again), which is what
    /// `every_move_in_every_style_reaches_the_position_after_it` checks the
    /// contacts against.
    #[test]
    fn occupancy_snapshots_alone_are_ambiguous() {
        let pos = fen("r3k2r/7p/8/8/8/8/7P/R3K2R w KQkq - 0 1");
        let capture = parse_san(&pos, "Rxa8+").unwrap();
        let mut after = pos.clone();
        after.play_unchecked(capture);
        let capturing_first = Style {
            capture: CaptureOrder::CapturingFirst,
            ..Style::default()
        };
        for (san, style) in [("Rb1", Style::default()), ("Rxa8+", capturing_first)] {
            let m = parse_san(&pos, san).unwrap();
            let events = hand_events(&pos, m, &style);
            assert_eq!(events[0].1, Input::Lift(Square::A1));
            let states = apply(&pos, &events, &style);
            assert_eq!(states[0].occupied, after.board().occupied(), "{san}");
            assert_ne!(states[0].touched, move_squares(&pos, capture), "{san}");
        }
        // On a board with identities the rook is plainly not on a8 yet.
        let style = capturing_first.with_identities(true);
        let states = apply(&pos, &hand_events(&pos, capture, &style), &style);
        assert_ne!(&states[0].board, after.board());
    }

    /// The contacts of one move in `style`, without their times.
    fn contacts(pos: &Chess, san: &str, style: &Style) -> Vec<Input> {
        let m = parse_san(pos, san).unwrap();
        hand_events(pos, m, style)
            .into_iter()
            .map(|(_, i)| i)
            .collect()
    }

    #[test]
    fn contacts_follow_the_named_orders() {
        let pos = fen("r3k2r/7p/8/8/8/8/7P/R3K2R w KQkq - 0 1");
        let lifts_and_places = |san: &str, style: Style| contacts(&pos, san, &style);
        use Square::*;
        let both = Style {
            castling: CastlingOrder::BothLifted,
            ..Style::default()
        };
        assert_eq!(
            lifts_and_places("O-O", Style::default()),
            [
                Input::Lift(E1),
                Input::Place(G1, None),
                Input::Lift(H1),
                Input::Place(F1, None)
            ]
        );
        assert_eq!(
            lifts_and_places("O-O-O", both),
            [
                Input::Lift(E1),
                Input::Lift(A1),
                Input::Place(C1, None),
                Input::Place(D1, None)
            ]
        );
        assert_eq!(
            lifts_and_places("Rxa8+", Style::default()),
            [Input::Lift(A8), Input::Lift(A1), Input::Place(A8, None)]
        );
        let rook = Some(Piece {
            color: Color::White,
            role: Role::Rook,
        });
        let capturing = Style {
            capture: CaptureOrder::CapturingFirst,
            identifies_pieces: true,
            ..Style::default()
        };
        assert_eq!(
            lifts_and_places("Rxa8+", capturing),
            [Input::Lift(A1), Input::Lift(A8), Input::Place(A8, rook)]
        );

        let pos = fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        let last = Style {
            en_passant: EnPassantOrder::CapturedLast,
            ..Style::default()
        };
        let inputs = contacts(&pos, "exf6", &last);
        assert_eq!(
            inputs,
            [Input::Lift(E5), Input::Place(F6, None), Input::Lift(F5)]
        );
        let inputs = contacts(&pos, "exf6", &Style::default());
        assert_eq!(
            inputs,
            [Input::Lift(F5), Input::Lift(E5), Input::Place(F6, None)]
        );

        let pos = fen("1n2k3/P1P5/8/8/8/8/5p1p/K5N1 b - - 0 1");
        let direct = Style {
            promotion: PromotionOrder::NewPieceDirectly,
            ..Style::default()
        };
        let inputs = contacts(&pos, "fxg1=N", &direct);
        assert_eq!(
            inputs,
            [
                Input::Promote(Role::Knight),
                Input::Lift(G1),
                Input::Lift(F2),
                Input::Place(G1, None)
            ]
        );
        let inputs = contacts(&pos, "fxg1=N", &Style::default());
        assert_eq!(
            inputs,
            [
                Input::Promote(Role::Knight),
                Input::Lift(G1),
                Input::Lift(F2),
                Input::Place(G1, None),
                Input::Lift(G1),
                Input::Place(G1, None)
            ]
        );
    }

    #[test]
    fn hands_move_at_human_speed() {
        for pos in positions() {
            for m in pos.legal_moves() {
                for style in Style::all() {
                    let events = hand_events(&pos, m, &style);
                    for w in events.windows(2) {
                        let gap = w[1].0 - w[0].0;
                        assert!((80..=1500).contains(&gap), "{m}: {events:?}");
                        // A lift and the place that follows: a piece carried.
                        if let (Input::Lift(_), Input::Place(_, _)) = (w[0].1, w[1].1) {
                            assert!((150..=1500).contains(&gap), "{m}: {events:?}");
                        }
                    }
                }
            }
        }
    }

    /// Checks a script's timing and presses against the game it plays.
    fn check_script(script: &Script, start: &Chess, moves: usize) {
        let events = script.events();
        assert_eq!(events[0], (0, Input::Press(!start.turn())));
        assert!(
            events.windows(2).all(|w| w[0].0 <= w[1].0),
            "time goes forward"
        );
        let mut last_contact = 0;
        let mut presses = Vec::new();
        for &(t, input) in &events[1..] {
            match input {
                Input::Lift(_) | Input::Place(_, _) => last_contact = t,
                Input::Press(side) => {
                    assert!(
                        t >= last_contact + 150,
                        "press {t} too soon after {last_contact}"
                    );
                    presses.push(side);
                }
                _ => {}
            }
        }
        let mut side = start.turn();
        for press in &presses {
            assert_eq!(*press, side, "presses alternate, by the mover");
            side = !side;
        }
        let ended_by_itself = script.position().is_game_over();
        assert_eq!(presses.len(), moves - usize::from(ended_by_itself));
    }

    #[test]
    fn a_mate_is_not_pressed() {
        let sans = [
            "e4", "c5", "c4", "Nc6", "Ne2", "Nf6", "Nbc3", "Nb4", "g3", "Nd3#",
        ];
        for style in Style::all() {
            let script = script_from_sans(Chess::default(), sans, style, 7).unwrap();
            assert!(script.is_over());
            assert!(script.position().is_checkmate());
            check_script(&script, &Chess::default(), sans.len());
            assert!(matches!(
                script.events().last().unwrap().1,
                Input::Place(_, _)
            ));
            let mut more = script.clone();
            assert_eq!(more.play_san("a3").err(), Some(MoveError::GameOver));
            assert_eq!(more.resign(Color::White).err(), Some(MoveError::GameOver));
        }
    }

    #[test]
    fn scripts_are_deterministic_and_vary_with_the_seed() {
        let build = |seed| {
            let mut script = Script::varied(Chess::default(), false, seed);
            script.play_sans(OWN_GAME).unwrap();
            script.into_events()
        };
        assert_eq!(build(1), build(1));
        assert_ne!(build(1), build(2));
        for seed in 0..8 {
            for identifies_pieces in [false, true] {
                let mut script = Script::varied(Chess::default(), identifies_pieces, seed);
                script.play_sans(OWN_GAME).unwrap();
                check_script(&script, &Chess::default(), OWN_GAME.len());
            }
        }
    }

    #[test]
    fn endings_follow_the_last_press() {
        let mut script = Script::new(Chess::default(), Style::default(), 3);
        script
            .play_sans(["e4", "e5"])
            .unwrap()
            .resign(Color::White)
            .unwrap();
        assert!(script.is_over());
        let n = script.events().len();
        assert_eq!(script.events()[n - 2].1, Input::Press(Color::Black));
        assert_eq!(script.events()[n - 1].1, Input::Resign(Color::White));
        assert_eq!(script.play_san("Nf3").err(), Some(MoveError::GameOver));

        // Offered by the last mover: between his move and his press.
        let mut script = Script::new(Chess::default(), Style::default(), 3);
        script
            .play_sans(["e4", "e5"])
            .unwrap()
            .agree_draw(Color::Black)
            .unwrap();
        let inputs: Vec<Input> = script.events().iter().map(|&(_, i)| i).collect();
        assert_eq!(
            inputs[inputs.len() - 4..],
            [
                Input::Place(Square::E5, None),
                Input::Draw(Color::Black),
                Input::Press(Color::Black),
                Input::Draw(Color::White)
            ]
        );
        check_script(&script, &Chess::default(), 2);

        // Offered by the player to move: on his own time.
        let mut script = Script::new(Chess::default(), Style::default(), 3);
        script
            .play_sans(["e4"])
            .unwrap()
            .agree_draw(Color::Black)
            .unwrap();
        let inputs: Vec<Input> = script.events().iter().map(|&(_, i)| i).collect();
        assert_eq!(
            inputs[inputs.len() - 3..],
            [
                Input::Press(Color::White),
                Input::Draw(Color::Black),
                Input::Draw(Color::White)
            ]
        );
    }

    #[test]
    fn black_to_move_starts_with_the_white_lever() {
        let start = fen("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 3");
        let mut script = Script::new(start.clone(), Style::default(), 0);
        script.play_sans(["exd3", "Bxd3"]).unwrap();
        check_script(&script, &start, 2);
        assert_eq!(script.events()[0].1, Input::Press(Color::White));
    }

    #[test]
    fn bad_moves_are_refused() {
        let mut script = Script::new(Chess::default(), Style::default(), 0);
        assert!(matches!(
            script.play_san("e5"),
            Err(MoveError::IllegalMove(_))
        ));
        assert!(matches!(script.play_san("xx"), Err(MoveError::BadSan(_))));
        assert_eq!(script.events().len(), 1);
        assert_eq!(
            san_plus(
                &Chess::default(),
                parse_san(&Chess::default(), "Nf3").unwrap()
            ),
            "Nf3"
        );
    }
}
