//! The flash translation layer: page mapping, block allocation, GC victims, preconditioning.
//!
//! Page mapping at mapping-unit granularity (docs/models/ftl.md): host writes fill whole flash
//! pages (a page per plane of the target die when programming multi-plane) striped over dies in
//! channel-major order, so consecutive pages land on different channels. Each plane keeps its own
//! free blocks and two open blocks, one for host data and one for GC copies. GC runs on a plane
//! when its free blocks fall below `gc_threshold` of its blocks; the victim policy is one of
//! `gc/`. Valid data is copied within the plane (read + program), then the victim is erased.
//!
//! The FTL holds state only; the simulation decides when things happen (the functional
//! preconditioning completes every program at once). `ftl.mapping` selects the scheme ([`Scheme`], one file each): page mapping (this file and
//! `gc/`), block mapping (`block.rs`) or BAST (`bast.rs`). Block and BAST decide placement at
//! once and leave the flash work it costs (page copies, erases) in [`Ftl::work`] for the
//! simulation to run with real timing. This file holds the `Ftl` and dispatches to the schemes;
//! they write through a borrowed [`placement::Placement`] and import the shared types from
//! `types.rs`, never this file. Preconditioning (`precondition.rs`, `fill.rs`, `steady.rs`,
//! `steady_draws.rs`), trims (`trim.rs`), SLC blocks (`slc/`) and `invariants.rs` extend `Ftl`.

pub mod bast;
pub mod block;
pub mod blocks;
pub mod fdp;
#[cfg(test)]
mod fdp_tests;
mod fill;
mod fill_layout;
#[cfg(test)]
mod fill_tests;
pub mod gc;
mod gc_copies;
mod invariants;
pub mod mapping;
pub mod params;
pub mod placement;
mod precondition;
pub mod reverse;
pub mod slc;
pub mod snapshot;
mod steady;
mod steady_draws;
mod steady_layout;
#[cfg(test)]
mod tests;
pub mod translation;
mod trim;
pub mod types;
#[cfg(feature = "verify")]
pub mod versions;
pub mod wear;
mod written;
pub mod zoned;

use std::collections::VecDeque;

use blocks::{BlockState, BlockTable};
use gc::{VictimContext, VictimPolicy};
use mapping::{Mapping, NONE};
pub use params::check_mapping;
use params::{FtlConfig, MappingKind};
use placement::Placement;
pub use types::{OpenPage, PlacementCounts, ProgramTarget, SchemeCounts, Stream, WorkItem};

use crate::base::rng::Rng;
use crate::flash::geometry::Geometry;

/// The mapping scheme and its own state (docs/style.md: one file per scheme, a closed enum).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub enum Scheme {
    /// Page mapping: its state is the `Ftl` itself.
    #[default]
    Page,
    Block(block::BlockMapping),
    Bast(bast::Bast),
}

