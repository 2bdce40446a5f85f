//! Admission: a command's transactions enter the frame buffer and their dies' queues in order;
//! writes are gathered into full programs and acknowledged once in the frame buffer.

use super::ops::{partial_unit, BlockedRead, Command, OpKind, Transaction};
use super::prefetch::PREFETCH;
use super::rmw::OldData;
use super::Controller;
use crate::base::arith::rem;
use crate::base::event::Event;
use crate::ftl::mapping::NONE;
use crate::ftl::Stream;
use crate::observe::{Context, Observer, StateChange};

impl Controller {
    /// A command crossed the host interface: its transactions join the host queue or, with several
    /// flows, it waits in its flow's submission queue for the arbiter.
    pub fn on_command_arrived<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        if self.arbiter.is_some() {
            return self.queue_command(command, cx);
        }
        if self.accept_command(command, cx) {
            self.admit(cx);
        }
    }

    /// Several flows: `command` joins its flow's submission queue; the controller takes what the
    /// arbiter gives while its host queue is empty.
    #[cold]
    #[inline(never)]
    fn queue_command<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        let flow = self.commands[command].job as usize;
        if let Some(arbiter) = self.arbiter.as_deref_mut() {
            arbiter.push(flow, command);
        }
        self.admit(cx);
    }

    /// The controller takes `command`: a trim or flush is served at once, a read's or write's
    /// transactions join the host queue (the caller admits them: returns true).
    #[inline(always)]
    fn accept_command<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) -> bool {
        let Command {
            first_unit,
            units,
            is_read,
            trim,
            flush,
            head_gap,
            tail_gap,
            ..
        } = self.commands[command];
        cx.die(StateChange::Command);
        self.host_idle = false;
        if self.slc.is_some() {
            self.slc_host_idle(false, cx);
        }
        if trim | flush {
            if trim {
                self.trim_command(command, cx);
            } else {
                self.flush_command(command, cx);
            }
            return false;
        }
        if self.read_cache.is_some() {
            if is_read {
                self.note_read_ahead(first_unit, units);
            } else {
                (first_unit..first_unit + units).for_each(|logical| self.drop_cached(logical));
            }
        }
        if self.zoned.is_some() && !is_read {
            return self.zoned_command(command, cx);
        }
        let gapped_write = !is_read && head_gap | tail_gap != 0;
        if !is_read {
            let bytes = self.commands[command].bytes(self.geometry.unit_bytes);
            cx.die(StateChange::DramAccess { bytes });
            self.tally.host_write_bytes += bytes;
            self.tally.host_write_units += u64::from(units);
        }
        if gapped_write {
            self.accept_gapped_write(command);
            return true;
        }
        // Whole units (every read, and writes without gaps): no unit is partial.
        for logical in first_unit..first_unit + units {
            let transaction = self.transactions.insert(Transaction {
                command,
                logical,
                physical: NONE,
                partial: false,
                looked_up: false,
            });
            self.host_queue.push_back(transaction);
        }
        true
    }

    /// The transactions of a write that leaves part of its first or last unit out: those units
    /// are partial (read-modify-writes, `rmw.rs`).
    #[cold]
    #[inline(never)]
    fn accept_gapped_write(&mut self, command: u32) {
        let Command {
            first_unit,
            units,
            head_gap,
            tail_gap,
            ..
        } = self.commands[command];
        for (index, logical) in (first_unit..first_unit + units).enumerate() {
            let partial = partial_unit(index as u32, units, head_gap, tail_gap);
            if partial {
                self.tally.partial_writes += 1;
            }
            let transaction = self.transactions.insert(Transaction {
                command,
                logical,
                physical: NONE,
                partial,
                looked_up: false,
            });
            self.host_queue.push_back(transaction);
        }
    }

    /// A read served from controller DRAM, or decoded after its data out (reliability on,
    /// `decode_read`), finished. Its frame-buffer slot is free, which matters to admission only
    /// when the buffer was what held the queue (`admit` skips the rest).
    pub fn on_buffer_read_done<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) {
        self.finish_read_transaction(transaction, cx);
        // An empty host queue with neither flows nor read-ahead leaves admission nothing to do.
        if self.host_queue.is_empty() && self.arbiter.is_none() && self.read_ahead.is_empty() {
            return;
        }
        self.admit(cx);
    }

    /// Whether admission would end where it ends now: the host queue's head is the read last
    /// blocked there (`admit_read`) and nothing its outcome depends on has moved (room in the
    /// frame buffer, no mapping change and no erase since, so the same unit on the same die,
    /// whose queue is still full), the Head-of-Line event is already counted, and nothing else
    /// waits (read-ahead; the arbiter only fetches into an empty queue). The read cache cannot
    /// change the outcome (a transaction is looked up there once, `looked_up`, before it can
    /// block); the DRAM buffer's state moves on its own, so with it on admission runs. Commands
    /// arrive, and with reliability on host reads complete in events of their own, mostly while
    /// the head waits for its die: the test is what `admit_read`'s fast path decides, without the
    /// calls on the way to it.
    #[inline]
    fn head_waits_for_its_die(&self) -> bool {
        let blocked = self.blocked_read;
        self.host_queue.front() == Some(&blocked.transaction)
            && self.head_blocked
            && !self.write_held_by_gc
            && self.frame_used < self.frame_buffer
            && self.dram.is_none()
            && self.read_ahead.is_empty()
            && self.blocked_read_unmoved(blocked.transaction)
            && self.commands[self.transactions[blocked.transaction].command].is_read
            && self.dies[blocked.die as usize].host_slots >= self.die_queue_depth
    }

    /// Whether `transaction` is the read last blocked at the head and no mapping entry changed
    /// and no block was erased since: its unit is where it was and its page still programmed, so
    /// only its die's queue needs a look (`admit_read`, `head_waits_for_its_die`).
    #[inline(always)]
    fn blocked_read_unmoved(&self, transaction: u32) -> bool {
        let blocked = self.blocked_read;
        blocked.transaction == transaction
            && blocked.changes == self.ftl.mapping.changes()
            && blocked.erases == self.ftl.blocks.erased
    }

    /// Debug builds: the admission `head_waits_for_its_die` skips leaves the queue as it was.
    #[cfg(debug_assertions)]
    fn admit_changes_nothing<O: Observer>(&mut self, cx: &mut Context<O>) {
        let before = (
            self.host_queue.len(),
            self.frame_used,
            self.tally.hol_events,
            self.blocked_read,
        );
        self.admit_now(cx);
        let after = (
            self.host_queue.len(),
            self.frame_used,
            self.tally.hol_events,
            self.blocked_read,
        );
        debug_assert_eq!(before, after, "a skipped admission would have moved");
    }

    /// Moves transactions from the head of the host queue into the frame buffer and die queues
    /// until the head cannot move (a Head-of-Line event) or the queue is empty. With several
    /// flows, an empty host queue is a fetch slot: the arbiter chooses the command taken next.
    /// Skipped when the head is a read still waiting for its full die queue and nothing it waits
    /// on has moved (`head_waits_for_its_die`; debug builds admit all the same and check that it
    /// did nothing).
    #[inline(always)]
    pub(super) fn admit<O: Observer>(&mut self, cx: &mut Context<O>) {
        if self.head_waits_for_its_die() {
            #[cfg(debug_assertions)]
            self.admit_changes_nothing(cx);
            return;
        }
        self.admit_now(cx);
    }

    #[inline(always)]
    fn admit_now<O: Observer>(&mut self, cx: &mut Context<O>) {
        self.admit_host_queue(cx);
        if self.arbiter.is_some() && self.host_queue.is_empty() {
            self.fetch(cx);
        }
        if !self.read_ahead.is_empty() {
            self.issue_read_ahead(cx);
        }
    }

    /// Fetch slots: while the host queue is empty, the command the arbiter chooses enters it.
    #[cold]
    #[inline(never)]
    fn fetch<O: Observer>(&mut self, cx: &mut Context<O>) {
        while self.host_queue.is_empty() {
            match self.arbiter.as_deref_mut().and_then(|arbiter| arbiter.take()) {
                Some(command) => {
                    self.accept_command(command, cx);
                    self.admit_host_queue(cx);
                }
                None => return,
            }
        }
    }

    #[inline]
    fn admit_host_queue<O: Observer>(&mut self, cx: &mut Context<O>) {
        // Queued transactions whose table entries were loaded ahead (`touch_queued`).
        let mut touched = 0;
        while let Some(&transaction) = self.host_queue.front() {
            if self.frame_used >= self.frame_buffer {
                self.head_of_line_blocked(false);
                return;
            }
            let command = self.transactions[transaction].command;
            self.write_held_by_gc = false;
            let is_read = self.commands[command].is_read;
            let admitted = if is_read {
                self.admit_read(transaction, cx)
            } else {
                self.admit_write(transaction, cx)
            };
            if !admitted {
                self.head_of_line_blocked(self.write_held_by_gc);
                return;
            }
            self.host_queue.pop_front();
            self.head_blocked = false;
            if touched > 0 {
                touched -= 1;
            } else if !is_read && !self.buffered() {
                // Behind a write (reads after a fill mostly look up rows never written: no load),
                // unless writes go to the DRAM buffer: their entries are loaded when it flushes.
                touched = self.touch_queued();
            }
        }
    }

    /// Forgets the read last blocked at the head (`admit_read`): the FTL may have been replaced
    /// or preconditioned since (its erase count restarts then), so its page may be unprogrammed.
    pub fn forget_blocked_read(&mut self) {
        self.blocked_read = BlockedRead::default();
        self.failed_scan.valid = false;
    }

    /// The head cannot move: a Head-of-Line event, or (`by_gc`) host writes waiting for GC.
    fn head_of_line_blocked(&mut self, by_gc: bool) {
        if !self.head_blocked {
            self.head_blocked = true;
            if by_gc {
                self.tally.gc_write_holds += 1;
            } else {
                self.tally.hol_events += 1;
            }
        }
    }

    fn admit_read<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) -> bool {
        let logical = self.transactions[transaction].logical;
        if self.read_cache.is_some() && self.read_cache_hit(transaction, logical, cx) {
            return true;
        }
        if self.dram.is_some() {
            match self.read_from_dram(transaction, logical, cx) {
                Some(true) => {
                    self.frame_used += 1;
                    cx.events
                        .schedule(cx.now + self.buffer_read_time, Event::BufferReadDone { transaction });
                    return true;
                }
                // Parked until its translation page is read: off the host queue.
                Some(false) => return true,
                None => {}
            }
        }
        let erases = self.ftl.blocks.erased;
        let changes = self.ftl.mapping.changes();
        let blocked = self.blocked_read;
        // A read whose die queue is full stays at the head and is tried again at every admission;
        // while it has not moved (`blocked_read_unmoved`: no lookup needed, its page still
        // programmed, since only an erase unprograms a page) only its die's queue needs a look.
        let (physical, die) = if self.blocked_read_unmoved(transaction) {
            (blocked.physical, blocked.die)
        } else {
            let (physical, in_fill_row) = self.ftl.mapping.lookup(logical);
            if physical == NONE || !(in_fill_row || self.ftl.is_programmed(physical)) {
                // Never written (reads zeros) or still in controller DRAM: no flash access.
                self.frame_used += 1;
                cx.events
                    .schedule(cx.now + self.buffer_read_time, Event::BufferReadDone { transaction });
                return true;
            }
            (
                physical,
                self.geometry.die_of_block(self.geometry.block_of_unit(physical)),
            )
        };
        if self.dies[die as usize].host_slots >= self.die_queue_depth {
            self.blocked_read = BlockedRead {
                transaction,
                physical,
                die,
                erases,
                changes,
            };
            return false;
        }
        self.blocked_read.transaction = NONE;
        self.frame_used += 1;
        self.transactions[transaction].physical = physical;
        self.enqueue_host_read(die, transaction, physical, cx);
        true
    }

    fn admit_write<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) -> bool {
        if self.zoned.is_some() {
            return self.admit_zoned_write(transaction, cx);
        }
        if self.transactions[transaction].partial {
            match self.old_data(transaction, cx) {
                OldData::Ready => {}
                OldData::Reading => return true,
                OldData::Blocked => return false,
            }
        }
        if !self.ftl.is_page_mapped() {
            return self.admit_mapped_write(transaction, cx);
        }
        if let Some(dram) = self.dram.as_deref() {
            if dram.buffer.is_some() {
                return self.admit_buffered_write(transaction, cx);
            }
            // Without a write buffer, host writes wait while translation-page write-backs lag.
            if dram.writebacks_behind(self.geometry.dies) {
                return false;
            }
        }
        if self.pending_program.is_some() {
            return false;
        }
        if !self.parked.is_empty() {
            self.use_handle(self.commands[self.transactions[transaction].command].placement);
        }
        if self.open_program.is_none() && !self.open_user_program(cx) {
            return false;
        }
        let Transaction { command, logical, .. } = self.transactions.remove(transaction);
        let (_, full) = self.place_in_open_program(logical);
        self.acknowledge_write_unit(command, cx);
        // A FUA write's acknowledgement may already have programmed the open page.
        if full && self.open_program.is_some() {
            self.close_user_program(cx);
        }
        true
    }

    /// Places `logical` in the next slot of the open user program (which must exist); returns
    /// the slot's physical unit and whether the program is now full.
    #[inline(always)]
    pub(super) fn place_in_open_program(&mut self, logical: u32) -> (u32, bool) {
        let units_per_page = self.geometry.units_per_page;
        let open = self.open_program.as_mut().expect("a user program is open");
        let (block, page) = open.page_of_unit(open.filled, units_per_page);
        let physical = self
            .geometry
            .unit_address(block, page, rem(open.filled, units_per_page));
        open.filled += 1;
        let full = open.filled == open.capacity;
        self.ftl.place(logical, physical, Stream::User);
        (physical, full)
    }

    /// One unit of a write is in the frame buffer; the last one acknowledges the command.
    pub(super) fn acknowledge_write_unit<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        self.frame_used += 1;
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            if record.fua {
                self.fua_write(command, cx);
            } else {
                if record.zone != crate::ftl::zoned::ZoneOp::None {
                    self.zone_append_done(command, cx.now);
                }
                cx.events.schedule(cx.now, Event::CommandCompleted { command });
            }
        }
    }

    pub(super) fn close_user_program<O: Observer>(&mut self, cx: &mut Context<O>) {
        let open = self.open_program.take().expect("a program is open");
        let kind = OpKind::Program {
            stream: Stream::User,
            pages: open.pages,
            page_count: open.target.plane_count as u8,
            units: open.filled,
        };
        let die = open.target.die;
        if self.dies[die as usize].host_slots < self.die_queue_depth {
            self.enqueue_op(die, kind, true, cx);
        } else {
            let op = self.new_op(kind, cx.now);
            self.pending_program = Some((die, op));
        }
    }

    /// A read transaction has its data; the frame-buffer slot frees (the caller admits more).
    /// A command whose data is all there goes back to the host.
    #[inline(always)]
    pub(super) fn finish_read_transaction<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) {
        let record = self.transactions[transaction];
        if record.partial {
            return self.old_data_read(transaction);
        }
        if self.read_cache.is_some() {
            if record.command == PREFETCH {
                return self.finish_prefetch(transaction, cx);
            }
            if record.physical != NONE {
                self.cache_read_unit(record.logical, cx);
            }
        }
        // Its command read above: the slot is freed without copying the record out.
        let command = record.command;
        self.transactions.release(transaction);
        self.frame_used -= 1;
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            let bytes = record.bytes(self.geometry.unit_bytes);
            cx.die(StateChange::DramAccess { bytes });
            self.to_host.push(command);
        }
    }
}
