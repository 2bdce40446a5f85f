//! The report of one run (DESIGN.md section 3.3).
use serde::Serialize;

use crate::config::Scenario;

/// Percentiles of one latency distribution [us].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub p99_999: f64,
    pub max: f64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyReport {
    pub read: LatencySummary,
    pub write: LatencySummary,
    pub all: LatencySummary,
}

/// The cumulative distribution of one kind of latency, compact enough for a plot: `fraction[i]` of
/// the commands took at most `latency_us[i]`. Points are the histogram bins where the cumulative
/// fraction first reaches each of a fixed set of quantiles, every 2% in the body and log-spaced
/// in the tail up to 99.9999% (20 per decade of 1 - fraction), plus the minimum and the maximum
/// (fraction 1): at most [`crate::metrics::latency::CDF_MAX_POINTS`] points, so 99.99% is resolved
/// however long the tail. Latencies are bin upper bounds (≤ 0.1% above the true value); each
/// summary percentile (`p99_99` etc.) is one of the points. Empty when no command of the kind ran.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyCdf {
    /// Latency [us], ascending.
    pub latency_us: Vec<f64>,
    /// Fraction of commands with at most that latency, ascending, the last one 1.
    pub fraction: Vec<f64>,
}

/// Latency CDFs per kind of command (the `latency_cdf` report field).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyCdfReport {
    pub read: LatencyCdf,
    pub write: LatencyCdf,
    pub all: LatencyCdf,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlashCounters {
    pub reads: u64,
    pub programs: u64,
    pub erases: u64,
    pub gc_reads: u64,
    pub gc_programs: u64,
    pub mapping_reads: u64,
    pub mapping_programs: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueReport {
    pub hol_events: u64,
    pub die_utilization: f64,
}

/// Average and peak power per component (DESIGN 3.3; MODELS 1) [W]. Components are at their own
/// rails; `total_*` is at the drive's input, after the regulator (component sum / efficiency).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PowerReport {
    pub nand_avg: f64,
    /// Largest instantaneous NAND power held for a positive time (the rail sum over dies).
    pub nand_peak: f64,
    /// Largest average NAND power over any interval of `power.peak_window`.
    pub nand_peak_window: f64,
    pub io_bus_avg: f64,
    pub controller_avg: f64,
    pub dram_avg: f64,
    pub other_avg: f64,
    pub total_avg: f64,
    /// Largest instantaneous input power; per-command and per-byte DRAM energies are impulses
    /// and count in the averages only.
    pub total_peak: f64,
}

/// Energy per component over the run (DESIGN 3.3) [J].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct EnergyReport {
    pub nand: f64,
    pub io_bus: f64,
    pub controller: f64,
    pub dram: f64,
    pub other: f64,
    pub total: f64,
}

/// Work of the mapping scheme (`ftl.mapping`) in the measured run: Cho et al.'s Table II.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlReport {
    /// Valid data copied to reclaim or rewrite blocks: pages copied by block-mapping updates and
    /// BAST merges, or mapping units copied by page-mapping GC (pages when `mapping_unit` =
    /// `page_size`).
    pub valid_page_copies: u64,
    /// Block erases by cause (block mapping and BAST: counted when decided).
    pub erases: FtlErases,
    /// BAST merges by kind.
    pub merges: FtlMerges,
    /// Channel transfers addressed to another chip (way) than their channel's previous transfer;
    /// each paid `flash.channel_switch_time`.
    pub channel_switches: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlErases {
    /// Page-mapping garbage collection.
    pub gc: u64,
    /// Block mapping: the old block of an updated logical block.
    pub block_update: u64,
    /// BAST switch merges (the old data block).
    pub switch_merge: u64,
    /// BAST partial merges (the old data block).
    pub partial_merge: u64,
    /// BAST full merges (the data block and the log block).
    pub full_merge: u64,
    pub total: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlMerges {
    pub switch: u64,
    pub partial: u64,
    pub full: u64,
}

/// Program and erase suspensions (the program-suspend paper, section 4).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SuspendReport {
    /// Programs suspended (each suspension counted).
    pub program: u64,
    /// Erases suspended (each suspension counted).
    pub erase: u64,
    /// Programs completed with 0, 1, 2, ... suspensions.
    pub per_program: Vec<u64>,
    /// Erases completed with 0, 1, 2, ... suspensions.
    pub per_erase: Vec<u64>,
    /// Mean program array time including suspensions, tPGM,s [us].
    pub mean_program_time_us: f64,
    /// Mean erase array time including suspensions [us].
    pub mean_erase_time_us: f64,
}

/// About the simulator itself: work done and memory used.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SimulatorReport {
    /// Events handled in the measured run.
    pub events: u64,
    /// Wall time spent preconditioning [s] (included in `wall_time_s`).
    pub precondition_wall_time_s: f64,
    /// Logical capacity [mapping units].
    pub logical_units: u64,
    /// Mapping and block tables per logical mapping unit [bytes].
    pub state_bytes_per_mapping_unit: f64,
}

/// Everything a run produces.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub ssdtwin_version: String,
    pub seed: u64,
    pub config: Scenario,
    pub host_ios: u64,
    pub simulated_time_s: f64,
    pub wall_time_s: f64,
    pub iops: f64,
    pub bandwidth_mib_s: f64,
    pub latency_us: LatencyReport,
    /// Latency CDFs for plots (`ssdtwin.plot.latency_cdf`).
    pub latency_cdf: LatencyCdfReport,
    pub flash: FlashCounters,
    pub ftl: FtlReport,
    pub waf: f64,
    pub queues: QueueReport,
    pub suspend: SuspendReport,
    pub power_w: PowerReport,
    pub energy_j: EnergyReport,
    pub simulator: SimulatorReport,
    pub workload: WorkloadReport,
    /// Power, IOPS and bandwidth per `power.sample_interval`, as columns; not in the JSON report.
    #[serde(skip)]
    pub timeseries: crate::power::TimeSeries,
}

/// About the workload: input problems and per-job results (the fio-compatible view).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WorkloadReport {
    /// Malformed trace lines skipped because `workload.trace.lenient` is set.
    pub skipped_lines: u64,
    /// Warnings about the input (fio options ignored with `ignore_unsupported`).
    pub warnings: Vec<String>,
    /// One entry per job (fio job, IIoT ingest and query, or the single synthetic/trace stream).
    pub jobs: Vec<super::jobs::JobReport>,
}

impl Report {
    /// The report as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report always serializes")
    }
}
