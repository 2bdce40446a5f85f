//! The SLC cache's operations on dies: a host program that finds room runs in SLC mode and owes
//! a fold; folding reads the SLC page (SLC t_R, data out through the controller for ECC, as GC
//! does) and programs it into its native page (native t_PROG, data in), and an SLC-mode block of
//! the FTL (`ftl/slc/`) whose pages are all folded is erased in SLC mode. Background folding
//! starts once the host has been idle for `slc_cache.idle_delay` and stops when it is busy again;
//! with `cliff = "wait"` a host write beyond the cache's size queues a fold on its die at once,
//! and a die whose native pool is short while its dynamic SLC blocks hold data folds in the
//! foreground until they are given back.

use super::Fold;
use crate::base::event::Event;
use crate::base::time::Duration;
use crate::controller::ops::OpKind;
use crate::controller::Controller;
use crate::observe::{Context, Observer};

/// A step of folding, for its array power.
#[derive(Clone, Copy, Debug)]
pub enum FoldStep {
    Read,
    Program(u8),
    Erase,
}

impl Controller {
    /// The SLC cache's size now [bytes of host data] (cache on): its free capacity counts the
    /// blocks in SLC mode, which hold no native data.
    pub fn slc_size(&self) -> u64 {
        let free: u64 = (0..self.geometry.planes())
            .map(|plane| self.ftl.free_blocks(plane) as u64)
            .sum::<u64>()
            + self.ftl.slc.as_ref().map_or(0, |pool| pool.blocks());
        self.slc.as_ref().map_or(0, |slc| slc.size_bytes(free))
    }

    /// The run starts: the cache's size now is its starting size (the report's).
    pub fn slc_start(&mut self) {
        let size = self.slc_size();
        if let Some(slc) = self.slc.as_mut() {
            slc.initial_size = size;
        }
    }

    /// A host program of `units` into native pages of type `native_type` on `die`, in the planes
    /// `planes` (a mask over the die's), has its channel: the page type it runs as, SLC when it
    /// lands in the cache (then it takes an SLC page in each of its planes).
    pub(in crate::controller) fn slc_program<O: Observer>(
        &mut self,
        die: u32,
        (native_type, page_count, planes, units): (usize, u8, u16, u32),
        cx: &mut Context<O>,
    ) -> usize {
        let size = self.slc_size();
        let bytes = u64::from(units) * self.geometry.unit_bytes;
        let first_plane = die * self.geometry.planes_per_die;
        self.slc_reclaim(die, cx);
        let Some(slc) = self.slc.as_mut() else {
            return native_type;
        };
        let slc_pages = slc.wants(bytes, size) && self.ftl.slc_take(first_plane, planes);
        if !slc.admit(cx.now, bytes, size, slc_pages) {
            return native_type;
        }
        slc.pending[die as usize].push_back(Fold {
            page_type: native_type as u8,
            page_count,
            planes,
            units,
        });
        let page_type = slc.page_type as usize;
        if slc.used_bytes > size {
            // `wait`: the cache is over its size; this die folds as much first.
            self.fold_next(die, cx);
        }
        page_type
    }

