//! The zone placement: a bijection between the zones' logical blocks and the drive's flash,
//! zones confined to their die group, and a reset's blocks exactly those written.

use std::collections::BTreeSet;

use super::layout::ZoneMap;
use super::params::{ZnsConfig, ZoneMappingKind};
use crate::base::units::ByteSize;
use crate::flash::geometry::Geometry;
use crate::flash::params::FlashConfig;

/// 2 channels x 2 dies = 4 dies of 2 planes, 8 blocks of 4 pages of 8 KiB (two 4 KiB units):
/// a block is 32 KiB, a striped stripe 8 planes x 32 KiB = 256 KiB, the drive 2 MiB.
fn flash() -> FlashConfig {
    FlashConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 2,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size: ByteSize(8192),
        ..FlashConfig::default()
    }
}

fn map(zns: ZnsConfig) -> (ZoneMap, u64) {
    let flash = flash();
    let layout = zns.resolve(&flash, ByteSize(4096)).unwrap();
    let map = ZoneMap::new(Geometry::new(&flash, ByteSize(4096)), &layout);
    (map, layout.limits.zone_size)
}

fn zns(mapping: ZoneMappingKind, die_group: u32, zone_size: u64) -> ZnsConfig {
    ZnsConfig {
        enabled: true,
        zone_size: ByteSize(zone_size),
        mapping,
        die_group,
        max_open: 1,
        max_active: 1,
        ..ZnsConfig::default()
    }
}

#[test]
fn every_logical_block_of_every_zone_has_its_own_physical_unit_and_the_zones_cover_the_drive() {
    for config in [
        zns(ZoneMappingKind::Striped, 1, 512 << 10),
        zns(ZoneMappingKind::DieGroup, 1, 128 << 10),
        zns(ZoneMappingKind::DieGroup, 2, 128 << 10),
    ] {
        let (map, zone_size) = map(config.clone());
        let mut seen = BTreeSet::new();
        for zone in 0..map.zones() {
            for offset in 0..zone_size {
                assert!(
                    seen.insert(map.physical_unit(zone, offset)),
                    "{config:?}: zone {zone} offset {offset}"
                );
            }
        }
        // 4 dies x 2 planes x 8 blocks x 4 pages x 2 units.
        assert_eq!(seen.len(), 512, "{config:?}");
        assert_eq!(seen.last(), Some(&511));
    }
}

#[test]
fn a_striped_zone_writes_its_first_pages_on_every_die_and_a_die_group_zone_only_on_its_group() {
    let (striped, _) = map(zns(ZoneMappingKind::Striped, 1, 256 << 10));
    // 2 units per page, 2 planes per die: units 0-3 on die 0, 4-7 on die 1, ...
    let dies: Vec<u32> = (0..16).step_by(4).map(|offset| striped.die_of(0, offset)).collect();
    assert_eq!(dies, [0, 1, 2, 3]);

    let (grouped, zone_size) = map(zns(ZoneMappingKind::DieGroup, 2, 128 << 10));
    assert_eq!(grouped.zones(), 16, "2 groups x 8 one-block stripes");
    for zone in 0..grouped.zones() {
        let group: BTreeSet<u32> = (0..zone_size).map(|offset| grouped.die_of(zone, offset)).collect();
        let expected = if zone % 2 == 0 { [0, 1] } else { [2, 3] };
        assert_eq!(group, BTreeSet::from(expected), "zone {zone}");
    }
}

#[test]
fn a_reset_erases_exactly_the_blocks_written_since_the_last_reset() {
    let (map, zone_size) = map(zns(ZoneMappingKind::Striped, 1, 512 << 10));
    let geometry = Geometry::new(&flash(), ByteSize(4096));
    for zone in 0..map.zones() {
        for written in [0, 1, 2, 3, 16, 17, 63, 64, 65, zone_size] {
            let expected: BTreeSet<u32> = (0..written)
                .map(|offset| geometry.block_of_unit(map.physical_unit(zone, offset)))
                .collect();
            let blocks = map.written_blocks(zone, written);
            assert_eq!(
                blocks,
                expected.into_iter().collect::<Vec<_>>(),
                "zone {zone}, {written} written"
            );
        }
    }
    // A full zone of 2 stripes: 2 blocks on each of the 8 planes.
    assert_eq!(map.written_blocks(1, zone_size).len(), 16);
}

#[test]
fn zone_of_block_names_the_zone_whose_logical_blocks_live_in_that_block() {
    // Striped and die-group layouts, one and two stripes per zone: every unit of every zone is
    // in a block that `zone_of_block` gives back as that zone.
    for (mapping, group, size) in [
        (ZoneMappingKind::Striped, 1, 256 << 10),
        (ZoneMappingKind::Striped, 1, 512 << 10),
        (ZoneMappingKind::DieGroup, 2, 128 << 10),
        (ZoneMappingKind::DieGroup, 1, 64 << 10),
    ] {
        let (map, zone_size) = map(zns(mapping, group, size));
        let geometry = Geometry::new(&flash(), ByteSize(4096));
        for zone in 0..map.zones() {
            for offset in 0..zone_size {
                let block = geometry.block_of_unit(map.physical_unit(zone, offset));
                assert_eq!(
                    map.zone_of_block(block),
                    zone,
                    "{mapping:?} zone {zone} offset {offset}"
                );
            }
        }
    }
}
