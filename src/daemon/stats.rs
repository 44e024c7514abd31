//! What the daemon's loop measures while it runs, reported at the end: the
//! press-to-face latency, the board inputs as they reached the session,
//! and the failures on the bus.

use std::time::Duration;

use crate::Input;

/// Measures taken while running, reported at the end.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// For each lever press that switched the clocks: microseconds from the
    /// press (as timestamped) to the face showing the other clock running.
    pub press_to_face_us: Vec<u64>,
    /// For each lever press: microseconds from the press (as timestamped)
    /// to its ruling by the referee, which waits for the board's news up
    /// to the press (`board_news`).
    pub press_to_referee_us: Vec<u64>,
    /// With [`Shell::record_board_inputs`](super::Shell::record_board_inputs):
    /// every board input as it was handed to the session, with the rig's
    /// clock then.
    pub board_inputs: Vec<(Duration, Input)>,
    /// Faces sent to the panel.
    pub redraws: u64,
    /// Failed writes to the panel.
    pub face_errors: u64,
    /// Failed board polls.
    pub board_errors: u64,
    /// Store operations (events, games begun, results) still not committed
    /// when the loop stopped and its wait for the store ran out: lost.
    pub unstored: usize,
}

impl Stats {
    /// Median and worst press-to-face latency, in microseconds.
    pub fn latency(&self) -> Option<(u64, u64)> {
        median_and_worst(&self.press_to_face_us)
    }
}

/// The median and the largest of `values`, if there are any.
pub fn median_and_worst(values: &[u64]) -> Option<(u64, u64)> {
    let mut v = values.to_vec();
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    Some((v[v.len() / 2], v[v.len() - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_value_and_the_worst_the_largest() {
        assert_eq!(median_and_worst(&[]), None);
        assert_eq!(median_and_worst(&[7]), Some((7, 7)));
        assert_eq!(median_and_worst(&[9, 1, 5, 3]), Some((5, 9)));
        let stats = Stats {
            press_to_face_us: vec![300, 100, 200],
            ..Stats::default()
        };
        assert_eq!(stats.latency(), Some((200, 300)));
    }
}
