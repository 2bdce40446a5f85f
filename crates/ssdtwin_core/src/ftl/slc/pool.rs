//! The state of the SLC cache's SLC-mode blocks (docs/models/slc_cache.md, "Blocks in SLC
//! mode"): per plane, its free and written SLC-mode blocks and how far they are written and
//! folded; per block, its SLC-mode erases. Kept apart from `mod.rs` (which extends the `Ftl`) so
//! the `Ftl` can hold it without importing the file that imports the `Ftl`.

use std::collections::VecDeque;

/// One plane's SLC-mode blocks.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SlcPlane {
    /// Erased SLC-mode blocks.
    pub(super) free: VecDeque<u32>,
    /// Blocks written in SLC mode, oldest first; the last is the open one.
    pub(super) written: VecDeque<u32>,
    /// Pages written into the last of `written`.
    pub(super) open_pages: u32,
    /// Pages of the first of `written` folded already.
    pub(super) folded_pages: u32,
    /// Blocks in SLC mode: free, written, or being erased.
    pub(super) blocks: u32,
}

/// What the pool counted over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlcPoolCounts {
    /// Dynamic blocks borrowed from, and returned to, the native free blocks.
    pub borrowed: u64,
    pub returned: u64,
    /// Most blocks in SLC mode at once, over all planes.
    pub peak_blocks: u64,
}

/// The SLC-mode blocks of every plane.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SlcPool {
    /// Pages an SLC-mode block holds (`pages_per_block / bits`).
    pub pages_per_block: u32,
    /// Static SLC blocks per plane.
    pub static_blocks: u32,
    /// Whether blocks may be borrowed: the cache has a dynamic share, or its `wait` policy lets
    /// a host program over the cache's size take one while its die folds.
    pub dynamic: bool,
    pub planes: Vec<SlcPlane>,
    /// SLC-mode erases per block (0 for blocks never erased in SLC mode).
    pub erase_count: Vec<u32>,
    /// Whether the block has ever been in SLC mode.
    pub ever_slc: Vec<bool>,
    pub counts: SlcPoolCounts,
}

impl SlcPool {
    /// Blocks in SLC mode now, over all planes.
    pub fn blocks(&self) -> u64 {
        self.planes.iter().map(|plane| u64::from(plane.blocks)).sum()
    }

    /// SLC-mode P/E cycles of the blocks ever in SLC mode: (mean, max); (0, 0) with none.
    pub fn pe_summary(&self) -> (f64, u32) {
        let (mut count, mut sum, mut max) = (0u64, 0u64, 0u32);
        for (&erases, _) in self.erase_count.iter().zip(&self.ever_slc).filter(|(_, &ever)| ever) {
            count += 1;
            sum += u64::from(erases);
            max = max.max(erases);
        }
        if count == 0 {
            (0.0, 0)
        } else {
            (sum as f64 / count as f64, max)
        }
    }
}
