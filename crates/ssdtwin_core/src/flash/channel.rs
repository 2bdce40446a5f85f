//! One ONFI channel (bus) from the controller to its chips, granted when it is free.
//!
//! A channel carries one thing at a time: command/address cycles, data in (programs) or data out
//! (reads). A die asks for it when it needs it and waits while it is busy; when the current grant
//! ends, the channel goes to a waiting die, command/address cycles first, then data transfers in
//! the order they were asked for. A channel controller slips a short read or erase command (a few
//! hundred ns) between two long data transfers, so a die whose page register has just been read
//! out starts its next array operation at once instead of after every transfer already waiting
//! (ONFI 4.0 section 4, the read and program sequences).
//!
//! Cho et al. (papers/004, section III-B) separate two delays, each paid before a grant and counted
//! as channel time: the channel delay, when the controller moves from one channel to another
//! ([`ChannelChange`], `flash.channel_switch_time`), and the way delay, when a channel moves from
//! one chip (way) to another ([`Channel::occupy`], `flash.way_switch_time`).

use std::collections::VecDeque;

use crate::base::time::{Duration, Time};

/// What a die needs the channel for; command cycles go before data transfers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Command and address cycles that start an array operation (read, erase).
    Command,
    /// Data in (a program's command, address and payload) or data out (a read's payload).
    Data,
}

/// What [`Channel::request`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// The channel is free: the die may [`Channel::occupy`] it now.
    Now,
    /// The die waits; when `wake` is set the caller schedules a channel-free event then.
    Wait { wake: Option<Time> },
}

#[derive(Clone, Debug, Default)]
pub struct Channel {
    /// The current grant ends at this instant.
    pub free_at: Time,
    /// Time spent carrying cycles and data, with switch delays, for utilisation.
    pub busy: Duration,
    /// Way delay before a grant to another chip (way) than the previous one's; zero when the
    /// preset gives none.
    pub switch_time: Duration,
    /// Way switches made (grants to another chip than the previous one's).
    pub switches: u64,
    last_chip: Option<u32>,
    /// A channel-free event is scheduled at `free_at`.
    wake_pending: bool,
    /// The current grant ends with an event of its owner at `free_at` (a read's data out ends
    /// with the die's `DieDone`), which hands the channel on: no channel-free event is needed.
    owner_hands_on: bool,
    commands: VecDeque<u32>,
    data: VecDeque<u32>,
}

impl Channel {
    /// A channel that pays `switch_time` (the way delay) whenever it moves to another chip.
    pub fn new(switch_time: Duration) -> Channel {
        Channel {
            switch_time,
            ..Channel::default()
        }
    }

    /// `die` needs the channel at `now`: granted at once when it is free and nobody waits.
    #[inline]
    pub fn request(&mut self, now: Time, die: u32, need: Need) -> Grant {
        if self.is_free(now) {
            return Grant::Now;
        }
        match need {
            Need::Command => self.commands.push_back(die),
            Need::Data => self.data.push_back(die),
        }
        if self.wake_pending || self.owner_hands_on {
            Grant::Wait { wake: None }
        } else {
            self.wake_pending = true;
            Grant::Wait {
                wake: Some(self.free_at.max(now)),
            }
        }
    }

    /// The channel is free at `now` and nobody waits for it.
    #[inline]
    pub fn is_free(&self, now: Time) -> bool {
        self.free_at <= now && self.commands.is_empty() && self.data.is_empty()
    }

    /// Carries `length` for a die of `chip` from `now`, after `before` (the controller's channel
    /// delay, [`ChannelChange::before`]) and the way delay when the previous grant was for another
    /// chip; returns when it ends.
    #[inline]
    pub fn occupy(&mut self, now: Time, chip: u32, before: Duration, length: Duration) -> Time {
        debug_assert!(self.free_at <= now, "the channel is granted while busy");
        let mut start = now + before;
        self.busy += before;
        if self.last_chip.is_some_and(|last| last != chip) {
            start += self.switch_time;
            self.busy += self.switch_time;
            self.switches += 1;
        }
        self.last_chip = Some(chip);
        self.owner_hands_on = false;
        self.free_at = start + length;
        self.busy += length;
        self.free_at
    }

    /// The grant just made ends with an event of its owner, which then calls
    /// [`Self::take_hand_on`]: the channel schedules no wake-up of its own for it.
    #[inline]
    pub fn owner_hands_on(&mut self) {
        self.owner_hands_on = true;
    }

