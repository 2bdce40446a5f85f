//! The deferred bucket lists (and their chunks' floors) against the per-unit upkeep.

use super::FLOOR_SHIFT;
use super::*;
use crate::base::rng::Rng;

/// Every closed block of `plane` in the order [`BlockTable::for_each_lowest`] visits them.
fn visits(table: &BlockTable, plane: u32) -> Vec<(u32, u32)> {
    let mut seen = Vec::new();
    table.for_each_lowest(plane, |block, valid| {
        seen.push((block, valid));
        true
    });
    seen
}

/// One random step on both tables: close a free block with some valid units, invalidate a
/// unit of a closed or open block, or take the lowest block of a plane as a victim and erase
/// it (its units copied elsewhere).
fn step(tables: &mut [&mut BlockTable; 2], rng: &mut Rng, order: &mut u64) {
    let (planes, units) = (PLANES, 8u32);
    let blocks_per_plane = tables[0].blocks_per_plane;
    let block = rng.below(u64::from(planes * blocks_per_plane)) as u32;
    let index = block as usize;
    match (rng.below(8), tables[0].state[index]) {
        (0..=2, BlockState::Free) => {
            let valid = 1 + rng.below(u64::from(units)) as u32;
            *order += 1;
            for table in tables.iter_mut() {
                table.state[index] = BlockState::Open;
                for _ in 0..valid {
                    table.add_valid(block);
                }
                table.close(block, *order);
            }
        }
        (3..=6, BlockState::Closed | BlockState::Open) if tables[0].valid[index] > 0 => {
            for table in tables.iter_mut() {
                table.invalidate(block);
            }
        }
        (7, _) => {
            let plane = block / blocks_per_plane;
            let victims: Vec<Option<u32>> = tables
                .iter_mut()
                .map(|table| {
                    table.settle_hint(plane);
                    visits(table, plane).first().map(|&(victim, _)| victim)
                })
                .collect();
            assert_eq!(victims[0], victims[1], "plane {plane}: the victims differ");
            if let Some(victim) = victims[0] {
                for table in tables.iter_mut() {
                    table.take_victim(victim);
                    table.valid[victim as usize] = 0;
                    table.erase(victim);
                }
            }
        }
        _ => {}
    }
}

const PLANES: u32 = 3;

#[test]
fn deferred_buckets_choose_and_leave_what_the_per_unit_upkeep_does() {
    // (blocks per plane, chunk shift, group shift): the default (one chunk and one group per
    // plane), chunks of 4 blocks in groups of 2 (a plane of 13: a short last chunk and group),
    // single blocks in groups of 4, chunks of 2 in groups of 1, and every block its own group.
    for (blocks_per_plane, chunk_shift, group_shift) in [
        (16u32, FLOOR_SHIFT, FLOOR_SHIFT),
        (16, 2, 1),
        (13, 2, 1),
        (13, 0, 2),
        (13, 1, 0),
        (13, 0, 0),
        (13, FLOOR_SHIFT, FLOOR_SHIFT),
    ] {
        compare(blocks_per_plane, chunk_shift, group_shift);
    }
}

/// Random steps on a table deferred (after some steps), chunks of `1 << chunk_shift` blocks in
/// groups of `1 << group_shift`, and one upkept per unit: the same visits on the way and the same
/// table after.
fn compare(blocks_per_plane: u32, chunk_shift: u32, group_shift: u32) {
    let shift = (chunk_shift, group_shift);
    for (seed, defer_after, renumber) in [(1u64, 0usize, false), (2, 300, false), (3, 150, true), (4, 0, true)] {
        let mut upkept = BlockTable::new(PLANES, blocks_per_plane, 8);
        let mut deferred = BlockTable::new(PLANES, blocks_per_plane, 8);
        let mut rng = Rng::stream(seed, "test");
        let mut order = 0u64;
        for count in 0..4000 {
            if count == defer_after {
                deferred.defer_buckets_in_chunks(chunk_shift, group_shift);
                if renumber {
                    // A few links before the 32-bit stamps run out: they are renumbered.
                    deferred.set_links(u32::MAX - 50);
                }
            }
            step(&mut [&mut upkept, &mut deferred], &mut rng, &mut order);
            if count % 7 == 0 {
                for plane in 0..PLANES {
                    upkept.settle_hint(plane);
                    if count % 14 == 0 {
                        // Settled floors (a victim choice's path), or not (the scan's).
                        deferred.settle_hint(plane);
                    }
                    assert_eq!(
                        visits(&upkept, plane),
                        visits(&deferred, plane),
                        "{blocks_per_plane} blocks per plane, shifts {shift:?}, seed {seed}, step {count}"
                    );
                }
            }
        }
        assert!(deferred.deferred(), "the deferral was not exercised");
        assert!(
            upkept.closed_count.iter().all(|&closed| closed > 2),
            "too few closed blocks to compare: {:?}",
            upkept.closed_count
        );
        deferred.restore_buckets();
        for plane in 0..PLANES {
            upkept.settle_hint(plane);
        }
        let json = |table: &BlockTable| serde_json::to_string(table).expect("serializes");
        assert_eq!(json(&upkept), json(&deferred), "seed {seed}: the restored lists differ");
    }
}

#[test]
fn a_deferred_table_serializes_with_the_lists_the_per_unit_upkeep_keeps() {
    // A snapshot of a drive preconditioned to steady state is taken while its lists are deferred
    // (`steady.rs` leaves them so for the run): it must hold the lists, not the stamps.
    let mut upkept = BlockTable::new(PLANES, 16, 8);
    let mut deferred = BlockTable::new(PLANES, 16, 8);
    deferred.defer_buckets();
    let mut rng = Rng::stream(5, "test");
    let mut order = 0u64;
    for _ in 0..3000 {
        step(&mut [&mut upkept, &mut deferred], &mut rng, &mut order);
    }
    for plane in 0..PLANES {
        upkept.settle_hint(plane);
    }
    let mut restored = Vec::new();
    serialize_restored(&deferred, &mut serde_json::Serializer::new(&mut restored)).expect("serializes");
    assert!(deferred.deferred(), "serializing ended the deferral");
    assert_eq!(
        String::from_utf8(restored).expect("JSON is UTF-8"),
        serde_json::to_string(&upkept).expect("serializes"),
        "the snapshot's lists differ from the per-unit upkeep's"
    );
}
