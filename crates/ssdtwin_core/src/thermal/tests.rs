//! Tests of the thermal network (docs/models/thermal.md, "Validated against"): steady state,
//! the single-node closed form, the energy balance, the default network's heating, validation.

use nalgebra::DVector;

use super::network::{InitialState, ThermalNetwork};
use super::params::{Layout, Link, Node, ThermalConfig};
use crate::base::time::{Duration, Time};

/// The loads of the reference sanity runs (docs/models/thermal.md): 2.5 W controller, 0.8 W per
/// NAND package, 0.4 W DRAM, nothing on the board.
fn reference_power(network: &ThermalNetwork) -> Vec<f64> {
    network
        .nodes()
        .iter()
        .map(|node| match node {
            Node::Controller => 2.5,
            Node::Nand(_) => 0.8,
            Node::Dram => 0.4,
            Node::Pcb | Node::Heatsink => 0.0,
        })
        .collect()
}

fn apply(network: &mut ThermalNetwork, power: &[f64]) {
    for (i, &watts) in power.iter().enumerate() {
        network.set_power(network.nodes()[i], watts);
    }
}

fn default_network(config: &ThermalConfig) -> ThermalNetwork {
    ThermalNetwork::new(config, Time::ZERO, InitialState::Ambient).unwrap()
}

