//! The scenario: a drive (host interface, controller, flash, FTL) plus a workload.
//!
//! Every parameter is declared once, here, with its unit, default and documentation; the JSON
//! schema (`ssdtwin schema`) and the config reference are generated from these structs. Unknown
//! keys are rejected (`deny_unknown_fields`). Range checks live in `validate.rs`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::units::{ByteSize, TransferRate};
use crate::sim::time::Duration;

/// A complete, resolved scenario.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Seed of the simulation's random number generator. Same seed and config, same report.
    pub seed: u64,
    /// Drive preset (a name from `ssdtwin presets`, or a path to a TOML file); the tables of the
    /// scenario override the preset key by key.
    pub drive: String,
    pub host: HostConfig,
    pub controller: ControllerConfig,
    pub flash: FlashConfig,
    pub ftl: FtlConfig,
    pub workload: WorkloadConfig,
    pub power: PowerConfig,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            seed: 1,
            drive: "enterprise_tlc".to_string(),
            host: HostConfig::default(),
            controller: ControllerConfig::default(),
            flash: FlashConfig::default(),
            ftl: FtlConfig::default(),
            workload: WorkloadConfig::default(),
            power: PowerConfig::default(),
        }
    }
}

/// How the host issues commands.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HostMode {
    /// Keep `queue_depth` commands in flight: a completion triggers the next submission.
    Closed,
    /// Submit at `arrival_rate` commands per second (evenly spaced), never more than
    /// `queue_depth` in flight; arrivals that find the queue full wait in the host.
    Open,
}

/// The host and its link to the drive (NVMe over PCIe).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Commands in flight at the drive at most (NVMe queue depth) [commands].
    pub queue_depth: u32,
    /// Minimum time between two command submissions (command submission time, CST): the
    /// host-side throttling knob of the self-heating paper [duration].
    pub submission_interval: Duration,
    /// PCIe generation (1–6): sets the per-lane rate and line encoding.
    pub pcie_generation: u8,
    /// PCIe lanes (1, 2, 4, 8 or 16).
    pub pcie_lanes: u8,
    /// Closed loop (`closed`) or fixed arrival rate (`open`).
    pub mode: HostMode,
    /// Arrival rate in open-loop mode [commands/s].
    pub arrival_rate: f64,
    /// Fixed cost per command in the host interface and controller firmware (doorbell, fetch,
    /// parsing, completion) [duration].
    pub command_overhead: Duration,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            queue_depth: 32,
            submission_interval: Duration::ZERO,
            pcie_generation: 3,
            pcie_lanes: 4,
            mode: HostMode::Closed,
            arrival_rate: 100_000.0,
            command_overhead: Duration::from_micros(2),
        }
    }
}

/// Order in which a die serves its queued operations.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Arrival order.
    Fifo,
    /// Host reads overtake queued programs and erases (and GC work) at a die.
    ReadFirst,
}

/// The SSD controller's queueing system.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerConfig {
    /// Flash transactions (mapping units) in flight over all dies at most [transactions].
    pub frame_buffer: u32,
    /// Target command queue (TCQ) per die: host operations waiting at or running on a die [operations].
    pub die_queue_depth: u32,
    /// Die scheduler: `fifo` or `read_first`.
    pub scheduler: SchedulerKind,
    /// Time to serve a read from data still in the controller's DRAM (written, not yet programmed) [duration].
    pub buffer_read_time: Duration,
    /// With `read_first`: a program, erase or GC operation that has waited at its die this long is
    /// served before reads, so writes cannot starve; `"0us"` = no bound [duration].
    pub read_first_age_limit: Duration,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            frame_buffer: 1024,
            die_queue_depth: 8,
            scheduler: SchedulerKind::Fifo,
            buffer_read_time: Duration::from_micros(1),
            read_first_age_limit: Duration::ZERO,
        }
    }
}

/// Bits stored per NAND cell; sets the number of page types.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    /// Page types per word line: SLC 1, MLC 2 (lower, upper), TLC 3 (lower, center, upper), QLC 4.
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// A latency given once for all page types or once per page type (lower first).
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PerPageType {
    /// The same latency for every page type.
    One(Duration),
    /// One latency per page type: SLC 1, MLC 2, TLC 3, QLC 4 values.
    PerType(Vec<Duration>),
}

