//! fio's `zonemode=zbd` (fio HOWTO, "zonemode", "zonesize", "zonecapacity", "max_open_zones",
//! "zone_reset_threshold", "zone_reset_frequency", "read_beyond_wp"; the behaviour is that of
//! fio's `zbd.c`, `zbd_adjust_block`, described here in our words): a job on a zoned namespace
//! (`zns.enabled`).
//!
//! The state is the namespace's, shared by the jobs as fio shares it per file: each zone's write
//! pointer as issued, the write zones (at most `max_open_zones`, default `zns.max_open`), the
//! bytes written in the writer's region, and the countdown to the next threshold reset.
//!
//! - A write goes to the zone its offset (sequential or random) falls in. If that zone is not a
//!   write zone it becomes one while there are fewer than `max_open_zones`; otherwise the write
//!   goes to the write zone at the offset's proportional position among them (fio's
//!   `pick_random_zone_idx`). A zone leaves the write zones once written to its capacity.
//! - `zone_reset_frequency` f > 0: while the bytes written in the job's region are at least
//!   `zone_reset_threshold` × its size, every ⌊1/f⌋-th write resets its zone first.
//! - A write to a full zone resets it first. A reset of a zone holding no data is not sent.
//! - A reset waits until the job has nothing in flight, and the write after it until the reset
//!   completed (fio's `io_u_quiesce` and its synchronous reset): the host's `quiesce`.
//! - The write lands at the zone's write pointer, shortened to the zone's remaining capacity;
//!   a sequential job continues after it (at the next zone once the zone is full).
//! - A read (unless `read_beyond_wp`) falls in written data: in its zone if that zone holds at
//!   least the smallest read, else in the nearest zone that does (the next one for sequential
//!   jobs); clipped to the write pointer. With no data anywhere in its region the job ends, as
//!   fio's does; a mixed job's read before any data is written becomes a write (`zbd_adjust_ddir`).
//!
//! Limits of the model (errors): one job of the file writes (fio serialises the writes of several
//! jobs to one zone with zone locks, which the simulated host does not have); trims (fio resets
//! zones for them) are not supported; write sizes must be multiples of the smallest, and the
//! zone capacity a multiple of it (fio: "all write pointers a multiple of the block size").

use std::collections::VecDeque;

use super::job::{FioJob, FioTrim, ZbdOptions};
use crate::ftl::zoned::{ZoneAction, ZoneLimits, ZoneOp};
use crate::host::command::CommandSpec;

/// The zbd options of a job file.
pub(super) const OPTIONS: [&str; 7] = [
    "zonemode",
    "zonesize",
    "zonecapacity",
    "max_open_zones",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "read_beyond_wp",
];

type Setting = (String, Option<String>, usize);

