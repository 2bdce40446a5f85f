//! The scenario parser, the outermost layer: TOML text, drive presets, `--set` overrides, TOML
//! merge, the JSON schema and validation.
//!
//! Resolution order, later wins: struct defaults < drive preset < scenario file < overrides.
//! Every failure is a [`ConfigError`] naming the key path, the value and what is allowed, and,
//! when the key was read from a file the user named, the file, line and column (`locate.rs`).
//! `workload.io_count` and `workload.duration` are settled per layer (`run_end.rs`).
//!
//! The parameters themselves are declared by the layers that use them (`flash/params.rs`,
//! `ftl/params.rs`, ...; the aggregate [`Scenario`] in `sim/scenario.rs`); they are re-exported
//! here so `ssdtwin_core::config::HostMode` and the like keep working. No module below this one
//! imports it.

mod hint;
mod locate;
mod presets;
mod run_end;
mod validate;

use std::path::{Path, PathBuf};

pub use crate::base::error::ConfigError;
pub use crate::base::units::{self, ByteSize, TransferRate};
pub use crate::controller::buffer::params::*;
pub use crate::controller::params::*;
pub use crate::flash::params::*;
pub use crate::ftl::params::*;
pub use crate::host::params::*;
pub use crate::power::params::*;
pub use crate::power::plp::{PlpConfig, PowerLossConfig};
pub use crate::reliability::params::*;
pub use crate::sim::scenario::Scenario;
pub use crate::thermal::params::*;
pub use crate::thermal::throttle::params::*;
pub use crate::workload::params::*;
pub use presets::{preset_names, presets, Preset};

/// The built-in default scenario of `ssdtwin run` without a file: an enterprise TLC drive (the
/// program-suspend paper's preset, shrunk to 64 blocks per plane so it runs in seconds), 4 KiB
/// random 70/30 read/write at QD 32.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../../configs/default.toml");

/// Where a scenario comes from.
#[derive(Clone, Debug)]
pub enum ScenarioSource {
    /// The built-in default scenario.
    Default,
    /// A TOML file; preset paths in it are relative to its folder.
    File(PathBuf),
    /// TOML text; preset paths are relative to `base_dir`.
    Text { toml: String, base_dir: PathBuf },
    /// An already parsed table (e.g. a Python dict); preset paths are relative to `base_dir`.
    Table { table: toml::Table, base_dir: PathBuf },
}

/// One `--set key.path=value` override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub key: String,
    pub value: toml::Value,
}