    /// At the owner's event that ends the grant: whether dies wait for the channel (the owner then
    /// grants the next one as at a channel-free event).
    #[inline]
    pub fn take_hand_on(&mut self) -> bool {
        let hand_on = self.owner_hands_on;
        self.owner_hands_on = false;
        hand_on && !(self.commands.is_empty() && self.data.is_empty())
    }

    /// At the channel-free event: the next waiting die and what it waits for (command cycles
    /// first).
    #[inline]
    pub fn next_waiter(&mut self) -> Option<(u32, Need)> {
        self.wake_pending = false;
        match self.commands.pop_front() {
            Some(die) => Some((die, Need::Command)),
            None => self.data.pop_front().map(|die| (die, Need::Data)),
        }
    }

    /// After a grant made at the channel-free event: when to wake again, if dies still wait.
    #[inline]
    pub fn rearm(&mut self) -> Option<Time> {
        if self.owner_hands_on || (self.commands.is_empty() && self.data.is_empty()) {
            return None;
        }
        self.wake_pending = true;
        Some(self.free_at)
    }
}

/// The controller's channel delay (Cho et al., section III-B: "several µs of channel delay occur
/// when changing channel"; section IV-B: 30 µs): a grant on another channel than the controller's
/// previous grant waits `delay` first.
#[derive(Clone, Debug, Default)]
pub struct ChannelChange {
    /// Delay before a grant on another channel than the previous grant's [duration].
    pub delay: Duration,
    /// Grants that paid the delay (on another channel than the previous grant's, with a delay
    /// above 0).
    pub changes: u64,
    last: Option<u32>,
}

impl ChannelChange {
    /// A controller that pays `delay` whenever its next grant is on another channel.
    pub fn new(delay: Duration) -> ChannelChange {
        ChannelChange {
            delay,
            ..ChannelChange::default()
        }
    }

