//! fio job files: the common subset of fio's options, parsed with fio's semantics (fio HOWTO,
//! "Job file format" and "Job file parameters"), and one command stream per job.
//!
//! Supported: `[global]` plus job sections (a section inherits `[global]`), `rw`/`readwrite`
//! (`read`, `write`, `randread`, `randwrite`, `rw`/`readwrite`, `randrw`, `trim`, `randtrim`,
//! `trimwrite`, `randtrimwrite`), `rwmixread`, `rwmixwrite`, `bs`/`blocksize` (one size, or
//! `read,write,trim`, a size left out taking the one before), `bssplit` (`4k/50:8k/50`, also
//! `read,write,trim` lists; entries without a percentage share what is left), `blockalign`/`ba`,
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
//! hash). A request smaller than the mapping unit occupies one whole unit in the drive; a trim
//! deallocates only the whole units inside its range. `trimwrite` trims a block (the trim block
//! size), then writes it in write-size blocks from its start, then trims the next block; fio's
//! HOWTO: "trims alternating with writes, with trims preceding writes to the same locations at
//! their respective block sizes".
//!
//! `zonemode=zbd` (`zonesize`, `zonecapacity`, `max_open_zones`, `zone_reset_threshold`,
//! `zone_reset_frequency`, `read_beyond_wp`) runs jobs on a zoned namespace as fio does on a
//! zoned block device: `zbd.rs`.
//!
//! Files: `job.rs` the parsed jobs, `parse.rs` the job-file parser, `values.rs` fio's value
//! syntax (sizes, times, `bssplit`, distributions), `stream.rs` the command streams, `zbd.rs`
//! zonemode=zbd.

pub mod job;
pub mod parse;
pub mod stream;
#[cfg(test)]
mod tests;
pub mod values;
pub mod zbd;

pub use job::{FioDistribution, FioFile, FioJob, ZbdOptions, MAX_JOBS};
pub use parse::parse;
pub use stream::{FioIo, FioWorkload};
pub use values::parse_size;
