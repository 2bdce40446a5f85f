//! Latency distributions in HDR histograms (3 significant digits: ≤ 0.1% relative error).

use hdrhistogram::Histogram;

use super::report::LatencySummary;
use crate::sim::time::Duration;

/// Latencies of one kind of command [ns].
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
    total: u128,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder {
            histogram: Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("static histogram bounds are valid"),
            total: 0,
        }
    }
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, latency: Duration) {
        let nanos = latency.as_nanos().max(1);
        self.histogram.saturating_record(nanos);
        self.total += u128::from(nanos);
    }

    /// The histogram of latencies [ns] and the exact sum of all latencies [ns].
    pub fn histogram(&self) -> (&Histogram<u64>, u128) {
        (&self.histogram, self.total)
    }

    pub fn merged(&self, other: &LatencyRecorder) -> LatencyRecorder {
        let mut merged = self.clone();
        merged.histogram.add(&other.histogram).expect("histograms share bounds");
        merged.total += other.total;
        merged
    }

    /// Count, exact mean, percentiles and max [us].
    pub fn summary(&self) -> LatencySummary {
        let count = self.histogram.len();
        if count == 0 {
            return LatencySummary::default();
        }
        let micros = |nanos: u64| nanos as f64 / 1_000.0;
        let quantile = |q: f64| micros(self.histogram.value_at_quantile(q));
        LatencySummary {
            count,
            mean: self.total as f64 / count as f64 / 1_000.0,
            p50: quantile(0.50),
            p90: quantile(0.90),
            p99: quantile(0.99),
            p99_9: quantile(0.999),
            p99_99: quantile(0.9999),
            p99_999: quantile(0.99999),
            max: micros(self.histogram.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_within_a_tenth_of_a_percent() {
        let mut recorder = LatencyRecorder::default();
        for micros in 1..=10_000u64 {
            recorder.record(Duration::from_micros(micros));
        }
        let summary = recorder.summary();
        assert_eq!(summary.count, 10_000);
        assert!((summary.mean - 5_000.5).abs() < 1e-6, "mean is exact: {}", summary.mean);
        assert!((summary.p99 - 9_900.0).abs() / 9_900.0 < 0.001, "{}", summary.p99);
        assert!((summary.p50 - 5_000.0).abs() / 5_000.0 < 0.001, "{}", summary.p50);
        assert!((summary.max - 10_000.0).abs() / 10_000.0 < 0.001);
    }
}
