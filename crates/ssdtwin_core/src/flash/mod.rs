//! The NAND flash array: geometry, operation timing, dies and channels.
//!
//! Geometry is channels × chips per channel × dies per chip × planes × blocks × pages. A die runs
//! one operation at a time (read, program, erase); a channel carries one transfer at a time
//! (command/address cycles, data in for programs, data out for reads). Channel time is granted in
//! request order, which the event queue's time order gives for free: a transfer requested at `now`
//! starts when the channel is next free. The flash model moves time; it never computes watts.

pub mod geometry;
pub mod params;
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
    /// Channel-switch delay before a transfer to another chip than the previous transfer's
    /// (Cho et al., section III-B and IV-B); zero when the preset gives none.
    pub switch_time: Duration,
    /// Chip (way) the next transfer addresses, set by [`Self::select`].
    selected: u32,
    /// Chip of the previous transfer, `None` before the first.
    last_chip: Option<u32>,
    /// Channel switches made.
    pub switches: u64,
}

impl Channel {
    /// A channel that pays `switch_time` whenever it moves to another chip.
    pub fn new(switch_time: Duration) -> Channel {
        Channel {
            switch_time,
            ..Channel::default()
        }
    }

    /// Addresses the following transfers to `chip` (the chip of the die being served).
    #[inline]
    pub fn select(&mut self, chip: u32) {
        self.selected = chip;
    }

    /// Books the channel for `length` from `now` or when it is next free, after the switch delay
    /// when the selected chip differs from the previous transfer's; returns the end.
    pub fn reserve(&mut self, now: Time, length: Duration) -> Time {
        let mut start = self.free_at.max(now);
        if self.last_chip.is_some_and(|chip| chip != self.selected) {
            start += self.switch_time;
            self.busy += self.switch_time;
            self.switches += 1;
        }
        self.last_chip = Some(self.selected);
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

    #[test]
    fn a_transfer_to_another_chip_pays_the_switch_delay_once() {
        let mut channel = Channel::new(Duration::from_nanos(30));
        channel.select(0);
        assert_eq!(
            channel.reserve(Time::from_nanos(0), Duration::from_nanos(10)),
            Time::from_nanos(10),
            "the first transfer switches from nothing"
        );
        assert_eq!(
            channel.reserve(Time::from_nanos(100), Duration::from_nanos(10)),
            Time::from_nanos(110),
            "same chip: no switch"
        );
        channel.select(1);
        assert_eq!(
            channel.reserve(Time::from_nanos(200), Duration::from_nanos(10)),
            Time::from_nanos(240),
            "another chip: 30 ns switch, then the transfer"
        );
        assert_eq!(
            channel.reserve(Time::from_nanos(240), Duration::from_nanos(10)),
            Time::from_nanos(250)
        );
        assert_eq!(channel.switches, 1);
        assert_eq!(channel.busy, Duration::from_nanos(70));
    }
}
