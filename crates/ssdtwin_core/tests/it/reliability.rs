//! The reliability model end to end (docs/models/reliability.md): a read below the hard-decision
//! limit costs only its decode, above it exactly the read-retry ladder's senses, transfers and
//! decodes; an uncorrectable read reaches the host as an error; the aged start, read reclaim, the
//! thermal model's per-package ageing, the off switch and the key checks.

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::{load, Override, ScenarioSource};

use super::{channel_data_time, run, scenario};

/// One page type, one read time: the ladder's cost is then the same for every read.
const FLAT: &[&str] = &["flash.t_read=\"50us\"", "reliability.read_reclaim=\"none\""];

fn with(extra: &[&str]) -> Vec<String> {
    FLAT.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn settings(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

/// A constant RBER everywhere (a one-point table).
fn constant_rber(rber: f64) -> Vec<String> {
    with(&[
        "reliability.enabled=true",
        "reliability.model=\"table\"",
        "reliability.table.pe_cycles=[0.0]",
        "reliability.table.retention=[\"1s\"]",
    ])
    .into_iter()
    .chain([format!("reliability.table.rber=[[{rber}]]")])
    .collect()
}

#[test]
fn below_the_hard_limit_a_read_costs_its_decode_only() {
    let off = run(&scenario(&settings(&with(&[]))));
    // A fresh drive: RBER ≈ 1e-5, far below the limit (6.4e-3). Without decode time the run is
    // the run without the model, read for read.
    let free = run(&scenario(&settings(&with(&[
        "reliability.enabled=true",
        "reliability.hard_decode_time=\"0us\"",
    ]))));
    let reliability = free.reliability.as_ref().expect("the reliability block");
    assert_eq!(reliability.retries, 0);
    assert!(
        reliability.rber_max < 1e-4 && reliability.rber_max > 0.0,
        "{}",
        reliability.rber_max
    );
    assert_eq!(free.latency_us.read, off.latency_us.read);
    assert_eq!(free.energy_j, off.energy_j);
    // With the default 5 us hard decode, each read is exactly 5 us longer.
    let decoded = run(&scenario(&settings(&with(&["reliability.enabled=true"]))));
    let added = decoded.latency_us.read.mean - off.latency_us.read.mean;
    assert!((added - 5.0).abs() < 1e-6, "{added}");
    assert!(off.reliability.is_none());
}

#[test]
fn above_the_hard_limit_a_read_costs_exactly_the_ladder() {
    let base = scenario(&settings(&with(&[])));
    let off = run(&base);
    let hard = 220.0 / (4320.0 * 8.0);
    // 1.6^2 < RBER / limit ≤ 1.6^3: three retry steps.
    let rber = hard * 1.6f64.powf(2.5);
    let on = run(&scenario(&settings(&constant_rber(rber))));
    let reliability = on.reliability.as_ref().unwrap();
    let reads = on.latency_us.read.count;
    assert_eq!(reliability.retries, 3 * reliability.reads);
    assert_eq!(reliability.retries_histogram[3], reliability.reads);
    assert_eq!(reliability.soft_decodes, 0);
    assert_eq!(reliability.uncorrectable, 0);
    assert_eq!(reliability.reads, reads, "one flash read per command, no GC");
    // Per read: 3 more senses and data outs, and 4 hard decodes instead of none.
    let step = Duration::from_micros(50) + channel_data_time(&base, 1);
    let expected = (step * 3 + Duration::from_micros(5) * 4).as_micros_f64();
    let added = on.latency_us.read.mean - off.latency_us.read.mean;
    assert!(
        (added - expected).abs() < 1e-6,
        "added {added} us, expected {expected} us"
    );
    // The senses and transfers are NAND and I/O-bus energy: more of both.
    assert!(
        on.energy_j.nand > off.energy_j.nand * 1.5,
        "{:?} vs {:?}",
        on.energy_j,
        off.energy_j
    );
}

#[test]
fn soft_decoding_costs_its_senses_transfers_and_decode() {
    let base = scenario(&settings(&with(&[])));
    let off = run(&base);
    let hard = 220.0 / (4320.0 * 8.0);
    // Beyond the 5-step ladder (×10.5), within the soft limit after it.
    let rber = hard * 1.6f64.powi(5) * 1.2;
    let on = run(&scenario(&settings(&constant_rber(rber))));
    let reliability = on.reliability.as_ref().unwrap();
    assert_eq!(reliability.soft_decodes, reliability.reads);
    assert_eq!(reliability.uncorrectable, 0);
    // 5 retries + 2 soft senses; 5 + 1 transfers; 6 hard decodes and a 30 us soft decode.
    let expected = (Duration::from_micros(50) * 7
        + channel_data_time(&base, 1) * 6
        + Duration::from_micros(5) * 6
        + Duration::from_micros(30))
    .as_micros_f64();
    let added = on.latency_us.read.mean - off.latency_us.read.mean;
    assert!(
        (added - expected).abs() < 1e-6,
        "added {added} us, expected {expected} us"
    );
}

#[test]
fn an_uncorrectable_read_reaches_the_host_as_an_error() {
    let on = run(&scenario(&settings(&constant_rber(0.2))));
    let reliability = on.reliability.as_ref().unwrap();
    assert_eq!(reliability.uncorrectable, reliability.reads);
    assert_eq!(reliability.errored_commands, on.latency_us.read.count);
    assert_eq!(reliability.uncorrectable_lbas.len(), 100);
    // The LBAs are of the workload's span (512 B sectors).
    let span_sectors = on.simulator.logical_units * 8;
    assert!(reliability
        .uncorrectable_lbas
        .iter()
        .all(|&lba| lba < span_sectors && lba % 8 == 0));
    // A drive without bit errors completes every command without error.
    let clean = run(&scenario(&settings(&constant_rber(1e-6))));
    assert_eq!(clean.reliability.unwrap().errored_commands, 0);
}

#[test]
fn an_aged_start_wears_the_blocks_and_ages_the_data() {
    let aged = run(&scenario(&settings(&with(&[
        "reliability.enabled=true",
        "reliability.pe_cycles=10000",
        "reliability.pe_spread=0.1",
        "reliability.retention_age=\"1y\"",
        "reliability.retention_temp_c=70",
    ]))));
    let pe = &aged.ftl.pe_cycles;
    assert!(pe.min >= 9000 && pe.max <= 11_001, "{pe:?}");
    assert!((pe.mean - 10_000.0).abs() < 100.0, "{pe:?}");
    // 1 year at 70 °C is 274 years at 25 °C: ln RBER = (α·PEC + β)·ln t + γ·PEC + δ.
    let retention = 31_557_600.0 * (1.1 / 8.617e-5 * (1.0 / 298.15 - 1.0 / 343.15f64)).exp();
    let rber_at = |pec: f64| ((7.92e-6 * pec + 0.25) * retention.ln() + 3.28e-5 * pec - 12.72).exp();
    let reliability = aged.reliability.as_ref().unwrap();
    assert!(
        reliability.rber_max <= rber_at(11_001.0) * 1.01,
        "{}",
        reliability.rber_max
    );
    assert!(
        reliability.rber_mean >= rber_at(9_000.0) * 0.99,
        "{}",
        reliability.rber_mean
    );
    assert!(
        reliability.retries > 0,
        "above the hard-decision limit (6.4e-3): {}",
        reliability.rber_mean
    );
    // Acceleration off: the year counts as a year at 25 °C.
    let cold = run(&scenario(&settings(&with(&[
        "reliability.enabled=true",
        "reliability.pe_cycles=10000",
        "reliability.pe_spread=0",
        "reliability.retention_age=\"1y\"",
        "reliability.retention_temp_c=70",
        "reliability.acceleration=false",
    ]))));
    let expected = ((7.92e-6 * 10_000.0 + 0.25) * 31_557_600f64.ln() + 0.328 - 12.72).exp();
    let measured = cold.reliability.unwrap().rber_mean;
    assert!((measured / expected - 1.0).abs() < 0.01, "{measured} vs {expected}");
}

#[test]
fn read_reclaim_relocates_blocks_near_the_limit() {
    let aged = [
        "reliability.enabled=true",
        "reliability.pe_cycles=10000",
        "reliability.retention_age=\"1y\"",
        "reliability.retention_temp_c=70",
        "flash.t_read=\"50us\"",
        "workload.io_count=4000",
    ];
    let without = run(&scenario(&[&aged[..], &["reliability.read_reclaim=\"none\""]].concat()));
    let with_reclaim = run(&scenario(
        &[&aged[..], &["reliability.read_reclaim=\"threshold\""]].concat(),
    ));
    let (without, with_reclaim) = (without.reliability.unwrap(), with_reclaim.reliability.unwrap());
    assert_eq!(without.reclaims, 0);
    assert!(with_reclaim.reclaims > 0);
    // Relocated data is freshly programmed: later reads of it need fewer retries.
    assert!(
        (with_reclaim.retries as f64 / with_reclaim.reads as f64) < (without.retries as f64 / without.reads as f64),
        "{with_reclaim:?} vs {without:?}"
    );
}

/// Activation energy the reliability tests set (the model's default), [eV], and Boltzmann's
/// constant [eV/K] (CODATA 2018): JESD218B Annex A's acceleration factor between two
/// temperatures is exp[(Ea / k)·(1/T_cool − 1/T_hot)].
const EA_EV: f64 = 1.1;
const BOLTZMANN_EV_PER_K: f64 = 8.617_333e-5;

fn arrhenius_ratio(cool_c: f64, hot_c: f64) -> f64 {
    let kelvin = |celsius: f64| celsius + 273.15;
    (EA_EV / BOLTZMANN_EV_PER_K * (1.0 / kelvin(cool_c) - 1.0 / kelvin(hot_c))).exp()
}

#[test]
fn hot_packages_age_their_data_by_the_arrhenius_ratio() {
    // The thermal model on: each die's data ages at its package's temperature. The packages are
    // held at 40 °C and at 70 °C (the whole network starts there, at that ambient, with heat
    // capacities so large the run's heat moves them by microkelvins); `reliability.temp_c`, the
    // temperature without the thermal model, is 25 °C in both runs, so the ratio comes only
    // through the packages. No aged start: every read's retention is its time since the fill
    // times AF. The power-law model with ε = α = 0 (and no read disturb, which adds a term of its
    // own) gives RBER = β·PEC^m·t^n, so every read's RBER,
    // and their mean, grows by AF_ratio^n; reads stay far below the hard-decision limit, so both
    // runs read the same pages at the same instants.
    let n = 0.54;
    let held_at = |temp_c: f64| {
        let at = |key: &str| format!("{key}={temp_c}");
        let mut list = with(&[
            "reliability.enabled=true",
            "reliability.model=\"power_law\"",
            "reliability.power_law.epsilon=0",
            "reliability.power_law.alpha=0",
            "reliability.power_law.beta=1e-8",
            "reliability.power_law.m=0.14",
            "reliability.power_law.n=0.54",
            "reliability.read_disturb=0",
            "reliability.activation_energy_ev=1.1",
            "reliability.temp_c=25",
            "reliability.pe_cycles=3000",
            "reliability.pe_spread=0",
            "power.enabled=true",
            "thermal.enabled=true",
            "thermal.nand_packages=2",
            "thermal.capacitance_j_per_k.controller=1e6",
            "thermal.capacitance_j_per_k.nand_package=1e6",
            "thermal.capacitance_j_per_k.dram=1e6",
            "thermal.capacitance_j_per_k.pcb=1e6",
        ]);
        list.extend([at("thermal.ambient_c"), at("thermal.initial")]);
        let report = run(&scenario(&settings(&list)));
        let thermal = report.thermal.as_ref().unwrap();
        for package in ["nand_0", "nand_1"] {
            assert!(
                (thermal.final_c[package] - temp_c).abs() < 1e-3,
                "{:?}",
                thermal.final_c
            );
        }
        let reliability = report.reliability.unwrap();
        assert_eq!(reliability.retries, 0);
        reliability.rber_mean
    };
    let (cool_c, hot_c) = (40.0, 70.0);
    let (cool, hot) = (held_at(cool_c), held_at(hot_c));
    let measured = (hot / cool).powf(1.0 / n);
    let expected = arrhenius_ratio(cool_c, hot_c);
    assert!(
        (measured / expected - 1.0).abs() < 1e-3,
        "packages at {hot_c} °C over {cool_c} °C: data aged {measured}x as fast, Arrhenius {expected}x"
    );
}

#[test]
fn data_kept_hot_ages_by_the_arrhenius_ratio_of_its_temperatures() {
    // The same data kept three days at 40 °C and at 70 °C before the run (the aged start; the run's
    // own second of reads at 25 °C adds under 1e-6 of it). JESD218B Annex A: retention time
    // accelerates by AF = exp[(Ea / k)·(1/T_cool − 1/T_hot)] ([`arrhenius_ratio`]).
    let (cool_c, hot_c) = (40.0, 70.0);
    let aged = |temp_c: f64| {
        let retention_temp = format!("reliability.retention_temp_c={temp_c}");
        let report = run(&scenario(&settings(&with(&[
            "reliability.enabled=true",
            "reliability.model=\"retention3d\"",
            "reliability.retention_3d.alpha=7.92e-6",
            "reliability.retention_3d.beta=0.25",
            "reliability.read_disturb=0",
            "reliability.activation_energy_ev=1.1",
            "reliability.acceleration=true",
            "reliability.temp_c=25",
            "reliability.pe_cycles=3000",
            "reliability.pe_spread=0",
            "reliability.retention_age=\"3d\"",
            &retention_temp,
        ]))));
        let reliability = report.reliability.unwrap();
        assert_eq!(
            reliability.retries, 0,
            "below the hard-decision limit: every read costs the same"
        );
        reliability.rber_mean
    };
    let (cool, hot) = (aged(cool_c), aged(hot_c));
    // Retention-3D model (Luo et al., SIGMETRICS 2018), slope set above: RBER ∝ t^(α·PE + β), so
    // the retention times stand in the ratio (RBER_hot / RBER_cool)^(1 / (α·PE + β)).
    let exponent = 7.92e-6 * 3000.0 + 0.25;
    let measured = (hot / cool).powf(1.0 / exponent);
    let expected = arrhenius_ratio(cool_c, hot_c);
    assert!(
        (measured / expected - 1.0).abs() < 1e-3,
        "retention at {hot_c} °C over {cool_c} °C: {measured}x, Arrhenius {expected}x"
    );
}

#[test]
fn bad_reliability_keys_are_refused_naming_the_key() {
    let check = |setting: &str, key: &str| {
        let mut overrides = vec![Override::parse("reliability.enabled=true").unwrap()];
        for part in setting.split(" & ") {
            overrides.push(Override::parse(part).unwrap());
        }
        let source = ScenarioSource::Text {
            toml: super::BASE.to_string(),
            base_dir: ".".into(),
        };
        let error = load(&source, &overrides).expect_err(setting);
        assert!(error.key.starts_with(key), "{setting}: {error}");
    };
    check("reliability.retention_age=\"-1y\"", "reliability.retention_age");
    check("reliability.soft_limit=0.001", "reliability.soft_limit");
    check(
        "reliability.model=\"table\" & reliability.table.rber=[[1e-5, 1e-6, 1e-4, 1e-4, 1e-4], [1e-5, 1e-5, 1e-4, 1e-4, 1e-4], [1e-5, 1e-5, 1e-4, 1e-4, 1e-4]]",
        "reliability.table.rber",
    );
    check("reliability.temp_c=500", "reliability.temp_c");
    check("reliability.page_type_factor=[1.0]", "reliability.page_type_factor");
    check("reliability.retry_step_gain=1.0", "reliability.retry_step_gain");
}

#[test]
fn static_wear_leveling_narrows_the_pe_spread_of_a_skewed_workload() {
    // Zipf writes: a few hot blocks cycle, the cold ones keep their data.
    let run_with = |policy: &str| {
        run(&scenario(&[
            "workload.read_fraction=0",
            "workload.distribution=\"zipf\"",
            "workload.io_count=300000",
            &format!("ftl.wear_leveling=\"{policy}\""),
            "ftl.static_wear_spread=2",
        ]))
    };
    let (none, dynamic, leveled) = (run_with("none"), run_with("dynamic"), run_with("static"));
    let spread = |report: &ssdtwin_core::Report| report.ftl.pe_cycles.max - report.ftl.pe_cycles.min;
    assert_eq!(none.ftl.wear_relocations, 0);
    assert_eq!(dynamic.ftl.wear_relocations, 0);
    assert!(leveled.ftl.wear_relocations > 0);
    assert!(
        spread(&leveled) < spread(&none),
        "{:?} vs {:?}",
        leveled.ftl.pe_cycles,
        none.ftl.pe_cycles
    );
    assert!(spread(&dynamic) <= spread(&none));
    // Moving cold data costs writes.
    assert!(leveled.waf > none.waf);
}

#[test]
fn block_mapping_runs_with_reliability_and_reclaim_on() {
    // Read reclaim and static leveling relocate through GC, which block mapping does not have:
    // they stand aside, and the scheme's invariants hold.
    let scenario = scenario(&[
        "ftl.mapping=\"block\"",
        "ftl.mapping_unit=\"16KiB\"",
        // A 16 KiB unit is four 4,320 B LDPC codewords: their parity, and one codeword of the
        // four with four times the correctable bits (the same hard-decision limit).
        "flash.parity_per_codeword=\"896B\"",
        "reliability.codeword=\"17280B\"",
        "reliability.correctable_bits=880",
        "workload.block_size=\"16KiB\"",
        "workload.read_fraction=0.5",
        "workload.io_count=3000",
        "ftl.wear_leveling=\"static\"",
        "ftl.static_wear_spread=1",
        "reliability.enabled=true",
        "reliability.pe_cycles=12000",
        "reliability.retention_age=\"1y\"",
        "reliability.retention_temp_c=55",
    ]);
    let mut simulation = ssdtwin_core::Simulation::new(&scenario).expect("builds");
    let report = simulation.run(&mut |_| true).expect("runs");
    let reliability = report.reliability.as_ref().unwrap();
    assert!(reliability.retries > 0);
    assert_eq!(reliability.reclaims, 0);
    assert_eq!(report.ftl.wear_relocations, 0);
    if let Err(problem) = simulation.ftl().check_invariants() {
        panic!("block mapping invariants: {problem}");
    }
}

#[test]
fn relocations_keep_the_page_mapping_invariants() {
    // Read reclaim and static leveling relocate blocks while host writes and GC run.
    let scenario = scenario(&[
        "workload.read_fraction=0.7",
        "workload.precondition=\"steady\"",
        "workload.io_count=30000",
        "host.queue_depth=16",
        "ftl.wear_leveling=\"static\"",
        "ftl.static_wear_spread=1",
        "reliability.enabled=true",
        "reliability.pe_cycles=12000",
        "reliability.retention_age=\"1y\"",
        "reliability.retention_temp_c=55",
    ]);
    let mut simulation = ssdtwin_core::Simulation::new(&scenario).expect("builds");
    let report = simulation.run(&mut |_| true).expect("runs");
    assert!(report.reliability.as_ref().unwrap().reclaims > 0);
    assert!(report.ftl.wear_relocations > 0);
    if let Err(problem) = simulation.ftl().check_invariants() {
        panic!("page mapping invariants after relocations: {problem}");
    }
}

#[test]
fn the_time_series_has_the_mean_rber_of_each_interval() {
    let report = run(&scenario(&[
        "power.enabled=true",
        "power.sample_interval=\"20ms\"",
        "workload.io_count=4000",
        "reliability.enabled=true",
        "reliability.pe_cycles=3000",
        "reliability.pe_spread=0",
        "reliability.read_reclaim=\"none\"",
    ]));
    let (_, column) = report
        .timeseries
        .extra
        .iter()
        .find(|(name, _)| name == "reliability.rber_mean")
        .expect("the rber_mean column");
    assert_eq!(column.len(), report.timeseries.time_s.len());
    assert!(column.len() > 2);
    let mean = report.reliability.unwrap().rber_mean;
    // The data ages through the run: each interval's mean within the run's range, rising.
    assert!(
        column.iter().all(|&value| value > 0.5 * mean && value < 2.0 * mean),
        "{column:?}"
    );
    assert!(column.last() >= column.first());
}
