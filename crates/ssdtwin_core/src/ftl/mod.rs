//! The flash translation layer: page mapping, block allocation, GC victims, preconditioning.
//!
//! Page mapping at mapping-unit granularity (DESIGN section 4): host writes fill whole flash
//! pages (a page per plane of the target die when programming multi-plane) striped over dies in
//! channel-major order, so consecutive pages land on different channels. Each plane keeps its own
//! free blocks and two open blocks, one for host data and one for GC copies. GC runs on a plane
//! when its free blocks fall below `gc_threshold` of its blocks; the victim policy is one of
//! `gc/`. Valid data is copied within the plane (read + program), then the victim is erased.
//!
//! The FTL holds state only; the simulation decides when things happen. The same calls serve the
//! timed run and the functional preconditioning, which completes every program at once.
//!
//! `ftl.mapping` selects the scheme ([`Scheme`], one file each): page mapping (this file and
//! `gc/`), block mapping (`block.rs`) or BAST (`bast.rs`). Block and BAST decide placement at
//! once and leave the flash work it costs (page copies, erases) in [`Ftl::work`] for the
//! simulation to run with real timing.

pub mod bast;
pub mod block;
pub mod blocks;
pub mod gc;
pub mod mapping;

use std::collections::VecDeque;

use blocks::{BlockState, BlockTable};
use gc::{VictimContext, VictimPolicy};
use mapping::{Mapping, NONE};

use crate::config::{ConfigError, MappingKind, Precondition, Scenario};
use crate::flash::Geometry;
use crate::sim::rng::Rng;

/// Who writes: the host or garbage collection. Each has its own open block per plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    User = 0,
    Gc = 1,
}

/// Where one program writes: a die and the planes it programs at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramTarget {
    pub die: u32,
    pub first_plane: u32,
    pub plane_count: u32,
}

/// A page being filled with units before its program.
#[derive(Clone, Copy, Debug)]
pub struct OpenPage {
    pub block: u32,
    pub page: u32,
    pub filled: u32,
}

/// Counts of data placed by each stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlacementCounts {
    pub user_units: u64,
    pub gc_units: u64,
    pub erases: u64,
}

/// The mapping scheme and its own state (STYLE.md rule 7: one file per scheme, a closed enum).
#[derive(Debug, Default)]
pub enum Scheme {
    /// Page mapping: its state is the `Ftl` itself.
    #[default]
    Page,
    Block(block::BlockMapping),
    Bast(bast::Bast),
}

/// Flash work a block-mapping or BAST decision costs, for the simulation to run in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItem {
    /// Read page `from` and program its data at page `to` (physical units = pages).
    Copy { from: u32, to: u32 },
    /// Erase `block` (no program of it is pending).
    Erase { block: u32 },
}

/// What the mapping schemes did in the measured run (Cho et al., Table II), counted when decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemeCounts {
    /// Valid pages copied by block-mapping updates and BAST merges.
    pub valid_page_copies: u64,
    /// Erases of old data blocks by block-mapping updates.
    pub block_update_erases: u64,
    pub switch_merges: u64,
    pub partial_merges: u64,
    pub full_merges: u64,
    pub switch_merge_erases: u64,
    pub partial_merge_erases: u64,
    pub full_merge_erases: u64,
}

#[derive(Debug)]
pub struct Ftl {
    pub geometry: Geometry,
    pub mapping: Mapping,
    pub blocks: BlockTable,
    free: Vec<VecDeque<u32>>,
    /// Open block per plane, indexed `stream * planes + plane`.
    active: Vec<u32>,
    /// GC copies waiting for a full page, per plane.
    gc_open: Vec<Option<OpenPage>>,
    /// GC runs on a plane with fewer free blocks than this.
    gc_trigger: usize,
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
}

