//! The command streams of a fio job file: one closed-loop generator per job, each with its
//! offsets, sizes, read/write/trim mix and end condition as its options say.

use super::job::{FioDistribution, FioFile, FioJob, FioTrim};
use crate::base::rng::Rng;
use crate::base::time::Time;
use crate::host::command::CommandSpec;
use crate::workload::synthetic::Zipf;

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
                    owed: None,
                    ios: 0,
                    bytes: 0,
                    unsynced: 0,
                    placed: 0,
                    placement_rng: Rng::stream(seed, &format!("fio.{index}.fdp")),
                }
            })
            .collect();
        FioWorkload {
            streams,
            unit_bytes,
            warnings: file.warnings,
        }
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
            let stream = &mut self.streams[job];
            if !io.is_read && !stream.job.placements.is_empty() {
                let choices = stream.job.placements.len();
                let index = if stream.job.placement_random {
                    stream.placement_rng.below(choices as u64) as usize
                } else {
                    stream.placed % choices
                };
                stream.placed += 1;
                command.placement = stream.job.placements[index];
            }
            return Some(command);
        }
        let (first, units) = crate::host::command::units_of(io.offset, io.length, self.unit_bytes, true);
        Some(CommandSpec::io(false, true, first as u32, units as u32))
    }
}
