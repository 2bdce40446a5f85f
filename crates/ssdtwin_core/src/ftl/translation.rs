//! The mapping table's translation pages in DRAM (docs/models/dram_buffer_plp.md): which are
//! cached, which are dirty, in LRU order.
//!
//! The page-mapping table (`mapping.rs`) is cut into translation pages of `page_size / 4` entries
//! of 4 B, one flash page each, indexed by the global translation directory (a page's number is
//! `logical / entries_per_page`). With `ftl.mapping_cache = "full"` every translation page is in
//! DRAM; with `"cached"` (DFTL) at most `capacity` are, in LRU order, and a miss costs a
//! translation-page read (evicting a dirty page costs a program). Either way a mapping update
//! makes its translation page dirty, and at most `protected` dirty pages may stay in DRAM (what
//! the hold-up capacitors can flush, `power/plp.rs`): beyond that the least recently used dirty
//! pages are written back. The simulation issues those reads and programs as die operations.
//!
//! State per translation page: flags, two LRU links and a use stamp (17 B per `page_size / 4`
//! mapping units: 0.004 B per unit at 16 KiB pages).

const CACHED: u8 = 1;
const DIRTY: u8 = 2;
const LOADING: u8 = 4;
const END: u32 = u32::MAX;

/// An intrusive doubly-linked LRU list over translation pages (front = least recent).
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl List {
    const EMPTY: List = List {
        head: END,
        tail: END,
        len: 0,
    };
}

/// Translation-page cache state and its counters.
#[derive(Debug)]
pub struct TranslationCache {
    /// Mapping entries per translation page.
    pub entries_per_page: u32,
    /// All pages stay cached (`full`) or at most `capacity` are (`cached`).
    cached_mode: bool,
    capacity: u32,
    /// Dirty pages allowed in DRAM.
    pub protected: u32,
    flags: Vec<u8>,
    prev: Vec<u32>,
    next: Vec<u32>,
    stamp: Vec<u64>,
    clock: u64,
    clean: List,
    dirty: List,
    pub counts: TranslationCounts,
}

/// What the cache did, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TranslationCounts {
    pub lookups: u64,
    pub hits: u64,
    pub misses: u64,
    /// Dirty pages written back because more than `protected` were dirty.
    pub limit_writebacks: u64,
    /// Dirty pages written back because the cache evicted them.
    pub eviction_writebacks: u64,
    /// Most dirty pages at once.
    pub max_dirty: u32,
}

impl TranslationCache {
    /// A cache over `pages` translation pages of `entries_per_page` entries; `capacity` cached
    /// pages (`None`: all, the `full` table); at most `protected` dirty.
    pub fn new(pages: u32, entries_per_page: u32, capacity: Option<u32>, protected: u32) -> TranslationCache {
        let cached_mode = capacity.is_some();
        let flags = if cached_mode { 0 } else { CACHED };
        TranslationCache {
            entries_per_page,
            cached_mode,
            capacity: capacity.unwrap_or(pages).max(1),
            protected,
            flags: vec![flags; pages as usize],
            prev: vec![END; pages as usize],
            next: vec![END; pages as usize],
            stamp: vec![0; pages as usize],
            clock: 0,
            clean: List::EMPTY,
            dirty: List::EMPTY,
            counts: TranslationCounts::default(),
        }
    }

    /// Translation pages of the table.
    pub fn pages(&self) -> u32 {
        self.flags.len() as u32
    }

    /// Translation page of `logical`.
    #[inline]
    pub fn page_of(&self, logical: u32) -> u32 {
        logical / self.entries_per_page
    }

    pub fn dirty_pages(&self) -> u32 {
        self.dirty.len
    }

    pub fn cached_pages(&self) -> u32 {
        if self.cached_mode {
            self.clean.len + self.dirty.len
        } else {
            self.pages()
        }
    }

    #[inline]
    pub fn is_dirty(&self, page: u32) -> bool {
        self.flags[page as usize] & DIRTY != 0
    }

    pub fn is_loading(&self, page: u32) -> bool {
        self.flags[page as usize] & LOADING != 0
    }

    pub fn set_loading(&mut self, page: u32) {
        self.flags[page as usize] |= LOADING;
    }

    /// Looks `page` up (`counted`: in the hit ratio; a read retried after its miss is not):
    /// true when it is in DRAM (made most recent).
    pub fn lookup(&mut self, page: u32, counted: bool) -> bool {
        self.counts.lookups += u64::from(counted);
        let flags = self.flags[page as usize];
        if flags & CACHED == 0 {
            self.counts.misses += u64::from(counted);
            return false;
        }
        self.counts.hits += u64::from(counted);
        if self.cached_mode || flags & DIRTY != 0 {
            self.touch(page);
        }
        true
    }

    /// `page` was read from flash and is now cached, clean; returns a dirty page the cache
    /// evicted to make room (to be programmed), if any.
    pub fn load(&mut self, page: u32) -> Option<u32> {
        let index = page as usize;
        self.flags[index] &= !LOADING;
        if self.flags[index] & CACHED != 0 {
            return None;
        }
        let mut written = None;
        if self.cached_pages() >= self.capacity {
            // Evict the least recently used page of the two lists.
            let victim = match (self.clean.head, self.dirty.head) {
                (END, dirty) => dirty,
                (clean, END) => clean,
                (clean, dirty) => {
                    if self.stamp[clean as usize] <= self.stamp[dirty as usize] {
                        clean
                    } else {
                        dirty
                    }
                }
            };
            if self.flags[victim as usize] & DIRTY != 0 {
                self.unlink(victim, true);
                self.counts.eviction_writebacks += 1;
                written = Some(victim);
            } else {
                self.unlink(victim, false);
            }
            self.flags[victim as usize] &= !(CACHED | DIRTY);
        }
        self.flags[index] |= CACHED;
        self.push_back(page, false);
        written
    }

