//! fio job files: the common subset of fio's options, parsed with fio's semantics (fio HOWTO,
//! "Job file format" and "Job file parameters"), and one command stream per job.
//!
//! Supported: `[global]` plus job sections (a section inherits `[global]`), `rw`/`readwrite`
//! (`read`, `write`, `randread`, `randwrite`, `rw`/`readwrite`, `randrw`), `rwmixread`,
//! `rwmixwrite`, `bs`/`blocksize` (one size, or `read,write`), `bssplit` (`4k/50:8k/50`, also
//! `read,write` lists; entries without a percentage share what is left), `blockalign`/`ba`,
//! `iodepth`, `size` and `offset` (bytes or `N%` of the drive), `io_size`/`io_limit`,
//! `number_ios`, `runtime` with `time_based`, `random_distribution` (`random`, `zipf:θ`,
//! `pareto:h`, `zoned:a/s:...`), `numjobs`, `kb_base`, `name`. Options that do not change the
//! I/O stream a drive sees (`ioengine`, `direct`, `filename`, `group_reporting`, `thread`,
//! `description`, `norandommap`, `randrepeat`) are accepted and have no effect. Anything else
//! is an error listing the options, or a warning with `ignore_unsupported = true`.
//!
//! Sizes follow fio's `kb_base` (HOWTO, "kb_base"): with the default 1024, `k`/`kb` mean 1024 and
//! the IEC forms `kib` mean 1000 (fio's compatibility mode); with `kb_base=1000` it is the other way
//! round. Times (`runtime`) are seconds unless suffixed (`us`, `ms`, `s`, `m`, `h`, `d`).
//!
//! Model choices: all jobs start at time 0 and share the drive; each job keeps `iodepth`
//! commands in flight (closed loop). Random offsets are drawn with replacement (as fio's
//! `norandommap`), aligned to `blockalign` (default: the smallest block size of the direction).
//! The hot end of `zipf` and `pareto` is the start of the job's region (fio scatters it with a
//! hash). A request smaller than the mapping unit occupies one whole unit in the drive.

use super::synthetic::Zipf;
use super::CommandSpec;
use crate::sim::rng::Rng;
use crate::sim::time::{Duration, Time};

/// Options that do not change the stream of I/Os the drive sees: accepted, no effect.
const NO_EFFECT_OPTIONS: [&str; 8] = [
    "ioengine",
    "direct",
    "filename",
    "group_reporting",
    "thread",
    "description",
    "norandommap",
    "randrepeat",
];

/// Options this module understands.
const SUPPORTED_OPTIONS: [&str; 21] = [
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bssplit",
    "blockalign",
    "ba",
    "iodepth",
    "size",
    "offset",
    "io_size",
    "io_limit",
    "number_ios",
    "runtime",
    "time_based",
    "random_distribution",
    "numjobs",
    "kb_base",
    "name",
];

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

/// One job, all sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    pub name: String,
    pub read_fraction: f64,
    pub random: bool,
    /// Block sizes of reads and of writes as (bytes, cumulative probability).
    pub read_sizes: Vec<(u64, f64)>,
    pub write_sizes: Vec<(u64, f64)>,
    pub block_align: Option<u64>,
    pub iodepth: u32,
    pub offset: u64,
    pub size: u64,
    pub io_size: Option<u64>,
    pub number_ios: Option<u64>,
    pub runtime: Option<Duration>,
    pub time_based: bool,
    pub distribution: FioDistribution,
}

/// A parsed job file.
#[derive(Clone, Debug, PartialEq)]
pub struct FioFile {
    pub jobs: Vec<FioJob>,
    /// Unsupported options that were ignored (`ignore_unsupported = true`).
    pub warnings: Vec<String>,
}

/// One option as written: key, value (None for a bare flag), line number.
type Setting = (String, Option<String>, usize);

