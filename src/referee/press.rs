//! The press (6.2): what a player's press completes, refuses or rules on,
//! and the illegal move it completes (7.5).

use shakmaty::{Bitboard, ByColor, Color, Position, Role};

use super::claim::Claimable;
use super::effect::{CompletedMove, Effect, MoveText, Reason};
use super::footprint::{hands_needed, occupancy_after};
use super::law::Law;
use super::rules::{Enforcement, Laws};
use super::touch::{self, Breach};
use super::{Millis, Referee};

/// Presses of both levers this close together are one press: a palm on
/// the lever reaches both in the same instant, no hand presses twice so fast.
const ONE_PRESS_MS: Millis = 30;

/// The levers and the hands that press them: the last press, and each
/// player's last release of one of his pieces (6.2.3 times a press from
/// the presser's own release, not the opponent's).
#[derive(Debug, Clone)]
pub(super) struct Presses {
    /// When the last press counted, and whose it was.
    pub(super) last: Option<(Millis, Color)>,
    /// Each player's last release of one of his pieces.
    pub(super) last_release: ByColor<Option<Millis>>,
}

impl Presses {
    /// No press yet, no release.
    pub(super) fn new() -> Presses {
        Presses {
            last: None,
            last_release: ByColor::new_with(|_| None),
        }
    }

    /// Forgets the presses and releases so far: a pause or a takeback
    /// parts what came before from what comes after.
    pub(super) fn forget(&mut self) {
        *self = Presses::new();
    }
}

impl Referee {
    /// `Input::Press`: the first press starts the game; after it, the
    /// press of the player whose clock runs completes his move (6.2.1), or
    /// is refused with the ruling the board calls for.
    pub(super) fn press(&mut self, side: Color) {
        let now = self.now;
        if !self.started {
            // The first press, by the side not to move, starts the other clock.
            let to_move = self.rules.start.turn();
            if side != to_move {
                // The game starts now: contacts while setting up oblige nothing.
                self.turn.clear();
                self.started = true;
                self.clock.start(to_move, now);
                self.play.turn_began = self.clock.turn_start();
                self.presses.last = Some((now, side));
                self.emit(Effect::Started { side: to_move });
            }
            return;
        }
        // A palm on both levers: the other lever in the same instant is
        // part of the press just made, not a press of its own (7.5.3).
        if let Some((at, presser)) = self.presses.last
            && presser != side
            && now - at <= ONE_PRESS_MS
        {
            return;
        }
        // While the board is set back after a takeback, no press counts.
        if self.clock.running() != Some(side) || self.clock.is_paused() || self.restoring {
            return;
        }
        self.presses.last = Some((now, side));
        if self.rules.plain_clock {
            self.press_plain(side);
            return;
        }
        let strict = self.rules.enforcement == Enforcement::Strict;
        if self.hands_full(side) {
            // A legal move on the board but for his own pieces off their
            // squares: those are displaced (7.4), not a piece in his hand.
            if self.play.position.turn() == side
                && self.play.uncompleted.iter().all(|u| u.side != side)
                && self.move_with_own_pieces_off(side).is_some()
            {
                self.press_without_move(side);
                return;
            }
            // 1858, 11ª: one of his pieces took another of his.
            if self.rules.laws == Laws::Regence1858 && self.own_piece_taken(side) {
                return;
            }
            self.rule(
                side,
                Breach {
                    law: Law::PressHand,
                    detail: "Let go of the piece before pressing".to_owned(),
                },
                false,
            );
            if strict {
                return;
            }
        }
        let Some(index) = self.play.uncompleted.iter().position(|u| u.side == side) else {
            self.press_without_move(side);
            return;
        };
        // 7.4: his own displaced pieces not re-established. No illegal
        // move (7.5), no penalty: the press waits for the board.
        if let Some(displacement) = &self.displacement.open
            && displacement.side == side
        {
            self.restore_before_pressing(side, displacement.squares);
            if strict {
                return;
            }
        }
        if self.penalty_refuses(side, index) {
            return;
        }
        let made = &self.play.uncompleted[index];
        let mut claimable = None;
        let breach = touch::check(&made.before, &made.before_legal, &made.turn, made.mv).err();
        let breached = breach.is_some();
        if let Some(breach) = breach {
            // 4.8: in claim mode the move stands until the opponent claims;
            // an obligation an upheld claim imposed is enforced. Without
            // adequate supervision (A.5) article 4 is only ruled on a claim,
            // and nothing is shown until then.
            let imposed = self.obligations.imposed == Some(side);
            let unsupervised = self.rules.laws == Laws::Fide2023Unsupervised;
            if (self.rules.enforcement == Enforcement::Claim || unsupervised) && !imposed {
                claimable = Some(Claimable {
                    offender: side,
                    law: breach.law,
                    turn: made.turn.clone(),
                });
            }
            let Some(breach) = self.profile_breach(side, index, breach) else {
                return;
            };
            if !unsupervised || imposed {
                self.rule(side, breach, false);
            }
            if (strict && !unsupervised) || imposed {
                return;
            }
        }
        // 1858: castling with the rook attacked (19ª), an enemy piece
        // touched that could not be taken (9ª).
        if !breached && self.rules.laws == Laws::Regence1858 && self.regence_press(side, index) {
            return;
        }
        self.warn_if_hasty(side);
        self.complete_through(index, true);
        // A game-ending move that broke article 4 did not end the game when
        // it was made: completed now, it does.
        if breached && self.play.uncompleted.is_empty() {
            self.end_if_over(self.play.position.is_check());
        }
        if self.result.is_none() {
            self.obligations.claimable = claimable;
        }
    }

