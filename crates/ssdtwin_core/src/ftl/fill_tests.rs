//! Tests of the lazy fill (`fill.rs`, `fill_layout.rs`): a fill that lays out rows without writing
//! them leaves the table the per-unit path leaves, entry for entry, and so do GC, overwrites,
//! trims and snapshots after it.

use super::params::FtlConfig;
use super::precondition::FunctionalWriter;
use super::Ftl;
use crate::base::rng::Rng;
use crate::flash::geometry::Geometry;
use crate::flash::params::FlashConfig;

/// A small FTL: 2 channels × 2 dies (4 program targets) × 2 planes of 24 blocks of 8 pages of 4
/// units (rows of 256 units), 30% over-provisioning; the reverse map in a file if `in_file`.
fn drive(in_file: bool) -> Ftl {
    let flash = FlashConfig {
        channels: 2,
        dies_per_chip: 2,
        planes_per_die: 2,
        blocks_per_plane: 24,
        pages_per_block: 8,
        multi_plane: true,
        ..FlashConfig::default()
    };
    let config = FtlConfig::default();
    let geometry = Geometry::new(&flash, config.mapping_unit);
    let mut ftl = Ftl::new(&config, true, geometry, Rng::stream(1, "ftl"));
    if in_file {
        ftl.mapping
            .reverse_to_file(&std::env::temp_dir(), geometry.units_per_block())
            .expect("a temporary file");
    }
    ftl
}

/// The fill `fill.rs` makes (rows laid out lazily where it can); returns the units laid out.
fn fill_lazily(ftl: &mut Ftl, span_units: u32) -> u32 {
    let mut writer = FunctionalWriter::default();
    ftl.fill(&mut writer, span_units, u64::from(span_units), &mut |_| true)
        .expect("room to fill")
        .expect("not cancelled");
    writer.finish(ftl);
    ftl.mapping.laid_out_units()
}

/// The same fill a unit at a time through the mapping table (every entry written).
fn fill_per_unit(ftl: &mut Ftl, span_units: u32) {
    let mut writer = FunctionalWriter::default();
    for logical in 0..span_units {
        writer.write(ftl, logical).expect("room to fill");
    }
    writer.finish(ftl);
    assert_eq!(ftl.mapping.laid_out_units(), 0);
}

/// `count` random overwrites of the span with GC as needed, every 7th draw a trim instead.
fn overwrite(ftl: &mut Ftl, span_units: u32, count: u32, seed: u64) {
    let mut rng = Rng::stream(seed, "overwrites");
    let mut writer = FunctionalWriter::default();
    for draw in 0..count {
        let logical = rng.below(u64::from(span_units)) as u32;
        if draw % 7 == 0 {
            ftl.trim(logical);
        } else {
            writer.write(ftl, logical).expect("room to overwrite");
        }
    }
    writer.finish(ftl);
}

/// Everything the FTL holds: the mapping's entries decoded, and the rest as the snapshot writes it.
fn state(ftl: &Ftl) -> (Vec<u32>, Vec<u32>, String) {
    let (forward, reverse) = ftl.mapping.decoded();
    (forward, reverse, serde_json::to_string(ftl).expect("an FTL serializes"))
}

fn snapshot(ftl: &Ftl) -> Vec<u8> {
    let mut bytes = Vec::new();
    ftl.write_state(&mut bytes).expect("written");
    bytes
}

#[test]
fn a_lazy_fill_of_several_rows_and_a_partial_round_decodes_as_the_per_unit_fill() {
    for in_file in [false, true] {
        for fraction in [0.61, 0.9, 1.0] {
            let mut lazy = drive(in_file);
            let span_units = (fraction * f64::from(lazy.logical_units())) as u32;
            let laid_out = fill_lazily(&mut lazy, span_units);
            let mut per_unit = drive(false);
            fill_per_unit(&mut per_unit, span_units);
            let what = format!("span {fraction}, reverse map in a file: {in_file}");
            // Rows of 256 units: several of them, and the span's rest written out.
            assert!(laid_out >= 2 * 256, "{what}: {laid_out} units laid out");
            assert!(laid_out < span_units, "{what}: the partial round is written out");
            assert!(state(&lazy) == state(&per_unit), "{what}: the states differ");
            for logical in [0, 255, 256, laid_out - 1, laid_out, span_units - 1] {
                let physical = per_unit.mapping.physical(logical);
                assert_eq!(lazy.mapping.physical(logical), physical, "{what}: logical {logical}");
                assert_eq!(lazy.mapping.logical(physical), logical, "{what}: physical {physical}");
            }
            lazy.check_invariants()
                .unwrap_or_else(|error| panic!("{what}: {error}"));
        }
    }
}

#[test]
fn gc_overwrites_and_trims_after_a_lazy_fill_leave_the_state_they_leave_after_a_written_fill() {
    for in_file in [false, true] {
        let mut lazy = drive(in_file);
        let span_units = lazy.logical_units() * 9 / 10;
        assert!(fill_lazily(&mut lazy, span_units) > 0);
        let mut per_unit = drive(false);
        fill_per_unit(&mut per_unit, span_units);
        overwrite(&mut lazy, span_units, 4 * span_units, 5);
        overwrite(&mut per_unit, span_units, 4 * span_units, 5);
        let erases: u32 = lazy.blocks.erase_count.iter().sum();
        assert!(erases > 100, "GC must erase the fill's blocks ({erases} erases)");
        assert!(
            state(&lazy) == state(&per_unit),
            "reverse in a file {in_file}: the states differ"
        );
        lazy.check_invariants().expect("a consistent FTL");
        #[cfg(feature = "verify")]
        lazy.check_versions().expect("every unit at its latest version");
    }
}

#[test]
fn a_snapshot_of_a_lazy_fill_is_the_written_fills_snapshot_and_loads_back_to_the_same_state() {
    let mut lazy = drive(false);
    let span_units = lazy.logical_units() * 3 / 4;
    assert!(fill_lazily(&mut lazy, span_units) > 0);
    let mut per_unit = drive(false);
    fill_per_unit(&mut per_unit, span_units);
    let bytes = snapshot(&lazy);
    assert!(bytes == snapshot(&per_unit), "the snapshots differ");
    let mut loaded = drive(false);
    Ftl::read_state(&mut bytes.as_slice(), &mut loaded).expect("read back");
    assert!(state(&loaded) == state(&lazy), "the loaded state differs");
    overwrite(&mut loaded, span_units, 3 * span_units, 9);
    overwrite(&mut lazy, span_units, 3 * span_units, 9);
    assert!(state(&loaded) == state(&lazy), "the states differ after overwrites");
}

#[test]
fn a_lazy_fill_and_the_overwrites_after_it_are_deterministic() {
    let run = || {
        let mut ftl = drive(false);
        let span_units = ftl.logical_units();
        fill_lazily(&mut ftl, span_units);
        overwrite(&mut ftl, span_units, 2 * span_units, 3);
        snapshot(&ftl)
    };
    assert!(run() == run(), "two runs differ");
}
