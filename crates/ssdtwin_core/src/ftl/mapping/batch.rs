//! Lookups of several units at once, shaped so their misses overlap: the forward map is
//! hundreds of megabytes, read at random, so each entry is a cache (and often TLB) miss, and a
//! core keeps many misses in flight only when the loads do not wait on one another. GC's
//! validity check of a victim page reads the page's reverse entries (one run) and then the
//! forward entries they name, all issued before any is used; a host write's forward entry is
//! loaded when its command arrives, long before the write is placed.

use super::{Mapping, NONE};

/// The most units [`Mapping::valid_mask`] takes (the bits of its answer).
pub const MASK_UNITS: u32 = 64;

impl Mapping {
    /// Which of the `count` (at most [`MASK_UNITS`]) physical units from `first` hold valid data:
    /// bit `i` for unit `first + i`, as [`Self::logical`] of each would say.
    #[inline]
    pub fn valid_mask(&self, first: u32, count: u32) -> u64 {
        debug_assert!(count <= MASK_UNITS);
        let mut logicals = [NONE; MASK_UNITS as usize];
        let logicals = &mut logicals[..count as usize];
        for (entry, physical) in logicals.iter_mut().zip(first..) {
            *entry = self.reverse_entry(physical);
        }
        let mut mask = 0u64;
        for (bit, (&logical, physical)) in logicals.iter().zip(first..).enumerate() {
            if logical != NONE && self.physical(logical) == physical {
                mask |= 1 << bit;
            }
        }
        mask
    }

    /// Loads the forward entries the reverse entries of the `count` physical units from `first`
    /// name, for a [`Self::valid_mask`] of them soon after (nothing when the reverse map lives in
    /// a file: a look there may read it).
    #[inline]
    pub fn touch_units(&self, first: u32, count: u32) {
        if self.reverse_in_file() {
            return;
        }
        let mut touched = 0u32;
        for physical in first..first + count {
            let logical = self.reverse_entry(physical);
            if logical != NONE {
                touched ^= self.physical(logical);
            }
        }
        std::hint::black_box(touched);
    }

    /// Loads `logical`'s forward entry, for a write of it placed soon after.
    #[inline]
    pub fn touch(&self, logical: u32) {
        std::hint::black_box(self.physical(logical));
    }
}
