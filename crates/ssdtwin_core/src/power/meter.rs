//! The power model's bookkeeping units: integer picowatts, heap keys ordering die changes by time
//! then die, meters integrating a power that changes at instants, and the per-die state.
//!
//! Die powers are integer picowatts so the rail sum over dies is exact (docs/models/power.md).

use super::profile::ProfileRange;
use crate::base::time::{Duration, Time};

/// Picowatts per watt: die powers are integers so sums over dies are exact.
pub(super) const PICOWATTS_PER_WATT: f64 = 1e12;
pub(super) const WATTS_PER_PICOWATT: f64 = 1e-12;
pub(super) const JOULES_PER_WATT_NANOSECOND: f64 = 1e-9;
pub(super) const JOULES_PER_MICROJOULE: f64 = 1e-6;
pub(super) const JOULES_PER_NANOJOULE: f64 = 1e-9;
pub(super) const AMPERES_PER_MILLIAMPERE: f64 = 1e-3;
pub(super) const AMPERES_PER_MICROAMPERE: f64 = 1e-6;

pub(super) fn picowatts(watts: f64) -> i64 {
    (watts * PICOWATTS_PER_WATT).round() as i64
}

pub(super) fn watts(picowatts: i64) -> f64 {
    picowatts as f64 * WATTS_PER_PICOWATT
}

/// Heap keys: a change of a die at a time packed in one `u64`, the time in the high bits and the
/// die in the low `die_bits`, so one integer comparison orders by time, then die.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingKeys {
    pub(super) die_bits: u32,
    /// The latest time a key holds [ns] and the mask of the die bits (kept, not shifted at each
    /// booking or decoding).
    max_nanos: u64,
    die_mask: u64,
}

impl PendingKeys {
    pub(super) fn new(dies: u32) -> PendingKeys {
        let die_bits = u32::BITS - dies.saturating_sub(1).leading_zeros();
        PendingKeys {
            die_bits,
            max_nanos: u64::MAX >> die_bits,
            die_mask: (1 << die_bits) - 1,
        }
    }

    /// The key of a change of `die` at `time`.
    #[inline]
    pub(super) fn key(self, time: Time, die: u32) -> u64 {
        let nanos = time.as_nanos();
        assert!(
            nanos <= self.max_nanos,
            "power model: change booked at {time}, beyond the simulated time it can order"
        );
        (nanos << self.die_bits) | u64::from(die)
    }

    /// The time and die of a key.
    #[inline]
    pub(super) fn entry(self, key: u64) -> (Time, u32) {
        (Time::from_nanos(key >> self.die_bits), (key & self.die_mask) as u32)
    }
}

/// `time - length`, never before zero.
pub(super) fn before(time: Time, length: Duration) -> Time {
    Time::from_nanos(time.as_nanos().saturating_sub(length.as_nanos()))
}

/// Power of one component that changes at instants: energy up to `since` [W·ns] plus power since.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Meter {
    pub(super) power: f64,
    pub(super) since: Time,
    pub(super) energy: f64,
}

/// Nanoseconds from `earlier` to `later` (not before it), as a float.
#[inline]
pub(super) fn nanos_f64(later: Time, earlier: Time) -> f64 {
    later.since(earlier).as_nanos_f64()
}

impl Meter {
    #[inline]
    pub(super) fn set(&mut self, now: Time, power: f64) {
        self.energy += self.power * nanos_f64(now, self.since);
        self.since = now;
        self.power = power;
    }
    /// Energy up to `now` [J].
    pub(super) fn energy_at(&self, now: Time) -> f64 {
        (self.energy + self.power * now.since(self.since).as_nanos() as f64) * JOULES_PER_WATT_NANOSECOND
    }
}

/// One die as the power model sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct DieState {
    /// Between `die_op_start` and `die_op_end`.
    pub(super) in_op: bool,
    pub(super) suspended: bool,
    /// The running (or last) profile; active while `segment < profile.end`.
    pub(super) profile: ProfileRange,
    pub(super) segment: u32,
    /// When the profile runs (or resumes), at profile offset `run_offset`.
    pub(super) run_start: Time,
    pub(super) run_offset: Duration,
    /// Duration of the whole operation (the profile's time scale).
    pub(super) duration: Duration,
    /// The interrupted operation held while suspended: its profile, duration and the offset it
    /// reached (reads served meanwhile run their own profiles).
    pub(super) held_profile: ProfileRange,
    pub(super) held_duration: Duration,
    pub(super) interrupted_at: Duration,
    /// End of the current segment (valid while the profile is active and has started).
    pub(super) segment_end: Time,
    pub(super) transfer_start: Time,
    pub(super) transfer_end: Time,
    pub(super) transfer_power: i64,
    /// Time of this die's earliest entry in the pending heap (`Time::MAX`: none).
    pub(super) queued: Time,
    /// Contribution to the NAND rail [pW] and to the I/O bus [pW].
    pub(super) power: i64,
    pub(super) io_bus: i64,
    /// The die's channel.
    pub(super) channel: u32,
}
