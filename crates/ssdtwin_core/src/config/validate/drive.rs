//! Range checks of the drive's tables: `[host]`, `[controller]`, `[flash]` with `[flash.suspend]`,
//! and `[ftl]` (with the mapping-scheme fit of `ftl::check_mapping`).

use super::checks::{check, MAX_PHYSICAL_UNITS};
use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::controller::params::ControllerConfig;
use crate::flash::params::{FlashConfig, PerPageType, SuspendConfig, TimeOrFraction};
use crate::ftl::params::{check_mapping, FtlConfig};
use crate::host::params::HostConfig;

/// Range checks of `[host]` and `[controller]`.
pub(super) fn host_and_controller(host: &HostConfig, controller: &ControllerConfig) -> Result<(), ConfigError> {
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
    Ok(())
}

/// Range checks of `[flash]` and `[flash.suspend]`.
pub(super) fn flash(flash: &FlashConfig) -> Result<(), ConfigError> {
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
            PerPageType::One(latency) => check(*latency > Duration::ZERO, key, latency, "a positive duration")?,
            PerPageType::PerType(list) => {
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
    suspend(&flash.suspend)?;

    for (key, delay) in [
        ("flash.channel_switch_time", flash.channel_switch_time),
        ("flash.way_switch_time", flash.way_switch_time),
        ("flash.page_register_time", flash.page_register_time),
    ] {
        check(delay <= Duration::from_millis(100), key, delay, "0 (off) to 100ms")?;
    }
    Ok(())
}

fn suspend(suspend: &SuspendConfig) -> Result<(), ConfigError> {
    for (key, value) in [
        ("flash.suspend.enter_time", suspend.enter_time),
        ("flash.suspend.resume_time", suspend.resume_time),
        ("flash.suspend.resume_extra_time", suspend.resume_extra_time),
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

/// Range checks of `[ftl]` against the flash it maps.
pub(super) fn ftl(ftl: &FtlConfig, flash: &FlashConfig) -> Result<(), ConfigError> {
    let page = flash.page_size.bytes();
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
        ftl.gc_stop_threshold == 0.0
            || (ftl.gc_stop_threshold.is_finite()
                && ftl.gc_stop_threshold > ftl.gc_threshold
                && ftl.gc_stop_threshold < ftl.over_provisioning),
        "ftl.gc_stop_threshold",
        ftl.gc_stop_threshold,
        &format!(
            "0 (the level of ftl.gc_threshold) or more than ftl.gc_threshold ({}) and less than ftl.over_provisioning ({})",
            ftl.gc_threshold, ftl.over_provisioning
        ),
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
    check_mapping(ftl, flash)?;
    let units_per_page = page / unit;
    let physical_units = u64::from(flash.channels)
        * u64::from(flash.chips_per_channel)
        * u64::from(flash.dies_per_chip)
        * u64::from(flash.planes_per_die)
        * u64::from(flash.blocks_per_plane)
        * u64::from(flash.pages_per_block)
        * units_per_page;
    if physical_units > MAX_PHYSICAL_UNITS {
        // Physical units are 32-bit addresses, u32::MAX marking "none" (`ftl/mapping.rs`).
        let per_block = physical_units / u64::from(flash.blocks_per_plane);
        return Err(ConfigError::new(
            "flash.blocks_per_plane",
            format!(
                "{} gives {physical_units} mapping units of raw capacity; allowed: at most {MAX_PHYSICAL_UNITS} \
                 (mapping-unit addresses are 32-bit): at most {} blocks per plane with this geometry and \
                 ftl.mapping_unit, or a larger ftl.mapping_unit",
                flash.blocks_per_plane,
                MAX_PHYSICAL_UNITS / per_block
            ),
        ));
    }
    Ok(())
}
