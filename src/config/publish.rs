//! `[publish]`: where `tocada-publish` sends this clock's games (issue 14).
//! Off unless the section is there; the clock daemon itself never reads it
//! beyond checking it.
//!
//! ```toml
//! [publish]
//! broker = "mqtt://hall.local:1883"
//! hall = "open-2026"
//! board = 12
//! credentials = "/etc/tocada/publish.credentials"
//! pairing_file = "/run/tocada-publish/pairing.json"
//! ```

use std::path::PathBuf;

use super::ConfigError;
use super::raw::{Integer, RawPublish};
use crate::broadcast::BoardAddress;
use crate::broker::BrokerUrl;

/// `[publish]`, every value checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishConfig {
    /// The broker, from `broker`.
    pub broker: BrokerUrl,
    /// This clock's place: `hall` and `board`, the root of its topics
    /// `tocada/<hall>/<board>/`.
    pub address: BoardAddress,
    /// The file holding this clock's `user:password` for the broker
    /// (`credentials`); `None` connects without a user name, which a
    /// hall's broker refuses.
    pub credentials: Option<PathBuf>,
    /// Where the publisher writes the hall's pairing of this board and the
    /// daemon reads it (`pairing_file`, by default
    /// [`DEFAULT_PAIRING_FILE`]).
    pub pairing_file: PathBuf,
}

/// Where the hall's pairing of the board is handed from the publisher to
/// the daemon, unless `pairing_file` says otherwise: the publisher's
/// runtime directory (`RuntimeDirectory=tocada-publish`, readable by the
/// daemon).
pub const DEFAULT_PAIRING_FILE: &str = "/run/tocada-publish/pairing.json";

/// Checks `[publish]`; errors start with `origin` and name the key.
pub(super) fn check(raw: RawPublish, origin: &str) -> Result<PublishConfig, ConfigError> {
    let fail = |key: &str, why: &str| ConfigError::at_key(origin, key, None, why);
    let broker = raw.broker.ok_or_else(|| {
        fail(
            "publish.broker",
            "missing: the broker's URL, such as \"mqtt://hall.local:1883\"",
        )
    })?;
    let broker = BrokerUrl::parse(broker.trim()).map_err(|why| fail("publish.broker", &why))?;
    let hall = raw.hall.ok_or_else(|| {
        fail(
            "publish.hall",
            "missing: the hall's name, the same on every clock of the tournament",
        )
    })?;
    let board = match raw.board {
        None => return Err(fail("publish.board", "missing: this clock's board number")),
        Some(Integer(board)) => u32::try_from(board)
            .ok()
            .filter(|&board| board >= 1)
            .ok_or_else(|| {
                fail(
                    "publish.board",
                    &format!("{board} is not a board number: expected 1 or more"),
                )
            })?,
    };
    let address = BoardAddress::new(&hall, board)
        .map_err(|err| fail("publish.hall", &format!("\"{hall}\": {err}")))?;
    let credentials = match raw.credentials {
        None => None,
        Some(path) => {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(fail(
                    "publish.credentials",
                    &format!(
                        "\"{}\" is not an absolute path: expected a file such as \
                         /etc/tocada/publish.credentials",
                        path.display()
                    ),
                ));
            }
            Some(path)
        }
    };
    let pairing_file = PathBuf::from(
        raw.pairing_file
            .unwrap_or_else(|| DEFAULT_PAIRING_FILE.to_owned()),
    );
    if !pairing_file.is_absolute() {
        return Err(fail(
            "publish.pairing_file",
            &format!(
                "\"{}\" is not an absolute path: expected a file such as {DEFAULT_PAIRING_FILE}",
                pairing_file.display()
            ),
        ));
    }
    Ok(PublishConfig {
        broker,
        address,
        credentials,
        pairing_file,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fault_of_the_section_names_its_key() {
        use crate::config::Config;
        let good = "broker = \"mqtt://hall.local\"\nhall = \"open\"\nboard = 3\n";
        let publish = Config::parse(&format!("[publish]\n{good}"), "t.toml")
            .unwrap()
            .publish
            .unwrap();
        assert_eq!(publish.address.events_topic(), "tocada/open/3/events");
        assert_eq!(publish.credentials, None);
        assert_eq!(
            publish.pairing_file,
            std::path::Path::new(super::DEFAULT_PAIRING_FILE)
        );
        for (text, key, says) in [
            ("hall = \"open\"\nboard = 3\n", "publish.broker", "missing"),
            (
                "broker = \"mqtt://h\"\nboard = 3\n",
                "publish.hall",
                "missing",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open\"\n",
                "publish.board",
                "missing",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open/2\"\nboard = 3\n",
                "publish.hall",
                "'/'",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open\"\nboard = -1\n",
                "publish.board",
                "expected 1 or more",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open\"\nboard = 3\ncredentials = \"pw\"\n",
                "publish.credentials",
                "not an absolute path",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open\"\nboard = 3\npairing_file = \"p.json\"\n",
                "publish.pairing_file",
                "not an absolute path",
            ),
            (
                "broker = \"mqtt://h\"\nhall = \"open\"\nboard = 3\nport = 1\n",
                "publish.port",
                "unknown key",
            ),
        ] {
            let err = Config::parse(&format!("[publish]\n{text}"), "t.toml").unwrap_err();
            assert_eq!(err.key(), Some(key), "{err}");
            assert!(err.to_string().contains(says), "{err}");
        }
    }
}
