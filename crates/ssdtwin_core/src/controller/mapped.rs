//! Host writes under block mapping and BAST, and the flash work their updates and merges cost.
//!
//! The FTL decides placement at once (`Ftl::mapped_write`) and lists the page copies and erases
//! it needs; they run here as real die operations: a copy is a `CopyRead` of the source page
//! followed by a GC-stream program of the destination, both in the die's internal queue (the
//! same die: a logical block keeps to one plane), so the read precedes the program and every
//! read of a block precedes its erase. The host data is one single-page program in the die's
//! target command queue, like a page-mapped program.

use super::ops::{OpKind, MAX_PLANES};
use super::Controller;
use crate::ftl::{Stream, WorkItem};
use crate::observe::{Context, Observer};

impl Controller {
    /// Admits a host write transaction under block mapping or BAST; false when its die queue
    /// is full or its plane waits for an erase (the caller counts a Head-of-Line event).
    pub(super) fn admit_mapped_write<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) -> bool {
        let logical = self.transactions[transaction].logical;
        let die = self.ftl.mapped_die(logical);
        if self.dies[die as usize].host_slots >= self.die_queue_depth {
            return false;
        }
        let Some(unit) = self.ftl.mapped_write(logical) else {
            return false;
        };
        let command = self.transactions.remove(transaction).command;
        self.acknowledge_write_unit(command, cx);
        let mut pages = [(0, 0); MAX_PLANES];
        pages[0] = (self.geometry.block_of_unit(unit), self.geometry.page_of_unit(unit));
        self.enqueue_op(
            die,
            OpKind::Program {
                stream: Stream::User,
                pages,
                page_count: 1,
                units: 1,
            },
            true,
            cx,
        );
        self.issue_ftl_work(cx);
        true
    }

    /// Queues the copies and erases the last mapped write left in `Ftl::work`.
    fn issue_ftl_work<O: Observer>(&mut self, cx: &mut Context<O>) {
        let geometry = self.geometry;
        for index in 0..self.ftl.work.len() {
            match self.ftl.work[index] {
                WorkItem::Copy { from, to } => {
                    let from_block = geometry.block_of_unit(from);
                    self.enqueue_internal_op(
                        geometry.die_of_block(from_block),
                        OpKind::CopyRead {
                            block: from_block,
                            page: geometry.page_of_unit(from),
                        },
                        cx,
                    );
                    let to_block = geometry.block_of_unit(to);
                    let mut pages = [(0, 0); MAX_PLANES];
                    pages[0] = (to_block, geometry.page_of_unit(to));
                    self.enqueue_internal_op(
                        geometry.die_of_block(to_block),
                        OpKind::Program {
                            stream: Stream::Gc,
                            pages,
                            page_count: 1,
                            units: 1,
                        },
                        cx,
                    );
                }
                WorkItem::Erase { block } => {
                    self.enqueue_internal_op(geometry.die_of_block(block), OpKind::Erase { block }, cx);
                }
            }
        }
    }

    /// Erases retired blocks whose last pending program has just completed.
    pub(super) fn issue_ready_erases<O: Observer>(&mut self, cx: &mut Context<O>) {
        while let Some(block) = self.ftl.ready_erases.pop() {
            self.enqueue_internal_op(self.geometry.die_of_block(block), OpKind::Erase { block }, cx);
        }
    }
}
