//! Range checks of `[workload]` and of the table its kind uses (`[workload.trace]`,
//! `[workload.fio]`, `[workload.iiot]`).

use super::checks::{check, fraction};
use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::ftl::params::FtlConfig;
use crate::host::params::{HostConfig, HostMode};
use crate::workload::params::{Pattern, WorkloadConfig, WorkloadKind};

/// Range checks of `[workload]` and the table of its kind, against the host and the mapping unit.
pub(super) fn workload(workload: &WorkloadConfig, host: &HostConfig, ftl: &FtlConfig) -> Result<(), ConfigError> {
    let unit = ftl.mapping_unit.bytes();
    fraction("workload.read_fraction", workload.read_fraction, false, false)?;
    fraction("workload.trim_fraction", workload.trim_fraction, false, false)?;
    check(
        workload.read_fraction + workload.trim_fraction <= 1.0 + 1e-12,
        "workload.trim_fraction",
        workload.trim_fraction,
        &format!(
            "at most 1 - workload.read_fraction ({}): reads and trims share the commands, the rest are writes",
            1.0 - workload.read_fraction
        ),
    )?;
    fraction("workload.fua_fraction", workload.fua_fraction, false, false)?;
    fraction("workload.span", workload.span, true, false)?;
    fraction(
        "workload.sequential_fraction",
        workload.sequential_fraction,
        false,
        false,
    )?;
    check(
        workload.sequential_fraction == 0.0 || workload.pattern == Pattern::Random,
        "workload.sequential_fraction",
        workload.sequential_fraction,
        "0 with pattern = \"sequential\" (every command is sequential already)",
    )?;
    // Whole units, or a part of one unit (a read-modify-write when written).
    let aligned = |size: u64| {
        (size >= unit && size.is_multiple_of(unit) && size <= 1 << 30)
            || (size >= 512 && size < unit && unit.is_multiple_of(size))
    };
    let allowed = format!(
        "a multiple of ftl.mapping_unit ({0}) up to 1GiB, or a divisor of it of at least 512B",
        ftl.mapping_unit
    );
    check(
        aligned(workload.block_size.bytes()),
        "workload.block_size",
        workload.block_size,
        &allowed,
    )?;
    for (index, (size, weight)) in workload.bssplit.iter().enumerate() {
        check(
            aligned(size.bytes()),
            &format!("workload.bssplit[{index}]"),
            size,
            &allowed,
        )?;
        check(
            weight.is_finite() && *weight >= 0.0,
            &format!("workload.bssplit[{index}]"),
            weight,
            "a weight of 0 or more",
        )?;
    }
    let smallest = workload
        .bssplit
        .iter()
        .map(|(size, _)| size.bytes())
        .min()
        .unwrap_or(workload.block_size.bytes());
    check(
        workload.trim_fraction == 0.0 || smallest >= unit,
        "workload.trim_fraction",
        workload.trim_fraction,
        &format!(
            "0 when a command size is below ftl.mapping_unit ({}): a trim deallocates whole units only",
            ftl.mapping_unit
        ),
    )?;
    if !workload.bssplit.is_empty() {
        let total: f64 = workload.bssplit.iter().map(|(_, weight)| weight).sum();
        check(
            total > 0.0,
            "workload.bssplit",
            "all weights zero",
            "at least one positive weight",
        )?;
    }
    check(
        workload.zipf_theta.is_finite() && workload.zipf_theta > 0.0 && workload.zipf_theta <= 10.0,
        "workload.zipf_theta",
        workload.zipf_theta,
        "more than 0 and at most 10",
    )?;
    check(
        workload.io_count > 0
            || workload.duration > Duration::ZERO
            || matches!(workload.kind, WorkloadKind::Trace | WorkloadKind::Fio)
            || crate::workload::flows::end_by_themselves(workload),
        "workload.io_count",
        "0 with duration 0",
        "a positive io_count, or io_count = 0 with a positive duration (or flows that each end by themselves: an io_count of their own or a trace)",
    )?;
    check(
        workload.steady_overwrites.is_finite() && (0.0..=20.0).contains(&workload.steady_overwrites),
        "workload.steady_overwrites",
        workload.steady_overwrites,
        "0 to 20",
    )?;
    check(
        host.mode == HostMode::Closed || workload.kind == WorkloadKind::Synthetic,
        "host.mode",
        "\"open\"",
        "\"open\" only with workload.kind = \"synthetic\" (traces and the IIoT generator bring their own arrival times)",
    )?;
    sources(workload)
}

/// Keys of `[workload.trace]`, `[workload.fio]` and `[workload.iiot]`, checked for the kind in use.
fn sources(workload: &WorkloadConfig) -> Result<(), ConfigError> {
    match workload.kind {
        WorkloadKind::Synthetic => Ok(()),
        WorkloadKind::Zoned => check(
            (1..=1_000_000).contains(&workload.zoned.open_zones),
            "workload.zoned.open_zones",
            workload.zoned.open_zones,
            "1 to 1000000 (zones written at once)",
        ),
        WorkloadKind::Trace => {
            let trace = &workload.trace;
            check(
                !trace.path.is_empty(),
                "workload.trace.path",
                "\"\"",
                "the path of a trace file",
            )?;
            check(
                trace.time_scale.is_finite() && trace.time_scale > 0.0 && trace.time_scale <= 1e6,
                "workload.trace.time_scale",
                trace.time_scale,
                "more than 0 and at most 1e6",
            )?;
            check(
                trace.time_unit > Duration::ZERO,
                "workload.trace.time_unit",
                trace.time_unit,
                "a positive duration",
            )
        }
        WorkloadKind::Fio => check(
            !workload.fio.job.is_empty(),
            "workload.fio.job",
            "\"\"",
            "the path of an fio job file",
        ),
        WorkloadKind::Iiot => {
            let iiot = &workload.iiot;
            check(
                (1..=10_000_000).contains(&iiot.sensors),
                "workload.iiot.sensors",
                iiot.sensors,
                "1 to 10000000",
            )?;
            check(
                iiot.record_rate.is_finite() && iiot.record_rate > 0.0 && iiot.record_rate <= 1e6,
                "workload.iiot.record_rate",
                iiot.record_rate,
                "more than 0 and at most 1e6 records/s per sensor",
            )?;
            check(
                (1..=1 << 24).contains(&iiot.record_size.bytes()),
                "workload.iiot.record_size",
                iiot.record_size,
                "1B to 16MiB",
            )?;
            check(
                (1..=4096).contains(&iiot.writers) && iiot.writers <= iiot.sensors,
                "workload.iiot.writers",
                iiot.writers,
                "1 to 4096, and at most workload.iiot.sensors",
            )?;
            check(
                (1..=65_536).contains(&iiot.batch_records),
                "workload.iiot.batch_records",
                iiot.batch_records,
                "1 to 65536",
            )?;
            check(
                iiot.commit_interval > Duration::ZERO,
                "workload.iiot.commit_interval",
                iiot.commit_interval,
                "a positive duration",
            )?;
            check(
                iiot.query_rate.is_finite() && (0.0..=1e7).contains(&iiot.query_rate),
                "workload.iiot.query_rate",
                iiot.query_rate,
                "0 to 1e7 queries/s",
            )?;
            check(
                (1..=1 << 30).contains(&iiot.query_size.bytes()),
                "workload.iiot.query_size",
                iiot.query_size,
                "1B to 1GiB",
            )?;
            check(
                iiot.query_window > Duration::ZERO,
                "workload.iiot.query_window",
                iiot.query_window,
                "a positive duration",
            )
        }
    }
}