/// Parses a job file. `capacity` is the drive's logical capacity [bytes] (for `size` defaults
/// and percentages).
pub fn parse(text: &str, path: &str, capacity: u64, ignore_unsupported: bool) -> Result<FioFile, String> {
    let mut global: Vec<Setting> = Vec::new();
    let mut sections: Vec<(String, Vec<Setting>)> = Vec::new();
    let mut in_global = false;
    let mut unsupported: Vec<String> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| format!("{path}:{number}: section header without `]`: `{line}`"))?
                .trim();
            if name.is_empty() {
                return Err(format!("{path}:{number}: empty section name: `{line}`"));
            }
            in_global = name == "global";
            if !in_global {
                sections.push((name.to_string(), Vec::new()));
            }
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key.trim(), Some(value.trim().to_string())),
            None => (line, None),
        };
        if !SUPPORTED_OPTIONS.contains(&key) && !NO_EFFECT_OPTIONS.contains(&key) {
            unsupported.push(format!("`{key}` (line {number})"));
            continue;
        }
        let setting = (key.to_string(), value, number);
        if in_global {
            global.push(setting);
        } else if let Some((_, settings)) = sections.last_mut() {
            settings.push(setting);
        } else {
            return Err(format!(
                "{path}:{number}: option outside a section (start with [global] or [jobname]): `{line}`"
            ));
        }
    }
    let mut warnings = Vec::new();
    if !unsupported.is_empty() {
        let list = unsupported.join(", ");
        if ignore_unsupported {
            warnings.push(format!("{path}: unsupported fio options ignored: {list}"));
        } else {
            return Err(format!(
                "{path}: unsupported fio options: {list}; the supported subset is {} (and {} without effect); \
                 set workload.fio.ignore_unsupported = true to ignore them",
                SUPPORTED_OPTIONS.join(", "),
                NO_EFFECT_OPTIONS.join(", ")
            ));
        }
    }
    if sections.is_empty() {
        return Err(format!("{path}: no job section (a [name] other than [global])"));
    }
    let mut jobs = Vec::new();
    for (name, settings) in sections {
        let all: Vec<&Setting> = global.iter().chain(settings.iter()).collect();
        let (job, count) = build_job(&name, &all, path, capacity)?;
        for _ in 0..count {
            jobs.push(job.clone());
        }
    }
    if jobs.len() > MAX_JOBS {
        return Err(format!(
            "{path}: {} jobs (with numjobs); at most {MAX_JOBS} (each keeps its own latency histograms)",
            jobs.len()
        ));
    }
    Ok(FioFile { jobs, warnings })
}

/// The last value of `key` (or its aliases) among `settings`, with its line.
fn last<'a>(settings: &[&'a Setting], keys: &[&str]) -> Option<(Option<&'a str>, usize)> {
    settings
        .iter()
        .rev()
        .find(|(key, _, _)| keys.contains(&key.as_str()))
        .map(|(_, value, line)| (value.as_deref(), *line))
}

