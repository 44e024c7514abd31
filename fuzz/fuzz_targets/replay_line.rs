//! One replay line (`tocada::transcript::parse_line`): any text gives a
//! line or an error, never a panic; and a line that parses is written back
//! by `line_to_json` as text that parses to the same line (the daemon
//! stores its games in this format and rebuilds them by reading it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tocada::transcript::{line_to_json, parse_line};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(Some(line)) = parse_line(text) else {
        return;
    };
    let written = line_to_json(&line);
    let again = parse_line(&written)
        .unwrap_or_else(|err| panic!("{written} does not read back: {err}"))
        .expect("a written line is not blank");
    assert_eq!(again, line, "{written} reads back as another line");
    assert_eq!(line_to_json(&again), written, "writing is not stable");
});
