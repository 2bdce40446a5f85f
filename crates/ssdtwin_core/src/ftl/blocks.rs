//! Per-block state and the closed blocks of each plane bucketed by valid count.
//!
//! A block is free, open (being written), closed (full and programmed: a GC candidate), a GC
//! victim, or in SLC mode (the SLC cache's, `slc/`). Closed blocks sit in one doubly linked list
//! per (plane, valid count), so an invalidation moves a block between buckets in O(1) and the
//! lowest-valid blocks of a plane are found without scanning its blocks (docs/models/ftl.md).
//!
//! Statistical `steady` preconditioning (`steady.rs`) invalidates hundreds of millions of units
//! between a few hundred thousand victim choices; there the lists are deferred
//! ([`BlockTable::defer_buckets`]): each link only stamps the block with a counter, a choice scans
//! its plane, and [`BlockTable::restore_buckets`] rebuilds the lists. A bucket's list is its blocks
//! in decreasing order of their last link (a link pushes at the head, an unlink keeps the others'
//! order), so the stamps give the lists, and every choice, the per-unit upkeep gives.

use super::mapping::NONE;
use crate::base::arith::{div, Divisor};

mod floors;

/// Blocks per chunk, and chunks per group, of the deferred victim choice's floors
/// (`blocks/floors.rs`): `1 << FLOOR_SHIFT`.
const FLOOR_SHIFT: u32 = 6;

/// The deferred victim choice's floors (`blocks/floors.rs` keeps them): a valid count and the
/// block that set it.
#[derive(Clone, Copy, Debug)]
struct Floor {
    valid: u32,
    block: u32,
}

/// No closed block below.
const NO_FLOOR: Floor = Floor {
    valid: u32::MAX,
    block: u32::MAX,
};

