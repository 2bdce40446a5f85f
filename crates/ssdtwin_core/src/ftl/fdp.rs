//! Flexible Data Placement (`[fdp]`, issue 31; NVMe TP4146, ratified into NVMe 2.0): reclaim unit
//! handles, each writing its own open reclaim units, per-handle write amplification and the FDP
//! events (docs/models/fdp.md).
//!
//! The page-mapped FTL keeps one open block per plane per write frontier. Without FDP there are two
//! frontiers, host (0) and GC (1). With FDP the host side has one frontier per reclaim unit handle
//! (`0..handles`) and GC has one shared frontier (`initially_isolated`: relocated data of every
//! handle may mix) or one per handle (`persistently_isolated`: relocated data stays in its handle's
//! reclaim units). A reclaim unit is `reclaim_unit` worth of blocks, one block per plane of a group
//! of planes opened by the same frontier in the same turn; GC still takes one block (one plane's
//! share of a reclaim unit) as its victim, as the victim policies choose within a plane.
//!
//! Off by default: `Ftl::fdp` is `None` and the frontiers are the two of today.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::ConfigError;
use crate::base::units::parse_byte_size;
use crate::flash::params::FlashConfig;

/// How relocated data of a reclaim unit handle is placed (TP4146, "Reclaim Unit Handle Type").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HandleType {
    /// Host writes of different handles never share a reclaim unit; data GC relocates may be mixed
    /// with other handles' relocated data (one GC frontier).
    InitiallyIsolated,
    /// Relocated data also stays in reclaim units of its own handle (a GC frontier per handle).
    PersistentlyIsolated,
}

/// Flexible Data Placement (`[fdp]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FdpConfig {
    /// Enable FDP: commands' placement identifiers choose a reclaim unit handle. Default false:
    /// one host write frontier, as without FDP.
    pub enabled: bool,
    /// Reclaim unit size: "superblock" (the default: one block on every plane of the drive),
    /// "per_die" (one block on every plane of a die), "per_plane" (one block), or a size that is a
    /// whole number of blocks (block = page_size x pages_per_block) dividing the drive's planes
    /// [size or name].
    pub reclaim_unit: String,
    /// Reclaim unit handles (RUHs): placement identifiers 0..handles. Default 8 [A] [handles].
    pub handles: u16,
    /// Reclaim groups. Default 1; only 1 is simulated (every handle spans the whole drive)
    /// [groups].
    pub reclaim_groups: u32,
    /// Handle type: `initially_isolated` (the default) or `persistently_isolated`.
    pub handle_type: HandleType,
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            enabled: false,
            reclaim_unit: "superblock".to_string(),
            handles: 8,
            reclaim_groups: 1,
            handle_type: HandleType::InitiallyIsolated,
        }
    }
}

impl FdpConfig {
    /// Blocks per reclaim unit on `flash` (one per plane of a group of planes), or an error
    /// naming the key.
    pub fn resolve(&self, flash: &FlashConfig) -> Result<u32, ConfigError> {
        let planes = flash.channels * flash.chips_per_channel * flash.dies_per_chip * flash.planes_per_die;
        if self.handles == 0 || self.handles > 256 {
            return Err(ConfigError::new(
                "fdp.handles",
                format!("{} is out of range; allowed: 1 to 256", self.handles),
            ));
        }
        if self.reclaim_groups != 1 {
            return Err(ConfigError::new(
                "fdp.reclaim_groups",
                format!(
                    "{} is not simulated; allowed: 1 (every reclaim unit handle spans the drive)",
                    self.reclaim_groups
                ),
            ));
        }
        let allowed =
            "\"superblock\", \"per_die\", \"per_plane\" or a size that is a whole number of blocks dividing the planes";
        let blocks = match self.reclaim_unit.as_str() {
            "superblock" => planes,
            "per_die" => flash.planes_per_die,
            "per_plane" => 1,
            text => {
                let size = parse_byte_size(text).map_err(|error| {
                    ConfigError::new("fdp.reclaim_unit", format!("{text}: {error}; allowed: {allowed}"))
                })?;
                let block = flash.page_size.0 * u64::from(flash.pages_per_block);
                if size.0 == 0 || !size.0.is_multiple_of(block) {
                    return Err(ConfigError::new(
                        "fdp.reclaim_unit",
                        format!("{text} is not a whole number of {block}-byte blocks; allowed: {allowed}"),
                    ));
                }
                (size.0 / block).min(u64::from(u32::MAX)) as u32
            }
        };
        if blocks == 0 || !planes.is_multiple_of(blocks) {
            return Err(ConfigError::new(
                "fdp.reclaim_unit",
                format!(
                    "{} is {blocks} blocks, which does not divide the drive's {planes} planes; allowed: {allowed}",
                    self.reclaim_unit
                ),
            ));
        }
        Ok(blocks)
    }
}

/// Who owns a block opened by the shared GC frontier (`initially_isolated`).
pub const SHARED: u16 = u16::MAX;

