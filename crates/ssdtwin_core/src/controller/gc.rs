//! Garbage collection as die operations: the FTL picks the victim and places the copies; here
//! its still-valid pages are read (a window of reads per plane, in the die's internal queue),
//! copied into the plane's GC page, and the victim erased once copied.

use super::ops::Relocation;
use super::ops::{OpKind, PlaneGc, MAX_PLANES};
use super::pacing::GcPacing;
use super::Controller;
use crate::ftl::mapping::NONE;
use crate::ftl::Stream;
use crate::observe::{Context, Observer};

/// Units of a victim page whose validity GC looks up together before copying them.
const GC_CHUNK: usize = 8;

impl Controller {
    /// Installs the GC pacing (`sim/assembly.rs`; the default until then is `threshold`).
    pub fn set_gc_pacing(&mut self, pacing: GcPacing) {
        self.pacing = pacing;
        self.failed_scan.valid = false;
    }

    /// Whether `plane` should be collecting: below the stop level under `paced`, below the start
    /// level under `threshold` (page mapping only).
    pub(super) fn wants_gc(&self, plane: u32) -> bool {
        match self.pacing.wants_victim(self.ftl.free_blocks(plane)) {
            Some(wanted) => wanted && self.ftl.is_page_mapped(),
            None => self.ftl.needs_gc(plane),
        }
    }

    /// Whether GC work at `die` waits behind its host reads: under `paced` with page mapping, while no plane
    /// of the die is below the foreground level (MQSim's preemptible GC).
    #[inline]
    pub(super) fn gc_yields(&self, die: u32) -> bool {
        let Some(levels) = self.pacing.levels() else {
            return false;
        };
        if !self.ftl.is_page_mapped() {
            // Block mapping and BAST: the internal queue holds the copies and erases a write is
            // waiting for, not paced GC.
            return false;
        }
        let planes = self.geometry.planes_per_die;
        (die * planes..(die + 1) * planes).all(|plane| self.ftl.free_blocks(plane) >= levels.foreground)
    }

    /// Moves GC on `plane` along: claims a victim if it has none and wants one, else issues the
    /// victim page reads its pacing allows now.
    pub(super) fn advance_gc<O: Observer>(&mut self, plane: u32, cx: &mut Context<O>) {
        if self.gc[plane as usize].victim != NONE {
            self.issue_gc_reads(plane, cx);
        } else if self.wants_gc(plane) {
            self.start_gc(plane, cx);
        }
    }

    pub(super) fn start_gc<O: Observer>(&mut self, plane: u32, cx: &mut Context<O>) {
        if self.gc[plane as usize].victim != NONE || self.gc_held() {
            return;
        }
        if let Some(victim) = self.ftl.take_victim(plane) {
            self.collect(plane, victim, true, cx);
        } else if self.slc.is_some() {
            // No victim: the plane's dynamic SLC blocks may hold the space (`slc/fold.rs`).
            self.slc_reclaim(plane / self.geometry.planes_per_die, cx);
        }
    }

    /// Copies the valid data of the claimed `victim` of `plane` out and erases it; `reclaim`: to
    /// free space (paced), not a relocation.
    pub(super) fn collect<O: Observer>(&mut self, plane: u32, victim: u32, reclaim: bool, cx: &mut Context<O>) {
        self.gc[plane as usize] = PlaneGc {
            victim,
            next_page: 0,
            reads_in_flight: 0,
        };
        let valid = self.ftl.blocks.valid[victim as usize];
        self.pacing
            .claimed(plane, valid, self.geometry.units_per_block(), reclaim);
        self.note_gc_change(plane, false);
        self.issue_gc_reads(plane, cx);
    }

    /// The host has no command in the controller (`idle`) or has one again: background GC runs
    /// while it is idle.
    pub fn set_host_idle<O: Observer>(&mut self, idle: bool, cx: &mut Context<O>) {
        self.host_idle = idle;
        if self.slc.is_some() {
            self.slc_host_idle(idle, cx);
        }
        if idle && matches!(self.pacing, GcPacing::Paced(_)) {
            for plane in 0..self.geometry.planes() {
                self.advance_gc(plane, cx);
            }
        }
    }

