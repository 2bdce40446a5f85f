//! Parameters of the workload (`[workload]`, `[workload.trace]`, `[workload.fio]`,
//! `[workload.iiot]`): the fio-like synthetic generator, block-trace replay, fio job files and the
//! industrial-IoT generator (TPCx-IoT in the spirit of the self-heating paper).
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::ConfigError;
use crate::base::time::Duration;
use crate::base::units::ByteSize;
use crate::ftl::params::{Precondition, SteadyMethod};
use crate::host::params::Priority;
pub use crate::workload::warmup::Warmup;

/// Source of host commands.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// fio-like synthetic generator (the keys of `[workload]`).
    Synthetic,
    /// Replay of a block trace file (`[workload.trace]`).
    Trace,
    /// An fio job file (`[workload.fio]`): one closed-loop stream per job.
    Fio,
    /// Industrial-IoT ingest and analytics generator (`[workload.iiot]`).
    Iiot,
    /// Log-structured writer of a zoned namespace (`[workload.zoned]`; needs `zns.enabled`).
    Zoned,
}

/// Address order of the synthetic generator.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    Random,
    Sequential,
}

/// Popularity of addresses for random patterns.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Every aligned offset in the span equally likely.
    Uniform,
    /// Zipf over the span's aligned offsets with exponent `zipf_theta` (rank 1 = first offset).
    Zipf,
    /// JEDEC JESD219 enterprise skew: 50% of accesses to the first 5% of the span, 30% to the next
    /// 15%, 20% to the remaining 80%.
    Jesd219,
}

/// The workload.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    /// Workload kind: `synthetic`, `trace`, `fio`, `iiot` or `zoned` (`block_size` and
    /// `read_fraction` also shape `zoned`). The keys below up to `duration`
    /// belong to `synthetic` (`io_count` and `duration` also bound `iiot`); `trace` and `fio` end
    /// where their file says.
    pub kind: WorkloadKind,
    /// Fraction of commands that are reads [fraction].
    pub read_fraction: f64,
    /// Fraction of commands that are trims (deallocates of their range, docs/models/ftl.md);
    /// the commands neither reads nor trims are writes, so `read_fraction + trim_fraction` is at
    /// most 1. 0 is off [fraction]. Default 0.
    pub trim_fraction: f64,
    /// A Flush after every this many writes (docs/models/dram_buffer_plp.md, "Flush and FUA");
    /// a Flush counts as a command of `io_count`. 0 is off [commands]. Default 0.
    pub flush_every: u32,
    /// Fraction of writes with Force Unit Access (complete once programmed). 0 is off
    /// [fraction]. Default 0.
    pub fua_fraction: f64,
    /// Command size when `bssplit` is empty: a multiple of `ftl.mapping_unit`, or a divisor of
    /// it (a write of part of a unit is a read-modify-write of the unit) [size].
    pub block_size: ByteSize,
    /// Command-size mix as `[size, weight]` pairs, e.g. `[["4KiB", 0.67], ["8KiB", 0.33]]`; the
    /// weights are normalised. Overrides `block_size` when not empty.
    pub bssplit: Vec<(ByteSize, f64)>,
    /// Address pattern: random or sequential.
    pub pattern: Pattern,
    /// With `pattern = "random"`: fraction of commands that start where the previous command
    /// ended (wrapping to offset 0 at the end of the span), as a trace's sequential requests do;
    /// the rest go to random offsets. 0 is pure random I/O [fraction]. Default 0.
    pub sequential_fraction: f64,
    /// Popularity for random patterns: uniform, zipf or jesd219.
    pub distribution: Distribution,
    /// Zipf exponent for `distribution = "zipf"` (larger is more skewed).
    pub zipf_theta: f64,
    /// Fraction of the logical space addressed, from offset 0 [fraction].
    pub span: f64,
    /// Commands to run; 0 sets no bound on the count (then `duration` ends the run). A file or
    /// set of overrides that gives `io_count` without `duration` turns the `duration` of the
    /// layers below off [commands].
    pub io_count: u64,
    /// Simulated run time; `"0s"` sets no bound on time. A file or set of overrides that gives
    /// `duration` without `io_count` turns the `io_count` of the layers below off (the run ends
    /// by time alone); with both set, the first reached ends the run [duration].
    pub duration: Duration,
    /// Unmeasured start of the run, as fio's `ramp_time`: a count of commands (`50000`) or a time
    /// (`"500ms"`), run in addition to `io_count` or `duration`; 0 is off. Excluded from every
    /// measured figure (docs/guide/report.md, "Warm-up").
    pub warmup: Warmup,
    /// Drive state before the run: none, fill or steady.
    pub precondition: Precondition,
    /// Random overwrites done by `steady` preconditioning [multiples of the span].
    pub steady_overwrites: f64,
    /// How `steady` makes its overwrites: `statistical` (page mapping: on the block table, then
    /// the mapping laid out; default) or `functional` (each through the mapping table).
    pub steady_method: SteadyMethod,
    /// Block-trace replay, used when `kind = "trace"`.
    pub trace: TraceConfig,
    /// fio job file, used when `kind = "fio"`.
    pub fio: FioConfig,
    /// Industrial-IoT generator, used when `kind = "iiot"`.
    pub iiot: IiotConfig,
    /// The zoned writer, used when `kind = "zoned"` (docs/models/zns.md).
    pub zoned: super::zoned::ZonedWriterConfig,
    /// Several synthetic flows at once, each with its own submission queue, queue depth and
    /// priority class (`[[workload.flows]]`, docs/guide/workloads.md, "Flows"); empty: the one
    /// workload of the keys above. Only with `kind = "synthetic"` and `host.mode = "closed"`.
    pub flows: Vec<FlowConfig>,
}

