//! The run's observers as one value: what the components' state changes reach.

use crate::base::time::Time;
use crate::metrics::run::RunMetrics;
use crate::observe::{Observer, StateChange};
use crate::power::PowerModel;

/// The power model and the run metrics, fed in the order changes happen.
#[derive(Debug)]
pub struct Observers {
    pub power: PowerModel,
    pub metrics: RunMetrics,
    /// The power model is on: it wants die-level changes.
    pub die_level: bool,
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