fn build_job(name: &str, settings: &[&Setting], path: &str, capacity: u64) -> Result<(FioJob, u32), String> {
    let error = |line: usize, key: &str, value: &str, allowed: &str| {
        format!("{path}:{line}: `{key}={value}` is not valid; allowed: {allowed}")
    };
    let value_of = |keys: &[&str]| -> Result<Option<(&str, usize)>, String> {
        match last(settings, keys) {
            None => Ok(None),
            Some((Some(value), line)) => Ok(Some((value, line))),
            Some((None, line)) => Err(format!("{path}:{line}: `{}` needs a value", keys[0])),
        }
    };
    let kb_base = match value_of(&["kb_base"])? {
        None => 1024,
        Some(("1024", _)) => 1024,
        Some(("1000", _)) => 1000,
        Some((value, line)) => return Err(error(line, "kb_base", value, "1024 or 1000")),
    };
    let size_of = |value: &str, line: usize, key: &str| -> Result<u64, String> {
        parse_size(value, kb_base).ok_or_else(|| {
            error(
                line,
                key,
                value,
                "an integer with an optional k/m/g/t/p suffix (fio kb_base rules)",
            )
        })
    };
    let bytes_or_percent = |value: &str, line: usize, key: &str| -> Result<u64, String> {
        if let Some(percent) = value.strip_suffix('%') {
            let fraction: f64 = percent
                .trim()
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=100.0).contains(p))
                .ok_or_else(|| error(line, key, value, "a percentage from 0% to 100%"))?;
            Ok((capacity as f64 * fraction / 100.0) as u64)
        } else {
            size_of(value, line, key)
        }
    };
    let count_of = |value: &str, line: usize, key: &str, low: u64, high: u64| -> Result<u64, String> {
        parse_size(value, kb_base)
            .filter(|count| (low..=high).contains(count))
            .ok_or_else(|| error(line, key, value, &format!("an integer from {low} to {high}")))
    };

    let job_name = match value_of(&["name"])? {
        Some((value, _)) => value.to_string(),
        None => name.to_string(),
    };
    let (random, mixed_default) = match value_of(&["rw", "readwrite"])? {
        None | Some(("read", _)) => (false, 1.0),
        Some(("write", _)) => (false, 0.0),
        Some(("randread", _)) => (true, 1.0),
        Some(("randwrite", _)) => (true, 0.0),
        Some(("rw" | "readwrite", _)) => (false, f64::NAN),
        Some(("randrw", _)) => (true, f64::NAN),
        Some((value, line)) => {
            return Err(error(
                line,
                "rw",
                value,
                "read, write, randread, randwrite, rw, readwrite, randrw",
            ))
        }
    };
    let read_fraction = if mixed_default.is_nan() {
        // rwmixread and rwmixwrite: the one given last wins (fio: they are two views of one value).
        match last(settings, &["rwmixread", "rwmixwrite"]) {
            None => 0.5,
            Some((value, line)) => {
                let (key, _, _) = settings
                    .iter()
                    .rev()
                    .find(|(key, _, _)| key == "rwmixread" || key == "rwmixwrite")
                    .copied()
                    .expect("found above");
                let percent = count_of(value.unwrap_or(""), line, key, 0, 100)? as f64 / 100.0;
                if key == "rwmixread" {
                    percent
                } else {
                    1.0 - percent
                }
            }
        }
    } else {
        mixed_default
    };
    let (read_sizes, write_sizes) = match (value_of(&["bssplit"])?, value_of(&["bs", "blocksize"])?) {
        (Some((value, line)), _) => {
            let mut lists = value.split(',');
            let read = parse_bssplit(lists.next().unwrap_or(""), kb_base)
                .ok_or_else(|| error(line, "bssplit", value, "size/percent:size/percent..., e.g. 4k/50:8k/50"))?;
            let write = match lists.next() {
                Some(list) if !list.trim().is_empty() => parse_bssplit(list, kb_base)
                    .ok_or_else(|| error(line, "bssplit", value, "size/percent:size/percent..., e.g. 4k/50:8k/50"))?,
                _ => read.clone(),
            };
            (read, write)
        }
        (None, Some((value, line))) => {
            let mut sizes = value.split(',');
            let read = size_of(sizes.next().unwrap_or("").trim(), line, "bs")?;
            let write = match sizes.next() {
                Some(text) if !text.trim().is_empty() => size_of(text.trim(), line, "bs")?,
                _ => read,
            };
            (vec![(read, 1.0)], vec![(write, 1.0)])
        }
        (None, None) => (vec![(4096, 1.0)], vec![(4096, 1.0)]),
    };
    for &(size, _) in read_sizes.iter().chain(write_sizes.iter()) {
        if size == 0 {
            return Err(format!("{path}: job `{name}` has a block size of 0"));
        }
    }
    let block_align = match value_of(&["blockalign", "ba"])? {
        Some((value, line)) => Some(size_of(value, line, "blockalign")?).filter(|align| *align > 0),
        None => None,
    };
    let iodepth = match value_of(&["iodepth"])? {
        Some((value, line)) => count_of(value, line, "iodepth", 1, 65_535)? as u32,
        None => 1,
    };
    let numjobs = match value_of(&["numjobs"])? {
        Some((value, line)) => count_of(value, line, "numjobs", 1, 1024)? as u32,
        None => 1,
    };
    let offset = match value_of(&["offset"])? {
        Some((value, line)) => bytes_or_percent(value, line, "offset")?,
        None => 0,
    };
    let size = match value_of(&["size"])? {
        Some((value, line)) => bytes_or_percent(value, line, "size")?,
        None => capacity.saturating_sub(offset),
    };
    if size == 0 || offset.saturating_add(size) > capacity {
        return Err(format!(
            "{path}: job `{name}`: offset {offset} + size {size} bytes does not fit the drive's logical capacity of {capacity} bytes"
        ));
    }
    let largest = read_sizes
        .iter()
        .chain(write_sizes.iter())
        .map(|(s, _)| *s)
        .max()
        .unwrap_or(0);
    if largest > size {
        return Err(format!(
            "{path}: job `{name}`: block size {largest} is larger than its region of {size} bytes"
        ));
    }
    let io_size = match value_of(&["io_size", "io_limit"])? {
        Some((value, line)) => Some(size_of(value, line, "io_size")?),
        None => None,
    };
    let number_ios = match value_of(&["number_ios"])? {
        Some((value, line)) => Some(count_of(value, line, "number_ios", 1, u64::MAX)?),
        None => None,
    };
    let runtime = match value_of(&["runtime"])? {
        Some((value, line)) => Some(parse_time(value).filter(|time| *time > Duration::ZERO).ok_or_else(|| {
            error(
                line,
                "runtime",
                value,
                "a positive time: seconds, or with us/ms/s/m/h/d",
            )
        })?),
        None => None,
    };
    let time_based = match last(settings, &["time_based"]) {
        None => false,
        Some((None | Some("1"), _)) => true,
        Some((Some("0"), _)) => false,
        Some((Some(value), line)) => return Err(error(line, "time_based", value, "no value, 1 or 0")),
    };
    if time_based && runtime.is_none() {
        return Err(format!("{path}: job `{name}` is time_based but has no runtime"));
    }
    let distribution = match value_of(&["random_distribution"])? {
        None | Some(("random", _)) => FioDistribution::Uniform,
        Some((value, line)) => parse_distribution(value).ok_or_else(|| {
            error(
                line,
                "random_distribution",
                value,
                "random, zipf:θ (θ > 0, ≠ 1), pareto:h (0 < h < 1) or zoned:access%/size%:... (each summing to 100)",
            )
        })?,
    };
    let job = FioJob {
        name: job_name,
        read_fraction,
        random,
        read_sizes,
        write_sizes,
        block_align,
        iodepth,
        offset,
        size,
        io_size,
        number_ios,
        runtime,
        time_based,
        distribution,
    };
    Ok((job, numjobs))
}

