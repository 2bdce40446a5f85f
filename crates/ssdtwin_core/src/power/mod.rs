//! The power model (MODELS.md section 1; DESIGN.md section 4 "Power").
//!
//! Each NAND die is in one state at a time — standby (ISB), bus idle inside an operation
//! (ICC5), an array operation segment (read, program per page type, erase: the operation's
//! average current times its profile shape, see [`profile`]), suspended, plus an I/O burst on
//! VCCQ (ICC4R/ICC4W) while it moves data on its channel — and draws
//! `VCC·I_CC + VCCQ·I_CCQ` (MODELS 1.1). The NAND rail is the instantaneous sum over dies
//! (Kirchhoff's current law): its energy, exact peak and windowed peak are kept by [`rail::Rail`].
//! The rest of the drive (MODELS 1.1, 1.4): each channel's I/O bus while it transfers; the
//! controller, idle power plus power per channel with a die in an operation plus energy per host
//! command; DRAM background power plus energy per byte moved; other ICs constant; the input power is
//! the sum divided by the regulator efficiency.
//!
//! Accounting is event-driven, never by stepping time: energy is added when a power changes. The
//! simulation calls the hooks below at the instants it handles (operation start and end, transfer
//! booking, command arrival, DRAM traffic, completion). A hook may describe changes in the future
//! (a profile that starts once the channel is free, its ISPP segments, a transfer booked behind
//! others): those wait in a small min-heap of dies keyed by their next change, drained in time
//! order whenever time advances, so the rail sum sees every change in order without adding events
//! to the simulation's queue. Die powers are integer picowatts, so the rail sum is exact.
//!
//! Contract with the caller: a hook for the die comes at the instant its profile ends and at the
//! instant a transfer that ends its operation ends (the simulation's `ReadSensed` and `DieDone`,
//! or `die_op_interrupt` earlier); those two changes are not booked, which halves the heap's work.
//! `tests/it/power.rs` checks the energy balance of whole runs against this.

pub mod observer;
pub mod profile;
pub mod rail;
pub mod timeseries;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::PowerConfig;
use crate::metrics::report::{EnergyReport, PowerReport};
use crate::sim::time::{Duration, Time};

pub use crate::observe::{Direction, OpClass};
use profile::{ProfileRange, Profiles};
use rail::Rail;
use timeseries::Sampler;
pub use timeseries::TimeSeries;

/// Picowatts per watt: die powers are integers so sums over dies are exact.
const PICOWATTS_PER_WATT: f64 = 1e12;
const WATTS_PER_PICOWATT: f64 = 1e-12;
const JOULES_PER_WATT_NANOSECOND: f64 = 1e-9;
const JOULES_PER_MICROJOULE: f64 = 1e-6;
const JOULES_PER_NANOJOULE: f64 = 1e-9;
const AMPERES_PER_MILLIAMPERE: f64 = 1e-3;
const AMPERES_PER_MICROAMPERE: f64 = 1e-6;

fn picowatts(watts: f64) -> i64 {
    (watts * PICOWATTS_PER_WATT).round() as i64
}

fn watts(picowatts: i64) -> f64 {
    picowatts as f64 * WATTS_PER_PICOWATT
}

/// Heap keys: a change of a die at a time packed in one `u64`, the time in the high bits and the
/// die in the low `die_bits`, so one integer comparison orders by time, then die.
#[derive(Clone, Copy, Debug)]
struct PendingKeys {
    die_bits: u32,
}

impl PendingKeys {
    fn new(dies: u32) -> PendingKeys {
        PendingKeys {
            die_bits: u32::BITS - dies.saturating_sub(1).leading_zeros(),
        }
    }

    /// The key of a change of `die` at `time`.
    #[inline]
    fn key(self, time: Time, die: u32) -> u64 {
        let nanos = time.as_nanos();
        assert!(
            nanos <= u64::MAX >> self.die_bits,
            "power model: change booked at {time}, beyond the simulated time it can order"
        );
        (nanos << self.die_bits) | u64::from(die)
    }

