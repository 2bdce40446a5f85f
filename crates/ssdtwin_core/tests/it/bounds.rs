//! The table machinery of `channel_bound.rs`: the drives, their analytic bounds (die, channel,
//! PCIe) computed from the resolved scenario, and the run-and-compare table.

use std::fmt::Write as _;

use ssdtwin_core::{Report, Scenario};

use crate::pcie_bytes_per_second;

/// Least fraction of the lowest bound a saturated drive must reach.
pub(crate) const REACH: f64 = 0.95;
/// Most: the bound plus the allowance for the run's start (under 1% by the choice of I/O
/// counts) and for the rare random reads that share a page sense (well under 1% on these drives).
pub(crate) const CEILING: f64 = 1.02;
/// The ramp-up of a write run, as a fraction of its writes (see [`write_io_count`]).
pub(crate) const WRITE_RAMP: f64 = 1.0 / 150.0;

/// The preset and workload every drive starts from. `pages_per_block = 48` keeps the drives
/// small (a multiple of the 3 TLC page types); `blocks_per_plane` is set per drive.
pub(crate) const BASE: &str = r#"
seed = 1
drive = "enterprise_tlc"

[host]
mode = "closed"
submission_interval = "0us"

[flash]
pages_per_block = 48
program_time_spread = 0.0

[workload]
kind = "synthetic"
block_size = "4KiB"
pattern = "random"
distribution = "uniform"
span = 1.0
"#;

/// Blocks per plane of the read drives: 12,288 pages per die, so two reads queued at a die rarely
/// share a page (a shared page is sensed once for both, which the bound does not count): with
/// the preset's 8 reads per die queue, under 0.1% of reads; with 64 queued, about 0.5%.
pub(crate) const READ_BLOCKS_PER_PLANE: u32 = 128;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
}

/// One drive of the table: its array and any further settings.
pub(crate) struct Drive {
    pub(crate) channels: u32,
    pub(crate) chips_per_channel: u32,
    pub(crate) dies_per_chip: u32,
    /// Why the drive is in the table when it is a corner; empty for the main table.
    pub(crate) corner: &'static str,
    pub(crate) settings: &'static [&'static str],
    /// For a corner: the bound that must be the lowest, or `Both` for die and channel within
    /// [`BOTH_LOADED`] of each other.
    pub(crate) expect: Option<Limit>,
}

impl Drive {
    pub(crate) fn dies_per_channel(&self) -> u32 {
        self.chips_per_channel * self.dies_per_chip
    }
    pub(crate) fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel()
    }
}

/// The main table: channels ∈ {1, 8} × N ∈ {1, 2, 4, 8} dies per channel.
pub(crate) fn main_table() -> Vec<Drive> {
    let mut drives = Vec::new();
    for channels in [1, 8] {
        for (chips_per_channel, dies_per_chip) in [(1, 1), (2, 1), (1, 4), (2, 4)] {
            drives.push(Drive {
                channels,
                chips_per_channel,
                dies_per_chip,
                corner: "",
                settings: &[],
                expect: None,
            });
        }
    }
    drives
}

/// Die and channel bounds of a "both loaded" corner lie within this of each other.
pub(crate) const BOTH_LOADED: f64 = 0.10;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Limit {
    Die,
    Channel,
    Pcie,
    Both,
}

impl Limit {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Limit::Die => "die",
            Limit::Channel => "channel",
            Limit::Pcie => "pcie",
            Limit::Both => "both",
        }
    }
}

/// The three throughput limits [IOPS] of a drive saturated with one kind of 4 KiB I/O.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) die: f64,
    pub(crate) channel: f64,
    pub(crate) pcie: f64,
}

impl Bounds {
    pub(crate) fn min(&self) -> f64 {
        self.die.min(self.channel).min(self.pcie)
    }
    pub(crate) fn limit(&self) -> Limit {
        let min = self.min();
        if min == self.pcie {
            Limit::Pcie
        } else if min == self.die {
            Limit::Die
        } else {
            Limit::Channel
        }
    }
}

