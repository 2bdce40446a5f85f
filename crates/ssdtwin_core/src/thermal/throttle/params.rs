//! Parameters of thermal throttling (`[throttle]`, docs/models/thermal.md, "Throttling").
//!
//! Declared once, with unit, default and source; unknown keys are rejected. The NVMe thresholds
//! default to the team's choice within the ranges observed on client drives (`nvme id-ctrl`
//! dumps: WCTEMP 81–85 °C, CCTEMP 81–87 °C) [A]; the command-submission-time (CST) policies follow
//! the self-heating paper (Zambelli et al., Electronics 2020, section 4.3, Figure 12), which gives
//! no thresholds: those are [A].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::ConfigError;
use crate::base::time::Duration;

/// The throttling policy: what the drive (or its host) does when it gets hot.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ThrottlePolicy {
    /// No throttling: temperatures are reported, nothing acts on them.
    None,
    /// NVMe host-controlled thermal management on the composite temperature: at TMT1 cap the
    /// array operations running at once on each channel (light), at TMT2 cap them harder and drop
    /// the controller to a lower power state (heavy); hysteresis on the way down.
    Nvme,
    /// The self-heating paper's host throttling: while the hottest NAND package is at or above
    /// `throttle_c`, the host waits `cst` before each command; released below `release_c`.
    Cst,
    /// `cst` plus the paper's pre-throttling optimisation (Figure 12): above `pre_throttle_c`
    /// lower the queue depth step by step, then the frame buffer; at `throttle_c` apply CST; on
    /// release resume one step below the level reached before throttling.
    CstPreopt,
}

/// Thermal throttling (`[throttle]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ThrottleConfig {
    /// `none`, `nvme`, `cst` or `cst_preopt` (needs `thermal.enabled`). Default none.
    pub policy: ThrottlePolicy,
    /// `nvme`: light-throttle threshold TMT1 on the composite temperature [°C]. Default 75 [A].
    pub tmt1_c: f64,
    /// `nvme`: heavy-throttle threshold TMT2, above TMT1 [°C]. Default 80 [A].
    pub tmt2_c: f64,
    /// Hysteresis: a state is left when the temperature falls this far below the threshold
    /// that entered it (`nvme`), and `cst_preopt` raises its queue depth again only this far
    /// below `pre_throttle_c` [K]. Default 3 [A: 3–5 K].
    pub hysteresis_k: f64,
    /// `nvme` light state: array operations allowed at once per channel, as a fraction of the
    /// channel's dies (rounded up, at least one) [fraction]. Default 0.5 [A].
    pub light_array_fraction: f64,
    /// `nvme` heavy state: as `light_array_fraction` [fraction]. Default 0.125 [A].
    pub heavy_array_fraction: f64,
    /// `nvme` heavy state: the controller's power in its lower power state, as a fraction of its
    /// normal power; its clock, and so its per-command firmware time, scales with it [fraction].
    /// Default 0.7 [A: a client drive's PS1 maximum power is about 0.7 of its PS0].
    pub heavy_controller_power: f64,
    /// `cst`, `cst_preopt`: the hottest NAND package at or above this starts CST throttling [°C].
    /// Default 80 [A].
    pub throttle_c: f64,
    /// `cst`, `cst_preopt`: CST throttling ends when the hottest NAND package falls below this,
    /// below `throttle_c` [°C]. Default 75 [A].
    pub release_c: f64,
    /// `cst`, `cst_preopt`: the command submission time while throttled: the host waits this
    /// long before each command, from the moment its queue slot is free [duration]. Default 10ms
    /// [A: the paper sweeps 0 to 20 ms].
    pub cst: Duration,
    /// `cst_preopt`: the hottest NAND package at or above this lowers the queue depth (then the
    /// frame buffer) one step every `step_interval`, below `throttle_c` [°C]. Default 72 [A].
    pub pre_throttle_c: f64,
    /// `cst_preopt`: time between two steps of the queue depth or frame buffer [duration].
    /// Default 1s [A].
    pub step_interval: Duration,
    /// `cst_preopt`: the queue depth halves from `host.queue_depth` down to this [commands].
    /// Default 1.
    pub min_queue_depth: u32,
    /// `cst_preopt`: once at `min_queue_depth`, the frame buffer halves this many times (never
    /// below one program's mapping units) [steps]. Default 3 [A].
    pub frame_buffer_steps: u32,
}

impl Default for ThrottleConfig {
    fn default() -> Self {
        ThrottleConfig {
            policy: ThrottlePolicy::None,
            tmt1_c: 75.0,
            tmt2_c: 80.0,
            hysteresis_k: 3.0,
            light_array_fraction: 0.5,
            heavy_array_fraction: 0.125,
            heavy_controller_power: 0.7,
            throttle_c: 80.0,
            release_c: 75.0,
            cst: Duration::from_millis(10),
            pre_throttle_c: 72.0,
            step_interval: Duration::from_secs(1),
            min_queue_depth: 1,
            frame_buffer_steps: 3,
        }
    }
}

impl ThrottleConfig {
    /// Range checks, each error naming its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let temperatures = [
            ("throttle.tmt1_c", self.tmt1_c),
            ("throttle.tmt2_c", self.tmt2_c),
            ("throttle.throttle_c", self.throttle_c),
            ("throttle.release_c", self.release_c),
            ("throttle.pre_throttle_c", self.pre_throttle_c),
        ];
        for (key, value) in temperatures {
            if !value.is_finite() {
                return Err(ConfigError::new(key, format!("{value} is not a temperature [°C]")));
            }
        }
        if self.tmt1_c >= self.tmt2_c {
            return Err(ConfigError::new(
                "throttle.tmt1_c",
                format!(
                    "TMT1 {} °C must be below TMT2 {} °C (throttle.tmt2_c)",
                    self.tmt1_c, self.tmt2_c
                ),
            ));
        }
        if self.release_c >= self.throttle_c {
            return Err(ConfigError::new(
                "throttle.release_c",
                format!(
                    "{} °C must be below throttle.throttle_c ({} °C): throttling must end below where it starts",
                    self.release_c, self.throttle_c
                ),
            ));
        }
        if self.policy == ThrottlePolicy::CstPreopt && self.pre_throttle_c >= self.throttle_c {
            return Err(ConfigError::new(
                "throttle.pre_throttle_c",
                format!(
                    "{} °C must be below throttle.throttle_c ({} °C)",
                    self.pre_throttle_c, self.throttle_c
                ),
            ));
        }
        if !(self.hysteresis_k >= 0.0 && self.hysteresis_k.is_finite()) {
            return Err(ConfigError::new(
                "throttle.hysteresis_k",
                format!("{} is out of range; allowed: 0 K or more", self.hysteresis_k),
            ));
        }
        for (key, value) in [
            ("throttle.light_array_fraction", self.light_array_fraction),
            ("throttle.heavy_array_fraction", self.heavy_array_fraction),
            ("throttle.heavy_controller_power", self.heavy_controller_power),
        ] {
            if !(value > 0.0 && value <= 1.0) {
                return Err(ConfigError::new(
                    key,
                    format!("{value} is out of range; allowed: above 0, at most 1"),
                ));
            }
        }
        if self.min_queue_depth == 0 {
            return Err(ConfigError::new(
                "throttle.min_queue_depth",
                "0 is out of range; allowed: 1 or more",
            ));
        }
        if self.policy == ThrottlePolicy::CstPreopt && self.step_interval.as_nanos() == 0 {
            return Err(ConfigError::new(
                "throttle.step_interval",
                "0 is out of range; allowed: a positive duration",
            ));
        }
        Ok(())
    }
}