    /// The time and die of a key.
    #[inline]
    fn entry(self, key: u64) -> (Time, u32) {
        (
            Time::from_nanos(key >> self.die_bits),
            (key & ((1 << self.die_bits) - 1)) as u32,
        )
    }
}

/// `time - length`, never before zero.
fn before(time: Time, length: Duration) -> Time {
    Time::from_nanos(time.as_nanos().saturating_sub(length.as_nanos()))
}

/// Power of one component that changes at instants: energy up to `since` [W·ns] plus power since.
#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    power: f64,
    since: Time,
    energy: f64,
}

/// Nanoseconds from `earlier` to `later` (not before it), as a float: through `i64`, one
/// instruction where `u64` to `f64` takes several (simulated times stay far below 2⁶³ ns).
#[inline]
fn nanos_f64(later: Time, earlier: Time) -> f64 {
    later.since(earlier).as_nanos() as i64 as f64
}

impl Meter {
    #[inline]
    fn set(&mut self, now: Time, power: f64) {
        self.energy += self.power * nanos_f64(now, self.since);
        self.since = now;
        self.power = power;
    }
    /// Energy up to `now` [J].
    fn energy_at(&self, now: Time) -> f64 {
        (self.energy + self.power * now.since(self.since).as_nanos() as f64) * JOULES_PER_WATT_NANOSECOND
    }
}

/// One die as the power model sees it.
#[derive(Clone, Copy, Debug)]
struct DieState {
    /// Between `die_op_start` and `die_op_end`.
    in_op: bool,
    suspended: bool,
    /// The running (or last) profile; active while `segment < profile.end`.
    profile: ProfileRange,
    segment: u32,
    /// When the profile runs (or resumes), at profile offset `run_offset`.
    run_start: Time,
    run_offset: Duration,
    /// Duration of the whole operation (the profile's time scale).
    duration: Duration,
    /// The interrupted operation held while suspended: its profile, duration and the offset it
    /// reached (reads served meanwhile run their own profiles).
    held_profile: ProfileRange,
    held_duration: Duration,
    interrupted_at: Duration,
    /// End of the current segment (valid while the profile is active and has started).
    segment_end: Time,
    transfer_start: Time,
    transfer_end: Time,
    transfer_power: i64,
    /// Time of this die's earliest entry in the pending heap (`Time::MAX`: none).
    queued: Time,
    /// Contribution to the NAND rail [pW] and to the I/O bus [pW].
    power: i64,
    io_bus: i64,
    /// The die's channel.
    channel: u32,
}

/// The drive's power model: hooks called by the simulation, and the report at the end.
#[derive(Debug)]
pub struct PowerModel {
    enabled: bool,
    profiles: Profiles,
    segment_powers: Vec<i64>,
    standby: i64,
    bus_idle: i64,
    suspended: i64,
    io_read: i64,
    io_write: i64,
    io_bus_power: i64,
    controller_idle: f64,
    controller_channel: f64,
    command_energy: f64,
    dram_energy_per_byte: f64,
    dram_background: f64,
    other: f64,
    /// 1 / regulator efficiency.
    inverse_efficiency: f64,
    dies: Vec<DieState>,
    /// Dies in an operation, per channel.
    busy_dies: Vec<u32>,
    active_channels: u32,
    /// Dies with a booked change, keyed by `keys` (time, then die).
    pending: BinaryHeap<Reverse<u64>>,
    keys: PendingKeys,
    nand_sum: i64,
    io_bus_sum: i64,
    nand: Rail,
    io_bus: Meter,
    controller: Meter,
    /// Host commands processed and bytes moved through DRAM (their energies are per unit).
    commands: u64,
    dram_bytes: u64,
    total_since: Time,
    /// The largest NAND plus I/O bus power held for a positive time since the controller's power
    /// last changed [pW] (`i64::MIN`: none): the input power is largest there.
    held_peak: i64,
    total_peak: f64,
    sampler: Sampler,
}

