//! Exact integration of a lumped RC thermal network under piecewise-constant power
//! (docs/models/thermal.md, "Equations").
//!
//! With θ = T − T_a the temperature rise over ambient, the network obeys `C·dθ/dt = P − G·θ`,
//! where C is the diagonal of node capacitances and G the symmetric conductance matrix whose
//! diagonal includes each node's conductance to ambient. For P constant over an interval of length
//! Δ the solution is exact: `θ(t+Δ) = θ_ss + exp(−C⁻¹G·Δ)·(θ(t) − θ_ss)`, `θ_ss = G⁻¹P`.
//!
//! C⁻¹G is not symmetric, but it is similar to `A = C^{-1/2}·G·C^{-1/2}`, which is symmetric
//! positive definite when every node has a path to ambient. Its eigendecomposition `A = QΛQᵀ` is
//! computed once (nalgebra's `SymmetricEigen`). In the modal coordinates `z = Qᵀ·C^{1/2}·θ` the
//! network is n independent first-order systems `dz_k/dt = b_k − λ_k·z_k`, `b = Qᵀ·C^{-1/2}·P`,
//! each solved exactly over any Δ: no sub-stepping, no stability limit on Δ (the package time
//! constants, seconds, and the board's, minutes, need no common step).
//!
//! Heat to ambient over an interval is `∫ g_aᵀ·θ dt`, also exact in modal form: `∫ z_k dt =
//! z_ss,k·Δ + (z_k(t) − z_ss,k)·(1 − e^{−λ_k·Δ})/λ_k`. Because G's rows sum to the conductances to
//! ambient, `heat in = Δ(Σ C·θ) + heat to ambient` holds to rounding.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use super::params::{Layout, Node, ThermalConfig};
use crate::base::error::ConfigError;
use crate::base::time::Time;

/// How a network starts.
#[derive(Clone, Debug, PartialEq)]
pub enum InitialState {
    /// Every node at ambient.
    Ambient,
    /// The steady state of this power per node, in node order [W]; that power stays applied.
    Steady(Vec<f64>),
    /// These temperatures, in node order [°C].
    Temperatures(Vec<f64>),
}

/// A thermal RC network and its state: node temperatures, applied powers, energy counters.
#[derive(Clone, Debug)]
pub struct ThermalNetwork {
    nodes: Vec<Node>,
    ambient_c: f64,
    /// Node capacitances C [J/K].
    capacitance: DVector<f64>,
    /// G [W/K]: off-diagonal −1/R_ij, diagonal the sum of the node's conductances (to ambient too).
    conductance: DMatrix<f64>,
    /// Each node's conductance to ambient g_a [W/K] (= the row sums of G).
    ambient_conductance: DVector<f64>,
    sqrt_capacitance: DVector<f64>,
    /// Eigenvalues λ_k of C^{-1/2}·G·C^{-1/2} [1/s], all positive.
    eigenvalues: DVector<f64>,
    /// Q: orthonormal eigenvectors, one per column.
    eigenvectors: DMatrix<f64>,
    /// `Qᵀ·C^{-1/2}·g_a`: the heat flow to ambient is `ambient_weights · z` [W].
    ambient_weights: DVector<f64>,
    /// Applied power per node P [W].
    power: DVector<f64>,
    /// Temperature rise over ambient per node θ [K].
    rise: DVector<f64>,
    now: Time,
    energy_in_j: f64,
    energy_to_ambient_j: f64,
}

