//! The zoned drive (`zns.enabled`, issue 31; docs/models/zns.md): host writes, zone appends and
//! Zone Management Send actions go through the zone state machine and the zone placement
//! (`ftl/zoned/`), never the page-mapped FTL's own block allocation, so the drive runs no GC.
//!
//! A write or append the state machine accepts is split into mapping-unit transactions that wait
//! in the host queue like any write; admitted, each lands at the physical unit the placement gives
//! its LBA, in its zone's open program (a page on each plane of one die with `flash.multi_plane`,
//! else one page), programmed once full, once the zone is full or finished, or at the drain. The
//! mapping table records where each unit lives, so reads take the ordinary read path (a unit not
//! written since its zone's reset reads no flash). A refused write completes at once with the
//! specification's status (`error`), changing nothing.
//!
//! Reset Zone: once the writes queued before it are placed, the zone's open program is dropped
//! (its data is reset), its units unmapped, and when its programs in flight are done the blocks
//! written since the previous reset are erased as die operations (time, energy through the erase
//! profile, heat and wear as any erase); the command completes when the last erase ends. Writes to
//! the zone accepted after the reset wait in the host queue until then. Open, Close and Finish
//! change state only and complete at once (Finish programs the zone's partly filled page).

use std::collections::VecDeque;

use super::ops::MAX_PLANES;
use crate::base::error::ConfigError;
use crate::base::units::ByteSize;
use crate::flash::params::FlashConfig;
use crate::flash::Geometry;
use crate::ftl::zoned::flash::ZonedFlash;
use crate::ftl::zoned::layout::ZoneMap;
use crate::ftl::zoned::params::ZnsConfig;
use crate::ftl::zoned::Zones;

pub use stats::{ZnsReport, ZoneStats};

mod commands;
mod stats;

/// A zone's program being filled: a page on each plane of one die (or one page).
#[derive(Clone, Copy, Debug)]
struct OpenGroup {
    die: u32,
    pages: [(u32, u32); MAX_PLANES],
    filled: u32,
}

/// A Reset Zone waiting for the writes queued before it, then for its erases.
#[derive(Clone, Debug)]
struct PendingReset {
    command: u32,
    /// Write units of the zone queued before the reset (after any earlier pending reset of the
    /// zone) and not yet placed.
    before: u32,
    /// Logical blocks holding data when the reset was accepted (to unmap).
    data_units: u64,
    blocks: Vec<u32>,
    /// The erases are issued (or wait only for the zone's programs in flight).
    started: bool,
}

/// What the controller tracks of one zone beyond its state.
#[derive(Clone, Debug, Default)]
struct ZoneFlight {
    /// Write units accepted and still in the host queue.
    queued: u32,
    open: Option<OpenGroup>,
    /// Programs of the zone issued and not yet done.
    programs: u32,
    erasing: u32,
    /// Resets of the zone accepted and not yet complete, in arrival order: the front one runs;
    /// each later one counts only the write units queued between it and the one before.
    resets: VecDeque<PendingReset>,
    /// Finish Zone accepted while writes were queued: program the open page once they are placed.
    finish_pending: bool,
}

/// The zoned namespace the controller drives.
#[derive(Debug)]
pub struct ZonedDrive {
    pub flash: ZonedFlash,
    zones: Vec<ZoneFlight>,
    /// Pages programmed together (the planes of a die with `flash.multi_plane`, else 1).
    group_pages: u32,
    pub stats: ZoneStats,
}

impl ZonedDrive {
    /// The zoned namespace of `config` (enabled) on `geometry`, programming `group_pages` pages
    /// at once.
    pub fn build(
        config: &ZnsConfig,
        flash: &FlashConfig,
        geometry: Geometry,
        group_pages: u32,
    ) -> Result<ZonedDrive, ConfigError> {
        let layout = config.resolve(flash, ByteSize(geometry.unit_bytes))?;
        let map = ZoneMap::new(geometry, &layout);
        let zones = Zones::new(layout.zones as usize, layout.limits);
        Ok(ZonedDrive::new(
            ZonedFlash::new(zones, map, geometry.blocks()),
            group_pages,
        ))
    }

    pub fn new(flash: ZonedFlash, group_pages: u32) -> ZonedDrive {
        ZonedDrive {
            zones: vec![ZoneFlight::default(); flash.zones.len()],
            flash,
            group_pages,
            stats: ZoneStats::default(),
        }
    }

    /// Units acknowledged but not yet in a program.
    pub fn unplaced_units(&self) -> u64 {
        self.zones
            .iter()
            .map(|zone| u64::from(zone.open.map_or(0, |open| open.filled)))
            .sum()
    }
}