    /// A plane of `die` is short of free blocks while its dynamic SLC blocks hold data
    /// ([`crate::ftl::Ftl::slc_short`]): the die folds in the foreground (a fold chain at a time),
    /// so their blocks, once folded and erased, go back to the native pool.
    pub(in crate::controller) fn slc_reclaim<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        if self.slc_short(die) && self.slc.as_ref().is_some_and(|slc| slc.in_flight[die as usize] == 0) {
            self.fold_next(die, cx);
        }
    }

    /// Whether a plane of `die` is short of free blocks while its dynamic SLC blocks hold data.
    fn slc_short(&self, die: u32) -> bool {
        let first = die * self.geometry.planes_per_die;
        (first..first + self.geometry.planes_per_die).any(|plane| self.ftl.slc_short(plane))
    }

    /// Queues the fold of `die`'s oldest SLC data (its read first); false when it owes none.
    fn fold_next<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) -> bool {
        let Some(slc) = self.slc.as_mut() else {
            return false;
        };
        let Some(fold) = slc.pending[die as usize].pop_front() else {
            return false;
        };
        slc.in_flight[die as usize] += 1;
        slc.counts.fold_reads += 1;
        self.enqueue_internal_op(die, OpKind::FoldRead(fold), cx);
        true
    }

    /// A fold's SLC read is out: its native program follows on the same die.
    pub(in crate::controller) fn on_fold_read_done<O: Observer>(&mut self, die: u32, fold: Fold, cx: &mut Context<O>) {
        self.enqueue_internal_op(die, OpKind::FoldProgram(fold), cx);
    }

    /// A fold's native program is done: its SLC pages are free; an SLC block emptied is erased;
    /// folding goes on while the host stays idle or the die's native pool is short.
    pub(in crate::controller) fn on_fold_program_done<O: Observer>(
        &mut self,
        die: u32,
        fold: Fold,
        cx: &mut Context<O>,
    ) {
        let size = self.slc_size();
        let bytes = u64::from(fold.units) * self.geometry.unit_bytes;
        let draining = self.draining;
        let host_idle = self.host_idle;
        let Some(slc) = self.slc.as_mut() else {
            return;
        };
        slc.in_flight[die as usize] -= 1;
        slc.folded(cx.now, bytes, size);
        // Background folding goes on while the host is idle; foreground folding while the die's
        // native pool is short.
        let more =
            !draining && slc.in_flight[die as usize] == 0 && ((slc.background && host_idle) || self.slc_short(die));
        let mut emptied = Vec::new();
        let first_plane = die * self.geometry.planes_per_die;
        self.ftl.slc_folded(first_plane, fold.planes, &mut emptied);
        for block in emptied {
            self.enqueue_internal_op(die, OpKind::SlcErase { block }, cx);
        }
        if more {
            self.fold_next(die, cx);
        }
    }

    /// The SLC-mode block `block` was erased: it stays in the SLC pool or, if the cache's
    /// dynamic share shrank below its plane's SLC blocks or the plane is short of free blocks,
    /// returns to the native free blocks (`ftl/slc/`).
    pub(in crate::controller) fn on_slc_erase_done(&mut self, block: u32) {
        let size = self.slc_size();
        let Some(slc) = self.slc.as_mut() else {
            return;
        };
        slc.counts.slc_erases += 1;
        let planes = u64::from(self.geometry.planes());
        let target = size.div_ceil(slc.slc_block_bytes.max(1)).div_ceil(planes);
        self.ftl.slc_erased(block, u32::try_from(target).unwrap_or(u32::MAX));
    }

    /// Array time `length` of a fold step, for the report: its time and energy.
    pub(in crate::controller) fn slc_die_time(&mut self, step: FoldStep, length: Duration) {
        if let Some(slc) = self.slc.as_mut() {
            slc.counts.fold_die_time += length;
            let (read, program, erase) = &slc.op_power_w;
            let power = match step {
                FoldStep::Read => *read,
                FoldStep::Program(page_type) => program.get(usize::from(page_type)).copied().unwrap_or(0.0),
                FoldStep::Erase => *erase,
            };
            slc.counts.fold_energy_j += power * length.as_secs_f64();
        }
    }

    /// The host turned idle (`idle`) or busy: an idle host starts the idle timer; a busy one
    /// stops background folding (folds in flight finish).
    pub(in crate::controller) fn slc_host_idle<O: Observer>(&mut self, idle: bool, cx: &mut Context<O>) {
        let Some(slc) = self.slc.as_mut() else {
            return;
        };
        if !idle && !slc.background {
            return;
        }
        slc.idle_generation = slc.idle_generation.wrapping_add(1);
        slc.background = false;
        if idle {
            let generation = slc.idle_generation;
            let at = cx.now + slc.config.idle_delay;
            cx.events.schedule(at, Event::SlcIdle { generation });
        }
    }

    /// The idle timer ran out: if the host is still idle, every die starts folding.
    pub fn on_slc_idle<O: Observer>(&mut self, generation: u32, cx: &mut Context<O>) {
        let (host_idle, draining) = (self.host_idle, self.draining);
        let Some(slc) = self.slc.as_mut() else {
            return;
        };
        if slc.idle_generation != generation || !host_idle || draining {
            return;
        }
        slc.background = true;
        for die in 0..self.geometry.dies {
            let idle = self.slc.as_ref().is_some_and(|slc| slc.in_flight[die as usize] == 0);
            if idle {
                self.fold_next(die, cx);
            }
        }
    }
}
