//! Live sessions: a drive driven by commands handed in while it runs, as an NBD server's requests.
//!
//! The drive is built and preconditioned as for a run, but its workload is
//! [`Source::External`](crate::workload::Source::External): the caller submits each command with
//! its simulated arrival time and a tag of its own, advances the simulation, and collects the
//! completions with their simulated completion times. Nothing here reads a clock or a socket: the
//! caller decides when commands arrive (the NBD server stamps them with the simulated time, or
//! with the wall time since the session began). [`LiveSimulation::finish`] gives the same
//! [`Report`] as a run.
//!
//! The host keeps a log of its live commands (`Host::live`, in submission and completion order);
//! the session matches it to the tags: commands wait in the host's backlog in arrival order and
//! leave it in that order, so the n-th submission is the n-th waiting tag.
//!
//! Submission queues: [`LiveSimulation::open_queue`] gives a caller (an NBD connection) a queue
//! of its own with a priority class; commands handed in with [`LiveSimulation::submit_to`] carry
//! it. One queue is the single host queue of a run; from the second on, the controller takes
//! commands from the queues by `host.arbitration` as it does from flows
//! (`controller/arbitration.rs`), the host keeps up to `host.queue_depth` commands in the drive
//! per queue (beyond that total they wait in the host in arrival order), and each queue is a job
//! of the report (`sq0`, `sq1`, ...). A closed queue is reused by the next queue opened with its
//! class, so the report has one job per queue open at once, not one per caller ever seen.

use std::collections::VecDeque;

use super::{Progress, RunError, Simulation};
use crate::base::time::Time;
use crate::controller::arbitration::{Arbiter, Priority};
use crate::host::command::CommandSpec;
use crate::host::{JobSlot, LiveEvent};
use crate::metrics::jobs::JobMetrics;
use crate::observe::Context;
use crate::sim::report::Report;
use crate::sim::scenario::Scenario;

/// A command of the caller's completed at the host at simulated time `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveCompletion {
    pub tag: u64,
    pub at: Time,
}

/// A drive under commands handed in from outside; see the module documentation.
#[derive(Debug)]
pub struct LiveSimulation {
    simulation: Simulation,
    started: std::time::Instant,
    precondition_wall: std::time::Duration,
    /// Tags of the commands in the host's backlog, in arrival order.
    waiting: VecDeque<u64>,
    /// Tag of each controller command in flight, by command id.
    tags: Vec<u64>,
    completions: Vec<LiveCompletion>,
    /// Commands handed in and not completed.
    outstanding: u64,
    /// The submission queues opened ([`LiveSimulation::open_queue`]): class and whether in use.
    queues: Vec<(Priority, bool)>,
}

/// Name of submission queue `index` in the report's jobs.
fn queue_name(index: usize) -> String {
    format!("sq{index}")
}

