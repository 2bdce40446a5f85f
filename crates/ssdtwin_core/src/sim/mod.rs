//! Time, the event queue, the random number generator and the assembled simulation.
pub mod time;

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
    #[error("interrupted")]
    Interrupted,
    #[error("{0}")]
    Config(#[from] crate::config::ConfigError),
}

pub fn run(scenario: &Scenario, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
    // PLACEHOLDER for the Python-binding branch only; replaced by the engine on main.
    let _ = progress(&Progress { phase: "run", fraction: 1.0, host_ios: 0, simulated_time_s: 0.0 });
    Ok(Report::placeholder(scenario))
}
