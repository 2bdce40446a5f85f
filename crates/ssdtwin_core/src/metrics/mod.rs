//! Latency histograms, per-job results and the measurement parts of the report. An observer: it
//! imports only `base`, `observe` and itself.
pub mod jobs;
pub mod latency;
pub mod report;
pub mod run;
pub mod summary;
