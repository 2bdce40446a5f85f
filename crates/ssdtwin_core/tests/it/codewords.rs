//! The ECC codeword agrees with what the channel moves (review finding 8): the LDPC limit assumes
//! `reliability.codeword` bytes per codeword, the channel moves `ftl.mapping_unit` +
//! `flash.parity_per_codeword` per mapping unit (one codeword each). With the reliability model
//! on, a scenario where they differ is refused naming the keys and values; every built-in preset
//! agrees (a preset with units larger than 4 KiB sets `[reliability]` to their sectors' sum).

use ssdtwin_core::config::preset_names;
use ssdtwin_core::{load, Override, ScenarioSource};

fn preset_with(drive: &str, settings: &[&str]) -> Result<ssdtwin_core::Scenario, ssdtwin_core::ConfigError> {
    let overrides: Vec<Override> = settings
        .iter()
        .map(|setting| Override::parse(setting).unwrap())
        .collect();
    let source = ScenarioSource::Text {
        toml: format!("drive = \"{drive}\"\n"),
        base_dir: ".".into(),
    };
    load(&source, &overrides)
}

#[test]
fn every_built_in_preset_moves_the_codeword_its_ecc_assumes() {
    let names = preset_names();
    assert!(names.len() >= 4, "{names:?}");
    for drive in names {
        let scenario = preset_with(drive, &["reliability.enabled=true"])
            .unwrap_or_else(|error| panic!("{drive} with the reliability model on: {error}"));
        let unit = scenario.ftl.mapping_unit.bytes();
        let moved = unit + scenario.flash.parity_per_codeword.bytes();
        // The LDPC figures of papers/000, Table 3: 4 KiB sectors of 4,320 B, one per 4 KiB of
        // the mapping unit (a 16 KiB unit moves four).
        assert_eq!(
            moved * 4096,
            4320 * unit,
            "{drive}: the channel moves {moved} B per {unit} B unit"
        );
        assert_eq!(scenario.reliability.codeword.bytes(), moved, "{drive}");
        assert_eq!(
            u64::from(scenario.reliability.correctable_bits) * 4096,
            220 * unit,
            "{drive}: 220 bits per 4,320 B sector"
        );
    }
}

#[test]
fn a_codeword_the_channel_does_not_move_is_refused_naming_both_keys_and_values() {
    let error = preset_with(
        "enterprise_tlc",
        &["reliability.enabled=true", "flash.parity_per_codeword=\"0B\""],
    )
    .expect_err("4,320 B codewords over a channel moving 4,096 B");
    assert_eq!(error.key, "reliability.codeword");
    let message = error.to_string();
    for part in [
        "4320 B",
        "ftl.mapping_unit (4096 B)",
        "flash.parity_per_codeword (0 B)",
        "reliability.codeword = \"4096B\"",
        "flash.parity_per_codeword = \"224B\"",
    ] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
}

#[test]
fn a_codeword_set_to_what_the_channel_moves_is_accepted() {
    let scenario = preset_with(
        "enterprise_tlc",
        &[
            "reliability.enabled=true",
            "flash.parity_per_codeword=\"448B\"",
            "reliability.codeword=\"4544B\"",
        ],
    )
    .expect("4,096 + 448 B agree");
    assert!((scenario.reliability.hard_limit() - 220.0 / (4544.0 * 8.0)).abs() < 1e-15);
}

#[test]
fn with_the_reliability_model_off_the_codeword_is_not_checked() {
    // The codeword only sets the LDPC limit: a drive without bit errors may move any parity.
    preset_with("enterprise_tlc", &["flash.parity_per_codeword=\"0B\""]).expect("reliability off");
}
