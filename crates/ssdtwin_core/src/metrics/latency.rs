//! Latency distributions in HDR histograms (3 significant digits: ≤ 0.1% relative error), their
//! summary percentiles and a compact CDF export for plots.

use hdrhistogram::Histogram;

use super::summary::{LatencyCdf, LatencyCdfReport, LatencySummary};
use crate::base::time::Duration;

/// CDF points every this fraction in the body of the distribution (below the tail).
const CDF_BODY_STEP: f64 = 0.02;
/// CDF points per decade of `1 - fraction` in the tail.
const CDF_TAIL_POINTS_PER_DECADE: u32 = 20;
/// The tail starts at `1 - 10^-CDF_TAIL_FIRST_DECADE` (99%) ...
const CDF_TAIL_FIRST_DECADE: u32 = 2;
/// ... and ends at `1 - 10^-CDF_TAIL_LAST_DECADE` (99.9999%).
const CDF_TAIL_LAST_DECADE: u32 = 6;
/// The quantiles of [`LatencySummary`], spelt as there, so each summary percentile is a CDF point.
const SUMMARY_QUANTILES: [f64; 6] = [0.50, 0.90, 0.99, 0.999, 0.9999, 0.99999];
/// The most points a [`LatencyCdf`] has: body, tail and summary quantiles, minimum and maximum.
pub const CDF_MAX_POINTS: usize = 49
    + (CDF_TAIL_POINTS_PER_DECADE * (CDF_TAIL_LAST_DECADE - CDF_TAIL_FIRST_DECADE)) as usize
    + 1
    + SUMMARY_QUANTILES.len()
    + 2;

/// Largest latency the histograms hold [ns] (an hour); longer ones count as this.
const HIGHEST_NS: u64 = 3_600_000_000_000;
/// The histograms' resolution: 3 significant digits. With a lowest value of 1 ns, HdrHistogram
/// lays its bins out as: values below 2,048 one bin each; above, bucket `b` (values of
/// `2^(b + 10)` to `2^(b + 11) - 1`) in 1,024 bins of `2^b` ns. [`bin_of`] and [`bin_value`]
/// are that layout, checked against the crate in this file's tests.
const SUB_BUCKET_HALF_MAGNITUDE: u32 = 10;
/// `2^11 - 1`: values under 2,048 fall in bucket 0.
const SUB_BUCKET_MASK: u64 = (1 << (SUB_BUCKET_HALF_MAGNITUDE + 1)) - 1;
/// 64 minus the bits of the sub-bucket count (11).
const LEADING_ZERO_BASE: u32 = 64 - (SUB_BUCKET_HALF_MAGNITUDE + 1);
/// Bins: up to the end of the bucket of [`HIGHEST_NS`] (HdrHistogram counts whole buckets, so
/// latencies up to `2^42 - 1` ns keep their own bin; longer ones count as [`HIGHEST_NS`]).
const BINS: usize =
    ((LEADING_ZERO_BASE - (HIGHEST_NS | SUB_BUCKET_MASK).leading_zeros()) as usize + 2) << SUB_BUCKET_HALF_MAGNITUDE;

/// The bin of `value` [ns] in HdrHistogram's layout (3 significant digits, lowest value 1).
#[inline]
const fn bin_of(value: u64) -> usize {
    let bucket = LEADING_ZERO_BASE - (value | SUB_BUCKET_MASK).leading_zeros();
    let sub_bucket = (value >> bucket) as usize;
    ((bucket as usize + 1) << SUB_BUCKET_HALF_MAGNITUDE) + sub_bucket - (1 << SUB_BUCKET_HALF_MAGNITUDE)
}

/// The lowest value of bin `bin` [ns].
fn bin_value(bin: usize) -> u64 {
    let half = 1 << SUB_BUCKET_HALF_MAGNITUDE;
    if bin < 2 * half {
        bin as u64
    } else {
        (((bin & (half - 1)) + half) as u64) << ((bin >> SUB_BUCKET_HALF_MAGNITUDE) - 1)
    }
}

