//! Garbage collection as die operations: the FTL picks the victim and places the copies; here
//! its still-valid pages are read (a window of reads per plane, in the die's internal queue),
//! copied into the plane's GC page, and the victim erased once copied.

use super::ops::Relocation;
use super::ops::{OpKind, PlaneGc, GC_READ_WINDOW, MAX_PLANES};
use super::Controller;
use crate::ftl::mapping::NONE;
use crate::ftl::Stream;
use crate::observe::{Context, Observer};

impl Controller {
    pub(super) fn start_gc<O: Observer>(&mut self, plane: u32, cx: &mut Context<O>) {
        if self.gc[plane as usize].victim != NONE {
            return;
        }
        if let Some(victim) = self.ftl.take_victim(plane) {
            self.collect(plane, victim, cx);
        }
    }

    /// Copies the valid data of the claimed `victim` of `plane` out and erases it.
    pub(super) fn collect<O: Observer>(&mut self, plane: u32, victim: u32, cx: &mut Context<O>) {
        self.gc[plane as usize] = PlaneGc {
            victim,
            next_page: 0,
            reads_in_flight: 0,
        };
        self.issue_gc_reads(plane, cx);
    }

    /// Keeps up to `GC_READ_WINDOW` page reads of the victim in flight; erases it when copied.
    fn issue_gc_reads<O: Observer>(&mut self, plane: u32, cx: &mut Context<O>) {
        let die = plane / self.geometry.planes_per_die;
        let units_per_page = self.geometry.units_per_page;
        loop {
            let gc = self.gc[plane as usize];
            if gc.reads_in_flight >= GC_READ_WINDOW {
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
    pub(super) fn on_gc_read_done<O: Observer>(&mut self, block: u32, page: u32, cx: &mut Context<O>) {
        let plane = self.geometry.plane_of_block(block);
        let die = self.geometry.die_of_block(block);
        let first = self.geometry.unit_address(block, page, 0);
        for unit in first..first + self.geometry.units_per_page {
            let logical = self.ftl.mapping.logical(unit);
            if logical == NONE {
                continue;
            }
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
        self.gc[plane as usize].reads_in_flight -= 1;
        self.issue_gc_reads(plane, cx);
    }

    pub(super) fn on_erase_done<O: Observer>(&mut self, block: u32, cx: &mut Context<O>) {
        let plane = self.geometry.plane_of_block(block);
        self.ftl.erase(block);
        self.gc[plane as usize].victim = NONE;
        if let Some(reliability) = self.reliability.as_mut() {
            reliability.erased(block);
        }
        if let Some(cold) = self.ftl.cold_block(plane) {
            self.relocations.push((cold, Relocation::WearLeveling));
        }
        if !self.relocations.is_empty() {
            self.run_relocations(cx);
        }
        if self.ftl.needs_gc(plane) {
            self.start_gc(plane, cx);
        }
    }
}
