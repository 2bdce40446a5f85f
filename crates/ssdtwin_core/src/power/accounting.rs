//! The power model's accounting between hooks: draining the booked die changes in time order,
//! the rail and meter updates they make, the time-series samples, and the closing of the accounts
//! into the report's power and energy parts (docs/models/power.md).

use std::cmp::Reverse;

use super::meter::{before, nanos_f64, watts, DieState};
use super::profile::Profiles;
use super::report::{EnergyReport, PowerReport};
use super::timeseries::TimeSeries;
use super::PowerModel;
use crate::base::time::{Duration, Time};
use crate::observe::OpClass;

impl PowerModel {
    /// Closes the accounts at `end` (changes booked after it are not counted) and returns the
    /// average and peak powers, the energies and the time series.
    pub fn finish(&mut self, end: Time) -> (PowerReport, EnergyReport, TimeSeries) {
        if !self.enabled {
            return (PowerReport::default(), EnergyReport::default(), TimeSeries::default());
        }
        self.advance(end);
        self.note_total(end);
        self.close_total();
        let energies = self.energies_at(end);
        self.sampler.close(end, energies);
        let (nand_energy, nand_peak, nand_peak_window) = self.nand.finish(end);
        let seconds = end.as_secs_f64();
        let average = |energy: f64| if seconds > 0.0 { energy / seconds } else { 0.0 };
        let [_, io_bus, controller, dram, other, total] = energies;
        let power = PowerReport {
            nand_avg: average(nand_energy),
            nand_peak,
            nand_peak_window,
            io_bus_avg: average(io_bus),
            controller_avg: average(controller),
            dram_avg: average(dram),
            other_avg: average(other),
            total_avg: average(total),
            total_peak: self.total_peak,
        };
        let energy = EnergyReport {
            nand: nand_energy,
            io_bus,
            controller,
            dram,
            other,
            total,
        };
        (power, energy, std::mem::take(&mut self.sampler.series))
    }

    // -------------------------------------------------------------- internals

    /// Applies every booked change up to `now`, in time order, closing sample intervals on the way.
    /// Inlined for the common case of nothing due: one comparison with [`PowerModel::wake`].
    #[inline]
    pub(super) fn advance(&mut self, now: Time) {
        if now >= self.wake {
            self.advance_slow(now);
        }
    }

    #[inline(never)]
    pub(super) fn advance_slow(&mut self, now: Time) {
        if self.ended != super::NO_DIE {
            let die = self.ended;
            self.ended = super::NO_DIE;
            self.refresh(die, self.ended_at);
        }
        while let Some(&Reverse(key)) = self.pending.peek() {
            let (time, die) = self.keys.entry(key);
            if time > now {
                break;
            }
            self.sample_until(time);
            // The die's next change replaces its entry in place (one sift instead of two).
            match self.update(die, time, true) {
                Some(next) => {
                    if let Some(mut top) = self.pending.peek_mut() {
                        *top = Reverse(self.keys.key(next, die));
                    }
                }
                None => {
                    self.pending.pop();
                }
            }
        }
        self.sample_until(now);
        let first_change = match self.pending.peek() {
            Some(&Reverse(key)) => self.keys.entry(key).0,
            None => Time::MAX,
        };
        self.wake = first_change.min(self.sampler.next_boundary);
    }

    /// Closes the sample intervals that end at or before `time`. Inlined for the common case of
    /// none: one comparison, without the constants of [`Self::energies_at`] in the caller.
    #[inline]
    pub(super) fn sample_until(&mut self, time: Time) {
        if time >= self.sampler.next_boundary {
            self.close_samples(time);
        }
    }

    #[inline(never)]
    fn close_samples(&mut self, time: Time) {
        while time >= self.sampler.next_boundary {
            let boundary = self.sampler.next_boundary;
            let energies = self.energies_at(boundary);
            self.sampler.close(boundary, energies);
        }
    }

    /// Cumulative energies of the components at `now`, after applying the changes due (zero with
    /// the model off) [J].
    pub fn energies_now(&mut self, now: Time) -> [f64; 6] {
        if !self.enabled {
            return [0.0; 6];
        }
        self.advance(now);
        self.energies_at(now)
    }

