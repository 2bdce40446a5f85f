//! FTL invariants as properties (issue 18): for random drives and workloads across every mapping
//! scheme, GC victim policy, suspend on and off, multi-plane on and off, host trims in the mix or
//! not, and (page mapping) the DRAM side on or off (write buffer, cached mapping table, a power
//! cut), a run that writes ten
//! times the logical capacity leaves `Ftl::check_invariants` true (every mapped unit in a written
//! page of its block that maps back to it, valid counts equal to the mapping's view, each block in
//! one state and the free lists exactly the free blocks, no block written past its end between
//! erases), every command completes, and nothing acknowledged was lost (`loss.rs`): every logical
//! unit not trimmed since its latest write maps to a slot holding its latest version, no trimmed
//! unit is mapped, mapped and trimmed units add up to the logical units after the fill, and
//! every acknowledged unit write was placed by the FTL (or, buffered, flushed, coalesced, held or
//! reported lost by the power cut). Proptest shrinks a failing case to the smallest drive and
//! workload that fail and stores its seed in `proptest-regressions/`, which is replayed first
//! from then on.
//!
//! The random cases number `SSDTWIN_PROPERTY_CASES` (default 8, what CI runs); the nightly-size
//! run is `SSDTWIN_PROPERTY_CASES=500 cargo test --release -p ssdtwin_core --test it ftl_properties`.

use proptest::prelude::*;
use ssdtwin_core::Simulation;

use crate::loss::check_no_loss;
use crate::scenario;

/// Random cases of the property test: `SSDTWIN_PROPERTY_CASES`, or 8.
fn property_cases() -> u32 {
    match std::env::var("SSDTWIN_PROPERTY_CASES") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("SSDTWIN_PROPERTY_CASES={text}: expected a whole number of cases")),
        Err(_) => 8,
    }
}

#[derive(Clone, Debug)]
struct Case {
    mapping: &'static str,
    policy: &'static str,
    suspend: bool,
    multi_plane: bool,
    read_percent: u32,
    /// Share of commands that are trims (`workload.trim_fraction`) [%].
    trim_percent: u32,
    queue_depth: u32,
    blocks_per_plane: u32,
    sizes: &'static str,
    /// The DRAM side on: a write buffer (LIDF), the cached mapping table with 10% protected and a
    /// power cut in the middle of the run (page mapping).
    dram: bool,
    seed: u64,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec!["page", "block", "bast"]),
        prop::sample::select(vec!["greedy", "cost_benefit", "random", "fifo"]),
        any::<bool>(),
        any::<bool>(),
        0u32..60,
        prop::sample::select(vec![0u32, 5, 20]),
        prop::sample::select(vec![1u32, 4, 16, 32]),
        24u32..40,
        prop::sample::select(vec![
            "[]",
            r#"[["4KiB", 0.7], ["16KiB", 0.3]]"#,
            r#"[["4KiB", 0.5], ["8KiB", 0.3], ["64KiB", 0.2]]"#,
        ]),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(
                mapping,
                policy,
                suspend,
                multi_plane,
                read_percent,
                trim_percent,
                queue_depth,
                blocks_per_plane,
                sizes,
                dram,
                seed,
            )| Case {
                mapping,
                policy,
                suspend,
                multi_plane,
                read_percent,
                trim_percent,
                queue_depth,
                blocks_per_plane,
                sizes,
                dram,
                seed,
            },
        )
}

