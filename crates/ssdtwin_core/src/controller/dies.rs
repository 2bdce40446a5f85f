//! Operations on dies: queued in a die's queues, started when it is idle, sensed, done; what
//! a die does with its channel, timed as ONFI does it, is `bus.rs`.
//!
//! A read sends its command and address cycles when the channel is granted, senses for t_R with
//! the channel free, then waits for the channel again to move its data out; a program sends its
//! command, address and payload (data in) in one grant, then programs for t_PROG with the channel
//! free; an erase sends its command cycles, then erases. A die takes its next operation as soon
//! as the previous one ends (its page register read out, its array done), and command cycles go
//! before waiting data transfers (`flash/channel.rs`), so dies sharing a channel overlap their
//! array times with each other's transfers.

use super::bus::Slot;
use super::ops::{OpKind, ProbeAction};
use super::scheduler::{Choice, Scheduler};
use super::suspend::ArrayState;
use super::Controller;
use crate::base::arith::{div, rem};
use crate::base::time::Time;
use crate::flash::channel::Need;
use crate::ftl::Stream;
use crate::observe::{Context, Observer, StateChange};
use crate::reliability::retry::ReadCost;

impl Controller {
    pub(super) fn new_op(&mut self, kind: OpKind, now: Time) -> u32 {
        self.op_sequence += 1;
        self.ops.insert(super::ops::FlashOp {
            kind,
            sequence: self.op_sequence,
            queued_at: now,
            cost: ReadCost::default(),
        })
    }

    /// [`Self::new_op`] of a host read (most operations), built in a free slot: passed through
    /// `new_op`, the whole kind (136 bytes, for a program's page list) is copied by a call of
    /// memcpy, which the compiler also makes of a read rebuilt from its field unless the field is
    /// opaque (`black_box`).
    #[inline]
    fn new_host_read(&mut self, transaction: u32, now: Time) -> u32 {
        let Some(id) = self.ops.reuse() else {
            return self.new_op(OpKind::HostRead { transaction }, now);
        };
        self.op_sequence += 1;
        // Written whole (no field can be left stale), from parts the compiler stores one by one.
        self.ops[id] = super::ops::FlashOp {
            kind: OpKind::HostRead {
                transaction: std::hint::black_box(transaction),
            },
            sequence: self.op_sequence,
            queued_at: now,
            cost: ReadCost::default(),
        };
        id
    }

    /// Queues an operation other than a host read (those take [`Self::enqueue_host_read`]) in the
    /// die's target command queue (`takes_slot`: it counts against the queue's depth); a probe's
    /// read there may suspend a program or erase.
    pub(super) fn enqueue_op<O: Observer>(&mut self, die: u32, kind: OpKind, takes_slot: bool, cx: &mut Context<O>) {
        debug_assert!(
            !matches!(kind, OpKind::HostRead { .. }),
            "host reads are queued by enqueue_host_read"
        );
        let op = self.new_op(kind, cx.now);
        let state = &mut self.dies[die as usize];
        state.queues.host.push_back(op);
        if takes_slot {
            state.host_slots += 1;
        }
        // Only a die running a program or erase may suspend it: most reads find none, so the
        // test is made here rather than after a call.
        if kind.is_host_read() && state.array.is_some() {
            self.request_suspend(die, cx);
        }
        self.try_start(die, cx);
    }

    /// Queues a host read of unit `physical` (its transaction's, as the caller has it) in the
    /// die's target command queue, where it takes a slot and may suspend a program or erase.
    /// Inlined always: admission queues most operations through it.
    #[inline(always)]
    pub(super) fn enqueue_host_read<O: Observer>(
        &mut self,
        die: u32,
        transaction: u32,
        physical: u32,
        cx: &mut Context<O>,
    ) {
        let op = self.new_host_read(transaction, cx.now);
        // FIFO orders a die's host and internal operations by this number (a slot reused with a
        // stale one would put a host read ahead of older GC work; no report showed it).
        debug_assert_eq!(
            self.ops[op].sequence, self.op_sequence,
            "a new operation carries the newest sequence"
        );
        debug_assert_eq!(self.transactions[transaction].physical, physical);
        let state = &mut self.dies[die as usize];
        state.queues.host.push_back(op);
        state.read_pages[page_bucket(physical, self.geometry.units_per_page)] += 1;
        state.host_slots += 1;
        if state.array.is_some() {
            self.request_suspend(die, cx);
        }
        self.try_start(die, cx);
    }

