//! IOPS and bandwidth over windows of the measured run: their spread (the report's `variability`)
//! and the SNIA steady-state check (`steady_state`), SNIA Solid State Storage Performance Test
//! Specification (PTS) v2.0.2, section 2.1 "Steady State" and 3.3: over a measurement window of
//! 5 rounds, max(y) − min(y) is within 20% of their average, and the excursion of their
//! least-squares line across the window (|slope| × (rounds − 1)) within 10% of it.
//!
//! Completions are counted in windows as they happen: O(1) per completion, no allocation per
//! completion (one push per window closed). With `report.steady_window = "0s"` windows start at
//! [`AUTO_FINE_WINDOW`] and double (neighbours merged) whenever [`AUTO_MAX_WINDOWS`] are closed, so
//! memory stays bounded; the report then regroups them into [`AUTO_WINDOWS`] equal windows.

use serde::Serialize;

use crate::base::time::{Duration, Time};

/// Rounds of the SNIA measurement window.
pub const ROUNDS: usize = 5;
/// Largest allowed max − min of the rounds, as a fraction of their mean (PTS 2.1).
pub const EXCURSION_LIMIT: f64 = 0.20;
/// Largest allowed excursion of the rounds' least-squares line, as a fraction of their mean.
pub const SLOPE_LIMIT: f64 = 0.10;
/// The criterion as the report names it.
pub const CRITERION: &str =
    "SNIA SSS PTS v2.0.2 steady state: last 5 windows, max-min within 20% and least-squares slope excursion within 10% of their mean IOPS";
/// Windows of the measured run with automatic windows.
pub const AUTO_WINDOWS: usize = 10;
/// First length of the fine windows counted with automatic windows.
pub const AUTO_FINE_WINDOW: Duration = Duration::from_micros(100);
/// Closed fine windows kept before neighbours are merged (automatic windows).
pub const AUTO_MAX_WINDOWS: usize = 4096;

/// Min, max, mean and coefficient of variation (population standard deviation / mean) of a
/// figure over windows.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WindowStats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub cv: f64,
}

impl WindowStats {
    pub fn of(values: &[f64]) -> WindowStats {
        if values.is_empty() {
            return WindowStats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / n;
        WindowStats {
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean,
            cv: if mean > 0.0 { variance.sqrt() / mean } else { 0.0 },
        }
    }
}

/// The report's `variability`: IOPS and bandwidth per window of the measured run.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Variability {
    /// Window length [s].
    pub window_s: f64,
    /// Complete windows (a last, partial one is left out).
    pub windows: u64,
    pub iops: WindowStats,
    pub bandwidth_mib_s: WindowStats,
}

/// The report's `steady_state`: the SNIA PTS check on the last [`ROUNDS`] windows' IOPS.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SteadyState {
    pub criterion: String,
    /// Window (round) length [s].
    pub window_s: f64,
    pub rounds: u32,
    /// IOPS of each round, oldest first.
    pub round_iops: Vec<f64>,
    pub mean_iops: f64,
    /// (max − min) / mean of the rounds' IOPS.
    pub excursion_fraction: f64,
    /// |least-squares slope| × (rounds − 1) / mean.
    pub slope_fraction: f64,
    /// Whether both are within their limits; `null` with fewer than 5 windows or no completions.
    pub passed: Option<bool>,
}

/// Mean, excursion fraction and slope-excursion fraction of `rounds` (x = 0, 1, ...).
pub fn snia_figures(rounds: &[f64]) -> (f64, f64, f64) {
    let n = rounds.len() as f64;
    let mean = rounds.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return (mean, 0.0, 0.0);
    }
    let (min, max) = rounds.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
        (lo.min(y), hi.max(y))
    });
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (x, y) in rounds.iter().enumerate() {
        let dx = x as f64 - x_mean;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (mean, (max - min) / mean, slope.abs() * (n - 1.0) / mean)
}

/// The SNIA check of the last [`ROUNDS`] of `iops` (windows of `window_s`).
pub fn steady_state(iops: &[f64], window_s: f64) -> SteadyState {
    let mut state = SteadyState {
        criterion: CRITERION.to_string(),
        window_s,
        rounds: ROUNDS as u32,
        ..SteadyState::default()
    };
    if iops.len() < ROUNDS {
        return state;
    }
    let rounds = &iops[iops.len() - ROUNDS..];
    let (mean, excursion, slope) = snia_figures(rounds);
    state.round_iops = rounds.to_vec();
    state.mean_iops = mean;
    state.excursion_fraction = excursion;
    state.slope_fraction = slope;
    state.passed = (mean > 0.0).then_some(excursion <= EXCURSION_LIMIT && slope <= SLOPE_LIMIT);
    state
}

