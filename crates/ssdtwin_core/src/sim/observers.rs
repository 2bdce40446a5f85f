//! The run's observers as one value: what the components' state changes reach, and the thermal
//! model, which observes the power model.

use crate::base::time::Duration;
use crate::base::time::Time;
use crate::metrics::run::RunMetrics;
use crate::observe::{Observer, StateChange};
use crate::power::PowerModel;
use crate::thermal::throttle::{Throttle, ThrottleReport};
use crate::thermal::{ThermalModel, ThermalReport};

/// The power model and the run metrics, fed in the order changes happen.
#[derive(Debug)]
pub struct Observers {
    pub power: PowerModel,
    pub metrics: RunMetrics,
    /// The power model is on: it wants die-level changes.
    pub die_level: bool,
    /// The thermal model and its throttling, when `thermal.enabled`: fed the power model's
    /// per-node energy at each thermal step (`sim/thermal.rs`), not the change stream.
    pub thermal: Option<Thermal>,
}

impl Observer for Observers {
    #[inline(always)]
    fn die_level(&self) -> bool {
        self.die_level
    }

    #[inline(always)]
    fn change(&mut self, now: Time, change: StateChange) {
        if let StateChange::HostCompletion { .. } = change {
            self.metrics.observe(now, &change);
        }
        if self.die_level {
            self.power.observe(now, &change);
        }
    }
}

/// What the thermal model adds to a report: its block, the throttling block and the series
/// columns (`temp_c.<node>`, `throttle_state`); all empty with the model off.
#[derive(Debug, Default)]
pub struct ThermalFigures {
    pub thermal: Option<ThermalReport>,
    pub throttle: Option<ThrottleReport>,
    pub columns: Vec<(String, Vec<f64>)>,
}

/// The thermal model of a run and its throttling policy.
#[derive(Debug)]
pub struct Thermal {
    pub model: ThermalModel,
    pub throttle: Throttle,
    pub step: Duration,
    /// `power.sample_interval` (zero: no time series).
    pub sample_interval: Duration,
}

impl Thermal {
    /// The next step after `now`: one `step` later, or the next series boundary if sooner.
    pub fn next_step(&self, now: Time) -> Time {
        let next = now + self.step;
        if self.sample_interval == Duration::ZERO {
            return next;
        }
        let interval = self.sample_interval.as_nanos();
        let boundary = Time::from_nanos((now.as_nanos() / interval + 1) * interval);
        next.min(boundary)
    }

    pub fn on_boundary(&self, now: Time) -> bool {
        self.sample_interval != Duration::ZERO && now.as_nanos().is_multiple_of(self.sample_interval.as_nanos())
    }
}
