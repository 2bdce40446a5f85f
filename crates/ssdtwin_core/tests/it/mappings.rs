//! Block mapping and BAST (Cho et al., section III-C; Kim et al. 2002): invariants after long
//! randomized runs, the update costs the schemes must have by construction, and config errors.

use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource, Simulation};

use crate::scenario;

/// A tiny drive with one 4 KiB mapping unit per page: 2 channels x 1 die x 2 planes, 32 blocks
/// of 16 pages per plane (9 spare blocks per plane at 30% over-provisioning), 2 log blocks per
/// plane for BAST.
fn tiny(mapping: &str, settings: &[&str]) -> Scenario {
    let mapping = format!("ftl.mapping={mapping}");
    let mut all = vec![
        "flash.channels=2",
        "flash.dies_per_chip=1",
        "flash.blocks_per_plane=32",
        "flash.pages_per_block=16",
        "flash.page_size=4KiB",
        "ftl.log_blocks=8",
        "host.queue_depth=16",
        &mapping,
    ];
    all.extend_from_slice(settings);
    scenario(&all)
}

fn logical_units(scenario: &Scenario) -> u64 {
    u64::from(Simulation::new(scenario).expect("valid scenario").ftl().logical_units())
}

fn run_checked(scenario: &Scenario, what: &str) -> Report {
    let mut simulation = Simulation::new(scenario).expect("valid scenario");
    let report = simulation
        .run(&mut |_| true)
        .unwrap_or_else(|error| panic!("{what}: {error}"));
    if let Err(problem) = simulation.ftl().check_invariants() {
        panic!("{what}: {problem}");
    }
    report
}

