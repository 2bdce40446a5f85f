//! The mapping layout of statistical `steady` preconditioning (`steady.rs`): each block's valid
//! units at random written slots, the span's logical units in the order of a [`Deal`].
//!
//! The layout's cost is its stores: a forward entry per unit in one of the deal's 1,024 streams
//! and a reverse entry per unit in the block's run (measured on full-size `enterprise_tlc`: 1.9 s
//! of CPU on one thread, most of it in the two stores; 0.9 s and 0.7 s on two). So it runs on two
//! threads that walk the same blocks and draw the same subsets from the same random numbers (the
//! reverse thread's generator and a copy of it), one storing the forward entries and the other the
//! reverse ones: the same pairs as one thread storing both, whatever the timing (a test in
//! `steady.rs` compares them).
//!
//! A reverse map in a file (`ftl.reverse_map = "file"`) is not stored entry by entry through its
//! cache of block runs (a read and a write of 1 KiB per block of the 61.44 TB QLC drive: 34 M
//! system calls): the reverse entries of a window of consecutive visits (each plane's part of it
//! a range of consecutive blocks) are gathered in memory and read and written a plane's range at
//! a time ([`Window`]), 32 MiB a window.

use std::collections::HashMap;

use super::blocks::BlockTable;
use super::mapping::{encode, NONE};
use super::reverse::Reverse;
use super::steady_draws::{Deal, Subset};
use super::Ftl;
use crate::base::rng::Rng;
use crate::flash::geometry::Geometry;

/// Per page still being filled, by (block, page): how many of its slots hold data.
pub(super) type PartialPages = HashMap<(u32, u32), u32>;

/// How the layout stores its pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// One thread stores both entries of each pair.
    OneThread,
    /// Two threads, one per map (module docs).
    TwoThreads,
}

/// What the layout walks, shared by the threads: the blocks' valid units and written pages.
struct Walk<'a> {
    geometry: Geometry,
    blocks: &'a BlockTable,
    partial: &'a PartialPages,
    /// The blocks with a page still being filled, sorted.
    partial_blocks: Vec<u32>,
}

impl Walk<'_> {
    /// Calls `store(logical, physical)` for every valid unit, blocks in striping order (a block of
    /// each die in turn, channel-major, then the next plane and block, so the few logical
    /// neighbours a deal puts in consecutive blocks sit on different dies and channels, not in
    /// one plane), a uniformly random subset of each block's written slots, the logical units in
    /// the deal's order. Returns how many units it placed.
    fn run(&self, deal: &Deal, rng: &mut Rng, mut store: impl FnMut(u32, u32)) -> u32 {
        let geometry = self.geometry;
        let units_per_page = geometry.units_per_page;
        let mut logical = deal.iter();
        let mut slots: Vec<u32> = Vec::with_capacity(geometry.units_per_block() as usize);
        let mut subset = Subset::new(geometry.units_per_block());
        let mut placed = 0u32;
        for visit in 0..self.blocks.valid.len() as u32 {
            let block = self.block_of(visit);
            let needed = self.blocks.valid[block as usize];
            if needed == 0 {
                continue;
            }
            let pages = self.blocks.allocated_pages[block as usize];
            let first = geometry.unit_address(block, 0, 0);
            let partial_block = self.partial_blocks.binary_search(&block).is_ok();
            let written = if partial_block {
                slots.clear();
                for page in 0..pages {
                    let filled = self.partial.get(&(block, page)).copied().unwrap_or(units_per_page);
                    slots.extend((0..filled).map(|slot| geometry.unit_address(block, page, slot)));
                }
                slots.len() as u32
            } else {
                pages * units_per_page
            };
            debug_assert!(
                needed <= written,
                "block {block}: {needed} valid units in {written} slots"
            );
            // A uniformly random subset of the written slots keeps the valid units.
            for index in subset.draw(written, needed, rng) {
                let physical = if partial_block {
                    slots[index as usize]
                } else {
                    first + index
                };
                store(logical.next().expect("one per valid unit"), physical);
            }
            placed += needed;
        }
        placed
    }
}

