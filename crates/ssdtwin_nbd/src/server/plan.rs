//! What the model does for one request: its host commands.
//!
//! The export is a 512 B-sector drive over mapping units (4 KiB by default), and a request may
//! start and end anywhere (any byte; the protocol's default minimum block is 1, and clients that
//! asked for block sizes get 512 as a hint). The model works in whole mapping units, so:
//! - a read reads every unit its range touches;
//! - a write that covers only part of a unit carries the bytes it leaves out of its first and last
//!   units (`CommandSpec::head_gap`, `tail_gap`): the core serves it as the drive's
//!   read-modify-write (`controller/rmw.rs`: the unit's old data from the write buffer if held
//!   there, from flash otherwise, nothing when it was never written or was trimmed, then the
//!   whole unit written);
//! - a TRIM deallocates the whole units inside its range; the partial units at its ends keep
//!   their neighbours' data and the model does nothing for them;
//! - a WRITE_ZEROES that lets the drive deallocate trims the whole units inside its range and
//!   writes the partial ones (a read-modify-write each), since zeros must read back;
//! - a FLUSH is one command without units.
//!
//! Commands are split at [`MAX_COMMAND_BYTES`], as a host driver splits at the drive's maximum
//! transfer size; a write's head gap goes with its first command, its tail gap with its last.

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
    /// The request's commands, submitted together.
    pub(super) commands: Vec<CommandSpec>,
    /// Ranges of units `[first, end)` the request writes (for the durable versions).
    pub(super) written: Vec<(u32, u32)>,
    /// Units `[first, end)` it deallocates.
    pub(super) trimmed: Option<(u32, u32)>,
    /// Units it writes in part (each a read-modify-write in the core).
    pub(super) partial_units: u32,
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
    match kind {
        Kind::Read => split(&mut plan.commands, Op::Read, first, last, per),
        Kind::Write(fua) => {
            write(&mut plan, fua, offset, end, unit, per);
        }
        Kind::Trim => {
            if inner_end > inner_first {
                split(&mut plan.commands, Op::Trim, inner_first, inner_end, per);
                plan.trimmed = Some((inner_first as u32, inner_end as u32));
            }
        }
        Kind::Deallocate => {
            if inner_end <= inner_first {
                // No whole unit inside: the range is written (one or two partial units).
                write(&mut plan, false, offset, end, unit, per);
            } else {
                if first < inner_first {
                    write(&mut plan, false, offset, inner_first * unit, unit, per);
                }
                if inner_end < last {
                    write(&mut plan, false, inner_end * unit, end, unit, per);
                }
                split(&mut plan.commands, Op::Trim, inner_first, inner_end, per);
                plan.trimmed = Some((inner_first as u32, inner_end as u32));
            }
        }
        Kind::Flush => unreachable!("handled above"),
    }
    plan
}

/// Appends the write of bytes `[offset, end)`: its units, split at `per` units a command, the
/// bytes it leaves out of its end units carried by the first and the last command.
fn write(plan: &mut Plan, fua: bool, offset: u64, end: u64, unit: u64, per: u64) {
    let (first, last) = (offset / unit, end.div_ceil(unit));
    let at = plan.commands.len();
    split(&mut plan.commands, Op::Write(fua), first, last, per);
    let (head_gap, tail_gap) = (offset % unit, last * unit - end);
    plan.commands[at].head_gap = head_gap as u32;
    plan.commands.last_mut().expect("at least one unit").tail_gap = tail_gap as u32;
    plan.partial_units += u32::from(head_gap > 0) + u32::from(tail_gap > 0 && !(head_gap > 0 && last - first == 1));
    plan.written.push((first as u32, last as u32));
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

    fn gaps(commands: &[CommandSpec]) -> Vec<(u32, u32)> {
        commands
            .iter()
            .map(|command| (command.head_gap, command.tail_gap))
            .collect()
    }

    #[test]
    fn an_aligned_write_has_no_gaps_and_is_split_at_the_transfer_size() {
        let plan = plan(Kind::Write(false), 8192, 256 * 1024, UNIT);
        // 64 units of 4 KiB at 32 per 128 KiB command.
        assert_eq!(
            spans(&plan.commands),
            vec![(false, false, 2, 32), (false, false, 34, 32)]
        );
        assert_eq!(gaps(&plan.commands), vec![(0, 0), (0, 0)]);
        assert_eq!(plan.written, vec![(2, 66)]);
        assert_eq!(plan.partial_units, 0);
    }

    #[test]
    fn a_partial_write_carries_the_bytes_it_leaves_out_of_its_end_units() {
        // 512 B inside unit 1: 512 B before it, 3,072 after.
        let inside = plan(Kind::Write(true), 4096 + 512, 512, UNIT);
        assert_eq!(spans(&inside.commands), vec![(false, false, 1, 1)]);
        assert_eq!(gaps(&inside.commands), vec![(512, 3072)]);
        assert!(inside.commands[0].fua);
        assert_eq!(inside.partial_units, 1);
        // From byte 1000 to 3 units + 100 bytes: units 0 and 3 are partial, 0..4 written.
        let across = plan(Kind::Write(false), 1000, 3 * 4096 + 100 - 1000, UNIT);
        assert_eq!(spans(&across.commands), vec![(false, false, 0, 4)]);
        assert_eq!(gaps(&across.commands), vec![(1000, 4096 - 100)]);
        assert_eq!(across.partial_units, 2);
        // Split at the transfer size: the head gap on the first command, the tail on the last.
        let long = plan(Kind::Write(false), 7, 64 * 4096, UNIT);
        assert_eq!(
            spans(&long.commands),
            vec![(false, false, 0, 32), (false, false, 32, 32), (false, false, 64, 1)]
        );
        assert_eq!(gaps(&long.commands), vec![(7, 0), (0, 0), (0, 4096 - 7)]);
        // Odd bytes, not sectors: one byte at 4097.
        let byte = plan(Kind::Write(false), 4097, 1, UNIT);
        assert_eq!(gaps(&byte.commands), vec![(1, 4094)]);
    }

    #[test]
    fn trims_cover_whole_units_and_write_zeroes_writes_the_partial_ones() {
        let trim = plan(Kind::Trim, 512, 3 * 4096, UNIT);
        assert_eq!(spans(&trim.commands), vec![(false, true, 1, 2)]);
        assert!(trim.written.is_empty());
        assert_eq!(plan(Kind::Trim, 512, 1024, UNIT), Plan::default());
        let zeroes = plan(Kind::Deallocate, 512, 3 * 4096, UNIT);
        assert_eq!(
            spans(&zeroes.commands),
            vec![(false, false, 0, 1), (false, false, 3, 1), (false, true, 1, 2)]
        );
        assert_eq!(gaps(&zeroes.commands), vec![(512, 0), (0, 4096 - 512), (0, 0)]);
        assert_eq!(zeroes.written, vec![(0, 1), (3, 4)]);
        assert_eq!(zeroes.trimmed, Some((1, 3)));
        assert_eq!(zeroes.partial_units, 2);
        // No whole unit inside: the range is written with its gaps.
        let small = plan(Kind::Deallocate, 1000, 4000, UNIT);
        assert_eq!(spans(&small.commands), vec![(false, false, 0, 2)]);
        assert_eq!(gaps(&small.commands), vec![(1000, 8192 - 5000)]);
        assert_eq!(small.trimmed, None);
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
