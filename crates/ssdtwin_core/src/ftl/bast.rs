//! BAST, block-associative sector translation (Kim, Kim, Noh, Min and Cho, "A space-efficient
//! flash translation layer for CompactFlash systems", IEEE TCE 48(2), 2002; Cho et al., section
//! III-C): block mapping plus a small pool of log blocks, each tied to one logical block and
//! written page by page in arrival order (page-mapped inside).
//!
//! A write to an offset that is free in its data block goes in place. Otherwise it is appended to
//! the logical block's log block. A logical block without one gets a fresh log block; when its
//! plane's share of the pool (`ftl.log_blocks` split evenly over the planes) is in use, the
//! plane's oldest log block is merged first. A full log block is merged before the next write.
//! Merges:
//!
//! * switch: the log block holds every offset in order (page i = offset i, all valid); it becomes
//!   the data block and the old data block is erased (0 copies, 1 erase);
//! * partial: the log block holds offsets 0..k in order and nothing else; the data block's valid
//!   pages k.. are copied into the log block's remaining pages, which becomes the data block
//!   (copies, 1 erase);
//! * full: every valid page of the logical block is copied to a new block at its offset; the data
//!   block and the log block are erased ("cost of maximum n page copying and cost of 2 block
//!   elimination", Cho et al.).

use std::collections::VecDeque;

use super::block::DataBlocks;
use super::mapping::NONE;
use super::placement::{Placement, PlacementView};
use super::types::{Stream, WorkItem};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Bast {
    pub blocks: DataBlocks,
    /// Log block of each logical block, or [`NONE`].
    pub log: Vec<u32>,
    /// Logical blocks holding a log block, per plane, oldest first.
    pub log_owners: Vec<VecDeque<u32>>,
    /// Log blocks each plane may hold at once.
    pub quota: Vec<u32>,
}

impl Bast {
    pub fn new(logical_units: u64, pages_per_block: u32, physical_pages: u64, planes: u32, log_blocks: u32) -> Bast {
        let blocks = DataBlocks::new(logical_units, pages_per_block, physical_pages);
        let logical_blocks = blocks.data.len();
        Bast {
            blocks,
            log: vec![NONE; logical_blocks],
            log_owners: (0..planes).map(|_| VecDeque::new()).collect(),
            quota: (0..planes)
                .map(|plane| log_blocks / planes + u32::from(plane < log_blocks % planes))
                .collect(),
        }
    }

    pub fn state_bytes(&self) -> usize {
        let owners: usize = self.log_owners.iter().map(|owners| owners.capacity() * 4).sum();
        self.blocks.state_bytes() + self.log.capacity() * 4 + self.quota.capacity() * 4 + owners
    }

    /// Places a host write of `logical`; returns its physical page, or `None` when its plane lacks
    /// the free blocks a merge might need now (nothing changed).
    pub fn write(&mut self, ftl: &mut Placement<'_>, logical: u32) -> Option<u32> {
        let pages_per_block = ftl.geometry.pages_per_block;
        let (logical_block, offset) = (logical / pages_per_block, logical % pages_per_block);
        let plane = DataBlocks::plane_of(&ftl.geometry, logical_block);
        let data = self.blocks.data[logical_block as usize];
        if data == NONE {
            if ftl.free[plane as usize].is_empty() {
                return None;
            }
            let fresh = DataBlocks::open_block(ftl, plane);
            self.blocks.data[logical_block as usize] = fresh;
            return Some(self.write_at(ftl, logical, fresh, offset));
        }
        if !self.blocks.is_written(ftl, data, offset) {
            return Some(self.write_at(ftl, logical, data, offset));
        }
        let log = self.log[logical_block as usize];
        if log != NONE && ftl.blocks.allocated_pages[log as usize] < pages_per_block {
            let page = ftl.blocks.allocated_pages[log as usize];
            return Some(self.write_at(ftl, logical, log, page));
        }
        // A new log block, after at most one full merge: two free blocks cover both.
        if ftl.free[plane as usize].len() < 2 {
            return None;
        }
        if log != NONE {
            self.merge(ftl, logical_block);
        } else {
            if self.log_owners[plane as usize].len() as u32 >= self.quota[plane as usize] {
                let oldest = self.log_owners[plane as usize]
                    .pop_front()
                    .expect("a plane at its quota holds a log block");
                self.merge(ftl, oldest);
            }
            self.log_owners[plane as usize].push_back(logical_block);
        }
        let fresh = DataBlocks::open_block(ftl, plane);
        self.log[logical_block as usize] = fresh;
        Some(self.write_at(ftl, logical, fresh, 0))
    }

