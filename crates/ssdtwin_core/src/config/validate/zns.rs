//! The `[zns]` checks and what a zoned namespace cannot be combined with.

use super::checks;
use crate::base::error::ConfigError;
use crate::sim::scenario::Scenario;

/// `[zns]`, checked only when enabled (the keys cost nothing when off). The zoned drive writes
/// through its zones, not the conventional FTL's blocks: the models that move or hold data of
/// their own on that FTL are refused with it (each error names the key to change).
pub(super) fn zns(scenario: &Scenario) -> Result<(), ConfigError> {
    use crate::ftl::params::{MappingCacheKind, MappingKind, Precondition, WearLevelingKind};
    if !scenario.zns.enabled {
        return checks::check(
            scenario.workload.kind != crate::workload::params::WorkloadKind::Zoned,
            "workload.kind",
            "\"zoned\"",
            "\"zoned\" only with zns.enabled = true (it writes a zoned namespace)",
        );
    }
    scenario.zns.resolve(&scenario.flash, scenario.ftl.mapping_unit)?;
    // Each active zone may hold a partly filled program in the frame buffer until it fills.
    let flash = &scenario.flash;
    let planes = if flash.multi_plane { flash.planes_per_die } else { 1 };
    let program_units = flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes() * u64::from(planes);
    let needed = u64::from(scenario.zns.max_active) * program_units;
    checks::check(
        u64::from(scenario.controller.frame_buffer) >= needed,
        "controller.frame_buffer",
        scenario.controller.frame_buffer,
        &format!(
            "at least zns.max_active ({}) x the mapping units of one program ({program_units}) = {needed}: each active zone may hold a partly filled program",
            scenario.zns.max_active
        ),
    )?;
    let with_zns = |key: &str, value: &dyn std::fmt::Debug, allowed: &str| {
        ConfigError::new(
            key,
            format!("{value:?} is not simulated with zns.enabled = true (a zoned namespace); allowed: {allowed}"),
        )
    };
    let ftl = &scenario.ftl;
    if ftl.mapping != MappingKind::Page {
        return Err(with_zns("ftl.mapping", &ftl.mapping, "\"page\""));
    }
    if ftl.mapping_cache != MappingCacheKind::Full {
        return Err(with_zns("ftl.mapping_cache", &ftl.mapping_cache, "\"full\""));
    }
    if ftl.wear_leveling == WearLevelingKind::Static {
        return Err(with_zns(
            "ftl.wear_leveling",
            &ftl.wear_leveling,
            "\"none\" or \"dynamic\" (zones are placed by zns.mapping)",
        ));
    }
    if scenario.workload.precondition != Precondition::None {
        return Err(with_zns(
            "workload.precondition",
            &scenario.workload.precondition,
            "\"none\" (a zoned drive is filled by writing its zones)",
        ));
    }
    if scenario.slc_cache.enabled {
        return Err(with_zns("slc_cache.enabled", &true, "false"));
    }
    if scenario.buffer.capacity.bytes() > 0 {
        return Err(with_zns("buffer.capacity", &scenario.buffer.capacity, "\"0B\""));
    }
    if scenario.plp.enabled || !scenario.power_loss.at.is_empty() {
        return Err(with_zns(
            "plp.enabled",
            &scenario.plp.enabled,
            "false, and no power_loss.at",
        ));
    }
    if scenario.reliability.enabled
        && scenario.reliability.read_reclaim != crate::reliability::params::ReadReclaim::None
    {
        return Err(with_zns(
            "reliability.read_reclaim",
            &scenario.reliability.read_reclaim,
            "\"none\"",
        ));
    }
    Ok(())
}
