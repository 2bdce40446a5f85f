//! `ssdtwin-cli`: run a scenario or the benchmark from Rust, without Python.
//!
//! `ssdtwin-cli run [SCENARIO] [--set KEY=VALUE]...` prints the report as JSON.
//! `ssdtwin-cli bench read|write` runs one benchmark case (see `BENCHMARK.md`) and prints
//! simulated host I/Os per wall-clock second and peak memory.
//! `ssdtwin-cli soak` runs a long mixed workload and checks that memory stays flat and the FTL's
//! invariants hold at the end (`scripts/soak.sh`).
//! `ssdtwin-cli serve [SCENARIO] --nbd --socket PATH` serves the drive over NBD (see
//! docs/guide/nbd.md); Ctrl-C (or `--once`, after the last client) writes the report.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use ssdtwin_core::{load, Override, ScenarioSource, Simulation};

#[derive(Parser)]
#[command(
    name = "ssdtwin-cli",
    version,
    about = "ssdtwin without Python: run scenarios and the benchmark"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (the built-in default without a file) and print its report as JSON.
    Run {
        scenario: Option<PathBuf>,
        /// Override a scenario key, e.g. `--set flash.channels=8`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// Serve the scenario's drive as a Network Block Device; at Ctrl-C (or with `--once` when the
    /// last client leaves) write the session's report.
    Serve {
        scenario: Option<PathBuf>,
        /// Serve over the NBD protocol (the only protocol so far).
        #[arg(long, required = true)]
        nbd: bool,
        /// Listen on this Unix socket.
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// Listen on this TCP address, e.g. 127.0.0.1:10809 (port 0: any free port).
        #[arg(long, value_name = "ADDRESS")]
        listen: Option<std::net::SocketAddr>,
        /// `virtual`: reply as soon as the model has the completion; `real`: at its simulated time.
        #[arg(long, value_enum, default_value = "virtual")]
        pace: PaceArg,
        /// Write the report (the schema of `run`) to this file at the end.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Record the requests as an MSR Cambridge trace, replayable with `run`.
        #[arg(long, value_name = "FILE")]
        record_trace: Option<PathBuf>,
        /// Most written data kept in memory, e.g. 4GiB.
        #[arg(long, default_value = "4GiB")]
        store_cap: String,
        /// End when the last client has disconnected.
        #[arg(long)]
        once: bool,
        /// Cut the power at this simulated time, e.g. 5ms: connections drop, the lost LBAs are logged.
        #[arg(long, value_name = "TIME")]
        power_loss_at: Option<String>,
        /// Priority class of a connection to the default export (urgent, high, medium, low); a
        /// connection to the export named after a class gets that class.
        #[arg(long = "class", value_name = "CLASS", default_value = "medium")]
        class: String,
        /// Override a scenario key, e.g. `--set flash.channels=8`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// Run one benchmark case and print I/Os per wall-clock second and peak memory.
    Bench {
        case: BenchCase,
        /// Host commands to simulate.
        #[arg(long, default_value_t = 2_000_000)]
        io_count: u64,
        /// Extra overrides (e.g. `--set flash.blocks_per_plane=256` for a quick check).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
    /// Soak: a long 70/30 mixed run with GC on a mid-size drive; prints resident memory at each
    /// tenth of the run and fails if it grows more than 2% after the first tenth or if the FTL's
    /// invariants do not hold at the end.
    Soak {
        /// Host commands to simulate.
        #[arg(long, default_value_t = 100_000_000)]
        io_count: u64,
        /// Extra overrides.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        overrides: Vec<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum PaceArg {
    Virtual,
    Real,
}

#[derive(Clone, Copy, ValueEnum)]
enum BenchCase {
    /// 4 KiB random reads at QD 64 on a filled enterprise_tlc drive.
    Read,
    /// 4 KiB random writes at QD 64 on a steady-state enterprise_tlc drive, GC running.
    Write,
    /// 4 KiB random reads and writes (50/50) at QD 64 on a filled enterprise_tlc drive: one
    /// submission queue, the single-queue case beside `flows`.
    Mixed,
    /// The `mixed` work as four flows of QD 16 each (classes high, medium, medium, low) under
    /// weighted round robin: the multi-queue path's cost.
    Flows,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn parse_overrides(texts: &[String]) -> Result<Vec<Override>, String> {
    texts
        .iter()
        .map(|text| Override::parse(text).map_err(|error| error.to_string()))
        .collect()
}

fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Run { scenario, overrides } => {
            let source = scenario.map_or(ScenarioSource::Default, ScenarioSource::File);
            let scenario = load(&source, &parse_overrides(&overrides)?).map_err(|error| error.to_string())?;
            let report = ssdtwin_core::run(&scenario, &mut |_| true).map_err(|error| error.to_string())?;
            println!("{}", serde_json::to_string_pretty(&report.to_json()).expect("JSON"));
            Ok(())
        }
        Command::Bench {
            case,
            io_count,
            overrides,
        } => bench(case, io_count, &overrides),
        Command::Soak { io_count, overrides } => soak(io_count, &overrides),
        Command::Serve {
            scenario,
            nbd: _,
            socket,
            listen,
            pace,
            json,
            record_trace,
            store_cap,
            once,
            power_loss_at,
            class,
            overrides,
        } => {
            let source = scenario.map_or(ScenarioSource::Default, ScenarioSource::File);
            let scenario = load(&source, &parse_overrides(&overrides)?).map_err(|error| error.to_string())?;
            let store_cap = ssdtwin_core::base::units::parse_byte_size(&store_cap)
                .map_err(|error| format!("--store-cap: {error}"))?
                .0;
            let options = ssdtwin_nbd::ServeOptions {
                socket,
                listen,
                pace: match pace {
                    PaceArg::Virtual => ssdtwin_nbd::Pace::Virtual,
                    PaceArg::Real => ssdtwin_nbd::Pace::Real,
                },
                store_cap,
                once,
                record_trace,
                power_loss_at: power_loss_at
                    .map(|text| ssdtwin_core::base::units::parse_duration(&text))
                    .transpose()
                    .map_err(|error| format!("--power-loss-at: {error}"))?,
                class: ssdtwin_nbd::parse_class(&class, "--class")?,
            };
            let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = interrupted.clone();
            ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed))
                .map_err(|error| error.to_string())?;
            let report = ssdtwin_nbd::serve(&scenario, &options, &mut || {
                interrupted.load(std::sync::atomic::Ordering::Relaxed)
            })
            .map_err(|error| error.to_string())?;
            let text = serde_json::to_string_pretty(&report.to_json()).expect("JSON");
            match json {
                Some(path) => write_atomically(&path, &text)
                    .map_err(|error| format!("cannot write {}: {error}", path.display()))?,
                None => println!("{text}"),
            }
            Ok(())
        }
    }
}

