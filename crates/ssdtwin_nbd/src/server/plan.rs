//! What the model does for one request: its host commands, in at most two stages.
//!
//! The export is a 512 B-sector drive over mapping units (4 KiB by default), and a request may
//! start and end anywhere (any byte; the protocol's default minimum block is 1, and clients that
//! asked for block sizes get 512 as a hint). The model works in whole mapping units, so:
//! - a read reads every unit its range touches;
//! - a write that covers only part of a unit is the drive's read-modify-write: the unit is read
//!   first (from the write buffer if it is held there, from flash otherwise, with no flash access
//!   if it was never written or was trimmed), then the whole unit is written. Stage 1 holds those
//!   reads (at most two units: the first and the last), stage 2 the write of every unit touched;
//! - a TRIM deallocates the whole units inside its range; the partial units at its ends keep
//!   their neighbours' data and the model does nothing for them;
//! - a WRITE_ZEROES that lets the drive deallocate trims the whole units inside its range and
//!   writes the partial ones (a read-modify-write each), since zeros must read back;
//! - a FLUSH is one command without units.
//!
//! Each stage is split into host commands of at most [`MAX_COMMAND_BYTES`], as a host driver
//! splits at the drive's maximum transfer size.

use ssdtwin_core::host::command::CommandSpec;

use super::options::MAX_COMMAND_BYTES;

/// What a request asks of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    /// A write; `true`: with FUA (replied once programmed when the drive's volatile writes are
    /// unprotected).
    Write(bool),
    /// TRIM: the whole units inside the range are deallocated.
    Trim,
    /// WRITE_ZEROES without NO_HOLE: whole units deallocated, partial ones written.
    Deallocate,
    /// NBD_CMD_FLUSH: a Flush of the model (replied once the writes acknowledged before it are
    /// programmed, at once with power-loss protection).
    Flush,
}

/// The model's commands for one request.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Read-modify-write reads, completed before stage 2 is submitted.
    pub(super) reads_first: Vec<CommandSpec>,
    /// The request's own commands.
    pub(super) commands: Vec<CommandSpec>,
    /// Ranges of units `[first, end)` the request writes (for the durable versions).
    pub(super) written: Vec<(u32, u32)>,
    /// Units `[first, end)` it deallocates.
    pub(super) trimmed: Option<(u32, u32)>,
}

/// The plan of a request of `length` bytes at `offset` on a drive of `unit`-byte mapping units.
pub(super) fn plan(kind: Kind, offset: u64, length: u64, unit: u64) -> Plan {
    let mut plan = Plan::default();
    let per = (MAX_COMMAND_BYTES / unit).max(1);
    if kind == Kind::Flush {
        plan.commands.push(CommandSpec::flush());
        return plan;
    }
    if length == 0 {
        return plan;
    }
    let end = offset + length;
    // Units touched, and units wholly inside the range.
    let (first, last) = (offset / unit, end.div_ceil(unit));
    let (inner_first, inner_end) = (offset.div_ceil(unit), end / unit);
    let head_partial = !offset.is_multiple_of(unit);
    let tail_partial = !end.is_multiple_of(unit);
    // The partial units at the ends of the range (one when the range lies inside one unit).
    let mut partial: Vec<u64> = Vec::new();
    if head_partial {
        partial.push(first);
    }
    if tail_partial && !(head_partial && last - 1 == first) {
        partial.push(last - 1);
    }
    match kind {
        Kind::Read => split(&mut plan.commands, Op::Read, first, last, per),
        Kind::Write(fua) => {
            for &unit_index in &partial {
                split(&mut plan.reads_first, Op::Read, unit_index, unit_index + 1, per);
            }
            split(&mut plan.commands, Op::Write(fua), first, last, per);
            plan.written.push((first as u32, last as u32));
        }
        Kind::Trim => {
            if inner_end > inner_first {
                split(&mut plan.commands, Op::Trim, inner_first, inner_end, per);
                plan.trimmed = Some((inner_first as u32, inner_end as u32));
            }
        }
        Kind::Deallocate => {
            for &unit_index in &partial {
                split(&mut plan.reads_first, Op::Read, unit_index, unit_index + 1, per);
                split(&mut plan.commands, Op::Write(false), unit_index, unit_index + 1, per);
                plan.written.push((unit_index as u32, unit_index as u32 + 1));
            }
            if inner_end > inner_first {
                split(&mut plan.commands, Op::Trim, inner_first, inner_end, per);
                plan.trimmed = Some((inner_first as u32, inner_end as u32));
            }
        }
        Kind::Flush => unreachable!("handled above"),
    }
    plan
}

