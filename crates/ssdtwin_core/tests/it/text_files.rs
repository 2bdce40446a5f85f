//! The 16 MiB cap on the text files a user names (`base/files.rs`), through the loader: a
//! scenario file one byte over it is refused naming the file and the cap, one a byte under loads.
//! (`base/files.rs` tests the reader itself at and around the cap.)

use std::path::Path;

use ssdtwin_core::base::files::MAX_TEXT_FILE_BYTES;
use ssdtwin_core::{load, ScenarioSource};

use super::folder;

/// A sparse file of `bytes` NUL bytes (no disk written).
fn sparse(path: &Path, bytes: u64) {
    std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
}

#[test]
fn a_scenario_file_over_the_cap_is_refused_naming_the_file_and_the_cap() {
    let scratch = folder("scenario-over");
    let path = scratch.0.join("huge_scenario.toml");
    sparse(&path, MAX_TEXT_FILE_BYTES + 1);
    let error = load(&ScenarioSource::File(path.clone()), &[]).expect_err("over the cap");
    assert_eq!(MAX_TEXT_FILE_BYTES, 16 << 20);
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()) && message.contains("16 MiB"),
        "{message}"
    );
}

#[test]
fn a_scenario_file_just_under_the_cap_loads() {
    let scratch = folder("scenario-under");
    let path = scratch.0.join("padded_scenario.toml");
    // A real scenario line, then a comment that brings the file to one byte under the cap.
    let head = "seed = 7\n# ";
    let padding = MAX_TEXT_FILE_BYTES as usize - 1 - head.len() - 1;
    let text = format!("{head}{}\n", "x".repeat(padding));
    assert_eq!(text.len() as u64, MAX_TEXT_FILE_BYTES - 1);
    std::fs::write(&path, text).unwrap();
    let scenario = load(&ScenarioSource::File(path), &[]).expect("under the cap, a valid scenario");
    assert_eq!(scenario.seed, 7);
}

#[test]
fn a_drive_file_over_the_cap_is_refused_naming_the_file_and_the_cap() {
    let scratch = folder("drive-over");
    let path = scratch.0.join("huge_drive.toml");
    sparse(&path, MAX_TEXT_FILE_BYTES + 1);
    let source = ScenarioSource::Text {
        toml: "drive = \"huge_drive.toml\"\n".to_string(),
        base_dir: scratch.0.clone(),
    };
    let error = load(&source, &[]).expect_err("over the cap");
    assert_eq!(error.key, "drive");
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string())
            && message.contains("16777217 bytes")
            && message.contains("16 MiB"),
        "{message}"
    );
}