/// Host completions counted per window from the start of the measured run.
#[derive(Debug)]
pub struct Windows {
    /// Automatic windows (fine windows merged as needed, regrouped at the end).
    auto: bool,
    length: Duration,
    start: Time,
    /// End of the open window; `Time::MAX` before the measured run starts.
    end: Time,
    count: u64,
    bytes: u64,
    /// Closed windows: completions and bytes.
    closed: Vec<(u64, u64)>,
}

impl Windows {
    /// Windows of `length` (zero: automatic); counting starts at [`Self::start`].
    pub fn new(length: Duration) -> Windows {
        let auto = length == Duration::ZERO;
        Windows {
            auto,
            length: if auto { AUTO_FINE_WINDOW } else { length },
            start: Time::ZERO,
            end: Time::MAX,
            count: 0,
            bytes: 0,
            closed: Vec::new(),
        }
    }

    /// The measured run starts at `at`.
    pub fn start(&mut self, at: Time) {
        self.start = at;
        self.end = at + self.length;
    }

    /// A completion of `bytes` at `now` (≥ the start).
    #[inline(always)]
    pub fn record(&mut self, now: Time, bytes: u64) {
        if now >= self.end {
            self.close_until(now);
        }
        self.count += 1;
        self.bytes += bytes;
    }

    #[cold]
    #[inline(never)]
    fn close_until(&mut self, now: Time) {
        while now >= self.end {
            self.closed.push((self.count, self.bytes));
            (self.count, self.bytes) = (0, 0);
            if self.auto && self.closed.len() >= AUTO_MAX_WINDOWS {
                let merged: Vec<(u64, u64)> = self
                    .closed
                    .chunks_exact(2)
                    .map(|pair| (pair[0].0 + pair[1].0, pair[0].1 + pair[1].1))
                    .collect();
                self.closed = merged;
                self.length = self.length + self.length;
            }
            let closed = self.closed.len() as u64 + 1;
            self.end = self.start + Duration::from_nanos(self.length.as_nanos() * closed);
        }
    }

    /// Completions and bytes of the complete windows and the window length: as counted, or with
    /// automatic windows the last [`AUTO_WINDOWS`] equal groups of fine windows (a remainder at
    /// the start left out).
    fn complete(&self) -> (Vec<(u64, u64)>, Duration) {
        if !self.auto || self.closed.len() < AUTO_WINDOWS {
            return (self.closed.clone(), self.length);
        }
        let group = self.closed.len() / AUTO_WINDOWS;
        let used = &self.closed[self.closed.len() - group * AUTO_WINDOWS..];
        let grouped = used
            .chunks_exact(group)
            .map(|chunk| {
                chunk
                    .iter()
                    .fold((0, 0), |(c, b), &(count, bytes)| (c + count, b + bytes))
            })
            .collect();
        (grouped, Duration::from_nanos(self.length.as_nanos() * group as u64))
    }

