//! GC pacing (`ftl.gc_pacing`, `controller/pacing.rs`; issue 27): after `steady` preconditioning,
//! uniform random writes with greedy GC are at steady state from the first window: WAF the same
//! over 0.5 M, 1 M and 4 M commands, IOPS per 100 ms within ±20% of the mean after the first
//! second, free blocks held in the band while GC copies exactly what host writes consume, and no
//! foreground GC unless a plane is short. Under `threshold` the planes, written evenly, fall
//! below the start level together (the isolating run, `examples/gc_lockstep.rs`).

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::{Report, Scenario};

use super::{run, scenario};

/// Uniform 4 KiB random writes at QD 32 on the small drive after `steady`, greedy GC.
fn writes(extra: &[&str]) -> Scenario {
    let mut settings = vec![
        "ftl.gc_pacing=paced", // the default, stated: `extra` may override it
        "host.queue_depth=32",
        "workload.read_fraction=0.0",
        "workload.precondition=steady",
        "ftl.gc_policy=greedy",
    ];
    settings.extend_from_slice(extra);
    scenario(&settings)
}

fn waf_after(io_count: u64) -> Report {
    let count = format!("workload.io_count={io_count}");
    run(&writes(&[&count]))
}

#[test]
fn paced_gc_waf_is_the_same_over_half_one_and_four_million_writes() {
    let wafs: Vec<f64> = [500_000, 1_000_000, 4_000_000]
        .iter()
        .map(|&count| waf_after(count).waf)
        .collect();
    eprintln!("WAF over 0.5 M, 1 M, 4 M writes: {wafs:?}");
    assert!(
        wafs[0] > 1.5,
        "the run must collect garbage from its start (WAF {})",
        wafs[0]
    );
    let longest = wafs[2];
    for waf in &wafs {
        assert!(
            (waf / longest - 1.0).abs() <= 0.03,
            "WAF {wafs:?}: not within 3% of the 4 M run"
        );
    }
}

#[test]
fn paced_gc_iops_per_100ms_stay_within_20_percent_of_their_mean_after_the_first_second() {
    let scenario = writes(&["workload.io_count=150000", "power.sample_interval=100ms"]);
    let report = run(&scenario);
    let series = &report.timeseries;
    // Whole windows after the first second (the last one may be cut short by the run's end).
    let windows: Vec<f64> = series
        .time_s
        .iter()
        .zip(&series.iops)
        .filter(|(&time, _)| time >= 1.0)
        .map(|(_, &iops)| iops)
        .collect();
    let windows = &windows[..windows.len().saturating_sub(1)];
    assert!(windows.len() >= 20, "{} windows: the run is too short", windows.len());
    let mean = windows.iter().sum::<f64>() / windows.len() as f64;
    let low = windows.iter().copied().fold(f64::MAX, f64::min);
    let high = windows.iter().copied().fold(0.0, f64::max);
    eprintln!(
        "{} windows of 100 ms after 1 s: {:.3} to {:.3} of their mean {mean:.0}",
        windows.len(),
        low / mean,
        high / mean
    );
    for (index, iops) in windows.iter().enumerate() {
        assert!(
            (iops / mean - 1.0).abs() <= 0.20,
            "window {index} after 1 s: {iops:.0} IOPS against a mean of {mean:.0}"
        );
    }
    assert!(report.waf > 1.5, "GC must run throughout (WAF {})", report.waf);
    // Write-bound, host writes keep catching up with the copying they earned: the head of the
    // host queue stops for GC (17,801 times here), never for the frame buffer (1,024 slots).
    assert!(report.queues.gc_write_holds > 1000, "{:?}", report.queues);
    assert_eq!(report.queues.hol_events, 0);
    // `threshold` never holds host writes.
    let threshold = run(&writes(&["ftl.gc_pacing=threshold", "workload.io_count=20000"]));
    assert_eq!(threshold.queues.gc_write_holds, 0);
}

