//! What the face shows, read off the session and its referee: the face's
//! [`View`], with every time rounded to what the face can display, and the
//! instant it will next change by itself.
//!
//! The rounding is what lets the daemon redraw only on a change: two views
//! at instants the face shows alike compare equal, and
//! [`Session::next_face_change`] says when the running clock's reading
//! next moves, so the loop sleeps until then instead of ticking.

use shakmaty::{Color, KnownOutcome};

use super::{Session, preset_label};
use crate::face::{self, Language, Screen, View};
use crate::{IncrementMode, Millis, Reason, Referee, words};

/// The clock screen as `referee` stands at `now` (game time), with an alert
/// line. The times are rounded down to what the face shows
/// ([`face::displayed_ms`]); a flag shows once a time reaches zero. The
/// board's connection and the sides' places are not the referee's business:
/// set `board_disconnected` and `black_left` afterwards.
pub fn from_referee(referee: &Referee, now: Millis, alert: Option<String>) -> View {
    from_referee_in(referee, now, alert, Language::English)
}

/// [`from_referee`], the result said in `language` and the face's own
/// words in it too.
pub fn from_referee_in(
    referee: &Referee,
    now: Millis,
    alert: Option<String>,
    language: Language,
) -> View {
    let white_ms = referee.remaining(Color::White, now);
    let black_ms = referee.remaining(Color::Black, now);
    let result = referee.result();
    // Counting up, zero is the start, not a flag.
    let flags = referee.rules().increment_mode.has_flag();
    // From the exact times: a clock showing 0.0 has not flagged until zero.
    let flag = match result {
        Some((KnownOutcome::Decisive { winner }, Reason::Timeout)) => Some(!winner),
        _ if flags && white_ms == 0 => Some(Color::White),
        _ if flags && black_ms == 0 => Some(Color::Black),
        _ => None,
    };
    let result = result.map(|(outcome, reason)| words::result_text(outcome, reason, language));
    // The result has the status row: the alert line does not say it again.
    let alert = alert.filter(|alert| Some(alert) != result.as_ref());
    View {
        white_ms: face::displayed_ms(white_ms),
        black_ms: face::displayed_ms(black_ms),
        running: referee.ticking(),
        move_number: referee.moves_completed(Color::Black) + 1,
        white_moves: referee.moves_completed(Color::White),
        black_moves: referee.moves_completed(Color::Black),
        white_stage: referee.stage(Color::White),
        black_stage: referee.stage(Color::Black),
        white_overtime: overtime_mark(referee, Color::White, now),
        black_overtime: overtime_mark(referee, Color::Black, now),
        flag,
        draw_offer: referee.draw_offer(),
        paused: referee.is_paused(),
        board_disconnected: false,
        games_unsaved: false,
        alert,
        result,
        screen: Screen::Clock,
        black_left: false,
        language,
        not_countdown: matches!(
            referee.rules().increment_mode,
            IncrementMode::Upcount | IncrementMode::Hourglass | IncrementMode::Delay
        ),
        pairing: None,
    }
}

/// `side`'s overtime as the face marks it: `BY3`, byo-yomi periods left
/// counting the one running; `C12`, Canadian moves still to make in the
/// period. `None` before his main time has run out.
fn overtime_mark(referee: &Referee, side: Color, now: Millis) -> Option<String> {
    let overtime = referee.rules().time_control_of(side).overtime()?;
    let (periods, moves) = referee.overtime_left(side, now)?;
    Some(if overtime.is_byo_yomi() {
        format!("BY{periods}")
    } else {
        format!("C{moves}")
    })
}

