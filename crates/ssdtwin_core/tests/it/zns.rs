//! The zoned drive (`zns.enabled`, docs/models/zns.md): a log-structured run writes exactly what
//! the host wrote (WAF 1) and each reset erases its zone's written blocks; writes off the write
//! pointer complete with Zone Invalid Write; the open and active limits hold; a reset's energy is
//! its erases' closed form; the same seed gives the same report.
//!
//! The drive is [`BASE`](crate::BASE)'s: 4 dies x 2 planes, 768 KiB blocks (48 pages of 16 KiB,
//! four 4 KiB units a page); a striped zone is one block on each of the 8 planes, 6 MiB = 1536
//! logical blocks, and `flash.blocks_per_plane` zones.

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::ftl::zoned::{ZoneAction, ZoneOp};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::LiveSimulation;
use ssdtwin_core::{Report, Scenario};

use crate::{dies, run, scenario, units_per_page};

/// A zoned drive of 16 zones under the zoned writer: 64 KiB commands, 4 zones open.
fn zoned(settings: &[&str]) -> Scenario {
    let mut all = vec![
        "zns.enabled=true",
        "flash.blocks_per_plane=16",
        "workload.kind=\"zoned\"",
        "workload.precondition=\"none\"",
        "workload.read_fraction=0.0",
        "workload.block_size=\"64KiB\"",
        "workload.io_count=3000",
        "host.queue_depth=8",
    ];
    all.extend_from_slice(settings);
    scenario(&all)
}

/// Logical blocks of one zone of [`zoned`]'s drive: a block (pages x units a page) on every plane.
fn zone_units(scenario: &Scenario) -> u64 {
    let flash = &scenario.flash;
    u64::from(flash.pages_per_block) * units_per_page(scenario) * u64::from(dies(scenario) * flash.planes_per_die)
}

#[test]
fn an_append_and_reset_run_programs_exactly_the_host_units_waf_one() {
    let scenario = zoned(&["workload.zoned.append=true"]);
    let report = run(&scenario);
    let zns = report.zns.as_ref().expect("a zoned run reports zns");
    // About 3000 appends of 16 logical blocks: 48000 blocks over a namespace of 16 x 1536 =
    // 24576, so zones are reset and written again.
    // `io_count` counts the resets among its 3000 commands.
    assert_eq!(zns.appends + zns.reset_commands, 3000);
    let appended = zns.appends * 16;
    assert_eq!(zns.lbas_written, appended);
    assert!(zns.zone_resets >= 8, "the log wrapped: {} resets", zns.zone_resets);
    assert_eq!(zns.rejected_writes, 0);
    // Every program is a full multi-plane page pair (16-block appends fill 8-block groups).
    assert_eq!(report.flash.programs * units_per_page(&scenario), appended);
    assert_eq!(report.flash.gc_programs, 0, "no device GC on a zoned namespace");
    assert_eq!(report.ftl.valid_page_copies, 0);
    assert_eq!(report.waf, 1.0);
    assert!(zns.append_latency_mean_us > 0.0 && zns.append_latency_p99_us >= zns.append_latency_mean_us);
}

#[test]
fn every_reset_of_a_full_zone_erases_the_zone_s_blocks_and_nothing_else_erases() {
    let scenario = zoned(&[]);
    let report = run(&scenario);
    let zns = report.zns.as_ref().unwrap();
    // The writer resets only full zones; a full striped zone has written one block per plane.
    let blocks_per_zone = u64::from(dies(&scenario) * scenario.flash.planes_per_die);
    assert!(zns.zone_resets > 0);
    assert_eq!(zns.reset_erases, zns.zone_resets * blocks_per_zone);
    assert_eq!(report.flash.erases, zns.reset_erases, "resets are the only erases");
    assert_eq!(zns.writes + zns.reset_commands, 3000);
}

