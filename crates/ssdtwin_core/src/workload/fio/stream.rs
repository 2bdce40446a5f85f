//! The command streams of a fio job file: one closed-loop generator per job, each with its
//! offsets, sizes, read/write/trim mix and end condition as its options say.

use std::collections::VecDeque;

use super::job::{FioDistribution, FioFile, FioJob, FioTrim};
use super::zbd::{Queued, ZbdState};
use crate::base::rng::Rng;
use crate::base::time::Time;
use crate::host::command::CommandSpec;
use crate::workload::zipf::Zipf;

/// One I/O of a job, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioIo {
    pub is_read: bool,
    /// A trim (deallocate) of the range.
    pub trim: bool,
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
    /// `trimwrite`: the writes still owed to the last trim, as (next offset, end) in the region.
    owed: Option<(u64, u64)>,
    ios: u64,
    bytes: u64,
    /// Writes since the last Flush (`fsync`).
    unsynced: u64,
    /// Writes so far that carried a placement identifier (`roundrobin`), and the draws of
    /// `random` (its own stream: the I/O stream is the same with and without FDP).
    placed: usize,
    placement_rng: Rng,
    /// `zonemode=zbd`: commands made and not yet sent, and whether the job ended (no data to
    /// read).
    pending: VecDeque<Queued>,
    ended: bool,
}

