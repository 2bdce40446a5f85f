//! `workload.warmup` (as fio's `ramp_time`): the warm-up runs in addition to `io_count` or
//! `duration` and no measured figure counts it.

use super::{run, scenario};

#[test]
fn warmup_commands_run_in_addition_and_no_latency_or_job_figure_counts_them() {
    let report = run(&scenario(&[
        "host.queue_depth=4",
        "workload.io_count=5000",
        "workload.warmup=2000",
    ]));
    assert_eq!(report.host_ios, 5000);
    assert_eq!(
        report.latency_us.all.count, 5000,
        "the histograms hold the measured commands"
    );
    assert_eq!(report.workload.jobs[0].read.total_ios, 5000);
    assert_eq!(report.workload.jobs[0].read.lat_ns.count, 5000);
    let warmup = report.warmup.as_ref().expect("a warm-up is reported");
    assert_eq!(warmup.commands, 2000);
    assert!(warmup.time_s > 0.0 && warmup.time_s < report.simulated_time_s);
    let measured = report.simulated_time_s - warmup.time_s;
    assert!(
        (report.iops - 5000.0 / measured).abs() / report.iops < 1e-9,
        "IOPS over the measured run"
    );
}

#[test]
fn timed_warmup_ends_at_its_instant_and_io_count_is_measured_after() {
    let report = run(&scenario(&[
        "host.queue_depth=4",
        "workload.io_count=5000",
        "workload.warmup=\"20ms\"",
    ]));
    let warmup = report.warmup.as_ref().expect("a warm-up is reported");
    assert_eq!(warmup.time_s, 0.020);
    assert!(warmup.commands > 0);
    assert_eq!(report.host_ios, 5000);
    assert_eq!(report.latency_us.all.count, 5000);
}

#[test]
fn duration_counts_from_the_end_of_the_warmup() {
    let report = run(&scenario(&[
        "host.queue_depth=4",
        "workload.io_count=0",
        "workload.duration=\"50ms\"",
        "workload.warmup=\"20ms\"",
    ]));
    let warmup = report.warmup.as_ref().expect("a warm-up is reported");
    // The last commands issued before 70 ms complete a little after it.
    let measured = report.simulated_time_s - warmup.time_s;
    assert!((0.050..0.051).contains(&measured), "measured {measured} s");
}

#[test]
fn read_only_iops_are_the_same_with_and_without_warmup() {
    let plain = run(&scenario(&["host.queue_depth=8", "workload.io_count=20000"]));
    let warmed = run(&scenario(&[
        "host.queue_depth=8",
        "workload.io_count=20000",
        "workload.warmup=10000",
    ]));
    let relative = (warmed.iops - plain.iops).abs() / plain.iops;
    assert!(relative < 0.01, "{} against {}", warmed.iops, plain.iops);
    assert_eq!(warmed.host_ios, plain.host_ios);
}

/// Random 4 KiB writes of a filled drive: the first writes go to the over-provisioned free blocks
/// with no GC; once free space reaches `ftl.gc_threshold`, GC copies and erases and writes slow.
/// The test drive has 98304 physical units, 30% over-provisioning and a 10% threshold: about
/// 0.2 × 98304 ≈ 19700 writes before GC.
fn writes(settings: &[&str]) -> ssdtwin_core::Report {
    let mut all = vec!["workload.read_fraction=0.0", "host.queue_depth=8"];
    all.extend_from_slice(settings);
    run(&scenario(&all))
}

#[test]
fn excluding_a_gc_free_start_raises_write_latency_waf_and_power_figures_follow_the_window() {
    let whole = writes(&["workload.io_count=40000"]);
    let measured = writes(&["workload.io_count=22000", "workload.warmup=18000"]);
    assert_eq!(measured.host_ios, 22000);
    // The same command stream: the measured part is the whole run's last 22,000 commands.
    assert!(measured.latency_us.write.mean > whole.latency_us.write.mean * 1.1);
    assert!(measured.waf > whole.waf, "{} against {}", measured.waf, whole.waf);
    assert!(measured.flash.programs < whole.flash.programs);
    assert_eq!(measured.flash.erases, whole.flash.erases, "no erase before GC starts");
    // Energy and average power cover the measured run and its drain.
    let seconds = super::drained_end_s(&measured) - measured.warmup.as_ref().unwrap().time_s;
    let average = measured.energy_j.total / seconds;
    assert!((measured.power_w.total_avg - average).abs() < 1e-9 * average);
    assert!(measured.energy_j.total < whole.energy_j.total);
}

#[test]
fn a_trace_that_ends_during_its_warmup_measures_nothing_and_warns() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/disksim-small.trace");
    let report = run(&scenario(&[
        "workload.kind=trace",
        "workload.trace.format=disksim",
        &format!("workload.trace.path=\"{trace}\""),
        "workload.trace.replay=as_fast_as_possible",
        "workload.precondition=none",
        "workload.warmup=5000",
    ]));
    assert_eq!(
        report.host_ios, 0,
        "the 1000-request trace ends before 5000 warm-up commands"
    );
    assert_eq!(report.latency_us.all.count, 0);
    assert!(
        report
            .workload
            .warnings
            .iter()
            .any(|warning| warning.contains("ended during its warm-up")),
        "{:?}",
        report.workload.warnings
    );
}
