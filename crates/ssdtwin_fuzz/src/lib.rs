//! Fuzz targets for every parser that takes user input, each a function from arbitrary bytes that
//! must return (with an error or not) and never panic, hang or allocate without bound:
//!
//! | target | input | path exercised |
//! |---|---|---|
//! | [`scenario`] | `set key=value` lines, then scenario TOML | `load` as `ssdtwin run` calls it (TOML, presets, merge, `--set`, validation), then the drive is assembled if it is small |
//! | [`trace`] | one byte of options, then a trace file | each trace reader, the filters, the address mapping, arrivals |
//! | [`fio`] | an fio job file | the job parser, then 2,000 I/Os of the job streams |
//! | [`snapshot`] | a drive snapshot file | the loader (magic, header, drive keys, FTL state, CRC), then a short run on what loaded |
//! | [`nbd`] | a client's byte stream | the NBD server's parsers in the order a session meets them (client flags, options and their data, request headers, payload lengths, request checks) and the data store with the requests that pass |
//!
//! Sweep files are parsed in Python and fuzzed there (`python/fuzz_sweep.py`, `scripts/fuzz.sh`).
//! `src/bin/` wraps each target for AFL++ (`cargo afl build --features afl`); `tests/replay.rs`
//! runs every seed and every regression input through the same functions in `cargo test`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ssdtwin_core::base::time::{Duration as SimDuration, Time};
use ssdtwin_core::workload::fio::{parse as parse_fio, FioWorkload};
use ssdtwin_core::workload::params::{AddressMap, TraceConfig, TraceFormat};
use ssdtwin_core::workload::trace::TraceSource;
use ssdtwin_core::{load, Override, Scenario, ScenarioSource, Simulation};

/// Largest drive a fuzzed scenario may assemble [physical pages]: bigger drives are only
/// validated, since building one costs memory in proportion (bounded by the core's own check).
const MAX_FUZZED_PAGES: u64 = 1 << 16;
/// Wall time a snapshot that loads may simulate.
const RUN_BUDGET: Duration = Duration::from_millis(100);

/// Scenario text after optional leading `set key=value` lines (the `--set` overrides).
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut overrides = Vec::new();
    let mut rest = text;
    while let Some(line) = rest.strip_prefix("set ") {
        let (setting, after) = line.split_once('\n').unwrap_or((line, ""));
        if let Ok(parsed) = Override::parse(setting) {
            overrides.push(parsed);
        }
        rest = after;
    }
    let source = ScenarioSource::Text {
        toml: rest.to_string(),
        base_dir: PathBuf::from("."),
    };
    let Ok(scenario) = load(&source, &overrides) else {
        return;
    };
    if physical_pages(&scenario) <= MAX_FUZZED_PAGES {
        let _ = Simulation::new(&scenario);
    }
}

fn physical_pages(scenario: &Scenario) -> u64 {
    let flash = &scenario.flash;
    [
        flash.channels,
        flash.chips_per_channel,
        flash.dies_per_chip,
        flash.planes_per_die,
        flash.blocks_per_plane,
        flash.pages_per_block,
    ]
    .iter()
    .fold(1u64, |product, &count| product.saturating_mul(u64::from(count)))
}

/// A scratch file of this process, rewritten by each input of a target that reads files.
fn scratch(target: &str, data: &[u8]) -> Option<PathBuf> {
    // Memory-backed where there is one: a target writes its file at every execution.
    let shm = Path::new("/dev/shm");
    let folder = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let path = folder.join(format!("ssdtwin-fuzz-{target}-{}", std::process::id()));
    let mut file = std::fs::File::create(&path).ok()?;
    file.write_all(data).ok()?;
    Some(path)
}

