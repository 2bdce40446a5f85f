//! A supply rail whose power is piecewise constant: energy, exact peak and windowed peak.
//!
//! The rail's power changes only at change points (Kirchhoff's current law: the rail current is
//! the sum over its dies, docs/models/power.md), so its energy is a sum of power × duration, its
//! exact peak is the largest power held for a positive time (a same-instant dip or spike of zero
//! length is no peak), and its peak over a window `W` — the largest average over any interval of
//! length `W` — is reached where the window's end or start meets a change point: between those
//! breakpoints the windowed average is linear in the window's position. The rail keeps the change
//! points of the last `W` in a queue; each is pushed once and popped once (O(1) amortised), and
//! the window average is evaluated at each breakpoint as it passes.

use crate::base::time::{Duration, Time};

/// Joules per watt-nanosecond: energies are kept in W·ns (no division on the hot path).
const JOULES_PER_WATT_NANOSECOND: f64 = 1e-9;

/// Nanoseconds from `earlier` to `later`, as a float.
#[inline]
fn nanos_between(later: Time, earlier: Time) -> f64 {
    later.since(earlier).as_nanos_f64()
}

/// Number of passed points that triggers moving the live ones to the front of the vector.
const COMPACT_AT: usize = 4096;

/// A change point: the instant, the rail's energy up to it [W·ns], and the power from it on [W].
#[derive(Clone, Copy, Debug)]
struct Point {
    time: Time,
    energy: f64,
    power: f64,
}

#[derive(Debug)]
pub struct Rail {
    power: f64,
    since: Time,
    /// Energy up to `since` [W·ns].
    energy: f64,
    peak: f64,
    window: Duration,
    /// Largest energy over any window seen so far [W·ns] (divided by the window at the end).
    window_peak_energy: f64,
    /// Change points, oldest first, from the origin (time zero); those from `first` on are
    /// younger than one window (a plain vector with a moving start, compacted now and then:
    /// cheaper than a ring buffer's wrapping). The one before `first` (`first` is at least 1) is
    /// the anchor: the latest change point at or before the start of the last evaluated window,
    /// read where it lies rather than copied out at each pass.
    points: Vec<Point>,
    first: usize,
}

impl Rail {
    pub fn new(initial_power: f64, window: Duration) -> Rail {
        let origin = Point {
            time: Time::ZERO,
            energy: 0.0,
            power: initial_power,
        };
        Rail {
            power: initial_power,
            since: Time::ZERO,
            energy: 0.0,
            peak: 0.0,
            window,
            window_peak_energy: 0.0,
            points: {
                let mut points = Vec::with_capacity(COMPACT_AT + 1);
                points.push(origin);
                points
            },
            first: 1,
        }
    }

    /// The power now [W].
    #[inline]
    pub fn power(&self) -> f64 {
        self.power
    }

    /// Energy up to `now` [J] (`now` not before the last change).
    pub fn energy_at(&self, now: Time) -> f64 {
        (self.energy + self.power * nanos_between(now, self.since)) * JOULES_PER_WATT_NANOSECOND
    }

    /// The power changes to `power` at `now` (not before the last change).
    #[inline(always)]
    pub fn set(&mut self, now: Time, power: f64) {
        if now > self.since {
            self.close(now);
            if self.first > COMPACT_AT {
                // Keeps the anchor.
                self.points.drain(..self.first - 1);
                self.first = 1;
            }
            self.points.push(Point {
                time: now,
                energy: self.energy,
                power,
            });
        } else {
            // Another change at the instant of the last: it replaces that one's power (the
            // origin's, the anchor, for a change at time zero: a passed point is older than the
            // last change, so the last point is live or the origin).
            let last = self.points.len() - 1;
            debug_assert!(self.points[last].time == now);
            self.points[last].power = power;
        }
        self.power = power;
    }

