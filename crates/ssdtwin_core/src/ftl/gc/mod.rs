//! Garbage-collection victim selection: one small file per policy behind a closed enum.
//!
//! Adding a policy: a file here, a variant of [`VictimPolicy`] built in [`VictimPolicy::new`],
//! and a variant of `ftl::params::GcPolicyKind`. A policy returns a closed block of the plane holding
//! at least one stale unit, or `None` when reclaiming would gain nothing.

pub mod context;
mod cost_benefit;
mod fifo;
mod greedy;
mod random;

use std::collections::VecDeque;

use super::params::{FtlConfig, GcPolicyKind};
pub use context::VictimContext;

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum VictimPolicy {
    Greedy,
    CostBenefit { candidates: u32 },
    Random,
    Fifo { closed: Vec<VecDeque<u32>> },
}

impl VictimPolicy {
    pub fn new(config: &FtlConfig, planes: u32) -> VictimPolicy {
        match config.gc_policy {
            GcPolicyKind::Greedy => VictimPolicy::Greedy,
            GcPolicyKind::CostBenefit => VictimPolicy::CostBenefit {
                candidates: config.gc_candidates,
            },
            GcPolicyKind::Random => VictimPolicy::Random,
            GcPolicyKind::Fifo => VictimPolicy::Fifo {
                closed: vec![VecDeque::new(); planes as usize],
            },
        }
    }

    /// Tells the policy that `block` of `plane` was closed.
    pub fn on_close(&mut self, plane: u32, block: u32) {
        if let VictimPolicy::Fifo { closed } = self {
            closed[plane as usize].push_back(block);
        }
    }

    /// Chooses a victim; the caller takes it out of the candidates.
    pub fn select(&mut self, context: &mut VictimContext<'_>) -> Option<u32> {
        match self {
            VictimPolicy::Greedy => greedy::select(context),
            VictimPolicy::CostBenefit { candidates } => cost_benefit::select(context, *candidates),
            VictimPolicy::Random => random::select(context),
            VictimPolicy::Fifo { closed } => fifo::select(context, &mut closed[context.plane as usize]),
        }
    }
}
