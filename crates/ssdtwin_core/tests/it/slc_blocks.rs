//! The SLC cache's blocks in the FTL (docs/models/slc_cache.md, "Blocks in SLC mode"): the static
//! region shrinks the native pool's spare space, so greedy GC's write amplification rises as the
//! closed forms of the smaller spare space say; GC and static wear leveling never take an SLC
//! block; SLC-mode P/E cycles are counted per block apart from the native ones.

use ssdtwin_core::ftl::blocks::BlockState;
use ssdtwin_core::{Report, Scenario, Simulation};

use crate::theory::{fifo_waf, greedy_waf_lower};
use crate::{dies, scenario, units_per_page};

/// Uniform random 4 KiB writes after steady-state preconditioning, twice the logical capacity,
/// greedy GC, an open-loop host at a moderate rate (GC keeps up: the free blocks of a plane stay
/// at its GC trigger), as in `theory.rs`; with `settings` added.
fn steady_random_writes(settings: &[&str]) -> Scenario {
    // 400 writes/s: below the write capacity even at the cache's higher WAF, so GC keeps up.
    let mut all = vec![
        "flash.channels=1",
        "flash.blocks_per_plane=256",
        "workload.read_fraction=0.0",
        "workload.precondition=steady",
        "workload.steady_overwrites=3.0",
        "host.mode=open",
        "host.arrival_rate=400",
        "host.queue_depth=32",
        "ftl.gc_policy=greedy",
    ];
    all.extend_from_slice(settings);
    let mut scenario = scenario(&all);
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    scenario.workload.io_count = 2 * logical;
    scenario
}

/// Runs `scenario`, checks the FTL's invariants after it (the SLC pool's among them), and
/// returns the report and the simulation.
fn run_checked(scenario: &Scenario) -> (Report, Simulation) {
    let mut simulation = Simulation::new(scenario).expect("valid scenario");
    let report = simulation.run(&mut |_| true).expect("the run completes");
    if let Err(problem) = simulation.ftl().check_invariants() {
        panic!("FTL invariants after the run: {problem}");
    }
    (report, simulation)
}

/// The spare factor `rho = (T − U)/U` of the log the GC models see with `slc_blocks` blocks of
/// each plane in SLC mode (`theory.rs` derives `T`: a plane holds its trigger's G blocks free,
/// less a half, and half of each of its two open blocks unwritten on average).
fn spare_factor(scenario: &Scenario, logical: f64, slc_blocks: f64) -> f64 {
    let flash = &scenario.flash;
    let planes = f64::from(dies(scenario) * flash.planes_per_die);
    let blocks = f64::from(flash.blocks_per_plane);
    let trigger = (scenario.ftl.gc_threshold * blocks).ceil().max(2.0);
    let units_per_block = (units_per_page(scenario) * u64::from(flash.pages_per_block)) as f64;
    let log_units = planes * (blocks - slc_blocks - trigger - 0.5) * units_per_block;
    (log_units - logical) / logical
}

