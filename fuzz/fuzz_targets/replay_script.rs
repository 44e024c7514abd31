//! A whole script through the one reader and the one feed, as `tocada
//! replay`, a restore after a crash and the simulator's standard input read
//! it: any bytes give effects or a fault, never a panic; effects come in
//! time order and nothing follows a result; and a script that replays
//! without a fault gives the same effects when replayed again from what a
//! game stores (its lines written back with `line_to_json`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tocada::pgn::Tags;
use tocada::transcript::Policy;
use tocada::transcript::{Feed, Read, Reader, line_to_json, pgn_from_lines, replay};
use tocada::{Effect, Millis};

fuzz_target!(|data: &[u8]| {
    // `tocada replay` itself: the effects it writes are JSON lines.
    let mut out = Vec::new();
    let _ = replay(data, &mut out);
    let out = String::from_utf8(out).expect("replay writes UTF-8");
    assert!(out.is_empty() || out.ends_with('\n'));

    for policy in [Policy::REPLAY, Policy::RESTORE, Policy::LIVE] {
        // The feed reads and feeds; a reader beside it gives each line
        // it fed, to be written back as the daemon stores it.
        let mut reader = Reader::new(policy);
        let mut game = Feed::new(policy);
        let mut effects: Vec<(Millis, Effect)> = Vec::new();
        let mut stored = Vec::new();
        let mut clean = true;
        for raw in data.split_inclusive(|&b| b == b'\n') {
            let read = reader.push(raw);
            match game.push(raw, |t, e| effects.push((t, e))) {
                Read::Line(_) => {
                    if let Read::Line(line) = read {
                        stored.push(line_to_json(&line));
                    }
                }
                Read::Blank => {}
                Read::Skipped(_) => clean = false,
                Read::Stop(_) => {
                    clean = false;
                    break;
                }
            }
        }
        check_effects(&effects);
        if policy == Policy::LIVE {
            continue;
        }
        // What was fed, stored and fed again, gives the same decisions.
        let mut again = Feed::new(Policy::RESTORE);
        let mut replayed = Vec::new();
        let fault = again.push_rows(&stored, |t, e| replayed.push((t, e)), |_| {});
        if clean {
            assert_eq!(fault, None, "stored lines {stored:?} do not read back");
            assert_eq!(
                replayed, effects,
                "stored lines {stored:?} replay otherwise"
            );
        }
        let _ = pgn_from_lines(&stored, Tags::default());
    }
});

fn check_effects(effects: &[(Millis, Effect)]) {
    let mut last = 0;
    let mut over = false;
    for (t, effect) in effects {
        assert!(!over, "an effect after the result: {effect:?}");
        assert!(*t >= last, "effects out of time order: {effects:?}");
        last = *t;
        over = matches!(effect, Effect::Result { .. });
    }
}
