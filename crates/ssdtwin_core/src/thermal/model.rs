//! The thermal model of a run: the network fed the power model's per-node energy at each thermal
//! step, the sensors the throttling policies read, and the report's temperature figures.
//!
//! Power is piecewise constant between the drive's state changes, far more often than the
//! network's time constants (seconds) can follow. Each step applies the *average* power of every
//! node over the step and advances the network exactly over it ([`ThermalNetwork::advance`]): the
//! heat put in is exactly the energy the power model counted, and the temperature error against
//! following every change is of the order of the step over the shortest time constant's share of
//! the power's ripple (below 0.01 K at the default 10 ms step against a 2 s package constant).

use serde::Serialize;
use std::collections::BTreeMap;

pub use super::heat::HeatSources;

use super::network::{InitialState, ThermalNetwork};
use super::params::{CompositeSensor, InitialName, InitialTemperature, Node, ThermalConfig};
use super::throttle::Readings;
use crate::base::error::ConfigError;
use crate::base::time::Time;
pub use crate::observe::NodeEnergy;

/// The report's `thermal` block.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ThermalReport {
    /// Highest temperature of each node [°C] (at thermal step ends).
    pub max_c: BTreeMap<String, f64>,
    /// Temperature of each node at the end of the run [°C].
    pub final_c: BTreeMap<String, f64>,
    /// Highest NVMe composite temperature [°C].
    pub composite_max_c: f64,
    /// NVMe composite temperature at the end [°C].
    pub composite_final_c: f64,
    /// Time the composite temperature spent at or above each of `thermal.thresholds_c` [s],
    /// keyed by the threshold.
    pub time_above_s: BTreeMap<String, f64>,
    /// The network's time constants, longest first [s].
    pub time_constants_s: Vec<f64>,
    /// Heat the network received, stored above ambient at the end, and gave to ambient [J]:
    /// the first is the sum of the other two.
    pub energy_in_j: f64,
    pub energy_stored_j: f64,
    pub energy_to_ambient_j: f64,
}

/// The sampled temperatures: one row per time-series interval, at its end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThermalSeries {
    /// End of each sampled interval.
    pub time: Vec<Time>,
    /// `temp_c.<node>` columns, in node order.
    pub temperatures: Vec<Vec<f64>>,
    /// `throttle_state` (0 off, 1 light, 2 heavy).
    pub throttle_state: Vec<f64>,
}

#[derive(Clone, Debug)]
pub struct ThermalModel {
    network: ThermalNetwork,
    /// Node indices: controller, NAND packages, DRAM, PCB.
    controller: usize,
    packages: std::ops::Range<usize>,
    dram: usize,
    pcb: usize,
    composite: CompositeSensor,
    heat_sources: HeatSources,
    thresholds: Vec<f64>,
    time_above: Vec<f64>,
    max: Vec<f64>,
    composite_max: f64,
    /// Energy per node at the last step [J], in node order.
    last_energy: Vec<f64>,
    series: ThermalSeries,
}

impl ThermalModel {
    /// The model `config` describes, at `start`; `idle` holds the idle drive's power per source
    /// [W] in the fields of a [`NodeEnergy`] (for `thermal.initial = "steady"`).
    pub fn new(config: &ThermalConfig, start: Time, idle: &NodeEnergy) -> Result<ThermalModel, ConfigError> {
        config.validate()?;
        let layout = config.layout();
        let n = config.nand_packages as usize;
        let idle_power = Self::node_vector(layout.nodes.len(), n, idle, config.heat_sources);
        let initial = match config.initial {
            InitialTemperature::Named(InitialName::Ambient) => InitialState::Ambient,
            InitialTemperature::Named(InitialName::Steady) => InitialState::Steady(idle_power),
            InitialTemperature::Celsius(value) => InitialState::Temperatures(vec![value; layout.nodes.len()]),
        };
        let network = ThermalNetwork::from_layout(&layout, config.ambient_c, start, initial);
        let temperatures = network.temperatures();
        let mut model = ThermalModel {
            controller: network.index(Node::Controller),
            packages: 1..1 + n,
            dram: network.index(Node::Dram),
            pcb: network.index(Node::Pcb),
            composite: config.composite,
            heat_sources: config.heat_sources,
            thresholds: config.thresholds_c.clone(),
            time_above: vec![0.0; config.thresholds_c.len()],
            max: temperatures.clone(),
            composite_max: f64::NEG_INFINITY,
            last_energy: vec![0.0; layout.nodes.len()],
            series: ThermalSeries {
                temperatures: vec![Vec::new(); layout.nodes.len()],
                ..ThermalSeries::default()
            },
            network,
        };
        model.composite_max = model.composite_c();
        Ok(model)
    }