#[test]
fn a_static_slc_region_raises_greedy_waf_as_the_closed_forms_of_the_smaller_spare_space() {
    let off = steady_random_writes(&[]);
    // 32 SLC-mode blocks per plane: 48 / 3 = 16 pages of 16 KiB each hold 256 KiB of host data.
    let planes = u64::from(dies(&off) * off.flash.planes_per_die);
    let static_blocks = 32u64;
    let static_size = format!("slc_cache.static_size=\"{}KiB\"", static_blocks * planes * 256);
    let on = steady_random_writes(&["slc_cache.enabled=true", &static_size]);
    let (without, _) = run_checked(&off);
    let (with, simulation) = run_checked(&on);

    let slc = with.slc_cache.as_ref().expect("an slc_cache block");
    assert_eq!(slc.static_slc_blocks, static_blocks * planes);
    assert_eq!(
        slc.slc_blocks,
        static_blocks * planes,
        "no dynamic share: the static blocks only"
    );
    assert_eq!(slc.slc_blocks_per_plane, static_blocks as f64);
    assert_eq!(
        slc.native_blocks_per_plane,
        f64::from(on.flash.blocks_per_plane) - static_blocks as f64
    );
    assert_eq!((slc.dynamic_borrowed, slc.dynamic_returned), (0, 0));
    // No idle time: the cache fills once and stays full, its blocks out of the native pool.
    assert_eq!(slc.fold_programs, 0);
    let pool = simulation.ftl().slc.as_ref().expect("an SLC pool");
    assert_eq!(pool.blocks(), static_blocks * planes);

    let logical = without.simulator.logical_units as f64;
    let (rho_off, rho_on) = (
        spare_factor(&off, logical, 0.0),
        spare_factor(&on, logical, static_blocks as f64),
    );
    let measured = with.waf / without.waf;
    // Greedy's WAF lies between the two models (`theory.rs`), so its rise lies near both
    // models' rises; it is asserted within 6% of their range.
    let (greedy_rise, fifo_rise) = (
        greedy_waf_lower(rho_on) / greedy_waf_lower(rho_off),
        fifo_waf(1.0 + rho_on) / fifo_waf(1.0 + rho_off),
    );
    let (low, high) = (greedy_rise.min(fifo_rise), greedy_rise.max(fifo_rise));
    println!(
        "WAF {:.4} -> {:.4} (x{measured:.4}); spare factor {rho_off:.4} -> {rho_on:.4}; \
         greedy model x{greedy_rise:.4}, FIFO model x{fifo_rise:.4}",
        without.waf, with.waf
    );
    assert!(
        measured > 0.94 * low && measured < 1.06 * high,
        "WAF rose x{measured}, the models say x{greedy_rise} (greedy) to x{fifo_rise} (FIFO)"
    );
    assert!(
        with.waf >= greedy_waf_lower(rho_on) && with.waf <= fifo_waf(1.0 + rho_on) * 1.02,
        "WAF {} with the cache outside [{}, {}]",
        with.waf,
        greedy_waf_lower(rho_on),
        fifo_waf(1.0 + rho_on)
    );
}

/// Random 4 KiB writes over a filled drive with a static and a dynamic SLC region, an open-loop
/// host slow enough that the cache folds between commands (idle delay 50 us), and static wear
/// leveling with a small spread: GC, folding, SLC erases and wear relocations all run.
fn folding_random_writes() -> Scenario {
    let mut scenario = scenario(&[
        "flash.channels=1",
        "flash.blocks_per_plane=128",
        "workload.read_fraction=0.0",
        "workload.precondition=none",
        "host.mode=open",
        "host.arrival_rate=2000",
        "host.queue_depth=8",
        "ftl.wear_leveling=static",
        "ftl.static_wear_spread=1",
        "slc_cache.enabled=true",
        "slc_cache.static_size=\"512KiB\"",
        "slc_cache.dynamic_share=0.5",
        "slc_cache.idle_delay=\"50us\"",
    ]);
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    scenario.workload.io_count = 3 * logical;
    scenario
}

