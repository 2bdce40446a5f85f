//! The placement state every mapping scheme writes through: the FTL's geometry, mapping table,
//! block table, free lists and counters, borrowed from the [`super::Ftl`] for one decision.
//!
//! Block mapping and BAST (`block.rs`, `bast.rs`) take a [`Placement`] rather than the `Ftl`
//! itself, so they do not import the file that holds them in its `Scheme`; [`place`] is the one
//! definition of recording a unit's new home, shared with page mapping.

use std::collections::VecDeque;

use super::blocks::BlockTable;
use super::mapping::{Mapping, NONE};
use super::types::{PlacementCounts, SchemeCounts, Stream, WorkItem};
use crate::flash::geometry::Geometry;

/// The FTL's state a mapping scheme changes, borrowed for one write.
#[derive(Debug)]
pub struct Placement<'a> {
    pub geometry: Geometry,
    pub mapping: &'a mut Mapping,
    pub blocks: &'a mut BlockTable,
    /// Free blocks per plane.
    pub free: &'a mut [VecDeque<u32>],
    pub counts: &'a mut PlacementCounts,
    /// Flash work left by the write.
    pub work: &'a mut Vec<WorkItem>,
    pub ftl_counts: &'a mut SchemeCounts,
}

impl Placement<'_> {
    /// Logical capacity exposed to the host [mapping units].
    pub fn logical_units(&self) -> u32 {
        self.mapping.logical_units() as u32
    }

    /// Records that `logical` now lives at `physical`; the old copy becomes stale.
    #[inline]
    pub fn place(&mut self, logical: u32, physical: u32, stream: Stream) {
        place(
            self.mapping,
            self.blocks,
            &self.geometry,
            self.counts,
            logical,
            physical,
            stream,
        );
    }
}

/// The FTL's state a scheme's invariant check reads.
#[derive(Debug)]
pub struct PlacementView<'a> {
    pub geometry: Geometry,
    pub mapping: &'a Mapping,
    pub blocks: &'a BlockTable,
}

impl PlacementView<'_> {
    /// Logical capacity exposed to the host [mapping units].
    pub fn logical_units(&self) -> u32 {
        self.mapping.logical_units() as u32
    }
}

/// Records that `logical` now lives at `physical`: the old copy becomes stale, the new one valid,
/// and the unit counts for `stream`.
#[inline]
pub fn place(
    mapping: &mut Mapping,
    blocks: &mut BlockTable,
    geometry: &Geometry,
    counts: &mut PlacementCounts,
    logical: u32,
    physical: u32,
    stream: Stream,
) {
    let old = mapping.remap(logical, physical);
    #[cfg(feature = "verify")]
    mapping.versions.placed(logical, physical, old, stream);
    if old != NONE {
        blocks.invalidate(geometry.block_of_unit(old));
    }
    blocks.add_valid(geometry.block_of_unit(physical));
    match stream {
        Stream::User => counts.user_units += 1,
        Stream::Gc => counts.gc_units += 1,
    }
}
