//! Unit tests of the range checks: each failure names its key, value and range.

use crate::base::error::ConfigError;
use crate::config::{load, Override, ScenarioSource};

fn error_for(setting: &str) -> ConfigError {
    load(&ScenarioSource::Default, &[Override::parse(setting).unwrap()]).unwrap_err()
}

#[test]
fn out_of_range_values_name_key_value_and_range() {
    let error = error_for("host.queue_depth=0");
    assert_eq!(error.key, "host.queue_depth");
    assert!(
        error.message.contains('0') && error.message.contains("1 to 65535"),
        "{error}"
    );

    let error = error_for("ftl.over_provisioning=1.5");
    assert_eq!(error.key, "ftl.over_provisioning");
    assert!(error.message.contains("1.5"), "{error}");

    let error = error_for("workload.read_fraction=-0.1");
    assert_eq!(error.key, "workload.read_fraction");

    let error = error_for("host.pcie_lanes=3");
    assert!(error.message.contains("1, 2, 4, 8 or 16"), "{error}");
}

#[test]
fn sequential_fraction_is_a_fraction_of_a_random_pattern() {
    let error = error_for("workload.sequential_fraction=1.5");
    assert_eq!(error.key, "workload.sequential_fraction");
    assert!(error.message.contains("1.5"), "{error}");

    let sequential = [
        Override::parse("workload.pattern=\"sequential\"").unwrap(),
        Override::parse("workload.sequential_fraction=0.5").unwrap(),
    ];
    let error = load(&ScenarioSource::Default, &sequential).unwrap_err();
    assert_eq!(error.key, "workload.sequential_fraction");
    assert!(error.message.contains("every command is sequential"), "{error}");

    let mixed = [Override::parse("workload.sequential_fraction=0.019").unwrap()];
    assert!(load(&ScenarioSource::Default, &mixed).is_ok());
}

#[test]
fn per_page_type_list_must_match_cell() {
    let error = error_for("flash.t_read=[\"50us\", \"60us\"]");
    assert_eq!(error.key, "flash.t_read");
    assert!(error.message.contains("3"), "{error}");
}

#[test]
fn power_errors_name_their_key() {
    let error = error_for("power.regulator_efficiency=1.5");
    assert_eq!(error.key, "power.regulator_efficiency");
    assert!(
        error.message.contains("1.5") && error.message.contains("(0, 1]"),
        "{error}"
    );

    let error = error_for("power.program_profile=[[0.5, 2.0], [0.5, 0.5]]");
    assert_eq!(error.key, "power.program_profile");
    assert!(error.message.contains("mean factor of 1.25"), "{error}");

    let error = error_for("power.read_profile=[[0.5, 1.0]]");
    assert!(error.message.contains("summing to 0.5"), "{error}");

    let error = error_for("power.icc_program_ma=[10.0, 20.0]");
    assert_eq!(error.key, "power.icc_program_ma");
    assert!(error.message.contains("3"), "{error}");

    let error = error_for("power.isb_ua=-1.0");
    assert_eq!(error.key, "power.isb_ua");
}

#[test]
fn block_size_must_be_a_multiple_of_the_mapping_unit() {
    let error = error_for("workload.block_size=\"6KiB\"");
    assert_eq!(error.key, "workload.block_size");
    assert!(error.message.contains("4KiB"), "{error}");
}
