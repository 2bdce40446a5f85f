//! Inputs that are damaged, hostile or absurd (issue 18): a damaged or truncated drive snapshot is
//! refused and leaves a working drive; files that are not text (`/dev/zero`, a directory) are
//! errors naming the key, without reading them whole. (The fuzz targets and their regression
//! inputs are in `crates/ssdtwin_fuzz`.)

use std::path::PathBuf;

use ssdtwin_core::{load, Override, ScenarioSource, Simulation};

use crate::scenario;

fn temporary(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("ssdtwin-hardening-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn load_with(settings: &[String]) -> Result<ssdtwin_core::Scenario, ssdtwin_core::ConfigError> {
    let overrides: Vec<Override> = settings.iter().map(|text| Override::parse(text).unwrap()).collect();
    load(&ScenarioSource::Default, &overrides)
}

#[test]
fn a_damaged_or_truncated_snapshot_is_refused_and_the_drive_still_runs() {
    let scenario = scenario(&["workload.io_count=400"]);
    let directory = temporary("snap");
    let path = directory.join("drive.snap");
    Simulation::new(&scenario)
        .unwrap()
        .save_snapshot(&path, &mut |_| true)
        .unwrap();
    let good = std::fs::read(&path).unwrap();
    let damaged = directory.join("damaged.snap");
    for (what, bytes) in [
        ("a flipped bit in the mapping", {
            let mut bytes = good.clone();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x10;
            bytes
        }),
        ("a truncated file", good[..good.len() - 9].to_vec()),
        ("a byte appended", [good.as_slice(), &[0]].concat()),
        ("a damaged checksum", {
            let mut bytes = good.clone();
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
            bytes
        }),
    ] {
        std::fs::write(&damaged, &bytes).unwrap();
        let mut simulation = Simulation::new(&scenario).unwrap();
        let error = simulation
            .load_snapshot(&damaged)
            .expect_err(&format!("{what}: loaded"));
        assert_eq!(error.key, "snapshot", "{what}: {error}");
        // The refused load left a drive built afresh: it preconditions and runs.
        let report = simulation.run(&mut |_| true).unwrap();
        assert_eq!(report.latency_us.all.count, 400, "{what}");
    }
    let mut simulation = Simulation::new(&scenario).unwrap();
    simulation.load_snapshot(&path).expect("the undamaged snapshot loads");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn files_that_are_not_text_are_errors_naming_the_key_not_endless_reads() {
    let directory = temporary("files");
    for (key, path) in [
        ("drive", "/dev/zero"),
        ("drive", directory.to_str().unwrap()),
        ("workload.fio.job", "/dev/zero"),
    ] {
        let mut settings = vec![format!("{key}=\"{path}\"")];
        if key == "workload.fio.job" {
            settings.push("workload.kind=\"fio\"".to_string());
        }
        let outcome = load_with(&settings).and_then(|scenario| Simulation::new(&scenario).map(|_| ()));
        let error = outcome.expect_err(&format!("{key} = {path} was accepted"));
        assert_eq!(error.key, key, "{error}");
        assert!(error.message.contains("not a regular file"), "{error}");
    }
    // A trace is streamed, so a device is allowed, but a line without an end is not buffered whole.
    let settings = [
        "workload.kind=\"trace\"".to_string(),
        "workload.trace.path=\"/dev/zero\"".to_string(),
        "workload.precondition=\"none\"".to_string(),
        "flash.blocks_per_plane=16".to_string(),
    ];
    let scenario = load_with(&settings).unwrap();
    let error = Simulation::new(&scenario)
        .and_then(|mut simulation| {
            simulation
                .run(&mut |_| true)
                .map_err(|error| match error {
                    ssdtwin_core::RunError::Config(error) => error,
                    other => panic!("not a config error: {other}"),
                })
                .map(|_| ())
        })
        .expect_err("/dev/zero replayed as a trace");
    assert_eq!(error.key, "workload.trace.path");
    assert!(error.message.contains("longer than"), "{error}");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_drive_starved_of_gc_victims_stops_with_a_message_naming_the_starved_planes() {
    // A tiny drive with 2% spare space written at random until no closed block of a plane holds
    // stale data (the sweep tests' failing point): the engine must stop, not spin, and say which
    // resource ran out and which key to change.
    let settings: Vec<String> = [
        "workload.precondition=\"none\"",
        "flash.channels=1",
        "flash.dies_per_chip=1",
        "flash.blocks_per_plane=8",
        "flash.pages_per_block=6",
        "ftl.over_provisioning=0.02",
        "ftl.gc_threshold=0.01",
        "workload.read_fraction=0.0",
        "workload.io_count=20000",
        "host.queue_depth=32",
    ]
    .iter()
    .map(|text| text.to_string())
    .collect();
    let scenario = load_with(&settings).unwrap();
    let error = ssdtwin_core::run(&scenario, &mut |_| true).unwrap_err().to_string();
    assert!(error.contains("stopped making progress"), "{error}");
    assert!(
        error.contains("GC found no block to reclaim on 1 of 2 planes"),
        "{error}"
    );
    assert!(error.contains("32 transactions queued at admission"), "{error}");
    assert!(error.contains("ftl.over_provisioning"), "{error}");
}
