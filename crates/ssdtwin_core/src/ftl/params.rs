//! Parameters of the flash translation layer (`[ftl]`): mapping scheme and unit, over-provisioning,
//! GC thresholds and victim policy (docs/models/ftl.md; Cho et al. for block mapping and BAST), and
//! the preconditioning the FTL performs before a run.
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate` and [`check_mapping`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::ConfigError;
use crate::base::units::ByteSize;
use crate::flash::params::FlashConfig;

/// Logical-to-physical mapping scheme.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    /// Page mapping at `mapping_unit` granularity.
    Page,
    /// Block mapping: a logical block lives in one physical block at fixed page offsets; writing
    /// an offset already written copies the block's other valid pages to a new block and erases
    /// the old one (Cho et al., section III-C). Needs `mapping_unit = page_size`.
    Block,
    /// BAST (Kim et al., IEEE TCE 48(2), 2002): block mapping plus `log_blocks` page-mapped log
    /// blocks, each tied to one logical block; switch, partial and full merges (Cho et al.,
    /// section III-C). Needs `mapping_unit = page_size`.
    Bast,
}

impl MappingKind {
    /// The name as written in a scenario file.
    pub fn name(self) -> &'static str {
        match self {
            MappingKind::Page => "page",
            MappingKind::Block => "block",
            MappingKind::Bast => "bast",
        }
    }
}

/// Garbage-collection victim selection.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GcPolicyKind {
    /// The block with the fewest valid units.
    Greedy,
    /// The best (1 − u)·age / 2u among the lowest-utilisation candidates (Kawaguchi et al.).
    CostBenefit,
    /// A random closed block with at least one invalid unit.
    Random,
    /// The block closed longest ago.
    Fifo,
}

/// When GC work runs (`controller/pacing.rs`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GcPacingKind {
    /// A plane below `gc_threshold` collects victims back to back, whatever the host does (the
    /// model before issue 27; planes written evenly all collect at once).
    Threshold,
    /// Victims below `gc_stop_threshold` (by default `gc_threshold`), copying earned in proportion
    /// to the plane's host writes (faster more than two blocks below), one page at a time while
    /// the host is idle, unpaced only when a plane is nearly out of free blocks (the default).
    Paced,
}

/// Wear leveling: which free block a plane opens next (docs/models/reliability.md, "Wear").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WearLevelingKind {
    /// The block freed longest ago (a circular log; no look at wear).
    None,
    /// The free block with the fewest P/E cycles (dynamic wear leveling).
    Dynamic,
    /// `dynamic`, and the least-worn closed block of a plane is relocated when the plane's P/E
    /// spread exceeds `static_wear_spread` (static wear leveling).
    Static,
}

/// The flash translation layer.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Mapping scheme: `page`.
    pub mapping: MappingKind,
    /// Mapping granularity; host commands are split into transactions of this size [size].
    pub mapping_unit: ByteSize,
    /// Raw capacity hidden from the host as spare [fraction of raw capacity].
    pub over_provisioning: f64,
    /// GC starts on a plane when its free blocks fall below this fraction of its blocks [fraction].
    pub gc_threshold: f64,
    /// Urgent GC: when a plane's free blocks fall below this fraction of its blocks, its die serves
    /// its queues in arrival order (host reads no longer overtake GC work under `read_first`) and
    /// does not suspend GC programs and erases, as firmware raises GC priority when free space runs
    /// out; 0 = off [fraction].
    pub gc_urgent_threshold: f64,
    /// When GC runs: `paced` (the default: copying in proportion to host writes, background GC
    /// when the host is idle, unpaced only when a plane is nearly out of free blocks; issue 27) or
    /// `threshold` (back to back below `gc_threshold`, whatever the host does: the model before
    /// issue 27, whose evenly written planes all collect at once).
    pub gc_pacing: GcPacingKind,
    /// `paced`: a plane takes GC victims while its free blocks are below this fraction of its
    /// blocks (the level up to which background GC refills a plane while the host is idle).
    /// 0 (the default): `gc_threshold`, where `threshold` starts collecting.
    /// Higher opens a band; every block of it is spare space no data can use: SimpleSSD's factor 2
    /// (GCThreshold 0.05, GCReclaimThreshold 0.1) at `gc_threshold` 0.10 and 30%
    /// over-provisioning raised the WAF of an open-loop host from 2.4 to 4.3 [fraction].
    pub gc_stop_threshold: f64,
    /// Victim selection: greedy, cost_benefit, random or fifo.
    pub gc_policy: GcPolicyKind,
    /// Lowest-utilisation blocks examined by `cost_benefit` per victim choice [blocks].
    pub gc_candidates: u32,
    /// BAST log-block pool over the whole drive, shared evenly by the planes (a logical block's
    /// log block sits in its data block's plane); when a plane's share is in use, its oldest log
    /// block is merged to make room. Default 64 [A]: Cho et al. do not give the pool size [blocks].
    pub log_blocks: u32,
    /// Where the mapping table lives (docs/models/dram_buffer_plp.md): `full` (all of it in DRAM,
    /// the default) or `cached` (DFTL: translation pages on flash, a cache of them in DRAM of
    /// `mapping_cache_size`; a miss reads a translation page, evicting a dirty one programs it).
    pub mapping_cache: MappingCacheKind,
    /// With `mapping_cache = "cached"`: DRAM for cached translation pages (one flash page each,
    /// `page_size / 4` entries of 4 B). Default 4MiB [A] [size].
    pub mapping_cache_size: ByteSize,
    /// Wear leveling of page mapping: `none`, `dynamic` or `static` (block mapping and BAST open
    /// free blocks in freed order). Default dynamic.
    pub wear_leveling: WearLevelingKind,
    /// `static` wear leveling: P/E spread within a plane (most minus least worn block) above which
    /// the least-worn closed block is relocated [cycles]. Default 100 [A].
    pub static_wear_spread: u32,
    /// Where the mapping table's reverse map (physical unit → logical unit, 4 B per physical unit)
    /// lives: `memory` (the default) or `file`: an unlinked file, made in the directory `TMPDIR`
    /// names (else the system's temporary directory) and preallocated there (4 B per physical
    /// unit of disk while the simulation runs), read and written a block's entries at a time
    /// through a cache of at most 32 MiB, as a drive keeps each page's logical address in its spare area.
    /// Memory then holds about 4 B per logical unit (the forward map) instead of about 9.7 at 30%
    /// over-provisioning, for drives whose table would not fit; the report is the same.
    pub reverse_map: ReverseMapKind,
}

/// Where the mapping table's reverse map lives (`ftl/reverse.rs`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReverseMapKind {
    /// In memory.
    Memory,
    /// In an unlinked, preallocated file in `TMPDIR`, a cache of block runs in memory.
    File,
}

/// Where the page-mapping table lives.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MappingCacheKind {
    /// The whole table in DRAM: no translation-page reads.
    Full,
    /// DFTL (Gupta et al., ASPLOS 2009): translation pages on flash, an LRU cache of them in DRAM.
    Cached,
}

/// The free-block levels of `paced` GC on a plane (`controller/pacing.rs`, docs/models/ftl.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacedLevels {
    /// `G`: `gc_threshold` in blocks (at least 2) [blocks].
    pub start: usize,
    /// `S`: a plane takes victims below it: `gc_stop_threshold` in blocks, or `G`; at least
    /// `F + 3`, since a plane's open blocks and victim move it by up to two blocks below `S` and
    /// the catch-up starts below `S - 2`; that floor only where the plane's over-provisioned
    /// blocks exceed it (a plane of 16 blocks at 30% has 4: it keeps `G` and its GC runs mostly
    /// in the foreground, where a higher level would cost it most of its spare space) [blocks].
    pub stop: usize,
    /// `F`: below it copying runs unpaced: `max(3, gc_urgent_threshold in blocks)` [blocks].
    pub foreground: usize,
}

impl FtlConfig {
    /// The `paced` levels on a plane of `blocks_per_plane` blocks.
    pub fn paced_levels(&self, blocks_per_plane: u32) -> PacedLevels {
        let blocks = f64::from(blocks_per_plane);
        let start = ((self.gc_threshold * blocks).ceil() as usize).max(2);
        let foreground = ((self.gc_urgent_threshold * blocks).ceil() as usize).max(3);
        let stop = if self.gc_stop_threshold > 0.0 {
            ((self.gc_stop_threshold * blocks).ceil() as usize).max(start + 1)
        } else {
            start
        };
        let spare = (self.over_provisioning * blocks).floor() as usize;
        let floor = if foreground + 3 < spare { foreground + 3 } else { 0 };
        PacedLevels {
            start,
            stop: stop.max(floor),
            foreground,
        }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            mapping: MappingKind::Page,
            mapping_unit: ByteSize(4096),
            over_provisioning: 0.30,
            gc_threshold: 0.10,
            gc_urgent_threshold: 0.0,
            gc_pacing: GcPacingKind::Paced,
            gc_stop_threshold: 0.0,
            gc_policy: GcPolicyKind::Greedy,
            gc_candidates: 32,
            log_blocks: 64,
            mapping_cache: MappingCacheKind::Full,
            mapping_cache_size: ByteSize(4 << 20),
            wear_leveling: WearLevelingKind::Dynamic,
            static_wear_spread: 100,
            reverse_map: ReverseMapKind::Memory,
        }
    }
}

/// How the drive is brought to a used state before the measured run (no simulated time passes).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Precondition {
    /// Start from an empty drive.
    None,
    /// Write the workload's span once, sequentially.
    Fill,
    /// `fill`, then uniform random overwrites of the span with GC, so valid data is fragmented
    /// as on a used drive.
    Steady,
}

/// How `steady` preconditioning makes its random overwrites (docs/models/ftl.md).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMethod {
    /// Page mapping: the overwrites run on the block table alone (each one invalidates a unit of a
    /// block drawn in proportion to its valid units, the same chance a uniformly random logical
    /// unit gives; GC, victim policies and wear leveling run as in the timed run); then the
    /// mapping is laid out, each block's valid units at random written slots holding a random
    /// permutation of the span. Block mapping and BAST use `functional`.
    #[default]
    Statistical,
    /// Every overwrite through the mapping table, as the timed run does (slower: bound by memory
    /// latency, about 4x on large drives).
    Functional,
}

/// Checks that block mapping and BAST fit the drive (called from `config::validate`): one page
/// per mapping unit, and enough spare blocks in every plane for the updates in flight and the
/// plane's share of the log blocks, so a write always finds a free block eventually.
pub fn check_mapping(ftl: &FtlConfig, flash: &FlashConfig) -> Result<(), ConfigError> {
    if ftl.mapping == MappingKind::Page {
        return Ok(());
    }
    if ftl.mapping_unit != flash.page_size {
        return Err(ConfigError::new(
            "ftl.mapping_unit",
            format!(
                "{} with ftl.mapping = {}; allowed: the page size ({}), since block mapping and BAST map whole pages",
                ftl.mapping_unit,
                ftl.mapping.name(),
                flash.page_size
            ),
        ));
    }
    let planes = u64::from(flash.channels)
        * u64::from(flash.chips_per_channel)
        * u64::from(flash.dies_per_chip)
        * u64::from(flash.planes_per_die);
    let pages_per_block = u64::from(flash.pages_per_block);
    let physical_pages = planes * u64::from(flash.blocks_per_plane) * pages_per_block;
    let logical_pages = (physical_pages as f64 * (1.0 - ftl.over_provisioning)).floor() as u64;
    let logical_blocks_per_plane = logical_pages.div_ceil(pages_per_block).div_ceil(planes);
    let spare = u64::from(flash.blocks_per_plane).saturating_sub(logical_blocks_per_plane);
    let needed = match ftl.mapping {
        MappingKind::Bast => {
            if u64::from(ftl.log_blocks) < planes {
                return Err(ConfigError::new(
                    "ftl.log_blocks",
                    format!(
                        "{} is out of range; allowed: at least one per plane ({planes}), since each plane has its own share",
                        ftl.log_blocks
                    ),
                ));
            }
            u64::from(ftl.log_blocks).div_ceil(planes) + 2
        }
        _ => 1,
    };
    if spare < needed {
        return Err(ConfigError::new(
            "ftl.over_provisioning",
            format!(
                "{} leaves {spare} spare blocks per plane; allowed: enough for {needed} (one update in flight{})",
                ftl.over_provisioning,
                if ftl.mapping == MappingKind::Bast {
                    ", a merge and the plane's share of ftl.log_blocks"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}
