//! What a new user meets first: how `workload.duration` and `workload.io_count` end a run, what a
//! trace replay does with the trace's timestamps, scenario errors that name the file, line and
//! column of the key, and the hint for a decimal size (`"4KB"`) where a binary one was meant.

use std::path::{Path, PathBuf};

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::{load, ConfigError, Override, Report, Scenario, ScenarioSource};

use super::{folder, run, scenario, scenario_from, BASE};

fn overrides(settings: &[&str]) -> Vec<Override> {
    settings.iter().map(|text| Override::parse(text).unwrap()).collect()
}

fn load_file(path: &Path, settings: &[&str]) -> Result<Scenario, ConfigError> {
    load(&ScenarioSource::File(path.to_path_buf()), &overrides(settings))
}

/// Longest a read of [`BASE`] takes unloaded (QD 1): what a command issued just before the end of
/// a time-bounded run adds to its simulated time. Generous: the slowest page type's read plus
/// 1 ms for the channel, PCIe and overheads, which take tens of microseconds.
fn last_command_bound_s(scenario: &Scenario) -> f64 {
    scenario.flash.t_read.for_type(2).as_secs_f64() + 1e-3
}

#[test]
fn a_duration_set_alone_ends_the_run_at_that_simulated_time() {
    // BASE sets io_count = 10000 (about 0.8 s of QD 1 reads); the override sets only duration.
    let scenario = scenario(&["workload.duration=50ms"]);
    assert_eq!(scenario.workload.io_count, 0, "the duration alone decides");
    let report = run(&scenario);
    assert!(
        report.simulated_time_s >= 0.05 && report.simulated_time_s < 0.05 + last_command_bound_s(&scenario),
        "ended at {} s",
        report.simulated_time_s
    );
    assert!(report.host_ios > 0 && report.host_ios < 10_000, "{}", report.host_ios);
}

#[test]
fn a_duration_in_a_file_without_io_count_clears_the_built_in_count() {
    let text = BASE.replace("io_count = 10000", "duration = \"20ms\"");
    let scenario = scenario_from(&text, &[] as &[&str]);
    assert_eq!(
        (scenario.workload.io_count, scenario.workload.duration),
        (0, Duration::from_millis(20))
    );
}

#[test]
fn a_count_set_alone_clears_a_duration_below_it() {
    let text = BASE.replace("io_count = 10000", "io_count = 0\nduration = \"1s\"");
    let scenario = scenario_from(&text, &["workload.io_count=200"]);
    assert_eq!(scenario.workload.duration, Duration::ZERO);
    assert_eq!(run(&scenario).host_ios, 200);
}

#[test]
fn with_both_set_the_first_bound_reached_ends_the_run() {
    // 200 QD-1 reads take about 16 ms: the count comes first.
    let by_count = run(&scenario(&["workload.io_count=200", "workload.duration=1s"]));
    assert_eq!(by_count.host_ios, 200);
    assert!(by_count.simulated_time_s < 1.0);
    // 10000 reads take about 0.8 s: 20 ms comes first.
    let scenario = scenario(&["workload.io_count=10000", "workload.duration=20ms"]);
    let by_time = run(&scenario);
    assert!(by_time.host_ios < 10_000, "{}", by_time.host_ios);
    assert!(
        by_time.simulated_time_s >= 0.02 && by_time.simulated_time_s < 0.02 + last_command_bound_s(&scenario),
        "{}",
        by_time.simulated_time_s
    );
}

#[test]
fn the_default_scenario_and_presets_keep_their_count() {
    let default = load(&ScenarioSource::Default, &[]).unwrap();
    assert_eq!(
        (default.workload.io_count, default.workload.duration),
        (1_000_000, Duration::ZERO),
        "configs/default.toml's io_count"
    );
    let timed = load(&ScenarioSource::Default, &overrides(&["workload.duration=50ms"])).unwrap();
    assert_eq!(
        (timed.workload.io_count, timed.workload.duration),
        (0, Duration::from_millis(50))
    );
    for name in ssdtwin_core::config::preset_names() {
        let preset = load(&ScenarioSource::Default, &overrides(&[&format!("drive={name}")])).unwrap();
        assert_eq!(
            (preset.workload.io_count, preset.workload.duration),
            (1_000_000, Duration::ZERO),
            "{name}"
        );
    }
}