impl Session {
    /// What the face shows at `now`. Views at two instants compare equal
    /// exactly when the face looks the same at both.
    pub fn view(&self, now: Millis) -> View {
        let mut view = match self.game.as_ref() {
            None => {
                // What is wrong with the pieces, as it is now (7.3).
                // Then who plays next, as the hall paired the board.
                let alert = self
                    .alert
                    .clone()
                    .or_else(|| {
                        self.set_up_fault()
                            .map(|fault| fault.text_in(self.language))
                    })
                    .or_else(|| self.pairing_line());
                let screen = match self.editor_rows() {
                    Some((rows, selected)) => Screen::TimeControlEditor { rows, selected },
                    None => Screen::TimeControlMenu {
                        presets: self
                            .presets
                            .iter()
                            .map(|(name, rules)| preset_label(name, rules, self.language))
                            .collect(),
                        selected: self.selected,
                    },
                };
                View {
                    screen,
                    alert,
                    pairing: self.pairing_shown(),
                    ..View::default()
                }
            }
            Some(game) => {
                let t = (now + game.offset).max(game.last);
                // 4.4.4: the promotion's choices, the current one marked,
                // while it waits for its piece.
                let alert = match (
                    game.referee.promotion_pending(),
                    game.referee.choice_pending(),
                ) {
                    (Some((_, role)), _) => Some(words::promotion_text(role, self.language)),
                    // The 1858 laws: the chooser's options, the marked one
                    // in brackets, after the law that gives them.
                    (None, Some((_, law, options))) => Some(format!(
                        "{law} {}",
                        words::choice_text(
                            options.as_slice(),
                            game.controls.choice_mark(),
                            self.language
                        )
                    )),
                    (None, None) => self.alert.clone(),
                };
                let mut view = from_referee_in(&game.referee, t, alert, self.language);
                if game.referee.is_paused() && !game.over {
                    view.screen = Screen::Correction {
                        field: game.controls.field(),
                    };
                }
                view
            }
        };
        view.black_left = self.black_left;
        view.language = self.language;
        view.board_disconnected = self.board_disconnected;
        view
    }

