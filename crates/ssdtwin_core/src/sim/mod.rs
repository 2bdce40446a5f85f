//! Time, the event queue, the random number generator and the assembled simulation.
pub mod event;
pub mod harness;
pub mod rng;
pub mod simulation;
pub mod time;

pub use simulation::Simulation;

use crate::config::Scenario;
use crate::metrics::report::Report;

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
    Config(#[from] crate::config::ConfigError),
    /// The drive stopped making progress (e.g. GC found nothing to reclaim).
    #[error("{0}")]
    Stalled(String),
}

/// Builds and runs the simulation of `scenario`.
pub fn run(scenario: &Scenario, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
    Simulation::new(scenario)?.run(progress)
}
