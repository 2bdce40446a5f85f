//! Range checks on a deserialized scenario: each failure names the key, the value and what is
//! allowed. One file per group of tables; checks run in the order of the scenario file (host,
//! controller, flash, ftl, workload, power, thermal, throttle) and the first failure is reported.

mod checks;
mod dram;
mod drive;
mod flows;
mod power;
mod slc;
#[cfg(test)]
mod tests;
mod thermal;
mod workload;
#[cfg(test)]
mod zns_tests;

use crate::base::error::ConfigError;
use crate::sim::scenario::Scenario;

pub(super) fn validate(scenario: &Scenario) -> Result<(), ConfigError> {
    drive::host_and_controller(&scenario.host, &scenario.controller)?;
    drive::flash(&scenario.flash)?;
    drive::ftl(&scenario.ftl, &scenario.flash)?;
    zns(scenario)?;
    flows::arbitration(&scenario.host)?;
    workload::workload(&scenario.workload, &scenario.host, &scenario.ftl)?;
    flows::flows(&scenario.workload, &scenario.host, &scenario.ftl)?;
    checks::check(
        !scenario.report.flow_slowdown
            || scenario.workload.flows.len() >= 2
            || scenario.workload.kind == crate::workload::params::WorkloadKind::Fio,
        "report.flow_slowdown",
        true,
        "true only with two or more workload.flows or an fio job file (each flow or job is run alone to compare)",
    )?;
    power::power(&scenario.power, &scenario.flash)?;
    thermal::thermal(&scenario.thermal, &scenario.throttle, &scenario.power)?;
    dram::dram(scenario)?;
    slc::slc_cache(scenario)?;
    checks::check(
        scenario.report.steady_window == crate::base::time::Duration::ZERO
            || scenario.report.steady_window >= crate::base::time::Duration::from_micros(100),
        "report.steady_window",
        scenario.report.steady_window,
        "\"0s\" (automatic: the measured run in 10 windows) or at least 100us",
    )?;
    if scenario.reliability.enabled {
        scenario.reliability.validate(scenario.flash.cell.page_types())?;
        scenario
            .reliability
            .check_codeword(scenario.ftl.mapping_unit, scenario.flash.parity_per_codeword)?;
    }
    Ok(())
}

/// `[zns]`, checked only when enabled (the keys cost nothing when off). The zoned drive writes
/// through its zones, not the conventional FTL's blocks: the models that move or hold data of
/// their own on that FTL are refused with it (each error names the key to change).
fn zns(scenario: &Scenario) -> Result<(), ConfigError> {
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
