//! A log-structured writer on a zoned namespace: several zones open, writes and appends at the
//! write pointers, the oldest full zone reset when no empty one is left. Checked against a model
//! of NAND (a unit is programmed once between erases of its block): no unit is programmed twice
//! without an erase, flash units programmed = host units written (write amplification 1, no GC),
//! erases = the blocks the reset zones held, and every block erased under a FIFO reset order.

use std::collections::{BTreeSet, VecDeque};

use super::flash::ZonedFlash;
use super::layout::ZoneMap;
use super::params::{ZnsConfig, ZoneMappingKind};
use super::state::{ZoneAction, ZoneState};
use super::zones::Zones;
use crate::base::rng::Rng;
use crate::base::units::ByteSize;
use crate::flash::geometry::Geometry;
use crate::flash::params::FlashConfig;

/// 4 dies of 2 planes, 16 blocks of 4 pages of two 4 KiB units; die groups of 2: a zone is one
/// stripe of 4 blocks (32 units), 24 writable (12 pages, 3 on each of its 4 planes);
/// 2 groups x 16 = 32 zones; 4 open, 6 active.
fn drive() -> (ZonedFlash, Geometry) {
    let flash = FlashConfig {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 2,
        planes_per_die: 2,
        blocks_per_plane: 16,
        pages_per_block: 4,
        page_size: ByteSize(8192),
        ..FlashConfig::default()
    };
    let zns = ZnsConfig {
        enabled: true,
        zone_capacity: ByteSize(96 << 10),
        max_open: 4,
        max_active: 6,
        mapping: ZoneMappingKind::DieGroup,
        die_group: 2,
        ..ZnsConfig::default()
    };
    let layout = zns.resolve(&flash, ByteSize(4096)).unwrap();
    let geometry = Geometry::new(&flash, ByteSize(4096));
    let map = ZoneMap::new(geometry, &layout);
    let zones = Zones::new(layout.zones as usize, layout.limits);
    (ZonedFlash::new(zones, map, geometry.blocks()), geometry)
}

#[test]
fn a_log_structured_writer_programs_each_unit_once_per_erase_with_write_amplification_one() {
    let (mut drive, geometry) = drive();
    let limits = drive.zones.limits();
    let zones = drive.zones.len();
    let mut rng = Rng::stream(7, "zoned writer");
    let mut programmed: BTreeSet<u32> = BTreeSet::new();
    let mut empty: VecDeque<usize> = (0..zones).collect();
    let mut full: VecDeque<usize> = VecDeque::new();
    let mut open: Vec<usize> = Vec::new();
    let (mut host_units, mut expected_erases) = (0u64, 0u64);
    // About 12 times the namespace's capacity.
    while host_units < 12 * zones as u64 * limits.zone_capacity {
        if open.len() < limits.max_open as usize {
            if empty.is_empty() {
                let oldest = full.pop_front().unwrap();
                let blocks = drive.send(oldest, ZoneAction::Reset).unwrap();
                expected_erases += blocks.len() as u64;
                for block in blocks {
                    let first = geometry.unit_address(block, 0, 0);
                    programmed.retain(|&u| u < first || u >= first + geometry.units_per_block());
                }
                empty.push_back(oldest);
            }
            open.push(empty.pop_front().unwrap());
            continue;
        }
        let pick = rng.below(open.len() as u64) as usize;
        let zone = open[pick];
        let z = drive.zones.zone(zone).clone();
        let left = z.start + limits.zone_capacity - z.write_pointer;
        let len = 1 + rng.below(left.min(5));
        let program = if rng.below(2) == 0 {
            drive.write(z.write_pointer, len).unwrap()
        } else {
            drive.append(z.start, len).unwrap()
        };
        assert_eq!(program.written.lba, z.write_pointer);
        for unit in program.units {
            assert!(programmed.insert(unit), "unit {unit} programmed twice without an erase");
        }
        host_units += len;
        assert!(drive.zones.open_zones() <= limits.max_open);
        if program.written.filled {
            open.swap_remove(pick);
            full.push_back(zone);
        }
    }
    assert_eq!(
        drive.programmed_units, host_units,
        "write amplification 1: no GC copies"
    );
    assert_eq!(drive.zones.counts.rejected_writes, 0);
    assert_eq!(
        drive.zones.counts.implicit_closes, 0,
        "the writer keeps max_open zones open"
    );
    let erases: u64 = drive.erase_counts.iter().map(|&n| u64::from(n)).sum();
    assert_eq!(erases, expected_erases);
    // A full zone's 12 pages lie on all 4 of its blocks (one per plane of its 2 dies).
    assert_eq!(expected_erases, drive.zones.counts.resets * 4);
    let (least, most) = (
        drive.erase_counts.iter().min().unwrap(),
        drive.erase_counts.iter().max().unwrap(),
    );
    // About 12 passes over the namespace, every zone in turn: every block is used and erased.
    assert!(*least >= 10 && *most <= 13, "erases per block: {least}..{most}");
}

#[test]
fn reads_find_written_data_and_nothing_past_the_write_pointer_or_after_a_reset() {
    let (mut drive, _) = drive();
    let program = drive.write(0, 3).unwrap();
    assert_eq!(drive.read(2), Some(program.units[2]));
    assert_eq!(drive.read(3), None);
    drive.send(0, ZoneAction::Finish).unwrap();
    assert_eq!(drive.zones.zone(0).state, ZoneState::Full);
    assert_eq!(drive.read(3), None, "Finish Zone writes nothing");
    // The reset erases only the blocks the three units are in: two pages, one per plane of die 0.
    assert_eq!(drive.send(0, ZoneAction::Reset).unwrap().len(), 2);
    assert_eq!(drive.read(0), None);
    assert_eq!(drive.programmed_units, 3);
}
