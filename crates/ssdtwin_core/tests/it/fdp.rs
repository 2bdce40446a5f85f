//! Flexible Data Placement (docs/models/fdp.md): flows with placement identifiers write their own
//! reclaim units, persistently isolated handles keep GC's copies apart, the per-handle figures add
//! up to the drive's, FDP without identifiers is the drive without FDP, and bad keys are named.

use serde_json::Value;
use ssdtwin_core::ftl::mapping::NONE;
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource, Simulation};

use crate::{run, scenario};

/// Writes only, no preconditioning: every unit's data comes from a flow (four handles, so that
/// persistently isolated ones fit the spare blocks of a 64-block plane).
const WRITES: [&str; 4] = [
    "fdp.handles=4",
    "workload.read_fraction=0.0",
    "workload.precondition=none",
    "ftl.gc_pacing=threshold",
];

/// Commands of the runs that compare WAF: 2.5 times the drive's 98,304 physical units, so GC
/// runs for most of the run.
const LONG: u64 = 250_000;

/// Two flows on disjoint ranges: a hot 20% of the space written by flow 0 at queue depth 4, the
/// other 80% by flow 1 at depth 1; `placement` adds their identifiers 0 and 1.
fn hot_and_cold(placement: bool, commands: u64) -> String {
    let (hot, cold) = if placement {
        (", placement = 0", ", placement = 1")
    } else {
        ("", "")
    };
    format!(
        "workload.flows=[{{name = \"hot\", span = 0.2, queue_depth = 4, io_count = {}{hot}}}, \
         {{name = \"cold\", offset = 0.2, span = 0.8, queue_depth = 1, io_count = {}{cold}}}]",
        commands * 4 / 5,
        commands / 5
    )
}

fn fdp_scenario(settings: &[&str]) -> Scenario {
    let mut all: Vec<&str> = WRITES.to_vec();
    all.push("workload.io_count=0");
    all.extend_from_slice(settings);
    scenario(&all)
}

/// The report as JSON without wall-clock figures and, when `drop_fdp`, without the FDP keys.
fn simulated(report: &Report, drop_fdp: bool) -> Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().unwrap();
    object.remove("wall_time_s");
    let simulator = object.get_mut("simulator").and_then(Value::as_object_mut).unwrap();
    for field in [
        "precondition_wall_s",
        "run_wall_s",
        "ios_per_wall_s",
        "end_to_end_ios_per_wall_s",
    ] {
        simulator.remove(field);
    }
    if drop_fdp {
        object.remove("fdp");
        object
            .get_mut("config")
            .and_then(Value::as_object_mut)
            .unwrap()
            .remove("fdp");
    }
    json
}

#[test]
fn fdp_without_placement_identifiers_runs_as_the_drive_without_fdp() {
    let flows = hot_and_cold(false, LONG);
    let off = run(&fdp_scenario(&[&flows]));
    let on = run(&fdp_scenario(&[&flows, "fdp.enabled=true"]));
    assert!(off.ftl.valid_page_copies > 0, "the run reaches GC");
    assert_eq!(simulated(&off, true), simulated(&on, true));
    let fdp = on.fdp.as_ref().expect("an fdp block with fdp.enabled");
    assert_eq!(fdp.handles[0].host_bytes, on.ftl.host_write_bytes, "all on handle 0");
    assert!(off.fdp.is_none());
}

#[test]
fn per_handle_bytes_add_up_to_the_drives_and_identifiers_lower_the_waf() {
    let mixed = run(&fdp_scenario(&[&hot_and_cold(false, LONG), "fdp.enabled=true"]));
    for handle_type in ["initially_isolated", "persistently_isolated"] {
        let kind = format!("fdp.handle_type={handle_type}");
        let report = run(&fdp_scenario(&[&hot_and_cold(true, LONG), "fdp.enabled=true", &kind]));
        let fdp = report.fdp.as_ref().unwrap();
        let host: u64 = fdp.handles.iter().map(|handle| handle.host_bytes).sum();
        let media: u64 = fdp.handles.iter().map(|handle| handle.media_bytes).sum();
        assert_eq!(host, report.ftl.host_write_bytes, "{handle_type}");
        assert_eq!(media, report.ftl.media_write_bytes, "{handle_type}");
        let copies = report.ftl.valid_page_copies * 4096;
        if handle_type == "persistently_isolated" {
            assert_eq!(fdp.shared_gc_media_bytes, 0);
        } else {
            assert_eq!(fdp.shared_gc_media_bytes, copies, "every GC copy in the shared units");
        }
        assert!(fdp.handles[0].host_bytes > 0 && fdp.handles[1].host_bytes > 0);
        assert!(fdp.handles[2..]
            .iter()
            .all(|handle| handle.host_bytes == 0 && handle.media_bytes == 0));
        // Hot and cold data apart: less GC than with both in one frontier.
        assert!(
            report.waf < mixed.waf,
            "{handle_type}: WAF {} with identifiers, {} without",
            report.waf,
            mixed.waf
        );
    }
}

