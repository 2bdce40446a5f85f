//! The mapping table's reverse map (`ftl/mapping.rs`, `ftl/reverse.rs`): the forward map decides
//! validity, so the reverse entries overwrites and trims leave stale never count as valid data; a
//! reverse map in a file (`ftl.reverse_map = "file"`) gives the report of one in memory; and a
//! drive of 2^32 mapping units, whose addresses would not fit 32 bits, is refused.

use serde_json::Value;
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource, Simulation};

use crate::determinism::simulated_part;
use crate::scenario;

/// Random 4 KiB writes (with `trims`, 30% trims and 20% reads among them) at QD 16 after `steady`
/// preconditioning: GC runs throughout. The base drive's reverse map is 512 block runs, so the
/// file's cache (an eighth of them) evicts and reads runs back throughout.
fn churn(trims: bool, reverse_map: &str) -> Scenario {
    let reverse_map = format!("ftl.reverse_map={reverse_map}");
    let mut settings = vec![
        "workload.precondition=steady",
        "workload.read_fraction=0.0",
        "workload.io_count=40000",
        "host.queue_depth=16",
        &reverse_map,
    ];
    if trims {
        settings.extend(["workload.read_fraction=0.2", "workload.trim_fraction=0.3"]);
    }
    scenario(&settings)
}

/// The report without the wall-clock fields and without the key that differs.
fn compared(report: &Report) -> Value {
    let mut json = simulated_part(report);
    json["config"]["ftl"]
        .as_object_mut()
        .expect("the config's ftl table")
        .remove("reverse_map")
        .expect("the config records ftl.reverse_map");
    json
}

#[test]
fn a_reverse_map_in_a_file_gives_the_report_of_one_in_memory() {
    for trims in [false, true] {
        let in_memory = crate::run(&churn(trims, "memory"));
        let in_file = crate::run(&churn(trims, "file"));
        assert!(in_memory.flash.gc_programs > 0, "GC copies valid units");
        assert_eq!(in_memory.ftl.trimmed_units > 0, trims);
        assert!(
            compared(&in_memory) == compared(&in_file),
            "trims {trims}: the reports differ"
        );
    }
}

#[test]
fn no_stale_reverse_entry_counts_as_valid_after_gc_with_overwrites_and_trims() {
    for reverse_map in ["memory", "file"] {
        let mut simulation = Simulation::new(&churn(true, reverse_map)).expect("valid scenario");
        simulation.run(&mut |_| true).expect("the run completes");
        let ftl = simulation.ftl();
        // Valid counts against the units the forward map confirms, forward against reverse.
        ftl.check_invariants()
            .unwrap_or_else(|problem| panic!("{reverse_map}: {problem}"));
        let (mut valid, mut stale) = (0u64, 0u64);
        for physical in 0..ftl.geometry.physical_units() as u32 {
            let claimed = ftl.mapping.reverse_entry(physical);
            let logical = ftl.mapping.logical(physical);
            if logical != u32::MAX {
                assert_eq!(logical, claimed, "a valid unit is the one its entry names");
                assert_eq!(ftl.mapping.physical(logical), physical);
                valid += 1;
            } else if claimed != u32::MAX {
                assert_ne!(
                    ftl.mapping.physical(claimed),
                    physical,
                    "a stale entry's unit lives elsewhere"
                );
                stale += 1;
            }
        }
        let counted: u64 = ftl.blocks.valid.iter().map(|&count| u64::from(count)).sum();
        assert_eq!(
            valid, counted,
            "{reverse_map}: valid units against the blocks' valid counts"
        );
        assert_eq!(
            valid,
            u64::from(ftl.mapped_units()),
            "one valid unit per mapped logical unit"
        );
        assert!(
            stale > valid / 10,
            "{reverse_map}: overwrites, trims and erases leave stale entries ({stale}), none counted valid"
        );
    }
}

#[test]
fn a_drive_of_2_to_the_32_mapping_units_is_refused_naming_blocks_per_plane() {
    // datacenter_qlc: 16 channels x 8 dies x 4 planes, 256 pages of one 16 KiB unit per block.
    let units_per_block_row = 16 * 8 * 4 * 256u64;
    let load_with = |blocks: u64| {
        let overrides = [
            Override::parse("drive=\"datacenter_qlc\"").expect("an override"),
            Override::parse(&format!("flash.blocks_per_plane={blocks}")).expect("an override"),
        ];
        load(&ScenarioSource::Default, &overrides)
    };
    let error = load_with(32768).expect_err("2^32 units");
    assert_eq!(error.key, "flash.blocks_per_plane");
    assert!(error.message.contains(&(1u64 << 32).to_string()), "{}", error.message);
    // Addresses are u32 with u32::MAX for none: at most u32::MAX - 1 units.
    let most = (u64::from(u32::MAX) - 1) / units_per_block_row;
    assert_eq!(most, 32767);
    assert!(
        error.message.contains(&format!("at most {most} blocks per plane")),
        "{}",
        error.message
    );
    let full = load_with(most).expect("the full-size drive loads");
    assert_eq!(full.flash.blocks_per_plane, 32767);
}

#[test]
fn a_snapshot_with_stale_reverse_entries_moves_between_memory_and_file() {
    // Functional `steady` overwrites through the mapping table: the snapshot's reverse map holds
    // stale entries.
    let drive = |reverse_map: &str| {
        let reverse_map = format!("ftl.reverse_map={reverse_map}");
        scenario(&[
            "workload.precondition=steady",
            "workload.steady_method=functional",
            "workload.read_fraction=0.3",
            "workload.io_count=20000",
            "host.queue_depth=16",
            &reverse_map,
        ])
    };
    let direct = compared(&crate::run(&drive("memory")));
    let folder = crate::folder("reverse-map-snapshots");
    for (saved_with, loaded_with) in [("memory", "file"), ("file", "memory")] {
        let path = folder.join(format!("{saved_with}.snap"));
        let mut maker = Simulation::new(&drive(saved_with)).expect("valid scenario");
        maker.save_snapshot(&path, &mut |_| true).expect("saved");
        let ftl = maker.ftl();
        let stale = (0..ftl.geometry.physical_units() as u32)
            .filter(|&unit| ftl.mapping.reverse_entry(unit) != u32::MAX && ftl.mapping.logical(unit) == u32::MAX)
            .count();
        assert!(stale > 0, "the saved reverse map holds stale entries");
        let mut loaded = Simulation::new(&drive(loaded_with)).expect("valid scenario");
        loaded
            .load_snapshot(&path)
            .expect("a snapshot serves either reverse map");
        let mut from_snapshot = compared(&loaded.run(&mut |_| true).expect("the run completes"));
        // Vectors read from a file are allocated to their length (`determinism.rs`).
        from_snapshot["simulator"]["state_bytes_per_mapping_unit"] =
            direct["simulator"]["state_bytes_per_mapping_unit"].clone();
        assert!(
            from_snapshot == direct,
            "saved with {saved_with}, loaded with {loaded_with}: the runs differ"
        );
    }
}
