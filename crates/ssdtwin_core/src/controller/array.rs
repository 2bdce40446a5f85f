//! Array phases of programs and erases, and their suspension for host reads (`suspend.rs` has the
//! ISPP step arithmetic; the policy here: a host read waiting at a programming or erasing die
//! suspends it at the end of the running step, unless GC is urgent on that die).

use super::ops::OpKind;
use super::suspend::{ArrayKind, ArrayOp, ArrayState, SuspendLimits};
use super::Controller;
use crate::base::event::Event;
use crate::base::time::{Duration, Time};
use crate::ftl::Stream;
use crate::observe::{Context, Observer, StateChange};

impl Controller {
    /// A program or erase enters its array phase at `start` for `length` (without suspensions).
    pub(super) fn begin_array<O: Observer>(
        &mut self,
        die: u32,
        op: u32,
        kind: ArrayKind,
        start: Time,
        length: Duration,
        cx: &mut Context<O>,
    ) {
        let limits = SuspendLimits::for_operation(&self.suspend_config, kind, length);
        let array = ArrayOp::new(kind, op, start, length, limits);
        let state = &mut self.dies[die as usize];
        state.array = Some(array);
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        cx.events.schedule(array.end, Event::ArrayDone { die, generation });
        if limits.max_suspensions > 0 {
            let ops = &self.ops;
            if state.queues.host.iter().any(|&queued| ops[queued].kind.is_host_read()) {
                self.request_suspend(die, cx);
            }
        }
    }

    /// A host read waits at `die`: suspend its program or erase at the end of the current step,
    /// if allowed.
    pub(super) fn request_suspend<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        let Some(array) = state.array.as_mut() else {
            return;
        };
        if !array.may_suspend() {
            return;
        }
        let gc_work = match self.ops[array.op].kind {
            OpKind::Program { stream, .. } => stream == Stream::Gc,
            OpKind::Erase { .. } => true,
            _ => false,
        };
        if gc_work && self.ftl.gc_urgent(die) {
            return;
        }
        let Some(at) = array.next_safe_point(cx.now) else {
            return;
        };
        let free = array.stop_at(at);
        match array.kind {
            ArrayKind::Program => self.tally.suspend.program += 1,
            ArrayKind::Erase => self.tally.suspend.erase += 1,
        }
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        cx.events.schedule(free, Event::SuspendEntered { die, generation });
    }

    /// The die stopped its program or erase and may serve reads.
    pub fn on_suspend_entered<O: Observer>(&mut self, die: u32, generation: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        if state.generation != generation {
            return;
        }
        let array = state.array.as_mut().expect("a suspended operation");
        array.state = ArrayState::Suspended { reads_served: 0 };
        let stopped = Time::from_nanos(cx.now.as_nanos().saturating_sub(array.limits.enter.as_nanos()));
        cx.die(StateChange::DieOpInterrupt { die, stopped });
        state.running = None;
        state.busy += cx.now.since(state.busy_since);
        self.try_start(die, cx);
    }

    /// No more reads to serve while suspended: continue the program or erase.
    pub(super) fn resume<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        let array = state.array.as_mut().expect("a suspended operation");
        let end = array.resume(cx.now);
        cx.die(StateChange::DieOpResume {
            die,
            start: array.stretch_start,
            rewind: array.limits.extra,
        });
        state.running = Some(array.op);
        state.busy_since = cx.now;
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        cx.events.schedule(end, Event::ArrayDone { die, generation });
        let ops = &self.ops;
        if state.queues.host.iter().any(|&queued| ops[queued].kind.is_host_read()) {
            self.request_suspend(die, cx);
        }
    }

    /// A program or erase finished its array phase (unless it was suspended since).
    pub fn on_array_done<O: Observer>(&mut self, die: u32, generation: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        if state.generation != generation {
            return;
        }
        let array = state.array.take().expect("an array operation is running");
        let tally = &mut self.tally.suspend;
        let (histogram, total) = match array.kind {
            ArrayKind::Program => (&mut tally.per_program, &mut tally.program_time),
            ArrayKind::Erase => (&mut tally.per_erase, &mut tally.erase_time),
        };
        let suspensions = array.suspensions as usize;
        if histogram.len() <= suspensions {
            histogram.resize(suspensions + 1, 0);
        }
        histogram[suspensions] += 1;
        *total += array.total_time(cx.now);
        self.on_die_done(die, cx);
    }
}
