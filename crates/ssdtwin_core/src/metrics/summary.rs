//! Latency summaries of the report (docs/guide/report.md): percentiles and compact CDFs per kind
//! of command, as plain data. `latency.rs` computes them from its HDR histograms.
use serde::Serialize;

/// Percentiles of one latency distribution [us].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub p99_999: f64,
    pub max: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyReport {
    pub read: LatencySummary,
    pub write: LatencySummary,
    pub all: LatencySummary,
}

/// The cumulative distribution of one kind of latency, compact enough for a plot: `fraction[i]` of
/// the commands took at most `latency_us[i]`. Points are the histogram bins where the cumulative
/// fraction first reaches each of a fixed set of quantiles, every 2% in the body and log-spaced
/// in the tail up to 99.9999% (20 per decade of 1 - fraction), plus the minimum and the maximum
/// (fraction 1): at most [`crate::metrics::latency::CDF_MAX_POINTS`] points, so 99.99% is resolved
/// however long the tail. Latencies are bin upper bounds (≤ 0.1% above the true value); each
/// summary percentile (`p99_99` etc.) is one of the points. Empty when no command of the kind ran.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyCdf {
    /// Latency [us], ascending.
    pub latency_us: Vec<f64>,
    /// Fraction of commands with at most that latency, ascending, the last one 1.
    pub fraction: Vec<f64>,
}

/// Latency CDFs per kind of command (the `latency_cdf` report field).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyCdfReport {
    pub read: LatencyCdf,
    pub write: LatencyCdf,
    pub all: LatencyCdf,
}
