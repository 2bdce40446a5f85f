//! The FTL's shared vocabulary: write streams, program targets, open pages, placement and scheme
//! counters, and the flash work a mapping decision leaves for the simulation (docs/models/ftl.md;
//! Cho et al., Table II for the scheme counters).
//!
//! Kept apart from `mod.rs` so the scheme files (`block.rs`, `bast.rs`) and the simulation can
//! import it without importing the FTL that dispatches to them.

/// Who writes: the host or garbage collection. Each has its own open block per plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stream {
    User = 0,
    Gc = 1,
}

/// Where one program writes: a die and the planes it programs at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProgramTarget {
    pub die: u32,
    pub first_plane: u32,
    pub plane_count: u32,
}

/// A page being filled with units before its program.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct OpenPage {
    pub block: u32,
    pub page: u32,
    pub filled: u32,
}

/// Counts of data placed by each stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlacementCounts {
    pub user_units: u64,
    pub gc_units: u64,
    pub erases: u64,
    /// Units named by host trims (deallocated), mapped or not.
    #[serde(default)]
    pub trimmed_units: u64,
}

/// Flash work a block-mapping or BAST decision costs, for the simulation to run in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WorkItem {
    /// Read page `from` and program its data at page `to` (physical units = pages).
    Copy { from: u32, to: u32 },
    /// Erase `block` (no program of it is pending).
    Erase { block: u32 },
}

/// What the mapping schemes did in the measured run (Cho et al., Table II), counted when decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchemeCounts {
    /// Valid pages copied by block-mapping updates and BAST merges.
    pub valid_page_copies: u64,
    /// Erases of old data blocks by block-mapping updates.
    pub block_update_erases: u64,
    pub switch_merges: u64,
    pub partial_merges: u64,
    pub full_merges: u64,
    pub switch_merge_erases: u64,
    pub partial_merge_erases: u64,
    pub full_merge_erases: u64,
}
