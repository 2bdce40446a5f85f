//! The run's host-side measurements, as an observer of host completions: per-job latency
//! histograms and counters, commands and bytes completed, IOPS per window, and the instant of the
//! last completion (the end of the run). Completions of the warm-up (`workload.warmup`) are
//! counted apart and measured in nothing else.

use super::jobs::{IoKind, JobMetrics};
use super::steady::Windows;
use crate::base::time::{Duration, Time};
use crate::observe::StateChange;

#[derive(Debug)]
pub struct RunMetrics {
    /// One per workload job, in job order.
    pub jobs: Vec<JobMetrics>,
    /// Commands completed in the measured run.
    pub completed: u64,
    pub bytes_moved: u64,
    pub last_completion: Time,
    /// Commands of the measured run completed with an error status.
    pub errors: u64,
    /// Completions are measured (the warm-up is over, or there is none).
    pub measuring: bool,
    /// Start of the measured run (the end of the warm-up; time 0 without one).
    pub start: Time,
    /// Commands completed during the warm-up.
    pub warmup_completed: u64,
    /// Completions per window of the measured run (`metrics/steady.rs`).
    pub windows: Windows,
}

impl RunMetrics {
    /// Metrics of `jobs`, windows of `window` (`report.steady_window`); measuring from time 0
    /// unless `warmup`.
    pub fn new(jobs: Vec<JobMetrics>, window: Duration, warmup: bool) -> RunMetrics {
        let mut windows = Windows::new(window);
        if !warmup {
            windows.start(Time::ZERO);
        }
        RunMetrics {
            jobs,
            completed: 0,
            bytes_moved: 0,
            last_completion: Time::ZERO,
            errors: 0,
            measuring: !warmup,
            start: Time::ZERO,
            warmup_completed: 0,
            windows,
        }
    }

    /// The warm-up ends: completions from `at` on are measured.
    pub fn start_measuring(&mut self, at: Time) {
        self.measuring = true;
        self.start = at;
        self.windows.start(at);
        for job in &mut self.jobs {
            job.start_at(at);
        }
    }

    /// Length of the measured run (start to last completion) [s].
    pub fn measured_seconds(&self) -> f64 {
        if self.last_completion > self.start {
            self.last_completion.since(self.start).as_secs_f64()
        } else {
            0.0
        }
    }

    /// Records a host completion; other changes are not this observer's.
    #[inline(always)]
    pub fn observe(&mut self, now: Time, change: &StateChange) {
        if let StateChange::HostCompletion {
            job,
            is_read,
            trim,
            flush,
            latency,
            service,
            bytes,
            error,
            zone_action,
        } = *change
        {
            self.last_completion = now;
            if !self.measuring {
                self.warmup_completed += 1;
                return;
            }
            self.errors += u64::from(error);
            if zone_action {
                // Zone Management Send: counted in the report's `zns` block, not an I/O.
                return;
            }
            self.jobs[job as usize].record(IoKind::of(is_read, trim, flush), latency, service, bytes, now);
            if flush {
                // As fio: a sync has its own latencies (the job's `flush`), not an I/O of the IOPS.
                return;
            }
            // A trim names a range but moves no data.
            let moved = if trim { 0 } else { bytes };
            self.windows.record(now, moved);
            self.completed += 1;
            self.bytes_moved += moved;
        }
    }
}
