//! Default text output of `blkparse` (blktrace).
//!
//! One event per line: `maj,min cpu sequence time pid action RWBS sector + sectors [process]`.
//! Units: `time` in **seconds** (decimal, ns resolution) since the trace started; `sector` and
//! `sectors` in **512 B sectors**. The action selected by `blkparse_event` (`Q` queued or `C`
//! completed) is a request; other actions, events without data (flushes, `sector + 0`) and the
//! summary blkparse prints at the end are skipped. RWBS: `D` discard (a trim; `DS`, `WD` and
//! other flags beside it too), `R` read, `W` write; others are skipped. The device for `devices` filtering is `major * 256 + minor`.

use super::fields::{decimal_scaled, integer};
use super::record::TraceRecord;

/// One sector [bytes].
const SECTOR_BYTES: u64 = 512;
/// One second [ns].
const SECOND_NS: u64 = 1_000_000_000;

/// `action` is `'Q'` or `'C'`.
pub fn parse(line: &str, action: char) -> Result<Option<TraceRecord>, String> {
    let mut fields = line.split_whitespace();
    let Some(device) = fields.next() else {
        return Ok(None);
    };
    // Only event lines start with `major,minor`; the rest is blkparse's summary.
    let Some((major, minor)) = device.split_once(',') else {
        return Ok(None);
    };
    if major.is_empty() || !major.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let major = integer(Some(major), "major device number")?;
    let minor = integer(Some(minor), "minor device number")?;
    let _cpu = integer(fields.next(), "cpu")?;
    let _sequence = integer(fields.next(), "sequence number")?;
    let time_ns = decimal_scaled(fields.next(), SECOND_NS, "time (s)")?;
    let _pid = fields.next().ok_or("missing pid")?;
    let event = fields.next().ok_or("missing action")?;
    if event.len() != 1 || !event.starts_with(action) {
        return Ok(None);
    }
    let rwbs = fields.next().ok_or("missing RWBS flags")?;
    let (is_read, trim) = if rwbs.contains('D') {
        (false, true)
    } else if rwbs.contains('R') {
        (true, false)
    } else if rwbs.contains('W') {
        (false, false)
    } else {
        return Ok(None);
    };
    let sector = match fields.next() {
        None => return Ok(None),
        Some(text) if text.starts_with('[') => return Ok(None),
        text => integer(text, "sector")?,
    };
    if fields.next() != Some("+") {
        return Err("expected `sector + sectors`".to_string());
    }
    let sectors = integer(fields.next(), "sectors")?;
    if sectors == 0 {
        return Ok(None);
    }
    Ok(Some(TraceRecord {
        time_ns,
        device: major
            .checked_mul(256)
            .and_then(|high| high.checked_add(minor))
            .and_then(|device| u32::try_from(device).ok())
            .ok_or_else(|| "device number too large".to_string())?,
        is_read,
        trim,
        offset: sector
            .checked_mul(SECTOR_BYTES)
            .ok_or_else(|| format!("sector {sector} is too large"))?,
        length: sectors
            .checked_mul(SECTOR_BYTES)
            .ok_or_else(|| format!("{sectors} sectors is too large"))?,
    }))
}
