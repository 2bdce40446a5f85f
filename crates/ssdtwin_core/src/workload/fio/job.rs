//! A parsed fio job file: its jobs with their options resolved (fio HOWTO, "Job file parameters").

use crate::base::time::Duration;

/// Most jobs of one job file, `numjobs` included.
pub const MAX_JOBS: usize = 256;

/// Where random offsets fall in a job's region.
#[derive(Clone, Debug, PartialEq)]
pub enum FioDistribution {
    Uniform,
    /// Zipf with exponent θ.
    Zipf(f64),
    /// Pareto with fio's parameter h: a fraction h of accesses go to a fraction 1 − h of the region.
    Pareto(f64),
    /// Zones as (fraction of accesses, fraction of the region), in region order.
    Zoned(Vec<(f64, f64)>),
}

/// What a job's I/Os are besides reads and writes (fio HOWTO, `rw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioTrim {
    /// Reads and writes only (`read_fraction` splits them).
    None,
    /// Every I/O is a trim (`rw=trim`, `randtrim`).
    All,
    /// A trim, then writes to the same locations until they cover it, then the next trim
    /// (`rw=trimwrite`, `randtrimwrite`).
    ThenWrite,
}

/// One job, all sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    pub name: String,
    pub read_fraction: f64,
    pub random: bool,
    /// Block sizes of reads and of writes as (bytes, cumulative probability).
    pub read_sizes: Vec<(u64, f64)>,
    pub write_sizes: Vec<(u64, f64)>,
    /// Block sizes of trims (the third `bs`/`bssplit` value; else the write sizes).
    pub trim_sizes: Vec<(u64, f64)>,
    pub trim: FioTrim,
    pub block_align: Option<u64>,
    pub iodepth: u32,
    pub offset: u64,
    pub size: u64,
    pub io_size: Option<u64>,
    pub number_ios: Option<u64>,
    pub runtime: Option<Duration>,
    pub time_based: bool,
    pub distribution: FioDistribution,
    /// A Flush after every this many writes (`fsync`, `fdatasync`: on a block device both flush
    /// the drive's volatile write cache); 0: never.
    pub fsync: u64,
    /// The priority class of its submission queue, from `prioclass` and `prio`
    /// (`priority_of`).
    pub priority: crate::host::params::Priority,
    /// FDP placement identifiers its writes carry (`fdp=1`, `fdp_pli`); empty: none.
    pub placements: Vec<u16>,
    /// `fdp_pli_select=random`: each write draws its identifier (else in turn, `roundrobin`).
    pub placement_random: bool,
    /// `zonemode=zbd` and its options (`zbd.rs`); `None`: zonemode none.
    pub zbd: Option<ZbdOptions>,
}

/// A job's `zonemode=zbd` options; sizes in bytes, with the line each was given on.
#[derive(Clone, Debug, PartialEq)]
pub struct ZbdOptions {
    /// The line of `zonemode=zbd`.
    pub line: usize,
    pub zone_size: Option<(u64, usize)>,
    pub zone_capacity: Option<(u64, usize)>,
    /// 0: the drive's `zns.max_open`.
    pub max_open_zones: Option<(u64, usize)>,
    pub reset_threshold: f64,
    pub reset_frequency: f64,
    pub read_beyond_wp: bool,
}

/// A parsed job file.
#[derive(Clone, Debug, PartialEq)]
pub struct FioFile {
    pub jobs: Vec<FioJob>,
    /// Unsupported options that were ignored (`ignore_unsupported = true`).
    pub warnings: Vec<String>,
}

/// The NVMe priority class of a job with fio's `prioclass` (1 real time, 2 best effort, 3 idle;
/// `None`: not given, best effort) and `prio` (0 highest to 7; 4 when not given): real time is
/// urgent, idle is low; best effort is high below level 4, medium at 4 and low above.
pub fn priority_of(prioclass: Option<u64>, prio: u64) -> crate::host::params::Priority {
    use crate::host::params::Priority;
    match (prioclass, prio) {
        (Some(1), _) => Priority::Urgent,
        (Some(3), _) => Priority::Low,
        (_, 0..=3) => Priority::High,
        (_, 4) => Priority::Medium,
        _ => Priority::Low,
    }
}

#[cfg(test)]
mod tests {
    use super::priority_of;
    use crate::host::params::Priority;

    #[test]
    fn fio_priorities_map_real_time_to_urgent_idle_to_low_best_effort_by_level() {
        assert_eq!(priority_of(Some(1), 7), Priority::Urgent);
        assert_eq!(priority_of(Some(3), 0), Priority::Low);
        assert_eq!(priority_of(None, 4), Priority::Medium, "fio's defaults");
        assert_eq!(priority_of(Some(2), 0), Priority::High);
        assert_eq!(priority_of(Some(2), 3), Priority::High);
        assert_eq!(priority_of(None, 5), Priority::Low);
    }
}
