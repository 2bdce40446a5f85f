//! The thermal model in whole runs (docs/models/thermal.md): the heat the network receives is the
//! energy the power model measured, the network's energy balance holds, the model observes
//! without changing what it observes, the time series carries temperatures, and each throttling
//! policy bounds the drive as its limits say (analytic bounds, not snapshots).

use super::bounds::{self, Drive, Kind};
use super::{relative_error, run, scenario};
use ssdtwin_core::{load, Override, ScenarioSource};

/// Thermal model on, on the small test drive (4 dies, so 4 packages: the preset has 8), a short
/// mixed run.
const THERMAL: [&str; 5] = [
    "thermal.enabled=true",
    "thermal.nand_packages=4",
    "workload.read_fraction=0.5",
    "workload.io_count=20000",
    "host.queue_depth=16",
];

fn with(extra: &[&str]) -> Vec<String> {
    THERMAL.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn thermal_scenario(extra: &[&str]) -> ssdtwin_core::Scenario {
    let settings = with(extra);
    let refs: Vec<&str> = settings.iter().map(String::as_str).collect();
    scenario(&refs)
}

#[test]
fn the_network_receives_the_energy_the_power_model_measured_and_balances_it() {
    let report = run(&thermal_scenario(&[]));
    let thermal = report.thermal.as_ref().expect("a thermal block");
    let total = report.energy_j.total;
    assert!(
        relative_error(thermal.energy_in_j, total) < 1e-9,
        "heat in {} J, drive input {total} J",
        thermal.energy_in_j
    );
    let balance = thermal.energy_stored_j + thermal.energy_to_ambient_j;
    assert!(
        relative_error(balance, thermal.energy_in_j) < 1e-9,
        "stored {} + to ambient {} against in {}",
        thermal.energy_stored_j,
        thermal.energy_to_ambient_j,
        thermal.energy_in_j
    );
    // Everything heats above ambient (35 °C), the controller most (most power per conductance).
    let final_c = &thermal.final_c;
    assert!(final_c.values().all(|&t| t > 35.0), "{final_c:?}");
    assert!(final_c["controller"] > final_c["nand_0"], "{final_c:?}");
    for (node, &max) in &thermal.max_c {
        assert!(max >= final_c[node] - 1e-12);
    }
    assert_eq!(
        thermal.composite_max_c, thermal.max_c["controller"],
        "composite = controller by default"
    );
}

#[test]
fn the_thermal_model_observes_without_changing_the_run() {
    let off = run(&scenario(&THERMAL[2..]));
    let on = run(&thermal_scenario(&[]));
    assert!(off.thermal.is_none() && off.throttle.is_none());
    assert_eq!(on.host_ios, off.host_ios);
    assert_eq!(on.simulated_time_s, off.simulated_time_s);
    assert_eq!(on.latency_us, off.latency_us);
    assert_eq!(on.energy_j, off.energy_j);
    assert_eq!(on.throttle.as_ref().unwrap().events, 0);
}

#[test]
fn the_time_series_carries_temperatures_and_throttle_state_per_row() {
    let report = run(&thermal_scenario(&["power.sample_interval=1ms"]));
    let series = &report.timeseries;
    let columns = series.columns();
    let column = |name: &str| {
        columns
            .iter()
            .find(|(column, _)| column == name)
            .unwrap_or_else(|| panic!("no column {name}"))
            .1
    };
    let rows = series.len();
    assert!(rows > 10, "{rows} rows");
    for node in ["controller", "nand_0", "nand_3", "dram", "pcb"] {
        assert_eq!(column(&format!("temp_c.{node}")).len(), rows);
    }
    assert_eq!(column("throttle_state").len(), rows);
    // The last row ends the run: its temperatures are the report's final ones.
    let thermal = report.thermal.as_ref().unwrap();
    assert_eq!(
        *column("temp_c.controller").last().unwrap(),
        thermal.final_c["controller"]
    );
    // Heating from ambient under constant load: the board's temperature only rises.
    let pcb = column("temp_c.pcb");
    assert!(pcb.windows(2).all(|pair| pair[1] >= pair[0] - 1e-9));
}

#[test]
fn a_run_can_start_hot() {
    let report = run(&thermal_scenario(&["thermal.initial=70", "workload.io_count=200"]));
    let thermal = report.thermal.unwrap();
    // 200 reads take milliseconds: the board (a time constant of minutes) stays at the start
    // temperature.
    assert!((thermal.final_c["pcb"] - 70.0).abs() < 0.1, "{:?}", thermal.final_c);
    // "steady": the idle drive's steady state T = T_a + G⁻¹·P_idle, with G built here from the
    // scenario's resistances on the topology of docs/models/thermal.md and solved by the test's
    // own Gaussian elimination (not the network's eigen-decomposition or its `steady_state`).
    let scenario = thermal_scenario(&["thermal.initial=\"steady\"", "workload.io_count=200"]);
    let power = &scenario.power;
    let thermal = &scenario.thermal;
    let packages = thermal.nand_packages as usize;
    let die_standby = power.vcc_v * power.isb_ua * 1e-6;
    let per_package = die_standby * f64::from(super::dies(&scenario)) / packages as f64;
    let sum = per_package * packages as f64 + power.controller_idle_w + power.dram_background_w + power.other_w;
    let board = power.other_w + sum * (1.0 / power.regulator_efficiency - 1.0);
    // Nodes: controller, nand_0 .. nand_{n-1}, dram, pcb, then the heatsink if there is one.
    let (controller, dram, pcb) = (0, packages + 1, packages + 2);
    let heatsink = thermal.heatsink.then_some(packages + 3);
    let nodes = packages + 3 + usize::from(thermal.heatsink);
    let r = &thermal.resistance_k_per_w;
    let mut g = vec![vec![0.0; nodes]; nodes];
    let mut join = |a: usize, b: Option<usize>, resistance: f64| {
        let conductance = 1.0 / resistance;
        g[a][a] += conductance;
        if let Some(b) = b {
            g[b][b] += conductance;
            g[a][b] -= conductance;
            g[b][a] -= conductance;
        }
    };
    join(controller, Some(pcb), r.controller_to_pcb);
    for package in 0..packages {
        let node = 1 + package;
        join(node, Some(pcb), r.nand_to_pcb.get(package));
        let coupling = thermal.controller_coupling_w_per_k.get(package);
        if coupling > 0.0 {
            join(controller, Some(node), 1.0 / coupling);
        }
        if package + 1 < packages {
            join(node, Some(node + 1), r.nand_lateral);
        }
    }
    join(dram, Some(pcb), r.dram_to_pcb);
    join(pcb, None, r.pcb_to_ambient);
    for top in 0..=dram {
        match heatsink {
            Some(h) => join(top, Some(h), r.package_to_heatsink),
            None => join(top, None, r.package_top_to_ambient),
        }
    }
    if let Some(h) = heatsink {
        join(h, None, r.heatsink_to_ambient);
    }
    let mut watts = vec![0.0; nodes];
    watts[controller] = power.controller_idle_w;
    watts[1..=packages].fill(per_package);
    watts[dram] = power.dram_background_w;
    watts[pcb] = board;
    let rise = solve(g, watts);
    let mut names: Vec<String> = vec!["controller".into()];
    names.extend((0..packages).map(|package| format!("nand_{package}")));
    names.extend(["dram".into(), "pcb".into()]);
    if heatsink.is_some() {
        names.push("heatsink".into());
    }
    let expected: Vec<f64> = rise.iter().map(|kelvin| thermal.ambient_c + kelvin).collect();
    let report = run(&scenario);
    let final_c = &report.thermal.unwrap().final_c;
    assert_eq!(final_c.len(), names.len(), "{final_c:?}");
    for (name, expected) in names.iter().zip(expected) {
        let measured = final_c[name];
        // 200 reads take a few milliseconds: the packages move by hundredths of a kelvin.
        assert!(
            (measured - expected).abs() < 0.05,
            "{name}: {measured} against {expected}"
        );
        assert!(measured > scenario.thermal.ambient_c);
    }
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting (the conductance matrix is
/// symmetric positive definite: every pivot is positive).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for column in 0..n {
        let pivot = (column..n)
            .max_by(|&i, &j| a[i][column].abs().total_cmp(&a[j][column].abs()))
            .expect("a non-empty column");
        a.swap(column, pivot);
        b.swap(column, pivot);
        for row in column + 1..n {
            let (upper, lower) = a.split_at_mut(row);
            let (pivot_row, target) = (&upper[column], &mut lower[0]);
            let factor = target[column] / pivot_row[column];
            for (entry, &above) in target[column..].iter_mut().zip(&pivot_row[column..]) {
                *entry -= factor * above;
            }
            b[row] -= factor * b[column];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let known: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - known) / a[row][row];
    }
    x
}

#[test]
fn the_test_solver_solves_a_two_node_chain_by_hand() {
    // 1 W into node 0, joined to node 1 by 2 K/W, node 1 to ambient by 3 K/W: node 1 sits 3 K
    // above ambient, node 0 another 2 K above it.
    let g = vec![vec![0.5, -0.5], vec![-0.5, 0.5 + 1.0 / 3.0]];
    let x = solve(g, vec![1.0, 0.0]);
    assert!((x[0] - 5.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12, "{x:?}");
}

/// Settings that hold the drive in `nvme`'s heavy state from the first instant: thresholds far
/// below ambient.
const HEAVY: [&str; 5] = [
    "thermal.enabled=true",
    "throttle.policy=\"nvme\"",
    "throttle.tmt1_c=-60",
    "throttle.tmt2_c=-50",
    "throttle.heavy_controller_power=1.0",
];

/// The write throughput bound with at most `per_channel` dies of a channel programming at once:
/// the die bound scaled by `per_channel / dies per channel`, against the channel and PCIe bounds.
fn capped_write_bound(drive: &Drive, per_channel: u32, settings: &'static [&'static str]) -> (f64, f64) {
    let drive = Drive { settings, ..*drive };
    let scenario = bounds::saturated(Kind::Write, &drive);
    let bound = bounds::bounds(&scenario, Kind::Write);
    let die = bound.die * f64::from(per_channel) / f64::from(drive.dies_per_channel());
    let limit = die.min(bound.channel).min(bound.pcie);
    let measured = bounds::run(&scenario).iops;
    (measured, limit)
}

#[test]
fn nvme_heavy_caps_array_operations_per_channel_to_the_capped_die_bound() {
    // 2 channels x 4 dies; the heavy cap 0.25 leaves one die per channel programming at once:
    // the die bound falls to a quarter and is the lowest.
    static ONE: [&str; 6] = [
        HEAVY[0],
        HEAVY[1],
        HEAVY[2],
        HEAVY[3],
        HEAVY[4],
        "throttle.heavy_array_fraction=0.25",
    ];
    let drive = Drive {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 4,
        corner: "",
        settings: &[],
        expect: None,
    };
    let (measured, limit) = capped_write_bound(&drive, 1, &ONE);
    assert!(
        measured <= limit * bounds::CEILING && measured >= limit * bounds::REACH,
        "one die per channel: {measured:.0} IOPS against the capped bound {limit:.0}"
    );
    // Unthrottled, the same drive runs several times faster: the cap is what binds.
    let free = bounds::run(&bounds::saturated(Kind::Write, &drive)).iops;
    assert!(
        free > 2.0 * measured,
        "unthrottled {free:.0} against capped {measured:.0}"
    );
}

#[test]
fn nvme_heavy_cap_of_half_the_dies_at_default_queue_sizes() {
    // The preset's own frame buffer and die queues; half the dies: two of four per channel.
    static HALF: [&str; 6] = [
        HEAVY[0],
        HEAVY[1],
        HEAVY[2],
        HEAVY[3],
        HEAVY[4],
        "throttle.heavy_array_fraction=0.5",
    ];
    let drive = Drive {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 2,
        corner: "",
        settings: &[],
        expect: None,
    };
    let (measured, limit) = capped_write_bound(&drive, 2, &HALF);
    assert!(
        measured <= limit * bounds::CEILING && measured >= limit * bounds::REACH,
        "two dies per channel: {measured:.0} IOPS against the capped bound {limit:.0}"
    );
}

#[test]
fn cst_makes_each_command_wait_the_cst_while_hot() {
    // Throttle threshold below ambient: CST applies from the first instant. At queue depth 1 each
    // command waits the CST after the previous one completes, so the run lasts exactly
    // n × (CST + mean latency).
    let cst = 1e-3;
    let report = run(&thermal_scenario(&[
        "throttle.policy=\"cst\"",
        "throttle.throttle_c=20",
        "throttle.release_c=10",
        "throttle.cst=\"1ms\"",
        "workload.io_count=300",
        "host.queue_depth=1",
    ]));
    let n = report.host_ios as f64;
    let mean = report.latency_us.all.mean * 1e-6;
    let expected = n * (cst + mean);
    assert!(
        relative_error(report.simulated_time_s, expected) < 1e-6,
        "{} s against n x (CST + mean latency) = {expected} s",
        report.simulated_time_s
    );
    let throttle = report.throttle.as_ref().unwrap();
    assert_eq!(throttle.events, 1);
    // Throttled to the end of the run's flash work (its drain included).
    assert!((throttle.state_time_s["heavy"] - super::drained_end_s(&report)).abs() < 1e-9);
    // At queue depth 4 the slots wait in parallel: about four times the rate.
    let four = run(&thermal_scenario(&[
        "throttle.policy=\"cst\"",
        "throttle.throttle_c=20",
        "throttle.release_c=10",
        "throttle.cst=\"1ms\"",
        "workload.io_count=300",
        "host.queue_depth=4",
    ]));
    let bound = 4.0 / cst;
    assert!(
        four.iops <= bound && four.iops > 0.8 * bound,
        "{} IOPS against 4 / CST = {bound}",
        four.iops
    );
}

#[test]
fn cst_preopt_lowers_the_queue_depth_before_throttling() {
    // Pre-throttle threshold below ambient and one step per millisecond: the queue depth halves
    // from 16 to 1 in 4 ms, the rest of the run is at queue depth 1, which its latency shows.
    let report = run(&thermal_scenario(&[
        "throttle.policy=\"cst_preopt\"",
        "throttle.pre_throttle_c=20",
        "throttle.hysteresis_k=0",
        "throttle.throttle_c=150",
        "throttle.release_c=140",
        "throttle.step_interval=\"1ms\"",
        "workload.read_fraction=1.0",
    ]));
    let throttle = report.throttle.as_ref().unwrap();
    assert_eq!(throttle.entries["heavy"], 0, "never hot enough for CST");
    assert!(throttle.state_time_s["light"] > 0.9 * report.simulated_time_s);
    let qd16 = run(&thermal_scenario(&["workload.read_fraction=1.0"]));
    let qd1 = run(&thermal_scenario(&["workload.read_fraction=1.0", "host.queue_depth=1"]));
    assert!(
        relative_error(report.iops, qd1.iops) < 0.1 && report.iops < 0.5 * qd16.iops,
        "pre-throttled {:.0} IOPS, QD 1 {:.0}, QD 16 {:.0}",
        report.iops,
        qd1.iops,
        qd16.iops
    );
}

#[test]
fn throttled_runs_are_deterministic() {
    let settings = ["throttle.policy=\"nvme\"", "throttle.tmt1_c=36", "throttle.tmt2_c=37"];
    let a = run(&thermal_scenario(&settings));
    let b = run(&thermal_scenario(&settings));
    assert!(a.throttle.as_ref().unwrap().events > 0, "the thresholds are crossed");
    let strip = |report: &ssdtwin_core::Report| {
        let mut json = report.to_json();
        json["wall_time_s"] = serde_json::Value::Null;
        for field in [
            "precondition_wall_s",
            "run_wall_s",
            "ios_per_wall_s",
            "end_to_end_ios_per_wall_s",
        ] {
            json["simulator"][field] = serde_json::Value::Null;
        }
        json
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.timeseries, b.timeseries);
}

#[test]
fn thermal_and_throttle_errors_name_the_key() {
    let load_with = |settings: &[&str]| {
        let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).unwrap()).collect();
        let source = ScenarioSource::Text {
            toml: "drive = \"enterprise_tlc\"\n".into(),
            base_dir: ".".into(),
        };
        load(&source, &overrides).map(|_| ()).unwrap_err().key
    };
    assert_eq!(
        load_with(&["thermal.enabled=true", "power.enabled=false"]),
        "thermal.enabled"
    );
    assert_eq!(load_with(&["throttle.policy=\"cst\""]), "throttle.policy");
    assert_eq!(
        load_with(&["thermal.enabled=true", "thermal.capacitance_j_per_k.pcb=-1"]),
        "thermal.capacitance_j_per_k.pcb"
    );
    assert_eq!(
        load_with(&[
            "thermal.enabled=true",
            "thermal.resistance_k_per_w.pcb_to_ambient=inf",
            "thermal.resistance_k_per_w.package_top_to_ambient=inf",
        ]),
        "thermal.resistance_k_per_w.pcb_to_ambient"
    );
    assert_eq!(
        load_with(&["thermal.enabled=true", "throttle.tmt1_c=85", "throttle.tmt2_c=80"]),
        "throttle.tmt1_c"
    );
    assert_eq!(load_with(&["thermal.initial=\"warm\""]), "thermal.initial");
    // More packages than chips: refused when the drive is built.
    let scenario = scenario(&["thermal.enabled=true", "thermal.nand_packages=5"]);
    let error = ssdtwin_core::run(&scenario, &mut |_| true).unwrap_err().to_string();
    assert!(error.contains("thermal.nand_packages"), "{error}");
}

