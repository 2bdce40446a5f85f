//! What the controller counts as it runs: flash operations by cause, Head-of-Line events and
//! suspensions. The engine turns these into the report's `flash`, `queues` and `suspend` blocks.

use crate::base::time::Duration;

/// Flash operations, Head-of-Line events and suspensions so far.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Host page reads (one per sense, however many transactions it serves).
    pub reads: u64,
    /// Host pages programmed.
    pub programs: u64,
    pub erases: u64,
    /// Page reads of GC and of block/BAST copies.
    pub gc_reads: u64,
    /// Pages programmed by GC and block/BAST copies.
    pub gc_programs: u64,
    /// Translation pages read into the mapping cache (misses).
    pub mapping_reads: u64,
    /// Translation pages programmed (write-backs and evictions of dirty pages).
    pub mapping_programs: u64,
    /// Times the head of the host queue could not move for a full frame buffer or die queue (a
    /// Head-of-Line event).
    pub hol_events: u64,
    /// Times it could not move because host writes wait for their planes' GC (`paced`: every
    /// target it tried owes copying or has no free block, one at least owing copying).
    pub gc_write_holds: u64,
    pub suspend: SuspendTally,
    /// Bytes the host asked to write, and the mapping units those writes touched.
    pub host_write_bytes: u64,
    pub host_write_units: u64,
    /// Units written only in part (each a read-modify-write of its unit).
    pub partial_writes: u64,
    /// Partial writes whose unit's old data was read from flash first.
    pub rmw_reads: u64,
    /// Partial writes whose unit's old data was in controller DRAM (write or frame buffer).
    pub rmw_in_dram: u64,
}

/// Suspension counts and suspended operation times, summed as operations complete.
#[derive(Clone, Debug, Default)]
pub struct SuspendTally {
    pub program: u64,
    pub erase: u64,
    /// Programs (erases) by the number of suspensions they had.
    pub per_program: Vec<u64>,
    pub per_erase: Vec<u64>,
    /// Total array time of completed programs (erases), suspensions included.
    pub program_time: Duration,
    pub erase_time: Duration,
}

impl SuspendTally {
    /// Mean array time of the completed operations of a histogram [us].
    pub fn mean_us(total: Duration, histogram: &[u64]) -> f64 {
        let count: u64 = histogram.iter().sum();
        if count > 0 {
            total.as_micros_f64() / count as f64
        } else {
            0.0
        }
    }
}
