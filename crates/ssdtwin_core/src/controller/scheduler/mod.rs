//! Die schedulers: which queued operation an idle die serves next. One file per policy behind a
//! closed enum; adding one is a file, a variant here and a variant of `config::SchedulerKind`.

mod fifo;
mod read_first;

use super::{DieQueues, FlashOp};
use crate::config::ControllerConfig;
use crate::config::SchedulerKind;
use crate::sim::time::{Duration, Time};

/// Where the chosen operation waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Index in the die's host queue (target command queue).
    Host(usize),
    /// Front of the die's internal (GC) queue.
    Internal,
}

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
    pub fn choose(&self, queues: &DieQueues, ops: &[FlashOp], now: Time) -> Option<Choice> {
        match *self {
            Scheduler::Fifo => fifo::choose(queues, ops),
            Scheduler::ReadFirst { age_limit } => read_first::choose(queues, ops, now, age_limit),
        }
    }
}