impl<'de> Deserialize<'de> for PerPageType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PerPageType;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a duration such as \"80us\" or a list of durations, one per page type"
                )
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<PerPageType, E> {
                super::units::parse_duration(text)
                    .map(PerPageType::One)
                    .map_err(E::custom)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<PerPageType, A::Error> {
                let mut latencies = Vec::new();
                while let Some(text) = items.next_element::<String>()? {
                    let latency = super::units::parse_duration(&text)
                        .map_err(|message| serde::de::Error::custom(format!("item {}: {message}", latencies.len())))?;
                    latencies.push(latency);
                }
                Ok(PerPageType::PerType(latencies))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl PerPageType {
    /// The latency of page type `page_type` (0 = lower).
    pub fn for_type(&self, page_type: usize) -> Duration {
        match self {
            PerPageType::One(latency) => *latency,
            PerPageType::PerType(latencies) => latencies[page_type],
        }
    }
}

/// The NAND flash array: geometry, cell type, bus and operation timing.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlashConfig {
    /// Independent channels (buses) from the controller to the flash.
    pub channels: u32,
    /// Packages (targets, "ways") sharing one channel.
    pub chips_per_channel: u32,
    /// Dies (LUNs) per package; each die runs one operation at a time.
    pub dies_per_chip: u32,
    /// Planes per die; with `multi_plane` a program writes one page in every plane at once.
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// User data per page (parity not included) [size].
    pub page_size: ByteSize,
    /// Bytes of ECC parity moved with each mapping unit read over the channel [size].
    pub parity_per_codeword: ByteSize,
    /// Cell type: slc, mlc, tlc or qlc.
    pub cell: CellType,
    /// ONFI data rate of the 8-bit channel bus [transfers/s].
    pub bus_rate: TransferRate,
    /// Command and address cycles on the channel before each operation [duration].
    pub command_time: Duration,
    /// Array read time, one value or one per page type (lower first) [duration].
    pub t_read: PerPageType,
    /// Program time, one value or one per page type (lower first) [duration].
    pub t_program: PerPageType,
    /// Block erase time [duration].
    pub t_erase: Duration,
    /// Program multi-plane: one program writes a page in each plane of the die.
    pub multi_plane: bool,
    /// Relative spread of program time, the standard deviation of a normal factor around 1
    /// (clamped to ±3 sigma) [fraction].
    pub program_time_spread: f64,
    /// Channel-switch delay: extra channel time before a transfer whose chip (way) differs from
    /// the chip of the channel's previous transfer (Cho et al., section IV-B: 30 us). 0 turns it
    /// off [duration].
    pub channel_switch_time: Duration,
    /// Time a die spends moving a page between its array and its page register, added to every
    /// read (before data out) and every program (after data in); the die is busy, the channel
    /// free (Cho et al., section IV-B: 82 us). 0 turns it off [duration].
    pub page_register_time: Duration,
    /// Program and erase suspend (`[flash.suspend]`).
    pub suspend: SuspendConfig,
}

impl Default for FlashConfig {
    fn default() -> Self {
        FlashConfig {
            channels: 16,
            chips_per_channel: 1,
            dies_per_chip: 8,
            planes_per_die: 2,
            blocks_per_plane: 1024,
            pages_per_block: 256,
            page_size: ByteSize(16 * 1024),
            parity_per_codeword: ByteSize(224),
            cell: CellType::Tlc,
            bus_rate: TransferRate(400e6),
            command_time: Duration::from_nanos(300),
            t_read: PerPageType::One(Duration::from_micros(80)),
            t_program: PerPageType::One(Duration::from_millis(2)),
            t_erase: Duration::from_millis(5),
            multi_plane: true,
            program_time_spread: 0.0,
            channel_switch_time: Duration::ZERO,
            page_register_time: Duration::ZERO,
            suspend: SuspendConfig::default(),
        }
    }
}

/// A duration, or a fraction of the operation being suspended (`0.035` = 3.5% of its tPROG).
#[derive(Clone, Copy, Debug, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum TimeOrFraction {
    /// A fixed duration such as `"60us"`.
    Time(Duration),
    /// A fraction of the suspended operation's own array time [fraction].
    Fraction(f64),
}

