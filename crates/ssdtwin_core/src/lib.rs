//! ssdtwin core: a fast, deterministic discrete-event simulator of a NAND-flash SSD.
//!
//! The crate is pure Rust: no Python, no printing, no plotting. [`load`] turns a scenario (TOML
//! file, text or table, plus `--set` overrides) into a validated [`Scenario`]; [`run`] simulates
//! it and returns a [`Report`]. See `ARCHITECTURE.md` for the map of the modules.

pub mod base;
pub mod config;
pub mod controller;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod metrics;
pub mod observe;
pub mod power;
pub mod sim;
pub mod workload;

pub use config::{load, ConfigError, Override, Scenario, ScenarioSource};
pub use metrics::report::Report;
pub use sim::{Progress, RunError, Simulation};

/// Version of the simulator, written into every report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Simulates `scenario` to completion. `progress` is called every few milliseconds of wall time
/// with the fraction done; returning `false` stops the run with [`RunError::Interrupted`].
pub fn run(scenario: &Scenario, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
    sim::run(scenario, progress)
}
