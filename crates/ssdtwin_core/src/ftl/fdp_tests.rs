//! Unit tests of FDP in the FTL (`fdp.rs`, `gc_copies.rs`): handles' data in their own blocks,
//! before and after GC, and the per-handle counters adding up to the FTL's.

use super::fdp::{FdpConfig, HandleType, SHARED};
use super::*;
use crate::flash::params::FlashConfig;

/// An FTL over 2 planes of 64 blocks of 4 pages (4 units a page) with two FDP handles.
fn two_handles(handle_type: HandleType) -> Ftl {
    let flash = FlashConfig {
        channels: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 64,
        pages_per_block: 4,
        multi_plane: false,
        ..FlashConfig::default()
    };
    let config = FtlConfig::default();
    let geometry = Geometry::new(&flash, config.mapping_unit);
    let mut ftl = Ftl::new(&config, false, geometry, Rng::stream(1, "ftl"));
    let fdp = FdpConfig {
        enabled: true,
        handles: 2,
        handle_type,
        ..FdpConfig::default()
    };
    let blocks = fdp.resolve(&flash).unwrap();
    ftl.enable_fdp(&fdp, blocks);
    ftl
}

/// Writes pages of random units, each page one handle's (a unit's handle is `logical % 2`), the
/// handle of each page drawn at random, with GC on a plane short of free blocks.
fn write_randomly(ftl: &mut Ftl, pages: u32) {
    let mut rng = Rng::stream(7, "fdp-test");
    let span = ftl.logical_units() / 2 * 2;
    let planes = ftl.geometry.planes();
    for index in 0..pages {
        let plane = index % planes;
        while ftl.needs_gc(plane) {
            assert!(ftl.collect_now(plane, false), "a victim yields space");
        }
        let handle = rng.below(2) as u16;
        ftl.select_handle(handle);
        assert!(ftl.can_allocate(plane, Stream::User));
        let (block, page) = ftl.allocate_page(plane, Stream::User);
        for slot in 0..ftl.geometry.units_per_page {
            let logical = (rng.below(u64::from(span / 2)) as u32) * 2 + u32::from(handle);
            let physical = ftl.geometry.unit_address(block, page, slot);
            ftl.place(logical, physical, Stream::User);
        }
        ftl.page_programmed(block);
    }
}

/// The handles (`logical % 2`) of the valid units of each block holding any, with its owner.
fn blocks_and_handles(ftl: &Ftl) -> Vec<(u16, Vec<u16>)> {
    let fdp = ftl.fdp.as_deref().unwrap();
    let mut out = Vec::new();
    for block in 0..ftl.geometry.blocks() {
        let first = ftl.geometry.unit_address(block, 0, 0);
        let mut handles: Vec<u16> = (first..first + ftl.geometry.units_per_block())
            .map(|unit| ftl.mapping.logical(unit))
            .filter(|&logical| logical != NONE && ftl.mapping.physical(logical) != NONE)
            .map(|logical| (logical % 2) as u16)
            .collect();
        handles.sort_unstable();
        handles.dedup();
        if !handles.is_empty() {
            out.push((fdp.owner(block), handles));
        }
    }
    out
}

#[test]
fn persistently_isolated_handles_never_share_a_block_even_after_gc() {
    let mut ftl = two_handles(HandleType::PersistentlyIsolated);
    write_randomly(&mut ftl, 6000);
    assert!(ftl.counts.gc_units > 0, "GC relocated data");
    for (owner, handles) in blocks_and_handles(&ftl) {
        assert_eq!(
            handles,
            [owner],
            "a block of handle {owner} holds data of handles {handles:?}"
        );
    }
}

#[test]
fn initially_isolated_gc_mixes_handles_only_in_shared_gc_blocks() {
    let mut ftl = two_handles(HandleType::InitiallyIsolated);
    write_randomly(&mut ftl, 6000);
    let blocks = blocks_and_handles(&ftl);
    for (owner, handles) in &blocks {
        if *owner != SHARED {
            assert_eq!(handles, &[*owner], "host-written block of handle {owner}");
        }
    }
    assert!(
        blocks
            .iter()
            .any(|(owner, handles)| *owner == SHARED && handles.len() == 2),
        "one GC frontier: some relocated block holds both handles"
    );
}

#[test]
fn per_handle_counts_add_up_to_the_ftls_counts() {
    for handle_type in [HandleType::InitiallyIsolated, HandleType::PersistentlyIsolated] {
        let mut ftl = two_handles(handle_type);
        write_randomly(&mut ftl, 4000);
        let counts = ftl.fdp.as_deref().unwrap().counts.clone();
        assert_eq!(counts.host_units.iter().sum::<u64>(), ftl.counts.user_units);
        assert_eq!(
            counts.media_units.iter().sum::<u64>(),
            ftl.counts.user_units + ftl.counts.gc_units
        );
        assert!(counts.shared_media_units <= ftl.counts.gc_units);
        // Each page is one handle's 4 units: host units are whole pages.
        assert!(counts.host_units.iter().all(|units| units % 4 == 0 && *units > 0));
    }
}

