//! Parameters of the report's own figures (`[report]`): the windows its variability and
//! steady-state check are computed over (`metrics/steady.rs`), and whether the run drains the
//! flash work left at its end (`sim/drain.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;

/// `[report]`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportConfig {
    /// Length of the windows of the report's `variability` and `steady_state` (IOPS and bandwidth
    /// counted per window of the measured run); `"0s"` (default) is automatic: the measured run
    /// cut into 10 equal windows, so the steady-state check's last 5 are its second half
    /// [duration]. A set length is at least 100us.
    pub steady_window: Duration,
    /// Drain at the end: after the last host completion the run goes on until the flash work of
    /// the acknowledged commands is done (programs running, suspended or queued, the write buffer
    /// and the open page programmed; GC finishes the operations it issued and starts none once the
    /// host's data is placed), and the report adds it (`drain`) to its counters, energy and average
    /// power. Host-visible figures (IOPS, bandwidth, latency, `simulated_time_s`) are unchanged.
    /// `false`: the run ends at the last host completion and that work is cut off. Default true
    /// [scenario choice; issue 28].
    pub drain: bool,
    /// With several `workload.flows`: also run each flow alone on the same preconditioned drive
    /// and report each flow's slowdown (mean latency shared / alone) and the run's fairness (min
    /// slowdown / max slowdown), as MQSim (Tavakkol et al., FAST 2018). Costs one run per flow.
    /// Default false.
    pub flow_slowdown: bool,
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig {
            steady_window: Duration::ZERO,
            drain: true,
            flow_slowdown: false,
        }
    }
}