impl Walk<'_> {
    /// The block of `visit` ([`Self::run`]'s order).
    fn block_of(&self, visit: u32) -> u32 {
        let (dies, planes_per_die) = (self.geometry.dies, self.geometry.planes_per_die);
        let (die, rest) = (visit % dies, visit / dies);
        let plane = die * planes_per_die + rest % planes_per_die;
        plane * self.geometry.blocks_per_plane + rest / planes_per_die
    }

    /// The visit of `block` (the inverse of [`Self::block_of`]).
    fn visit_of(&self, block: u32) -> u32 {
        let (dies, planes_per_die) = (self.geometry.dies, self.geometry.planes_per_die);
        let (plane, index) = (
            block / self.geometry.blocks_per_plane,
            block % self.geometry.blocks_per_plane,
        );
        let (die, plane_of_die) = (plane / planes_per_die, plane % planes_per_die);
        (index * planes_per_die + plane_of_die) * dies + die
    }
}

/// Bytes of reverse entries a [`Window`] gathers (at least a block of each plane); in tests a few
/// blocks, so that a small drive's layout opens and closes many windows.
#[cfg(not(test))]
const WINDOW_BYTES: usize = 32 << 20;
#[cfg(test)]
const WINDOW_BYTES: usize = 4 << 10;

/// The reverse entries of the blocks of a window of consecutive visits, in block order, read from
/// the map when the window opens and written back when it closes, a range of consecutive blocks
/// (a plane's part of the window) per read and write (module docs).
struct Window<'a> {
    walk: &'a Walk<'a>,
    /// Visits per window: a multiple of the planes.
    visits: u32,
    /// The window's first visit (`NONE` before the first).
    first: u32,
    /// The block being stored and where its entries start in `entries`.
    block: u32,
    offset: usize,
    /// Per visit of the window, where its block's entries start in `entries`.
    offsets: Vec<usize>,
    /// The window's ranges of consecutive blocks: first block, blocks, where in `entries`.
    ranges: Vec<(u32, u32, usize)>,
    entries: Vec<u32>,
}

