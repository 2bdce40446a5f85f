//! Flows and NVMe arbitration (docs/models/host.md, "Submission queues and arbitration"): two
//! identical flows that keep the drive saturated share the fetch slots as the arbitration says
//! (round robin 1:1, weighted round robin by the weights, urgent first), one flow runs exactly as
//! the single workload it repeats, and a multi-flow run is deterministic.
//!
//! Saturated: each flow keeps 48 random 4 KiB reads in flight while the controller holds at most
//! `dies x die_queue_depth` = 32 of them, so both submission queues have commands and every fetch
//! slot is an arbitration. Then the completions of a flow are its fetches, to within the commands
//! it has in flight when the run stops issuing (at `workload.duration`, then the queues drain), and
//! the shares are the arbitration's closed forms.

use serde_json::Value;
use ssdtwin_core::Report;

use crate::{dies, relative_error, run, scenario};

/// Two identical saturating read flows with `extra` settings.
fn two_flows(first: &str, second: &str, extra: &[&str]) -> Vec<String> {
    let mut settings: Vec<String> = [
        "controller.frame_buffer=64",
        "controller.die_queue_depth=8",
        "workload.read_fraction=1.0",
        "workload.io_count=0",
        "workload.duration=150ms",
    ]
    .iter()
    .map(|text| text.to_string())
    .collect();
    settings.push(format!(
        "workload.flows=[{{name = \"a\", queue_depth = 48, priority = \"{first}\"}}, {{name = \"b\", queue_depth = 48, priority = \"{second}\"}}]"
    ));
    settings.extend(extra.iter().map(|text| text.to_string()));
    settings
}

fn run_settings(settings: &[String]) -> Report {
    let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
    run(&scenario(&settings))
}

/// Reads completed by each job.
fn reads(report: &Report) -> Vec<u64> {
    report.workload.jobs.iter().map(|job| job.read.total_ios).collect()
}

#[test]
fn round_robin_gives_two_saturating_identical_flows_equal_shares() {
    let report = run_settings(&two_flows("medium", "medium", &[]));
    let done = reads(&report);
    let share = done[0] as f64 / (done[0] + done[1]) as f64;
    eprintln!("round robin: {done:?} reads, share of flow a {share:.4}");
    assert!(done[0] + done[1] > 5000, "the run is long enough to measure shares");
    assert!(relative_error(share, 0.5) < 0.02, "share {share}");
}

#[test]
fn weighted_round_robin_with_weights_4_to_1_gives_4_to_1_of_the_slots() {
    // Weights 4 (high) : 1 (medium): each round takes 4 commands of flow a and 1 of flow b.
    let report = run_settings(&two_flows(
        "high",
        "medium",
        &[
            "host.arbitration=weighted_round_robin",
            "host.weight_high=4",
            "host.weight_medium=1",
        ],
    ));
    let done = reads(&report);
    let ratio = done[0] as f64 / done[1] as f64;
    eprintln!("weighted round robin 4:1: {done:?} reads, ratio {ratio:.3}");
    assert!(relative_error(ratio, 4.0) < 0.04, "ratio {ratio}");
    let jobs = &report.workload.jobs;
    assert_eq!((jobs[0].priority, jobs[1].priority), (Some("high"), Some("medium")));
}

#[test]
fn urgent_flow_starves_the_weighted_classes_while_backlogged() {
    let settings = two_flows("urgent", "low", &["host.arbitration=weighted_round_robin"]);
    let scenario = scenario(&settings.iter().map(String::as_str).collect::<Vec<_>>());
    let report = run(&scenario);
    let done = reads(&report);
    // The low flow gets only the slots taken before the urgent queue had a backlog (at most what
    // the controller holds: every die's queue full, plus the command at the head of its host
    // queue) and, once the run stops issuing and the urgent queue is empty, the commands it still
    // has in flight (its queue depth).
    let held = u64::from(dies(&scenario) * scenario.controller.die_queue_depth) + 1;
    let bound = held + u64::from(report.workload.jobs[1].queue_depth);
    eprintln!("urgent vs low: {done:?} reads (bound for low {bound})");
    assert!(done[1] <= bound, "low flow completed {} > {bound}", done[1]);
    assert!(done[0] > 20 * bound, "the urgent flow ran: {}", done[0]);
    let jobs = &report.workload.jobs;
    assert!(jobs[1].runtime_ms >= jobs[0].runtime_ms, "the low flow finishes last");
}

#[test]
fn arbitration_burst_keeps_round_robin_shares_equal() {
    let report = run_settings(&two_flows("medium", "medium", &["host.arbitration_burst=8"]));
    let done = reads(&report);
    let share = done[0] as f64 / (done[0] + done[1]) as f64;
    assert!(relative_error(share, 0.5) < 0.02, "share {share}");
}

/// The report as JSON without the config and what measures the host computer.
fn simulated(report: &Report) -> Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().expect("an object");
    for key in ["wall_time_s", "config", "simulator"] {
        object.remove(key);
    }
    json
}

