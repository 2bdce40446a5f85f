//! The scenario: a drive (host interface, controller, flash, FTL) plus a workload, the power
//! model, the thermal model and its throttling, composed from the parameters each layer declares in its own `params.rs`.
//!
//! The scenario parser (`config`) builds one from TOML, presets and overrides; the engine
//! assembles the components from its parts. The JSON schema of the scenario file is this struct's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::controller::buffer::params::BufferConfig;
use crate::controller::params::ControllerConfig;
use crate::controller::slc::params::SlcCacheConfig;
use crate::flash::params::FlashConfig;
use crate::ftl::params::FtlConfig;
use crate::ftl::zoned::params::ZnsConfig;
use crate::host::params::HostConfig;
use crate::metrics::params::ReportConfig;
use crate::power::params::PowerConfig;
use crate::power::plp::{PlpConfig, PowerLossConfig};
use crate::reliability::params::ReliabilityConfig;
use crate::thermal::params::ThermalConfig;
use crate::thermal::throttle::params::ThrottleConfig;
use crate::workload::params::WorkloadConfig;

/// A complete, resolved scenario.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Seed of the simulation's random number generator. Same seed and config, same report.
    pub seed: u64,
    /// Drive preset (a name from `ssdtwin presets`, or a path to a TOML file); the tables of the
    /// scenario override the preset key by key.
    pub drive: String,
    pub host: HostConfig,
    pub controller: ControllerConfig,
    pub flash: FlashConfig,
    pub ftl: FtlConfig,
    /// The SLC write cache (off by default).
    pub slc_cache: SlcCacheConfig,
    /// A zoned namespace (off by default).
    pub zns: ZnsConfig,
    /// Flexible Data Placement (off by default).
    pub fdp: crate::ftl::fdp::FdpConfig,
    pub workload: WorkloadConfig,
    pub power: PowerConfig,
    pub thermal: ThermalConfig,
    pub throttle: ThrottleConfig,
    /// The DRAM write buffer (off by default).
    pub buffer: BufferConfig,
    /// Power-loss protection: hold-up capacitors and the protected share of the mapping table.
    pub plp: PlpConfig,
    /// Power cuts injected during the run.
    pub power_loss: PowerLossConfig,
    pub reliability: ReliabilityConfig,
    /// The report's own figures: the windows of its variability and steady-state check.
    pub report: ReportConfig,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            seed: 1,
            drive: "enterprise_tlc".to_string(),
            host: HostConfig::default(),
            controller: ControllerConfig::default(),
            flash: FlashConfig::default(),
            ftl: FtlConfig::default(),
            slc_cache: SlcCacheConfig::default(),
            zns: ZnsConfig::default(),
            fdp: crate::ftl::fdp::FdpConfig::default(),
            workload: WorkloadConfig::default(),
            power: PowerConfig::default(),
            thermal: ThermalConfig::default(),
            throttle: ThrottleConfig::default(),
            buffer: BufferConfig::default(),
            plp: PlpConfig::default(),
            power_loss: PowerLossConfig::default(),
            reliability: ReliabilityConfig::default(),
            report: ReportConfig::default(),
        }
    }
}