#[test]
fn switching_handles_keeps_each_handles_open_block_and_next_page() {
    // The current handle's open blocks sit in the rows without FDP's; a handle that stops writing
    // must find its open block, at its next page, when it writes again.
    let mut ftl = two_handles(HandleType::PersistentlyIsolated);
    let plane = 1;
    let (first, page) = ftl.allocate_page(plane, Stream::User);
    assert_eq!(page, 0);
    ftl.select_handle(1);
    let (other, page) = ftl.allocate_page(plane, Stream::User);
    assert_ne!(other, first, "handle 1 opens a block of its own");
    assert_eq!(page, 0);
    for round in 1..3 {
        ftl.select_handle(0);
        assert_eq!(ftl.allocate_page(plane, Stream::User), (first, round));
        ftl.select_handle(1);
        assert_eq!(ftl.allocate_page(plane, Stream::User), (other, round));
    }
    // A placement identifier naming no handle writes handle 0's block.
    ftl.select_handle(7);
    assert_eq!(ftl.allocate_page(plane, Stream::User), (first, 3));
    let fdp = ftl.fdp.as_deref().unwrap();
    assert_eq!((fdp.owner(first), fdp.owner(other)), (0, 1));
}

#[test]
fn switched_handles_and_gc_frontiers_keep_the_ftls_invariants() {
    for handle_type in [HandleType::InitiallyIsolated, HandleType::PersistentlyIsolated] {
        let mut ftl = two_handles(handle_type);
        write_randomly(&mut ftl, 3000);
        assert!(ftl.counts.gc_units > 0, "GC relocated data");
        ftl.check_invariants().unwrap();
        // Every open block is in one row of `active` (one frontier's), and none is free.
        let mut open: Vec<u32> = ftl.active.iter().copied().filter(|&block| block != NONE).collect();
        let count = open.len();
        open.sort_unstable();
        open.dedup();
        assert_eq!(open.len(), count, "a block is the open block of two frontiers");
        assert!(count > 2, "frontiers of both handles hold open blocks");
        for block in open {
            let plane = ftl.geometry.plane_of_block(block) as usize;
            assert!(!ftl.free[plane].contains(&block), "open block {block} is free");
        }
    }
}

#[test]
fn a_parked_handles_open_block_erased_by_gc_is_not_written_through_its_row() {
    // Handle 0 fills a block of plane 0 (still its open block), then handle 1 overwrites all its
    // data: GC takes that empty block while handle 0 is parked. When handle 0 writes again it must
    // open a new block, not write the erased (free) one through the reference it had.
    let mut ftl = two_handles(HandleType::InitiallyIsolated);
    let plane = 0;
    let (pages, units) = (ftl.geometry.pages_per_block, ftl.geometry.units_per_page);
    let mut filled = Vec::new();
    for handle in [0u16, 1] {
        ftl.select_handle(handle);
        for index in 0..pages {
            let (block, page) = ftl.allocate_page(plane, Stream::User);
            for slot in 0..units {
                let physical = ftl.geometry.unit_address(block, page, slot);
                ftl.place(index * units + slot, physical, Stream::User);
            }
            ftl.page_programmed(block);
            filled.push(block);
        }
    }
    let parked = filled[0];
    assert_eq!(ftl.blocks.valid[parked as usize], 0);
    assert!(ftl.collect_now(plane, false), "GC takes the empty block");
    assert_eq!(
        ftl.blocks.allocated_pages[parked as usize], 0,
        "the parked block was erased"
    );
    ftl.select_handle(0);
    let (block, page) = ftl.allocate_page(plane, Stream::User);
    assert_eq!(page, 0);
    assert!(
        !ftl.free[plane as usize].contains(&block),
        "block {block} is written while free"
    );
    ftl.check_invariants().unwrap();
}

#[test]
fn each_valid_unit_keeps_the_handle_of_its_host_write_through_gc_copies() {
    for handle_type in [HandleType::InitiallyIsolated, HandleType::PersistentlyIsolated] {
        let mut ftl = two_handles(handle_type);
        write_randomly(&mut ftl, 6000);
        assert!(ftl.counts.gc_units > 0, "GC relocated data");
        let fdp = ftl.fdp.as_deref().unwrap();
        let mut checked = 0;
        for physical in 0..ftl.geometry.physical_units() as u32 {
            let logical = ftl.mapping.logical(physical);
            if logical != NONE {
                // `write_randomly` writes a unit through handle `logical % 2` only.
                assert_eq!(
                    fdp.handle_at(physical),
                    (logical % 2) as u16,
                    "{handle_type:?}, unit {physical}"
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} valid units");
    }
}