impl<'de> Deserialize<'de> for TimeOrFraction {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = TimeOrFraction;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "a duration such as \"60us\" or a fraction of the operation time such as 0.035"
                )
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<TimeOrFraction, E> {
                super::units::parse_duration(text)
                    .map(TimeOrFraction::Time)
                    .map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<TimeOrFraction, E> {
                Ok(TimeOrFraction::Fraction(value as f64))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl TimeOrFraction {
    /// The duration for an operation whose array time is `operation`.
    pub fn resolve(&self, operation: Duration) -> Duration {
        match *self {
            TimeOrFraction::Time(time) => time,
            TimeOrFraction::Fraction(fraction) => operation.scaled(fraction),
        }
    }
}

impl std::fmt::Display for TimeOrFraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeOrFraction::Time(time) => write!(f, "{time}"),
            TimeOrFraction::Fraction(fraction) => write!(f, "{fraction}"),
        }
    }
}

/// Program and erase suspend (the program-suspend paper, section 3.1 and 4; MODELS.md section 4).
///
/// A program is `program_pulses` ISPP pulse-and-verify steps of equal length, an erase
/// `erase_pulses` erase pulses. A host read queued at a die that is programming (erasing) makes the
/// die finish the current step, spend the enter time (tEPS), serve up to `reads_per_suspend` waiting
/// host reads, spend the resume time and continue where it stopped. An operation is suspended at
/// most `max_per_operation` (`erase_max_per_operation`) times, and runs at least one step between
/// two suspensions.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SuspendConfig {
    /// Reads may suspend programs.
    pub program: bool,
    /// Reads may suspend erases.
    pub erase: bool,
    /// Suspensions allowed per program; 0 disables program suspend [count].
    pub max_per_operation: u32,
    /// Time to enter suspend after the current pulse ends (tEPS): a duration, or a fraction of the
    /// program's time (the paper measures 3–4% of tPROG) [duration or fraction].
    pub enter_time: TimeOrFraction,
    /// Time to resume a suspended program before its next pulse [duration or fraction].
    pub resume_time: TimeOrFraction,
    /// ISPP pulse-and-verify steps per program; suspension waits for the current one [count].
    pub program_pulses: u32,
    /// Host reads served per suspension at most [count].
    pub reads_per_suspend: u32,
    /// Suspensions allowed per erase; 0 disables erase suspend [count].
    pub erase_max_per_operation: u32,
    /// Time to enter erase suspend after the current erase pulse [duration or fraction of tBERS].
    pub erase_enter_time: TimeOrFraction,
    /// Time to resume a suspended erase [duration or fraction of tBERS].
    pub erase_resume_time: TimeOrFraction,
    /// Erase pulses (ISPE loops) per block erase [count].
    pub erase_pulses: u32,
}

impl Default for SuspendConfig {
    fn default() -> Self {
        SuspendConfig {
            program: false,
            erase: false,
            max_per_operation: 5,
            enter_time: TimeOrFraction::Time(Duration::from_micros(60)),
            resume_time: TimeOrFraction::Time(Duration::from_micros(10)),
            program_pulses: 16,
            reads_per_suspend: 8,
            erase_max_per_operation: 5,
            erase_enter_time: TimeOrFraction::Time(Duration::from_micros(100)),
            erase_resume_time: TimeOrFraction::Time(Duration::from_micros(20)),
            erase_pulses: 5,
        }
    }
}

/// Logical-to-physical mapping scheme.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    /// Page mapping at `mapping_unit` granularity.
    Page,
    /// Block mapping: a logical block lives in one physical block at fixed page offsets; writing
    /// an offset already written copies the block's other valid pages to a new block and erases
    /// the old one (Cho et al., section III-C). Needs `mapping_unit = page_size`.
    Block,
    /// BAST (Kim et al., IEEE TCE 48(2), 2002): block mapping plus `log_blocks` page-mapped log
    /// blocks, each tied to one logical block; switch, partial and full merges (Cho et al.,
    /// section III-C). Needs `mapping_unit = page_size`.
    Bast,
}

impl MappingKind {
    /// The name as written in a scenario file.
    pub fn name(self) -> &'static str {
        match self {
            MappingKind::Page => "page",
            MappingKind::Block => "block",
            MappingKind::Bast => "bast",
        }
    }
}

