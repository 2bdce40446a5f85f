//! Block-trace replay: one reader per file format behind a closed enum, streaming the file line
//! by line (constant memory, whatever the trace's size).
//!
//! Each reader (`msr.rs`, `spc.rs`, `blkparse.rs`, `disksim.rs`, `fio_iolog.rs`) turns one line
//! into a [`TraceRecord`] in common units (time in ns, offset and length in bytes) and documents
//! the units of its format. This module filters records by device and operation, maps byte
//! addresses onto the simulated logical space (`address_map`), applies `limit` and turns
//! timestamps into arrival times relative to the first request, scaled by `time_scale`
//! (`timing.rs`, which also reports what the replay made of them). A
//! malformed line is an error naming the file, the line number and the text; with `lenient` it is
//! skipped and counted.

mod blkparse;
mod disksim;
mod fields;
mod fio_iolog;
mod msr;
pub mod record;
mod spc;
pub mod timing;

use std::fs::File;
use std::io::{BufRead, BufReader, Read};

use super::params::{AddressMap, BlkparseEvent, OperationFilter, TraceConfig, TraceFormat, TracePlacement};
use crate::base::time::Time;
use crate::host::command::{gaps_of, units_of, CommandSpec};
pub use record::TraceRecord;

/// The line parser of one format.
#[derive(Debug)]
pub enum Reader {
    Msr,
    Spc,
    /// blkparse, taking events of this action letter (`Q` or `C`).
    Blkparse(char),
    /// DiskSim with the length of one time value [ns].
    Disksim(u64),
    FioIolog(fio_iolog::Iolog),
}

impl Reader {
    pub fn new(config: &TraceConfig) -> Reader {
        match config.format {
            TraceFormat::Msr => Reader::Msr,
            TraceFormat::Spc => Reader::Spc,
            TraceFormat::Blkparse => Reader::Blkparse(match config.blkparse_event {
                BlkparseEvent::Queue => 'Q',
                BlkparseEvent::Complete => 'C',
            }),
            TraceFormat::Disksim => Reader::Disksim(config.time_unit.as_nanos()),
            TraceFormat::FioIolog => Reader::FioIolog(fio_iolog::Iolog::default()),
        }
    }

    /// The request on `line`, `None` for a line that holds none (header, comment, other event),
    /// or what is wrong with the line.
    pub fn parse(&mut self, line: &str) -> Result<Option<TraceRecord>, String> {
        match self {
            Reader::Msr => msr::parse(line),
            Reader::Spc => spc::parse(line),
            Reader::Blkparse(action) => blkparse::parse(line, *action),
            Reader::Disksim(unit) => disksim::parse(line, *unit),
            Reader::FioIolog(state) => state.parse(line),
        }
    }
}

/// The longest line a trace may have [bytes]; real trace lines are under 200 bytes.
const MAX_LINE_BYTES: u64 = 64 << 10;

/// A trace file read line by line, with device and operation filters.
#[derive(Debug)]
pub struct TraceFile {
    path: String,
    reader: Reader,
    input: BufReader<File>,
    line: Vec<u8>,
    line_number: u64,
    lenient: bool,
    devices: Vec<u32>,
    operations: OperationFilter,
    /// Malformed lines skipped (lenient mode).
    pub skipped_lines: u64,
    /// Bytes read so far and the file's size, for progress reports.
    bytes_read: u64,
    file_bytes: u64,
}

impl TraceFile {
    pub fn open(config: &TraceConfig) -> Result<TraceFile, String> {
        let file = File::open(&config.path).map_err(|error| format!("cannot open trace {}: {error}", config.path))?;
        let file_bytes = file.metadata().map(|metadata| metadata.len()).unwrap_or(0);
        Ok(TraceFile {
            path: config.path.clone(),
            reader: Reader::new(config),
            input: BufReader::with_capacity(1 << 16, file),
            line: Vec::with_capacity(256),
            line_number: 0,
            lenient: config.lenient,
            devices: config.devices.clone(),
            operations: config.operations,
            skipped_lines: 0,
            bytes_read: 0,
            file_bytes,
        })
    }

