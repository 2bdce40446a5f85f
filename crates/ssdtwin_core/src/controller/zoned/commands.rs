//! The zoned drive's handlers on the controller (see `mod.rs`): commands, admission, programs,
//! resets, the drain.

use super::{OpenGroup, PendingReset};
use crate::base::event::Event;
use crate::base::time::Time;
use crate::controller::ops::{OpKind, Transaction, MAX_PLANES};
use crate::controller::Controller;
use crate::ftl::mapping::NONE;
use crate::ftl::zoned::{ZoneAction, ZoneError, ZoneOp};
use crate::ftl::Stream;
use crate::observe::{Context, Observer};

impl Controller {
    /// A write, append or zone action reached the controller on a zoned namespace. Returns
    /// whether it queued transactions (the caller admits them).
    pub(in crate::controller) fn zoned_command<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) -> bool {
        let record = self.commands[command];
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        zoned.stats.sample(&zoned.flash.zones, cx.now);
        let (lba, units) = (u64::from(record.first_unit), u64::from(record.units));
        let result = match record.zone {
            ZoneOp::None => zoned.flash.write(lba, units).map(|program| program.written),
            ZoneOp::Append => zoned.flash.append(lba, units).map(|program| program.written),
            ZoneOp::Send(action) => {
                let done = self.zone_action(command, lba, action, cx);
                let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
                zoned.stats.sample(&zoned.flash.zones, cx.now);
                if let Err(error) = done {
                    self.reject_zoned(command, error, cx);
                }
                return false;
            }
        };
        zoned.stats.sample(&zoned.flash.zones, cx.now);
        let written = match result {
            Ok(written) => written,
            Err(error) => {
                self.reject_zoned(command, error, cx);
                return false;
            }
        };
        if record.zone == ZoneOp::Append {
            zoned.stats.appends += 1;
            zoned.stats.last_append_lba = written.lba;
        } else {
            zoned.stats.writes += 1;
        }
        zoned.zones[written.zone].queued += record.units;
        let bytes = record.bytes(self.geometry.unit_bytes);
        cx.die(crate::observe::StateChange::DramAccess { bytes });
        self.tally.host_write_bytes += bytes;
        self.tally.host_write_units += units;
        for logical in written.lba..written.lba + units {
            let transaction = self.transactions.insert(Transaction {
                command,
                logical: logical as u32,
                physical: NONE,
                partial: false,
                looked_up: false,
            });
            self.host_queue.push_back(transaction);
        }
        true
    }

    /// A Zone Management Send action on the zone starting at `lba`.
    fn zone_action<O: Observer>(
        &mut self,
        command: u32,
        lba: u64,
        action: ZoneAction,
        cx: &mut Context<O>,
    ) -> Result<(), ZoneError> {
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let zone = zoned.flash.zones.zone_of(lba)?;
        if zoned.flash.zones.zone(zone).start != lba {
            return Err(ZoneError::InvalidField);
        }
        let data_units = zoned.flash.data_units(zone);
        let blocks = zoned.flash.send(zone, action)?;
        zoned.stats.count_action(action);
        let flight = &mut zoned.zones[zone];
        match action {
            ZoneAction::Reset if data_units > 0 || !blocks.is_empty() || !flight.resets.is_empty() => {
                // A reset arriving while another of the zone is pending (a host that does not wait
                // for its reset) runs after it, behind the writes queued between the two.
                let ahead: u32 = flight.resets.iter().map(|reset| reset.before).sum();
                flight.resets.push_back(PendingReset {
                    command,
                    before: flight.queued - ahead,
                    data_units,
                    blocks,
                    started: false,
                });
                if flight.resets.len() == 1 && flight.queued == 0 {
                    self.start_reset(zone, cx);
                }
                return Ok(());
            }
            ZoneAction::Finish if flight.queued > 0 => flight.finish_pending = true,
            ZoneAction::Finish => self.program_zone_group(zone, cx),
            _ => {}
        }
        cx.events.schedule(cx.now, Event::CommandCompleted { command });
        Ok(())
    }

    /// A refused zoned command completes at once with its status and changes nothing.
    fn reject_zoned<O: Observer>(&mut self, command: u32, error: ZoneError, cx: &mut Context<O>) {
        let record = &mut self.commands[command];
        record.error = true;
        record.remaining = 0;
        let is_write = record.zone != ZoneOp::None || !record.is_read;
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        zoned
            .stats
            .reject(error, is_write && !matches!(record.zone, ZoneOp::Send(_)));
        cx.events.schedule(cx.now, Event::CommandCompleted { command });
    }

    /// Admits one unit of a zoned write into its zone's open program; false when it must wait
    /// (a program waiting for its die queue, or a reset of its zone in progress).
    pub(in crate::controller) fn admit_zoned_write<O: Observer>(
        &mut self,
        transaction: u32,
        cx: &mut Context<O>,
    ) -> bool {
        if self.pending_program.is_some() {
            return false;
        }
        let logical = self.transactions[transaction].logical;
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let limits = zoned.flash.zones.limits();
        let zone = (u64::from(logical) / limits.zone_size) as usize;
        let offset = u64::from(logical) % limits.zone_size;
        let mut reset_ready = false;
        if let Some(reset) = zoned.zones[zone].resets.front_mut() {
            if reset.before == 0 {
                return false;
            }
            reset.before -= 1;
            reset_ready = reset.before == 0;
        }
        let map = *zoned.flash.map();
        let physical = map.physical_unit(zone as u32, offset);
        let units_per_page = u64::from(self.geometry.units_per_page);
        let group_pages = zoned.group_pages;
        let flight = &mut zoned.zones[zone];
        flight.queued -= 1;
        if flight.open.is_none() {
            let page = offset / units_per_page;
            let first = page - page % u64::from(group_pages);
            let mut pages = [(0, 0); MAX_PLANES];
            for (index, slot) in pages.iter_mut().take(group_pages as usize).enumerate() {
                let unit = map.physical_unit(zone as u32, (first + index as u64) * units_per_page);
                let block = self.geometry.block_of_unit(unit);
                *slot = (block, self.geometry.page_of_unit(unit));
            }
            flight.open = Some(OpenGroup {
                die: self.geometry.die_of_block(pages[0].0),
                pages,
                filled: 0,
            });
        }
        let open = flight.open.as_mut().expect("opened above");
        open.filled += 1;
        let full =
            u64::from(open.filled) == u64::from(group_pages) * units_per_page || offset + 1 == limits.zone_capacity;
        let finish = flight.queued == 0 && std::mem::take(&mut flight.finish_pending);
        let command = self.transactions.remove(transaction).command;
        self.ftl.place(logical, physical, Stream::User);
        self.acknowledge_write_unit(command, cx);
        if full || finish {
            self.program_zone_group(zone, cx);
        }
        if reset_ready {
            self.start_reset(zone, cx);
        }
        true
    }

    /// Programs zone `zone`'s open group as it is (if it holds data). A partly filled group
    /// programs only its pages holding data: the others stay erased for the zone's next writes,
    /// and a reset erases exactly the blocks written (`ZoneMap::written_blocks`).
    fn program_zone_group<O: Observer>(&mut self, zone: usize, cx: &mut Context<O>) {
        let units_per_page = self.geometry.units_per_page;
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let flight = &mut zoned.zones[zone];
        let Some(open) = flight.open.take() else {
            return;
        };
        flight.programs += 1;
        let kind = OpKind::Program {
            stream: Stream::User,
            pages: open.pages,
            page_count: open.filled.div_ceil(units_per_page) as u8,
            units: open.filled,
        };
        if self.dies[open.die as usize].host_slots < self.die_queue_depth {
            self.enqueue_op(open.die, kind, true, cx);
        } else {
            let op = self.new_op(kind, cx.now);
            self.pending_program = Some((open.die, op));
        }
    }

    /// The writes queued before zone `zone`'s reset are placed: its open data is dropped, its
    /// units unmapped, and its erases issued once its programs in flight are done.
    fn start_reset<O: Observer>(&mut self, zone: usize, cx: &mut Context<O>) {
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let start = zoned.flash.zones.zone(zone).start;
        let flight = &mut zoned.zones[zone];
        if let Some(open) = flight.open.take() {
            // Acknowledged, never programmed: the reset discards it.
            self.frame_used -= open.filled;
        }
        let reset = flight.resets.front_mut().expect("a reset is pending");
        reset.started = true;
        for logical in start..start + reset.data_units {
            let old = self.ftl.mapping.unmap(logical as u32);
            if old != NONE {
                self.ftl.blocks.invalidate(self.geometry.block_of_unit(old));
            }
        }
        if flight.programs == 0 {
            self.issue_reset_erases(zone, cx);
        }
    }

    fn issue_reset_erases<O: Observer>(&mut self, zone: usize, cx: &mut Context<O>) {
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let flight = &mut zoned.zones[zone];
        let reset = flight.resets.front_mut().expect("a reset is pending");
        let blocks = std::mem::take(&mut reset.blocks);
        if blocks.is_empty() {
            self.reset_done(zone, cx);
            return;
        }
        flight.erasing = blocks.len() as u32;
        zoned.stats.reset_erases += blocks.len() as u64;
        for block in blocks {
            let die = self.geometry.die_of_block(block);
            self.enqueue_internal_op(die, OpKind::Erase { block }, cx);
        }
    }

    /// A zoned program finished: its pages are on flash.
    pub(in crate::controller) fn zoned_program_done<O: Observer>(&mut self, pages: &[(u32, u32)], cx: &mut Context<O>) {
        for &(block, _) in pages {
            self.ftl.blocks.programmed_pages[block as usize] += 1;
        }
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        zoned.stats.programmed_pages += pages.len() as u64;
        let zone = zoned.flash.map().zone_of_block(pages[0].0) as usize;
        let flight = &mut zoned.zones[zone];
        flight.programs -= 1;
        if flight.programs == 0 && flight.resets.front().is_some_and(|reset| reset.started) {
            self.issue_reset_erases(zone, cx);
        }
    }

    /// A reset's erase finished: the block is free and worn by one more cycle.
    pub(in crate::controller) fn zoned_erase_done<O: Observer>(&mut self, block: u32, cx: &mut Context<O>) {
        // Not a GC erase: counted in `flash.erases` and the report's `zns.reset_erases`.
        self.ftl.blocks.erase(block);
        if let Some(reliability) = self.reliability.as_mut() {
            reliability.erased(block);
        }
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let zone = zoned.flash.map().zone_of_block(block) as usize;
        let flight = &mut zoned.zones[zone];
        flight.erasing -= 1;
        if flight.erasing == 0 {
            self.reset_done(zone, cx);
        }
    }

    /// Zone `zone`'s running reset is done: it completes, and the next reset of the zone starts
    /// if no write queued before it is left to place.
    fn reset_done<O: Observer>(&mut self, zone: usize, cx: &mut Context<O>) {
        let zoned = self.zoned.as_deref_mut().expect("a zoned namespace");
        let flight = &mut zoned.zones[zone];
        let Some(reset) = flight.resets.pop_front() else {
            return;
        };
        cx.events
            .schedule(cx.now, Event::CommandCompleted { command: reset.command });
        if flight.resets.front().is_some_and(|next| next.before == 0) {
            self.start_reset(zone, cx);
        }
    }

    /// A Zone Append completed: its latency from arrival.
    pub(in crate::controller) fn zone_append_done(&mut self, command: u32, now: Time) {
        let arrival = self.commands[command].arrival;
        if let Some(zoned) = self.zoned.as_deref_mut() {
            zoned.stats.append_latencies_ns.push(now.since(arrival).as_nanos());
        }
    }

    /// Draining: every zone's partly filled program is programmed as it is.
    pub(in crate::controller) fn program_zone_groups<O: Observer>(&mut self, cx: &mut Context<O>) {
        let zones = self.zoned.as_ref().map_or(0, |zoned| zoned.zones.len());
        for zone in 0..zones {
            if self.pending_program.is_some() {
                return;
            }
            let zoned = self.zoned.as_deref().expect("a zoned namespace");
            let flight = &zoned.zones[zone];
            if flight.queued == 0 && flight.open.is_some_and(|open| open.filled > 0) {
                self.program_zone_group(zone, cx);
            }
        }
    }
}