impl Ftl {
    pub fn new(scenario: &Scenario, geometry: Geometry, rng: Rng) -> Ftl {
        let planes = geometry.planes();
        let logical_units = (geometry.physical_units() as f64 * (1.0 - scenario.ftl.over_provisioning)).floor() as u64;
        let free = (0..planes)
            .map(|plane| {
                let first = geometry.first_block_of_plane(plane);
                (first..first + geometry.blocks_per_plane).collect()
            })
            .collect();
        let gc_trigger = ((scenario.ftl.gc_threshold * f64::from(geometry.blocks_per_plane)).ceil() as usize).max(2);
        let gc_urgent = (scenario.ftl.gc_urgent_threshold * f64::from(geometry.blocks_per_plane)).ceil() as usize;
        let targets = if scenario.flash.multi_plane {
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
            active: vec![NONE; 2 * planes as usize],
            gc_open: vec![None; planes as usize],
            gc_trigger,
            gc_urgent,
            policy: VictimPolicy::new(&scenario.ftl, planes),
            rng,
            close_order: 0,
            targets,
            counts: PlacementCounts::default(),
            scheme: match scenario.ftl.mapping {
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
                    scenario.ftl.log_blocks,
                )),
            },
            work: Vec::new(),
            ready_erases: Vec::new(),
            ftl_counts: SchemeCounts::default(),
        }
    }

    /// Whether the scheme is page mapping (block and BAST write through [`Self::mapped_write`]).
    #[inline]
    pub fn is_page_mapped(&self) -> bool {
        matches!(self.scheme, Scheme::Page)
    }

    /// Die that a block-mapping or BAST write of `logical` programs.
    pub fn mapped_die(&self, logical: u32) -> u32 {
        let plane = block::DataBlocks::plane_of(self, logical / self.geometry.pages_per_block);
        plane / self.geometry.planes_per_die
    }

    /// Block mapping or BAST: places a host write of `logical` and returns its physical page,
    /// leaving the copies and erases it costs in [`Self::work`]; `None` when its plane has no
    /// free block now (nothing changed: retry after an erase).
    pub fn mapped_write(&mut self, logical: u32) -> Option<u32> {
        self.work.clear();
        let mut scheme = std::mem::take(&mut self.scheme);
        let placed = match &mut scheme {
            Scheme::Page => None,
            Scheme::Block(mapping) => mapping.write(self, logical),
            Scheme::Bast(bast) => bast.write(self, logical),
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

    /// The next page of `stream`'s open block in `plane`, opening a free block if needed.
    /// Call [`Self::can_allocate`] first.
    pub fn allocate_page(&mut self, plane: u32, stream: Stream) -> (u32, u32) {
        let slot = stream as usize * self.geometry.planes() as usize + plane as usize;
        let mut block = self.active[slot];
        if block == NONE || self.blocks.allocated_pages[block as usize] == self.geometry.pages_per_block {
            block = self.free[plane as usize]
                .pop_front()
                .expect("allocate_page called without a free block");
            self.blocks.state[block as usize] = BlockState::Open;
            self.active[slot] = block;
        }
        let page = self.blocks.allocated_pages[block as usize];
        self.blocks.allocated_pages[block as usize] += 1;
        (block, page)
    }

    /// Records that `logical` now lives at `physical`; the old copy becomes stale.
    #[inline]
    pub fn place(&mut self, logical: u32, physical: u32, stream: Stream) {
        let old = self.mapping.remap(logical, physical);
        if old != NONE {
            self.blocks.invalidate(self.geometry.block_of_unit(old));
        }
        self.blocks.add_valid(self.geometry.block_of_unit(physical));
        match stream {
            Stream::User => self.counts.user_units += 1,
            Stream::Gc => self.counts.gc_units += 1,
        }
    }

    /// A page of `block` finished programming; a block whose pages are all programmed closes.
    pub fn page_programmed(&mut self, block: u32) {
        let index = block as usize;
        self.blocks.programmed_pages[index] += 1;
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
        Some(victim)
    }

    /// Places one GC copy of `logical` in `plane`'s GC page. Returns the new address and, when
    /// that filled the page, the page to program.
    pub fn place_gc_copy(&mut self, plane: u32, logical: u32) -> (u32, Option<(u32, u32)>) {
        let mut open = match self.gc_open[plane as usize] {
            Some(open) => open,
            None => {
                let (block, page) = self.allocate_page(plane, Stream::Gc);
                OpenPage { block, page, filled: 0 }
            }
        };
        let physical = self.geometry.unit_address(open.block, open.page, open.filled);
        self.place(logical, physical, Stream::Gc);
        open.filled += 1;
        if open.filled == self.geometry.units_per_page {
            self.gc_open[plane as usize] = None;
            (physical, Some((open.block, open.page)))
        } else {
            self.gc_open[plane as usize] = Some(open);
            (physical, None)
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
        self.blocks.erase(block);
        self.free[self.geometry.plane_of_block(block) as usize].push_back(block);
        self.counts.erases += 1;
    }

    /// Checks the FTL's invariants (DESIGN section 6): every mapped logical unit points at a
    /// physical unit that points back at it; each block's valid count equals the valid units in
    /// it; every block is in exactly one state and the free lists hold exactly the free blocks.
    pub fn check_invariants(&self) -> Result<(), String> {
        let geometry = self.geometry;
        let mut valid = vec![0u32; geometry.blocks() as usize];
        for logical in 0..self.logical_units() {
            let physical = self.mapping.physical(logical);
            if physical == NONE {
                continue;
            }
            if self.mapping.logical(physical) != logical {
                return Err(format!(
                    "logical {logical} maps to {physical}, which maps back to {}",
                    self.mapping.logical(physical)
                ));
            }
            valid[geometry.block_of_unit(physical) as usize] += 1;
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
            }
        }
        match &self.scheme {
            Scheme::Page => Ok(()),
            Scheme::Block(mapping) => mapping.check(self),
            Scheme::Bast(bast) => bast.check(self),
        }
    }

    /// Reclaims one victim of `plane` at once (no simulated time). Returns false if no victim
    /// would yield space.
    fn collect_now(&mut self, plane: u32) -> bool {
        let Some(victim) = self.take_victim(plane) else {
            return false;
        };
        let first = self.geometry.unit_address(victim, 0, 0);
        for physical in first..first + self.geometry.units_per_block() {
            let logical = self.mapping.logical(physical);
            if logical != NONE {
                if let (_, Some((block, _))) = self.place_gc_copy(plane, logical) {
                    self.page_programmed(block);
                }
            }
        }
        self.erase(victim);
        true
    }

    /// Brings the drive to the used state `precondition` asks for, without simulated time:
    /// `fill` writes the first `span_units` logical units once, in order; `steady` then overwrites
    /// `overwrites × span_units` random units of the span with GC as needed. `progress` gets the
    /// fraction done now and then.
    pub fn precondition(
        &mut self,
        precondition: Precondition,
        span_units: u32,
        overwrites: f64,
        pattern_rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<bool, String> {
        if precondition == Precondition::None {
            return Ok(true);
        }
        let random_writes = match precondition {
            Precondition::Steady => (f64::from(span_units) * overwrites) as u64,
            _ => 0,
        };
        if !self.is_page_mapped() {
            return self.precondition_mapped(span_units, random_writes, pattern_rng, progress);
        }
        let total = u64::from(span_units) + random_writes;
        let mut writer = FunctionalWriter::default();
        for logical in 0..span_units {
            writer.write(self, logical)?;
            if logical % (1 << 20) == 0 && !progress(f64::from(logical) / total as f64) {
                return Ok(false);
            }
        }
        // Random overwrites are bound by memory latency: draw a batch of addresses, touch their
        // mapping entries (independent loads the CPU overlaps), then write them in order.
        const BATCH: usize = 32;
        let mut batch = [0u32; BATCH];
        let mut done = 0u64;
        while done < random_writes {
            let count = (random_writes - done).min(BATCH as u64) as usize;
            let mut touched = 0u32;
            for slot in &mut batch[..count] {
                *slot = pattern_rng.below(u64::from(span_units)) as u32;
                touched ^= self.mapping.physical(*slot);
            }
            for &logical in &batch[..count] {
                let physical = self.mapping.physical(logical);
                if physical != NONE {
                    touched ^= self.mapping.logical(physical);
                    touched ^= self.blocks.valid[self.geometry.block_of_unit(physical) as usize];
                }
            }
            std::hint::black_box(touched);
            for &logical in &batch[..count] {
                writer.write(self, logical)?;
            }
            let before = done;
            done += count as u64;
            if before >> 20 != done >> 20 && !progress((u64::from(span_units) + done) as f64 / total as f64) {
                return Ok(false);
            }
        }
        writer.finish(self);
        // Preconditioning is not part of the measured run.
        self.counts = PlacementCounts::default();
        Ok(true)
    }
}

impl Ftl {
    /// [`Self::precondition`] for block mapping and BAST: the span once in order, then
    /// `random_writes` random overwrites, each with its copies and erases completed at once.
    fn precondition_mapped(
        &mut self,
        span_units: u32,
        random_writes: u64,
        pattern_rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<bool, String> {
        let total = u64::from(span_units) + random_writes;
        for done in 0..total {
            let logical = if done < u64::from(span_units) {
                done as u32
            } else {
                pattern_rng.below(u64::from(span_units)) as u32
            };
            self.functional_write(logical)?;
            if done % (1 << 16) == 0 && !progress(done as f64 / total as f64) {
                return Ok(false);
            }
        }
        self.counts = PlacementCounts::default();
        self.ftl_counts = SchemeCounts::default();
        Ok(true)
    }

    /// A block-mapping or BAST write with all its programs and erases done at once.
    fn functional_write(&mut self, logical: u32) -> Result<(), String> {
        let unit = self.mapped_write(logical).ok_or_else(|| {
            "preconditioning found a plane without a free block; raise ftl.over_provisioning".to_string()
        })?;
        let geometry = self.geometry;
        self.program_done(geometry.block_of_unit(unit), geometry.page_of_unit(unit));
        for index in 0..self.work.len() {
            match self.work[index] {
                WorkItem::Copy { to, .. } => self.program_done(geometry.block_of_unit(to), geometry.page_of_unit(to)),
                WorkItem::Erase { block } => self.erase(block),
            }
        }
        while let Some(block) = self.ready_erases.pop() {
            self.erase(block);
        }
        Ok(())
    }
}

/// Checks that block mapping and BAST fit the drive (called from `config::validate`): one page
/// per mapping unit, and enough spare blocks in every plane for the updates in flight and the
/// plane's share of the log blocks, so a write always finds a free block eventually.
pub fn check_mapping(scenario: &Scenario) -> Result<(), ConfigError> {
    let ftl = &scenario.ftl;
    if ftl.mapping == MappingKind::Page {
        return Ok(());
    }
    let flash = &scenario.flash;
    if ftl.mapping_unit != flash.page_size {
        return Err(ConfigError::new(
            "ftl.mapping_unit",
            format!(
                "{} with ftl.mapping = {}; allowed: the page size ({}), since block mapping and BAST map whole pages",
                ftl.mapping_unit,
                ftl.mapping.name(),
                flash.page_size
            ),
        ));
    }
    let planes = u64::from(flash.channels)
        * u64::from(flash.chips_per_channel)
        * u64::from(flash.dies_per_chip)
        * u64::from(flash.planes_per_die);
    let pages_per_block = u64::from(flash.pages_per_block);
    let physical_pages = planes * u64::from(flash.blocks_per_plane) * pages_per_block;
    let logical_pages = (physical_pages as f64 * (1.0 - ftl.over_provisioning)).floor() as u64;
    let logical_blocks_per_plane = logical_pages.div_ceil(pages_per_block).div_ceil(planes);
    let spare = u64::from(flash.blocks_per_plane).saturating_sub(logical_blocks_per_plane);
    let needed = match ftl.mapping {
        MappingKind::Bast => {
            if u64::from(ftl.log_blocks) < planes {
                return Err(ConfigError::new(
                    "ftl.log_blocks",
                    format!(
                        "{} is out of range; allowed: at least one per plane ({planes}), since each plane has its own share",
                        ftl.log_blocks
                    ),
                ));
            }
            u64::from(ftl.log_blocks).div_ceil(planes) + 2
        }
        _ => 1,
    };
    if spare < needed {
        return Err(ConfigError::new(
            "ftl.over_provisioning",
            format!(
                "{} leaves {spare} spare blocks per plane; allowed: enough for {needed} (one update in flight{})",
                ftl.over_provisioning,
                if ftl.mapping == MappingKind::Bast {
                    ", a merge and the plane's share of ftl.log_blocks"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// Host-stream writer for preconditioning: fills program targets in striping order and
/// completes each program at once.
#[derive(Debug, Default)]
struct FunctionalWriter {
    target: usize,
    pages: Vec<(u32, u32)>,
    filled: u32,
}

impl FunctionalWriter {
    fn write(&mut self, ftl: &mut Ftl, logical: u32) -> Result<(), String> {
        let units_per_page = ftl.geometry.units_per_page;
        if self.filled as usize == self.pages.len() * units_per_page as usize {
            self.finish(ftl);
            self.open(ftl)?;
        }
        let (block, page) = self.pages[(self.filled / units_per_page) as usize];
        let physical = ftl.geometry.unit_address(block, page, self.filled % units_per_page);
        ftl.place(logical, physical, Stream::User);
        self.filled += 1;
        Ok(())
    }

    /// Opens the next program target that has room, collecting garbage first where needed.
    fn open(&mut self, ftl: &mut Ftl) -> Result<(), String> {
        let targets = ftl.targets.len();
        for _ in 0..targets {
            let target = ftl.targets[self.target];
            self.target = (self.target + 1) % targets;
            let planes = target.first_plane..target.first_plane + target.plane_count;
            for plane in planes.clone() {
                while ftl.needs_gc(plane) && ftl.collect_now(plane) {}
            }
            if planes.clone().all(|plane| ftl.can_allocate(plane, Stream::User)) {
                self.pages.clear();
                self.pages
                    .extend(planes.map(|plane| ftl.allocate_page(plane, Stream::User)));
                self.filled = 0;
                return Ok(());
            }
        }
        Err("preconditioning found no plane with free space: GC cannot reclaim any block; raise ftl.over_provisioning or lower workload.span".to_string())
    }

    /// Completes the open program (unfilled slots stay empty).
    fn finish(&mut self, ftl: &mut Ftl) {
        for &(block, _) in &self.pages {
            ftl.page_programmed(block);
        }
        self.pages.clear();
        self.filled = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_victim_stops_being_its_streams_open_block() {
        let mut scenario = Scenario::default();
        scenario.flash.channels = 1;
        scenario.flash.dies_per_chip = 1;
        scenario.flash.planes_per_die = 1;
        scenario.flash.blocks_per_plane = 8;
        scenario.flash.pages_per_block = 2;
        let geometry = Geometry::from_scenario(&scenario);
        let mut ftl = Ftl::new(&scenario, geometry, Rng::stream(1, "ftl"));
        // Fill one user block and program it: it closes but stays the user stream's open block.
        let mut logical = 0;
        let mut user_block = NONE;
        for _ in 0..geometry.pages_per_block {
            let (block, page) = ftl.allocate_page(0, Stream::User);
            user_block = block;
            for slot in 0..geometry.units_per_page {
                ftl.place(logical, geometry.unit_address(block, page, slot), Stream::User);
                logical += 1;
            }
            ftl.page_programmed(block);
        }
        // A GC copy elsewhere makes one unit of it stale, so it qualifies as the victim.
        ftl.place_gc_copy(0, 0);
        assert_eq!(ftl.take_victim(0), Some(user_block));
        let first = geometry.unit_address(user_block, 0, 0);
        for unit in first..first + geometry.units_per_block() {
            let logical = ftl.mapping.logical(unit);
            if logical != NONE {
                ftl.place_gc_copy(0, logical);
            }
        }
        ftl.erase(user_block);
        // The next user page comes from a block taken off the free list, not from the erased
        // victim (which is on the free list too).
        let (block, _) = ftl.allocate_page(0, Stream::User);
        assert_ne!(block, user_block, "wrote into an erased block still on the free list");
        assert!(!ftl.free[0].contains(&block));
    }
}
