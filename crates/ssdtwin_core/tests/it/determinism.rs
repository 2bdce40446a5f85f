//! Determinism (ARCHITECTURE.md, "Invariants"): one seed and one config give one report, bit for
//! bit, on any thread and next to any other simulation; another seed gives another run.

use serde_json::Value;
use ssdtwin_core::{Report, Scenario, Simulation};

use crate::{run, scenario};

/// The report as JSON without the fields that measure the host computer, not the drive.
pub(crate) fn simulated_part(report: &Report) -> Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().expect("a report is a JSON object");
    object.remove("wall_time_s").expect("reports carry wall_time_s");
    let simulator = object
        .get_mut("simulator")
        .and_then(Value::as_object_mut)
        .expect("reports carry a simulator section");
    for field in [
        "precondition_wall_s",
        "run_wall_s",
        "ios_per_wall_s",
        "end_to_end_ios_per_wall_s",
    ] {
        simulator
            .remove(field)
            .unwrap_or_else(|| panic!("reports carry simulator.{field}"));
    }
    json
}

/// [`simulated_part`] without the seed, for comparing runs that differ only in it.
fn seedless_part(report: &Report) -> Value {
    let mut json = simulated_part(report);
    let object = json.as_object_mut().expect("a report is a JSON object");
    object.remove("seed");
    object
        .get_mut("config")
        .and_then(Value::as_object_mut)
        .expect("reports carry the config")
        .remove("seed");
    json
}

/// A run that exercises every source of randomness: random 70/30 mixed I/O after steady-state
/// preconditioning (workload, precondition and GC streams) with program-time variability (flash
/// stream), at queue depth 32 so the orders of events depend on all of them.
fn busy_mix(seed: u64) -> Scenario {
    let seed = format!("seed={seed}");
    scenario(&[
        &seed,
        "workload.read_fraction=0.7",
        "workload.precondition=steady",
        "workload.io_count=20000",
        "host.queue_depth=32",
        "flash.program_time_spread=0.1",
        "ftl.gc_policy=random",
        "controller.scheduler=read_first",
        "controller.read_first_age_limit=\"1ms\"",
        "flash.suspend.program=true",
        "flash.suspend.erase=true",
    ])
}

#[test]
fn same_seed_and_config_give_the_same_report() {
    let scenario = busy_mix(7);
    let first = run(&scenario);
    let second = run(&scenario);
    assert!(
        first.flash.gc_programs > 0 && first.latency_us.write.count > 0 && first.suspend.program > 0,
        "the run exercises writes, GC and suspend"
    );
    assert_eq!(simulated_part(&first), simulated_part(&second));
}

#[test]
fn same_seed_and_config_give_the_same_report_with_reliability_on() {
    // An aged drive: retries, read reclaim relocations and GC interleave with the workload.
    let mut scenario = busy_mix(7);
    scenario.reliability.enabled = true;
    scenario.reliability.pe_cycles = 12_000;
    scenario.reliability.retention_age = ssdtwin_core::base::time::Duration::from_secs(31_557_600);
    scenario.reliability.retention_temp_c = 55.0;
    let first = run(&scenario);
    let second = run(&scenario);
    let reliability = first.reliability.as_ref().expect("reliability on");
    assert!(reliability.retries > 0 && reliability.reclaims > 0, "{reliability:?}");
    assert_eq!(simulated_part(&first), simulated_part(&second));
}

#[test]
fn same_seed_and_config_give_the_same_report_with_trims_in_the_mix() {
    // Trims among the commands, some overtaking writes still waiting in a write-back buffer.
    let mut scenario = busy_mix(7);
    scenario.workload.read_fraction = 0.5;
    scenario.workload.trim_fraction = 0.2;
    scenario.buffer.capacity = ssdtwin_core::base::units::ByteSize(512 * 1024);
    let first = run(&scenario);
    let second = run(&scenario);
    let buffer = first.buffer.as_ref().expect("buffer on");
    assert!(
        first.ftl.trimmed_units > 0 && buffer.trimmed_units > 0 && first.flash.gc_programs > 0,
        "the run trims, drops buffered writes and collects garbage"
    );
    assert_eq!(simulated_part(&first), simulated_part(&second));
}

