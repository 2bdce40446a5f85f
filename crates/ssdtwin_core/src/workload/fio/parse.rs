//! The fio job-file parser: `[global]` and job sections, the supported option subset with fio's
//! semantics (fio HOWTO, "Job file format" and "Job file parameters"), warnings or errors for the
//! rest.

use super::job::{FioDistribution, FioFile, FioJob, FioTrim, MAX_JOBS};
use super::values::{parse_bssplit, parse_distribution, parse_size, parse_time};
use crate::base::time::Duration;

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
const SUPPORTED_OPTIONS: [&str; 28] = [
    "fdp",
    "fdp_pli",
    "fdp_pli_select",
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
    "fsync",
    "prio",
    "prioclass",
    "fdatasync",
    "runtime",
    "time_based",
    "random_distribution",
    "numjobs",
    "kb_base",
    "name",
];

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
        if !SUPPORTED_OPTIONS.contains(&key) && !NO_EFFECT_OPTIONS.contains(&key) && !super::zbd::OPTIONS.contains(&key)
        {
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
                "{path}: unsupported fio options: {list}; the supported subset is {}, {} (and {} without effect); \
                 set workload.fio.ignore_unsupported = true to ignore them",
                SUPPORTED_OPTIONS.join(", "),
                super::zbd::OPTIONS.join(", "),
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
    let (random, mixed_default, trim) = match value_of(&["rw", "readwrite"])? {
        None | Some(("read", _)) => (false, 1.0, FioTrim::None),
        Some(("write", _)) => (false, 0.0, FioTrim::None),
        Some(("randread", _)) => (true, 1.0, FioTrim::None),
        Some(("randwrite", _)) => (true, 0.0, FioTrim::None),
        Some(("rw" | "readwrite", _)) => (false, f64::NAN, FioTrim::None),
        Some(("randrw", _)) => (true, f64::NAN, FioTrim::None),
        Some(("trim", _)) => (false, 0.0, FioTrim::All),
        Some(("randtrim", _)) => (true, 0.0, FioTrim::All),
        Some(("trimwrite", _)) => (false, 0.0, FioTrim::ThenWrite),
        Some(("randtrimwrite", _)) => (true, 0.0, FioTrim::ThenWrite),
        Some((value, line)) => {
            return Err(error(
                line,
                "rw",
                value,
                "read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite, randtrimwrite",
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
    // `read,write,trim`: a value left out takes the one before it (fio HOWTO, `bs`).
    let (read_sizes, write_sizes, trim_sizes) = match (value_of(&["bssplit"])?, value_of(&["bs", "blocksize"])?) {
        (Some((value, line)), _) => {
            let mut lists = value.split(',');
            let allowed = "size/percent:size/percent..., e.g. 4k/50:8k/50";
            let read = parse_bssplit(lists.next().unwrap_or(""), kb_base)
                .ok_or_else(|| error(line, "bssplit", value, allowed))?;
            let mut next = |before: &Vec<(u64, f64)>| match lists.next() {
                Some(list) if !list.trim().is_empty() => {
                    parse_bssplit(list, kb_base).ok_or_else(|| error(line, "bssplit", value, allowed))
                }
                _ => Ok(before.clone()),
            };
            let write = next(&read)?;
            let trim = next(&write)?;
            (read, write, trim)
        }
        (None, Some((value, line))) => {
            let mut sizes = value.split(',');
            let read = size_of(sizes.next().unwrap_or("").trim(), line, "bs")?;
            let mut next = |before: u64| match sizes.next() {
                Some(text) if !text.trim().is_empty() => size_of(text.trim(), line, "bs"),
                _ => Ok(before),
            };
            let write = next(read)?;
            let trim = next(write)?;
            (vec![(read, 1.0)], vec![(write, 1.0)], vec![(trim, 1.0)])
        }
        (None, None) => (vec![(4096, 1.0)], vec![(4096, 1.0)], vec![(4096, 1.0)]),
    };
    for &(size, _) in read_sizes.iter().chain(write_sizes.iter()).chain(trim_sizes.iter()) {
        if size == 0 {
            return Err(format!(
                "{path}: job `{name}` has a block size of 0 (`bs`, `bsrange` or `bssplit`)"
            ));
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
        .chain(trim_sizes.iter())
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
    // fio HOWTO: "fsync=int: how many I/Os to perform before issuing an fsync"; 0 turns it off.
    let fsync = match value_of(&["fsync", "fdatasync"])? {
        Some((value, line)) => count_of(value, line, "fsync", 0, u64::MAX)?,
        None => 0,
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
    // fio HOWTO: `prioclass` 1 real time, 2 best effort, 3 idle; `prio` 0 (highest) to 7, best
    // effort's default 4. Real time is urgent, idle is low; best effort by its level.
    let prioclass = match value_of(&["prioclass"])? {
        Some((value, line)) => Some(count_of(value, line, "prioclass", 1, 3)?),
        None => None,
    };
    let prio = match value_of(&["prio"])? {
        Some((value, line)) => count_of(value, line, "prio", 0, 7)?,
        None => 4,
    };
    let priority = super::job::priority_of(prioclass, prio);
    let (placements, placement_random) = placement_options(settings, path)?;
    let zbd = super::zbd::options(settings, path, &size_of)?;
    let job = FioJob {
        name: job_name,
        read_fraction,
        random,
        read_sizes,
        write_sizes,
        trim_sizes,
        trim,
        block_align,
        iodepth,
        offset,
        size,
        io_size,
        number_ios,
        fsync,
        runtime,
        time_based,
        distribution,
        priority,
        placements,
        placement_random,
        zbd,
    };
    Ok((job, numjobs))
}

/// `fdp=1`, `fdp_pli=` and `fdp_pli_select=` (fio HOWTO, "I/O engine specific parameters" of
/// io_uring_cmd): the placement identifiers a job's writes carry, and whether each write picks
/// one at random (else in turn). fio's `fdp_pli` are indices into the namespace's placement
/// identifiers; the simulated drive's identifier `i` is handle `i`, so index and identifier
/// agree. Without `fdp=1`: none (empty).
fn placement_options(settings: &[&Setting], path: &str) -> Result<(Vec<u16>, bool), String> {
    let on = match last(settings, &["fdp"]) {
        None | Some((Some("0"), _)) => false,
        Some((None | Some("1"), _)) => true,
        Some((Some(value), line)) => {
            return Err(format!(
                "{path}:{line}: `fdp={value}` is not valid; allowed: no value, 1 or 0"
            ))
        }
    };
    if !on {
        return Ok((Vec::new(), false));
    }
    let placements = match last(settings, &["fdp_pli"]) {
        Some((Some(list), line)) => {
            let mut placements = Vec::new();
            for item in list.split(',') {
                let (low, high) = item.split_once('-').unwrap_or((item, item));
                match (low.trim().parse::<u16>(), high.trim().parse::<u16>()) {
                    (Ok(low), Ok(high)) if low <= high => placements.extend(low..=high),
                    _ => {
                        return Err(format!(
                            "{path}:{line}: `fdp_pli={list}` is not valid; allowed: indices 0 to 65535 or ranges a-b, comma separated"
                        ))
                    }
                }
            }
            placements
        }
        Some((None, line)) => return Err(format!("{path}:{line}: `fdp_pli` needs a value")),
        None => {
            return Err(format!(
                "{path}: `fdp=1` needs `fdp_pli` (the simulated drive does not report its placement identifiers to the job file; list the indices, e.g. fdp_pli=0,1)"
            ))
        }
    };
    let random = match last(settings, &["fdp_pli_select"]) {
        None | Some((Some("roundrobin"), _)) => false,
        Some((Some("random"), _)) => true,
        Some((value, line)) => {
            return Err(format!(
                "{path}:{line}: `fdp_pli_select={}` is not valid; allowed: roundrobin or random",
                value.unwrap_or("")
            ))
        }
    };
    Ok((placements, random))
}
