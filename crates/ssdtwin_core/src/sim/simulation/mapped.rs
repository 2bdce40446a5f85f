//! Host writes under block mapping and BAST, and the flash work their updates and merges cost.
//!
//! The FTL decides placement at once (`Ftl::mapped_write`) and lists the page copies and erases
//! it needs; they run here as real die operations: a copy is a `CopyRead` of the source page
//! followed by a GC-stream program of the destination, both in the die's internal queue (the
//! same die: a logical block keeps to one plane), so the read precedes the program and every
//! read of a block precedes its erase. The host data is one single-page program in the die's
//! target command queue, like a page-mapped program.

use super::Simulation;
use crate::config::MappingKind;
use crate::controller::{OpKind, MAX_PLANES};
use crate::ftl::{Stream, WorkItem};
use crate::metrics::report::{FtlErases, FtlMerges, FtlReport};
use crate::sim::event::Event;

impl Simulation {
    /// Admits a host write transaction under block mapping or BAST; false when its die queue
    /// is full or its plane waits for an erase (the caller counts a Head-of-Line event).
    pub(super) fn admit_mapped_write(&mut self, transaction: u32) -> bool {
        let logical = self.transactions[transaction].logical;
        let die = self.ftl.mapped_die(logical);
        if self.dies[die as usize].host_slots >= self.die_queue_depth {
            return false;
        }
        let Some(unit) = self.ftl.mapped_write(logical) else {
            return false;
        };
        let command = self.transactions.remove(transaction).command;
        self.frame_used += 1;
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            // The payload is in the frame buffer: the write is acknowledged.
            self.events.schedule(self.now, Event::CommandCompleted { command });
        }
        let mut pages = [(0, 0); MAX_PLANES];
        pages[0] = (self.geometry.block_of_unit(unit), self.geometry.page_of_unit(unit));
        self.enqueue_host_op(
            die,
            OpKind::Program {
                stream: Stream::User,
                pages,
                page_count: 1,
                units: 1,
            },
        );
        self.issue_ftl_work();
        true
    }

    /// Queues the copies and erases the last mapped write left in `Ftl::work`.
    fn issue_ftl_work(&mut self) {
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
                    );
                }
                WorkItem::Erase { block } => {
                    self.enqueue_internal_op(geometry.die_of_block(block), OpKind::Erase { block });
                }
            }
        }
    }

    /// Erases retired blocks whose last pending program has just completed.
    pub(super) fn issue_ready_erases(&mut self) {
        while let Some(block) = self.ftl.ready_erases.pop() {
            self.enqueue_internal_op(self.geometry.die_of_block(block), OpKind::Erase { block });
        }
    }

    /// The `ftl` block of the report: copies and erases by cause (Cho et al., Table II).
    pub(super) fn ftl_report(&self) -> FtlReport {
        let counts = self.ftl.ftl_counts;
        let page = self.scenario.ftl.mapping == MappingKind::Page;
        let placed = self.ftl.counts;
        let gc = if page { placed.erases } else { 0 };
        let erases = FtlErases {
            gc,
            block_update: counts.block_update_erases,
            switch_merge: counts.switch_merge_erases,
            partial_merge: counts.partial_merge_erases,
            full_merge: counts.full_merge_erases,
            total: gc
                + counts.block_update_erases
                + counts.switch_merge_erases
                + counts.partial_merge_erases
                + counts.full_merge_erases,
        };
        FtlReport {
            valid_page_copies: if page {
                placed.gc_units
            } else {
                counts.valid_page_copies
            },
            erases,
            merges: FtlMerges {
                switch: counts.switch_merges,
                partial: counts.partial_merges,
                full: counts.full_merges,
            },
            channel_switches: self.channels.iter().map(|channel| channel.switches).sum(),
        }
    }
}
