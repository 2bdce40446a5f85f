//! The isolating run of issue 27: per-plane free blocks and IOPS over time under the default
//! scenario's workload (4 KiB random 70/30 at QD 32 after `steady`), driven through the live API
//! so the FTL can be looked at between completions.
//!
//! `cargo run --release -p ssdtwin_core --example gc_lockstep -- [SECONDS] [KEY=VALUE]...`
//! prints, per 50 ms of simulated time: completed IOPS, the least, mean and most free blocks over
//! the planes, how many planes are below the GC start level and below the urgent (under `paced`:
//! foreground) level, and the cumulative erases. Under `ftl.gc_pacing = "threshold"` every plane crosses the start level in the
//! same window (the host's writes are striped evenly), GC then runs on all of them at once and
//! IOPS collapse; under `paced` the free blocks stay in the band and IOPS stay flat.

use std::path::PathBuf;

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::{load, Override, ScenarioSource};

const DEFAULT: &str = include_str!("../../../configs/default.toml");

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(8.0, |arg| arg.parse().expect("SECONDS"));
    let overrides: Vec<Override> = args.map(|arg| Override::parse(&arg).expect("KEY=VALUE")).collect();
    let source = ScenarioSource::Text {
        toml: DEFAULT.to_string(),
        base_dir: PathBuf::from("."),
    };
    let scenario = load(&source, &overrides).expect("scenario");
    let read_fraction = scenario.workload.read_fraction;
    let queue_depth = scenario.host.queue_depth;
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).expect("live session");
    let planes = live.ftl().geometry.planes();
    let blocks = live.ftl().geometry.blocks_per_plane;
    // The GC start level and the foreground level of `paced` (`FtlConfig::paced_levels`);
    // `threshold` has only `gc_urgent_threshold`.
    let levels = scenario.ftl.paced_levels(blocks);
    let start = levels.start;
    let urgent = match scenario.ftl.gc_pacing {
        ssdtwin_core::ftl::params::GcPacingKind::Paced => levels.foreground,
        ssdtwin_core::ftl::params::GcPacingKind::Threshold => {
            (scenario.ftl.gc_urgent_threshold * f64::from(blocks)).ceil() as usize
        }
    };
    let capacity = (live.capacity_bytes() / live.unit_bytes()) as u64;
    let mut rng = Rng::stream(scenario.seed, "gc_lockstep");
    let next = |rng: &mut Rng| CommandSpec {
        is_read: rng.unit() < read_fraction,
        trim: false,
        flush: false,
        fua: false,
        first_unit: rng.below(capacity) as u32,
        units: 1,
        head_gap: 0,
        tail_gap: 0,
        placement: 0,
    };
    for tag in 0..u64::from(queue_depth) {
        let command = next(&mut rng);
        live.submit(Time::ZERO, command, tag);
    }
    let window = Duration::from_millis(50);
    let end = Time::ZERO + Duration::from_nanos((seconds * 1e9) as u64);
    let mut boundary = Time::ZERO + window;
    let mut completed = 0u64;
    let mut tag = u64::from(queue_depth);
    let mut done: Vec<LiveCompletion> = Vec::new();
    println!("time_s kiops free_min free_mean free_max below_start below_foreground erases");
    while live.now() < end {
        live.step().expect("step");
        live.take_completions(&mut done);
        for completion in done.drain(..) {
            let command = next(&mut rng);
            live.submit(completion.at, command, tag);
            tag += 1;
            completed += 1;
        }
        while live.now() >= boundary {
            let ftl = live.ftl();
            let free: Vec<usize> = (0..planes).map(|plane| ftl.free_blocks(plane)).collect();
            let min = free.iter().min().copied().unwrap_or(0);
            let max = free.iter().max().copied().unwrap_or(0);
            let mean = free.iter().sum::<usize>() as f64 / f64::from(planes);
            let below_start = free.iter().filter(|&&count| count < start).count();
            let below_urgent = free.iter().filter(|&&count| count < urgent).count();
            println!(
                "{:.2} {:.1} {min} {mean:.2} {max} {below_start} {below_urgent} {}",
                boundary.as_secs_f64() - window.as_secs_f64(),
                completed as f64 / window.as_secs_f64() / 1e3,
                ftl.counts.erases
            );
            completed = 0;
            boundary += window;
        }
    }
}
