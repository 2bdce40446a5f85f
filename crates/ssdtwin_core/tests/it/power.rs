//! The power model (docs/models/power.md): energy balance against the operations a run performed,
//! exact peaks of single and overlapping programs on a die harness, peak ≥ average, the NAND
//! average of saturated random reads against the dies' duty cycle, and the time series against
//! the energies.

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::config::PowerConfig;
use ssdtwin_core::power::{Direction, OpClass, PowerModel};
use ssdtwin_core::{Report, Scenario};

use crate::{channel_data_time, dies, relative_error, run, scenario};

const MILLI: f64 = 1e-3;
const MICRO: f64 = 1e-6;

/// Powers of the die states of a scenario [W].
struct DiePowers {
    standby: f64,
    bus_idle: f64,
    read_average: f64,
    io_read: f64,
}

fn die_powers(scenario: &Scenario) -> DiePowers {
    let power = &scenario.power;
    DiePowers {
        standby: power.vcc_v * power.isb_ua * MICRO,
        bus_idle: power.vcc_v * power.icc_bus_idle_ma * MILLI,
        read_average: power.vcc_v * power.icc_read_ma.for_type(0) * MILLI,
        io_read: power.vccq_v * power.icc_io_read_ma * MILLI,
    }
}

/// Length of each time-series interval of a run of `simulated` seconds.
fn interval_lengths(report: &Report, interval: Duration) -> Vec<f64> {
    let step = interval.as_secs_f64();
    let series = &report.timeseries;
    (0..series.len())
        .map(|index| {
            if index + 1 == series.len() {
                super::drained_end_s(report) - series.time_s[index]
            } else {
                step
            }
        })
        .collect()
}

#[test]
fn energy_of_a_queue_depth_one_read_run_balances_with_its_operations() {
    // At queue depth 1 nothing waits for a channel: each read is command cycles (bus idle),
    // the sensing profile, data out (bus idle core + I/O current), all other die time standby.
    let scenario = scenario(&[
        "host.queue_depth=1",
        "workload.read_fraction=1.0",
        "workload.io_count=2000",
        "flash.t_read=\"50us\"",
        "power.read_profile=[[0.3, 2.0], [0.7, 0.5714285714285714]]",
        "power.sample_interval=\"100us\"",
    ]);
    let report = run(&scenario);
    let reads = report.flash.reads as f64;
    assert_eq!(report.flash.reads, 2000);
    let time = report.simulated_time_s;
    let die_count = f64::from(dies(&scenario));
    let powers = die_powers(&scenario);
    let command = scenario.flash.command_time.as_secs_f64();
    let t_read = scenario.flash.t_read.for_type(0);
    let transfer = channel_data_time(&scenario, 1).as_secs_f64();
    let t_read = t_read.as_secs_f64();
    // A read draws V × I × t: the read profile above only shapes the current (0.3 × 2.0 + 0.7 ×
    // 0.5714 = 1, the ONFI average kept), so its energy is VCC × ICC1 × tR.
    let read_energy = scenario.power.vcc_v * scenario.power.icc_read_ma.for_type(0) * MILLI * t_read;

    let per_read = (powers.bus_idle - powers.standby) * command
        + (read_energy - powers.standby * t_read)
        + (powers.bus_idle + powers.io_read - powers.standby) * transfer;
    let nand = time * die_count * powers.standby + reads * per_read;
    let power = &scenario.power;
    let busy = reads * (command + t_read + transfer);
    assert!(
        relative_error(report.queues.die_utilization * time * die_count, busy) < 1e-9,
        "dies busy exactly for their reads"
    );
    let controller = power.controller_idle_w * time
        + power.controller_channel_w * busy
        + reads * power.controller_command_uj * MICRO;
    let io_bus = power.io_bus_w * reads * transfer;
    let dram = power.dram_background_w * time + reads * 2.0 * 4.0 * power.dram_nj_per_kib * 1e-9;
    let other = power.other_w * time;
    let total = (nand + io_bus + controller + dram + other) / power.regulator_efficiency;

    let energy = &report.energy_j;
    for (name, got, expected) in [
        ("nand", energy.nand, nand),
        ("controller", energy.controller, controller),
        ("io_bus", energy.io_bus, io_bus),
        ("dram", energy.dram, dram),
        ("other", energy.other, other),
        ("total", energy.total, total),
    ] {
        assert!(
            relative_error(got, expected) < 1e-9,
            "{name}: simulated {got} J, sum of operation and idle energies {expected} J"
        );
    }
    assert!(relative_error(report.power_w.nand_avg, nand / time) < 1e-9);

    // The time series integrates to the same energies.
    let lengths = interval_lengths(&report, scenario.power.sample_interval);
    let series = &report.timeseries;
    for (index, expected) in [nand, io_bus, controller, dram, other, total].iter().enumerate() {
        let integral: f64 = series.power_w[index].iter().zip(&lengths).map(|(p, t)| p * t).sum();
        assert!(
            relative_error(integral, *expected) < 1e-9,
            "component {index}: series integral {integral} J vs {expected} J"
        );
    }
    let completions: f64 = series.iops.iter().zip(&lengths).map(|(iops, t)| iops * t).sum();
    assert!(
        (completions - 2000.0).abs() < 1e-6,
        "{completions} completions in the series"
    );
}

