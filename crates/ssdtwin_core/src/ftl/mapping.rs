//! The page-mapping table: flat forward (logical → physical) and reverse (physical → logical)
//! arrays of `u32` mapping-unit addresses.
//!
//! Forward and reverse maps together cost 4 B per logical unit plus 4 B per physical unit (about
//! 9.7 B per logical unit at 30% over-provisioning). A physical unit is valid exactly when its
//! reverse entry holds a logical address, so no separate valid bitmap is kept.

/// Marks an unmapped logical unit and an invalid (free or stale) physical unit.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct Mapping {
    forward: Vec<u32>,
    reverse: Vec<u32>,
}

impl Mapping {
    /// The forward and reverse arrays (for snapshots).
    pub fn arrays(&self) -> (&[u32], &[u32]) {
        (&self.forward, &self.reverse)
    }

    /// The forward and reverse arrays, taken out (the mapping is left empty).
    pub fn take_arrays(&mut self) -> (Vec<u32>, Vec<u32>) {
        (std::mem::take(&mut self.forward), std::mem::take(&mut self.reverse))
    }

    /// A mapping from its forward and reverse arrays (a snapshot's).
    pub fn from_arrays(forward: Vec<u32>, reverse: Vec<u32>) -> Mapping {
        Mapping { forward, reverse }
    }

    pub fn new(logical_units: u64, physical_units: u64) -> Mapping {
        Mapping {
            forward: vec![NONE; logical_units as usize],
            reverse: vec![NONE; physical_units as usize],
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

    pub fn logical_units(&self) -> usize {
        self.forward.len()
    }

    /// Bytes of simulator state held by the two maps.
    pub fn state_bytes(&self) -> usize {
        (self.forward.capacity() + self.reverse.capacity()) * std::mem::size_of::<u32>()
    }
}