/// Largest growth of resident memory allowed between the first tenth of a soak and its end.
const SOAK_MEMORY_GROWTH: f64 = 0.02;

fn soak(io_count: u64, extra: &[String]) -> Result<(), String> {
    let mut texts: Vec<String> = [
        "drive=enterprise_tlc",
        "flash.blocks_per_plane=256",
        "host.queue_depth=32",
        "workload.read_fraction=0.7",
        r#"workload.bssplit=[["4KiB", 0.6], ["16KiB", 0.3], ["128KiB", 0.1]]"#,
        "workload.distribution=jesd219",
        "workload.precondition=steady",
        "power.enabled=true",
        // The time series is output that grows by design, one row per interval of simulated
        // time; a row per second keeps it out of the memory being watched.
        "power.sample_interval=1s",
    ]
    .iter()
    .map(|text| text.to_string())
    .collect();
    texts.push(format!("workload.io_count={io_count}"));
    texts.extend(extra.iter().cloned());
    let scenario = load(&ScenarioSource::Default, &parse_overrides(&texts)?).map_err(|error| error.to_string())?;
    let mut simulation = Simulation::new(&scenario).map_err(|error| error.to_string())?;
    let started = std::time::Instant::now();
    let mut marks: Vec<(u64, u64)> = Vec::new();
    let mut next_mark = io_count / 10;
    println!("{:>14} {:>12} {:>10}", "host I/Os", "RSS [MiB]", "wall [s]");
    let report = simulation
        .run(&mut |progress| {
            if progress.phase == "run" && progress.host_ios >= next_mark && next_mark > 0 {
                let rss = resident_bytes().unwrap_or(0);
                println!(
                    "{:>14} {:>12.1} {:>10.1}",
                    progress.host_ios,
                    rss as f64 / 1048576.0,
                    started.elapsed().as_secs_f64()
                );
                marks.push((progress.host_ios, rss));
                next_mark += io_count / 10;
            }
            true
        })
        .map_err(|error| error.to_string())?;
    let end = resident_bytes().unwrap_or(0);
    marks.push((report.host_ios, end));
    println!(
        "{:>14} {:>12.1} {:>10.1}   (end)",
        report.host_ios,
        end as f64 / 1048576.0,
        started.elapsed().as_secs_f64()
    );
    let invariants = simulation.ftl().check_invariants();
    println!(
        "WAF {:.3}, erases {}, FTL invariants: {}",
        report.waf,
        report.flash.erases,
        invariants
            .as_ref()
            .map_or_else(|problem| problem.clone(), |()| "hold".to_string())
    );
    invariants.map_err(|problem| format!("the FTL's invariants do not hold after the soak: {problem}"))?;
    let first = marks.first().map_or(end, |&(_, rss)| rss);
    let growth = end as f64 / first.max(1) as f64 - 1.0;
    println!(
        "resident memory from the first tenth to the end: {:+.2}% (allowed {:+.0}%)",
        100.0 * growth,
        100.0 * SOAK_MEMORY_GROWTH
    );
    if growth > SOAK_MEMORY_GROWTH {
        return Err(format!("resident memory grew {:.2}% during the soak", 100.0 * growth));
    }
    Ok(())
}

