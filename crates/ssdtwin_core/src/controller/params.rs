//! Parameters of the SSD controller's queueing system (`[controller]`): frame buffer, die queues,
//! die scheduler.
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;

/// Order in which a die serves its queued operations.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Arrival order.
    Fifo,
    /// Host reads overtake queued programs and erases (and GC work) at a die.
    ReadFirst,
}

/// The SSD controller's queueing system.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerConfig {
    /// Flash transactions (mapping units) in flight over all dies at most [transactions].
    pub frame_buffer: u32,
    /// Target command queue (TCQ) per die: host operations waiting at or running on a die [operations].
    pub die_queue_depth: u32,
    /// Die scheduler: `fifo` or `read_first`.
    pub scheduler: SchedulerKind,
    /// Time to serve a read from data still in the controller's DRAM (written, not yet programmed) [duration].
    pub buffer_read_time: Duration,
    /// With `read_first`: a program, erase or GC operation that has waited at its die this long is
    /// served before reads, so writes cannot starve; `"0us"` = no bound [duration].
    pub read_first_age_limit: Duration,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            frame_buffer: 1024,
            die_queue_depth: 8,
            scheduler: SchedulerKind::Fifo,
            buffer_read_time: Duration::from_micros(1),
            read_first_age_limit: Duration::ZERO,
        }
    }
}
