//! Reads of one page queued at a die are served by one sense (`controller/dies.rs`, `start_op`),
//! also since the die keeps a per-page-bucket count of its queued reads to skip looking for them.

use ssdtwin_core::base::time::Time;
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::LiveSimulation;

use crate::scenario;

/// Flash reads (senses) for 4 KiB reads of `units` of a filled drive, all submitted at once.
fn senses_for(units: &[u32]) -> u64 {
    let scenario = scenario(&["host.queue_depth=16"]);
    let mut live = LiveSimulation::new(&scenario, &mut |_| true).expect("valid scenario");
    for (tag, &unit) in units.iter().enumerate() {
        live.submit(Time::ZERO, CommandSpec::io(true, false, unit, 1), tag as u64);
    }
    while live.step().expect("runs") {}
    let report = live.finish();
    assert_eq!(report.host_ios, units.len() as u64);
    report.flash.reads
}

#[test]
fn queued_reads_of_one_page_share_the_sense_after_the_first() {
    // A 16 KiB page holds units 0-3 of the filled drive: the first read starts on the idle die
    // alone; the other three queue behind it and the next of them to start serves all three.
    assert_eq!(senses_for(&[0, 1, 2, 3]), 2);
}

#[test]
fn reads_of_different_pages_each_sense() {
    // Units 4 apart are on different pages: no read serves another.
    assert_eq!(senses_for(&[0, 4, 8, 12, 16, 20, 24, 28]), 8);
}