/// The FTL and all its state. Serializable for drive snapshots (`ftl/snapshot.rs`): the mapping
/// table's arrays go raw beside the rest.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Ftl {
    pub geometry: Geometry,
    #[serde(skip)]
    pub mapping: Mapping,
    #[serde(serialize_with = "blocks::serialize_restored")]
    pub blocks: BlockTable,
    free: Vec<VecDeque<u32>>,
    /// Per plane, at most the fewest erases of a free block (`wear/dynamic.rs`); zeros after a load.
    #[serde(skip)]
    free_floor: Vec<u32>,
    /// Open block per plane, indexed `stream * planes + plane`: the current host frontier's (0)
    /// and GC frontier's (1). With FDP (`gc_copies.rs`), rows `2 + frontier` hold the other
    /// frontiers' open blocks (a current frontier's own row is all `NONE`), swapped in when their
    /// frontier becomes current, so the allocation checks index as without FDP.
    active: Vec<u32>,
    /// GC copies waiting for a full page, per plane: the current GC frontier's (row 0); with
    /// FDP, rows `1 + frontier - gc_base` hold the other GC frontiers' (as in `active`).
    gc_open: Vec<Option<OpenPage>>,
    /// Flexible Data Placement (`fdp.rs`); `None`: off.
    #[serde(default)]
    pub fdp: Option<Box<fdp::FdpState>>,
    /// The host frontier (FDP reclaim unit handle) host pages are allocated from.
    #[serde(default)]
    pub handle: u16,
    /// The GC frontier GC pages are allocated from, and the first GC frontier.
    #[serde(default = "first_gc_frontier")]
    gc_frontier: u16,
    #[serde(default = "first_gc_frontier")]
    gc_base: u16,
    /// GC runs on a plane with fewer free blocks than this.
    gc_trigger: usize,
    /// Free blocks below which preconditioning collects ([`Ftl::needs_precondition_gc`]).
    precondition_trigger: usize,
    /// Free blocks per plane below which GC is urgent (0 = never).
    gc_urgent: usize,
    policy: VictimPolicy,
    rng: Rng,
    close_order: u64,
    targets: Vec<ProgramTarget>,
    pub counts: PlacementCounts,
    /// The mapping scheme.
    pub scheme: Scheme,
    /// Flash work left by the last block-mapping or BAST write.
    pub work: Vec<WorkItem>,
    /// Retired blocks whose last pending program just completed: erase them.
    pub ready_erases: Vec<u32>,
    pub ftl_counts: SchemeCounts,
    /// Which free block a plane opens next, and static leveling's relocations.
    pub wear: wear::WearLeveling,
    /// The SLC cache's SLC-mode blocks (`slc/`), with `slc_cache.enabled`.
    pub slc: Option<Box<slc::pool::SlcPool>>,
}

impl Ftl {
    /// The FTL of `config` over `geometry`; `multi_plane` programs a page in every plane of a
    /// die at once (`flash.multi_plane`).
    pub fn new(config: &FtlConfig, multi_plane: bool, geometry: Geometry, rng: Rng) -> Ftl {
        let planes = geometry.planes();
        let logical_units = (geometry.physical_units() as f64 * (1.0 - config.over_provisioning)).floor() as u64;
        let free = (0..planes)
            .map(|plane| {
                let first = geometry.first_block_of_plane(plane);
                (first..first + geometry.blocks_per_plane).collect()
            })
            .collect();
        let gc_trigger = ((config.gc_threshold * f64::from(geometry.blocks_per_plane)).ceil() as usize).max(2);
        let gc_urgent = (config.gc_urgent_threshold * f64::from(geometry.blocks_per_plane)).ceil() as usize;
        let targets = if multi_plane {
            (0..geometry.dies)
                .map(|die| ProgramTarget {
                    die,
                    first_plane: die * geometry.planes_per_die,
                    plane_count: geometry.planes_per_die,
                })
                .collect()
        } else {
            (0..geometry.planes_per_die)
                .flat_map(|plane| {
                    (0..geometry.dies).map(move |die| ProgramTarget {
                        die,
                        first_plane: die * geometry.planes_per_die + plane,
                        plane_count: 1,
                    })
                })
                .collect()
        };
        Ftl {
            geometry,
            mapping: Mapping::new(logical_units, geometry.physical_units()),
            blocks: BlockTable::new(planes, geometry.blocks_per_plane, geometry.units_per_block()),
            free,
            free_floor: vec![0; planes as usize],
            active: vec![NONE; 2 * planes as usize],
            gc_open: vec![None; planes as usize],
            fdp: None,
            handle: 0,
            gc_frontier: 1,
            gc_base: 1,
            gc_trigger,
            precondition_trigger: match config.gc_pacing {
                params::GcPacingKind::Paced => (config.paced_levels(geometry.blocks_per_plane).stop - 1).max(2),
                params::GcPacingKind::Threshold => gc_trigger,
            },
            gc_urgent,
            policy: VictimPolicy::new(config, planes),
            rng,
            close_order: 0,
            targets,
            counts: PlacementCounts::default(),
            scheme: match config.mapping {
                MappingKind::Page => Scheme::Page,
                MappingKind::Block => Scheme::Block(block::BlockMapping::new(
                    logical_units,
                    geometry.pages_per_block,
                    geometry.physical_units(),
                )),
                MappingKind::Bast => Scheme::Bast(bast::Bast::new(
                    logical_units,
                    geometry.pages_per_block,
                    geometry.physical_units(),
                    planes,
                    config.log_blocks,
                )),
            },
            work: Vec::new(),
            ready_erases: Vec::new(),
            ftl_counts: SchemeCounts::default(),
            wear: wear::WearLeveling {
                kind: config.wear_leveling,
                spread: config.static_wear_spread,
            },
            slc: None,
        }
    }

