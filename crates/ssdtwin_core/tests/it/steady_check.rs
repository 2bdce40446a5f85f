//! The report's `variability` (IOPS and bandwidth per window) and SNIA PTS steady-state check on
//! whole runs: a drive whose GC stalls the host fails it, a read-only run at constant rate passes.

use super::{run, scenario};

/// 70/30 random 4 KiB mix at queue depth 32 after steady preconditioning, on 32 dies of 32 blocks
/// per plane, under `ftl.gc_pacing = pacing`. Under `threshold` every plane starts with the same
/// free space, so GC starts on all of them at once and the host's IOPS collapse from about 80k to
/// under 10k (the default scenario's behaviour before paced GC became the default, on a drive
/// small enough for a debug build).
fn mix(pacing: &str) -> ssdtwin_core::Report {
    let pacing = format!("ftl.gc_pacing={pacing}");
    run(&scenario(&[
        &pacing,
        "workload.read_fraction=0.7",
        "workload.precondition=steady",
        "host.queue_depth=32",
        "workload.io_count=60000",
        "flash.channels=4",
        "flash.dies_per_chip=4",
        "flash.blocks_per_plane=32",
    ]))
}

#[test]
fn snia_check_fails_and_variability_shows_the_dip_when_gc_collapses_iops() {
    let report = mix("threshold");
    assert!(report.flash.erases > 0, "GC must run");
    let variability = &report.variability;
    assert_eq!(variability.windows, 10, "automatic windows: the measured run in 10");
    assert!(
        variability.iops.min < 0.5 * variability.iops.max,
        "a collapse is a window under half the best: {variability:?}"
    );
    assert_eq!(report.steady_state.passed, Some(false), "{:?}", report.steady_state);
    assert!(report.steady_state.excursion_fraction > 0.2);
}

#[test]
fn the_same_mix_under_paced_gc_passes_the_snia_check() {
    // The same mix under the default pacing: the same GC work spread over the run.
    let report = mix("paced");
    assert!(report.flash.erases > 0, "GC must run");
    assert_eq!(report.steady_state.passed, Some(true), "{:?}", report.steady_state);
    assert!(
        report.variability.iops.min > 0.8 * report.variability.iops.max,
        "{:?}",
        report.variability
    );
}

#[test]
fn snia_check_passes_on_a_read_only_run_at_constant_rate() {
    let report = run(&scenario(&["host.queue_depth=8", "workload.io_count=30000"]));
    let state = &report.steady_state;
    assert_eq!(state.passed, Some(true), "{state:?}");
    assert!(
        state.excursion_fraction < 0.05 && state.slope_fraction < 0.05,
        "{state:?}"
    );
    assert!(report.variability.iops.cv < 0.05, "{:?}", report.variability);
    assert_eq!(report.flash.erases, 0, "no GC in a read-only run");
}

#[test]
fn fixed_windows_tile_the_measured_run_and_average_to_its_iops() {
    let report = run(&scenario(&[
        "host.queue_depth=8",
        "workload.io_count=30000",
        "report.steady_window=\"10ms\"",
    ]));
    let variability = &report.variability;
    assert!((variability.window_s - 0.010).abs() < 1e-12);
    // Complete windows only: the last, partial one is left out.
    let expected = (report.simulated_time_s / 0.010).floor() as u64;
    assert_eq!(variability.windows, expected, "{} s", report.simulated_time_s);
    let relative = (variability.iops.mean - report.iops).abs() / report.iops;
    assert!(
        relative < 0.02,
        "window mean {} against {}",
        variability.iops.mean,
        report.iops
    );
    let bytes_per_command = variability.bandwidth_mib_s.mean * 1048576.0 / variability.iops.mean;
    assert!(
        (bytes_per_command - 4096.0).abs() < 1e-6,
        "4 KiB commands: {bytes_per_command}"
    );
}

#[test]
fn a_window_under_100us_is_refused_naming_the_key() {
    let source = ssdtwin_core::ScenarioSource::Default;
    let overrides = [ssdtwin_core::Override::parse("report.steady_window=\"10us\"").unwrap()];
    let error = ssdtwin_core::load(&source, &overrides).unwrap_err();
    assert_eq!(error.key, "report.steady_window");
    assert!(error.message.contains("100us"), "{error}");
}
