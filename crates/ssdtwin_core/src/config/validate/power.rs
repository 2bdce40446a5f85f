//! Range checks of the `[power]` table (docs/models/power.md): supplies, currents per page type,
//! current profiles, component powers and energies, the regulator.

use super::checks::check;
use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::flash::params::FlashConfig;
use crate::power::params::{PerPageTypeCurrent, PowerConfig, ProfileSegment};

/// Range checks of the `[power]` table.
pub(super) fn power(power: &PowerConfig, flash: &FlashConfig) -> Result<(), ConfigError> {
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
    let page_types = flash.cell.page_types();
    for (key, currents) in [
        ("icc_read_ma", &power.icc_read_ma),
        ("icc_program_ma", &power.icc_program_ma),
    ] {
        let list: &[f64] = match currents {
            PerPageTypeCurrent::One(current) => std::slice::from_ref(current),
            PerPageTypeCurrent::PerType(list) => {
                check(
                    list.len() == page_types,
                    &format!("power.{key}"),
                    format!("a list of {}", list.len()),
                    &format!(
                        "one current, or {page_types} (one per page type of a {:?} cell)",
                        flash.cell
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
        check_profile(key, profile)?;
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
fn check_profile(key: &str, profile: &[ProfileSegment]) -> Result<(), ConfigError> {
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
