//! Pointing a scenario error at the file, line and column where its key is written.
//!
//! A scenario is merged from layers (drive preset < scenario file < overrides) before it is
//! deserialized and checked, so an error knows its dotted key path but not where the key came
//! from. [`locate`] finds the topmost layer that sets the key: an override (no place: the key is
//! the user's own `--set`), else the scenario file, else a drive file given by path, and reads the
//! key's position from that file's text. TOML syntax errors carry their own position.

use crate::base::error::{ConfigError, Location};

/// The text of a file the user named (scenario or drive file), kept to locate its keys.
#[derive(Debug)]
pub(super) struct Written {
    /// The path as the user gave it (joined to the scenario's folder for drive files).
    pub file: String,
    pub text: String,
    /// Key paths of this file start with this prefix in errors (`drive.` for a drive file's
    /// own checks), besides their plain form.
    pub prefix: &'static str,
}

/// One step of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `workload.bssplit[0]` as `[Key(workload), Key(bssplit), Index(0)]`; `None` for a path that
/// has no place in a file (empty, or with a `?` of an unknown step).
pub(super) fn steps(key: &str) -> Option<Vec<Step<'_>>> {
    if key.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if name.is_empty() || name == "?" {
            return None;
        }
        steps.push(Step::Key(name));
        while let Some(inner) = rest.strip_prefix('[') {
            let (index, after) = inner.split_once(']')?;
            steps.push(Step::Index(index.parse().ok()?));
            rest = after;
        }
    }
    Some(steps)
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Byte offset in TOML `text` where the key (or array item) at `steps` is written; `None` when
/// the text does not set it.
fn offset_of(text: &str, steps: &[Step<'_>]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let document = DeTable::parse(text).ok()?;
    let mut value: Option<&toml::Spanned<DeValue<'_>>> = None;
    let mut offset = None;
    for step in steps {
        let found = match step {
            Step::Key(name) => {
                let table = match value.map(toml::Spanned::get_ref) {
                    None => document.get_ref(),
                    Some(DeValue::Table(inner)) => inner,
                    Some(_) => return None,
                };
                let (key, item) = table.iter().find(|(key, _)| key.get_ref() == name)?;
                offset = Some(key.span().start);
                item
            }
            Step::Index(index) => {
                let Some(DeValue::Array(items)) = value.map(toml::Spanned::get_ref) else {
                    return None;
                };
                let item = items.get(*index)?;
                offset = Some(item.span().start);
                item
            }
        };
        value = Some(found);
    }
    offset
}

/// Whether an override of `overridden` sets the key at `key` (or a table holding it).
fn overrides_key(overridden: &str, key: &str) -> bool {
    key.strip_prefix(overridden)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// `error` with the place of its key in the topmost file that sets it, when no override (of the
/// keys `overridden`) does. A key under a file's prefix (`drive.hosts`, a drive file's own
/// check) belongs to that file whatever the overrides.
pub(super) fn locate<'k>(
    error: ConfigError,
    mut overridden: impl Iterator<Item = &'k str>,
    files: &[Written],
) -> ConfigError {
    if error.location.is_some() {
        return error;
    }
    let prefixed = files.iter().find_map(|file| {
        let key = error
            .key
            .strip_prefix(file.prefix)
            .filter(|_| !file.prefix.is_empty())?;
        place(file, key)
    });
    let place = prefixed.or_else(|| {
        if overridden.any(|item| overrides_key(item, &error.key)) {
            return None;
        }
        files.iter().find_map(|file| place(file, &error.key))
    });
    match place {
        Some(location) => error.at(location),
        None => error,
    }
}

/// Where key path `key` is written in `file`, if it is.
fn place(file: &Written, key: &str) -> Option<Location> {
    let offset = offset_of(&file.text, &steps(key)?)?;
    let (line, column) = line_column(&file.text, offset);
    Some(Location {
        file: file.file.clone(),
        line,
        column,
    })
}

/// A TOML syntax error of `origin`: what the parser says, at its line and column when `file`
/// names a file the user gave.
pub(super) fn syntax_error(
    key: &str,
    origin: &str,
    file: Option<&str>,
    text: &str,
    error: &toml::de::Error,
) -> ConfigError {
    let what = error.message().lines().next().unwrap_or("").trim();
    match (file, error.span()) {
        (Some(file), Some(span)) => {
            let (line, column) = line_column(text, span.start);
            ConfigError::new(key, format!("not valid TOML: {what}")).at(Location {
                file: file.to_string(),
                line,
                column,
            })
        }
        _ => ConfigError::new(key, format!("{origin} is not valid TOML: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_split_keys_and_indices() {
        assert_eq!(
            steps("workload.bssplit[1]").unwrap(),
            [Step::Key("workload"), Step::Key("bssplit"), Step::Index(1)]
        );
        assert!(steps("").is_none());
        assert!(steps("a.?.b").is_none());
    }

    #[test]
    fn offsets_name_line_and_column_of_keys_and_items() {
        let text = "seed = 1\n\n[host]\nqueue_dept = 4\n[workload]\nbssplit = [[\"4KiB\", 1], [\"4KB\", 1]]\n";
        let at = |key: &str| offset_of(text, &steps(key).unwrap()).map(|offset| line_column(text, offset));
        assert_eq!(at("host.queue_dept"), Some((4, 1)));
        assert_eq!(at("seed"), Some((1, 1)));
        assert_eq!(at("workload.bssplit[1]"), Some((6, 25)));
        assert_eq!(at("host.queue_depth"), None);
        assert_eq!(at("seed.x"), None);
        let dotted = "host.queue_dept = 4\n";
        assert_eq!(
            offset_of(dotted, &steps("host.queue_dept").unwrap()).map(|offset| line_column(dotted, offset)),
            Some((1, 6))
        );
    }

    #[test]
    fn line_column_counts_characters_not_bytes() {
        assert_eq!(line_column("µµ = 1\nab = 2", 12), (2, 4));
        assert_eq!(line_column("µx", 1), (1, 1));
    }
}
