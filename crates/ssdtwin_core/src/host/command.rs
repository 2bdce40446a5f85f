//! What the host submits: one command in mapping units, and the jobs (streams) that submit them.
//!
//! Workloads produce these and the host and engine consume them, so they belong to the host layer,
//! below the workloads.

use crate::controller::ops::command_bytes;
use crate::ftl::zoned::ZoneOp;

/// One host command, in mapping units (with the bytes of its end units it leaves out, when it
/// does not cover them whole).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Bytes of the first unit before the command's range [bytes]; 0 when it starts on a unit.
    /// A write that leaves part of a unit out is a read-modify-write of that unit
    /// (docs/models/ftl.md, "Mapping unit"); a read reads the whole unit.
    pub head_gap: u32,
    /// Bytes of the last unit after the command's range [bytes]; 0 when it ends on a unit.
    pub tail_gap: u32,
    /// On a zoned namespace (`zns.enabled`): a Zone Append or a Zone Management Send action on
    /// the zone starting at `first_unit` (docs/models/zns.md); `ZoneOp::None` for every other
    /// command.
    pub zone: ZoneOp,
    /// The placement identifier of a write (NVMe Flexible Data Placement, `[fdp]`): the reclaim
    /// unit handle it goes to; 0 when the host gives none (handle 0). Ignored with FDP off.
    pub placement: u16,
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
            head_gap: 0,
            tail_gap: 0,
            zone: ZoneOp::None,
            placement: 0,
        }
    }

    /// A read or write of `length` bytes at byte `offset` (never a trim): the units it touches,
    /// with the bytes of its end units it leaves out.
    pub fn bytes_range(is_read: bool, offset: u64, length: u64, unit_bytes: u64) -> CommandSpec {
        let (first, units) = units_of(offset, length, unit_bytes, false);
        let (head_gap, tail_gap) = gaps_of(offset, length, unit_bytes);
        CommandSpec {
            head_gap,
            tail_gap,
            ..CommandSpec::io(is_read, false, first as u32, units as u32)
        }
    }

    /// The bytes the host moves [bytes]: its units less the gaps at its ends.
    pub fn bytes(&self, unit_bytes: u64) -> u64 {
        command_bytes(self.units, self.head_gap, self.tail_gap, unit_bytes)
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

/// The bytes a read or write of `length` bytes at `offset` leaves out of its first and last
/// units [bytes]: (head gap, tail gap). A zero-length request counts as one byte long, as in
/// [`units_of`].
pub fn gaps_of(offset: u64, length: u64, unit_bytes: u64) -> (u32, u32) {
    let end = offset.saturating_add(length.max(1));
    let head = offset % unit_bytes;
    let tail = (unit_bytes - end % unit_bytes) % unit_bytes;
    (head as u32, tail as u32)
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

    #[test]
    fn gaps_are_the_bytes_of_the_end_units_a_range_leaves_out() {
        use super::{gaps_of, CommandSpec};
        use crate::controller::ops::partial_unit;
        // 4 KiB at byte 4096 of a 16 KiB unit: 4 KiB before, 8 KiB after.
        assert_eq!(gaps_of(4096, 4096, 16384), (4096, 8192));
        assert_eq!(gaps_of(16384, 32768, 16384), (0, 0), "aligned: no gaps");
        let command = CommandSpec::bytes_range(false, 2048, 6144, 4096);
        assert_eq!((command.first_unit, command.units), (0, 2));
        assert_eq!(command.bytes(4096), 6144);
        assert!(partial_unit(0, 2, command.head_gap, command.tail_gap));
        assert!(
            !partial_unit(1, 2, command.head_gap, command.tail_gap),
            "unit 1 is whole"
        );
    }
}
