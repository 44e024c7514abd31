//! What a configuration may mean other than it says: valid, but almost
//! always a mistake. `tocada check-config` prints these and the daemon logs
//! them at start; neither refuses the file.

use std::fmt;

use crate::words;
use crate::{IncrementMode, Stage, TimeControl};

/// Less than this for a whole game is no club time control: `15+10` read as
/// PGN is 15 seconds, and was meant as 15 minutes.
const SHORTEST_GAME_MS: u64 = 60_000;
/// Less than this a move over a counted period (`40/90`: 2.25 s a move).
const SHORTEST_MOVE_MS: u64 = 5_000;
/// An increment more than this fraction of its period's time is minutes
/// read as seconds: `90+30` is 90 s with 30 s a move, a third of the game
/// each move; no club plays that.
const LARGEST_INCREMENT_SHARE: u64 = 10;

/// A valid setting that is probably not what was meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// A preset's time control written in bare numbers gives seconds where
    /// minutes were surely meant: PGN's `TimeControl` counts seconds.
    SecondsForMinutes {
        /// The preset's name.
        preset: String,
        /// `time_control` or `black_time_control`.
        key: &'static str,
        /// The time control as written (normalised).
        written: String,
        /// How it is read, in words: "90 s + 30 s per move from move 1".
        read: String,
        /// The same with every period's time read as minutes, with units.
        meant: String,
        /// The first period's time read as minutes: "90 minutes".
        minutes: String,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigWarning::SecondsForMinutes {
                preset,
                key,
                written,
                read,
                meant,
                minutes,
            } => write!(
                f,
                "preset {preset:?}: {key} = {written:?} read as {read}, as PGN counts \
                 seconds; write {meant:?} for {minutes}"
            ),
        }
    }
}

/// The warning for one time control of a preset written in bare numbers,
/// if its periods are too short to be meant, or its increments too large
/// for them.
pub(super) fn seconds_for_minutes(
    preset: &str,
    key: &'static str,
    time_control: &TimeControl,
    increment: IncrementMode,
) -> Option<ConfigWarning> {
    let suspicious = |stage: &Stage| {
        // A period with no time of its own lives on its increment on purpose.
        stage.time_ms > 0
            && (match stage.moves {
                Some(moves) if moves > 0 => stage.time_ms / u64::from(moves) < SHORTEST_MOVE_MS,
                _ => stage.time_ms < SHORTEST_GAME_MS,
            } || stage.increment_ms * LARGEST_INCREMENT_SHARE > stage.time_ms)
    };
    if !time_control.stages().iter().any(suspicious) {
        return None;
    }
    let first = time_control.stages()[0].time_ms;
    Some(ConfigWarning::SecondsForMinutes {
        preset: preset.to_owned(),
        key,
        written: time_control.to_string(),
        read: words::time_control_text(time_control, increment),
        meant: time_control.scaled(60).with_units(),
        minutes: match first / 1000 {
            1 => "1 minute".to_owned(),
            n if time_control.stages().len() == 1 && first.is_multiple_of(1000) => {
                format!("{n} minutes")
            }
            _ => "minutes".to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warn(text: &str) -> Option<String> {
        seconds_for_minutes(
            "quick",
            "time_control",
            &text.parse().unwrap(),
            IncrementMode::Fischer,
        )
        .map(|w| w.to_string())
    }

    #[test]
    fn fifteen_plus_ten_is_fifteen_seconds_and_the_warning_says_so() {
        assert_eq!(
            warn("15+10").as_deref(),
            Some(
                "preset \"quick\": time_control = \"15+10\" read as 15 s + 10 s per move \
                 from move 1, as PGN counts seconds; write \"15m+10s\" for 15 minutes"
            )
        );
    }

    #[test]
    fn a_counted_period_too_short_a_move_is_suspicious_too() {
        assert_eq!(
            warn("40/90+30:30+30").as_deref(),
            Some(
                "preset \"quick\": time_control = \"40/90+30:30+30\" read as 40 moves in \
                 1 min 30 s + 30 s per move from move 1, then 30 s + 30 s per move, as PGN \
                 counts seconds; write \"40/90m+30s:30m+30s\" for minutes"
            )
        );
    }

    #[test]
    fn ninety_plus_thirty_is_ninety_seconds_and_the_warning_names_the_reading() {
        assert_eq!(
            warn("90+30").as_deref(),
            Some(
                "preset \"quick\": time_control = \"90+30\" read as 1 min 30 s + 30 s per \
                 move from move 1, as PGN counts seconds; write \"90m+30s\" for 90 minutes"
            )
        );
        assert!(warn("60+30").is_some());
        assert!(warn("120+30").is_some());
    }

    #[test]
    fn club_time_controls_and_bullet_pass_without_a_word() {
        for text in [
            "900+10",
            "180+2",
            "60",
            "40/5400+30:1800+30",
            "300+0.5",
            "40/200+5",
            "300+30",
            "120+1",
            "60/300:0+2",
        ] {
            assert_eq!(warn(text), None, "{text}");
        }
    }
}
