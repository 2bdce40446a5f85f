//! The host interface: submission throttling, open-loop arrivals, queue depth, and Head-of-Line
//! blocking at the controller's frame buffer.

use ssdtwin_core::{Scenario, Simulation};

use crate::{
    channel_data_time, dies, page_types, relative_error, run, scenario, units_per_page, unloaded_read_mean_us,
    unloaded_read_us,
};

/// 4 KiB random reads of the filled base drive (2 channels x 2 dies).
fn random_reads(extra: &[&str]) -> Scenario {
    let mut settings = vec![
        "workload.read_fraction=1.0",
        "workload.precondition=fill",
        "workload.io_count=4000",
    ];
    settings.extend_from_slice(extra);
    scenario(&settings)
}

#[test]
fn submission_interval_caps_iops() {
    let interval = "host.submission_interval=100us";
    let scenario = random_reads(&["host.queue_depth=8", interval]);
    let report = run(&scenario);
    let unthrottled = run(&random_reads(&["host.queue_depth=8"]));

    // N commands submitted at least `interval` apart, the first at time 0: the last completes no
    // earlier than (N - 1) intervals plus the fastest possible read.
    let gap = scenario.host.submission_interval.as_secs_f64();
    let commands = report.host_ios as f64;
    let ceiling = commands / ((commands - 1.0) * gap + unloaded_read_us(&scenario, 0) * 1e-6);
    eprintln!(
        "submission interval 100 us, QD 8: {:.1} IOPS (1/interval {:.1}, exact ceiling {ceiling:.1}); without it {:.0} IOPS",
        report.iops,
        1.0 / gap,
        unthrottled.iops
    );
    assert!(
        unthrottled.iops > 2.0 / gap,
        "the drive alone is much faster than the throttle"
    );
    assert!(
        report.iops <= ceiling,
        "{} IOPS above the ceiling {ceiling}",
        report.iops
    );
    // The slowest read lasts less than QD intervals, so the queue never fills: the throttle alone
    // sets the pace and IOPS comes close to 1/interval.
    assert!(unloaded_read_us(&scenario, 2) * 1e-6 < f64::from(scenario.host.queue_depth) * gap);
    assert!(
        relative_error(report.iops, 1.0 / gap) < 0.01,
        "{} IOPS vs {}",
        report.iops,
        1.0 / gap
    );
}

#[test]
fn open_loop_arrivals_set_the_iops_and_keep_latency_near_unloaded() {
    // 16 dies on 4 channels: at 20,000 reads/s each die is busy about a tenth of the time.
    let scenario = random_reads(&[
        "flash.channels=4",
        "flash.dies_per_chip=4",
        "flash.blocks_per_plane=32",
        "host.mode=open",
        "host.arrival_rate=20000",
        "host.queue_depth=64",
        "workload.io_count=10000",
    ]);
    let report = run(&scenario);
    let rate = scenario.host.arrival_rate;
    let unloaded = unloaded_read_mean_us(&scenario);

    // Queueing at the dies, M/G/1 with Poisson arrivals (random die choice thins the evenly spaced
    // arrivals nearly into a Poisson stream): wait = lambda E[S^2] / (2 (1 - rho)), with service S
    // = command cycles + tR of the page type + data out, each page type equally likely.
    let flash = &scenario.flash;
    let fixed = (flash.command_time + channel_data_time(&scenario, 1)).as_secs_f64();
    let service = |page_type: usize| fixed + flash.t_read.for_type(page_type).as_secs_f64();
    let types = page_types(&scenario);
    let mean_service = (0..types).map(service).sum::<f64>() / types as f64;
    let second_moment = (0..types).map(|page_type| service(page_type).powi(2)).sum::<f64>() / types as f64;
    let per_die_rate = rate / f64::from(dies(&scenario));
    let utilisation = per_die_rate * mean_service;
    let wait_us = per_die_rate * second_moment / (2.0 * (1.0 - utilisation)) * 1e6;
    eprintln!(
        "open loop at {rate} /s: {:.1} IOPS; read mean {:.2} us, unloaded {unloaded:.2} us, + M/G/1 wait {wait_us:.2} us (die utilisation {utilisation:.3})",
        report.iops, report.latency_us.read.mean
    );
    assert!(
        relative_error(report.iops, rate) < 0.02,
        "{} IOPS vs arrival rate {rate}",
        report.iops
    );
    let mean = report.latency_us.read.mean;
    assert!(
        mean >= unloaded * 0.99,
        "read mean {mean} us below the unloaded {unloaded} us"
    );
    assert!(
        mean <= unloaded + 2.0 * wait_us,
        "read mean {mean} us far above unloaded {unloaded} + wait {wait_us} us"
    );
}

#[test]
fn iops_rises_with_queue_depth() {
    let depths = [1, 4, 32];
    let iops: Vec<f64> = depths
        .iter()
        .map(|depth| run(&random_reads(&[&format!("host.queue_depth={depth}")])).iops)
        .collect();
    let probe = random_reads(&[]);
    eprintln!(
        "random reads, IOPS at QD {depths:?}: {iops:.0?} ({} dies)",
        dies(&probe)
    );
    for pair in iops.windows(2) {
        assert!(pair[1] > pair[0], "IOPS does not rise with queue depth: {iops:?}");
    }
    // At QD 1 one read is in flight at a time (Little's law: IOPS = 1 / mean latency); at QD 32
    // all four dies are busy nearly always.
    let one_at_a_time = 1e6 / unloaded_read_mean_us(&probe);
    assert!(
        relative_error(iops[0], one_at_a_time) < 0.02,
        "QD 1: {} IOPS vs {one_at_a_time}",
        iops[0]
    );
    assert!(iops[2] > 2.0 * iops[0], "QD 32 {} vs QD 1 {}", iops[2], iops[0]);
}

#[test]
fn a_small_frame_buffer_blocks_the_head_of_the_queue() {
    // 70/30 random mix at QD 32. The smallest legal frame buffer holds the units of one program
    // (a page in each plane of a die when programming multi-plane); one less is refused.
    let base = scenario(&[]);
    let planes = if base.flash.multi_plane {
        base.flash.planes_per_die
    } else {
        1
    };
    let smallest = units_per_page(&base) * u64::from(planes);
    let mut too_small = base.clone();
    too_small.controller.frame_buffer = smallest as u32 - 1;
    let error = Simulation::new(&too_small).expect_err("a frame buffer smaller than a program is refused");
    assert_eq!(error.key, "controller.frame_buffer");
    let mix = |frame_buffer: u64| {
        let frame_buffer = format!("controller.frame_buffer={frame_buffer}");
        run(&scenario(&[
            "workload.read_fraction=0.7",
            "workload.precondition=fill",
            "workload.io_count=6000",
            "host.queue_depth=32",
            &frame_buffer,
        ]))
    };
    let small = mix(smallest);
    let large = mix(1024);
    eprintln!(
        "frame buffer {smallest}: {} HoL events, mean latency {:.1} us; frame buffer 1024: {} HoL events, mean latency {:.1} us",
        small.queues.hol_events, small.latency_us.all.mean, large.queues.hol_events, large.latency_us.all.mean
    );
    assert!(small.queues.hol_events > large.queues.hol_events);
    assert!(small.latency_us.all.mean > large.latency_us.all.mean);
    assert!(small.iops < large.iops);
}
