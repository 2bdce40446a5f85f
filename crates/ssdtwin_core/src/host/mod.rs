//! The host and its PCIe link.
//!
//! Closed loop: keep `queue_depth` commands in flight, a completion triggering the next
//! submission. Open loop: commands arrive at `arrival_rate`, evenly spaced, and wait in the host
//! while `queue_depth` are in flight. Either way, two submissions are at least
//! `submission_interval` apart (the command-submission-time throttle of the self-heating paper).
//! The link moves payloads at the PCIe rate, one direction independent of the other.

pub mod command;
pub mod params;
pub mod submission;

use std::collections::VecDeque;

use crate::base::time::{Duration, Time};
use command::{CommandSpec, Job};
use params::{HostConfig, HostMode};

/// PCIe payload efficiency: 256 B maximum payload per TLP with about 24 B of header, sequence
/// number, LCRC and framing [A].
const TLP_EFFICIENCY: f64 = 256.0 / 280.0;

/// Usable bytes per second of one PCIe link direction.
pub fn pcie_bytes_per_second(generation: u8, lanes: u8) -> f64 {
    // Per-lane transfer rate [GT/s] and line-code efficiency (PCI-SIG base specifications).
    let (gigatransfers, encoding) = match generation {
        1 => (2.5, 8.0 / 10.0),
        2 => (5.0, 8.0 / 10.0),
        3 => (8.0, 128.0 / 130.0),
        4 => (16.0, 128.0 / 130.0),
        5 => (32.0, 128.0 / 130.0),
        _ => (64.0, 242.0 / 256.0),
    };
    gigatransfers * 1e9 * encoding / 8.0 * f64::from(lanes) * TLP_EFFICIENCY
}

/// The two directions of the link, each serving one payload at a time in request order.
#[derive(Debug, Clone)]
pub struct PcieLink {
    bytes_per_second: f64,
    to_device_free: Time,
    to_host_free: Time,
    /// The last payload size moved and its transfer time: commands are mostly of one size.
    last: (u64, Duration),
}

impl PcieLink {
    pub fn new(config: &HostConfig) -> PcieLink {
        PcieLink {
            bytes_per_second: pcie_bytes_per_second(config.pcie_generation, config.pcie_lanes),
            to_device_free: Time::ZERO,
            to_host_free: Time::ZERO,
            last: (0, Duration::ZERO),
        }
    }

    pub fn transfer_time(&self, bytes: u64) -> Duration {
        Duration::for_transfer(bytes, self.bytes_per_second)
    }

    /// [`Self::transfer_time`] of `bytes`, remembered for the next payload of the same size.
    #[inline]
    fn moved(&mut self, bytes: u64) -> Duration {
        if bytes != self.last.0 {
            self.last = (bytes, self.transfer_time(bytes));
        }
        self.last.1
    }

    /// Moves a write payload requested at `now`; returns when it has arrived.
    pub fn to_device(&mut self, now: Time, bytes: u64) -> Time {
        self.to_device_free = self.to_device_free.max(now) + self.moved(bytes);
        self.to_device_free
    }

    /// Moves read data requested at `now`; returns when it has arrived at the host.
    pub fn to_host(&mut self, now: Time, bytes: u64) -> Time {
        self.to_host_free = self.to_host_free.max(now) + self.moved(bytes);
        self.to_host_free
    }
}

