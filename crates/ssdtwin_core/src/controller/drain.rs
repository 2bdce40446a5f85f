//! The drain at the end of a run (`report.drain`, `sim/drain.rs`): once the host's last command
//! has completed, the controller programs the host data it still holds and lets the flash work
//! already issued finish.
//!
//! What the drain completes: every operation queued, running or suspended at a die (a suspended
//! program resumes once no host read waits); a program waiting for its die queue; the write
//! buffer's waiting units, flushed whatever its fill level (in its flush order and batches); the
//! partly filled open page, programmed as it is; the translation-page reads and write-backs those
//! programs cause. GC keeps its usual rules while host data is still to be placed (a flush may need
//! the space); once it is all placed, GC issues nothing new: the reads in flight finish and the GC
//! pages they fill are programmed, but a victim not yet copied stays claimed, unerased, and no new
//! victim is claimed (background work a drive would do later, not work of the acknowledged
//! commands).

use super::Controller;
use crate::observe::{Context, Observer};

/// What the drive held when the drain began (the report's `drain` block).
#[derive(Clone, Copy, Debug, Default)]
pub struct DrainStart {
    /// Flash operations queued, running or suspended at the dies, or waiting for a die queue.
    pub operations: u64,
    /// Acknowledged host units not yet in a program: the write buffer's waiting units and the
    /// open page's.
    pub unplaced_units: u64,
}

impl Controller {
    /// The host is done: from now on the controller drains (see the module documentation).
    pub fn start_drain<O: Observer>(&mut self, cx: &mut Context<O>) -> DrainStart {
        let mut operations = u64::from(self.pending_program.is_some());
        for die in &self.dies {
            operations += (die.queues.host.len() + die.queues.internal.len()) as u64;
            operations += u64::from(die.running.is_some()) + u64::from(die.output.is_some());
            // A suspended array operation is not running; a running one is counted once.
            if let Some(array) = die.array {
                operations += u64::from(die.running != Some(array.op));
            }
        }
        let queued = self
            .dram
            .as_ref()
            .and_then(|dram| dram.buffer.as_ref())
            .map_or(0, |buffer| buffer.queued);
        let open = self.open_program.as_ref().map_or(0, |open| open.filled)
            + self.zoned.as_ref().map_or(0, |zoned| zoned.unplaced_units() as u32)
            + self.parked_units();
        self.draining = true;
        if let Some(buffer) = self.dram.as_deref_mut().and_then(|dram| dram.buffer.as_mut()) {
            buffer.flush_all();
            self.flush(cx);
        }
        self.program_open_page(cx);
        DrainStart {
            operations,
            unplaced_units: u64::from(queued) + u64::from(open),
        }
    }

    /// Draining: the partly filled open page is programmed as it is, once nothing waits to be
    /// placed before it (the write buffer empty, no program waiting for its die queue).
    pub(super) fn program_open_page<O: Observer>(&mut self, cx: &mut Context<O>) {
        if self.zoned.is_some() {
            self.program_zone_groups(cx);
        }
        let Some(open) = &self.open_program else {
            return self.program_parked(cx);
        };
        if open.filled == 0 || self.pending_program.is_some() {
            return self.program_parked(cx);
        }
        if let Some(dram) = self.dram.as_deref_mut() {
            if let Some(buffer) = dram.buffer.as_ref() {
                if buffer.queued > 0 {
                    return;
                }
                // A buffered program: its completion ends a flush batch (`flush.rs`).
                dram.batch_ops += 1;
            }
        }
        self.close_user_program(cx);
        self.program_parked(cx);
    }

    /// Draining and every acknowledged host unit is in a program: GC issues nothing new.
    #[inline]
    pub(super) fn gc_held(&self) -> bool {
        self.draining && self.host_data_placed()
    }

    fn host_data_placed(&self) -> bool {
        self.pending_program.is_none()
            && self.open_program.as_ref().is_none_or(|open| open.filled == 0)
            && self.zoned.as_ref().is_none_or(|zoned| zoned.unplaced_units() == 0)
            && self.parked_units() == 0
            && self
                .dram
                .as_ref()
                .and_then(|dram| dram.buffer.as_ref())
                .is_none_or(|buffer| buffer.queued == 0)
    }

    /// The drain is done: the host's data is placed and no die holds or waits for an operation.
    pub fn drained(&self) -> bool {
        self.host_data_placed()
            && self
                .dies
                .iter()
                .all(|die| !die.holds_operation() && die.queues.host.is_empty() && die.queues.internal.is_empty())
    }
}
