//! The host's side of a run: when it may submit, what it submits, and what it sees complete.
//!
//! Closed loop: each job keeps its own number of commands in flight and asks the workload for its
//! next command when it has room. Open loop and timed sources: arrivals join a backlog, submitted
//! as the queue depth allows. Either way no two submissions are closer than the submission
//! interval. A command crosses the PCIe link (writes with their payload) before the controller
//! sees it; a read's data crosses back before the host sees it complete.

use super::command::CommandSpec;
use super::params::HostMode;
use super::{Host, Pending};
use crate::base::event::Event;
use crate::base::time::Time;
use crate::controller::ops::Command;
use crate::controller::Controller;
use crate::observe::{Context, Observer, StateChange};

/// Where the host's commands come from: the workload (a layer above, which implements this).
pub trait CommandSource {
    /// The next command of `job` at `now`, with the job it belongs to and, for timed sources, its
    /// arrival time; `None` when the job (or the whole source) has no more. `Err` is an input
    /// error (a malformed trace line) that ends the run.
    fn next_command(&mut self, job: u32, now: Time) -> Result<Option<(CommandSpec, u32, Option<Time>)>, String>;

    /// Whether closed-loop `job`'s next command must wait until the job has nothing in flight
    /// (fio's `io_u_quiesce` before a zone reset with `zonemode=zbd`). Default: never.
    fn quiesce(&mut self, _job: u32, _now: Time) -> bool {
        false
    }

    /// Commands the source drew together with the one it just handed out, that one first (the
    /// host loads ahead what their reads will look up); empty when it drew none. Default: none.
    fn drawn_ahead(&self) -> &[CommandSpec] {
        &[]
    }
}

/// Appends to a live session's log; out of line, so runs pay one test per command.
#[cold]
#[inline(never)]
fn log_live(log: &mut Vec<super::LiveEvent>, event: super::LiveEvent) {
    log.push(event);
}

impl Host {
    /// Starts the run: the first arrival or the first submissions.
    pub fn start<O: Observer>(
        &mut self,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        if self.timed {
            self.schedule_next_arrival(source, cx);
        } else if self.mode == HostMode::Open {
            self.arrival_pending = true;
            cx.events.schedule(Time::ZERO, Event::HostArrival);
        }
        self.try_submit(controller, source, cx);
    }

    /// Nothing is in flight, waiting or due: the run is over.
    pub fn idle(&self) -> bool {
        self.outstanding == 0 && self.backlog.is_empty() && !self.arrival_pending && !self.wakeup_pending
    }

    /// The submission gap has passed.
    pub fn on_submit_timer<O: Observer>(
        &mut self,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        self.wakeup_pending = false;
        self.try_submit(controller, source, cx);
    }

    /// Thermal throttling: from now on at most `queue_depth` commands in flight, each command
    /// waiting `cst` (the command submission time) from the moment its queue slot is free, and
    /// the per-command firmware time stretched by `1 / clock` (the controller's power state).
    /// Submits what the new limits allow at once.
    pub fn apply_limits<O: Observer>(
        &mut self,
        (queue_depth, cst, clock): (u32, crate::base::time::Duration, f64),
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        if cst != self.cst {
            self.cst_ready.clear();
            if cst > crate::base::time::Duration::ZERO {
                // The slots free now wait the CST from now; the others from their completion.
                let free = queue_depth.saturating_sub(self.outstanding);
                self.cst_ready.extend((0..free).map(|_| cx.now + cst));
            }
            self.cst = cst;
        }
        self.queue_depth = queue_depth;
        self.command_overhead = self.configured_overhead.scaled(1.0 / clock);
        self.try_submit(controller, source, cx);
    }

    /// Submits what the host may submit now; schedules a wake-up for what it may submit later.
    #[inline(never)]
    fn try_submit<O: Observer>(
        &mut self,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        self.submit_ready(controller, source, cx);
    }