    /// A grant on `channel` is made now: the delay it pays before it starts.
    #[inline]
    pub fn before(&mut self, channel: u32) -> Duration {
        let changed = self.last.is_some_and(|last| last != channel);
        self.last = Some(channel);
        if changed && self.delay > Duration::ZERO {
            self.changes += 1;
            self.delay
        } else {
            Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(nanos: u64) -> Time {
        Time::from_nanos(nanos)
    }

    #[test]
    fn a_free_channel_grants_at_once_and_a_busy_one_queues() {
        let mut channel = Channel::default();
        assert_eq!(channel.request(at(100), 0, Need::Data), Grant::Now);
        assert_eq!(
            channel.occupy(at(100), 0, Duration::ZERO, Duration::from_nanos(50)),
            at(150)
        );
        assert_eq!(
            channel.request(at(120), 1, Need::Data),
            Grant::Wait { wake: Some(at(150)) },
            "the first waiter schedules the wake-up at the end of the grant"
        );
        assert_eq!(channel.request(at(130), 2, Need::Data), Grant::Wait { wake: None });
        assert_eq!(channel.next_waiter(), Some((1, Need::Data)));
        assert_eq!(
            channel.occupy(at(150), 0, Duration::ZERO, Duration::from_nanos(50)),
            at(200)
        );
        assert_eq!(channel.rearm(), Some(at(200)));
        assert_eq!(channel.next_waiter(), Some((2, Need::Data)));
        assert_eq!(
            channel.occupy(at(200), 0, Duration::ZERO, Duration::from_nanos(10)),
            at(210)
        );
        assert_eq!(channel.rearm(), None);
        assert_eq!(channel.busy, Duration::from_nanos(110));
    }

    #[test]
    fn an_owner_that_hands_on_saves_the_wake_up() {
        let mut channel = Channel::default();
        channel.occupy(at(0), 0, Duration::ZERO, Duration::from_nanos(100));
        channel.owner_hands_on();
        assert_eq!(channel.request(at(10), 1, Need::Command), Grant::Wait { wake: None });
        assert!(channel.take_hand_on(), "a die waits: the owner hands the channel on");
        assert_eq!(channel.next_waiter(), Some((1, Need::Command)));
        channel.occupy(at(100), 0, Duration::ZERO, Duration::from_nanos(10));
        assert!(
            !channel.take_hand_on(),
            "a plain grant is handed on by a channel-free event"
        );
    }

    #[test]
    fn command_cycles_overtake_waiting_data_transfers() {
        let mut channel = Channel::default();
        assert_eq!(channel.request(at(0), 0, Need::Data), Grant::Now);
        channel.occupy(at(0), 0, Duration::ZERO, Duration::from_nanos(10_000));
        channel.request(at(1), 1, Need::Data);
        channel.request(at(2), 2, Need::Data);
        channel.request(at(3), 3, Need::Command);
        assert_eq!(
            channel.next_waiter(),
            Some((3, Need::Command)),
            "the command goes between two transfers"
        );
        assert_eq!(channel.next_waiter(), Some((1, Need::Data)));
        assert_eq!(channel.next_waiter(), Some((2, Need::Data)));
    }

    #[test]
    fn a_grant_to_another_chip_pays_the_switch_delay_once() {
        let mut channel = Channel::new(Duration::from_nanos(30));
        assert_eq!(
            channel.occupy(at(0), 0, Duration::ZERO, Duration::from_nanos(10)),
            at(10),
            "first grant"
        );
        assert_eq!(
            channel.occupy(at(100), 0, Duration::ZERO, Duration::from_nanos(10)),
            at(110),
            "same chip"
        );
        assert_eq!(
            channel.occupy(at(200), 1, Duration::ZERO, Duration::from_nanos(10)),
            at(240),
            "another chip: 30 ns switch, then the transfer"
        );
        assert_eq!(channel.switches, 1);
        assert_eq!(channel.busy, Duration::from_nanos(60));
    }
}

#[cfg(test)]
mod delay_tests {
    use super::*;

    fn at(nanos: u64) -> Time {
        Time::from_nanos(nanos)
    }

    fn ns(nanos: u64) -> Duration {
        Duration::from_nanos(nanos)
    }

    /// One grant of the sequence: the controller's channel delay, then the channel's way delay.
    fn grant(
        change: &mut ChannelChange,
        channels: &mut [Channel],
        channel: u32,
        chip: u32,
        now: u64,
        length: u64,
    ) -> Time {
        let before = change.before(channel);
        channels[channel as usize].occupy(at(now), chip, before, ns(length))
    }

    #[test]
    fn a_known_sequence_pays_the_channel_delay_on_each_channel_change_and_the_way_delay_on_each_way_change() {
        // Cho et al., section III-B: a channel delay C when the controller changes channel, a way
        // delay W when a channel changes chip. Two channels of two ways, C = 30 ns, W = 7 ns,
        // transfers of 10 ns. Each end is start + (C if the channel changed) + (W if the way
        // changed) + 10.
        let mut change = ChannelChange::new(ns(30));
        let mut channels = vec![Channel::new(ns(7)); 2];
        let ends = [
            grant(&mut change, &mut channels, 0, 0, 0, 10),   // first grant: 0 + 10
            grant(&mut change, &mut channels, 0, 1, 20, 10),  // way: 20 + 7 + 10
            grant(&mut change, &mut channels, 1, 0, 40, 10),  // channel: 40 + 30 + 10
            grant(&mut change, &mut channels, 0, 1, 100, 10), // channel, same way: 100 + 30 + 10
            grant(&mut change, &mut channels, 0, 0, 200, 10), // way: 200 + 7 + 10
            grant(&mut change, &mut channels, 0, 0, 300, 10), // neither: 300 + 10
        ];
        assert_eq!(ends, [at(10), at(37), at(80), at(140), at(217), at(310)]);
        assert_eq!(change.changes, 2);
        assert_eq!((channels[0].switches, channels[1].switches), (2, 0));
        // Both delays are channel time: 5 transfers + 2 way delays on channel 0, 1 transfer and
        // its channel delay on channel 1, and channel 0's own channel delay.
        assert_eq!(channels[0].busy, ns(5 * 10 + 2 * 7 + 30));
        assert_eq!(channels[1].busy, ns(10 + 30));
    }

    #[test]
    fn zero_delays_change_no_time() {
        let mut change = ChannelChange::new(Duration::ZERO);
        let mut channels = vec![Channel::new(Duration::ZERO); 2];
        assert_eq!(grant(&mut change, &mut channels, 0, 0, 0, 10), at(10));
        assert_eq!(grant(&mut change, &mut channels, 1, 1, 10, 10), at(20));
        assert_eq!(grant(&mut change, &mut channels, 0, 1, 20, 10), at(30));
        assert_eq!(change.changes, 0, "only a change that costs time is counted");
    }
}
