//! Host trims (deallocate; issue 29, docs/models/ftl.md): a trimmed unit is unmapped, a read of it
//! completes without a flash access, a write maps it again, and every source of trims (fio job
//! files, blkparse discards, the synthetic `workload.trim_fraction`) reaches the FTL.

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::ftl::mapping::NONE;
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};

use crate::workloads::scenario_in;
use crate::{folder, pcie_time, relative_error, scenario};

fn drain(live: &mut LiveSimulation) -> Vec<LiveCompletion> {
    let mut done = Vec::new();
    while live.step().unwrap() {}
    live.take_completions(&mut done);
    done
}

#[test]
fn a_trimmed_unit_is_unmapped_reads_without_flash_and_maps_again_when_written() {
    let scenario = scenario(&["host.queue_depth=1", "workload.precondition=fill"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    let logical = live.ftl().logical_units();
    assert_eq!(live.ftl().mapped_units(), logical, "a filled drive");
    live.submit(Time::ZERO, CommandSpec::io(false, true, 100, 64), 0);
    let done = drain(&mut live);
    // A trim moves no data and runs no flash operation: it completes once the controller has
    // taken the command (`host.command_overhead`).
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].at, Time::ZERO + scenario.host.command_overhead);
    let ftl = live.ftl();
    assert!((100..164).all(|unit| ftl.mapping.physical(unit) == NONE));
    assert_ne!(ftl.mapping.physical(99), NONE);
    assert_ne!(ftl.mapping.physical(164), NONE);
    assert_eq!(ftl.mapped_units(), logical - 64);
    ftl.check_invariants().unwrap();
    ftl.check_versions().unwrap();
    // Reads of trimmed units, one at a time: no flash read, each answered from the controller
    // (`controller.buffer_read_time`) and carried back over PCIe.
    let start = live.now() + Duration::from_micros(10);
    for tag in 1..=64u64 {
        let at = start + Duration::from_micros(100 * tag);
        live.submit(at, CommandSpec::io(true, false, 99 + tag as u32, 1), tag);
    }
    drain(&mut live);
    // Then a write of one trimmed unit maps it again.
    live.submit(live.now(), CommandSpec::io(false, false, 120, 1), 100);
    drain(&mut live);
    let ftl = live.ftl();
    assert_ne!(ftl.mapping.physical(120), NONE);
    assert_eq!(ftl.mapped_units(), logical - 63);
    ftl.check_invariants().unwrap();
    ftl.check_versions().unwrap();
    let report = live.finish();
    assert_eq!(report.flash.reads, 0, "no read of a trimmed unit reached flash");
    assert_eq!(report.ftl.trimmed_units, 64);
    assert_eq!(report.workload.jobs[0].trim.total_ios, 1);
    assert_eq!(report.workload.jobs[0].trim.io_bytes, 64 * 4096);
    assert_eq!(report.latency_us.read.count, 64);
    let expected = (scenario.host.command_overhead + scenario.controller.buffer_read_time + pcie_time(&scenario, 4096))
        .as_secs_f64()
        * 1e6;
    let read = &report.latency_us.read;
    assert!(
        relative_error(read.max, expected) < 0.002 && relative_error(read.p50, expected) < 0.002,
        "read of a trimmed unit: p50 {} us, max {} us, expected {expected} us",
        read.p50,
        read.max
    );
    assert_eq!(report.latency_us.write.count, 1, "the trim is not a write");
}