    /// A mapping entry of the cached `page` changed: it is dirty, most recent. True when it was
    /// clean before.
    pub fn mark_dirty(&mut self, page: u32) -> bool {
        let index = page as usize;
        debug_assert!(self.flags[index] & CACHED != 0, "only a cached page is updated");
        if self.flags[index] & DIRTY != 0 {
            self.touch(page);
            return false;
        }
        if self.cached_mode {
            self.unlink(page, false);
        }
        self.flags[index] |= DIRTY;
        self.push_back(page, true);
        self.counts.max_dirty = self.counts.max_dirty.max(self.dirty.len);
        true
    }

    /// Appends to `out` the least recently used dirty pages beyond the protected count, now clean
    /// (their programs are the caller's to issue).
    pub fn take_over_limit(&mut self, out: &mut Vec<u32>) {
        while self.dirty.len > self.protected {
            let page = self.dirty.head;
            self.clean_page(page);
            self.counts.limit_writebacks += 1;
            out.push(page);
        }
    }

    /// The dirty pages, least recently used first (the order a power-cut flush writes them).
    pub fn dirty_in_lru_order(&self) -> Vec<u32> {
        let mut pages = Vec::with_capacity(self.dirty.len as usize);
        let mut page = self.dirty.head;
        while page != END {
            pages.push(page);
            page = self.next[page as usize];
        }
        pages
    }

    /// Every dirty page becomes clean (written back by a power-cut flush, or rebuilt by recovery).
    pub fn clean_all(&mut self) {
        while self.dirty.head != END {
            self.clean_page(self.dirty.head);
        }
    }

    fn clean_page(&mut self, page: u32) {
        self.unlink(page, true);
        self.flags[page as usize] &= !DIRTY;
        if self.cached_mode {
            // Least recent of the clean pages: written back because it was the oldest dirty one.
            self.push_front_clean(page);
        }
    }

    fn touch(&mut self, page: u32) {
        let dirty = self.flags[page as usize] & DIRTY != 0;
        self.unlink(page, dirty);
        self.push_back(page, dirty);
    }

    fn list(&mut self, dirty: bool) -> &mut List {
        if dirty {
            &mut self.dirty
        } else {
            &mut self.clean
        }
    }

    fn push_back(&mut self, page: u32, dirty: bool) {
        self.clock += 1;
        self.stamp[page as usize] = self.clock;
        let tail = self.list(dirty).tail;
        self.prev[page as usize] = tail;
        self.next[page as usize] = END;
        if tail == END {
            self.list(dirty).head = page;
        } else {
            self.next[tail as usize] = page;
        }
        let list = self.list(dirty);
        list.tail = page;
        list.len += 1;
    }

    fn push_front_clean(&mut self, page: u32) {
        let head = self.clean.head;
        self.prev[page as usize] = END;
        self.next[page as usize] = head;
        if head == END {
            self.clean.tail = page;
        } else {
            self.prev[head as usize] = page;
            self.stamp[page as usize] = self.stamp[head as usize];
        }
        self.clean.head = page;
        self.clean.len += 1;
    }

    fn unlink(&mut self, page: u32, dirty: bool) {
        let (prev, next) = (self.prev[page as usize], self.next[page as usize]);
        if prev == END {
            self.list(dirty).head = next;
        } else {
            self.next[prev as usize] = next;
        }
        if next == END {
            self.list(dirty).tail = prev;
        } else {
            self.prev[next as usize] = prev;
        }
        self.list(dirty).len -= 1;
    }

    /// Bytes of simulator state.
    pub fn state_bytes(&self) -> usize {
        self.flags.capacity() + 4 * (self.prev.capacity() + self.next.capacity()) + 8 * self.stamp.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_table_never_misses_and_writes_back_the_oldest_dirty_pages() {
        let mut cache = TranslationCache::new(10, 4, None, 2);
        let mut out = Vec::new();
        for page in [3, 5, 7] {
            assert!(cache.lookup(page, true));
            assert!(cache.mark_dirty(page), "clean before");
        }
        assert!(!cache.mark_dirty(3), "already dirty"); // 3 is now the most recent
        cache.take_over_limit(&mut out);
        assert_eq!(out, vec![5]);
        assert_eq!(cache.dirty_in_lru_order(), vec![7, 3]);
        assert_eq!(cache.counts.misses, 0);
        assert_eq!(cache.counts.max_dirty, 3);
    }

    #[test]
    fn cached_table_misses_loads_and_evicts_least_recent_writing_back_dirty() {
        let mut cache = TranslationCache::new(10, 4, Some(2), 10);
        assert!(!cache.lookup(1, true));
        assert_eq!(cache.load(1), None);
        assert!(cache.mark_dirty(1));
        assert!(!cache.lookup(2, true));
        assert_eq!(cache.load(2), None);
        assert!(cache.lookup(2, true));
        // Full: loading 3 evicts the least recent, page 1, which is dirty.
        assert_eq!(cache.load(3), Some(1));
        assert!(!cache.lookup(1, true));
        assert_eq!(cache.cached_pages(), 2);
        // Loading 4 evicts 2 (clean): nothing to write.
        assert_eq!(cache.load(4), None);
        assert!(cache.lookup(3, true) && !cache.lookup(2, true));
        assert_eq!(cache.counts.eviction_writebacks, 1);
        assert_eq!(cache.counts.hits, 2);
    }
}
