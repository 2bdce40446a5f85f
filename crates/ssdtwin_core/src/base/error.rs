//! The configuration error every layer reports: a dotted key path, what is wrong and, for a key
//! read from a file, where it is written (`scenario.toml:7:1`).
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
    /// Where the offending key (or TOML syntax error) is written, when it comes from a file the
    /// user named: a scenario file or a drive file given by path. `None` for overrides, dicts,
    /// built-in files and problems not tied to one place.
    pub location: Option<Location>,
}

/// A place in a text file: its path as given, and the 1-based line and column (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            message: message.into(),
            location: None,
        }
    }

    /// The same error, pointing at `location`.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
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
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}`: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}
