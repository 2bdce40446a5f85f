//! Flexible Data Placement in the controller (`[fdp]`, `ftl/fdp.rs`): host writes fill the open
//! program of their reclaim unit handle. One program is open at a time, as without FDP; the open
//! program of a handle that stops writing waits, parked, until the handle writes again, a Flush
//! needs it on flash, or the run drains.

use super::Controller;
use crate::ftl::mapping::NONE;
use crate::observe::{Context, Observer};

impl Controller {
    /// The parked open programs, one slot per handle (`None` without FDP).
    pub(super) fn parked_programs(handles: Option<u16>) -> Vec<Option<super::ops::OpenProgram>> {
        vec![None; usize::from(handles.unwrap_or(0))]
    }

    /// Host writes of placement identifier `placement` come next: its handle's program becomes
    /// the open one (FDP on; nothing to do otherwise).
    #[inline]
    pub(super) fn use_handle(&mut self, placement: u16) {
        if self.parked.is_empty() {
            return;
        }
        let before = self.ftl.handle;
        self.ftl.select_handle(placement);
        let after = self.ftl.handle;
        if after != before {
            self.parked[usize::from(before)] = self.open_program.take();
            self.open_program = self.parked[usize::from(after)].take();
        }
    }

    /// Whether a parked program holds host units not yet programmed.
    pub(super) fn parked_units(&self) -> u32 {
        self.parked.iter().flatten().map(|open| open.filled).sum()
    }

    /// Draining or a Flush: the parked programs are programmed as they are, one by one, while
    /// no program waits for its die queue (called again when one stops waiting).
    pub(super) fn program_parked<O: Observer>(&mut self, cx: &mut Context<O>) {
        for handle in 0..self.parked.len() {
            if self.pending_program.is_some() || self.open_program.as_ref().is_some_and(|open| open.filled > 0) {
                return;
            }
            if self.parked[handle].as_ref().is_some_and(|open| open.filled > 0) {
                self.use_handle(handle as u16);
                if let Some(dram) = self.dram.as_deref_mut() {
                    if dram.buffer.is_some() {
                        dram.batch_ops += 1;
                    }
                }
                self.close_user_program(cx);
            }
        }
    }

    /// The logical units in parked programs (acknowledged, not yet programmed).
    pub(super) fn parked_logicals(&self, logicals: &mut Vec<u32>) {
        let units_per_page = self.geometry.units_per_page;
        for open in self.parked.iter().flatten() {
            for index in 0..open.filled {
                let (block, page) = open.page_of_unit(index, units_per_page);
                let unit = self.geometry.unit_address(block, page, index % units_per_page);
                let logical = self.ftl.mapping.logical(unit);
                if logical != NONE {
                    logicals.push(logical);
                }
            }
        }
    }
}
