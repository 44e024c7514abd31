//! The `tocada` binaries for black-box tests.

// Each test binary uses what it needs of this module.
#![allow(dead_code)]

use std::process::Command;

/// The binary, started through `TOCADA_TEST_RUNNER` when one is set: under
/// qemu (the aarch64 run of `.ci/run`) an emulated test cannot start an
/// aarch64 binary by itself.
pub fn tocada() -> Command {
    program(env!("CARGO_BIN_EXE_tocada"))
}

/// Any of the package's binaries (`env!("CARGO_BIN_EXE_…")`), started
/// through `TOCADA_TEST_RUNNER` as [`tocada`] is.
pub fn program(binary: &str) -> Command {
    let runner = std::env::var("TOCADA_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(binary);
            command
        }
        None => Command::new(binary),
    }
}
