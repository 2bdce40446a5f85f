//! The DRAM read cache and read-ahead (issue 32, part 3; docs/models/dram_buffer_plp.md, "Read
//! cache"): cached units are read without flash, a write drops its unit, read-ahead lifts a
//! sequential stream at queue depth 1 and leaves random reads alone, and the cache is absent from
//! the report when off.

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::LiveSimulation;

use crate::{run, scenario};

#[test]
fn a_cached_unit_is_read_without_flash_until_a_write_drops_it() {
    let scenario = scenario(&["buffer.read_cache=\"1MiB\"", "workload.precondition=fill"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).expect("valid scenario");
    let gap = Duration::from_micros(10_000);
    let mut at = Time::ZERO;
    let mut tag = 0;
    // Read units 0-15 twice, write them, read them again; each command alone on the drive.
    for (is_read, passes) in [(true, 2), (false, 1), (true, 1)] {
        for _ in 0..passes {
            for unit in 0..16 {
                at += gap;
                tag += 1;
                live.submit(at, CommandSpec::io(is_read, false, unit, 1), tag);
            }
        }
    }
    while live.step().expect("runs") {}
    let report = live.finish();
    let cache = report.read_cache.expect("the cache is on");
    eprintln!("{cache:?}; flash reads {}", report.flash.reads);
    assert_eq!(cache.lookups, 48);
    assert_eq!(cache.hits, 16, "the second pass hits");
    assert_eq!(report.flash.reads, 32, "the first pass and the pass after the writes");
    assert_eq!(cache.prefetched, 0, "no read-ahead without buffer.read_ahead");
}

/// Bandwidth [MiB/s] of 4 KiB reads of a filled drive, `pattern` at `queue_depth`, with the
/// given cache settings; also the report.
fn reads(pattern: &str, queue_depth: u32, cache: &[&str]) -> ssdtwin_core::Report {
    let pattern = format!("workload.pattern={pattern}");
    let depth = format!("host.queue_depth={queue_depth}");
    // Short die queues: at QD32 reads wait to be admitted, and a retried admission is no new lookup.
    let mut settings = vec![
        pattern.as_str(),
        depth.as_str(),
        "workload.io_count=6000",
        "controller.die_queue_depth=4",
    ];
    settings.extend_from_slice(cache);
    run(&scenario(&settings))
}

const CACHE: [&str; 2] = ["buffer.read_cache=\"4MiB\"", "buffer.read_ahead=\"128KiB\""];

#[test]
fn read_ahead_lifts_sequential_reads_at_queue_depth_1() {
    let plain = reads("sequential", 1, &[]);
    let ahead = reads("sequential", 1, &CACHE);
    let cache = ahead.read_cache.clone().expect("on");
    eprintln!(
        "sequential QD1: {:.1} MiB/s without, {:.1} with read-ahead; {cache:?}",
        plain.bandwidth_mib_s, ahead.bandwidth_mib_s
    );
    assert!(plain.read_cache.is_none(), "off by default: no cache in the report");
    assert!(
        ahead.bandwidth_mib_s > 2.0 * plain.bandwidth_mib_s,
        "read-ahead: {} vs {} MiB/s",
        ahead.bandwidth_mib_s,
        plain.bandwidth_mib_s
    );
    assert!(cache.hit_ratio > 0.9, "{cache:?}");
    assert!(cache.prefetch_hits > 0 && cache.prefetch_hits <= cache.prefetched);
    assert!(
        cache.prefetched_unused <= 32,
        "at most the last window unread: {cache:?}"
    );
}

#[test]
fn read_ahead_leaves_random_reads_alone_at_queue_depth_1_and_32() {
    for queue_depth in [1, 32] {
        let plain = reads("random", queue_depth, &[]);
        let ahead = reads("random", queue_depth, &CACHE);
        let cache = ahead.read_cache.clone().expect("on");
        let change = ahead.iops / plain.iops - 1.0;
        eprintln!(
            "random QD{queue_depth}: {:.0} IOPS without, {:.0} with ({:+.2}%); {cache:?}",
            plain.iops,
            ahead.iops,
            100.0 * change
        );
        assert!(change.abs() < 0.03, "QD{queue_depth}: {change}");
        assert_eq!(
            cache.lookups, 6000,
            "one lookup per unit read, retried admissions aside"
        );
        assert_eq!(cache.hits + cache.misses, cache.lookups);
        assert!(
            cache.prefetched < 60,
            "random reads rarely continue a stream: {cache:?}"
        );
    }
}
