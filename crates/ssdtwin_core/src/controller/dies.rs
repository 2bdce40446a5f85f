//! Operations on dies and channels, timed as ONFI does it.
//!
//! A read sends its command and address cycles when the channel is granted, senses for t_R with
//! the channel free, then waits for the channel again to move its data out; a program sends its
//! command, address and payload (data in) in one grant, then programs for t_PROG with the channel
//! free; an erase sends its command cycles, then erases. A die takes its next operation as soon
//! as the previous one ends (its page register read out, its array done), and command cycles go
//! before waiting data transfers (`flash/channel.rs`), so dies sharing a channel overlap their
//! array times with each other's transfers.

use super::ops::{OpKind, ProbeAction};
use super::scheduler::{Choice, Scheduler};
use super::suspend::{ArrayKind, ArrayState};
use super::Controller;
use crate::base::event::Event;
use crate::base::time::Time;
use crate::flash::channel::{Grant, Need};
use crate::ftl::Stream;
use crate::observe::{Context, Direction, Observer, OpClass, StateChange};

impl Controller {
    pub(super) fn new_op(&mut self, kind: OpKind, now: Time) -> u32 {
        self.op_sequence += 1;
        self.ops.insert(super::ops::FlashOp {
            kind,
            sequence: self.op_sequence,
            queued_at: now,
        })
    }

