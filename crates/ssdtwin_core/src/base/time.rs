//! Simulated time: integer nanoseconds.
//!
//! `Time` is an instant since the start of the simulation, `Duration` a span. Both wrap a `u64`
//! count of nanoseconds, so arithmetic is exact and runs are bit-for-bit reproducible. Units appear
//! only here and at the config edge (`"80us"`, `"2ms"`).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

const NANOS_PER_MICRO: u64 = 1_000;
const NANOS_PER_MILLI: u64 = 1_000_000;
const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// An instant of simulated time [ns since the start of the run].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

/// A span of simulated time [ns].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(nanos: u64) -> Self {
        Time(nanos)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SECOND as f64
    }
    /// Time elapsed since `earlier` (zero if `earlier` is later).
    pub fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);

    pub const fn from_nanos(nanos: u64) -> Self {
        Duration(nanos)
    }
    pub const fn from_micros(micros: u64) -> Self {
        Duration(micros * NANOS_PER_MICRO)
    }
    pub const fn from_millis(millis: u64) -> Self {
        Duration(millis * NANOS_PER_MILLI)
    }
    pub const fn from_secs(secs: u64) -> Self {
        Duration(secs * NANOS_PER_SECOND)
    }
    /// The duration of `seconds`, rounded to the nearest nanosecond.
    pub fn from_secs_f64(seconds: f64) -> Self {
        Duration((seconds * NANOS_PER_SECOND as f64).round().max(0.0) as u64)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SECOND as f64
    }
    /// The nanoseconds as a float, converted as a signed integer: the value `as_nanos() as f64`
    /// gives, in one instruction where the unsigned conversion takes several, for durations below
    /// 2^63 ns (292 years, beyond any simulated time; debug builds check). For the hot paths.
    #[inline]
    pub fn as_nanos_f64(self) -> f64 {
        debug_assert!(self.0 < 1 << 63, "a duration past 292 years");
        self.0 as i64 as f64
    }
    /// [`Self::as_secs_f64`] through [`Self::as_nanos_f64`]'s conversion: the same value below
    /// 2^63 ns.
    #[inline]
    pub fn as_secs_f64_fast(self) -> f64 {
        self.as_nanos_f64() / NANOS_PER_SECOND as f64
    }
    pub fn as_micros_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_MICRO as f64
    }
    /// Time to move `bytes` at `bytes_per_second`, rounded up to the next nanosecond.
    pub fn for_transfer(bytes: u64, bytes_per_second: f64) -> Self {
        Duration((bytes as f64 * NANOS_PER_SECOND as f64 / bytes_per_second).ceil() as u64)
    }
    /// This duration scaled by `factor` (rounded to the nearest nanosecond, never negative).
    pub fn scaled(self, factor: f64) -> Self {
        Duration((self.0 as f64 * factor).round().max(0.0) as u64)
    }
    pub fn max(self, other: Duration) -> Duration {
        Duration(self.0.max(other.0))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, rhs: Duration) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, rhs: Duration) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, rhs: Duration) -> Duration {
        Duration(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, rhs: Duration) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, rhs: Duration) -> Duration {
        Duration(self.0.saturating_sub(rhs.0))
    }
}
impl std::ops::Mul<u64> for Duration {
    type Output = Duration;
    fn mul(self, rhs: u64) -> Duration {
        Duration(self.0.saturating_mul(rhs))
    }
}

impl fmt::Display for Duration {
    /// Prints with the largest unit that keeps the value exact: `80us`, `2ms`, `1500ns`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n == 0 {
            write!(f, "0us")
        } else if n.is_multiple_of(NANOS_PER_SECOND) {
            write!(f, "{}s", n / NANOS_PER_SECOND)
        } else if n.is_multiple_of(NANOS_PER_MILLI) {
            write!(f, "{}ms", n / NANOS_PER_MILLI)
        } else if n.is_multiple_of(NANOS_PER_MICRO) {
            write!(f, "{}us", n / NANOS_PER_MICRO)
        } else {
            write!(f, "{n}ns")
        }
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_time_rounds_up() {
        // 4096 B at 400 MB/s = 10.24 us
        assert_eq!(Duration::for_transfer(4096, 400e6), Duration::from_nanos(10_240));
        assert_eq!(Duration::for_transfer(1, 3e9), Duration::from_nanos(1));
    }

    #[test]
    fn display_uses_exact_unit() {
        assert_eq!(Duration::from_micros(80).to_string(), "80us");
        assert_eq!(Duration::from_millis(2).to_string(), "2ms");
        assert_eq!(Duration::from_nanos(1500).to_string(), "1500ns");
    }
}
