//! Parameters of the power model (`[power]`, docs/models/power.md): NAND die currents per state and
//! operation with their current profiles, the channel I/O bus, controller, DRAM, other ICs and the
//! regulator.
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::time::Duration;

/// One segment of an operation's current profile: `[fraction of the operation's duration,
/// current factor]`, the factor relative to the operation's average current.
pub type ProfileSegment = (f64, f64);

/// A current given once for all page types or once per page type (lower first) [mA].
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PerPageTypeCurrent {
    /// The same current for every page type [mA].
    One(f64),
    /// One current per page type: SLC 1, MLC 2, TLC 3, QLC 4 values [mA].
    PerType(Vec<f64>),
}

impl PerPageTypeCurrent {
    /// The current of page type `page_type` (0 = lower) [mA].
    pub fn for_type(&self, page_type: usize) -> f64 {
        match self {
            PerPageTypeCurrent::One(current) => *current,
            PerPageTypeCurrent::PerType(currents) => currents[page_type],
        }
    }
}

/// The power model (docs/models/power.md): NAND die currents per state and per operation, with
/// piecewise-constant current profiles; the channel I/O bus; the controller (idle, per active
/// channel, per command); DRAM (background, per byte moved); other ICs; the regulator. Defaults
/// are docs/models/power.md and 1.4 values; drive presets override them with their papers'.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerConfig {
    /// Account power at all. Off, every power field of the report is 0 and the simulation skips
    /// the accounting.
    pub enabled: bool,
    /// NAND core supply VCC [V]. Default 3.3 (docs/models/power.md).
    pub vcc_v: f64,
    /// NAND I/O supply VCCQ [V]. Default 1.2 (docs/models/power.md).
    pub vccq_v: f64,
    /// Standby current of a die with nothing to do (ISB, CE# high) [uA]. Default 30 (docs/models/power.md).
    pub isb_ua: f64,
    /// Core current of a die inside an operation but waiting (for the channel, or with sensed
    /// data not yet sent): bus idle, ICC5 [mA]. Default 5 (docs/models/power.md).
    pub icc_bus_idle_ma: f64,
    /// Core current of a die whose program or erase is suspended [mA]. Default 5 (docs/models/power.md:
    /// ISB/ICC5 while suspended).
    pub icc_suspended_ma: f64,
    /// Average core current of an array read (ICC1), one value or one per page type [mA].
    /// Default 25 (docs/models/power.md).
    pub icc_read_ma: PerPageTypeCurrent,
    /// Average core current of a program (ICC2), one value or one per page type [mA].
    /// Default 25 (docs/models/power.md).
    pub icc_program_ma: PerPageTypeCurrent,
    /// Average core current of a block erase (ICC3) [mA]. Default 25 (docs/models/power.md).
    pub icc_erase_ma: f64,
    /// I/O current of a die sending read data over the channel (ICC4R, on VCCQ) [mA]. Default 10.
    pub icc_io_read_ma: f64,
    /// I/O current of a die receiving program data over the channel (ICC4W, on VCCQ) [mA].
    /// Default 10.
    pub icc_io_write_ma: f64,
    /// Shape of an array read's current: `[fraction of tR, factor]` segments in time order whose
    /// fractions sum to 1 and whose fraction-weighted factors average 1, so `icc_read_ma` stays
    /// the average and the shape adds the peaks (e.g. a sensing peak). Empty: constant.
    pub read_profile: Vec<ProfileSegment>,
    /// Shape of a program's current (e.g. ISPP pulse and verify segments), as `read_profile`.
    pub program_profile: Vec<ProfileSegment>,
    /// Shape of an erase's current, as `read_profile`.
    pub erase_profile: Vec<ProfileSegment>,
    /// Power of a channel's I/O bus (controller PHY and lines) while it moves data [W].
    /// Default 0.012 [A: VCCQ 1.2 V x 10 mA on the controller side, docs/models/power.md].
    pub io_bus_w: f64,
    /// Controller power with no flash activity [W]. Default 0.8 (docs/models/power.md [A]).
    pub controller_idle_w: f64,
    /// Controller power added per channel with at least one die in an operation (channel
    /// controller, ECC engine) [W]. Default 0.1 [A: 16 channels bring 0.8 W to ~2.5 W, docs/models/power.md].
    pub controller_channel_w: f64,
    /// Controller energy per host command processed (firmware) [uJ]. Default 0.5 [A: a 0.25 W
    /// core busy for the 2 us command overhead].
    pub controller_command_uj: f64,
    /// DRAM background power (active standby and refresh of all devices) [W]. Default 0.117
    /// (two DDR4-2400 4 Gb x8 devices at 52.8 mW + 5.9 mW, docs/models/power.md [D]).
    pub dram_background_w: f64,
    /// DRAM energy per KiB moved through it (host payloads, flash data) [nJ]. Default 68
    /// (docs/models/power.md [D]: 0.56 nJ read / 0.50 nJ write per 8-byte burst per x8 device, plus one
    /// 1.01 nJ activation per 1 KiB row).
    pub dram_nj_per_kib: f64,
    /// Other ICs and passives, constant [W]. Default 0.4 (the self-heating paper, section 4.1).
    pub other_w: f64,
    /// Efficiency of the drive's regulators: total input power is the component sum divided by
    /// this [fraction]. Default 0.88 (docs/models/power.md [A]).
    pub regulator_efficiency: f64,
    /// Window of the windowed NAND peak (`power_w.nand_peak_window`): the largest average NAND
    /// power over any interval of this length [duration]. Default 10us.
    pub peak_window: Duration,
    /// Interval of the power, IOPS and bandwidth time series; 0 turns it off [duration].
    /// Default 10ms (a step fine enough for the thermal model to come).
    pub sample_interval: Duration,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            enabled: true,
            vcc_v: 3.3,
            vccq_v: 1.2,
            isb_ua: 30.0,
            icc_bus_idle_ma: 5.0,
            icc_suspended_ma: 5.0,
            icc_read_ma: PerPageTypeCurrent::One(25.0),
            icc_program_ma: PerPageTypeCurrent::One(25.0),
            icc_erase_ma: 25.0,
            icc_io_read_ma: 10.0,
            icc_io_write_ma: 10.0,
            read_profile: Vec::new(),
            program_profile: Vec::new(),
            erase_profile: Vec::new(),
            io_bus_w: 0.012,
            controller_idle_w: 0.8,
            controller_channel_w: 0.1,
            controller_command_uj: 0.5,
            dram_background_w: 0.117,
            dram_nj_per_kib: 68.0,
            other_w: 0.4,
            regulator_efficiency: 0.88,
            peak_window: Duration::from_micros(10),
            sample_interval: Duration::from_millis(10),
        }
    }
}