/// A DiskSim trace of writes (time in ns): 0, 1 ms, then a jump of 50 ms, then `last`.
fn trace_scenario(dir: &Path, last: &str, settings: &[&str]) -> Result<Report, String> {
    let lines = format!("0 0 0 8 0\n1000000 0 8 8 0\n51000000 0 16 8 0\n{last}\n");
    std::fs::write(dir.join("t.trace"), lines).unwrap();
    let mut all = vec![
        "workload.kind=trace",
        "workload.trace.format=disksim",
        "workload.trace.path=t.trace",
    ];
    all.extend_from_slice(settings);
    let scenario = load(
        &ScenarioSource::Text {
            toml: BASE.to_string(),
            base_dir: dir.to_path_buf(),
        },
        &overrides(&all),
    )
    .unwrap();
    ssdtwin_core::run(&scenario, &mut |_| true).map_err(|error| error.to_string())
}

#[test]
fn a_timed_replay_counts_and_reports_a_50_ms_jump() {
    let dir = folder("jump");
    let report = trace_scenario(&dir.0, "52000000 0 24 8 0", &[]).unwrap();
    let stamps = report
        .workload
        .trace_timestamps
        .clone()
        .expect("a trace run reports its timestamps");
    assert!(stamps.used);
    assert_eq!((stamps.long_gaps, stamps.largest_gap_line, stamps.backward), (1, 3, 0));
    assert!((stamps.largest_gap_s - 0.05).abs() < 1e-12, "{}", stamps.largest_gap_s);
    assert!((stamps.span_s - 0.052).abs() < 1e-12, "{}", stamps.span_s);
    let warnings = report.workload.warnings.join("\n");
    assert!(
        warnings.contains("1 gap of 10 ms or more") && warnings.contains("largest gap 50 ms before line 3"),
        "{warnings}"
    );
    assert!(report.simulated_time_s > 0.052, "the replay idles through the gap");
}

#[test]
fn a_timestamp_going_backwards_is_an_error_naming_file_and_line_unless_lenient() {
    let dir = folder("backwards");
    let error = trace_scenario(&dir.0, "2000000 0 24 8 0", &[]).unwrap_err();
    assert!(
        error.contains("t.trace:4:") && error.contains("49 ms earlier than the request's on line 3"),
        "{error}"
    );
    let report = trace_scenario(&dir.0, "2000000 0 24 8 0", &["workload.trace.lenient=true"]).unwrap();
    let stamps = report.workload.trace_timestamps.clone().unwrap();
    assert_eq!((stamps.backward, stamps.first_backward_line), (1, 4));
    assert_eq!(report.host_ios, 4);
    assert!(report
        .workload
        .warnings
        .iter()
        .any(|warning| warning.contains("1 timestamp earlier")));
}

#[test]
fn a_closed_loop_replay_says_it_ignored_the_timestamps() {
    let dir = folder("closed");
    let report = trace_scenario(
        &dir.0,
        "2000000 0 24 8 0",
        &["workload.trace.replay=as_fast_as_possible"],
    )
    .unwrap();
    let stamps = report.workload.trace_timestamps.clone().unwrap();
    assert!(!stamps.used);
    assert_eq!(stamps.backward, 1);
    let warnings = report.workload.warnings.join("\n");
    assert!(
        warnings.contains("timestamps ignored (replay = \"as_fast_as_possible\""),
        "{warnings}"
    );
    assert!(
        report.simulated_time_s < 0.05,
        "no idle gap: {}",
        report.simulated_time_s
    );
    assert!(run(&scenario(&["workload.io_count=10"]))
        .workload
        .trace_timestamps
        .is_none());
}

/// A scenario file: BASE with `replace` swapped for `with`, in `dir`; its path and the 1-based
/// line of `with`'s first line.
fn scenario_file(dir: &Path, replace: &str, with: &str) -> (PathBuf, u32) {
    let text = BASE.replacen(replace, with, 1);
    let line = text[..text.find(with).unwrap()].matches('\n').count() as u32 + 1;
    let path = dir.join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    (path, line)
}

#[test]
fn a_typo_in_a_scenario_file_names_file_line_and_column() {
    let dir = folder("typo");
    let (path, line) = scenario_file(&dir.0, "queue_depth = 1", "queue_dept = 1");
    let error = load_file(&path, &[]).unwrap_err();
    assert_eq!(error.key, "host.queue_dept");
    let location = error.location.clone().expect("a key of a file has a place");
    assert_eq!(
        (location.file, location.line, location.column),
        (path.display().to_string(), line, 1)
    );
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "{}:{line}:1: `host.queue_dept`: unknown field",
            path.display()
        )),
        "{text}"
    );
    // A value out of range and a TOML syntax error are placed too.
    let (path, line) = scenario_file(&dir.0, "queue_depth = 1", "queue_depth = 0");
    assert_eq!(
        load_file(&path, &[]).unwrap_err().location.map(|place| place.line),
        Some(line)
    );
    let (path, line) = scenario_file(&dir.0, "queue_depth = 1", "queue_depth = = 1");
    let error = load_file(&path, &[]).unwrap_err();
    assert_eq!(error.location.map(|place| place.line), Some(line), "{}", error.message);
    assert!(error.message.starts_with("not valid TOML"), "{}", error.message);
    // An override of the bad key owns it: no place in the file.
    let (path, _) = scenario_file(&dir.0, "queue_depth = 1", "queue_depth = 0");
    let error = load_file(&path, &["host.queue_depth=0"]).unwrap_err();
    assert_eq!((error.key.as_str(), error.location), ("host.queue_depth", None));
}