impl Override {
    /// Parses `key.path=value`; the value is read as a TOML literal (`8`, `0.5`, `true`,
    /// `"4KiB"`, `[1, 2]`) and, failing that, taken as a bare string (`4KiB`, `read_first`).
    pub fn parse(text: &str) -> Result<Override, ConfigError> {
        let (key, raw) = text
            .split_once('=')
            .ok_or_else(|| ConfigError::new("", format!("override `{text}` is not of the form key.path=value")))?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|part| part.trim().is_empty()) {
            return Err(ConfigError::new("", format!("override `{text}` has an empty key")));
        }
        let raw = raw.trim();
        let value = toml::from_str::<toml::Table>(&format!("value = {raw}"))
            .ok()
            .and_then(|mut table| table.remove("value"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        Ok(Override {
            key: key.to_string(),
            value,
        })
    }

    /// An override from a JSON value (the Python API's keyword arguments).
    pub fn from_json(key: &str, value: serde_json::Value) -> Result<Override, ConfigError> {
        Ok(Override {
            key: key.to_string(),
            value: json_to_toml(key, value)?,
        })
    }
}

/// Converts JSON to TOML; `null` has no TOML form and is an error naming the key.
pub fn json_to_toml(key: &str, value: serde_json::Value) -> Result<toml::Value, ConfigError> {
    use serde_json::Value as J;
    Ok(match value {
        J::Null => return Err(ConfigError::new(key, "None/null is not a valid value")),
        J::Bool(flag) => toml::Value::Boolean(flag),
        J::Number(number) => match number.as_i64() {
            Some(integer) => toml::Value::Integer(integer),
            None => toml::Value::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(text) => toml::Value::String(text),
        J::Array(items) => toml::Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(index, item)| json_to_toml(&format!("{key}[{index}]"), item))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(fields) => {
            let mut table = toml::Table::new();
            for (name, item) in fields {
                let path = if key.is_empty() {
                    name.clone()
                } else {
                    format!("{key}.{name}")
                };
                table.insert(name, json_to_toml(&path, item)?);
            }
            toml::Value::Table(table)
        }
    })
}

/// Loads, merges, overrides and validates a scenario. An error about a key read from a file the
/// user named (scenario file, drive file given by path) carries the key's place in that file.
pub fn load(source: &ScenarioSource, overrides: &[Override]) -> Result<Scenario, ConfigError> {
    let mut files = Vec::new();
    load_layers(source, overrides, &mut files)
        .map_err(|error| locate::locate(error, overrides.iter().map(|item| item.key.as_str()), &files))
}

/// [`load`], keeping in `files` the text of the files read, topmost layer first.
fn load_layers(
    source: &ScenarioSource,
    overrides: &[Override],
    files: &mut Vec<locate::Written>,
) -> Result<Scenario, ConfigError> {
    let (mut table, base_dir) = match source {
        ScenarioSource::Default => {
            let mut table = parse_toml(DEFAULT_SCENARIO, "built-in default scenario")?;
            if overrides.iter().any(|item| item.key == "drive") {
                // The demo shrink belongs to the default drive; another preset runs at its own size.
                table.remove("flash");
            }
            (table, PathBuf::from("."))
        }
        ScenarioSource::File(path) => {
            let file = path.display().to_string();
            let text = crate::base::files::read_text(path)
                .map_err(|error| ConfigError::new("", format!("cannot read scenario file {file}: {error}")))?;
            let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let table =
                toml::from_str(&text).map_err(|error| locate::syntax_error("", &file, Some(&file), &text, &error))?;
            files.push(locate::Written { file, text, prefix: "" });
            (table, base_dir)
        }
        ScenarioSource::Text { toml, base_dir } => (parse_toml(toml, "scenario")?, base_dir.clone()),
        ScenarioSource::Table { table, base_dir } => (table.clone(), base_dir.clone()),
    };
    if let Some((key, value)) = run_end::implied(&table) {
        set_path(&mut table, key, value)?;
    }
    // Overrides set together one layer, whose run-end choice (`run_end.rs`) goes with them.
    let mut layer = toml::Table::new();
    for item in overrides {
        // An override that cannot be set reports its error when it is applied below.
        let _ = set_path(&mut layer, &item.key, item.value.clone());
    }
    let overrides: Vec<Override> = overrides
        .iter()
        .cloned()
        .chain(run_end::implied(&layer).map(|(key, value)| Override {
            key: key.to_string(),
            value,
        }))
        .collect();
    for item in &overrides {
        set_path(&mut table, &item.key, item.value.clone())?;
    }
    let drive = match table.get("drive") {
        None => Scenario::default().drive,
        Some(toml::Value::String(name)) => name.clone(),
        Some(other) => {
            return Err(ConfigError::new(
                "drive",
                format!("expected a preset name or a path, got `{other}`"),
            ))
        }
    };
    let mut merged = presets::load_preset(&drive, &base_dir, files)?;
    if let Some((key, value)) = run_end::implied(&merged) {
        set_path(&mut merged, key, value)?;
    }
    merge(&mut merged, table);
    // Overrides win over the preset too, even when the scenario file did not mention the key.
    for item in &overrides {
        set_path(&mut merged, &item.key, item.value.clone())?;
    }
    let check = |table: &toml::Table| -> Result<Scenario, ConfigError> {
        let mut scenario = from_table(table)?;
        resolve_workload_paths(&mut scenario, &base_dir);
        validate::validate(&scenario)?;
        Ok(scenario)
    };
    check(&merged).map_err(|error| hint::decimal_size(error, &merged, check))
}

/// Makes the trace and fio job paths absolute, relative to the scenario file's folder, so the
/// resolved config names the files that were read.
fn resolve_workload_paths(scenario: &mut Scenario, base_dir: &Path) {
    let flow_traces = scenario
        .workload
        .flows
        .iter_mut()
        .filter_map(|flow| flow.trace.as_mut().map(|trace| &mut trace.path));
    let paths = [&mut scenario.workload.trace.path, &mut scenario.workload.fio.job];
    for path in paths.into_iter().chain(flow_traces) {
        if !path.is_empty() && Path::new(path.as_str()).is_relative() {
            *path = base_dir.join(path.as_str()).display().to_string();
        }
    }
}

/// Deserializes a merged table, naming the key path of the first error.
fn from_table(table: &toml::Table) -> Result<Scenario, ConfigError> {
    let text = toml::to_string(table).map_err(|error| ConfigError::new("", error.to_string()))?;
    let deserializer = toml::Deserializer::parse(&text).map_err(|error| ConfigError::new("", error.to_string()))?;
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let key = error.path().to_string();
        let key = if key == "." { String::new() } else { key };
        let message = clean_serde_message(&error.inner().to_string());
        ConfigError::new(key, message)
    })
}

/// Strips the TOML span decoration from a serde message, keeping its first line.
fn clean_serde_message(message: &str) -> String {
    let message = message.trim();
    let last = message.lines().rfind(|line| !line.trim().is_empty()).unwrap_or(message);
    let first = message.lines().next().unwrap_or(message);
    let text = if first.starts_with("TOML parse error") {
        last
    } else {
        first
    };
    text.trim().to_string()
}

fn parse_toml(text: &str, origin: &str) -> Result<toml::Table, ConfigError> {
    toml::from_str(text).map_err(|error| locate::syntax_error("", origin, None, text, &error))
}

