//! Flash geometry and physical addresses.
//!
//! Dies are numbered channel-major: die `d` sits on channel `d % channels`, so consecutive die
//! ids spread over channels first (the striping order of the FTL). Planes, blocks, pages and
//! mapping-unit slots are numbered densely inside, so a physical unit address is one `u32`:
//! `((block × pages_per_block) + page) × units_per_page + slot`, with blocks numbered globally
//! `(die × planes_per_die + plane) × blocks_per_plane + block`.

use super::params::FlashConfig;
use crate::base::arith::{div, rem};
use crate::base::units::ByteSize;

/// Sizes of every level of the array, and the mapping unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Geometry {
    pub channels: u32,
    /// Chips (ways) sharing one channel.
    pub chips_per_channel: u32,
    pub dies: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Mapping units per flash page.
    pub units_per_page: u32,
    /// Bytes per mapping unit.
    pub unit_bytes: u64,
    /// Bytes of ECC parity moved with each mapping unit.
    pub parity_bytes: u64,
    /// Page types per word line (SLC 1 … QLC 4).
    pub page_types: u32,
}

impl Geometry {
    /// The geometry of `flash` split into mapping units of `mapping_unit` (`ftl.mapping_unit`).
    pub fn new(flash: &FlashConfig, mapping_unit: ByteSize) -> Geometry {
        let unit_bytes = mapping_unit.bytes();
        Geometry {
            channels: flash.channels,
            chips_per_channel: flash.chips_per_channel,
            dies: flash.channels * flash.chips_per_channel * flash.dies_per_chip,
            planes_per_die: flash.planes_per_die,
            blocks_per_plane: flash.blocks_per_plane,
            pages_per_block: flash.pages_per_block,
            units_per_page: (flash.page_size.bytes() / unit_bytes) as u32,
            unit_bytes,
            parity_bytes: flash.parity_per_codeword.bytes(),
            page_types: flash.cell.page_types() as u32,
        }
    }

    pub fn planes(&self) -> u32 {
        self.dies * self.planes_per_die
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn units_per_block(&self) -> u32 {
        self.pages_per_block * self.units_per_page
    }
    /// Raw capacity in mapping units.
    pub fn physical_units(&self) -> u64 {
        u64::from(self.blocks()) * u64::from(self.units_per_block())
    }
    pub fn channel_of_die(&self, die: u32) -> u32 {
        rem(die, self.channels)
    }
    /// Chip (way) of `die` on its channel: the dies of a channel alternate over its chips, so
    /// die `d` is on chip `(d / channels) % chips_per_channel`.
    pub fn chip_of_die(&self, die: u32) -> u32 {
        rem(div(die, self.channels), self.chips_per_channel)
    }
    pub fn plane_of_block(&self, block: u32) -> u32 {
        div(block, self.blocks_per_plane)
    }
    pub fn die_of_block(&self, block: u32) -> u32 {
        div(block, self.blocks_per_plane * self.planes_per_die)
    }
    pub fn first_block_of_plane(&self, plane: u32) -> u32 {
        plane * self.blocks_per_plane
    }
    pub fn block_of_unit(&self, unit: u32) -> u32 {
        div(unit, self.units_per_block())
    }
    /// Page index inside its block.
    pub fn page_of_unit(&self, unit: u32) -> u32 {
        rem(div(unit, self.units_per_page), self.pages_per_block)
    }
    pub fn unit_address(&self, block: u32, page: u32, slot: u32) -> u32 {
        (block * self.pages_per_block + page) * self.units_per_page + slot
    }
    /// Page type (0 = lower) of page `page` of a block: word lines hold one page per type in order.
    pub fn page_type(&self, page: u32) -> usize {
        rem(page, self.page_types) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        let flash = FlashConfig {
            channels: 2,
            dies_per_chip: 2,
            ..FlashConfig::default()
        };
        let geometry = Geometry::new(&flash, ByteSize(4096));
        assert_eq!(geometry.dies, 4);
        assert_eq!(geometry.units_per_page, 4);
        let block = geometry.first_block_of_plane(5) + 7;
        let unit = geometry.unit_address(block, 13, 3);
        assert_eq!(geometry.block_of_unit(unit), block);
        assert_eq!(geometry.page_of_unit(unit), 13);
        assert_eq!(geometry.plane_of_block(block), 5);
        assert_eq!(geometry.die_of_block(block), 2);
        assert_eq!(geometry.channel_of_die(3), 1);
        assert_eq!(geometry.chip_of_die(3), 0, "one chip per channel");
    }
}