/// A harness of one or two dies on one channel, with a two-segment program profile.
fn harness(dies: u32, profile: Vec<(f64, f64)>) -> (PowerConfig, PowerModel) {
    let config = PowerConfig {
        program_profile: profile,
        isb_ua: 0.0,
        ..PowerConfig::default()
    };
    let model = PowerModel::new(&config, 1, dies, 3);
    (config, model)
}

fn us(micros: u64) -> Time {
    Time::from_nanos(micros * 1000)
}

#[test]
fn one_program_alone_peaks_at_its_profile_maximum() {
    let profile = vec![(0.1, 0.5), (0.05, 3.0), (0.25, 0.7), (0.05, 3.0), (0.55, 0.8)];
    let (config, mut model) = harness(1, profile.clone());
    let program = Duration::from_micros(2000);
    model.transfer(us(0), 0, us(40), Duration::from_micros(40), Direction::In);
    model.die_op_start(us(0), 0, us(40), OpClass::Program, 2, program);
    model.die_op_end(us(2040), 0);
    let peak = model.profiles().peak(OpClass::Program, 2);
    let (power, energy, _) = model.finish(us(3000));
    let expected_peak = config.vcc_v * config.icc_program_ma.for_type(2) * MILLI * 3.0;
    assert!((peak - expected_peak).abs() < 1e-12);
    assert!(
        (power.nand_peak - expected_peak).abs() < 1e-9,
        "peak {} W vs profile maximum {expected_peak} W",
        power.nand_peak
    );
    // A 100 us pulse is longer than the 10 us window: the windowed peak is the pulse too.
    assert!((power.nand_peak_window - expected_peak).abs() < 1e-9);
    let transfer_energy =
        (config.vcc_v * config.icc_bus_idle_ma + config.vccq_v * config.icc_io_write_ma) * MILLI * 40e-6;
    // Each segment draws VCC × ICC2 × its factor for its fraction of tPROG.
    let profile_energy: f64 = profile
        .iter()
        .map(|&(fraction, factor)| {
            config.vcc_v * config.icc_program_ma.for_type(2) * MILLI * factor * fraction * program.as_secs_f64()
        })
        .sum();
    assert!(
        relative_error(energy.nand, transfer_energy + profile_energy) < 1e-12,
        "NAND energy {} J vs transfer {transfer_energy} J + profile {profile_energy} J",
        energy.nand
    );
}

#[test]
fn overlapping_programs_on_two_dies_sum_their_currents() {
    let profile = vec![(0.5, 1.6), (0.5, 0.4)];
    let program = Duration::from_micros(1000);
    // Die 1 starts 100 us after die 0: their high halves overlap from 100 to 500 us.
    let (config, mut model) = harness(2, profile.clone());
    model.die_op_start(us(0), 0, us(0), OpClass::Program, 0, program);
    model.die_op_start(us(100), 1, us(100), OpClass::Program, 0, program);
    model.die_op_end(us(1000), 0);
    model.die_op_end(us(1100), 1);
    let (overlapping, _, _) = model.finish(us(1100));
    let average = config.vcc_v * config.icc_program_ma.for_type(0) * MILLI;
    assert!(
        (overlapping.nand_peak - 2.0 * 1.6 * average).abs() < 1e-9,
        "{} vs {}",
        overlapping.nand_peak,
        2.0 * 1.6 * average
    );
    // Die 1 starts when die 0 leaves its high half: the peak is one high plus one low segment.
    let (_, mut model) = harness(2, profile);
    model.die_op_start(us(0), 0, us(0), OpClass::Program, 0, program);
    model.die_op_start(us(500), 1, us(500), OpClass::Program, 0, program);
    model.die_op_end(us(1000), 0);
    model.die_op_end(us(1500), 1);
    let (staggered, _, _) = model.finish(us(1500));
    assert!(
        (staggered.nand_peak - (1.6 + 0.4) * average).abs() < 1e-9,
        "{}",
        staggered.nand_peak
    );
}

