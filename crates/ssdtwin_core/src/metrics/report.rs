//! The measurement parts of the report (docs/guide/report.md): flash and FTL counters, queues,
//! suspensions, the simulator's own work, per-job results. The engine fills them; the aggregate
//! [`Report`](crate::Report) in `sim/report.rs` gathers them with the power parts.
use serde::Serialize;

use super::jobs::JobReport;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlashCounters {
    pub reads: u64,
    pub programs: u64,
    pub erases: u64,
    pub gc_reads: u64,
    pub gc_programs: u64,
    pub mapping_reads: u64,
    pub mapping_programs: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueReport {
    pub hol_events: u64,
    pub gc_write_holds: u64,
    pub die_utilization: f64,
}

/// Work of the mapping scheme (`ftl.mapping`) in the measured run: Cho et al.'s Table II.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlReport {
    /// Valid data copied to reclaim or rewrite blocks: pages copied by block-mapping updates and
    /// BAST merges, or mapping units copied by page-mapping GC (pages when `mapping_unit` =
    /// `page_size`).
    pub valid_page_copies: u64,
    /// Block erases by cause (block mapping and BAST: counted when decided).
    pub erases: FtlErases,
    /// BAST merges by kind.
    pub merges: FtlMerges,
    /// Channel grants on another channel than the controller's previous grant that paid
    /// `flash.channel_switch_time` (the channel delay; none counted when it is 0).
    pub channel_switches: u64,
    /// Channel grants to another chip (way) than their channel's previous grant; each paid
    /// `flash.way_switch_time` (the way delay).
    pub way_switches: u64,
    /// Closed blocks relocated by static wear leveling (`ftl.wear_leveling = "static"`).
    pub wear_relocations: u64,
    /// Mapping units named by host trims (deallocates) in the measured run, each unmapped; a unit
    /// already unmapped counts too.
    pub trimmed_units: u64,
    /// Bytes the host asked to write in the measured run.
    pub host_write_bytes: u64,
    /// Bytes programmed for host writes and GC copies: mapping units placed x `ftl.mapping_unit`
    /// (the DRAM buffer's coalescing aside, `waf` = this / `host_write_bytes`).
    pub media_write_bytes: u64,
    /// Writes of part of a mapping unit (docs/models/ftl.md, "Mapping unit").
    pub read_modify_writes: ReadModifyWrites,
    /// P/E cycles of the drive's blocks at the end of the run (with an aged start, its cycles
    /// included): least, mean and most worn block.
    pub pe_cycles: PeCycles,
}

/// The DRAM read cache and read-ahead (`buffer.read_cache`, `buffer.read_ahead`), counted from the
/// start of the run (warm-up included).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ReadCacheReport {
    pub capacity_units: u32,
    pub read_ahead_units: u32,
    /// Host read transactions (mapping units) looked up, found and not found.
    pub lookups: u64,
    pub hits: u64,
    pub misses: u64,
    pub hit_ratio: f64,
    /// Units read ahead from flash into the cache.
    pub prefetched: u64,
    /// Units read ahead that the host then read from the cache.
    pub prefetch_hits: u64,
    /// Units read ahead that the host never read: evicted or dropped unread, or still unread at
    /// the end.
    pub prefetched_unused: u64,
    /// Units in the cache at the end.
    pub held_units: u32,
}

/// Writes smaller than their mapping unit: each unit written in part needs its old data.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ReadModifyWrites {
    /// Mapping units written only in part.
    pub partial_units: u64,
    /// Of those, the units whose old data was read from flash first (die reads, in `flash.reads`).
    pub flash_reads: u64,
    /// Of those, the units whose old data was in controller DRAM (write or frame buffer).
    pub in_dram: u64,
}

/// P/E cycles over the drive's blocks.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PeCycles {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlErases {
    /// Page-mapping garbage collection.
    pub gc: u64,
    /// Block mapping: the old block of an updated logical block.
    pub block_update: u64,
    /// BAST switch merges (the old data block).
    pub switch_merge: u64,
    /// BAST partial merges (the old data block).
    pub partial_merge: u64,
    /// BAST full merges (the data block and the log block).
    pub full_merge: u64,
    pub total: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FtlMerges {
    pub switch: u64,
    pub partial: u64,
    pub full: u64,
}

/// Program and erase suspensions (the program-suspend paper, section 4).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SuspendReport {
    /// Programs suspended (each suspension counted).
    pub program: u64,
    /// Erases suspended (each suspension counted).
    pub erase: u64,
    /// Programs completed with 0, 1, 2, ... suspensions.
    pub per_program: Vec<u64>,
    /// Erases completed with 0, 1, 2, ... suspensions.
    pub per_erase: Vec<u64>,
    /// Mean program array time including suspensions, tPGM,s [us].
    pub mean_program_time_us: f64,
    /// Mean erase array time including suspensions [us].
    pub mean_erase_time_us: f64,
}

/// About the simulator itself: work done and memory used.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SimulatorReport {
    /// Events handled in the measured run.
    pub events: u64,
    /// Wall time spent preconditioning [s] (included in `wall_time_s`).
    pub precondition_wall_s: f64,
    /// Wall time of the measured run alone, after preconditioning [s].
    pub run_wall_s: f64,
    /// Host I/Os simulated per wall-clock second of the measured run (preconditioning excluded):
    /// the simulator's speed.
    pub ios_per_wall_s: f64,
    /// Host I/Os simulated per wall-clock second of the whole call, preconditioning included:
    /// what a user waits for.
    pub end_to_end_ios_per_wall_s: f64,
    /// Logical capacity [mapping units].
    pub logical_units: u64,
    /// Mapping and block tables per logical mapping unit [bytes].
    pub state_bytes_per_mapping_unit: f64,
}

/// The timestamps of a replayed trace (requests after filters and `limit`); trace time is the
/// file's own clock, before `time_scale`.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TraceTimestampsReport {
    /// The replay honoured the timestamps (`replay = "timed"`); `as_fast_as_possible` ignores them.
    pub used: bool,
    /// Trace time from the first to the latest request [s].
    pub span_s: f64,
    /// Requests whose timestamp is earlier than the request's before them (an error in a timed
    /// replay unless `lenient`).
    pub backward: u64,
    /// File line of the first of them (0: none).
    pub first_backward_line: u64,
    /// Gaps between consecutive requests of at least `long_gap_threshold_s`.
    pub long_gaps: u64,
    pub long_gap_threshold_s: f64,
    /// The largest gap between consecutive requests [s], and the file line of the request after it.
    pub largest_gap_s: f64,
    pub largest_gap_line: u64,
}

/// About the workload: input problems and per-job results (the fio-compatible view).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WorkloadReport {
    /// Malformed trace lines skipped because `workload.trace.lenient` is set.
    pub skipped_lines: u64,
    /// Warnings about the input (fio options ignored with `ignore_unsupported`; trace timestamps
    /// ignored, going backwards or far apart).
    pub warnings: Vec<String>,
    /// What a trace replay made of the trace's timestamps; `None` for other workloads.
    pub trace_timestamps: Option<TraceTimestampsReport>,
    /// One entry per job (fio job, IIoT ingest and query, or the single synthetic/trace stream).
    pub jobs: Vec<JobReport>,
    /// With `report.flow_slowdown` and several flows: min slowdown / max slowdown of the flows
    /// (MQSim's fairness; docs/guide/workloads.md, "Flows").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<f64>,
}
