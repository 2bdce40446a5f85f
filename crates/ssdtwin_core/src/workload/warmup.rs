//! `workload.warmup`: the start of a run that is not measured, as fio's `ramp_time`. A count of
//! commands (`warmup = 50000`, an integer as `io_count` is) or a time (`warmup = "500ms"`, a
//! duration string as every time of the scenario is); 0 turns it off. The warm-up runs in addition
//! to `io_count` (or `duration`): the measured part is as long as without it.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::base::time::Duration;
use crate::base::units::parse_duration;

/// The unmeasured start of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Warmup {
    /// No warm-up: everything is measured.
    #[default]
    Off,
    /// The first this many host completions are not measured [commands].
    Commands(u64),
    /// Completions before this instant of simulated time are not measured [duration].
    Time(Duration),
}

impl Warmup {
    /// Reads an integer count or a duration string; a string of digits alone is a count.
    fn from_text(text: &str) -> Result<Warmup, String> {
        let digits: String = text.trim().chars().filter(|&c| c != '_').collect();
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            return digits
                .parse::<u64>()
                .map(Warmup::from_count)
                .map_err(|_| format!("`{text}` is too many commands"));
        }
        parse_duration(text)
            .map(|duration| {
                if duration == Duration::ZERO {
                    Warmup::Off
                } else {
                    Warmup::Time(duration)
                }
            })
            .map_err(|_| {
                format!("`{text}` is neither a count of commands (e.g. 50000) nor a duration (e.g. \"500ms\")")
            })
    }

    fn from_count(count: u64) -> Warmup {
        if count == 0 {
            Warmup::Off
        } else {
            Warmup::Commands(count)
        }
    }

    pub fn is_off(self) -> bool {
        self == Warmup::Off
    }
}

impl fmt::Display for Warmup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warmup::Off => write!(f, "0"),
            Warmup::Commands(count) => write!(f, "{count}"),
            Warmup::Time(duration) => write!(f, "{duration}"),
        }
    }
}

impl Serialize for Warmup {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Warmup::Off => serializer.serialize_u64(0),
            Warmup::Commands(count) => serializer.serialize_u64(*count),
            Warmup::Time(_) => serializer.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Warmup {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Warmup;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a count of commands such as 50000 or a duration such as \"500ms\"")
            }
            fn visit_u64<E: de::Error>(self, count: u64) -> Result<Warmup, E> {
                Ok(Warmup::from_count(count))
            }
            fn visit_i64<E: de::Error>(self, count: i64) -> Result<Warmup, E> {
                u64::try_from(count)
                    .map(Warmup::from_count)
                    .map_err(|_| E::custom(format!("{count} commands: a warm-up is 0 or more commands")))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Warmup, E> {
                Warmup::from_text(text).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JsonSchema for Warmup {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("warmup")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "oneOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": r"^[0-9_.]+\s*(ns|us|µs|ms|s|min|h|d|y)?$"},
            ],
            "examples": [50000, "500ms"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Result<Warmup, String> {
        #[derive(Deserialize)]
        struct Holder {
            warmup: Warmup,
        }
        toml::from_str::<Holder>(&format!("warmup = {value}"))
            .map(|holder| holder.warmup)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn integers_and_digit_strings_are_commands_unit_strings_are_times() {
        assert_eq!(parse("50000").unwrap(), Warmup::Commands(50_000));
        assert_eq!(parse("50_000").unwrap(), Warmup::Commands(50_000));
        assert_eq!(parse("\"50000\"").unwrap(), Warmup::Commands(50_000));
        assert_eq!(parse("\"500ms\"").unwrap(), Warmup::Time(Duration::from_millis(500)));
        assert_eq!(parse("0").unwrap(), Warmup::Off);
        assert_eq!(parse("\"0s\"").unwrap(), Warmup::Off);
    }

    #[test]
    fn negative_counts_and_unitless_fractions_are_refused_with_the_allowed_forms() {
        assert!(parse("-5").unwrap_err().contains("0 or more commands"));
        let error = parse("\"5 parsecs\"").unwrap_err();
        assert!(
            error.contains("count of commands") && error.contains("500ms"),
            "{error}"
        );
        assert!(parse("1.5").is_err(), "a float is neither a count nor a duration");
    }

    #[test]
    fn serializes_back_to_its_own_form() {
        assert_eq!(serde_json::to_value(Warmup::Commands(7)).unwrap(), serde_json::json!(7));
        assert_eq!(serde_json::to_value(Warmup::Off).unwrap(), serde_json::json!(0));
        let time = serde_json::to_value(Warmup::Time(Duration::from_millis(500))).unwrap();
        assert_eq!(
            parse(&time.to_string()).unwrap(),
            Warmup::Time(Duration::from_millis(500))
        );
    }
}