#[test]
fn a_trim_drops_a_buffered_write_it_overtakes() {
    // A write-back buffer far from its flush threshold holds the write; the trim that follows
    // drops it, so it is never programmed.
    let scenario = scenario(&[
        "host.queue_depth=1",
        "workload.precondition=fill",
        "buffer.capacity=1MiB",
    ]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    live.submit(Time::ZERO, CommandSpec::io(false, false, 7, 1), 0);
    drain(&mut live);
    live.submit(live.now(), CommandSpec::io(false, true, 7, 1), 1);
    drain(&mut live);
    assert_eq!(live.ftl().mapping.physical(7), NONE);
    let report = live.finish();
    let buffer = report.buffer.expect("the buffer is on");
    assert_eq!((buffer.writes, buffer.trimmed_units, buffer.held_units), (1, 1, 0));
    assert_eq!(buffer.flushed_units, 0);
}

#[test]
fn fio_trim_jobs_and_blkparse_discards_unmap_what_they_name() {
    let dir = folder("trim-sources");
    // fio: trim the second MiB in 64 KiB trims.
    std::fs::write(dir.join("t.fio"), "[t]\nrw=trim\nbs=64k\noffset=1m\nsize=1m\n").unwrap();
    let fio = scenario_in(&dir, &["workload.kind=fio", "workload.fio.job=t.fio"]).unwrap();
    let mut simulation = ssdtwin_core::Simulation::new(&fio).unwrap();
    let report = simulation.run(&mut |_| true).unwrap();
    assert_eq!(report.host_ios, 16);
    assert_eq!(report.ftl.trimmed_units, 256);
    let ftl = simulation.ftl();
    assert_eq!(ftl.mapped_units(), ftl.logical_units() - 256);
    assert!((256..512).all(|unit| ftl.mapping.physical(unit) == NONE));
    assert_eq!(
        report.flash.programs + report.flash.reads,
        0,
        "a trim runs no flash operation"
    );
    // blkparse: a discard of sectors 800..816 (units 100 and 101) between two writes.
    std::fs::write(
        dir.join("d.blkparse"),
        "  8,0  0  1  0.000001000  9  Q  W 0 + 8 [x]\n\
         \x20 8,0  0  2  0.000002000  9  Q  D 800 + 16 [fstrim]\n\
         \x20 8,0  0  3  0.000003000  9  Q  W 8 + 8 [x]\n",
    )
    .unwrap();
    let trace = scenario_in(
        &dir,
        &[
            "workload.kind=trace",
            "workload.trace.format=blkparse",
            "workload.trace.path=d.blkparse",
        ],
    )
    .unwrap();
    let mut simulation = ssdtwin_core::Simulation::new(&trace).unwrap();
    let report = simulation.run(&mut |_| true).unwrap();
    assert_eq!((report.host_ios, report.ftl.trimmed_units), (3, 2));
    assert_eq!(report.latency_us.write.count, 2);
    let ftl = simulation.ftl();
    assert_eq!((ftl.mapping.physical(100), ftl.mapping.physical(101)), (NONE, NONE));
    assert_ne!(ftl.mapping.physical(102), NONE);
}

#[test]
fn trim_fraction_out_of_range_is_an_error_naming_the_key() {
    for (settings, needle) in [
        (&["workload.trim_fraction=1.5"][..], "a fraction in [0, 1]"),
        (
            &["workload.read_fraction=0.7", "workload.trim_fraction=0.5"][..],
            "at most 1 - workload.read_fraction",
        ),
    ] {
        let dir = folder(&format!("trim-bad-{}", settings.len()));
        let error = scenario_in(&dir, settings).expect_err("out of range");
        assert_eq!(error.key, "workload.trim_fraction", "{settings:?}");
        assert!(error.message.contains(needle), "{settings:?}: {error}");
    }
}

#[test]
fn a_read_waiting_for_its_full_die_queue_reads_no_flash_once_its_unit_is_trimmed() {
    // One host operation per die queue: the second read of die 0 waits at the head of the host
    // queue while the first senses. A trim of the waiting read's unit arrives meanwhile (trims
    // are served when they arrive); when the die frees, the read must see its unit unmapped and
    // be answered from the controller, not read the old location (admission keeps what it looked
    // up for a read that waits, `controller/admission.rs`, and must notice the unit moved).
    let scenario = scenario(&[
        "host.queue_depth=8",
        "workload.precondition=fill",
        "controller.die_queue_depth=1",
    ]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    let ftl = live.ftl();
    let geometry = ftl.geometry;
    let die_and_page = |unit: u32| {
        let physical = ftl.mapping.physical(unit);
        (
            geometry.die_of_block(geometry.block_of_unit(physical)),
            physical / geometry.units_per_page,
        )
    };
    // Two units on die 0 in different pages (a read of the same page would share the sense).
    let first = (0..ftl.logical_units())
        .find(|&unit| die_and_page(unit).0 == 0)
        .unwrap();
    let second = (first + 1..ftl.logical_units())
        .find(|&unit| die_and_page(unit).0 == 0 && die_and_page(unit).1 != die_and_page(first).1)
        .unwrap();
    live.submit(Time::ZERO, CommandSpec::io(true, false, first, 1), 0);
    live.submit(Time::ZERO, CommandSpec::io(true, false, second, 1), 1);
    // Well inside the first read's sense (t_R is tens of microseconds).
    live.submit(
        Time::ZERO + Duration::from_micros(5),
        CommandSpec::io(false, true, second, 1),
        2,
    );
    let done = drain(&mut live);
    assert_eq!(done.len(), 3);
    assert_eq!(live.ftl().mapping.physical(second), NONE);
    let report = live.finish();
    assert_eq!(report.latency_us.read.count, 2);
    assert_eq!(report.flash.reads, 1, "only the first read reached flash");
}
