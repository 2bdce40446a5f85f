//! Random: a uniformly drawn closed block holding at least one stale unit. Draws blocks of the
//! plane until one qualifies (bounded), then falls back to greedy.
use super::context::VictimContext;
use super::greedy;
use crate::ftl::blocks::BlockState;

const DRAWS: u32 = 64;

pub fn select(context: &mut VictimContext<'_>) -> Option<u32> {
    for _ in 0..DRAWS {
        let block = context.first_block + context.rng.below(u64::from(context.blocks_per_plane)) as u32;
        if context.blocks.state[block as usize] == BlockState::Closed
            && context.blocks.valid[block as usize] < context.units_per_block
        {
            return Some(block);
        }
    }
    greedy::select(context)
}
