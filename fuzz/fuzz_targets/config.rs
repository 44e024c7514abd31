//! `/etc/tocada/tocada.toml` (`tocada::config::Config::parse`): any text is
//! a configuration or an error that names where it is, never a panic; and
//! a configuration accepted is one the daemon can start with (its words,
//! warnings, presets' rules and a session on them).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tocada::config::Config;
use tocada::session::Session;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = match Config::parse(text, "tocada.toml") {
        Ok(config) => config,
        Err(err) => {
            let message = err.to_string();
            assert!(message.starts_with("tocada.toml"), "{message}");
            let _ = (err.exit_code(), err.key(), err.line());
            return;
        }
    };
    let _ = (config.summary(), config.warnings());
    let _ = config.button_pins();
    for preset in &config.presets {
        let _ = (preset.rules(&config.rules), preset.describe());
    }
    let mut session = Session::new(&config);
    session.handle_timeout(0);
    while session.poll_action().is_some() {}
});
