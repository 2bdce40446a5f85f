//! Range checks on a deserialized scenario: each failure names the key, the value and what is
//! allowed. One file per group of tables; checks run in the order of the scenario file (host,
//! controller, flash, ftl, workload, power, thermal, throttle) and the first failure is reported.

mod checks;
mod dram;
mod drive;
mod fdp;
mod flows;
mod power;
mod slc;
#[cfg(test)]
mod tests;
mod thermal;
mod workload;
mod zns;
#[cfg(test)]
mod zns_tests;

use crate::base::error::ConfigError;
use crate::sim::scenario::Scenario;

pub(super) fn validate(scenario: &Scenario) -> Result<(), ConfigError> {
    drive::host_and_controller(&scenario.host, &scenario.controller)?;
    drive::flash(&scenario.flash)?;
    drive::ftl(&scenario.ftl, &scenario.flash)?;
    zns::zns(scenario)?;
    fdp::fdp(scenario)?;
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