/// Runs `case` until its writes are ten times the logical capacity and checks the FTL.
fn check(case: &Case) -> Result<(), TestCaseError> {
    let block_scheme = case.mapping != "page";
    let settings: Vec<String> = vec![
        "flash.channels=2".into(),
        "flash.dies_per_chip=1".into(),
        format!("flash.blocks_per_plane={}", case.blocks_per_plane),
        "flash.pages_per_block=16".into(),
        // Block schemes map whole pages: one 4 KiB unit per page keeps their drive small.
        format!("flash.page_size={}", if block_scheme { "4KiB" } else { "16KiB" }),
        format!("ftl.mapping={}", case.mapping),
        "ftl.log_blocks=8".into(),
        format!("ftl.gc_policy={}", case.policy),
        format!("flash.suspend.program={}", case.suspend),
        format!("flash.suspend.erase={}", case.suspend),
        format!("flash.multi_plane={}", case.multi_plane && !block_scheme),
        format!("workload.read_fraction={}", f64::from(case.read_percent) / 100.0),
        format!("workload.trim_fraction={}", f64::from(case.trim_percent) / 100.0),
        format!("workload.bssplit={}", if block_scheme { "[]" } else { case.sizes }),
        "workload.precondition=fill".into(),
        format!("host.queue_depth={}", case.queue_depth),
        format!("seed={}", case.seed % 1_000_000),
    ];
    let mut settings = settings;
    if case.dram && !block_scheme {
        settings.extend([
            "buffer.capacity=256KiB".to_string(),
            "buffer.flush_order=lidf".to_string(),
            "ftl.mapping_cache=cached".to_string(),
            "ftl.mapping_cache_size=16KiB".to_string(),
            "plp.enabled=true".to_string(),
            "plp.protected_ratio=0.1".to_string(),
            "power_loss.at=[\"5ms\"]".to_string(),
        ]);
    }
    let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
    let mut scenario = scenario(&settings);
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    let write_share = 1.0 - f64::from(case.read_percent + case.trim_percent) / 100.0;
    scenario.workload.io_count = (10.0 * logical as f64 / write_share).ceil() as u64;
    let mut simulation = Simulation::new(&scenario).expect("valid scenario");
    let report = simulation
        .run(&mut |_| true)
        .map_err(|error| TestCaseError::fail(format!("{case:?}: {error}")))?;
    simulation
        .ftl()
        .check_invariants()
        .map_err(|problem| TestCaseError::fail(format!("{case:?}: {problem}")))?;
    let trims: u64 = report.workload.jobs.iter().map(|job| job.trim.total_ios).sum();
    prop_assert_eq!(
        report.latency_us.all.count + trims,
        scenario.workload.io_count,
        "{:?}",
        case
    );
    prop_assert_eq!(
        report.ftl.trimmed_units,
        report.workload.jobs.iter().map(|job| job.trim.io_bytes).sum::<u64>() / 4096,
        "{:?}: every unit of every trim reached the FTL",
        case
    );
    prop_assert_eq!(trims > 0, case.trim_percent > 0, "{:?}", case);
    prop_assert!(report.waf >= 1.0 - 1e-9, "{:?}: WAF {}", case, report.waf);
    check_no_loss(&simulation, &report, true).map_err(|problem| TestCaseError::fail(format!("{case:?}: {problem}")))?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: property_cases(), max_shrink_iters: 64, ..ProptestConfig::default() })]

    #[test]
    fn ftl_invariants_hold_for_random_drives_and_workloads(case in cases()) {
        check(&case)?;
    }
}

/// The whole matrix once each (the random cases above add seeds, sizes and queue depths).
#[test]
fn ftl_invariants_hold_across_schemes_policies_and_suspend() {
    for mapping in ["page", "block", "bast"] {
        let policies: &[&'static str] = if mapping == "page" {
            &["greedy", "cost_benefit", "random", "fifo"]
        } else {
            &["greedy"] // block schemes reclaim by merges; the victim policy plays no part
        };
        for &policy in policies {
            for suspend in [false, true] {
                let case = Case {
                    mapping,
                    policy,
                    suspend,
                    multi_plane: true,
                    read_percent: 30,
                    trim_percent: if suspend { 10 } else { 0 },
                    queue_depth: 16,
                    blocks_per_plane: 32,
                    sizes: "[]",
                    dram: mapping == "page" && suspend,
                    seed: 5,
                };
                if let Err(error) = check(&case) {
                    panic!("{error}");
                }
            }
        }
    }
}
