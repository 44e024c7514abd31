//! The configuration file as serde reads it: every key optional, values as
//! plain strings and integers.
//!
//! Serde only checks the file's shape here (known keys, right types); the
//! meaning of each value is checked in `validate.rs`, where an error can say
//! what was expected in the clock's own terms rather than serde's.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Unexpected, Visitor};

/// The whole file; an absent section is `None` and takes its defaults.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a TOML document")]
pub(super) struct RawConfig {
    pub clock: Option<RawClock>,
    pub rules: Option<RawRules>,
    pub board: Option<RawBoard>,
    pub i2c: Option<RawI2c>,
    pub pins: Option<RawPins>,
    pub state: Option<RawState>,
    pub face: Option<RawFace>,
    /// `[[preset]]` tables; `None` keeps the default presets.
    pub preset: Option<Vec<RawPreset>>,
    /// `[publish]`; `None` publishes nothing.
    pub publish: Option<RawPublish>,
}

/// `[face]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [face] table")]
pub(super) struct RawFace {
    pub language: Option<String>,
}

/// `[clock]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [clock] table")]
pub(super) struct RawClock {
    pub white: Option<String>,
    pub preset: Option<String>,
    pub levers: Option<String>,
}

/// `[rules]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [rules] table")]
pub(super) struct RawRules {
    pub enforcement: Option<String>,
    pub laws: Option<String>,
    pub min_press_gap_ms: Option<Integer>,
    pub knock_window_ms: Option<Integer>,
}

/// `[board]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [board] table")]
pub(super) struct RawBoard {
    pub kind: Option<String>,
    pub address: Option<Address>,
    pub expanders: Option<Vec<Address>>,
    pub interrupt_pin: Option<Integer>,
    pub poll_ms: Option<Integer>,
    pub stdin: Option<String>,
    pub serial: Option<String>,
    pub model: Option<String>,
    pub clock: Option<String>,
}

/// `[i2c]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an [i2c] table")]
pub(super) struct RawI2c {
    pub bus: Option<String>,
    pub oled_address: Option<Address>,
    pub oled: Option<bool>,
}

/// `[pins]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [pins] table")]
pub(super) struct RawPins {
    pub lever_left: Option<Integer>,
    pub lever_right: Option<Integer>,
    pub draw_left: Option<Integer>,
    pub draw_right: Option<Integer>,
    pub adjust_left: Option<Integer>,
    pub adjust_right: Option<Integer>,
    pub menu: Option<Integer>,
    pub buzzer: Option<Integer>,
    pub debounce_ms: Option<Integer>,
}

/// `[state]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [state] table")]
pub(super) struct RawState {
    pub directory: Option<String>,
}

/// One `[[preset]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [[preset]] table")]
pub(super) struct RawPreset {
    pub name: Option<String>,
    pub time_control: Option<String>,
    pub black_time_control: Option<String>,
    pub draw_odds: Option<String>,
    pub increment: Option<String>,
    pub mode: Option<String>,
}

/// `[publish]` as serde reads it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [publish] table")]
pub(super) struct RawPublish {
    pub broker: Option<String>,
    pub hall: Option<String>,
    pub board: Option<Integer>,
    pub credentials: Option<String>,
    pub pairing_file: Option<String>,
}

/// A TOML integer, whatever its sign: bounds are checked with the key's
/// meaning, so `-1` gets "expected 0..=27" rather than serde's "expected u8".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Integer(pub i64);

impl<'de> Deserialize<'de> for Integer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Integer, D::Error> {
        struct IntegerVisitor;

        impl Visitor<'_> for IntegerVisitor {
            type Value = Integer;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Integer, E> {
                Ok(Integer(value))
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Integer, E> {
                i64::try_from(value)
                    .map(Integer)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
            }
        }

        deserializer.deserialize_i64(IntegerVisitor)
    }
}

/// An I2C address: a TOML integer (`0x42`, `66`) or, as people also write
/// it, a string (`"0x42"`). The range is checked later, with the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Address(pub i64);

impl<'de> Deserialize<'de> for Address {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Address, D::Error> {
        struct AddressVisitor;

        impl Visitor<'_> for AddressVisitor {
            type Value = Address;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an I2C address such as 0x42")
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Address, E> {
                Ok(Address(value))
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Address, E> {
                i64::try_from(value)
                    .map(Address)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Address, E> {
                parse_address(value).ok_or_else(|| E::invalid_value(Unexpected::Str(value), &self))
            }
        }

        deserializer.deserialize_any(AddressVisitor)
    }
}

/// `"0x42"`, `"0X42"` or `"66"`.
fn parse_address(text: &str) -> Option<Address> {
    let text = text.trim();
    let value = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => text.parse().ok()?,
    };
    Some(Address(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_as_strings_are_hex_or_decimal() {
        assert_eq!(parse_address("0x42"), Some(Address(0x42)));
        assert_eq!(parse_address("0X3c"), Some(Address(0x3C)));
        assert_eq!(parse_address(" 66 "), Some(Address(66)));
        assert_eq!(parse_address("0x"), None);
        assert_eq!(parse_address("forty-two"), None);
    }
}
