//! Cost-benefit (Kawaguchi, Nishioka and Motoda, USENIX Winter 1995): maximise
//! `age · (1 − u) / 2u`, with `u` the block's valid fraction and `age` the time since it was
//! closed (counted in blocks closed since). Only the `candidates` lowest-utilisation blocks are
//! scored, so choosing costs O(candidates), not a scan of the plane.
use super::context::VictimContext;

pub fn select(context: &mut VictimContext<'_>, candidates: u32) -> Option<u32> {
    context.blocks.settle_hint(context.plane);
    let units_per_block = context.units_per_block;
    let blocks = &*context.blocks;
    let mut best: Option<(f64, u32)> = None;
    let mut seen = 0;
    blocks.for_each_lowest(context.plane, |block, valid| {
        if valid < units_per_block {
            let utilisation = f64::from(valid) / f64::from(units_per_block);
            let age = (context.now_order - blocks.closed_order[block as usize]) as f64 + 1.0;
            let score = if valid == 0 {
                f64::INFINITY
            } else {
                age * (1.0 - utilisation) / (2.0 * utilisation)
            };
            if best.is_none_or(|(best_score, _)| score > best_score) {
                best = Some((score, block));
            }
        }
        seen += 1;
        seen < candidates
    });
    best.map(|(_, block)| block)
}
