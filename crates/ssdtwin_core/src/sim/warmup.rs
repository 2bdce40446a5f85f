//! The warm-up (`workload.warmup`, as fio's `ramp_time`): the start of the run that no measured
//! figure counts. It ends after its count of host completions, or at its instant (an event); then
//! the metrics start measuring, and the counters of the controller, the FTL and the power model
//! are noted, so the report gives what happened after (`gather.rs` subtracts them). Both ends are
//! an `Event::WarmupEnd`: scheduled at the start for a time, by the host at its completion of the
//! count for commands (completions at that same instant handled before it count as warm-up).
//!
//! The warm-up runs in addition to the measured part: with `io_count` the host issues
//! `io_count` commands more than the warm-up completed; with `duration` it stops `duration`
//! after the warm-up's end.

use super::baseline::{tally_since, Baseline, Measured};
use super::Simulation;
use crate::base::event::Event;
use crate::base::time::{Duration, Time};
use crate::ftl::types::{PlacementCounts, SchemeCounts};
use crate::power::report::{EnergyReport, PowerReport};
use crate::workload::params::Warmup;
use crate::workload::Source;

/// The host stops issuing commands by itself (synthetic and IIoT workloads); traces, job files and
/// live sessions end where their input does, and flows that each have an `io_count` when every
/// one has stopped (their counts include the warm-up's commands).
fn host_bounded(workload: &Source, config: &crate::workload::params::WorkloadConfig) -> bool {
    match workload {
        Source::Trace(_) | Source::Fio(_) | Source::External => false,
        Source::Flows(_) => !crate::workload::flows::counted(config),
        _ => true,
    }
}

impl Simulation {
    /// Before the run: extends the host's bound by the warm-up and schedules a timed warm-up's end.
    pub(super) fn prepare_warmup(&mut self) {
        let workload = &self.scenario.workload;
        let bounded = host_bounded(&self.workload, workload);
        match workload.warmup {
            Warmup::Off => {}
            Warmup::Commands(count) => {
                // The host schedules the warm-up's end at its `count`th completion.
                self.host.warmup_commands = count;
                if bounded && workload.io_count > 0 {
                    self.host.io_count = workload.io_count.saturating_add(count);
                } else if bounded {
                    // `duration` counts from the warm-up's end, unknown yet.
                    self.host.stop_at = Time::MAX;
                }
            }
            Warmup::Time(at) => {
                if bounded && workload.io_count > 0 {
                    // Set once the warm-up's completions are known.
                    self.host.io_count = u64::MAX;
                } else if bounded {
                    self.host.stop_at = Time::ZERO + at + workload.duration;
                }
                self.events.schedule(Time::ZERO + at, Event::WarmupEnd);
            }
        }
    }

    /// The warm-up ends at `at` (now): notes the counters, starts the metrics and sets the host's
    /// bound of the measured part.
    pub(super) fn start_measurement(&mut self, at: Time) {
        if self.observers.metrics.measuring {
            return;
        }
        let controller = &self.controller;
        self.baseline = Some(Box::new(Baseline {
            at,
            tally: controller.tally.clone(),
            placed: controller.ftl.counts,
            scheme: controller.ftl.ftl_counts,
            channel_switches: controller.channel_change.changes,
            way_switches: controller.channels.iter().map(|channel| channel.switches).sum(),
            wear_relocations: controller.wear_relocations,
            die_busy: controller.dies.iter().fold(Duration::ZERO, |sum, die| sum + die.busy),
            events: self.events_handled,
            energies: self.observers.power.energies_now(at),
        }));
        self.controller.ftl.reset_fdp_counts();
        self.observers.metrics.start_measuring(at);
        let workload = &self.scenario.workload;
        if host_bounded(&self.workload, workload) {
            if workload.io_count > 0 {
                let warm = self.observers.metrics.warmup_completed;
                self.host.io_count = workload.io_count.saturating_add(warm);
            } else {
                self.host.stop_at = at + workload.duration;
            }
        }
    }

    /// The workload's warnings, and one when the run ended before its warm-up did.
    pub(super) fn workload_warnings(&self) -> Vec<String> {
        let mut warnings = self.workload.warnings();
        if !self.observers.metrics.measuring {
            warnings.push(format!(
                "the run ended during its warm-up (workload.warmup = {}): nothing was measured",
                self.scenario.workload.warmup
            ));
        }
        warnings
    }

    /// Average power and energy of the measured run: the energy since the warm-up's end over the
    /// time since (`seconds`: the measured run and its drain); peaks stay those of the whole run.
    pub(super) fn measured_power(
        &self,
        mut power: PowerReport,
        mut energy: EnergyReport,
        seconds: f64,
    ) -> (PowerReport, EnergyReport) {
        let Some(base) = &self.baseline else {
            return (power, energy);
        };
        let [nand, io_bus, controller, dram, other, total] = base.energies;
        energy.nand -= nand;
        energy.io_bus -= io_bus;
        energy.controller -= controller;
        energy.dram -= dram;
        energy.other -= other;
        energy.total -= total;
        let average = |joules: f64| if seconds > 0.0 { joules / seconds } else { 0.0 };
        power.nand_avg = average(energy.nand);
        power.io_bus_avg = average(energy.io_bus);
        power.controller_avg = average(energy.controller);
        power.dram_avg = average(energy.dram);
        power.other_avg = average(energy.other);
        power.total_avg = average(energy.total);
        (power, energy)
    }

    /// The controller's and FTL's counters of the measured run.
    pub(super) fn measured(&self) -> Measured {
        let controller = &self.controller;
        let now = Measured {
            tally: controller.tally.clone(),
            placed: controller.ftl.counts,
            scheme: controller.ftl.ftl_counts,
            channel_switches: controller.channel_change.changes,
            way_switches: controller.channels.iter().map(|channel| channel.switches).sum(),
            wear_relocations: controller.wear_relocations,
            die_busy: controller.dies.iter().fold(Duration::ZERO, |sum, die| sum + die.busy),
            events: self.events_handled,
        };
        let Some(base) = &self.baseline else {
            return now;
        };
        Measured {
            tally: tally_since(&now.tally, &base.tally),
            placed: PlacementCounts {
                user_units: now.placed.user_units - base.placed.user_units,
                gc_units: now.placed.gc_units - base.placed.gc_units,
                erases: now.placed.erases - base.placed.erases,
                trimmed_units: now.placed.trimmed_units - base.placed.trimmed_units,
            },
            scheme: SchemeCounts {
                valid_page_copies: now.scheme.valid_page_copies - base.scheme.valid_page_copies,
                block_update_erases: now.scheme.block_update_erases - base.scheme.block_update_erases,
                switch_merges: now.scheme.switch_merges - base.scheme.switch_merges,
                partial_merges: now.scheme.partial_merges - base.scheme.partial_merges,
                full_merges: now.scheme.full_merges - base.scheme.full_merges,
                switch_merge_erases: now.scheme.switch_merge_erases - base.scheme.switch_merge_erases,
                partial_merge_erases: now.scheme.partial_merge_erases - base.scheme.partial_merge_erases,
                full_merge_erases: now.scheme.full_merge_erases - base.scheme.full_merge_erases,
            },
            channel_switches: now.channel_switches - base.channel_switches,
            way_switches: now.way_switches - base.way_switches,
            wear_relocations: now.wear_relocations - base.wear_relocations,
            die_busy: now.die_busy - base.die_busy,
            events: now.events - base.events,
        }
    }
}
