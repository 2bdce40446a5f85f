//! Dynamic wear leveling: a plane opens its free block with the fewest P/E cycles (ties: the one
//! freed longest ago), so erases spread over the blocks that cycle. A scan of the plane's free
//! blocks once per opened block, not per write.

use std::collections::VecDeque;

/// Position in `free` of the first block with the fewest erases.
pub fn least_worn(free: &VecDeque<u32>, erase_count: &[u32]) -> Option<usize> {
    let mut best: Option<(usize, u32)> = None;
    for (index, &block) in free.iter().enumerate() {
        let count = erase_count[block as usize];
        if best.is_none_or(|(_, lowest)| count < lowest) {
            best = Some((index, count));
            if count == 0 {
                break;
            }
        }
    }
    best.map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_first_least_worn_block() {
        let free: VecDeque<u32> = [3, 1, 2, 0].into_iter().collect();
        let counts = [5, 2, 2, 7];
        assert_eq!(least_worn(&free, &counts), Some(1));
        assert_eq!(least_worn(&VecDeque::new(), &counts), None);
    }
}
