//! Per-job results in fio's units (fio HOWTO, "Interpreting the output" and the JSON output of
//! `--output-format=json`): bytes, I/Os, runtime in ms, bandwidth in KiB/s, latencies in ns with
//! fio's default percentile list. `lat_ns` runs from a command's arrival at the host (its trace
//! timestamp in open loop) to its completion; `clat_ns` from its submission to the drive.

use std::collections::BTreeMap;

use serde::Serialize;

use super::latency::LatencyRecorder;
use crate::base::time::{Duration, Time};

/// fio's default `percentile_list` [%].
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

/// A latency distribution as fio writes it [ns].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FioLatency {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub count: u64,
    /// Percentile (fio's key format, `"99.990000"`) to latency [ns].
    pub percentile: BTreeMap<String, u64>,
}

/// One direction (read or write) of a job.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct JobDirectionReport {
    pub io_bytes: u64,
    pub total_ios: u64,
    /// Job runtime [ms].
    pub runtime: u64,
    /// Bandwidth [KiB/s].
    pub bw: f64,
    pub iops: f64,
    pub lat_ns: FioLatency,
    pub clat_ns: FioLatency,
}

/// One job's results.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct JobReport {
    pub name: String,
    /// Commands the job kept in flight (closed loop) [commands].
    pub queue_depth: u32,
    /// The priority class of its submission queue, when several flows share the drive
    /// (`urgent`, `high`, `medium` or `low`; docs/models/host.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<&'static str>,
    /// With `report.flow_slowdown`: its mean latency in this run over its mean latency run alone
    /// on the same drive (MQSim's slowdown; docs/guide/workloads.md, "Flows").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// From the start of the measured run (time 0, or the end of `workload.warmup`) to the job's
    /// last completion [ms].
    pub runtime_ms: u64,
    pub read: JobDirectionReport,
    pub write: JobDirectionReport,
    /// Trims (deallocates): `io_bytes` counts the bytes trimmed, as fio does.
    pub trim: JobDirectionReport,
    /// Flushes (fio's `sync` block): no bytes; their latency is the wait for the writes
    /// acknowledged before them to reach flash.
    pub flush: JobDirectionReport,
}

/// One direction's latencies. A command that did not wait in the host (every closed-loop
/// command) has equal latency and completion latency and is recorded once, in `latency`; those
/// that waited are recorded in `waited` as (latency, completion latency), allocated on first use.
/// So `lat` = `latency` + `waited.0` and `clat` = `latency` + `waited.1`.
#[derive(Debug, Default)]
struct Direction {
    latency: LatencyRecorder,
    waited: Option<Box<(LatencyRecorder, LatencyRecorder)>>,
    bytes: u64,
    ios: u64,
}

impl Direction {
    /// A command that waited in the host: its latency and completion latency apart.
    #[inline(never)]
    fn record_waited(&mut self, latency: Duration, completion: Duration) {
        let waited = self.waited.get_or_insert_with(Default::default);
        waited.0.record(latency);
        waited.1.record(completion);
    }

    /// Latency from arrival (`waited = false`) or completion latency from submission (`true`).
    fn distribution(&self, completion: bool) -> std::borrow::Cow<'_, LatencyRecorder> {
        match &self.waited {
            None => std::borrow::Cow::Borrowed(&self.latency),
            Some(waited) => {
                let extra = if completion { &waited.1 } else { &waited.0 };
                std::borrow::Cow::Owned(self.latency.merged(extra))
            }
        }
    }
}

/// What a completed command was, for its direction of the job's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    Read,
    Write,
    Trim,
    Flush,
}

impl IoKind {
    #[inline]
    pub fn of(is_read: bool, trim: bool, flush: bool) -> IoKind {
        match (is_read, trim, flush) {
            (true, _, _) => IoKind::Read,
            (_, true, _) => IoKind::Trim,
            (_, _, true) => IoKind::Flush,
            _ => IoKind::Write,
        }
    }
}

/// Accumulates one job's completions.
#[derive(Debug)]
pub struct JobMetrics {
    name: String,
    queue_depth: u32,
    /// The class of its submission queue, when several flows are arbitrated.
    pub priority: Option<&'static str>,
    read: Direction,
    write: Direction,
    trim: Direction,
    flush: Direction,
    /// Start of the measured run.
    start: Time,
    last_completion: Time,
}

impl JobMetrics {
    /// Metrics of the job `name` that keeps `queue_depth` commands in flight.
    pub fn new(name: &str, queue_depth: u32) -> JobMetrics {
        JobMetrics {
            name: name.to_string(),
            queue_depth,
            priority: None,
            read: Direction::default(),
            write: Direction::default(),
            trim: Direction::default(),
            flush: Direction::default(),
            start: Time::ZERO,
            last_completion: Time::ZERO,
        }
    }

    /// Renames the job (a live session's submission queue, `sim/live.rs`).
    pub fn rename(&mut self, name: &str) {
        self.name = name.to_string();
    }

