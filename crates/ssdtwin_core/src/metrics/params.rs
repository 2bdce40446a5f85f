//! Parameters of the report's own figures (`[report]`): the windows its variability and
//! steady-state check are computed over (`metrics/steady.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;

/// `[report]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportConfig {
    /// Length of the windows of the report's `variability` and `steady_state` (IOPS and bandwidth
    /// counted per window of the measured run); `"0s"` (default) is automatic: the measured run
    /// cut into 10 equal windows, so the steady-state check's last 5 are its second half
    /// [duration]. A set length is at least 100us.
    pub steady_window: Duration,
}