/// Garbage-collection victim selection.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GcPolicyKind {
    /// The block with the fewest valid units.
    Greedy,
    /// The best (1 − u)·age / 2u among the lowest-utilisation candidates (Kawaguchi et al.).
    CostBenefit,
    /// A random closed block with at least one invalid unit.
    Random,
    /// The block closed longest ago.
    Fifo,
}

/// The flash translation layer.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Mapping scheme: `page`.
    pub mapping: MappingKind,
    /// Mapping granularity; host commands are split into transactions of this size [size].
    pub mapping_unit: ByteSize,
    /// Raw capacity hidden from the host as spare [fraction of raw capacity].
    pub over_provisioning: f64,
    /// GC starts on a plane when its free blocks fall below this fraction of its blocks [fraction].
    pub gc_threshold: f64,
    /// Urgent GC: when a plane's free blocks fall below this fraction of its blocks, its die serves
    /// its queues in arrival order (host reads no longer overtake GC work under `read_first`) and
    /// does not suspend GC programs and erases, as firmware raises GC priority when free space runs
    /// out; 0 = off [fraction].
    pub gc_urgent_threshold: f64,
    /// Victim selection: greedy, cost_benefit, random or fifo.
    pub gc_policy: GcPolicyKind,
    /// Lowest-utilisation blocks examined by `cost_benefit` per victim choice [blocks].
    pub gc_candidates: u32,
    /// BAST log-block pool over the whole drive, shared evenly by the planes (a logical block's
    /// log block sits in its data block's plane); when a plane's share is in use, its oldest log
    /// block is merged to make room. Default 64 [A]: Cho et al. do not give the pool size [blocks].
    pub log_blocks: u32,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            mapping: MappingKind::Page,
            mapping_unit: ByteSize(4096),
            over_provisioning: 0.30,
            gc_threshold: 0.10,
            gc_urgent_threshold: 0.0,
            gc_policy: GcPolicyKind::Greedy,
            gc_candidates: 32,
            log_blocks: 64,
        }
    }
}

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

/// How the drive is brought to a used state before the measured run (no simulated time passes).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Precondition {
    /// Start from an empty drive.
    None,
    /// Write the workload's span once, sequentially.
    Fill,
    /// `fill`, then uniform random overwrites of the span with GC, so valid data is fragmented
    /// as on a used drive.
    Steady,
}

/// The workload.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    /// Workload kind: `synthetic`, `trace`, `fio` or `iiot`. The keys below up to `duration`
    /// belong to `synthetic` (`io_count` and `duration` also bound `iiot`); `trace` and `fio` end
    /// where their file says.
    pub kind: WorkloadKind,
    /// Fraction of commands that are reads [fraction].
    pub read_fraction: f64,
    /// Command size when `bssplit` is empty [size].
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
    /// Commands to run; 0 means run for `duration`.
    pub io_count: u64,
    /// Simulated run time when `io_count` is 0 [duration].
    pub duration: Duration,
    /// Drive state before the run: none, fill or steady.
    pub precondition: Precondition,
    /// Random overwrites done by `steady` preconditioning [multiples of the span].
    pub steady_overwrites: f64,
    /// Block-trace replay, used when `kind = "trace"`.
    pub trace: TraceConfig,
    /// fio job file, used when `kind = "fio"`.
    pub fio: FioConfig,
    /// Industrial-IoT generator, used when `kind = "iiot"`.
    pub iiot: IiotConfig,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            kind: WorkloadKind::Synthetic,
            read_fraction: 0.7,
            block_size: ByteSize(4096),
            bssplit: Vec::new(),
            pattern: Pattern::Random,
            sequential_fraction: 0.0,
            distribution: Distribution::Uniform,
            zipf_theta: 1.2,
            span: 1.0,
            io_count: 200_000,
            duration: Duration::ZERO,
            precondition: Precondition::Fill,
            steady_overwrites: 1.0,
            trace: TraceConfig::default(),
            fio: FioConfig::default(),
            iiot: IiotConfig::default(),
        }
    }
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
    pub device_size: super::units::ByteSize,
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
    pub time_unit: crate::sim::time::Duration,
    /// blkparse event taken as a request: `queue` (Q) or `complete` (C).
    pub blkparse_event: BlkparseEvent,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            format: TraceFormat::Disksim,
            path: String::new(),
            replay: Replay::Timed,
            time_scale: 1.0,
            address_map: AddressMap::Wrap,
            device_size: super::units::ByteSize(0),
            devices: Vec::new(),
            operations: OperationFilter::All,
            limit: 0,
            lenient: false,
            time_unit: crate::sim::time::Duration::from_nanos(1),
            blkparse_event: BlkparseEvent::Queue,
        }
    }
}