impl WorkloadConfig {
    /// The span in mapping units of a drive of `logical_units`, checked against the largest
    /// command the workload issues; an error names `key`.
    pub fn span_units(&self, logical_units: u32, unit_bytes: u64, key: &str) -> Result<u32, ConfigError> {
        let span_units = (f64::from(logical_units) * self.span).floor() as u32;
        let largest_command = self
            .bssplit
            .iter()
            .map(|(size, _)| size.bytes())
            .chain(std::iter::once(self.block_size.bytes()))
            .max()
            .unwrap_or(0)
            / unit_bytes;
        if span_units == 0 || largest_command > u64::from(span_units) {
            return Err(ConfigError::new(
                key,
                format!(
                    "{} addresses {span_units} mapping units, fewer than one command needs",
                    self.span
                ),
            ));
        }
        Ok(span_units)
    }
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            kind: WorkloadKind::Synthetic,
            read_fraction: 0.7,
            trim_fraction: 0.0,
            flush_every: 0,
            fua_fraction: 0.0,
            block_size: ByteSize(4096),
            bssplit: Vec::new(),
            pattern: Pattern::Random,
            sequential_fraction: 0.0,
            distribution: Distribution::Uniform,
            zipf_theta: 1.2,
            span: 1.0,
            io_count: 200_000,
            duration: Duration::ZERO,
            warmup: Warmup::Off,
            precondition: Precondition::Fill,
            steady_overwrites: 1.0,
            steady_method: SteadyMethod::Statistical,
            trace: TraceConfig::default(),
            fio: FioConfig::default(),
            iiot: IiotConfig::default(),
            zoned: super::zoned::ZonedWriterConfig::default(),
            flows: Vec::new(),
        }
    }
}