/// fio's integer with size suffix: `4k`, `1m`, `4kb`, `4KiB`, `512`, `0x100`.
pub fn parse_size(text: &str, kb_base: u64) -> Option<u64> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    let digits_end = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (number, suffix) = lower.split_at(digits_end);
    let number: f64 = number.parse().ok()?;
    let (power, iec) = match suffix {
        "" | "b" => (0, false),
        _ => {
            let power = match suffix.as_bytes()[0] {
                b'k' => 1,
                b'm' => 2,
                b'g' => 3,
                b't' => 4,
                b'p' => 5,
                _ => return None,
            };
            match &suffix[1..] {
                "" | "b" => (power, false),
                "i" | "ib" => (power, true),
                _ => return None,
            }
        }
    };
    // kb_base 1024 (fio's default, "compatibility mode"): plain and SI-looking suffixes are
    // powers of 2, IEC suffixes powers of 10; kb_base 1000 swaps them.
    let base: f64 = match (kb_base, iec) {
        (1024, false) | (1000, true) => 1024.0,
        _ => 1000.0,
    };
    let value = number * base.powi(power);
    ((0.0..1.8e19).contains(&value) && value.fract() == 0.0).then_some(value as u64)
}

/// fio's time: seconds by default, or with a suffix.
fn parse_time(text: &str) -> Option<Duration> {
    let text = text.trim().to_ascii_lowercase();
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits_end);
    let number: f64 = number.parse().ok()?;
    let seconds = match suffix {
        "" | "s" | "sec" => 1.0,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    let value = number * seconds;
    (0.0..1e9).contains(&value).then(|| Duration::from_secs_f64(value))
}

