//! The DRAM read cache and read-ahead (`buffer.read_cache`, `buffer.read_ahead`;
//! docs/models/dram_buffer_plp.md, "Read cache"): mapping units read from flash stay in an LRU
//! cache of controller DRAM, and a read of a cached unit is served in `controller.buffer_read_time`
//! with no flash access, as MQSim's and SimpleSSD's data caches do. Read-ahead watches the read
//! commands for sequential streams (a command that starts where an earlier one ended) and reads
//! the next `read_ahead` bytes of a stream from flash into the cache before the host asks; the
//! prefetches are host-class die reads (`prefetch.rs`). A write or trim of a unit drops it from the
//! cache. Off (`read_cache = "0B"`, the default), the controller holds no cache and nothing here
//! runs.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::buffer::FastHash;

/// No node (list end).
const NIL: u32 = u32::MAX;
/// Sequential streams tracked at once.
const STREAMS: usize = 8;

/// One cached unit in the LRU list.
#[derive(Clone, Copy, Debug)]
struct Node {
    logical: u32,
    previous: u32,
    next: u32,
    /// Read ahead and not yet read by the host.
    prefetched: bool,
}

/// A sequential read stream: where its next command is expected and how far it was read ahead.
#[derive(Clone, Copy, Debug, Default)]
struct ReadStream {
    next: u32,
    ahead_to: u32,
}

/// What the cache counted (from the start of the run, warm-up included).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadCacheStats {
    /// Host read transactions looked up, and those found.
    pub lookups: u64,
    pub hits: u64,
    /// Units read ahead from flash into the cache.
    pub prefetched: u64,
    /// Hits on units read ahead (each counted once).
    pub prefetch_hits: u64,
    /// Units read ahead that left the cache (evicted, or dropped by a write or trim) unread.
    pub prefetch_wasted: u64,
}

/// The LRU cache of mapping units and the read-ahead's streams.
#[derive(Debug)]
pub struct ReadCache {
    capacity: u32,
    /// Units to read ahead of a sequential stream (0: no read-ahead).
    pub read_ahead: u32,
    /// Logical unit → node. The controller's integer hasher (`buffer::FastHash`): SipHash cost
    /// three hashes per read of a cache that misses (look up, insert, evict) for keys no one chooses.
    index: HashMap<u32, u32, FastHash>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Most and least recently used nodes.
    newest: u32,
    oldest: u32,
    streams: [ReadStream; STREAMS],
    next_stream: usize,
    pub stats: ReadCacheStats,
}

impl ReadCache {
    /// A cache of `capacity` units reading `read_ahead` units ahead; `None` when `capacity` is 0.
    pub fn new(capacity: u32, read_ahead: u32) -> Option<ReadCache> {
        (capacity > 0).then(|| ReadCache {
            capacity,
            read_ahead,
            index: HashMap::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            newest: NIL,
            oldest: NIL,
            streams: [ReadStream::default(); STREAMS],
            next_stream: 0,
            stats: ReadCacheStats::default(),
        })
    }

    /// Capacity [units].
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Units held now.
    pub fn held(&self) -> u32 {
        self.index.len() as u32
    }

    /// Units read ahead and still unread in the cache.
    pub fn prefetched_unread(&self) -> u64 {
        self.index
            .values()
            .filter(|&&node| self.nodes[node as usize].prefetched)
            .count() as u64
    }

    /// Whether `logical` is cached (no counting, no reordering).
    pub fn contains(&self, logical: u32) -> bool {
        self.index.contains_key(&logical)
    }

    /// A host read of `logical`: true on a hit, which makes it the most recently used.
    pub fn lookup(&mut self, logical: u32) -> bool {
        self.stats.lookups += 1;
        let Some(&node) = self.index.get(&logical) else {
            return false;
        };
        self.stats.hits += 1;
        if std::mem::take(&mut self.nodes[node as usize].prefetched) {
            self.stats.prefetch_hits += 1;
        }
        self.unlink(node);
        self.push_newest(node);
        true
    }

    /// `logical` was read from flash (`prefetched`: ahead of the host): it becomes the most
    /// recently used unit, evicting the least recently used when the cache is full. Two hash
    /// operations for a new unit in a full cache (its entry, the evicted key's removal): the
    /// evicted unit's node is the new one's.
    pub fn insert(&mut self, logical: u32, prefetched: bool) {
        let full = self.index.len() as u32 >= self.capacity;
        let slot = match (full, self.free.last()) {
            (true, _) => self.oldest,
            (false, Some(&slot)) => slot,
            (false, None) => self.nodes.len() as u32,
        };
        match self.index.entry(logical) {
            Entry::Occupied(entry) => {
                // A host read that missed while the unit was being read ahead has read it itself.
                let node = *entry.get();
                self.nodes[node as usize].prefetched &= prefetched;
                self.unlink(node);
                self.push_newest(node);
                return;
            }
            Entry::Vacant(entry) => {
                entry.insert(slot);
            }
        }
        let node = Node {
            logical,
            previous: NIL,
            next: NIL,
            prefetched,
        };
        if full {
            let evicted = self.nodes[slot as usize];
            self.index.remove(&evicted.logical);
            self.unlisted(slot);
        } else if self.free.pop().is_none() {
            self.nodes.push(node);
        }
        self.nodes[slot as usize] = node;
        self.push_newest(slot);
    }

    /// A write or trim of `logical`: its cached copy is stale.
    pub fn invalidate(&mut self, logical: u32) {
        if let Some(node) = self.index.remove(&logical) {
            self.unlisted(node);
            self.free.push(node);
        }
    }