    /// The first instant after `now`, on the shell's clock, at which
    /// [`Session::view`] differs from `view(now)` with no input in between:
    /// when the running clock's reading next changes (a second, or a tenth
    /// under 20 s; after any delay still to run; in an hourglass, the other
    /// clock's as it fills), or its flag shows. `None`
    /// when no clock runs, or the running one already reads zero (what
    /// follows, the result, comes through [`Session::handle_timeout`], which
    /// marks the session changed).
    ///
    /// The loop redraws at this instant instead of ticking.
    pub fn next_face_change(&self, now: Millis) -> Option<Millis> {
        let game = self.game.as_ref().filter(|g| !g.over)?;
        let side = game.referee.ticking()?;
        let t = (now + game.offset).max(game.last);
        // What of the running clock the view holds: its reading and its flag.
        // Counting up, zero is the start, not a flag.
        let mode = game.referee.rules().increment_mode;
        let flags = mode.has_flag();
        // In an hourglass the other clock fills as this one empties: its
        // reading moves too, at instants of its own.
        let pours = mode == crate::IncrementMode::Hourglass;
        let reading = |at: Millis| {
            let ms = game.referee.remaining(side, at);
            let other = pours.then(|| face::displayed_ms(game.referee.remaining(!side, at)));
            (face::displayed_ms(ms), flags && ms == 0, other)
        };
        let before = reading(t);
        if before.1 {
            return None;
        }
        // The reading moves one way as time passes, whatever the delay or
        // increment mode (down, or up counting up; an overtime period that
        // begins is a change in itself), so search for its first change: double the
        // step until it has changed, then halve the gap. The referee alone
        // knows the clock's rules; asking it keeps them in one place.
        let mut step: Millis = 1;
        let mut hi = loop {
            let at = t.saturating_add(step);
            if reading(at) != before {
                break at;
            }
            if at == Millis::MAX {
                return None;
            }
            step = step.saturating_mul(2);
        };
        let mut lo = t;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if reading(mid) == before {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi.saturating_sub(game.offset).max(now + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::controls::Button;
    use crate::session::SessionInput;
    use crate::{IncrementMode, Input, Rules};
    use shakmaty::Square;

    /// A session with a game under `control` and `mode`, Black's lever
    /// pressed at 1 000 ms, so White's clock runs.
    fn game(control: &str, mode: IncrementMode) -> Session {
        let mut s = Session::new(&Config::default());
        s.select_rules(
            "test",
            Rules {
                time_control: control.parse().unwrap(),
                increment_mode: mode,
                ..Rules::default()
            },
        );
        s.press(1_000, Button::Lever(Color::Black), 1_000);
        assert!(s.is_ticking());
        s
    }

    #[test]
    fn a_spanish_session_shows_its_face_and_alerts_in_spanish() {
        let mut config = Config::default();
        config.face.language = Language::Spanish;
        let mut s = Session::new(&config);
        // White's lever on the setup screen: the game waits for Black's.
        s.press(500, Button::Lever(Color::White), 500);
        let view = s.view(500);
        assert_eq!(view.language, Language::Spanish);
        assert_eq!(view.alert.as_deref(), Some("Empiezan las negras"));
        s.press(1_000, Button::Lever(Color::Black), 1_000);
        assert!(s.is_ticking());
        assert_eq!(s.view(1_000).language, Language::Spanish);
    }

    /// For instants from `from` on: the view just before the announced
    /// change equals the view now, and the view at it differs.
    fn check_changes(s: &Session, from: Millis, steps: usize) -> Vec<Millis> {
        let mut now = from;
        let mut seen = Vec::new();
        for _ in 0..steps {
            let Some(next) = s.next_face_change(now) else {
                break;
            };
            assert!(next > now, "{next} after {now}");
            assert_eq!(s.view(next - 1), s.view(now), "before {next}, from {now}");
            assert_ne!(s.view(next), s.view(now), "at {next}, from {now}");
            seen.push(next);
            now = next;
        }
        seen
    }

    #[test]
    fn seconds_above_twenty_and_tenths_below() {
        // 25 s: whole seconds down to 20, then tenths.
        let s = game("25", IncrementMode::Fischer);
        let changes = check_changes(&s, 1_000, 400);
        // 25 s left at 1 000, read down: 0:24 shows from the first
        // millisecond after, 0:23 a second later.
        assert_eq!(&changes[..3], [1_001, 2_001, 3_001]);
        // From 20 s on, every tenth: 0:20 → 19.9 at 19 999 left.
        assert!(changes.contains(&6_001) && changes.contains(&6_101));
        // The last change is the flag at zero, then nothing.
        assert_eq!(*changes.last().unwrap(), 26_000);
        assert_eq!(s.view(26_000).flag, Some(Color::White));
        assert_eq!(s.next_face_change(26_000), None);
        // Every tenth below 20 s: 200 of them, 0.0 included, plus the flag;
        // five seconds above.
        assert_eq!(changes.len(), 5 + 200 + 1);
    }

    #[test]
    fn views_at_instants_that_look_alike_are_equal() {
        let s = game("300+3", IncrementMode::Fischer);
        assert_ne!(s.view(1_000), s.view(1_001));
        assert_eq!(s.view(1_001), s.view(2_000));
        assert_ne!(s.view(1_001), s.view(2_001));
        // Any instant in between announces the same change.
        assert_eq!(s.next_face_change(1_500), Some(2_001));
    }

    #[test]
    fn after_a_press_with_an_increment_the_other_clock_counts() {
        let mut s = game("60+2", IncrementMode::Fischer);
        s.board(3_000, Input::Lift(Square::E2));
        s.board(3_200, Input::Place(Square::E4, None));
        s.press(3_500, Button::Lever(Color::White), 3_500);
        assert_eq!(s.referee().unwrap().ticking(), Some(Color::Black));
        let changes = check_changes(&s, 3_500, 5);
        assert_eq!(changes[0], 3_501);
        // White's time stays put, with its increment.
        assert_eq!(s.view(changes[4]).white_ms, 59_000);
    }

    #[test]
    fn a_delay_runs_before_the_reading_moves() {
        // US delay of 5 s: the reading stays 1:00 until 5 s and 1 ms after
        // the start have gone.
        let s = game("60+5", IncrementMode::Delay);
        let changes = check_changes(&s, 1_000, 3);
        assert_eq!(changes, [6_001, 7_001, 8_001]);
        assert_eq!(s.view(6_000).white_ms, 60_000);
        // Bronstein: the clock runs at once.
        let s = game("60+5", IncrementMode::Bronstein);
        assert_eq!(check_changes(&s, 1_000, 1), [1_001]);
    }

    #[test]
    fn a_delay_below_twenty_seconds_goes_by_tenths() {
        let s = game("15+3", IncrementMode::Delay);
        let changes = check_changes(&s, 1_000, 3);
        assert_eq!(changes, [4_001, 4_101, 4_201]);
    }

    #[test]
    fn no_change_without_a_running_clock() {
        let s = Session::new(&Config::default());
        assert_eq!(s.next_face_change(0), None);
        let mut s = game("60", IncrementMode::Fischer);
        s.press(2_000, Button::Menu, 2_000); // the arbiter pauses
        assert_eq!(s.next_face_change(2_000), None);
    }

    #[test]
    fn the_result_is_said_once_on_the_status_row_not_again_on_the_alert_line() {
        let mut s = game("300+0", IncrementMode::Fischer);
        s.handle(2_000, SessionInput::Referee(Input::Resign(Color::White)));
        let referee = s.referee().unwrap();
        let said = words::result_text(
            referee.result().unwrap().0,
            referee.result().unwrap().1,
            Language::English,
        );
        let view = from_referee(referee, 2_000, Some(said.clone()));
        assert_eq!(view.result.as_deref(), Some(said.as_str()));
        assert_eq!(view.alert, None);
        let other = from_referee(referee, 2_000, Some("Draw declined".to_owned()));
        assert_eq!(other.alert.as_deref(), Some("Draw declined"));
    }

    #[test]
    fn upcount_starts_at_zero_without_a_flag_and_counts_up() {
        let s = game("60", IncrementMode::Upcount);
        assert_eq!(s.view(1_000).flag, None);
        assert_eq!(s.view(1_000).white_ms, 0);
        let changes = check_changes(&s, 1_000, 3);
        // Tenths under 20 s, as a countdown shows them.
        assert_eq!(changes, [1_100, 1_200, 1_300]);
        assert_eq!(s.view(100_000).white_ms, 99_000);
        assert_eq!(s.view(100_000).flag, None);
    }

    #[test]
    fn overtime_is_marked_where_the_period_is() {
        // 10 s main from 1 000, then three byo-yomi periods of 5 s.
        let s = game("10|3x5", IncrementMode::Fischer);
        assert_eq!(s.view(10_999).white_overtime, None);
        let view = s.view(11_000);
        assert_eq!(
            (view.white_overtime.as_deref(), view.white_ms, view.flag),
            (Some("BY3"), 5_000, None)
        );
        assert_eq!(s.view(16_000).white_overtime.as_deref(), Some("BY2"));
        let s = game("10|20/60", IncrementMode::Fischer);
        assert_eq!(s.view(12_000).white_overtime.as_deref(), Some("C20"));
        assert_eq!(s.view(12_000).white_ms, 59_000);
    }

    #[test]
    fn in_an_hourglass_the_filling_clock_is_redrawn_when_it_moves() {
        let mut s = game("60", IncrementMode::Hourglass);
        s.board(1_300, Input::Lift(Square::E2));
        s.board(1_400, Input::Place(Square::E4, None));
        // White pressed after 0.5 s: 59.5 s for him, 60.5 s for Black,
        // whose sand runs into White's glass. White's reading reaches 1:00
        // at 2 000, Black's leaves 1:00 a millisecond later: each change
        // is announced, not only the running clock's.
        s.press(1_500, Button::Lever(Color::White), 1_500);
        let changes = check_changes(&s, 1_500, 4);
        assert_eq!(changes, [2_000, 2_001, 3_000, 3_001]);
        assert_eq!(s.view(2_000).white_ms, 60_000);
        assert_eq!(s.view(3_000).white_ms, 61_000);
    }
}
