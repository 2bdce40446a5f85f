//! Range checks on a deserialized scenario: each failure names the key, the value and what is
//! allowed.

use super::{ConfigError, Pattern, Scenario};
use crate::sim::time::Duration;

fn check(ok: bool, key: &str, value: impl std::fmt::Display, allowed: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(
            key,
            format!("{value} is out of range; allowed: {allowed}"),
        ))
    }
}

fn fraction(key: &str, value: f64, low_open: bool, high_open: bool) -> Result<(), ConfigError> {
    let low_ok = if low_open { value > 0.0 } else { value >= 0.0 };
    let high_ok = if high_open { value < 1.0 } else { value <= 1.0 };
    let allowed = format!(
        "a fraction {}0, 1{}",
        if low_open { "in (" } else { "in [" },
        if high_open { ")" } else { "]" }
    );
    check(value.is_finite() && low_ok && high_ok, key, value, &allowed)
}

/// Largest number of physical mapping units the flat mapping table can address (u32 indices).
pub const MAX_PHYSICAL_UNITS: u64 = u32::MAX as u64 - 1;

pub(super) fn validate(scenario: &Scenario) -> Result<(), ConfigError> {
    let host = &scenario.host;
    check(
        (1..=65_535).contains(&host.queue_depth),
        "host.queue_depth",
        host.queue_depth,
        "1 to 65535",
    )?;
    check(
        (1..=6).contains(&host.pcie_generation),
        "host.pcie_generation",
        host.pcie_generation,
        "1 to 6",
    )?;
    check(
        [1, 2, 4, 8, 16].contains(&host.pcie_lanes),
        "host.pcie_lanes",
        host.pcie_lanes,
        "1, 2, 4, 8 or 16",
    )?;
    check(
        host.arrival_rate.is_finite() && host.arrival_rate > 0.0 && host.arrival_rate <= 1e9,
        "host.arrival_rate",
        host.arrival_rate,
        "more than 0 and at most 1e9 commands/s",
    )?;

    let controller = &scenario.controller;
    check(
        (1..=1 << 24).contains(&controller.frame_buffer),
        "controller.frame_buffer",
        controller.frame_buffer,
        "1 to 16777216",
    )?;
    check(
        (1..=1024).contains(&controller.die_queue_depth),
        "controller.die_queue_depth",
        controller.die_queue_depth,
        "1 to 1024",
    )?;

    let flash = &scenario.flash;
    check(
        (1..=1024).contains(&flash.channels),
        "flash.channels",
        flash.channels,
        "1 to 1024",
    )?;
    check(
        (1..=64).contains(&flash.chips_per_channel),
        "flash.chips_per_channel",
        flash.chips_per_channel,
        "1 to 64",
    )?;
    check(
        (1..=64).contains(&flash.dies_per_chip),
        "flash.dies_per_chip",
        flash.dies_per_chip,
        "1 to 64",
    )?;
    check(
        (1..=16).contains(&flash.planes_per_die),
        "flash.planes_per_die",
        flash.planes_per_die,
        "1 to 16",
    )?;
    check(
        (4..=1 << 20).contains(&flash.blocks_per_plane),
        "flash.blocks_per_plane",
        flash.blocks_per_plane,
        "4 to 1048576",
    )?;
    check(
        (1..=65_535).contains(&flash.pages_per_block),
        "flash.pages_per_block",
        flash.pages_per_block,
        "1 to 65535",
    )?;
    let page = flash.page_size.bytes();
    check(
        (512..=1 << 20).contains(&page) && page.is_power_of_two(),
        "flash.page_size",
        flash.page_size,
        "a power of two from 512B to 1MiB",
    )?;
    check(
        flash.parity_per_codeword.bytes() <= page,
        "flash.parity_per_codeword",
        flash.parity_per_codeword,
        "at most page_size",
    )?;
    check(
        flash.bus_rate.per_second() <= 1e11,
        "flash.bus_rate",
        flash.bus_rate,
        "at most 100GT/s",
    )?;
    let page_types = flash.cell.page_types();
    for (key, latencies) in [("flash.t_read", &flash.t_read), ("flash.t_program", &flash.t_program)] {
        match latencies {
            super::PerPageType::One(latency) => check(*latency > Duration::ZERO, key, latency, "a positive duration")?,
            super::PerPageType::PerType(list) => {
                check(
                    list.len() == page_types,
                    key,
                    format!("a list of {}", list.len()),
                    &format!(
                        "one duration, or {page_types} (one per page type of a {:?} cell)",
                        flash.cell
                    )
                    .to_lowercase(),
                )?;
                for latency in list {
                    check(*latency > Duration::ZERO, key, latency, "positive durations")?;
                }
            }
        }
    }
    check(
        flash.t_erase > Duration::ZERO,
        "flash.t_erase",
        flash.t_erase,
        "a positive duration",
    )?;
    check(
        flash.program_time_spread.is_finite() && (0.0..=0.3).contains(&flash.program_time_spread),
        "flash.program_time_spread",
        flash.program_time_spread,
        "0 to 0.3 (standard deviation as a fraction of the program time)",
    )?;
    validate_suspend(&flash.suspend)?;

    for (key, delay) in [
        ("flash.channel_switch_time", flash.channel_switch_time),
        ("flash.page_register_time", flash.page_register_time),
    ] {
        check(delay <= Duration::from_millis(100), key, delay, "0 (off) to 100ms")?;
    }

    let ftl = &scenario.ftl;
    let unit = ftl.mapping_unit.bytes();
    check(
        unit >= 512 && unit.is_power_of_two() && unit <= page,
        "ftl.mapping_unit",
        ftl.mapping_unit,
        &format!("a power of two from 512B to the page size ({})", flash.page_size),
    )?;
    check(
        ftl.over_provisioning.is_finite() && (0.02..=0.9).contains(&ftl.over_provisioning),
        "ftl.over_provisioning",
        ftl.over_provisioning,
        "0.02 to 0.9",
    )?;
    check(
        ftl.gc_threshold.is_finite() && ftl.gc_threshold > 0.0 && ftl.gc_threshold < ftl.over_provisioning,
        "ftl.gc_threshold",
        ftl.gc_threshold,
        &format!(
            "more than 0 and less than ftl.over_provisioning ({})",
            ftl.over_provisioning
        ),
    )?;
    check(
        ftl.gc_urgent_threshold.is_finite()
            && ftl.gc_urgent_threshold >= 0.0
            && ftl.gc_urgent_threshold <= ftl.gc_threshold,
        "ftl.gc_urgent_threshold",
        ftl.gc_urgent_threshold,
        &format!("0 (off) to ftl.gc_threshold ({})", ftl.gc_threshold),
    )?;
    check(
        (1..=4096).contains(&ftl.gc_candidates),
        "ftl.gc_candidates",
        ftl.gc_candidates,
        "1 to 4096",
    )?;
    check(
        (1..=1 << 20).contains(&ftl.log_blocks),
        "ftl.log_blocks",
        ftl.log_blocks,
        "1 to 1048576",
    )?;
    super::super::ftl::check_mapping(scenario)?;
    let units_per_page = page / unit;
    let physical_units = u64::from(flash.channels)
        * u64::from(flash.chips_per_channel)
        * u64::from(flash.dies_per_chip)
        * u64::from(flash.planes_per_die)
        * u64::from(flash.blocks_per_plane)
        * u64::from(flash.pages_per_block)
        * units_per_page;
    check(
        physical_units <= MAX_PHYSICAL_UNITS,
        "flash",
        format!("{physical_units} mapping units"),
        &format!(
            "at most {MAX_PHYSICAL_UNITS} mapping units of raw capacity; use a larger ftl.mapping_unit or fewer blocks"
        ),
    )?;

    let workload = &scenario.workload;
    fraction("workload.read_fraction", workload.read_fraction, false, false)?;
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
    let aligned = |size: u64| size >= unit && size.is_multiple_of(unit) && size <= 1 << 30;
    check(
        aligned(workload.block_size.bytes()),
        "workload.block_size",
        workload.block_size,
        &format!("a multiple of ftl.mapping_unit ({}) up to 1GiB", ftl.mapping_unit),
    )?;
    for (index, (size, weight)) in workload.bssplit.iter().enumerate() {
        check(
            aligned(size.bytes()),
            &format!("workload.bssplit[{index}]"),
            size,
            &format!("a multiple of ftl.mapping_unit ({}) up to 1GiB", ftl.mapping_unit),
        )?;
        check(
            weight.is_finite() && *weight >= 0.0,
            &format!("workload.bssplit[{index}]"),
            weight,
            "a weight of 0 or more",
        )?;
    }
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
        workload.io_count > 0 || workload.duration > Duration::ZERO,
        "workload.io_count",
        "0 with duration 0",
        "a positive io_count, or io_count = 0 with a positive duration",
    )?;
    check(
        workload.steady_overwrites.is_finite() && (0.0..=20.0).contains(&workload.steady_overwrites),
        "workload.steady_overwrites",
        workload.steady_overwrites,
        "0 to 20",
    )?;
    check(
        host.mode == super::HostMode::Closed || workload.kind == super::WorkloadKind::Synthetic,
        "host.mode",
        "\"open\"",
        "\"open\" only with workload.kind = \"synthetic\" (traces and the IIoT generator bring their own arrival times)",
    )?;
    validate_sources(workload)?;
    validate_power(scenario)
}

