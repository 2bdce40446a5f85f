//! The report of a run, gathered from the components' tallies and the observers' figures.

use super::baseline::Measured;
use super::drain::Drained;
use super::observers::ThermalFigures;
use super::report::{Report, WarmupReport};
use super::Simulation;
use crate::base::time::Duration;
use crate::controller::tally::{SuspendTally, Tally};
use crate::ftl::params::MappingKind;
use crate::metrics::jobs::JobMetrics;
use crate::metrics::latency::LatencyRecorder;
use crate::metrics::report::{
    FlashCounters, FtlErases, FtlMerges, FtlReport, PeCycles, QueueReport, ReadCacheReport, ReadModifyWrites,
    SimulatorReport, SuspendReport, TraceTimestampsReport, WorkloadReport,
};
use crate::metrics::summary::{LatencyCdfReport, LatencyReport};
use crate::power::report::{EnergyReport, PowerReport};
use crate::power::TimeSeries;

/// The report's `suspend` block from the controller's tally.
pub fn suspend_report(tally: &SuspendTally) -> SuspendReport {
    SuspendReport {
        program: tally.program,
        erase: tally.erase,
        per_program: tally.per_program.clone(),
        per_erase: tally.per_erase.clone(),
        mean_program_time_us: SuspendTally::mean_us(tally.program_time, &tally.per_program),
        mean_erase_time_us: SuspendTally::mean_us(tally.erase_time, &tally.per_erase),
    }
}

fn flash_counters(tally: &Tally) -> FlashCounters {
    let (mapping_reads, mapping_programs) = (tally.mapping_reads, tally.mapping_programs);
    FlashCounters {
        reads: tally.reads,
        programs: tally.programs,
        erases: tally.erases,
        gc_reads: tally.gc_reads,
        gc_programs: tally.gc_programs,
        mapping_reads,
        mapping_programs,
    }
}

impl Simulation {
    /// The `ftl` block: copies and erases by cause (Cho et al., Table II).
    fn ftl_report(&self, measured: &Measured) -> FtlReport {
        let ftl = &self.controller.ftl;
        let counts = measured.scheme;
        let page = self.scenario.ftl.mapping == MappingKind::Page;
        let placed = measured.placed;
        let gc = if page { placed.erases } else { 0 };
        let erases = FtlErases {
            gc,
            block_update: counts.block_update_erases,
            switch_merge: counts.switch_merge_erases,
            partial_merge: counts.partial_merge_erases,
            full_merge: counts.full_merge_erases,
            total: gc
                + counts.block_update_erases
                + counts.switch_merge_erases
                + counts.partial_merge_erases
                + counts.full_merge_erases,
        };
        FtlReport {
            valid_page_copies: if page {
                placed.gc_units
            } else {
                counts.valid_page_copies
            },
            erases,
            merges: FtlMerges {
                switch: counts.switch_merges,
                partial: counts.partial_merges,
                full: counts.full_merges,
            },
            channel_switches: measured.channel_switches,
            way_switches: measured.way_switches,
            wear_relocations: measured.wear_relocations,
            trimmed_units: measured.placed.trimmed_units,
            host_write_bytes: measured.tally.host_write_bytes,
            media_write_bytes: (placed.user_units + placed.gc_units) * self.controller.geometry.unit_bytes,
            read_modify_writes: ReadModifyWrites {
                partial_units: measured.tally.partial_writes,
                flash_reads: measured.tally.rmw_reads,
                in_dram: measured.tally.rmw_in_dram,
            },
            pe_cycles: {
                let (min, mean, max) = crate::ftl::wear::pe_summary(&ftl.blocks.erase_count);
                PeCycles { min, mean, max }
            },
        }
    }