    /// [`Self::try_submit`], inlined at a completion (the closed loop's submission, once per
    /// command).
    #[inline(always)]
    fn submit_ready<O: Observer>(
        &mut self,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        loop {
            if self.outstanding >= self.queue_depth || self.workload_error.is_some() {
                return;
            }
            // Open loop and timed sources submit what has arrived; closed-loop jobs make their
            // next command when they have room.
            let job = if self.mode == HostMode::Open || self.timed {
                if self.backlog.is_empty() {
                    return;
                }
                None
            } else {
                if !self.more_to_issue(cx.now) {
                    return;
                }
                let now = cx.now;
                match self.ready_job(|job| source.quiesce(job, now)) {
                    Some(job) => Some(job),
                    None => return,
                }
            };
            let mut allowed = self.next_allowed();
            if self.cst > crate::base::time::Duration::ZERO {
                // Thermal CST: the command waits for its slot's turn.
                match self.cst_ready.front() {
                    Some(&ready) => allowed = allowed.max(ready),
                    None => return,
                }
            }
            if allowed > cx.now {
                if !self.wakeup_pending {
                    self.wakeup_pending = true;
                    cx.events.schedule(allowed, Event::HostSubmit);
                }
                return;
            }
            let pending = match job {
                None => self.backlog.pop_front().expect("checked above"),
                Some(job) => match source.next_command(job, cx.now) {
                    Ok(Some((command, _, _))) => {
                        self.issued += 1;
                        let drawn = source.drawn_ahead();
                        if !drawn.is_empty() {
                            let reads = drawn.iter().filter(|spec| spec.is_read);
                            controller.touch_reads(reads.map(|spec| spec.first_unit));
                        }
                        Pending {
                            arrival: cx.now,
                            command,
                            job,
                        }
                    }
                    Ok(None) => {
                        self.jobs[job as usize].done = true;
                        continue;
                    }
                    Err(message) => {
                        self.workload_error = Some(message);
                        continue;
                    }
                },
            };
            self.cst_ready.pop_front();
            self.submit_command(pending, controller, cx);
        }
    }

    /// An open-loop or timed arrival: it joins the host's backlog; the next one is scheduled.
    pub fn on_arrival<O: Observer>(
        &mut self,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        self.arrival_pending = false;
        if self.timed {
            if let Some(pending) = self.next_arrival.take() {
                self.backlog.push_back(pending);
                self.issued += 1;
            }
            self.schedule_next_arrival(source, cx);
        } else if self.more_to_issue(cx.now) {
            match source.next_command(0, cx.now) {
                Ok(Some((command, job, _))) => self.backlog.push_back(Pending {
                    arrival: cx.now,
                    command,
                    job,
                }),
                Ok(None) => {}
                Err(message) => self.workload_error = Some(message),
            }
            self.issued += 1;
            if self.more_to_issue(cx.now + self.arrival_gap) {
                self.arrival_pending = true;
                cx.events.schedule(cx.now + self.arrival_gap, Event::HostArrival);
            }
        }
        self.try_submit(controller, source, cx);
    }

    /// A live session's command of submission queue `job` arrives now (`sim/live.rs`): it joins
    /// the backlog and is submitted as the queue depth allows.
    pub fn on_live_arrival<O: Observer>(
        &mut self,
        command: CommandSpec,
        job: u32,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        self.backlog.push_back(Pending {
            arrival: cx.now,
            command,
            job,
        });
        self.issued += 1;
        self.try_submit(controller, source, cx);
    }

    /// Draws the next timed request and schedules its arrival (never before now).
    fn schedule_next_arrival<O: Observer>(&mut self, source: &mut impl CommandSource, cx: &mut Context<O>) {
        match source.next_command(0, cx.now) {
            Ok(Some((command, job, arrival))) => {
                let arrival = arrival.unwrap_or(cx.now).max(cx.now);
                if self.more_to_issue(arrival) {
                    self.next_arrival = Some(Pending { arrival, command, job });
                    self.arrival_pending = true;
                    cx.events.schedule(arrival, Event::HostArrival);
                }
            }
            Ok(None) => {}
            Err(message) => self.workload_error = Some(message),
        }
    }