/// The zbd options among `settings` (the job's, `[global]`'s first); `None` without
/// `zonemode=zbd`. `size_of` parses a size with the job's `kb_base`.
pub(super) fn options(
    settings: &[&Setting],
    path: &str,
    size_of: &dyn Fn(&str, usize, &str) -> Result<u64, String>,
) -> Result<Option<ZbdOptions>, String> {
    let last = |key: &str| {
        settings
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, l)| (v.as_deref(), *l))
    };
    let needs = |key: &str, line: usize| format!("{path}:{line}: `{key}` needs a value");
    let line = match last("zonemode") {
        None | Some((Some("none"), _)) => {
            if let Some((key, _, line)) = settings.iter().find(|(key, _, _)| OPTIONS[1..].contains(&key.as_str())) {
                return Err(format!("{path}:{line}: `{key}` needs zonemode=zbd"));
            }
            return Ok(None);
        }
        Some((Some("zbd"), line)) => line,
        Some((value, line)) => {
            return Err(format!(
                "{path}:{line}: `zonemode={}` is not supported; allowed: none or zbd (fio's strided is not modelled)",
                value.unwrap_or("")
            ))
        }
    };
    let size = |key: &str| -> Result<Option<(u64, usize)>, String> {
        match last(key) {
            None => Ok(None),
            Some((None, line)) => Err(needs(key, line)),
            Some((Some(value), line)) => Ok(Some((size_of(value, line, key)?, line))),
        }
    };
    let fraction = |key: &str, default: f64| -> Result<f64, String> {
        match last(key) {
            None => Ok(default),
            Some((None, line)) => Err(needs(key, line)),
            Some((Some(value), line)) => value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| (0.0..=1.0).contains(f))
                .ok_or_else(|| format!("{path}:{line}: `{key}={value}` is not valid; allowed: a number from 0 to 1")),
        }
    };
    let read_beyond_wp = match last("read_beyond_wp") {
        None | Some((Some("0"), _)) => false,
        Some((None | Some("1"), _)) => true,
        Some((Some(value), line)) => {
            return Err(format!(
                "{path}:{line}: `read_beyond_wp={value}` is not valid; allowed: no value, 1 or 0"
            ))
        }
    };
    Ok(Some(ZbdOptions {
        line,
        zone_size: size("zonesize")?,
        zone_capacity: size("zonecapacity")?,
        max_open_zones: size("max_open_zones")?,
        // fio's defaults: threshold 1, frequency 0 (no threshold resets).
        reset_threshold: fraction("zone_reset_threshold", 1.0)?,
        reset_frequency: fraction("zone_reset_frequency", 0.0)?,
        read_beyond_wp,
    }))
}

/// The zones as the jobs issued to them.
#[derive(Debug)]
pub(super) struct ZbdState {
    /// Zone size and capacity [bytes].
    zone_bytes: u64,
    capacity: u64,
    unit_bytes: u64,
    /// Bytes issued to each zone since its reset.
    wp: Vec<u64>,
    write_zones: Vec<usize>,
    max_open: usize,
    /// The writing job's region [bytes] and the bytes written in it.
    region: (u64, u64),
    valid: u64,
    /// Writes left before the next threshold reset, and its start value ⌊1/f⌋ (0: none).
    countdown: u64,
    every: u64,
    threshold: f64,
    /// Zone resets sent.
    pub resets: u64,
}