#[test]
fn a_typo_in_a_drive_file_names_that_file() {
    let dir = folder("drive");
    std::fs::write(dir.0.join("my.toml"), "description = \"mine\"\n[flash]\nchanels = 4\n").unwrap();
    let (path, _) = scenario_file(&dir.0, "drive = \"enterprise_tlc\"", "drive = \"my.toml\"");
    let error = load_file(&path, &[]).unwrap_err();
    let location = error.location.expect("placed in the drive file");
    assert_eq!(
        (location.file, location.line, location.column),
        (dir.0.join("my.toml").display().to_string(), 3, 1)
    );
    std::fs::write(
        dir.0.join("my.toml"),
        "[flash]\nchannels = 2\n\n[hots]\nqueue_depth = 4\n",
    )
    .unwrap();
    let error = load_file(&path, &[]).unwrap_err();
    assert_eq!(error.key, "drive.hots");
    assert_eq!(error.location.map(|place| (place.line, place.column)), Some((4, 2)));
    // Named by an override, the drive file is still where its own keys are.
    let (path, _) = scenario_file(&dir.0, "queue_depth = 1", "queue_depth = 1");
    let error = load_file(&path, &["drive=my.toml"]).unwrap_err();
    assert_eq!(error.key, "drive.hots");
    assert_eq!(error.location.map(|place| (place.line, place.column)), Some((4, 2)));
}

const HINT: &str = "\"4KB\" is 4,000 bytes (KB is decimal, 1000); did you mean \"4KiB\" (4,096 bytes)?";

#[test]
fn a_decimal_block_size_that_fails_where_its_binary_twin_passes_says_so() {
    let source = ScenarioSource::Text {
        toml: BASE.to_string(),
        base_dir: PathBuf::from("."),
    };
    let error = load(&source, &overrides(&["workload.block_size=4KB"])).unwrap_err();
    assert_eq!(error.key, "workload.block_size");
    assert!(
        error.message.contains("a multiple of ftl.mapping_unit"),
        "{}",
        error.message
    );
    assert!(error.message.ends_with(HINT), "{}", error.message);
    let error = load(&source, &overrides(&["workload.bssplit=[[\"4KiB\", 1], [\"4KB\", 1]]"])).unwrap_err();
    assert_eq!(error.key, "workload.bssplit[1]");
    assert!(error.message.ends_with(HINT), "{}", error.message);
    // No hint where the binary twin fails too, or where no decimal unit was written.
    for (value, key) in [("2GB", "workload.block_size"), ("4000B", "workload.block_size")] {
        let error = load(&source, &overrides(&[&format!("{key}={value}")])).unwrap_err();
        assert!(!error.message.contains("did you mean"), "{value}: {}", error.message);
    }
}

#[test]
fn a_decimal_size_in_a_file_gets_the_hint_and_its_place() {
    let dir = folder("decimal");
    let (path, line) = scenario_file(&dir.0, "block_size = \"4KiB\"", "block_size = \"4KB\"");
    let error = load_file(&path, &[]).unwrap_err();
    assert!(error.message.ends_with(HINT), "{}", error.message);
    assert_eq!(error.location.map(|place| place.line), Some(line));
}

/// The 3D retention model is named as its table is, `retention_3d` (what the docs say); the name
/// serde's snake case gave it before, `retention3d`, still means the same model.
#[test]
fn the_retention_3d_model_is_named_as_its_table_and_the_old_name_still_works() {
    let named = scenario(&["reliability.model=\"retention_3d\""]);
    let old = scenario(&["reliability.model=\"retention3d\""]);
    assert_eq!(named.reliability.model, old.reliability.model);
    let resolved = serde_json::to_value(named.reliability.model).unwrap();
    assert_eq!(resolved, serde_json::json!("retention_3d"));
    let source = ScenarioSource::Text {
        toml: BASE.into(),
        base_dir: PathBuf::from("."),
    };
    let wrong = load(&source, &overrides(&["reliability.model=\"retention\""]));
    let message = wrong.unwrap_err().to_string();
    assert!(message.contains("retention_3d"), "{message}");
}