/// Free blocks of every plane sampled every `every` of simulated time over `seconds`, under a
/// closed loop of random writes at QD 32 driven through the live API; also the FTL's counts.
fn free_blocks_over_time(extra: &[&str], seconds: f64, every: Duration) -> (Vec<Vec<usize>>, Scenario, [u64; 3]) {
    let scenario = writes(extra);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    let planes = live.ftl().geometry.planes();
    let span = live.capacity_bytes() / live.unit_bytes();
    let mut rng = Rng::stream(scenario.seed, "gc_pacing_test");
    let next = |rng: &mut Rng| CommandSpec {
        is_read: false,
        trim: false,
        flush: false,
        fua: false,
        first_unit: rng.below(span) as u32,
        units: 1,
        head_gap: 0,
        tail_gap: 0,
        placement: 0,
    };
    for tag in 0..32 {
        let command = next(&mut rng);
        live.submit(Time::ZERO, command, tag);
    }
    let start = live.ftl().counts;
    let end = Time::ZERO + Duration::from_nanos((seconds * 1e9) as u64);
    let mut boundary = Time::ZERO + every;
    let mut samples = Vec::new();
    let mut done: Vec<LiveCompletion> = Vec::new();
    let mut tag = 32;
    while live.now() < end {
        assert!(live.step().unwrap(), "the closed loop stalled");
        live.take_completions(&mut done);
        for completion in done.drain(..) {
            let command = next(&mut rng);
            live.submit(completion.at, command, tag);
            tag += 1;
        }
        while live.now() >= boundary {
            samples.push((0..planes).map(|plane| live.ftl().free_blocks(plane)).collect());
            boundary += every;
        }
    }
    let counts = live.ftl().counts;
    let deltas = [
        counts.user_units - start.user_units,
        counts.gc_units - start.gc_units,
        counts.erases - start.erases,
    ];
    (samples, scenario, deltas)
}

/// Free blocks per plane at the start level (`ftl.gc_threshold`) of `scenario`.
fn start_level(scenario: &Scenario) -> usize {
    ((scenario.ftl.gc_threshold * f64::from(scenario.flash.blocks_per_plane)).ceil() as usize).max(2)
}

#[test]
fn paced_gc_holds_free_blocks_in_the_band_and_reclaims_what_host_writes_consume() {
    let (samples, scenario, [user, gc, erases]) = free_blocks_over_time(&[], 6.0, Duration::from_millis(20));
    let start = start_level(&scenario);
    let stop = start; // `ftl.gc_stop_threshold = 0`: victims below the start level, no band
    assert_eq!(scenario.ftl.gc_stop_threshold, 0.0);
    let low = samples.iter().flatten().min().copied().unwrap();
    let high = samples.iter().flatten().max().copied().unwrap();
    eprintln!(
        "free blocks {low}..={high}, band start {start} stop {stop}; {user} host units, {gc} copies, {erases} erases"
    );
    // Pacing holds a plane within a few blocks below the stop level; the catch-up more than two
    // blocks below it brings it back before the foreground level (below 3 free blocks): no plane
    // is ever short, so foreground GC never runs.
    assert!(
        low >= 3,
        "free blocks fell to {low} (start level {start}, foreground level 3)"
    );
    assert!(
        high < stop,
        "free blocks rose to {high} (stop level {stop}) with the host busy"
    );
    // Closed form: what the erases freed is what host writes and GC copies consumed, up to the
    // blocks each plane holds open or erased early (two per plane and the band's width).
    let units_per_block =
        scenario.flash.pages_per_block as u64 * (scenario.flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes());
    let planes = samples[0].len() as u64;
    let freed = erases * units_per_block;
    let consumed = user + gc;
    let slack = planes * 3 * units_per_block;
    assert!(erases > 4 * planes, "too few victims to judge ({erases})");
    assert!(
        freed.abs_diff(consumed) <= slack,
        "erases freed {freed} units, host writes and copies consumed {consumed} (allowed difference {slack})"
    );
}

#[test]
fn threshold_gc_puts_every_plane_below_the_start_level_within_one_window() {
    // The isolating run of issue 27 on the small drive: the planes written evenly by striping sit
    // at the start level after `steady` and all cross it within the same 20 ms.
    let (samples, scenario, _) = free_blocks_over_time(&["ftl.gc_pacing=threshold"], 2.0, Duration::from_millis(20));
    let start = start_level(&scenario);
    let first_any = samples.iter().position(|free| free.iter().any(|&count| count < start));
    let first_all = samples.iter().position(|free| free.iter().all(|&count| count < start));
    let (Some(any), Some(all)) = (first_any, first_all) else {
        panic!("the planes never fell below the start level together");
    };
    assert!(
        all - any <= 1,
        "first plane below the start level in window {any}, the last in window {all}"
    );
}
