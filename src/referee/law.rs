//! The articles of the FIDE Laws of Chess the referee rules on, and the
//! 1858 laws of the `regence-1858` profile (written `1858.9`).

use std::fmt;
use std::str::FromStr;

/// An article of the Laws (2023 numbering) named in a ruling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Law {
    /// 4.2.1: only the player having the move may adjust.
    Adjust,
    /// 4.3.1: move the first touched own piece that can be moved.
    TouchedOwn,
    /// 4.3.2: capture the first touched opponent piece that can be captured.
    TouchedOpponent,
    /// 4.3.3: capture the first touched opponent piece with the first touched own piece.
    TouchedBoth,
    /// 4.4.1: king then rook: castle on that side.
    KingThenRook,
    /// 4.4.2: rook then king: no castling on that side.
    RookThenKing,
    /// 4.4.3: castling meant but illegal: another king move.
    CastlingIllegal,
    /// 4.7: a piece released on a square as a legal move stays there.
    Released,
    /// 4.8: the right to claim a breach of 4.2–4.7, lost by touching a piece.
    ClaimRight,
    /// 6.2.3: press with the hand that moved, after letting go of the piece.
    PressHand,
    /// 7.4.1: displaced pieces not re-established before the press.
    Displaced,
    /// 7.5.1: an illegal move.
    IllegalMove,
    /// 7.5.2: a pawn left unpromoted on the last rank.
    Unpromoted,
    /// 7.5.3: a press without a move.
    NoMove,
    /// 7.5.5: the penalty for an illegal move.
    IllegalMovePenalty,
    /// 9.5.3: a draw claim found incorrect gives the opponent time.
    IncorrectClaim,
    /// 1858, 7ª: a touched piece is played; a piece set down stays.
    Regence7,
    /// 1858, 9ª: a touched enemy piece: take it, leave it, or play the king.
    Regence9,
    /// 1858, 10ª: an enemy piece moved: take it or put it back.
    Regence10,
    /// 1858, 11ª: one's own piece taken: play one of the two.
    Regence11,
    /// 1858, 12ª: a capture with a piece that cannot capture: capture
    /// with one that can, or play that piece.
    Regence12,
    /// 1858, 13ª: a false move: it stands, the piece goes elsewhere, or
    /// the king is played.
    Regence13,
    /// 1858, 15ª: a player who moved twice in a row undoes the second
    /// move if his opponent demands it.
    Regence15,
    /// 1858, 19ª–20ª: castling in one of the seven cases it is forbidden:
    /// the opponent makes him move the king or the rook.
    Regence20,
    /// 1858, 22ª: a touched piece that cannot move without leaving its
    /// king in check: the king is played.
    Regence22,
}

impl Law {
    /// Every law, in article order.
    pub const ALL: [Law; 25] = [
        Law::Adjust,
        Law::TouchedOwn,
        Law::TouchedOpponent,
        Law::TouchedBoth,
        Law::KingThenRook,
        Law::RookThenKing,
        Law::CastlingIllegal,
        Law::Released,
        Law::ClaimRight,
        Law::PressHand,
        Law::Displaced,
        Law::IllegalMove,
        Law::Unpromoted,
        Law::NoMove,
        Law::IllegalMovePenalty,
        Law::IncorrectClaim,
        Law::Regence7,
        Law::Regence9,
        Law::Regence10,
        Law::Regence11,
        Law::Regence12,
        Law::Regence13,
        Law::Regence15,
        Law::Regence20,
        Law::Regence22,
    ];

    /// The article number, as written in the Laws: `"4.3.1"`; the 1858
    /// laws as `"1858.9"`.
    pub const fn article(self) -> &'static str {
        match self {
            Law::Adjust => "4.2.1",
            Law::TouchedOwn => "4.3.1",
            Law::TouchedOpponent => "4.3.2",
            Law::TouchedBoth => "4.3.3",
            Law::KingThenRook => "4.4.1",
            Law::RookThenKing => "4.4.2",
            Law::CastlingIllegal => "4.4.3",
            Law::Released => "4.7",
            Law::ClaimRight => "4.8",
            Law::PressHand => "6.2.3",
            Law::Displaced => "7.4.1",
            Law::IllegalMove => "7.5.1",
            Law::Unpromoted => "7.5.2",
            Law::NoMove => "7.5.3",
            Law::IllegalMovePenalty => "7.5.5",
            Law::IncorrectClaim => "9.5.3",
            Law::Regence7 => "1858.7",
            Law::Regence9 => "1858.9",
            Law::Regence10 => "1858.10",
            Law::Regence11 => "1858.11",
            Law::Regence12 => "1858.12",
            Law::Regence13 => "1858.13",
            Law::Regence15 => "1858.15",
            Law::Regence20 => "1858.20",
            Law::Regence22 => "1858.22",
        }
    }
}

impl fmt::Display for Law {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.article())
    }
}

/// The text is not an article the referee rules on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseLawError;

impl fmt::Display for ParseLawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not an article tocada rules on")
    }
}

impl std::error::Error for ParseLawError {}

impl FromStr for Law {
    type Err = ParseLawError;

    fn from_str(s: &str) -> Result<Law, ParseLawError> {
        Law::ALL
            .into_iter()
            .find(|law| law.article() == s)
            .ok_or(ParseLawError)
    }
}