/// All jobs of a job file, each generating its own stream.
#[derive(Debug)]
pub struct FioWorkload {
    streams: Vec<JobStream>,
    unit_bytes: u64,
    pub warnings: Vec<String>,
    /// The zones as the `zonemode=zbd` jobs issued to them.
    zbd: Option<ZbdState>,
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
                    owed: None,
                    ios: 0,
                    bytes: 0,
                    unsynced: 0,
                    placed: 0,
                    placement_rng: Rng::stream(seed, &format!("fio.{index}.fdp")),
                    pending: VecDeque::new(),
                    ended: false,
                }
            })
            .collect();
        FioWorkload {
            streams,
            unit_bytes,
            warnings: file.warnings,
            zbd: None,
        }
    }

    /// Sets up the `zonemode=zbd` jobs on the zoned namespace `zones` (its limits and zone
    /// count; `None`: not zoned); an error names the job file `path`, its line and the drive's key.
    pub fn zoned(&mut self, path: &str, zones: Option<(crate::ftl::zoned::ZoneLimits, usize)>) -> Result<(), String> {
        let mut jobs: Vec<FioJob> = self.streams.iter().map(|stream| stream.job.clone()).collect();
        let (state, notes) = super::zbd::setup(&mut jobs, path, self.unit_bytes, zones)?;
        for (stream, job) in self.streams.iter_mut().zip(jobs) {
            stream.job = job;
        }
        self.warnings.extend(notes);
        self.zbd = state;
        Ok(())
    }

    /// Zone resets the `zonemode=zbd` jobs sent.
    pub fn zone_resets(&self) -> u64 {
        self.zbd.as_ref().map_or(0, |zbd| zbd.resets)
    }

    fn is_zbd(&self, job: usize) -> bool {
        self.zbd.is_some() && self.streams[job].job.zbd.is_some()
    }

    /// Whether `job`'s next command waits for the job's commands in flight (a zone reset and
    /// the write after it, `zonemode=zbd`).
    pub fn quiesce(&mut self, job: usize, now: Time) -> bool {
        if !self.is_zbd(job) {
            return false;
        }
        if self.streams[job].pending.is_empty() {
            self.fill_zbd(job, now);
        }
        self.streams[job].pending.front().is_some_and(|(_, wait)| *wait)
    }

    /// Makes `job`'s next I/O as `zonemode=zbd` places it (`zbd.rs`).
    fn fill_zbd(&mut self, job: usize, now: Time) {
        let Some(mut io) = self.next_io(job, now) else {
            return;
        };
        let unit_bytes = self.unit_bytes;
        let zbd = self.zbd.as_mut().expect("a zbd job");
        let stream = &mut self.streams[job];
        let spec = &stream.job;
        let options = spec.zbd.as_ref().expect("a zbd job");
        if io.is_read && spec.read_fraction < 1.0 && !options.read_beyond_wp && !zbd.has_data() {
            // fio's zbd_adjust_ddir: a mixed job's read with nothing written is a write.
            io.is_read = false;
            io.length = spec
                .write_sizes
                .iter()
                .map(|(size, _)| *size)
                .min()
                .unwrap_or(io.length);
        }
        let (offset, length) = if !io.is_read {
            zbd.write(spec, io.offset, io.length, &mut stream.pending)
        } else {
            let placed = if options.read_beyond_wp {
                Some((io.offset, io.length))
            } else {
                zbd.read(spec, io.offset, io.length)
            };
            let Some((offset, length)) = placed else {
                stream.ended = true;
                return;
            };
            let command = CommandSpec::bytes_range(true, offset, length, unit_bytes);
            stream.pending.push_back((command, false));
            (offset, length)
        };
        stream.bytes = stream.bytes + length - io.length;
        if !spec.random {
            let end = if io.is_read {
                offset + length
            } else {
                zbd.after_write(offset + length)
            };
            stream.cursor = end - spec.offset;
        }
    }

    /// The next command of zbd `job` at `now`.
    fn next_zbd(&mut self, job: usize, now: Time) -> Option<CommandSpec> {
        let stream = &mut self.streams[job];
        if stream.job.runtime.is_some_and(|runtime| now >= Time::ZERO + runtime) {
            return None;
        }
        if stream.job.fsync > 0 && stream.unsynced >= stream.job.fsync {
            stream.unsynced = 0;
            return Some(CommandSpec::flush());
        }
        if stream.pending.is_empty() {
            self.fill_zbd(job, now);
        }
        let stream = &mut self.streams[job];
        let (mut command, _) = stream.pending.pop_front()?;
        if !command.is_read && command.zone == crate::ftl::zoned::ZoneOp::None {
            stream.unsynced += 1;
            command.placement = stream.placement();
        }
        Some(command)
    }

    /// Keeps only the job at `index` of the file (its random stream is the one it has among all
    /// the jobs); an error when the file has fewer jobs.
    pub fn keep_only(&mut self, index: usize) -> Result<(), String> {
        if index >= self.streams.len() {
            return Err(format!(
                "{index}: the job file has {} jobs (0 to {})",
                self.streams.len(),
                self.streams.len().saturating_sub(1)
            ));
        }
        let stream = self.streams.swap_remove(index);
        self.streams = vec![stream];
        Ok(())
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
        if stream.ended {
            return None;
        }
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
        // `trimwrite`: a trim, then writes at the same offsets until they cover it.
        let owed = if spec.trim == FioTrim::ThenWrite {
            stream.owed
        } else {
            None
        };
        let (is_read, trim) = match spec.trim {
            FioTrim::None => (stream.rng.unit() < spec.read_fraction, false),
            FioTrim::All => (false, true),
            FioTrim::ThenWrite => (false, owed.is_none()),
        };
        let sizes = if is_read {
            &spec.read_sizes
        } else if trim {
            &spec.trim_sizes
        } else {
            &spec.write_sizes
        };
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
        let offset = if let Some((next, end)) = owed {
            let length = length.min(spec.size - next);
            stream.owed = (next + length < end).then_some((next + length, end));
            stream.ios += 1;
            stream.bytes += length;
            return Some(FioIo {
                is_read: false,
                trim: false,
                offset: spec.offset + next,
                length,
            });
        } else if spec.random {
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
        if spec.trim == FioTrim::ThenWrite {
            stream.owed = Some((offset, offset + length));
        }
        stream.ios += 1;
        stream.bytes += length;
        Some(FioIo {
            is_read,
            trim,
            offset: spec.offset + offset,
            length,
        })
    }

    /// The next command of `job` at `now`, in mapping units.
    pub fn next(&mut self, job: usize, now: Time) -> Option<CommandSpec> {
        if self.is_zbd(job) {
            return self.next_zbd(job, now);
        }
        let stream = &mut self.streams[job];
        if stream.job.fsync > 0 && stream.unsynced >= stream.job.fsync {
            stream.unsynced = 0;
            return Some(CommandSpec::flush());
        }
        let io = self.next_io(job, now)?;
        if !io.is_read && !io.trim {
            self.streams[job].unsynced += 1;
        }
        if !io.trim {
            let mut command = CommandSpec::bytes_range(io.is_read, io.offset, io.length, self.unit_bytes);
            if !io.is_read {
                command.placement = self.streams[job].placement();
            }
            return Some(command);
        }
        let (first, units) = crate::host::command::units_of(io.offset, io.length, self.unit_bytes, true);
        Some(CommandSpec::io(false, true, first as u32, units as u32))
    }
}

impl JobStream {
    /// The FDP placement identifier of the job's next write (`fdp_pli`, `fdp_pli_select`); 0
    /// without `fdp=1`.
    fn placement(&mut self) -> u16 {
        if self.job.placements.is_empty() {
            return 0;
        }
        let choices = self.job.placements.len();
        let index = if self.job.placement_random {
            self.placement_rng.below(choices as u64) as usize
        } else {
            self.placed % choices
        };
        self.placed += 1;
        self.job.placements[index]
    }
}