/// Channel time to move `bytes` over the 8-bit ONFI bus (one byte per transfer) [s], rounded up
/// to the nanosecond as `Duration::for_transfer` does.
pub(crate) fn bus_transfer(scenario: &Scenario, bytes: u64) -> f64 {
    (bytes as f64 * 1e9 / scenario.flash.bus_rate.per_second()).ceil() * 1e-9
}

/// Bytes moved over the channel with one mapping unit: the unit plus the ECC parity of its
/// codeword (`Geometry::parity_bytes = flash.parity_per_codeword`, one codeword per mapping
/// unit; `Timing::read_transfer(units) = for_transfer(units × (unit_bytes + parity_bytes))`).
pub(crate) fn unit_with_parity(scenario: &Scenario) -> u64 {
    scenario.ftl.mapping_unit.bytes() + scenario.flash.parity_per_codeword.bytes()
}

/// Mean of a per-page-type time over the cell's page types [s]; the drives give one value for
/// every type, so this is that value.
pub(crate) fn per_type_mean(scenario: &Scenario, per_type: impl Fn(usize) -> f64) -> f64 {
    let types = scenario.flash.cell.page_types();
    let values: Vec<f64> = (0..types).map(per_type).collect();
    assert!(
        values.iter().all(|&value| value == values[0]),
        "one array time for every page type keeps the bound exact: {values:?}"
    );
    values[0]
}

/// Mapping units one flash operation moves: 1 for a 4 KiB read; for a program, a page of every
/// plane of the die when programming multi-plane.
pub(crate) fn units_per_operation(scenario: &Scenario, kind: Kind) -> u64 {
    match kind {
        Kind::Read => 1,
        Kind::Write => {
            let flash = &scenario.flash;
            let planes = if flash.multi_plane { flash.planes_per_die } else { 1 };
            flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes() * u64::from(planes)
        }
    }
}

/// The bounds of `scenario` for `kind` (see the module comment).
pub(crate) fn bounds(scenario: &Scenario, kind: Kind) -> Bounds {
    let flash = &scenario.flash;
    let block = scenario.workload.block_size.bytes();
    assert_eq!(block, scenario.ftl.mapping_unit.bytes(), "one mapping unit per I/O");
    let units = units_per_operation(scenario, kind);
    let command = flash.command_time.as_secs_f64();
    let register = flash.page_register_time.as_secs_f64();
    // Data out of the unit read, or data in of every unit programmed, with parity, in one transfer.
    let data = bus_transfer(scenario, units * unit_with_parity(scenario));
    let array = match kind {
        Kind::Read => per_type_mean(scenario, |t| flash.t_read.for_type(t).as_secs_f64()),
        Kind::Write => per_type_mean(scenario, |t| flash.t_program.for_type(t).as_secs_f64()),
    };
    // With cache read the data out of one read overlaps the sensing of the next (a die's cycle is
    // its command cycles, then the longer of the sense and the data out).
    let die_time = if kind == Kind::Read && flash.cache_read {
        command + (register + array).max(data)
    } else {
        command + data + register + array
    };
    let channel_time = command + data;
    let channels = f64::from(flash.channels);
    let dies = channels * f64::from(flash.chips_per_channel * flash.dies_per_chip);
    let units = units as f64;
    Bounds {
        die: dies * units / die_time,
        channel: channels * units / channel_time,
        pcie: pcie_bytes_per_second(scenario.host.pcie_generation, scenario.host.pcie_lanes) / block as f64,
    }
}

/// Loads `BASE` with the I/O kind, the drive's array and settings, and `extra`.
pub(crate) fn load_drive(kind: Kind, drive: &Drive, extra: &[String]) -> Scenario {
    let mut settings = vec![
        format!("flash.channels={}", drive.channels),
        format!("flash.chips_per_channel={}", drive.chips_per_channel),
        format!("flash.dies_per_chip={}", drive.dies_per_chip),
        // Deep enough to keep random reads from leaving dies idle: with M dies and N commands spread
        // at random a die idles about (M - 1) / (N + M - 1) of the time, under 3% at 32 per die.
        format!("host.queue_depth={}", (32 * drive.dies()).max(64)),
    ];
    settings.extend(
        match kind {
            Kind::Read => ["workload.read_fraction=1.0", "workload.precondition=fill"],
            Kind::Write => ["workload.read_fraction=0.0", "workload.precondition=none"],
        }
        .map(String::from),
    );
    settings.extend(drive.settings.iter().map(|setting| setting.to_string()));
    settings.extend_from_slice(extra);
    super::scenario_from(BASE, &settings)
}

