//! The controller's side of the reliability model (docs/models/reliability.md): each flash read
//! gets its cost from `reliability::Reliability` when it starts on its die; the cost becomes more
//! senses (`bus.rs`, `granted`: the read-retry steps and soft senses back to back, each a t_R at
//! the read's current, so the power model books them), more data out (`data_out`: each step's
//! data and the soft bits) and decode time on the controller before the transaction completes
//! (`decode_read`). An uncorrectable host read marks its command, which completes with an error
//! status. Blocks whose reads approach the ECC limit, and static wear leveling's cold blocks, are
//! relocated as GC victims once their plane's GC is idle (`run_relocations`).

use super::ops::Relocation;
use super::Controller;
use crate::base::event::Event;
use crate::base::time::Time;
use crate::ftl::mapping::NONE;
use crate::observe::{Context, Observer};
use crate::reliability::retry::ReadCost;

impl Controller {
    /// The read `op` starting on `die` gets its RBER and cost (reliability on). The op is looked
    /// up once, for its kind and to take its cost.
    pub(super) fn assess_read(&mut self, die: u32, op: u32, now: Time) {
        let op = &mut self.ops[op];
        let block = match op.kind {
            super::ops::OpKind::HostRead { transaction } => {
                self.geometry.block_of_unit(self.transactions[transaction].physical)
            }
            super::ops::OpKind::GcRead { block, .. } | super::ops::OpKind::CopyRead { block, .. } => block,
            _ => return,
        };
        let page_type = self.dies[die as usize].page_type;
        let pe = self.ftl.blocks.erase_count[block as usize];
        let reliability = self.reliability.as_mut().expect("called with reliability on");
        let (cost, reclaim) = reliability.read(block, die, pe, page_type, now);
        op.cost = cost;
        if reclaim {
            self.relocations.push((block, Relocation::Reclaim));
        }
    }

    /// A host read transaction's data is out of the die: it completes after the controller's
    /// decode; an uncorrectable one marks its command for an error status.
    #[inline(always)]
    pub(super) fn decode_read<O: Observer>(&mut self, transaction: u32, cost: ReadCost, cx: &mut Context<O>) {
        let reliability = self.reliability.as_deref().expect("called with reliability on");
        let decode = reliability.decode_time(cost);
        if cost.uncorrectable {
            self.read_lost(transaction);
        }
        cx.events
            .schedule(cx.now + decode, Event::BufferReadDone { transaction });
    }

    /// Host read `transaction` is uncorrectable: its LBA is listed and its command errs.
    #[cold]
    #[inline(never)]
    fn read_lost(&mut self, transaction: u32) {
        let record = self.transactions[transaction];
        let lba = u64::from(record.logical) * self.geometry.unit_bytes / 512;
        if let Some(reliability) = self.reliability.as_mut() {
            reliability.tally.lost(lba);
        }
        if record.command != super::prefetch::PREFETCH {
            self.commands[record.command].error = true;
        }
    }

    /// Starts the waiting relocations whose plane's GC is idle and has a free block to copy into;
    /// a block that is no longer closed (erased meanwhile) is dropped, an open one waits.
    /// Block mapping and BAST relocate through their own merges: relocations are page mapping's.
    pub(super) fn run_relocations<O: Observer>(&mut self, cx: &mut Context<O>) {
        if !self.ftl.is_page_mapped() {
            self.relocations.clear();
            return;
        }
        let mut index = 0;
        while index < self.relocations.len() {
            let (block, why) = self.relocations[index];
            let plane = self.geometry.plane_of_block(block);
            if self.gc[plane as usize].victim != NONE || self.ftl.free_blocks(plane) < 2 {
                index += 1;
                continue;
            }
            let state = self.ftl.blocks.state[block as usize];
            if state == crate::ftl::blocks::BlockState::Open {
                index += 1;
                continue;
            }
            self.relocations.swap_remove(index);
            if self.ftl.take_block(block) {
                match why {
                    Relocation::Reclaim => {
                        if let Some(reliability) = self.reliability.as_mut() {
                            reliability.tally.reclaims += 1;
                        }
                    }
                    Relocation::WearLeveling => self.wear_relocations += 1,
                }
                self.collect(plane, block, false, cx);
            }
        }
    }
}
