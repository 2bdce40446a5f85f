//! FTL invariants after long randomized runs (ARCHITECTURE.md, "Invariants"): every logical unit maps to
//! exactly one valid physical location, valid counts match the reverse map, every block is in
//! exactly one state and the free lists hold exactly the free blocks, and nothing acknowledged
//! was lost (`loss.rs`: latest versions mapped, every unit mapped, writes accounted for). Run for each GC policy,
//! with multi-plane programs on and off, on a tiny drive written over ten times.

use ssdtwin_core::{Report, Scenario, Simulation};

use crate::loss::check_no_loss;
use crate::scenario;

const POLICIES: [&str; 4] = ["greedy", "cost_benefit", "random", "fifo"];

/// Runs `scenario` for `times` commands per logical unit of its drive; `label` names it in errors.
fn run_times_capacity(mut scenario: Scenario, times: u64, label: &str) -> (Report, Simulation) {
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    scenario.workload.io_count = times * logical;
    let mut simulation = Simulation::new(&scenario).expect("valid scenario");
    let report = simulation
        .run(&mut |_| true)
        .unwrap_or_else(|error| panic!("{label}: {error}"));
    (report, simulation)
}

/// Random 4 KiB I/O, 80% writes, on a filled 2-die drive of 32 blocks of 16 pages per plane,
/// until the writes amount to 10x the logical capacity. The closed-loop host keeps the drive
/// saturated, so GC runs down to the last free block of each plane.
fn churn(policy: &str, multi_plane: bool) -> (Report, Simulation) {
    let policy = format!("ftl.gc_policy={policy}");
    let multi_plane = format!("flash.multi_plane={multi_plane}");
    let scenario = scenario(&[
        "flash.channels=2",
        "flash.dies_per_chip=1",
        "flash.blocks_per_plane=32",
        "flash.pages_per_block=16",
        "workload.read_fraction=0.2",
        "workload.precondition=fill",
        "host.queue_depth=16",
        &policy,
        &multi_plane,
    ]);
    // Commands such that the expected writes (80%) are 10x the logical capacity, plus a margin.
    let (report, simulation) = run_times_capacity(scenario, 13, &format!("{policy}, {multi_plane}"));
    let logical = u64::from(simulation.ftl().logical_units());
    let writes = report.latency_us.write.count;
    assert!(
        writes >= 10 * logical,
        "{policy}: {writes} writes, fewer than 10 x {logical} logical units"
    );
    (report, simulation)
}

#[test]
fn invariants_hold_after_ten_drive_writes_for_every_policy() {
    for multi_plane in [true, false] {
        let mut waf = Vec::new();
        for policy in POLICIES {
            let (report, simulation) = churn(policy, multi_plane);
            let ftl = simulation.ftl();
            if let Err(problem) = ftl.check_invariants() {
                panic!("{policy}, multi_plane {multi_plane}: {problem}");
            }
            if let Err(problem) = check_no_loss(&simulation, &report, true) {
                panic!("{policy}, multi_plane {multi_plane}: {problem}");
            }
            eprintln!(
                "{policy:>12}, multi_plane {multi_plane:>5}: WAF {:.4}, erases {}, gc programs {}, reads {}",
                report.waf, report.flash.erases, report.flash.gc_programs, report.latency_us.read.count
            );
            assert!(report.waf >= 1.0, "{policy}: WAF {} below 1", report.waf);
            assert!(
                report.flash.erases > 0 && report.flash.gc_programs > 0,
                "{policy}: GC never ran"
            );
            assert!(report.latency_us.read.count > 0, "{policy}: the run mixed no reads in");
            waf.push((policy, report.waf));
        }
        let of = |name: &str| waf.iter().find(|(policy, _)| *policy == name).expect("policy ran").1;
        // Uniform random writes are memoryless: greedy is optimal among victim policies (Yang,
        // Misra and Rubenstein, SIGMETRICS PER 2015), cost-benefit scores the same low-valid
        // candidates with an age factor, and FIFO and random ignore validity.
        let (greedy, cost_benefit, random, fifo) = (of("greedy"), of("cost_benefit"), of("random"), of("fifo"));
        assert!(
            greedy <= cost_benefit,
            "multi_plane {multi_plane}: greedy {greedy} above cost_benefit {cost_benefit}"
        );
        assert!(
            cost_benefit <= fifo.min(random),
            "multi_plane {multi_plane}: cost_benefit {cost_benefit} above fifo {fifo} or random {random}"
        );
    }
}

#[test]
fn invariants_hold_under_skewed_writes_after_steady_preconditioning() {
    // Hot and cold data (JESD219 and Zipf popularity) with mixed command sizes, after functional
    // steady-state preconditioning: GC victims then hold data of very different ages.
    for (distribution, policy) in [("jesd219", "cost_benefit"), ("zipf", "greedy"), ("jesd219", "fifo")] {
        let distribution_setting = format!("workload.distribution={distribution}");
        let policy_setting = format!("ftl.gc_policy={policy}");
        let scenario = scenario(&[
            "flash.channels=2",
            "flash.dies_per_chip=1",
            "flash.blocks_per_plane=32",
            "flash.pages_per_block=16",
            "workload.read_fraction=0.3",
            r#"workload.bssplit=[["4KiB", 0.6], ["8KiB", 0.3], ["32KiB", 0.1]]"#,
            "workload.precondition=steady",
            "host.queue_depth=16",
            &distribution_setting,
            &policy_setting,
        ]);
        let (report, simulation) = run_times_capacity(scenario, 5, &format!("{distribution}, {policy}"));
        if let Err(problem) = simulation.ftl().check_invariants() {
            panic!("{distribution}, {policy}: {problem}");
        }
        // Steady preconditioning lays out every unit of the span (the whole drive) as written.
        if let Err(problem) = check_no_loss(&simulation, &report, true) {
            panic!("{distribution}, {policy}: {problem}");
        }
        eprintln!(
            "{distribution}, {policy}: WAF {:.4}, erases {}",
            report.waf, report.flash.erases
        );
        assert!(
            report.waf >= 1.0 && report.flash.erases > 0,
            "{distribution}, {policy}: GC never ran"
        );
    }
}

#[test]
fn invariants_hold_when_a_page_holds_more_units_than_gc_looks_up_at_once() {
    // GC looks a victim page's units up eight at a time (`controller/gc.rs`, `GC_CHUNK`; the
    // default 16 KiB page of 4 KiB units is one part lookup): a 64 KiB page of 4 KiB units is
    // two. Every copy must still land and nothing acknowledged be lost.
    let scenario = scenario(&[
        "flash.channels=2",
        "flash.dies_per_chip=1",
        "flash.blocks_per_plane=32",
        "flash.pages_per_block=8",
        "flash.page_size=64KiB",
        "workload.read_fraction=0.2",
        "workload.precondition=fill",
        "host.queue_depth=16",
    ]);
    let (report, simulation) = run_times_capacity(scenario, 6, "64 KiB pages");
    if let Err(problem) = simulation.ftl().check_invariants() {
        panic!("{problem}");
    }
    if let Err(problem) = check_no_loss(&simulation, &report, true) {
        panic!("{problem}");
    }
    assert!(
        report.flash.gc_programs > 0 && report.waf > 1.0,
        "GC never ran: WAF {}",
        report.waf
    );
}