    /// 6.2.3: a press too soon after a release was made with the other hand.
    pub(super) fn warn_if_hasty(&mut self, side: Color) {
        if let Some(released) = *self.presses.last_release.get(side) {
            let gap = self.now - released;
            if gap < self.rules.min_press_gap_ms {
                self.rule(
                    side,
                    Breach {
                        law: Law::PressHand,
                        detail: format!(
                            "Pressed {gap} ms after releasing: press with the hand that moved"
                        ),
                    },
                    true,
                );
            }
        }
    }

    /// A press by the player whose clock runs when he has made no move on the board.
    /// A plain clock's press (no sensor board): the turn is complete, a
    /// move nobody saw (`--`, UCI's null move `0000`), and the other clock
    /// starts.
    fn press_plain(&mut self, side: Color) {
        let number = self.clock.completed(side).saturating_add(1);
        self.clock.complete_by_press(side, self.now);
        self.play.turn_began = self.clock.turn_start();
        self.emit(Effect::Move(CompletedMove {
            side,
            number,
            uci: MoveText::new("0000").unwrap_or_default(),
            san: MoveText::new("--").unwrap_or_default(),
            white_ms: self.clock.remaining(Color::White),
            black_ms: self.clock.remaining(Color::Black),
        }));
    }

    pub(super) fn press_without_move(&mut self, side: Color) {
        // 1858, 10ª: an enemy piece moved, for the opponent to judge; 20ª:
        // the pieces touched to castle where castling is not allowed.
        if self.rules.laws == Laws::Regence1858
            && (self.enemy_piece_moved(side) || self.castling_touched(side))
        {
            return;
        }
        let mask = self.off_board();
        let on_board = self.board.occupied() & !mask;
        if self.play.position.turn() == side {
            if on_board == self.play.position.board().occupied() & !mask {
                self.illegal(
                    side,
                    Law::NoMove,
                    "Pressed without making a move".to_owned(),
                );
                return;
            }
            // 7.5.2: a pawn on the last rank that the board says was not exchanged.
            let unpromoted = self
                .matching_moves(&self.play.position, &self.play.legal, self.board.changes())
                .find(|m| {
                    m.promotion() == Some(Role::Queen)
                        && self
                            .board
                            .sensed_at(m.to())
                            .is_some_and(|p| p.role == Role::Pawn)
                });
            if let Some(m) = unpromoted {
                self.illegal(
                    side,
                    Law::Unpromoted,
                    "Pawn not promoted: it becomes a queen".to_owned(),
                );
                if self.result.is_none() {
                    self.make(m, self.board.changes());
                    if self.result.is_none()
                        && let Some(index) =
                            self.play.uncompleted.iter().position(|u| u.side == side)
                    {
                        self.complete_through(index, true);
                    }
                }
                return;
            }
            // 7.4, not 7.5: a legal move with some of his own pieces off
            // their squares (knocked off by the hand that moved). The press
            // waits for the board, with no penalty.
            if let Some(off) = self.move_with_own_pieces_off(side) {
                self.restore_before_pressing(side, off);
                return;
            }
        }
        // The profiles' false moves: they stand until claimed (A.5), or the
        // opponent chooses (1858, 13ª).
        if self.false_move_pressed(side) {
            return;
        }
        let restore = self.squares_to_restore();
        self.illegal(
            side,
            Law::IllegalMove,
            format!("Illegal move: restore {restore} and make a legal move"),
        );
    }

