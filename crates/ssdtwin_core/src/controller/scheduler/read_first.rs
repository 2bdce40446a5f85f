//! Read-first: the oldest host read at the die overtakes queued programs, erases and GC work;
//! without a host read, FIFO.
use super::{fifo, Choice, DieQueues, FlashOp};
use crate::controller::OpKind;

pub fn choose(queues: &DieQueues, ops: &[FlashOp]) -> Option<Choice> {
    let first_read = queues
        .host
        .iter()
        .position(|&op| matches!(ops[op as usize].kind, OpKind::HostRead { .. }));
    match first_read {
        Some(index) => Some(Choice::Host(index)),
        None => fifo::choose(queues, ops),
    }
}