#[test]
fn persistently_isolated_handles_never_share_a_block_after_gc() {
    let scenario = fdp_scenario(&[
        &hot_and_cold(true, LONG),
        "fdp.enabled=true",
        "fdp.handle_type=persistently_isolated",
    ]);
    let mut simulation = Simulation::new(&scenario).unwrap();
    let report = simulation.run(&mut |_| true).unwrap();
    assert!(report.ftl.valid_page_copies > 0, "GC relocated data");
    let ftl = simulation.ftl();
    let fdp = ftl.fdp.as_deref().unwrap();
    let boundary = (f64::from(ftl.logical_units()) * 0.2).floor() as u32;
    let geometry = ftl.geometry;
    let mut checked = 0;
    for block in 0..geometry.blocks() {
        let first = geometry.unit_address(block, 0, 0);
        for unit in first..first + geometry.units_per_block() {
            let logical = ftl.mapping.logical(unit);
            if logical == NONE || ftl.mapping.physical(logical) != unit {
                continue;
            }
            let handle = u16::from(logical >= boundary);
            assert_eq!(fdp.owner(block), handle, "unit {logical} in block {block}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn fdp_runs_are_deterministic() {
    let scenario = fdp_scenario(&[
        &hot_and_cold(true, 20_000),
        "fdp.enabled=true",
        "fdp.handle_type=persistently_isolated",
    ]);
    assert_eq!(simulated(&run(&scenario), false), simulated(&run(&scenario), false));
}

#[test]
fn bad_fdp_keys_are_named_with_what_is_allowed() {
    let flows = hot_and_cold(true, 100);
    let cases: [(&[&str], &str, &str); 12] = [
        (
            &[
                "fdp.enabled=true",
                "fdp.handles=8",
                "fdp.handle_type=persistently_isolated",
            ],
            "fdp.handles",
            "fewer handles",
        ),
        (&["fdp.enabled=true", "fdp.handles=0"], "fdp.handles", "1 to 256"),
        (
            &["fdp.enabled=true", "fdp.reclaim_unit=per_chip"],
            "fdp.reclaim_unit",
            "per_die",
        ),
        // Blocks of 48 pages of 16 KiB are 768 KiB: 1 MiB is no whole number of them, 3 blocks
        // do not divide the 8 planes.
        (
            &["fdp.enabled=true", "fdp.reclaim_unit=1MiB"],
            "fdp.reclaim_unit",
            "whole number",
        ),
        (
            &["fdp.enabled=true", "fdp.reclaim_unit=2304KiB"],
            "fdp.reclaim_unit",
            "does not divide",
        ),
        (
            &["fdp.enabled=true", "fdp.reclaim_groups=2"],
            "fdp.reclaim_groups",
            "allowed: 1",
        ),
        (
            &["fdp.enabled=true", "fdp.handles=1", &flows],
            "workload.flows[1].placement",
            "0 to 0",
        ),
        (&[&flows], "workload.flows[0].placement", "fdp.enabled = true"),
        (
            &["fdp.enabled=true", "ftl.mapping=block", "ftl.mapping_unit=16KiB"],
            "fdp.enabled",
            "page",
        ),
        (
            &["fdp.enabled=true", "fdp.handle_type=isolated"],
            "fdp.handle_type",
            "persistently_isolated",
        ),
        (
            &[
                "fdp.enabled=true",
                "slc_cache.enabled=true",
                "slc_cache.dynamic_share=1",
            ],
            "fdp.enabled",
            "slc_cache.enabled = false",
        ),
        (
            &["fdp.enabled=true", "zns.enabled=true"],
            "fdp.enabled",
            "one of the two",
        ),
    ];
    for (settings, key, allowed) in cases {
        let overrides: Vec<Override> = WRITES
            .iter()
            .chain(settings.iter())
            .map(|text| Override::parse(text).unwrap())
            .collect();
        let base = crate::BASE.to_string();
        let error = load(
            &ScenarioSource::Text {
                toml: base,
                base_dir: std::env::temp_dir(),
            },
            &overrides,
        )
        .and_then(|scenario| Simulation::new(&scenario).map(|_| ()))
        .expect_err(&format!("{settings:?} is refused"))
        .to_string();
        assert!(error.contains(key) && error.contains(allowed), "{settings:?}: {error}");
    }
    let offset = "workload.flows=[{offset = 0.5, span = 0.6, io_count = 10}]";
    let error = Simulation::new(&fdp_scenario(&[offset])).unwrap_err().to_string();
    assert!(
        error.contains("workload.flows[0].offset") && error.contains("offset + span <= 1"),
        "{error}"
    );
}

/// An SPC trace of two ASUs: ASU 0 rewrites a hot 1 MiB again and again (short-lived data), ASU 1
/// writes 24 MiB once (long-lived), interleaved, with reads of ASU 1 between; sizes of 4 to 32
/// KiB, 4 KiB aligned. Returns the text and the bytes each ASU writes.
fn two_asu_trace() -> (String, [u64; 2]) {
    let mut lines = Vec::new();
    let mut written = [0u64; 2];
    let (mut hot, mut cold) = (0u64, 0u64);
    for step in 0u64..4000 {
        let size = 4096 * (1 + step % 8);
        let time = step as f64 * 1e-5;
        if step % 3 == 2 {
            // ASU 1, sequential, 24 MiB at most.
            if cold + size <= 24 << 20 {
                lines.push(format!("1,{},{size},w,{time:.6}", (16 << 20) / 512 + cold / 512));
                written[1] += size;
                cold += size;
            } else {
                lines.push(format!("1,{},4096,r,{time:.6}", (16 << 20) / 512));
            }
        } else {
            if hot + size > 1 << 20 {
                hot = 0;
            }
            lines.push(format!("0,{},{size},W,{time:.6}", hot / 512));
            written[0] += size;
            hot += size;
        }
    }
    (lines.join("\n") + "\n", written)
}

fn trace_scenario(dir: &std::path::Path, trace: &str, settings: &[&str]) -> Result<Scenario, String> {
    let path = dir.join("two.spc");
    std::fs::write(&path, trace).unwrap();
    let path_key = format!("workload.trace.path=\"{}\"", path.display());
    let mut all = vec![
        "fdp.enabled=true",
        "fdp.handles=4",
        "workload.precondition=none",
        "ftl.gc_pacing=threshold",
        "workload.kind=\"trace\"",
        "workload.trace.format=\"spc\"",
        "workload.trace.replay=\"as_fast_as_possible\"",
        "workload.trace.placement=\"device\"",
        path_key.as_str(),
    ];
    all.extend_from_slice(settings);
    let overrides: Vec<Override> = all.iter().map(|text| Override::parse(text).unwrap()).collect();
    load(
        &ScenarioSource::Text {
            toml: crate::BASE.to_string(),
            base_dir: dir.to_path_buf(),
        },
        &overrides,
    )
    .map_err(|error| error.to_string())
}

#[test]
fn an_spc_trace_s_asus_write_to_their_own_handles_byte_for_byte() {
    let dir = crate::folder("fdp-trace-asu");
    let (trace, written) = two_asu_trace();
    let report = run(&trace_scenario(&dir, &trace, &[]).unwrap());
    let fdp = report.fdp.as_ref().expect("an fdp block");
    let bytes: Vec<u64> = fdp.handles.iter().map(|handle| handle.host_bytes).collect();
    assert_eq!(bytes, [written[0], written[1], 0, 0]);
    assert!(written[0] > written[1], "the hot ASU writes more");
    // Without the key every write is handle 0's.
    let plain = run(&trace_scenario(&dir, &trace, &["workload.trace.placement=\"none\""]).unwrap());
    let handles = &plain.fdp.as_ref().unwrap().handles;
    assert_eq!(handles[0].host_bytes, written[0] + written[1]);
}

#[test]
fn trace_placement_errors_name_the_line_the_key_and_what_is_allowed() {
    let dir = crate::folder("fdp-trace-errors");
    let trace = "0,0,4096,w,0.0\n5,8,4096,w,0.1\n";
    let scenario = trace_scenario(&dir, trace, &[]).unwrap();
    let error = ssdtwin_core::run(&scenario, &mut |_| true).unwrap_err().to_string();
    assert!(
        error.contains("two.spc:2")
            && error.contains("device 5")
            && error.contains("allowed: 0 to 3 (fdp.handles = 4)"),
        "{error}"
    );
    for (settings, wanted) in [
        (&["workload.trace.format=\"blkparse\""][..], "no device column"),
        (&["fdp.enabled=false"][..], "with fdp.enabled = false"),
    ] {
        let error = trace_scenario(&dir, trace, settings).unwrap_err();
        assert!(
            error.contains("workload.trace.placement") && error.contains(wanted),
            "{error}"
        );
    }
}
