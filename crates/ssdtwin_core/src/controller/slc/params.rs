//! Parameters of the SLC write cache (`[slc_cache]`): the static and dynamic regions, the SLC-mode
//! timing and current, the SLC-mode endurance, when folding runs and what host writes do when the
//! cache is full (docs/models/slc_cache.md).
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate` (`slc.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;
use crate::base::units::ByteSize;

/// What a host write does when the SLC cache has no room for it (the cliff).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CliffPolicy {
    /// It is programmed straight into the native (TLC/QLC) blocks; folding waits for idle time.
    Direct,
    /// It still lands in SLC, and its die first folds as much SLC data into native blocks
    /// (foreground folding): the host gets the die time folding leaves.
    Wait,
}

/// The SLC write cache: host writes land in blocks run in SLC mode (one bit per cell) and are
/// folded into the native blocks later. Off by default: with it off nothing changes.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SlcCacheConfig {
    /// Run part of the flash in SLC mode as a write cache.
    pub enabled: bool,
    /// Static SLC region, always available: host data it holds [size].
    pub static_size: ByteSize,
    /// Dynamic region: this share of the free native capacity is run in SLC mode, holding
    /// 1/bits-per-cell of it (client drives: up to 1, a third of free TLC) [fraction].
    pub dynamic_share: f64,
    /// Largest dynamic region, host data it holds; `"0B"` = no cap beyond the share [size].
    pub dynamic_max: ByteSize,
    /// SLC-mode array read time, page-register transfer added as for every read [duration].
    pub t_read: Duration,
    /// SLC-mode program time of one page [duration].
    pub t_program: Duration,
    /// SLC-mode block erase time [duration].
    pub t_erase: Duration,
    /// Average NAND current of an SLC-mode read and program; `0` = the lower page's
    /// `power.icc_read_ma` and `power.icc_program_ma` [mA].
    pub icc_ma: f64,
    /// Program/erase cycles an SLC-mode block endures [cycles].
    pub endurance: u32,
    /// Host idle time (no command in the drive) before background folding starts [duration].
    pub idle_delay: Duration,
    /// When the cache is full: `direct` (write the native blocks) or `wait` (fold first).
    pub cliff: CliffPolicy,
}

impl Default for SlcCacheConfig {
    fn default() -> Self {
        SlcCacheConfig {
            enabled: false,
            static_size: ByteSize(0),
            dynamic_share: 0.0,
            dynamic_max: ByteSize(0),
            t_read: Duration::from_micros(30),
            t_program: Duration::from_micros(200),
            t_erase: Duration::from_millis(3),
            icc_ma: 0.0,
            endurance: 30_000,
            idle_delay: Duration::from_millis(500),
            cliff: CliffPolicy::Direct,
        }
    }
}

impl SlcCacheConfig {
    /// Host data the cache holds at most with `free_bytes` of native capacity free and
    /// `bits` bits per cell: the static region plus the dynamic share, capped.
    pub fn size_bytes(&self, free_bytes: u64, bits: u64) -> u64 {
        let share = (self.dynamic_share * free_bytes as f64 / bits as f64) as u64;
        let dynamic = if self.dynamic_max.bytes() == 0 {
            share
        } else {
            share.min(self.dynamic_max.bytes())
        };
        self.static_size.bytes() + dynamic
    }
}