/// Sets `a.b.c = value`, creating tables on the way.
fn set_path(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), ConfigError> {
    let parts: Vec<&str> = key.split('.').collect();
    let mut current = table;
    for (depth, part) in parts[..parts.len() - 1].iter().enumerate() {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(inner) => inner,
            _ => {
                let prefix = parts[..=depth].join(".");
                return Err(ConfigError::new(
                    prefix,
                    format!("is a value, not a table, so `{key}` cannot be set"),
                ));
            }
        };
    }
    current.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// Deep merge: tables merge key by key, anything else in `overlay` replaces `base`.
fn merge(base: &mut toml::Table, overlay: toml::Table) {
    for (key, value) in overlay {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(overlay_inner)) => merge(inner, overlay_inner),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// The JSON schema of the scenario file.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Scenario)).expect("a schema is always valid JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Scenario, ConfigError> {
        load(
            &ScenarioSource::Text {
                toml: text.to_string(),
                base_dir: PathBuf::from("."),
            },
            &[],
        )
    }

    #[test]
    fn default_scenario_loads() {
        let scenario = load(&ScenarioSource::Default, &[]).unwrap();
        assert_eq!(scenario.drive, "enterprise_tlc");
        assert_eq!(scenario.host.queue_depth, 32);
    }

    #[test]
    fn unknown_key_names_its_path() {
        let error = load_text("[host]\nqueue_dept = 4\n").unwrap_err();
        assert_eq!(error.key, "host.queue_dept");
        assert!(error.message.contains("unknown field"), "{error}");
        assert!(error.message.contains("queue_depth"), "lists the allowed keys: {error}");
    }

    #[test]
    fn wrong_type_names_key_and_value() {
        let error = load_text("[host]\nqueue_depth = \"deep\"\n").unwrap_err();
        assert_eq!(error.key, "host.queue_depth");
        assert!(error.message.contains("deep"), "{error}");
    }

    #[test]
    fn bad_unit_names_key() {
        let error = load_text("[flash]\nt_erase = \"5\"\n").unwrap_err();
        assert_eq!(error.key, "flash.t_erase");
        assert!(error.message.contains("ns, us, ms, s, min, h, d or y"), "{error}");
    }

    #[test]
    fn per_page_type_item_error_names_item() {
        let error = load_text("[flash]\nt_read = [\"1us\", \"2\", \"3us\"]\n").unwrap_err();
        assert_eq!(error.key, "flash.t_read");
        assert!(error.message.contains("item 1"), "{error}");
    }

    #[test]
    fn unknown_enum_value_lists_allowed() {
        let error = load_text("[controller]\nscheduler = \"lifo\"\n").unwrap_err();
        assert_eq!(error.key, "controller.scheduler");
        assert!(error.message.contains("read_first"), "{error}");
    }

    #[test]
    fn overrides_apply_after_file_and_preset() {
        let overrides = [
            Override::parse("flash.channels=8").unwrap(),
            Override::parse("controller.scheduler=read_first").unwrap(),
        ];
        let scenario = load(&ScenarioSource::Default, &overrides).unwrap();
        assert_eq!(scenario.flash.channels, 8);
        assert_eq!(scenario.controller.scheduler, SchedulerKind::ReadFirst);
    }

    #[test]
    fn default_scenario_with_another_drive_keeps_that_drive_size() {
        let scenario = load(&ScenarioSource::Default, &[Override::parse("drive=iiot_64gb").unwrap()]).unwrap();
        assert_eq!(
            scenario.flash.blocks_per_plane, 1024,
            "the preset's size, not the demo shrink"
        );
        assert_eq!(scenario.flash.channels, 1);
        let default = load(&ScenarioSource::Default, &[]).unwrap();
        assert_eq!(default.flash.blocks_per_plane, 64);
    }

    #[test]
    fn override_parse_reads_literals_and_bare_strings() {
        assert_eq!(Override::parse("a.b=8").unwrap().value, toml::Value::Integer(8));
        assert_eq!(Override::parse("a.b=0.5").unwrap().value, toml::Value::Float(0.5));
        assert_eq!(
            Override::parse("a=4KiB").unwrap().value,
            toml::Value::String("4KiB".into())
        );
        assert!(Override::parse("novalue").is_err());
        assert!(Override::parse("a..b=1").is_err());
    }

    #[test]
    fn override_into_a_value_is_an_error() {
        let error = load(&ScenarioSource::Default, &[Override::parse("seed.x=1").unwrap()]).unwrap_err();
        assert_eq!(error.key, "seed");
    }

    #[test]
    fn unknown_preset_lists_presets() {
        let error = load_text("drive = \"nope\"\n").unwrap_err();
        assert_eq!(error.key, "drive");
        assert!(error.message.contains("enterprise_tlc"), "{error}");
    }

    #[test]
    fn schema_lists_sections() {
        let schema = schema().to_string();
        for key in [
            "queue_depth",
            "frame_buffer",
            "blocks_per_plane",
            "gc_policy",
            "read_fraction",
        ] {
            assert!(schema.contains(key), "schema lacks {key}");
        }
    }
}