    pub(super) fn report(
        &self,
        wall: std::time::Duration,
        precondition_wall: std::time::Duration,
        (power_w, energy_j, mut timeseries): (PowerReport, EnergyReport, TimeSeries),
        ThermalFigures {
            thermal,
            throttle,
            columns,
        }: ThermalFigures,
        drained: Option<Drained>,
    ) -> Report {
        if !timeseries.is_empty() {
            for (name, values) in columns {
                timeseries.add_column(name, values);
            }
            if let Some(reliability) = &self.controller.reliability {
                let rows = timeseries.time_s.len();
                timeseries.add_column("reliability.rber_mean".to_string(), reliability.rber_column(rows));
            }
            if let Some(slc) = &self.controller.slc {
                for (name, values) in slc.columns(timeseries.time_s.len()) {
                    timeseries.add_column(name, values);
                }
            }
            if let Some(zoned) = &self.controller.zoned {
                for (name, values) in zoned.stats.columns(timeseries.time_s.len()) {
                    timeseries.add_column(name, values);
                }
            }
        }
        let metrics = &self.observers.metrics;
        let measured = self.measured();
        // Rates over the measured run: from the end of the warm-up (time 0 without one).
        let simulated = metrics.measured_seconds();
        // Flash work, energy and average power over the measured run and its drain.
        let drain_s = drained.as_ref().map_or(0.0, |drained| drained.report.time_s);
        let (power_w, energy_j) = self.measured_power(power_w, energy_j, simulated + drain_s);
        let per_second = |value: f64| if simulated > 0.0 { value / simulated } else { 0.0 };
        // Each command's latency is recorded once, in its job; the drive's are their union.
        let merge = |is_read: bool| {
            metrics
                .jobs
                .iter()
                .fold(LatencyRecorder::default(), |sum, job| sum.merged(&job.latency(is_read)))
        };
        let (read_latency, write_latency) = (merge(true), merge(false));
        let all = read_latency.merged(&write_latency);
        let ftl = &self.controller.ftl;
        let placed = measured.placed;
        // Units written per unit placed by the host, times the units' bytes per host byte (more
        // than 1 when writes cover only part of their units; the buffer's coalescing not credited).
        let unit_bytes_per_host_byte = if measured.tally.host_write_bytes > 0 {
            (measured.tally.host_write_units * self.controller.geometry.unit_bytes) as f64
                / measured.tally.host_write_bytes as f64
        } else {
            1.0
        };
        let waf = if placed.user_units > 0 {
            (placed.user_units + placed.gc_units) as f64 / placed.user_units as f64 * unit_bytes_per_host_byte
        } else {
            0.0
        };
        let dies = &self.controller.dies;
        let busy: Duration = measured.die_busy;
        let die_utilization = if simulated + drain_s > 0.0 {
            busy.as_secs_f64() / ((simulated + drain_s) * dies.len() as f64)
        } else {
            0.0
        };
        let logical_units = ftl.logical_units() as f64;
        let tally = &measured.tally;
        // The simulator's speed counts every command it simulated, the warm-up's too.
        let simulated_ios = metrics.completed + metrics.warmup_completed;
        let run_wall = (wall - precondition_wall).as_secs_f64();
        let (mut buffer, mut mapping_cache) = self.dram_reports();
        if let Some(drained) = &drained {
            // The figures "at the end" stay those of the host's run (before the drain).
            if let (Some(buffer), Some(held)) = (buffer.as_mut(), drained.held_units) {
                buffer.held_units = held;
            }
            if let (Some(mapping), Some(dirty)) = (mapping_cache.as_mut(), drained.dirty_pages) {
                mapping.dirty_pages = dirty;
            }
        }
        let (variability, steady_state) = metrics.windows.report();
        let plp_on = self.scenario.plp.enabled || !self.scenario.power_loss.at.is_empty();
        let rate = |seconds: f64| {
            if seconds > 0.0 {
                simulated_ios as f64 / seconds
            } else {
                0.0
            }
        };
        Report {
            ssdtwin_version: crate::base::VERSION.to_string(),
            seed: self.scenario.seed,
            config: self.scenario.clone(),
            host_ios: metrics.completed,
            simulated_time_s: metrics.last_completion.as_secs_f64(),
            wall_time_s: wall.as_secs_f64(),
            iops: per_second(metrics.completed as f64),
            bandwidth_mib_s: per_second(metrics.bytes_moved as f64 / (1024.0 * 1024.0)),
            latency_us: LatencyReport {
                read: read_latency.summary(),
                write: write_latency.summary(),
                all: all.summary(),
            },
            latency_cdf: LatencyCdfReport::new(&read_latency, &write_latency, &all),
            flash: flash_counters(tally),
            ftl: self.ftl_report(&measured),
            waf,
            queues: QueueReport {
                hol_events: tally.hol_events,
                gc_write_holds: tally.gc_write_holds,
                die_utilization: die_utilization.min(1.0),
            },
            suspend: suspend_report(&tally.suspend),
            power_w,
            energy_j,
            simulator: SimulatorReport {
                events: measured.events,
                precondition_wall_s: precondition_wall.as_secs_f64(),
                run_wall_s: run_wall,
                ios_per_wall_s: rate(run_wall),
                end_to_end_ios_per_wall_s: rate(wall.as_secs_f64()),
                logical_units: ftl.logical_units() as u64,
                state_bytes_per_mapping_unit: self.state_bytes() as f64 / logical_units,
            },
            warmup: self.baseline.as_ref().map(|base| WarmupReport {
                commands: metrics.warmup_completed,
                time_s: base.at.as_secs_f64(),
            }),
            drain: drained.map(|drained| drained.report),
            durability: self.durability_report(),
            variability,
            steady_state,
            workload: WorkloadReport {
                skipped_lines: self.workload.skipped_lines(),
                warnings: self.workload_warnings(),
                trace_timestamps: self.workload.trace_timestamps().map(|stats| TraceTimestampsReport {
                    used: stats.used,
                    span_s: stats.span_ns as f64 * 1e-9,
                    backward: stats.backward,
                    first_backward_line: stats.first_backward_line,
                    long_gaps: stats.long_gaps,
                    long_gap_threshold_s: crate::workload::trace::timing::LONG_GAP_NS as f64 * 1e-9,
                    largest_gap_s: stats.largest_gap_ns as f64 * 1e-9,
                    largest_gap_line: stats.largest_gap_line,
                }),
                jobs: metrics.jobs.iter().map(JobMetrics::report).collect(),
                fairness: None,
            },
            thermal,
            throttle,
            buffer,
            read_cache: self.controller.read_cache().map(read_cache_report),
            mapping_cache,
            plp: plp_on.then(|| self.plp.report(&self.scenario)),
            power_loss: (!self.scenario.power_loss.at.is_empty() || !self.power_losses.is_empty()).then(|| {
                super::plp_model::PowerLossReport {
                    events: self.power_losses.clone(),
                }
            }),
            reliability: self.controller.reliability.as_ref().map(|reliability| {
                let mut report = reliability.report();
                report.errored_commands = metrics.errors;
                report
            }),
            fdp: ftl
                .fdp
                .as_deref()
                .map(|fdp| fdp.report(self.controller.geometry.unit_bytes)),
            slc_cache: self
                .controller
                .slc
                .as_ref()
                .map(|slc| slc.report(self.now, self.controller.slc_size(), &self.controller.ftl)),
            zns: self.controller.zoned.as_ref().map(|zoned| {
                let mut report = zoned.stats.report(&zoned.flash.zones, self.now);
                report.errored_commands = metrics.errors;
                report
            }),
            timeseries,
        }
    }