/// A live session on [`zoned`]'s drive with power on; `commands` submitted at their times [ns].
fn live_run(commands: &[(u64, CommandSpec)]) -> Report {
    let scenario = zoned(&["power.enabled=true", "host.queue_depth=64"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    for (tag, (at_ns, command)) in commands.iter().enumerate() {
        live.submit(Time::ZERO + Duration::from_nanos(*at_ns), *command, tag as u64);
    }
    while live.step().unwrap() {}
    live.finish()
}

fn write(lba: u32, units: u32) -> CommandSpec {
    CommandSpec::io(false, false, lba, units)
}

fn action(zone_start: u32, action: ZoneAction) -> CommandSpec {
    CommandSpec {
        zone: ZoneOp::Send(action),
        ..CommandSpec::io(false, false, zone_start, 0)
    }
}

#[test]
fn a_write_off_the_write_pointer_completes_with_zone_invalid_write_and_changes_nothing() {
    let report = live_run(&[
        (0, write(0, 16)),
        (100_000, write(100, 16)), // the pointer is at 16
        (200_000, write(16, 16)),
        (
            300_000,
            CommandSpec {
                zone: ZoneOp::Append,
                ..CommandSpec::io(false, false, 1536, 8)
            },
        ),
        (400_000, write(1536 + 4, 4)), // zone 1's pointer is at 1536 + 8
    ]);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.rejected_writes, 2);
    assert_eq!(zns.invalid_writes, 2);
    assert_eq!(zns.rejected_by_status.get("Zone Invalid Write (0xbc)"), Some(&2));
    assert_eq!(zns.lbas_written, 16 + 16 + 8, "refused writes write nothing");
    assert_eq!(zns.appends, 1);
    assert_eq!(
        zns.errored_commands, 2,
        "the host saw both refused commands complete with an error"
    );
}

#[test]
fn open_and_active_zone_limits_hold_when_the_host_writes_more_zones_at_once() {
    // Six zones written in turn on a drive that keeps 3 open and 4 active: the controller closes
    // zones implicitly, and writes that would open a fifth active zone fail.
    let scenario = zoned(&[
        "zns.max_open=3",
        "zns.max_active=4",
        "workload.zoned.open_zones=6",
        "workload.io_count=600",
    ]);
    let report = run(&scenario);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.open_zones_max, 3);
    assert_eq!(zns.active_zones_max, 4);
    assert!(zns.open_zones_mean <= 3.0 && zns.active_zones_mean <= 4.0);
    assert!(zns.implicit_closes > 0);
    let too_many_active = zns.rejected_by_status.get("Too Many Active Zones (0xbd)").copied();
    assert!(too_many_active.unwrap_or(0) > 0, "{:?}", zns.rejected_by_status);
    // The writer does not see refusals: its later writes to a refused zone are off that zone's
    // pointer. Every refusal is one of the two, and each is counted.
    let invalid = zns
        .rejected_by_status
        .get("Zone Invalid Write (0xbc)")
        .copied()
        .unwrap_or(0);
    assert_eq!(zns.rejected_writes, too_many_active.unwrap() + invalid);
    assert_eq!(zns.invalid_writes, invalid);
    assert_eq!(zns.errored_commands, zns.rejected_writes);
}

#[test]
fn a_zone_reset_costs_its_erases_energy_over_standby() {
    // Zone 0 written whole, then (a) reset at 200 ms, or (b) an Open of zone 1 at 200 ms and a
    // Close at the instant (a)'s reset completed: both runs end together, and the NAND energy
    // differs by the reset's erases: command cycles at the bus-idle current, then tBERS at
    // ICC3 instead of standby (docs/models/power.md; the default erase profile is flat).
    let scenario = zoned(&["power.enabled=true"]);
    let zone = zone_units(&scenario) as u32;
    let mut writes: Vec<(u64, CommandSpec)> = (0..zone / 16).map(|i| (0, write(i * 16, 16))).collect();
    let mut reset = writes.clone();
    reset.push((200_000_000, action(0, ZoneAction::Reset)));
    let with_reset = live_run(&reset);
    let end_ns = (with_reset.simulated_time_s * 1e9).round() as u64;
    assert!(end_ns > 200_000_000, "the reset completes after its erases");
    writes.push((200_000_000, action(zone, ZoneAction::Open)));
    let mut without = writes;
    // A zone action completes as it reaches the controller, `host.command_overhead` after its
    // submission: the Close completes when the reset did.
    let overhead = scenario.host.command_overhead.as_nanos();
    without.push((end_ns - overhead, action(zone, ZoneAction::Close)));
    let without = live_run(&without);
    let zns = with_reset.zns.as_ref().unwrap();
    let erases = dies(&scenario) * scenario.flash.planes_per_die;
    assert_eq!(zns.reset_erases, u64::from(erases));
    assert_eq!(with_reset.flash.erases - without.flash.erases, u64::from(erases));
    let power = &scenario.power;
    let standby = power.vcc_v * power.isb_ua * 1e-6;
    let bus_idle = power.vcc_v * power.icc_bus_idle_ma * 1e-3;
    let t_erase = scenario.flash.t_erase.as_secs_f64();
    let command = scenario.flash.command_time.as_secs_f64();
    let per_erase = (bus_idle - standby) * command + (power.vcc_v * power.icc_erase_ma * 1e-3 - standby) * t_erase;
    // The runs end within a nanosecond of each other (the report's seconds rounded to ns).
    let time_gap = (without.simulated_time_s - with_reset.simulated_time_s).abs();
    assert!(time_gap <= 1e-9, "{time_gap}");
    let expected = f64::from(erases) * per_erase;
    let delta = with_reset.energy_j.nand - without.energy_j.nand;
    let slack = f64::from(dies(&scenario)) * standby * 1e-9;
    assert!(
        (delta - expected).abs() <= slack + 1e-9 * expected,
        "NAND energy delta {delta} J, closed form {expected} J"
    );
}

