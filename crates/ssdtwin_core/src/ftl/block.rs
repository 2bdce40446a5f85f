//! Block-level mapping (Cho et al., section III-C): logical block `lb` lives in one physical
//! block of plane `lb % planes`, each logical page at its fixed page offset. Writing an offset
//! that is free in the data block programs it in place; writing an offset already written
//! allocates a new block, copies the logical block's other valid pages to it (same offsets),
//! writes the new data there and erases the old block ("a new empty block is allocated to copy
//! valid pages of original block and eliminate original blocks").
//!
//! [`DataBlocks`] holds what block mapping and BAST share: the data block of each logical block,
//! which pages were written since their block's erase, and which programs completed. Pages of a
//! data block are programmed in offset order of arrival, not in page order, as the block-mapped
//! FTLs of that era assume. The page-level `Mapping` of the FTL still records where every
//! logical page lives, so reads, valid counts and invariants work as for page mapping; the
//! decisions here only constrain where data goes. Work that needs flash time (copies, erases) is
//! appended to the FTL's `work` (through [`Placement`]) for the simulation to run; an erase waits until every page program of
//! its block has completed.

use super::blocks::BlockState;
use super::mapping::NONE;
use super::placement::{Placement, PlacementView};
use super::types::{Stream, WorkItem};
use crate::flash::geometry::Geometry;

/// One bit per physical page.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PageBits {
    words: Vec<u64>,
}

impl PageBits {
    pub fn new(pages: u64) -> PageBits {
        PageBits {
            words: vec![0; pages.div_ceil(64) as usize],
        }
    }
    #[inline]
    pub fn get(&self, page: u32) -> bool {
        self.words[(page / 64) as usize] >> (page % 64) & 1 == 1
    }
    #[inline]
    pub fn set(&mut self, page: u32) {
        self.words[(page / 64) as usize] |= 1 << (page % 64);
    }
    /// Clears pages `first..first + count`.
    pub fn clear(&mut self, first: u32, count: u32) {
        for page in first..first + count {
            self.words[(page / 64) as usize] &= !(1 << (page % 64));
        }
    }
    /// Set bits among pages `first..first + count`.
    pub fn count(&self, first: u32, count: u32) -> u32 {
        (first..first + count).filter(|&page| self.get(page)).count() as u32
    }
    pub fn state_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

/// Data blocks of logical blocks, and page state, shared by block mapping and BAST.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DataBlocks {
    /// Physical data block of each logical block, or [`NONE`] before its first write.
    pub data: Vec<u32>,
    /// Pages written (handed out) since their block's erase.
    pub written: PageBits,
    /// Pages whose program completed.
    pub programmed: PageBits,
}

impl DataBlocks {
    pub fn new(ftl_logical_units: u64, pages_per_block: u32, physical_pages: u64) -> DataBlocks {
        DataBlocks {
            data: vec![NONE; ftl_logical_units.div_ceil(u64::from(pages_per_block)) as usize],
            written: PageBits::new(physical_pages),
            programmed: PageBits::new(physical_pages),
        }
    }

    pub fn state_bytes(&self) -> usize {
        self.data.capacity() * 4 + self.written.state_bytes() + self.programmed.state_bytes()
    }

    /// Plane holding logical block `logical_block` (and its log block under BAST).
    pub fn plane_of(geometry: &Geometry, logical_block: u32) -> u32 {
        logical_block % geometry.planes()
    }

    /// Takes a free block of `plane` (the caller checked there is one).
    pub fn open_block(ftl: &mut Placement<'_>, plane: u32) -> u32 {
        let block = ftl.free[plane as usize]
            .pop_front()
            .expect("open_block called without a free block");
        ftl.blocks.state[block as usize] = BlockState::Open;
        block
    }

    /// Hands out page `page` of `block`; returns its physical unit.
    pub fn claim(&mut self, ftl: &mut Placement<'_>, block: u32, page: u32) -> u32 {
        let unit = ftl.geometry.unit_address(block, page, 0);
        debug_assert!(!self.written.get(unit), "page {page} of block {block} written twice");
        self.written.set(unit);
        ftl.blocks.allocated_pages[block as usize] += 1;
        unit
    }

    pub fn is_written(&self, ftl: &Placement<'_>, block: u32, page: u32) -> bool {
        self.written.get(ftl.geometry.unit_address(block, page, 0))
    }

    /// Copies every valid page of `logical_block` except offset `skip` to the same offset of
    /// `to`; returns the number of copies.
    pub fn copy_logical_block(
        &mut self,
        ftl: &mut Placement<'_>,
        logical_block: u32,
        to: u32,
        skip: Option<u32>,
    ) -> u64 {
        let pages_per_block = ftl.geometry.pages_per_block;
        let mut copies = 0;
        for offset in 0..pages_per_block {
            if skip == Some(offset) {
                continue;
            }
            let logical = logical_block * pages_per_block + offset;
            if logical >= ftl.logical_units() {
                break;
            }
            let from = ftl.mapping.physical(logical);
            if from == NONE {
                continue;
            }
            let unit = self.claim(ftl, to, offset);
            ftl.place(logical, unit, Stream::Gc);
            ftl.work.push(WorkItem::Copy { from, to: unit });
            copies += 1;
        }
        copies
    }