#[test]
fn one_flow_runs_exactly_as_the_single_workload() {
    let base = [
        "host.queue_depth=8",
        "workload.read_fraction=0.7",
        "workload.io_count=3000",
        "workload.precondition=steady",
    ];
    let single = run(&scenario(&base));
    let mut settings = base.to_vec();
    settings.push("workload.flows=[{name = \"synthetic\"}]");
    let flow = run(&scenario(&settings));
    assert_eq!(simulated(&single), simulated(&flow));
    assert_eq!(single.simulator.events, flow.simulator.events);
}

#[test]
fn a_multi_flow_run_is_deterministic() {
    let settings = two_flows(
        "high",
        "low",
        &["host.arbitration=weighted_round_robin", "workload.read_fraction=0.5"],
    );
    let first = run_settings(&settings);
    let second = run_settings(&settings);
    assert_eq!(simulated(&first), simulated(&second));
    assert_ne!(reads(&first)[0], 0);
}

/// Mean latency of all a job's commands [ns], from its fio-style directions.
pub(crate) fn mean_ns(job: &ssdtwin_core::metrics::jobs::JobReport) -> f64 {
    let directions = [&job.read, &job.write];
    let count: u64 = directions.iter().map(|d| d.lat_ns.count).sum();
    directions
        .iter()
        .map(|d| d.lat_ns.mean * d.lat_ns.count as f64)
        .sum::<f64>()
        / count as f64
}

#[test]
fn slowdown_is_shared_over_alone_latency_and_fairness_min_over_max() {
    // A light read flow beside a write-heavy flow at a higher depth: the reader waits behind
    // programs it would not meet alone.
    let flows = "workload.flows=[{name = \"reader\", queue_depth = 2, read_fraction = 1.0}, \
                 {name = \"writer\", queue_depth = 16, read_fraction = 0.0}]";
    let base = ["workload.io_count=3000", "workload.precondition=fill", flows];
    let mut settings = base.to_vec();
    settings.push("report.flow_slowdown=true");
    let report = run(&scenario(&settings));
    let jobs = &report.workload.jobs;
    // The alone runs, done here by hand: each flow alone for as many commands as it completed.
    let mut expected = Vec::new();
    for (index, job) in jobs.iter().enumerate() {
        let only = if index == 0 {
            "workload.flows=[{name = \"reader\", queue_depth = 2, read_fraction = 1.0}]"
        } else {
            "workload.flows=[{name = \"writer\", queue_depth = 16, read_fraction = 0.0}]"
        };
        let count = format!("workload.io_count={}", job.read.total_ios + job.write.total_ios);
        let alone = run(&scenario(&["workload.precondition=fill", only, &count]));
        expected.push(mean_ns(job) / mean_ns(&alone.workload.jobs[0]));
    }
    let measured: Vec<f64> = jobs.iter().map(|job| job.slowdown.expect("a slowdown")).collect();
    eprintln!(
        "slowdowns reader {:.3} writer {:.3}, fairness {:.3}",
        measured[0],
        measured[1],
        report.workload.fairness.unwrap()
    );
    for (measured, expected) in measured.iter().zip(&expected) {
        assert!(relative_error(*measured, *expected) < 1e-12, "{measured} vs {expected}");
    }
    assert!(measured[0] > 1.5, "the reader is slowed by the writer: {}", measured[0]);
    let fairness =
        expected.iter().copied().fold(f64::INFINITY, f64::min) / expected.iter().copied().fold(0.0, f64::max);
    assert!(relative_error(report.workload.fairness.unwrap(), fairness) < 1e-12);
}

#[test]
fn flow_errors_name_their_keys() {
    let load = |settings: &[&str]| {
        let overrides: Vec<_> = settings
            .iter()
            .map(|s| ssdtwin_core::Override::parse(s).unwrap())
            .collect();
        let source = ssdtwin_core::ScenarioSource::Text {
            toml: crate::BASE.to_string(),
            base_dir: std::path::PathBuf::from("."),
        };
        ssdtwin_core::load(&source, &overrides).unwrap_err()
    };
    let error = load(&["workload.flows=[{}, {priority = \"high\"}]"]);
    assert_eq!(error.key, "workload.flows[1].priority");
    assert!(error.message.contains("weighted_round_robin"), "{error}");
    let error = load(&["workload.flows=[{}, {priority = \"top\"}]"]);
    assert!(error.key.starts_with("workload.flows"), "{error}");
    assert!(error.message.contains("urgent"), "lists the classes: {error}");
    let error = load(&["host.weight_low=0"]);
    assert_eq!(error.key, "host.weight_low");
    let error = load(&["host.arbitration_burst=3"]);
    assert_eq!(error.key, "host.arbitration_burst");
    let error = load(&["workload.flows=[{}, {read_fraction = 1.5}]"]);
    assert_eq!(error.key, "workload.flows[1].read_fraction");
    let error = load(&["workload.flows=[{}, {span = 0.0}]"]);
    assert_eq!(error.key, "workload.flows[1].span");
    let error = load(&["report.flow_slowdown=true"]);
    assert_eq!(error.key, "report.flow_slowdown");
}
