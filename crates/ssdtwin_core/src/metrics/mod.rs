//! Latency histograms, counters and the report.
pub mod report;
