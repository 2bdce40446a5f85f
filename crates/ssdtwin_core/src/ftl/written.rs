//! Which chunks of the forward map hold a stored entry other than zero (`mapping.rs`).
//!
//! The forward map is the kernel's zeroed memory until written, and a zero entry reads as
//! `NONE` or as a fill's row (`fill_layout.rs`). A read of such an entry
//! still costs a load from a gigabyte-wide array: on full-size `enterprise_tlc` after `fill`
//! (734 MB of forward map backed by the kernel's one shared zero page) that load missed the TLB on
//! almost every host read (the read case's largest stall, docs/guide/benchmark.md). One bit per
//! chunk of [`CHUNK`] entries (4 KiB of the map, 23 KB of bits for 188 M units) records which
//! chunks may hold a non-zero entry; a lookup in a clear chunk knows its stored value is zero
//! without the load.
//!
//! Invariant: a clear bit means every entry of its chunk is zero. Every write through the mapping
//! sets its chunk's bit first (`Mapping::remap`, `set`, `unmap`, a fill's round, a bulk layout or a
//! snapshot setting them all); bits are never cleared.

/// Entries per chunk (a power of two): 4 KiB of the forward map, one kernel page.
pub const CHUNK_SHIFT: u32 = 10;

/// One bit per [`CHUNK_SHIFT`]-sized chunk of the forward map (module documentation).
#[derive(Clone, Debug, Default)]
pub struct Written {
    bits: Vec<u64>,
}

impl Written {
    /// For a forward map of `entries` entries, all of them zero (`all`: false) or any (`true`).
    pub fn new(entries: usize, all: bool) -> Written {
        let chunks = entries.div_ceil(1 << CHUNK_SHIFT);
        let word = if all { u64::MAX } else { 0 };
        Written {
            bits: vec![word; chunks.div_ceil(64)],
        }
    }

    /// Whether entry `index`'s chunk may hold a non-zero entry.
    #[inline(always)]
    pub fn holds(&self, index: u32) -> bool {
        let chunk = index >> CHUNK_SHIFT;
        self.bits[(chunk >> 6) as usize] & (1 << (chunk & 63)) != 0
    }

    /// Entry `index` is about to be written.
    #[inline(always)]
    pub fn mark(&mut self, index: u32) {
        self.mark_chunk((index >> CHUNK_SHIFT) as usize);
    }

    /// Entries `start..end` are about to be written.
    pub fn mark_range(&mut self, start: usize, end: usize) {
        if start < end {
            for chunk in start >> CHUNK_SHIFT..=(end - 1) >> CHUNK_SHIFT {
                self.mark_chunk(chunk);
            }
        }
    }

    #[inline(always)]
    fn mark_chunk(&mut self, chunk: usize) {
        self.bits[chunk >> 6] |= 1 << (chunk & 63);
    }

    /// Any entry may be written.
    pub fn mark_all(&mut self) {
        self.bits.fill(u64::MAX);
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bits.len() * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_sets_exactly_its_chunk() {
        let entries = 5 << CHUNK_SHIFT | 7;
        let mut written = Written::new(entries, false);
        assert!((0..entries as u32).all(|index| !written.holds(index)));
        written.mark(3 << CHUNK_SHIFT | 5);
        let held: Vec<u32> = (0..entries as u32).filter(|&index| written.holds(index)).collect();
        assert_eq!(held, (3 << CHUNK_SHIFT..4 << CHUNK_SHIFT).collect::<Vec<_>>());
        // The last, partial chunk.
        written.mark_range(entries - 1, entries);
        assert!(written.holds(5 << CHUNK_SHIFT) && !written.holds((5 << CHUNK_SHIFT) - 1));
    }

    #[test]
    fn a_range_marks_the_chunks_it_touches_and_no_other() {
        // 64 chunks and more: the range crosses a word of bits.
        let entries = 130 << CHUNK_SHIFT;
        let mut written = Written::new(entries, false);
        let (start, end) = ((62 << CHUNK_SHIFT) + 1, (65 << CHUNK_SHIFT) + 1);
        written.mark_range(start, end);
        for chunk in 0..130u32 {
            let expected = (62..=65).contains(&chunk);
            assert_eq!(written.holds(chunk << CHUNK_SHIFT), expected, "chunk {chunk}");
        }
        written.mark_range(10, 10);
        assert!(!written.holds(10));
        let all = Written::new(entries, true);
        assert!((0..130u32).all(|chunk| all.holds(chunk << CHUNK_SHIFT | 9)));
        written.mark_all();
        assert!((0..130u32).all(|chunk| written.holds(chunk << CHUNK_SHIFT)));
    }
}
