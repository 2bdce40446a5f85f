//! The FTL's invariant checks (ARCHITECTURE.md, "Invariants"), run by tests and debug tooling after a run:
//! forward and reverse maps agree, valid counts match, every block is in exactly one state, and
//! each mapping scheme's own invariants hold.

use super::blocks::BlockState;
use super::mapping::NONE;
use super::placement::PlacementView;
use super::{Ftl, Scheme};

impl Ftl {
    /// Checks the FTL's invariants (ARCHITECTURE.md, "Invariants"): every mapped logical unit points at a
    /// physical unit that points back at it, in a page written since its block's erase (page mapping here, the block schemes in their own checks); each block's valid count equals the valid units in
    /// it; every block is in exactly one state and the free lists hold exactly the free blocks.
    /// Unmapped logical units are skipped (a drive may hold units never written), so a unit lost
    /// from both maps consistently passes here: [`Self::mapped_units`] after a fill and, in test
    /// builds, `check_versions` (`versions.rs`) catch that.
    pub fn check_invariants(&self) -> Result<(), String> {
        let geometry = self.geometry;
        let mut valid = vec![0u32; geometry.blocks() as usize];
        self.mapping.check_written()?;
        for logical in 0..self.logical_units() {
            let (physical, in_fill_row) = self.mapping.lookup(logical);
            if physical == NONE {
                continue;
            }
            if in_fill_row && !self.is_programmed(physical) {
                return Err(format!(
                    "logical {logical} is where a fill's row put it, in physical {physical}, whose page is not programmed"
                ));
            }
            if self.mapping.logical(physical) != logical {
                return Err(format!(
                    "logical {logical} maps to {physical}, which maps back to {}",
                    self.mapping.logical(physical)
                ));
            }
            let block = geometry.block_of_unit(physical);
            // Page mapping writes a block's pages in order; block mapping and BAST write fixed
            // offsets in any order (with holes where a unit was never written or was trimmed),
            // and their own checks hold every valid page to a page written since the erase.
            if self.is_page_mapped() && geometry.page_of_unit(physical) >= self.blocks.allocated_pages[block as usize] {
                return Err(format!(
                    "logical {logical} maps to page {} of block {block}, which holds only {} written pages",
                    geometry.page_of_unit(physical),
                    self.blocks.allocated_pages[block as usize]
                ));
            }
            valid[block as usize] += 1;
        }
        let mut reverse_valid = 0u64;
        for physical in 0..geometry.physical_units() as u32 {
            let logical = self.mapping.logical(physical);
            if logical != NONE {
                reverse_valid += 1;
                if self.mapping.physical(logical) != physical {
                    return Err(format!(
                        "physical {physical} claims logical {logical}, which maps elsewhere"
                    ));
                }
            }
        }
        let mapped: u64 = valid.iter().map(|&count| u64::from(count)).sum();
        if mapped != reverse_valid {
            return Err(format!(
                "{mapped} mapped logical units but {reverse_valid} valid physical units"
            ));
        }
        for (block, &count) in valid.iter().enumerate() {
            if self.blocks.valid[block] != count {
                return Err(format!(
                    "block {block} counts {} valid units, holds {count}",
                    self.blocks.valid[block]
                ));
            }
        }
        for plane in 0..geometry.planes() {
            let first = geometry.first_block_of_plane(plane);
            let blocks = first..first + geometry.blocks_per_plane;
            let free_state = blocks
                .clone()
                .filter(|&b| self.blocks.state[b as usize] == BlockState::Free)
                .count();
            let closed = blocks
                .clone()
                .filter(|&b| self.blocks.state[b as usize] == BlockState::Closed)
                .count();
            if free_state != self.free[plane as usize].len() {
                return Err(format!(
                    "plane {plane}: {free_state} blocks are free but its free list holds {}",
                    self.free[plane as usize].len()
                ));
            }
            if self.free[plane as usize]
                .iter()
                .any(|&b| self.blocks.state[b as usize] != BlockState::Free || !blocks.contains(&b))
            {
                return Err(format!(
                    "plane {plane}: its free list holds a block that is not a free block of the plane"
                ));
            }
            let fewest = self.free[plane as usize]
                .iter()
                .map(|&b| self.blocks.erase_count[b as usize])
                .min();
            if fewest.is_some_and(|fewest| fewest < self.free_floor[plane as usize]) {
                return Err(format!(
                    "plane {plane}: a free block has {fewest:?} erases, below the free blocks' floor {}",
                    self.free_floor[plane as usize]
                ));
            }
            if closed != self.blocks.closed_count[plane as usize] as usize {
                return Err(format!(
                    "plane {plane}: {closed} closed blocks, counted {}",
                    self.blocks.closed_count[plane as usize]
                ));
            }
            for block in blocks {
                let index = block as usize;
                if self.blocks.state[index] == BlockState::Free
                    && (self.blocks.valid[index] != 0 || self.blocks.allocated_pages[index] != 0)
                {
                    return Err(format!("free block {block} holds data"));
                }
                if self.blocks.programmed_pages[index] > self.blocks.allocated_pages[index] {
                    return Err(format!("block {block} has more pages programmed than allocated"));
                }
                // Pages are written in order from 0 and the counters reset only at an erase, so
                // no page is programmed twice between erases.
                if self.blocks.allocated_pages[index] > geometry.pages_per_block {
                    return Err(format!("block {block} has more pages written than it holds"));
                }
            }
        }
        self.check_slc()?;
        match &self.scheme {
            Scheme::Page => Ok(()),
            Scheme::Block(mapping) => mapping.check(&self.view()),
            Scheme::Bast(bast) => bast.check(&self.view()),
        }
    }

    /// Logical units mapped to a physical unit: after a fill with no trims or power cuts, every
    /// logical unit ([`Self::logical_units`]).
    pub fn mapped_units(&self) -> u32 {
        (0..self.logical_units())
            .filter(|&logical| self.mapping.physical(logical) != NONE)
            .count() as u32
    }

    /// The state a scheme's invariant check reads.
    fn view(&self) -> PlacementView<'_> {
        PlacementView {
            geometry: self.geometry,
            mapping: &self.mapping,
            blocks: &self.blocks,
        }
    }
}
