//! Latency histograms, per-job results, IOPS per window (variability and the SNIA steady-state
//! check) and the measurement parts of the report. An observer: it
//! imports only `base`, `observe` and itself.
pub mod jobs;
pub mod latency;
pub mod params;
pub mod report;
pub mod run;
pub mod steady;
pub mod summary;
