//! Program and erase suspend, pinned to the nanosecond with the die-level harness, and the
//! read-first scheduler's age bound.
//!
//! The drive is one die on one channel of [`BASE`](super::BASE): TLC upper-page program 2 ms in 16
//! ISPP steps of 125 us, centre-page read 75 us, erase 5 ms in 5 pulses of 1 ms, enter 60 us,
//! resume 10 us, no extra ISPP time on resume unless a test sets it.

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::sim::harness::DieHarness;
use ssdtwin_core::Scenario;

use super::{channel_data_time, scenario};

const UPPER: u8 = 2;
const CENTRE: u8 = 1;

fn one_die(extra: &[&str]) -> Scenario {
    let mut settings = vec![
        "flash.channels=1",
        "flash.dies_per_chip=1",
        "flash.suspend.program=true",
        "flash.suspend.erase=true",
        "flash.suspend.max_per_operation=5",
        "flash.suspend.erase_max_per_operation=5",
        "flash.suspend.enter_time=\"60us\"",
        "flash.suspend.resume_time=\"10us\"",
        "flash.suspend.resume_extra_time=0", // enterprise_tlc's 0.0625: set where a test asks
        "flash.suspend.erase_enter_time=\"60us\"",
        "flash.suspend.erase_resume_time=\"10us\"",
        "flash.suspend.program_pulses=16",
        "flash.suspend.erase_pulses=5",
        "flash.suspend.reads_per_suspend=8",
    ];
    settings.extend_from_slice(extra);
    scenario(&settings)
}

fn us(micros: u64) -> Duration {
    Duration::from_micros(micros)
}

/// When a program issued at time zero on the idle die starts its array phase: command cycles and
/// the page of data in over the channel.
fn array_start(scenario: &Scenario) -> Time {
    let units = scenario.flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes();
    Time::ZERO + scenario.flash.command_time + channel_data_time(scenario, units)
}

/// Command cycles, centre-page sense and one mapping unit out: a read on an idle die.
fn read_service(scenario: &Scenario) -> Duration {
    scenario.flash.command_time + us(75) + channel_data_time(scenario, 1)
}

#[test]
fn a_read_during_a_program_suspends_it_at_the_end_of_the_pulse() {
    let scenario = one_die(&[]);
    let start = array_start(&scenario);
    let mut harness = DieHarness::new(&scenario).unwrap();
    let program = harness.program(Time::ZERO, 0, UPPER);
    // 300 us into the program: inside the third 125 us step, which ends at 375 us.
    let read = harness.read(start + us(300), 0, CENTRE);
    let result = harness.run();

    let read_done = start + us(375) + us(60) + read_service(&scenario);
    assert_eq!(result.completions[read], read_done);
    // The program ends later by the enter time, the time suspended and the resume time.
    let suspended = read_service(&scenario);
    assert_eq!(
        result.completions[program],
        start + us(2_000) + us(60) + suspended + us(10)
    );
    assert_eq!(result.suspend.program, 1);
    assert_eq!(result.suspend.per_program, vec![0, 1]);
    let expected_tpgm_s = (us(2_000) + us(60) + suspended + us(10)).as_micros_f64();
    assert!((result.suspend.mean_program_time_us - expected_tpgm_s).abs() < 1e-6);
}

#[test]
fn each_resume_adds_the_extra_ispp_time_to_the_program() {
    // The same read as above with `resume_extra_time` = 125 us (one step; 0.0625 as a fraction
    // of the 2 ms program): the read is served as before, the program ends 125 us later, and
    // tPGM,s grows by as much.
    for extra in [
        "flash.suspend.resume_extra_time=\"125us\"",
        "flash.suspend.resume_extra_time=0.0625",
    ] {
        let scenario = one_die(&[extra]);
        let start = array_start(&scenario);
        let mut harness = DieHarness::new(&scenario).unwrap();
        let program = harness.program(Time::ZERO, 0, UPPER);
        let read = harness.read(start + us(300), 0, CENTRE);
        let result = harness.run();

        let suspended = read_service(&scenario);
        assert_eq!(
            result.completions[read],
            start + us(375) + us(60) + suspended,
            "{extra}"
        );
        let tpgm_s = us(2_000) + us(60) + suspended + us(10) + us(125);
        assert_eq!(result.completions[program], start + tpgm_s, "{extra}");
        assert!((result.suspend.mean_program_time_us - tpgm_s.as_micros_f64()).abs() < 1e-6);
    }
}

