//! Real workloads: trace readers against hand-written fixtures (units, errors, filters, address
//! maps), the real DiskSim trace in `../shared/traces/`, constant-memory streaming, fio job files
//! (the shipped JESD219 example's statistics, several jobs with their own queue depths) and the
//! IIoT generator's rates in a full run.

use std::path::{Path, PathBuf};

use ssdtwin_core::base::time::Time;
use ssdtwin_core::workload::fio::{self, FioWorkload};
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource};

use super::{folder, pcie_time, BASE};

/// [`BASE`] loaded as if from a scenario file in `dir`, with `settings`.
pub(crate) fn scenario_in(dir: &Path, settings: &[&str]) -> Result<Scenario, ssdtwin_core::ConfigError> {
    let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).unwrap()).collect();
    load(
        &ScenarioSource::Text {
            toml: BASE.to_string(),
            base_dir: dir.to_path_buf(),
        },
        &overrides,
    )
}

fn run(scenario: &Scenario) -> Result<Report, ssdtwin_core::RunError> {
    ssdtwin_core::run(scenario, &mut |_| true)
}

/// Two 4 KiB writes one trace-second apart, in each format.
const ONE_SECOND_FIXTURES: [(&str, &str); 6] = [
    (
        "msr",
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
         128166372000000000,hm,0,Write,0,4096,100\n\
         128166372010000000,hm,0,Write,8192,4096,100\n",
    ),
    ("spc", "0,0,4096,w,12.250000\n0,16,4096,W,13.250000\n"),
    (
        "blkparse",
        "  8,0    0        1     0.500000000  1  Q   W 0 + 8 [app]\n\
         \x20 8,0    0        2     0.500001000  1  G   W 0 + 8 [app]\n\
         \x20 8,0    0        3     1.500000000  1  Q   W 16 + 8 [app]\n\
         CPU0 (8,0):\n Reads Queued:       0,        0KiB\n",
    ),
    ("disksim", "5000 0 0 8 0\n1000005000 0 16 8 0\n"),
    (
        "fio_iolog",
        "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 4096\n/dev/x wait 1000000\n/dev/x write 8192 4096\n/dev/x close\n",
    ),
    (
        "fio_iolog",
        "fio version 3 iolog\n0 /dev/x add\n10 /dev/x open\n20 /dev/x write 0 4096\n1000020 /dev/x write 8192 4096\n",
    ),
];

#[test]
fn a_one_second_gap_is_one_simulated_second_in_every_format() {
    let dir = folder("one-second");
    for (index, (format, text)) in ONE_SECOND_FIXTURES.iter().enumerate() {
        let name = format!("fixture{index}.{format}");
        std::fs::write(dir.join(&name), text).unwrap();
        for scale in [1.0, 0.25] {
            let scenario = scenario_in(
                &dir,
                &[
                    "workload.kind=trace",
                    &format!("workload.trace.format={format}"),
                    &format!("workload.trace.path={name}"),
                    &format!("workload.trace.time_scale={scale}"),
                    "workload.precondition=none",
                ],
            )
            .unwrap();
            let report = run(&scenario).unwrap_or_else(|error| panic!("{format}: {error}"));
            assert_eq!(report.host_ios, 2, "{format}");
            // An unloaded write completes once its payload is in the frame buffer.
            let write = scenario.host.command_overhead + pcie_time(&scenario, 4096);
            let expected = scale + write.as_secs_f64();
            assert!(
                (report.simulated_time_s - expected).abs() < 1e-12,
                "{format} x{scale}: {} s, expected {expected} s",
                report.simulated_time_s
            );
        }
    }
}

#[test]
fn a_malformed_line_names_file_line_and_text_unless_lenient() {
    let dir = folder("malformed");
    std::fs::write(dir.join("bad.trace"), "0 0 0 8 1\n10 0 8 eight 1\n20 0 16 8 1\n").unwrap();
    let settings = [
        "workload.kind=trace",
        "workload.trace.format=disksim",
        "workload.trace.path=bad.trace",
    ];
    let scenario = scenario_in(&dir, &settings).unwrap();
    let error = run(&scenario).unwrap_err().to_string();
    assert!(
        error.contains("bad.trace:2:") && error.contains("`10 0 8 eight 1`") && error.contains("size"),
        "{error}"
    );
    let lenient: Vec<&str> = settings
        .iter()
        .copied()
        .chain(["workload.trace.lenient=true"])
        .collect();
    let report = run(&scenario_in(&dir, &lenient).unwrap()).unwrap();
    assert_eq!(report.host_ios, 2);
    assert_eq!(report.workload.skipped_lines, 1);
    let missing = scenario_in(&dir, &["workload.kind=trace", "workload.trace.path=nope.trace"]).unwrap();
    let error = run(&missing).unwrap_err().to_string();
    assert!(
        error.contains("workload.trace.path") && error.contains("nope.trace"),
        "{error}"
    );
}