/// Reads: 100 host queues' worth, at least 20,000. The run ends with a drain, the last reads
/// served with falling parallelism: each die holds at most `die_queue_depth` reads, so the drain
/// costs at most that many die times, under 1% of the run (8 x 91 us against 146 ms for 8 x 8
/// dies).
pub(crate) fn read_io_count(scenario: &Scenario) -> u64 {
    (100 * u64::from(scenario.host.queue_depth)).max(20_000)
}

/// Writes are acknowledged once their data is in the frame buffer, so by the last
/// acknowledgement the host has seen what was programmed plus what the buffer holds: the frame
/// buffer, or less when the dies' command queues hold fewer programs (each die queues at most
/// `die_queue_depth` programs, one more waits, one is being filled). The run writes
/// 1/[`WRITE_RAMP`] times that, so the buffered head start adds under 1% to the measured rate.
pub(crate) fn write_io_count(scenario: &Scenario) -> u64 {
    let units = units_per_operation(scenario, Kind::Write);
    let dies = u64::from(scenario.flash.channels * scenario.flash.chips_per_channel * scenario.flash.dies_per_chip);
    let queued = dies * u64::from(scenario.controller.die_queue_depth) * units + units;
    let buffered = queued.min(u64::from(scenario.controller.frame_buffer)) + units;
    (buffered as f64 / WRITE_RAMP).ceil() as u64
}

/// Blocks per plane that hold `writes` random 4 KiB writes of a fresh drive before any plane
/// falls to the GC trigger: writes stripe over every plane, so each plane gets
/// `writes / (planes × units per page)` pages, plus an open block, with a `gc_threshold` share
/// of the blocks (at least 2) kept free, plus a margin of 2 blocks.
pub(crate) fn write_blocks_per_plane(scenario: &Scenario, writes: u64) -> u32 {
    let flash = &scenario.flash;
    let planes = u64::from(flash.channels * flash.chips_per_channel * flash.dies_per_chip * flash.planes_per_die);
    let units_per_page = flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes();
    let pages = writes.div_ceil(planes * units_per_page);
    let used = pages.div_ceil(u64::from(flash.pages_per_block)) + 1;
    let blocks = ((used + 2) as f64 / (1.0 - scenario.ftl.gc_threshold)).ceil() as u64 + 2;
    blocks.max(8) as u32
}

/// The scenario of `drive` for `kind`, sized and with its I/O count.
pub(crate) fn saturated(kind: Kind, drive: &Drive) -> Scenario {
    // Resolve the drive once for the values the sizing needs, then load it sized.
    let probe = load_drive(kind, drive, &[]);
    let extra = match kind {
        Kind::Read => vec![
            format!("flash.blocks_per_plane={READ_BLOCKS_PER_PLANE}"),
            // Deep die queues: in-order admission never holds the host queue (see the module
            // header and `default_die_queues_lose_only_to_head_of_line_blocking`).
            // The frame buffer too: it bounds the reads in flight over all dies.
            format!("controller.die_queue_depth={}", probe.host.queue_depth.min(1024)),
            format!(
                "controller.frame_buffer={}",
                probe.host.queue_depth.max(probe.controller.frame_buffer)
            ),
            format!("workload.io_count={}", read_io_count(&probe)),
        ],
        Kind::Write => {
            let writes = write_io_count(&probe);
            vec![
                format!("flash.blocks_per_plane={}", write_blocks_per_plane(&probe, writes)),
                format!("workload.io_count={writes}"),
            ]
        }
    };
    let scenario = load_drive(kind, drive, &extra);
    let flash = &scenario.flash;
    assert_eq!(
        flash.channel_switch_time.as_secs_f64(),
        0.0,
        "the bounds hold for drives without channel-switch time"
    );
    assert_eq!(flash.program_time_spread, 0.0);
    scenario
}

pub(crate) fn run(scenario: &Scenario) -> Report {
    ssdtwin_core::run(scenario, &mut |_| true).unwrap_or_else(|error| panic!("run failed: {error}"))
}

