//! Dynamic wear leveling: a plane opens its free block with the fewest P/E cycles (ties: the one
//! freed longest ago), so erases spread over the blocks that cycle. A scan of the plane's free
//! blocks once per opened block, not per write; it stops at a block with as few erases as a floor
//! the caller keeps (at most the fewest of any free block: then that block is the one), so on the
//! full-size 61.44 TB QLC drive (1,638 free blocks per plane at its GC level) a scan reads the
//! queue only up to the first least-worn block.

use std::collections::VecDeque;

/// Position in `free` of the first block with the fewest erases, and that count; `floor` is at
/// most the fewest erases of a block in `free` (0 always is).
pub fn least_worn(free: &VecDeque<u32>, erase_count: &[u32], floor: u32) -> Option<(usize, u32)> {
    let mut best: Option<(usize, u32)> = None;
    for (index, &block) in free.iter().enumerate() {
        let count = erase_count[block as usize];
        if best.is_none_or(|(_, lowest)| count < lowest) {
            best = Some((index, count));
            if count <= floor {
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_first_least_worn_block() {
        let free: VecDeque<u32> = [3, 1, 2, 0].into_iter().collect();
        let counts = [5, 2, 2, 7];
        assert_eq!(least_worn(&free, &counts, 0), Some((1, 2)));
        assert_eq!(least_worn(&free, &counts, 2), Some((1, 2)), "a floor at the fewest");
        assert_eq!(least_worn(&VecDeque::new(), &counts, 0), None);
    }
}
