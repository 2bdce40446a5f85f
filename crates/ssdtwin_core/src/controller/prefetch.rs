//! The controller's side of the read cache (`read_cache.rs`): hits served from DRAM, units read
//! from flash kept, writes and trims dropping their units, and read-ahead: the units a sequential
//! stream will read next are read from flash as host-class die reads whose data goes to the cache
//! instead of a command (a prefetch transaction, `command` = [`PREFETCH`]). A prefetch joins its
//! die's queue even when it is full (it counts in the queue's occupancy, so host reads wait behind
//! it) and takes no frame-buffer slot; it is skipped when the unit is cached or already being read
//! ahead, or its data is not on flash.

use super::ops::Transaction;
use super::read_cache::ReadCache;
use super::Controller;
use crate::base::event::Event;
use crate::ftl::mapping::NONE;
use crate::observe::{Context, Observer, StateChange};

/// The `command` of a prefetch transaction: it belongs to no host command.
pub const PREFETCH: u32 = u32::MAX;

impl Controller {
    /// Installs the read cache (`None`: off, the default).
    pub fn set_read_cache(&mut self, cache: Option<Box<ReadCache>>) {
        self.read_cache = cache;
    }

    /// The read cache, if any.
    pub fn read_cache(&self) -> Option<&ReadCache> {
        self.read_cache.as_deref()
    }

    /// A host read transaction of `logical` at the head of the host queue: served from the cache
    /// on a hit (true), in `buffer_read_time`. Looked up once: a miss whose admission is retried
    /// (a full die queue, a translation-page read) goes on as a miss.
    pub(super) fn read_cache_hit<O: Observer>(&mut self, transaction: u32, logical: u32, cx: &mut Context<O>) -> bool {
        if std::mem::replace(&mut self.transactions[transaction].looked_up, true) {
            return false;
        }
        let cache = self.read_cache.as_deref_mut().expect("called with the cache on");
        if !cache.lookup(logical) {
            return false;
        }
        self.frame_used += 1;
        cx.events
            .schedule(cx.now + self.buffer_read_time, Event::BufferReadDone { transaction });
        true
    }

    /// A read command of `units` from `first` arrived: a sequential stream's next units are noted
    /// for read-ahead (issued by `admit`, after the command's own reads).
    pub(super) fn note_read_ahead(&mut self, first: u32, units: u32) {
        let limit = self.ftl.logical_units();
        let cache = self.read_cache.as_deref_mut().expect("called with the cache on");
        if cache.read_ahead == 0 {
            return;
        }
        let (start, end) = cache.read_ahead_range(first, units, limit);
        self.read_ahead.extend(start..end);
    }

    /// Issues the noted read-ahead reads that need flash.
    pub(super) fn issue_read_ahead<O: Observer>(&mut self, cx: &mut Context<O>) {
        let noted = std::mem::take(&mut self.read_ahead);
        for &logical in &noted {
            let cache = self.read_cache.as_deref().expect("read-ahead needs the cache");
            if cache.contains(logical) || self.prefetching.contains(&logical) {
                continue;
            }
            let physical = self.ftl.mapping.physical(logical);
            if physical == NONE || !self.ftl.is_programmed(physical) {
                continue;
            }
            let die = self.geometry.die_of_block(self.geometry.block_of_unit(physical));
            let transaction = self.transactions.insert(Transaction {
                command: PREFETCH,
                logical,
                physical,
                partial: false,
                looked_up: false,
            });
            self.prefetching.insert(logical);
            if let Some(cache) = self.read_cache.as_deref_mut() {
                cache.stats.prefetched += 1;
            }
            self.enqueue_host_read(die, transaction, physical, cx);
        }
        self.read_ahead = noted;
        self.read_ahead.clear();
    }

    /// A host read's data came from flash: the unit is cached (and written into DRAM).
    pub(super) fn cache_read_unit<O: Observer>(&mut self, logical: u32, cx: &mut Context<O>) {
        if let Some(cache) = self.read_cache.as_deref_mut() {
            cache.insert(logical, false);
            cx.die(StateChange::DramAccess {
                bytes: self.geometry.unit_bytes,
            });
        }
    }

    /// A prefetch's data is out of the die: cached unless a write or trim made it stale meanwhile.
    pub(super) fn finish_prefetch<O: Observer>(&mut self, transaction: u32, cx: &mut Context<O>) {
        let logical = self.transactions.remove(transaction).logical;
        if self.prefetching.remove(&logical) {
            if let Some(cache) = self.read_cache.as_deref_mut() {
                cache.insert(logical, true);
            }
            cx.die(StateChange::DramAccess {
                bytes: self.geometry.unit_bytes,
            });
        }
    }

    /// A write or trim of `logical`: a cached or in-flight copy is stale.
    pub(super) fn drop_cached(&mut self, logical: u32) {
        if let Some(cache) = self.read_cache.as_deref_mut() {
            cache.invalidate(logical);
            self.prefetching.remove(&logical);
        }
    }
}