/// Columns of the table: channels, dies per channel, chips per channel, dies per chip, I/Os;
/// measured IOPS; the three bounds; their minimum and which it is; measured / minimum; and, to
/// tell the causes of a shortfall apart, the report's head-of-line events (the controller held
/// the host queue because the head command's die queue was full), die utilisation, and for reads
/// the reads served by another read's sense of the same page.
pub(crate) const TABLE_HEADER: &str =
    " ch dies/ch chips d/chp     ios |  measured |       die   channel      PCIe |       min   limit |  ratio |    hol  util merged | corner";

/// Runs every drive of `drives` for `kind`, prints the table and returns the failures.
pub(crate) fn check_table(kind: Kind, drives: &[Drive]) -> String {
    let name = match kind {
        Kind::Read => "random 4 KiB reads, filled drive",
        Kind::Write => "random 4 KiB writes, fresh drive",
    };
    let mut table = format!(
        "{name}: measured IOPS against min(die, channel, PCIe) bound, pass {REACH}..{CEILING}\n\
         {TABLE_HEADER}\n"
    );
    let mut failures = String::new();
    for drive in drives {
        let scenario = saturated(kind, drive);
        let bounds = bounds(&scenario, kind);
        if let Some(expect) = drive.expect {
            let holds = match expect {
                Limit::Both => {
                    bounds.die.max(bounds.channel) / bounds.die.min(bounds.channel) - 1.0 < BOTH_LOADED
                        && bounds.pcie > bounds.die.max(bounds.channel)
                }
                limit => bounds.limit() == limit,
            };
            assert!(
                holds,
                "corner `{}` does not have the intended bottleneck {expect:?}: die {:.0}, channel {:.0}, PCIe {:.0}",
                drive.corner, bounds.die, bounds.channel, bounds.pcie
            );
        }
        let report = run(&scenario);
        assert_eq!(report.host_ios, scenario.workload.io_count, "every I/O completes");
        if kind == Kind::Write {
            assert_eq!(
                (report.flash.erases, report.flash.gc_programs, report.flash.gc_reads),
                (0, 0, 0),
                "no GC on the fresh drive ({} writes, {} blocks per plane)",
                scenario.workload.io_count,
                scenario.flash.blocks_per_plane
            );
        }
        let min = bounds.min();
        let ratio = report.iops / min;
        let pass = (REACH..=CEILING).contains(&ratio);
        let row = format!(
            "{:>3} {:>7} {:>5} {:>5} {:>7} | {:>9.0} | {:>9.0} {:>9.0} {:>9.0} | {:>9.0} {:>7} | {:>6.3} | {:>6} {:>5.3} {:>6} | {}{}",
            drive.channels,
            drive.dies_per_channel(),
            drive.chips_per_channel,
            drive.dies_per_chip,
            scenario.workload.io_count,
            report.iops,
            bounds.die,
            bounds.channel,
            bounds.pcie,
            min,
            bounds.limit().name(),
            ratio,
            report.queues.hol_events,
            report.queues.die_utilization,
            match kind {
                Kind::Read => (report.host_ios - report.flash.reads).to_string(),
                Kind::Write => "-".to_string(),
            },
            drive.corner,
            if pass { "" } else { "  <-- FAIL" },
        );
        writeln!(table, "{row}").unwrap();
        if !pass {
            writeln!(
                failures,
                "{} channel(s) x {} dies per channel ({} chips x {} dies){}: {:.0} IOPS; bounds die {:.0}, channel {:.0}, PCIe {:.0}; min {:.0}; ratio {:.4}",
                drive.channels,
                drive.dies_per_channel(),
                drive.chips_per_channel,
                drive.dies_per_chip,
                if drive.corner.is_empty() { String::new() } else { format!(" [{}]", drive.corner) },
                report.iops,
                bounds.die,
                bounds.channel,
                bounds.pcie,
                min,
                ratio
            )
            .unwrap();
        }
    }
    eprintln!("{table}");
    if failures.is_empty() {
        String::new()
    } else {
        format!("{name}: saturated IOPS outside [{REACH}, {CEILING}] x min(die, channel, PCIe):\n{failures}\n{table}")
    }
}