    /// A read command of `units` units from `first`: the units to read ahead, `[start, end)`,
    /// when it continues a sequential stream (empty otherwise); `limit` bounds the logical space.
    pub fn read_ahead_range(&mut self, first: u32, units: u32, limit: u32) -> (u32, u32) {
        let end = first.saturating_add(units);
        let Some(stream) = self.streams.iter_mut().find(|stream| stream.next == first && first > 0) else {
            // A new stream replaces the oldest one tracked.
            self.streams[self.next_stream] = ReadStream {
                next: end,
                ahead_to: end,
            };
            self.next_stream = (self.next_stream + 1) % STREAMS;
            return (0, 0);
        };
        stream.next = end;
        let start = stream.ahead_to.max(end);
        let window_end = end.saturating_add(self.read_ahead).min(limit);
        stream.ahead_to = window_end.max(start);
        (start, window_end.max(start))
    }

    /// `node`, whose key has left the index, leaves the list (counted as wasted if it was read
    /// ahead and never read).
    fn unlisted(&mut self, node: u32) {
        if self.nodes[node as usize].prefetched {
            self.stats.prefetch_wasted += 1;
        }
        self.unlink(node);
    }

    fn unlink(&mut self, node: u32) {
        let Node { previous, next, .. } = self.nodes[node as usize];
        if previous == NIL {
            self.newest = next;
        } else {
            self.nodes[previous as usize].next = next;
        }
        if next == NIL {
            self.oldest = previous;
        } else {
            self.nodes[next as usize].previous = previous;
        }
    }

    fn push_newest(&mut self, node: u32) {
        self.nodes[node as usize].previous = NIL;
        self.nodes[node as usize].next = self.newest;
        if self.newest != NIL {
            self.nodes[self.newest as usize].previous = node;
        }
        self.newest = node;
        if self.oldest == NIL {
            self.oldest = node;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReadCache;

    #[test]
    fn the_least_recently_used_unit_leaves_a_full_cache() {
        let mut cache = ReadCache::new(2, 0).unwrap();
        cache.insert(1, false);
        cache.insert(2, false);
        assert!(cache.lookup(1), "1 is now the most recent");
        cache.insert(3, false);
        assert!(cache.contains(1) && cache.contains(3) && !cache.contains(2));
        assert_eq!((cache.stats.lookups, cache.stats.hits), (1, 1));
        cache.invalidate(1);
        assert!(!cache.lookup(1));
        assert_eq!(cache.held(), 1);
    }

    #[test]
    fn random_operations_match_a_plain_lru_list() {
        // Lookups, inserts (some of units already held, some read ahead) and invalidations on a
        // small cache, against a vector kept in recency order: what is held, hits, the wasted
        // read-ahead count.
        let mut rng = crate::base::rng::Rng::stream(7, "read cache test");
        let mut draw = move |bound: u64| rng.below(bound) as u32;
        let mut cache = ReadCache::new(6, 0).unwrap();
        let mut order: Vec<(u32, bool)> = Vec::new(); // least recent first
        let (mut hits, mut wasted) = (0, 0);
        for _ in 0..20_000 {
            let logical = draw(12);
            let held = order.iter().position(|&(unit, _)| unit == logical);
            match draw(3) {
                0 => {
                    if let Some(at) = held {
                        hits += 1;
                        order.push((logical, false));
                        order.remove(at);
                    }
                    assert_eq!(cache.lookup(logical), held.is_some());
                }
                1 => {
                    let prefetched = draw(2) == 0;
                    match held {
                        Some(at) => {
                            let (_, was) = order.remove(at);
                            order.push((logical, was && prefetched));
                        }
                        None => {
                            if order.len() == 6 {
                                wasted += u64::from(order.remove(0).1);
                            }
                            order.push((logical, prefetched));
                        }
                    }
                    cache.insert(logical, prefetched);
                }
                _ => {
                    if let Some(at) = held {
                        wasted += u64::from(order.remove(at).1);
                    }
                    cache.invalidate(logical);
                }
            }
            assert_eq!(cache.held() as usize, order.len());
            assert!(order.iter().all(|&(unit, _)| cache.contains(unit)));
            assert_eq!((cache.stats.hits, cache.stats.prefetch_wasted), (hits, wasted));
        }
    }

    #[test]
    fn a_stream_is_read_ahead_once_it_continues_and_no_unit_twice() {
        let mut cache = ReadCache::new(64, 8).unwrap();
        assert_eq!(cache.read_ahead_range(100, 2, 1000), (0, 0), "a new stream");
        assert_eq!(cache.read_ahead_range(102, 2, 1000), (104, 112));
        assert_eq!(cache.read_ahead_range(104, 2, 1000), (112, 114), "only the new part");
        assert_eq!(cache.read_ahead_range(500, 2, 1000), (0, 0), "a random read");
        assert_eq!(cache.read_ahead_range(106, 2, 110), (114, 114), "nothing past the end");
    }

    #[test]
    fn prefetched_units_count_once_when_read_and_when_wasted() {
        let mut cache = ReadCache::new(2, 2).unwrap();
        cache.insert(5, true);
        cache.insert(6, true);
        assert!(cache.lookup(5));
        assert!(cache.lookup(5));
        cache.insert(7, false);
        assert_eq!(cache.stats.prefetch_hits, 1);
        assert_eq!(cache.stats.prefetch_wasted, 1, "6 left unread");
        assert_eq!(cache.prefetched_unread(), 0);
    }
}
