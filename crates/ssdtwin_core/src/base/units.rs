//! Quantities with units at the config edge: durations (`"80us"`), byte sizes (`"16KiB"`) and
//! transfer rates (`"400MT/s"`).
//!
//! Every quantity is a string with its unit, so a scenario file never has a bare number whose unit
//! the reader must guess. Binary prefixes (KiB, MiB, GiB, TiB) are powers of 1024; decimal prefixes
//! (KB, MB, GB, TB) are powers of 1000.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use super::time::Duration;

/// Splits `"12.5us"` into `(12.5, "us")`.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let number: String = text[..end].chars().filter(|&c| c != '_').collect();
    let value: f64 = number.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    Some((value, text[end..].trim()))
}

/// Parses a duration such as `"80us"`, `"1.2ms"`, `"5s"`, `"300ns"`, or for retention ages
/// `"2h"`, `"30d"`, `"1y"` (a Julian year, 365.25 days).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let fail = || {
        format!("`{text}` is not a duration; use a number and a unit: ns, us, ms, s, min, h, d or y (e.g. \"80us\")")
    };
    let (value, unit) = split_number(text).ok_or_else(fail)?;
    let nanos_per_unit = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "d" => 86400e9,
        "y" => 365.25 * 86400e9,
        _ => return Err(fail()),
    };
    let nanos = value * nanos_per_unit;
    if nanos > u64::MAX as f64 / 2.0 {
        return Err(format!("`{text}` is too long a duration"));
    }
    Ok(Duration::from_nanos(nanos.round() as u64))
}

/// A number of bytes, written with a unit: `"4KiB"`, `"16KiB"`, `"512B"`, `"1GB"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(pub u64);

impl ByteSize {
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

/// Parses a byte size such as `"4KiB"` or `"1.5MB"`.
pub fn parse_byte_size(text: &str) -> Result<ByteSize, String> {
    let fail = || {
        format!("`{text}` is not a size; use a number and a unit: B, KiB, MiB, GiB, TiB (or KB, MB, GB, TB for powers of 1000), e.g. \"4KiB\"")
    };
    let (value, unit) = split_number(text).ok_or_else(fail)?;
    let multiplier: f64 = match unit {
        "B" => 1.0,
        "KiB" | "K" | "k" => 1024.0,
        "MiB" | "M" => 1024.0 * 1024.0,
        "GiB" | "G" => 1024.0 * 1024.0 * 1024.0,
        "TiB" | "T" => 1024.0f64.powi(4),
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return Err(fail()),
    };
    let bytes = value * multiplier;
    if bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    Ok(ByteSize(bytes as u64))
}

/// For a size written with a decimal unit (`"4KB"`), its binary twin and a hint for an error
/// message: `("4KiB", "\"4KB\" is 4,000 bytes (KB is decimal, 1000); did you mean \"4KiB\"
/// (4,096 bytes)?")`. `None` for other sizes, and when the twin is not a whole number of bytes.
pub fn decimal_size_hint(text: &str) -> Option<(String, String)> {
    let (value, unit) = split_number(text)?;
    let (binary, power, base) = match unit {
        "KB" | "kB" => ("KiB", 1, "1000"),
        "MB" => ("MiB", 2, "1000^2"),
        "GB" => ("GiB", 3, "1000^3"),
        "TB" => ("TiB", 4, "1000^4"),
        _ => return None,
    };
    let decimal_bytes = value * 1000f64.powi(power);
    let binary_bytes = value * 1024f64.powi(power);
    if decimal_bytes.fract() != 0.0 || binary_bytes.fract() != 0.0 || binary_bytes >= u64::MAX as f64 {
        return None;
    }
    let number = text.trim()[..text.trim().len() - unit.len()].trim();
    let twin = format!("{number}{binary}");
    let hint = format!(
        "\"{}\" is {} bytes ({unit} is decimal, {base}); did you mean \"{twin}\" ({} bytes)?",
        text.trim(),
        grouped(decimal_bytes as u64),
        grouped(binary_bytes as u64)
    );
    Some((twin, hint))
}

/// `4096` as `4,096`.
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [
            ("TiB", 1u64 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        for (name, size) in units {
            if self.0 >= size && self.0.is_multiple_of(size) {
                return write!(f, "{}{name}", self.0 / size);
            }
        }
        write!(f, "{}B", self.0)
    }
}

/// A bus transfer rate in transfers per second, written `"400MT/s"` or `"1.2GT/s"`.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct TransferRate(pub f64);

impl TransferRate {
    pub fn per_second(self) -> f64 {
        self.0
    }
}

/// Parses a transfer rate such as `"400MT/s"`.
pub fn parse_transfer_rate(text: &str) -> Result<TransferRate, String> {
    let fail = || format!("`{text}` is not a transfer rate; use a number and MT/s or GT/s, e.g. \"400MT/s\"");
    let (value, unit) = split_number(text).ok_or_else(fail)?;
    let multiplier = match unit {
        "T/s" => 1.0,
        "kT/s" => 1e3,
        "MT/s" => 1e6,
        "GT/s" => 1e9,
        _ => return Err(fail()),
    };
    if value == 0.0 {
        return Err(format!("`{text}` is zero; a bus needs a positive rate"));
    }
    Ok(TransferRate(value * multiplier))
}

impl fmt::Display for TransferRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}MT/s", self.0 / 1e6)
    }
}

