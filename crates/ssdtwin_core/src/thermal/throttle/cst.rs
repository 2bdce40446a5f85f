//! `cst`: the self-heating paper's command-submission-time throttling (Zambelli et al. 2020,
//! section 4.3): while the hottest NAND package is at or above `throttle_c`, the host waits `cst`
//! before each command, from the moment its queue slot is free; full speed again once it falls
//! below `release_c`.

use super::limits::{Baseline, Limits, Readings, ThrottleState};
use super::params::ThrottleConfig;

#[derive(Clone, Debug)]
pub struct Cst {
    throttle_c: f64,
    release_c: f64,
    full: Limits,
    throttled: Limits,
    on: bool,
}

impl Cst {
    pub fn new(config: &ThrottleConfig, baseline: Baseline) -> Cst {
        let full = Limits::full(&baseline);
        Cst {
            throttle_c: config.throttle_c,
            release_c: config.release_c,
            full,
            // A CST of zero slows nothing: the drive is not throttled, whatever the temperature.
            throttled: if config.cst.as_nanos() == 0 {
                full
            } else {
                Limits {
                    state: ThrottleState::Heavy,
                    cst: config.cst,
                    ..full
                }
            },
            on: false,
        }
    }

    pub fn decide(&mut self, readings: Readings) -> Limits {
        let t = readings.hottest_nand_c;
        self.on = if self.on {
            t >= self.release_c
        } else {
            t >= self.throttle_c
        };
        if self.on {
            self.throttled
        } else {
            self.full
        }
    }
}
