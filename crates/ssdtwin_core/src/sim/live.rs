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

use std::collections::VecDeque;

use super::{Progress, RunError, Simulation};
use crate::base::time::Time;
use crate::host::command::CommandSpec;
use crate::host::LiveEvent;
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
        })
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
        simulation
            .host
            .on_live_arrival(command, &mut simulation.controller, &mut simulation.workload, &mut cx);
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
                        "the drive stopped making progress at {} with {} commands in flight: GC found no block \
                         to reclaim; raise ftl.over_provisioning",
                        self.simulation.now, self.outstanding
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