    /// Whether the scheme is page mapping (block and BAST write through [`Self::mapped_write`]).
    #[inline]
    pub fn is_page_mapped(&self) -> bool {
        matches!(self.scheme, Scheme::Page)
    }

    /// Die that a block-mapping or BAST write of `logical` programs.
    pub fn mapped_die(&self, logical: u32) -> u32 {
        let plane = block::DataBlocks::plane_of(&self.geometry, logical / self.geometry.pages_per_block);
        plane / self.geometry.planes_per_die
    }

    /// Block mapping or BAST: places a host write of `logical` and returns its physical page,
    /// leaving the copies and erases it costs in [`Self::work`]; `None` when its plane has no
    /// free block now (nothing changed: retry after an erase).
    pub fn mapped_write(&mut self, logical: u32) -> Option<u32> {
        self.work.clear();
        let mut scheme = std::mem::take(&mut self.scheme);
        let mut placement = self.placement();
        let placed = match &mut scheme {
            Scheme::Page => None,
            Scheme::Block(mapping) => mapping.write(&mut placement, logical),
            Scheme::Bast(bast) => bast.write(&mut placement, logical),
        };
        self.scheme = scheme;
        placed
    }

    /// A program of page `page` of `block` completed.
    pub fn program_done(&mut self, block: u32, page: u32) {
        let bits = match &mut self.scheme {
            Scheme::Page => return self.page_programmed(block),
            Scheme::Block(mapping) => &mut mapping.blocks,
            Scheme::Bast(bast) => &mut bast.blocks,
        };
        bits.programmed.set(self.geometry.unit_address(block, page, 0));
        let index = block as usize;
        self.blocks.programmed_pages[index] += 1;
        if self.blocks.state[index] == BlockState::Victim
            && self.blocks.programmed_pages[index] == self.blocks.allocated_pages[index]
        {
            self.ready_erases.push(block);
        }
    }

    /// Extra bytes of state held by the block-mapping or BAST scheme.
    pub fn scheme_state_bytes(&self) -> usize {
        match &self.scheme {
            Scheme::Page => 0,
            Scheme::Block(mapping) => mapping.blocks.state_bytes(),
            Scheme::Bast(bast) => bast.state_bytes(),
        }
    }

    /// Logical capacity exposed to the host [mapping units].
    pub fn logical_units(&self) -> u32 {
        self.mapping.logical_units() as u32
    }

    /// Program targets in striping order.
    pub fn targets(&self) -> &[ProgramTarget] {
        &self.targets
    }

    pub fn free_blocks(&self, plane: u32) -> usize {
        self.free[plane as usize].len()
    }

    /// Whether `plane` is short of free blocks (page mapping; block and BAST reclaim on write).
    pub fn needs_gc(&self, plane: u32) -> bool {
        self.is_page_mapped() && self.free[plane as usize].len() < self.gc_trigger
    }