/// The two levels of floors of a table's planes.
#[derive(Clone, Debug, Default)]
struct Floors {
    /// Blocks per plane.
    plane: Divisor,
    /// Blocks per chunk and chunks per group, as shifts.
    chunk_shift: u32,
    group_shift: u32,
    chunks_per_plane: u32,
    groups_per_plane: u32,
    /// Per chunk (plane-major), per group (plane-major).
    chunks: Vec<Floor>,
    groups: Vec<Floor>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockState {
    Free,
    Open,
    Closed,
    Victim,
    /// In SLC mode, held by the SLC cache's pool (`slc/`): never a GC candidate.
    Slc,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BlockTable {
    blocks_per_plane: u32,
    units_per_block: u32,
    pub state: Vec<BlockState>,
    /// Valid mapping units in the block.
    pub valid: Vec<u32>,
    /// Pages handed out to writers.
    pub allocated_pages: Vec<u32>,
    /// Pages whose program has completed.
    pub programmed_pages: Vec<u32>,
    /// Order in which the block was closed (older blocks have smaller numbers).
    pub closed_order: Vec<u64>,
    pub erase_count: Vec<u32>,
    next: Vec<u32>,
    previous: Vec<u32>,
    /// Bucket heads: `plane * (units_per_block + 1) + valid`.
    heads: Vec<u32>,
    /// Lowest possibly non-empty bucket per plane (a hint, never above the true minimum).
    lowest_hint: Vec<u32>,
    /// Closed blocks per plane.
    pub closed_count: Vec<u32>,
    /// While the lists are deferred: per block, the link counter at its last link (empty otherwise).
    #[serde(skip)]
    stamps: Vec<u32>,
    /// The last stamp given while deferred.
    #[serde(skip)]
    links: u32,
    /// While the lists are deferred: per chunk and per group of chunks of a plane's blocks, a floor
    /// under its closed blocks' valid counts (`blocks/floors.rs`).
    #[serde(skip)]
    floors: Floors,
    /// Erases of any kind since the table was made or loaded (GC, zone resets, preconditioning):
    /// an erase is the only thing that unprograms a page (admission's kept lookup checks it).
    #[serde(skip)]
    pub erased: u64,
}

/// Serializes `table` with its bucket lists, restored first if deferred (a snapshot's form, which
/// the stamps are not part of).
pub fn serialize_restored<S: serde::Serializer>(table: &BlockTable, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    if table.deferred() {
        let mut restored = table.clone();
        restored.restore_buckets();
        restored.serialize(serializer)
    } else {
        table.serialize(serializer)
    }
}

impl BlockTable {
    pub fn new(planes: u32, blocks_per_plane: u32, units_per_block: u32) -> BlockTable {
        let blocks = (planes * blocks_per_plane) as usize;
        BlockTable {
            blocks_per_plane,
            units_per_block,
            state: vec![BlockState::Free; blocks],
            valid: vec![0; blocks],
            allocated_pages: vec![0; blocks],
            programmed_pages: vec![0; blocks],
            closed_order: vec![0; blocks],
            erase_count: vec![0; blocks],
            next: vec![NONE; blocks],
            previous: vec![NONE; blocks],
            heads: vec![NONE; (planes * (units_per_block + 1)) as usize],
            lowest_hint: vec![0; planes as usize],
            closed_count: vec![0; planes as usize],
            stamps: Vec::new(),
            links: 0,
            floors: Floors::default(),
            erased: 0,
        }
    }

    /// Whether the bucket lists are deferred ([`Self::defer_buckets`]).
    #[inline]
    pub(super) fn deferred(&self) -> bool {
        !self.stamps.is_empty()
    }

    /// Defers the bucket lists: links only stamp blocks, choices scan the plane (module docs).
    /// Closed blocks keep their list order (stamped in it).
    pub fn defer_buckets(&mut self) {
        self.defer_buckets_in_chunks(FLOOR_SHIFT, FLOOR_SHIFT);
    }

    /// [`Self::defer_buckets`], the floors kept per chunk of `1 << chunk_shift` blocks and per
    /// group of `1 << group_shift` chunks.
    fn defer_buckets_in_chunks(&mut self, chunk_shift: u32, group_shift: u32) {
        if self.deferred() || self.state.is_empty() {
            return;
        }
        self.stamps = vec![0; self.state.len()];
        self.links = 0;
        // Oldest link first: a list's tail, walking back to its head.
        for head in 0..self.heads.len() {
            let mut block = self.heads[head];
            let mut order = Vec::new();
            while block != NONE {
                order.push(block);
                block = self.next[block as usize];
            }
            for &block in order.iter().rev() {
                self.stamps[block as usize] = self.next_stamp();
            }
        }
        // After the stamps: a floor at a count shared by blocks names the one linked last.
        self.build_floors(chunk_shift, group_shift);
    }

    /// Rebuilds the bucket lists from the stamps and ends the deferral: each bucket's blocks
    /// linked oldest first, so its head is the last linked, as the per-unit upkeep leaves it.
    pub fn restore_buckets(&mut self) {
        if !self.deferred() {
            return;
        }
        let stamps = std::mem::take(&mut self.stamps);
        self.floors = Floors::default();
        self.heads.fill(NONE);
        self.next.fill(NONE);
        self.previous.fill(NONE);
        let mut closed: Vec<(u32, u32)> = (0..self.state.len() as u32)
            .filter(|&block| self.state[block as usize] == BlockState::Closed)
            .map(|block| (stamps[block as usize], block))
            .collect();
        closed.sort_unstable();
        self.lowest_hint.fill(self.units_per_block + 1);
        for (_, block) in closed {
            self.link(block);
        }
        for plane in 0..self.lowest_hint.len() as u32 {
            self.settle_hint(plane);
        }
    }

    fn head_index(&self, block: u32, valid: u32) -> usize {
        (div(block, self.blocks_per_plane) * (self.units_per_block + 1) + valid) as usize
    }

    /// The next stamp of a deferred link. Stamps are 32-bit (a plane's fit in 4 KiB); when they
    /// run out, the blocks are renumbered in the same order.
    #[inline]
    fn next_stamp(&mut self) -> u32 {
        if self.links == u32::MAX {
            self.renumber_stamps();
        }
        self.links += 1;
        self.links
    }

    /// Renumbers the stamps `1..` in their order (only their order counts).
    #[cold]
    fn renumber_stamps(&mut self) {
        let mut order: Vec<(u32, u32)> = (0..self.stamps.len() as u32)
            .map(|block| (self.stamps[block as usize], block))
            .collect();
        order.sort_unstable();
        for (rank, &(_, block)) in order.iter().enumerate() {
            self.stamps[block as usize] = rank as u32 + 1;
        }
        self.links = order.len() as u32;
    }

    /// Test builds: moves the stamp counter to `links` (to reach the renumbering soon).
    #[cfg(test)]
    fn set_links(&mut self, links: u32) {
        assert!(self.deferred() && self.stamps.iter().all(|&stamp| stamp <= links));
        self.links = links;
    }

    #[inline]
    fn link(&mut self, block: u32) {
        if self.deferred() {
            self.stamps[block as usize] = self.next_stamp();
            return;
        }
        let plane = div(block, self.blocks_per_plane) as usize;
        let valid = self.valid[block as usize];
        let head = self.head_index(block, valid);
        let first = self.heads[head];
        self.next[block as usize] = first;
        self.previous[block as usize] = NONE;
        if first != NONE {
            self.previous[first as usize] = block;
        }
        self.heads[head] = block;
        if valid < self.lowest_hint[plane] {
            self.lowest_hint[plane] = valid;
        }
    }

    #[inline]
    fn unlink(&mut self, block: u32) {
        if self.deferred() {
            return;
        }
        let (next, previous) = (self.next[block as usize], self.previous[block as usize]);
        // Out of the lists a block points nowhere (the deferred upkeep leaves the same state).
        self.next[block as usize] = NONE;
        self.previous[block as usize] = NONE;
        if previous == NONE {
            let head = self.head_index(block, self.valid[block as usize]);
            self.heads[head] = next;
        } else {
            self.next[previous as usize] = next;
        }
        if next != NONE {
            self.previous[next as usize] = previous;
        }
    }

    /// One more valid unit in `block` (an open block: no bucket to move).
    #[inline]
    pub fn add_valid(&mut self, block: u32) {
        self.valid[block as usize] += 1;
    }

    /// Reads what admission and an invalidation of `block` read or write (its state, valid count
    /// and, while deferred, stamp) and folds them into a value to keep: admission's look-ahead
    /// (`touch_queued`) loads them for the next queued writes in one batch, so that the cache
    /// misses of their old blocks overlap instead of coming one per write.
    #[inline(always)]
    pub fn touch(&self, block: u32) -> u32 {
        let index = block as usize;
        let stamp = self.stamps.get(index).copied().unwrap_or(0);
        self.state[index] as u32 ^ self.valid[index] ^ stamp
    }

    /// One valid unit of `block` became stale. Inlined always: `steady` calls it once per
    /// overwrite, hundreds of millions of times, and a call costs as much as the work.
    #[inline(always)]
    pub fn invalidate(&mut self, block: u32) {
        if self.deferred() {
            // Only a closed block's stamp counts, and closing stamps it anew: no state to test.
            self.valid[block as usize] -= 1;
            self.stamps[block as usize] = self.next_stamp();
            self.floors.lower(block, self.valid[block as usize]);
            return;
        }
        if self.state[block as usize] == BlockState::Closed {
            self.unlink(block);
            self.valid[block as usize] -= 1;
            self.link(block);
        } else {
            self.valid[block as usize] -= 1;
        }
    }

    /// A full, programmed block becomes a GC candidate.
    pub fn close(&mut self, block: u32, order: u64) {
        self.state[block as usize] = BlockState::Closed;
        self.closed_order[block as usize] = order;
        self.closed_count[div(block, self.blocks_per_plane) as usize] += 1;
        self.link(block);
        if self.deferred() {
            self.floors.lower(block, self.valid[block as usize]);
        }
    }

    /// A closed block chosen as GC victim leaves the candidate buckets.
    pub fn take_victim(&mut self, block: u32) {
        debug_assert_eq!(self.state[block as usize], BlockState::Closed);
        self.unlink(block);
        self.state[block as usize] = BlockState::Victim;
        self.closed_count[div(block, self.blocks_per_plane) as usize] -= 1;
    }

    /// An erased block is free again.
    pub fn erase(&mut self, block: u32) {
        let index = block as usize;
        debug_assert_eq!(self.valid[index], 0, "erasing a block with valid data");
        self.state[index] = BlockState::Free;
        self.allocated_pages[index] = 0;
        self.programmed_pages[index] = 0;
        self.erase_count[index] += 1;
        self.erased += 1;
    }

    /// Moves the plane's lowest-bucket hint up past empty buckets.
    pub fn settle_hint(&mut self, plane: u32) {
        if self.deferred() {
            self.settle_floors(plane);
            return;
        }
        let base = (plane * (self.units_per_block + 1)) as usize;
        let mut valid = self.lowest_hint[plane as usize];
        while valid <= self.units_per_block && self.heads[base + valid as usize] == NONE {
            valid += 1;
        }
        self.lowest_hint[plane as usize] = valid;
    }

    /// Calls `visit(block, valid)` on closed blocks of `plane` in increasing valid count until it
    /// returns false. Call [`Self::settle_hint`] first to skip empty buckets.
    pub fn for_each_lowest(&self, plane: u32, mut visit: impl FnMut(u32, u32) -> bool) {
        if self.deferred() {
            return self.for_each_lowest_deferred(plane, visit);
        }
        let base = (plane * (self.units_per_block + 1)) as usize;
        for valid in self.lowest_hint[plane as usize]..=self.units_per_block {
            let mut block = self.heads[base + valid as usize];
            while block != NONE {
                if !visit(block, valid) {
                    return;
                }
                block = self.next[block as usize];
            }
        }
    }

    /// [`Self::for_each_lowest`] while the lists are deferred: a bucket at a time, its blocks
    /// visited last linked first; the lowest bucket found by the chunks' floors once settled
    /// (`blocks/floors.rs`), the ones above it (and the lowest if not settled) by a scan of the plane.
    fn for_each_lowest_deferred(&self, plane: u32, mut visit: impl FnMut(u32, u32) -> bool) {
        let first = (plane * self.blocks_per_plane) as usize;
        let range = first..first + self.blocks_per_plane as usize;
        let (state, valid) = (&self.state[range.clone()], &self.valid[range]);
        let mut bucket: Vec<(u32, u32)> = Vec::new();
        let mut floor = 0u32;
        if let Some((lowest, first_block)) = self.lowest_by_floors(plane) {
            // The last linked first, kept by the floors (greedy's visit stops there): the rest of
            // the bucket gathered and sorted only if the visit goes on.
            if !visit(first_block, lowest) {
                return;
            }
            self.rest_of_lowest(plane, lowest, first_block, &mut bucket);
            bucket.sort_unstable_by(|a, b| b.cmp(a));
            for &(_, block) in &bucket {
                if !visit(block, lowest) {
                    return;
                }
            }
            floor = lowest + 1;
        }
        while floor <= self.units_per_block {
            // Branch-free, so it vectorises: closed blocks at or above the floor count.
            let lowest = state
                .iter()
                .zip(valid)
                .map(|(&state, &valid)| {
                    if state == BlockState::Closed && valid >= floor {
                        valid
                    } else {
                        u32::MAX
                    }
                })
                .min()
                .unwrap_or(u32::MAX);
            if lowest == u32::MAX {
                return;
            }
            bucket.clear();
            for (index, (&state, &valid)) in state.iter().zip(valid).enumerate() {
                if valid == lowest && state == BlockState::Closed {
                    let block = (first + index) as u32;
                    bucket.push((self.stamps[block as usize], block));
                }
            }
            bucket.sort_unstable_by(|a, b| b.cmp(a));
            for &(_, block) in &bucket {
                if !visit(block, lowest) {
                    return;
                }
            }
            floor = lowest + 1;
        }
    }

    /// Bytes of simulator state held by the table.
    pub fn state_bytes(&self) -> usize {
        let per_block = std::mem::size_of::<BlockState>() + 4 * 6 + 8;
        self.state.len() * per_block + (self.heads.len() + self.lowest_hint.len() + self.closed_count.len()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_buckets_follow_invalidations() {
        let mut table = BlockTable::new(1, 4, 8);
        for block in 0..4 {
            for _ in 0..8 {
                table.add_valid(block);
            }
            table.close(block, u64::from(block));
        }
        table.invalidate(2);
        table.invalidate(2);
        table.invalidate(1);
        let mut seen = Vec::new();
        table.settle_hint(0);
        table.for_each_lowest(0, |block, valid| {
            seen.push((block, valid));
            seen.len() < 2
        });
        assert_eq!(seen, [(2, 6), (1, 7)]);
        table.take_victim(2);
        let mut first = None;
        table.settle_hint(0);
        table.for_each_lowest(0, |block, _| {
            first = Some(block);
            false
        });
        assert_eq!(first, Some(1));
    }
}

#[cfg(test)]
mod deferred_tests;
