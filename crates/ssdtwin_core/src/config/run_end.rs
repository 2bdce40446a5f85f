//! How a run ends: after `workload.io_count` commands, after `workload.duration` of simulated
//! time, or at whichever of the two comes first.
//!
//! The two keys are one choice, made by the topmost layer (drive file < scenario file <
//! overrides) that sets either of them:
//!
//! - a layer that sets a non-zero `duration` without `io_count` ends the run by time alone: the
//!   `io_count` of the layers below (the default scenario's 1,000,000, the built-in 200,000) is
//!   cleared to 0;
//! - a layer that sets a non-zero `io_count` without `duration` ends it by count alone: a
//!   `duration` below is cleared to 0;
//! - a layer that sets both keeps both, and the run ends at the first reached (0 turns a bound
//!   off).
//!
//! So `--set workload.duration=50ms` on the default scenario runs 50 ms, and
//! `--set workload.io_count=1000` on a time-bounded study runs 1,000 commands.

use crate::base::units::parse_duration;

/// The setting (key path, value) this layer implies for the other key of the pair, if it sets
/// only one of them.
pub(super) fn implied(layer: &toml::Table) -> Option<(&'static str, toml::Value)> {
    let workload = layer.get("workload")?.as_table()?;
    let count = workload.get("io_count");
    let duration = workload.get("duration");
    match (count, duration) {
        (None, Some(duration)) if !is_zero_duration(duration) => Some(("workload.io_count", toml::Value::Integer(0))),
        (Some(count), None) if *count != toml::Value::Integer(0) => {
            Some(("workload.duration", toml::Value::String("0s".to_string())))
        }
        _ => None,
    }
}

/// A duration value that reads as zero (a malformed one counts as set: its error comes later).
fn is_zero_duration(value: &toml::Value) -> bool {
    value
        .as_str()
        .and_then(|text| parse_duration(text).ok())
        .is_some_and(|duration| duration.as_nanos() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_duration_alone_clears_the_count_and_a_count_alone_the_duration() {
        let implied_by = |text: &str| implied(&layer(text)).map(|(key, value)| (key.to_string(), value));
        assert_eq!(
            implied_by("[workload]\nduration = \"50ms\""),
            Some(("workload.io_count".into(), toml::Value::Integer(0)))
        );
        assert_eq!(
            implied_by("[workload]\nio_count = 10"),
            Some(("workload.duration".into(), toml::Value::String("0s".into())))
        );
        assert_eq!(implied_by("[workload]\nio_count = 10\nduration = \"1s\""), None);
        assert_eq!(implied_by("[workload]\nduration = \"0s\""), None);
        assert_eq!(implied_by("[workload]\nio_count = 0"), None);
        assert_eq!(implied_by("seed = 1"), None);
    }
}
