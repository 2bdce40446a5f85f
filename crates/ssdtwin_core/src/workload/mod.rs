//! Workloads: where host commands come from. One source per kind behind a closed enum.
//!
//! A source either paces itself (`Timed`: every request carries its arrival time; traces replayed
//! `timed` and the IIoT generator) or is paced by the host (`Closed`: each job keeps its own
//! number of commands in flight and asks for its next command when one completes; synthetic
//! workloads, fio jobs, traces replayed `as_fast_as_possible`).
pub mod fio;
pub mod flows;
pub mod iiot;
pub mod params;
pub mod synthetic;
pub mod trace;
pub mod warmup;
pub mod zipf;
pub mod zoned;

use crate::base::error::ConfigError;
use crate::base::rng::Rng;
use crate::base::time::Time;
use crate::host::command::{CommandSpec, Job};
use crate::host::params::Priority;
use params::{Replay, WorkloadConfig, WorkloadKind};

/// How the host paces a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Each job keeps its queue depth of commands in flight.
    Closed,
    /// Requests arrive at their own times.
    Timed,
}

/// The workload of a simulation.
#[derive(Debug)]
pub enum Source {
    Synthetic(synthetic::Synthetic),
    /// Several flows (`workload.flows`), one job each.
    Flows(Vec<flows::FlowSource>),
    Trace(trace::TraceSource),
    Fio(fio::FioWorkload),
    Iiot(iiot::Iiot),
    /// The log-structured writer of a zoned namespace.
    Zoned(zoned::ZonedWriter),
    /// Commands handed in from outside while the simulation runs (`sim/live.rs`: an NBD
    /// server's requests); it never makes a command itself.
    External,
}

impl Source {
    /// Builds the source of `config` with the scenario's `seed`. `span_units` is the addressed
    /// logical space, `logical_units` the drive's (flows have spans of their own); `zones` the
    /// zoned namespace's zone limits and count, when `zns.enabled`.
    pub fn new(
        config: &WorkloadConfig,
        seed: u64,
        unit_bytes: u64,
        span_units: u32,
        logical_units: u32,
        zones: Option<(crate::ftl::zoned::ZoneLimits, usize)>,
    ) -> Result<Source, ConfigError> {
        let rng = Rng::stream(seed, "workload");
        Ok(match config.kind {
            WorkloadKind::Synthetic if !config.flows.is_empty() => {
                Source::Flows(flows::sources(config, seed, unit_bytes, logical_units)?)
            }
            WorkloadKind::Synthetic => {
                Source::Synthetic(synthetic::Synthetic::new(config, unit_bytes, span_units, rng))
            }
            WorkloadKind::Trace => Source::Trace(
                trace::TraceSource::new(&config.trace, unit_bytes, u64::from(span_units))
                    .map_err(|message| ConfigError::new("workload.trace.path", message))?,
            ),
            WorkloadKind::Fio => {
                let path = &config.fio.job;
                let text = crate::base::files::read_text(std::path::Path::new(path))
                    .map_err(|error| ConfigError::new("workload.fio.job", format!("cannot read {path}: {error}")))?;
                let file = fio::parse(
                    &text,
                    path,
                    u64::from(span_units) * unit_bytes,
                    config.fio.ignore_unsupported,
                )
                .map_err(|message| ConfigError::new("workload.fio.job", message))?;
                let mut workload = fio::FioWorkload::new(file, unit_bytes, seed);
                if let Some(only) = config.fio.only_job {
                    workload
                        .keep_only(only as usize)
                        .map_err(|message| ConfigError::new("workload.fio.only_job", message))?;
                }
                workload
                    .zoned(path, zones)
                    .map_err(|message| ConfigError::new("workload.fio.job", message))?;
                Source::Fio(workload)
            }
            WorkloadKind::Iiot => Source::Iiot(iiot::Iiot::new(&config.iiot, unit_bytes, u64::from(span_units), rng)),
            WorkloadKind::Zoned => {
                let (limits, count) = zones.ok_or_else(|| {
                    ConfigError::new(
                        "workload.kind",
                        "\"zoned\" needs a zoned namespace (zns.enabled = true); allowed without it: \"synthetic\", \"trace\", \"fio\", \"iiot\"",
                    )
                })?;
                let block_units = config.block_size.bytes().div_ceil(unit_bytes);
                Source::Zoned(zoned::ZonedWriter::new(
                    &config.zoned,
                    limits,
                    count,
                    block_units,
                    config.read_fraction,
                    rng,
                ))
            }
        })
    }