    /// `file:line: message: `text`` for the current line.
    fn error_here(&self, message: &str) -> String {
        let text = String::from_utf8_lossy(&self.line);
        format!(
            "{}:{}: {message}: `{}`",
            self.path,
            self.line_number,
            text.trim_end_matches(['\r', '\n'])
        )
    }

    /// The error of a trace that ends before its first request: empty, only comments, only
    /// malformed lines (lenient) or everything filtered out.
    fn no_request(&self) -> String {
        let mut reasons = vec![format!("{} lines", self.line_number)];
        if self.skipped_lines > 0 {
            reasons.push(format!("{} skipped as malformed (lenient)", self.skipped_lines));
        }
        if !self.devices.is_empty() || self.operations != OperationFilter::All {
            reasons.push("the others filtered out by `devices`/`operations`".to_string());
        }
        format!(
            "{}: the trace has no request to replay ({})",
            self.path,
            reasons.join(", ")
        )
    }

    /// The next request that passes the filters, `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, String> {
        loop {
            self.line.clear();
            let read = (&mut self.input)
                .take(MAX_LINE_BYTES + 1)
                .read_until(b'\n', &mut self.line)
                .map_err(|error| format!("{}:{}: cannot read: {error}", self.path, self.line_number + 1))?;
            if read == 0 {
                return Ok(None);
            }
            if read as u64 > MAX_LINE_BYTES {
                // Not a trace (a binary file, /dev/zero): stop instead of buffering it whole.
                return Err(format!(
                    "{}:{}: a line longer than {} KiB: not a text trace",
                    self.path,
                    self.line_number + 1,
                    MAX_LINE_BYTES >> 10
                ));
            }
            self.bytes_read += read as u64;
            self.line_number += 1;
            let parsed = match std::str::from_utf8(&self.line) {
                Ok(text) => self.reader.parse(text),
                Err(_) => Err("not UTF-8 text".to_string()),
            };
            match parsed {
                Ok(Some(record)) => {
                    let device_ok = self.devices.is_empty() || self.devices.contains(&record.device);
                    let operation_ok = match self.operations {
                        OperationFilter::All => true,
                        OperationFilter::Read => record.is_read,
                        OperationFilter::Write => !record.is_read && !record.trim,
                    };
                    if device_ok && operation_ok {
                        return Ok(Some(record));
                    }
                }
                Ok(None) => {}
                Err(message) if self.lenient => {
                    let _ = message;
                    self.skipped_lines += 1;
                }
                Err(message) => return Err(self.error_here(&message)),
            }
        }
    }
}

/// A trace turned into host commands with arrival times.
#[derive(Debug)]
pub struct TraceSource {
    file: TraceFile,
    unit_bytes: u64,
    /// Logical space the trace is mapped onto [mapping units].
    capacity_units: u64,
    address_map: AddressMap,
    /// Traced device size for `scale` [mapping units].
    device_units: u64,
    limit: u64,
    issued: u64,
    clock: Box<timing::Clock>,
    /// `placement = "device"`: writes carry their device column as placement identifier, below
    /// this many handles (`fdp.handles`, set by `placement_handles`).
    placement: Option<u16>,
}

impl TraceSource {
    pub fn new(config: &TraceConfig, unit_bytes: u64, capacity_units: u64) -> Result<TraceSource, String> {
        let file = TraceFile::open(config)?;
        let device_units = match config.address_map {
            AddressMap::Scale if config.device_size.bytes() > 0 => config.device_size.bytes().div_ceil(unit_bytes),
            AddressMap::Scale => {
                // A first pass finds the largest end address (still constant memory).
                let mut first_pass = TraceFile::open(config)?;
                let mut end = 0u64;
                while let Some(record) = first_pass.next_record()? {
                    end = end.max(record.offset.saturating_add(record.length));
                }
                end.div_ceil(unit_bytes).max(1)
            }
            _ => 0,
        };
        Ok(TraceSource {
            file,
            unit_bytes,
            capacity_units,
            address_map: config.address_map,
            device_units,
            limit: config.limit,
            issued: 0,
            clock: timing::Clock::boxed(config),
            placement: (config.placement == TracePlacement::Device).then_some(u16::MAX),
        })
    }