#[test]
fn every_preset_reports_temperatures_with_its_own_packages() {
    for preset in ssdtwin_core::config::preset_names() {
        let overrides: Vec<Override> = [
            format!("drive=\"{preset}\""),
            "thermal.enabled=true".into(),
            "flash.blocks_per_plane=8".into(),
            // A client preset's static SLC region has no room in an 8-block plane.
            "slc_cache.static_size=\"0B\"".into(),
            "workload.precondition=\"none\"".into(),
            "workload.io_count=2000".into(),
        ]
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect();
        let scenario = load(&ScenarioSource::Default, &overrides).unwrap();
        let packages = scenario.thermal.nand_packages;
        let report = run(&scenario);
        let thermal = report.thermal.unwrap_or_else(|| panic!("{preset}: no thermal block"));
        let last = format!("nand_{}", packages - 1);
        assert!(
            thermal.final_c.contains_key(&last),
            "{preset}: {:?}",
            thermal.final_c.keys()
        );
        assert!(
            thermal.final_c.values().all(|&t| t > scenario.thermal.ambient_c),
            "{preset}: {:?}",
            thermal.final_c
        );
    }
}

#[test]
fn nand_heat_sources_heat_the_packages_alone_and_leave_the_run_unchanged() {
    let all = run(&thermal_scenario(&[]));
    let nand = run(&thermal_scenario(&["thermal.heat_sources=nand"]));
    // The switch changes what the network receives, not the drive: same run, same energy.
    assert_eq!(nand.host_ios, all.host_ios);
    assert_eq!(nand.latency_us, all.latency_us);
    assert_eq!(nand.energy_j, all.energy_j);
    let (t_all, t_nand) = (all.thermal.as_ref().unwrap(), nand.thermal.as_ref().unwrap());
    // The network receives the NAND dies' energy alone (the I/O bus is the controller's PHY).
    let packages = nand.energy_j.nand;
    assert!(
        relative_error(t_nand.energy_in_j, packages) < 1e-9,
        "heat in {} J, NAND packages {packages} J",
        t_nand.energy_in_j
    );
    assert!(t_nand.energy_in_j < 0.5 * t_all.energy_in_j);
    // Unheated, the controller sits below the packages that heat it through the board.
    assert!(
        t_nand.final_c["controller"] < t_nand.final_c["nand_0"],
        "{:?}",
        t_nand.final_c
    );
    assert!(t_nand.final_c["nand_0"] > 35.0);
    assert!(t_nand.final_c["nand_0"] < t_all.final_c["nand_0"]);
}