    /// Queues a GC or copy operation in the die's internal queue.
    pub(super) fn enqueue_internal_op<O: Observer>(&mut self, die: u32, kind: OpKind, cx: &mut Context<O>) {
        let op = self.new_op(kind, cx.now);
        self.dies[die as usize].queues.internal.push_back(op);
        self.try_start(die, cx);
    }

    /// The die-level harness issues operation `id` on `die` (outside the FTL).
    pub fn issue_probe<O: Observer>(&mut self, id: u32, die: u32, action: ProbeAction, cx: &mut Context<O>) {
        if self.probe_done.len() <= id as usize {
            self.probe_done.resize(id as usize + 1, None);
        }
        self.enqueue_op(die, OpKind::Probe { id, action }, false, cx);
    }

    /// Starts the next operation on `die` if it is idle.
    pub(super) fn try_start<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &self.dies[die as usize];
        if state.running.is_some() || state.held {
            return;
        }
        // Thermal throttling: an idle die waits while its channel runs as many operations as allowed.
        if self.array_cap != u32::MAX && !state.holds_operation() && self.channel_at_cap(die) {
            return;
        }
        let gc_yields = !state.queues.internal.is_empty() && self.gc_yields(die);
        let state = &mut self.dies[die as usize];
        let op = if let Some(array) = state.array.as_mut() {
            // A suspended die serves waiting host reads only, then resumes.
            let ArrayState::Suspended { reads_served } = array.state else {
                unreachable!("a running array operation occupies the die")
            };
            let ops = &self.ops;
            let read = (reads_served < self.suspend_config.reads_per_suspend)
                .then(|| state.queues.host.iter().position(|&op| ops[op].kind.is_host_read()))
                .flatten();
            let Some(index) = read else {
                self.resume(die, cx);
                return;
            };
            array.state = ArrayState::Suspended {
                reads_served: reads_served + 1,
            };
            state.queues.host.remove(index).expect("a queued read")
        } else {
            // Urgent GC is not overtaken: the die serves its queues in arrival order.
            let urgent = !state.queues.internal.is_empty() && self.ftl.gc_urgent(die);
            let scheduler = if urgent { Scheduler::Fifo } else { self.scheduler };
            let Some(mut choice) = scheduler.choose(&state.queues, &self.ops.items, cx.now) else {
                return;
            };
            // Host reads overtake paced GC work unless a plane of the die is short (`pacing.rs`).
            if choice == Choice::Internal && !urgent && gc_yields {
                let ops = &self.ops;
                if let Some(index) = state.queues.host.iter().position(|&op| ops[op].kind.is_host_read()) {
                    choice = Choice::Host(index);
                }
            }
            // Cache read: while the cache register holds data, the array takes reads only.
            let chosen = match choice {
                Choice::Host(index) => state.queues.host[index],
                Choice::Internal => state.queues.internal[0],
            };
            if state.output.is_some() && !self.ops[chosen].kind.is_array_read() {
                return;
            }
            match choice {
                // The front (the common choice) without `remove`'s general shifting.
                Choice::Host(0) => state.queues.host.pop_front().expect("scheduler chose a queued op"),
                Choice::Host(index) => state.queues.host.remove(index).expect("scheduler chose a queued op"),
                Choice::Internal => state.queues.internal.pop_front().expect("scheduler chose a queued op"),
            }
        };
        self.start_op(die, op, cx);
    }

    /// Starts `op` on the idle `die`: it asks its channel for what it needs first.
    fn start_op<O: Observer>(&mut self, die: u32, op: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        state.running = Some(op);
        if state.output.is_none() {
            state.busy_since = cx.now;
        }
        let need = match self.ops[op].kind {
            OpKind::HostRead { transaction } => {
                // Serve every queued host read of the same page with this one sense.
                // Its page's number, divided once: a merged read's unit is of the same page when
                // it has the same quotient.
                let units_per_page = self.geometry.units_per_page;
                let page = div(self.transactions[transaction].physical, units_per_page);
                state.batch.clear();
                state.batch.push(transaction);
                let bucket = bucket_of_page(page);
                state.read_pages[bucket] -= 1;
                // Only a read whose page shares the bucket can be of the same page.
                let mut index = if state.read_pages[bucket] == 0 {
                    state.queues.host.len()
                } else {
                    0
                };
                while index < state.queues.host.len() {
                    let other = state.queues.host[index];
                    if let OpKind::HostRead { transaction: merged } = self.ops[other].kind {
                        if div(self.transactions[merged].physical, units_per_page) == page {
                            state.batch.push(merged);
                            state.read_pages[bucket] -= 1;
                            state.queues.host.remove(index);
                            self.ops.remove(other);
                            continue;
                        }
                    }
                    index += 1;
                }
                let (_, page_type) = self.page_types.div_rem(rem(page, self.geometry.pages_per_block));
                state.page_type = page_type as u8;
                self.tally.reads += 1;
                Need::Command
            }
            OpKind::GcRead { page, .. } | OpKind::CopyRead { page, .. } => {
                state.page_type = self.page_types.div_rem(page).1 as u8;
                self.tally.gc_reads += 1;
                Need::Command
            }
            OpKind::Program { stream, page_count, .. } => {
                match stream {
                    Stream::User => self.tally.programs += u64::from(page_count),
                    Stream::Gc => self.tally.gc_programs += u64::from(page_count),
                }
                Need::Data
            }
            OpKind::Erase { .. } => {
                self.tally.erases += 1;
                Need::Command
            }
            OpKind::MappingRead { .. } => {
                state.page_type = 0;
                state.batch.clear();
                self.tally.mapping_reads += 1;
                Need::Command
            }
            OpKind::MappingProgram => {
                self.tally.mapping_programs += 1;
                Need::Data
            }
            OpKind::FoldRead(_) => {
                state.page_type = self.slc.as_ref().map_or(0, |slc| slc.page_type);
                Need::Command
            }
            OpKind::FoldProgram(_) => Need::Data,
            OpKind::SlcErase { .. } => Need::Command,
            OpKind::Probe { action, .. } => match action {
                ProbeAction::Read { page_type } => {
                    state.page_type = page_type;
                    Need::Command
                }
                ProbeAction::Program { .. } => Need::Data,
                ProbeAction::Erase => Need::Command,
            },
        };
        if self.reliability.is_some() {
            self.assess_read(die, op, cx.now);
        }
        self.request_channel(die, need, Slot::Running, cx);
    }

    /// Cache read: the running read's data moves into the cache register and the array takes the
    /// next read at once, whose command cycles go before this data out (READ CACHE 31h: the next
    /// page is sensed while this one goes out); then the data asks for the channel.
    fn move_to_output<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        state.output = state.running.take();
        state.held = false;
        std::mem::swap(&mut state.batch, &mut state.output_batch);
        self.try_start(die, cx);
        self.request_data_out(die, Slot::Output, cx);
    }

    /// A sensed read's data asks for the channel; while it waits the die draws its bus-idle
    /// current (the sense profile ends now).
    #[inline(always)]
    fn request_data_out<O: Observer>(&mut self, die: u32, slot: Slot, cx: &mut Context<O>) {
        let channel = self.geometry.channel_of_die(die);
        if !self.channels[channel as usize].is_free(cx.now) {
            cx.die(StateChange::DieSensed { die });
        }
        self.request_channel_on(channel, die, Need::Data, slot, cx);
    }

    /// Sensed data waits in the page register for the channel (with cache read: in the cache
    /// register, or in the page register while the cache register is busy).
    pub fn on_read_sensed<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        if self.cache_read && state.array.is_none() {
            if state.output.is_some() {
                state.held = true;
                cx.die(StateChange::DieSensed { die });
            } else {
                self.move_to_output(die, cx);
            }
            return;
        }
        self.request_data_out(die, Slot::Running, cx);
    }

    /// `die` finished its operation: account for it, then start the next and admit more.
    pub fn on_die_done<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        // With cache read, a data out that ends is the cache register's read; the array may be
        // sensing the next one.
        let from_output = state.output.is_some();
        let op = match state.output.take() {
            Some(op) => op,
            None => state.running.take().expect("an operation is running"),
        };
        if state.running.is_none() {
            state.busy += cx.now.since(state.busy_since);
            cx.die(StateChange::DieOpEnd { die });
        } else {
            cx.die(StateChange::DieSensed { die });
        }
        // A host read (most operations) uses only its cost: read in place, not copied out whole.
        let data_out = if let OpKind::HostRead { .. } = self.ops[op].kind {
            let cost = self.ops[op].cost;
            self.ops.release(op);
            self.host_read_done(die, from_output, cost, cx);
            true
        } else {
            let kind = self.ops.remove(op).kind;
            self.other_op_done(die, kind, cx);
            kind.is_array_read()
        };
        if self.dies[die as usize].held {
            self.move_to_output(die, cx);
        }
        if !self.relocations.is_empty() {
            self.run_relocations(cx);
        }
        if self.array_cap == u32::MAX {
            self.try_start(die, cx);
        } else {
            self.wake_channel(die, cx);
        }
        // A read's data out just ended: its die hands the channel on to the next waiting die.
        let channel = self.geometry.channel_of_die(die);
        if data_out
            && self.channels[channel as usize].free_at == cx.now
            && self.channels[channel as usize].take_hand_on()
        {
            self.on_channel_free(channel, cx);
        }
        if self.dram.is_some() {
            self.flush(cx);
        }
        if let Some((pending_die, pending_op)) = self.pending_program {
            let state = &mut self.dies[pending_die as usize];
            if state.host_slots < self.die_queue_depth {
                state.queues.host.push_back(pending_op);
                state.host_slots += 1;
                self.pending_program = None;
                self.try_start(pending_die, cx);
            }
        }
        if self.draining || self.durability.waiting() {
            self.program_open_page(cx);
        }
        self.admit(cx);
    }

    /// A host read's data went out: each transaction it served is done.
    #[inline(always)]
    fn host_read_done<O: Observer>(&mut self, die: u32, from_output: bool, cost: ReadCost, cx: &mut Context<O>) {
        let state = &mut self.dies[die as usize];
        let batch = if from_output {
            &mut state.output_batch
        } else {
            &mut state.batch
        };
        // One read served (the common case): its transaction is read out (or decoded, with
        // reliability on), so the list stays in place rather than be taken and put back (which
        // drops the empty list left meanwhile).
        if let [transaction] = batch[..] {
            state.host_slots -= 1;
            if self.reliability.is_some() {
                self.decode_read(transaction, cost, cx);
            } else {
                self.finish_read_transaction(transaction, cx);
            }
            return;
        }
        let served = std::mem::take(batch);
        state.host_slots -= served.len() as u32;
        if self.reliability.is_some() {
            for &transaction in &served {
                self.decode_read(transaction, cost, cx);
            }
        } else {
            for &transaction in &served {
                self.finish_read_transaction(transaction, cx);
            }
        }
        let state = &mut self.dies[die as usize];
        if from_output {
            state.output_batch = served;
        } else {
            state.batch = served;
        }
    }

    /// Any other operation ended on `die`.
    fn other_op_done<O: Observer>(&mut self, die: u32, kind: OpKind, cx: &mut Context<O>) {
        match kind {
            OpKind::HostRead { .. } => unreachable!("a host read ends in `host_read_done`"),
            OpKind::GcRead { block, page, units } => self.on_gc_read_done(block, page, units, cx),
            OpKind::CopyRead { .. } => {}
            OpKind::Program {
                stream,
                pages,
                page_count,
                units,
            } => {
                if self.zoned.is_some() {
                    self.zoned_program_done(&pages[..page_count as usize], cx);
                }
                for &(block, page) in &pages[..page_count as usize] {
                    if self.zoned.is_none() {
                        self.ftl.program_done(block, page);
                    }
                    if page == 0 {
                        if let Some(reliability) = self.reliability.as_mut() {
                            reliability.programmed(block, die, cx.now);
                        }
                    }
                }
                self.issue_ready_erases(cx);
                if self.dram.is_some() {
                    // Write buffer and mapping-table tracking (`flush.rs`).
                    self.on_program_done_dram(stream, &pages[..page_count as usize], units, cx);
                }
                if stream == Stream::User {
                    self.dies[die as usize].host_slots -= 1;
                    if !self.buffered() {
                        self.frame_used -= units;
                        if self.durability.waiting() {
                            self.program_durable(&pages[..page_count as usize], cx);
                        }
                    }
                }
            }
            OpKind::MappingRead { tpage, load } => self.on_mapping_read_done(tpage, load, cx),
            OpKind::MappingProgram => self.on_mapping_program_done(),
            OpKind::Erase { block } => self.on_erase_done(block, cx),
            OpKind::FoldRead(fold) => self.on_fold_read_done(die, fold, cx),
            OpKind::FoldProgram(fold) => self.on_fold_program_done(die, fold, cx),
            OpKind::SlcErase { block } => self.on_slc_erase_done(block),
            OpKind::Probe { id, .. } => self.probe_done[id as usize] = Some(cx.now),
        }
    }
}

/// The bucket of `read_pages` (`ops.rs`, `Die`) of the page holding unit `physical`: a
/// multiplicative hash of the page number, as a die's pages are spaced by a stride that plain low
/// bits would put in one bucket.
#[inline(always)]
fn page_bucket(physical: u32, units_per_page: u32) -> usize {
    bucket_of_page(div(physical, units_per_page))
}

/// [`page_bucket`] of the page numbered `page` (unit / units per page).
#[inline(always)]
fn bucket_of_page(page: u32) -> usize {
    (page.wrapping_mul(0x9E37_79B9) >> 27) as usize
}