    /// `block` holds no valid data any more: it is erased once its pending programs are done.
    pub fn retire(ftl: &mut Placement<'_>, block: u32) {
        debug_assert_eq!(ftl.blocks.valid[block as usize], 0, "retiring a block with valid data");
        ftl.blocks.state[block as usize] = BlockState::Victim;
        if ftl.blocks.programmed_pages[block as usize] == ftl.blocks.allocated_pages[block as usize] {
            ftl.work.push(WorkItem::Erase { block });
        }
    }

    /// Checks the shared invariants: page bits agree with the block counters, valid pages were
    /// written, and each logical block's data block is an open block of its plane used once.
    pub fn check(&self, ftl: &PlacementView<'_>) -> Result<(), String> {
        let geometry = ftl.geometry;
        let pages_per_block = geometry.pages_per_block;
        for block in 0..geometry.blocks() {
            let first = geometry.unit_address(block, 0, 0);
            let written = self.written.count(first, pages_per_block);
            let programmed = self.programmed.count(first, pages_per_block);
            let index = block as usize;
            if written != ftl.blocks.allocated_pages[index] || programmed != ftl.blocks.programmed_pages[index] {
                return Err(format!(
                    "block {block}: {written} pages written and {programmed} programmed, counted {} and {}",
                    ftl.blocks.allocated_pages[index], ftl.blocks.programmed_pages[index]
                ));
            }
            for unit in first..first + pages_per_block {
                if self.programmed.get(unit) && !self.written.get(unit) {
                    return Err(format!("page {unit} programmed but never written"));
                }
                if ftl.mapping.logical(unit) != NONE && !self.written.get(unit) {
                    return Err(format!("page {unit} holds valid data but was never written"));
                }
            }
        }
        let mut owner = vec![NONE; geometry.blocks() as usize];
        for (logical_block, &block) in self.data.iter().enumerate() {
            if block == NONE {
                continue;
            }
            let logical_block = logical_block as u32;
            if ftl.blocks.state[block as usize] != BlockState::Open {
                return Err(format!(
                    "data block {block} of logical block {logical_block} is not open"
                ));
            }
            if geometry.plane_of_block(block) != Self::plane_of(&ftl.geometry, logical_block) {
                return Err(format!(
                    "data block {block} of logical block {logical_block} is in another plane"
                ));
            }
            if owner[block as usize] != NONE {
                return Err(format!("block {block} is the data block of two logical blocks"));
            }
            owner[block as usize] = logical_block;
        }
        Ok(())
    }
}

/// Block mapping: no log blocks, every update of a written offset rewrites the block.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BlockMapping {
    pub blocks: DataBlocks,
}

impl BlockMapping {
    pub fn new(logical_units: u64, pages_per_block: u32, physical_pages: u64) -> BlockMapping {
        BlockMapping {
            blocks: DataBlocks::new(logical_units, pages_per_block, physical_pages),
        }
    }

    /// Places a host write of `logical`; returns its physical page, or `None` when its plane has
    /// no free block now (nothing changed).
    pub fn write(&mut self, ftl: &mut Placement<'_>, logical: u32) -> Option<u32> {
        let pages_per_block = ftl.geometry.pages_per_block;
        let (logical_block, offset) = (logical / pages_per_block, logical % pages_per_block);
        let data = self.blocks.data[logical_block as usize];
        if data != NONE && !self.blocks.is_written(ftl, data, offset) {
            let unit = self.blocks.claim(ftl, data, offset);
            ftl.place(logical, unit, Stream::User);
            return Some(unit);
        }
        let plane = DataBlocks::plane_of(&ftl.geometry, logical_block);
        if ftl.free[plane as usize].is_empty() {
            return None;
        }
        let fresh = DataBlocks::open_block(ftl, plane);
        if data != NONE {
            let copies = self.blocks.copy_logical_block(ftl, logical_block, fresh, Some(offset));
            ftl.ftl_counts.valid_page_copies += copies;
            ftl.ftl_counts.block_update_erases += 1;
        }
        let unit = self.blocks.claim(ftl, fresh, offset);
        ftl.place(logical, unit, Stream::User);
        if data != NONE {
            DataBlocks::retire(ftl, data);
        }
        self.blocks.data[logical_block as usize] = fresh;
        Some(unit)
    }

    /// Every logical page lives in its logical block's data block at its own offset.
    pub fn check(&self, ftl: &PlacementView<'_>) -> Result<(), String> {
        self.blocks.check(ftl)?;
        let pages_per_block = ftl.geometry.pages_per_block;
        for logical in 0..ftl.logical_units() {
            let physical = ftl.mapping.physical(logical);
            if physical == NONE {
                continue;
            }
            let expected = ftl.geometry.unit_address(
                self.blocks.data[(logical / pages_per_block) as usize],
                logical % pages_per_block,
                0,
            );
            if physical != expected {
                return Err(format!(
                    "logical page {logical} at {physical}, not at its offset {expected} of its data block"
                ));
            }
        }
        Ok(())
    }
}
