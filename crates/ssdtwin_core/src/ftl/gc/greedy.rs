//! Greedy: the closed block with the fewest valid units (the lowest non-empty bucket).
use super::context::VictimContext;

pub fn select(context: &mut VictimContext<'_>) -> Option<u32> {
    context.blocks.settle_hint(context.plane);
    let mut victim = None;
    let units_per_block = context.units_per_block;
    context.blocks.for_each_lowest(context.plane, |block, valid| {
        if valid < units_per_block {
            victim = Some(block);
        }
        false
    });
    victim
}
