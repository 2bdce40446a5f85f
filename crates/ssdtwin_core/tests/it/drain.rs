//! The drain at the end of a run (`report.drain`, issue 28): the flash work of acknowledged
//! commands still in flight at the last host completion (a suspended program, the open page, the
//! write buffer) is done and counted; host-visible figures do not move.
//!
//! Expected program times come from the scenario's flash timing (`flash.t_program`, the suspend
//! times) and the one-die read service, as the die-level suspend tests (`suspend.rs`) pin them;
//! expected energies from the power parameters (VCC × ICC2 × tPROG).

use std::path::Path;

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource};

use super::{channel_data_time, folder, run, scenario, BASE};

/// [`BASE`] with `settings`, reading its trace from `dir`.
fn scenario_in(dir: &Path, settings: &[&str]) -> Scenario {
    let overrides: Vec<Override> = settings.iter().map(|s| Override::parse(s).unwrap()).collect();
    let source = ScenarioSource::Text {
        toml: BASE.to_string(),
        base_dir: dir.to_path_buf(),
    };
    load(&source, &overrides).unwrap_or_else(|error| panic!("{settings:?}: {error}"))
}

/// A run of the DiskSim trace `text` (time in ns, LBA and size in 512 B sectors, flags 1 = read)
/// on [`BASE`] with `settings`.
fn trace_run(name: &str, text: &str, settings: &[&str]) -> (Scenario, Report) {
    let dir = folder(name);
    std::fs::write(dir.join("t.trace"), text).unwrap();
    let mut all = vec![
        "workload.kind=trace",
        "workload.trace.format=disksim",
        "workload.trace.path=t.trace",
        "power.enabled=true",
    ];
    all.extend_from_slice(settings);
    let scenario = scenario_in(&dir, &all);
    let report = run(&scenario);
    (scenario, report)
}

fn us(micros: u64) -> Duration {
    Duration::from_micros(micros)
}

/// One die, SLC (one program and one read time, so the test knows both whatever page is hit),
/// program suspend on: 1 ms programs in 16 steps, 50 us reads, enter 60 us, resume 10 us.
const ONE_DIE_SUSPEND: [&str; 13] = [
    "flash.channels=1",
    "flash.dies_per_chip=1",
    "flash.cell=slc",
    "flash.t_read=[\"50us\"]",
    "flash.t_program=[\"1ms\"]",
    "flash.suspend.program=true",
    "flash.suspend.max_per_operation=5",
    "flash.suspend.enter_time=\"60us\"",
    "flash.suspend.resume_time=\"10us\"",
    "flash.suspend.resume_extra_time=0", // BASE's enterprise_tlc adds an ISPP step per resume
    "flash.suspend.program_pulses=16",
    "flash.suspend.reads_per_suspend=8",
    "flash.multi_plane=false",
];

/// A write of one page at time 0 (its program starts at once) and a read of other data 300 us
/// later, which suspends the program; the read completes last, while the program is suspended.
fn suspended_write_run(name: &str, drain: bool) -> (Scenario, Report) {
    let drain = format!("report.drain={drain}");
    let mut settings: Vec<&str> = ONE_DIE_SUSPEND.to_vec();
    settings.push(&drain);
    // 16 KiB page = 32 sectors; the read is of sector 4096 (filled by preconditioning).
    trace_run(name, "0 0 0 32 0\n300000 0 4096 8 1\n", &settings)
}