#[test]
fn address_maps_wrap_scale_or_refuse_addresses_beyond_the_drive() {
    let dir = folder("address-map");
    // Sector 2^40: far beyond the small test drive.
    std::fs::write(dir.join("far.trace"), "0 0 1099511627776 8 1\n1 0 0 8 1\n").unwrap();
    let base = ["workload.kind=trace", "workload.trace.path=far.trace"];
    let with = |extra: &str| -> Vec<String> { base.iter().map(|s| s.to_string()).chain([extra.to_string()]).collect() };
    let settings = with("workload.trace.address_map=error");
    let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
    let error = run(&scenario_in(&dir, &settings).unwrap()).unwrap_err().to_string();
    assert!(error.contains("far.trace:1:") && error.contains("beyond"), "{error}");
    for map in ["wrap", "scale"] {
        let settings = with(&format!("workload.trace.address_map={map}"));
        let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
        assert_eq!(
            run(&scenario_in(&dir, &settings).unwrap()).unwrap().host_ios,
            2,
            "{map}"
        );
    }
}

#[test]
fn filters_and_limit_select_requests() {
    let dir = folder("filters");
    let lines: String = (0..100)
        .map(|i| format!("{} {} {} 8 {}\n", i * 1000, i % 4, i * 8, i % 2))
        .collect();
    std::fs::write(dir.join("mix.trace"), lines).unwrap();
    let count = |extra: &[&str]| {
        let mut settings = vec!["workload.kind=trace", "workload.trace.path=mix.trace"];
        settings.extend_from_slice(extra);
        run(&scenario_in(&dir, &settings).unwrap()).unwrap()
    };
    assert_eq!(count(&[]).host_ios, 100);
    let reads = count(&["workload.trace.operations=read"]);
    assert_eq!((reads.host_ios, reads.latency_us.write.count), (50, 0));
    assert_eq!(count(&["workload.trace.devices=[1, 2]"]).host_ios, 50);
    // Filters that leave no request: an error naming the file, not an empty run.
    let settings = [
        "workload.kind=trace",
        "workload.trace.path=mix.trace",
        "workload.trace.devices=[1]",
        "workload.trace.operations=write",
    ];
    let error = run(&scenario_in(&dir, &settings).unwrap()).unwrap_err().to_string();
    assert!(
        error.contains("no request") && error.contains("filtered out"),
        "{error}"
    );
    assert_eq!(count(&["workload.trace.limit=7"]).host_ios, 7);
}

/// `../shared/traces/tpcc-small.trace`, beside the repository (CI has it there).
fn shared_trace() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces/tpcc-small.trace");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (CI has ../shared beside the clone)",
            path.display()
        );
        None
    }
}

#[test]
fn the_real_tpcc_trace_replays_every_request() {
    let Some(path) = shared_trace() else { return };
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Vec<u64>> = text
        .lines()
        .map(|line| line.split_whitespace().map(|field| field.parse().unwrap()).collect())
        .collect();
    let reads = lines.iter().filter(|fields| fields[4] == 1).count() as u64;
    let span_s = (lines.last().unwrap()[0] - lines[0][0]) as f64 / 1e9;
    let path = path.display().to_string();
    let base = [
        "workload.kind=trace".to_string(),
        format!("workload.trace.path={path}"),
        "workload.trace.address_map=scale".to_string(),
        "host.queue_depth=16".to_string(),
    ];
    for replay in ["timed", "as_fast_as_possible"] {
        let settings: Vec<String> = base
            .iter()
            .cloned()
            .chain([format!("workload.trace.replay={replay}")])
            .collect();
        let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
        let report = run(&scenario_in(Path::new("."), &settings).unwrap()).unwrap();
        assert_eq!(report.host_ios, lines.len() as u64, "{replay}");
        assert_eq!(report.latency_us.read.count, reads, "{replay}");
        if replay == "timed" {
            assert!(
                report.simulated_time_s >= span_s,
                "{} < {span_s}",
                report.simulated_time_s
            );
        }
    }
}