#[test]
fn a_different_seed_gives_different_latencies() {
    let first = run(&busy_mix(1));
    let second = run(&busy_mix(2));
    assert_ne!(first.latency_us.read, second.latency_us.read);
    assert_ne!(first.latency_us.write, second.latency_us.write);
}

/// Sequential writes to an empty drive: the workload draws no address and no read, so the
/// commands are the same whatever the seed, and only program-time variability can use it.
fn sequential_writes(seed: u64, spread: f64) -> Scenario {
    let seed = format!("seed={seed}");
    let spread = format!("flash.program_time_spread={spread}");
    scenario(&[
        &seed,
        &spread,
        "workload.read_fraction=0.0",
        "workload.pattern=sequential",
        "workload.block_size=64KiB",
        "workload.precondition=none",
        "workload.io_count=600",
        "host.queue_depth=16",
        "controller.frame_buffer=64",
    ])
}

#[test]
fn program_time_spread_draws_from_the_seed_reproducibly() {
    // Without spread the seed has nothing to act on: the runs are identical.
    let fixed = run(&sequential_writes(1, 0.0));
    assert_eq!(seedless_part(&fixed), seedless_part(&run(&sequential_writes(2, 0.0))));
    // With spread, the program times, hence the write latencies, follow the seed...
    let spread = run(&sequential_writes(1, 0.1));
    let other_seed = run(&sequential_writes(2, 0.1));
    assert_ne!(
        spread.latency_us.write, fixed.latency_us.write,
        "the spread changes program times"
    );
    assert_ne!(
        spread.latency_us.write, other_seed.latency_us.write,
        "another seed, other program times"
    );
    assert_ne!(spread.simulated_time_s, other_seed.simulated_time_s);
    // ...and the same seed reproduces them.
    assert_eq!(
        simulated_part(&spread),
        simulated_part(&run(&sequential_writes(1, 0.1)))
    );
}

#[test]
fn simulations_on_two_threads_match_sequential_runs() {
    fn assert_send<T: Send>() {}
    assert_send::<Simulation>();

    let scenarios = [busy_mix(3), busy_mix(4)];
    let sequential: Vec<Value> = scenarios
        .iter()
        .map(|scenario| simulated_part(&run(scenario)))
        .collect();
    let parallel: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = scenarios
            .iter()
            .map(|scenario| {
                // Built here, run on the other thread: the simulation itself crosses over.
                let mut simulation = Simulation::new(scenario).expect("valid scenario");
                scope.spawn(move || simulation.run(&mut |_| true).expect("run completes"))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| simulated_part(&handle.join().expect("no panic")))
            .collect()
    });
    assert_eq!(sequential, parallel);
    assert_ne!(sequential[0], sequential[1], "the two seeds give two different runs");
}

#[test]
fn block_mapping_and_bast_runs_are_reproducible() {
    for mapping in ["block", "bast"] {
        let mapping_setting = format!("ftl.mapping={mapping}");
        let scenario = scenario(&[
            "seed=11",
            "workload.read_fraction=0.7",
            "workload.precondition=steady",
            "workload.io_count=20000",
            "host.queue_depth=32",
            "flash.program_time_spread=0.1",
            "flash.page_size=4KiB",
            "flash.chips_per_channel=2",
            "flash.dies_per_chip=1",
            "flash.channel_switch_time=30us",
            "flash.way_switch_time=10us",
            "flash.page_register_time=82us",
            "ftl.log_blocks=8",
            &mapping_setting,
        ]);
        let first = run(&scenario);
        let second = run(&scenario);
        assert!(first.ftl.erases.total > 0, "{mapping}: the run updates blocks");
        assert!(
            first.ftl.channel_switches > 0,
            "{mapping}: the controller changes channels"
        );
        assert!(first.ftl.way_switches > 0, "{mapping}: channels change chips");
        assert_eq!(simulated_part(&first), simulated_part(&second), "{mapping}");
    }
}

