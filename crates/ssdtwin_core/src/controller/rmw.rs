//! Writes of part of a mapping unit (docs/models/ftl.md, "Mapping unit"): the drive maps whole
//! units, so a write that leaves part of its unit out needs the unit's other data first. When the
//! unit was never written (or was trimmed) there is nothing to merge; when its data is in
//! controller DRAM (the write buffer, or the frame buffer while its program is open or in flight)
//! it is merged there; otherwise the unit is read from flash, a host read through the die queues
//! like any other (die time, channel transfer, energy, read retries), and the write goes back to
//! the head of the host queue once the data is in. The whole unit is then written: the host's
//! bytes and the unit's bytes differ, which the report's WAF counts (`sim/gather.rs`).
//!
//! Simplifications: the read happens before the unit enters the write buffer (a drive might
//! acknowledge first and merge at flush time), and the unit's location is taken from the mapping
//! table without a translation-page miss of its own (the write's own mapping update pays that).

use super::Controller;
use crate::ftl::mapping::NONE;
use crate::observe::{Context, Observer};

/// What a partial write's old data needs.
pub(super) enum OldData {
    /// Nothing to read (never written, trimmed, or in controller DRAM): the write goes on now.
    Ready,
    /// A flash read was queued; the write waits off the host queue until it is done.
    Reading,
    /// The unit's die queue is full: the write waits at the head of the host queue.
    Blocked,
}

impl Controller {
    /// The partial write `transaction` (at the head of the host queue) gets its unit's old data.
    pub(super) fn old_data<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) -> OldData {
        let logical = self.transactions[transaction].logical;
        let physical = self.ftl.mapping.physical(logical);
        let buffered = self
            .dram
            .as_deref()
            .and_then(|dram| dram.buffer.as_ref())
            .is_some_and(|buffer| buffer.holds(logical));
        if physical == NONE || buffered || !self.ftl.is_programmed(physical) {
            self.transactions[transaction].partial = false;
            self.tally.rmw_in_dram += u64::from(physical != NONE);
            return OldData::Ready;
        }
        let die = self.geometry.die_of_block(self.geometry.block_of_unit(physical));
        if self.dies[die as usize].host_slots >= self.die_queue_depth {
            return OldData::Blocked;
        }
        self.frame_used += 1;
        self.transactions[transaction].physical = physical;
        self.tally.rmw_reads += 1;
        self.enqueue_host_read(die, transaction, physical, cx);
        OldData::Reading
    }

    /// The old data of the partial write `transaction` is in: the merged write returns to the head
    /// of the host queue (the caller admits) and its read's frame-buffer slot frees.
    pub(super) fn old_data_read(&mut self, transaction: u32) {
        self.frame_used -= 1;
        let record = &mut self.transactions[transaction];
        record.partial = false;
        record.physical = NONE;
        self.host_queue.push_front(transaction);
    }
}
