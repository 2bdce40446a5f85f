//! FIFO: the oldest operation at the die, host or internal, by arrival sequence.
use super::choice::Choice;
use crate::controller::ops::{DieQueues, FlashOp};

#[inline]
pub fn choose(queues: &DieQueues, ops: &[FlashOp]) -> Option<Choice> {
    match (queues.host.front(), queues.internal.front()) {
        (None, None) => None,
        (Some(_), None) => Some(Choice::Host(0)),
        (None, Some(_)) => Some(Choice::Internal),
        (Some(&host), Some(&internal)) => {
            if ops[host as usize].sequence < ops[internal as usize].sequence {
                Some(Choice::Host(0))
            } else {
                Some(Choice::Internal)
            }
        }
    }
}