/// Byte 0: the format (low 3 bits), the address map (bits 3-4) and lenient parsing (bit 7);
/// then the trace file.
pub fn trace(data: &[u8]) {
    let Some((&options, content)) = data.split_first() else {
        return;
    };
    let format = match options & 0b111 {
        0 => TraceFormat::Msr,
        1 => TraceFormat::Spc,
        2 => TraceFormat::Blkparse,
        3 => TraceFormat::Disksim,
        _ => TraceFormat::FioIolog,
    };
    let address_map = match (options >> 3) & 0b11 {
        0 => AddressMap::Wrap,
        1 => AddressMap::Scale,
        _ => AddressMap::Error,
    };
    let Some(path) = scratch("trace", content) else {
        return;
    };
    let config = TraceConfig {
        format,
        path: path.display().to_string(),
        address_map,
        lenient: options & 0x80 != 0,
        ..TraceConfig::default()
    };
    let Ok(mut source) = TraceSource::new(&config, 4096, 1 << 16) else {
        return;
    };
    for _ in 0..100_000 {
        match source.next_request() {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
}

/// An fio job file, then the first 2,000 I/Os of each of its jobs.
pub fn fio(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = parse_fio(text, "fuzz.fio", 1 << 30, true) else {
        return;
    };
    let mut workload = FioWorkload::new(file, 4096, 1);
    let jobs = workload.jobs().count();
    if jobs == 0 {
        return;
    }
    let mut now = Time::ZERO;
    for step in 0..2_000 {
        now += SimDuration::from_nanos(1_000);
        let _ = workload.next(step % jobs, now);
    }
}

/// The small drive the snapshot target loads into (2 channels, 1 die, 16 blocks of 16 pages).
pub fn snapshot_scenario() -> Scenario {
    let overrides: Vec<Override> = [
        "flash.channels=2",
        "flash.dies_per_chip=1",
        "flash.planes_per_die=1",
        "flash.blocks_per_plane=16",
        "flash.pages_per_block=16",
        "workload.io_count=64",
        "workload.precondition=\"fill\"",
    ]
    .iter()
    .map(|text| Override::parse(text).expect("a valid override"))
    .collect();
    load(&ScenarioSource::Default, &overrides).expect("the snapshot scenario loads")
}

/// Writes a valid snapshot of [`snapshot_scenario`]'s drive to `path` (the target's seed).
pub fn write_snapshot_seed(path: &Path) -> Result<(), String> {
    let mut simulation = Simulation::new(&snapshot_scenario()).map_err(|error| error.to_string())?;
    simulation
        .save_snapshot(path, &mut |_| true)
        .map_err(|error| error.to_string())
}

/// A snapshot file loaded into [`snapshot_scenario`]'s drive; what loads is then run briefly.
/// The drive is built once per process and reused while loads fail (a failed load leaves it
/// built afresh), so an execution costs the load, not the assembly.
pub fn snapshot(data: &[u8]) {
    static DRIVE: Mutex<Option<Simulation>> = Mutex::new(None);
    let Some(path) = scratch("snapshot", data) else {
        return;
    };
    let mut drive = DRIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if drive.is_none() {
        *drive = Simulation::new(&snapshot_scenario()).ok();
    }
    let Some(simulation) = drive.as_mut() else {
        return;
    };
    if simulation.load_snapshot(&path).is_ok() {
        let mut loaded = drive.take().expect("the drive is built");
        let started = Instant::now();
        let _ = loaded.run(&mut |_| started.elapsed() < RUN_BUDGET);
    }
}

/// A client's side of an NBD session: client flags, options until `NBD_OPT_GO` (or the bytes run
/// out), then request headers with their payloads, each through the server's parser and checks;
/// the reads, writes, trims and zeroings that pass go to a small data store.
pub fn nbd(data: &[u8]) {
    use ssdtwin_nbd::protocol as wire;
    use ssdtwin_nbd::store::Store;

    let mut rest = data;
    let mut take = |count: usize| -> Option<&[u8]> {
        let (head, tail) = rest.split_at_checked(count)?;
        rest = tail;
        Some(head)
    };
    let Some(flags) = take(4) else {
        return;
    };
    if wire::parse_client_flags(flags.try_into().expect("4 bytes")).is_err() {
        return;
    }
    loop {
        let Some(header) = take(16) else {
            return;
        };
        let Ok((option, length)) = wire::parse_option_header(header.try_into().expect("16 bytes")) else {
            return;
        };
        let Some(option_data) = take(length as usize) else {
            return;
        };
        match option {
            wire::OPT_GO if wire::parse_info_request(option_data).is_ok() => break,
            wire::OPT_INFO => {
                let _ = wire::parse_info_request(option_data);
            }
            wire::OPT_EXPORT_NAME if wire::parse_name(option_data).is_ok() => break,
            wire::OPT_ABORT => return,
            _ => {}
        }
    }
    const EXPORT_BYTES: u64 = 1 << 30;
    let sizes = wire::BlockSizes {
        minimum: 512,
        preferred: 4096,
        maximum: 1 << 20,
    };
    let mut store = Store::new(1 << 22);
    let mut buffer = vec![0u8; sizes.maximum as usize];
    while let Some(header) = take(wire::REQUEST_BYTES) {
        let Ok(request) = wire::parse_request(header.try_into().expect("a request header")) else {
            return;
        };
        let Ok(payload) = wire::payload_length(&request, sizes.maximum) else {
            return;
        };
        let Some(payload) = take(payload as usize) else {
            return;
        };
        match wire::check_request(&request, EXPORT_BYTES, sizes) {
            Ok(wire::Command::Read) => store.read(request.offset, &mut buffer[..request.length as usize]),
            Ok(wire::Command::Write { .. }) => {
                let _ = store.write(request.offset, payload);
            }
            Ok(wire::Command::Trim { .. } | wire::Command::WriteZeroes { .. }) => {
                store.zero(request.offset, u64::from(request.length));
            }
            Ok(wire::Command::Disconnect) => return,
            Ok(wire::Command::Flush) | Err(_) => {}
        }
    }
}
