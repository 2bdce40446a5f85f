//! The DRAM write buffer (docs/models/dram_buffer_plp.md; the capacitor paper, sections 3–4).
//!
//! Host writes are acknowledged once their data is here (write-back) or once programmed
//! (`write_through`); a write to a logical unit already waiting here replaces it in place
//! (coalescing, write-back only); reads of buffered units are served from DRAM. Flushing starts at
//! `flush_threshold` and goes in batches of as many units as the program targets take at once;
//! [`FlushOrder`] (one file per order) decides which waiting writes go first. A unit stays here,
//! readable, until the program that carries it completes. A host trim of a unit drops its waiting
//! write (write-back; `discard`: dropped when its turn to flush comes, never programmed).
//!
//! This is not the frame buffer (`controller.frame_buffer`): that one bounds the transactions in
//! flight between the host interface and the dies; this one holds acknowledged data that has not
//! reached flash, which is what hold-up capacitors must protect.

pub mod entry;
mod fifo;
mod lidf;
pub mod params;

use std::collections::HashMap;

pub use entry::{Entry, FastHash};
use fifo::Fifo;
use lidf::Lidf;
use params::{BufferConfig, FlushOrderKind};

/// The flush order: one file each.
#[derive(Debug)]
pub enum FlushOrder {
    Fifo(Fifo),
    Lidf(Lidf),
}

impl FlushOrder {
    fn push(&mut self, entry: Entry, tpage_dirty: bool) {
        match self {
            FlushOrder::Fifo(order) => order.push(entry),
            FlushOrder::Lidf(order) => order.push(entry, tpage_dirty),
        }
    }

    fn pop(&mut self) -> Option<Entry> {
        match self {
            FlushOrder::Fifo(order) => order.pop(),
            FlushOrder::Lidf(order) => order.pop(),
        }
    }

    /// The next writes' logical units (FIFO; LIDF chooses its next group when it gets there, so
    /// it names none).
    fn peek(&self, out: &mut [u32]) -> usize {
        match self {
            FlushOrder::Fifo(order) => order.peek(out),
            FlushOrder::Lidf(_) => 0,
        }
    }

    fn set_tpage_dirty(&mut self, tpage: u32, dirty: bool) {
        match self {
            FlushOrder::Fifo(_) => {}
            FlushOrder::Lidf(order) => order.set_dirty(tpage, dirty),
        }
    }
}

/// Versions of one logical unit held: waiting to flush, and in programs not yet done.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    queued: u32,
    flushing: u32,
    /// Entries of `queued` a later trim dropped (write-back keeps at most one entry per unit, so
    /// 0 or 1): no longer counted as used or waiting, skipped when their turn comes.
    discard: u32,
}

/// What the buffer did, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct BufferStats {
    /// Unit writes taken in.
    pub writes: u64,
    /// Unit writes that replaced a waiting one.
    pub coalesced: u64,
    /// Unit reads looked up, and those served from the buffer.
    pub reads: u64,
    pub read_hits: u64,
    /// Units handed to programs.
    pub flushed: u64,
    /// Flush batches started.
    pub batches: u64,
    /// Largest occupancy [units].
    pub peak: u32,
    /// Waiting unit writes dropped by a host trim of their unit (never flushed).
    pub trimmed: u64,
}

/// The write buffer.
#[derive(Debug)]
pub struct WriteBuffer {
    /// Capacity [mapping units].
    pub capacity: u32,
    pub write_through: bool,
    /// Occupancy at which flushing starts [units].
    threshold: u32,
    /// Units held: waiting plus in programs not yet done.
    pub used: u32,
    /// Units waiting to flush.
    pub queued: u32,
    /// A Flush or FUA write waits (`durability.rs`): flush whatever the fill level.
    forced: bool,
    held: HashMap<u32, Held, FastHash>,
    order: FlushOrder,
    pub stats: BufferStats,
}

