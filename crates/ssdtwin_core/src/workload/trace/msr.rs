//! MSR Cambridge block traces (Narayanan et al., "Write off-loading", FAST 2008; SNIA IOTTA).
//!
//! CSV, one request per line: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//! Units: `Timestamp` in Windows filetime ticks of **100 ns**; `Offset` and `Size` in **bytes**;
//! `Type` is `Read` or `Write`; `DiskNumber` is the device for `devices` filtering. A first line
//! starting with `Timestamp` is a header and skipped.

use super::fields::integer;
use super::record::TraceRecord;

/// One Windows filetime tick [ns].
const TICK_NS: u64 = 100;

pub fn parse(line: &str) -> Result<Option<TraceRecord>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with("Timestamp") {
        return Ok(None);
    }
    let mut fields = line.split(',');
    let ticks = integer(fields.next(), "timestamp (100 ns ticks)")?;
    let _host = fields.next().ok_or("missing hostname")?;
    let device = integer(fields.next(), "disk number")?;
    let kind = fields.next().ok_or("missing type")?.trim();
    let is_read = if kind.eq_ignore_ascii_case("read") {
        true
    } else if kind.eq_ignore_ascii_case("write") {
        false
    } else {
        return Err(format!("type `{kind}` is neither Read nor Write"));
    };
    let offset = integer(fields.next(), "offset (bytes)")?;
    let length = integer(fields.next(), "size (bytes)")?;
    let time_ns = ticks
        .checked_mul(TICK_NS)
        .ok_or_else(|| format!("timestamp {ticks} is too large"))?;
    Ok(Some(TraceRecord {
        time_ns,
        device: u32::try_from(device).map_err(|_| format!("disk number {device} is too large"))?,
        is_read,
        trim: false,
        offset,
        length,
    }))
}