    /// Cumulative energies of the components at `time` (no change pending before it) [J].
    pub(super) fn energies_at(&self, time: Time) -> [f64; 6] {
        let seconds = time.as_secs_f64();
        let nand = self.nand.energy_at(time);
        let io_bus = self.io_bus.energy_at(time);
        let controller = self.controller.energy_at(time) + self.commands as f64 * self.command_energy;
        let dram = self.dram_background * seconds + self.dram_bytes as f64 * self.dram_energy_per_byte;
        let other = self.other * seconds;
        let total = (nand + io_bus + controller + dram + other) * self.inverse_efficiency;
        [nand, io_bus, controller, dram, other, total]
    }

    /// Records the NAND and I/O bus power held since the last change, before a change at `now`.
    #[inline]
    pub(super) fn note_total(&mut self, now: Time) {
        if now > self.total_since {
            self.held_peak = self.held_peak.max(self.nand_sum + self.io_bus_sum);
            self.total_since = now;
        }
    }

    /// Folds the largest power held under the controller's current power into the input peak
    /// (impulse energies excluded), before the controller's power changes and at the end.
    pub(super) fn close_total(&mut self) {
        if self.held_peak != i64::MIN {
            let total = (watts(self.held_peak) + self.controller.power + self.dram_background + self.other)
                * self.inverse_efficiency;
            self.total_peak = self.total_peak.max(total);
            self.held_peak = i64::MIN;
        }
    }

    /// `die`, whose end waits for its update, starts an operation at `now` (the array later) that
    /// puts it at `power` and `io_bus`: skips the end's update if the one update of the start
    /// gives the same accounts, i.e. unless the start brings the die back to a power it had before
    /// its end through different ones at this instant (the rail or the bus meter would see a
    /// change point that one update does not make). The caller checked the array starts later.
    #[inline(always)]
    pub(super) fn absorb_end(&mut self, now: Time, die: u32, power: i64, io_bus: i64) {
        let state = &self.dies[die as usize];
        let old_power = state.power;
        let old_io_bus = state.io_bus;
        if self.ended_at == now
            && !state.suspended
            && state.transfer_end <= now
            && (power != old_power || (old_power == self.standby && old_power == self.bus_idle))
            && (io_bus != old_io_bus || old_io_bus == 0)
        {
            self.ended = super::NO_DIE;
            self.wake = self.wake_before_end;
        }
    }

    /// `die` is in an operation from `now` (its channel becomes active if it was idle). Inlined at
    /// each operation start: the channel's change, rarer, stays out of line.
    #[inline]
    pub(super) fn enter_operation(&mut self, now: Time, die: u32) {
        let state = &mut self.dies[die as usize];
        if !state.in_op {
            state.in_op = true;
            let channel = state.channel as usize;
            self.busy_dies[channel] += 1;
            if self.busy_dies[channel] == 1 {
                self.set_active_channels(now, self.active_channels + 1);
            }
        }
    }

    /// `die` enters an operation whose array runs `class` on a page of `page_type` from `start`
    /// for `duration`, from its profile's first segment; the caller refreshes the die.
    #[inline(always)]
    pub(super) fn begin_profile(
        &mut self,
        now: Time,
        die: u32,
        start: Time,
        class: OpClass,
        page_type: usize,
        duration: Duration,
    ) {
        self.enter_operation(now, die);
        let profile = self.profiles.range(class, page_type);
        let segment_end = start + self.profiles.boundary(profile.first, duration);
        let state = &mut self.dies[die as usize];
        state.profile = profile;
        state.segment = profile.first;
        state.run_start = start;
        state.run_offset = Duration::ZERO;
        state.duration = duration;
        state.segment_end = segment_end;
    }

    /// `die` moves data on its channel at `power` during the `length` that ends at `end`; the
    /// caller refreshes the die.
    #[inline]
    pub(super) fn set_transfer(&mut self, die: u32, end: Time, length: Duration, power: i64) {
        let state = &mut self.dies[die as usize];
        state.transfer_start = before(end, length);
        state.transfer_end = end;
        state.transfer_power = power;
    }

    /// Out of line: a channel's first busy die or last is rarer than the operation starts that
    /// inline [`Self::enter_operation`].
    #[inline(never)]
    pub(super) fn set_active_channels(&mut self, now: Time, active: u32) {
        self.note_total(now);
        self.close_total();
        self.active_channels = active;
        let power = (self.controller_idle + self.controller_channel * f64::from(active)) * self.controller_scale;
        self.controller.set(now, power);
    }

    /// Brings `die` to `now`: passes the profile boundaries due, recomputes its power, updates the
    /// rails and books its next change. One copy of [`Self::update`] for the hooks (the other is
    /// in [`Self::advance_slow`]'s loop).
    #[inline(never)]
    pub(super) fn refresh(&mut self, die: u32, now: Time) {
        if let Some(next) = self.update(die, now, false) {
            let key = self.keys.key(next, die);
            self.pending.push(Reverse(key));
            if next < self.wake {
                self.wake = next;
            }
        }
    }