/// `[workload.fio]`: an fio job file. Every job runs from time 0 with its own `iodepth` (these
/// replace `host.queue_depth`) and ends as its options say; the subset is listed in `workload/fio.rs`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FioConfig {
    /// Job file; a relative path is relative to the scenario file's folder.
    pub job: String,
    /// Options outside the supported subset are warnings in the report instead of errors.
    pub ignore_unsupported: bool,
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
    pub record_size: super::units::ByteSize,
    /// Ingest writers; sensor `s` is ingested by writer `s mod writers`, each writer appends to its
    /// own equal share of the span (sequential-ish writes) [writers].
    pub writers: u32,
    /// A writer writes its batch when it holds this many records [records].
    pub batch_records: u32,
    /// ... or when its oldest buffered record is this old [duration].
    pub commit_interval: crate::sim::time::Duration,
    /// Analytic queries per second, arriving as a Poisson process [queries/s].
    pub query_rate: f64,
    /// Bytes read by one query, one command, from recently written data [size].
    pub query_size: super::units::ByteSize,
    /// Queries read data written within this much time before them [duration].
    pub query_window: crate::sim::time::Duration,
}

impl Default for IiotConfig {
    fn default() -> Self {
        IiotConfig {
            sensors: 200,
            record_rate: 50.0,
            record_size: super::units::ByteSize(1024),
            writers: 4,
            batch_records: 8,
            commit_interval: crate::sim::time::Duration::from_millis(10),
            query_rate: 200.0,
            query_size: super::units::ByteSize(64 * 1024),
            query_window: crate::sim::time::Duration::from_secs(5),
        }
    }
}

/// One segment of an operation's current profile: `[fraction of the operation's duration,
/// current factor]`, the factor relative to the operation's average current.
pub type ProfileSegment = (f64, f64);

/// A current given once for all page types or once per page type (lower first) [mA].
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PerPageTypeCurrent {
    /// The same current for every page type [mA].
    One(f64),
    /// One current per page type: SLC 1, MLC 2, TLC 3, QLC 4 values [mA].
    PerType(Vec<f64>),
}

impl PerPageTypeCurrent {
    /// The current of page type `page_type` (0 = lower) [mA].
    pub fn for_type(&self, page_type: usize) -> f64 {
        match self {
            PerPageTypeCurrent::One(current) => *current,
            PerPageTypeCurrent::PerType(currents) => currents[page_type],
        }
    }
}

