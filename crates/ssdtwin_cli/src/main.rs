//! `ssdtwin-cli`: run a scenario or the benchmark from Rust, without Python.
//!
//! `ssdtwin-cli run [SCENARIO] [--set KEY=VALUE]...` prints the report as JSON.
//! `ssdtwin-cli bench read|write` runs one benchmark case (see `BENCHMARK.md`) and prints
//! simulated host I/Os per wall-clock second and peak memory.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use ssdtwin_core::{load, Override, ScenarioSource};

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
}

#[derive(Clone, Copy, ValueEnum)]
enum BenchCase {
    /// 4 KiB random reads at QD 64 on a filled enterprise_tlc drive.
    Read,
    /// 4 KiB random writes at QD 64 on a steady-state enterprise_tlc drive, GC running.
    Write,
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
    }
}

fn bench(case: BenchCase, io_count: u64, extra: &[String]) -> Result<(), String> {
    let (name, settings) = match case {
        BenchCase::Read => (
            "4 KiB random read, QD 64, filled drive",
            ["workload.read_fraction=1.0", "workload.precondition=fill"],
        ),
        BenchCase::Write => (
            "4 KiB random write, QD 64, steady state with GC",
            ["workload.read_fraction=0.0", "workload.precondition=steady"],
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
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