/// Resident set size of this process now (Linux `VmRSS`), if known.
fn resident_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|kib| kib * 1024)
}

fn bench(case: BenchCase, io_count: u64, extra: &[String]) -> Result<(), String> {
    let (name, settings): (&str, Vec<&str>) = match case {
        BenchCase::Read => (
            "4 KiB random read, QD 64, filled drive",
            vec!["workload.read_fraction=1.0", "workload.precondition=fill"],
        ),
        BenchCase::Write => (
            "4 KiB random write, QD 64, steady state with GC",
            vec!["workload.read_fraction=0.0", "workload.precondition=steady"],
        ),
        BenchCase::Mixed => (
            "4 KiB random 50/50 read/write, one queue, QD 64, filled drive",
            vec!["workload.read_fraction=0.5", "workload.precondition=fill"],
        ),
        BenchCase::Flows => (
            "4 KiB random 50/50 read/write, 4 flows x QD 16, weighted round robin, filled drive",
            vec![
                "workload.read_fraction=0.5",
                "workload.precondition=fill",
                "host.arbitration=weighted_round_robin",
                "workload.flows=[{priority = \"high\", queue_depth = 16}, {priority = \"medium\", queue_depth = 16}, \
                 {priority = \"medium\", queue_depth = 16}, {priority = \"low\", queue_depth = 16}]",
            ],
        ),
    };
    let mut texts: Vec<String> = [
        "drive=enterprise_tlc",
        "flash.blocks_per_plane=1024",
        "host.queue_depth=64",
        "workload.block_size=4KiB",
        "workload.pattern=random",
        "workload.distribution=uniform",
    ]
    .iter()
    .chain(settings.iter())
    .map(|text| text.to_string())
    .collect();
    texts.push(format!("workload.io_count={io_count}"));
    texts.extend(extra.iter().cloned());
    let scenario = load(&ScenarioSource::Default, &parse_overrides(&texts)?).map_err(|error| error.to_string())?;
    let report = ssdtwin_core::run(&scenario, &mut |_| true).map_err(|error| error.to_string())?;
    let simulator = &report.simulator;
    let peak_bytes = peak_resident_bytes();
    println!("case: {name}");
    println!("host I/Os simulated:        {}", report.host_ios);
    println!(
        "simulated I/Os per second:  {:.0}   (wall {:.2} s, preconditioning {:.2} s more)",
        simulator.ios_per_wall_s, simulator.run_wall_s, simulator.precondition_wall_s
    );
    println!(
        "end to end:                 {:.0}   (preconditioning included)",
        simulator.end_to_end_ios_per_wall_s
    );
    println!("simulated drive IOPS:       {:.0}", report.iops);
    println!("WAF:                        {:.2}", report.waf);
    println!("logical mapping units:      {}", report.simulator.logical_units);
    println!(
        "state per mapping unit:     {:.2} bytes (mapping + block tables)",
        report.simulator.state_bytes_per_mapping_unit
    );
    if let Some(peak) = peak_bytes {
        println!(
            "peak resident memory:       {:.1} MiB ({:.2} bytes per mapping unit)",
            peak as f64 / 1048576.0,
            peak as f64 / report.simulator.logical_units as f64
        );
    }
    Ok(())
}

/// Peak resident set size of this process (Linux `VmHWM`), if known.
fn peak_resident_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|kib| kib * 1024)
}

/// A `/proc/self/status` field in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`: a killed
/// process leaves the old file or the new one, never part of one.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(name);
    let written = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}
