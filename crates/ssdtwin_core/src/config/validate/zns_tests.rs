//! The `[zns]` checks, through the scenario parser: off by default and unchecked when off; each
//! bad key named. The default scenario's drive: 128 dies of 2 planes, 4 MiB blocks (256 pages of
//! 16 KiB), 64 blocks per plane: 64 GiB raw, so a striped stripe is 128 x 2 x 4 MiB = 1 GiB.

use crate::base::error::ConfigError;
use crate::config::{load, Override, ScenarioSource};
use crate::ftl::zoned::params::ZoneMappingKind;

fn load_with(settings: &[&str]) -> Result<crate::sim::scenario::Scenario, ConfigError> {
    let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).unwrap()).collect();
    load(&ScenarioSource::Default, &overrides)
}

fn zns_error(settings: &[&str]) -> ConfigError {
    let mut all = vec!["zns.enabled=true"];
    all.extend_from_slice(settings);
    load_with(&all).unwrap_err()
}

#[test]
fn zns_is_off_by_default_and_its_keys_are_unchecked_when_off() {
    let scenario = load_with(&[]).unwrap();
    assert!(!scenario.zns.enabled);
    assert!(load_with(&["zns.max_open=0", "zns.zone_size=\"3KiB\""]).is_ok());
}

#[test]
fn zone_capacity_above_zone_size_names_zns_zone_capacity() {
    let error = zns_error(&["zns.zone_size=\"1GiB\"", "zns.zone_capacity=\"2GiB\""]);
    assert_eq!(error.key, "zns.zone_capacity");
    assert!(
        error.message.contains("2GiB") && error.message.contains("1GiB"),
        "{error}"
    );
    let error = zns_error(&["zns.zone_capacity=\"6KiB\""]);
    assert_eq!(
        error.key, "zns.zone_capacity",
        "not a whole number of 4 KiB logical blocks"
    );
}

#[test]
fn zone_size_must_be_a_whole_number_of_stripes() {
    let error = zns_error(&["zns.zone_size=\"1536MiB\""]);
    assert_eq!(error.key, "zns.zone_size");
    assert!(error.message.contains("multiple of 1GiB"), "{error}");
    let error = zns_error(&["zns.mapping=\"die_group\"", "zns.die_group=2", "zns.zone_size=\"8MiB\""]);
    assert_eq!(error.key, "zns.zone_size", "2 dies x 2 planes x 4 MiB: 16 MiB stripes");
    assert!(error.message.contains("multiple of 16MiB"), "{error}");
    let error = zns_error(&["zns.zone_size=\"128GiB\""]);
    assert_eq!(error.key, "zns.zone_size", "larger than the 64 GiB drive");
    assert!(error.message.contains("128 blocks per plane"), "{error}");
}

#[test]
fn die_groups_must_divide_the_dies() {
    let error = zns_error(&["zns.mapping=\"die_group\"", "zns.die_group=3"]);
    assert_eq!(error.key, "zns.die_group");
    assert!(error.message.contains("128 dies"), "{error}");
    let error = zns_error(&["zns.mapping=\"die_group\"", "zns.die_group=0"]);
    assert_eq!(error.key, "zns.die_group");
}

#[test]
fn zone_limits_are_at_least_one_and_active_at_least_open() {
    let error = zns_error(&["zns.max_open=0"]);
    assert_eq!(error.key, "zns.max_open");
    let error = zns_error(&["zns.max_open=8", "zns.max_active=4"]);
    assert_eq!(error.key, "zns.max_active");
    assert!(error.message.contains("zns.max_open (8)"), "{error}");
    // 64 zones of 1 GiB: 65 open zones cannot exist.
    let error = zns_error(&["zns.max_open=65", "zns.max_active=65"]);
    assert_eq!(error.key, "zns.max_open");
    assert!(error.message.contains("64 zones"), "{error}");
}

#[test]
fn a_valid_zoned_scenario_loads_now_that_the_zoned_drive_runs() {
    // Formerly refused ("not simulated yet"); tests/it/zns.rs runs zoned scenarios.
    let scenario = load_with(&[
        "zns.enabled=true",
        "workload.precondition=\"none\"",
        "workload.kind=\"zoned\"",
    ])
    .unwrap();
    assert!(scenario.zns.enabled);
}

#[test]
fn a_frame_buffer_smaller_than_a_program_per_active_zone_names_controller_frame_buffer() {
    // The default drive programs 2 planes x 16 KiB pages = 8 units of 4 KiB at once: 14 active
    // zones may hold 14 x 8 = 112 units of partly filled programs.
    let error = zns_error(&["workload.precondition=\"none\"", "controller.frame_buffer=111"]);
    assert_eq!(error.key, "controller.frame_buffer");
    assert!(error.message.contains("= 112"), "{error}");
    assert!(load_with(&[
        "zns.enabled=true",
        "workload.precondition=\"none\"",
        "controller.frame_buffer=112"
    ])
    .is_ok());
}

#[test]
fn models_that_move_data_on_the_conventional_ftl_are_refused_with_zns() {
    let error = zns_error(&["workload.precondition=\"fill\""]);
    assert_eq!(error.key, "workload.precondition");
    assert!(error.message.contains("zns.enabled"), "{error}");
    let error = zns_error(&["workload.precondition=\"none\"", "slc_cache.enabled=true"]);
    assert_eq!(error.key, "slc_cache.enabled");
    let error = zns_error(&["workload.precondition=\"none\"", "ftl.wear_leveling=\"static\""]);
    assert_eq!(error.key, "ftl.wear_leveling");
    let error = load_with(&["workload.kind=\"zoned\""]).unwrap_err();
    assert_eq!(error.key, "workload.kind", "the zoned writer needs a zoned namespace");
    let error = zns_error(&[
        "workload.precondition=\"none\"",
        "workload.kind=\"zoned\"",
        "workload.zoned.open_zones=0",
    ]);
    assert_eq!(error.key, "workload.zoned.open_zones");
}

#[test]
fn a_die_group_layout_counts_zones_blocks_and_logical_blocks() {
    let mut scenario = load_with(&[]).unwrap();
    scenario.zns.mapping = ZoneMappingKind::DieGroup;
    scenario.zns.die_group = 2;
    scenario.zns.zone_capacity = crate::base::units::ByteSize(12 << 20);
    let layout = scenario
        .zns
        .resolve(&scenario.flash, scenario.ftl.mapping_unit)
        .unwrap();
    // A stripe: 2 dies x 2 planes x 4 MiB = 16 MiB, the default zone; 64 GiB / 16 MiB zones.
    assert_eq!(layout.zones, 4096);
    assert_eq!(layout.blocks_per_zone, 4);
    assert_eq!(layout.dies_per_zone, 2);
    assert_eq!(layout.limits.zone_size, (16 << 20) / 4096);
    assert_eq!(layout.limits.zone_capacity, (12 << 20) / 4096);
    assert_eq!((layout.limits.max_open, layout.limits.max_active), (14, 14));
    assert_eq!((layout.groups, layout.blocks_per_plane_per_zone), (64, 1));
    // Zones of 3 stripes: 21 fit in a plane's 64 blocks, in each of the 64 groups (one block per
    // plane left over), not 64 GiB / 48 MiB = 1365.
    scenario.zns.zone_size = crate::base::units::ByteSize(48 << 20);
    let layout = scenario
        .zns
        .resolve(&scenario.flash, scenario.ftl.mapping_unit)
        .unwrap();
    assert_eq!(layout.zones, 64 * 21);
}
