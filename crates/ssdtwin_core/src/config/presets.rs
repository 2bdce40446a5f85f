//! Drive presets: TOML files in `configs/drives/`, compiled into the library.
//!
//! A preset holds the `[host]`, `[controller]`, `[flash]`, `[ftl]`, `[power]` and `[thermal]` tables of a drive from a
//! paper (and `[buffer]` and `[plp]` when the paper states its DRAM and its protection, `[reliability]` when its ECC codeword is not the default), with a `description` line; a scenario names one with `drive = "..."` and overrides any
//! key. A `drive` that is not a preset name is read as a path to a TOML file of the same shape.

use std::path::Path;

use super::locate::{syntax_error, Written};
use crate::base::error::ConfigError;

/// A built-in drive preset.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub toml: &'static str,
}

macro_rules! preset {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../../../configs/drives/", $name, ".toml")),
        )
    };
}

const PRESET_FILES: [(&str, &str); 11] = [
    preset!("enterprise_tlc"),
    preset!("iiot_64gb"),
    preset!("iiot_512gb"),
    preset!("cho_512gb"),
    preset!("dawid_512gb"),
    preset!("samsung_pm9a3"),
    preset!("kioxia_cd6r"),
    preset!("micron_9100max"),
    preset!("client_tlc"),
    preset!("client_qlc"),
    preset!("datacenter_qlc"),
];

/// The tables a drive file may hold.
const DRIVE_TABLES: [&str; 11] = [
    "host",
    "controller",
    "flash",
    "ftl",
    "workload",
    "power",
    "thermal",
    "buffer",
    "plp",
    "slc_cache",
    "reliability",
];

/// All built-in presets, in a stable order.
pub fn presets() -> Vec<Preset> {
    PRESET_FILES
        .iter()
        .map(|&(name, toml)| Preset {
            name,
            description: description_of(toml),
            toml,
        })
        .collect()
}

/// The names of the built-in presets.
pub fn preset_names() -> Vec<&'static str> {
    PRESET_FILES.iter().map(|&(name, _)| name).collect()
}

fn description_of(toml: &'static str) -> &'static str {
    toml.lines()
        .find_map(|line| line.strip_prefix("description = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or("")
}

/// The table of preset `drive`: a built-in name, or a path relative to `base_dir` (whose text
/// then joins `files`, to locate errors in it).
pub(super) fn load_preset(drive: &str, base_dir: &Path, files: &mut Vec<Written>) -> Result<toml::Table, ConfigError> {
    let (text, origin) = match PRESET_FILES.iter().find(|(name, _)| *name == drive) {
        Some((_, text)) => (text.to_string(), format!("preset {drive}")),
        None if drive.ends_with(".toml") || drive.contains('/') => {
            let path = base_dir.join(drive);
            let text = crate::base::files::read_text(&path).map_err(|error| {
                ConfigError::new("drive", format!("cannot read drive file {}: {error}", path.display()))
            })?;
            (text, path.display().to_string())
        }
        None => {
            return Err(ConfigError::new(
                "drive",
                format!(
                    "`{drive}` is not a preset ({}) nor a path to a .toml file",
                    preset_names().join(", ")
                ),
            ))
        }
    };
    let from_file = !origin.starts_with("preset ");
    let mut table: toml::Table = toml::from_str(&text)
        .map_err(|error| syntax_error("drive", &origin, from_file.then_some(origin.as_str()), &text, &error))?;
    if from_file {
        files.push(Written {
            file: origin.clone(),
            text,
            prefix: "drive.",
        });
    }
    table.remove("description");
    if let Some(key) = table.keys().find(|key| !DRIVE_TABLES.contains(&key.as_str())) {
        return Err(ConfigError::new(
            format!("drive.{key}"),
            format!(
                "{}a drive file holds only [host], [controller], [flash], [ftl], [workload], [power], [thermal], [buffer], [plp], [reliability] and description",
                // A drive file's error carries its place (`locate.rs`); a built-in preset's names it.
                if from_file { String::new() } else { format!("{origin}: ") }
            ),
        ));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_a_description_and_parses() {
        for preset in presets() {
            assert!(!preset.description.is_empty(), "{} lacks a description", preset.name);
            load_preset(preset.name, Path::new("."), &mut Vec::new()).unwrap();
        }
    }
}