    /// Inlined at its one call, in [`Self::submit_ready`].
    #[inline(always)]
    fn submit_command<O: Observer>(&mut self, pending: Pending, controller: &mut Controller, cx: &mut Context<O>) {
        let Pending {
            arrival,
            command: spec,
            job,
        } = pending;
        self.outstanding += 1;
        self.jobs[job as usize].outstanding += 1;
        self.last_submission = Some(cx.now);
        let command = controller.commands.insert(Command {
            arrival,
            submitted: cx.now,
            job,
            is_read: spec.is_read,
            trim: spec.trim,
            flush: spec.flush,
            fua: spec.fua && !spec.is_read && !spec.trim,
            first_unit: spec.first_unit,
            units: spec.units,
            head_gap: spec.head_gap,
            tail_gap: spec.tail_gap,
            placement: if spec.placement == 0 || spec.is_read || spec.trim || spec.flush {
                0
            } else {
                controller.ftl.check_placement(spec.placement)
            },
            remaining: spec.units,
            error: false,
            zone: spec.zone,
        });
        if let Some(log) = &mut self.live {
            log_live(log, super::LiveEvent::Submitted { command });
        }
        let fetched = cx.now + self.command_overhead;
        // Reads, trims and flushes carry no payload to the drive.
        let arrived = if spec.is_read || spec.trim || spec.flush {
            fetched
        } else {
            self.link.to_device(fetched, spec.bytes(controller.geometry.unit_bytes))
        };
        cx.events.schedule(arrived, Event::CommandArrived { command });
    }

    /// A read command's data is complete in the controller: it crosses the link to the host.
    #[inline]
    pub fn deliver<O: Observer>(&mut self, command: u32, controller: &Controller, cx: &mut Context<O>) {
        let bytes = controller.commands[command].bytes(controller.geometry.unit_bytes);
        let delivered = self.link.to_host(cx.now, bytes);
        cx.events.schedule(delivered, Event::CommandCompleted { command });
    }

    /// A command's completion reached the host.
    pub fn on_command_completed<O: Observer>(
        &mut self,
        command: u32,
        controller: &mut Controller,
        source: &mut impl CommandSource,
        cx: &mut Context<O>,
    ) {
        let done = controller.commands.remove(command);
        if let Some(log) = &mut self.live {
            log_live(log, super::LiveEvent::Completed { command, at: cx.now });
        }
        cx.push(StateChange::HostCompletion {
            job: done.job,
            is_read: done.is_read,
            trim: done.trim,
            flush: done.flush,
            latency: cx.now.since(done.arrival),
            service: cx.now.since(done.submitted),
            // A refused zoned write moved nothing.
            bytes: if done.error && !done.is_read {
                0
            } else {
                done.bytes(controller.geometry.unit_bytes)
            },
            error: done.error,
            zone_action: matches!(done.zone, crate::ftl::zoned::ZoneOp::Send(_)),
        });
        self.jobs[done.job as usize].outstanding -= 1;
        self.completed += 1;
        if self.completed == self.warmup_commands {
            cx.events.schedule(cx.now, Event::WarmupEnd);
        }
        self.outstanding -= 1;
        if self.cst > crate::base::time::Duration::ZERO && self.outstanding < self.queue_depth {
            // The freed slot may submit once the CST has passed.
            self.cst_ready.push_back(cx.now + self.cst);
        }
        self.submit_ready(controller, source, cx);
        if self.outstanding == 0 {
            // Nothing in the drive: its firmware may collect garbage in the background.
            controller.set_host_idle(true, cx);
        }
    }
}
