//! Which nodes of the thermal network the power model heats (`thermal.heat_sources`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which nodes of the network the power model heats (`thermal.heat_sources`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HeatSources {
    /// Every node receives its own power.
    All,
    /// Only the NAND packages receive power; the controller, DRAM and board receive none (the
    /// self-heating paper's model: "we do not support the modeling of the SSD controller
    /// temperature and of the DRAM module", papers/000 section 4.3).
    Nand,
}
