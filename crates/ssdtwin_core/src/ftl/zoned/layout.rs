//! Where a zone's data lives on the flash: the zone's erase blocks and the physical unit of each
//! of its logical blocks (`zns.mapping`, issue 31; ConfZNS compares both placements).
//!
//! A zone takes `k` blocks (`ZoneLayout::blocks_per_plane_per_zone`) on every plane of its dies:
//! all dies for `striped`, one group of `die_group` consecutive dies for `die_group` (die `d` is on
//! channel `d % channels`, so a group of `g` dies spans `min(g, channels)` channels). Zone `z` is
//! in group `z % groups` (consecutive zones in different groups) and takes blocks
//! `[s k, (s + 1) k)` of each plane of the group, `s = z / groups`.
//!
//! Inside a zone, logical blocks fill flash pages in order (`units_per_page` to a page) and the
//! pages go to the zone's planes in turn, die by die with the planes of a die adjacent (a
//! multi-plane program's pages), so a zone written sequentially keeps all its dies busy; each
//! plane fills its `k` blocks page by page. A zone's data never shares a block with another zone:
//! a reset erases exactly the blocks written since the last reset ([`ZoneMap::written_blocks`]).

use super::params::ZoneLayout;
use crate::flash::geometry::Geometry;

/// The placement of every zone on a drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneMap {
    geometry: Geometry,
    dies_per_zone: u32,
    groups: u32,
    per_plane: u32,
    zones: u32,
}

impl ZoneMap {
    /// The placement of `layout` (from `ZnsConfig::resolve`) on `geometry`.
    pub fn new(geometry: Geometry, layout: &ZoneLayout) -> ZoneMap {
        ZoneMap {
            geometry,
            dies_per_zone: layout.dies_per_zone,
            groups: layout.groups,
            per_plane: layout.blocks_per_plane_per_zone,
            zones: layout.zones as u32,
        }
    }

    pub fn zones(&self) -> u32 {
        self.zones
    }

    /// Planes one zone spans.
    fn planes_per_zone(&self) -> u32 {
        self.dies_per_zone * self.geometry.planes_per_die
    }

    /// The first die of zone `zone`'s group; the zone spans `dies_per_zone` dies from it.
    pub fn first_die(&self, zone: u32) -> u32 {
        (zone % self.groups) * self.dies_per_zone
    }

    /// Global block number of the zone's `index`-th block on its `lane`-th plane.
    fn block(&self, zone: u32, lane: u32, index: u32) -> u32 {
        let planes_per_die = self.geometry.planes_per_die;
        let die = self.first_die(zone) + lane / planes_per_die;
        let plane = die * planes_per_die + lane % planes_per_die;
        let slot = zone / self.groups;
        self.geometry.first_block_of_plane(plane) + slot * self.per_plane + index
    }

    /// The physical mapping unit holding logical block `offset` of zone `zone` (`offset` counted
    /// from the zone's start, below the zone size).
    pub fn physical_unit(&self, zone: u32, offset: u64) -> u32 {
        let units_per_page = u64::from(self.geometry.units_per_page);
        let page_index = offset / units_per_page;
        let slot = (offset % units_per_page) as u32;
        let planes = u64::from(self.planes_per_zone());
        let lane = (page_index % planes) as u32;
        let row = (page_index / planes) as u32;
        let pages_per_block = self.geometry.pages_per_block;
        let block = self.block(zone, lane, row / pages_per_block);
        self.geometry.unit_address(block, row % pages_per_block, slot)
    }

    /// The zone whose blocks include global block `block` (the inverse of the placement).
    pub fn zone_of_block(&self, block: u32) -> u32 {
        let plane = self.geometry.plane_of_block(block);
        let die = plane / self.geometry.planes_per_die;
        let slot = (block - self.geometry.first_block_of_plane(plane)) / self.per_plane;
        slot * self.groups + die / self.dies_per_zone
    }

    /// The die that programs logical block `offset` of zone `zone`.
    pub fn die_of(&self, zone: u32, offset: u64) -> u32 {
        self.geometry
            .die_of_block(self.geometry.block_of_unit(self.physical_unit(zone, offset)))
    }

    /// The blocks holding the first `written` logical blocks of zone `zone`: what a reset erases.
    pub fn written_blocks(&self, zone: u32, written: u64) -> Vec<u32> {
        let pages = written.div_ceil(u64::from(self.geometry.units_per_page));
        let planes = u64::from(self.planes_per_zone());
        let pages_per_block = u64::from(self.geometry.pages_per_block);
        let mut blocks = Vec::new();
        for lane in 0..self.planes_per_zone() {
            // Pages of this lane among the first `pages`: lane, lane + planes, ...
            let rows = if pages > u64::from(lane) {
                (pages - u64::from(lane)).div_ceil(planes)
            } else {
                0
            };
            for index in 0..rows.div_ceil(pages_per_block) as u32 {
                blocks.push(self.block(zone, lane, index));
            }
        }
        blocks.sort_unstable();
        blocks
    }
}
