//! fio I/O logs (`write_iolog`, replayed by fio's `read_iolog`), versions 2 and 3.
//!
//! The first line names the version: `fio version 2 iolog` or `fio version 3 iolog`.
//! Version 2 lines: `filename action [offset [length]]`; a `wait` action pauses for `offset`
//! **microseconds** (fio HOWTO, "Trace file format"), so a request's time is the sum of the waits
//! before it. Version 3 lines: `timestamp filename action [offset [length]]`, the timestamp in
//! **microseconds** since the log started (fio's `iolog.c` writes `utime_since_now()`; the HOWTO
//! does not say). Offsets and lengths are in **bytes**. Actions `read`, `write` and `trim` are
//! requests; `add`, `open`, `close`, `sync` and `datasync` are skipped. The device for `devices`
//! filtering is the file's index in order of `add` (0 first).

use super::fields::integer;
use super::record::TraceRecord;

/// One microsecond [ns].
const MICROSECOND_NS: u64 = 1_000;

/// Reader state: the version, the clock of version 2 and the files added so far.
#[derive(Debug, Default)]
pub struct Iolog {
    version: u8,
    clock_us: u64,
    files: Vec<String>,
}

impl Iolog {
    pub fn parse(&mut self, line: &str) -> Result<Option<TraceRecord>, String> {
        let line = line.trim();
        if self.version == 0 {
            self.version = match line {
                "fio version 2 iolog" => 2,
                "fio version 3 iolog" => 3,
                _ => return Err("the first line must be `fio version 2 iolog` or `fio version 3 iolog`".into()),
            };
            return Ok(None);
        }
        if line.is_empty() {
            return Ok(None);
        }
        let mut fields = line.split_whitespace();
        let timestamp_us = if self.version == 3 {
            Some(integer(fields.next(), "timestamp (us)")?)
        } else {
            None
        };
        let file = fields.next().ok_or("missing file name")?;
        let action = fields.next().ok_or("missing action")?;
        let (is_read, trim) = match action {
            "read" => (true, false),
            "write" => (false, false),
            "trim" => (false, true),
            "wait" => {
                let wait = integer(fields.next(), "wait (us)")?;
                self.clock_us = self.clock_us.saturating_add(wait);
                return Ok(None);
            }
            "add" => {
                if !self.files.iter().any(|known| known == file) {
                    self.files.push(file.to_string());
                }
                return Ok(None);
            }
            "open" | "close" | "sync" | "datasync" => return Ok(None),
            other => return Err(format!("unknown action `{other}`")),
        };
        let offset = integer(fields.next(), "offset (bytes)")?;
        let length = integer(fields.next(), "length (bytes)")?;
        let device = match self.files.iter().position(|known| known == file) {
            Some(index) => index as u32,
            None => return Err(format!("file `{file}` was not added")),
        };
        let time_us = timestamp_us.unwrap_or(self.clock_us);
        Ok(Some(TraceRecord {
            time_ns: time_us
                .checked_mul(MICROSECOND_NS)
                .ok_or_else(|| format!("time {time_us} us is too large"))?,
            device,
            is_read,
            trim,
            offset,
            length,
        }))
    }
}