    /// Queues an operation in the die's target command queue (`takes_slot`: it counts against the
    /// queue's depth); a host read there may suspend a program or erase.
    pub(super) fn enqueue_op<O: Observer>(&mut self, die: u32, kind: OpKind, takes_slot: bool, cx: &mut Context<O>) {
        let op = self.new_op(kind, cx.now);
        let state = &mut self.dies[die as usize];
        state.queues.host.push_back(op);
        if takes_slot {
            state.host_slots += 1;
        }
        if kind.is_host_read() {
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
            let Some(choice) = scheduler.choose(&state.queues, &self.ops.items, cx.now) else {
                return;
            };
            // Cache read: while the cache register holds data, the array takes reads only.
            let chosen = match choice {
                Choice::Host(index) => state.queues.host[index],
                Choice::Internal => state.queues.internal[0],
            };
            if state.output.is_some() && !self.ops[chosen].kind.is_array_read() {
                return;
            }
            match choice {
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
                let physical = self.transactions[transaction].physical;
                let units_per_page = self.geometry.units_per_page;
                let page_start = physical - physical % units_per_page;
                state.batch.clear();
                state.batch.push(transaction);
                let mut index = 0;
                while index < state.queues.host.len() {
                    let other = state.queues.host[index];
                    if let OpKind::HostRead { transaction: merged } = self.ops[other].kind {
                        let merged_physical = self.transactions[merged].physical;
                        if merged_physical - merged_physical % units_per_page == page_start {
                            state.batch.push(merged);
                            state.queues.host.remove(index);
                            self.ops.remove(other);
                            continue;
                        }
                    }
                    index += 1;
                }
                state.page_type = self.geometry.page_type(self.geometry.page_of_unit(physical)) as u8;
                self.tally.reads += 1;
                Need::Command
            }
            OpKind::GcRead { page, .. } | OpKind::CopyRead { page, .. } => {
                state.page_type = self.geometry.page_type(page) as u8;
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
            OpKind::Probe { action, .. } => match action {
                ProbeAction::Read { page_type } => {
                    state.page_type = page_type;
                    Need::Command
                }
                ProbeAction::Program { .. } => Need::Data,
                ProbeAction::Erase => Need::Command,
            },
        };
        self.request_channel(die, need, Slot::Running, cx);
    }

    /// The die's operation in `slot` needs its channel: it goes on at once if the channel is
    /// free, else it waits.
    #[inline(always)]
    fn request_channel<O: Observer>(&mut self, die: u32, need: Need, slot: Slot, cx: &mut Context<O>) {
        let channel = self.geometry.channel_of_die(die);
        match self.channels[channel as usize].request(cx.now, die, need) {
            Grant::Now => match slot {
                Slot::Running => self.granted(die, need, cx),
                Slot::Output => self.grant_output(die, cx),
            },
            Grant::Wait { wake } => {
                let state = &mut self.dies[die as usize];
                match slot {
                    Slot::Running => state.waiting = Some(need),
                    Slot::Output => state.output_waiting = true,
                }
                if let Some(at) = wake {
                    cx.events.schedule(at, Event::ChannelFree { channel });
                }
            }
        }
    }

    /// The channel's grant ended with dies waiting: the next one goes on.
    pub fn on_channel_free<O: Observer>(&mut self, channel: u32, cx: &mut Context<O>) {
        let Some((die, need)) = self.channels[channel as usize].next_waiter() else {
            return;
        };
        let state = &mut self.dies[die as usize];
        if need == Need::Data && state.output_waiting {
            state.output_waiting = false;
            self.grant_output(die, cx);
        } else {
            let waited = state.waiting.take().expect("a waiting die");
            debug_assert_eq!(waited, need);
            self.granted(die, need, cx);
        }
        if let Some(at) = self.channels[channel as usize].rearm() {
            cx.events.schedule(at, Event::ChannelFree { channel });
        }
    }

    /// `die` has its channel now for what its running operation needs.
    fn granted<O: Observer>(&mut self, die: u32, need: Need, cx: &mut Context<O>) {
        let now = cx.now;
        let op = self.dies[die as usize]
            .running
            .expect("a die with the channel runs an operation");
        let chip = self.geometry.chip_of_die(die);
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        let kind = self.ops[op].kind;
        match (kind, need) {
            (OpKind::Program { pages, units, .. }, _) => {
                let transfer = self.timing.program_transfer(units);
                let loaded = channel.occupy(now, chip, transfer);
                let page_type = self.geometry.page_type(pages[0].1);
                let length = self.timing.program_time(page_type, &mut self.flash_rng);
                cx.die(StateChange::DieOpStart {
                    die,
                    start: loaded,
                    class: OpClass::Program,
                    page_type: page_type as u8,
                    duration: length,
                });
                let bytes = u64::from(units) * self.geometry.unit_bytes;
                report_transfer(cx, die, (loaded, transfer), Direction::In, bytes);
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (OpKind::MappingProgram, _) => {
                // A translation page: a full page of data in, then a lower-page program.
                let transfer = self.timing.program_transfer(self.geometry.units_per_page);
                let loaded = channel.occupy(now, chip, transfer);
                let length = self.timing.program_time(0, &mut self.flash_rng);
                cx.die(StateChange::DieOpStart {
                    die,
                    start: loaded,
                    class: OpClass::Program,
                    page_type: 0,
                    duration: length,
                });
                let bytes = u64::from(self.geometry.units_per_page) * self.geometry.unit_bytes;
                report_transfer(cx, die, (loaded, transfer), Direction::In, bytes);
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (
                OpKind::Probe {
                    action: ProbeAction::Program { page_type },
                    ..
                },
                _,
            ) => {
                let transfer = self.timing.program_transfer(self.geometry.units_per_page);
                let loaded = channel.occupy(now, chip, transfer);
                let length = self.timing.program_time(page_type as usize, &mut self.flash_rng);
                self.begin_array(die, op, ArrayKind::Program, loaded, length, cx);
            }
            (OpKind::Erase { .. }, _) => {
                let start = channel.occupy(now, chip, self.timing.command);
                let erase = self.timing.erase;
                cx.die(StateChange::DieOpStart {
                    die,
                    start,
                    class: OpClass::Erase,
                    page_type: 0,
                    duration: erase,
                });
                self.begin_array(die, op, ArrayKind::Erase, start, erase, cx);
            }
            (
                OpKind::Probe {
                    action: ProbeAction::Erase,
                    ..
                },
                _,
            ) => {
                let start = channel.occupy(now, chip, self.timing.command);
                self.begin_array(die, op, ArrayKind::Erase, start, self.timing.erase, cx);
            }
            (_, Need::Command) => {
                // A read: command and address cycles, then t_R with the channel free.
                let sensing = channel.occupy(now, chip, self.timing.command);
                let page_type = self.dies[die as usize].page_type;
                let t_read = self.timing.read[page_type as usize];
                cx.die(StateChange::DieOpStart {
                    die,
                    start: sensing,
                    class: OpClass::Read,
                    page_type,
                    duration: t_read,
                });
                cx.events.schedule(sensing + t_read, Event::ReadSensed { die });
            }
            (_, Need::Data) => {
                let batch = self.dies[die as usize].batch.len() as u32;
                self.data_out(die, kind, batch, cx);
            }
        }
    }

    /// A read's data out, granted now: only the codewords it needs (column addressing).
    fn data_out<O: Observer>(&mut self, die: u32, kind: OpKind, batch: u32, cx: &mut Context<O>) {
        let units = match kind {
            OpKind::HostRead { .. } => batch,
            OpKind::GcRead { units, .. } => units,
            OpKind::MappingRead { .. } => self.geometry.units_per_page,
            _ => 1,
        };
        let chip = self.geometry.chip_of_die(die);
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        let transfer = self.timing.read_transfer(units);
        let done = channel.occupy(cx.now, chip, transfer);
        // `DieDone` at `done` hands the channel on (`on_die_done`).
        channel.owner_hands_on();
        let bytes = u64::from(units) * self.geometry.unit_bytes;
        report_transfer(cx, die, (done, transfer), Direction::Out, bytes);
        cx.events.schedule(done, Event::DieDone { die });
    }

    /// Cache read: the data of the die's `output` read goes out now.
    fn grant_output<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let state = &self.dies[die as usize];
        let op = state.output.expect("a read in the cache register");
        let batch = state.output_batch.len() as u32;
        self.data_out(die, self.ops[op].kind, batch, cx);
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
        let channel = self.geometry.channel_of_die(die) as usize;
        if !self.channels[channel].is_free(cx.now) {
            cx.die(StateChange::DieSensed { die });
        }
        self.request_channel(die, Need::Data, slot, cx);
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
        let kind = self.ops.remove(op).kind;
        let data_out = kind.is_array_read();
        match kind {
            OpKind::HostRead { .. } => {
                let state = &mut self.dies[die as usize];
                let batch = if from_output {
                    &mut state.output_batch
                } else {
                    &mut state.batch
                };
                let served = std::mem::take(batch);
                state.host_slots -= served.len() as u32;
                for &transaction in &served {
                    self.finish_read_transaction(transaction, cx);
                }
                let state = &mut self.dies[die as usize];
                if from_output {
                    state.output_batch = served;
                } else {
                    state.batch = served;
                }
            }
            OpKind::GcRead { block, page, .. } => self.on_gc_read_done(block, page, cx),
            OpKind::CopyRead { .. } => {}
            OpKind::Program {
                stream,
                pages,
                page_count,
                units,
            } => {
                for &(block, page) in &pages[..page_count as usize] {
                    self.ftl.program_done(block, page);
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
                    }
                }
            }
            OpKind::MappingRead { tpage, load } => self.on_mapping_read_done(tpage, load, cx),
            OpKind::MappingProgram => self.on_mapping_program_done(),
            OpKind::Erase { block } => self.on_erase_done(block, cx),
            OpKind::Probe { id, .. } => self.probe_done[id as usize] = Some(cx.now),
        }
        if self.dies[die as usize].held {
            self.move_to_output(die, cx);
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
        self.admit(cx);
    }
}

/// A data transfer of `die` ending at `end` after `length`, and the `bytes` it moves through
/// controller DRAM.
#[inline(always)]
fn report_transfer<O: Observer>(
    cx: &mut Context<O>,
    die: u32,
    (end, length): (Time, crate::base::time::Duration),
    direction: Direction,
    bytes: u64,
) {
    cx.die(StateChange::Transfer {
        die,
        end,
        length,
        direction,
    });
    cx.die(StateChange::DramAccess { bytes });
}

/// Which of a die's operations asks for the channel: the running one, or (cache read) the read
/// whose data is in the cache register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Running,
    Output,
}