#[test]
fn gc_and_wear_leveling_never_take_an_slc_block_and_slc_cycles_are_counted_per_slc_block() {
    let scenario = folding_random_writes();
    // `run_checked` checks the pool's invariant: every block it holds is still in SLC mode, so a
    // GC victim or a wear relocation taken from it would fail it.
    let (report, simulation) = run_checked(&scenario);
    let slc = report.slc_cache.as_ref().expect("an slc_cache block");
    println!("{slc:?}");
    let ftl = simulation.ftl();
    let pool = ftl.slc.as_ref().expect("an SLC pool");
    assert!(report.flash.erases > 0 && slc.slc_erases > 0, "GC and folding both ran");
    assert!(report.ftl.wear_relocations > 0, "static wear leveling relocated blocks");
    // Each SLC-mode erase counted once, on its block, apart from the native counts.
    let per_block: u64 = pool.erase_count.iter().map(|&count| u64::from(count)).sum();
    assert_eq!(per_block, slc.slc_erases);
    let native: u64 = ftl.blocks.erase_count.iter().map(|&count| u64::from(count)).sum();
    assert_eq!(native, report.flash.erases, "native erases only in the native counts");
    // The static region stays in SLC mode (which blocks hold it may change: a block emptied by
    // folding while the plane has dynamic ones may go back to the native pool).
    assert!(slc.slc_blocks >= slc.static_slc_blocks);
    let max_slc = *pool.erase_count.iter().max().unwrap();
    assert_eq!(slc.slc_max_pe, max_slc);
    let ever: Vec<u32> = (0..pool.erase_count.len())
        .filter(|&block| pool.ever_slc[block])
        .map(|block| pool.erase_count[block])
        .collect();
    let mean = ever.iter().map(|&count| f64::from(count)).sum::<f64>() / ever.len() as f64;
    assert!((slc.slc_mean_pe - mean).abs() < 1e-12);
    assert!((slc.slc_wear - mean / f64::from(scenario.slc_cache.endurance)).abs() < 1e-12);
    // The native summary covers the blocks in native mode only.
    let native_max = (0..ftl.blocks.state.len())
        .filter(|&block| ftl.blocks.state[block] != BlockState::Slc)
        .map(|block| ftl.blocks.erase_count[block])
        .max()
        .unwrap();
    assert_eq!(slc.native_max_pe, native_max);
    // The dynamic share shrank as the drive filled: blocks were borrowed and given back.
    assert!(slc.dynamic_borrowed > 0 && slc.dynamic_returned > 0, "{slc:?}");
    assert!(slc.slc_blocks_peak >= slc.slc_blocks);
}

#[test]
fn a_full_dynamic_cache_gives_its_blocks_back_as_sequential_writes_fill_the_drive() {
    // Sequential 128 KiB writes of 1.2x the logical capacity of an empty drive, no idle time, the
    // whole free space run in SLC mode at the start: the dynamic blocks must come back to the
    // native pool (folded in the foreground) for the native blocks to hold the logical capacity.
    let mut scenario = scenario(&[
        "flash.blocks_per_plane=128",
        "host.queue_depth=8",
        "workload.read_fraction=0.0",
        "workload.block_size=\"128KiB\"",
        "workload.pattern=\"sequential\"",
        "workload.precondition=\"none\"",
        "slc_cache.enabled=true",
        "slc_cache.dynamic_share=1.0",
    ]);
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    scenario.workload.io_count = logical * 12 / 10 / 32;
    let (report, simulation) = run_checked(&scenario);
    let slc = report.slc_cache.as_ref().expect("an slc_cache block");
    println!("{slc:?}");
    assert!(slc.dynamic_borrowed > 0 && slc.dynamic_returned > 0, "{slc:?}");
    assert!(slc.fold_programs > 0, "folded in the foreground");
    // At the end the native blocks of every plane hold its share of the logical capacity.
    let ftl = simulation.ftl();
    let units_per_block = u64::from(ftl.geometry.units_per_block());
    let planes = u64::from(ftl.geometry.planes());
    let needed = (u64::from(ftl.logical_units()).div_ceil(units_per_block) as f64 / planes as f64).ceil();
    assert!(
        slc.native_blocks_per_plane >= needed,
        "{} native blocks per plane",
        slc.native_blocks_per_plane
    );
}

#[test]
fn a_snapshot_of_a_drive_with_slc_blocks_is_keyed_by_the_cache_that_shaped_them() {
    let off = scenario(&["slc_cache.static_size=\"4MiB\""]);
    assert!(off.drive_keys().keys().all(|key| !key.starts_with("slc_cache.")));
    let on = scenario(&["slc_cache.enabled=true", "slc_cache.static_size=\"4MiB\""]);
    let other = scenario(&["slc_cache.enabled=true", "slc_cache.static_size=\"8MiB\""]);
    let keys = on.drive_keys();
    assert_eq!(keys["slc_cache.enabled"], serde_json::Value::from(true));
    assert_ne!(keys, other.drive_keys(), "another static region is another drive");
}