#[test]
fn peaks_are_at_least_the_averages_under_a_mixed_workload() {
    let scenario = scenario(&[
        "host.queue_depth=16",
        "workload.read_fraction=0.5",
        "workload.io_count=6000",
        "power.program_profile=[[0.05, 1.6], [0.15, 0.8], [0.05, 1.6], [0.15, 0.8], [0.05, 1.6], [0.15, 0.8], [0.05, 1.6], [0.35, 0.9142857142857143]]",
        "power.controller_command_uj=0.0",
        "power.dram_nj_per_kib=0.0",
    ]);
    let report = run(&scenario);
    let power = &report.power_w;
    assert!(report.flash.programs > 0 && report.flash.reads > 0);
    assert!(
        power.nand_peak >= power.nand_peak_window && power.nand_peak_window > power.nand_avg,
        "{power:?}"
    );
    assert!(power.total_peak > power.total_avg, "{power:?}");
    // The exact peak can never exceed every die at its highest current at once.
    let die_count = f64::from(dies(&scenario));
    let highest = scenario.power.vcc_v * scenario.power.icc_program_ma.for_type(0) * MILLI * 1.6;
    assert!(power.nand_peak <= die_count * highest + 1e-9, "{power:?}");
    let components = power.nand_avg + power.io_bus_avg + power.controller_avg + power.dram_avg + power.other_avg;
    assert!(relative_error(power.total_avg, components / scenario.power.regulator_efficiency) < 1e-9);
}

/// Die-bound random reads: 100 us sensing with a two-level profile, 10.8 us data out, one die
/// per channel so no die waits for its channel; with or without cache read.
fn die_bound_reads(cache_read: bool) -> (Scenario, Report) {
    let cache = format!("flash.cache_read={cache_read}");
    let scenario = scenario(&[
        "flash.channels=4",
        "flash.dies_per_chip=1",
        cache.as_str(),
        "host.queue_depth=64",
        "workload.read_fraction=1.0",
        "workload.io_count=20000",
        "flash.t_read=\"100us\"",
        "power.read_profile=[[0.2, 2.0], [0.8, 0.75]]",
    ]);
    let report = run(&scenario);
    (scenario, report)
}

/// Command cycles, sense time and one unit's data out of [`die_bound_reads`] [s].
fn read_times(scenario: &Scenario) -> (f64, f64, f64) {
    let command = scenario.flash.command_time.as_secs_f64();
    let t_read = scenario.flash.t_read.for_type(0).as_secs_f64();
    (command, t_read, channel_data_time(scenario, 1).as_secs_f64())
}

#[test]
fn saturated_random_reads_draw_the_dies_duty_cycle_power() {
    // Die-bound reads (100 us sensing, 10.8 us data out, one die per channel so no die waits for
    // its channel): each die reads back to back, so the NAND average is the dies' read duty-cycle
    // power within a few percent (start and end of the run are not saturated).
    let (scenario, report) = die_bound_reads(false);
    let powers = die_powers(&scenario);
    let (command, t_read, transfer) = read_times(&scenario);
    let cycle = command + t_read + transfer;
    let per_die =
        (powers.bus_idle * command + powers.read_average * t_read + (powers.bus_idle + powers.io_read) * transfer)
            / cycle;
    let expected = f64::from(dies(&scenario)) * per_die;
    eprintln!(
        "saturated reads: NAND average {:.4} W, duty-cycle model {expected:.4} W, die utilisation {:.3}",
        report.power_w.nand_avg, report.queues.die_utilization
    );
    assert!(report.queues.die_utilization > 0.97, "the dies are saturated");
    assert!(
        relative_error(report.power_w.nand_avg, expected) < 0.03,
        "NAND average {} W vs {expected} W",
        report.power_w.nand_avg
    );
    // The sensing peak (2x the average read current) on every die at once bounds the exact peak.
    assert!(report.power_w.nand_peak <= f64::from(dies(&scenario)) * 2.0 * powers.read_average + 1e-9);
}

