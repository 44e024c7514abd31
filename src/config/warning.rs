//! What a configuration may mean other than it says: valid, but almost
//! always a mistake. `tocada check-config` prints these and the daemon logs
//! them at start; neither refuses the file.

use std::fmt;

use crate::{Stage, TimeControl};

/// Less than this for a whole game is no club time control: `15+10` read as
/// PGN is 15 seconds, and was meant as 15 minutes.
const SHORTEST_GAME_MS: u64 = 60_000;
/// Less than this a move over a counted period (`40/90`: 2.25 s a move).
const SHORTEST_MOVE_MS: u64 = 5_000;

/// A valid setting that is probably not what was meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// A preset's time control gives seconds where minutes were surely
    /// meant: PGN's `TimeControl` counts seconds.
    SecondsForMinutes {
        /// The preset's name.
        preset: String,
        /// `time_control` or `black_time_control`.
        key: &'static str,
        /// The time control as written (normalised).
        written: String,
        /// The same with every period's time read as minutes.
        meant: String,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigWarning::SecondsForMinutes {
                preset,
                key,
                written,
                meant,
            } => write!(
                f,
                "preset {preset:?}: {key} = {written:?} counts seconds, as PGN does; \
                 for minutes write {meant:?}"
            ),
        }
    }
}

/// The warning for one time control of a preset, if its periods are too
/// short to be meant.
pub(super) fn seconds_for_minutes(
    preset: &str,
    key: &'static str,
    time_control: &TimeControl,
) -> Option<ConfigWarning> {
    let too_short = |stage: &Stage| match stage.moves {
        Some(moves) if moves > 0 => stage.time_ms / u64::from(moves) < SHORTEST_MOVE_MS,
        _ => stage.time_ms < SHORTEST_GAME_MS,
    };
    if !time_control.stages().iter().any(too_short) {
        return None;
    }
    Some(ConfigWarning::SecondsForMinutes {
        preset: preset.to_owned(),
        key,
        written: time_control.to_string(),
        meant: time_control.scaled(60).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warn(text: &str) -> Option<String> {
        seconds_for_minutes("quick", "time_control", &text.parse().unwrap()).map(|w| w.to_string())
    }

    #[test]
    fn fifteen_plus_ten_is_fifteen_seconds_and_the_warning_says_so() {
        assert_eq!(
            warn("15+10").as_deref(),
            Some(
                "preset \"quick\": time_control = \"15+10\" counts seconds, as PGN does; \
                 for minutes write \"900+10\""
            )
        );
    }

    #[test]
    fn a_counted_period_too_short_a_move_is_suspicious_too() {
        assert_eq!(
            warn("40/90+30:30+30").as_deref(),
            Some(
                "preset \"quick\": time_control = \"40/90+30:30+30\" counts seconds, as PGN \
                 does; for minutes write \"40/5400+30:1800+30\""
            )
        );
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
        ] {
            assert_eq!(warn(text), None, "{text}");
        }
    }
}
