//! What a flow can run and when it stops (docs/guide/workloads.md, "Flows"): a trace replayed and
//! the IIoT generator as flows beside a synthetic one, a per-flow `io_count`, and the slowdown of
//! an fio job file's jobs (each job is a flow, run alone as the file with that one job).

use ssdtwin_core::metrics::jobs::JobReport;
use ssdtwin_core::Report;

use crate::flows::mean_ns;
use crate::workloads::scenario_in;
use crate::{folder, relative_error, run, scenario};

/// Commands the job completed.
fn commands(job: &JobReport) -> u64 {
    job.read.total_ios + job.write.total_ios + job.trim.total_ios + job.flush.total_ios
}

fn totals(report: &Report) -> Vec<u64> {
    report.workload.jobs.iter().map(commands).collect()
}

const SMALL_TRACE: &str = "0,h,0,Write,0,4096,0\n1000,h,0,Read,0,4096,0\n2000,h,0,Write,8192,8192,0\n\
                           3000,h,0,Read,8192,4096,0\n4000,h,0,Write,65536,4096,0\n";

#[test]
fn a_trace_flow_replays_its_whole_trace_beside_a_synthetic_flow() {
    let dir = folder("flow-trace");
    std::fs::write(dir.join("small.csv"), SMALL_TRACE.repeat(40)).unwrap();
    // The trace replayed alone as the single workload, closed loop: what the flow must issue.
    let alone = run(&scenario_in(
        &dir,
        &[
            "workload.kind=trace",
            "workload.trace.format=msr",
            "workload.trace.path=small.csv",
            "workload.trace.replay=as_fast_as_possible",
        ],
    )
    .unwrap());
    assert_eq!(alone.host_ios, 200);
    let flows = "workload.flows=[{name = \"trace\", kind = \"trace\", queue_depth = 4, trace = {format = \"msr\", \
                 path = \"small.csv\", replay = \"as_fast_as_possible\"}}, {name = \"synthetic\", io_count = 300}]";
    let report = run(&scenario_in(&dir, &[flows, "workload.io_count=0"]).unwrap());
    let jobs = &report.workload.jobs;
    assert_eq!(totals(&report), [200, 300]);
    // The trace's own mix: 3 writes and 2 reads per 5 requests.
    assert_eq!((jobs[0].write.total_ios, jobs[0].read.total_ios), (120, 80));
    assert_eq!(jobs[0].write.io_bytes, alone.workload.jobs[0].write.io_bytes);
}

#[test]
fn an_iiot_flow_runs_closed_loop_to_its_own_count() {
    let flows = "workload.flows=[{name = \"iiot\", kind = \"iiot\", io_count = 400, queue_depth = 8, \
                 iiot = {replay = \"as_fast_as_possible\"}}, {name = \"reader\", io_count = 150, read_fraction = 1.0}]";
    let report = run(&scenario(&[flows, "workload.precondition=fill"]));
    assert_eq!(totals(&report), [400, 150]);
    // The IIoT generator writes records (and reads ranges); the reader only reads.
    assert!(report.workload.jobs[0].write.total_ios > 0);
    assert_eq!(report.workload.jobs[1].write.total_ios, 0);
}

#[test]
fn each_flow_stops_at_its_own_io_count_and_the_run_when_all_have() {
    // workload.io_count (50) is not used when every flow has a count of its own.
    let flows = "workload.flows=[{name = \"short\", io_count = 100}, {name = \"long\", io_count = 1000}]";
    let report = run(&scenario(&[flows, "workload.io_count=50"]));
    assert_eq!(totals(&report), [100, 1000]);
    let jobs = &report.workload.jobs;
    assert!(jobs[0].runtime_ms < jobs[1].runtime_ms, "the short flow stops first");
    assert_eq!(report.host_ios, 1100);
}

#[test]
fn flows_with_counts_of_their_own_run_to_them_through_a_warm_up() {
    // The warm-up's commands count toward each flow's own count (before, a command-count warm-up
    // ended the run with the warm-up: the host had no bound of its own to extend).
    let flows = "workload.flows=[{name = \"short\", io_count = 300}, {name = \"long\", io_count = 1000}]";
    for warmup in ["workload.warmup=200", "workload.warmup=1ms"] {
        let report = run(&scenario(&[flows, "workload.io_count=0", warmup]));
        let warm = report.warmup.as_ref().expect("a warm-up is reported").commands;
        assert!(warm > 0, "{warmup}");
        assert_eq!(report.host_ios + warm, 1300, "{warmup}: every flow ran to its count");
    }
}