#[test]
fn the_wall_clock_fields_add_up() {
    let report = run(&scenario(&["workload.io_count=5000", "workload.precondition=steady"]));
    let simulator = &report.simulator;
    let sum = simulator.precondition_wall_s + simulator.run_wall_s;
    assert!(
        (sum - report.wall_time_s).abs() < 1e-9,
        "{sum} against {}",
        report.wall_time_s
    );
    assert!(simulator.precondition_wall_s > 0.0 && simulator.run_wall_s > 0.0);
    let ios = report.host_ios as f64;
    assert!((simulator.ios_per_wall_s - ios / simulator.run_wall_s).abs() <= 1e-9 * simulator.ios_per_wall_s);
    assert!(
        (simulator.end_to_end_ios_per_wall_s - ios / report.wall_time_s).abs()
            <= 1e-9 * simulator.end_to_end_ios_per_wall_s
    );
    assert!(simulator.end_to_end_ios_per_wall_s < simulator.ios_per_wall_s);
}

/// A run from a snapshot of the preconditioned drive reports exactly what a run that
/// preconditions does: the snapshot holds every bit of state preconditioning leaves.
fn snapshot_round_trip(settings: &[&str]) {
    let scenario = scenario(settings);
    let direct = run(&scenario);
    let directory = std::env::temp_dir().join(format!(
        "ssdtwin-snap-{}-{}",
        std::process::id(),
        settings.join("_").len()
    ));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("drive.snap");
    let mut maker = Simulation::new(&scenario).unwrap();
    maker.save_snapshot(&path, &mut |_| true).unwrap();
    let mut loaded = Simulation::new(&scenario).unwrap();
    loaded.load_snapshot(&path).unwrap();
    let from_snapshot = loaded.run(&mut |_| true).unwrap();
    // The memory held (vector capacities, counted by `state_bytes_per_mapping_unit`) may differ:
    // vectors read from a file are allocated to their length, not grown. Everything simulated
    // is equal.
    let without_memory = |report: &Report| {
        let mut json = simulated_part(report);
        json["simulator"]["state_bytes_per_mapping_unit"] = Value::Null;
        json
    };
    assert!(
        without_memory(&from_snapshot) == without_memory(&direct),
        "a run from the snapshot differs: {settings:?}"
    );
    // With 4 KiB mapping units the file stays within 12 bytes per logical unit (the mapping's
    // 4 B forward + 4 B per physical unit, plus the per-block state; with 16 KiB units, as BAST
    // needs here, a block holds 4 times fewer units and the per-block part weighs more).
    let bytes = std::fs::metadata(&path).unwrap().len() as f64;
    let per_unit = bytes / direct.simulator.logical_units as f64;
    if scenario.ftl.mapping_unit.bytes() == 4096 {
        assert!(per_unit <= 12.0, "{per_unit} bytes per mapping unit");
    }
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_run_from_a_snapshot_equals_a_run_that_preconditions() {
    let mix = [
        "workload.read_fraction=0.3",
        "workload.io_count=20000",
        "host.queue_depth=16",
    ];
    let steady: Vec<&str> = mix.iter().copied().chain(["workload.precondition=steady"]).collect();
    snapshot_round_trip(&steady);
    let fifo: Vec<&str> = steady.iter().copied().chain(["ftl.gc_policy=fifo"]).collect();
    snapshot_round_trip(&fifo);
    // FDP's per-unit handles travel with the rest (persistently isolated: GC reads them).
    let fdp: Vec<&str> = steady
        .iter()
        .copied()
        .chain([
            "fdp.enabled=true",
            "fdp.handles=2",
            "fdp.handle_type=persistently_isolated",
        ])
        .collect();
    snapshot_round_trip(&fdp);
    let bast: Vec<&str> = mix
        .iter()
        .copied()
        .chain([
            "ftl.mapping=bast",
            "ftl.mapping_unit=16KiB",
            "workload.block_size=16KiB",
            "workload.precondition=fill",
        ])
        .collect();
    snapshot_round_trip(&bast);
}

#[test]
fn a_snapshot_of_another_drive_is_refused_naming_the_key() {
    let path = std::env::temp_dir().join(format!("ssdtwin-snap-refuse-{}.snap", std::process::id()));
    let base = scenario(&["workload.precondition=fill"]);
    Simulation::new(&base)
        .unwrap()
        .save_snapshot(&path, &mut |_| true)
        .unwrap();
    for (setting, key) in [
        ("flash.blocks_per_plane=32", "flash.blocks_per_plane"),
        ("ftl.over_provisioning=0.2", "ftl.over_provisioning"),
        ("seed=7", "seed"),
        ("workload.precondition=steady", "workload.precondition"),
    ] {
        let other = scenario(&["workload.precondition=fill", setting]);
        let error = Simulation::new(&other).unwrap().load_snapshot(&path).unwrap_err();
        assert_eq!(error.key, key, "{error}");
    }
    // Settings that do not shape the drive state are free to differ.
    let other = scenario(&[
        "workload.precondition=fill",
        "host.queue_depth=8",
        "workload.read_fraction=0.5",
    ]);
    Simulation::new(&other).unwrap().load_snapshot(&path).unwrap();
    // A damaged file is an error about the snapshot, not a panic.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let mut damaged = Simulation::new(&base).unwrap();
    let error = damaged.load_snapshot(&path).unwrap_err();
    assert_eq!(error.key, "snapshot", "{error}");
    // The simulation is still whole: it preconditions and runs as if nothing had been loaded.
    let after = damaged.run(&mut |_| true).unwrap();
    assert_eq!(simulated_part(&after), simulated_part(&run(&base)));
    std::fs::write(&path, b"not a snapshot").unwrap();
    let error = Simulation::new(&base).unwrap().load_snapshot(&path).unwrap_err();
    assert!(error.message.contains("not an ssdtwin drive snapshot"), "{error}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_dram_models_and_power_cuts_are_deterministic() {
    // Write buffer with LIDF, the cached mapping table, a protected ratio and a power cut: the
    // hash tables and heaps they use must not leak iteration order into the run.
    let scenario = scenario(&[
        "workload.read_fraction=0.3",
        "workload.precondition=fill",
        "workload.io_count=20000",
        "host.queue_depth=16",
        "buffer.capacity=2MiB",
        "buffer.flush_order=lidf",
        "ftl.mapping_cache=cached",
        "ftl.mapping_cache_size=64KiB",
        "plp.enabled=true",
        "plp.protected_ratio=0.2",
        "power_loss.at=[\"20ms\"]",
    ]);
    let first = run(&scenario);
    let second = run(&scenario);
    assert!(first.power_loss.as_ref().is_some_and(|cuts| cuts.events.len() == 1));
    assert_eq!(simulated_part(&first), simulated_part(&second));
}

#[test]
fn every_model_on_at_once_is_deterministic_and_keeps_the_ftl_consistent() {
    // Power, heat with throttling, bit errors with retries on an aged drive, the write buffer
    // with the cached mapping table, program suspend and a power cut, all in one run: each model
    // is tested alone elsewhere; here their interactions must neither break determinism nor the
    // FTL's invariants, and every command must complete.
    let scenario = scenario(&[
        "workload.read_fraction=0.5",
        "workload.precondition=fill",
        "workload.io_count=20000",
        "host.queue_depth=16",
        "flash.suspend.program=true",
        "power.enabled=true",
        "thermal.enabled=true",
        "thermal.initial=85.0",
        "thermal.nand_packages=2",
        "throttle.policy=\"nvme\"",
        "reliability.enabled=true",
        "reliability.pe_cycles=20000",
        "reliability.retention_temp_c=55.0",
        "reliability.retention_age=\"1y\"",
        "buffer.capacity=2MiB",
        "buffer.flush_order=lidf",
        "ftl.mapping_cache=cached",
        "ftl.mapping_cache_size=64KiB",
        "plp.enabled=true",
        "plp.protected_ratio=0.2",
        "power_loss.at=[\"20ms\"]",
    ]);
    let mut simulation = Simulation::new(&scenario).unwrap();
    let first = simulation.run(&mut |_| true).unwrap();
    simulation
        .ftl()
        .check_invariants()
        .expect("FTL invariants with every model on");
    let second = run(&scenario);
    assert_eq!(simulated_part(&first), simulated_part(&second));
    assert_eq!(first.latency_us.all.count, 20_000);
    let reliability = first.reliability.as_ref().expect("a reliability block");
    assert!(reliability.retries > 0, "an aged drive read without a retry");
    assert!(
        first.throttle.as_ref().is_some_and(|throttle| throttle.events > 0),
        "no throttling from 85 °C"
    );
    assert!(first.power_loss.as_ref().is_some_and(|cuts| cuts.events.len() == 1));
}
