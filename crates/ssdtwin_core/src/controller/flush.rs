//! The DRAM side of the controller (docs/models/dram_buffer_plp.md): the write buffer's
//! admission and flush batches, and the mapping table's translation pages (cache misses,
//! dirty-page limit, write-backs) as die operations.
//!
//! Off (no write buffer, full mapping table, no PLP limit) none of this exists (`dram` is `None`)
//! and the hot path pays one `Option` check per completed program and per die completion.
//!
//! Buffered writes are acknowledged on entry (write-back) or when their program completes
//! (write-through). When the buffer reaches its flush threshold, batches of as many units as the
//! program targets take at once leave it in the flush order, at most two batches in flight (the
//! capacitor paper sizes the user-data buffer at twice the pages programmed in parallel). When a
//! program completes, the mapping entries of its units update their translation pages (dirty;
//! read in first if `cached` and missing); dirty pages beyond the protected count are written
//! back, least recently used first, one program each on the dies in turn. While more write-backs
//! wait than there are dies, no new batch starts (and without a buffer no host write is admitted).
//! A translation page turning dirty or clean is told to the flush order, which LIDF weighs.

use super::buffer::Entry;
use super::dram::Dram;
use super::lookahead::QUEUE_LOOKAHEAD;
use super::ops::OpKind;
use super::Controller;
use crate::base::event::Event;
use crate::ftl::mapping::NONE;
use crate::ftl::Stream;
use crate::observe::{Context, Observer};

impl Controller {
    /// Installs the write buffer and translation-page tracking (`sim/assembly.rs`).
    pub fn set_dram(&mut self, dram: Option<Box<Dram>>) {
        self.dram = dram;
    }

    /// The DRAM models, if any.
    pub fn dram(&self) -> Option<&Dram> {
        self.dram.as_deref()
    }

    pub fn dram_mut(&mut self) -> Option<&mut Dram> {
        self.dram.as_deref_mut()
    }

    /// Whether host writes go through the write buffer.
    #[inline]
    pub(super) fn buffered(&self) -> bool {
        self.dram.as_ref().is_some_and(|dram| dram.buffer.is_some())
    }

