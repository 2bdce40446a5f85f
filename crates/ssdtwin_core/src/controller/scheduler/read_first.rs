//! Read-first: the oldest host read at the die overtakes queued programs, erases and GC work;
//! without a host read, FIFO. With an age limit, an operation that has waited that long at the die
//! goes first, so writes cannot starve.
use super::choice::Choice;
use super::fifo;
use crate::base::time::{Duration, Time};
use crate::controller::ops::{DieQueues, FlashOp};

pub fn choose(queues: &DieQueues, ops: &[FlashOp], now: Time, age_limit: Duration) -> Option<Choice> {
    if age_limit > Duration::ZERO {
        let starved = |op: u32| {
            let op = &ops[op as usize];
            !op.kind.is_host_read() && now.since(op.queued_at) >= age_limit
        };
        let oldest = fifo::choose(queues, ops);
        let oldest_op = match oldest {
            Some(Choice::Host(index)) => Some(queues.host[index]),
            Some(Choice::Internal) => queues.internal.front().copied(),
            None => None,
        };
        if oldest_op.is_some_and(starved) {
            return oldest;
        }
    }
    let first_read = queues.host.iter().position(|&op| ops[op as usize].kind.is_host_read());
    match first_read {
        Some(index) => Some(Choice::Host(index)),
        None => fifo::choose(queues, ops),
    }
}