    /// `energy` laid out in node order (the heatsink, if any, receives nothing; with
    /// `HeatSources::Nand` neither do the controller, DRAM and board).
    fn node_vector(nodes: usize, packages: usize, energy: &NodeEnergy, heat: HeatSources) -> Vec<f64> {
        let mut vector = vec![0.0; nodes];
        vector[1..1 + packages].copy_from_slice(&energy.packages);
        if heat == HeatSources::All {
            vector[0] = energy.controller;
            vector[1 + packages] = energy.dram;
            vector[2 + packages] = energy.board;
        }
        vector
    }

    /// The network (for checks).
    pub fn network(&self) -> &ThermalNetwork {
        &self.network
    }

    /// The time the temperatures are at.
    pub fn now(&self) -> Time {
        self.network.now()
    }

    /// Advances to `now`, the power of each node over the step being its energy since the last
    /// step (`energy` is cumulative) divided by the step.
    pub fn step(&mut self, now: Time, energy: &NodeEnergy) {
        let span = now.since(self.network.now()).as_secs_f64();
        if span <= 0.0 {
            return;
        }
        let energy = Self::node_vector(self.last_energy.len(), self.packages.len(), energy, self.heat_sources);
        let power: Vec<f64> = energy
            .iter()
            .zip(&self.last_energy)
            .map(|(now, before)| ((now - before) / span).max(0.0))
            .collect();
        self.network.set_powers(&power);
        self.last_energy = energy;
        let composite_before = self.composite_c();
        self.network.advance(now);
        let temperatures = self.network.temperatures();
        for (max, &t) in self.max.iter_mut().zip(&temperatures) {
            *max = max.max(t);
        }
        let composite = self.composite_c();
        self.composite_max = self.composite_max.max(composite);
        // Time at or above each threshold, the composite taken linear over the step.
        for (above, &threshold) in self.time_above.iter_mut().zip(&self.thresholds) {
            *above += span * fraction_above(composite_before, composite, threshold);
        }
    }

    /// The NVMe composite temperature now [°C].
    pub fn composite_c(&self) -> f64 {
        match self.composite {
            CompositeSensor::Controller => self.network.temperature(Node::Controller),
            CompositeSensor::Max => self
                .network
                .temperatures()
                .into_iter()
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// The hottest NAND package now [°C].
    pub fn hottest_nand_c(&self) -> f64 {
        let temperatures = self.network.temperatures();
        temperatures[self.packages.clone()]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// What the throttling policies read.
    pub fn readings(&self) -> Readings {
        Readings {
            composite_c: self.composite_c(),
            hottest_nand_c: self.hottest_nand_c(),
        }
    }

    /// Records the temperatures now as the end of a time-series interval.
    pub fn record(&mut self, throttle_state: f64) {
        let now = self.network.now();
        if self.series.time.last() == Some(&now) {
            return;
        }
        self.series.time.push(now);
        for (column, t) in self.series.temperatures.iter_mut().zip(self.network.temperatures()) {
            column.push(t);
        }
        self.series.throttle_state.push(throttle_state);
    }

    /// The sampled temperatures.
    pub fn series(&self) -> &ThermalSeries {
        &self.series
    }

    /// Names of the nodes, in node order.
    pub fn node_names(&self) -> Vec<String> {
        self.network.nodes().iter().map(|node| node.name()).collect()
    }

    /// The report's block.
    pub fn report(&self) -> ThermalReport {
        let names = self.node_names();
        let temperatures = self.network.temperatures();
        ThermalReport {
            max_c: names.iter().cloned().zip(self.max.iter().copied()).collect(),
            final_c: names.iter().cloned().zip(temperatures).collect(),
            composite_max_c: self.composite_max,
            composite_final_c: self.composite_c(),
            time_above_s: self
                .thresholds
                .iter()
                .zip(&self.time_above)
                .map(|(threshold, &time)| (format!("{threshold}"), time))
                .collect(),
            time_constants_s: self.network.time_constants_s(),
            energy_in_j: self.network.energy_in_j(),
            energy_stored_j: self.network.stored_energy_j(),
            energy_to_ambient_j: self.network.energy_to_ambient_j(),
        }
    }

    /// Node indices of the controller, DRAM and PCB (for checks).
    pub fn indices(&self) -> (usize, std::ops::Range<usize>, usize, usize) {
        (self.controller, self.packages.clone(), self.dram, self.pcb)
    }
}

/// The fraction of a step over which a temperature going linearly from `from` to `to` is at or
/// above `threshold`.
fn fraction_above(from: f64, to: f64, threshold: f64) -> f64 {
    match (from >= threshold, to >= threshold) {
        (true, true) => 1.0,
        (false, false) => 0.0,
        (false, true) => (to - threshold) / (to - from),
        (true, false) => (from - threshold) / (from - to),
    }
}
