//! Saturation bounds of the ONFI channel and die timing, checked over a table of drives.
//!
//! The model (the issue "channel and die timing as ONFI does it"): a read puts its command and
//! address cycles on the channel, senses (t_R) on the die with the channel free, moves the page
//! register to the die's output (`page_register_time`, die busy, channel free) and sends its data
//! out when the channel is granted; the die takes its next command as soon as its data is out. A
//! program puts command cycles and data in on the channel, then moves the data into the page
//! register and programs (t_PROG) with the channel free. So, per operation:
//!
//! * die time = command + data transfer + page register + array time (t_R or t_PROG),
//! * channel time = command + data transfer,
//! * PCIe time = payload / link rate,
//!
//! and a drive saturated with random 4 KiB I/O reaches
//! `min(channels × N × units/die time, channels × units/channel time, PCIe rate / 4 KiB)` IOPS,
//! N = chips per channel × dies per chip, units = mapping units moved by one flash operation (1
//! for a 4 KiB read, `page_size / mapping_unit × planes_per_die` for a multi-plane program). The
//! tests require at least [`REACH`] of that bound and never more than [`CEILING`] of it (the
//! simulator must not beat physics).
//!
//! The drives are the `enterprise_tlc` preset (one t_R and one t_PROG for every page type, no
//! channel-switch time, no page-register time) shrunk to a few blocks, with channels ∈ {1, 8} and
//! N ∈ {1, 2, 4, 8} built as 1 × 1, 2 × 1, 1 × 4 and 2 × 4 chips × dies per chip, so the
//! channel-switch path runs (at zero cost) whenever a channel has two chips. The host queue is deep (32
//! commands per die, at least 64). Writes keep the preset's controller queues (`frame_buffer`
//! 1024, `die_queue_depth` 8). Reads get die queues as deep as the host queue: with the preset's
//! 8, the controller's in-order admission (the self-heating paper's Head-of-Line model) holds the
//! host queue whenever the head command's die is full and other dies run dry, which costs 5-30%
//! of the bound on these drives; that loss is the admission model's, not the timing's, and
//! `default_die_queues_lose_only_to_head_of_line_blocking` checks it separately. A few corners follow the main table: channel and die
//! within a few percent of each other ("both loaded"), a channel-bound and a PCIe-bound drive.
//!
//! Every bound is computed from the resolved scenario; the formulas of the simulator's transfer
//! times (`Timing::read_transfer`, `Timing::program_transfer`, `pcie_bytes_per_second`) are
//! reproduced here rather than called, so the tests depend only on `load`, `run` and the report.

use super::bounds::{bounds, check_table, main_table, run, saturated, Drive, Kind, Limit, CEILING, REACH};

#[test]
fn saturated_random_reads_reach_min_of_die_channel_and_pcie_bounds() {
    let mut drives = main_table();
    drives.extend([
        // tR 80 us against 10.8 us of data out: at 170 MT/s one channel carries about as many
        // reads as its 4 dies sense.
        Drive {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 4,
            corner: "both loaded: bus 170 MT/s",
            settings: &["flash.bus_rate=170MT/s"],
            expect: Some(Limit::Both),
        },
        Drive {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 2,
            corner: "both loaded: bus 170 MT/s",
            settings: &["flash.bus_rate=170MT/s"],
            expect: Some(Limit::Both),
        },
        Drive {
            channels: 1,
            chips_per_channel: 2,
            dies_per_chip: 4,
            corner: "channel-bound: tR 20 us",
            settings: &["flash.t_read=20us"],
            expect: Some(Limit::Channel),
        },
        Drive {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 4,
            corner: "PCIe-bound: gen2 x2",
            settings: &["host.pcie_generation=2", "host.pcie_lanes=2"],
            expect: Some(Limit::Pcie),
        },
    ]);
    let failures = check_table(Kind::Read, &drives);
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn saturated_random_writes_reach_min_of_die_channel_and_pcie_bounds() {
    let mut drives = main_table();
    drives.extend([
        // 8 dies programming 2 ms each against data in of 2 x 16 KiB with parity: at 120 MT/s
        // the channel is about as busy as the dies.
        Drive {
            channels: 1,
            chips_per_channel: 2,
            dies_per_chip: 4,
            corner: "both loaded: bus 120 MT/s",
            settings: &["flash.bus_rate=120MT/s"],
            expect: Some(Limit::Both),
        },
        Drive {
            channels: 1,
            chips_per_channel: 2,
            dies_per_chip: 4,
            corner: "channel-bound: bus 60 MT/s",
            settings: &["flash.bus_rate=60MT/s"],
            expect: Some(Limit::Channel),
        },
        Drive {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 4,
            corner: "PCIe-bound: gen1 x1",
            settings: &["host.pcie_generation=1", "host.pcie_lanes=1"],
            expect: Some(Limit::Pcie),
        },
    ]);
    let failures = check_table(Kind::Write, &drives);
    assert!(failures.is_empty(), "{failures}");
}

/// With the preset's die queues (8), reads stay under the bound and lose to Head-of-Line blocking
/// only: the same drive with deep die queues reaches the bound, and the shortfall comes with HoL
/// events and idle dies.
#[test]
fn default_die_queues_lose_only_to_head_of_line_blocking() {
    for drive in main_table().into_iter().filter(|drive| drive.dies() >= 4) {
        let deep = saturated(Kind::Read, &drive);
        let mut preset = deep.clone();
        preset.controller.die_queue_depth = 8;
        let bound = bounds(&deep, Kind::Read).min();
        let (deep, preset) = (run(&deep), run(&preset));
        let name = format!("{} x {}", drive.channels, drive.dies_per_channel());
        assert!(
            deep.iops >= REACH * bound,
            "{name}: deep queues {} < {REACH} x {bound}",
            deep.iops
        );
        assert!(
            preset.iops <= CEILING * bound,
            "{name}: {} beats the bound {bound}",
            preset.iops
        );
        assert!(preset.iops < deep.iops, "{name}: shallow die queues cannot be faster");
        assert!(
            preset.queues.hol_events > 0 && deep.queues.hol_events == 0,
            "{name}: HoL events"
        );
        assert!(
            preset.queues.die_utilization < deep.queues.die_utilization,
            "{name}: the shortfall is idle dies"
        );
    }
}

/// With ONFI cache read the next read's t_R overlaps the data out, so a die reads every
/// t_CMD + max(t_R, data out): the same table reaches that higher bound within 5%.
#[test]
fn cache_read_reaches_the_overlapped_die_bound() {
    let drives: Vec<Drive> = main_table()
        .into_iter()
        .map(|drive| Drive {
            corner: "cache read",
            settings: &["flash.cache_read=true"],
            ..drive
        })
        .collect();
    let failures = check_table(Kind::Read, &drives);
    assert!(failures.is_empty(), "{failures}");
    let one_die = &drives[0];
    let (plain, cached) = (saturated(Kind::Read, &main_table()[0]), saturated(Kind::Read, one_die));
    assert!(
        run(&cached).iops > 1.1 * run(&plain).iops,
        "a lone die gains the data out's time from cache read"
    );
}
