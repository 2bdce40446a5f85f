//! Range checks of the DRAM side (docs/models/dram_buffer_plp.md): `[buffer]`, the mapping cache
//! keys of `[ftl]`, `[plp]` and `[power_loss]`.

use super::checks::{check, fraction};
use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::ftl::params::{MappingCacheKind, MappingKind};
use crate::sim::scenario::Scenario;

pub(super) fn dram(scenario: &Scenario) -> Result<(), ConfigError> {
    let buffer = &scenario.buffer;
    let ftl = &scenario.ftl;
    let page = scenario.flash.page_size.0;
    fraction("buffer.flush_threshold", buffer.flush_threshold, true, false)?;
    check(
        buffer.dram_size.0 > 0,
        "buffer.dram_size",
        buffer.dram_size,
        "more than 0 B",
    )?;
    let cached = ftl.mapping_cache == MappingCacheKind::Cached;
    let cache = if cached { ftl.mapping_cache_size.0 } else { 0 };
    check(
        buffer.capacity.0.saturating_add(cache) <= buffer.dram_size.0,
        "buffer.capacity",
        buffer.capacity,
        &format!(
            "at most buffer.dram_size ({}){}",
            buffer.dram_size,
            if cached { " less ftl.mapping_cache_size" } else { "" }
        ),
    )?;
    let unit = ftl.mapping_unit.0;
    check(
        buffer.read_cache.0 == 0
            || (buffer.read_cache.0 >= unit
                && buffer.read_cache.0 / unit <= u64::from(u32::MAX)
                && buffer
                    .capacity
                    .0
                    .saturating_add(cache)
                    .saturating_add(buffer.read_cache.0)
                    <= buffer.dram_size.0),
        "buffer.read_cache",
        buffer.read_cache,
        &format!(
            "0 B (off), or at least one mapping unit ({}) and at most buffer.dram_size ({}) less buffer.capacity{}",
            ftl.mapping_unit,
            buffer.dram_size,
            if cached { " and ftl.mapping_cache_size" } else { "" }
        ),
    )?;
    check(
        buffer.read_ahead.0 == 0 || (buffer.read_ahead.0 >= unit && buffer.read_ahead.0 <= buffer.read_cache.0),
        "buffer.read_ahead",
        buffer.read_ahead,
        &format!(
            "0 B (off), or at least one mapping unit ({}) and at most buffer.read_cache ({})",
            ftl.mapping_unit, buffer.read_cache
        ),
    )?;
    if buffer.capacity.0 > 0 {
        check(
            buffer.capacity.0 >= ftl.mapping_unit.0,
            "buffer.capacity",
            buffer.capacity,
            "0 B (off) or at least one mapping unit",
        )?;
        check(
            ftl.mapping == MappingKind::Page,
            "buffer.capacity",
            buffer.capacity,
            "0 B with ftl.mapping = block or bast (the write buffer needs page mapping)",
        )?;
    }
    if cached {
        check(
            ftl.mapping == MappingKind::Page,
            "ftl.mapping_cache",
            "cached",
            "full with ftl.mapping = block or bast",
        )?;
        check(
            ftl.mapping_cache_size.0 >= page,
            "ftl.mapping_cache_size",
            ftl.mapping_cache_size,
            &format!(
                "at least one translation page (flash.page_size, {})",
                scenario.flash.page_size
            ),
        )?;
    }
    let plp = &scenario.plp;
    check(
        plp.capacitance.is_finite() && plp.capacitance >= 0.0,
        "plp.capacitance",
        plp.capacitance,
        "0 uF or more (0: no hold-up capacitors, as on a client drive)",
    )?;
    check(
        plp.bus_voltage.is_finite() && plp.bus_voltage > 0.0 && plp.bus_voltage <= 1000.0,
        "plp.bus_voltage",
        plp.bus_voltage,
        "more than 0 and at most 1000 V",
    )?;
    check(
        plp.dropout_voltage.is_finite() && plp.dropout_voltage >= 0.0 && plp.dropout_voltage < plp.bus_voltage,
        "plp.dropout_voltage",
        plp.dropout_voltage,
        &format!("0 V or more and below plp.bus_voltage ({} V)", plp.bus_voltage),
    )?;
    fraction("plp.efficiency", plp.efficiency, true, false)?;
    fraction("plp.derating", plp.derating, false, true)?;
    check(
        plp.static_power_w.is_finite() && (0.0..=1000.0).contains(&plp.static_power_w),
        "plp.static_power_w",
        plp.static_power_w,
        "0 to 1000 W",
    )?;
    if let Some(ratio) = plp.protected_ratio {
        fraction("plp.protected_ratio", ratio, true, false)?;
    }
    for (index, &at) in scenario.power_loss.at.iter().enumerate() {
        check(
            at > Duration::ZERO,
            &format!("power_loss.at[{index}]"),
            at,
            "a time after the start of the run",
        )?;
    }
    Ok(())
}
