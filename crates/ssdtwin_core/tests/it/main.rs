//! Integration tests.
//!
//! One test binary (docs/style.md): theory checks of latency, throughput and write
//! amplification against analytic models (`theory`), FTL invariants after long randomized runs
//! (`ftl_invariants`), reproducibility (`determinism`) and the host interface (`host`), block
//! mapping and BAST (`mappings`), channel-switch and page-register timing (`channel_timing`), and
//! the module layering of `src/` (`layers`).
//!
//! Every test runs a small drive built from [`BASE`] plus a few `key=value` overrides, so the
//! whole binary stays fast in debug builds and no test depends on the built-in default scenario.
//! Expected values are computed from the scenario with the helpers below, never hard-coded.

mod bounds;
mod channel_bound;
mod channel_timing;
mod codewords;
mod determinism;
mod drain;
mod dram;
mod durability;
mod fdp;
mod flow_sources;
mod flows;
mod ftl_invariants;
mod ftl_properties;
mod gc_pacing;
mod hardening;
mod host;
mod input_errors;
mod layers;
mod live;
mod live_queues;
mod loss;
mod mappings;
mod plane_balance;
mod power;
mod read_cache;
mod reliability;
mod reverse_map;
mod rmw;
mod same_page;
mod slc_blocks;
mod slc_cache;
mod source_scan;
mod steady;
mod steady_check;
mod suspend;
mod text_files;
mod theory;
mod theory_trim;
mod thermal;
mod trim;
mod warmup;
mod workloads;
mod zns;
mod zns_fio;

use std::path::PathBuf;

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::config::CellType;
use ssdtwin_core::{load, Override, Report, Scenario, ScenarioSource};

/// The small drive and workload every test starts from: 2 channels x 2 dies x 2 planes, TLC with
/// distinct read and program times per page type (48 pages per block, a multiple of the 3 page
/// types, so full blocks hold each type equally often), 4 KiB random reads of a filled drive at
/// queue depth 1. Every key a test relies on is spelt out, so a change of preset or default does
/// not silently change what a test measures.
pub const BASE: &str = r#"
seed = 1
drive = "enterprise_tlc"

[host]
queue_depth = 1
submission_interval = "0us"
pcie_generation = 3
pcie_lanes = 4
mode = "closed"
arrival_rate = 100000.0
command_overhead = "2us"

[controller]
frame_buffer = 1024
die_queue_depth = 64
scheduler = "fifo"
buffer_read_time = "1us"

[flash]
channels = 2
chips_per_channel = 1
dies_per_chip = 2
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 48
page_size = "16KiB"
parity_per_codeword = "224B"
cell = "tlc"
bus_rate = "400MT/s"
command_time = "300ns"
t_read = ["50us", "75us", "100us"]
t_program = ["1ms", "1.5ms", "2ms"]
t_erase = "5ms"
multi_plane = true
program_time_spread = 0.0

[ftl]
mapping = "page"
mapping_unit = "4KiB"
over_provisioning = 0.30
gc_threshold = 0.10
gc_policy = "greedy"

[workload]
kind = "synthetic"
read_fraction = 1.0
block_size = "4KiB"
pattern = "random"
distribution = "uniform"
span = 1.0
io_count = 10000
precondition = "fill"
steady_overwrites = 1.0
"#;

/// A fresh folder for one test's files, removed with everything in it when dropped; it reads as
/// the folder's `Path`.
#[derive(Debug)]
pub struct Folder(pub PathBuf);

