//! Latency histograms, counters and the report.
pub mod jobs;
pub mod latency;
pub mod report;
pub mod run;