/// Checks the zbd jobs of `jobs` against the namespace (`zones`: its limits in logical blocks
/// of `unit_bytes`, and its zone count) and aligns their regions to zones as fio does; returns
/// the shared state (None when no job uses zonemode=zbd) and notes for the report's warnings.
pub(super) fn setup(
    jobs: &mut [FioJob],
    path: &str,
    unit_bytes: u64,
    zones: Option<(ZoneLimits, usize)>,
) -> Result<(Option<ZbdState>, Vec<String>), String> {
    let Some(first) = jobs.iter().find_map(|job| job.zbd.as_ref()) else {
        return Ok((None, Vec::new()));
    };
    let Some((limits, count)) = zones else {
        return Err(format!(
            "{path}:{}: zonemode=zbd needs a zoned namespace, and zns.enabled = false; set zns.enabled = true (or drop zonemode=zbd)",
            first.line
        ));
    };
    let zone_bytes = limits.zone_size * unit_bytes;
    let capacity = limits.zone_capacity * unit_bytes;
    let mut notes = Vec::new();
    let mut writer: Option<(String, u64, u64, f64, f64)> = None;
    let mut max_open = limits.max_open as usize;
    for job in jobs.iter_mut() {
        let Some(zbd) = job.zbd.clone() else { continue };
        if let Some((size, line)) = zbd.zone_size {
            if size != zone_bytes {
                return Err(format!(
                    "{path}:{line}: zonesize={size} bytes differs from the drive's zns.zone_size ({zone_bytes} bytes); allowed: {zone_bytes} or leave it out"
                ));
            }
        }
        if let Some((given, line)) = zbd.zone_capacity {
            if given != capacity {
                notes.push(format!(
                    "{path}:{line}: zonecapacity={given} ignored: on a zoned device fio takes the drive's zone capacity (zns.zone_capacity, {capacity} bytes)"
                ));
            }
        }
        if let Some((open, line)) = zbd.max_open_zones {
            if open > u64::from(limits.max_open) {
                return Err(format!(
                    "{path}:{line}: max_open_zones={open} is above the drive's zns.max_open ({}); allowed: 0 (the drive's limit) to {}",
                    limits.max_open, limits.max_open
                ));
            }
            if open > 0 {
                max_open = open as usize;
            }
        }
        if job.trim != FioTrim::None {
            return Err(format!(
                "{path}: job `{}`: trims with zonemode=zbd (fio resets zones for them) are not supported; allowed rw: read, write, randread, randwrite, rw, readwrite, randrw",
                job.name
            ));
        }
        for &(size, _) in job.read_sizes.iter().chain(job.write_sizes.iter()) {
            if !size.is_multiple_of(unit_bytes) || size > zone_bytes {
                return Err(format!(
                    "{path}: job `{}`: block size {size} with zonemode=zbd; allowed: a multiple of the logical block (ftl.mapping_unit, {unit_bytes} bytes) up to the zone size ({zone_bytes} bytes)",
                    job.name
                ));
            }
        }
        let smallest = min_size(&job.write_sizes);
        if job.read_fraction < 1.0
            && (!capacity.is_multiple_of(smallest)
                || job.write_sizes.iter().any(|(size, _)| !size.is_multiple_of(smallest)))
        {
            return Err(format!(
                "{path}: job `{}`: with zonemode=zbd the write sizes must be multiples of the smallest ({smallest}) and the zone capacity ({capacity} bytes) a multiple of it",
                job.name
            ));
        }
        // fio's zbd_verify_sizes: a writing job's offset rounds up, its end down, to zones.
        if job.read_fraction < 1.0 {
            let start = job.offset.div_ceil(zone_bytes) * zone_bytes;
            let end = (job.offset + job.size) / zone_bytes * zone_bytes;
            if end <= start {
                return Err(format!(
                    "{path}: job `{}`: its region (offset {}, size {}) holds no whole zone of {zone_bytes} bytes; with zonemode=zbd it must hold at least one",
                    job.name, job.offset, job.size
                ));
            }
            if (start, end - start) != (job.offset, job.size) {
                notes.push(format!(
                    "{path}: job `{}`: region aligned to zones as fio does: offset {} -> {start}, size {} -> {}",
                    job.name,
                    job.offset,
                    job.size,
                    end - start
                ));
                job.offset = start;
                job.size = end - start;
            }
            if let Some((other, ..)) = &writer {
                return Err(format!(
                    "{path}: jobs `{other}` and `{}` both write with zonemode=zbd; allowed: one writing job (fio serialises several writers of a zone with zone locks, not modelled)",
                    job.name
                ));
            }
            writer = Some((
                job.name.clone(),
                job.offset,
                job.size,
                zbd.reset_threshold,
                zbd.reset_frequency,
            ));
        }
    }
    let (region, threshold, frequency) =
        writer.map_or(((0, 0), 1.0, 0.0), |(_, offset, size, t, f)| ((offset, size), t, f));
    // fio: the countdown starts at 1/f (an integer), and a reset restarts it.
    let every = if frequency > 0.0 { (1.0 / frequency) as u64 } else { 0 };
    let state = ZbdState {
        zone_bytes,
        capacity,
        unit_bytes,
        wp: vec![0; count],
        write_zones: Vec::new(),
        max_open,
        region,
        valid: 0,
        countdown: every,
        every,
        threshold,
        resets: 0,
    };
    Ok((Some(state), notes))
}

fn min_size(sizes: &[(u64, f64)]) -> u64 {
    sizes.iter().map(|(size, _)| *size).min().unwrap_or(1).max(1)
}

/// A command of a zbd job, and whether it waits for the job's commands in flight.
pub(super) type Queued = (CommandSpec, bool);

impl ZbdState {
    fn zone_command(&self, zone: usize, action: ZoneAction) -> CommandSpec {
        let lba = zone as u64 * self.zone_bytes / self.unit_bytes;
        CommandSpec {
            zone: ZoneOp::Send(action),
            ..CommandSpec::io(false, false, lba as u32, 0)
        }
    }