    /// Ends the constant segment `[since, now)`.
    #[inline]
    fn close(&mut self, now: Time) {
        let start = self.since;
        let start_energy = self.energy;
        let power = self.power;
        let end_energy = start_energy + power * nanos_between(now, start);
        if power > self.peak {
            self.peak = power;
        }
        let window = self.window;
        // Windows that end inside (start, now] and start at a change point; such a point is at or
        // before `now - window`.
        let oldest_start = Time::from_nanos(now.as_nanos().wrapping_sub(window.as_nanos()));
        if now.as_nanos() >= window.as_nanos() {
            let mut best = self.window_peak_energy;
            // A window starting at a point passed here ends at `point.time + window`, in
            // `(start, now]` (the points before `start - window` went at the last change): its
            // length into the closing segment is `point.time - (start - window)`, an exact
            // integer without the saturating time arithmetic. The position is kept in a local and
            // stored once.
            let shift = start.as_nanos() as i64 - window.as_nanos() as i64;
            let mut first = self.first;
            while let Some(point) = self.points.get(first) {
                if point.time > oldest_start {
                    break;
                }
                let end_energy_at = start_energy + power * (point.time.as_nanos() as i64 - shift) as f64;
                let energy = end_energy_at - point.energy;
                if energy > best {
                    best = energy;
                }
                first += 1;
            }
            self.first = first;
            // The window ending now: a maximum only if the average was rising into `now`, i.e. the
            // closing segment's power exceeds the power leaving the window's start. Whether it
            // does is data (random dies' powers; the jump that tested it was mispredicted about
            // one time in three), so the window is evaluated either way and selected. The anchor
            // is at or before `oldest_start`: a plain difference, no saturation.
            let anchor = self.points[first - 1];
            debug_assert!(anchor.time <= oldest_start);
            let held = (oldest_start.as_nanos() as i64 - anchor.time.as_nanos() as i64) as f64;
            let start_energy_at = anchor.energy + anchor.power * held;
            let energy = end_energy - start_energy_at;
            let candidate = if power > anchor.power { energy } else { best };
            best = if candidate > best { candidate } else { best };
            self.window_peak_energy = best;
        }
        self.energy = end_energy;
        self.since = now;
    }

    /// Closes the rail at `end`: returns (energy [J], exact peak [W], windowed peak [W]). A run
    /// shorter than the window has its average as the windowed peak.
    pub fn finish(&mut self, end: Time) -> (f64, f64, f64) {
        if end > self.since {
            self.close(end);
        }
        let window_peak = if end.as_nanos() < self.window.as_nanos() && end > Time::ZERO {
            self.energy / end.as_nanos() as f64
        } else {
            self.window_peak_energy / self.window.as_nanos() as f64
        };
        // An average never exceeds the maximum; the clamp removes floating-point excess.
        let energy = self.energy * JOULES_PER_WATT_NANOSECOND;
        (energy, self.peak, window_peak.min(self.peak))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(micros: u64) -> Time {
        Time::from_nanos(micros * 1000)
    }

    /// Brute force: the largest average over windows ending on a 1 ns grid.
    fn brute_window_peak(steps: &[(u64, f64)], end: u64, window: u64) -> f64 {
        let power_at = |t: u64| steps.iter().rev().find(|(time, _)| *time <= t).map_or(0.0, |s| s.1);
        let mut best = 0.0f64;
        let mut sum: f64 = (0..window).map(power_at).sum();
        best = best.max(sum / window as f64);
        for t in window..end {
            sum += power_at(t) - power_at(t - window);
            best = best.max(sum / window as f64);
        }
        best
    }

    #[test]
    fn energy_and_exact_peak_of_steps() {
        let mut rail = Rail::new(1.0, Duration::from_micros(10));
        rail.set(us(10), 3.0);
        rail.set(us(20), 3.0);
        rail.set(us(20), 0.5); // two changes at one instant: only the last holds
        rail.set(us(25), 7.0);
        rail.set(us(25), 2.0); // a zero-length spike is no peak
        let (energy, peak, _) = rail.finish(us(40));
        let expected = (1.0 * 10.0 + 3.0 * 10.0 + 0.5 * 5.0 + 2.0 * 15.0) * 1e-6;
        assert!((energy - expected).abs() < 1e-15, "{energy} vs {expected}");
        assert_eq!(peak, 3.0);
    }

    #[test]
    fn random_steps_match_brute_force() {
        // Steps at random instants, often several at one instant and often closer together than
        // the window, so that one change passes several window starts, or none; windows from
        // 1 ns to longer than most gaps. Energy, exact peak and windowed peak against the 1 ns grid.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut draw = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        for case in 0..40 {
            let window = [1, 3, 17, 64, 250][case % 5];
            let mut steps = vec![(0, 0.1 * (1 + draw(20)) as f64)];
            let mut time = 0;
            while time < 1500 {
                time += draw(60); // zero: another change at the instant of the last
                steps.push((time, 0.1 * draw(30) as f64));
            }
            let end = time + 1 + draw(100);
            let mut rail = Rail::new(steps[0].1, Duration::from_nanos(window));
            for &(time, power) in &steps[1..] {
                rail.set(Time::from_nanos(time), power);
            }
            let (energy, peak, window_peak) = rail.finish(Time::from_nanos(end));
            let power_at = |t: u64| steps.iter().rev().find(|(time, _)| *time <= t).map_or(0.0, |s| s.1);
            let grid_energy: f64 = (0..end).map(power_at).sum::<f64>() * 1e-9;
            let grid_peak = (0..end).map(power_at).fold(0.0, f64::max);
            let expected = brute_window_peak(&steps, end, window);
            assert!(
                (energy - grid_energy).abs() < 1e-12,
                "case {case}: energy {energy} vs {grid_energy}"
            );
            assert_eq!(peak, grid_peak, "case {case}: exact peak");
            assert!(
                (window_peak - expected).abs() < 1e-9 * expected.max(1.0),
                "case {case}, window {window} ns: {window_peak} vs brute force {expected}"
            );
        }
    }

