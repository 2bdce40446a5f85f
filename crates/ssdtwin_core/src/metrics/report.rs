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
    pub flash: FlashCounters,
    pub waf: f64,
    pub queues: QueueReport,
    pub power_w: PowerReport,
    pub energy_j: EnergyReport,
    pub simulator: SimulatorReport,
    /// Power, IOPS and bandwidth per `power.sample_interval`, as columns; not in the JSON report.
    #[serde(skip)]
    pub timeseries: crate::power::TimeSeries,
}

impl Report {
    /// The report as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report always serializes")
    }
}
