//! Slowdown and fairness of flows (`report.flow_slowdown`; docs/guide/workloads.md, "Flows"), as
//! MQSim defines them (Tavakkol et al., FAST 2018, section 2): the slowdown of a flow is its mean
//! response time when the flows share the drive over its mean response time when it runs alone,
//! S_i = RT_shared / RT_alone; the fairness of the run is F = min_i S_i / max_i S_i (1: every flow
//! suffers alike; near 0: one flow pays for the others).
//!
//! Each alone run is the scenario with that one flow: the same seed and drive keys, so the same
//! preconditioned drive (preconditioning is deterministic), the same arbitration (a single queue
//! is never arbitrated), and as many commands as the flow completed when shared (or the same
//! `workload.duration` when the shared run ended by time; a flow with an `io_count` of its own
//! issues that count). An fio job file's jobs are its flows: each alone run is the file with
//! that one job (`workload.fio.only_job`), which ends where the job says. The alone runs start
//! from the shared run's preconditioned drive, kept in memory as a snapshot's FTL state
//! (`Simulation::drive_state`), instead of preconditioning it again.

use super::report::Report;
use super::scenario::Scenario;
use super::{Progress, RunError, Simulation};
use crate::metrics::jobs::JobReport;

/// Mean latency of all the job's commands [ns]; `None` when it completed none.
fn mean_latency_ns(job: &JobReport) -> Option<f64> {
    let directions = [&job.read, &job.write, &job.trim, &job.flush];
    let count: u64 = directions.iter().map(|d| d.lat_ns.count).sum();
    let total: f64 = directions.iter().map(|d| d.lat_ns.mean * d.lat_ns.count as f64).sum();
    (count > 0).then(|| total / count as f64)
}

/// Commands the job completed in the measured run.
fn commands(job: &JobReport) -> u64 {
    job.read.total_ios + job.write.total_ios + job.trim.total_ios + job.flush.total_ios
}

/// Whether the run of `scenario`, whose host has `jobs` jobs (flows or fio jobs), will run its
/// flows alone: `report.flow_slowdown` with two or more (one job has no slowdown to measure, and
/// its run keeps no copy of the drive's state).
pub(super) fn wanted(scenario: &Scenario, jobs: usize) -> bool {
    scenario.report.flow_slowdown && jobs >= 2
}

/// Runs each flow of `scenario` alone, from `drive` (the preconditioned drive's FTL state; `None`:
/// precondition each alone run afresh), and sets every job's `slowdown` and the run's `fairness`.
pub(super) fn add_slowdowns(
    scenario: &Scenario,
    drive: Option<&[u8]>,
    report: &mut Report,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(), RunError> {
    let fio = scenario.workload.kind == crate::workload::params::WorkloadKind::Fio;
    let count = if fio {
        report.workload.jobs.len()
    } else {
        scenario.workload.flows.len()
    };
    if count < 2 {
        return Ok(());
    }
    let mut slowdowns = Vec::new();
    for index in 0..count {
        let shared = &report.workload.jobs[index];
        let mut alone = scenario.clone();
        alone.report.flow_slowdown = false;
        if fio {
            alone.workload.fio.only_job = Some(index as u32);
        } else {
            let flow = &scenario.workload.flows[index];
            let mut only = flow.clone();
            only.name = Some(flow.name(index));
            alone.workload.flows = vec![only];
            if scenario.workload.io_count > 0 && flow.io_count.is_none() {
                alone.workload.io_count = commands(shared).max(1);
                alone.workload.duration = crate::base::time::Duration::ZERO;
            }
        }
        let mut simulation = Simulation::new(&alone)?;
        if let Some(state) = drive {
            simulation.load_drive_state(state)?;
        }
        let alone_report = simulation.run(progress)?;
        let slowdown = match (mean_latency_ns(shared), mean_latency_ns(&alone_report.workload.jobs[0])) {
            (Some(shared), Some(alone)) if alone > 0.0 => Some(shared / alone),
            _ => None,
        };
        report.workload.jobs[index].slowdown = slowdown;
        slowdowns.extend(slowdown);
    }
    if slowdowns.len() == count {
        let min = slowdowns.iter().copied().fold(f64::INFINITY, f64::min);
        let max = slowdowns.iter().copied().fold(0.0, f64::max);
        report.workload.fairness = Some(min / max);
    }
    Ok(())
}
