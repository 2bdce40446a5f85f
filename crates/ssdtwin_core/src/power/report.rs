//! The power parts of the report (docs/guide/report.md; docs/models/power.md): average and peak
//! power and energy per component, as [`super::PowerModel::finish`] computes them.
use serde::Serialize;

/// Average and peak power per component (docs/guide/report.md; docs/models/power.md) [W]. Components are at their own
/// rails; `total_*` is at the drive's input, after the regulator (component sum / efficiency).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PowerReport {
    pub nand_avg: f64,
    /// Largest instantaneous NAND power held for a positive time (the rail sum over dies).
    pub nand_peak: f64,
    /// Largest average NAND power over any interval of `power.peak_window`.
    pub nand_peak_window: f64,
    pub io_bus_avg: f64,
    pub controller_avg: f64,
    pub dram_avg: f64,
    pub other_avg: f64,
    pub total_avg: f64,
    /// Largest instantaneous input power; per-command and per-byte DRAM energies are impulses
    /// and count in the averages only.
    pub total_peak: f64,
}

/// Energy per component over the run (docs/guide/report.md) [J].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct EnergyReport {
    pub nand: f64,
    pub io_bus: f64,
    pub controller: f64,
    pub dram: f64,
    pub other: f64,
    pub total: f64,
}
