//! Writes smaller than the mapping unit (issue 32, part 5; docs/models/ftl.md, "Mapping unit"):
//! a 4 KiB write on a larger unit is a read-modify-write of the unit. Closed forms: before GC,
//! the bytes programmed per host byte are the unit over 4 KiB exactly; the unit's old data is read
//! from flash exactly when it is on flash (written before, and no longer in the open program);
//! with GC, the WAF is the unit over 4 KiB times the GC models' WAF at the unit count
//! (`theory.rs`'s models and log accounting).

use std::collections::HashSet;

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::LiveSimulation;
use ssdtwin_core::Simulation;

use crate::theory::{fifo_waf, greedy_waf_lower};
use crate::{dies, relative_error, run, scenario, units_per_page};

const KIB4: u64 = 4096;

#[test]
fn four_kib_random_writes_program_unit_over_4kib_times_the_host_bytes_before_gc() {
    for unit_kib in [4u64, 8, 16] {
        let unit = format!("ftl.mapping_unit={unit_kib}KiB");
        let scenario = scenario(&[
            &unit,
            "workload.read_fraction=0.0",
            "workload.io_count=2000",
            "host.queue_depth=8",
        ]);
        let report = run(&scenario);
        let ftl = &report.ftl;
        assert_eq!(report.flash.gc_programs, 0, "{unit_kib} KiB: no GC in this run");
        assert_eq!(ftl.host_write_bytes, 2000 * KIB4);
        let ratio = ftl.media_write_bytes as f64 / ftl.host_write_bytes as f64;
        let expected = (unit_kib * 1024 / KIB4) as f64;
        eprintln!(
            "{unit_kib} KiB units: media/host {ratio}, WAF {}, RMW {:?}, write IOPS {:.0}",
            report.waf, ftl.read_modify_writes, report.iops
        );
        assert_eq!(ratio, expected, "{unit_kib} KiB units");
        assert!(relative_error(report.waf, expected) < 1e-12, "WAF {}", report.waf);
        let rmw = &ftl.read_modify_writes;
        if unit_kib == 4 {
            assert_eq!(rmw.partial_units, 0, "4 KiB writes cover 4 KiB units whole");
            assert_eq!(report.flash.reads, 0);
        } else {
            // The filled drive has every unit mapped: each write reads its unit unless the unit is
            // still in the frame buffer.
            assert_eq!(rmw.partial_units, 2000);
            assert_eq!(rmw.flash_reads + rmw.in_dram, 2000);
            assert!(rmw.flash_reads > 1900, "{rmw:?}");
            assert_eq!(
                report.flash.reads, rmw.flash_reads,
                "each is a die read (none batched here)"
            );
        }
    }
}

#[test]
fn a_unit_is_read_before_its_partial_write_exactly_when_its_old_data_is_on_flash() {
    // A fresh drive (nothing mapped), 16 KiB units, 4 KiB writes one at a time, far enough apart
    // that each write and every closed program are done before the next: the open program (a page
    // per plane of one die, one unit each) holds the last units placed.
    let scenario = scenario(&[
        "ftl.mapping_unit=16KiB",
        "workload.precondition=none",
        "workload.read_fraction=0.0",
    ]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).expect("valid scenario");
    let capacity = units_per_page(&scenario) * u64::from(scenario.flash.planes_per_die);
    let span = 64u32;
    let mut rng = Rng::stream(7, "rmw");
    let (mut written, mut open) = (HashSet::new(), Vec::new());
    let (mut reads, mut in_dram) = (0u64, 0u64);
    let gap = Duration::from_micros(20_000);
    let writes = 400u64;
    for index in 0..writes {
        let unit = rng.below(u64::from(span)) as u32;
        let slot = rng.below(4);
        let command = CommandSpec::bytes_range(false, u64::from(unit) * 16384 + slot * KIB4, KIB4, 16384);
        assert_eq!((command.first_unit, command.units), (unit, 1));
        if open.contains(&unit) {
            in_dram += 1;
        } else if written.contains(&unit) {
            reads += 1;
        }
        written.insert(unit);
        open.push(unit);
        if open.len() as u64 == capacity {
            open.clear();
        }
        live.submit(Time::ZERO + gap * (index + 1), command, index);
    }
    while live.step().expect("runs") {}
    let report = live.finish();
    let rmw = &report.ftl.read_modify_writes;
    eprintln!("{rmw:?}; expected {reads} flash reads, {in_dram} in DRAM; program capacity {capacity}");
    assert!(reads > 100, "the test exercises reads: {reads}");
    assert_eq!(rmw.partial_units, writes);
    assert_eq!(rmw.flash_reads, reads, "a read for each unit on flash");
    assert_eq!(rmw.in_dram, in_dram, "the open program's units merged in DRAM");
    assert_eq!(report.flash.reads, reads, "each read is a die operation");
    assert_eq!(report.ftl.media_write_bytes, writes * 16384);
}