    /// With `placement = "device"`: the drive's reclaim unit handles (`fdp.handles`); a device
    /// value at or above it is an error naming the line.
    pub fn placement_handles(&mut self, handles: u16) {
        if self.placement.is_some() {
            self.placement = Some(handles);
        }
    }

    pub fn skipped_lines(&self) -> u64 {
        self.file.skipped_lines
    }

    /// What the replay saw of the timestamps, and the report's warnings about them.
    pub fn timestamps(&self) -> (timing::TimestampStats, Vec<String>) {
        (self.clock.stats, self.clock.warnings(&self.file.path))
    }

    /// Fraction of the file read so far.
    pub fn progress(&self) -> f64 {
        if self.file.file_bytes == 0 {
            return 0.0;
        }
        let by_file = self.file.bytes_read as f64 / self.file.file_bytes as f64;
        let by_limit = if self.limit > 0 {
            self.issued as f64 / self.limit as f64
        } else {
            0.0
        };
        by_file.max(by_limit).min(1.0)
    }

    /// The next request and its arrival time (the first request arrives at 0; arrivals never go
    /// back in time: see `timing.rs` for a timestamp earlier than the one before it).
    pub fn next_request(&mut self) -> Result<Option<(Time, CommandSpec)>, String> {
        if self.limit > 0 && self.issued >= self.limit {
            return Ok(None);
        }
        let Some(record) = self.file.next_record()? else {
            if self.issued == 0 {
                return Err(self.file.no_request());
            }
            return Ok(None);
        };
        let arrival = self
            .clock
            .arrival(record.time_ns, self.file.line_number)
            .map_err(|message| self.file.error_here(&message))?;
        let command = self.map(&record).map_err(|message| self.file.error_here(&message))?;
        self.issued += 1;
        Ok(Some((arrival, command)))
    }

    /// Byte range to mapping units inside the simulated capacity.
    fn map(&self, record: &TraceRecord) -> Result<CommandSpec, String> {
        let (first, units) = units_of(record.offset, record.length, self.unit_bytes, record.trim);
        let capacity = self.capacity_units;
        if units > capacity {
            return Err(format!(
                "a request of {units} mapping units is larger than the simulated logical space ({capacity} units)"
            ));
        }
        let first = match self.address_map {
            AddressMap::Error if first + units > capacity => {
                return Err(format!(
                    "address {} B is beyond the simulated logical space of {} B (address_map = \"error\")",
                    record.offset.saturating_add(record.length),
                    capacity * self.unit_bytes
                ))
            }
            AddressMap::Error => first,
            AddressMap::Wrap => {
                let wrapped = first % capacity;
                if wrapped + units > capacity {
                    0
                } else {
                    wrapped
                }
            }
            AddressMap::Scale => {
                let scaled = (u128::from(first) * u128::from(capacity) / u128::from(self.device_units.max(1))) as u64;
                scaled.min(capacity - units)
            }
        };
        let (head_gap, tail_gap) = if record.trim {
            (0, 0)
        } else {
            gaps_of(record.offset, record.length, self.unit_bytes)
        };
        let placement = match self.placement {
            Some(handles) if !record.is_read && !record.trim => {
                if record.device >= u32::from(handles) {
                    return Err(format!(
                        "device {} as placement identifier (workload.trace.placement = \"device\") is out of range; allowed: 0 to {} (fdp.handles = {handles})",
                        record.device,
                        handles.saturating_sub(1)
                    ));
                }
                record.device as u16
            }
            _ => 0,
        };
        Ok(CommandSpec {
            head_gap,
            tail_gap,
            placement,
            ..CommandSpec::io(
                record.is_read,
                record.trim,
                first as u32,
                units.min(u64::from(u32::MAX)) as u32,
            )
        })
    }
}

#[cfg(test)]
mod tests;
