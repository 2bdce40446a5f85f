//! Static wear leveling: when a plane's P/E spread (most-worn block minus least-worn) exceeds a
//! threshold, its least-worn closed block (one holding cold data, which dynamic leveling never
//! reaches) is relocated like a GC victim, so it returns to the free blocks and takes cycles.
//! A scan of the plane's blocks at each erase of the plane: meant as an optional policy.

use crate::ftl::blocks::{BlockState, BlockTable};

/// The least-worn closed block of `plane_blocks` if the spread there exceeds `spread`.
pub fn cold_block(blocks: &BlockTable, plane_blocks: std::ops::Range<u32>, spread: u32) -> Option<u32> {
    let mut most = 0;
    let mut coldest: Option<(u32, u32)> = None;
    for block in plane_blocks {
        // Native blocks only: an SLC-mode block's cycles are counted apart (`ftl/slc/`).
        if blocks.state[block as usize] == BlockState::Slc {
            continue;
        }
        let count = blocks.erase_count[block as usize];
        most = most.max(count);
        if blocks.state[block as usize] == BlockState::Closed && coldest.is_none_or(|(_, lowest)| count < lowest) {
            coldest = Some((block, count));
        }
    }
    let (block, lowest) = coldest?;
    (most - lowest > spread).then_some(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_the_coldest_closed_block_only_past_the_spread() {
        let mut table = BlockTable::new(1, 4, 8);
        table.close(1, 1);
        table.close(2, 2);
        table.erase_count = vec![30, 4, 10, 12];
        assert_eq!(cold_block(&table, 0..4, 20), Some(1));
        assert_eq!(cold_block(&table, 0..4, 26), None);
    }
}
