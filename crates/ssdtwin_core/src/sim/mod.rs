//! The engine and its assembly: the event queue, the assembled simulation, the scenario that
//! composes the layers' parameters and the report that gathers the observers' parts.
//!
//! This file only declares the modules and the run's progress and error types; it does not
//! import its children, so they may import it without a cycle. [`crate::run`] builds and runs a
//! [`simulation::Simulation`].
pub mod event;
pub mod harness;
pub mod report;
pub mod scenario;
pub mod simulation;

// Transitional: time and random numbers moved to `base`; these keep `crate::sim::time::Duration`
// and `super::rng::Rng` working in the engine files until they import `crate::base` directly.
pub use crate::base::{rng, time};

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
