//! Parameters of the thermal model (docs/models/thermal.md): the lumped RC network of an M.2 2280
//! board with its NAND packages, controller, DRAM, PCB and an optional heatsink, and its topology
//! (which node connects to which, through which resistance).
//!
//! Declared once, with unit, default and source; unknown keys are rejected. The defaults are the
//! team's reference network (docs/models/thermal.md, "Default parameters"): capacitances derived
//! from package volumes and volumetric heat capacities [D], package-to-board resistances of the
//! order of a generic PBGA's θJB [P: TI TMS320C6742 datasheet, thermal table], board-to-ambient
//! resistance from convection plus conduction to the motherboard [D]. Presets carry their own
//! `[thermal]` table (configs/drives/); `validate` runs when the scenario is loaded with
//! `thermal.enabled`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::per_package::PerPackage;
use crate::base::error::ConfigError;
use crate::base::time::Duration;

/// The thermal model (docs/models/thermal.md): an RC network whose nodes are the controller, the
/// NAND packages, the DRAM package, the PCB and optionally a heatsink, with ambient as a fixed
/// boundary temperature. A resistance of `inf` removes its path.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalConfig {
    /// Model temperatures: the network is fed the power model's per-node power (needs
    /// `power.enabled`). Default false.
    pub enabled: bool,
    /// Ambient temperature inside the chassis, the boundary condition [°C]. Default 35
    /// (docs/models/thermal.md [A]; 25–55 °C is the expected range).
    pub ambient_c: f64,
    /// Temperature at the start of the run: `"ambient"` (every node at `ambient_c`), `"steady"`
    /// (the steady state of the idle drive's power) or a temperature for every node [°C].
    /// Default "ambient".
    pub initial: InitialTemperature,
    /// Longest interval between two updates of the temperatures (and two looks of the throttling
    /// policy at them); each update is exact for the average power of the interval [duration].
    /// Default 10ms (package time constants are seconds).
    pub step: Duration,
    /// What the NVMe composite temperature is: `controller` (the controller's sensor) or `max`
    /// (the hottest node). Default controller.
    pub composite: CompositeSensor,
    /// Thresholds for the report's `thermal.time_above_s`: time the composite temperature spent
    /// at or above each [°C]. Default [75, 80, 83, 85] (TMT1, TMT2, WCTEMP, CCTEMP defaults,
    /// docs/models/thermal.md).
    pub thresholds_c: Vec<f64>,
    /// Number of NAND packages on the board [packages]. Default 4 (an M.2 2280 board).
    pub nand_packages: u32,
    /// Add a heatsink node on top of the packages. Default false (a bare M.2 board).
    pub heatsink: bool,
    /// Heat capacities of the nodes [J/K].
    pub capacitance_j_per_k: ThermalCapacitances,
    /// Thermal resistances between nodes and to ambient [K/W].
    pub resistance_k_per_w: ThermalResistances,
    /// Conductance from the controller package straight to each NAND package, in parallel with
    /// the path through the PCB: the copper and the short distance between a package and the
    /// controller beside it [W/K]. One number for every package or a list with one per package
    /// (`nand_0` first); 0 adds no path. Default 0 (every package reaches the controller only
    /// through the PCB) [A: the self-heating paper attributes its ±15 °C chip-to-chip spread to
    /// components that "thermally react differently", without values; docs/models/thermal.md].
    pub controller_coupling_w_per_k: PerPackage,
    /// Which nodes the power model heats: `all`, or `nand` (the NAND packages alone, as in the
    /// self-heating paper's thermal model). Default all.
    pub heat_sources: super::heat::HeatSources,
}

/// Where a run's temperatures start.
#[derive(Clone, Copy, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum InitialTemperature {
    /// `"ambient"` or `"steady"`.
    Named(InitialName),
    /// Every node at this temperature [°C].
    Celsius(f64),
}

/// The named starting states.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InitialName {
    /// Every node at ambient.
    Ambient,
    /// The steady state of the idle drive (no I/O): a drive that has been on for a while.
    Steady,
}