    /// Whether a plane of `die` is below the urgent-GC level (`ftl.gc_urgent_threshold`).
    pub fn gc_urgent(&self, die: u32) -> bool {
        let planes = self.geometry.planes_per_die;
        self.gc_urgent > 0
            && (die * planes..(die + 1) * planes).any(|plane| self.free[plane as usize].len() < self.gc_urgent)
    }

    /// Whether the data at `physical` is on flash (its page programmed) rather than in a buffer.
    #[inline]
    pub fn is_programmed(&self, physical: u32) -> bool {
        match &self.scheme {
            Scheme::Page => {
                let block = self.geometry.block_of_unit(physical);
                self.geometry.page_of_unit(physical) < self.blocks.programmed_pages[block as usize]
            }
            Scheme::Block(mapping) => mapping.blocks.programmed.get(physical),
            Scheme::Bast(bast) => bast.blocks.programmed.get(physical),
        }
    }

    fn active_block(&self, plane: u32, stream: Stream) -> u32 {
        self.active[stream as usize * self.geometry.planes() as usize + plane as usize]
    }

    /// Whether `stream` can get a page in `plane` now. Host writes leave the last free block to GC.
    pub fn can_allocate(&self, plane: u32, stream: Stream) -> bool {
        let block = self.active_block(plane, stream);
        if block != NONE && self.blocks.allocated_pages[block as usize] < self.geometry.pages_per_block {
            return true;
        }
        let reserve = if stream == Stream::User { 1 } else { 0 };
        self.free[plane as usize].len() > reserve
    }

    /// Pages left in `stream`'s open block in `plane` (0 when none is open).
    pub(super) fn pages_left(&self, plane: u32, stream: Stream) -> u32 {
        let block = self.active_block(plane, stream);
        if block == NONE {
            0
        } else {
            self.geometry.pages_per_block - self.blocks.allocated_pages[block as usize]
        }
    }

    /// The next page of `stream`'s open block in `plane`, opening a free block if needed.
    /// Call [`Self::can_allocate`] first.
    pub fn allocate_page(&mut self, plane: u32, stream: Stream) -> (u32, u32) {
        let slot = stream as usize * self.geometry.planes() as usize + plane as usize;
        let mut block = self.active[slot];
        if block == NONE || self.blocks.allocated_pages[block as usize] == self.geometry.pages_per_block {
            block = self
                .wear
                .take_free(
                    &mut self.free[plane as usize],
                    &mut self.free_floor[plane as usize],
                    &self.blocks,
                )
                .expect("allocate_page called without a free block");
            self.blocks.state[block as usize] = BlockState::Open;
            self.active[slot] = block;
            if let Some(fdp) = self.fdp.as_deref_mut() {
                let frontier = match stream {
                    Stream::User => self.handle,
                    Stream::Gc => self.gc_frontier,
                };
                fdp.opened_block(frontier, block, plane, self.geometry.planes());
            }
        }
        let page = self.blocks.allocated_pages[block as usize];
        self.blocks.allocated_pages[block as usize] += 1;
        (block, page)
    }

    /// Records that `logical` now lives at `physical`; the old copy becomes stale.
    #[inline]
    pub fn place(&mut self, logical: u32, physical: u32, stream: Stream) {
        if self.fdp.is_some() {
            self.fdp_placed(logical, physical, stream);
        }
        placement::place(
            &mut self.mapping,
            &mut self.blocks,
            &self.geometry,
            &mut self.counts,
            logical,
            physical,
            stream,
        );
    }

    /// A page of `block` finished programming; a block whose pages are all programmed closes.
    pub fn page_programmed(&mut self, block: u32) {
        self.pages_programmed(block, 1);
    }

