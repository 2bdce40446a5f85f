//! Theory checks of the `cho_512gb` timing (Cho et al., section IV-B): an unloaded read takes
//! command overhead + command cycles + tR + page-register transfer + bus transfer + PCIe, plus
//! the 30 us channel delay when the controller's previous grant was on another channel and the
//! way delay when the channel's previous grant was for another chip (section III-B).

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource};

use crate::{pcie_time, relative_error, run};

/// `cho_512gb` shrunk to 64 blocks per chip, 4 KiB random reads of the filled drive at QD 1.
fn cho(settings: &[&str]) -> Scenario {
    let source = ScenarioSource::Text {
        toml: r#"
drive = "cho_512gb"
[host]
queue_depth = 1
[flash]
blocks_per_plane = 64
[workload]
read_fraction = 1.0
block_size = "4KiB"
pattern = "random"
io_count = 4000
precondition = "fill"
"#
        .to_string(),
        base_dir: std::path::PathBuf::from("."),
    };
    let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).expect("override")).collect();
    load(&source, &overrides).expect("cho scenario loads")
}

/// The unloaded read without a channel switch [us].
fn unloaded_read(scenario: &Scenario) -> Duration {
    let flash = &scenario.flash;
    let page = scenario.flash.page_size.bytes();
    scenario.host.command_overhead
        + flash.command_time
        + flash.t_read.for_type(0)
        + flash.page_register_time
        // The page (one mapping unit, one codeword) moves over the channel with its ECC parity.
        + Duration::for_transfer(page + flash.parity_per_codeword.bytes(), flash.bus_rate.per_second())
        + pcie_time(scenario, page)
}

fn reads(report: &Report) -> f64 {
    report.latency_us.read.count as f64
}

#[test]
fn an_unloaded_read_on_cho_pays_the_page_register_and_no_delay_without_delays() {
    // One chip per channel and the channel delay off: nothing is added to a read.
    let scenario = cho(&[
        "flash.channels=16",
        "flash.chips_per_channel=1",
        "flash.channel_switch_time=0us",
    ]);
    assert_eq!(scenario.flash.page_register_time, Duration::from_micros(82));
    let report = run(&scenario);
    let expected = unloaded_read(&scenario).as_micros_f64();
    let read = &report.latency_us.read;
    eprintln!("cho, 1 chip per channel: mean {} us, analytic {expected} us", read.mean);
    assert_eq!(report.ftl.way_switches, 0);
    assert_eq!(
        report.ftl.channel_switches, 0,
        "a channel change that costs nothing is not counted"
    );
    assert!(
        relative_error(read.mean, expected) < 1e-9,
        "mean {} vs {expected}",
        read.mean
    );
    assert!(
        relative_error(read.max, expected) < 0.002,
        "max {} vs {expected}",
        read.max
    );
    // 50 + 82 + 21.6 us (4,320 B at 200 MT/s) of flash time: the page register is a real part of it.
    assert!(expected > 152.0 && expected < 160.0, "{expected}");
}

#[test]
fn an_unloaded_read_on_cho_pays_the_channel_delay_when_the_controller_changes_channel() {
    // 16 channels of one chip: no way ever changes, and a random read finds the controller's
    // previous grant on another channel 15 times in 16; its data out follows on the same channel.
    let scenario = cho(&["flash.channels=16", "flash.chips_per_channel=1"]);
    assert_eq!(scenario.flash.channel_switch_time, Duration::from_micros(30));
    let report = run(&scenario);
    let base = unloaded_read(&scenario).as_micros_f64();
    let read = &report.latency_us.read;
    let changed = report.ftl.channel_switches as f64 / reads(&report);
    eprintln!("cho 16x1: mean {} us, base {base} us, changed on {changed}", read.mean);
    assert_eq!(report.ftl.way_switches, 0);
    assert!(
        (changed - 15.0 / 16.0).abs() < 0.02,
        "changed on {changed} of reads, expected 15/16"
    );
    let expected_mean = base + 30.0 * changed;
    assert!(
        relative_error(read.mean, expected_mean) < 1e-9,
        "mean {} vs {expected_mean}",
        read.mean
    );
    assert!(relative_error(read.max, base + 30.0) < 0.002, "max {}", read.max);
}

#[test]
fn an_unloaded_read_on_cho_pays_the_channel_and_the_way_delay_each_when_its_own_change_happens() {
    // 4 channels x 4 ways with a 10 us way delay beside the 30 us channel delay: a random read
    // finds the controller last on another channel 3 times in 4 and its channel last on another
    // way 3 times in 4, independently; each pays its own delay once, before the command cycles.
    let scenario = cho(&["flash.way_switch_time=10us"]);
    let report = run(&scenario);
    let base = unloaded_read(&scenario).as_micros_f64();
    let read = &report.latency_us.read;
    let changed = report.ftl.channel_switches as f64 / reads(&report);
    let switched = report.ftl.way_switches as f64 / reads(&report);
    eprintln!(
        "cho 4x4: mean {} us, base {base} us, channel changed {changed}, way changed {switched}",
        read.mean
    );
    assert!(
        (changed - 0.75).abs() < 0.03,
        "channel changed on {changed}, expected 3/4"
    );
    assert!(
        (switched - 0.75).abs() < 0.03,
        "way changed on {switched}, expected 3/4"
    );
    let expected_mean = base + 30.0 * changed + 10.0 * switched;
    assert!(
        relative_error(read.mean, expected_mean) < 1e-9,
        "mean {} vs {expected_mean}",
        read.mean
    );
    assert!(relative_error(read.max, base + 40.0) < 0.002, "max {}", read.max);
}

#[test]
fn saturated_writes_on_cho_program_at_the_rate_the_page_register_allows() {
    // 16 channels x 1 chip (no way changes) with the channel delay off, an empty drive (no GC),
    // 4 KiB writes at a queue depth that keeps every die busy: each die programs one page per
    // command cycles + data in + page-register transfer + tPROG.
    let mut scenario = cho(&[
        "flash.channels=16",
        "flash.chips_per_channel=1",
        "flash.channel_switch_time=0us",
        "workload.read_fraction=0.0",
        "workload.precondition=none",
        "workload.io_count=40000",
        "host.queue_depth=64",
    ]);
    scenario.controller.frame_buffer = 64;
    let report = run(&scenario);
    let flash = &scenario.flash;
    let page = flash.page_size.bytes();
    let per_page = flash.command_time
        + Duration::for_transfer(page, flash.bus_rate.per_second())
        + flash.page_register_time
        + flash.t_program.for_type(0);
    let bound = 16.0 / per_page.as_secs_f64();
    let without_register = 16.0 / (per_page.as_secs_f64() - flash.page_register_time.as_secs_f64());
    eprintln!(
        "cho saturated writes: {} IOPS, bound {bound:.0}, {without_register:.0} without the page register",
        report.iops
    );
    assert_eq!(report.flash.gc_programs, 0, "no GC on an empty drive");
    assert!(
        report.iops <= bound * 1.01 && report.iops >= bound * 0.98,
        "{} IOPS vs the program bound {bound}",
        report.iops
    );
}