impl PowerModel {
    /// The model of a drive with `dies` dies on `channels` channels (die `d` on channel
    /// `d % channels`) and `page_types` page types.
    pub fn new(config: &PowerConfig, channels: u32, dies: u32, page_types: usize) -> PowerModel {
        let profiles = Profiles::new(config, page_types);
        let segment_powers = profiles
            .segments
            .iter()
            .map(|segment| picowatts(segment.power_w))
            .collect();
        let core = |milliamperes: f64| picowatts(config.vcc_v * milliamperes * AMPERES_PER_MILLIAMPERE);
        let io = |milliamperes: f64| picowatts(config.vccq_v * milliamperes * AMPERES_PER_MILLIAMPERE);
        let standby = picowatts(config.vcc_v * config.isb_ua * AMPERES_PER_MICROAMPERE);
        let idle_die = DieState {
            in_op: false,
            suspended: false,
            profile: ProfileRange::default(),
            segment: 0,
            run_start: Time::ZERO,
            run_offset: Duration::ZERO,
            duration: Duration::ZERO,
            held_profile: ProfileRange::default(),
            held_duration: Duration::ZERO,
            interrupted_at: Duration::ZERO,
            segment_end: Time::ZERO,
            transfer_start: Time::ZERO,
            transfer_end: Time::ZERO,
            transfer_power: 0,
            queued: Time::MAX,
            power: standby,
            io_bus: 0,
            channel: 0,
        };
        let nand_sum = standby * i64::from(dies);
        let controller = Meter {
            power: config.controller_idle_w,
            ..Meter::default()
        };
        PowerModel {
            enabled: config.enabled,
            profiles,
            segment_powers,
            standby,
            bus_idle: core(config.icc_bus_idle_ma),
            suspended: core(config.icc_suspended_ma),
            io_read: io(config.icc_io_read_ma),
            io_write: io(config.icc_io_write_ma),
            io_bus_power: picowatts(config.io_bus_w),
            controller_idle: config.controller_idle_w,
            controller_channel: config.controller_channel_w,
            command_energy: config.controller_command_uj * JOULES_PER_MICROJOULE,
            dram_energy_per_byte: config.dram_nj_per_kib * JOULES_PER_NANOJOULE / 1024.0,
            dram_background: config.dram_background_w,
            other: config.other_w,
            inverse_efficiency: 1.0 / config.regulator_efficiency,
            dies: (0..dies)
                .map(|die| DieState {
                    channel: die % channels,
                    ..idle_die
                })
                .collect(),
            busy_dies: vec![0; channels as usize],
            active_channels: 0,
            pending: BinaryHeap::with_capacity(2 * dies as usize + 16),
            keys: PendingKeys::new(dies),
            nand_sum,
            io_bus_sum: 0,
            nand: Rail::new(watts(nand_sum), config.peak_window),
            io_bus: Meter::default(),
            controller,
            commands: 0,
            dram_bytes: 0,
            total_since: Time::ZERO,
            held_peak: i64::MIN,
            total_peak: 0.0,
            sampler: Sampler::new(config.sample_interval),
        }
    }

    /// The profiles (for tests and checks).
    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    // ------------------------------------------------------------------ hooks

