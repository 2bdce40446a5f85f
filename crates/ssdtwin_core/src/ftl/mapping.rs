//! The page-mapping table: flat forward (logical → physical) and reverse (physical → logical)
//! arrays of `u32` mapping-unit addresses.
//!
//! Forward and reverse maps together cost 4 B per logical unit plus 4 B per physical unit (about
//! 9.7 B per logical unit at 30% over-provisioning). A physical unit is valid exactly when its
//! reverse entry holds a logical address, so no separate valid bitmap is kept.

use crate::base::memory::LargeArray;

/// Marks an unmapped logical unit and an invalid (free or stale) physical unit.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct Mapping {
    forward: LargeArray,
    reverse: LargeArray,
    /// Test builds only (`verify` feature): the version of each unit's data ([`super::versions`]).
    #[cfg(feature = "verify")]
    pub versions: super::versions::Versions,
}

impl Mapping {
    /// The forward and reverse arrays (for snapshots).
    pub fn arrays(&self) -> (&[u32], &[u32]) {
        (&self.forward, &self.reverse)
    }

    /// The forward and reverse arrays, taken out (the mapping is left empty).
    pub fn take_arrays(&mut self) -> (LargeArray, LargeArray) {
        (std::mem::take(&mut self.forward), std::mem::take(&mut self.reverse))
    }

    /// A mapping from its forward and reverse arrays (a snapshot's).
    pub fn from_arrays(forward: LargeArray, reverse: LargeArray) -> Mapping {
        Mapping {
            #[cfg(feature = "verify")]
            versions: super::versions::Versions::of_maps(&forward, &reverse),
            forward,
            reverse,
        }
    }

    pub fn new(logical_units: u64, physical_units: u64) -> Mapping {
        Mapping {
            forward: LargeArray::filled(logical_units as usize, NONE),
            reverse: LargeArray::filled(physical_units as usize, NONE),
            #[cfg(feature = "verify")]
            versions: super::versions::Versions::new(logical_units, physical_units),
        }
    }

    /// Physical unit holding `logical`, or [`NONE`].
    #[inline]
    pub fn physical(&self, logical: u32) -> u32 {
        self.forward[logical as usize]
    }

    /// Logical unit stored at `physical`, or [`NONE`] when the unit holds no valid data.
    #[inline]
    pub fn logical(&self, physical: u32) -> u32 {
        self.reverse[physical as usize]
    }

    /// Points `logical` at `physical`; returns the physical unit it held before (now stale), or [`NONE`].
    #[inline]
    pub fn remap(&mut self, logical: u32, physical: u32) -> u32 {
        let old = std::mem::replace(&mut self.forward[logical as usize], physical);
        if old != NONE {
            self.reverse[old as usize] = NONE;
        }
        self.reverse[physical as usize] = logical;
        old
    }

    /// Points the unmapped `logical` at the empty `physical` (laying out a table from scratch).
    #[inline]
    pub fn set(&mut self, logical: u32, physical: u32) {
        debug_assert_eq!(self.forward[logical as usize], NONE);
        debug_assert_eq!(self.reverse[physical as usize], NONE);
        self.forward[logical as usize] = physical;
        self.reverse[physical as usize] = logical;
        #[cfg(feature = "verify")]
        self.versions
            .placed(logical, physical, NONE, super::types::Stream::User);
    }

    /// Test builds only: drops `logical` from both maps, as a lost write would (the caller
    /// fixes the block's valid count), so a check can be shown to catch the loss.
    #[cfg(feature = "verify")]
    pub fn forget(&mut self, logical: u32) -> u32 {
        let physical = std::mem::replace(&mut self.forward[logical as usize], NONE);
        if physical != NONE {
            self.reverse[physical as usize] = NONE;
        }
        physical
    }

    pub fn logical_units(&self) -> usize {
        self.forward.len()
    }

    /// Bytes of simulator state held by the two maps.
    pub fn state_bytes(&self) -> usize {
        (self.forward.len() + self.reverse.len()) * std::mem::size_of::<u32>()
    }
}
