//! Range checks of the SLC write cache (`[slc_cache]`, docs/models/slc_cache.md).

use super::checks::{check, fraction};
use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::flash::params::CellType;
use crate::ftl::params::MappingKind;
use crate::sim::scenario::Scenario;

pub(super) fn slc_cache(scenario: &Scenario) -> Result<(), ConfigError> {
    let slc = &scenario.slc_cache;
    fraction("slc_cache.dynamic_share", slc.dynamic_share, false, false)?;
    for (key, value) in [
        ("slc_cache.t_read", slc.t_read),
        ("slc_cache.t_program", slc.t_program),
        ("slc_cache.t_erase", slc.t_erase),
    ] {
        check(value > Duration::ZERO, key, value, "more than 0us")?;
    }
    check(
        slc.icc_ma.is_finite() && slc.icc_ma >= 0.0,
        "slc_cache.icc_ma",
        slc.icc_ma,
        "0 (the lower page's currents) or more",
    )?;
    check(slc.endurance > 0, "slc_cache.endurance", slc.endurance, "at least 1")?;
    if !slc.enabled {
        return Ok(());
    }
    check(
        scenario.flash.cell != CellType::Slc,
        "slc_cache.enabled",
        true,
        "false with flash.cell = \"slc\" (the cache runs MLC/TLC/QLC blocks in SLC mode)",
    )?;
    check(
        scenario.ftl.mapping == MappingKind::Page,
        "slc_cache.enabled",
        true,
        "false unless ftl.mapping = \"page\"",
    )?;
    check(
        slc.static_size.0 > 0 || slc.dynamic_share > 0.0,
        "slc_cache.static_size",
        slc.static_size,
        "more than 0 B, or slc_cache.dynamic_share more than 0, when the cache is enabled",
    )
}
