//! Flush and FUA (`controller/durability.rs`): without power-loss protection a Flush completes
//! once the writes acknowledged before it are programmed and a FUA write once its own units are;
//! with protection both complete at once; a power cut loses exactly the acknowledged writes that
//! are not yet programmed, never a flushed or FUA one.

use std::collections::{HashMap, HashSet};

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::flash::Timing;
use ssdtwin_core::ftl::mapping::NONE;
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::sim::scenario::Scenario;

use crate::scenario;

/// No hold-up capacitance: nothing volatile is protected.
const UNPROTECTED: &str = "plp.capacitance=0";
const BUFFERED: &str = "buffer.capacity=1MiB";
const LAST: Time = Time::from_nanos(40_000);

fn live(settings: &[&str]) -> (LiveSimulation, Scenario) {
    let mut all = vec!["host.queue_depth=64", "workload.precondition=none"];
    all.extend_from_slice(settings);
    let scenario = scenario(&all);
    (LiveSimulation::new(&scenario, &mut |_| true).unwrap(), scenario)
}

fn write(unit: u32, fua: bool) -> CommandSpec {
    CommandSpec {
        fua,
        ..CommandSpec::io(false, false, unit, 1)
    }
}

fn completions(live: &mut LiveSimulation) -> HashMap<u64, Time> {
    let mut done: Vec<LiveCompletion> = Vec::new();
    while live.step().unwrap() {}
    live.take_completions(&mut done);
    done.into_iter()
        .map(|completion| (completion.tag, completion.at))
        .collect()
}

/// The shortest page program of the scenario's cell: no wait for a program is shorter.
fn shortest_program(scenario: &Scenario) -> Duration {
    let geometry = ssdtwin_core::flash::Geometry::new(&scenario.flash, scenario.ftl.mapping_unit);
    let timing = Timing::new(&scenario.flash, &geometry);
    *timing.program.iter().min().unwrap()
}

/// Eight one-unit writes at time 0, then (tag 100) a Flush or a FUA write at [`LAST`], when
/// the eight are acknowledged.
fn writes_then(last: CommandSpec, settings: &[&str]) -> (HashMap<u64, Time>, Duration) {
    let (mut live, scenario) = live(settings);
    for unit in 0..8u32 {
        live.submit(Time::ZERO, write(unit * 3, false), u64::from(unit));
    }
    live.submit(LAST, last, 100);
    (completions(&mut live), shortest_program(&scenario))
}

#[test]
fn without_protection_a_flush_waits_for_a_program_and_with_it_completes_at_once() {
    for buffered in [false, true] {
        let mut unprotected = vec![UNPROTECTED];
        let mut protected = vec![];
        if buffered {
            unprotected.push(BUFFERED);
            protected.push(BUFFERED);
        }
        let (done, t_prog) = writes_then(CommandSpec::flush(), &unprotected);
        let writes = (0..8).map(|tag| done[&tag]).max().unwrap();
        let flush = done[&100];
        assert!(
            writes < LAST,
            "plain writes are acknowledged from DRAM (buffered {buffered})"
        );
        assert!(
            flush >= LAST + t_prog,
            "the flush waited for a program: {flush} vs t_PROG {t_prog} (buffered {buffered})"
        );
        let (done, _) = writes_then(CommandSpec::flush(), &protected);
        assert!(
            done[&100] < LAST + Duration::from_micros(20),
            "with the default capacitance the flush costs its command overhead: {} (buffered {buffered})",
            done[&100]
        );
    }
}

#[test]
fn a_fua_write_completes_once_programmed_a_plain_one_from_dram() {
    for buffered in [false, true] {
        let mut settings = vec![UNPROTECTED];
        if buffered {
            settings.push(BUFFERED);
        }
        let (done, t_prog) = writes_then(write(1000, true), &settings);
        assert!(done[&100] >= LAST + t_prog, "buffered {buffered}");
        let (done, _) = writes_then(write(1000, false), &settings);
        assert!(done[&100] < LAST + t_prog, "buffered {buffered}");
        let (done, _) = writes_then(write(1000, true), if buffered { &[BUFFERED] } else { &[] });
        assert!(
            done[&100] < LAST + t_prog,
            "protected: FUA from DRAM (buffered {buffered})"
        );
    }
}

