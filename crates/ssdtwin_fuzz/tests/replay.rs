//! Every seed and every regression input of each fuzz target through the target's function, as
//! the fuzzer runs it: a panic here is a fuzz finding come back. Regressions are the inputs that
//! once crashed or hung a target (`regressions/<target>/`, kept forever; `scripts/fuzz.sh` says
//! how to add one).

use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    for folder in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() && path.file_name().is_some_and(|name| name != "README.md") {
                inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    inputs.sort();
    inputs
}

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let inputs = inputs(target);
    for (name, bytes) in &inputs {
        eprintln!("{name}");
        run(bytes);
    }
    inputs.len()
}

#[test]
fn scenario_seeds_and_regressions() {
    assert!(replay("scenario", ssdtwin_fuzz::scenario) >= 3);
}

#[test]
fn trace_seeds_and_regressions() {
    assert!(replay("trace", ssdtwin_fuzz::trace) >= 5);
}

#[test]
fn fio_seeds_and_regressions() {
    assert!(replay("fio", ssdtwin_fuzz::fio) >= 2);
}

#[test]
fn snapshot_seed_loads_and_damaged_copies_do_not_panic() {
    let path = std::env::temp_dir().join(format!("ssdtwin-fuzz-seed-{}.snap", std::process::id()));
    ssdtwin_fuzz::write_snapshot_seed(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let mut simulation = ssdtwin_core::Simulation::new(&ssdtwin_fuzz::snapshot_scenario()).unwrap();
    simulation.load_snapshot(&path).expect("the seed snapshot loads");
    std::fs::remove_file(&path).unwrap();
    ssdtwin_fuzz::snapshot(&bytes);
    for cut in [0, 10, bytes.len() / 3, bytes.len() - 1] {
        ssdtwin_fuzz::snapshot(&bytes[..cut]);
    }
    replay("snapshot", ssdtwin_fuzz::snapshot);
}

#[test]
fn nbd_seeds_and_regressions() {
    assert!(replay("nbd", ssdtwin_fuzz::nbd) >= 2);
}