#[test]
fn block_and_bast_invariants_hold_after_long_random_runs() {
    let cases = [
        ("uniform", "fill", r#"workload.bssplit=[]"#),
        (
            "jesd219",
            "steady",
            r#"workload.bssplit=[["4KiB", 0.6], ["8KiB", 0.3], ["32KiB", 0.1]]"#,
        ),
        ("zipf", "steady", r#"workload.bssplit=[["4KiB", 0.8], ["16KiB", 0.2]]"#),
    ];
    for mapping in ["block", "bast"] {
        for (distribution, precondition, sizes) in cases {
            let distribution_setting = format!("workload.distribution={distribution}");
            let precondition_setting = format!("workload.precondition={precondition}");
            let mut scenario = tiny(
                mapping,
                &[
                    "workload.read_fraction=0.2",
                    &distribution_setting,
                    &precondition_setting,
                    sizes,
                ],
            );
            // Writes of about three times the logical capacity.
            scenario.workload.io_count = 4 * logical_units(&scenario);
            let what = format!("{mapping}, {distribution}, {precondition}");
            let report = run_checked(&scenario, &what);
            let ftl = &report.ftl;
            eprintln!(
                "{what}: copies {}, erases {:?}, merges {:?}",
                ftl.valid_page_copies, ftl.erases, ftl.merges
            );
            assert!(
                ftl.valid_page_copies > 0 && ftl.erases.total > 0,
                "{what}: no update ever copied or erased"
            );
            assert!(
                report.flash.gc_programs <= ftl.valid_page_copies && report.flash.erases <= ftl.erases.total,
                "{what}: the dies ran more copies or erases than the FTL decided"
            );
            assert!(
                report.flash.gc_programs as f64 >= 0.9 * ftl.valid_page_copies as f64,
                "{what}: most decided copies run as flash operations ({} of {})",
                report.flash.gc_programs,
                ftl.valid_page_copies
            );
            assert!(report.latency_us.read.count > 0, "{what}: the run mixed no reads in");
            if mapping == "block" {
                assert_eq!(ftl.erases.total, ftl.erases.block_update, "{what}");
            } else {
                assert_eq!(ftl.erases.block_update, 0, "{what}");
                assert_eq!(
                    ftl.erases.full_merge,
                    2 * ftl.merges.full,
                    "{what}: a full merge erases the data and the log block"
                );
                assert_eq!(ftl.erases.switch_merge, ftl.merges.switch, "{what}");
                assert_eq!(ftl.erases.partial_merge, ftl.merges.partial, "{what}");
            }
        }
    }
}

/// After `fill`, every logical page of the span is written, so under block mapping every 4 KiB
/// write rewrites its block: one erase per write and the block's other valid pages copied
/// (pages_per_block - 1 for every full logical block).
#[test]
fn block_mapping_rewrites_the_block_on_every_update() {
    let mut scenario = tiny("block", &["workload.read_fraction=0.0", "workload.precondition=fill"]);
    scenario.workload.io_count = 2 * logical_units(&scenario);
    let report = run_checked(&scenario, "block");
    let writes = report.latency_us.write.count;
    let pages_per_block = u64::from(scenario.flash.pages_per_block);
    assert_eq!(
        report.ftl.erases.block_update, writes,
        "one old block erased per update"
    );
    let most = writes * (pages_per_block - 1);
    let copies = report.ftl.valid_page_copies;
    assert!(
        copies <= most && copies as f64 >= 0.95 * most as f64,
        "{copies} copies for {writes} writes of {pages_per_block}-page blocks (at most {most})"
    );
    assert!((report.waf - (1.0 + copies as f64 / writes as f64)).abs() < 1e-9);
}

/// Sequential rewrites fill each BAST log block in offset order, so every merge is a switch
/// merge: no copies at all, one erase per rewritten block. Block mapping copies the rest of the
/// block on every write of the same stream.
#[test]
fn sequential_rewrites_switch_merge_under_bast_and_copy_under_block_mapping() {
    let settings = [
        "workload.read_fraction=0.0",
        "workload.pattern=sequential",
        "workload.precondition=fill",
    ];
    let mut bast = tiny("bast", &settings);
    let logical = logical_units(&bast);
    bast.workload.io_count = 3 * logical;
    let report = run_checked(&bast, "bast");
    let pages_per_block = u64::from(bast.flash.pages_per_block);
    let writes = report.latency_us.write.count;
    let merges = &report.ftl.merges;
    eprintln!("bast sequential: {merges:?}, copies {}", report.ftl.valid_page_copies);
    // Only the last logical block, shorter than a block, ends in a partial merge, with nothing
    // to copy: once per pass over the span.
    assert_eq!(report.ftl.valid_page_copies, 0, "switch merges copy nothing");
    assert_eq!(merges.full, 0);
    assert!(merges.partial <= 3, "{} partial merges in 3 passes", merges.partial);
    let rewritten_blocks = writes / pages_per_block;
    let log_blocks = u64::from(bast.ftl.log_blocks);
    assert!(
        merges.switch + log_blocks + 1 >= rewritten_blocks && merges.switch <= rewritten_blocks,
        "{} switch merges for {rewritten_blocks} rewritten blocks ({log_blocks} log blocks may stay open)",
        merges.switch
    );

    let mut block = tiny("block", &settings);
    block.workload.io_count = 3 * logical;
    let report = run_checked(&block, "block");
    assert!(
        report.ftl.valid_page_copies as f64 >= 0.9 * (writes * (pages_per_block - 1)) as f64,
        "block mapping copies the rest of the block per write: {}",
        report.ftl.valid_page_copies
    );
}

fn load_error(settings: &[&str]) -> ssdtwin_core::ConfigError {
    let source = ScenarioSource::Text {
        toml: "drive = \"cho_512gb\"\n[flash]\nblocks_per_plane = 64\n".to_string(),
        base_dir: std::path::PathBuf::from("."),
    };
    let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).expect("override")).collect();
    load(&source, &overrides).expect_err("the scenario is refused")
}

#[test]
fn unsupported_block_and_bast_combinations_are_config_errors() {
    let error = load_error(&["ftl.mapping=block", "ftl.mapping_unit=2KiB"]);
    assert_eq!(error.key, "ftl.mapping_unit", "{error}");
    assert!(error.message.contains("4KiB"), "{error}");

    let error = load_error(&["ftl.mapping=bast", "ftl.log_blocks=8"]);
    assert_eq!(error.key, "ftl.log_blocks", "{error}");
    assert!(error.message.contains('8') && error.message.contains("16"), "{error}");

    // 64 blocks per plane at 7% over-provisioning leave 4 spare blocks per plane: not enough
    // for 16 log blocks per plane.
    let error = load_error(&["ftl.mapping=bast", "ftl.log_blocks=256"]);
    assert_eq!(error.key, "ftl.over_provisioning", "{error}");

    let error = load_error(&["flash.channel_switch_time=1s"]);
    assert_eq!(error.key, "flash.channel_switch_time", "{error}");
    let error = load_error(&["flash.way_switch_time=1s"]);
    assert_eq!(error.key, "flash.way_switch_time", "{error}");
    assert!(error.message.contains("100ms"), "{error}");
}
