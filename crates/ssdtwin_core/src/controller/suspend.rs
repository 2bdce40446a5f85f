//! Program and erase suspend on one die (the program-suspend paper, sections 3.1 and 4.2;
//! docs/models/suspend.md).
//!
//! A program is a sequence of equal ISPP pulse-and-verify steps, an erase a sequence of erase
//! pulses; a step is atomic. A suspend request at `now` takes effect at the end of the running step
//! (at least one step runs after a start or a resume), then the die spends the enter time (tEPS),
//! serves reads, spends the resume time and runs the remaining steps plus the extra ISPP time of a
//! resume (the paper's Section 4.3; zero unless `resume_extra_time` is set). Each suspension
//! therefore lengthens the operation by exactly `enter + time suspended + resume + extra`.

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
    /// ISPP time added to the remaining array time at each resume (programs only).
    pub extra: Duration,
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
                extra: config.resume_extra_time.resolve(length),
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
                extra: Duration::ZERO,
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

    /// Resumes at `now`, with the extra ISPP time of a resume added to the remaining time; returns
    /// the new end.
    pub fn resume(&mut self, now: Time) -> Time {
        self.remaining += self.limits.extra;
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
            extra: Duration::ZERO,
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

    /// Runs a program of `length` in `steps` steps, suspending it `k` times, each at the first safe
    /// point and for `idle` before resuming; returns tPGM,s.
    fn program_time_with(limits: SuspendLimits, length: Duration, k: u32, idle: Duration) -> Duration {
        let mut op = ArrayOp::new(ArrayKind::Program, 0, Time::ZERO, length, limits);
        let mut now = Time::ZERO;
        for _ in 0..k {
            let at = op.next_safe_point(now).expect("a safe point before the end");
            now = op.stop_at(at) + idle;
            op.resume(now);
        }
        op.total_time(op.end)
    }

    #[test]
    fn program_time_grows_by_enter_resume_and_extra_ispp_per_suspension() {
        // tPGM,s(k) = tPROG + k * (tEPS + d + tRES + t_extra), the closed form of
        // docs/models/suspend.md, with enterprise_tlc's numbers: tPROG 2 ms in 16 steps, tEPS 70 us
        // (3.5% of tPROG), tRES 10 us, t_extra 125 us (one step), and d = 0 (no read served).
        let plain = SuspendLimits {
            enter: Duration::from_micros(70),
            ..limits(10, 16)
        };
        let extra = SuspendLimits {
            extra: Duration::from_micros(125),
            ..plain
        };
        let length = Duration::from_micros(2_000);
        for k in [0u32, 1, 5, 10] {
            let expected = Duration::from_micros(2_000 + u64::from(k) * (70 + 10 + 125));
            assert_eq!(program_time_with(extra, length, k, Duration::ZERO), expected, "k = {k}");
        }
        // Ten suspensions more than double the program time (the paper's Section 4.3: "more than
        // twice") with the extra ISPP time (4,050 us); without it they add 40% (2,800 us).
        assert_eq!(
            program_time_with(extra, length, 10, Duration::ZERO),
            Duration::from_micros(4_050)
        );
        assert_eq!(
            program_time_with(plain, length, 10, Duration::ZERO),
            Duration::from_micros(2_800)
        );
        // Time spent suspended adds one for one.
        assert_eq!(
            program_time_with(extra, length, 5, Duration::from_micros(100)),
            Duration::from_micros(2_000 + 5 * (70 + 100 + 10 + 125))
        );
    }

    #[test]
    fn extra_ispp_time_adds_steps_and_keeps_their_length() {
        let extra = SuspendLimits {
            extra: Duration::from_micros(125),
            ..limits(5, 16)
        };
        let mut op = ArrayOp::new(ArrayKind::Program, 0, Time::ZERO, Duration::from_micros(2_000), extra);
        let free = op.stop_at(op.next_safe_point(us(0)).unwrap());
        assert_eq!(free, us(185));
        let end = op.resume(us(200));
        // 1,875 us left plus 125 us of extra ISPP, after 10 us of resume.
        assert_eq!(end, us(200 + 10 + 1_875 + 125));
        assert_eq!(op.next_safe_point(us(210)), Some(us(335)), "steps stay 125 us long");
    }

    #[test]
    fn erases_take_no_extra_ispp_time() {
        let config = SuspendConfig {
            resume_extra_time: crate::flash::params::TimeOrFraction::Fraction(0.0625),
            ..SuspendConfig::default()
        };
        let length = Duration::from_micros(2_000);
        assert_eq!(
            SuspendLimits::for_operation(&config, ArrayKind::Program, length).extra,
            Duration::from_micros(125)
        );
        assert_eq!(
            SuspendLimits::for_operation(&config, ArrayKind::Erase, length).extra,
            Duration::ZERO
        );
    }
}
