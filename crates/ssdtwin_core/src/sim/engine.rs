//! The event loop: pops events in `(time, sequence)` order and hands each to the component that
//! owns it, then passes the state changes it reported to the observers.
//!
//! Components never call each other through the loop: the host calls the controller it submits
//! to, the controller the FTL and flash it drives. The loop only routes the three things that go
//! up a layer: a read command whose data is complete (controller → host), the observers' stream,
//! and the end of the run.

use std::time::Instant;

use super::observers::Observers;
use super::{Progress, RunError, Simulation};
use crate::base::error::ConfigError;
use crate::base::event::Event;
use crate::base::time::Time;
use crate::controller::ops::ProbeAction;
use crate::controller::Controller;
use crate::host::Host;
use crate::observe::Context;
use crate::workload::Source;

/// Events between two looks at the wall clock for progress reports.
const PROGRESS_EVENT_STRIDE: u64 = 1 << 14;
/// Wall time between two progress reports.
const PROGRESS_WALL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

impl Simulation {
    /// Runs the workload from the current drive state until the host is done.
    pub(super) fn run_workload(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<(), RunError> {
        // Throttling limits from the starting temperatures apply to the first submission.
        self.start_thermal();
        // The SLC cache's size at the start: after preconditioning, whose data shrinks it.
        self.controller.slc_start();
        // Preconditioning or a loaded drive state may have changed the FTL since the last run.
        self.controller.forget_blocked_read();
        self.schedule_power_losses();
        self.prepare_warmup();
        let mut cx = Context {
            now: self.now,
            events: &mut self.events,
            observers: &mut self.observers,
        };
        self.host.start(&mut self.controller, &mut self.workload, &mut cx);
        let mut last_report = Instant::now();
        loop {
            match self.run_events() {
                Pause::Empty => break,
                Pause::Whole(event) => self.handle_whole(event),
                Pause::Look => {}
            }
            self.check_workload()?;
            if self.host.idle() {
                break;
            }
            if self.events_handled.is_multiple_of(PROGRESS_EVENT_STRIDE)
                && last_report.elapsed() >= PROGRESS_WALL_INTERVAL
            {
                last_report = Instant::now();
                if !progress(&self.progress()) {
                    return Err(RunError::Interrupted);
                }
            }
        }
        self.check_workload()?;
        if self.host.outstanding > 0 {
            return Err(RunError::Stalled(format!(
                "the drive stopped making progress at {} with {} commands in flight: {}",
                self.now,
                self.host.outstanding,
                self.controller.stall_cause()
            )));
        }
        progress(&self.progress());
        Ok(())
    }

    /// Pops and handles events until one acts on the whole simulation or the run's loop has to
    /// look (see [`Pause`]). The parts the handlers take are borrowed once for the stretch, not
    /// once per event, and the time and the count of events are written back when it ends.
    #[inline(always)]
    fn run_events(&mut self) -> Pause {
        let Simulation {
            now,
            events,
            workload,
            host,
            controller,
            observers,
            events_handled,
            probes,
            ..
        } = self;
        let mut cx = Context {
            now: *now,
            events,
            observers,
        };
        let mut handled = *events_handled;
        let pause = loop {
            let Some(next) = cx.events.next_source() else {
                break Pause::Empty;
            };
            let (time, event) = cx.events.take(next);
            cx.now = time;
            handled += 1;
            if let Some(whole) = handle(event, host, controller, workload, probes, &mut cx) {
                break Pause::Whole(whole);
            }
            if host.workload_error.is_some() || host.idle() || handled.is_multiple_of(PROGRESS_EVENT_STRIDE) {
                break Pause::Look;
            }
        };
        *now = cx.now;
        *events_handled = handled;
        pause
    }

    /// Hands `event` to its owner, as the run's loop does: for the loops that pop one event at a
    /// time (the harness, the drain, a live run).
    pub(super) fn dispatch(&mut self, event: Event) {
        let Simulation {
            now,
            events,
            workload,
            host,
            controller,
            observers,
            probes,
            ..
        } = self;
        let mut cx = Context {
            now: *now,
            events,
            observers,
        };
        if let Some(whole) = handle(event, host, controller, workload, probes, &mut cx) {
            self.handle_whole(whole);
        }
    }

    /// Handles one of the events that act on the whole simulation (see [`handle`]).
    fn handle_whole(&mut self, event: Event) {
        match event {
            // The thermal model's own event (`sim/thermal.rs`): it reads the power model and acts
            // on several components.
            Event::ThermalStep => self.on_thermal_step(),
            Event::WarmupEnd => self.start_measurement(self.now),
            _ => {
                let event = self.power_loss();
                self.power_losses.push(event);
            }
        }
    }

    /// Ends the run with the workload's input error (a malformed trace line), if there was one.
    #[inline(always)]
    fn check_workload(&mut self) -> Result<(), RunError> {
        if self.host.workload_error.is_none() {
            return Ok(());
        }
        self.workload_failed()
    }

    /// The error of [`Self::check_workload`], out of the loop's way.
    #[cold]
    #[inline(never)]
    fn workload_failed(&mut self) -> Result<(), RunError> {
        match self.host.workload_error.take() {
            None => Ok(()),
            Some(message) => {
                let key = match self.workload {
                    Source::Trace(_) => "workload.trace.path",
                    _ => "workload",
                };
                Err(RunError::Config(ConfigError::new(key, message)))
            }
        }
    }

    fn progress(&self) -> Progress {
        let completed = self.host.completed;
        let fraction = if let Some(fraction) = self.workload.progress(self.now) {
            fraction
        } else {
            // With both bounds, the one nearer its end.
            let by_count = if self.host.io_count > 0 {
                completed as f64 / self.host.io_count as f64
            } else {
                0.0
            };
            let by_time = if self.host.stop_at < Time::MAX {
                self.now.as_secs_f64() / self.host.stop_at.as_secs_f64().max(1e-12)
            } else {
                0.0
            };
            by_count.max(by_time)
        };
        Progress {
            phase: "run",
            fraction: fraction.min(1.0),
            host_ios: completed,
            simulated_time_s: self.now.as_secs_f64(),
        }
    }

    /// Runs harness operations (each on a die at a time) on an idle, empty drive until all
    /// complete; returns their completion times. The host submits nothing.
    pub fn run_probes(&mut self, probes: &[(Time, u32, crate::controller::ops::ProbeAction)]) -> Vec<Option<Time>> {
        self.probes = probes.iter().map(|&(_, die, action)| (die, action)).collect();
        for (index, &(at, _, _)) in probes.iter().enumerate() {
            self.events.schedule(at, Event::ProbeIssue { index: index as u32 });
        }
        while let Some((time, event)) = self.events.pop() {
            self.now = time;
            self.dispatch(event);
        }
        let mut done = std::mem::take(&mut self.controller.probe_done);
        done.resize(probes.len(), None);
        done
    }
}

/// Why [`Simulation::run_events`] handed control back to the run's loop.
enum Pause {
    /// No event is pending.
    Empty,
    /// An event that acts on the whole simulation (see [`handle`]), popped but not yet handled.
    Whole(Event),
    /// The host is idle, the workload failed, or the count of events reached a multiple of the
    /// progress stride: the run's loop looks at which.
    Look,
}

/// Hands `event` to its owner (which reports its state changes to the observers as they happen),
/// then routes completed reads to the host. Returns the events that act on the whole simulation
/// (the thermal step, a power loss, the end of the warm-up) unhandled, for the caller to handle
/// once these borrows end: they are rare, so they cost the common path nothing but their arm.
/// Inlined in the loops that pop events, so an event costs no call of its own.
#[inline(always)]
fn handle(
    event: Event,
    host: &mut Host,
    controller: &mut Controller,
    workload: &mut Source,
    probes: &[(u32, ProbeAction)],
    cx: &mut Context<'_, Observers>,
) -> Option<Event> {
    match event {
        Event::HostSubmit => host.on_submit_timer(controller, workload, cx),
        Event::HostArrival => host.on_arrival(controller, workload, cx),
        Event::CommandCompleted { command } => host.on_command_completed(command, controller, workload, cx),
        Event::CommandArrived { command } => controller.on_command_arrived(command, cx),
        Event::ReadSensed { die } => controller.on_read_sensed(die, cx),
        Event::DieDone { die } => controller.on_die_done(die, cx),
        Event::ArrayDone { die, generation } => controller.on_array_done(die, generation, cx),
        Event::SuspendEntered { die, generation } => controller.on_suspend_entered(die, generation, cx),
        Event::ChannelFree { channel } => controller.on_channel_free(channel, cx),
        Event::SlcIdle { generation } => controller.on_slc_idle(generation, cx),
        Event::BufferReadDone { transaction } => controller.on_buffer_read_done(transaction, cx),
        Event::ProbeIssue { index } => {
            let (die, action) = probes[index as usize];
            controller.issue_probe(index, die, action, cx);
        }
        Event::ThermalStep | Event::PowerLoss | Event::WarmupEnd => return Some(event),
    }
    if !controller.to_host.is_empty() {
        for index in 0..controller.to_host.len() {
            host.deliver(controller.to_host[index], controller, cx);
        }
        controller.to_host.clear();
    }
    None
}