    /// Whether any zone holds data.
    pub(super) fn has_data(&self) -> bool {
        self.wp.iter().any(|&wp| wp > 0)
    }

    /// Where a sequential job goes on after a write ending at `end` [bytes]: there, or at the
    /// next zone once the zone is full (fio's jump from the zone capacity to the zone end).
    pub(super) fn after_write(&self, end: u64) -> u64 {
        let zone = ((end - 1) / self.zone_bytes) as usize;
        if self.wp[zone] == self.capacity {
            (zone as u64 + 1) * self.zone_bytes
        } else {
            end
        }
    }

    /// A write of `length` bytes at `offset` of `job`, as fio places it: its commands (a reset
    /// first when one is due) join `out`; returns the (offset, length) written.
    pub(super) fn write(&mut self, job: &FioJob, offset: u64, length: u64, out: &mut VecDeque<Queued>) -> (u64, u64) {
        let min_bs = min_size(&job.write_sizes);
        let mut zone = (offset / self.zone_bytes) as usize;
        if !self.write_zones.contains(&zone) {
            if self.write_zones.len() < self.max_open {
                self.write_zones.push(zone);
            } else {
                let open = self.write_zones.len() as u64;
                let index = ((offset - job.offset) as u128 * u128::from(open) / u128::from(job.size.max(1))) as usize;
                zone = self.write_zones[index.min(open as usize - 1)];
            }
        }
        let mut reset = false;
        if self.every > 0 && self.valid as f64 >= self.region.1 as f64 * self.threshold {
            self.countdown -= 1;
            if self.countdown == 0 {
                self.countdown = self.every;
                reset = true;
            }
        }
        let mut after_reset = false;
        if (reset || self.capacity - self.wp[zone] < min_bs) && self.wp[zone] > 0 {
            out.push_back((self.zone_command(zone, ZoneAction::Reset), true));
            self.valid -= self.wp[zone];
            self.wp[zone] = 0;
            self.resets += 1;
            after_reset = true;
        }
        let start = zone as u64 * self.zone_bytes + self.wp[zone];
        let length = length.min(self.capacity - self.wp[zone]) / min_bs * min_bs;
        self.wp[zone] += length;
        self.valid += length;
        if self.wp[zone] == self.capacity {
            self.write_zones.retain(|&open| open != zone);
        }
        let command = CommandSpec::bytes_range(false, start, length, self.unit_bytes);
        out.push_back((command, after_reset));
        (start, length)
    }

    /// A read of `length` bytes at `offset` of `job`, within written data as fio places it;
    /// `None`: no zone of the job's region holds a read's worth (the job ends).
    pub(super) fn read(&self, job: &FioJob, offset: u64, length: u64) -> Option<(u64, u64)> {
        let min_bs = min_size(&job.read_sizes);
        let first = (job.offset / self.zone_bytes) as usize;
        let end = (job.offset + job.size).div_ceil(self.zone_bytes) as usize;
        let home = (offset / self.zone_bytes) as usize;
        let mut zone = home;
        let mut offset = offset;
        let holds = |zone: usize| self.wp[zone] >= min_bs;
        let start_of = |zone: usize| zone as u64 * self.zone_bytes;
        if !holds(zone) || (!job.random && offset + min_bs > start_of(zone) + self.wp[zone]) {
            // fio's zbd_find_zone: the next zones, and for random jobs the previous ones too.
            let found = (1..end - first).find_map(|step| {
                let next = zone + step;
                if next < end && holds(next) {
                    return Some(next);
                }
                if job.random && zone >= first + step && holds(zone - step) {
                    return Some(zone - step);
                }
                None
            })?;
            zone = found;
            if !job.random {
                offset = start_of(zone);
            }
        }
        let range = self.wp[zone];
        let start = start_of(zone);
        if range <= length {
            offset = start;
        } else if job.random {
            offset = start + (offset - start_of(home)) % (range - length) / min_bs * min_bs;
        }
        let length = length.min(start + range - offset) / min_bs * min_bs;
        Some((offset, length))
    }
}