#[test]
fn a_zoned_run_with_reads_is_deterministic() {
    let scenario = zoned(&["workload.read_fraction=0.3", "workload.io_count=1500"]);
    let first = crate::determinism::simulated_part(&run(&scenario));
    let second = crate::determinism::simulated_part(&run(&scenario));
    assert_eq!(first, second);
    assert!(first["zns"]["writes"].as_u64().unwrap() > 0);
}

#[test]
fn writes_queued_around_a_reset_land_before_and_after_it_in_order() {
    // Zone 0 written whole, reset and written again, all submitted at the same instant: the
    // reset waits for the writes before it, the writes after it wait for its erases.
    let mut commands: Vec<(u64, CommandSpec)> = (0..96).map(|i| (0, write(i * 16, 16))).collect();
    commands.push((0, action(0, ZoneAction::Reset)));
    commands.push((0, write(0, 16)));
    commands.push((1_000_000_000, CommandSpec::io(true, false, 0, 16)));
    let report = live_run(&commands);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.rejected_writes, 0);
    assert_eq!(zns.lbas_written, 1536 + 16);
    assert_eq!(zns.reset_erases, 8, "the full zone's block on each of the 8 planes");
    assert_eq!(report.flash.erases, 8);
    // Every unit programmed once: the reset dropped nothing that was acknowledged before it.
    assert_eq!(report.flash.programs * 4, 1536 + 16);
    assert!(
        report.flash.reads > 0,
        "the data written after the reset is read from flash"
    );
}

#[test]
fn a_second_reset_of_a_zone_sent_before_the_first_completes_runs_after_it() {
    // A host that does not wait for its reset (no quiesce): zone 0 written whole, reset, written
    // again, reset again, written again, all at the same instant. Each reset waits for the writes
    // queued before it and for the reset before it; none is lost (a lost reset left its command
    // in flight and the drive stalled), and the data written between them is erased by the second.
    let mut commands: Vec<(u64, CommandSpec)> = (0..96).map(|i| (0, write(i * 16, 16))).collect();
    commands.push((0, action(0, ZoneAction::Reset)));
    commands.push((0, write(0, 16)));
    commands.push((0, action(0, ZoneAction::Reset)));
    commands.push((0, write(0, 16)));
    commands.push((1_000_000_000, CommandSpec::io(true, false, 0, 16)));
    let report = live_run(&commands);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!((zns.rejected_writes, zns.errored_commands), (0, 0));
    assert_eq!(zns.reset_commands, 2);
    assert_eq!(zns.lbas_written, 1536 + 16 + 16);
    assert_eq!(
        report.flash.programs * 4,
        1536 + 16 + 16,
        "every acknowledged unit programmed once"
    );
    assert_eq!(report.flash.erases, zns.reset_erases);
    assert!(
        zns.reset_erases > 8,
        "the second reset erases what was written after the first (8 blocks of the full zone, then more)"
    );
    assert!(report.flash.reads > 0, "the last write is read from flash");
}

#[test]
fn finish_programs_only_the_written_page_and_a_reset_erases_only_its_block() {
    let zone_start = 2 * 1536;
    let report = live_run(&[
        (0, write(zone_start, 4)), // one page of the 2-page multi-plane group
        (100_000, action(zone_start, ZoneAction::Finish)),
        (200_000, write(zone_start + 4, 4)),
        (300_000_000, action(zone_start, ZoneAction::Reset)),
        (400_000_000, CommandSpec::io(true, false, zone_start, 4)),
    ]);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.rejected_by_status.get("Zone Is Full (0xb9)"), Some(&1));
    assert_eq!(zns.zones_filled, 1);
    assert_eq!(report.flash.programs, 1, "one page holds the 4 logical blocks");
    assert_eq!((zns.reset_erases, report.flash.erases), (1, 1));
    assert_eq!(report.flash.reads, 0, "a reset zone reads no flash");
}

#[test]
fn the_time_series_carries_open_and_active_zones_within_their_maxima() {
    let scenario = zoned(&["power.enabled=true", "power.sample_interval=\"1ms\""]);
    let report = run(&scenario);
    let zns = report.zns.as_ref().unwrap();
    let series = &report.timeseries;
    let column = |name: &str| {
        series
            .extra
            .iter()
            .find(|(column, _)| column == name)
            .map(|(_, values)| values.clone())
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let open = column("zns.open_zones");
    let active = column("zns.active_zones");
    assert_eq!(open.len(), series.time_s.len());
    // The writer keeps 4 zones open (within the default limit of 14) once it has started.
    let peak = open.iter().copied().fold(0.0, f64::max);
    assert_eq!(peak, f64::from(zns.open_zones_max));
    assert_eq!(peak, 4.0);
    assert!(active.iter().zip(&open).all(|(active, open)| active >= open));
}
