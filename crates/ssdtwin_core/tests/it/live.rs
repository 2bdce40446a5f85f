//! Live sessions (`sim/live.rs`): commands handed in with their arrival times complete once each,
//! with their tags, and a closed loop driven through the live API is the run of the same workload.

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::{Report, Simulation};

use crate::{relative_error, run, scenario};

fn drain(live: &mut LiveSimulation) -> Vec<LiveCompletion> {
    let mut done = Vec::new();
    while live.step().unwrap() {}
    live.take_completions(&mut done);
    done
}

#[test]
fn each_live_command_completes_once_with_its_tag_after_its_arrival() {
    let scenario = scenario(&["host.queue_depth=8", "workload.precondition=fill"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    for tag in 0..200u64 {
        let command = CommandSpec {
            is_read: tag % 3 == 0,
            trim: false,
            flush: false,
            fua: false,
            first_unit: (tag * 7) as u32,
            units: 1 + (tag % 4) as u32,
            head_gap: 0,
            tail_gap: 0,
            placement: 0,
        };
        live.submit(Time::ZERO + Duration::from_micros(tag), command, tag);
    }
    let done = drain(&mut live);
    assert_eq!(live.outstanding(), 0);
    let mut tags: Vec<u64> = done.iter().map(|completion| completion.tag).collect();
    tags.sort_unstable();
    assert_eq!(tags, (0..200).collect::<Vec<_>>());
    for completion in &done {
        assert!(completion.at > Time::ZERO + Duration::from_micros(completion.tag));
    }
    let report = live.finish();
    assert_eq!(report.host_ios, 200);
    assert!(report.latency_us.read.count > 0 && report.latency_us.write.count > 0);
}

#[test]
fn a_live_step_stops_at_the_first_completion_instant() {
    let scenario = scenario(&["host.queue_depth=32", "workload.precondition=none"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    for tag in 0..8u64 {
        let command = CommandSpec {
            is_read: false,
            trim: false,
            flush: false,
            fua: false,
            first_unit: tag as u32 * 100,
            units: 1,
            head_gap: 0,
            tail_gap: 0,
            placement: 0,
        };
        live.submit(Time::ZERO, command, tag);
    }
    assert!(live.step().unwrap());
    let mut first = Vec::new();
    live.take_completions(&mut first);
    assert!(!first.is_empty());
    assert!(first.iter().all(|completion| completion.at == live.now()));
    assert_eq!(live.outstanding() as usize, 8 - first.len());
    assert!(live.next_event_time().is_some_and(|next| next > live.now()));
}

#[test]
fn a_closed_loop_through_the_live_api_is_the_run() {
    // 4 KiB random writes at queue depth 32, once as a run, once through the live API with each
    // command replaced by a new one at the instant it completes. 60,000 commands (0.9 of the
    // logical space): over the first 20,000 the two address streams' IOPS differ by up to 4.6%
    // after the statistical `steady` (GC's first victims depend on which units each stream
    // rewrites first), by 0.3% over 60,000.
    let commands = 60_000u64;
    let settings = [
        "host.queue_depth=32",
        "workload.read_fraction=0.0",
        "workload.precondition=steady",
        "workload.io_count=60000",
    ];
    let scenario = scenario(&settings);
    let report = run(&scenario);
    let logical = Simulation::new(&scenario).unwrap().ftl().logical_units();
    let mut rng = Rng::stream(9, "test");
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).unwrap();
    let mut next = |live: &mut LiveSimulation, at: Time, tag: u64| {
        let command = CommandSpec {
            is_read: false,
            trim: false,
            flush: false,
            fua: false,
            first_unit: rng.below(u64::from(logical)) as u32,
            units: 1,
            head_gap: 0,
            tail_gap: 0,
            placement: 0,
        };
        live.submit(at, command, tag);
    };
    let mut issued = 0u64;
    while issued < 32 {
        next(&mut live, Time::ZERO, issued);
        issued += 1;
    }
    let mut done = Vec::new();
    while live.step().unwrap() {
        done.clear();
        live.take_completions(&mut done);
        for completion in &done {
            if issued < commands {
                next(&mut live, completion.at, issued);
                issued += 1;
            }
        }
    }
    let session: Report = live.finish();
    assert_eq!(session.host_ios, commands);
    eprintln!(
        "run {:.0} IOPS, mean {:.1} us; live {:.0} IOPS, mean {:.1} us",
        report.iops, report.latency_us.write.mean, session.iops, session.latency_us.write.mean
    );
    assert!(relative_error(session.iops, report.iops) < 0.03);
    assert!(relative_error(session.latency_us.write.mean, report.latency_us.write.mean) < 0.03);
}
