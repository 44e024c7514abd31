//! `tocada replay` run as a black box on a script given as text: the one
//! helper the rule tests share to play an arbiter's case through the
//! command line.
// Each test binary uses what it needs of this module.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Output, Stdio};

use serde_json::Value;

use super::cli::tocada;

/// `tocada replay` with `script` on standard input, run to its end.
pub fn output(script: &str) -> Output {
    let mut child = tocada()
        .arg("replay")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tocada binary runs");
    // A replay that stops at a bad line may close its input first.
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    child.wait_with_output().unwrap()
}

/// The effect lines `tocada replay` writes for `script`, as written; the
/// replay must succeed.
pub fn effect_lines(script: &str) -> Vec<String> {
    let output = output(script);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{script}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The effects `tocada replay` writes for `script`, parsed; the replay
/// must succeed.
pub fn effects(script: &str) -> Vec<Value> {
    effect_lines(script)
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