    /// Suspensions so far (for the die-level harness).
    pub fn suspend_report(&self) -> SuspendReport {
        suspend_report(&self.controller.tally.suspend)
    }
}

impl Simulation {
    /// The `durability` block, when the host sent a Flush or a FUA write.
    fn durability_report(&self) -> Option<super::report::DurabilityReport> {
        let durability = &self.controller.durability;
        let stats = durability.stats;
        (stats.flushes + stats.fua_writes > 0).then_some(super::report::DurabilityReport {
            protected: durability.protected,
            flushes: stats.flushes,
            fua_writes: stats.fua_writes,
            waited: stats.waited,
            waited_units: stats.waited_units,
        })
    }
}

/// The read cache's figures for the report.
fn read_cache_report(cache: &crate::controller::read_cache::ReadCache) -> ReadCacheReport {
    let stats = cache.stats;
    ReadCacheReport {
        capacity_units: cache.capacity(),
        read_ahead_units: cache.read_ahead,
        lookups: stats.lookups,
        hits: stats.hits,
        misses: stats.lookups - stats.hits,
        hit_ratio: if stats.lookups > 0 {
            stats.hits as f64 / stats.lookups as f64
        } else {
            0.0
        },
        prefetched: stats.prefetched,
        prefetch_hits: stats.prefetch_hits,
        prefetched_unused: stats.prefetch_wasted + cache.prefetched_unread(),
        held_units: cache.held(),
    }
}