#[test]
fn without_suspend_the_read_waits_for_the_whole_program() {
    for off in [
        &["flash.suspend.program=false"][..],
        &["flash.suspend.max_per_operation=0"][..],
    ] {
        let scenario = one_die(off);
        let start = array_start(&scenario);
        let mut harness = DieHarness::new(&scenario).unwrap();
        let program = harness.program(Time::ZERO, 0, UPPER);
        let read = harness.read(start + us(300), 0, CENTRE);
        let result = harness.run();
        assert_eq!(result.completions[program], start + us(2_000), "{off:?}");
        assert_eq!(
            result.completions[read],
            start + us(2_000) + read_service(&scenario),
            "{off:?}"
        );
        assert_eq!(result.suspend.program, 0);
    }
}

#[test]
fn the_limit_of_suspensions_per_program_is_kept() {
    let scenario = one_die(&["flash.suspend.max_per_operation=2"]);
    let start = array_start(&scenario);
    let mut harness = DieHarness::new(&scenario).unwrap();
    let program = harness.program(Time::ZERO, 0, UPPER);
    // Reads well apart, each after the previous suspension has resumed.
    let reads: Vec<usize> = [100, 600, 1_100]
        .iter()
        .map(|&offset| harness.read(start + us(offset), 0, CENTRE))
        .collect();
    let result = harness.run();
    assert_eq!(result.suspend.program, 2);
    let service = read_service(&scenario);
    let overhead = us(60) + service + us(10);
    // First read: step ends at 125 us.
    assert_eq!(result.completions[reads[0]], start + us(125) + us(60) + service);
    // Second: the program resumed at 125 + overhead - 10 and its steps are 125 us from there.
    let resumed = start + us(125) + overhead;
    let elapsed = (start + us(600)).since(resumed).as_nanos();
    let steps = elapsed.div_ceil(us(125).as_nanos());
    let second_stop = resumed + Duration::from_nanos(steps * us(125).as_nanos());
    assert_eq!(result.completions[reads[1]], second_stop + us(60) + service);
    // Third: no suspension left, it waits for the end of the program.
    let program_end = start + us(2_000) + overhead + overhead;
    assert_eq!(result.completions[program], program_end);
    assert_eq!(result.completions[reads[2]], program_end + service);
}

#[test]
fn a_read_in_the_last_pulse_does_not_suspend() {
    let scenario = one_die(&[]);
    let start = array_start(&scenario);
    let mut harness = DieHarness::new(&scenario).unwrap();
    let program = harness.program(Time::ZERO, 0, UPPER);
    let read = harness.read(start + us(1_900), 0, CENTRE);
    let result = harness.run();
    assert_eq!(result.suspend.program, 0);
    assert_eq!(result.completions[program], start + us(2_000));
    assert_eq!(result.completions[read], start + us(2_000) + read_service(&scenario));
}

#[test]
fn reads_per_suspension_are_bounded_and_the_rest_suspend_again() {
    let scenario = one_die(&["flash.suspend.reads_per_suspend=2"]);
    let start = array_start(&scenario);
    let mut harness = DieHarness::new(&scenario).unwrap();
    let program = harness.program(Time::ZERO, 0, UPPER);
    let reads: Vec<usize> = (0..3).map(|_| harness.read(start + us(50), 0, CENTRE)).collect();
    let result = harness.run();
    let service = read_service(&scenario);
    let first_free = start + us(125) + us(60);
    assert_eq!(result.completions[reads[0]], first_free + service);
    assert_eq!(result.completions[reads[1]], first_free + service + service);
    // The third waits for the resume plus one more step, then a second suspension.
    let resumed_steps = first_free + service + service + us(10);
    assert_eq!(result.completions[reads[2]], resumed_steps + us(125) + us(60) + service);
    assert_eq!(result.suspend.program, 2);
    let overhead_one = us(60) + service + service + us(10);
    let overhead_two = us(60) + service + us(10);
    assert_eq!(
        result.completions[program],
        start + us(2_000) + overhead_one + overhead_two
    );
}

#[test]
fn an_erase_is_suspended_at_the_end_of_its_pulse() {
    let scenario = one_die(&[]);
    let erase_start = Time::ZERO + scenario.flash.command_time;
    let mut harness = DieHarness::new(&scenario).unwrap();
    let erase = harness.erase(Time::ZERO, 0);
    // 2.5 ms into a 5 ms erase of five 1 ms pulses: the third pulse ends at 3 ms.
    let read = harness.read(erase_start + us(2_500), 0, CENTRE);
    let result = harness.run();
    let service = read_service(&scenario);
    assert_eq!(result.completions[read], erase_start + us(3_000) + us(60) + service);
    assert_eq!(
        result.completions[erase],
        erase_start + us(5_000) + us(60) + service + us(10)
    );
    assert_eq!(result.suspend.erase, 1);
    assert_eq!(result.suspend.program, 0);
}