#[test]
fn a_flow_without_a_count_runs_until_the_total_io_count() {
    let flows = "workload.flows=[{name = \"counted\", io_count = 100}, {name = \"open\"}]";
    let report = run(&scenario(&[flows, "workload.io_count=1000"]));
    let done = totals(&report);
    assert_eq!(done[0], 100);
    assert_eq!(done[0] + done[1], 1000);
}

#[test]
fn flow_source_errors_name_their_keys() {
    let dir = folder("flow-errors");
    let error = |settings: &[&str]| scenario_in(&dir, settings).unwrap_err();
    let timed = error(&["workload.flows=[{kind = \"trace\", trace = {format = \"msr\", path = \"x.csv\"}}]"]);
    assert_eq!(timed.key, "workload.flows[0].trace.replay");
    assert!(timed.message.contains("as_fast_as_possible"), "{timed}");
    let iiot = error(&["workload.flows=[{kind = \"iiot\"}]"]);
    assert_eq!(iiot.key, "workload.flows[0].iiot.replay");
    let fio = error(&["workload.flows=[{}, {kind = \"fio\"}]"]);
    assert_eq!(fio.key, "workload.flows[1].kind");
    assert!(fio.message.contains("jobs are the flows"), "{fio}");
    let missing = error(&["workload.flows=[{kind = \"trace\"}]"]);
    assert_eq!(missing.key, "workload.flows[0].trace");
    let zero = error(&["workload.flows=[{io_count = 0}]"]);
    assert_eq!(zero.key, "workload.flows[0].io_count");
    // A trace that cannot be read is found when the run opens it.
    let scenario = scenario_in(
        &dir,
        &["workload.flows=[{kind = \"trace\", trace = {format = \"msr\", path = \"none.csv\", replay = \"as_fast_as_possible\"}}]"],
    )
    .unwrap();
    let message = ssdtwin_core::run(&scenario, &mut |_| true).unwrap_err().to_string();
    assert!(
        message.contains("workload.flows[0].trace.path") && message.contains("none.csv"),
        "{message}"
    );
}

#[test]
fn an_fio_job_files_jobs_get_slowdowns_from_their_alone_runs() {
    let dir = folder("fio-slowdown");
    std::fs::write(
        dir.join("two.fio"),
        "[global]\nbs=4k\nnumber_ios=600\n[reader]\nrw=randread\niodepth=2\n[writer]\nrw=randwrite\niodepth=16\n",
    )
    .unwrap();
    let base = [
        "workload.kind=fio",
        "workload.fio.job=two.fio",
        "workload.precondition=fill",
    ];
    let mut settings = base.to_vec();
    settings.push("report.flow_slowdown=true");
    let report = run(&scenario_in(&dir, &settings).unwrap());
    let jobs = &report.workload.jobs;
    // The alone runs, done here by hand: the file with one job (only_job keeps its random stream).
    let mut expected = Vec::new();
    for (index, job) in jobs.iter().enumerate() {
        let only = format!("workload.fio.only_job={index}");
        let mut alone_settings = base.to_vec();
        alone_settings.push(&only);
        let alone = run(&scenario_in(&dir, &alone_settings).unwrap());
        assert_eq!(alone.workload.jobs.len(), 1);
        assert_eq!(alone.workload.jobs[0].name, job.name);
        assert_eq!(commands(&alone.workload.jobs[0]), 600);
        expected.push(mean_ns(job) / mean_ns(&alone.workload.jobs[0]));
    }
    let measured: Vec<f64> = jobs.iter().map(|job| job.slowdown.expect("a slowdown")).collect();
    for (measured, expected) in measured.iter().zip(&expected) {
        assert!(relative_error(*measured, *expected) < 1e-12, "{measured} vs {expected}");
    }
    assert!(measured[0] > 1.2, "the reader is slowed by the writer: {}", measured[0]);
    let fairness = measured[0].min(measured[1]) / measured[0].max(measured[1]);
    assert!(relative_error(report.workload.fairness.unwrap(), fairness) < 1e-12);
    let error = scenario_in(&dir, &[&base[..], &["workload.fio.only_job=2"]].concat())
        .map(|scenario| ssdtwin_core::run(&scenario, &mut |_| true).map(|_| ()))
        .expect("loads");
    let message = error.expect_err("only 2 jobs").to_string();
    assert!(
        message.contains("workload.fio.only_job") && message.contains("2 jobs"),
        "{message}"
    );
}
