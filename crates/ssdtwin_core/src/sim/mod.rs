//! The engine and its assembly: the scenario that composes the layers' parameters, the
//! assembled [`Simulation`], its event loop and the report that gathers the components' tallies
//! and the observers' figures.
//!
//! `assembly.rs` builds every component from one validated scenario, top to bottom; `engine.rs`
//! pops events in `(time, sequence)` order and hands each to the component that owns it;
//! `gather.rs` assembles the [`report::Report`]. All state lives in one [`Simulation`] value: no
//! globals, so simulations on different threads never meet. This file imports none of its
//! children, so they may import it without a cycle.
mod assembly;
mod baseline;
pub mod drain;
mod engine;
mod gather;
pub mod harness;
pub mod live;
mod observers;
mod plp;
pub mod plp_model;
pub mod report;
pub mod scenario;
mod slowdown;
mod snapshot;
mod thermal;
mod warmup;

use crate::base::event::EventQueue;
use crate::base::rng::Rng;
use crate::base::time::Time;
use crate::controller::ops::ProbeAction;
use crate::controller::Controller;
use crate::host::Host;
use crate::workload::Source;
use observers::Observers;

/// Progress of a run, as passed to the progress callback.
#[derive(Clone, Debug)]
pub struct Progress {
    /// `"precondition"` or `"run"`.
    pub phase: &'static str,
    /// Fraction of the phase done, 0 to 1.
    pub fraction: f64,
    /// Host commands completed so far.
    pub host_ios: u64,
    /// Simulated time so far [s].
    pub simulated_time_s: f64,
}

/// Why a run stopped without a report.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The progress callback asked to stop.
    #[error("interrupted")]
    Interrupted,
    /// The scenario cannot be simulated as configured.
    #[error("{0}")]
    Config(#[from] crate::base::error::ConfigError),
    /// The drive stopped making progress (e.g. GC found nothing to reclaim).
    #[error("{0}")]
    Stalled(String),
}

/// One simulated drive under one workload.
#[derive(Debug)]
pub struct Simulation {
    scenario: scenario::Scenario,
    now: Time,
    events: EventQueue,
    workload: Source,
    span_units: u32,
    host: Host,
    controller: Controller,
    observers: Observers,
    precondition_rng: Rng,
    /// The drive is in its preconditioned state (preconditioned, or loaded from a snapshot).
    preconditioned: bool,
    /// The aged start (`reliability.pe_cycles`) has been applied (once, when the run starts; never
    /// saved in a snapshot).
    aged: bool,
    /// Wall time spent loading a snapshot, counted as preconditioning in the report.
    prepared_wall: std::time::Duration,
    events_handled: u64,
    /// Operations of the die-level harness: die and action, by probe id.
    probes: Vec<(u32, ProbeAction)>,
    /// What the hold-up capacitors can flush (`plp.rs`).
    plp: plp_model::PlpModel,
    /// Power cuts so far.
    power_losses: Vec<plp_model::PowerLossEvent>,
    /// Counters at the end of the warm-up (`workload.warmup`), when there was one.
    baseline: Option<Box<baseline::Baseline>>,
}