/// Steady-state WAF of uniform random 4 KiB writes on `unit_kib` KiB units under `policy`
/// (`theory.rs`'s drive and run, 3x the logical units written), and the FIFO model and greedy
/// lower bound for the drive's log at that unit count.
fn steady_partial_writes(unit_kib: u64, policy: &str) -> (f64, f64, f64) {
    let policy = format!("ftl.gc_policy={policy}");
    let unit = format!("ftl.mapping_unit={unit_kib}KiB");
    let mut scenario = scenario(&[
        "flash.channels=1",
        "flash.blocks_per_plane=256",
        "workload.read_fraction=0.0",
        "workload.precondition=steady",
        "workload.steady_overwrites=3.0",
        "host.mode=open",
        "host.arrival_rate=250",
        "host.queue_depth=32",
        &unit,
        &policy,
    ]);
    let logical = u64::from(Simulation::new(&scenario).expect("valid").ftl().logical_units());
    scenario.workload.io_count = 3 * logical;
    let report = run(&scenario);
    assert!(
        report.queues.die_utilization < 0.8,
        "GC keeps up: die utilisation {}",
        report.queues.die_utilization
    );
    let flash = &scenario.flash;
    let planes = f64::from(dies(&scenario) * flash.planes_per_die);
    let blocks = f64::from(flash.blocks_per_plane);
    let trigger = (scenario.ftl.gc_threshold * blocks).ceil().max(2.0);
    let units_per_block = (units_per_page(&scenario) * u64::from(flash.pages_per_block)) as f64;
    let log_units = planes * (blocks - trigger - 0.5) * units_per_block;
    let rho = (log_units - logical as f64) / logical as f64;
    (report.waf, fifo_waf(1.0 + rho), greedy_waf_lower(rho))
}

#[test]
fn steady_waf_of_4kib_writes_on_8_and_16kib_units_is_unit_over_4kib_times_the_gc_models_waf() {
    for unit_kib in [8u64, 16] {
        let factor = (unit_kib * 1024 / KIB4) as f64;
        let (fifo, fifo_model, _) = steady_partial_writes(unit_kib, "fifo");
        let (greedy, upper, lower) = steady_partial_writes(unit_kib, "greedy");
        eprintln!(
            "{unit_kib} KiB units, 4 KiB writes: WAF fifo {fifo:.4} ({factor} x model {:.4}), greedy {greedy:.4} in [{:.4}, {:.4}]",
            factor * fifo_model,
            factor * lower,
            factor * upper
        );
        assert!(
            relative_error(fifo, factor * fifo_model) < 0.02,
            "{unit_kib} KiB: FIFO policy WAF {fifo} vs {factor} x the FIFO model {fifo_model}"
        );
        assert!(
            greedy >= factor * lower && greedy <= factor * upper,
            "{unit_kib} KiB: greedy WAF {greedy} outside {factor} x [{lower}, {upper}]"
        );
    }
}

#[test]
fn the_datacenter_qlc_preset_maps_16kib_units_and_runs_4kib_writes_from_an_empty_drive() {
    let source = ssdtwin_core::ScenarioSource::Text {
        toml: "drive = \"datacenter_qlc\"\n".to_string(),
        base_dir: ".".into(),
    };
    let overrides: Vec<ssdtwin_core::Override> = [
        "workload.precondition=\"none\"",
        "workload.read_fraction=0.0",
        "workload.block_size=\"4KiB\"",
        "workload.io_count=20000",
    ]
    .iter()
    .map(|setting| ssdtwin_core::Override::parse(setting).unwrap())
    .collect();
    let scenario = ssdtwin_core::load(&source, &overrides).expect("the preset loads");
    assert_eq!(scenario.ftl.mapping_unit.bytes(), 16384);
    assert_eq!(scenario.flash.cell, ssdtwin_core::config::CellType::Qlc);
    let report = run(&scenario);
    let rmw = &report.ftl.read_modify_writes;
    eprintln!(
        "datacenter_qlc, 4 KiB random writes from empty: {rmw:?}, WAF {}",
        report.waf
    );
    assert_eq!(report.host_ios, 20000);
    assert_eq!(rmw.partial_units, 20000, "every 4 KiB write is part of a 16 KiB unit");
    assert_eq!(report.flash.gc_programs, 0);
    assert_eq!(report.waf, 4.0, "16 KiB programmed per 4 KiB written");
    assert_eq!(report.flash.reads, rmw.flash_reads, "only read-modify-write reads");
}
