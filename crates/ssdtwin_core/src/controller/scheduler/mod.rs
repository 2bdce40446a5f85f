//! Die schedulers: which queued operation an idle die serves next. One file per policy behind a
//! closed enum; adding one is a file, a variant here and a variant of `config::SchedulerKind`.

mod fifo;
mod read_first;

use super::{DieQueues, FlashOp};
use crate::config::SchedulerKind;

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
    ReadFirst,
}

impl Scheduler {
    pub fn new(kind: SchedulerKind) -> Scheduler {
        match kind {
            SchedulerKind::Fifo => Scheduler::Fifo,
            SchedulerKind::ReadFirst => Scheduler::ReadFirst,
        }
    }

    /// The next operation for an idle die, or `None` when both queues are empty.
    pub fn choose(&self, queues: &DieQueues, ops: &[FlashOp]) -> Option<Choice> {
        match self {
            Scheduler::Fifo => fifo::choose(queues, ops),
            Scheduler::ReadFirst => read_first::choose(queues, ops),
        }
    }
}
