//! The `tocada` binary for black-box tests.

use std::process::Command;

/// The binary, started through `TOCADA_TEST_RUNNER` when one is set: under
/// qemu (the aarch64 run of `.ci/run`) an emulated test cannot start an
/// aarch64 binary by itself.
pub fn tocada() -> Command {
    let binary = env!("CARGO_BIN_EXE_tocada");
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
