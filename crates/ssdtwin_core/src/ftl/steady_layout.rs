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

use std::collections::HashMap;

use super::blocks::BlockTable;
use super::mapping::{encode, NONE};
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
        let (dies, planes_per_die) = (geometry.dies, geometry.planes_per_die);
        for visit in 0..self.blocks.valid.len() as u32 {
            let (die, rest) = (visit % dies, visit / dies);
            let plane = die * planes_per_die + rest % planes_per_die;
            let block = plane * geometry.blocks_per_plane + rest / planes_per_die;
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
            Stores::OneThread => walk.run(&deal, rng, |logical, physical| {
                debug_assert_eq!(encode(forward[logical as usize]), NONE);
                debug_assert_eq!(encode(reverse.get(physical)), NONE);
                forward[logical as usize] = encode(physical);
                reverse.set(physical, encode(logical));
            }),
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
                    let placed = walk.run(deal, rng, |logical, physical| {
                        debug_assert_eq!(encode(reverse.get(physical)), NONE);
                        reverse.set(physical, encode(logical));
                    });
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
