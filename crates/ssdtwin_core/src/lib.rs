//! ssdtwin core: a fast, deterministic discrete-event simulator of a NAND-flash SSD.
//!
//! The crate is pure Rust: no Python, no printing, no plotting. [`load`] turns a scenario (TOML
//! file, text or table, plus `--set` overrides) into a validated [`Scenario`]; [`run`] simulates
//! it and returns a [`Report`]. See `ARCHITECTURE.md` for the map of the modules.
//!
//! Layers, lowest first; a module imports only modules below it (`tests/it/layers.rs` checks):
//! `base` (time, units, random numbers, the config error), `observe` (what components report to
//! observers), the components `flash` → `ftl` → `controller` → `host` → `workload`, the observers
//! `power`, `metrics` and `thermal` beside them (they import only `base` and `observe`), the engine `sim`,
//! and the scenario parser `config` on top.

pub mod base;
pub mod config;
pub mod controller;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod metrics;
pub mod observe;
pub mod power;
pub mod reliability;
pub mod sim;
pub mod thermal;
pub mod workload;

pub use base::error::ConfigError;
pub use config::{load, Override, ScenarioSource};
pub use sim::report::Report;
pub use sim::scenario::Scenario;
pub use sim::Simulation;
pub use sim::{Progress, RunError};

pub use base::VERSION;

/// Simulates `scenario` to completion. `progress` is called every few milliseconds of wall time
/// with the fraction done; returning `false` stops the run with [`RunError::Interrupted`].
pub fn run(scenario: &Scenario, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
    Simulation::new(scenario)?.run(progress)
}
