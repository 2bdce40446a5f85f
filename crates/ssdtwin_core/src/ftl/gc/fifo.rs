//! FIFO: the block closed longest ago (a circular log). Blocks that hold only valid data are
//! skipped to the back, so the policy never reclaims nothing.
use std::collections::VecDeque;

use super::context::VictimContext;
use crate::ftl::blocks::BlockState;

pub fn select(context: &mut VictimContext<'_>, closed: &mut VecDeque<u32>) -> Option<u32> {
    for _ in 0..closed.len() {
        let block = closed.pop_front()?;
        if context.blocks.state[block as usize] != BlockState::Closed {
            continue;
        }
        if context.blocks.valid[block as usize] < context.units_per_block {
            return Some(block);
        }
        closed.push_back(block);
    }
    None
}