/// `4k/50:8k/30:16k` to (bytes, cumulative probability); entries without a percentage share
/// what the others leave of 100 (fio HOWTO, "bssplit").
fn parse_bssplit(text: &str, kb_base: u64) -> Option<Vec<(u64, f64)>> {
    let mut entries: Vec<(u64, Option<f64>)> = Vec::new();
    for item in text.split(':') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (size, percent) = match item.split_once('/') {
            Some((size, percent)) => {
                let percent: f64 = percent.trim().parse().ok()?;
                if !(0.0..=100.0).contains(&percent) {
                    return None;
                }
                (size, Some(percent))
            }
            None => (item, None),
        };
        entries.push((parse_size(size, kb_base)?, percent));
    }
    let given: f64 = entries.iter().filter_map(|(_, percent)| *percent).sum();
    let open = entries.iter().filter(|(_, percent)| percent.is_none()).count();
    if entries.is_empty() || given > 100.0 + 1e-9 {
        return None;
    }
    let share = if open > 0 { (100.0 - given) / open as f64 } else { 0.0 };
    let weights: Vec<(u64, f64)> = entries
        .iter()
        .map(|(size, percent)| (*size, percent.unwrap_or(share)))
        .collect();
    let total: f64 = weights.iter().map(|(_, weight)| weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut cumulative = 0.0;
    let mut sizes: Vec<(u64, f64)> = weights
        .into_iter()
        .map(|(size, weight)| {
            cumulative += weight / total;
            (size, cumulative)
        })
        .collect();
    if let Some(last) = sizes.last_mut() {
        last.1 = 1.0;
    }
    Some(sizes)
}

fn parse_distribution(text: &str) -> Option<FioDistribution> {
    let (kind, parameter) = text.split_once(':')?;
    match kind.trim() {
        "zipf" => {
            let theta: f64 = parameter.trim().parse().ok()?;
            (theta.is_finite() && theta > 0.0 && theta <= 10.0 && theta != 1.0).then_some(FioDistribution::Zipf(theta))
        }
        "pareto" => {
            let h: f64 = parameter.trim().parse().ok()?;
            (h > 0.0 && h < 1.0).then_some(FioDistribution::Pareto(h))
        }
        "zoned" => {
            let mut zones = Vec::new();
            for zone in parameter.split(':') {
                let (access, size) = zone.split_once('/')?;
                let access: f64 = access.trim().parse().ok()?;
                let size: f64 = size.trim().parse().ok()?;
                if !(0.0..=100.0).contains(&access) || !(0.0..=100.0).contains(&size) {
                    return None;
                }
                zones.push((access / 100.0, size / 100.0));
            }
            let access: f64 = zones.iter().map(|(access, _)| access).sum();
            let size: f64 = zones.iter().map(|(_, size)| size).sum();
            ((access - 1.0).abs() < 1e-6 && (size - 1.0).abs() < 1e-6).then_some(FioDistribution::Zoned(zones))
        }
        _ => None,
    }
}

/// One I/O of a job, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioIo {
    pub is_read: bool,
    pub offset: u64,
    pub length: u64,
}

/// A job's generator state.
#[derive(Debug)]
struct JobStream {
    job: FioJob,
    rng: Rng,
    zipf: Option<Zipf>,
    /// Zoned: (cumulative access probability, start, length) as fractions of the region.
    zones: Vec<(f64, f64, f64)>,
    cursor: u64,
    ios: u64,
    bytes: u64,
}

/// All jobs of a job file, each generating its own stream.
#[derive(Debug)]
pub struct FioWorkload {
    streams: Vec<JobStream>,
    unit_bytes: u64,
    pub warnings: Vec<String>,
}

impl FioWorkload {
    pub fn new(file: FioFile, unit_bytes: u64, seed: u64) -> FioWorkload {
        let streams = file
            .jobs
            .into_iter()
            .enumerate()
            .map(|(index, job)| {
                let align = job.block_align.unwrap_or(4096).max(1);
                let zipf = match job.distribution {
                    FioDistribution::Zipf(theta) => Some(Zipf::new((job.size / align).max(1), theta)),
                    _ => None,
                };
                let mut zones = Vec::new();
                if let FioDistribution::Zoned(list) = &job.distribution {
                    let (mut cumulative, mut start) = (0.0, 0.0);
                    for &(access, size) in list {
                        cumulative += access;
                        zones.push((cumulative, start, size));
                        start += size;
                    }
                }
                JobStream {
                    job,
                    rng: Rng::stream(seed, &format!("fio.{index}")),
                    zipf,
                    zones,
                    cursor: 0,
                    ios: 0,
                    bytes: 0,
                }
            })
            .collect();
        FioWorkload {
            streams,
            unit_bytes,
            warnings: file.warnings,
        }
    }

    pub fn jobs(&self) -> impl Iterator<Item = &FioJob> {
        self.streams.iter().map(|stream| &stream.job)
    }

