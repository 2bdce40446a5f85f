//! The bottom layer: simulated time, quantities with units, seeded random numbers and the
//! configuration error. Everything else may use these; they use nothing of the crate but each
//! other.
pub mod error;
pub mod rng;
pub mod time;
pub mod units;

pub use error::ConfigError;