    #[test]
    fn long_runs_keep_the_anchor_through_compaction() {
        // More change points than `COMPACT_AT`, so the vector is compacted several times while
        // windows (up to thousands of points long) start before a compaction and end after it; a
        // change at time zero first replaces the origin's power. Against a 1 ns grid summed with
        // a sliding window (exact: integer tenths of a watt).
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut draw = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        let mut steps = vec![(0, 3), (0, 1 + draw(20))];
        let mut time = 0;
        while steps.len() < 3 * COMPACT_AT {
            time += draw(12);
            steps.push((time, draw(30)));
        }
        let end = time + 1 + draw(50);
        let mut tenths = vec![0u64; end as usize];
        for (index, &(start, power)) in steps.iter().enumerate() {
            let stop = steps.get(index + 1).map_or(end, |step| step.0);
            tenths[start as usize..stop as usize].fill(power);
        }
        for window in [1, 40, 3000, 20_000] {
            let mut rail = Rail::new(0.1 * steps[0].1 as f64, Duration::from_nanos(window));
            for &(time, power) in &steps[1..] {
                rail.set(Time::from_nanos(time), 0.1 * power as f64);
                // The anchor: the latest point at or before the last evaluated window's start.
                let Some(start) = rail.since.as_nanos().checked_sub(window) else {
                    continue;
                };
                let anchor = rail.points[rail.first - 1];
                assert!(anchor.time.as_nanos() <= start, "window {window}: anchor after {start}");
                if let Some(next) = rail.points.get(rail.first) {
                    assert!(next.time.as_nanos() > start, "window {window}: a point left at {start}");
                }
                assert_eq!(
                    anchor.power,
                    0.1 * tenths[start as usize] as f64,
                    "window {window} at {start}"
                );
            }
            let (energy, peak, window_peak) = rail.finish(Time::from_nanos(end));
            let mut sum: u64 = tenths[..window as usize].iter().sum();
            let mut best = sum;
            for t in window as usize..end as usize {
                sum = sum + tenths[t] - tenths[t - window as usize];
                best = best.max(sum);
            }
            let expected = 0.1 * best as f64 / window as f64;
            let grid_energy = 0.1 * tenths.iter().sum::<u64>() as f64 * 1e-9;
            let grid_peak = 0.1 * *tenths.iter().max().unwrap() as f64;
            assert!(
                (energy - grid_energy).abs() < 1e-12,
                "window {window}: energy {energy} vs {grid_energy}"
            );
            assert!(
                (peak - grid_peak).abs() < 1e-12,
                "window {window}: peak {peak} vs {grid_peak}"
            );
            assert!(
                (window_peak - expected).abs() < 1e-9 * expected.max(1.0),
                "window {window} ns: {window_peak} vs the grid's {expected}"
            );
        }
    }

    #[test]
    fn windowed_peak_matches_brute_force() {
        // A pulse train with uneven widths; windows of several lengths, in ns.
        let steps: Vec<(u64, f64)> = vec![
            (0, 0.2),
            (130, 1.5),
            (170, 0.4),
            (400, 2.0),
            (410, 0.1),
            (600, 1.2),
            (900, 0.3),
            (905, 3.0),
            (960, 0.3),
        ];
        let end = 1500;
        for window in [5, 40, 100, 333, 1000] {
            let mut rail = Rail::new(steps[0].1, Duration::from_nanos(window));
            for &(time, power) in &steps[1..] {
                rail.set(Time::from_nanos(time), power);
            }
            let (_, peak, window_peak) = rail.finish(Time::from_nanos(end));
            let expected = brute_window_peak(&steps, end, window);
            assert!(
                (window_peak - expected).abs() < 1e-9 * expected.max(1.0),
                "window {window} ns: {window_peak} vs brute force {expected}"
            );
            assert!(window_peak <= peak + 1e-12);
        }
    }
}
