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

#[test]
fn stale_reverse_entries_never_read_as_valid_data_also_after_their_blocks_erase() {
    let (mut ftl, geometry) = one_plane(2);
    let units = geometry.units_per_block();
    // Block `a` holds logical units 0..8 (2 pages of 4 units), programmed.
    let mut a = NONE;
    for page_index in 0..geometry.pages_per_block {
        let (block, page) = ftl.allocate_page(0, Stream::User);
        a = block;
        for slot in 0..geometry.units_per_page {
            ftl.place(
                page_index * 4 + slot,
                geometry.unit_address(block, page, slot),
                Stream::User,
            );
        }
        ftl.page_programmed(block);
    }
    let unit = |slot: u32| geometry.unit_address(a, 0, 0) + slot;
    // Overwrite 1..4 elsewhere, trim 4: their entries in `a` stay, stale.
    for logical in 1..4 {
        let (block, page) = ftl.allocate_page(0, Stream::User);
        ftl.place(logical, geometry.unit_address(block, page, 0), Stream::User);
    }
    assert!(ftl.trim(4));
    for slot in 1..5 {
        assert_eq!(ftl.mapping.reverse_entry(unit(slot)), slot, "the entry stays");
        assert_eq!(ftl.mapping.logical(unit(slot)), NONE, "slot {slot} is stale");
    }
    assert_eq!(ftl.mapping.logical(unit(0)), 0);
    assert_eq!(ftl.blocks.valid[a as usize], 4, "0, 5, 6, 7");
    ftl.check_invariants().expect("consistent with stale entries");
    // Collect `a`: its valid units move, it is erased; every entry it holds is stale now.
    assert!(ftl.take_block(a));
    for slot in 0..units {
        let logical = ftl.mapping.logical(unit(slot));
        if logical != NONE {
            ftl.place_gc_copy(0, logical);
        }
    }
    ftl.erase(a);
    assert!(
        (0..units).all(|slot| ftl.mapping.reverse_entry(unit(slot)) == slot),
        "erasing writes no entry"
    );
    assert!(
        (0..units).all(|slot| ftl.mapping.logical(unit(slot)) == NONE),
        "an erased block holds nothing"
    );
    // Open `a` again (the other free blocks first) and write one unit of its first page: the
    // page's other units, allocated and unwritten, and the unallocated page read as nothing.
    let (mut block, mut page) = ftl.allocate_page(0, Stream::User);
    while block != a {
        (block, page) = ftl.allocate_page(0, Stream::User);
    }
    assert_eq!(page, 0);
    ftl.place(20, unit(0), Stream::User);
    assert_eq!(ftl.mapping.logical(unit(0)), 20);
    for slot in 1..units {
        assert_ne!(ftl.mapping.reverse_entry(unit(slot)), NONE);
        assert_eq!(
            ftl.mapping.logical(unit(slot)),
            NONE,
            "slot {slot} of the reopened block"
        );
    }
    ftl.check_invariants().expect("consistent after the erase");
}

#[test]
fn a_reverse_map_file_that_cannot_be_made_is_an_error_naming_the_key_and_the_directory() {
    let (mut ftl, geometry) = one_plane(2);
    let missing = std::env::temp_dir().join("ssdtwin-no-such-directory");
    let error = ftl
        .mapping
        .reverse_to_file(&missing, geometry.units_per_block())
        .expect_err("no such directory");
    assert_eq!(error.key, "ftl.reverse_map");
    assert!(
        error.message.contains(&missing.display().to_string()),
        "{}",
        error.message
    );
    assert!(error.message.contains("TMPDIR"), "{}", error.message);
    assert!(!ftl.mapping.reverse_in_file(), "the map stays in memory");
}
