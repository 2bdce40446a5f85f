//! The helpers every range check uses: a failure names the key, the value and what is allowed.

use crate::base::error::ConfigError;

pub(super) use crate::base::error::check_range as check;

pub(super) fn fraction(key: &str, value: f64, low_open: bool, high_open: bool) -> Result<(), ConfigError> {
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