    fn write_at(&mut self, ftl: &mut Placement<'_>, logical: u32, block: u32, page: u32) -> u32 {
        let unit = self.blocks.claim(ftl, block, page);
        ftl.place(logical, unit, Stream::User);
        unit
    }

    /// Merges the log block of `logical_block` with its data block (switch, partial or full).
    fn merge(&mut self, ftl: &mut Placement<'_>, logical_block: u32) {
        let geometry = ftl.geometry;
        let pages_per_block = geometry.pages_per_block;
        let log = std::mem::replace(&mut self.log[logical_block as usize], NONE);
        let data = self.blocks.data[logical_block as usize];
        let filled = ftl.blocks.allocated_pages[log as usize];
        let first_logical = logical_block * pages_per_block;
        let in_order =
            (0..filled).all(|page| ftl.mapping.logical(geometry.unit_address(log, page, 0)) == first_logical + page);
        let counts = &mut ftl.ftl_counts;
        if in_order && filled == pages_per_block {
            counts.switch_merges += 1;
            counts.switch_merge_erases += 1;
            self.blocks.data[logical_block as usize] = log;
            DataBlocks::retire(ftl, data);
        } else if in_order {
            let mut copies = 0;
            for offset in filled..pages_per_block {
                let logical = first_logical + offset;
                if logical >= ftl.logical_units() {
                    break;
                }
                let from = ftl.mapping.physical(logical);
                if from == NONE {
                    continue;
                }
                let unit = self.blocks.claim(ftl, log, offset);
                ftl.place(logical, unit, Stream::Gc);
                ftl.work.push(WorkItem::Copy { from, to: unit });
                copies += 1;
            }
            let counts = &mut ftl.ftl_counts;
            counts.partial_merges += 1;
            counts.partial_merge_erases += 1;
            counts.valid_page_copies += copies;
            self.blocks.data[logical_block as usize] = log;
            DataBlocks::retire(ftl, data);
        } else {
            let fresh = DataBlocks::open_block(ftl, geometry.plane_of_block(data));
            let copies = self.blocks.copy_logical_block(ftl, logical_block, fresh, None);
            let counts = &mut ftl.ftl_counts;
            counts.full_merges += 1;
            counts.full_merge_erases += 2;
            counts.valid_page_copies += copies;
            self.blocks.data[logical_block as usize] = fresh;
            DataBlocks::retire(ftl, data);
            DataBlocks::retire(ftl, log);
        }
    }

    /// Every logical page lives at its offset of its data block or in its log block; each plane
    /// holds at most its quota of log blocks, listed once each in its queue.
    pub fn check(&self, ftl: &PlacementView<'_>) -> Result<(), String> {
        self.blocks.check(ftl)?;
        let pages_per_block = ftl.geometry.pages_per_block;
        for logical in 0..ftl.logical_units() {
            let physical = ftl.mapping.physical(logical);
            if physical == NONE {
                continue;
            }
            let logical_block = logical / pages_per_block;
            let block = ftl.geometry.block_of_unit(physical);
            let in_data = block == self.blocks.data[logical_block as usize]
                && ftl.geometry.page_of_unit(physical) == logical % pages_per_block;
            if !in_data && block != self.log[logical_block as usize] {
                return Err(format!(
                    "logical page {logical} at {physical}: neither at its offset of its data block nor in its log block"
                ));
            }
        }
        for (plane, owners) in self.log_owners.iter().enumerate() {
            if owners.len() as u32 > self.quota[plane] {
                return Err(format!(
                    "plane {plane} holds {} log blocks, more than its quota {}",
                    owners.len(),
                    self.quota[plane]
                ));
            }
            for &owner in owners {
                let log = self.log[owner as usize];
                if log == NONE || ftl.geometry.plane_of_block(log) as usize != plane {
                    return Err(format!(
                        "plane {plane} lists logical block {owner}, which has no log block there"
                    ));
                }
                if log == self.blocks.data[owner as usize] {
                    return Err(format!("log block {log} is also a data block"));
                }
            }
        }
        let listed: usize = self.log_owners.iter().map(VecDeque::len).sum();
        let held = self.log.iter().filter(|&&log| log != NONE).count();
        if listed != held {
            return Err(format!("{held} log blocks held but {listed} listed"));
        }
        Ok(())
    }
}
