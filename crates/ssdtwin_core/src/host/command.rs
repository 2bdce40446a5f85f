//! What the host submits: one command in mapping units, and the jobs (streams) that submit them.
//!
//! Workloads produce these and the host and engine consume them, so they belong to the host layer,
//! below the workloads.

/// One host command, in mapping units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    pub is_read: bool,
    /// A deallocate (NVMe Dataset Management, ATA TRIM, fio's `trim`): the units are unmapped and
    /// no data moves; `is_read` is false.
    pub trim: bool,
    /// A Flush (NVMe Flush, fio's `fsync`, NBD `FLUSH`): no units; it completes once every write
    /// acknowledged before it is on flash (at once when power-loss protection covers the drive's
    /// volatile writes; docs/models/dram_buffer_plp.md, "Flush and FUA"). `is_read` and `trim` are
    /// false, `units` is 0.
    pub flush: bool,
    /// Force Unit Access (writes only): the write completes once its units are programmed, not
    /// when they reach controller DRAM (the same unless the volatile writes are unprotected).
    pub fua: bool,
    /// First logical mapping unit.
    pub first_unit: u32,
    /// Length in mapping units.
    pub units: u32,
}

impl CommandSpec {
    /// A read, a write or a trim of `units` units from `first_unit` (no flush, no FUA).
    pub fn io(is_read: bool, trim: bool, first_unit: u32, units: u32) -> CommandSpec {
        CommandSpec {
            is_read,
            trim,
            flush: false,
            fua: false,
            first_unit,
            units,
        }
    }

    /// A Flush.
    pub fn flush() -> CommandSpec {
        CommandSpec {
            flush: true,
            ..CommandSpec::io(false, false, 0, 0)
        }
    }
}

/// The mapping units of a request of `length` bytes at byte `offset`: (first unit, units). A
/// read or write touches every unit the range overlaps (at least one); a trim deallocates only
/// the units wholly inside it (none when there is none), so partial units keep their data.
pub fn units_of(offset: u64, length: u64, unit_bytes: u64, trim: bool) -> (u64, u64) {
    if trim {
        let first = offset.div_ceil(unit_bytes);
        let end = offset.saturating_add(length) / unit_bytes;
        (first, end.saturating_sub(first))
    } else {
        let first = offset / unit_bytes;
        let end = offset.saturating_add(length.max(1)).div_ceil(unit_bytes);
        (first, (end - first).max(1))
    }
}

/// A job (stream) of a workload: its name in reports and, for closed-loop sources, the commands
/// it keeps in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub name: String,
    pub queue_depth: u32,
    /// The priority class of its submission queue (arbitration among several jobs).
    pub priority: crate::host::params::Priority,
}

#[cfg(test)]
mod tests {
    use super::units_of;

    #[test]
    fn reads_and_writes_cover_every_unit_they_touch_trims_only_whole_ones() {
        // 4 KiB units; a 6 KiB request from byte 2048 overlaps units 0, 1 and holds unit 1 whole.
        assert_eq!(units_of(2048, 6144, 4096, false), (0, 2));
        assert_eq!(units_of(2048, 6144, 4096, true), (1, 1));
        assert_eq!(units_of(8192, 8192, 4096, true), (2, 2), "aligned: the same units");
        assert_eq!(units_of(512, 1024, 4096, false), (0, 1));
        assert_eq!(units_of(512, 1024, 4096, true).1, 0, "no whole unit: nothing trimmed");
    }
}
