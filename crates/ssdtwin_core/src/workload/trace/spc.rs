//! SPC / UMass Trace Repository format (Financial1/2, WebSearch1–3).
//!
//! CSV, one request per line: `ASU,LBA,Size,Opcode,Timestamp[,...]`. Units: `LBA` in **512 B
//! blocks**; `Size` in **bytes**; `Opcode` `r`/`R` or `w`/`W`; `Timestamp` in **seconds** (a
//! decimal number) from the start of the trace. `ASU` (application storage unit) is the device
//! for `devices` filtering. Extra fields after the timestamp are ignored.

use super::fields::{decimal_scaled, integer};
use super::record::TraceRecord;

/// One logical block of the SPC format [bytes].
const BLOCK_BYTES: u64 = 512;
/// One second [ns].
const SECOND_NS: u64 = 1_000_000_000;

pub fn parse(line: &str) -> Result<Option<TraceRecord>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let mut fields = line.split(',');
    let asu = integer(fields.next(), "ASU")?;
    let lba = integer(fields.next(), "LBA (512 B blocks)")?;
    let length = integer(fields.next(), "size (bytes)")?;
    let opcode = fields.next().ok_or("missing opcode")?.trim();
    let is_read = match opcode {
        "r" | "R" => true,
        "w" | "W" => false,
        other => return Err(format!("opcode `{other}` is neither r nor w")),
    };
    let time_ns = decimal_scaled(fields.next(), SECOND_NS, "timestamp (s)")?;
    Ok(Some(TraceRecord {
        time_ns,
        device: u32::try_from(asu).map_err(|_| format!("ASU {asu} is too large"))?,
        is_read,
        trim: false,
        offset: lba
            .checked_mul(BLOCK_BYTES)
            .ok_or_else(|| format!("LBA {lba} is too large"))?,
        length,
    }))
}
