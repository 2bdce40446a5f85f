//! Latency histograms, counters and the report.
pub mod latency;
pub mod report;
pub mod jobs;
