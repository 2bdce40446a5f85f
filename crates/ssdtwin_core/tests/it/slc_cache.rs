//! The SLC write cache (docs/models/slc_cache.md): the cliff at the configured size (a closed
//! form of the keys), folding's die time, energy and SLC erases, recovery after idle, the `wait`
//! policy, and a cache that is off changing nothing.

use ssdtwin_core::Report;

use crate::{folder, run, scenario};

/// [`crate::BASE`]'s drive with 256 blocks per plane (4 dies x 2 planes x 256 blocks x 48 pages
/// of 16 KiB, TLC: room for a static region of tens of MiB in SLC mode beside the logical
/// capacity) under sequential 128 KiB writes of an empty drive at queue depth 8, with `settings`
/// added.
fn writes(settings: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = [
        "host.queue_depth=8",
        "flash.blocks_per_plane=256",
        "workload.read_fraction=0.0",
        "workload.block_size=\"128KiB\"",
        "workload.pattern=\"sequential\"",
        "workload.precondition=\"none\"",
        "workload.io_count=768",
        "power.enabled=true",
        "slc_cache.t_program=\"200us\"",
        "slc_cache.t_read=\"30us\"",
        "slc_cache.t_erase=\"3ms\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(settings.iter().map(|s| s.to_string()));
    all
}

fn run_with(settings: &[String]) -> Report {
    let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
    run(&scenario(&settings))
}

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;
/// One program of the base drive: a 16 KiB page in each of 2 planes.
const PROGRAM_BYTES: f64 = 32.0 * 1024.0;

#[test]
fn the_cliff_comes_at_the_static_size_and_later_writes_go_direct() {
    let report = run_with(&writes(&["slc_cache.enabled=true", "slc_cache.static_size=\"32MiB\""]));
    let slc = report.slc_cache.as_ref().expect("an slc_cache block");
    // Closed form: the cache takes whole programs while they fit in 32 MiB.
    let expected = (32.0 * MIB / PROGRAM_BYTES).floor() * PROGRAM_BYTES;
    let written = slc.slc_written_gib * GIB;
    assert!(
        (written - expected).abs() <= PROGRAM_BYTES,
        "{written} B in SLC, expected {expected}"
    );
    let total = 768.0 * 128.0 * 1024.0;
    assert!(((slc.slc_written_gib + slc.direct_written_gib) * GIB - total).abs() < 1.0);
    assert_eq!(slc.cliff_entries, 1);
    assert!(slc.cliff_time_s > 0.0);
    assert_eq!(slc.fold_programs, 0, "no idle time: nothing folds under `direct`");
}

#[test]
fn a_full_dynamic_share_is_a_third_of_the_free_tlc_blocks_capped_by_dynamic_max() {
    let report = run_with(&writes(&["slc_cache.enabled=true", "slc_cache.dynamic_share=1.0"]));
    // All 4 x 2 x 256 blocks of 48 x 16 KiB are free at the start: a third of them as SLC.
    let raw = 4.0 * 2.0 * 256.0 * 48.0 * 16384.0;
    let initial = report.slc_cache.as_ref().unwrap().initial_size_gib * GIB;
    assert!(
        (initial - raw / 3.0).abs() < 4096.0,
        "{initial} B, expected {}",
        raw / 3.0
    );
    // After a fill of the logical space (70% of the raw, `ftl.over_provisioning = 0.30`) only
    // the spare 30% (less open blocks) is free: the dynamic cache starts at about 30% of its size.
    let filled = run_with(&writes(&[
        "slc_cache.enabled=true",
        "slc_cache.dynamic_share=1.0",
        "workload.precondition=\"fill\"",
    ]));
    let after_fill = filled.slc_cache.as_ref().unwrap().initial_size_gib * GIB / initial;
    assert!(
        after_fill > 0.2 && after_fill < 0.31,
        "{after_fill} of the empty drive's cache"
    );
    let capped = run_with(&writes(&[
        "slc_cache.enabled=true",
        "slc_cache.dynamic_share=1.0",
        "slc_cache.dynamic_max=\"16MiB\"",
        "slc_cache.static_size=\"8MiB\"",
    ]));
    let initial = capped.slc_cache.as_ref().unwrap().initial_size_gib * GIB;
    assert!((initial - 24.0 * MIB).abs() < 1.0);
}

#[test]
fn host_writes_in_slc_run_faster_than_direct_writes() {
    // All in SLC (a dynamic cache of the empty drive, larger than the run) against all direct
    // (a cache smaller than one program).
    let fast = run_with(&writes(&["slc_cache.enabled=true", "slc_cache.dynamic_share=1.0"]));
    assert_eq!(fast.slc_cache.as_ref().unwrap().direct_written_gib, 0.0);
    let slow = run_with(&writes(&["slc_cache.enabled=true", "slc_cache.static_size=\"4KiB\""]));
    assert_eq!(slow.slc_cache.as_ref().unwrap().slc_written_gib, 0.0);
    // SLC programs (200 us) against TLC programs (1 to 2 ms): several times the bandwidth.
    assert!(
        fast.bandwidth_mib_s > 3.0 * slow.bandwidth_mib_s,
        "{} against {} MiB/s",
        fast.bandwidth_mib_s,
        slow.bandwidth_mib_s
    );
    // The SLC run's NAND energy is lower: shorter programs at the same current.
    assert!(fast.energy_j.nand < slow.energy_j.nand);
}

/// Two bursts of `burst` sequential 128 KiB writes (SPC trace), the second `gap_s` after the start.
fn two_bursts(name: &str, burst: u64, gap_s: f64, settings: &[&str]) -> (Report, crate::Folder) {
    let dir = folder(name);
    let mut text = String::new();
    for index in 0..2 * burst {
        let time = if index < burst { 0.0 } else { gap_s };
        text.push_str(&format!("0,{},131072,w,{time:.6}\n", index * 256));
    }
    std::fs::write(dir.join("bursts.spc"), text).unwrap();
    let mut all = writes(settings);
    all.extend(
        [
            "workload.kind=\"trace\"",
            "workload.trace.format=\"spc\"",
            "workload.trace.replay=\"timed\"",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    all.push(format!("workload.trace.path=\"{}\"", dir.join("bursts.spc").display()));
    (run_with(&all), dir)
}

#[test]
fn idle_folding_empties_the_cache_and_costs_die_time_energy_and_slc_erases() {
    let keys = [
        "slc_cache.enabled=true",
        "slc_cache.static_size=\"32MiB\"",
        "slc_cache.idle_delay=\"1ms\"",
    ];
    // 256 writes of 128 KiB (32 MiB) fill the cache; 2 s of idle time fold it all.
    let (folding, _dir) = two_bursts("slc-fold", 256, 2.0, &keys);
    let slc = folding.slc_cache.as_ref().unwrap();
    let expected = (32.0 * MIB / PROGRAM_BYTES).floor() * PROGRAM_BYTES;
    assert!(
        slc.folded_gib * GIB >= expected - PROGRAM_BYTES,
        "{} GiB folded",
        slc.folded_gib
    );
    assert!(slc.fold_die_time_s > 0.0);
    // Every 48 / 3 = 16 SLC pages folded in a plane free an SLC block; 2 planes per program, so
    // the 8 planes fold alike.
    let folded_pages = slc.folded_gib * GIB / 16384.0;
    let per_plane_blocks = (folded_pages / 8.0 / 16.0).floor();
    assert!(
        slc.slc_erases as f64 >= 8.0 * per_plane_blocks,
        "{} SLC erases",
        slc.slc_erases
    );
    // The same run without idle folding (a delay longer than the gap).
    let (resting, _dir2) = two_bursts(
        "slc-rest",
        256,
        2.0,
        &[keys[0], keys[1], "slc_cache.idle_delay=\"10s\""],
    );
    let rest = resting.slc_cache.as_ref().unwrap();
    assert_eq!(rest.fold_programs, 0);
    assert!(
        folding.energy_j.nand > resting.energy_j.nand,
        "folding costs NAND energy"
    );
    assert!(folding.flash.erases + slc.slc_erases > resting.flash.erases + rest.slc_erases);
    // Recovery: after folding the second burst lands in SLC again; without it, it goes direct.
    assert!(
        slc.slc_written_gib > 1.9 * expected / GIB,
        "{} GiB in SLC",
        slc.slc_written_gib
    );
    assert!(rest.direct_written_gib * GIB > 0.9 * 32.0 * MIB);
}

#[test]
fn the_wait_policy_never_writes_direct_and_folds_in_the_foreground() {
    let report = run_with(&writes(&[
        "slc_cache.enabled=true",
        "slc_cache.static_size=\"32MiB\"",
        "slc_cache.cliff=\"wait\"",
    ]));
    let slc = report.slc_cache.as_ref().unwrap();
    assert_eq!(slc.direct_written_gib, 0.0);
    let beyond = 768.0 * 128.0 * 1024.0 - 32.0 * MIB;
    assert!(
        slc.folded_gib * GIB > 0.5 * beyond,
        "{} GiB folded in the foreground",
        slc.folded_gib
    );
}

/// The report as JSON without what depends on the wall clock or names the keys.
fn comparable(report: &Report) -> serde_json::Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().unwrap();
    for key in ["config", "wall_time_s", "simulator"] {
        object.remove(key);
    }
    json
}

#[test]
fn a_disabled_cache_changes_nothing_and_an_enabled_one_is_deterministic() {
    let plain = run_with(&writes(&[]));
    let off = run_with(&writes(&[
        "slc_cache.static_size=\"32MiB\"",
        "slc_cache.cliff=\"wait\"",
    ]));
    assert!(off.slc_cache.is_none());
    assert_eq!(comparable(&plain), comparable(&off));
    let on = writes(&["slc_cache.enabled=true", "slc_cache.static_size=\"32MiB\""]);
    assert_eq!(comparable(&run_with(&on)), comparable(&run_with(&on)));
}

#[test]
fn enabling_the_cache_on_an_slc_drive_is_an_error_naming_the_key() {
    let source = ssdtwin_core::ScenarioSource::Text {
        toml: crate::BASE.to_string(),
        base_dir: std::path::PathBuf::from("."),
    };
    let overrides: Vec<_> = [
        "slc_cache.enabled=true",
        "slc_cache.static_size=\"1MiB\"",
        "flash.cell=\"slc\"",
        "flash.t_read=\"50us\"",
        "flash.t_program=\"1ms\"",
    ]
    .iter()
    .map(|s| ssdtwin_core::Override::parse(s).unwrap())
    .collect();
    let error = ssdtwin_core::load(&source, &overrides).unwrap_err().to_string();
    assert!(error.contains("slc_cache.enabled"), "{error}");
}
