//! The bottom layer: simulated time, quantities with units, seeded random numbers, the
//! configuration error, the event queue and dense id tables. Everything else may use these; they
//! use nothing of the crate but each other.
pub mod arith;
pub mod error;
pub mod event;
pub mod files;
pub mod memory;
pub mod rng;
pub mod slab;
pub mod time;
pub mod units;

pub use error::ConfigError;

/// Version of the simulator, written into every report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