/// One flow: a workload with its own submission queue (synthetic, a trace replayed or the IIoT
/// generator, closed loop at its queue depth). Keys left out are those of `[workload]`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FlowConfig {
    /// Name in the report (default `flow0`, `flow1`, ... by position).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the flow runs: `synthetic` (default; the synthetic keys below and of `[workload]`),
    /// `trace` (the flow's `[workload.flows.trace]` table, replayed as fast as possible at its
    /// queue depth) or `iiot` (its `[workload.flows.iiot]` table, as fast as possible). An fio
    /// job file is not a flow: its jobs are the flows (`workload.kind = "fio"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<WorkloadKind>,
    /// Commands this flow issues; it stops after them, and the run ends when every flow has
    /// stopped (or at `workload.duration`). When every flow sets it, `workload.io_count` is not
    /// used; flows without it run until `workload.io_count` commands over all flows
    /// [commands]. Default: no count of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_count: Option<u64>,
    /// The trace of a `kind = "trace"` flow (the keys of `[workload.trace]`; `replay` must be
    /// `as_fast_as_possible`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceConfig>,
    /// The generator of a `kind = "iiot"` flow (the keys of `[workload.iiot]`; `replay` must be
    /// `as_fast_as_possible`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iiot: Option<IiotConfig>,
    /// Commands the flow keeps in flight: in its submission queue and in the drive
    /// [commands]. Default `host.queue_depth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u32>,
    /// Priority class of its submission queue: `urgent`, `high`, `medium` or `low` (used by
    /// `host.arbitration = "weighted_round_robin"`; only `medium` under round robin). Default
    /// `medium`.
    pub priority: Priority,
    /// As `workload.read_fraction` [fraction].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_fraction: Option<f64>,
    /// As `workload.trim_fraction` [fraction].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim_fraction: Option<f64>,
    /// As `workload.flush_every` [commands].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flush_every: Option<u32>,
    /// As `workload.fua_fraction` [fraction].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fua_fraction: Option<f64>,
    /// As `workload.block_size` [size].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_size: Option<ByteSize>,
    /// As `workload.bssplit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bssplit: Option<Vec<(ByteSize, f64)>>,
    /// As `workload.pattern`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Pattern>,
    /// As `workload.sequential_fraction` [fraction].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential_fraction: Option<f64>,
    /// As `workload.distribution`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
    /// As `workload.zipf_theta`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zipf_theta: Option<f64>,
    /// As `workload.span`: the flow addresses this fraction of the logical space from offset 0
    /// [fraction].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<f64>,
    /// Where the flow's span starts: this fraction of the logical space is skipped, so flows can
    /// address disjoint ranges; `offset + span` is at most 1 [fraction]. Default 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<f64>,
    /// The placement identifier of the flow's writes: the `[fdp]` reclaim unit handle they go to
    /// (needs `fdp.enabled`; below `fdp.handles`). Default: none (handle 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<u16>,
}

/// Block-trace file formats (one reader each in `workload/trace/`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`; time in
    /// 100 ns Windows ticks, offset and size in bytes.
    Msr,
    /// SPC / UMass (Financial, WebSearch): `ASU,LBA,Size,Opcode,Timestamp`; LBA in 512 B blocks,
    /// size in bytes, timestamp in seconds.
    Spc,
    /// Default `blkparse` text output; sectors of 512 B, time in seconds.
    Blkparse,
    /// DiskSim / MQSim ASCII: `time device lba size_in_sectors type`; sectors of 512 B, time in
    /// `time_unit`.
    Disksim,
    /// fio iolog version 2 (`wait` actions in µs) or 3 (timestamps in µs since the start); offsets
    /// and lengths in bytes.
    FioIolog,
}

/// How trace timestamps drive submission.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// Open loop: each request arrives at its (scaled) timestamp; at most `host.queue_depth` in
    /// flight, later arrivals wait in the host.
    Timed,
    /// Closed loop at `host.queue_depth`, ignoring timestamps.
    AsFastAsPossible,
}

/// What to do with a request that reaches beyond the simulated logical capacity.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AddressMap {
    /// Address modulo the capacity (a request that would cross the end starts at 0).
    Wrap,
    /// Scale addresses by capacity / `trace.device_size` (keeps locality shape).
    Scale,
    /// Stop with an error naming the line.
    Error,
}

/// Which operations of a trace to replay.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OperationFilter {
    All,
    Read,
    Write,
}

/// Which `blkparse` events are requests.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BlkparseEvent {
    /// `Q`: the request was queued (what the application asked, when).
    Queue,
    /// `C`: the request completed.
    Complete,
}

/// Where a trace's writes get their FDP placement identifier (`workload.trace.placement`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TracePlacement {
    /// None: every write goes to handle 0.
    None,
    /// The format's device column: SPC's ASU, MSR's DiskNumber, DiskSim's device number.
    Device,
}

