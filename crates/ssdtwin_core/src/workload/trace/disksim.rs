//! DiskSim / MQSim ASCII traces.
//!
//! One request per line, whitespace separated: `time device lba size flags`. Units: `time` in
//! `time_unit` (a decimal number; MQSim writes integer nanoseconds, the default); `lba` and `size`
//! in **512 B sectors**; `flags` bit 0 set = read, clear = write (MQSim: `1` read, `0` write).

use super::fields::{decimal_scaled, integer};
use super::record::TraceRecord;

/// One sector [bytes].
const SECTOR_BYTES: u64 = 512;

/// `time_unit_ns`: the length of one time value of the file [ns].
pub fn parse(line: &str, time_unit_ns: u64) -> Result<Option<TraceRecord>, String> {
    let mut fields = line.split_whitespace();
    let Some(time) = fields.next() else {
        return Ok(None);
    };
    if time.starts_with('#') {
        return Ok(None);
    }
    let time_ns = decimal_scaled(Some(time), time_unit_ns, "time")?;
    let device = integer(fields.next(), "device")?;
    let lba = integer(fields.next(), "lba (512 B sectors)")?;
    let sectors = integer(fields.next(), "size (512 B sectors)")?;
    let flags = integer(fields.next(), "type")?;
    Ok(Some(TraceRecord {
        time_ns,
        device: u32::try_from(device).map_err(|_| format!("device {device} is too large"))?,
        is_read: flags & 1 == 1,
        trim: false,
        offset: lba
            .checked_mul(SECTOR_BYTES)
            .ok_or_else(|| format!("lba {lba} is too large"))?,
        length: sectors
            .checked_mul(SECTOR_BYTES)
            .ok_or_else(|| format!("size {sectors} is too large"))?,
    }))
}