/// The host's side of the queueing: what is in flight, what waits, when it may submit.
#[derive(Debug)]
pub struct Host {
    pub queue_depth: u32,
    pub mode: HostMode,
    pub submission_interval: Duration,
    pub command_overhead: Duration,
    /// `host.command_overhead` as configured (throttling stretches it with the controller's
    /// clock).
    pub configured_overhead: Duration,
    /// Thermal throttling's command submission time: each command waits this long from the
    /// moment its queue slot is free (zero: off).
    pub cst: Duration,
    /// With a CST: when each free queue slot may submit again, earliest first.
    pub cst_ready: VecDeque<Time>,
    /// Gap between open-loop arrivals.
    pub arrival_gap: Duration,
    /// Commands submitted and not completed.
    pub outstanding: u32,
    /// Open-loop arrivals waiting for a queue slot.
    pub backlog: VecDeque<Pending>,
    /// A `HostArrival` event is scheduled.
    pub arrival_pending: bool,
    /// Closed-loop jobs: each keeps its own queue depth of commands in flight.
    pub jobs: Vec<JobSlot>,
    /// Job asked first at the next closed-loop submission (round robin).
    pub next_job: usize,
    pub last_submission: Option<Time>,
    /// A `HostSubmit` event is scheduled.
    pub wakeup_pending: bool,
    /// Commands generated so far.
    pub issued: u64,
    /// Commands to generate (0: no bound on the count).
    pub io_count: u64,
    /// No command is generated from this instant on (`Time::MAX`: no bound on time). With both
    /// bounds, the first reached ends the run.
    pub stop_at: Time,
    /// Commands completed so far.
    pub completed: u64,
    /// The warm-up (`workload.warmup`) ends when this many commands have completed (`u64::MAX`:
    /// no warm-up of commands): the host schedules `Event::WarmupEnd`.
    pub warmup_commands: u64,
    /// The source is timed: every request carries its arrival time.
    pub timed: bool,
    /// The next timed arrival, drawn from the source when its `HostArrival` was scheduled.
    pub next_arrival: Option<Pending>,
    /// A workload input error (malformed trace line) that ends the run.
    pub workload_error: Option<String>,
    /// No submission before this instant (a power cut: the drive is down until it has restarted).
    pub paused_until: Time,
    pub link: PcieLink,
    /// Live sessions (`sim/live.rs`): the submissions and completions, in the order they happen,
    /// for the caller to match with its requests; `None` in runs.
    pub live: Option<Vec<LiveEvent>>,
}

/// What a live session's caller learns about its commands, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveEvent {
    /// The oldest waiting live command was submitted as controller command `command`.
    Submitted { command: u32 },
    /// Command `command` completed at the host at `at`.
    Completed { command: u32, at: Time },
}

impl Host {
    pub fn new(config: &HostConfig, io_count: u64, duration: Duration) -> Host {
        Host {
            queue_depth: config.queue_depth,
            mode: config.mode,
            submission_interval: config.submission_interval,
            command_overhead: config.command_overhead,
            configured_overhead: config.command_overhead,
            cst: Duration::ZERO,
            cst_ready: VecDeque::new(),
            arrival_gap: Duration::from_secs_f64(1.0 / config.arrival_rate),
            outstanding: 0,
            backlog: VecDeque::new(),
            arrival_pending: false,
            jobs: vec![JobSlot {
                queue_depth: config.queue_depth,
                outstanding: 0,
                done: false,
            }],
            next_job: 0,
            last_submission: None,
            paused_until: Time::ZERO,
            wakeup_pending: false,
            issued: 0,
            io_count,
            stop_at: if duration > Duration::ZERO {
                Time::ZERO + duration
            } else {
                Time::MAX
            },
            completed: 0,
            warmup_commands: u64::MAX,
            timed: false,
            next_arrival: None,
            workload_error: None,
            link: PcieLink::new(config),
            live: None,
        }
    }

    /// Whether the workload has more commands to generate at `now`: below `io_count` (when
    /// set) and before `stop_at`.
    pub fn more_to_issue(&self, now: Time) -> bool {
        (self.io_count == 0 || self.issued < self.io_count) && now < self.stop_at
    }

    /// Replaces the single host-wide job by the workload's jobs.
    pub fn set_jobs(&mut self, jobs: &[Job]) {
        self.jobs = jobs
            .iter()
            .map(|job| JobSlot {
                queue_depth: job.queue_depth,
                outstanding: 0,
                done: false,
            })
            .collect();
    }