/// Serde and schema glue: each unit type reads from and writes to its string form.
macro_rules! unit_string_type {
    ($type:ty, $parse:path, $name:literal, $example:literal, $pattern:literal) => {
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visitor;
                impl de::Visitor<'_> for Visitor {
                    type Value = $type;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a {} string such as \"{}\"", $name, $example)
                    }
                    fn visit_str<E: de::Error>(self, text: &str) -> Result<$type, E> {
                        $parse(text).map_err(E::custom)
                    }
                }
                deserializer.deserialize_any(Visitor)
            }
        }
        impl JsonSchema for $type {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "examples": [$example],
                })
            }
        }
    };
}

unit_string_type!(
    Duration,
    parse_duration,
    "duration",
    "80us",
    r"^[0-9_.]+\s*(ns|us|µs|ms|s|min|h|d|y)$"
);
unit_string_type!(
    ByteSize,
    parse_byte_size,
    "byte_size",
    "4KiB",
    r"^[0-9_.]+\s*(B|KiB|MiB|GiB|TiB|K|k|M|G|T|KB|kB|MB|GB|TB)$"
);
unit_string_type!(
    TransferRate,
    parse_transfer_rate,
    "transfer_rate",
    "400MT/s",
    r"^[0-9_.]+\s*(T/s|kT/s|MT/s|GT/s)$"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("80us").unwrap(), Duration::from_micros(80));
        assert_eq!(parse_duration("1.2ms").unwrap(), Duration::from_micros(1200));
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("300ns").unwrap(), Duration::from_nanos(300));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("1y").unwrap(), Duration::from_secs(31_557_600));
        assert_eq!(parse_duration("0us").unwrap(), Duration::ZERO);
    }

    #[test]
    fn durations_without_unit_are_rejected() {
        let message = parse_duration("80").unwrap_err();
        assert!(message.contains("ns, us, ms, s, min, h, d or y"), "{message}");
        assert!(parse_duration("-1us").is_err());
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn sizes_parse_binary_and_decimal() {
        assert_eq!(parse_byte_size("16KiB").unwrap(), ByteSize(16384));
        assert_eq!(parse_byte_size("4KB").unwrap(), ByteSize(4000));
        assert_eq!(parse_byte_size("1GiB").unwrap(), ByteSize(1 << 30));
        assert_eq!(parse_byte_size("512B").unwrap(), ByteSize(512));
        assert!(parse_byte_size("16").is_err());
        assert!(parse_byte_size("0.5B").is_err());
        assert_eq!(ByteSize(16384).to_string(), "16KiB");
    }

    #[test]
    fn decimal_sizes_get_their_binary_twin_in_a_hint() {
        let (twin, hint) = decimal_size_hint("4KB").unwrap();
        assert_eq!(twin, "4KiB");
        assert_eq!(
            hint,
            "\"4KB\" is 4,000 bytes (KB is decimal, 1000); did you mean \"4KiB\" (4,096 bytes)?"
        );
        let (twin, hint) = decimal_size_hint("1.5MB").unwrap();
        assert_eq!(twin, "1.5MiB");
        assert!(
            hint.contains("1,500,000 bytes") && hint.contains("1,572,864 bytes"),
            "{hint}"
        );
        assert_eq!(decimal_size_hint("4KiB"), None);
        assert_eq!(decimal_size_hint("4k"), None);
        assert_eq!(decimal_size_hint("0.0001KB"), None);
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_transfer_rate("400MT/s").unwrap(), TransferRate(400e6));
        assert_eq!(parse_transfer_rate("1.2GT/s").unwrap(), TransferRate(1.2e9));
        assert!(parse_transfer_rate("400MHz").is_err());
        assert!(parse_transfer_rate("0MT/s").is_err());
    }
}