#[test]
fn erase_suspend_has_its_own_switch() {
    let scenario = one_die(&["flash.suspend.erase=false"]);
    let erase_start = Time::ZERO + scenario.flash.command_time;
    let mut harness = DieHarness::new(&scenario).unwrap();
    let erase = harness.erase(Time::ZERO, 0);
    let read = harness.read(erase_start + us(2_500), 0, CENTRE);
    let result = harness.run();
    assert_eq!(result.completions[erase], erase_start + us(5_000));
    assert_eq!(
        result.completions[read],
        erase_start + us(5_000) + read_service(&scenario)
    );
}

#[test]
fn enter_time_as_a_fraction_of_the_program_time() {
    // 3% of a 2 ms program is 60 us: the same timing as the fixed 60 us.
    let scenario = one_die(&["flash.suspend.enter_time=0.03"]);
    let start = array_start(&scenario);
    let mut harness = DieHarness::new(&scenario).unwrap();
    harness.program(Time::ZERO, 0, UPPER);
    let read = harness.read(start + us(300), 0, CENTRE);
    let result = harness.run();
    assert_eq!(
        result.completions[read],
        start + us(375) + us(60) + read_service(&scenario)
    );
}

#[test]
fn fifo_keeps_arrival_order_and_read_first_overtakes() {
    // Two programs then a read, all queued at once, no suspend: FIFO serves the read last,
    // read-first serves it before the second program.
    for (scheduler, read_before_second) in [("fifo", false), ("read_first", true)] {
        let scenario = one_die(&[
            "flash.suspend.program=false",
            &format!("controller.scheduler=\"{scheduler}\""),
        ]);
        let mut harness = DieHarness::new(&scenario).unwrap();
        let first = harness.program(Time::ZERO, 0, UPPER);
        let second = harness.program(Time::ZERO, 0, UPPER);
        let read = harness.read(Time::ZERO, 0, CENTRE);
        let result = harness.run();
        assert_eq!(
            result.completions[read] < result.completions[second],
            read_before_second,
            "{scheduler}"
        );
        assert!(result.completions[first] < result.completions[read]);
    }
}

#[test]
fn read_first_age_limit_lets_a_waiting_program_go_first() {
    // A program waiting behind a long stream of reads: without a bound it runs after all of them;
    // with a 300 us bound it goes once it has waited that long.
    let reads_at = |harness: &mut DieHarness| -> Vec<usize> {
        (0..20)
            .map(|index| harness.read(Time::ZERO + us(10 * index), 0, CENTRE))
            .collect()
    };
    let finish = |age: &str| {
        let scenario = one_die(&[
            "flash.suspend.program=false",
            "controller.scheduler=\"read_first\"",
            &format!("controller.read_first_age_limit=\"{age}\""),
        ]);
        let mut harness = DieHarness::new(&scenario).unwrap();
        let reads = reads_at(&mut harness);
        let program = harness.program(Time::ZERO + us(1), 0, UPPER);
        let result = harness.run();
        let last_read = reads.iter().map(|&read| result.completions[read]).max().unwrap();
        (result.completions[program], last_read)
    };
    let (unbounded_program, unbounded_last_read) = finish("0us");
    assert!(
        unbounded_program > unbounded_last_read,
        "without a bound every read goes first"
    );
    let (bounded_program, bounded_last_read) = finish("300us");
    assert!(
        bounded_program < bounded_last_read,
        "the starved program overtakes the later reads"
    );
    assert!(bounded_program < unbounded_program);
}

#[test]
fn urgent_gc_is_neither_overtaken_nor_suspended() {
    // Reads first and suspend on: host reads overtake GC reads and suspend GC programs, so GC
    // falls behind. With urgent GC, a die short of free blocks serves GC first and does not
    // suspend it: more GC work gets done in the same run, and fewer GC programs are suspended.
    let run_with = |urgent: &str| {
        let scenario = scenario(&[
            "workload.read_fraction=0.5",
            "workload.precondition=steady",
            "workload.io_count=100000",
            "host.queue_depth=32",
            "controller.scheduler=read_first",
            "flash.suspend.program=true",
            "flash.suspend.erase=true",
            &format!("ftl.gc_urgent_threshold={urgent}"),
        ]);
        super::run(&scenario)
    };
    let off = run_with("0.0");
    let on = run_with("0.1");
    assert!(
        on.flash.gc_programs > off.flash.gc_programs,
        "GC programs: {} with urgent GC, {} without",
        on.flash.gc_programs,
        off.flash.gc_programs
    );
    assert!(
        on.flash.erases > off.flash.erases,
        "erases: {} vs {}",
        on.flash.erases,
        off.flash.erases
    );
}