/// `[workload.trace]`: replay of a block trace.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// File format: msr, spc, blkparse, disksim or fio_iolog.
    pub format: TraceFormat,
    /// Trace file; a relative path is relative to the scenario file's folder.
    pub path: String,
    /// `timed` (open loop at the trace's timestamps) or `as_fast_as_possible` (closed loop).
    pub replay: Replay,
    /// Multiplies trace time gaps: 0.5 replays twice as fast [factor].
    pub time_scale: f64,
    /// Addresses beyond the simulated capacity: wrap, scale or error.
    pub address_map: AddressMap,
    /// Size of the traced device, for `address_map = "scale"`; `"0B"` takes the largest end
    /// address seen in the first pass over the file [size].
    pub device_size: ByteSize,
    /// Keep only these devices (MSR disk number, SPC ASU, DiskSim device, blkparse `major,minor`
    /// as major*256+minor, fio file index); empty keeps all.
    pub devices: Vec<u32>,
    /// Keep `all`, `read` or `write` requests.
    pub operations: OperationFilter,
    /// Replay at most this many requests (after filtering); 0 means all [requests].
    pub limit: u64,
    /// Skip malformed lines (counted in the report's `workload.skipped_lines`) instead of failing.
    pub lenient: bool,
    /// DiskSim time unit: one time value of the file is this long [duration].
    pub time_unit: Duration,
    /// blkparse event taken as a request: `queue` (Q) or `complete` (C).
    pub blkparse_event: BlkparseEvent,
    /// `device`: each write's FDP placement identifier is its device column (SPC ASU, MSR
    /// DiskNumber, DiskSim device; needs `fdp.enabled`, values below `fdp.handles`; blkparse and
    /// fio_iolog have no such column). Default `none` (handle 0).
    pub placement: TracePlacement,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            format: TraceFormat::Disksim,
            path: String::new(),
            replay: Replay::Timed,
            time_scale: 1.0,
            address_map: AddressMap::Wrap,
            device_size: ByteSize(0),
            devices: Vec::new(),
            operations: OperationFilter::All,
            limit: 0,
            lenient: false,
            time_unit: Duration::from_nanos(1),
            blkparse_event: BlkparseEvent::Queue,
            placement: TracePlacement::None,
        }
    }
}

/// `[workload.fio]`: an fio job file. Every job runs from time 0 with its own `iodepth` (these
/// replace `host.queue_depth`) and ends as its options say; the subset is listed in `workload/fio/mod.rs`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FioConfig {
    /// Job file; a relative path is relative to the scenario file's folder.
    pub job: String,
    /// Options outside the supported subset are warnings in the report instead of errors.
    pub ignore_unsupported: bool,
    /// Run only the job at this position of the file (0 first, counting the copies `numjobs`
    /// makes), on its own random stream as in the whole file; the alone runs of
    /// `report.flow_slowdown` use it. Default: every job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_job: Option<u32>,
}

/// `[workload.iiot]`: sensor records ingested in batches plus analytic range reads, in the spirit
/// of TPCx-IoT as the self-heating paper (Zambelli et al. 2020, section 3) uses it: 1 KiB records,
/// small frequent writes, queries over recent data in the background.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IiotConfig {
    /// Sensors producing records (TPCx-IoT: 200 sensors per power substation) [sensors].
    pub sensors: u32,
    /// Records per second of each sensor, arriving as a Poisson process [records/s].
    pub record_rate: f64,
    /// Size of one record (the paper, section 3: "1 Kbytes per record") [size].
    pub record_size: ByteSize,
    /// Ingest writers; sensor `s` is ingested by writer `s mod writers`, each writer appends to its
    /// own equal share of the span (sequential-ish writes) [writers].
    pub writers: u32,
    /// A writer writes its batch when it holds this many records [records].
    pub batch_records: u32,
    /// ... or when its oldest buffered record is this old [duration].
    pub commit_interval: Duration,
    /// Analytic queries per second, arriving as a Poisson process [queries/s].
    pub query_rate: f64,
    /// Bytes read by one query, one command, from recently written data [size].
    pub query_size: ByteSize,
    /// Queries read data written within this much time before them [duration].
    pub query_window: Duration,
    /// `timed`: records and queries arrive at their own (Poisson) times, open loop.
    /// `as_fast_as_possible`: the same stream of writes and reads, closed loop at
    /// `host.queue_depth` (a gateway "continuously accessed at full performance", the
    /// self-heating paper, section 4.3); arrival times are ignored. Default timed.
    pub replay: Replay,
}

impl Default for IiotConfig {
    fn default() -> Self {
        IiotConfig {
            sensors: 200,
            record_rate: 50.0,
            record_size: ByteSize(1024),
            writers: 4,
            batch_records: 8,
            commit_interval: Duration::from_millis(10),
            query_rate: 200.0,
            query_size: ByteSize(64 * 1024),
            query_window: Duration::from_secs(5),
            replay: Replay::Timed,
        }
    }
}
