//! Program and erase suspend on one die (the program-suspend paper, sections 3.1 and 4.2;
//! docs/models/suspend.md).
//!
//! A program is a sequence of equal ISPP pulse-and-verify steps, an erase a sequence of erase
//! pulses; a step is atomic. A suspend request at `now` takes effect at the end of the running step
//! (at least one step runs after a start or a resume), then the die spends the enter time (tEPS),
//! serves reads, spends the resume time and runs the remaining steps. Each suspension therefore
//! lengthens the operation by exactly `enter + time suspended + resume`.

use crate::base::time::{Duration, Time};
use crate::flash::params::SuspendConfig;

/// Which array operation is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    Program,
    Erase,
}

/// Where a suspendable operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayState {
    /// Pulsing; ends at `end` unless suspended.
    Running,
    /// A suspend was requested; the die stops at the end of the current step.
    Stopping,
    /// Parked while the die serves reads.
    Suspended { reads_served: u32 },
}

/// The suspend settings of one kind of operation, resolved for one operation.
#[derive(Clone, Copy, Debug)]
pub struct SuspendLimits {
    pub max_suspensions: u32,
    pub enter: Duration,
    pub resume: Duration,
    pub steps: u32,
}

impl SuspendLimits {
    /// The limits for an operation of `kind` whose array time is `length`.
    pub fn for_operation(config: &SuspendConfig, kind: ArrayKind, length: Duration) -> SuspendLimits {
        match kind {
            ArrayKind::Program => SuspendLimits {
                max_suspensions: if config.program { config.max_per_operation } else { 0 },
                enter: config.enter_time.resolve(length),
                resume: config.resume_time.resolve(length),
                steps: config.program_pulses,
            },
            ArrayKind::Erase => SuspendLimits {
                max_suspensions: if config.erase {
                    config.erase_max_per_operation
                } else {
                    0
                },
                enter: config.erase_enter_time.resolve(length),
                resume: config.erase_resume_time.resolve(length),
                steps: config.erase_pulses,
            },
        }
    }
}

/// A program or erase in its array phase.
#[derive(Clone, Copy, Debug)]
pub struct ArrayOp {
    pub kind: ArrayKind,
    /// The operation (an index into the simulation's operation table).
    pub op: u32,
    /// When the array phase first began (tPGM,s is measured from here).
    pub first_start: Time,
    /// When the current stretch of steps began or begins (after a start or a resume).
    pub stretch_start: Time,
    /// When the operation ends if it is not suspended again.
    pub end: Time,
    /// Array time still to run when suspended.
    pub remaining: Duration,
    /// Length of one step; the last step also takes the rounding remainder.
    pub step: Duration,
    pub suspensions: u32,
    pub limits: SuspendLimits,
    pub state: ArrayState,
}

impl ArrayOp {
    pub fn new(kind: ArrayKind, op: u32, start: Time, length: Duration, limits: SuspendLimits) -> ArrayOp {
        ArrayOp {
            kind,
            op,
            first_start: start,
            stretch_start: start,
            end: start + length,
            remaining: length,
            step: Duration::from_nanos(length.as_nanos() / u64::from(limits.steps.max(1))),
            suspensions: 0,
            limits,
            state: ArrayState::Running,
        }
    }

    /// Whether a read arriving now may suspend this operation.
    pub fn may_suspend(&self) -> bool {
        self.state == ArrayState::Running && self.suspensions < self.limits.max_suspensions
    }

    /// The end of the step running at `now` (at least one step after the stretch began), or `None`
    /// when the operation finishes first.
    pub fn next_safe_point(&self, now: Time) -> Option<Time> {
        let step = self.step.as_nanos();
        if step == 0 {
            return None;
        }
        let elapsed = now.as_nanos().saturating_sub(self.stretch_start.as_nanos());
        let steps = elapsed.div_ceil(step).max(1);
        let at = Time::from_nanos(self.stretch_start.as_nanos() + steps * step);
        (at < self.end).then_some(at)
    }

    /// Stops at `at` (a safe point); returns when the die is free for reads.
    pub fn stop_at(&mut self, at: Time) -> Time {
        self.suspensions += 1;
        self.remaining = self.end.since(at);
        self.state = ArrayState::Stopping;
        at + self.limits.enter
    }

    /// Resumes at `now`; returns the new end.
    pub fn resume(&mut self, now: Time) -> Time {
        self.stretch_start = now + self.limits.resume;
        self.end = self.stretch_start + self.remaining;
        self.state = ArrayState::Running;
        self.end
    }

    /// Array time so far including suspensions (tPGM,s at completion).
    pub fn total_time(&self, now: Time) -> Duration {
        now.since(self.first_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: u32, steps: u32) -> SuspendLimits {
        SuspendLimits {
            max_suspensions: max,
            enter: Duration::from_micros(60),
            resume: Duration::from_micros(10),
            steps,
        }
    }

    #[test]
    fn safe_point_is_the_end_of_the_running_step() {
        let op = ArrayOp::new(
            ArrayKind::Program,
            0,
            Time::from_nanos(1_000),
            Duration::from_micros(2_000),
            limits(5, 16),
        );
        // 2 ms / 16 = 125 us steps starting at 1 us.
        assert_eq!(
            op.next_safe_point(Time::from_nanos(1_000)),
            Some(Time::from_nanos(126_000))
        );
        assert_eq!(
            op.next_safe_point(Time::from_nanos(126_000)),
            Some(Time::from_nanos(126_000))
        );
        assert_eq!(
            op.next_safe_point(Time::from_nanos(126_001)),
            Some(Time::from_nanos(251_000))
        );
        assert_eq!(
            op.next_safe_point(Time::from_nanos(0)),
            Some(Time::from_nanos(126_000)),
            "before the start: the first step runs"
        );
        assert_eq!(
            op.next_safe_point(Time::from_nanos(1_876_001)),
            None,
            "the last step ends the program"
        );
    }

    fn us(micros: u64) -> Time {
        Time::ZERO + Duration::from_micros(micros)
    }

    #[test]
    fn suspension_lengthens_by_enter_suspended_and_resume() {
        let mut op = ArrayOp::new(
            ArrayKind::Program,
            0,
            Time::ZERO,
            Duration::from_micros(2_000),
            limits(5, 16),
        );
        let at = op.next_safe_point(us(300)).unwrap();
        assert_eq!(at, us(375));
        let free = op.stop_at(at);
        assert_eq!(free, us(435));
        let end = op.resume(us(535));
        assert_eq!(end, us(2_000 + 60 + 100 + 10));
        assert_eq!(op.suspensions, 1);
    }
}