    /// Admits a host write into the write buffer; false when it is full (a Head-of-Line event).
    pub(super) fn admit_buffered_write<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) -> bool {
        let logical = self.transactions[transaction].logical;
        let dram = self.dram.as_deref_mut().expect("buffered");
        let buffer = dram.buffer.as_mut().expect("buffered");
        if !buffer.can_take(logical) {
            self.flush(cx);
            return false;
        }
        let (tpage, dirty) = match &dram.mapping {
            Some(mapping) => {
                let tpage = mapping.page_of(logical);
                (tpage, mapping.is_dirty(tpage))
            }
            None => (0, false),
        };
        let command = self.transactions.remove(transaction).command;
        buffer.take(
            Entry {
                logical,
                tpage,
                command,
            },
            dirty,
        );
        if !buffer.write_through {
            self.acknowledge_command_unit(command, cx);
        }
        self.flush(cx);
        true
    }

    /// One unit of a write is safe (in the write buffer, or programmed with write-through); the
    /// last one acknowledges the command.
    fn acknowledge_command_unit<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            if record.fua {
                self.fua_write(command, cx);
            } else {
                cx.events.schedule(cx.now, Event::CommandCompleted { command });
            }
        }
    }

    /// Host read of `logical`: served from the write buffer (`Some(true)`), parked until its
    /// translation page is read (`Some(false)`), or on to flash (`None`).
    pub(super) fn read_from_dram<O: Observer>(
        &mut self,
        transaction: u32,
        logical: u32,
        cx: &mut Context<O>,
    ) -> Option<bool> {
        let dram = self.dram.as_deref_mut()?;
        if let Some(buffer) = dram.buffer.as_mut() {
            if buffer.read_hit(logical) {
                return Some(true);
            }
        }
        if !dram.cached {
            return None;
        }
        let mapping = dram.mapping.as_mut().expect("cached mapping is tracked");
        let tpage = mapping.page_of(logical);
        let counted = match dram.retry.iter().position(|&waited| waited == transaction) {
            Some(index) => {
                dram.retry.swap_remove(index);
                false
            }
            None => true,
        };
        if self.ftl.mapping.physical(logical) == NONE || mapping.lookup(tpage, counted) {
            return None;
        }
        dram.waiting.push((tpage, transaction));
        if !mapping.is_loading(tpage) {
            mapping.set_loading(tpage);
            let die = tpage % self.geometry.dies;
            self.enqueue_op(die, OpKind::MappingRead { tpage, load: true }, false, cx);
        }
        Some(false)
    }

    /// Starts a flush batch if the buffer is at its threshold and the dies can take one.
    pub(super) fn flush<O: Observer>(&mut self, cx: &mut Context<O>) {
        let Some(dram) = self.dram.as_deref_mut() else {
            return;
        };
        let Some(buffer) = dram.buffer.as_mut() else {
            return;
        };
        // Two batches in flight at most (the capacitor paper sizes the user-data buffer at twice
        // the pages programmed in parallel); none while translation-page write-backs lag.
        let programs = self.ftl.targets().len() as u32;
        if !buffer.wants_flush() || dram.batch_ops > programs || dram.writebacks > self.geometry.dies {
            return;
        }
        buffer.stats.batches += 1;
        let units_per_program = self.geometry.units_per_page * self.ftl.targets()[0].plane_count;
        let batch = programs * units_per_program;
        // Writes whose table entries were loaded ahead (`touch_units`): each placement below
        // reads its unit's forward entry and old block, random loads that overlap when batched.
        let mut touched = 0;
        for _ in 0..batch {
            if self.pending_program.is_some() {
                break;
            }
            if self.open_program.is_none() && !self.open_user_program(cx) {
                break;
            }
            if touched == 0 {
                let mut logicals = [NONE; QUEUE_LOOKAHEAD];
                let dram = self.dram.as_deref().expect("checked");
                touched = dram.buffer.as_ref().expect("checked").peek(&mut logicals);
                self.touch_units(&logicals[..touched]);
            }
            touched = touched.saturating_sub(1);
            let Some(entry) = self
                .dram
                .as_deref_mut()
                .expect("checked")
                .buffer
                .as_mut()
                .expect("checked")
                .pop()
            else {
                break;
            };
            let (physical, full) = self.place_in_open_program(entry.logical);
            let dram = self.dram.as_deref_mut().expect("checked");
            dram.placed.insert(physical, entry);
            if full {
                dram.batch_ops += 1;
                self.close_user_program(cx);
            }
        }
        let dram = self.dram.as_deref_mut().expect("checked");
        let buffer = dram.buffer.as_ref().expect("checked");
        // Write-through: nothing more is coming for a partial page; program it as it is.
        if buffer.write_through && buffer.queued == 0 && self.pending_program.is_none() && self.open_program.is_some() {
            dram.batch_ops += 1;
            self.close_user_program(cx);
        }
    }

    /// A program completed: its buffered units leave the buffer, its units' translation pages
    /// become dirty, and dirty pages beyond the protected count are written back.
    pub(super) fn on_program_done_dram<O: Observer>(
        &mut self,
        stream: Stream,
        pages: &[(u32, u32)],
        _units: u32,
        cx: &mut Context<O>,
    ) {
        let mut dram = self.dram.take().expect("called with DRAM models");
        let from_buffer = stream == Stream::User && dram.buffer.is_some();
        let mut durable = Vec::new();
        for &(block, page) in pages {
            for slot in 0..self.geometry.units_per_page {
                let physical = self.geometry.unit_address(block, page, slot);
                if from_buffer {
                    if let Some(entry) = dram.placed.remove(&physical) {
                        let buffer = dram.buffer.as_mut().expect("checked");
                        buffer.flushed(entry.logical);
                        // Durable once no version is held (an older one in flight settles nothing).
                        if self.durability.waiting() && !buffer.holds(entry.logical) {
                            durable.push(entry.logical);
                        }
                        if buffer.write_through {
                            self.acknowledge_command_unit(entry.command, cx);
                        }
                    }
                }
                if dram.mapping.is_some() {
                    let logical = self.ftl.mapping.logical(physical);
                    if logical != NONE {
                        self.update_translation(&mut dram, logical, cx);
                    }
                }
            }
        }
        if from_buffer {
            dram.batch_ops -= 1;
        }
        self.write_back_over_limit(&mut dram, cx);
        self.dram = Some(dram);
        if !durable.is_empty() {
            self.units_durable(durable, cx);
        }
    }

    /// A mapping entry of `logical` changed on flash: its translation page becomes dirty (read in
    /// first when the cache does not hold it).
    pub(super) fn update_translation<O: Observer>(&mut self, dram: &mut Dram, logical: u32, cx: &mut Context<O>) {
        let mapping = dram.mapping.as_mut().expect("checked");
        let tpage = mapping.page_of(logical);
        if !mapping.lookup(tpage, true) {
            let evicted = mapping.load(tpage);
            let die = tpage % self.geometry.dies;
            self.enqueue_op(die, OpKind::MappingRead { tpage, load: false }, false, cx);
            if let Some(written) = evicted {
                self.program_translation_page(dram, cx);
                set_tpage_dirty(dram, written, false);
            }
        }
        if dram.mapping.as_mut().expect("checked").mark_dirty(tpage) {
            set_tpage_dirty(dram, tpage, true);
        }
    }

    /// Writes back the dirty translation pages beyond the protected count, spread over the dies.
    fn write_back_over_limit<O: Observer>(&mut self, dram: &mut Dram, cx: &mut Context<O>) {
        let mapping = match dram.mapping.as_mut() {
            Some(mapping) if mapping.dirty_pages() > mapping.protected => mapping,
            _ => return,
        };
        let mut pages = std::mem::take(&mut dram.scratch);
        mapping.take_over_limit(&mut pages);
        for page in pages.drain(..) {
            self.program_translation_page(dram, cx);
            set_tpage_dirty(dram, page, false);
        }
        dram.scratch = pages;
    }

    /// One translation page programmed, on the next die in turn.
    fn program_translation_page<O: Observer>(&mut self, dram: &mut Dram, cx: &mut Context<O>) {
        let die = dram.next_mapping_die;
        dram.next_mapping_die = (die + 1) % self.geometry.dies;
        dram.writebacks += 1;
        self.enqueue_internal_op(die, OpKind::MappingProgram, cx);
    }

    /// A translation page read completed; a waited-for page is cached now and the reads that
    /// waited for it go back to the head of the host queue.
    pub(super) fn on_mapping_read_done<O: Observer>(&mut self, tpage: u32, load: bool, cx: &mut Context<O>) {
        if !load {
            return;
        }
        let mut dram = self.dram.take().expect("mapping reads need the DRAM models");
        let evicted = dram.mapping.as_mut().expect("tracked").load(tpage);
        if let Some(written) = evicted {
            self.program_translation_page(&mut dram, cx);
            set_tpage_dirty(&mut dram, written, false);
        }
        let mut index = dram.waiting.len();
        while index > 0 {
            index -= 1;
            if dram.waiting[index].0 == tpage {
                let (_, transaction) = dram.waiting.remove(index);
                dram.retry.push(transaction);
                self.host_queue.push_front(transaction);
            }
        }
        self.dram = Some(dram);
    }

    /// A translation page write-back completed.
    pub(super) fn on_mapping_program_done(&mut self) {
        let dram = self.dram.as_deref_mut().expect("write-backs need the DRAM models");
        dram.writebacks -= 1;
    }
}