impl<'de> Deserialize<'de> for InitialTemperature {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = InitialTemperature;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "\"ambient\", \"steady\" or a temperature in °C such as 60")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<InitialTemperature, E> {
                match text {
                    "ambient" => Ok(InitialTemperature::Named(InitialName::Ambient)),
                    "steady" => Ok(InitialTemperature::Named(InitialName::Steady)),
                    _ => Err(E::custom(format!(
                        "unknown starting temperature {text:?}; allowed: \"ambient\", \"steady\" or a temperature in °C"
                    ))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<InitialTemperature, E> {
                Ok(InitialTemperature::Celsius(value))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<InitialTemperature, E> {
                Ok(InitialTemperature::Celsius(value as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<InitialTemperature, E> {
                Ok(InitialTemperature::Celsius(value as f64))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The sensor behind the NVMe composite temperature.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CompositeSensor {
    /// The controller's own sensor.
    Controller,
    /// The hottest node of the network.
    Max,
}

/// Heat capacity of each node [J/K]; each must be positive.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalCapacitances {
    /// Controller package [J/K]. Default 0.5 [D: ~0.3 cm³ × 1.8 J/(cm³·K)].
    pub controller: f64,
    /// One NAND package (12×18×1.2 mm BGA) [J/K]. Default 0.45 [D: 2.6e-7 m³ × 1.7e6 J/(m³·K),
    /// mold compound and silicon].
    pub nand_package: f64,
    /// DRAM package [J/K]. Default 0.2 [D].
    pub dram: f64,
    /// PCB with its connector and the small components on it [J/K]. Default 10 [D: FR-4 2280
    /// board 1.4 cm³ × 2.0 J/(cm³·K) ≈ 2.9 J/K, plus components and mounting; coupling to the
    /// motherboard raises the effective value].
    pub pcb: f64,
    /// Heatsink, used when `thermal.heatsink` is true [J/K]. Default 9 [D: ~10 g of aluminium ×
    /// 0.9 J/(g·K)].
    pub heatsink: f64,
}

/// Thermal resistance of each path [K/W]; each must be positive, `inf` removes the path.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalResistances {
    /// Controller package to PCB, through its balls [K/W]. Default 8 [P: order of a generic
    /// PBGA's θJB on a JEDEC 2S2P board, 11.3 K/W, TI TMS320C6742 datasheet].
    pub controller_to_pcb: f64,
    /// Each NAND package to PCB, through its balls [K/W]: one number for every package or a list
    /// with one per package (`nand_0` first), for packages that sit on less copper or farther
    /// from the connector. Default 10 [P: as `controller_to_pcb`].
    pub nand_to_pcb: PerPackage,
    /// DRAM package to PCB, through its balls [K/W]. Default 12 [P: as `controller_to_pcb`].
    pub dram_to_pcb: f64,
    /// Between neighbouring NAND packages, in-plane through the PCB copper; packages form a
    /// chain [K/W]. Default 15 [A].
    pub nand_lateral: f64,
    /// PCB to ambient: convection from both sides in parallel with conduction through the
    /// connector and screw to the motherboard [K/W]. Default 8 [D: convection alone
    /// 1/(10 W/(m²·K) × 3.5e-3 m²) ≈ 28 K/W, in parallel with ~15–20 K/W of conduction [A]; 5
    /// with airflow, 15 in a closed laptop].
    pub pcb_to_ambient: f64,
    /// Top of each package to the air by natural convection, without a heatsink [K/W].
    /// Default 300 [D: 1/(h·A), h ≈ 10 W/(m²·K), A ≈ 2.2e-4 m²].
    pub package_top_to_ambient: f64,
    /// Top of each package to the heatsink through a thermal pad, replacing
    /// `package_top_to_ambient` when `thermal.heatsink` is true [K/W]. Default 3 [A].
    pub package_to_heatsink: f64,
    /// Heatsink to ambient by natural convection [K/W]. Default 20 [A: 1/(h·A) with h ≈ 10
    /// W/(m²·K) and ~5e-3 m² of fin area].
    pub heatsink_to_ambient: f64,
}

impl Default for ThermalConfig {
    fn default() -> Self {
        ThermalConfig {
            enabled: false,
            ambient_c: 35.0,
            initial: InitialTemperature::Named(InitialName::Ambient),
            step: Duration::from_millis(10),
            composite: CompositeSensor::Controller,
            thresholds_c: vec![75.0, 80.0, 83.0, 85.0],
            nand_packages: 4,
            heatsink: false,
            capacitance_j_per_k: ThermalCapacitances::default(),
            resistance_k_per_w: ThermalResistances::default(),
            controller_coupling_w_per_k: PerPackage::All(0.0),
            heat_sources: super::heat::HeatSources::All,
        }
    }
}

impl Default for ThermalCapacitances {
    fn default() -> Self {
        ThermalCapacitances {
            controller: 0.5,
            nand_package: 0.45,
            dram: 0.2,
            pcb: 10.0,
            heatsink: 9.0,
        }
    }
}

impl Default for ThermalResistances {
    fn default() -> Self {
        ThermalResistances {
            controller_to_pcb: 8.0,
            nand_to_pcb: PerPackage::All(10.0),
            dram_to_pcb: 12.0,
            nand_lateral: 15.0,
            pcb_to_ambient: 8.0,
            package_top_to_ambient: 300.0,
            package_to_heatsink: 3.0,
            heatsink_to_ambient: 20.0,
        }
    }
}

/// A node of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Controller,
    /// NAND package `i` (0-based).
    Nand(usize),
    Dram,
    Pcb,
    /// Present only with `thermal.heatsink`.
    Heatsink,
}

impl Node {
    /// The node's name in reports and errors (`controller`, `nand_0`, …).
    pub fn name(self) -> String {
        match self {
            Node::Controller => "controller".into(),
            Node::Nand(i) => format!("nand_{i}"),
            Node::Dram => "dram".into(),
            Node::Pcb => "pcb".into(),
            Node::Heatsink => "heatsink".into(),
        }
    }
}

/// A thermal resistance between node `a` and node `b`, or ambient when `b` is `None`, with the
/// key that sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub a: usize,
    pub b: Option<usize>,
    /// [K/W]; infinite for an open path.
    pub resistance_k_per_w: f64,
    /// Dotted key of the resistance, e.g. `thermal.resistance_k_per_w.nand_to_pcb`.
    pub key: &'static str,
}

/// The network's nodes in index order, their capacitances [J/K] and the capacitance keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub nodes: Vec<Node>,
    pub capacitance_j_per_k: Vec<f64>,
    pub capacitance_keys: Vec<&'static str>,
    pub links: Vec<Link>,
}

impl ThermalConfig {
    /// The nodes and links this configuration describes: the controller (index 0), the NAND
    /// packages (1..=n), DRAM, PCB, then the heatsink if present. Every package sits on the PCB
    /// (each NAND package through its own `nand_to_pcb`); NAND packages are chained laterally; a
    /// NAND package with a positive `controller_coupling_w_per_k` is joined to the controller;
    /// each package's top goes to the heatsink if there is one, to the air otherwise; PCB and
    /// heatsink go to ambient. Per-package lists must have one value per package (`validate`).
    pub fn layout(&self) -> Layout {
        let c = &self.capacitance_j_per_k;
        let r = &self.resistance_k_per_w;
        let n = self.nand_packages as usize;
        let mut nodes = vec![Node::Controller];
        nodes.extend((0..n).map(Node::Nand));
        nodes.extend([Node::Dram, Node::Pcb]);
        let mut capacitance_j_per_k = vec![c.controller];
        capacitance_j_per_k.resize(1 + n, c.nand_package);
        capacitance_j_per_k.extend([c.dram, c.pcb]);
        let mut capacitance_keys = vec!["thermal.capacitance_j_per_k.controller"];
        capacitance_keys.resize(1 + n, "thermal.capacitance_j_per_k.nand_package");
        capacitance_keys.extend(["thermal.capacitance_j_per_k.dram", "thermal.capacitance_j_per_k.pcb"]);
        let dram = n + 1;
        let pcb = n + 2;
        let heatsink = self.heatsink.then(|| {
            nodes.push(Node::Heatsink);
            capacitance_j_per_k.push(c.heatsink);
            capacitance_keys.push("thermal.capacitance_j_per_k.heatsink");
            n + 3
        });
        let link = |a, b, resistance_k_per_w, key| Link {
            a,
            b,
            resistance_k_per_w,
            key,
        };
        let mut links = vec![link(
            0,
            Some(pcb),
            r.controller_to_pcb,
            "thermal.resistance_k_per_w.controller_to_pcb",
        )];
        for i in 1..=n {
            links.push(link(
                i,
                Some(pcb),
                r.nand_to_pcb.get(i - 1),
                "thermal.resistance_k_per_w.nand_to_pcb",
            ));
            let coupling = self.controller_coupling_w_per_k.get(i - 1);
            if coupling > 0.0 {
                links.push(link(0, Some(i), 1.0 / coupling, "thermal.controller_coupling_w_per_k"));
            }
            if i < n {
                links.push(link(
                    i,
                    Some(i + 1),
                    r.nand_lateral,
                    "thermal.resistance_k_per_w.nand_lateral",
                ));
            }
        }
        links.push(link(
            dram,
            Some(pcb),
            r.dram_to_pcb,
            "thermal.resistance_k_per_w.dram_to_pcb",
        ));
        links.push(link(
            pcb,
            None,
            r.pcb_to_ambient,
            "thermal.resistance_k_per_w.pcb_to_ambient",
        ));
        for package in 0..=dram {
            links.push(match heatsink {
                Some(h) => link(
                    package,
                    Some(h),
                    r.package_to_heatsink,
                    "thermal.resistance_k_per_w.package_to_heatsink",
                ),
                None => link(
                    package,
                    None,
                    r.package_top_to_ambient,
                    "thermal.resistance_k_per_w.package_top_to_ambient",
                ),
            });
        }
        if let Some(h) = heatsink {
            links.push(link(
                h,
                None,
                r.heatsink_to_ambient,
                "thermal.resistance_k_per_w.heatsink_to_ambient",
            ));
        }
        Layout {
            nodes,
            capacitance_j_per_k,
            capacitance_keys,
            links,
        }
    }

    /// Range checks: a finite ambient, at least one NAND package, finite positive capacitances,
    /// positive resistances (`inf` allowed: an open path), and a path to ambient from every node.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let InitialTemperature::Celsius(value) = self.initial {
            if !(-273.15..=1000.0).contains(&value) {
                return Err(ConfigError::new(
                    "thermal.initial",
                    format!("{value} °C is out of range; allowed: \"ambient\", \"steady\" or -273.15 to 1000 °C"),
                ));
            }
        }
        if self.step.as_nanos() < 1_000 {
            return Err(ConfigError::new(
                "thermal.step",
                format!("{} is out of range; allowed: at least 1us", self.step),
            ));
        }
        if let Some(bad) = self.thresholds_c.iter().find(|t| !t.is_finite()) {
            return Err(ConfigError::new(
                "thermal.thresholds_c",
                format!("{bad} is not a temperature [°C]"),
            ));
        }
        if !self.ambient_c.is_finite() {
            return Err(ConfigError::new(
                "thermal.ambient_c",
                format!("{} is not a temperature [°C]", self.ambient_c),
            ));
        }
        if self.nand_packages == 0 {
            return Err(ConfigError::new(
                "thermal.nand_packages",
                "0 packages: at least 1 is needed",
            ));
        }
        let packages = self.nand_packages as usize;
        let nand_to_pcb = &self.resistance_k_per_w.nand_to_pcb;
        nand_to_pcb.check_length(packages, "thermal.resistance_k_per_w.nand_to_pcb")?;
        let coupling = &self.controller_coupling_w_per_k;
        coupling.check_length(packages, "thermal.controller_coupling_w_per_k")?;
        for (index, value) in coupling.values(packages).into_iter().enumerate() {
            if !(value >= 0.0 && value.is_finite()) {
                return Err(ConfigError::new(
                    coupling.key("thermal.controller_coupling_w_per_k", index),
                    format!("{value} W/K: a conductance must be finite and at least 0 (0 adds no path)"),
                ));
            }
        }
        for (index, value) in nand_to_pcb.values(packages).into_iter().enumerate() {
            if value.is_nan() || value <= 0.0 {
                return Err(ConfigError::new(
                    nand_to_pcb.key("thermal.resistance_k_per_w.nand_to_pcb", index),
                    format!("{value} K/W: a resistance must be positive (`inf` removes the path)"),
                ));
            }
        }
        let layout = self.layout();
        for (&capacitance, &key) in layout.capacitance_j_per_k.iter().zip(&layout.capacitance_keys) {
            if !(capacitance > 0.0 && capacitance.is_finite()) {
                return Err(ConfigError::new(
                    key,
                    format!("{capacitance} J/K: a capacitance must be positive and finite"),
                ));
            }
        }
        for link in &layout.links {
            if link.resistance_k_per_w.is_nan() || link.resistance_k_per_w <= 0.0 {
                return Err(ConfigError::new(
                    link.key,
                    format!(
                        "{} K/W: a resistance must be positive (`inf` removes the path)",
                        link.resistance_k_per_w
                    ),
                ));
            }
        }
        // Every node must reach ambient through finite resistances, or its temperature under any
        // power grows without bound (G would be singular).
        let closed = |link: &&Link| link.resistance_k_per_w.is_finite();
        let mut reached = vec![false; layout.nodes.len()];
        for link in layout.links.iter().filter(closed).filter(|link| link.b.is_none()) {
            reached[link.a] = true;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for link in layout.links.iter().filter(closed) {
                if let Some(b) = link.b {
                    if reached[link.a] != reached[b] {
                        reached[link.a] = true;
                        reached[b] = true;
                        changed = true;
                    }
                }
            }
        }
        // The board first: when it is cut off, so is every package on it.
        let isolated: Vec<Node> = layout
            .nodes
            .iter()
            .zip(&reached)
            .filter(|(_, &r)| !r)
            .map(|(&node, _)| node)
            .collect();
        if let Some(&node) = isolated.iter().find(|&&node| node == Node::Pcb).or(isolated.first()) {
            // Name the resistance that would give the node its way out: the board's (or the
            // heatsink's) to ambient, or the package's to the board.
            let key = match node {
                Node::Controller => "thermal.resistance_k_per_w.controller_to_pcb",
                Node::Nand(_) => "thermal.resistance_k_per_w.nand_to_pcb",
                Node::Dram => "thermal.resistance_k_per_w.dram_to_pcb",
                Node::Pcb => "thermal.resistance_k_per_w.pcb_to_ambient",
                Node::Heatsink => "thermal.resistance_k_per_w.heatsink_to_ambient",
            };
            return Err(ConfigError::new(
                key,
                format!(
                    "node `{}` has no path to ambient through finite resistances",
                    node.name()
                ),
            ));
        }
        Ok(())
    }
}