/// Latencies of one kind of command [ns]: counts per bin of an HdrHistogram (3 significant
/// digits: ≤ 0.1% relative error), kept as a plain array so a record is an index and an
/// increment; the histogram itself is built from them when a report reads it.
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    counts: Vec<u64>,
    total: u128,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder {
            counts: vec![0; BINS],
            total: 0,
        }
    }
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, latency: Duration) {
        let nanos = latency.as_nanos().max(1);
        let bin = bin_of(nanos);
        let bin = if bin < BINS { bin } else { bin_of(HIGHEST_NS) };
        self.counts[bin] += 1;
        self.total += u128::from(nanos);
    }

    /// The histogram of latencies [ns] and the exact sum of all latencies [ns].
    pub fn histogram(&self) -> (Histogram<u64>, u128) {
        let mut histogram = Histogram::new_with_bounds(1, HIGHEST_NS, 3).expect("static histogram bounds are valid");
        for (bin, &count) in self.counts.iter().enumerate() {
            if count > 0 {
                histogram.saturating_record_n(bin_value(bin), count);
            }
        }
        (histogram, self.total)
    }

    /// The latency [ns] at `quantile` (0 < `quantile` ≤ 1) as [`Histogram::value_at_quantile`]
    /// gives it (the highest value of the first bin whose cumulative count reaches
    /// ⌈quantile · count⌉), read from the bins without building the histogram (the NBD server asks
    /// for a median every few requests); 0 when nothing is recorded.
    pub fn value_at_quantile(&self, quantile: f64) -> u64 {
        let count: u64 = self.counts.iter().sum();
        if count == 0 {
            return 0;
        }
        let target = ((quantile.min(1.0) * count as f64).ceil() as u64).max(1);
        let mut cumulative = 0u64;
        for (bin, &in_bin) in self.counts.iter().enumerate() {
            cumulative += in_bin;
            if cumulative >= target {
                return bin_value(bin + 1) - 1;
            }
        }
        unreachable!("the bins' cumulative count reaches their total")
    }

    pub fn merged(&self, other: &LatencyRecorder) -> LatencyRecorder {
        let mut merged = self.clone();
        for (sum, &count) in merged.counts.iter_mut().zip(&other.counts) {
            *sum += count;
        }
        merged.total += other.total;
        merged
    }

    /// Count, exact mean, percentiles and max [us].
    pub fn summary(&self) -> LatencySummary {
        let (histogram, total) = self.histogram();
        let count = histogram.len();
        if count == 0 {
            return LatencySummary::default();
        }
        let micros = |nanos: u64| nanos as f64 / 1_000.0;
        let quantile = |q: f64| micros(histogram.value_at_quantile(q));
        LatencySummary {
            count,
            mean: total as f64 / count as f64 / 1_000.0,
            p50: quantile(0.50),
            p90: quantile(0.90),
            p99: quantile(0.99),
            p99_9: quantile(0.999),
            p99_99: quantile(0.9999),
            p99_999: quantile(0.99999),
            max: micros(histogram.max()),
        }
    }

    /// The cumulative distribution at the quantiles of [`cdf_quantiles`] (see [`LatencyCdf`]).
    /// One pass over the recorded bins; called once per report, never in the event loop.
    pub fn cdf(&self) -> LatencyCdf {
        let (histogram, _) = self.histogram();
        let total = histogram.len();
        let mut cdf = LatencyCdf::default();
        if total == 0 {
            return cdf;
        }
        let quantiles = cdf_quantiles();
        // As `Histogram::value_at_quantile` counts: the bin where the cumulative count first
        // reaches ceil(q × total) is the q-quantile.
        let target = |quantile: f64| ((quantile * total as f64).ceil() as u64).max(1);
        let mut next = 0;
        let mut cumulative = 0u64;
        for bin in histogram.iter_recorded() {
            let is_first = cumulative == 0;
            cumulative += bin.count_at_value();
            let mut reached = is_first || cumulative == total;
            while next < quantiles.len() && cumulative >= target(quantiles[next]) {
                next += 1;
                reached = true;
            }
            if reached {
                cdf.latency_us.push(bin.value_iterated_to() as f64 / 1_000.0);
                cdf.fraction.push(cumulative as f64 / total as f64);
            }
        }
        cdf
    }
}

impl LatencyCdfReport {
    /// The CDFs of reads, writes and both (`all` is the merge of the two).
    pub fn new(read: &LatencyRecorder, write: &LatencyRecorder, all: &LatencyRecorder) -> Self {
        LatencyCdfReport {
            read: read.cdf(),
            write: write.cdf(),
            all: all.cdf(),
        }
    }
}