    /// Keeps as many page reads of the victim in flight as its pacing allows (at most
    /// `GC_READ_WINDOW`); erases it when copied.
    fn issue_gc_reads<O: Observer>(&mut self, plane: u32, cx: &mut Context<O>) {
        if self.gc_held() {
            // The run's drain: the reads in flight finish, nothing new starts (`drain.rs`).
            return;
        }
        let die = plane / self.geometry.planes_per_die;
        let units_per_page = self.geometry.units_per_page;
        loop {
            let gc = self.gc[plane as usize];
            let window = self
                .pacing
                .read_window(plane, self.ftl.free_blocks(plane), self.host_idle);
            if gc.next_page < self.geometry.pages_per_block && gc.reads_in_flight >= window {
                return;
            }
            if gc.next_page == self.geometry.pages_per_block {
                if gc.reads_in_flight == 0 {
                    self.gc[plane as usize].next_page += 1; // erase issued once
                    self.enqueue_internal_op(die, OpKind::Erase { block: gc.victim }, cx);
                }
                return;
            }
            if gc.next_page > self.geometry.pages_per_block {
                return;
            }
            let page = gc.next_page;
            self.gc[plane as usize].next_page += 1;
            let first = self.geometry.unit_address(gc.victim, page, 0);
            let units = (first..first + units_per_page)
                .filter(|&unit| self.ftl.mapping.logical(unit) != NONE)
                .count() as u32;
            if units > 0 {
                self.gc[plane as usize].reads_in_flight += 1;
                self.pacing.spend(plane, units);
                self.note_gc_change(plane, false);
                let read = OpKind::GcRead {
                    block: gc.victim,
                    page,
                    units,
                };
                self.enqueue_internal_op(die, read, cx);
            }
        }
    }

    /// Copies the still-valid units of a victim page into the plane's GC page.
    pub(super) fn on_gc_read_done<O: Observer>(&mut self, block: u32, page: u32, units: u32, cx: &mut Context<O>) {
        let plane = self.geometry.plane_of_block(block);
        let die = self.geometry.die_of_block(block);
        let first = self.geometry.unit_address(block, page, 0);
        let end = first + self.geometry.units_per_page;
        // Each unit's validity is a random load in the forward map: a chunk's loads first, so
        // their misses overlap, then its copies.
        let mut chunk = [NONE; GC_CHUNK];
        for start in (first..end).step_by(GC_CHUNK) {
            let count = (end - start).min(GC_CHUNK as u32) as usize;
            for (slot, unit) in chunk[..count].iter_mut().zip(start..) {
                *slot = self.ftl.mapping.logical(unit);
            }
            for &logical in &chunk[..count] {
                if logical != NONE {
                    self.copy_unit(plane, die, logical, cx);
                }
            }
        }
        self.gc[plane as usize].reads_in_flight -= 1;
        self.pacing.read_done(plane, units);
        self.note_gc_change(plane, false);
        self.issue_gc_reads(plane, cx);
    }

    /// Copies valid `logical` into `plane`'s GC page; a full page is programmed on `die`.
    #[inline]
    fn copy_unit<O: Observer>(&mut self, plane: u32, die: u32, logical: u32, cx: &mut Context<O>) {
        let (_, full_page) = self.ftl.place_gc_copy(plane, logical);
        if let Some(target) = full_page {
            let mut pages = [(0, 0); MAX_PLANES];
            pages[0] = target;
            let program = OpKind::Program {
                stream: Stream::Gc,
                pages,
                page_count: 1,
                units: self.geometry.units_per_page,
            };
            self.enqueue_internal_op(die, program, cx);
        }
    }

    pub(super) fn on_erase_done<O: Observer>(&mut self, block: u32, cx: &mut Context<O>) {
        if self.zoned.is_some() {
            return self.zoned_erase_done(block, cx);
        }
        let plane = self.geometry.plane_of_block(block);
        self.ftl.erase(block);
        self.gc[plane as usize].victim = NONE;
        self.note_gc_change(plane, true);
        self.count_plane_valid(plane);
        if let Some(reliability) = self.reliability.as_mut() {
            reliability.erased(block);
        }
        if let Some(cold) = self.ftl.cold_block(plane) {
            self.relocations.push((cold, Relocation::WearLeveling));
        }
        if !self.relocations.is_empty() {
            self.run_relocations(cx);
        }
        if self.wants_gc(plane) {
            self.start_gc(plane, cx);
        }
    }
}
