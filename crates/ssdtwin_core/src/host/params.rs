//! Parameters of the host and its PCIe link (`[host]`): queue depth, submission throttle, link
//! generation and width, open or closed loop.
//!
//! Every parameter is declared once, with its unit, default and documentation; the JSON schema
//! (`ssdtwin schema`) and the config reference are generated from these structs. Unknown keys are
//! rejected (`deny_unknown_fields`); range checks live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;
pub use crate::controller::arbitration::{Arbitration, Priority};

/// How the host issues commands.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HostMode {
    /// Keep `queue_depth` commands in flight: a completion triggers the next submission.
    Closed,
    /// Submit at `arrival_rate` commands per second (evenly spaced), never more than
    /// `queue_depth` in flight; arrivals that find the queue full wait in the host.
    Open,
}

/// The host and its link to the drive (NVMe over PCIe).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Commands in flight at the drive at most (NVMe queue depth) [commands].
    pub queue_depth: u32,
    /// Minimum time between two command submissions (command submission time, CST): the
    /// host-side throttling knob of the self-heating paper [duration].
    pub submission_interval: Duration,
    /// PCIe generation (1–6): sets the per-lane rate and line encoding.
    pub pcie_generation: u8,
    /// PCIe lanes (1, 2, 4, 8 or 16).
    pub pcie_lanes: u8,
    /// Closed loop (`closed`) or fixed arrival rate (`open`).
    pub mode: HostMode,
    /// Arrival rate in open-loop mode [commands/s].
    pub arrival_rate: f64,
    /// Fixed cost per command in the host interface and controller firmware (doorbell, fetch,
    /// parsing, completion) [duration].
    pub command_overhead: Duration,
    /// How the controller chooses among several flows' submission queues (`workload.flows`, the
    /// jobs of an fio job file): `round_robin` or `weighted_round_robin` (NVMe 2.0, section
    /// 3.4.4). No effect with one flow. Default `round_robin`, the arbitration every NVMe
    /// controller supports.
    pub arbitration: Arbitration,
    /// Commands the controller takes from one submission queue before it moves to the next (the
    /// Arbitration Burst of Set Features, Arbitration: a power of two from 1 to 128; 0 = no
    /// limit, the specification's 111b) [commands]. Default 1.
    pub arbitration_burst: u32,
    /// Weighted round robin: commands of the high class per round (the High Priority Weight,
    /// 1 to 256) [commands]. Default 4 (chosen: the specification leaves it to the host).
    pub weight_high: u32,
    /// Weighted round robin: commands of the medium class per round (Medium Priority Weight, 1 to
    /// 256) [commands]. Default 2 (chosen).
    pub weight_medium: u32,
    /// Weighted round robin: commands of the low class per round (Low Priority Weight, 1 to 256)
    /// [commands]. Default 1 (chosen).
    pub weight_low: u32,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            queue_depth: 32,
            submission_interval: Duration::ZERO,
            pcie_generation: 3,
            pcie_lanes: 4,
            mode: HostMode::Closed,
            arrival_rate: 100_000.0,
            command_overhead: Duration::from_micros(2),
            arbitration: Arbitration::RoundRobin,
            arbitration_burst: 1,
            weight_high: 4,
            weight_medium: 2,
            weight_low: 1,
        }
    }
}