    /// Mean over jobs of the fraction of each job's work done at `now` (by runtime for time-based
    /// jobs, else by I/Os or bytes, whichever ends the job).
    pub fn progress(&self, now: Time) -> f64 {
        let fractions = self.streams.iter().map(|stream| {
            let job = &stream.job;
            let by_time = job
                .runtime
                .map_or(0.0, |runtime| now.as_secs_f64() / runtime.as_secs_f64().max(1e-12));
            let by_work = if job.time_based {
                0.0
            } else if let Some(limit) = job.number_ios {
                stream.ios as f64 / limit as f64
            } else {
                stream.bytes as f64 / job.io_size.unwrap_or(job.size).max(1) as f64
            };
            by_time.max(by_work).min(1.0)
        });
        fractions.sum::<f64>() / self.streams.len().max(1) as f64
    }

    /// The next I/O of `job` at `now`, `None` once the job is done.
    pub fn next_io(&mut self, job: usize, now: Time) -> Option<FioIo> {
        let stream = &mut self.streams[job];
        let spec = &stream.job;
        if let Some(runtime) = spec.runtime {
            if now >= Time::ZERO + runtime {
                return None;
            }
        }
        if !spec.time_based {
            if spec.number_ios.is_some_and(|limit| stream.ios >= limit) {
                return None;
            }
            if spec.number_ios.is_none() && stream.bytes >= spec.io_size.unwrap_or(spec.size) {
                return None;
            }
        }
        let is_read = stream.rng.unit() < spec.read_fraction;
        let sizes = if is_read { &spec.read_sizes } else { &spec.write_sizes };
        let length = if sizes.len() == 1 {
            sizes[0].0
        } else {
            let draw = stream.rng.unit();
            sizes
                .iter()
                .find(|(_, cumulative)| draw < *cumulative)
                .unwrap_or(&sizes[0])
                .0
        };
        let align = spec
            .block_align
            .unwrap_or_else(|| sizes.iter().map(|(size, _)| *size).min().unwrap_or(length))
            .max(1);
        let offset = if spec.random {
            let slots = (spec.size / align).max(1);
            let slot = match &spec.distribution {
                FioDistribution::Uniform => stream.rng.below(slots),
                FioDistribution::Zipf(_) => {
                    let zipf = stream.zipf.as_ref().expect("built with the job");
                    (zipf.sample(&mut stream.rng) - 1) * slots / zipf.items()
                }
                FioDistribution::Pareto(h) => {
                    // fio's lib/zipf.c: n = (N − 1)·u^(ln h / ln(1 − h)); hot ranks first here.
                    let power = h.ln() / (1.0 - h).ln();
                    let rank = ((slots - 1) as f64 * stream.rng.unit().powf(power)) as u64;
                    slots - 1 - rank.min(slots - 1)
                }
                FioDistribution::Zoned(_) => {
                    let draw = stream.rng.unit();
                    let &(_, start, length) = stream
                        .zones
                        .iter()
                        .find(|(cumulative, _, length)| draw < *cumulative && *length > 0.0)
                        .or_else(|| stream.zones.iter().rev().find(|zone| zone.2 > 0.0))
                        .expect("zones sum to the whole region");
                    (((start + stream.rng.unit() * length) * slots as f64) as u64).min(slots - 1)
                }
            };
            let offset = slot * align;
            if offset + length > spec.size {
                (spec.size - length) / align * align
            } else {
                offset
            }
        } else {
            if stream.cursor + length > spec.size {
                stream.cursor = 0;
            }
            let offset = stream.cursor;
            stream.cursor += length;
            offset
        };
        stream.ios += 1;
        stream.bytes += length;
        Some(FioIo {
            is_read,
            offset: spec.offset + offset,
            length,
        })
    }

