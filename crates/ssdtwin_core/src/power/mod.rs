//! The power model (docs/models/power.md; docs/models/power.md).
//!
//! Each NAND die is in one state at a time — standby (ISB), bus idle inside an operation
//! (ICC5), an array operation segment (read, program per page type, erase: the operation's
//! average current times its profile shape, see [`profile`]), suspended, plus an I/O burst on
//! VCCQ (ICC4R/ICC4W) while it moves data on its channel — and draws
//! `VCC·I_CC + VCCQ·I_CCQ` (docs/models/power.md). The NAND rail is the instantaneous sum over dies
//! (Kirchhoff's current law): its energy, exact peak and windowed peak are kept by [`rail::Rail`].
//! The rest of the drive (docs/models/power.md): each channel's I/O bus while it transfers; the
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

mod accounting;
mod meter;
pub mod observer;
pub mod params;
pub mod plp;
pub mod profile;
pub mod rail;
pub mod report;
#[cfg(test)]
mod tests;
pub mod timeseries;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::base::time::{Duration, Time};
use meter::{
    picowatts, watts, DieState, Meter, PendingKeys, AMPERES_PER_MICROAMPERE, AMPERES_PER_MILLIAMPERE,
    JOULES_PER_MICROJOULE, JOULES_PER_NANOJOULE,
};
use params::PowerConfig;
use profile::{ProfileRange, Profiles};
use rail::Rail;
use timeseries::Sampler;
pub use timeseries::TimeSeries;

pub use crate::observe::{Direction, OpClass};

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
    /// The earlier of the first booked change and the end of the sample interval: `advance` has
    /// work only from then on.
    wake: Time,
    /// A die whose operation ended at `ended_at` and whose update waits for the next hook
    /// ([`NO_DIE`]: none): a start of the same die at that instant makes one update of both.
    ended: u32,
    ended_at: Time,
    /// `wake` before the wait (the wait sets it to `ended_at`, so any advance updates the die).
    wake_before_end: Time,
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
    /// The controller's power as a fraction of normal (its NVMe power state, set by throttling).
    controller_scale: f64,
    /// NAND power per package, kept only when the thermal model asked for it (empty otherwise).
    packages: Vec<PackageMeter>,
    /// Package of each die (empty unless packages are kept).
    die_package: Vec<u32>,
}

/// No die (of [`PowerModel::ended`]).
const NO_DIE: u32 = u32::MAX;

/// One NAND package's power [pW] and energy up to `since` [pW·ns].
#[derive(Clone, Copy, Debug, Default)]
struct PackageMeter {
    power: i64,
    since: Time,
    energy: f64,
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
            wake: Sampler::new(config.sample_interval).next_boundary,
            ended: NO_DIE,
            ended_at: Time::ZERO,
            wake_before_end: Time::ZERO,
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
            controller_scale: 1.0,
            packages: Vec::new(),
            die_package: Vec::new(),
        }
    }

    /// Keeps the NAND power per package from now on (for the thermal model): die `d` is on
    /// package `die_package[d]`.
    pub fn track_packages(&mut self, die_package: Vec<u32>) {
        assert_eq!(die_package.len(), self.dies.len(), "one package per die");
        let count = die_package.iter().max().map_or(0, |&last| last as usize + 1);
        self.packages = vec![PackageMeter::default(); count];
        for (die, &package) in die_package.iter().enumerate() {
            self.packages[package as usize].power += self.dies[die].power;
        }
        self.die_package = die_package;
    }

    /// Cumulative energy of each heat source up to `now` [J], after applying the changes due:
    /// each package's dies, the controller with its channel I/O, the DRAM, and the board (other
    /// ICs plus the regulator's loss). Their sum is the drive's input energy.
    pub fn node_energy(&mut self, now: Time) -> crate::observe::NodeEnergy {
        if !self.enabled {
            return crate::observe::NodeEnergy::default();
        }
        self.advance(now);
        let [nand, io_bus, controller, dram, other, total] = self.energies_at(now);
        let packages: Vec<f64> = self
            .packages
            .iter()
            .map(|meter| {
                (meter.energy + meter.power as f64 * meter::nanos_f64(now, meter.since))
                    * meter::WATTS_PER_PICOWATT
                    * meter::JOULES_PER_WATT_NANOSECOND
            })
            .collect();
        crate::observe::NodeEnergy {
            packages,
            controller: controller + io_bus,
            dram,
            board: other + (total - (nand + io_bus + controller + dram + other)),
        }
    }

    /// The idle drive's power per heat source [W] (all dies in standby, no channel active), in
    /// the layout of [`Self::node_energy`].
    pub fn idle_power(&self) -> crate::observe::NodeEnergy {
        let mut packages = vec![0.0; self.packages.len()];
        for &package in &self.die_package {
            packages[package as usize] += watts(self.standby);
        }
        let nand: f64 = packages.iter().sum();
        let sum = nand + self.controller_idle + self.dram_background + self.other;
        crate::observe::NodeEnergy {
            packages,
            controller: self.controller_idle,
            dram: self.dram_background,
            board: self.other + sum * (self.inverse_efficiency - 1.0),
        }
    }

    /// The controller enters a power state drawing `scale` of its normal power, at `now`.
    pub fn controller_power_state(&mut self, now: Time, scale: f64) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.controller_scale = scale;
        self.set_active_channels(now, self.active_channels);
    }

    /// Adds the SLC mode (the SLC cache) as one more page type drawing `read_ma` when read and
    /// `program_ma` when programmed; call before the run.
    pub fn add_slc_mode(&mut self, config: &PowerConfig, page_types: usize, (read_ma, program_ma): (f64, f64)) {
        self.profiles = Profiles::with_slc(config, page_types, Some((read_ma, program_ma)));
        self.segment_powers = self
            .profiles
            .segments
            .iter()
            .map(|segment| picowatts(segment.power_w))
            .collect();
    }

    /// The profiles (for tests and checks).
    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    // ------------------------------------------------------------------ hooks

    /// Die `die` takes an operation at `now`; its array runs `class` on a page of type
    /// `page_type` from `start` (≥ `now`, once the channel has carried the command) for
    /// `duration`. Until `start` the die is bus idle.
    #[inline(always)]
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
        if self.ended == die && start > now {
            // Right after its end: one update for both if that gives the same accounts.
            self.absorb_end(now, die, self.bus_idle, 0);
        }
        self.advance(now);
        self.begin_profile(now, die, start, class, page_type, duration);
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

    /// The interrupted operation of `die` resumes at `start` (≥ `now`) where its profile stopped,
    /// less `rewind` (the extra ISPP time of a resume repeats the profile's last `rewind` before
    /// the stop, down to its start); until then the die is bus idle.
    #[inline]
    pub fn die_op_resume(&mut self, now: Time, die: u32, start: Time, rewind: Duration) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.enter_operation(now, die);
        let profiles = &self.profiles;
        let state = &mut self.dies[die as usize];
        let offset = if rewind < state.interrupted_at {
            state.interrupted_at - rewind
        } else {
            Duration::ZERO
        };
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
        self.set_transfer(die, end, length, power);
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
        // The die's update (to standby) waits for the next hook: usually the die's next start at
        // this instant, which then updates it once (`absorb_end`); any other advance does it first.
        self.ended = die;
        self.ended_at = now;
        self.wake_before_end = self.wake;
        self.wake = now;
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
}
