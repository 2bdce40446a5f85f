//! What a throttling policy decides and reads: the throttle states, the [`Limits`] the drive runs
//! under, the unthrottled [`Baseline`] and the temperature [`Readings`]. Shared by the policies.

use crate::base::time::Duration;

/// How hard the drive is throttled: the report's states and the time series' `throttle_state`
/// (0, 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThrottleState {
    /// Full performance.
    Off = 0,
    /// `nvme` above TMT1; `cst_preopt` with its queue depth or frame buffer lowered.
    Light = 1,
    /// `nvme` above TMT2; `cst` and `cst_preopt` while CST applies.
    Heavy = 2,
}

impl ThrottleState {
    pub const ALL: [ThrottleState; 3] = [ThrottleState::Off, ThrottleState::Light, ThrottleState::Heavy];

    pub fn name(self) -> &'static str {
        match self {
            ThrottleState::Off => "off",
            ThrottleState::Light => "light",
            ThrottleState::Heavy => "heavy",
        }
    }
}

/// What the drive runs under; `Limits::full` is no throttling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub state: ThrottleState,
    /// The host's commands in flight at most [commands].
    pub queue_depth: u32,
    /// The controller's frame buffer [mapping units].
    pub frame_buffer: u32,
    /// Command submission time (CST): the host waits this long before each command, from the
    /// moment the command could go (a queue slot free); zero: no wait.
    pub cst: Duration,
    /// Array operations allowed at once per channel, as a fraction of its dies (1: no cap).
    pub array_fraction: f64,
    /// The controller's power (and clock) as a fraction of normal (1: full power state).
    pub controller_power: f64,
}

/// The drive's unthrottled settings, which policies step down from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baseline {
    pub queue_depth: u32,
    pub frame_buffer: u32,
    /// The smallest frame buffer the controller works with (one program's mapping units).
    pub min_frame_buffer: u32,
}

impl Limits {
    /// No throttling.
    pub fn full(baseline: &Baseline) -> Limits {
        Limits {
            state: ThrottleState::Off,
            queue_depth: baseline.queue_depth,
            frame_buffer: baseline.frame_buffer,
            cst: Duration::ZERO,
            array_fraction: 1.0,
            controller_power: 1.0,
        }
    }
}

/// The temperatures the policies look at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Readings {
    /// The NVMe composite temperature [°C].
    pub composite_c: f64,
    /// The hottest NAND package [°C].
    pub hottest_nand_c: f64,
}