impl WriteBuffer {
    /// A buffer of `capacity` units, or `None` when the configuration turns it off.
    pub fn new(config: &BufferConfig, unit_bytes: u64) -> Option<WriteBuffer> {
        let capacity = (config.capacity.0 / unit_bytes) as u32;
        if capacity == 0 {
            return None;
        }
        let threshold = if config.write_through {
            1
        } else {
            ((config.flush_threshold * f64::from(capacity)).ceil() as u32).clamp(1, capacity)
        };
        Some(WriteBuffer {
            capacity,
            write_through: config.write_through,
            threshold,
            used: 0,
            queued: 0,
            forced: false,
            held: HashMap::default(),
            order: match config.flush_order {
                FlushOrderKind::Fifo => FlushOrder::Fifo(Fifo::default()),
                FlushOrderKind::Lidf => FlushOrder::Lidf(Lidf::default()),
            },
            stats: BufferStats::default(),
        })
    }

    /// Whether a read of `logical` is served from the buffer (counted).
    #[inline]
    pub fn read_hit(&mut self, logical: u32) -> bool {
        self.stats.reads += 1;
        let hit = self.holds(logical);
        self.stats.read_hits += u64::from(hit);
        hit
    }

    /// Whether a write of `logical` can be taken now: it coalesces or there is room.
    pub fn can_take(&self, logical: u32) -> bool {
        self.used < self.capacity || self.coalesces(logical)
    }

    fn coalesces(&self, logical: u32) -> bool {
        !self.write_through && self.held.get(&logical).is_some_and(|held| held.queued > held.discard)
    }

    /// Takes a write of `entry.logical` (call [`Self::can_take`] first); false when it replaced
    /// a waiting write of the same unit (nothing new to flush).
    pub fn take(&mut self, entry: Entry, tpage_dirty: bool) -> bool {
        self.stats.writes += 1;
        // The unit's record looked up once (a coalescing write or a dropped entry has one).
        let held = self.held.entry(entry.logical).or_default();
        if !self.write_through && held.queued > held.discard {
            self.stats.coalesced += 1;
            return false;
        }
        if held.discard > 0 {
            // The entry a trim dropped is still in the flush order: it carries this write now.
            held.discard -= 1;
            self.used += 1;
            self.queued += 1;
            self.stats.peak = self.stats.peak.max(self.used);
            return true;
        }
        held.queued += 1;
        self.used += 1;
        self.queued += 1;
        self.stats.peak = self.stats.peak.max(self.used);
        self.order.push(entry, tpage_dirty);
        true
    }

    /// Translation page `tpage` became dirty (`true`: the first update since it was clean
    /// completed) or clean (written back): an order that weighs the cost of a flush (LIDF) moves
    /// its waiting writes.
    #[inline]
    pub fn set_tpage_dirty(&mut self, tpage: u32, dirty: bool) {
        self.order.set_tpage_dirty(tpage, dirty);
    }

    /// Whether a flush batch should start (the fill level is reached and writes wait).
    #[inline]
    pub fn wants_flush(&self) -> bool {
        self.queued > 0 && (self.used >= self.threshold || self.forced)
    }

    /// Flush whatever the fill level while `on` (a Flush or FUA write waits).
    pub fn force(&mut self, on: bool) {
        self.forced = on;
    }

    /// Whether a write of `logical` is held, waiting or in a program not yet done.
    pub fn holds(&self, logical: u32) -> bool {
        self.held
            .get(&logical)
            .is_some_and(|held| held.queued > held.discard || held.flushing > 0)
    }

