//! The run's host-side measurements, as an observer of host completions: per-job latency
//! histograms and counters, commands and bytes completed, and the instant of the last completion
//! (the end of the measured run).

use super::jobs::JobMetrics;
use crate::base::time::Time;
use crate::observe::StateChange;

#[derive(Debug)]
pub struct RunMetrics {
    /// One per workload job, in job order.
    pub jobs: Vec<JobMetrics>,
    pub completed: u64,
    pub bytes_moved: u64,
    pub last_completion: Time,
    /// Commands completed with an error status.
    pub errors: u64,
}

impl RunMetrics {
    pub fn new(jobs: Vec<JobMetrics>) -> RunMetrics {
        RunMetrics {
            jobs,
            completed: 0,
            bytes_moved: 0,
            last_completion: Time::ZERO,
            errors: 0,
        }
    }

    /// Records a host completion; other changes are not this observer's.
    #[inline(always)]
    pub fn observe(&mut self, now: Time, change: &StateChange) {
        if let StateChange::HostCompletion {
            job,
            is_read,
            latency,
            service,
            bytes,
            error,
        } = *change
        {
            self.errors += u64::from(error);
            self.jobs[job as usize].record(is_read, latency, service, bytes, now);
            self.completed += 1;
            self.bytes_moved += bytes;
            self.last_completion = now;
        }
    }
}