impl LiveSimulation {
    /// Builds the drive of `scenario` (its `[workload]` keys other than preconditioning and span
    /// are not used), preconditions it as `workload.precondition` asks, and starts it at time 0.
    pub fn new(scenario: &Scenario, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<LiveSimulation, RunError> {
        let started = std::time::Instant::now();
        let mut simulation = Simulation::assemble(scenario, true)?;
        simulation.precondition(progress)?;
        let precondition_wall = started.elapsed();
        simulation.start_thermal();
        let mut cx = Context {
            now: simulation.now,
            events: &mut simulation.events,
            observers: &mut simulation.observers,
        };
        simulation
            .host
            .start(&mut simulation.controller, &mut simulation.workload, &mut cx);
        Ok(LiveSimulation {
            simulation,
            started,
            precondition_wall,
            waiting: VecDeque::new(),
            tags: Vec::new(),
            completions: Vec::new(),
            outstanding: 0,
            queues: Vec::new(),
        })
    }

    /// Opens a submission queue of class `priority` and returns it (see the module
    /// documentation): a closed queue of the same class if there is one, else a new one; the
    /// second queue brings in the arbiter.
    pub fn open_queue(&mut self, priority: Priority) -> u32 {
        if let Some(index) = self.queues.iter().position(|&(class, open)| !open && class == priority) {
            self.queues[index].1 = true;
            return index as u32;
        }
        let index = self.queues.len();
        self.queues.push((priority, true));
        let simulation = &mut self.simulation;
        let metrics = &mut simulation.observers.metrics;
        if index == 0 {
            // The host's one queue of a live session becomes the first submission queue.
            metrics.jobs[0].rename(&queue_name(0));
            return 0;
        }
        let config = &simulation.scenario.host;
        let host = &mut simulation.host;
        host.jobs.push(JobSlot {
            queue_depth: config.queue_depth,
            outstanding: 0,
            done: false,
        });
        host.queue_depth = host.queue_depth.saturating_add(config.queue_depth);
        let mut job = JobMetrics::new(&queue_name(index), config.queue_depth);
        job.start_at(metrics.start);
        metrics.jobs.push(job);
        match simulation.controller.arbiter.as_deref_mut() {
            Some(arbiter) => {
                arbiter.add_queue(priority);
            }
            None => {
                let classes: Vec<Priority> = self.queues.iter().map(|&(class, _)| class).collect();
                simulation.controller.arbiter = Some(Box::new(Arbiter::new(
                    config.arbitration,
                    config.arbitration_burst,
                    [config.weight_high, config.weight_medium, config.weight_low],
                    &classes,
                )));
            }
        }
        for (job, &(class, _)) in metrics.jobs.iter_mut().zip(&self.queues) {
            job.priority = Some(class.name());
        }
        index as u32
    }

    /// The caller of submission queue `queue` is gone: the queue may serve the next caller of
    /// its class (its commands in flight still complete).
    pub fn close_queue(&mut self, queue: u32) {
        if let Some(entry) = self.queues.get_mut(queue as usize) {
            entry.1 = false;
        }
    }

    /// The simulated time reached.
    pub fn now(&self) -> Time {
        self.simulation.now
    }

    /// Bytes of one mapping unit, the unit of [`CommandSpec`].
    pub fn unit_bytes(&self) -> u64 {
        self.simulation.controller.geometry.unit_bytes
    }

    /// The drive's logical capacity [bytes].
    pub fn capacity_bytes(&self) -> u64 {
        u64::from(self.simulation.controller.ftl.logical_units()) * self.unit_bytes()
    }

    /// The FTL (per-plane free blocks for studies of GC over time, `examples/gc_lockstep.rs`).
    pub fn ftl(&self) -> &crate::ftl::Ftl {
        &self.simulation.controller.ftl
    }

    /// Whether a power cut can lose acknowledged writes: the power-loss protection does not
    /// cover every volatile write the drive may hold (an NBD server then keeps the durable
    /// versions of the units written).
    pub fn writes_at_risk(&self) -> bool {
        !self.simulation.controller.durability.protected
    }

    /// Whether the latest write of `logical` handed to the drive is acknowledged but not yet
    /// programmed (held in the write buffer or in a program not done; without a buffer, mapped to
    /// a unit not yet programmed).
    pub fn is_volatile(&self, logical: u32) -> bool {
        self.simulation.controller.is_volatile(logical)
    }

    /// Commands handed in and not yet completed.
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// Simulated time of the next pending event, if any.
    pub fn next_event_time(&self) -> Option<Time> {
        self.simulation.events.peek_time()
    }

    /// Hands in `command` arriving at `at` (at the earliest the time reached: the simulation
    /// first handles every event up to `at`); its completion will carry `tag`.
    pub fn submit(&mut self, at: Time, command: CommandSpec, tag: u64) {
        self.submit_to(0, at, command, tag);
    }

    /// As [`LiveSimulation::submit`], on submission queue `queue` (from
    /// [`LiveSimulation::open_queue`]; 0 without one).
    pub fn submit_to(&mut self, queue: u32, at: Time, command: CommandSpec, tag: u64) {
        assert!(
            (queue as usize) < self.simulation.host.jobs.len(),
            "submission queue {queue} was not opened"
        );
        self.advance_to(at);
        let simulation = &mut self.simulation;
        simulation.now = simulation.now.max(at);
        self.waiting.push_back(tag);
        self.outstanding += 1;
        let mut cx = Context {
            now: simulation.now,
            events: &mut simulation.events,
            observers: &mut simulation.observers,
        };
        simulation.host.on_live_arrival(
            command,
            queue,
            &mut simulation.controller,
            &mut simulation.workload,
            &mut cx,
        );
        self.collect();
    }

    /// Handles every event up to and including `until`.
    pub fn advance_to(&mut self, until: Time) {
        while let Some(time) = self.simulation.events.peek_time() {
            if time > until {
                break;
            }
            self.handle_next();
        }
    }

    /// Handles events until at least one command has completed, and every other event of that
    /// instant. `Ok(false)`: nothing was pending. A drive with commands in flight and no event
    /// left has stopped making progress: [`RunError::Stalled`].
    pub fn step(&mut self) -> Result<bool, RunError> {
        let before = self.completions.len();
        loop {
            let Some(time) = self.simulation.events.peek_time() else {
                if self.outstanding > 0 && self.completions.len() == before {
                    return Err(RunError::Stalled(format!(
                        "the drive stopped making progress at {} with {} commands in flight: {}",
                        self.simulation.now,
                        self.outstanding,
                        self.simulation.controller.stall_cause()
                    )));
                }
                return Ok(self.completions.len() > before);
            };
            if self.completions.len() > before && time > self.simulation.now {
                return Ok(true);
            }
            if self.outstanding == 0 && self.completions.len() == before {
                // Only background events (thermal steps) remain: nothing to wait for.
                return Ok(false);
            }
            self.handle_next();
        }
    }

    /// The power fails now ([`Simulation::power_loss`]): the acknowledged writes the power-loss
    /// protection cannot save are lost (listed in the event), the host pauses until the drive has
    /// restarted. Commands in flight still complete.
    pub fn power_loss(&mut self) -> crate::sim::plp_model::PowerLossEvent {
        let event = self.simulation.power_loss();
        self.simulation.power_losses.push(event.clone());
        event
    }

    /// Moves the completions collected so far to the end of `into`.
    pub fn take_completions(&mut self, into: &mut Vec<LiveCompletion>) {
        into.append(&mut self.completions);
    }

    /// Ends the session: the report of everything completed (same schema as a run's).
    pub fn finish(mut self) -> Report {
        let simulation = &mut self.simulation;
        let end = simulation.observers.metrics.last_completion;
        let thermal = simulation.finish_thermal(end);
        let power = simulation.observers.power.finish(end);
        simulation.report(self.started.elapsed(), self.precondition_wall, power, thermal, None)
    }

    fn handle_next(&mut self) {
        let simulation = &mut self.simulation;
        if let Some((time, event)) = simulation.events.pop() {
            simulation.now = time;
            simulation.events_handled += 1;
            simulation.dispatch(event);
            self.collect();
        }
    }

    /// Matches the host's log of live commands with the tags.
    fn collect(&mut self) {
        let Some(log) = self.simulation.host.live.as_mut() else {
            return;
        };
        for entry in log.drain(..) {
            match entry {
                LiveEvent::Submitted { command } => {
                    let tag = self.waiting.pop_front().expect("each submission had a waiting command");
                    let index = command as usize;
                    if index >= self.tags.len() {
                        self.tags.resize(index + 1, 0);
                    }
                    self.tags[index] = tag;
                }
                LiveEvent::Completed { command, at } => {
                    self.outstanding -= 1;
                    self.completions.push(LiveCompletion {
                        tag: self.tags[command as usize],
                        at,
                    });
                }
            }
        }
    }
}