#[test]
fn a_suspended_program_is_counted_with_its_whole_time_and_energy_after_the_drain() {
    let (scenario, drained) = suspended_write_run("drain-suspended-on", true);
    let (_, cut) = suspended_write_run("drain-suspended-off", false);
    let flash = &scenario.flash;
    let t_prog = flash.t_program.for_type(0);
    // Suspended once for the read: enter, the read's command, sense and one unit out, resume.
    let read_service = flash.command_time + flash.t_read.for_type(0) + channel_data_time(&scenario, 1);
    let expected = t_prog + us(60) + read_service + us(10);

    assert_eq!(drained.host_ios, 2);
    assert_eq!(drained.suspend.per_program, vec![0, 1], "one program, suspended once");
    assert!(
        (drained.suspend.mean_program_time_us - expected.as_micros_f64()).abs() < 1e-6,
        "program time {} us, expected {} us",
        drained.suspend.mean_program_time_us,
        expected.as_micros_f64()
    );
    let drain = drained.drain.as_ref().expect("a drain block with report.drain on");
    assert!(drain.complete);
    assert_eq!((drain.programs_completed, drain.suspended_programs_completed), (1, 1));
    assert_eq!(drain.flash.programs, 0, "counted when it started, before the drain");
    assert!(drain.pending_operations >= 1, "the suspended program was pending");
    // Without the drain the run ends at the read's completion, with the program still suspended.
    assert!(cut.suspend.per_program.is_empty() && cut.suspend.mean_program_time_us == 0.0);
    assert!(cut.drain.is_none());

    // Energy: the NAND rail carries at least the whole program's array energy with the drain,
    // less than it without.
    let power = &scenario.power;
    let program_j = power.vcc_v * power.icc_program_ma.for_type(0) * 1e-3 * t_prog.as_secs_f64();
    assert!(
        drained.energy_j.nand >= program_j,
        "{} J < {program_j} J",
        drained.energy_j.nand
    );
    assert!(cut.energy_j.nand < program_j, "{} J", cut.energy_j.nand);
    // The drain's energy is what the drained run has more.
    assert!((drained.energy_j.total - cut.energy_j.total - drain.energy_j).abs() < 1e-12);
    assert!((drained.energy_j.nand - cut.energy_j.nand - drain.nand_energy_j).abs() < 1e-12);
    // The drain ends with the program: the suspended program's end, after the read completed.
    assert!(drain.time_s > 0.0 && drain.time_s < expected.as_secs_f64());

    // Host-visible figures are those of the run without drain.
    assert_eq!(drained.simulated_time_s, cut.simulated_time_s);
    assert_eq!(drained.iops, cut.iops);
    assert_eq!(drained.latency_us, cut.latency_us);
}

#[test]
fn a_one_program_trace_reports_the_configured_program_time() {
    // One 4 KiB write on a fresh drive: acknowledged in the frame buffer, its page never fills,
    // so without the drain it is never programmed. The drain programs the open page as it is:
    // the first page (a lower page) of a block on each plane programmed together.
    let trace = "0 0 0 8 0\n";
    let (scenario, report) = trace_run("drain-one-program", trace, &["workload.precondition=none"]);
    let planes = u64::from(scenario.flash.planes_per_die); // multi_plane = true in BASE
    assert_eq!(report.flash.programs, planes);
    assert_eq!(report.suspend.per_program, vec![1], "one program operation");
    let t_prog = scenario.flash.t_program.for_type(0).as_micros_f64();
    assert!(
        (report.suspend.mean_program_time_us - t_prog).abs() < 1e-6,
        "{} us, expected {t_prog} us",
        report.suspend.mean_program_time_us
    );
    let drain = report.drain.as_ref().unwrap();
    assert_eq!(drain.unplaced_units, 1);
    assert_eq!((drain.flash.programs, drain.programs_completed), (planes, 1));

    let (_, cut) = trace_run(
        "drain-one-program-off",
        trace,
        &["workload.precondition=none", "report.drain=false"],
    );
    assert_eq!((cut.flash.programs, cut.suspend.mean_program_time_us), (0, 0.0));
}

#[test]
fn a_buffered_write_is_programmed_by_the_drain() {
    // One 4 KiB write into a 64 MiB write buffer: far below its flush threshold, so only the
    // drain flushes it.
    let trace = "0 0 0 8 0\n";
    let settings = ["workload.precondition=none", "buffer.capacity=\"64MiB\""];
    let (scenario, report) = trace_run("drain-buffered", trace, &settings);
    let buffer = report.buffer.as_ref().expect("a buffer block");
    assert_eq!(buffer.flushed_units, 1);
    assert_eq!(
        buffer.held_units, 1,
        "held at the last host completion, before the drain"
    );
    assert_eq!(report.flash.programs, u64::from(scenario.flash.planes_per_die));
    let drain = report.drain.as_ref().unwrap();
    assert!(drain.complete);
    assert_eq!(drain.unplaced_units, 1);
    let t_prog = scenario.flash.t_program.for_type(0);
    assert!(drain.time_s >= t_prog.as_secs_f64(), "{} s", drain.time_s);

    let mut off = settings.to_vec();
    off.push("report.drain=false");
    let (_, cut) = trace_run("drain-buffered-off", trace, &off);
    let buffer = cut.buffer.as_ref().unwrap();
    assert_eq!((buffer.flushed_units, cut.flash.programs), (0, 0));
}

/// A mixed run with GC on the small drive: writes keep programs, GC and pages in flight to the end.
fn busy(drain: bool) -> Scenario {
    busy_with(drain, &["ftl.gc_pacing=threshold"])
}