/// Keys of `[workload.trace]`, `[workload.fio]` and `[workload.iiot]`, checked for the kind in use.
fn validate_sources(workload: &super::WorkloadConfig) -> Result<(), ConfigError> {
    use super::WorkloadKind;
    match workload.kind {
        WorkloadKind::Synthetic => Ok(()),
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

fn validate_suspend(suspend: &super::SuspendConfig) -> Result<(), ConfigError> {
    use super::TimeOrFraction;
    for (key, value) in [
        ("flash.suspend.enter_time", suspend.enter_time),
        ("flash.suspend.resume_time", suspend.resume_time),
        ("flash.suspend.erase_enter_time", suspend.erase_enter_time),
        ("flash.suspend.erase_resume_time", suspend.erase_resume_time),
    ] {
        if let TimeOrFraction::Fraction(fraction) = value {
            check(
                fraction.is_finite() && (0.0..=0.5).contains(&fraction),
                key,
                fraction,
                "a duration such as \"60us\" or a fraction of the operation time from 0 to 0.5",
            )?;
        }
    }
    for (key, value) in [
        ("flash.suspend.max_per_operation", suspend.max_per_operation),
        ("flash.suspend.erase_max_per_operation", suspend.erase_max_per_operation),
    ] {
        check(value <= 1000, key, value, "0 (off) to 1000")?;
    }
    for (key, value) in [
        ("flash.suspend.program_pulses", suspend.program_pulses),
        ("flash.suspend.erase_pulses", suspend.erase_pulses),
        ("flash.suspend.reads_per_suspend", suspend.reads_per_suspend),
    ] {
        check((1..=1000).contains(&value), key, value, "1 to 1000")?;
    }
    Ok(())
}

/// Range checks of the `[power]` table.
fn validate_power(scenario: &Scenario) -> Result<(), ConfigError> {
    let power = &scenario.power;
    let non_negative = |key: &str, value: f64, limit: f64, unit: &str| {
        check(
            value.is_finite() && (0.0..=limit).contains(&value),
            &format!("power.{key}"),
            value,
            &format!("0 to {limit} {unit}"),
        )
    };
    for (key, value) in [("vcc_v", power.vcc_v), ("vccq_v", power.vccq_v)] {
        check(
            value.is_finite() && value > 0.0 && value <= 20.0,
            &format!("power.{key}"),
            value,
            "more than 0 and at most 20 V",
        )?;
    }
    non_negative("isb_ua", power.isb_ua, 1e6, "uA")?;
    for (key, value) in [
        ("icc_bus_idle_ma", power.icc_bus_idle_ma),
        ("icc_suspended_ma", power.icc_suspended_ma),
        ("icc_erase_ma", power.icc_erase_ma),
        ("icc_io_read_ma", power.icc_io_read_ma),
        ("icc_io_write_ma", power.icc_io_write_ma),
    ] {
        non_negative(key, value, 1e4, "mA")?;
    }
    let page_types = scenario.flash.cell.page_types();
    for (key, currents) in [
        ("icc_read_ma", &power.icc_read_ma),
        ("icc_program_ma", &power.icc_program_ma),
    ] {
        let list: &[f64] = match currents {
            super::PerPageTypeCurrent::One(current) => std::slice::from_ref(current),
            super::PerPageTypeCurrent::PerType(list) => {
                check(
                    list.len() == page_types,
                    &format!("power.{key}"),
                    format!("a list of {}", list.len()),
                    &format!(
                        "one current, or {page_types} (one per page type of a {:?} cell)",
                        scenario.flash.cell
                    )
                    .to_lowercase(),
                )?;
                list
            }
        };
        for &current in list {
            non_negative(key, current, 1e4, "mA")?;
        }
    }
    for (key, profile) in [
        ("read_profile", &power.read_profile),
        ("program_profile", &power.program_profile),
        ("erase_profile", &power.erase_profile),
    ] {
        validate_profile(key, profile)?;
    }
    for (key, value) in [
        ("io_bus_w", power.io_bus_w),
        ("controller_idle_w", power.controller_idle_w),
        ("controller_channel_w", power.controller_channel_w),
        ("dram_background_w", power.dram_background_w),
        ("other_w", power.other_w),
    ] {
        non_negative(key, value, 1e3, "W")?;
    }
    non_negative("controller_command_uj", power.controller_command_uj, 1e6, "uJ")?;
    non_negative("dram_nj_per_kib", power.dram_nj_per_kib, 1e6, "nJ")?;
    check(
        power.regulator_efficiency.is_finite() && power.regulator_efficiency > 0.0 && power.regulator_efficiency <= 1.0,
        "power.regulator_efficiency",
        power.regulator_efficiency,
        "a fraction in (0, 1]",
    )?;
    check(
        power.peak_window > Duration::ZERO,
        "power.peak_window",
        power.peak_window,
        "a positive duration",
    )?;
    check(
        power.sample_interval == Duration::ZERO || power.sample_interval >= Duration::from_micros(1),
        "power.sample_interval",
        power.sample_interval,
        "0us (off) or at least 1us",
    )
}

/// A current profile: segments with positive fractions summing to 1 and non-negative factors
/// whose fraction-weighted mean is 1 (the operation's average current is kept).
fn validate_profile(key: &str, profile: &[super::ProfileSegment]) -> Result<(), ConfigError> {
    if profile.is_empty() {
        return Ok(());
    }
    let key = format!("power.{key}");
    check(
        profile.len() <= 1024,
        &key,
        format!("{} segments", profile.len()),
        "at most 1024 segments",
    )?;
    for (index, &(fraction, factor)) in profile.iter().enumerate() {
        check(
            fraction.is_finite() && fraction > 0.0 && fraction <= 1.0,
            &format!("{key}[{index}]"),
            fraction,
            "a fraction of the operation's duration in (0, 1]",
        )?;
        check(
            factor.is_finite() && (0.0..=100.0).contains(&factor),
            &format!("{key}[{index}]"),
            factor,
            "a current factor from 0 to 100",
        )?;
    }
    let total: f64 = profile.iter().map(|(fraction, _)| fraction).sum();
    check(
        (total - 1.0).abs() <= 1e-6,
        &key,
        format!("fractions summing to {total}"),
        "fractions summing to 1",
    )?;
    let mean: f64 = profile.iter().map(|(fraction, factor)| fraction * factor).sum();
    check(
        (mean - 1.0).abs() <= 1e-3,
        &key,
        format!("a mean factor of {mean}"),
        "a fraction-weighted mean factor of 1 (the average current is icc_*_ma)",
    )
}

#[cfg(test)]
mod tests {
    use super::super::{load, Override, ScenarioSource};

    fn error_for(setting: &str) -> super::ConfigError {
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
}