    /// The next command of `job` at `now`, in mapping units.
    pub fn next(&mut self, job: usize, now: Time) -> Option<CommandSpec> {
        let io = self.next_io(job, now)?;
        let first = io.offset / self.unit_bytes;
        let end = (io.offset + io.length).div_ceil(self.unit_bytes);
        Some(CommandSpec {
            is_read: io.is_read,
            first_unit: first as u32,
            units: (end - first).max(1) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn sizes_follow_kb_base() {
        assert_eq!(parse_size("4k", 1024), Some(4096));
        assert_eq!(parse_size("4K", 1024), Some(4096));
        assert_eq!(parse_size("4kb", 1024), Some(4096));
        assert_eq!(
            parse_size("4KiB", 1024),
            Some(4000),
            "IEC means 10^3 in compatibility mode"
        );
        assert_eq!(parse_size("4k", 1000), Some(4000));
        assert_eq!(parse_size("4KiB", 1000), Some(4096));
        assert_eq!(parse_size("1m", 1024), Some(1 << 20));
        assert_eq!(parse_size("1.5k", 1024), Some(1536));
        assert_eq!(parse_size("0x200", 1024), Some(512));
        assert_eq!(parse_size("4q", 1024), None);
        assert_eq!(parse_size("", 1024), None);
    }

    #[test]
    fn bssplit_shares_the_rest_among_unweighted_entries() {
        let sizes = parse_bssplit("4k/50:8k:16k", 1024).unwrap();
        assert_eq!(sizes.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [4096, 8192, 16384]);
        assert!((sizes[0].1 - 0.5).abs() < 1e-12 && (sizes[1].1 - 0.75).abs() < 1e-12);
        assert!(parse_bssplit("4k/80:8k/30", 1024).is_none());
    }

    #[test]
    fn global_options_are_inherited_and_overridden() {
        let text = "; comment\n[global]\nbs=8k\niodepth=4\nrw=randrw\nrwmixread=70\nsize=1g\n\n\
                    [a]\n[b]\nrwmixwrite=10\niodepth=16\nbs=4k,16k\nnumjobs=2\n";
        let file = parse(text, "x.fio", 4 * GIB, false).unwrap();
        assert_eq!(file.jobs.len(), 3);
        let a = &file.jobs[0];
        assert_eq!((a.iodepth, a.read_sizes[0].0, a.size), (4, 8192, GIB));
        assert!((a.read_fraction - 0.7).abs() < 1e-12 && a.random);
        let b = &file.jobs[1];
        assert_eq!((b.iodepth, b.read_sizes[0].0, b.write_sizes[0].0), (16, 4096, 16384));
        assert!((b.read_fraction - 0.9).abs() < 1e-12);
        assert_eq!(file.jobs[2], *b);
    }

    #[test]
    fn unsupported_options_are_listed_or_warned() {
        let text = "[j]\nrw=read\nverify=crc32\nrate=10m\nioengine=libaio\n";
        let error = parse(text, "x.fio", GIB, false).unwrap_err();
        assert!(
            error.contains("`verify` (line 3)") && error.contains("`rate` (line 4)"),
            "{error}"
        );
        let listed = error.split("; the supported").next().unwrap();
        assert!(!listed.contains("ioengine"), "{error}");
        let file = parse(text, "x.fio", GIB, true).unwrap();
        assert_eq!(file.warnings.len(), 1);
        assert!(file.warnings[0].contains("verify"));
    }

    #[test]
    fn bad_values_name_file_line_and_option() {
        for (text, needle) in [
            ("[j]\nrw=trim\n", "x.fio:2: `rw=trim`"),
            ("[j]\nbs=4q\n", "x.fio:2: `bs=4q`"),
            ("[j]\nrandom_distribution=zoned:50/5:30/15\n", "random_distribution"),
            ("[j]\ntime_based\n", "no runtime"),
            ("[j]\nsize=2g\n", "does not fit"),
            ("rw=read\n", "outside a section"),
            ("[global]\nrw=read\n", "no job section"),
            ("[j]\niodepth=0\n", "iodepth=0"),
        ] {
            let error = parse(text, "x.fio", GIB, false).unwrap_err();
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    fn stream(text: &str, capacity: u64) -> FioWorkload {
        FioWorkload::new(parse(text, "t.fio", capacity, false).unwrap(), 4096, 1)
    }

    #[test]
    fn size_bound_sequential_job_covers_its_region_once() {
        let mut workload = stream("[j]\nrw=write\nbs=16k\noffset=1m\nsize=1m\n", GIB);
        let ios: Vec<FioIo> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
        assert_eq!(ios.len(), 64);
        assert!(ios
            .iter()
            .enumerate()
            .all(|(i, io)| io.offset == (1 << 20) + i as u64 * 16384 && !io.is_read));
    }

    #[test]
    fn number_ios_and_runtime_stop_a_job() {
        let mut workload = stream("[j]\nrw=randread\nnumber_ios=10\n", GIB);
        assert_eq!(std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).count(), 10);
        let mut workload = stream("[j]\nrw=randread\nruntime=2ms\ntime_based\n", GIB);
        assert!(workload.next_io(0, Time::from_nanos(1_999_999)).is_some());
        assert!(workload.next_io(0, Time::from_nanos(2_000_000)).is_none());
    }

    #[test]
    fn pareto_sends_h_of_accesses_to_one_minus_h_of_the_region() {
        let mut workload = stream(
            "[j]\nrw=randread\nrandom_distribution=pareto:0.9\nnumber_ios=100000\n",
            GIB,
        );
        let hot = std::iter::from_fn(|| workload.next_io(0, Time::ZERO))
            .filter(|io| io.offset < GIB / 10)
            .count() as f64
            / 100_000.0;
        assert!((hot - 0.9).abs() < 0.01, "{hot}");
    }

    #[test]
    fn zipf_favours_the_first_blocks() {
        let mut workload = stream(
            "[j]\nrw=randread\nrandom_distribution=zipf:1.2\nnumber_ios=50000\n",
            GIB,
        );
        let first_block = std::iter::from_fn(|| workload.next_io(0, Time::ZERO))
            .filter(|io| io.offset == 0)
            .count() as f64
            / 50_000.0;
        // P(rank 1) = 1 / H(N, 1.2) with N = 2^18 blocks: about 0.19.
        let normaliser: f64 = (1..=(GIB / 4096)).map(|k| (k as f64).powf(-1.2)).sum();
        assert!((first_block - 1.0 / normaliser).abs() < 0.01, "{first_block}");
    }

    /// Random job files and mutated valid ones: errors or jobs, never a panic, and every job
    /// that parses generates I/Os inside its region.
    #[test]
    fn parser_and_generator_never_panic_on_garbage() {
        let mut rng = Rng::stream(5, "fuzz");
        let keys = [
            "rw",
            "bs",
            "bssplit",
            "blockalign",
            "iodepth",
            "size",
            "offset",
            "io_size",
            "number_ios",
            "runtime",
            "time_based",
            "random_distribution",
            "rwmixread",
            "numjobs",
            "kb_base",
            "name",
            "bogus",
        ];
        let values = [
            "randrw",
            "read",
            "4k",
            "0",
            "1.5k/30:4k",
            "zipf:1.2",
            "pareto:0.5",
            "zoned:50/5:50/95",
            "zoned:",
            "99999999999999999999",
            "50%",
            "0x10",
            "4k,",
            ",8k",
            "1ms",
            "-1",
            "",
            "4k/101",
            "pareto:1",
        ];
        let mut parsed = 0;
        for _ in 0..3_000 {
            let mut text = String::from("[global]\nnumber_ios=20\n[j]\n");
            for _ in 0..rng.below(6) {
                let key = keys[rng.below(keys.len() as u64) as usize];
                let value = values[rng.below(values.len() as u64) as usize];
                match rng.below(4) {
                    0 => text.push_str(&format!("{key}\n")),
                    1 => text.push_str(&format!("[{value}]\n")),
                    _ => text.push_str(&format!("{key}={value}\n")),
                }
            }
            if let Ok(file) = parse(&text, "f.fio", GIB, rng.below(2) == 0) {
                parsed += 1;
                let jobs = file.jobs.clone();
                let mut workload = FioWorkload::new(file, 4096, 1);
                for (index, job) in jobs.iter().enumerate() {
                    for _ in 0..50 {
                        let Some(io) = workload.next_io(index, Time::ZERO) else {
                            break;
                        };
                        assert!(
                            io.offset >= job.offset && io.offset + io.length <= job.offset + job.size,
                            "{text}"
                        );
                    }
                }
            }
        }
        assert!(parsed > 100, "the fuzz reaches the generator: {parsed}");
        // Arbitrary bytes.
        let alphabet = b"[]=;#,:/%.0123456789kKmMgGiIbB \t\nrwandomzipfpareto\x00\xff";
        for _ in 0..3_000 {
            let bytes: Vec<u8> = (0..rng.below(120))
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            let _ = parse(&String::from_utf8_lossy(&bytes), "f.fio", GIB, true);
        }
    }
}
