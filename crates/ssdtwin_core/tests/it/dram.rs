//! The DRAM side (docs/models/dram_buffer_plp.md): the write buffer, the cached mapping table, the
//! protected dirty translation pages, flush orders and power-loss injection, on the small drive of
//! [`crate::BASE`] (17 translation pages of 4096 entries; flush batches of 4 dies x 8 units).

use ssdtwin_core::{Report, Simulation};

use crate::{run, scenario};

/// Sequential or random 4 KiB writes on an empty drive at QD 16, with `settings`.
fn writes(pattern: &str, io_count: u64, settings: &[&str]) -> Report {
    let mut all = vec![
        "workload.read_fraction=0.0",
        "workload.precondition=none",
        "host.queue_depth=16",
    ];
    let pattern = format!("workload.pattern={pattern}");
    let io_count = format!("workload.io_count={io_count}");
    all.push(&pattern);
    all.push(&io_count);
    all.extend_from_slice(settings);
    run(&scenario(&all))
}

#[test]
fn everything_is_off_by_default() {
    let report = writes("random", 2000, &[]);
    assert!(report.buffer.is_none() && report.mapping_cache.is_none());
    assert!(report.plp.is_none() && report.power_loss.is_none());
    assert_eq!((report.flash.mapping_reads, report.flash.mapping_programs), (0, 0));
}

#[test]
fn write_back_acknowledges_in_dram_and_write_through_after_the_program() {
    let back = writes("random", 4000, &["buffer.capacity=4MiB"]);
    let through = writes("random", 4000, &["buffer.capacity=4MiB", "buffer.write_through=true"]);
    for report in [&back, &through] {
        assert_eq!(report.host_ios, 4000, "every write is acknowledged once");
    }
    let min_program_us = 1000.0;
    assert!(
        through.latency_us.write.p50 >= min_program_us,
        "{}",
        through.latency_us.write.p50
    );
    // Write-back: a write waits only when the buffer is full; 600 writes never fill 1024 units.
    let light = writes("random", 600, &["buffer.capacity=4MiB", "host.queue_depth=1"]);
    assert!(light.latency_us.write.p99 < 30.0, "{}", light.latency_us.write.p99);
    assert!(back.latency_us.write.p50 < 0.2 * through.latency_us.write.p50);
    let buffer = back.buffer.as_ref().unwrap();
    assert_eq!(buffer.capacity_units, 1024);
    // Flushing starts at half full: the buffer never drains below a batch short of that.
    assert!(buffer.peak_units >= 512 && buffer.peak_units <= 1024);
    assert_eq!(buffer.writes, 4000);
    assert_eq!(
        buffer.flushed_units + u64::from(buffer.held_units) - in_flight(&back),
        buffer.writes - buffer.coalesced
    );
}

/// Units in programs not yet done at the end (they are both flushed and held).
fn in_flight(report: &Report) -> u64 {
    let buffer = report.buffer.as_ref().unwrap();
    buffer.flushed_units + u64::from(buffer.held_units) - (buffer.writes - buffer.coalesced)
}

#[test]
fn overwrites_coalesce_and_reads_of_buffered_data_hit() {
    // A span of 512 units, smaller than the 1024-unit buffer: most overwrites find their unit
    // still waiting, most reads find it buffered.
    let report = run(&scenario(&[
        "workload.read_fraction=0.5",
        "workload.precondition=none",
        "workload.span=0.0075",
        "workload.io_count=6000",
        "host.queue_depth=8",
        "buffer.capacity=4MiB",
    ]));
    let buffer = report.buffer.as_ref().unwrap();
    assert!(buffer.coalesced > buffer.writes / 2, "{buffer:?}");
    assert!(buffer.hit_ratio > 0.5, "{buffer:?}");
    // Coalesced writes never reach flash.
    let programmed_units = report.flash.programs * 4;
    assert!(
        programmed_units < buffer.writes - buffer.coalesced + 64,
        "{programmed_units}"
    );
}

