//! The thermal model (docs/models/thermal.md): a lumped RC network of the drive, integrated
//! exactly under piecewise-constant power, fed the power model's per-node energy at every thermal
//! step ([`model`]), and the throttling policies that act on its temperatures ([`throttle`]).
//!
//! The network is the physical (Cauer) form: nodes controller, NAND packages, DRAM, PCB and an
//! optional heatsink, each with a heat capacity C_i, joined by thermal resistances R_ij, with
//! ambient T_a as a fixed boundary:
//!
//! `C_i·dT_i/dt = P_i − Σ_j (T_i − T_j)/R_ij − (T_i − T_a)/R_i,a`, in matrix form
//! `C·dT/dt = P + g_a·T_a − G·T`.
//!
//! Rather than the implicit Euler step a fixed-step simulator would take, [`network`] uses the
//! exact solution for power constant between two instants, `T(t+Δ) = T_ss + exp(−C⁻¹G·Δ)·(T(t) −
//! T_ss)` with `T_ss = T_a + G⁻¹P`, through one eigendecomposition of the symmetric matrix
//! `C^{-1/2}·G·C^{-1/2}`: an event-driven simulation can advance it by any interval at the
//! instants power changes. The default parameters ([`params`]) describe an M.2 2280 board with
//! four NAND packages; they are derived from package volumes, a generic PBGA datasheet's θJB
//! (TI TMS320C6742) and convection estimates, and give package time constants of a few seconds
//! and a board time constant of about a minute and a half. The Foster (superposition) form and the
//! die junction offset inside a package are not modelled.
//!
//! An observer layer: imports only `base` and `observe`.

pub mod heat;
pub mod model;
pub mod network;
pub mod params;
pub mod per_package;
pub mod throttle;

pub use model::{HeatSources, NodeEnergy, ThermalModel, ThermalReport, ThermalSeries};
pub use network::{InitialState, ThermalNetwork};
pub use params::{Node, ThermalConfig};
pub use per_package::PerPackage;

#[cfg(test)]
mod tests;
