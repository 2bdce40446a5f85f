//! Preconditioning (docs/models/ftl.md): brings the drive to the used state `workload.precondition`
//! asks for without simulated time, by the same FTL calls the timed run makes with every program
//! completed at once: the span written once in order (streamed a round of programs at a time,
//! `fill.rs`), then random overwrites with GC as needed.
//! With `workload.steady_method = "statistical"` (the default) page mapping makes the overwrites
//! on the block table alone (`steady.rs`).

use super::mapping::NONE;
use super::params::{Precondition, SteadyMethod};
use super::types::{PlacementCounts, SchemeCounts, Stream, WorkItem};
use super::Ftl;
use crate::base::rng::Rng;

impl Ftl {
    /// Whether preconditioning collects on `plane` now. Under `paced` it leaves a plane one block
    /// below the run's stop level `S` (`FtlConfig::paced_levels`), so the run's first victim is
    /// due at once rather than after up to a block of host writes per plane, in step on every
    /// plane (issue 27: 1.75 s without GC on the default scenario).
    fn needs_precondition_gc(&self, plane: u32) -> bool {
        self.is_page_mapped() && self.free[plane as usize].len() < self.precondition_trigger
    }

    /// Reclaims one victim of `plane` at once (no simulated time). Returns false if no victim
    /// would yield space. `counting`: on the block table alone (its units are not identified).
    pub(super) fn collect_now(&mut self, plane: u32, counting: bool) -> bool {
        let Some(victim) = self.take_victim(plane) else {
            return false;
        };
        if counting {
            self.count_gc_copies(plane, victim);
            self.erase(victim);
            return true;
        }
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
        method: SteadyMethod,
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
        if method == SteadyMethod::Statistical && random_writes > 0 {
            return self.precondition_on_blocks(span_units, random_writes, pattern_rng, progress);
        }
        let total = u64::from(span_units) + random_writes;
        let mut writer = FunctionalWriter::default();
        if self.fill(&mut writer, span_units, total, progress)?.is_none() {
            return Ok(false);
        }
        // Random overwrites are bound by memory latency: draw a batch of addresses, touch their
        // forward entries and their old blocks' valid counts (independent loads the CPU overlaps;
        // an overwrite writes no reverse entry at the old place, `mapping.rs`), then write them
        // in order.
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
        self.reset_fdp_counts();
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

/// Host-stream writer for preconditioning: fills program targets in striping order and
/// completes each program at once.
#[derive(Debug, Default)]
pub(super) struct FunctionalWriter {
    target: usize,
    pages: Vec<(u32, u32)>,
    filled: u32,
    /// On the block table alone: writes and GC copies count valid units, the mapping is untouched.
    counting: bool,
}

impl FunctionalWriter {
    /// A writer on the block table alone (statistical `steady`, `steady.rs`).
    pub(super) fn counting() -> FunctionalWriter {
        FunctionalWriter {
            counting: true,
            ..FunctionalWriter::default()
        }
    }

    /// Takes up to `wanted` slots of the open program, all in one page, opening the next program
    /// when this one is full: the page's block and index, the first slot taken and how many.
    fn take(&mut self, ftl: &mut Ftl, wanted: u32) -> Result<(u32, u32, u32, u32), String> {
        let units_per_page = ftl.geometry.units_per_page;
        if self.filled as usize == self.pages.len() * units_per_page as usize {
            self.finish(ftl);
            self.open(ftl)?;
        }
        let (block, page) = self.pages[(self.filled / units_per_page) as usize];
        let slot = self.filled % units_per_page;
        let taken = (units_per_page - slot).min(wanted);
        self.filled += taken;
        Ok((block, page, slot, taken))
    }

    /// Writes `logical` in the next slot, through the mapping table.
    pub(super) fn write(&mut self, ftl: &mut Ftl, logical: u32) -> Result<(), String> {
        debug_assert!(!self.counting);
        let (block, page, slot, _) = self.take(ftl, 1)?;
        ftl.place(logical, ftl.geometry.unit_address(block, page, slot), Stream::User);
        Ok(())
    }

    /// Counts `units` more writes (`counting` only), a page at a time; `wrote(block, units)` hears
    /// of each block's share.
    pub(super) fn write_counted(
        &mut self,
        ftl: &mut Ftl,
        mut units: u32,
        mut wrote: impl FnMut(u32, u32),
    ) -> Result<(), String> {
        debug_assert!(self.counting);
        while units > 0 {
            let (block, _, _, taken) = self.take(ftl, units)?;
            ftl.blocks.valid[block as usize] += taken;
            ftl.counts.user_units += u64::from(taken);
            wrote(block, taken);
            units -= taken;
        }
        Ok(())
    }

    /// Counts `programs` whole programs on target `target` (`counting` only, at a program
    /// boundary), as many rounds of [`Self::open`] on that target would: GC first where a plane
    /// is short, then as many pages at once as every plane's open block still takes.
    /// `wrote(block, units)` hears of each block's share. Returns the programs it could not place
    /// (0 unless a plane of the target has no free block even after GC; [`Self::write_counted`]
    /// then moves on to other targets, as `open` does).
    pub(super) fn programs_counted(
        &mut self,
        ftl: &mut Ftl,
        target: usize,
        mut programs: u32,
        mut wrote: impl FnMut(u32, u32),
    ) -> u32 {
        debug_assert!(self.counting && self.at_program_boundary(ftl));
        self.finish(ftl);
        let target = ftl.targets[target];
        let planes = target.first_plane..target.first_plane + target.plane_count;
        let units_per_page = ftl.geometry.units_per_page;
        while programs > 0 {
            for plane in planes.clone() {
                while ftl.needs_precondition_gc(plane) && ftl.collect_now(plane, true) {}
            }
            if !planes.clone().all(|plane| ftl.can_allocate(plane, Stream::User)) {
                return programs;
            }
            // Free blocks change only when a block opens: a run of pages that opens none needs
            // no GC check between its programs.
            let pages = planes
                .clone()
                .map(|plane| ftl.pages_left(plane, Stream::User).max(1))
                .fold(programs, u32::min);
            for plane in planes.clone() {
                let (block, _) = ftl.allocate_page(plane, Stream::User);
                ftl.blocks.allocated_pages[block as usize] += pages - 1;
                let units = pages * units_per_page;
                ftl.blocks.valid[block as usize] += units;
                ftl.counts.user_units += u64::from(units);
                wrote(block, units);
                ftl.pages_programmed(block, pages);
            }
            programs -= pages;
        }
        0
    }

    /// The program target the next [`Self::open`] tries first.
    pub(super) fn next_target(&self) -> usize {
        self.target
    }

    /// Makes `target` the one the next [`Self::open`] tries first.
    pub(super) fn set_next_target(&mut self, target: usize) {
        self.target = target;
    }

    /// Slots left in the open program (0 when it is full or none is open: the next write opens
    /// a program).
    pub(super) fn left_in_program(&self, ftl: &Ftl) -> u32 {
        self.pages.len() as u32 * ftl.geometry.units_per_page - self.filled
    }

    /// Whether the open program is full or none is open.
    pub(super) fn at_program_boundary(&self, ftl: &Ftl) -> bool {
        self.left_in_program(ftl) == 0
    }

    /// The pages of the open program with the slots filled in each (the rest stay empty).
    pub(super) fn filled_pages(&self, units_per_page: u32) -> impl Iterator<Item = ((u32, u32), u32)> + '_ {
        self.pages.iter().enumerate().map(move |(index, &page)| {
            let filled = self
                .filled
                .saturating_sub(index as u32 * units_per_page)
                .min(units_per_page);
            (page, filled)
        })
    }

    /// Opens the next program target that has room, collecting garbage first where needed.
    fn open(&mut self, ftl: &mut Ftl) -> Result<(), String> {
        let targets = ftl.targets.len();
        for _ in 0..targets {
            let target = ftl.targets[self.target];
            self.target = (self.target + 1) % targets;
            let planes = target.first_plane..target.first_plane + target.plane_count;
            for plane in planes.clone() {
                while ftl.needs_precondition_gc(plane) && ftl.collect_now(plane, self.counting) {}
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
    pub(super) fn finish(&mut self, ftl: &mut Ftl) {
        for &(block, _) in &self.pages {
            ftl.page_programmed(block);
        }
        self.pages.clear();
        self.filled = 0;
    }
}
