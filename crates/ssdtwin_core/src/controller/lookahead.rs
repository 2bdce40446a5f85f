//! Loads ahead: the table entries and block records a transaction will need, read before it
//! needs them so that their cache misses overlap other work instead of stalling it one by one.
//! Nothing here changes state or results: each function reads and discards what it read
//! (`std::hint::black_box`), and the reads it brings forward are repeated where they are used.
//! A single load ahead gains nothing (a load that misses holds up the instructions after it as
//! much early as late: the project forbids `unsafe`, so no prefetch instruction); loads in a batch
//! overlap their misses. Three places batch them: the host for the reads of a synthetic stream's
//! batch of draws (`touch_reads`, `host/submission.rs`), admission for the queued writes behind
//! the head (`touch_queued`), and the DRAM buffer's flush for the next writes it places
//! (`touch_units`, `flush.rs`).

use super::Controller;
use crate::ftl::mapping::NONE;

/// Queued host transactions whose table entries admission loads ahead in one batch.
pub(super) const QUEUE_LOOKAHEAD: usize = 8;

/// Reads whose block records [`Controller::touch_reads`] loads in one batch: 16 gained 2-3% over
/// 8 on full-size reads with reliability on; 32 no more (2026-11-28).
const READ_BATCH: usize = 16;

impl Controller {
    /// The host drew reads of the units `logicals` (a synthetic stream's batch): with the
    /// reliability model on, loads what their assessments will look at when they start on their
    /// dies (`assess_read`: each block's erase count, reads and program time), random cache misses
    /// in tables of a few megabytes, [`READ_BATCH`] at a time so that they overlap. Admission's
    /// own lookups need no loading ahead for reads after a fill (a filled row's mapping is
    /// arithmetic, its page programmed without a look).
    #[inline]
    pub fn touch_reads(&self, logicals: impl Iterator<Item = u32>) {
        let Some(reliability) = self.reliability.as_deref() else {
            return;
        };
        let mut logicals = logicals.peekable();
        while logicals.peek().is_some() {
            let mut blocks = [NONE; READ_BATCH];
            for (block, logical) in blocks.iter_mut().zip(&mut logicals) {
                let physical = self.ftl.mapping.physical(logical);
                if physical != NONE {
                    *block = self.geometry.block_of_unit(physical);
                }
            }
            let mut touched = 0;
            for &block in &blocks {
                if block != NONE {
                    touched ^= self.ftl.blocks.erase_count[block as usize] ^ reliability.touch(block);
                }
            }
            std::hint::black_box(touched);
        }
    }

    /// The host queue moves: loads the forward entries of its next transactions (and what the
    /// blocks they point into will be read and written for: `BlockTable::touch`) in one batch, so
    /// that their misses overlap rather than come one per admission. Returns how many it covered.
    #[inline]
    pub(super) fn touch_queued(&self) -> usize {
        let count = self.host_queue.len().min(QUEUE_LOOKAHEAD);
        let mut logicals = [NONE; QUEUE_LOOKAHEAD];
        for (logical, &transaction) in logicals.iter_mut().zip(self.host_queue.iter()) {
            *logical = self.transactions[transaction].logical;
        }
        self.touch_units(&logicals[..count]);
        count
    }

    /// Loads the forward entries of `logicals` (at most [`QUEUE_LOOKAHEAD`]) and what their
    /// blocks will be read and written for, in one batch: admission's look-ahead, and the DRAM
    /// buffer's flush (`flush.rs`), which places buffered units one by one.
    #[inline]
    pub(super) fn touch_units(&self, logicals: &[u32]) {
        let mut physicals = [NONE; QUEUE_LOOKAHEAD];
        for (physical, &logical) in physicals.iter_mut().zip(logicals) {
            *physical = self.ftl.mapping.physical(logical);
        }
        let mut touched = 0u32;
        for &physical in &physicals[..logicals.len().min(QUEUE_LOOKAHEAD)] {
            if physical != NONE {
                touched ^= self.ftl.blocks.touch(self.geometry.block_of_unit(physical));
            }
        }
        std::hint::black_box(touched);
    }
}
