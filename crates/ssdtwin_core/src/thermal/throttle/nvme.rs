//! `nvme`: host-controlled thermal management (NVMe feature 10h) on the composite temperature.
//! At or above TMT1 the drive throttles lightly (array operations per channel capped at
//! `light_array_fraction` of its dies), at or above TMT2 heavily (`heavy_array_fraction`, and the
//! controller drops to a power state of `heavy_controller_power`). A state is left when the
//! temperature falls `hysteresis_k` below the threshold that entered it.

use super::limits::{Baseline, Limits, Readings, ThrottleState};
use super::params::ThrottleConfig;

#[derive(Clone, Debug)]
pub struct Nvme {
    tmt1_c: f64,
    tmt2_c: f64,
    hysteresis_k: f64,
    full: Limits,
    light: Limits,
    heavy: Limits,
    state: ThrottleState,
}

impl Nvme {
    pub fn new(config: &ThrottleConfig, baseline: Baseline) -> Nvme {
        let full = Limits::full(&baseline);
        Nvme {
            tmt1_c: config.tmt1_c,
            tmt2_c: config.tmt2_c,
            hysteresis_k: config.hysteresis_k,
            full,
            light: Limits {
                state: ThrottleState::Light,
                array_fraction: config.light_array_fraction,
                ..full
            },
            heavy: Limits {
                state: ThrottleState::Heavy,
                array_fraction: config.heavy_array_fraction,
                controller_power: config.heavy_controller_power,
                ..full
            },
            state: ThrottleState::Off,
        }
    }

    pub fn decide(&mut self, readings: Readings) -> Limits {
        let t = readings.composite_c;
        self.state = if t >= self.tmt2_c {
            ThrottleState::Heavy
        } else if t >= self.tmt1_c {
            // Heavy holds until TMT2 − hysteresis.
            if self.state == ThrottleState::Heavy && t >= self.tmt2_c - self.hysteresis_k {
                ThrottleState::Heavy
            } else {
                ThrottleState::Light
            }
        } else if self.state == ThrottleState::Heavy && t >= self.tmt2_c - self.hysteresis_k {
            ThrottleState::Heavy
        } else if self.state != ThrottleState::Off && t >= self.tmt1_c - self.hysteresis_k {
            ThrottleState::Light
        } else {
            ThrottleState::Off
        };
        match self.state {
            ThrottleState::Off => self.full,
            ThrottleState::Light => self.light,
            ThrottleState::Heavy => self.heavy,
        }
    }
}