#[test]
fn buffered_drive_keeps_its_ftl_invariants_under_churn() {
    for order in ["fifo", "lidf"] {
        let order = format!("buffer.flush_order={order}");
        let scenario = scenario(&[
            "workload.read_fraction=0.3",
            "workload.precondition=fill",
            "workload.io_count=60000",
            "host.queue_depth=32",
            "flash.blocks_per_plane=32",
            "buffer.capacity=2MiB",
            "ftl.mapping_cache=cached",
            "ftl.mapping_cache_size=64KiB",
            "plp.enabled=true",
            "plp.protected_ratio=0.1",
            &order,
        ]);
        let mut simulation = Simulation::new(&scenario).unwrap();
        let report = simulation.run(&mut |_| true).unwrap();
        assert_eq!(report.host_ios, 60000);
        simulation
            .ftl()
            .check_invariants()
            .unwrap_or_else(|error| panic!("{order}: {error}"));
        assert!(report.waf > 1.0, "GC ran");
    }
}

#[test]
fn cached_mapping_misses_cost_a_translation_page_read_each() {
    let settings = |cache: &'static str| {
        vec![
            "workload.io_count=3000",
            "ftl.mapping_cache=cached",
            // Random reads over 17 translation pages with 1 or all cached.
            cache,
        ]
    };
    let small = run(&scenario(&settings("ftl.mapping_cache_size=16KiB")));
    let large = run(&scenario(&settings("ftl.mapping_cache_size=1MiB")));
    let full = run(&scenario(&[]));
    let cache = small.mapping_cache.as_ref().unwrap();
    assert_eq!(cache.cached_pages, 1);
    // One read per miss at QD 1 (no other read waits for the same page).
    assert_eq!(small.flash.mapping_reads, cache.misses);
    assert!(cache.hit_ratio < 0.15, "{cache:?}");
    // Each miss adds a translation-page read (sense + page out) before the data read.
    let added = small.latency_us.read.mean - full.latency_us.read.mean;
    let page_read = 50.0 + 0.3 + crate::channel_data_time(&scenario(&[]), 4).as_micros_f64();
    let expected = (1.0 - cache.hit_ratio) * page_read;
    assert!(
        added > 0.9 * expected && added < 1.1 * expected,
        "{added} vs {expected}"
    );
    // All cached: 17 compulsory misses only.
    assert_eq!(large.flash.mapping_reads, 17);
    assert_eq!(large.mapping_cache.as_ref().unwrap().translation_pages, 17);
}

#[test]
fn dirty_translation_pages_stay_within_the_protected_count() {
    for (ratio, protected) in [("0.05", 1u32), ("0.25", 5)] {
        let ratio = format!("plp.protected_ratio={ratio}");
        let report = writes("random", 6000, &["plp.enabled=true", &ratio]);
        let cache = report.mapping_cache.as_ref().unwrap();
        assert_eq!(cache.protected_pages, protected);
        // Checked as each program completes: its 8 units may dirty 8 pages before the write-back.
        assert!(cache.max_dirty_pages <= protected + 8, "{cache:?}");
        assert!(cache.dirty_pages <= protected);
        // Write-backs still queued at the end of the run have not started; host writes wait
        // while more than one per die is behind.
        assert!(report.flash.mapping_programs <= cache.limit_writebacks);
        assert!(cache.limit_writebacks - report.flash.mapping_programs <= 5, "{cache:?}");
        assert!(report.flash.mapping_programs > 0);
    }
    // All protected: nothing to track, nothing written back.
    let report = writes("random", 6000, &["plp.enabled=true", "plp.protected_ratio=1.0"]);
    assert!(report.mapping_cache.is_none());
    assert_eq!(report.flash.mapping_programs, 0);
}

#[test]
fn lidf_writes_fewer_translation_pages_than_fifo() {
    let run_order = |order: &str| {
        let order = format!("buffer.flush_order={order}");
        writes(
            "random",
            12000,
            &[
                "buffer.capacity=8MiB",
                "plp.enabled=true",
                "plp.protected_ratio=0.06",
                &order,
            ],
        )
    };
    let (fifo, lidf) = (run_order("fifo"), run_order("lidf"));
    assert!(
        2 * lidf.flash.mapping_programs < fifo.flash.mapping_programs,
        "lidf {} fifo {}",
        lidf.flash.mapping_programs,
        fifo.flash.mapping_programs
    );
    assert!(lidf.iops > fifo.iops);
}