#[derive(Clone, Copy)]
enum Op {
    Read,
    Write(bool),
    Trim,
}

/// Appends the commands of units `[first, end)`, at most `per_command` units each.
fn split(into: &mut Vec<CommandSpec>, op: Op, first: u64, end: u64, per_command: u64) {
    let mut at = first;
    while at < end {
        let units = (end - at).min(per_command);
        let mut command = CommandSpec::io(matches!(op, Op::Read), matches!(op, Op::Trim), at as u32, units as u32);
        command.fua = matches!(op, Op::Write(true));
        into.push(command);
        at += units;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIT: u64 = 4096;

    fn spans(commands: &[CommandSpec]) -> Vec<(bool, bool, u32, u32)> {
        commands
            .iter()
            .map(|command| (command.is_read, command.trim, command.first_unit, command.units))
            .collect()
    }

    #[test]
    fn an_aligned_write_needs_no_read_and_is_split_at_the_transfer_size() {
        let plan = plan(Kind::Write(false), 8192, 256 * 1024, UNIT);
        assert!(plan.reads_first.is_empty());
        // 64 units of 4 KiB at 32 per 128 KiB command.
        assert_eq!(
            spans(&plan.commands),
            vec![(false, false, 2, 32), (false, false, 34, 32)]
        );
        assert_eq!(plan.written, vec![(2, 66)]);
    }

    #[test]
    fn a_partial_write_reads_its_partial_units_first_then_writes_every_unit_it_touches() {
        // 512 B inside unit 1: one read of unit 1, then the write of unit 1.
        let inside = plan(Kind::Write(true), 4096 + 512, 512, UNIT);
        assert_eq!(spans(&inside.reads_first), vec![(true, false, 1, 1)]);
        assert_eq!(spans(&inside.commands), vec![(false, false, 1, 1)]);
        assert!(inside.commands[0].fua);
        // From byte 1000 to 3 units + 100 bytes: units 0 and 3 are partial, 0..4 written.
        let across = plan(Kind::Write(false), 1000, 3 * 4096 + 100 - 1000, UNIT);
        assert_eq!(
            spans(&across.reads_first),
            vec![(true, false, 0, 1), (true, false, 3, 1)]
        );
        assert_eq!(spans(&across.commands), vec![(false, false, 0, 4)]);
        // Odd bytes, not sectors: one byte at 4097.
        let byte = plan(Kind::Write(false), 4097, 1, UNIT);
        assert_eq!(spans(&byte.reads_first), vec![(true, false, 1, 1)]);
    }

    #[test]
    fn trims_cover_whole_units_and_write_zeroes_writes_the_partial_ones() {
        let trim = plan(Kind::Trim, 512, 3 * 4096, UNIT);
        assert_eq!(spans(&trim.commands), vec![(false, true, 1, 2)]);
        assert!(trim.reads_first.is_empty() && trim.written.is_empty());
        assert_eq!(plan(Kind::Trim, 512, 1024, UNIT), Plan::default());
        let zeroes = plan(Kind::Deallocate, 512, 3 * 4096, UNIT);
        assert_eq!(
            spans(&zeroes.reads_first),
            vec![(true, false, 0, 1), (true, false, 3, 1)]
        );
        assert_eq!(
            spans(&zeroes.commands),
            vec![(false, false, 0, 1), (false, false, 3, 1), (false, true, 1, 2)]
        );
        assert_eq!(zeroes.written, vec![(0, 1), (3, 4)]);
        assert_eq!(zeroes.trimmed, Some((1, 3)));
    }

    #[test]
    fn reads_touch_every_unit_of_their_range_and_a_flush_has_one_command() {
        assert_eq!(
            spans(&plan(Kind::Read, 100, 4096, UNIT).commands),
            vec![(true, false, 0, 2)]
        );
        let flush = plan(Kind::Flush, 0, 0, UNIT);
        assert_eq!(flush.commands.len(), 1);
        assert!(flush.commands[0].flush);
        assert_eq!(plan(Kind::Read, 4096, 0, UNIT), Plan::default());
    }
}