/// A random mix of one-unit writes (some FUA, on units of their own) and Flushes over few units,
/// cut at `cut`. Returns
/// the lost units, the units whose latest acknowledged write a completed Flush or FUA made
/// durable, the units acknowledged, and (without a buffer) the units whose mapping points at
/// a page not yet programmed at the cut.
fn cut_mix(settings: &[&str], seed: u64, cut: Time) -> (HashSet<u32>, HashSet<u32>, HashSet<u32>, HashSet<u32>) {
    let (mut live, _) = live(settings);
    let mut rng = Rng::stream(seed, "durability-test");
    let mut commands: HashMap<u64, (CommandSpec, Time)> = HashMap::new();
    let mut at = Time::ZERO;
    for tag in 0..400u64 {
        at += Duration::from_nanos(rng.below(8_000));
        if at >= cut {
            break;
        }
        let command = if rng.below(10) == 0 {
            CommandSpec::flush()
        } else {
            // FUA writes have units of their own (48..64), so a unit's at-risk version is always
            // a plain write's.
            match rng.below(8) {
                0 => write(48 + rng.below(16) as u32, true),
                _ => write(rng.below(48) as u32, false),
            }
        };
        live.submit(at, command, tag);
        commands.insert(tag, (command, at));
    }
    live.advance_to(cut);
    let mut done = Vec::new();
    live.take_completions(&mut done);
    let completed: HashMap<u64, Time> = done.into_iter().map(|c| (c.tag, c.at)).collect();
    // Per unit, its latest acknowledged write (completion time, FUA).
    let mut latest: HashMap<u32, (Time, bool)> = HashMap::new();
    for (tag, &(command, _)) in &commands {
        if let (false, Some(&when)) = (command.flush, completed.get(tag)) {
            let entry = latest.entry(command.first_unit).or_insert((when, command.fua));
            if when >= entry.0 {
                *entry = (when, command.fua);
            }
        }
    }
    let flushes: Vec<Time> = commands
        .iter()
        .filter(|(tag, (command, _))| command.flush && completed.contains_key(tag))
        .map(|(_, &(_, arrived))| arrived)
        .collect();
    let durable: HashSet<u32> = latest
        .iter()
        .filter(|(_, &(when, fua))| fua || flushes.iter().any(|&arrived| arrived >= when))
        .map(|(&unit, _)| unit)
        .collect();
    let ftl = live.ftl();
    let unprogrammed: HashSet<u32> = latest
        .keys()
        .copied()
        .filter(|&unit| {
            let physical = ftl.mapping.physical(unit);
            physical != NONE && !ftl.is_programmed(physical)
        })
        .collect();
    let event = live.power_loss();
    let lost: HashSet<u32> = event.lost_lbas.into_iter().collect();
    (lost, durable, latest.keys().copied().collect(), unprogrammed)
}

#[test]
fn a_power_cut_loses_exactly_the_acknowledged_unprogrammed_writes_never_a_flushed_or_fua_one() {
    let mut lost_any = 0;
    for seed in 0..12u64 {
        let cut = Time::ZERO + Duration::from_micros(300 + 97 * seed);
        let (lost, durable, acknowledged, unprogrammed) = cut_mix(&[UNPROTECTED], seed, cut);
        assert_eq!(
            lost, unprogrammed,
            "seed {seed}: exactly the acknowledged units not on flash"
        );
        assert!(lost.iter().all(|&unit| unit < 48), "seed {seed}: a FUA unit was lost");
        assert!(
            lost.is_disjoint(&durable),
            "seed {seed}: a flushed or FUA write was lost"
        );
        lost_any += lost.len();
        let (lost, durable, acknowledged_buffered, _) = cut_mix(&[UNPROTECTED, BUFFERED], seed, cut);
        assert!(
            lost.is_disjoint(&durable),
            "seed {seed} buffered: a flushed or FUA write was lost"
        );
        assert!(
            lost.is_subset(&acknowledged_buffered),
            "seed {seed} buffered: only acknowledged units"
        );
        assert!(
            lost.iter().all(|&unit| unit < 48),
            "seed {seed} buffered: a FUA unit was lost"
        );
        lost_any += lost.len();
        assert!(!acknowledged.is_empty());
        let (lost, ..) = cut_mix(&[BUFFERED], seed, cut);
        assert!(lost.is_empty(), "seed {seed}: the default capacitance saves the buffer");
    }
    assert!(
        lost_any > 0,
        "the cuts must catch unprogrammed writes, or the test checks nothing"
    );
}
