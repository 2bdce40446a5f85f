//! The DRAM models the controller carries (docs/models/dram_buffer_plp.md): the write buffer,
//! the translation-page state and the flush in progress. Data only; `flush.rs` runs them.

use std::collections::HashMap;

use super::buffer::{Entry, FastHash, WriteBuffer};
use crate::ftl::translation::TranslationCache;

/// The write buffer, the translation-page state and the flush in progress.
#[derive(Debug)]
pub struct Dram {
    pub buffer: Option<WriteBuffer>,
    pub mapping: Option<TranslationCache>,
    /// `ftl.mapping_cache = "cached"`: host reads look their translation page up.
    pub cached: bool,
    /// Buffered units placed in programs not yet done, by physical unit.
    pub(super) placed: HashMap<u32, Entry, FastHash>,
    /// User programs of flush batches not yet done.
    pub(super) batch_ops: u32,
    /// Host read transactions waiting for their translation page: (page, transaction).
    pub(super) waiting: Vec<(u32, u32)>,
    /// Reads back at the head of the host queue after their page arrived (looked up uncounted).
    pub(super) retry: Vec<u32>,
    /// Translation-page programs queued or running.
    pub(super) writebacks: u32,
    pub(super) scratch: Vec<u32>,
    pub(super) next_mapping_die: u32,
}

impl Dram {
    /// The DRAM models, or `None` when all are off.
    pub fn new(buffer: Option<WriteBuffer>, mapping: Option<TranslationCache>, cached: bool) -> Option<Box<Dram>> {
        if buffer.is_none() && mapping.is_none() {
            return None;
        }
        Some(Box::new(Dram {
            buffer,
            mapping,
            cached,
            placed: HashMap::default(),
            batch_ops: 0,
            waiting: Vec::new(),
            retry: Vec::new(),
            writebacks: 0,
            scratch: Vec::new(),
            next_mapping_die: 0,
        }))
    }

    /// More translation-page programs are waiting or running than the dies can take at once.
    #[inline]
    pub fn writebacks_behind(&self, dies: u32) -> bool {
        self.writebacks > dies
    }

    /// Bytes of simulator state.
    pub fn state_bytes(&self) -> usize {
        self.buffer.as_ref().map_or(0, WriteBuffer::state_bytes)
            + self.mapping.as_ref().map_or(0, TranslationCache::state_bytes)
            + self.placed.capacity() * 16
    }

    /// Buffered user units not on flash, in the order a power-cut flush writes them: those in
    /// programs first (in physical order), then the waiting ones in flush order (taken out).
    pub fn take_unflushed(&mut self) -> (Vec<Entry>, Vec<Entry>) {
        let mut placed: Vec<(u32, Entry)> = self.placed.iter().map(|(&unit, &entry)| (unit, entry)).collect();
        placed.sort_unstable_by_key(|&(unit, _)| unit);
        let waiting = self
            .buffer
            .as_mut()
            .map(WriteBuffer::drain_in_order)
            .unwrap_or_default();
        (placed.into_iter().map(|(_, entry)| entry).collect(), waiting)
    }
}