#[test]
fn fully_protected_lidf_leaves_no_group_behind_and_coalesces_like_fifo() {
    // A skewed mix (JESD219 access skew) with every translation page protected: nothing is ever
    // written back, so LIDF has nothing to win and must not lose the buffer to groups of pages
    // that were clean when their writes arrived (a write is flushed within two rounds).
    let run_order = |order: &str| {
        let order = format!("buffer.flush_order={order}");
        writes(
            "random",
            20000,
            &[
                "workload.distribution=jesd219",
                "buffer.capacity=4MiB",
                "plp.enabled=true",
                "plp.protected_ratio=1.0",
                &order,
            ],
        )
    };
    let (fifo, lidf) = (run_order("fifo"), run_order("lidf"));
    let (fifo_buffer, lidf_buffer) = (fifo.buffer.as_ref().unwrap(), lidf.buffer.as_ref().unwrap());
    assert!(fifo_buffer.coalesced > 0);
    assert!(
        lidf_buffer.coalesced as f64 >= 0.95 * fifo_buffer.coalesced as f64,
        "lidf {} fifo {}",
        lidf_buffer.coalesced,
        fifo_buffer.coalesced
    );
    assert!(lidf.flash.programs as f64 <= 1.01 * fifo.flash.programs as f64);
    assert!(lidf.iops >= 0.99 * fifo.iops, "lidf {} fifo {}", lidf.iops, fifo.iops);
}

#[test]
fn per_mapping_unit_state_stays_within_12_bytes() {
    let report = writes(
        "random",
        2000,
        &[
            "buffer.capacity=4MiB",
            "ftl.mapping_cache=cached",
            "buffer.flush_order=lidf",
            "plp.enabled=true",
        ],
    );
    let bytes = report.simulator.state_bytes_per_mapping_unit;
    assert!(bytes <= 12.0, "{bytes}");
}

#[test]
fn mapping_reads_and_programs_take_die_time() {
    // The same writes, the translation pages written back or not: the write-backs occupy dies.
    let free = writes("random", 6000, &["plp.enabled=true", "plp.protected_ratio=1.0"]);
    let limited = writes("random", 6000, &["plp.enabled=true", "plp.protected_ratio=0.05"]);
    assert!(limited.queues.die_utilization > free.queues.die_utilization);
    assert!(limited.iops < 0.8 * free.iops, "{} vs {}", limited.iops, free.iops);
    assert!(limited.energy_j.nand > free.energy_j.nand);
}

#[test]
fn dram_traffic_of_the_mapping_cache_feeds_dram_energy() {
    let plain = writes("random", 4000, &[]);
    let cached = writes(
        "random",
        4000,
        &["ftl.mapping_cache=cached", "ftl.mapping_cache_size=16KiB"],
    );
    // DRAM energy above its background: the bytes moved. The same host writes and user programs
    // move the same bytes; the translation pages read and programmed (16 KiB each) add theirs.
    let power = &plain.config.power;
    let dynamic = |report: &Report| report.energy_j.dram - power.dram_background_w * super::drained_end_s(report);
    let pages = cached.flash.mapping_reads + cached.flash.mapping_programs;
    assert!(pages > 1000);
    let expected = pages as f64 * 16.0 * power.dram_nj_per_kib * 1e-9;
    let added = dynamic(&cached) - dynamic(&plain);
    // Within 5%: the two runs end in slightly different states (dirty translation pages).
    assert!((added / expected - 1.0).abs() < 0.05, "{added} vs {expected}");
}