    /// A closed-loop job that may submit now (round robin among them), if any; a job whose next
    /// command must wait for its commands in flight (`quiesce`) waits until it has none.
    pub fn ready_job(&mut self, mut quiesce: impl FnMut(u32) -> bool) -> Option<u32> {
        // Wrapped by a compare rather than a division: this runs at every submission.
        let count = self.jobs.len();
        let mut index = if self.next_job < count {
            self.next_job
        } else {
            self.next_job % count.max(1)
        };
        for _ in 0..count {
            let job = &self.jobs[index];
            let next = if index + 1 == count { 0 } else { index + 1 };
            if !job.done && job.outstanding < job.queue_depth && (job.outstanding == 0 || !quiesce(index as u32)) {
                self.next_job = next;
                return Some(index as u32);
            }
            index = next;
        }
        None
    }

    /// Earliest instant the submission gap allows the next submission.
    pub fn next_allowed(&self) -> Time {
        let gap = match self.last_submission {
            Some(last) => last + self.submission_interval,
            None => Time::ZERO,
        };
        gap.max(self.paused_until)
    }
}

/// A command that arrived at the host and waits for a queue slot.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub arrival: Time,
    pub command: CommandSpec,
    pub job: u32,
}

/// A closed-loop job's share of the host queue.
#[derive(Clone, Copy, Debug)]
pub struct JobSlot {
    pub queue_depth: u32,
    pub outstanding: u32,
    /// The job has no more commands.
    pub done: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcie_rates_follow_generation_and_lanes() {
        // Gen3 x4: 8 GT/s x 128/130 / 8 x 4 = 3.94 GB/s before TLP overhead.
        let gen3x4 = pcie_bytes_per_second(3, 4);
        assert!((gen3x4 - 3.938e9 * TLP_EFFICIENCY).abs() < 1e7, "{gen3x4}");
        let gen2x4 = pcie_bytes_per_second(2, 4);
        assert!((gen2x4 - 2.0e9 * TLP_EFFICIENCY).abs() < 1e6, "{gen2x4}");
        assert!((pcie_bytes_per_second(3, 8) / gen3x4 - 2.0).abs() < 1e-12);
    }

    #[test]
    fn ready_job_takes_turns_over_jobs_with_room_skipping_full_done_and_quiescing_ones() {
        let mut host = Host::new(&HostConfig::default(), 0, Duration::ZERO);
        let slot = |queue_depth, outstanding, done| JobSlot {
            queue_depth,
            outstanding,
            done,
        };
        // Job 1 is full, job 2 is done: the turns go 0, 3, 0, 3.
        host.jobs = vec![
            slot(2, 0, false),
            slot(1, 1, false),
            slot(4, 0, true),
            slot(3, 0, false),
        ];
        let turns: Vec<_> = (0..4).map(|_| host.ready_job(|_| false)).collect();
        assert_eq!(turns, [Some(0), Some(3), Some(0), Some(3)]);
        // A turn index past the jobs (after the jobs were replaced) wraps: 9 of 4 is job 1.
        host.next_job = 9;
        assert_eq!(host.ready_job(|_| false), Some(3), "jobs 1 and 2 cannot submit");
        // A job whose next command must wait for its commands in flight is skipped.
        host.jobs[0].outstanding = 1;
        host.next_job = 0;
        assert_eq!(host.ready_job(|job| job == 0), Some(3));
        host.jobs[3].outstanding = 3;
        assert_eq!(host.ready_job(|job| job == 0), None, "no job may submit");
    }

    #[test]
    fn link_directions_are_independent() {
        let mut link = PcieLink::new(&HostConfig::default());
        let write_done = link.to_device(Time::ZERO, 1 << 20);
        let read_done = link.to_host(Time::ZERO, 4096);
        assert!(read_done < write_done, "a read does not wait for a write payload");
    }
}
