//! The report of one run (docs/guide/report.md): the resolved scenario and the parts each observer
//! and the engine measured (latencies, counters, power, energy, per-job results, time series).
use serde::Serialize;

use super::scenario::Scenario;
use crate::metrics::report::{FlashCounters, FtlReport, QueueReport, SimulatorReport, SuspendReport, WorkloadReport};
use crate::metrics::steady::{SteadyState, Variability};
use crate::metrics::summary::{LatencyCdfReport, LatencyReport};
use crate::power::report::{EnergyReport, PowerReport};
use crate::power::timeseries::TimeSeries;
use crate::reliability::report::ReliabilityReport;
use crate::thermal::throttle::ThrottleReport;
use crate::thermal::ThermalReport;

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
    /// The warm-up (`workload.warmup`), when there was one: not in any other figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup: Option<WarmupReport>,
    /// The drain after the last host completion (`report.drain`): its time, energy and work, which
    /// the flash counters, energy and average powers include.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain: Option<super::drain::DrainReport>,
    /// Flushes and FUA writes, when the host sent any (docs/models/dram_buffer_plp.md, "Flush
    /// and FUA"); counted from the start of the run, warm-up included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durability: Option<DurabilityReport>,
    /// IOPS and bandwidth per window of the measured run (`report.steady_window`).
    pub variability: Variability,
    /// The SNIA PTS steady-state check on the last 5 windows.
    pub steady_state: SteadyState,
    pub workload: WorkloadReport,
    /// Temperatures, when `thermal.enabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thermal: Option<ThermalReport>,
    /// Throttling, when `thermal.enabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttle: Option<ThrottleReport>,
    /// The DRAM write buffer, when `buffer.capacity` > 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<super::plp_model::BufferReport>,
    /// Translation-page tracking, with `ftl.mapping_cache = "cached"`, `plp.enabled`, LIDF or power cuts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping_cache: Option<super::plp_model::MappingCacheReport>,
    /// The DRAM read cache and read-ahead, when `buffer.read_cache` > 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_cache: Option<crate::metrics::report::ReadCacheReport>,
    /// Power-loss protection figures, with `plp.enabled` or power cuts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plp: Option<super::plp_model::PlpReport>,
    /// Injected power cuts, with `power_loss.at`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_loss: Option<super::plp_model::PowerLossReport>,
    /// Bit errors, retries, uncorrectable reads, when `reliability.enabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reliability: Option<ReliabilityReport>,
    /// Flexible Data Placement, when `fdp.enabled` (docs/models/fdp.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<crate::ftl::fdp::FdpReport>,
    /// The SLC write cache, when `slc_cache.enabled` (docs/models/slc_cache.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slc_cache: Option<crate::controller::slc::SlcReport>,
    /// The zoned namespace, when `zns.enabled` (docs/models/zns.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zns: Option<crate::controller::zoned::ZnsReport>,
    /// Power, IOPS and bandwidth per `power.sample_interval`, as columns; not in the JSON report.
    #[serde(skip)]
    pub timeseries: TimeSeries,
}

/// The unmeasured start of the run.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WarmupReport {
    /// Host commands completed during the warm-up.
    pub commands: u64,
    /// Its end, the start of the measured run [s of simulated time].
    pub time_s: f64,
}

impl Report {
    /// The report as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report always serializes")
    }
}

/// The report's `durability` block.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DurabilityReport {
    /// The hold-up capacitors cover every volatile write: Flush and FUA complete at once.
    pub protected: bool,
    pub flushes: u64,
    pub fua_writes: u64,
    /// Flushes and FUA writes that waited for programs.
    pub waited: u64,
    /// Mapping units they waited for, summed.
    pub waited_units: u64,
}