    /// 7.4.1: `side` pressed with his own pieces off `squares`: a ruling
    /// without penalty, and no count toward 7.5.5.
    pub(super) fn restore_before_pressing(&mut self, side: Color, squares: Bitboard) {
        let squares = restore_list(squares);
        self.rule(
            side,
            Breach {
                law: Law::Displaced,
                detail: format!("Restore {squares} before pressing"),
            },
            false,
        );
    }

    /// The squares of `side`'s own pieces missing from a board that shows
    /// one of his legal moves otherwise, made by hands that lifted and
    /// placed what it needs: pieces displaced while moving (7.4.1).
    pub(super) fn move_with_own_pieces_off(&self, side: Color) -> Option<Bitboard> {
        let mask = self.off_board();
        let occupied = self.play.position.board().occupied();
        let own = self.play.position.board().by_color(side);
        let on_board = self.board.occupied() & !mask;
        let changes = self.board.changes();
        self.play.legal.moves.iter().find_map(|m| {
            let (lifted, placed) = hands_needed(*m, side);
            let after = occupancy_after(occupied, *m, side) & !mask;
            let off = after & !on_board;
            let fits = (on_board & !after).is_empty()
                && off.any()
                && own.is_superset(off)
                && (off & (lifted | placed)).is_empty()
                && changes.lifted.is_superset(lifted | off)
                && changes.placed.is_superset(placed);
            fits.then_some(off)
        })
    }

    /// The squares where the board differs from the position, for the
    /// player to set right: "e2 e4", or "the position".
    pub(super) fn squares_to_restore(&self) -> String {
        let diff = self.board.occupied() ^ self.play.position.board().occupied();
        let names: Vec<String> = diff.into_iter().map(|sq| sq.to_string()).collect();
        if names.is_empty() {
            "the position".to_owned()
        } else {
            names.join(" ")
        }
    }

    /// 7.5.1–7.5.5: a completed illegal move. The press is refused; the
    /// opponent gets the penalty time, and a second one loses.
    pub(super) fn illegal(&mut self, side: Color, law: Law, detail: String) {
        self.rule(side, Breach { law, detail }, false);
        if self.rules.enforcement == Enforcement::Record {
            return;
        }
        let count = self.illegal_moves.get_mut(side);
        *count += 1;
        if *count >= 2 {
            self.finish(self.loss_for(side), Reason::IllegalMoves);
            return;
        }
        let ms = self.rules.mode.penalty_ms();
        self.clock.add(side.other(), ms, self.now);
        self.emit(Effect::TimeAdded {
            side: side.other(),
            ms,
            law: Law::IllegalMovePenalty,
        });
    }
}

/// The squares of a displacement, for the player: "a2 a3".
fn restore_list(squares: Bitboard) -> String {
    let names: Vec<String> = squares.into_iter().map(|sq| sq.to_string()).collect();
    names.join(" ")
}
