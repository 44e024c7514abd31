//! `tocada sim --script` and `tocada replay` run as black boxes on the same
//! script, for the tests that check the daemon on the device models decides
//! what the bare referee decides.
// Each test binary uses what it needs of this module.
#![allow(dead_code)]

use serde_json::Value;

use super::cli::tocada;

/// `tocada` with `args`: its standard output, standard error and exit code.
pub fn run(args: &[&str]) -> (String, String, i32) {
    let out = tocada().args(args).output().expect("tocada runs");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// The JSON lines of `output`, parsed.
pub fn effects(output: &str) -> Vec<Value> {
    output
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The effects of `script` through `tocada sim --script`; both must succeed.
pub fn sim_only(script: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.jsonl");
    std::fs::write(&path, script).unwrap();
    let (sim, err, code) = run(&["sim", "--script", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    effects(&sim)
}

/// The effects of `script` through `tocada sim --script` and through
/// `tocada replay`; both must succeed.
pub fn sim_and_replay(script: &str) -> (Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.jsonl");
    std::fs::write(&path, script).unwrap();
    let path = path.to_str().unwrap();
    let (sim, err, code) = run(&["sim", "--script", path]);
    assert_eq!(code, 0, "{err}");
    let (bare, err, code) = run(&["replay", path]);
    assert_eq!(code, 0, "{err}");
    (effects(&sim), effects(&bare))
}

/// The effects without their instants and a move's clock times: a move
/// completed by a release is seen at the board's next poll in the
/// simulator.
pub fn untimed(effects: &[Value]) -> Vec<Value> {
    effects
        .iter()
        .map(|e| {
            let mut e = e.clone();
            let o = e.as_object_mut().unwrap();
            o.remove("t");
            if o.get("effect").is_some_and(|k| k == "move") {
                o.remove("white_ms");
                o.remove("black_ms");
            }
            e
        })
        .collect()
}