/// Tells the write buffer's flush order that translation page `tpage` turned dirty or clean.
#[inline]
fn set_tpage_dirty(dram: &mut Dram, tpage: u32, dirty: bool) {
    if let Some(buffer) = dram.buffer.as_mut() {
        buffer.set_tpage_dirty(tpage, dirty);
    }
}

impl Controller {
    /// Without a write buffer: the acknowledged host writes whose programs have not completed
    /// (the open program, a program waiting for its die queue, programs queued or running at the
    /// dies), by logical unit, in the order a flush would program them.
    pub fn unprogrammed_host_writes(&self) -> Vec<u32> {
        let mut pages: Vec<(u32, u32)> = Vec::new();
        let add_op = |op: u32, pages: &mut Vec<(u32, u32)>| {
            if let OpKind::Program {
                stream: Stream::User,
                pages: list,
                page_count,
                ..
            } = self.ops[op].kind
            {
                pages.extend_from_slice(&list[..page_count as usize]);
            }
        };
        for die in &self.dies {
            let mut ops: Vec<u32> = die.running.into_iter().collect();
            if let Some(array) = die.array {
                if !ops.contains(&array.op) {
                    ops.push(array.op);
                }
            }
            ops.extend(die.queues.host.iter().copied());
            for op in ops {
                add_op(op, &mut pages);
            }
        }
        if let Some((_, op)) = self.pending_program {
            add_op(op, &mut pages);
        }
        let mut logicals: Vec<u32> = Vec::new();
        for &(block, page) in &pages {
            for slot in 0..self.geometry.units_per_page {
                let logical = self.ftl.mapping.logical(self.geometry.unit_address(block, page, slot));
                if logical != NONE {
                    logicals.push(logical);
                }
            }
        }
        if let Some(open) = &self.open_program {
            for index in 0..open.filled {
                let (block, page) = open.page_of_unit(index, self.geometry.units_per_page);
                let unit = self
                    .geometry
                    .unit_address(block, page, index % self.geometry.units_per_page);
                let logical = self.ftl.mapping.logical(unit);
                if logical != NONE {
                    logicals.push(logical);
                }
            }
        }
        self.parked_logicals(&mut logicals);
        logicals
    }
}
