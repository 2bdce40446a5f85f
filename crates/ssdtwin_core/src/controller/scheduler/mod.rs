//! Die schedulers: which queued operation an idle die serves next. One file per policy behind a
//! closed enum; adding one is a file, a variant here and a variant of `config::SchedulerKind`.

pub mod choice;
mod fifo;
mod read_first;

pub use choice::Choice;

use super::ops::{DieQueues, FlashOp};
use crate::base::time::{Duration, Time};
use crate::controller::params::{ControllerConfig, SchedulerKind};

#[derive(Clone, Copy, Debug)]
pub enum Scheduler {
    Fifo,
    ReadFirst {
        /// Non-read operations that waited this long go first; zero = no bound.
        age_limit: Duration,
    },
}

impl Scheduler {
    pub fn new(config: &ControllerConfig) -> Scheduler {
        match config.scheduler {
            SchedulerKind::Fifo => Scheduler::Fifo,
            SchedulerKind::ReadFirst => Scheduler::ReadFirst {
                age_limit: config.read_first_age_limit,
            },
        }
    }

    /// The next operation for an idle die, or `None` when both queues are empty.
    #[inline]
    pub fn choose(&self, queues: &DieQueues, ops: &[FlashOp], now: Time) -> Option<Choice> {
        match *self {
            Scheduler::Fifo => fifo::choose(queues, ops),
            Scheduler::ReadFirst { age_limit } => read_first::choose(queues, ops, now, age_limit),
        }
    }
}
