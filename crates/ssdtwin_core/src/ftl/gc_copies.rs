//! Placing GC copies: a plane's open GC page per GC frontier, filled unit by unit (the timed
//! run, functional preconditioning) or by counts (statistical preconditioning, `steady.rs`); and
//! the FTL's side of Flexible Data Placement (`fdp.rs`): choosing the host and GC frontiers.

use super::fdp::{FdpConfig, FdpState};
use super::{Ftl, OpenPage, Stream};
use crate::flash::geometry::Geometry;

impl Ftl {
    /// Places one GC copy of `logical` in `plane`'s GC page. Returns the new address and, when
    /// that filled the page, the page to program.
    pub fn place_gc_copy(&mut self, plane: u32, logical: u32) -> (u32, Option<(u32, u32)>) {
        if self.fdp.as_deref().is_some_and(|fdp| fdp.persistent) {
            self.use_handle_gc_frontier(logical);
        }
        let (physical, full) = self.next_gc_slot(plane);
        self.place(logical, physical, Stream::Gc);
        (physical, full)
    }

    /// FDP's side of [`Self::place`] (before the mapping changes: a copy's data is still at its
    /// old place). Out of line: with FDP off, `place` pays one test.
    #[inline(never)]
    pub(super) fn fdp_placed(&mut self, logical: u32, physical: u32, stream: Stream) {
        let host = stream == Stream::User;
        let old = if host {
            super::NONE
        } else {
            self.mapping.physical(logical)
        };
        let block = self.geometry.block_of_unit(physical);
        if let Some(fdp) = self.fdp.as_deref_mut() {
            fdp.placed(old, physical, block, self.handle, host);
        }
    }

    /// Persistently isolated FDP: the GC frontier of the handle whose data `logical` holds.
    /// Out of line: without it, `place_gc_copy` pays one test.
    #[inline(never)]
    fn use_handle_gc_frontier(&mut self, logical: u32) {
        if let Some(fdp) = self.fdp.as_deref() {
            self.use_gc_frontier(self.gc_base + fdp.handle_at(self.mapping.physical(logical)));
        }
    }

    /// Moves the count of the valid units of `victim` into `plane`'s GC pages, whole pages a run at a time,
    /// without identifying them (statistical preconditioning, `steady.rs`).
    pub(super) fn count_gc_copies(&mut self, plane: u32, victim: u32) {
        if self.fdp.as_deref().is_some_and(|fdp| fdp.persistent) {
            self.persistent_gc_frontier(victim);
        }
        let units_per_page = self.geometry.units_per_page;
        let mut units = self.blocks.valid[victim as usize];
        let moved = |ftl: &mut Ftl, block: u32, taken: u32| {
            ftl.blocks.valid[block as usize] += taken;
            ftl.blocks.valid[victim as usize] -= taken;
            ftl.counts.gc_units += u64::from(taken);
        };
        // The open GC page first, then whole pages a run at a time (as many as the GC block still
        // takes: page after page, as `take_gc_units` would), then a page left open.
        if self.gc_open[self.gc_slot(plane)].is_some() || units < units_per_page {
            let (open, taken, full) = self.take_gc_units(plane, units);
            moved(self, open.block, taken);
            units -= taken;
            if full {
                self.page_programmed(open.block);
            }
        }
        while units >= units_per_page {
            let pages = (units / units_per_page).min(self.pages_left(plane, Stream::Gc).max(1));
            let (block, _) = self.allocate_page(plane, Stream::Gc);
            self.blocks.allocated_pages[block as usize] += pages - 1;
            moved(self, block, pages * units_per_page);
            self.pages_programmed(block, pages);
            units -= pages * units_per_page;
        }
        if units > 0 {
            let (open, taken, _) = self.take_gc_units(plane, units);
            moved(self, open.block, taken);
        }
    }

    /// Takes the next unit of `plane`'s GC page: its address and, when that filled the page, the
    /// page to program.
    fn next_gc_slot(&mut self, plane: u32) -> (u32, Option<(u32, u32)>) {
        let (open, _, full) = self.take_gc_units(plane, 1);
        let physical = self.geometry.unit_address(open.block, open.page, open.filled);
        (physical, full.then_some((open.block, open.page)))
    }

    /// Takes up to `wanted` units of `plane`'s GC page, opening a page if none is open: the page
    /// as it was (`filled` is the first unit taken), how many were taken, and whether they filled
    /// it (then it is no longer open: the caller programs it).
    fn take_gc_units(&mut self, plane: u32, wanted: u32) -> (OpenPage, u32, bool) {
        let open = match self.gc_open[self.gc_slot(plane)] {
            Some(open) => open,
            None => {
                let (block, page) = self.allocate_page(plane, Stream::Gc);
                OpenPage { block, page, filled: 0 }
            }
        };
        let units_per_page = self.geometry.units_per_page;
        let taken = (units_per_page - open.filled).min(wanted);
        let full = open.filled + taken == units_per_page;
        let slot = self.gc_slot(plane);
        self.gc_open[slot] = (!full).then_some(OpenPage {
            filled: open.filled + taken,
            ..open
        });
        (open, taken, full)
    }

    /// The open GC page's index in `gc_open`: the current GC frontier's (row 0), in `plane`.
    #[inline]
    fn gc_slot(&self, plane: u32) -> usize {
        plane as usize
    }

    /// Persistently isolated: GC copies out of `block` go to its owner's GC frontier.
    fn persistent_gc_frontier(&mut self, block: u32) {
        let fdp = self.fdp.as_deref().expect("FDP is on");
        let owner = fdp.owner(block);
        // Blocks written before FDP state existed (none today) count as handle 0's.
        let owner = if owner < fdp.handles { owner } else { 0 };
        self.use_gc_frontier(self.gc_base + owner);
    }

