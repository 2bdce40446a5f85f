//! Host trims (deallocate; docs/models/ftl.md, "Trim"). A trim command names a range of mapping
//! units; when it reaches the controller every unit is unmapped at once (`Ftl::trim`): its flash
//! copy goes stale (GC no longer copies it), a write of it still waiting in the write buffer is
//! dropped (write-back: it was acknowledged before the trim) and, with translation pages tracked,
//! its mapping entry's page turns dirty as an update's does. No flash operation runs for the
//! trim itself and the command completes at once: its latency is the host's command overhead
//! (`host.command_overhead`). Commands in flight are not ordered against each other (NVMe orders
//! no overlapping commands): a trim applies when it arrives, before transactions of earlier
//! commands still waiting in the host queue.

use super::Controller;
use crate::base::event::Event;
use crate::observe::{Context, Observer};

impl Controller {
    /// Trims the units of `command` and completes it.
    #[cold]
    #[inline(never)]
    pub(super) fn trim_command<O: Observer>(&mut self, command: u32, cx: &mut Context<O>) {
        let record = self.commands[command];
        let mut dram = self.dram.take();
        for logical in record.first_unit..record.first_unit + record.units {
            if let Some(buffer) = dram.as_deref_mut().and_then(|dram| dram.buffer.as_mut()) {
                buffer.trim(logical);
            }
            self.drop_cached(logical);
            let mapped = self.ftl.trim(logical);
            if let Some(dram) = dram.as_deref_mut() {
                if mapped && dram.mapping.is_some() {
                    self.update_translation(dram, logical, cx);
                }
            }
        }
        self.dram = dram;
        if self.durability.waiting() {
            let record = self.commands[command];
            self.units_durable(record.first_unit..record.first_unit + record.units, cx);
        }
        self.commands[command].remaining = 0;
        cx.events.schedule(cx.now, Event::CommandCompleted { command });
    }
}
