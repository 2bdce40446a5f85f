//! Thermal throttling (docs/models/thermal.md, "Throttling"): a policy reads the temperatures at
//! every thermal step and says which [`Limits`] the drive runs under; the engine applies them
//! through the components that own each behaviour (the host's queue depth and submission time,
//! the controller's frame buffer, array operations per channel and power state).
//!
//! One small file per policy behind the closed enum [`Policy`]: `nvme.rs` (host-controlled thermal
//! management, TMT1/TMT2), `cst.rs` (the self-heating paper's command-submission-time throttling)
//! and `cst_preopt.rs` (the paper's Figure 12 pre-throttling optimisation). A policy is a pure
//! state machine over temperatures and time: it imports nothing of the components. The types
//! policies share are in `limits.rs`.

mod cst;
mod cst_preopt;
pub mod limits;
mod nvme;
pub mod params;

use serde::Serialize;

use crate::base::time::{Duration, Time};
pub use limits::{Baseline, Limits, Readings, ThrottleState};
use params::{ThrottleConfig, ThrottlePolicy};

/// The policies, one per file.
#[derive(Clone, Debug)]
pub enum Policy {
    None,
    Nvme(nvme::Nvme),
    Cst(cst::Cst),
    CstPreopt(cst_preopt::CstPreopt),
}

impl Policy {
    pub fn new(config: &ThrottleConfig, baseline: Baseline) -> Policy {
        match config.policy {
            ThrottlePolicy::None => Policy::None,
            ThrottlePolicy::Nvme => Policy::Nvme(nvme::Nvme::new(config, baseline)),
            ThrottlePolicy::Cst => Policy::Cst(cst::Cst::new(config, baseline)),
            ThrottlePolicy::CstPreopt => Policy::CstPreopt(cst_preopt::CstPreopt::new(config, baseline)),
        }
    }

    /// The limits for `readings` at `now`.
    pub fn decide(&mut self, now: Time, readings: Readings, current: &Limits) -> Limits {
        match self {
            Policy::None => *current,
            Policy::Nvme(policy) => policy.decide(readings),
            Policy::Cst(policy) => policy.decide(readings),
            Policy::CstPreopt(policy) => policy.decide(now, readings),
        }
    }
}

/// The report's `throttle` block.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ThrottleReport {
    pub policy: String,
    /// Transitions to a harder state (off → light, light → heavy, off → heavy).
    pub events: u64,
    /// Time spent throttled (light or heavy) [s].
    pub time_s: f64,
    /// Time spent in each state [s].
    pub state_time_s: std::collections::BTreeMap<String, f64>,
    /// Entries into each throttled state.
    pub entries: std::collections::BTreeMap<String, u64>,
    /// The first state changes, as (time [s], state), at most [`MAX_TRANSITIONS`].
    pub transitions: Vec<(f64, String)>,
}

/// Transitions kept in the report (counts and times are complete beyond them).
pub const MAX_TRANSITIONS: usize = 1000;

/// A policy, the limits in force and what they added up to.
#[derive(Clone, Debug)]
pub struct Throttle {
    policy: Policy,
    name: &'static str,
    limits: Limits,
    since: Time,
    state_time: [Duration; 3],
    entries: [u64; 3],
    events: u64,
    transitions: Vec<(Time, ThrottleState)>,
}

impl Throttle {
    pub fn new(config: &ThrottleConfig, baseline: Baseline, start: Time) -> Throttle {
        Throttle {
            policy: Policy::new(config, baseline),
            name: match config.policy {
                ThrottlePolicy::None => "none",
                ThrottlePolicy::Nvme => "nvme",
                ThrottlePolicy::Cst => "cst",
                ThrottlePolicy::CstPreopt => "cst_preopt",
            },
            limits: Limits::full(&baseline),
            since: start,
            state_time: [Duration::ZERO; 3],
            entries: [0; 3],
            events: 0,
            transitions: Vec::new(),
        }
    }

    /// The policy acts at all.
    pub fn active(&self) -> bool {
        !matches!(self.policy, Policy::None)
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The policy looks at `readings` at `now`; when the limits change, returns them as (before,
    /// after).
    pub fn update(&mut self, now: Time, readings: Readings) -> Option<(Limits, Limits)> {
        let next = self.policy.decide(now, readings, &self.limits);
        if next == self.limits {
            return None;
        }
        let before = self.limits;
        if next.state != self.limits.state {
            self.account(now);
            if next.state > self.limits.state {
                self.events += 1;
            }
            if next.state != ThrottleState::Off {
                self.entries[next.state as usize] += 1;
            }
            if self.transitions.len() < MAX_TRANSITIONS {
                self.transitions.push((now, next.state));
            }
        }
        self.limits = next;
        Some((before, next))
    }

    fn account(&mut self, now: Time) {
        self.state_time[self.limits.state as usize] += now.since(self.since);
        self.since = now;
    }

    /// The report's block, with the state in force counted up to `end`.
    pub fn report(&mut self, end: Time) -> ThrottleReport {
        self.account(end.max(self.since));
        ThrottleReport {
            policy: self.name.to_string(),
            events: self.events,
            time_s: (self.state_time[1] + self.state_time[2]).as_secs_f64(),
            state_time_s: ThrottleState::ALL
                .iter()
                .map(|state| (state.name().to_string(), self.state_time[*state as usize].as_secs_f64()))
                .collect(),
            entries: [ThrottleState::Light, ThrottleState::Heavy]
                .iter()
                .map(|state| (state.name().to_string(), self.entries[*state as usize]))
                .collect(),
            transitions: self
                .transitions
                .iter()
                .map(|(time, state)| (time.as_secs_f64(), state.name().to_string()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
