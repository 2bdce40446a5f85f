//! `cst_preopt`: the self-heating paper's pre-throttling optimisation (Zambelli et al. 2020,
//! section 4.3, Figure 12), orthogonal to CST throttling.
//!
//! The drive starts at its full queue depth and frame buffer (level 0). Levels go down a ladder:
//! the queue depth halves from `host.queue_depth` to `min_queue_depth`, then the frame buffer
//! halves `frame_buffer_steps` times (never below one program). While the hottest NAND package is
//! at or above `pre_throttle_c`, the drive goes one level down every `step_interval`; at
//! `throttle_c` CST applies as in `cst`; when CST is released (below `release_c`) the drive
//! resumes one level below the one it had reached before throttling. Below `pre_throttle_c −
//! hysteresis_k` it climbs back one level every `step_interval` (the paper leaves the way back
//! open; without it every throttling event would leave the drive a level lower for good).

use super::limits::{Baseline, Limits, Readings, ThrottleState};
use super::params::ThrottleConfig;
use crate::base::time::{Duration, Time};

#[derive(Clone, Debug)]
pub struct CstPreopt {
    pre_throttle_c: f64,
    throttle_c: f64,
    release_c: f64,
    hysteresis_k: f64,
    cst: Duration,
    step_interval: Duration,
    /// (queue depth, frame buffer) of each level, full first.
    ladder: Vec<(u32, u32)>,
    full: Limits,
    level: usize,
    /// CST applies.
    throttled: bool,
    last_step: Option<Time>,
}

impl CstPreopt {
    pub fn new(config: &ThrottleConfig, baseline: Baseline) -> CstPreopt {
        let mut ladder = vec![(baseline.queue_depth, baseline.frame_buffer)];
        let mut queue_depth = baseline.queue_depth;
        while queue_depth > config.min_queue_depth {
            queue_depth = (queue_depth / 2).max(config.min_queue_depth);
            ladder.push((queue_depth, baseline.frame_buffer));
        }
        let mut frame_buffer = baseline.frame_buffer;
        for _ in 0..config.frame_buffer_steps {
            let next = (frame_buffer / 2).max(baseline.min_frame_buffer);
            if next == frame_buffer {
                break;
            }
            frame_buffer = next;
            ladder.push((queue_depth, frame_buffer));
        }
        CstPreopt {
            pre_throttle_c: config.pre_throttle_c,
            throttle_c: config.throttle_c,
            release_c: config.release_c,
            hysteresis_k: config.hysteresis_k,
            cst: config.cst,
            step_interval: config.step_interval,
            ladder,
            full: Limits::full(&baseline),
            level: 0,
            throttled: false,
            last_step: None,
        }
    }

    /// The (queue depth, frame buffer) levels, full first.
    pub fn ladder(&self) -> &[(u32, u32)] {
        &self.ladder
    }

    fn may_step(&self, now: Time) -> bool {
        match self.last_step {
            None => true,
            Some(last) => now.since(last) >= self.step_interval,
        }
    }

    pub fn decide(&mut self, now: Time, readings: Readings) -> Limits {
        let t = readings.hottest_nand_c;
        let lowest = self.ladder.len() - 1;
        if self.throttled {
            if t < self.release_c {
                // Resume one level below the one reached before throttling.
                self.throttled = false;
                self.level = (self.level + 1).min(lowest);
                self.last_step = Some(now);
            }
        } else if t >= self.throttle_c {
            self.throttled = true;
        } else if t >= self.pre_throttle_c {
            if self.level < lowest && self.may_step(now) {
                self.level += 1;
                self.last_step = Some(now);
            }
        } else if t < self.pre_throttle_c - self.hysteresis_k && self.level > 0 && self.may_step(now) {
            self.level -= 1;
            self.last_step = Some(now);
        }
        let (queue_depth, frame_buffer) = self.ladder[self.level];
        let state = if self.throttled {
            ThrottleState::Heavy
        } else if self.level > 0 {
            ThrottleState::Light
        } else {
            ThrottleState::Off
        };
        Limits {
            state,
            queue_depth,
            frame_buffer,
            cst: if self.throttled { self.cst } else { Duration::ZERO },
            ..self.full
        }
    }
}