    /// GC pages come from `frontier` next: its open blocks and GC pages move into the current
    /// rows (1 of `active`, 0 of `gc_open`), the previous GC frontier's back to its own rows.
    fn use_gc_frontier(&mut self, frontier: u16) {
        let before = self.gc_frontier;
        if frontier == before {
            return;
        }
        let planes = self.geometry.planes() as usize;
        let rows = (2 + usize::from(before), 2 + usize::from(frontier));
        swap_rows(&mut self.active, planes, 1, rows, super::NONE);
        let (old, new) = (before - self.gc_base, frontier - self.gc_base);
        swap_rows(
            &mut self.gc_open,
            planes,
            0,
            (1 + usize::from(old), 1 + usize::from(new)),
            None,
        );
        self.gc_frontier = frontier;
    }

    /// The row of `active` holding `frontier`'s open blocks: 0 or 1 while it is the current host
    /// or GC frontier, its own row `2 + frontier` otherwise.
    fn frontier_row(&self, frontier: u16) -> usize {
        if frontier == self.handle {
            0
        } else if frontier == self.gc_frontier {
            1
        } else {
            2 + usize::from(frontier)
        }
    }

    /// Turns Flexible Data Placement on (before anything is written): a host frontier per handle
    /// and one GC frontier (`initially_isolated`) or one per handle (`persistently_isolated`);
    /// a reclaim unit is `ru_blocks` blocks on consecutive planes.
    pub fn enable_fdp(&mut self, config: &FdpConfig, ru_blocks: u32) {
        let geometry: Geometry = self.geometry;
        let state = FdpState::new(
            config,
            ru_blocks,
            geometry.planes(),
            geometry.blocks(),
            geometry.physical_units() as u32,
        );
        let frontiers = state.frontiers() as usize;
        let planes = geometry.planes() as usize;
        // The current host and GC rows, then one row per frontier (`Ftl::active`).
        self.active = vec![super::NONE; (2 + frontiers) * planes];
        self.gc_base = state.handles;
        self.gc_frontier = state.handles;
        self.gc_open = vec![None; (1 + frontiers - usize::from(state.handles)) * planes];
        self.handle = 0;
        self.fdp = Some(Box::new(state));
    }

    /// Zeroes the FDP counters (preconditioning is not part of the measured run).
    pub fn reset_fdp_counts(&mut self) {
        if let Some(fdp) = self.fdp.as_deref_mut() {
            fdp.reset_counts();
        }
    }

    /// Host writes go to the reclaim unit handle named by `placement` (FDP on; one naming no
    /// handle goes to handle 0).
    #[inline]
    pub fn select_handle(&mut self, placement: u16) {
        if let Some(fdp) = self.fdp.as_deref() {
            let handle = if placement < fdp.handles { placement } else { 0 };
            if handle != self.handle {
                let planes = self.geometry.planes() as usize;
                let (before, after) = (2 + usize::from(self.handle), 2 + usize::from(handle));
                swap_rows(&mut self.active, planes, 0, (before, after), super::NONE);
                self.handle = handle;
            }
        }
    }

    /// The placement identifier a host write of `placement` is placed with: itself, or 0 (handle
    /// 0) when it names no handle, counted as an Invalid Placement Identifier event.
    pub fn check_placement(&mut self, placement: u16) -> u16 {
        match self.fdp.as_deref_mut() {
            Some(fdp) if placement >= fdp.handles => {
                fdp.counts.invalid_placement += 1;
                0
            }
            _ => placement,
        }
    }

    /// FDP events of GC taking `victim`: its valid data will be reallocated; its reclaim unit is
    /// reclaimed before fully written when a block of the same unit (same frontier and turn, a
    /// plane of the same group) is still open.
    pub(super) fn fdp_victim(&mut self, victim: u32) {
        let geometry = self.geometry;
        let valid = self.blocks.valid[victim as usize];
        let fdp = self.fdp.as_deref_mut().expect("FDP is on");
        if valid > 0 {
            fdp.counts.media_reallocated += 1;
        }
        let (frontier, turn) = (fdp.frontier[victim as usize], fdp.turn[victim as usize]);
        let plane = geometry.plane_of_block(victim);
        let first = plane - plane % fdp.ru_blocks;
        let planes = geometry.planes();
        let row = self.frontier_row(frontier) as u32;
        let fdp = self.fdp.as_deref_mut().expect("FDP is on");
        let open_sibling = (first..first + fdp.ru_blocks).any(|other| {
            let block = self.active[(row * planes + other) as usize];
            other != plane
                && block != super::NONE
                && fdp.frontier[block as usize] == frontier
                && fdp.turn[block as usize] == turn
                && self.blocks.allocated_pages[block as usize] < geometry.pages_per_block
        });
        if open_sibling {
            fdp.counts.ru_not_fully_written += 1;
        }
    }
}

/// `rows` is rows of `width`: row `current` (the current frontier's) moves to row `before` (the
/// frontier leaving), and row `after` (the frontier coming) moves to `current`, leaving its own
/// row `empty`, so no frontier's entries are in two rows.
fn swap_rows<T: Copy>(rows: &mut [T], width: usize, current: usize, (before, after): (usize, usize), empty: T) {
    rows.copy_within(current * width..(current + 1) * width, before * width);
    rows.copy_within(after * width..(after + 1) * width, current * width);
    rows[after * width..(after + 1) * width].fill(empty);
}
