//! Range checks of the `[thermal]` and `[throttle]` tables (docs/models/thermal.md): the network
//! (positive capacitances and resistances, a path to ambient from every node), the thresholds
//! (TMT1 below TMT2, release below throttle), and what each model needs of the others.

use crate::base::error::ConfigError;
use crate::power::params::PowerConfig;
use crate::thermal::params::ThermalConfig;
use crate::thermal::throttle::params::{ThrottleConfig, ThrottlePolicy};

/// Range checks of the `[thermal]` and `[throttle]` tables.
pub(super) fn thermal(
    thermal: &ThermalConfig,
    throttle: &ThrottleConfig,
    power: &PowerConfig,
) -> Result<(), ConfigError> {
    if thermal.enabled {
        if !power.enabled {
            return Err(ConfigError::new(
                "thermal.enabled",
                "the thermal model is fed by the power model: set power.enabled = true too",
            ));
        }
        thermal.validate()?;
    }
    throttle.validate()?;
    if throttle.policy != ThrottlePolicy::None && !thermal.enabled {
        return Err(ConfigError::new(
            "throttle.policy",
            "throttling acts on temperatures: set thermal.enabled = true too",
        ));
    }
    Ok(())
}
