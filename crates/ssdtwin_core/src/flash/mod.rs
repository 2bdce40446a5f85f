//! The NAND flash array: geometry, operation timing, dies and channels.
//!
//! Geometry is channels × chips per channel × dies per chip × planes × blocks × pages. A die runs
//! one operation at a time (read, program, erase); a channel carries one transfer at a time
//! (command/address cycles, data in for programs, data out for reads). Channel time is granted in
//! request order, which the event queue's time order gives for free: a transfer requested at `now`
//! starts when the channel is next free. The flash model moves time; it never computes watts.

pub mod geometry;
pub mod timing;

pub use geometry::Geometry;
pub use timing::Timing;

use crate::sim::time::{Duration, Time};

/// One channel (bus) from the controller to its chips.
#[derive(Clone, Debug, Default)]
pub struct Channel {
    /// The channel is busy until this instant.
    pub free_at: Time,
    /// Time spent transferring [ns], for utilisation.
    pub busy: Duration,
}

impl Channel {
    /// Books the channel for `length` from `now` or when it is next free; returns the end.
    pub fn reserve(&mut self, now: Time, length: Duration) -> Time {
        let start = self.free_at.max(now);
        self.free_at = start + length;
        self.busy += length;
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_serves_one_transfer_at_a_time_in_request_order() {
        let mut channel = Channel::default();
        let first = channel.reserve(Time::from_nanos(100), Duration::from_nanos(50));
        let second = channel.reserve(Time::from_nanos(120), Duration::from_nanos(50));
        let third = channel.reserve(Time::from_nanos(500), Duration::from_nanos(10));
        assert_eq!(first, Time::from_nanos(150));
        assert_eq!(second, Time::from_nanos(200), "waits for the first transfer");
        assert_eq!(third, Time::from_nanos(510), "an idle channel starts at once");
        assert_eq!(channel.busy, Duration::from_nanos(110));
    }
}
