//! Submission queues of a live session (`sim/live.rs`, `LiveSimulation::open_queue`): each
//! caller's queue is arbitrated by `host.arbitration` as flows are, and reported as a job.

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::host::params::Priority;
use ssdtwin_core::sim::live::LiveSimulation;
use ssdtwin_core::Report;

use crate::scenario;

/// Two queues of the given classes, each a closed loop of `depth` 4 KiB random reads (a filled
/// drive: every read goes to flash, the die queues fill and commands wait for the arbiter),
/// until `commands` have completed; the session's report.
fn two_queues(arbitration: &str, classes: [Priority; 2], depth: u32, commands: u64) -> Report {
    let scenario = scenario(&[
        &format!("host.arbitration={arbitration}"),
        "host.queue_depth=64",
        "controller.die_queue_depth=2",
        "workload.precondition=fill",
    ]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    let queues = classes.map(|class| live.open_queue(class));
    assert_eq!(queues, [0, 1]);
    let units = (live.capacity_bytes() / live.unit_bytes()) as u32;
    let mut rng = Rng::stream(7, "live_queues");
    let next = |rng: &mut Rng| CommandSpec::io(true, false, rng.below(u64::from(units)) as u32, 1);
    let mut tag = 0u64;
    for _ in 0..depth {
        for queue in queues {
            // The tag's parity is its queue.
            live.submit_to(queue, live.now(), next(&mut rng), tag * 2 + u64::from(queue));
            tag += 1;
        }
    }
    let mut completed = 0;
    let mut done = Vec::new();
    while completed < commands {
        assert!(live.step().unwrap());
        live.take_completions(&mut done);
        for completion in done.drain(..) {
            completed += 1;
            let queue = (completion.tag % 2) as u32;
            live.submit_to(queue, live.now(), next(&mut rng), tag * 2 + u64::from(queue));
            tag += 1;
        }
    }
    while live.step().unwrap() {}
    live.finish()
}

fn mean_read_latency(report: &Report, job: usize) -> f64 {
    report.workload.jobs[job].read.lat_ns.mean
}

#[test]
fn an_urgent_queue_waits_less_than_a_low_one_under_weighted_round_robin() {
    let report = two_queues("weighted_round_robin", [Priority::Urgent, Priority::Low], 32, 6000);
    let jobs = &report.workload.jobs;
    assert_eq!((jobs[0].name.as_str(), jobs[1].name.as_str()), ("sq0", "sq1"));
    assert_eq!((jobs[0].priority, jobs[1].priority), (Some("urgent"), Some("low")));
    let (urgent, low) = (mean_read_latency(&report, 0), mean_read_latency(&report, 1));
    // Urgent commands are fetched first whenever the controller takes one: they wait for the
    // die, not for the other queue. A margin of 1.5x in the direction, not a measured figure.
    assert!(low > 1.5 * urgent, "urgent {urgent:.0} ns, low {low:.0} ns");
    assert!(jobs[0].read.total_ios > jobs[1].read.total_ios);
}

#[test]
fn queues_of_one_class_get_equal_service() {
    for (arbitration, classes) in [
        ("weighted_round_robin", [Priority::High, Priority::High]),
        ("round_robin", [Priority::Urgent, Priority::Low]),
    ] {
        let report = two_queues(arbitration, classes, 32, 6000);
        let (first, second) = (mean_read_latency(&report, 0), mean_read_latency(&report, 1));
        assert!(
            (first / second - 1.0).abs() < 0.1,
            "{arbitration} {classes:?}: {first:.0} ns against {second:.0} ns"
        );
    }
}

#[test]
fn a_closed_queue_is_reused_by_the_next_of_its_class() {
    let scenario = scenario(&["workload.precondition=none"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    assert_eq!(live.open_queue(Priority::Medium), 0);
    assert_eq!(live.open_queue(Priority::Low), 1);
    live.close_queue(1);
    assert_eq!(live.open_queue(Priority::Urgent), 2);
    assert_eq!(live.open_queue(Priority::Low), 1);
    assert_eq!(live.finish().workload.jobs.len(), 3);
}
