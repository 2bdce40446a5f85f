//! Hints added to a scenario error: a size written with a decimal unit (`"4KB"`, 4,000 bytes)
//! that fails a check its binary twin (`"4KiB"`, 4,096 bytes) would pass says so.

use super::locate::{steps, Step};
use crate::base::error::ConfigError;
use crate::base::units::decimal_size_hint;

/// The value at key path `key` of `table`, mutable.
fn value_at<'t>(table: &'t mut toml::Table, key: &str) -> Option<&'t mut toml::Value> {
    let steps = steps(key)?;
    let (Step::Key(first), rest) = steps.split_first()? else {
        return None;
    };
    let mut value = table.get_mut(*first)?;
    for step in rest {
        value = match (step, value) {
            (Step::Key(name), toml::Value::Table(inner)) => inner.get_mut(*name)?,
            (Step::Index(index), toml::Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    Some(value)
}

/// The strings of `value` that may be sizes: the value itself, or the items of an array (a
/// `bssplit` pair).
fn strings(value: &mut toml::Value) -> Vec<&mut String> {
    match value {
        toml::Value::String(text) => vec![text],
        toml::Value::Array(items) => items
            .iter_mut()
            .filter_map(|item| match item {
                toml::Value::String(text) => Some(text),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `error` with a hint when the value at its key is a decimal size whose binary twin passes
/// `check` for that key (the check then fails elsewhere or not at all).
pub(super) fn decimal_size<T>(
    mut error: ConfigError,
    merged: &toml::Table,
    check: impl Fn(&toml::Table) -> Result<T, ConfigError>,
) -> ConfigError {
    let mut probe = merged.clone();
    let count = value_at(&mut probe, &error.key).map_or(0, |value| strings(value).len());
    for index in 0..count {
        let mut trial = merged.clone();
        let Some(value) = value_at(&mut trial, &error.key) else {
            return error;
        };
        let Some(text) = strings(value).into_iter().nth(index) else {
            return error;
        };
        let Some((twin, hint)) = decimal_size_hint(text) else {
            continue;
        };
        *text = twin;
        let passes = match check(&trial) {
            Ok(_) => true,
            Err(other) => other.key != error.key,
        };
        if passes {
            error.message = format!("{}; {hint}", error.message);
            return error;
        }
    }
    error
}