/// The power model (MODELS.md section 1): NAND die currents per state and per operation, with
/// piecewise-constant current profiles; the channel I/O bus; the controller (idle, per active
/// channel, per command); DRAM (background, per byte moved); other ICs; the regulator. Defaults
/// are MODELS.md section 1.2 and 1.4 values; drive presets override them with their papers'.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerConfig {
    /// Account power at all. Off, every power field of the report is 0 and the simulation skips
    /// the accounting.
    pub enabled: bool,
    /// NAND core supply VCC [V]. Default 3.3 (MODELS 1.2).
    pub vcc_v: f64,
    /// NAND I/O supply VCCQ [V]. Default 1.2 (MODELS 1.2).
    pub vccq_v: f64,
    /// Standby current of a die with nothing to do (ISB, CE# high) [uA]. Default 30 (MODELS 1.2).
    pub isb_ua: f64,
    /// Core current of a die inside an operation but waiting (for the channel, or with sensed
    /// data not yet sent): bus idle, ICC5 [mA]. Default 5 (MODELS 1.2).
    pub icc_bus_idle_ma: f64,
    /// Core current of a die whose program or erase is suspended [mA]. Default 5 (MODELS 1.1:
    /// ISB/ICC5 while suspended).
    pub icc_suspended_ma: f64,
    /// Average core current of an array read (ICC1), one value or one per page type [mA].
    /// Default 25 (MODELS 1.2).
    pub icc_read_ma: PerPageTypeCurrent,
    /// Average core current of a program (ICC2), one value or one per page type [mA].
    /// Default 25 (MODELS 1.2).
    pub icc_program_ma: PerPageTypeCurrent,
    /// Average core current of a block erase (ICC3) [mA]. Default 25 (MODELS 1.2).
    pub icc_erase_ma: f64,
    /// I/O current of a die sending read data over the channel (ICC4R, on VCCQ) [mA]. Default 10.
    pub icc_io_read_ma: f64,
    /// I/O current of a die receiving program data over the channel (ICC4W, on VCCQ) [mA].
    /// Default 10.
    pub icc_io_write_ma: f64,
    /// Shape of an array read's current: `[fraction of tR, factor]` segments in time order whose
    /// fractions sum to 1 and whose fraction-weighted factors average 1, so `icc_read_ma` stays
    /// the average and the shape adds the peaks (e.g. a sensing peak). Empty: constant.
    pub read_profile: Vec<ProfileSegment>,
    /// Shape of a program's current (e.g. ISPP pulse and verify segments), as `read_profile`.
    pub program_profile: Vec<ProfileSegment>,
    /// Shape of an erase's current, as `read_profile`.
    pub erase_profile: Vec<ProfileSegment>,
    /// Power of a channel's I/O bus (controller PHY and lines) while it moves data [W].
    /// Default 0.012 [A: VCCQ 1.2 V x 10 mA on the controller side, MODELS 1.2].
    pub io_bus_w: f64,
    /// Controller power with no flash activity [W]. Default 0.8 (MODELS 1.4 [A]).
    pub controller_idle_w: f64,
    /// Controller power added per channel with at least one die in an operation (channel
    /// controller, ECC engine) [W]. Default 0.1 [A: 16 channels bring 0.8 W to ~2.5 W, MODELS 1.4].
    pub controller_channel_w: f64,
    /// Controller energy per host command processed (firmware) [uJ]. Default 0.5 [A: a 0.25 W
    /// core busy for the 2 us command overhead].
    pub controller_command_uj: f64,
    /// DRAM background power (active standby and refresh of all devices) [W]. Default 0.117
    /// (two DDR4-2400 4 Gb x8 devices at 52.8 mW + 5.9 mW, MODELS 1.4 [D]).
    pub dram_background_w: f64,
    /// DRAM energy per KiB moved through it (host payloads, flash data) [nJ]. Default 68
    /// (MODELS 1.4 [D]: 0.56 nJ read / 0.50 nJ write per 8-byte burst per x8 device, plus one
    /// 1.01 nJ activation per 1 KiB row).
    pub dram_nj_per_kib: f64,
    /// Other ICs and passives, constant [W]. Default 0.4 (the self-heating paper, section 4.1).
    pub other_w: f64,
    /// Efficiency of the drive's regulators: total input power is the component sum divided by
    /// this [fraction]. Default 0.88 (MODELS 1.2 [A]).
    pub regulator_efficiency: f64,
    /// Window of the windowed NAND peak (`power_w.nand_peak_window`): the largest average NAND
    /// power over any interval of this length [duration]. Default 10us.
    pub peak_window: Duration,
    /// Interval of the power, IOPS and bandwidth time series; 0 turns it off [duration].
    /// Default 10ms (the thermal model's step in DESIGN.md section 1).
    pub sample_interval: Duration,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            enabled: true,
            vcc_v: 3.3,
            vccq_v: 1.2,
            isb_ua: 30.0,
            icc_bus_idle_ma: 5.0,
            icc_suspended_ma: 5.0,
            icc_read_ma: PerPageTypeCurrent::One(25.0),
            icc_program_ma: PerPageTypeCurrent::One(25.0),
            icc_erase_ma: 25.0,
            icc_io_read_ma: 10.0,
            icc_io_write_ma: 10.0,
            read_profile: Vec::new(),
            program_profile: Vec::new(),
            erase_profile: Vec::new(),
            io_bus_w: 0.012,
            controller_idle_w: 0.8,
            controller_channel_w: 0.1,
            controller_command_uj: 0.5,
            dram_background_w: 0.117,
            dram_nj_per_kib: 68.0,
            other_w: 0.4,
            regulator_efficiency: 0.88,
            peak_window: Duration::from_micros(10),
            sample_interval: Duration::from_millis(10),
        }
    }
}
