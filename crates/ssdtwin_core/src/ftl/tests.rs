//! Unit tests of the FTL: a GC victim stops being its stream's open block.

use super::*;
use crate::flash::params::FlashConfig;

/// A default FTL over one plane of 8 blocks of `pages_per_block` 16 KiB pages (4 KiB units), for
/// the FTL's unit tests.
pub(super) fn one_plane(pages_per_block: u32) -> (Ftl, Geometry) {
    let flash = FlashConfig {
        channels: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block,
        ..FlashConfig::default()
    };
    let config = FtlConfig::default();
    let geometry = Geometry::new(&flash, config.mapping_unit);
    let ftl = Ftl::new(&config, flash.multi_plane, geometry, Rng::stream(1, "ftl"));
    (ftl, geometry)
}

#[test]
fn a_victim_stops_being_its_streams_open_block() {
    let (mut ftl, geometry) = one_plane(2);
    // Fill one user block and program it: it closes but stays the user stream's open block.
    let mut logical = 0;
    let mut user_block = NONE;
    for _ in 0..geometry.pages_per_block {
        let (block, page) = ftl.allocate_page(0, Stream::User);
        user_block = block;
        for slot in 0..geometry.units_per_page {
            ftl.place(logical, geometry.unit_address(block, page, slot), Stream::User);
            logical += 1;
        }
        ftl.page_programmed(block);
    }
    // A GC copy elsewhere makes one unit of it stale, so it qualifies as the victim.
    ftl.place_gc_copy(0, 0);
    assert_eq!(ftl.take_victim(0), Some(user_block));
    let first = geometry.unit_address(user_block, 0, 0);
    for unit in first..first + geometry.units_per_block() {
        let logical = ftl.mapping.logical(unit);
        if logical != NONE {
            ftl.place_gc_copy(0, logical);
        }
    }
    ftl.erase(user_block);
    // The next user page comes from a block taken off the free list, not from the erased
    // victim (which is on the free list too).
    let (block, _) = ftl.allocate_page(0, Stream::User);
    assert_ne!(block, user_block, "wrote into an erased block still on the free list");
    assert!(!ftl.free[0].contains(&block));
}