impl<'a> Window<'a> {
    fn new(walk: &'a Walk<'a>) -> Window<'a> {
        let units_per_block = walk.geometry.units_per_block() as usize;
        let planes = walk.geometry.planes() as usize;
        let blocks = walk.blocks.valid.len();
        let rows = (WINDOW_BYTES / (4 * units_per_block * planes)).max(1);
        let visits = (rows * planes).min(blocks.max(1)) as u32;
        Window {
            walk,
            visits,
            first: NONE,
            block: NONE,
            offset: 0,
            offsets: Vec::new(),
            ranges: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// Stores `logical` as the reverse entry of `physical`.
    #[inline]
    fn store(&mut self, reverse: &mut Reverse, logical: u32, physical: u32) {
        let units_per_block = self.walk.geometry.units_per_block();
        let block = physical / units_per_block;
        if block != self.block {
            let visit = self.walk.visit_of(block);
            if self.first == NONE || !(self.first..self.first + self.visits).contains(&visit) {
                self.close(reverse);
                self.open(reverse, visit - visit % self.visits);
            }
            self.block = block;
            self.offset = self.offsets[(visit - self.first) as usize];
        }
        let entry = &mut self.entries[self.offset + (physical % units_per_block) as usize];
        debug_assert_eq!(encode(*entry), NONE);
        *entry = encode(logical);
    }

    /// Opens the window of visits from `first`: its blocks' entries read in.
    fn open(&mut self, reverse: &Reverse, first: u32) {
        let units_per_block = self.walk.geometry.units_per_block() as usize;
        let end = (first + self.visits).min(self.walk.blocks.valid.len() as u32);
        let mut blocks: Vec<(u32, u32)> = (first..end).map(|visit| (self.walk.block_of(visit), visit)).collect();
        blocks.sort_unstable();
        self.offsets.clear();
        self.offsets.resize((end - first) as usize, 0);
        self.ranges.clear();
        for (index, &(block, visit)) in blocks.iter().enumerate() {
            self.offsets[(visit - first) as usize] = index * units_per_block;
            match self.ranges.last_mut() {
                Some((start, count, _)) if *start + *count == block => *count += 1,
                _ => self.ranges.push((block, 1, index * units_per_block)),
            }
        }
        self.entries.resize(blocks.len() * units_per_block, 0);
        for &(block, count, at) in &self.ranges {
            let len = count as usize * units_per_block;
            reverse.read_entries(block as usize * units_per_block, &mut self.entries[at..at + len]);
        }
        self.first = first;
    }

    /// Writes the open window's entries back, if a window is open.
    fn close(&mut self, reverse: &mut Reverse) {
        if self.first == NONE {
            return;
        }
        let units_per_block = self.walk.geometry.units_per_block() as usize;
        for &(block, count, at) in &self.ranges {
            let len = count as usize * units_per_block;
            reverse.write_entries(block as usize * units_per_block, &self.entries[at..at + len]);
        }
        self.first = NONE;
    }
}

impl Ftl {
    /// Lays out the mapping table for the block table's valid counts (module docs).
    pub(super) fn lay_out_mapping(&mut self, span_units: u32, partial: &PartialPages, rng: &mut Rng, stores: Stores) {
        // The table is still empty: the fill and the overwrites only counted.
        debug_assert!((0..span_units).all(|logical| self.mapping.physical(logical) == NONE));
        let deal = Deal::new(span_units, rng);
        let mut partial_blocks: Vec<u32> = partial.keys().map(|&(block, _)| block).collect();
        partial_blocks.sort_unstable();
        let walk = Walk {
            geometry: self.geometry,
            blocks: &self.blocks,
            partial,
            partial_blocks,
        };
        let (forward, reverse) = self.mapping.arrays_mut();
        let placed = match stores {
            Stores::OneThread if !matches!(reverse, Reverse::File(_)) => walk.run(&deal, rng, |logical, physical| {
                debug_assert_eq!(encode(forward[logical as usize]), NONE);
                debug_assert_eq!(encode(reverse.get(physical)), NONE);
                forward[logical as usize] = encode(physical);
                reverse.set(physical, encode(logical));
            }),
            Stores::OneThread => {
                let mut window = Window::new(&walk);
                let placed = walk.run(&deal, rng, |logical, physical| {
                    debug_assert_eq!(encode(forward[logical as usize]), NONE);
                    forward[logical as usize] = encode(physical);
                    window.store(reverse, logical, physical);
                });
                window.close(reverse);
                placed
            }
            Stores::TwoThreads => {
                let mut copy = rng.clone();
                let (walk, deal) = (&walk, &deal);
                std::thread::scope(|scope| {
                    let forward_stores = scope.spawn(move || {
                        walk.run(deal, &mut copy, |logical, physical| {
                            debug_assert_eq!(encode(forward[logical as usize]), NONE);
                            forward[logical as usize] = encode(physical);
                        })
                    });
                    let placed = store_reverse(walk, deal, rng, reverse);
                    let forward_placed = forward_stores
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    assert_eq!(forward_placed, placed, "the two walks place the same units");
                    placed
                })
            }
        };
        assert_eq!(placed, span_units, "the block table holds the span's units");
        #[cfg(feature = "verify")]
        for logical in 0..span_units {
            let physical = self.mapping.physical(logical);
            self.mapping
                .versions
                .placed(logical, physical, NONE, super::types::Stream::User);
        }
    }
}

/// The reverse thread's walk: entry by entry in memory, through a [`Window`] in a file.
fn store_reverse(walk: &Walk<'_>, deal: &Deal, rng: &mut Rng, reverse: &mut Reverse) -> u32 {
    if !matches!(reverse, Reverse::File(_)) {
        return walk.run(deal, rng, |logical, physical| {
            debug_assert_eq!(encode(reverse.get(physical)), NONE);
            reverse.set(physical, encode(logical));
        });
    }
    let mut window = Window::new(walk);
    let placed = walk.run(deal, rng, |logical, physical| window.store(reverse, logical, physical));
    window.close(reverse);
    placed
}