    /// [`Self::refresh`] without the booking: returns the die's next change if it must be booked
    /// (earlier than its entry in the heap), already recorded as the die's `queued`. `popped`:
    /// the die's entry at `now` has just left the heap (its `queued` is cleared here, in the one
    /// lookup of the die).
    #[inline(always)]
    pub(super) fn update(&mut self, die: u32, now: Time, popped: bool) -> Option<Time> {
        // One lookup of the die's state (the fields borrowed below are disjoint from it).
        let state = &mut self.dies[die as usize];
        if popped && state.queued == now {
            state.queued = Time::MAX;
        }
        let mut next = Time::MAX;
        // The profile: pass the segment boundaries due; its start or next boundary is booked.
        let mut array = false;
        if state.segment < state.profile.end {
            if state.run_start > now {
                next = state.run_start;
            } else {
                if state.segment_end <= now {
                    // Usually one boundary (a booked one): passed here; more, or none left, in
                    // `pass_boundaries`.
                    next_segment(&self.profiles, state);
                    if state.segment < state.profile.end && state.segment_end <= now {
                        pass_boundaries(&self.profiles, state, now);
                    }
                }
                if state.segment < state.profile.end {
                    array = true;
                    if state.segment + 1 < state.profile.end {
                        next = state.segment_end;
                    }
                }
            }
        }
        // The end of a profile and of a transfer need no wake-up: the simulation calls a hook for
        // the die at that very instant (`transfer` at `ReadSensed`, `die_op_end` at `DieDone`),
        // and a program's data load ends where its profile starts, which is booked.
        let transferring = if state.transfer_start > now {
            if state.transfer_start < next {
                next = state.transfer_start;
            }
            false
        } else {
            now < state.transfer_end
        };
        let core = if array {
            self.segment_powers[state.segment as usize]
        } else if transferring || (state.in_op && !state.suspended) {
            self.bus_idle
        } else if state.suspended {
            self.suspended
        } else {
            self.standby
        };
        let (power, io_bus) = if transferring {
            (core + state.transfer_power, self.io_bus_power)
        } else {
            (core, 0)
        };
        let booking = if next < state.queued {
            state.queued = next;
            Some(next)
        } else {
            None
        };

        let old_power = state.power;
        let old_io_bus = state.io_bus;
        if power != old_power || io_bus != old_io_bus {
            state.power = power;
            state.io_bus = io_bus;
            self.note_total(now);
            if power != old_power {
                self.nand_sum += power - old_power;
                self.nand.set(now, watts(self.nand_sum));
                if !self.packages.is_empty() {
                    self.package_change(die, now, power - old_power);
                }
            }
            if io_bus != old_io_bus {
                self.io_bus_sum += io_bus - old_io_bus;
                self.io_bus.set(now, watts(self.io_bus_sum));
            }
        }
        booking
    }

    /// The power of `die`'s package changes by `delta` [pW] at `now`.
    #[inline(never)]
    fn package_change(&mut self, die: u32, now: Time, delta: i64) {
        let meter = &mut self.packages[self.die_package[die as usize] as usize];
        meter.energy += meter.power as f64 * nanos_f64(now, meter.since);
        meter.since = now;
        meter.power += delta;
    }
}

/// Moves the running profile of a die (`state`) past its segment boundaries at or before `now`.
#[inline(never)]
fn pass_boundaries(profiles: &Profiles, state: &mut DieState, now: Time) {
    while state.segment < state.profile.end && state.segment_end <= now {
        next_segment(profiles, state);
    }
}

/// Moves the running profile of a die (`state`) past its current segment boundary: the next
/// segment, and that segment's end if the profile has one.
#[inline(always)]
fn next_segment(profiles: &Profiles, state: &mut DieState) {
    state.segment += 1;
    if state.segment < state.profile.end {
        // Plain integer arithmetic, no saturation: boundaries do not decrease along a profile and
        // the running segment's is past the offset the run resumed at (`die_op_resume`).
        let boundary = profiles.boundary(state.segment, state.duration).as_nanos();
        debug_assert!(boundary >= state.run_offset.as_nanos());
        state.segment_end = Time::from_nanos(state.run_start.as_nanos() + boundary - state.run_offset.as_nanos());
    }
}