fn jesd219_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jesd219.fio")
}

#[test]
fn the_jesd219_example_generates_the_jedec_mix() {
    let capacity: u64 = 64 << 30;
    let text = std::fs::read_to_string(jesd219_file()).unwrap();
    let file = fio::parse(&text, "jesd219.fio", capacity, false).unwrap();
    assert_eq!(file.jobs.len(), 1);
    let mut workload = FioWorkload::new(file, 4096, 1);
    let ios: Vec<_> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
    assert_eq!(ios.len(), 200_000, "number_ios");
    let share = |predicate: &dyn Fn(&fio::FioIo) -> bool| {
        ios.iter().filter(|io| predicate(io)).count() as f64 / ios.len() as f64
    };
    assert!((share(&|io| io.is_read) - 0.40).abs() < 0.005);
    // JESD219 enterprise transfer sizes.
    for (size, percent) in [
        (512, 4.0),
        (1024, 1.0),
        (1536, 1.0),
        (2048, 1.0),
        (2560, 1.0),
        (3072, 1.0),
        (3584, 1.0),
        (4096, 67.0),
        (8192, 10.0),
        (16384, 7.0),
        (32768, 3.0),
        (65536, 3.0),
    ] {
        let observed = share(&|io| io.length == size) * 100.0;
        assert!((observed - percent).abs() < 0.35, "{size} B: {observed}% vs {percent}%");
    }
    assert!(ios
        .iter()
        .all(|io| io.offset % 4096 == 0 && io.offset + io.length <= capacity));
    let zone = |low: f64, high: f64| {
        share(&|io| (io.offset as f64) >= low * capacity as f64 && (io.offset as f64) < high * capacity as f64)
    };
    assert!((zone(0.0, 0.05) - 0.5).abs() < 0.01);
    assert!((zone(0.05, 0.20) - 0.3).abs() < 0.01);
    assert!((zone(0.20, 1.0) - 0.2).abs() < 0.01);
}

#[test]
fn fio_jobs_keep_their_own_queue_depths_on_a_shared_drive() {
    let dir = folder("fio-jobs");
    std::fs::write(
        dir.join("two.fio"),
        "[global]\nrw=randread\nbs=4k\nnumber_ios=400\n[shallow]\niodepth=1\n[deep]\niodepth=8\n",
    )
    .unwrap();
    let scenario = scenario_in(&dir, &["workload.kind=fio", "workload.fio.job=two.fio"]).unwrap();
    let report = run(&scenario).unwrap();
    assert_eq!(report.host_ios, 800);
    let jobs = &report.workload.jobs;
    assert_eq!(
        jobs.iter().map(|job| job.name.as_str()).collect::<Vec<_>>(),
        ["shallow", "deep"]
    );
    assert_eq!((jobs[0].queue_depth, jobs[1].queue_depth), (1, 8));
    assert!(jobs
        .iter()
        .all(|job| job.read.total_ios == 400 && job.write.total_ios == 0));
    // Eight commands in flight on 8 dies finish the same work several times sooner.
    assert!(
        jobs[1].runtime_ms * 3 < jobs[0].runtime_ms,
        "deep {} ms vs shallow {} ms",
        jobs[1].runtime_ms,
        jobs[0].runtime_ms
    );
    // fio units: runtime in whole ms (the shallow job ends the run), bandwidth in KiB/s over it.
    let job = &jobs[0];
    assert_eq!(job.runtime_ms, (report.simulated_time_s * 1000.0).ceil() as u64);
    let expected_bw = job.read.io_bytes as f64 / 1024.0 / (job.runtime_ms as f64 / 1000.0);
    assert!(
        (job.read.bw / expected_bw - 1.0).abs() < 1e-12,
        "{} vs {expected_bw}",
        job.read.bw
    );
}

