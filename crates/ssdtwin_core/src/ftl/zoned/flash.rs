//! A zoned namespace over its flash, as state: the zones (`zones.rs`) placed by the layout
//! (`layout.rs`), with what each host command costs on the flash. A write or append programs the
//! physical units the layout gives its logical blocks; a reset erases the blocks written since
//! the previous reset; nothing else moves data, so the device runs no GC and its write
//! amplification is 1 by construction.
//!
//! The controller (`controller/zoned.rs`) drives it: it issues these programs and erases as die
//! operations.

use super::layout::ZoneMap;
use super::state::{ZoneAction, ZoneError};
use super::zones::{Written, Zones};

/// The flash work of an accepted write or append.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneProgram {
    pub written: Written,
    /// Physical mapping units to program, in logical order.
    pub units: Vec<u32>,
}

/// The zones of a namespace, their placement, and the flash work counted so far.
#[derive(Clone, Debug)]
pub struct ZonedFlash {
    pub zones: Zones,
    map: ZoneMap,
    /// Logical blocks holding data per zone since its last reset (a finished zone keeps the count
    /// it was written to: Finish Zone writes nothing).
    data: Vec<u64>,
    /// Erases per global block.
    pub erase_counts: Vec<u32>,
    /// Mapping units programmed.
    pub programmed_units: u64,
}

impl ZonedFlash {
    /// `zones` placed by `map`, on a drive of `blocks` erase blocks.
    pub fn new(zones: Zones, map: ZoneMap, blocks: u32) -> ZonedFlash {
        let count = zones.len();
        ZonedFlash {
            zones,
            map,
            data: vec![0; count],
            erase_counts: vec![0; blocks as usize],
            programmed_units: 0,
        }
    }

    /// The placement of the zones.
    pub fn map(&self) -> &ZoneMap {
        &self.map
    }

    /// Logical blocks of zone `zone` holding data since its last reset.
    pub fn data_units(&self, zone: usize) -> u64 {
        self.data[zone]
    }

    /// A Write command; a refused one costs nothing.
    pub fn write(&mut self, lba: u64, len: u64) -> Result<ZoneProgram, ZoneError> {
        let written = self.zones.write(lba, len)?;
        Ok(self.program(written, len))
    }

    /// A Zone Append to the zone starting at `zone_start`.
    pub fn append(&mut self, zone_start: u64, len: u64) -> Result<ZoneProgram, ZoneError> {
        let written = self.zones.append(zone_start, len)?;
        Ok(self.program(written, len))
    }

    fn program(&mut self, written: Written, len: u64) -> ZoneProgram {
        let zone = written.zone;
        let offset = written.lba - self.zones.zone(zone).start;
        let units = (offset..offset + len)
            .map(|o| self.map.physical_unit(zone as u32, o))
            .collect();
        self.data[zone] = offset + len;
        self.programmed_units += len;
        ZoneProgram { written, units }
    }

    /// A Zone Send Action; for Reset Zone, the blocks it erases (empty for the others).
    pub fn send(&mut self, zone: usize, action: ZoneAction) -> Result<Vec<u32>, ZoneError> {
        self.zones.send(zone, action)?;
        if action != ZoneAction::Reset {
            return Ok(Vec::new());
        }
        let blocks = self.map.written_blocks(zone as u32, self.data[zone]);
        self.data[zone] = 0;
        for &block in &blocks {
            self.erase_counts[block as usize] += 1;
        }
        Ok(blocks)
    }

    /// The physical unit holding `lba`, or `None` when it holds no data (never written since the
    /// zone's reset: a read returns zeroes without touching the flash).
    pub fn read(&self, lba: u64) -> Option<u32> {
        let zone = self.zones.zone_of(lba).ok()?;
        let offset = lba - self.zones.zone(zone).start;
        (offset < self.data[zone]).then(|| self.map.physical_unit(zone as u32, offset))
    }
}