impl ThermalNetwork {
    /// The network `config` describes, at time `start` in state `initial`.
    pub fn new(config: &ThermalConfig, start: Time, initial: InitialState) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::from_layout(&config.layout(), config.ambient_c, start, initial))
    }

    /// The network of `layout` (assumed valid: positive capacitances and resistances, every node
    /// with a path to ambient), at ambient `ambient_c` [°C].
    pub fn from_layout(layout: &Layout, ambient_c: f64, start: Time, initial: InitialState) -> Self {
        let n = layout.nodes.len();
        let capacitance = DVector::from_column_slice(&layout.capacitance_j_per_k);
        let mut conductance = DMatrix::zeros(n, n);
        let mut ambient_conductance = DVector::zeros(n);
        for link in &layout.links {
            let g = 1.0 / link.resistance_k_per_w;
            conductance[(link.a, link.a)] += g;
            match link.b {
                Some(b) => {
                    conductance[(b, b)] += g;
                    conductance[(link.a, b)] -= g;
                    conductance[(b, link.a)] -= g;
                }
                None => ambient_conductance[link.a] += g,
            }
        }
        let sqrt_capacitance = capacitance.map(f64::sqrt);
        let inverse_sqrt = sqrt_capacitance.map(|s| 1.0 / s);
        let symmetric = DMatrix::from_fn(n, n, |i, j| inverse_sqrt[i] * conductance[(i, j)] * inverse_sqrt[j]);
        let SymmetricEigen {
            eigenvalues,
            eigenvectors,
        } = SymmetricEigen::new(symmetric);
        assert!(
            eigenvalues.iter().all(|&l| l > 0.0),
            "thermal network without a path to ambient: eigenvalues {eigenvalues}"
        );
        let ambient_weights = eigenvectors.tr_mul(&ambient_conductance.component_mul(&inverse_sqrt));
        let mut network = ThermalNetwork {
            nodes: layout.nodes.clone(),
            ambient_c,
            capacitance,
            conductance,
            ambient_conductance,
            sqrt_capacitance,
            eigenvalues,
            eigenvectors,
            ambient_weights,
            power: DVector::zeros(n),
            rise: DVector::zeros(n),
            now: start,
            energy_in_j: 0.0,
            energy_to_ambient_j: 0.0,
        };
        match initial {
            InitialState::Ambient => {}
            InitialState::Steady(power) => {
                assert_eq!(power.len(), n, "one power per node");
                network.power = DVector::from_vec(power);
                network.rise = network.steady_rise();
            }
            InitialState::Temperatures(temperatures) => {
                assert_eq!(temperatures.len(), n, "one temperature per node");
                network.rise = DVector::from_iterator(n, temperatures.iter().map(|t| t - ambient_c));
            }
        }
        network
    }

    /// The nodes, in index order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Index of `node`; panics if the network has no such node.
    pub fn index(&self, node: Node) -> usize {
        self.nodes
            .iter()
            .position(|&n| n == node)
            .unwrap_or_else(|| panic!("no thermal node {node:?}"))
    }

    /// The conductance matrix G, conductances to ambient on the diagonal [W/K].
    pub fn conductance(&self) -> &DMatrix<f64> {
        &self.conductance
    }

    /// Node capacitances [J/K].
    pub fn capacitance(&self) -> &DVector<f64> {
        &self.capacitance
    }

    /// Each node's conductance to ambient [W/K].
    pub fn ambient_conductance(&self) -> &DVector<f64> {
        &self.ambient_conductance
    }

    /// Ambient temperature [°C].
    pub fn ambient_c(&self) -> f64 {
        self.ambient_c
    }

    /// The network's time constants 1/λ_k, longest first [s].
    pub fn time_constants_s(&self) -> Vec<f64> {
        let mut taus: Vec<f64> = self.eigenvalues.iter().map(|l| 1.0 / l).collect();
        taus.sort_by(|a, b| b.total_cmp(a));
        taus
    }

    /// The time the state is at.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Applies `watts` to `node` from the current time on (call `advance` first) [W].
    pub fn set_power(&mut self, node: Node, watts: f64) {
        assert!(watts.is_finite(), "thermal power {watts} W");
        let i = self.index(node);
        self.power[i] = watts;
    }

    /// Applies `watts[i]` to node `i` from the current time on (call `advance` first) [W].
    pub fn set_powers(&mut self, watts: &[f64]) {
        assert_eq!(watts.len(), self.power.len(), "one power per node");
        assert!(watts.iter().all(|w| w.is_finite()), "thermal powers {watts:?} W");
        self.power.copy_from_slice(watts);
    }

    /// Power applied to `node` [W].
    pub fn power(&self, node: Node) -> f64 {
        self.power[self.index(node)]
    }

    /// Moves the state to `to` under the current powers, exactly, in one step of any length.
    /// Panics if `to` is before the current time.
    pub fn advance(&mut self, to: Time) {
        assert!(
            to >= self.now,
            "thermal network advanced backwards: {} to {}",
            self.now,
            to
        );
        let span = to.since(self.now).as_secs_f64();
        self.now = to;
        if span == 0.0 {
            return;
        }
        let modal_power = self.to_modal_power();
        let z = self
            .eigenvectors
            .tr_mul(&self.rise.component_mul(&self.sqrt_capacitance));
        let mut z_next = DVector::zeros(z.len());
        let mut heat_out_j = 0.0;
        for k in 0..z.len() {
            let lambda = self.eigenvalues[k];
            let steady = modal_power[k] / lambda;
            // 1 − e^{−λΔ}, accurate for small λΔ.
            let relaxed = -(-lambda * span).exp_m1();
            let gap = z[k] - steady;
            z_next[k] = steady + gap * (-lambda * span).exp();
            heat_out_j += self.ambient_weights[k] * (steady * span + gap * relaxed / lambda);
        }
        self.rise = (&self.eigenvectors * z_next).component_div(&self.sqrt_capacitance);
        self.energy_in_j += self.power.sum() * span;
        self.energy_to_ambient_j += heat_out_j;
    }

    /// Temperature of `node` [°C].
    pub fn temperature(&self, node: Node) -> f64 {
        self.ambient_c + self.rise[self.index(node)]
    }

    /// Temperatures of all nodes, in node order [°C].
    pub fn temperatures(&self) -> Vec<f64> {
        self.rise.iter().map(|r| self.ambient_c + r).collect()
    }

    /// The temperatures the current powers lead to, `T_a + G⁻¹·P`, in node order [°C].
    pub fn steady_state(&self) -> Vec<f64> {
        self.steady_rise().iter().map(|r| self.ambient_c + r).collect()
    }

    /// Energy put into the network since the start, ∫ΣP dt [J].
    pub fn energy_in_j(&self) -> f64 {
        self.energy_in_j
    }

    /// Heat given to ambient since the start, ∫ g_aᵀ·(T − T_a) dt [J].
    pub fn energy_to_ambient_j(&self) -> f64 {
        self.energy_to_ambient_j
    }

    /// Heat stored above ambient now, Σ C·(T − T_a) [J].
    pub fn stored_energy_j(&self) -> f64 {
        self.capacitance.dot(&self.rise)
    }

    /// `b = Qᵀ·C^{-1/2}·P`.
    fn to_modal_power(&self) -> DVector<f64> {
        self.eigenvectors
            .tr_mul(&self.power.component_div(&self.sqrt_capacitance))
    }

    /// `G⁻¹·P = C^{-1/2}·Q·Λ⁻¹·Qᵀ·C^{-1/2}·P`.
    fn steady_rise(&self) -> DVector<f64> {
        let modal = self.to_modal_power().component_div(&self.eigenvalues);
        (&self.eigenvectors * modal).component_div(&self.sqrt_capacitance)
    }
}