impl std::ops::Deref for Folder {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new [`Folder`] under the system's temporary folder; `name` must be unique among the tests.
pub fn folder(name: &str) -> Folder {
    let path = std::env::temp_dir().join(format!("ssdtwin-it-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&path).unwrap();
    Folder(path)
}

/// [`BASE`] with `settings` (`"key.path=value"`, as `ssdtwin run --set`) applied.
pub fn scenario(settings: &[&str]) -> Scenario {
    scenario_from(BASE, settings)
}

/// The scenario text `base` with `settings` applied.
pub fn scenario_from<S: AsRef<str> + std::fmt::Debug>(base: &str, settings: &[S]) -> Scenario {
    let overrides: Vec<Override> = settings
        .iter()
        .map(|setting| {
            let setting = setting.as_ref();
            Override::parse(setting).unwrap_or_else(|error| panic!("bad override {setting}: {error}"))
        })
        .collect();
    let source = ScenarioSource::Text {
        toml: base.to_string(),
        base_dir: PathBuf::from("."),
    };
    load(&source, &overrides).unwrap_or_else(|error| panic!("scenario {settings:?} does not load: {error}"))
}

/// Runs `scenario` to completion.
pub fn run(scenario: &Scenario) -> Report {
    ssdtwin_core::run(scenario, &mut |_| true).unwrap_or_else(|error| panic!("run failed: {error}"))
}

/// The end of the run's flash work [s of simulated time]: the last host completion plus the drain
/// (`report.drain`), where the energy, the time series and the thermal model end.
pub fn drained_end_s(report: &Report) -> f64 {
    report.simulated_time_s + report.drain.as_ref().map_or(0.0, |drain| drain.time_s)
}

/// Number of page types of the scenario's cell (SLC 1 ... QLC 4).
pub fn page_types(scenario: &Scenario) -> usize {
    let cell: CellType = scenario.flash.cell;
    cell.page_types()
}

/// Dies in the array.
pub fn dies(scenario: &Scenario) -> u32 {
    let flash = &scenario.flash;
    flash.channels * flash.chips_per_channel * flash.dies_per_chip
}

/// Mapping units per flash page.
pub fn units_per_page(scenario: &Scenario) -> u64 {
    scenario.flash.page_size.bytes() / scenario.ftl.mapping_unit.bytes()
}

/// Channel time to move `units` mapping units with their ECC parity (8-bit bus: one byte per
/// transfer), rounded up to the nanosecond as the simulator does.
pub fn channel_data_time(scenario: &Scenario, units: u64) -> Duration {
    let bytes = units * (scenario.ftl.mapping_unit.bytes() + scenario.flash.parity_per_codeword.bytes());
    Duration::for_transfer(bytes, scenario.flash.bus_rate.per_second())
}

/// Usable bytes per second of one PCIe link direction, from the PCI-SIG base specifications and
/// written out here, not taken from the simulator (`host::pcie_bytes_per_second`): per-lane
/// transfer rate (2.5, 5, 8, 16, 32, 64 GT/s for generations 1 to 6) × line-code efficiency
/// (8b/10b for generations 1-2, 128b/130b for 3-5, 242/256 for the FLIT mode of 6) / 8 bits ×
/// lanes × TLP efficiency (a 256 B maximum payload carries about 24 B of header, sequence
/// number, LCRC and framing: 256/280).
pub fn pcie_bytes_per_second(generation: u8, lanes: u8) -> f64 {
    let (gigatransfers_per_second, encoding) = match generation {
        1 => (2.5, 8.0 / 10.0),
        2 => (5.0, 8.0 / 10.0),
        3 => (8.0, 128.0 / 130.0),
        4 => (16.0, 128.0 / 130.0),
        5 => (32.0, 128.0 / 130.0),
        6 => (64.0, 242.0 / 256.0),
        _ => panic!("PCIe generation {generation}: the tests know generations 1 to 6"),
    };
    gigatransfers_per_second * 1e9 * encoding / 8.0 * f64::from(lanes) * (256.0 / 280.0)
}

/// PCIe time to move `bytes` in one direction.
pub fn pcie_time(scenario: &Scenario, bytes: u64) -> Duration {
    Duration::for_transfer(
        bytes,
        pcie_bytes_per_second(scenario.host.pcie_generation, scenario.host.pcie_lanes),
    )
}

/// Latency of a read of one mapping unit on flash, in a page of type `page_type`, when nothing
/// else is going on: command overhead, command cycles, array read, data out over the channel,
/// data to the host over PCIe [us].
pub fn unloaded_read_us(scenario: &Scenario, page_type: usize) -> f64 {
    let latency = scenario.host.command_overhead
        + scenario.flash.command_time
        + scenario.flash.t_read.for_type(page_type)
        + channel_data_time(scenario, 1)
        + pcie_time(scenario, scenario.ftl.mapping_unit.bytes());
    latency.as_micros_f64()
}

/// [`unloaded_read_us`] averaged over page types (random reads hit each type equally often).
pub fn unloaded_read_mean_us(scenario: &Scenario) -> f64 {
    let types = page_types(scenario);
    (0..types)
        .map(|page_type| unloaded_read_us(scenario, page_type))
        .sum::<f64>()
        / types as f64
}

/// Mean of a per-page-type latency list [s].
pub fn mean_over_types(scenario: &Scenario, per_type: impl Fn(usize) -> Duration) -> f64 {
    let types = page_types(scenario);
    (0..types)
        .map(|page_type| per_type(page_type).as_secs_f64())
        .sum::<f64>()
        / types as f64
}

/// Relative difference of `measured` from `expected`.
pub fn relative_error(measured: f64, expected: f64) -> f64 {
    (measured - expected).abs() / expected
}