fn busy_with(drain: bool, extra: &[&str]) -> Scenario {
    let drain = format!("report.drain={drain}");
    let mut settings = vec![
        "workload.read_fraction=0.3",
        "workload.io_count=3000",
        "host.queue_depth=8",
        "workload.precondition=steady",
        "flash.suspend.program=true",
        "power.enabled=true",
        &drain,
    ];
    settings.extend_from_slice(extra);
    scenario(&settings)
}

#[test]
fn the_drain_leaves_host_visible_figures_alone_and_adds_its_work_to_the_counters() {
    let drained = run(&busy(true));
    let cut = run(&busy(false));
    assert_eq!(drained.host_ios, cut.host_ios);
    assert_eq!(drained.simulated_time_s, cut.simulated_time_s);
    assert_eq!((drained.iops, drained.bandwidth_mib_s), (cut.iops, cut.bandwidth_mib_s));
    assert_eq!(drained.latency_us, cut.latency_us);
    assert_eq!(drained.variability, cut.variability);
    assert_eq!(drained.workload, cut.workload);
    let drain = drained.drain.as_ref().unwrap();
    assert!(drain.complete && drain.time_s > 0.0 && drain.pending_operations > 0);
    assert_eq!(drained.flash.programs, cut.flash.programs + drain.flash.programs);
    assert_eq!(
        drained.flash.gc_programs,
        cut.flash.gc_programs + drain.flash.gc_programs
    );
    assert_eq!(drained.flash.erases, cut.flash.erases + drain.flash.erases);
    // Every program running, suspended or queued at the end completed.
    let completed = |report: &Report| report.suspend.per_program.iter().sum::<u64>();
    assert_eq!(completed(&drained), completed(&cut) + drain.programs_completed);
    assert!(drain.programs_completed > 0);
    assert!((drained.energy_j.total - cut.energy_j.total - drain.energy_j).abs() < 1e-9);
    // Average power is over the run and its drain.
    let seconds = drained.simulated_time_s + drain.time_s;
    assert!((drained.power_w.total_avg - drained.energy_j.total / seconds).abs() < 1e-9);
    // Drain off: the block is absent, as in reports before it existed.
    assert!(cut.drain.is_none() && !cut.to_json().as_object().unwrap().contains_key("drain"));
}

#[test]
fn with_nothing_in_flight_the_drain_changes_nothing_but_its_block() {
    // Random reads at queue depth 1: at the last completion no flash work is left.
    let settings = ["workload.io_count=500", "power.enabled=true"];
    let with = |drain: &str| {
        let mut all = settings.to_vec();
        all.push(drain);
        run(&scenario(&all))
    };
    let mut drained = with("report.drain=true");
    let mut cut = with("report.drain=false");
    let drain = drained.drain.take().unwrap();
    assert_eq!((drain.time_s, drain.energy_j, drain.pending_operations), (0.0, 0.0, 0));
    for report in [&mut drained, &mut cut] {
        report.config.report.drain = true;
        report.wall_time_s = 0.0;
        report.simulator = Default::default();
    }
    assert_eq!(drained, cut);
}

#[test]
fn under_paced_gc_with_a_write_buffer_the_drain_completes_and_starts_no_new_victim() {
    // Paced GC collects in the background once the host is idle; the drain lets the reads it had
    // issued finish but issues no new GC work once the host's data is placed, so the erases it
    // adds are at most one per plane (a victim already fully copied) and it ends.
    let extra = ["ftl.gc_pacing=paced", "buffer.capacity=\"1MiB\""];
    let drained = run(&busy_with(true, &extra));
    let cut = run(&busy_with(false, &extra));
    let drain = drained.drain.as_ref().unwrap();
    assert!(drain.complete);
    assert!(drain.unplaced_units > 0, "the buffer held writes at the end");
    let buffer = drained.buffer.as_ref().unwrap();
    assert_eq!(
        buffer.flushed_units,
        buffer.writes - buffer.coalesced,
        "every buffered write programmed"
    );
    let planes = u64::from(drained.config.flash.planes_per_die) * u64::from(super::dies(&drained.config));
    assert!(drain.flash.erases <= planes, "{} erases", drain.flash.erases);
    assert_eq!(drained.latency_us, cut.latency_us);
}

#[test]
fn a_drained_run_is_deterministic() {
    let first = run(&busy(true));
    let second = run(&busy(true));
    assert_eq!(first.drain, second.drain);
    assert_eq!(first.energy_j, second.energy_j);
    assert_eq!(first.flash, second.flash);
    assert_eq!(first.suspend, second.suspend);
}