    /// Die `die` takes an operation at `now`; its array runs `class` on a page of type
    /// `page_type` from `start` (≥ `now`, once the channel has carried the command) for
    /// `duration`. Until `start` the die is bus idle.
    #[inline]
    pub fn die_op_start(
        &mut self,
        now: Time,
        die: u32,
        start: Time,
        class: OpClass,
        page_type: usize,
        duration: Duration,
    ) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.enter_operation(now, die);
        let profile = self.profiles.range(class, page_type);
        let state = &mut self.dies[die as usize];
        state.profile = profile;
        state.segment = profile.first;
        state.run_start = start;
        state.run_offset = Duration::ZERO;
        state.duration = duration;
        state.segment_end = start + self.profiles.boundary(profile.first, duration);
        self.refresh(die, now);
    }

    /// The array operation of `die` is suspended at `now`; its array stopped at `stopped` (≤ `now`,
    /// the end of the running ISPP step; until `now` the die was entering suspend at its profile's
    /// current). The rest of the profile is held: reads may run meanwhile, and between them the die
    /// draws the suspended current until [`Self::die_op_resume`].
    #[inline]
    pub fn die_op_interrupt(&mut self, now: Time, die: u32, stopped: Time) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.refresh(die, now);
        let state = &mut self.dies[die as usize];
        state.held_profile = state.profile;
        state.held_duration = state.duration;
        state.interrupted_at = (state.run_offset + stopped.since(state.run_start)).min(state.duration);
        state.segment = state.profile.end;
        state.suspended = true;
        self.refresh(die, now);
    }

    /// The interrupted operation of `die` resumes at `start` (≥ `now`) where its profile stopped;
    /// until then the die is bus idle.
    #[inline]
    pub fn die_op_resume(&mut self, now: Time, die: u32, start: Time) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.enter_operation(now, die);
        let profiles = &self.profiles;
        let state = &mut self.dies[die as usize];
        let offset = state.interrupted_at;
        state.suspended = false;
        state.profile = state.held_profile;
        state.duration = state.held_duration;
        state.run_start = start;
        state.run_offset = offset;
        state.segment = state.profile.first;
        while state.segment < state.profile.end && profiles.boundary(state.segment, state.duration) <= offset {
            state.segment += 1;
        }
        if state.segment < state.profile.end {
            state.segment_end = start + (profiles.boundary(state.segment, state.duration) - offset);
        }
        self.refresh(die, now);
    }

    /// `die` moves data on its channel during the `length` that ends at `end` (booked at `now`).
    #[inline]
    pub fn transfer(&mut self, now: Time, die: u32, end: Time, length: Duration, direction: Direction) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        let power = match direction {
            Direction::In => self.io_write,
            Direction::Out => self.io_read,
        };
        let state = &mut self.dies[die as usize];
        state.transfer_start = before(end, length);
        state.transfer_end = end;
        state.transfer_power = power;
        self.refresh(die, now);
    }

    /// `die` finished its operation at `now`: back to standby.
    #[inline]
    pub fn die_op_end(&mut self, now: Time, die: u32) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        let state = &mut self.dies[die as usize];
        debug_assert!(
            state.segment >= state.profile.end || (state.run_start <= now && state.segment_end <= now),
            "die {die} ends its operation at {now} before its current profile"
        );
        debug_assert!(
            state.transfer_end <= now,
            "die {die} ends its operation at {now} during a transfer"
        );
        state.segment = state.profile.end;
        if state.in_op {
            state.in_op = false;
            let channel = state.channel as usize;
            self.busy_dies[channel] -= 1;
            if self.busy_dies[channel] == 0 {
                self.set_active_channels(now, self.active_channels - 1);
            }
        }
        self.refresh(die, now);
    }

    /// The controller processes a host command at `now`.
    #[inline]
    pub fn command(&mut self, now: Time) {
        if !self.enabled {
            return;
        }
        if now >= self.sampler.next_boundary {
            self.advance(now);
        }
        self.commands += 1;
    }

    /// `bytes` move through DRAM at `now` (host payload, flash data).
    #[inline]
    pub fn dram_access(&mut self, now: Time, bytes: u64) {
        if !self.enabled {
            return;
        }
        if now >= self.sampler.next_boundary {
            self.advance(now);
        }
        self.dram_bytes += bytes;
    }

    /// A host command of `bytes` completed at `now` (for the time series' IOPS and bandwidth).
    #[inline]
    pub fn host_completion(&mut self, now: Time, bytes: u64) {
        if !self.enabled {
            return;
        }
        if now >= self.sampler.next_boundary {
            self.advance(now);
        }
        self.sampler.completion(bytes);
    }

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
    /// Inlined for the common case of nothing due: two comparisons.
    #[inline]
    fn advance(&mut self, now: Time) {
        let due = match self.pending.peek() {
            Some(&Reverse(key)) => self.keys.entry(key).0 <= now,
            None => false,
        };
        if due || now >= self.sampler.next_boundary {
            self.advance_slow(now);
        }
    }

    #[inline(never)]
    fn advance_slow(&mut self, now: Time) {
        while let Some(&Reverse(key)) = self.pending.peek() {
            let (time, die) = self.keys.entry(key);
            if time > now {
                break;
            }
            self.sample_until(time);
            let state = &mut self.dies[die as usize];
            if state.queued == time {
                state.queued = Time::MAX;
            }
            // The die's next change replaces its entry in place (one sift instead of two).
            match self.update(die, time) {
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
    }

    #[inline]
    fn sample_until(&mut self, time: Time) {
        while time >= self.sampler.next_boundary {
            let boundary = self.sampler.next_boundary;
            let energies = self.energies_at(boundary);
            self.sampler.close(boundary, energies);
        }
    }

    /// Cumulative energies of the components at `time` (no change pending before it) [J].
    fn energies_at(&self, time: Time) -> [f64; 6] {
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
    fn note_total(&mut self, now: Time) {
        if now > self.total_since {
            self.held_peak = self.held_peak.max(self.nand_sum + self.io_bus_sum);
            self.total_since = now;
        }
    }

    /// Folds the largest power held under the controller's current power into the input peak
    /// (impulse energies excluded), before the controller's power changes and at the end.
    fn close_total(&mut self) {
        if self.held_peak != i64::MIN {
            let total = (watts(self.held_peak) + self.controller.power + self.dram_background + self.other)
                * self.inverse_efficiency;
            self.total_peak = self.total_peak.max(total);
            self.held_peak = i64::MIN;
        }
    }

    fn enter_operation(&mut self, now: Time, die: u32) {
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

    fn set_active_channels(&mut self, now: Time, active: u32) {
        self.note_total(now);
        self.close_total();
        self.active_channels = active;
        let power = self.controller_idle + self.controller_channel * f64::from(active);
        self.controller.set(now, power);
    }

    /// Brings `die` to `now`: passes the profile boundaries due, recomputes its power, updates the
    /// rails and books its next change.
    fn refresh(&mut self, die: u32, now: Time) {
        if let Some(next) = self.update(die, now) {
            let key = self.keys.key(next, die);
            self.pending.push(Reverse(key));
        }
    }

    /// [`Self::refresh`] without the booking: returns the die's next change if it must be booked
    /// (earlier than its entry in the heap), already recorded as the die's `queued`.
    fn update(&mut self, die: u32, now: Time) -> Option<Time> {
        let state = &mut self.dies[die as usize];
        let mut next = Time::MAX;
        // The profile: pass the segment boundaries due; its start or next boundary is booked.
        let mut array = false;
        if state.segment < state.profile.end {
            if state.run_start > now {
                next = state.run_start;
            } else {
                if state.segment_end <= now {
                    self.pass_boundaries(die, now);
                }
                let state = &self.dies[die as usize];
                if state.segment < state.profile.end {
                    array = true;
                    if state.segment + 1 < state.profile.end {
                        next = state.segment_end;
                    }
                }
            }
        }
        let state = &mut self.dies[die as usize];
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
            }
            if io_bus != old_io_bus {
                self.io_bus_sum += io_bus - old_io_bus;
                self.io_bus.set(now, watts(self.io_bus_sum));
            }
        }
        booking
    }

    /// Moves the running profile of `die` past its segment boundaries at or before `now`.
    #[inline(never)]
    fn pass_boundaries(&mut self, die: u32, now: Time) {
        let profiles = &self.profiles;
        let state = &mut self.dies[die as usize];
        while state.segment < state.profile.end && state.segment_end <= now {
            state.segment += 1;
            if state.segment < state.profile.end {
                let offset = profiles.boundary(state.segment, state.duration) - state.run_offset;
                state.segment_end = state.run_start + offset;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(micros: u64) -> Time {
        Time::from_nanos(micros * 1000)
    }

    fn config() -> PowerConfig {
        PowerConfig {
            program_profile: vec![(0.2, 2.0), (0.3, 0.5), (0.2, 2.0), (0.3, 0.5)],
            sample_interval: Duration::from_micros(100),
            ..PowerConfig::default()
        }
    }

    #[test]
    fn a_resumed_program_completes_its_profile_energy() {
        let config = PowerConfig {
            icc_suspended_ma: 2.0,
            ..config()
        };
        let program = Duration::from_micros(1000);
        let mut whole = PowerModel::new(&config, 1, 1, 3);
        whole.die_op_start(us(0), 0, us(0), OpClass::Program, 1, program);
        whole.die_op_end(us(1000), 0);
        let (_, whole_energy, _) = whole.finish(us(1300));

        // Suspended at 250 us (inside the second segment), resume requested at 400 us, the array
        // restarts at 550 us and runs the remaining 750 us of the profile.
        let mut split = PowerModel::new(&config, 1, 1, 3);
        split.die_op_start(us(0), 0, us(0), OpClass::Program, 1, program);
        split.die_op_interrupt(us(250), 0, us(250));
        split.die_op_resume(us(400), 0, us(550));
        split.die_op_end(us(1300), 0);
        let (_, split_energy, _) = split.finish(us(1300));

        let milliwatts = |milliamperes: f64| config.vcc_v * milliamperes * 1e-3;
        let standby = config.vcc_v * config.isb_ua * 1e-6;
        let expected = whole_energy.nand - standby * 300e-6
            + milliwatts(config.icc_suspended_ma) * 150e-6
            + milliwatts(config.icc_bus_idle_ma) * 150e-6;
        assert!(
            (split_energy.nand - expected).abs() < 1e-12,
            "{} vs {expected}",
            split_energy.nand
        );
        let profile = whole.profiles().energy(OpClass::Program, 1, program);
        assert!((whole_energy.nand - profile - standby * 300e-6).abs() < 1e-12);
    }

    #[test]
    fn time_series_integrates_to_the_energy() {
        let config = config();
        let mut model = PowerModel::new(&config, 2, 4, 3);
        model.die_op_start(us(10), 0, us(20), OpClass::Program, 0, Duration::from_micros(700));
        model.transfer(us(10), 0, us(20), Duration::from_micros(10), Direction::In);
        model.die_op_start(us(30), 3, us(35), OpClass::Read, 2, Duration::from_micros(80));
        model.command(us(30));
        model.dram_access(us(40), 4096);
        model.transfer(us(115), 3, us(140), Duration::from_micros(12), Direction::Out);
        model.die_op_end(us(140), 3);
        model.host_completion(us(141), 4096);
        model.die_op_end(us(720), 0);
        let (power, energy, series) = model.finish(us(1050));
        assert_eq!(series.len(), 11, "10 whole intervals of 100 us and a last one of 50 us");
        let lengths: Vec<f64> = (0..series.len())
            .map(|index| if index == 10 { 50e-6 } else { 100e-6 })
            .collect();
        let integral = |column: &[f64]| column.iter().zip(&lengths).map(|(p, t)| p * t).sum::<f64>();
        let totals = [
            energy.nand,
            energy.io_bus,
            energy.controller,
            energy.dram,
            energy.other,
            energy.total,
        ];
        for (index, expected) in totals.iter().enumerate() {
            let got = integral(&series.power_w[index]);
            assert!((got - expected).abs() < 1e-12, "component {index}: {got} vs {expected}");
        }
        assert_eq!(series.iops[1], 1.0 / 100e-6, "one completion in the second interval");
        assert!(
            power.nand_peak >= power.nand_peak_window && power.nand_peak_window >= power.nand_avg,
            "{power:?}"
        );
    }
}