#[test]
fn fio_unsupported_options_fail_or_warn() {
    let dir = folder("fio-unsupported");
    std::fs::write(dir.join("v.fio"), "[j]\nrw=randwrite\nverify=md5\nnumber_ios=10\n").unwrap();
    let settings = ["workload.kind=fio", "workload.fio.job=v.fio"];
    let error = match ssdtwin_core::Simulation::new(&scenario_in(&dir, &settings).unwrap()) {
        Err(error) => error,
        Ok(_) => panic!("an unsupported option is an error"),
    };
    assert_eq!(error.key, "workload.fio.job");
    assert!(error.message.contains("`verify` (line 3)"), "{error}");
    let mut lenient = settings.to_vec();
    lenient.push("workload.fio.ignore_unsupported=true");
    let report = run(&scenario_in(&dir, &lenient).unwrap()).unwrap();
    assert_eq!(report.host_ios, 10);
    assert!(
        report.workload.warnings[0].contains("verify"),
        "{:?}",
        report.workload.warnings
    );
}

#[test]
fn iiot_run_ingests_at_the_configured_rate() {
    let scenario = scenario_in(
        Path::new("."),
        &[
            "workload.kind=iiot",
            "workload.io_count=0",
            "workload.duration=2s",
            "workload.iiot.sensors=100",
            "workload.iiot.record_rate=40",
            "workload.iiot.batch_records=4",
            "workload.iiot.query_rate=50",
            "workload.iiot.query_size=16KiB",
            "host.queue_depth=8",
            // 1 KiB mapping units: a batch of records is exactly its units, aligned or not.
            "ftl.mapping_unit=1KiB",
        ],
    )
    .unwrap();
    let report = run(&scenario).unwrap();
    let jobs = &report.workload.jobs;
    assert_eq!((jobs[0].name.as_str(), jobs[1].name.as_str()), ("ingest", "query"));
    // 4,000 records/s of 1 KiB for 2 s.
    let written = jobs[0].write.io_bytes as f64;
    assert!((written / (4000.0 * 1024.0 * 2.0) - 1.0).abs() < 0.05, "{written}");
    let queries = jobs[1].read.total_ios as f64;
    assert!((queries / 100.0 - 1.0).abs() < 0.25, "{queries} queries");
    assert!(report.simulated_time_s < 2.1);
    let again = run(&scenario).unwrap();
    assert_eq!(
        report.workload, again.workload,
        "same seed, same Poisson arrivals and results"
    );
}

#[test]
fn unknown_keys_in_workload_tables_are_rejected() {
    for key in [
        "workload.trace.formt=msr",
        "workload.fio.jobs=x",
        "workload.iiot.sensor=3",
    ] {
        let error = scenario_in(Path::new("."), &[key]).unwrap_err();
        assert_eq!(error.key, key.split('=').next().unwrap(), "{error}");
    }
    let error = scenario_in(Path::new("."), &["workload.kind=trace"]).unwrap_err();
    assert_eq!(error.key, "workload.trace.path");
    let error = scenario_in(Path::new("."), &["workload.kind=iiot", "host.mode=open"]).unwrap_err();
    assert_eq!(error.key, "host.mode");
}

#[test]
fn relative_paths_resolve_against_the_scenario_folder() {
    let dir = folder("relative");
    let scenario = scenario_in(&dir, &["workload.kind=trace", "workload.trace.path=sub/t.trace"]).unwrap();
    assert_eq!(Path::new(&scenario.workload.trace.path), dir.join("sub/t.trace"));
}

#[test]
fn a_time_based_fio_job_runs_for_its_runtime_and_repeats_exactly() {
    let dir = folder("fio-time");
    std::fs::write(
        dir.join("t.fio"),
        "[t]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=4\nruntime=30ms\ntime_based\n",
    )
    .unwrap();
    let scenario = scenario_in(&dir, &["workload.kind=fio", "workload.fio.job=t.fio"]).unwrap();
    let first = run(&scenario).unwrap();
    // Submissions stop at 30 ms; the last completions follow within a few flash operations.
    assert!(
        first.simulated_time_s >= 0.030 && first.simulated_time_s < 0.040,
        "{}",
        first.simulated_time_s
    );
    let second = run(&scenario).unwrap();
    assert_eq!(first.host_ios, second.host_ios);
    assert_eq!(first.workload, second.workload, "same seed, same per-job results");
}