/// The quantiles a [`LatencyCdf`] samples, ascending: every [`CDF_BODY_STEP`] up to 98%, then
/// [`CDF_TAIL_POINTS_PER_DECADE`] log-spaced points per decade of `1 - q` from 99% to 99.9999%,
/// and the summary quantiles.
fn cdf_quantiles() -> Vec<f64> {
    let body_points = (1.0 / CDF_BODY_STEP).round() as u32 - 1;
    let body = (1..=body_points).map(|step| f64::from(step) * CDF_BODY_STEP);
    let tail_steps = CDF_TAIL_POINTS_PER_DECADE * (CDF_TAIL_LAST_DECADE - CDF_TAIL_FIRST_DECADE);
    let tail = (0..=tail_steps).map(|step| {
        let decades = f64::from(CDF_TAIL_FIRST_DECADE) + f64::from(step) / f64::from(CDF_TAIL_POINTS_PER_DECADE);
        1.0 - 10f64.powf(-decades)
    });
    let mut quantiles: Vec<f64> = body.chain(tail).chain(SUMMARY_QUANTILES).collect();
    quantiles.sort_by(f64::total_cmp);
    quantiles
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quantiles read from the bins equal the crate's on the histogram built from them.
    #[test]
    fn quantiles_from_the_bins_equal_the_histograms() {
        let mut recorder = LatencyRecorder::default();
        assert_eq!(recorder.value_at_quantile(0.5), 0);
        let mut seed = 11u64;
        for round in 0..3000u64 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let bits = (seed >> 58) % 40;
            recorder.record(Duration::from_nanos(((seed >> 8) & ((1u64 << bits) - 1)).max(1)));
            if round % 97 == 0 || round < 5 {
                let (histogram, _) = recorder.histogram();
                for quantile in [0.001, 0.25, 0.5, 0.9, 0.99, 0.9999, 1.0] {
                    assert_eq!(
                        recorder.value_at_quantile(quantile),
                        histogram.value_at_quantile(quantile),
                        "quantile {quantile} after {round} records"
                    );
                }
            }
        }
    }

    /// The recorder's bins against the crate's: the same values recorded both ways give equal
    /// histograms (bins, count, minimum and maximum), over the whole range and beyond it.
    #[test]
    fn bins_are_hdrhistograms_layout() {
        let mut direct = Histogram::<u64>::new_with_bounds(1, HIGHEST_NS, 3).unwrap();
        assert_eq!(direct.distinct_values(), BINS);
        let mut recorder = LatencyRecorder::default();
        let mut values: Vec<u64> = (1..5000).collect();
        let mut seed = 7u64;
        for _ in 0..200_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Log-uniform over 1 ns to 2^50 ns, past the highest value and its bucket.
            let bits = (seed >> 58) % 51;
            values.push(((seed >> 8) & ((1u64 << bits) - 1)).max(1));
        }
        values.extend([
            HIGHEST_NS - 1,
            HIGHEST_NS,
            HIGHEST_NS + 1,
            (1 << 42) - 1,
            1 << 42,
            u64::MAX / 2,
        ]);
        for &value in &values {
            direct.saturating_record(value);
            recorder.record(Duration::from_nanos(value));
            assert_eq!(
                bin_value(bin_of(value.min((1 << 42) - 1))),
                direct.lowest_equivalent(value.min((1 << 42) - 1))
            );
        }
        let (built, total) = recorder.histogram();
        assert!(built == direct, "the same histogram");
        assert_eq!(built.max(), direct.max());
        assert_eq!(built.min(), direct.min());
        assert_eq!(total, values.iter().map(|&v| u128::from(v)).sum::<u128>());
    }

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

    /// A long-tailed distribution: 10^6 latencies, 1% of them 100× slower, and a single outlier.
    fn long_tail() -> LatencyRecorder {
        let mut recorder = LatencyRecorder::default();
        for index in 0..1_000_000u64 {
            let micros = match index {
                0 => 50_000,
                index if index % 100 == 0 => 10_000 + index % 997,
                index => 80 + index % 41,
            };
            recorder.record(Duration::from_micros(micros));
        }
        recorder
    }

    #[test]
    fn cdf_is_compact_monotone_and_ends_at_the_maximum() {
        let recorder = long_tail();
        let cdf = recorder.cdf();
        let summary = recorder.summary();
        assert!(
            cdf.latency_us.len() <= CDF_MAX_POINTS && cdf.latency_us.len() > 50,
            "{}",
            cdf.latency_us.len()
        );
        assert_eq!(cdf.latency_us.len(), cdf.fraction.len());
        assert!(
            cdf.latency_us.windows(2).all(|pair| pair[0] < pair[1]),
            "latencies ascend strictly"
        );
        assert!(
            cdf.fraction.windows(2).all(|pair| pair[0] < pair[1]),
            "fractions ascend strictly"
        );
        assert_eq!(*cdf.fraction.last().unwrap(), 1.0);
        assert_eq!(*cdf.latency_us.last().unwrap(), summary.max);
        assert!(
            (cdf.latency_us[0] - 80.0).abs() / 80.0 < 0.001,
            "first point is the minimum"
        );
        assert!((cdf.fraction[0] - 0.99 / 41.0).abs() < 0.001, "{}", cdf.fraction[0]);
    }

    #[test]
    fn every_summary_percentile_is_a_cdf_point_with_its_fraction() {
        let recorder = long_tail();
        let cdf = recorder.cdf();
        let summary = recorder.summary();
        for (quantile, value) in [
            (0.5, summary.p50),
            (0.9, summary.p90),
            (0.99, summary.p99),
            (0.999, summary.p99_9),
            (0.9999, summary.p99_99),
            (0.99999, summary.p99_999),
        ] {
            // The first point whose fraction reaches the quantile is the percentile itself.
            let index = cdf.fraction.iter().position(|&fraction| fraction >= quantile).unwrap();
            assert_eq!(cdf.latency_us[index], value, "quantile {quantile}");
        }
        // The tail is resolved: several points between 99.9% and 99.99%, and 99.99% itself is
        // in the slow 1% (10 ms and more), not the body.
        let in_tail = cdf
            .fraction
            .iter()
            .filter(|&&fraction| (0.999..0.9999).contains(&fraction))
            .count();
        assert!(in_tail >= 5, "{in_tail} points between 99.9% and 99.99%");
        assert!(summary.p99_99 >= 10_000.0);
    }

    #[test]
    fn cdf_of_no_commands_is_empty() {
        let cdf = LatencyRecorder::default().cdf();
        assert!(cdf.latency_us.is_empty() && cdf.fraction.is_empty());
    }
}
