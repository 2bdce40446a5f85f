//! The configuration error every layer reports: a dotted key path and what is wrong.
//!
//! Components check the parameters they own (e.g. `ftl::check_mapping`) and report with this type,
//! so it lives at the bottom of the crate; the scenario parser (`config`) re-exports it, and so
//! does the crate root (`ssdtwin_core::ConfigError`).

use std::fmt;

/// A configuration problem, with the dotted key path it concerns (empty for file-level problems).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted key path, e.g. `host.queue_depth`; empty when the problem is not tied to a key.
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// `Ok` when `ok`; otherwise the range error every parameter check reports: the key, the value
/// and what is allowed.
pub fn check_range(ok: bool, key: &str, value: impl fmt::Display, allowed: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(
            key,
            format!("{value} is out of range; allowed: {allowed}"),
        ))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}`: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}