/// `T_a + G⁻¹·P` by an LU solve, independent of the network's eigendecomposition.
fn solved_steady_state(network: &ThermalNetwork, power: &[f64]) -> Vec<f64> {
    let rise = network
        .conductance()
        .clone()
        .lu()
        .solve(&DVector::from_column_slice(power))
        .unwrap();
    rise.iter().map(|r| network.ambient_c() + r).collect()
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

#[test]
fn thermal_steady_state_after_100_time_constants_in_one_call_and_in_1000() {
    for heatsink in [false, true] {
        let config = ThermalConfig {
            heatsink,
            ..ThermalConfig::default()
        };
        let mut one = default_network(&config);
        let power = reference_power(&one);
        apply(&mut one, &power);
        let mut many = one.clone();
        let expected = solved_steady_state(&one, &power);
        assert!(
            max_difference(&one.steady_state(), &expected) < 1e-9,
            "{:?} vs {expected:?}",
            one.steady_state()
        );

        // 100 of the longest time constant, rounded up to a multiple of 1000 ns steps.
        let longest = one.time_constants_s()[0];
        let steps = 1000u64;
        let step = Duration::from_secs_f64(100.0 * longest / steps as f64) + Duration::from_nanos(1);
        let end = Time::ZERO + step * steps;
        one.advance(end);
        for k in 1..=steps {
            many.advance(Time::ZERO + step * k);
        }
        assert!(
            max_difference(&one.temperatures(), &expected) < 0.01,
            "{:?} vs {expected:?}",
            one.temperatures()
        );
        assert!(
            max_difference(&one.temperatures(), &many.temperatures()) < 1e-9,
            "one call {:?}, 1000 calls {:?}",
            one.temperatures(),
            many.temperatures()
        );
    }
}

#[test]
fn thermal_single_node_follows_the_closed_form() {
    let (capacitance, resistance, power, ambient) = (0.5, 20.0, 2.0, 25.0);
    let layout = Layout {
        nodes: vec![Node::Controller],
        capacitance_j_per_k: vec![capacitance],
        capacitance_keys: vec!["thermal.capacitance_j_per_k.controller"],
        links: vec![Link {
            a: 0,
            b: None,
            resistance_k_per_w: resistance,
            key: "r",
        }],
    };
    let tau = resistance * capacitance;
    let mut sequential = ThermalNetwork::from_layout(&layout, ambient, Time::ZERO, InitialState::Ambient);
    sequential.set_power(Node::Controller, power);
    assert!((sequential.time_constants_s()[0] - tau).abs() < 1e-12);
    for nanos in [
        1_000,
        100_000_000,
        1_000_000_000,
        5_000_000_000,
        10_000_000_000,
        37_500_000_123,
        100_000_000_000,
    ] {
        let at = Time::from_nanos(nanos);
        let t = at.as_secs_f64();
        let expected = ambient + power * resistance * (1.0 - (-t / tau).exp());
        let mut direct = ThermalNetwork::from_layout(&layout, ambient, Time::ZERO, InitialState::Ambient);
        direct.set_power(Node::Controller, power);
        direct.advance(at);
        sequential.advance(at);
        for network in [&direct, &sequential] {
            let error = network.temperature(Node::Controller) - expected;
            assert!(
                error.abs() < 1e-9,
                "t = {t} s: {} vs {expected}",
                network.temperature(Node::Controller)
            );
        }
    }
}

#[test]
fn thermal_energy_balance_over_power_steps() {
    let steps: [(u64, f64); 6] = [
        (3_000, 1.0),
        (500, 2.0),
        (60_000, 0.0),
        (7, 0.5),
        (120_000, 1.5),
        (250_000, 0.0),
    ];
    for (heatsink, initial_steady) in [(false, false), (true, false), (false, true)] {
        let config = ThermalConfig {
            heatsink,
            ..ThermalConfig::default()
        };
        let reference = reference_power(&default_network(&config));
        let initial = if initial_steady {
            InitialState::Steady(reference.clone())
        } else {
            InitialState::Ambient
        };
        let mut network = ThermalNetwork::new(&config, Time::ZERO, initial).unwrap();
        let stored_at_start = network.stored_energy_j();
        assert_eq!(stored_at_start > 0.0, initial_steady);
        let mut now = Time::ZERO;
        for (i, &(millis, scale)) in steps.iter().enumerate() {
            // Shift the load around the nodes as well as scaling it.
            let power: Vec<f64> = reference
                .iter()
                .enumerate()
                .map(|(j, p)| (p + 0.1 * ((i + j) % 3) as f64) * scale)
                .collect();
            apply(&mut network, &power);
            now += Duration::from_millis(millis);
            network.advance(now);
        }
        let heat_in = network.energy_in_j();
        let balance = heat_in - (network.stored_energy_j() - stored_at_start) - network.energy_to_ambient_j();
        assert!(heat_in > 1000.0, "{heat_in} J");
        assert!(
            balance.abs() <= 1e-9 * heat_in,
            "in {heat_in} J, stored {} J (from {stored_at_start}), out {} J: off by {balance} J",
            network.stored_energy_j(),
            network.energy_to_ambient_j()
        );
    }
}

#[test]
fn thermal_default_network_heats_monotonically_and_the_most_power_per_conductance_is_hottest() {
    let config = ThermalConfig::default();
    let mut network = default_network(&config);
    let power = reference_power(&network);
    apply(&mut network, &power);
    let per_conductance: Vec<f64> = (0..power.len())
        .map(|i| power[i] / network.conductance()[(i, i)])
        .collect();
    let expected_hottest = (0..power.len())
        .max_by(|&a, &b| per_conductance[a].total_cmp(&per_conductance[b]))
        .unwrap();
    assert_eq!(network.nodes()[expected_hottest], Node::Controller);

    let watched: Vec<usize> = (0..power.len())
        .filter(|&i| matches!(network.nodes()[i], Node::Controller | Node::Nand(_)))
        .collect();
    assert_eq!(watched.len(), 1 + config.nand_packages as usize);
    let mut previous = network.temperatures();
    for k in 1..=2000u64 {
        network.advance(Time::ZERO + Duration::from_millis(500) * k);
        let now = network.temperatures();
        for &i in &watched {
            assert!(
                now[i] > previous[i],
                "{:?} cooled at {} s: {} -> {}",
                network.nodes()[i],
                k / 2,
                previous[i],
                now[i]
            );
        }
        let hottest = (0..now.len()).max_by(|&a, &b| now[a].total_cmp(&now[b])).unwrap();
        assert_eq!(hottest, expected_hottest, "at {} s: {now:?}", k / 2);
        previous = now;
    }
    let steady = network.steady_state();
    let hottest = (0..steady.len())
        .max_by(|&a, &b| steady[a].total_cmp(&steady[b]))
        .unwrap();
    assert_eq!(hottest, expected_hottest);
}

#[test]
fn thermal_validation_names_the_key() {
    assert_eq!(ThermalConfig::default().validate(), Ok(()));
    assert_eq!(
        ThermalConfig {
            heatsink: true,
            ..ThermalConfig::default()
        }
        .validate(),
        Ok(())
    );
    let error = |change: &dyn Fn(&mut ThermalConfig)| {
        let mut config = ThermalConfig::default();
        change(&mut config);
        let error = config.validate().unwrap_err();
        assert!(ThermalNetwork::new(&config, Time::ZERO, InitialState::Ambient).is_err());
        error.key
    };
    assert_eq!(
        error(&|c| c.capacitance_j_per_k.controller = 0.0),
        "thermal.capacitance_j_per_k.controller"
    );
    assert_eq!(
        error(&|c| c.capacitance_j_per_k.nand_package = -0.45),
        "thermal.capacitance_j_per_k.nand_package"
    );
    assert_eq!(
        error(&|c| c.capacitance_j_per_k.pcb = f64::INFINITY),
        "thermal.capacitance_j_per_k.pcb"
    );
    assert_eq!(
        error(&|c| {
            c.heatsink = true;
            c.capacitance_j_per_k.heatsink = 0.0
        }),
        "thermal.capacitance_j_per_k.heatsink"
    );
    assert_eq!(
        error(&|c| c.resistance_k_per_w.nand_to_pcb = 0.0.into()),
        "thermal.resistance_k_per_w.nand_to_pcb"
    );
    assert_eq!(
        error(&|c| c.resistance_k_per_w.dram_to_pcb = -12.0),
        "thermal.resistance_k_per_w.dram_to_pcb"
    );
    assert_eq!(
        error(&|c| c.resistance_k_per_w.nand_lateral = f64::NAN),
        "thermal.resistance_k_per_w.nand_lateral"
    );
    assert_eq!(error(&|c| c.ambient_c = f64::NAN), "thermal.ambient_c");
    assert_eq!(error(&|c| c.nand_packages = 0), "thermal.nand_packages");
    // No path to ambient: the board cut off and no package top to the air.
    let cut_off = |c: &mut ThermalConfig| {
        c.resistance_k_per_w.pcb_to_ambient = f64::INFINITY;
        c.resistance_k_per_w.package_top_to_ambient = f64::INFINITY;
    };
    assert_eq!(error(&cut_off), "thermal.resistance_k_per_w.pcb_to_ambient");
    let cut_off_with_heatsink = |c: &mut ThermalConfig| {
        c.heatsink = true;
        c.resistance_k_per_w.pcb_to_ambient = f64::INFINITY;
        c.resistance_k_per_w.heatsink_to_ambient = f64::INFINITY;
    };
    assert_eq!(
        error(&cut_off_with_heatsink),
        "thermal.resistance_k_per_w.pcb_to_ambient"
    );
    // The NAND packages cut off from the board and from the air.
    let nand_cut_off = |c: &mut ThermalConfig| {
        c.resistance_k_per_w.nand_to_pcb = f64::INFINITY.into();
        c.resistance_k_per_w.package_top_to_ambient = f64::INFINITY;
    };
    assert_eq!(error(&nand_cut_off), "thermal.resistance_k_per_w.nand_to_pcb");
    // An open path is fine while another one reaches ambient.
    let mut config = ThermalConfig::default();
    config.resistance_k_per_w.pcb_to_ambient = f64::INFINITY;
    assert_eq!(config.validate(), Ok(()));
}

#[test]
fn thermal_config_reads_toml_and_rejects_unknown_keys() {
    let config: ThermalConfig =
        toml::from_str("ambient_c = 45.0\n[resistance_k_per_w]\npcb_to_ambient = 12.0\nnand_lateral = inf\n").unwrap();
    assert_eq!(config.ambient_c, 45.0);
    assert_eq!(config.resistance_k_per_w.pcb_to_ambient, 12.0);
    assert!(config.resistance_k_per_w.nand_lateral.is_infinite());
    assert_eq!(config.capacitance_j_per_k.pcb, 10.0);
    assert_eq!(config.validate(), Ok(()));
    assert!(toml::from_str::<ThermalConfig>("[capacitance_j_per_k]\nnand = 0.4\n").is_err());
}
/// The reference sanity runs of the default network (docs/models/thermal.md, "Default
/// parameters"), computed there with backward Euler at 0.5 s steps: board resistance to ambient,
/// board capacitance, ambient; steady controller / NAND / PCB temperatures; time for the
/// controller to reach 80 °C; board time constant.
#[test]
fn thermal_default_network_reproduces_the_reference_sanity_runs() {
    let runs: [(f64, f64, f64, [f64; 3], f64, f64); 4] = [
        (5.0, 10.0, 35.0, [81.0, 69.0, 62.0], 212.0, 57.0),
        (8.0, 10.0, 35.0, [94.0, 82.0, 76.0], 96.0, 86.0),
        (12.0, 10.0, 35.0, [111.0, 99.0, 93.0], 81.0, 121.0),
        (12.0, 15.0, 45.0, [121.0, 109.0, 103.0], 63.0, 170.0),
    ];
    for (pcb_to_ambient, pcb_capacitance, ambient_c, steady_reference, time_to_80_s, board_tau_s) in runs {
        let mut config = ThermalConfig {
            ambient_c,
            ..ThermalConfig::default()
        };
        config.resistance_k_per_w.pcb_to_ambient = pcb_to_ambient;
        config.capacitance_j_per_k.pcb = pcb_capacitance;
        let mut network = default_network(&config);
        let power = reference_power(&network);
        apply(&mut network, &power);
        let steady = network.steady_state();
        let nodes = [Node::Controller, Node::Nand(0), Node::Pcb].map(|node| steady[network.index(node)]);
        // The reference rounds to whole degrees.
        assert!(
            max_difference(&nodes, &steady_reference) < 0.7,
            "R {pcb_to_ambient}: {nodes:?}"
        );
        let taus = network.time_constants_s();
        assert!((taus[0] - board_tau_s).abs() < 1.0, "R {pcb_to_ambient}: {taus:?}");
        assert!(
            taus[1..].iter().all(|&tau| tau < 5.0),
            "package time constants of seconds: {taus:?}"
        );
        let step = Duration::from_millis(100);
        let mut now = Time::ZERO;
        while network.temperature(Node::Controller) < 80.0 {
            now += step;
            network.advance(now);
        }
        // Backward Euler at 0.5 s lags the exact solution by a step or a few.
        let reached = now.as_secs_f64();
        assert!(
            (reached - time_to_80_s).abs() < 2.5,
            "R {pcb_to_ambient}: 80 °C at {reached} s"
        );
    }
}

/// A board whose packages differ: `nand_0` beside the controller (a direct coupling), the others
/// on less and less copper. The steady state is `T_a + G⁻¹·P` with G assembled here by hand from
/// the resistances, independently of `ThermalConfig::layout`, and solved by LU.
#[test]
fn thermal_asymmetric_network_steady_state_against_a_hand_built_conductance_matrix() {
    use super::per_package::PerPackage;
    let nand_to_pcb = [6.0, 10.0, 20.0, 40.0];
    let coupling = [0.25, 0.0, 0.0, 0.05];
    let mut config = ThermalConfig::default();
    config.resistance_k_per_w.nand_to_pcb = PerPackage::Each(nand_to_pcb.to_vec());
    config.controller_coupling_w_per_k = PerPackage::Each(coupling.to_vec());
    let mut network = default_network(&config);
    let power = reference_power(&network);
    apply(&mut network, &power);

    // Nodes: controller 0, NAND 1..=4, DRAM 5, PCB 6.
    let mut g = nalgebra::DMatrix::<f64>::zeros(7, 7);
    let mut join = |a: usize, b: Option<usize>, conductance: f64| {
        g[(a, a)] += conductance;
        if let Some(b) = b {
            g[(b, b)] += conductance;
            g[(a, b)] -= conductance;
            g[(b, a)] -= conductance;
        }
    };
    join(0, Some(6), 1.0 / 8.0);
    join(5, Some(6), 1.0 / 12.0);
    join(6, None, 1.0 / 8.0);
    for package in [0, 1, 2, 3, 4, 5] {
        join(package, None, 1.0 / 300.0);
    }
    for k in 0..4 {
        join(1 + k, Some(6), 1.0 / nand_to_pcb[k]);
        if coupling[k] > 0.0 {
            join(0, Some(1 + k), coupling[k]);
        }
        if k < 3 {
            join(1 + k, Some(2 + k), 1.0 / 15.0);
        }
    }
    let rise = g.lu().solve(&DVector::from_column_slice(&power)).unwrap();
    let expected: Vec<f64> = rise.iter().map(|r| 35.0 + r).collect();
    assert!(
        max_difference(&network.steady_state(), &expected) < 1e-9,
        "{:?} vs {expected:?}",
        network.steady_state()
    );
    // Reached in time: within 0.01 K after 100 of the longest time constant.
    let longest = network.time_constants_s()[0];
    network.advance(Time::ZERO + Duration::from_secs_f64(100.0 * longest));
    let temperatures = network.temperatures();
    assert!(
        max_difference(&temperatures, &expected) < 0.01,
        "{temperatures:?} vs {expected:?}"
    );
    // The packages now differ: the one on the least copper (40 K/W) is the hottest, and the one
    // beside the controller is hotter than its neighbour on a better path to the board (6 K/W,
    // but 4 K/W to the controller, against 10 K/W).
    let nand: Vec<f64> = (0..4).map(|k| temperatures[network.index(Node::Nand(k))]).collect();
    let hottest = nand.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(hottest, nand[3], "{nand:?}");
    assert!(nand[0] > nand[1], "{nand:?}");
    assert!(nand[3] - nand[1] > 5.0, "{nand:?}");

    // A list of equal values is the single value, to the bit; no coupling adds no path.
    let mut listed = ThermalConfig::default();
    listed.resistance_k_per_w.nand_to_pcb = PerPackage::Each(vec![10.0; 4]);
    listed.controller_coupling_w_per_k = PerPackage::Each(vec![0.0; 4]);
    assert_eq!(listed.layout(), ThermalConfig::default().layout());
}

#[test]
fn thermal_per_package_values_are_checked_against_the_package_count() {
    use super::per_package::PerPackage;
    let error = |change: &dyn Fn(&mut ThermalConfig)| {
        let mut config = ThermalConfig::default();
        change(&mut config);
        config.validate().unwrap_err()
    };
    let short = error(&|c| c.resistance_k_per_w.nand_to_pcb = PerPackage::Each(vec![10.0; 3]));
    assert_eq!(short.key, "thermal.resistance_k_per_w.nand_to_pcb");
    assert!(
        short.message.contains("3 values for 4 NAND packages"),
        "{}",
        short.message
    );
    let long = error(&|c| c.controller_coupling_w_per_k = PerPackage::Each(vec![0.1; 5]));
    assert_eq!(long.key, "thermal.controller_coupling_w_per_k");
    assert_eq!(
        error(&|c| c.resistance_k_per_w.nand_to_pcb = PerPackage::Each(vec![10.0, 10.0, 0.0, 10.0])).key,
        "thermal.resistance_k_per_w.nand_to_pcb[2]"
    );
    assert_eq!(
        error(&|c| c.controller_coupling_w_per_k = PerPackage::Each(vec![0.1, f64::NAN, 0.0, 0.0])).key,
        "thermal.controller_coupling_w_per_k[1]"
    );
    assert_eq!(
        error(&|c| c.controller_coupling_w_per_k = PerPackage::All(-0.1)).key,
        "thermal.controller_coupling_w_per_k"
    );
    assert_eq!(
        error(&|c| c.controller_coupling_w_per_k = PerPackage::All(f64::INFINITY)).key,
        "thermal.controller_coupling_w_per_k"
    );
    // A package cut off from the board still reaches ambient through the controller.
    let mut config = ThermalConfig::default();
    config.resistance_k_per_w.nand_to_pcb = PerPackage::Each(vec![f64::INFINITY, 10.0, 10.0, 10.0]);
    config.resistance_k_per_w.nand_lateral = f64::INFINITY;
    config.resistance_k_per_w.package_top_to_ambient = f64::INFINITY;
    assert_eq!(
        error(&|c| *c = config.clone()).key,
        "thermal.resistance_k_per_w.nand_to_pcb"
    );
    config.controller_coupling_w_per_k = PerPackage::Each(vec![0.2, 0.0, 0.0, 0.0]);
    assert_eq!(config.validate(), Ok(()));
}