    /// The measured run starts at `at` (the end of the warm-up).
    pub fn start_at(&mut self, at: Time) {
        self.start = at;
        self.last_completion = at;
    }

    /// Inlined at the host's completion (once per command): the path of a command that did not
    /// wait is a few instructions, the rest ([`Direction::record_waited`]) out of line.
    #[inline(always)]
    pub fn record(&mut self, kind: IoKind, latency: Duration, completion: Duration, bytes: u64, now: Time) {
        let direction = match kind {
            IoKind::Read => &mut self.read,
            IoKind::Write => &mut self.write,
            IoKind::Trim => &mut self.trim,
            IoKind::Flush => &mut self.flush,
        };
        if latency == completion {
            direction.latency.record(latency);
        } else {
            direction.record_waited(latency, completion);
        }
        direction.bytes += bytes;
        direction.ios += 1;
        self.last_completion = now;
    }

    /// All latencies (arrival to completion) of one direction.
    pub fn latency(&self, is_read: bool) -> std::borrow::Cow<'_, LatencyRecorder> {
        let direction = if is_read { &self.read } else { &self.write };
        direction.distribution(false)
    }

    pub fn report(&self) -> JobReport {
        let runtime = self.last_completion.since(self.start);
        let runtime_ms = runtime.as_nanos().div_ceil(1_000_000);
        // Rates over the reported whole milliseconds, as fio computes them, so that
        // bw = io_bytes / 1024 / (runtime / 1000) holds exactly for a reader of the output.
        let seconds = runtime_ms as f64 / 1000.0;
        let direction = |d: &Direction| JobDirectionReport {
            io_bytes: d.bytes,
            total_ios: d.ios,
            runtime: runtime_ms,
            bw: if seconds > 0.0 {
                d.bytes as f64 / 1024.0 / seconds
            } else {
                0.0
            },
            iops: if seconds > 0.0 { d.ios as f64 / seconds } else { 0.0 },
            lat_ns: fio_latency(&d.distribution(false)),
            clat_ns: fio_latency(&d.distribution(true)),
        };
        JobReport {
            name: self.name.clone(),
            queue_depth: self.queue_depth,
            priority: self.priority,
            slowdown: None,
            runtime_ms,
            read: direction(&self.read),
            write: direction(&self.write),
            trim: direction(&self.trim),
            flush: direction(&self.flush),
        }
    }
}

/// fio's view of one histogram.
fn fio_latency(recorder: &LatencyRecorder) -> FioLatency {
    let (histogram, total) = recorder.histogram();
    let count = histogram.len();
    if count == 0 {
        return FioLatency::default();
    }
    FioLatency {
        min: histogram.min(),
        max: histogram.max(),
        mean: total as f64 / count as f64,
        stddev: histogram.stdev(),
        count,
        percentile: FIO_PERCENTILES
            .iter()
            .map(|&percent| (format!("{percent:.6}"), histogram.value_at_quantile(percent / 100.0)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_units_and_percentile_keys() {
        let mut job = JobMetrics::new("j", 1);
        for micros in 1..=1000u64 {
            let latency = Duration::from_micros(micros);
            job.record(
                IoKind::Read,
                latency,
                latency,
                4096,
                Time::ZERO + Duration::from_millis(micros),
            );
        }
        let report = job.report();
        assert_eq!(report.runtime_ms, 1000);
        assert_eq!(report.read.io_bytes, 4096 * 1000);
        assert!(
            (report.read.bw - 4000.0).abs() < 1e-9,
            "4 KiB x 1000 in 1 s: {}",
            report.read.bw
        );
        assert!((report.read.iops - 1000.0).abs() < 1e-9);
        let p9999 = report.read.clat_ns.percentile["99.990000"];
        assert!((p9999 as f64 / 1_000_000.0 - 1.0).abs() < 0.001, "{p9999}");
        assert_eq!(report.read.lat_ns.percentile.len(), FIO_PERCENTILES.len());
        assert_eq!(report.read.lat_ns.min, 1000);
        assert_eq!(report.write.total_ios, 0);
    }

    #[test]
    fn waiting_commands_separate_lat_from_clat() {
        let mut job = JobMetrics::new("j", 1);
        let now = Time::ZERO + Duration::from_millis(1);
        job.record(
            IoKind::Write,
            Duration::from_micros(10),
            Duration::from_micros(10),
            4096,
            now,
        );
        job.record(
            IoKind::Write,
            Duration::from_micros(500),
            Duration::from_micros(20),
            4096,
            now,
        );
        let report = job.report();
        assert_eq!(report.write.lat_ns.count, 2);
        assert_eq!(report.write.clat_ns.count, 2);
        assert!(
            (report.write.lat_ns.mean - 255_000.0).abs() < 1.0,
            "{}",
            report.write.lat_ns.mean
        );
        assert!(
            (report.write.clat_ns.mean - 15_000.0).abs() < 1.0,
            "{}",
            report.write.clat_ns.mean
        );
        assert_eq!(job.latency(false).summary().count, 2);
    }
}