    /// The units held, waiting or in programs not yet done.
    pub fn volatile_units(&self) -> impl Iterator<Item = u32> + '_ {
        self.held
            .iter()
            .filter(|(_, held)| held.queued > held.discard || held.flushing > 0)
            .map(|(&logical, _)| logical)
    }

    /// Flushing goes on until no write waits, whatever the fill level (the drain at the end of
    /// a run).
    pub fn flush_all(&mut self) {
        self.threshold = 1;
    }

    /// A host trim of `logical` (write-back only): its waiting write, acknowledged before the
    /// trim, is dropped rather than flushed. With write-through the waiting write is not yet
    /// acknowledged: it is unordered with the trim (NVMe orders no overlapping commands) and is
    /// kept, as if it came after.
    pub fn trim(&mut self, logical: u32) {
        if self.write_through {
            return;
        }
        if let Some(held) = self.held.get_mut(&logical) {
            let dropped = held.queued - held.discard;
            held.discard = held.queued;
            self.used -= dropped;
            self.queued -= dropped;
            self.stats.trimmed += u64::from(dropped);
        }
    }

    /// Whether a trim dropped `entry`, just taken from the flush order (it is forgotten then).
    fn dropped(&mut self, entry: &Entry) -> bool {
        let held = self.held.get_mut(&entry.logical).expect("a queued entry is held");
        if held.discard == 0 {
            return false;
        }
        held.discard -= 1;
        held.queued -= 1;
        if held.queued == 0 && held.flushing == 0 {
            self.held.remove(&entry.logical);
        }
        true
    }

    /// The logical units of the next writes to flush as far as the order knows them, one per
    /// slot of `out` (a write a trim dropped may be among them); how many there were. Their
    /// records are loaded on the way (the flush's look-ahead, `flush.rs`).
    pub fn peek(&self, out: &mut [u32]) -> usize {
        let count = self.order.peek(out);
        // Their records, which `pop` reads: looked up together so the misses overlap.
        let mut found = 0u32;
        for logical in &out[..count] {
            found += u32::from(self.held.contains_key(logical));
        }
        std::hint::black_box(found);
        count
    }

    /// The next write to flush, now in flight (writes a trim dropped are skipped).
    pub fn pop(&mut self) -> Option<Entry> {
        loop {
            let entry = self.order.pop()?;
            // The unit's record looked up once: most entries were not dropped.
            let held = self.held.get_mut(&entry.logical).expect("a queued entry is held");
            if held.discard > 0 {
                self.dropped(&entry);
                continue;
            }
            held.queued -= 1;
            held.flushing += 1;
            self.queued -= 1;
            self.stats.flushed += 1;
            return Some(entry);
        }
    }

    /// The program carrying one flushed version of `logical` completed: its space frees.
    pub fn flushed(&mut self, logical: u32) {
        let held = self.held.get_mut(&logical).expect("a flushed entry is held");
        held.flushing -= 1;
        if held.queued == 0 && held.flushing == 0 {
            self.held.remove(&logical);
        }
        self.used -= 1;
    }

    /// Takes every waiting write out, in flush order (for a power cut); writes a trim dropped are
    /// not at risk and are dropped now.
    pub fn drain_in_order(&mut self) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(self.queued as usize);
        while let Some(entry) = self.order.pop() {
            if self.dropped(&entry) {
                continue;
            }
            let held = self.held.get_mut(&entry.logical).expect("a queued entry is held");
            held.queued -= 1;
            if held.queued == 0 && held.flushing == 0 {
                self.held.remove(&entry.logical);
            }
            self.used -= 1;
            self.queued -= 1;
            entries.push(entry);
        }
        entries
    }

    /// Puts back writes that survived a power cut (they were dumped and are restored), in order.
    pub fn restore(&mut self, entries: &[Entry]) {
        for &entry in entries {
            self.held.entry(entry.logical).or_default().queued += 1;
            self.used += 1;
            self.queued += 1;
            // After a restart no translation page is dirty: plain arrival order within groups.
            self.order.push(entry, false);
        }
    }

    /// Bytes of simulator state (the tables scale with the buffer, not the drive).
    pub fn state_bytes(&self) -> usize {
        self.held.capacity() * (std::mem::size_of::<(u32, Held)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::units::ByteSize;

    fn buffer(capacity_units: u64, order: FlushOrderKind, write_through: bool) -> WriteBuffer {
        let config = BufferConfig {
            capacity: ByteSize(capacity_units * 4096),
            write_through,
            flush_order: order,
            ..BufferConfig::default()
        };
        WriteBuffer::new(&config, 4096).unwrap()
    }

    fn entry(logical: u32) -> Entry {
        Entry {
            logical,
            tpage: logical / 4,
            command: 0,
        }
    }

    #[test]
    fn off_at_zero_capacity() {
        assert!(WriteBuffer::new(&BufferConfig::default(), 4096).is_none());
    }

    #[test]
    fn overwrites_coalesce_and_reads_hit_until_the_program_completes() {
        let mut buffer = buffer(8, FlushOrderKind::Fifo, false);
        assert!(buffer.take(entry(1), false));
        assert!(!buffer.take(entry(1), false), "a waiting unit is replaced in place");
        assert_eq!((buffer.used, buffer.stats.coalesced), (1, 1));
        assert!(buffer.read_hit(1) && !buffer.read_hit(2));
        assert!(!buffer.wants_flush(), "below half full");
        for logical in 2..5 {
            buffer.take(entry(logical), false);
        }
        assert!(buffer.wants_flush(), "half of 8 units");
        let first = buffer.pop().unwrap();
        assert_eq!(first.logical, 1);
        // In flight: a new write of unit 1 is a new version, not a coalesce.
        assert!(buffer.take(entry(1), false));
        assert!(buffer.read_hit(1));
        buffer.flushed(1);
        assert!(buffer.read_hit(1), "the newer version still waits");
        assert_eq!(buffer.used, 4);
    }

    #[test]
    fn write_through_never_coalesces_and_flushes_at_once() {
        let mut buffer = buffer(8, FlushOrderKind::Fifo, true);
        buffer.take(entry(1), false);
        assert!(buffer.wants_flush());
        assert!(buffer.take(entry(1), false));
        assert_eq!(buffer.used, 2);
    }

    #[test]
    fn a_trim_drops_the_waiting_write_and_a_later_write_revives_the_entry() {
        let mut buffer = buffer(8, FlushOrderKind::Lidf, false);
        buffer.take(entry(1), false);
        buffer.take(entry(2), false);
        buffer.trim(1);
        assert!(!buffer.read_hit(1), "the trimmed write no longer serves reads");
        assert_eq!(buffer.pop().map(|e| e.logical), Some(2), "unit 1 is never flushed");
        assert_eq!(buffer.pop(), None);
        assert_eq!((buffer.used, buffer.queued, buffer.stats.trimmed), (1, 0, 1));
        buffer.take(entry(3), false);
        buffer.trim(3);
        assert_eq!(
            (buffer.used, buffer.queued, buffer.stats.trimmed),
            (1, 0, 2),
            "freed at the trim"
        );
        assert!(buffer.take(entry(3), false), "a write after the trim is new data");
        assert_eq!((buffer.used, buffer.queued, buffer.stats.coalesced), (2, 1, 0));
        assert_eq!(buffer.pop().map(|e| e.logical), Some(3), "and is flushed");
        assert_eq!(buffer.stats.trimmed, 2);
    }

    #[test]
    fn a_power_cut_does_not_count_a_trimmed_write_as_waiting() {
        let mut buffer = buffer(8, FlushOrderKind::Fifo, false);
        buffer.take(entry(1), false);
        buffer.take(entry(2), false);
        buffer.trim(2);
        let waiting: Vec<u32> = buffer.drain_in_order().iter().map(|e| e.logical).collect();
        assert_eq!(waiting, vec![1]);
        assert_eq!(buffer.used, 0);
    }

    #[test]
    fn write_through_keeps_a_waiting_write_a_trim_overlaps() {
        let mut buffer = buffer(8, FlushOrderKind::Fifo, true);
        buffer.take(entry(1), false);
        buffer.trim(1);
        assert_eq!(buffer.pop().map(|e| e.logical), Some(1));
    }

    #[test]
    fn full_buffer_takes_only_coalescing_writes() {
        let mut buffer = buffer(2, FlushOrderKind::Lidf, false);
        buffer.take(entry(1), false);
        buffer.take(entry(2), false);
        assert!(!buffer.can_take(3));
        assert!(buffer.can_take(2));
    }
}
