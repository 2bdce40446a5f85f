//! Range checks of the arbitration keys of `[host]` and of `[[workload.flows]]`: each flow's
//! synthetic keys get the checks of `[workload]`, an error naming the flow's key.

use super::checks::check;
use crate::base::error::ConfigError;
use crate::ftl::params::FtlConfig;
use crate::host::params::{Arbitration, HostConfig, HostMode, Priority};
use crate::workload::params::{WorkloadConfig, WorkloadKind};

/// Checks `host.arbitration_burst` and the weights.
pub(super) fn arbitration(host: &HostConfig) -> Result<(), ConfigError> {
    check(
        host.arbitration_burst == 0 || (host.arbitration_burst.is_power_of_two() && host.arbitration_burst <= 128),
        "host.arbitration_burst",
        host.arbitration_burst,
        "1, 2, 4, 8, 16, 32, 64 or 128 commands, or 0 for no limit (NVMe Arbitration Burst)",
    )?;
    for (key, weight) in [
        ("host.weight_high", host.weight_high),
        ("host.weight_medium", host.weight_medium),
        ("host.weight_low", host.weight_low),
    ] {
        check(
            (1..=256).contains(&weight),
            key,
            weight,
            "1 to 256 commands per round (NVMe priority weights)",
        )?;
    }
    Ok(())
}

/// Checks `[[workload.flows]]`: closed-loop workloads (synthetic, traces and IIoT replayed as fast
/// as possible), a queue depth and an optional command count each, classes
/// other than `medium` only with weighted round robin, and each flow's workload keys.
pub(super) fn flows(workload: &WorkloadConfig, host: &HostConfig, ftl: &FtlConfig) -> Result<(), ConfigError> {
    if workload.flows.is_empty() {
        return Ok(());
    }
    check(
        workload.kind == WorkloadKind::Synthetic,
        "workload.flows",
        format!("{} flows", workload.flows.len()),
        "flows with workload.kind = \"synthetic\" only (an fio job file's jobs are its flows)",
    )?;
    check(
        host.mode == HostMode::Closed,
        "host.mode",
        "\"open\"",
        "\"closed\" with workload.flows (each flow keeps its queue depth in flight)",
    )?;
    check(
        workload.flows.len() <= 256,
        "workload.flows",
        format!("{} flows", workload.flows.len()),
        "at most 256 flows",
    )?;
    for (index, flow) in workload.flows.iter().enumerate() {
        crate::workload::flows::check(flow, index)?;
        if let Some(depth) = flow.queue_depth {
            check(
                (1..=65_535).contains(&depth),
                &format!("workload.flows[{index}].queue_depth"),
                depth,
                "1 to 65535",
            )?;
        }
        check(
            host.arbitration == Arbitration::WeightedRoundRobin || flow.priority == Priority::Medium,
            &format!("workload.flows[{index}].priority"),
            format!("{:?}", flow.priority).to_lowercase(),
            "\"medium\" under host.arbitration = \"round_robin\" (every queue is equal); set host.arbitration = \"weighted_round_robin\" for urgent, high and low",
        )?;
        // The flow's workload gets the checks of [workload]; an error about a key the flow sets
        // names the flow's key.
        super::workload::workload(&flow.workload(workload), host, ftl).map_err(|mut error| {
            if let Some(key) = error.key.strip_prefix("workload.") {
                let leaf = key.split(['.', '[']).next().unwrap_or(key).to_string();
                if flow.sets(&leaf) {
                    error.key = format!("workload.flows[{index}].{key}");
                }
            }
            error
        })?;
    }
    let total: u64 = workload
        .flows
        .iter()
        .map(|flow| u64::from(flow.queue_depth.unwrap_or(host.queue_depth)))
        .sum();
    check(
        total <= 1 << 20,
        "workload.flows",
        format!("{total} commands in flight over all flows"),
        "at most 1048576",
    )
}