/// FDP state of a page-mapped FTL.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FdpState {
    pub handles: u16,
    pub persistent: bool,
    /// Blocks per reclaim unit (consecutive planes).
    pub ru_blocks: u32,
    /// Frontier that opened each block (`handles..` for GC frontiers).
    pub frontier: Vec<u16>,
    /// Each block's turn in its frontier and plane: blocks of one frontier with the same turn on
    /// the planes of one group form a reclaim unit.
    pub turn: Vec<u32>,
    /// Blocks opened so far per frontier slot (`frontier * planes + plane`).
    pub opened: Vec<u32>,
    /// Blocks owned (open or closed, not yet erased) per handle; the last entry: shared GC blocks.
    pub owned_blocks: Vec<u32>,
    /// Per physical unit, the handle of the host write whose data it holds (a GC copy carries
    /// it): written where a unit is programmed and read where GC copies it, a block's run at a
    /// time, where a byte per logical unit was a random access at each (`docs/models/fdp.md`,
    /// cost). Meaningful for units that hold valid data. Stored in snapshots as runs of equal
    /// handles (after preconditioning one run: every unit handle 0), under a name older
    /// snapshots (a handle per logical unit) do not have, so they load empty and are refused.
    #[serde(rename = "unit_handle_runs", with = "handle_runs", default)]
    pub unit_handle: Vec<u8>,
    pub counts: FdpCounts,
}

/// FDP counters (reset with the FTL's counters at the start of the measured run).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FdpCounts {
    /// Host units written per handle.
    pub host_units: Vec<u64>,
    /// Units programmed for each handle's data: its host writes and the GC copies of units it
    /// wrote last.
    pub media_units: Vec<u64>,
    /// GC copies placed in the shared GC reclaim units (`initially_isolated`; also counted in
    /// `media_units` of their data's handle).
    pub shared_media_units: u64,
    /// Reclaim units reclaimed (a block of them taken by GC) while a block of them was still open.
    pub ru_not_fully_written: u64,
    /// GC victims whose valid data was moved to other media.
    pub media_reallocated: u64,
    /// Host commands whose placement identifier named no handle (placed on handle 0).
    pub invalid_placement: u64,
}

impl FdpState {
    pub fn new(config: &FdpConfig, ru_blocks: u32, planes: u32, blocks: u32, physical_units: u32) -> FdpState {
        let handles = config.handles;
        let persistent = config.handle_type == HandleType::PersistentlyIsolated;
        let frontiers = u32::from(handles) + if persistent { u32::from(handles) } else { 1 };
        FdpState {
            handles,
            persistent,
            ru_blocks,
            frontier: vec![0; blocks as usize],
            turn: vec![0; blocks as usize],
            opened: vec![0; (frontiers * planes) as usize],
            owned_blocks: vec![0; usize::from(handles) + 1],
            unit_handle: vec![0; physical_units as usize],
            counts: FdpCounts {
                host_units: vec![0; usize::from(handles)],
                media_units: vec![0; usize::from(handles)],
                ..FdpCounts::default()
            },
        }
    }

    /// Frontier slots (host and GC) for `planes` planes.
    pub fn frontiers(&self) -> u32 {
        u32::from(self.handles) + if self.persistent { u32::from(self.handles) } else { 1 }
    }

    /// The handle owning blocks of `frontier`, or [`SHARED`].
    pub fn owner_of_frontier(&self, frontier: u16) -> u16 {
        if frontier < self.handles {
            frontier
        } else if self.persistent {
            frontier - self.handles
        } else {
            SHARED
        }
    }

    /// The owner of `block` (a handle or [`SHARED`]).
    pub fn owner(&self, block: u32) -> u16 {
        self.owner_of_frontier(self.frontier[block as usize])
    }

    fn owned_index(&self, owner: u16) -> usize {
        if owner == SHARED {
            usize::from(self.handles)
        } else {
            usize::from(owner)
        }
    }

    /// `frontier` opened `block` in `plane` (of `planes`).
    pub fn opened_block(&mut self, frontier: u16, block: u32, plane: u32, planes: u32) {
        let slot = (u32::from(frontier) * planes + plane) as usize;
        self.frontier[block as usize] = frontier;
        self.turn[block as usize] = self.opened[slot];
        self.opened[slot] += 1;
        let index = self.owned_index(self.owner_of_frontier(frontier));
        self.owned_blocks[index] += 1;
    }

    /// `block` was erased: its owner holds one block less.
    pub fn erased_block(&mut self, block: u32) {
        let index = self.owned_index(self.owner(block));
        self.owned_blocks[index] = self.owned_blocks[index].saturating_sub(1);
    }

    /// Data placed at `physical` in `block`: a host write of handle `handle` (`host`), or a copy
    /// of the data at `old` (GC), which keeps its handle.
    #[inline]
    pub fn placed(&mut self, old: u32, physical: u32, block: u32, handle: u16, host: bool) {
        let data = if host {
            self.counts.host_units[usize::from(handle)] += 1;
            handle
        } else {
            self.handle_at(old)
        };
        self.unit_handle[physical as usize] = data as u8;
        self.counts.media_units[usize::from(data)] += 1;
        if self.owner(block) == SHARED {
            self.counts.shared_media_units += 1;
        }
    }