    /// How the host paces this source of `config`.
    pub fn pacing(&self, config: &WorkloadConfig) -> Pacing {
        match self {
            Source::Trace(_) if config.trace.replay == Replay::Timed => Pacing::Timed,
            Source::Iiot(_) if config.iiot.replay == Replay::Timed => Pacing::Timed,
            Source::External => Pacing::Timed,
            _ => Pacing::Closed,
        }
    }

    /// The jobs; closed-loop jobs other than fio's use the host queue depth.
    pub fn jobs(&self, config: &WorkloadConfig, host_queue_depth: u32) -> Vec<Job> {
        let one = |name: &str| Job {
            name: name.to_string(),
            queue_depth: host_queue_depth,
            priority: Priority::Medium,
        };
        match self {
            Source::Synthetic(_) => vec![one("synthetic")],
            Source::Zoned(_) => vec![one("zoned")],
            Source::Flows(_) => config
                .flows
                .iter()
                .enumerate()
                .map(|(index, flow)| Job {
                    name: flow.name(index),
                    queue_depth: flow.queue_depth.unwrap_or(host_queue_depth),
                    priority: flow.priority,
                })
                .collect(),
            Source::Trace(_) => vec![one("trace")],
            Source::Fio(workload) => workload
                .jobs()
                .map(|job| Job {
                    name: job.name.clone(),
                    queue_depth: job.iodepth,
                    priority: job.priority,
                })
                .collect(),
            Source::Iiot(_) if config.iiot.replay == Replay::Timed => vec![one("ingest"), one("query")],
            Source::Iiot(_) => vec![one("iiot")],
            Source::External => vec![one("live")],
        }
    }

    /// Closed loop: the next command of `job` at `now`; `None` once the job is done.
    /// Timed: the next request, its job and arrival time, whatever `job`.
    pub fn next(&mut self, job: u32, now: Time) -> Result<Option<(CommandSpec, u32, Option<Time>)>, String> {
        Ok(match self {
            Source::Synthetic(synthetic) => Some((synthetic.next_command(), 0, None)),
            Source::Zoned(writer) => Some((writer.next_command(), 0, None)),
            Source::Flows(flows) => flows[job as usize].next_command()?.map(|command| (command, job, None)),
            Source::Trace(trace) => trace
                .next_request()?
                .map(|(arrival, command)| (command, 0, Some(arrival))),
            Source::Fio(workload) => workload.next(job as usize, now).map(|command| (command, job, None)),
            Source::Iiot(iiot) => {
                let (arrival, command, job) = iiot.next_request();
                if iiot.closed_loop() {
                    Some((command, 0, None))
                } else {
                    Some((command, job, Some(arrival)))
                }
            }
            Source::External => None,
        })
    }

    /// Fraction done, for sources that end by themselves (traces, fio jobs).
    pub fn progress(&self, now: Time) -> Option<f64> {
        match self {
            Source::Trace(trace) => Some(trace.progress()),
            Source::Fio(workload) => Some(workload.progress(now)),
            _ => None,
        }
    }

    /// Malformed trace lines skipped (`lenient = true`).
    pub fn skipped_lines(&self) -> u64 {
        match self {
            Source::Trace(trace) => trace.skipped_lines(),
            _ => 0,
        }
    }

    /// Warnings about the workload's input (ignored fio options; trace timestamps ignored, going
    /// backwards or far apart).
    pub fn warnings(&self) -> Vec<String> {
        match self {
            Source::Fio(workload) => workload.warnings.clone(),
            Source::Trace(trace) => trace.timestamps().1,
            _ => Vec::new(),
        }
    }

    /// What a trace replay saw of the trace's timestamps; `None` for other sources.
    pub fn trace_timestamps(&self) -> Option<trace::timing::TimestampStats> {
        match self {
            Source::Trace(trace) => Some(trace.timestamps().0),
            _ => None,
        }
    }
}

impl crate::host::submission::CommandSource for Source {
    #[inline(always)]
    fn next_command(&mut self, job: u32, now: Time) -> Result<Option<(CommandSpec, u32, Option<Time>)>, String> {
        // The synthetic source (the benchmark's) at the host's call site, where its result needs
        // no unpacking; the others through `next`.
        if let Source::Synthetic(synthetic) = self {
            return Ok(Some((synthetic.next_command(), 0, None)));
        }
        self.next(job, now)
    }

    #[inline]
    fn quiesce(&mut self, job: u32, now: Time) -> bool {
        match self {
            Source::Fio(workload) => workload.quiesce(job as usize, now),
            _ => false,
        }
    }

    #[inline(always)]
    fn drawn_ahead(&self) -> &[CommandSpec] {
        match self {
            Source::Synthetic(synthetic) => synthetic.drawn_ahead(),
            _ => &[],
        }
    }
}