    /// `pages` pages of `block` finished programming (as many [`Self::page_programmed`] calls).
    pub fn pages_programmed(&mut self, block: u32, pages: u32) {
        let index = block as usize;
        self.blocks.programmed_pages[index] += pages;
        debug_assert!(self.blocks.programmed_pages[index] <= self.geometry.pages_per_block);
        if self.blocks.programmed_pages[index] == self.geometry.pages_per_block {
            self.close_order += 1;
            self.blocks.close(block, self.close_order);
            self.policy.on_close(self.geometry.plane_of_block(block), block);
        }
    }

    /// Chooses and claims a GC victim in `plane`, or `None` if no block would yield space.
    pub fn take_victim(&mut self, plane: u32) -> Option<u32> {
        let mut context = VictimContext {
            blocks: &mut self.blocks,
            plane,
            first_block: self.geometry.first_block_of_plane(plane),
            blocks_per_plane: self.geometry.blocks_per_plane,
            units_per_block: self.geometry.units_per_block(),
            now_order: self.close_order,
            rng: &mut self.rng,
        };
        let victim = self.policy.select(&mut context)?;
        self.claim_victim(victim);
        Some(victim)
    }

    /// Claims the closed `block` as the victim of its plane, whatever the victim policy would
    /// choose (read reclaim, static wear leveling); false if it is not closed.
    pub fn take_block(&mut self, block: u32) -> bool {
        if self.blocks.state[block as usize] != BlockState::Closed {
            return false;
        }
        self.claim_victim(block);
        true
    }

    /// Static wear leveling: the closed block of `plane` to relocate now, if any (page mapping).
    pub fn cold_block(&self, plane: u32) -> Option<u32> {
        if !self.is_page_mapped() {
            return None;
        }
        let first = self.geometry.first_block_of_plane(plane);
        self.wear
            .cold_block(&self.blocks, first..first + self.geometry.blocks_per_plane)
    }

    fn claim_victim(&mut self, victim: u32) {
        let plane = self.geometry.plane_of_block(victim);
        self.blocks.take_victim(victim);
        // A full block stays its stream's open block until the stream's next allocation moves on;
        // once erased it must not be written through that stale reference.
        let planes = self.geometry.planes() as usize;
        for stream in [Stream::User, Stream::Gc] {
            let slot = stream as usize * planes + plane as usize;
            if self.active[slot] == victim {
                self.active[slot] = NONE;
            }
        }
        if self.fdp.is_some() {
            // The other frontiers' rows (`active`).
            for slot in (2 * planes + plane as usize..self.active.len()).step_by(planes) {
                if self.active[slot] == victim {
                    self.active[slot] = NONE;
                }
            }
            self.fdp_victim(victim);
        }
    }

    /// An erased victim returns to its plane's free blocks.
    pub fn erase(&mut self, block: u32) {
        let pages = self.geometry.pages_per_block;
        let first = self.geometry.unit_address(block, 0, 0);
        match &mut self.scheme {
            Scheme::Page => {}
            Scheme::Block(mapping) => {
                mapping.blocks.written.clear(first, pages);
                mapping.blocks.programmed.clear(first, pages);
            }
            Scheme::Bast(bast) => {
                bast.blocks.written.clear(first, pages);
                bast.blocks.programmed.clear(first, pages);
            }
        }
        if let Some(fdp) = self.fdp.as_deref_mut() {
            fdp.erased_block(block);
        }
        self.blocks.erase(block);
        let plane = self.geometry.plane_of_block(block) as usize;
        self.free[plane].push_back(block);
        wear::freed(&mut self.free_floor[plane], block, &self.blocks);
        self.counts.erases += 1;
    }

    /// The state a mapping scheme writes through, borrowed from this FTL.
    fn placement(&mut self) -> Placement<'_> {
        Placement {
            geometry: self.geometry,
            mapping: &mut self.mapping,
            blocks: &mut self.blocks,
            free: &mut self.free,
            counts: &mut self.counts,
            work: &mut self.work,
            ftl_counts: &mut self.ftl_counts,
        }
    }
}

fn first_gc_frontier() -> u16 {
    1
}
