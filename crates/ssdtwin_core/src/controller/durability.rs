//! Flush and Force Unit Access (docs/models/dram_buffer_plp.md, "Flush and FUA").
//!
//! A host write is acknowledged once its data is in controller DRAM (the write buffer, or the
//! frame buffer's open page without one). Until its program completes it is volatile: a power cut
//! loses it unless the hold-up capacitors can flush it. When they can flush every volatile write
//! the drive may hold ([`Durability::protected`]: the energy's protected pages cover the write
//! buffer, or the frame buffer without one), Flush and FUA complete at once, as on an enterprise
//! drive with power-loss protection. Otherwise (NVMe 2.0 base specification, section 7.1 "Flush
//! command"; the command set's FUA bit):
//! - a Flush completes once every write acknowledged before it is programmed. On arrival it
//!   takes the set of units then volatile; each program that completes removes its units; the
//!   Flush completes when its set is empty;
//! - a FUA write completes once its own units are programmed (its acknowledgement waits the same
//!   way, on the units of the write still volatile).
//!
//! While any such wait is open the controller pushes volatile data out: the write buffer
//! flushes whatever its fill level and a partly filled open page is programmed as it is. A unit
//! the host trims is dropped from the waits (no data left to make durable). A unit rewritten after
//! a Flush arrived keeps the Flush waiting until no version of it is held unprogrammed (the
//! latest, with a write buffer; the one the mapping points at, without). The block-mapping and
//! BAST FTLs (the channels paper's) complete Flush and FUA at once: not modelled there. Costs nothing when no Flush or FUA write is in
//! flight: the program-completion hook returns on an empty list.

use std::collections::HashSet;

use super::buffer::FastHash;
use super::waits::Wait;
use super::Controller;
use crate::base::event::Event;
use crate::ftl::mapping::NONE;
use crate::observe::{Context, Observer};

impl Controller {
    /// A Flush arrived: it completes at once when nothing volatile is at risk, or once the units
    /// volatile now are programmed.
    #[cold]
    #[inline(never)]
    pub(super) fn flush_command<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        self.durability.stats.flushes += 1;
        let units: HashSet<u32, FastHash> = if self.durability_at_once() {
            HashSet::default()
        } else if let Some(buffer) = self.dram.as_ref().and_then(|dram| dram.buffer.as_ref()) {
            buffer.volatile_units().collect()
        } else {
            self.unprogrammed_host_writes().into_iter().collect()
        };
        self.wait_or_complete(command, false, units, cx);
    }

    /// The last unit of FUA write `command` is acknowledged: it completes once its units still
    /// volatile are programmed (at once when protected).
    #[cold]
    #[inline(never)]
    pub(super) fn fua_write<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        self.durability.stats.fua_writes += 1;
        let record = self.commands[command];
        let units: HashSet<u32, FastHash> = if self.durability_at_once() {
            HashSet::default()
        } else {
            (record.first_unit..record.first_unit + record.units)
                .filter(|&logical| self.is_volatile(logical))
                .collect()
        };
        self.wait_or_complete(command, true, units, cx);
    }

    fn wait_or_complete<O: Observer>(
        &mut self,
        command: u32,
        fua: bool,
        units: HashSet<u32, FastHash>,
        cx: &mut Context<O>,
    ) {
        if units.is_empty() {
            cx.events.schedule(cx.now, Event::CommandCompleted { command });
            return;
        }
        self.durability.stats.waited += 1;
        self.durability.stats.waited_units += units.len() as u64;
        self.durability.push(Wait { command, fua, units });
        self.push_out_volatile(cx);
    }

    /// Flush and FUA complete at once: the volatile writes are protected; or write-through
    /// acknowledges writes only once programmed (nothing acknowledged is volatile); or the FTL
    /// maps blocks (block mapping and BAST: Flush and FUA are not modelled there).
    fn durability_at_once(&self) -> bool {
        self.durability.protected
            || !self.ftl.is_page_mapped()
            || self
                .dram
                .as_ref()
                .and_then(|dram| dram.buffer.as_ref())
                .is_some_and(|buffer| buffer.write_through)
    }

    /// Whether the latest write of `logical` is acknowledged but not yet programmed.
    pub(crate) fn is_volatile(&self, logical: u32) -> bool {
        if let Some(buffer) = self.dram.as_ref().and_then(|dram| dram.buffer.as_ref()) {
            return buffer.holds(logical);
        }
        let physical = self.ftl.mapping.physical(logical);
        physical != NONE && !self.ftl.is_programmed(physical)
    }

    /// A wait is open: the write buffer flushes whatever its fill level, and the open page is
    /// programmed as it is once nothing waits to be placed before it.
    pub(super) fn push_out_volatile<O: Observer>(&mut self, cx: &mut Context<O>) {
        let waiting = self.durability.waiting();
        if let Some(buffer) = self.dram.as_deref_mut().and_then(|dram| dram.buffer.as_mut()) {
            buffer.force(waiting);
            if waiting {
                self.flush(cx);
            }
        }
        if waiting {
            self.program_open_page(cx);
        }
    }

    /// Units just programmed (or trimmed): the Flushes and FUA writes they complete go back to
    /// the host.
    pub(super) fn units_durable<O: Observer>(&mut self, units: impl IntoIterator<Item = u32>, cx: &mut Context<O>) {
        let mut done = Vec::new();
        for logical in units {
            self.durability.settle(logical, &mut done);
        }
        for command in done {
            cx.events.schedule(cx.now, Event::CommandCompleted { command });
        }
        if !self.durability.waiting() {
            self.push_out_volatile(cx);
        }
    }

    /// A user program of `pages` completed without a write buffer: its units are durable.
    #[cold]
    pub(super) fn program_durable<O: Observer>(&mut self, pages: &[(u32, u32)], cx: &mut Context<O>) {
        let mut units = Vec::new();
        for &(block, page) in pages {
            for slot in 0..self.geometry.units_per_page {
                let logical = self.ftl.mapping.logical(self.geometry.unit_address(block, page, slot));
                if logical != NONE {
                    units.push(logical);
                }
            }
        }
        self.units_durable(units, cx);
    }
}