#[test]
fn cache_read_overlaps_the_data_out_current_with_the_next_sense() {
    // The same die-bound reads with cache read: the data out runs during the next sense, so a
    // die's cycle is command + t_R and its I/O current adds to the sensing current meanwhile.
    let (scenario, report) = die_bound_reads(true);
    let powers = die_powers(&scenario);
    let (command, t_read, transfer) = read_times(&scenario);
    let cycle = command + t_read;
    let per_die = (powers.bus_idle * command + powers.read_average * t_read + powers.io_read * transfer) / cycle;
    let expected = f64::from(dies(&scenario)) * per_die;
    assert!(report.queues.die_utilization > 0.97, "the dies are saturated");
    assert!(
        relative_error(report.iops, f64::from(dies(&scenario)) / cycle) < 0.03,
        "{} IOPS against {} dies / (t_CMD + t_R)",
        report.iops,
        dies(&scenario)
    );
    assert!(
        relative_error(report.power_w.nand_avg, expected) < 0.03,
        "NAND average {} W vs {expected} W",
        report.power_w.nand_avg
    );
}

#[test]
fn cache_read_with_writes_gc_and_suspend_keeps_power_and_ftl_consistent() {
    // Reads overlap data out with the next sense, programs wait for the cache register, GC runs
    // and programs suspend for reads: the power model's own checks (debug assertions on every die
    // operation's end) hold, the FTL invariants hold, and the energies are positive.
    let scenario = scenario(&[
        "flash.cache_read=true",
        "flash.suspend.program=true",
        "workload.read_fraction=0.5",
        "workload.precondition=steady",
        "workload.io_count=30000",
        "host.queue_depth=32",
    ]);
    let mut simulation = ssdtwin_core::Simulation::new(&scenario).expect("valid scenario");
    let report = simulation.run(&mut |_| true).expect("the run completes");
    simulation.ftl().check_invariants().expect("FTL invariants");
    assert!(
        report.flash.gc_programs > 0 && report.suspend.program > 0,
        "GC and suspend ran"
    );
    assert!(report.energy_j.nand > 0.0 && report.power_w.nand_peak >= report.power_w.nand_avg);
}

#[test]
fn power_off_reports_zeros_and_changes_nothing_else() {
    let on = run(&scenario(&["workload.read_fraction=0.5", "host.queue_depth=8"]));
    let off = run(&scenario(&[
        "workload.read_fraction=0.5",
        "host.queue_depth=8",
        "power.enabled=false",
    ]));
    assert_eq!(off.energy_j.total, 0.0);
    assert!(off.timeseries.is_empty());
    assert!(on.energy_j.total > 0.0 && !on.timeseries.is_empty());
    assert_eq!(
        on.simulated_time_s, off.simulated_time_s,
        "power observes, never changes timing"
    );
    assert_eq!(on.latency_us, off.latency_us);
}

#[test]
fn suspended_programs_keep_the_power_accounts_consistent() {
    // Reads suspend programs and erases (the program-suspend paper): the held profile resumes and
    // ends with its operation (the model's debug checks would fail otherwise), and the series
    // still integrates to the energies.
    let scenario = scenario(&[
        "host.queue_depth=16",
        "workload.read_fraction=0.5",
        "workload.io_count=8000",
        "controller.scheduler=read_first",
        "flash.suspend.program=true",
        "flash.suspend.erase=true",
        "flash.suspend.max_per_operation=5",
        "power.icc_suspended_ma=1.0",
        "power.sample_interval=\"100us\"",
        "power.program_profile=[[0.25, 1.6], [0.25, 0.4], [0.25, 1.6], [0.25, 0.4]]",
    ]);
    let report = run(&scenario);
    assert!(report.suspend.program > 0, "programs were suspended");
    let power = &report.power_w;
    assert!(power.nand_peak >= power.nand_peak_window && power.nand_peak_window > power.nand_avg);
    let highest = scenario.power.vcc_v * scenario.power.icc_program_ma.for_type(0) * MILLI * 1.6;
    assert!(
        power.nand_peak <= f64::from(dies(&scenario)) * highest + 1e-9,
        "{power:?}"
    );
    let lengths = interval_lengths(&report, scenario.power.sample_interval);
    let integral: f64 = report.timeseries.power_w[5]
        .iter()
        .zip(&lengths)
        .map(|(p, t)| p * t)
        .sum();
    assert!(relative_error(integral, report.energy_j.total) < 1e-9);
}