    /// The handle whose host write placed the data at `physical` (0 for data of none: the
    /// preconditioning's).
    pub fn handle_at(&self, physical: u32) -> u16 {
        self.unit_handle
            .get(physical as usize)
            .map_or(0, |&handle| u16::from(handle))
    }

    /// Reclaim units in use per handle (owned blocks over blocks per reclaim unit, rounded up).
    pub fn units_in_use(&self) -> Vec<u32> {
        self.owned_blocks[..usize::from(self.handles)]
            .iter()
            .map(|&blocks| blocks.div_ceil(self.ru_blocks))
            .collect()
    }

    /// Zeroes the counters (the start of the measured run).
    pub fn reset_counts(&mut self) {
        let handles = usize::from(self.handles);
        self.counts = FdpCounts {
            host_units: vec![0; handles],
            media_units: vec![0; handles],
            ..FdpCounts::default()
        };
    }
}

/// The report's `fdp` block (with `fdp.enabled`): per reclaim unit handle and the FDP events, over
/// the measured run (the reclaim units in use: at its end).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FdpReport {
    /// Blocks per reclaim unit (`fdp.reclaim_unit`).
    pub reclaim_unit_blocks: u32,
    /// One entry per handle, by placement identifier.
    pub handles: Vec<HandleReport>,
    /// Bytes GC relocated into reclaim units shared by all handles (`initially_isolated`; 0 when
    /// persistently isolated); part of the handles' `media_bytes`, which sum to
    /// `ftl.media_write_bytes`.
    pub shared_gc_media_bytes: u64,
    pub events: FdpEvents,
}

/// One reclaim unit handle's figures.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HandleReport {
    pub placement: u16,
    /// Host write bytes placed through this handle [bytes] (mapping units x `ftl.mapping_unit`).
    pub host_bytes: u64,
    /// Bytes programmed for this handle's data: its host writes and the GC copies of the units it
    /// wrote last, wherever GC placed them [bytes].
    pub media_bytes: u64,
    /// `media_bytes / host_bytes` (0 without host writes).
    pub waf: f64,
    /// Reclaim units holding this handle's data at the end of the run (its blocks, open or
    /// closed, over `reclaim_unit_blocks`, rounded up).
    pub reclaim_units_in_use: u32,
}

/// FDP events counted (NVMe TP4146 event types the model produces).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FdpEvents {
    /// Reclaim Unit Not Fully Written: GC took a block of a reclaim unit while another block of
    /// that unit was still open (being written).
    pub reclaim_unit_not_fully_written: u64,
    /// Media Reallocated (the model's reading): GC victims whose valid data was moved.
    pub media_reallocated: u64,
    /// Invalid Placement Identifier: host writes whose identifier named no handle (placed on
    /// handle 0).
    pub invalid_placement_identifier: u64,
}

impl FdpState {
    /// The report block; `unit_bytes` is `ftl.mapping_unit`.
    pub fn report(&self, unit_bytes: u64) -> FdpReport {
        let in_use = self.units_in_use();
        let counts = &self.counts;
        FdpReport {
            reclaim_unit_blocks: self.ru_blocks,
            handles: (0..self.handles)
                .map(|handle| {
                    let index = usize::from(handle);
                    let (host, media) = (counts.host_units[index], counts.media_units[index]);
                    HandleReport {
                        placement: handle,
                        host_bytes: host * unit_bytes,
                        media_bytes: media * unit_bytes,
                        waf: if host > 0 { media as f64 / host as f64 } else { 0.0 },
                        reclaim_units_in_use: in_use[index],
                    }
                })
                .collect(),
            shared_gc_media_bytes: counts.shared_media_units * unit_bytes,
            events: FdpEvents {
                reclaim_unit_not_fully_written: counts.ru_not_fully_written,
                media_reallocated: counts.media_reallocated,
                invalid_placement_identifier: counts.invalid_placement,
            },
        }
    }
}

/// [`FdpState::unit_handle`] in snapshots: `[handle, count]` runs.
mod handle_runs {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(handles: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        let mut runs: Vec<(u8, u64)> = Vec::new();
        for &handle in handles {
            match runs.last_mut() {
                Some((value, count)) if *value == handle => *count += 1,
                _ => runs.push((handle, 1)),
            }
        }
        runs.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let runs: Vec<(u8, u64)> = Vec::deserialize(deserializer)?;
        let total: u64 = runs.iter().map(|&(_, count)| count).sum();
        // A drive has fewer than 2^32 physical units (addresses are `u32`): more is a damaged file.
        if total > u64::from(u32::MAX) {
            return Err(serde::de::Error::custom(format!("{total} FDP unit handles")));
        }
        let mut handles = Vec::with_capacity(total as usize);
        for (handle, count) in runs {
            handles.resize(handles.len() + count as usize, handle);
        }
        Ok(handles)
    }
}