    /// The report's `variability` and `steady_state`.
    pub fn report(&self) -> (Variability, SteadyState) {
        let (windows, length) = self.complete();
        let seconds = length.as_secs_f64();
        let iops: Vec<f64> = windows.iter().map(|&(count, _)| count as f64 / seconds).collect();
        let bandwidth: Vec<f64> = windows
            .iter()
            .map(|&(_, bytes)| bytes as f64 / (1024.0 * 1024.0) / seconds)
            .collect();
        let variability = Variability {
            window_s: seconds,
            windows: windows.len() as u64,
            iops: WindowStats::of(&iops),
            bandwidth_mib_s: WindowStats::of(&bandwidth),
        };
        (variability, steady_state(&iops, seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_series_passes_with_zero_excursion_and_slope() {
        let state = steady_state(&[1000.0; 8], 0.1);
        assert_eq!(state.excursion_fraction, 0.0);
        assert_eq!(state.slope_fraction, 0.0);
        assert_eq!(state.mean_iops, 1000.0);
        assert_eq!(state.passed, Some(true));
        assert_eq!(state.round_iops.len(), 5);
    }

    #[test]
    fn linear_ramp_has_its_slope_times_four_over_the_mean() {
        // y = 100 + 10 x, x = 0..4: mean 120, slope 10, slope excursion 40 / 120 = 1/3; the
        // excursion max - min is also 40.
        let (mean, excursion, slope) = snia_figures(&[100.0, 110.0, 120.0, 130.0, 140.0]);
        assert!((mean - 120.0).abs() < 1e-12);
        assert!((slope - 40.0 / 120.0).abs() < 1e-12, "{slope}");
        assert!((excursion - 40.0 / 120.0).abs() < 1e-12);
        // A gentle ramp: y = 1000 + 20 x: mean 1040, excursions 80 / 1040 = 7.7%: passes.
        let state = steady_state(&[5.0, 1000.0, 1020.0, 1040.0, 1060.0, 1080.0], 1.0);
        assert!((state.slope_fraction - 80.0 / 1040.0).abs() < 1e-12);
        assert_eq!(state.passed, Some(true), "only the last 5 windows count");
    }

    #[test]
    fn one_dip_gives_its_depth_over_the_mean_and_fails() {
        // 1000 four times and one dip to 500 in the middle: mean 900, excursion 500 / 900; the
        // dip at x = 2 is symmetric, so the fitted slope is 0.
        let state = steady_state(&[1000.0, 1000.0, 500.0, 1000.0, 1000.0], 1.0);
        assert!((state.mean_iops - 900.0).abs() < 1e-12);
        assert!((state.excursion_fraction - 500.0 / 900.0).abs() < 1e-12);
        assert!(state.slope_fraction.abs() < 1e-12);
        assert_eq!(state.passed, Some(false));
    }

    #[test]
    fn slope_alone_fails_the_check() {
        // y = 1000 + 30 x: excursion 120 / 1060 = 11.3% (within 20%), slope excursion the same
        // 11.3% (beyond 10%).
        let state = steady_state(&[1000.0, 1030.0, 1060.0, 1090.0, 1120.0], 1.0);
        assert!(state.excursion_fraction <= EXCURSION_LIMIT);
        assert!((state.slope_fraction - 120.0 / 1060.0).abs() < 1e-12);
        assert_eq!(state.passed, Some(false));
    }

    #[test]
    fn fewer_than_five_windows_decide_nothing() {
        assert_eq!(steady_state(&[1.0, 1.0, 1.0, 1.0], 1.0).passed, None);
    }

    #[test]
    fn stats_are_population_cv() {
        let stats = WindowStats::of(&[1.0, 3.0]);
        assert_eq!((stats.min, stats.max, stats.mean), (1.0, 3.0, 2.0));
        assert!((stats.cv - 0.5).abs() < 1e-12, "std 1 over mean 2");
    }

    fn ms(value: u64) -> Time {
        Time::ZERO + Duration::from_millis(value)
    }

    #[test]
    fn fixed_windows_count_completions_and_leave_out_the_last_partial_window() {
        let mut windows = Windows::new(Duration::from_millis(10));
        windows.start(ms(5));
        // 3 completions in [5, 15), none in [15, 25), 1 in [25, 35), 1 in the partial last window.
        for at in [5, 6, 14, 30, 36] {
            windows.record(ms(at), 4096);
        }
        let (variability, _) = windows.report();
        assert_eq!(variability.windows, 3);
        assert!((variability.window_s - 0.01).abs() < 1e-15);
        assert_eq!(variability.iops.min, 0.0, "an empty window is a window of 0 IOPS");
        assert!((variability.iops.max - 300.0).abs() < 1e-9);
        assert!((variability.bandwidth_mib_s.max - 3.0 * 4096.0 / 1048576.0 / 0.01).abs() < 1e-9);
    }

    #[test]
    fn automatic_windows_merge_but_keep_counts_and_regroup_into_ten() {
        let mut windows = Windows::new(Duration::ZERO);
        windows.start(Time::ZERO);
        // One completion every 50 us for 2 s: 40000 completions, far more fine windows than
        // AUTO_MAX_WINDOWS at 100 us, so they merge.
        for step in 0..40_000u64 {
            windows.record(Time::ZERO + Duration::from_micros(50 * step), 512);
        }
        assert!(windows.closed.len() < AUTO_MAX_WINDOWS);
        let total: u64 = windows.closed.iter().map(|window| window.0).sum::<u64>() + windows.count;
        assert_eq!(total, 40_000, "merging loses no completion");
        let (variability, steady) = windows.report();
        assert_eq!(variability.windows, AUTO_WINDOWS as u64);
        assert!(
            (variability.iops.mean - 20_000.0).abs() < 1e-6,
            "{}",
            variability.iops.mean
        );
        assert!(variability.iops.cv < 1e-12);
        assert_eq!(steady.passed, Some(true));
    }
}
