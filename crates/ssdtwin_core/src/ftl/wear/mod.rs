//! Wear leveling (docs/models/reliability.md, "Wear"): which free block a plane opens next and
//! when cold data is moved off a little-worn block. One file per policy behind [`WearLeveling`]:
//! `none` opens the block freed longest ago (a circular log), `dynamic` (the default) the free
//! block with the fewest P/E cycles (`dynamic.rs`), `static` does the same and also relocates the
//! least-worn closed block of a plane whose P/E spread exceeds `ftl.static_wear_spread`
//! (`static_leveling.rs`), so blocks holding cold data also take their share of the cycles.

pub(crate) mod dynamic;
mod static_leveling;

use std::collections::VecDeque;

use super::blocks::BlockTable;
use super::params::WearLevelingKind;

/// The wear-leveling policy of a drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WearLeveling {
    pub kind: WearLevelingKind,
    /// `static`: P/E spread (max − min within a plane) above which cold data is moved [cycles].
    pub spread: u32,
}

impl WearLeveling {
    /// Takes the free block to open next from `free` (not empty). `floor` is at most the fewest
    /// erases of a block in `free` ([`freed`]); raised here to the fewest found.
    #[inline]
    pub fn take_free(&self, free: &mut VecDeque<u32>, floor: &mut u32, blocks: &BlockTable) -> Option<u32> {
        match self.kind {
            WearLevelingKind::None => free.pop_front(),
            WearLevelingKind::Dynamic | WearLevelingKind::Static => {
                let (index, fewest) = dynamic::least_worn(free, &blocks.erase_count, *floor)?;
                *floor = fewest;
                free.remove(index)
            }
        }
    }

    /// `static`: the closed block of `blocks_in_plane` to relocate now, if the plane's spread is
    /// above the threshold.
    pub fn cold_block(&self, blocks: &BlockTable, blocks_in_plane: std::ops::Range<u32>) -> Option<u32> {
        match self.kind {
            WearLevelingKind::Static => static_leveling::cold_block(blocks, blocks_in_plane, self.spread),
            _ => None,
        }
    }
}

/// `block` joins a plane's free blocks: their floor of erases ([`WearLeveling::take_free`]) is
/// lowered to its count if needed.
#[inline]
pub fn freed(floor: &mut u32, block: u32, blocks: &BlockTable) {
    *floor = (*floor).min(blocks.erase_count[block as usize]);
}

/// P/E cycles over all blocks: (min, mean, max).
pub fn pe_summary(erase_count: &[u32]) -> (u32, f64, u32) {
    if erase_count.is_empty() {
        return (0, 0.0, 0);
    }
    let (mut low, mut high, mut sum) = (u32::MAX, 0, 0u64);
    for &count in erase_count {
        low = low.min(count);
        high = high.max(count);
        sum += u64::from(count);
    }
    (low, sum as f64 / erase_count.len() as f64, high)
}