/// Sequential writes into a 4 MiB buffer, a power cut at 30 ms, with `capacitance` [uF].
fn cut(order: &str, capacitance: &str) -> Report {
    let order = format!("buffer.flush_order={order}");
    let capacitance = format!("plp.capacitance={capacitance}");
    writes(
        "sequential",
        20000,
        &[
            "buffer.capacity=4MiB",
            "plp.enabled=true",
            "plp.protected_ratio=0.5",
            "power_loss.at=[\"30ms\"]",
            &order,
            &capacitance,
        ],
    )
}

#[test]
fn within_the_energy_budget_nothing_acknowledged_is_lost() {
    for order in ["fifo", "lidf"] {
        let report = cut(order, "2000");
        let event = &report.power_loss.as_ref().unwrap().events[0];
        assert!(event.unflushed_writes > 100, "{event:?}");
        assert_eq!(event.lost_writes, 0, "{order}");
        assert_eq!(event.lost_mapping_pages, 0, "{order}");
        assert!(event.energy_left_j >= 0.0);
        let plp = report.plp.as_ref().unwrap();
        assert!((event.energy_used_j + event.energy_left_j - plp.usable_energy_j).abs() < 1e-12);
        // Flush time: detection, then the pages 8 at a time (4 dies x 2 planes).
        assert!(event.flush_time_s > 0.001);
        assert_eq!(report.host_ios, 20000, "{order}: the run continues after the restart");
        assert!(report.simulated_time_s > event.resumed_at_s);
    }
}

#[test]
fn beyond_the_energy_budget_exactly_the_excess_is_lost_in_flush_order() {
    for order in ["fifo", "lidf"] {
        let report = cut(order, "80");
        let plp = report.plp.as_ref().unwrap();
        let event = &report.power_loss.as_ref().unwrap().events[0];
        let saved = plp.protected_pages * 4;
        assert!(event.unflushed_writes > saved + 100, "{event:?}");
        assert_eq!(event.lost_writes, event.unflushed_writes - saved, "{order}");
        assert_eq!(event.lost_lbas.len() as u64, event.lost_writes);
        assert_eq!(
            event.lost_mapping_pages, event.dirty_mapping_pages,
            "user data goes first"
        );
        assert_eq!(event.flushed_pages, plp.protected_pages);
        assert!(event.energy_left_j >= 0.0 && event.energy_left_j < plp.usable_energy_j);
        if order == "fifo" {
            // Sequential writes in arrival order: the lost ones are the latest, consecutive.
            assert!(event.lost_lbas.windows(2).all(|pair| pair[1] == pair[0] + 1), "{order}");
        }
        assert_eq!(report.host_ios, 20000);
    }
}

#[test]
fn dram_configuration_errors_name_their_key() {
    let error = |settings: &[&str]| {
        let overrides: Vec<_> = settings
            .iter()
            .map(|s| ssdtwin_core::Override::parse(s).unwrap())
            .collect();
        ssdtwin_core::load(&ssdtwin_core::ScenarioSource::Default, &overrides).unwrap_err()
    };
    assert_eq!(error(&["buffer.capacity=8GiB"]).key, "buffer.capacity");
    assert_eq!(error(&["plp.capacitance=-5"]).key, "plp.capacitance");
    assert_eq!(error(&["plp.dropout_voltage=35"]).key, "plp.dropout_voltage");
    for ratio in ["0", "1.5", "-0.1"] {
        let setting = format!("plp.protected_ratio={ratio}");
        assert_eq!(error(&[&setting]).key, "plp.protected_ratio");
    }
    assert_eq!(error(&["ftl.mapping_cache=partial"]).key, "ftl.mapping_cache");
    assert_eq!(error(&["buffer.flush_order=lifo"]).key, "buffer.flush_order");
}

#[test]
fn a_power_cut_loses_nothing_acknowledged_under_write_through() {
    let report = writes(
        "random",
        3000,
        &[
            "buffer.capacity=4MiB",
            "buffer.write_through=true",
            "plp.capacitance=1",
            "power_loss.at=[\"20ms\"]",
        ],
    );
    let event = &report.power_loss.as_ref().unwrap().events[0];
    assert_eq!((event.unflushed_writes, event.lost_writes), (0, 0));
    assert_eq!(report.host_ios, 3000, "the waiting writes complete after the restart");
}
